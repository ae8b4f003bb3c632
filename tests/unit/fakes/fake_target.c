/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The scripted fake target of libxcopy's unit tests (see the header). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_target.h"
#include "ut.h"

struct fk_port {
	struct fk *f;
	int lu;
};

/*
 * Workers of libxcopy's pools that are running now (the unit binary is
 * linked with -Wl,--wrap=xch_pool_run: libxcopy's calls come to
 * __wrap_xch_pool_run below): an EXTENDED COPY held for `gather` is let go
 * as soon as every one of them is inside the fake (f->until_idle), since no
 * other command can come.
 */
static struct fk *g_watched;

static bool
fk_group_done(const struct fk *f)
{
	return f->cur >= f->gather || (f->until_idle && f->live > 0 && f->cur >= f->live);
}

static void
fk_pool_watch(int delta)
{
	struct fk *f = __atomic_load_n(&g_watched, __ATOMIC_ACQUIRE);

	if (f == NULL) {
		return;
	}
	pthread_mutex_lock(&f->mu);
	f->live += delta;
	if (f->cur > 0 && fk_group_done(f)) {
		f->gen++;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
}

unsigned __real_xch_pool_run(void *(*fn)(void *), void **args, unsigned n);
unsigned __wrap_xch_pool_run(void *(*fn)(void *), void **args, unsigned n);

/* One pool worker, counted out of the watched fake as it returns. */
struct fk_worker {
	void *(*fn)(void *);
	void *arg;
};

static void *
fk_worker_main(void *arg)
{
	struct fk_worker *w = arg;
	void *rv = w->fn(w->arg);

	fk_pool_watch(-1);
	return rv;
}

/* libxcopy's xch_pool_run: its n workers counted in before they start, out as they return. */
unsigned
__wrap_xch_pool_run(void *(*fn)(void *), void **args, unsigned n)
{
	struct fk_worker w[XCH_INFLIGHT_MAX];
	void *wa[XCH_INFLIGHT_MAX];
	unsigned i, ran;

	n = n > XCH_INFLIGHT_MAX ? XCH_INFLIGHT_MAX : n == 0 ? 1 : n;
	for (i = 0; i < n; i++) {
		w[i].fn = fn;
		w[i].arg = args[i];
		wa[i] = &w[i];
	}
	fk_pool_watch((int)n);
	ran = __real_xch_pool_run(fk_worker_main, wa, n);
	fk_pool_watch(-(int)(n - ran));    /* the workers that never started */
	return ran;
}

struct fk *
fk_new(void)
{
	struct fk *f = calloc(1, sizeof(*f));
	int i, b;

	UT_ASSERT_FATAL(f != NULL);
	f->last = calloc(1, sizeof(*f->last));
	UT_ASSERT_FATAL(f->last != NULL);
	f->lim = xcm_limits_default;
	f->toklim = xcm_tok_limits_default;
	f->gather_ms = 2000;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->tpc = true;
	f->vpd8f = true;
	for (i = 0; i < FK_LUS; i++) {
		f->lu[i].data = malloc((size_t)FK_BS * FK_BLOCKS);
		UT_ASSERT_FATAL(f->lu[i].data != NULL);
		/* NAA 6 IEEE Registered Extended: 6, company id, vendor specific */
		f->lu[i].naa[0] = 0x60;
		f->lu[i].naa[1] = 0x01;
		f->lu[i].naa[2] = 0x40;
		f->lu[i].naa[3] = 0x50;
		f->lu[i].naa[15] = (uint8_t)(0xA0 + i);
		f->cross_ok[i] = true;
		for (b = 0; b < FK_BLOCKS; b++) {
			/* every block distinct: LU, block number, pattern */
			uint8_t *p = f->lu[i].data + (size_t)b * FK_BS;
			size_t k;
			for (k = 0; k < FK_BS; k++) {
				p[k] = (uint8_t)(b * 7 + k + i * 101);
			}
			xcm_put_be32(p, (uint32_t)b);
			p[4] = (uint8_t)i;
		}
	}
	__atomic_store_n(&g_watched, f, __ATOMIC_RELEASE);
	return f;
}

void
fk_free(struct fk *f)
{
	int i;

	if (__atomic_load_n(&g_watched, __ATOMIC_ACQUIRE) == f) {
		__atomic_store_n(&g_watched, NULL, __ATOMIC_RELEASE);
	}
	for (i = 0; i < FK_LUS; i++) {
		free(f->lu[i].data);
	}
	free(f->last);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
}

static void
fk_sense(struct xch_cmd *c, const struct xcm_err *e)
{
	c->status = XCM_SAM_CHECK_CONDITION;
	c->sense_len = (uint8_t)xcm_sense_build(e, false, c->sense, sizeof(c->sense));
}

static void
fk_fail(struct xch_cmd *c, enum xcm_status st)
{
	struct xcm_err e;

	memset(&e, 0, sizeof(e));
	xcm_err_set(&e, st);
	fk_sense(c, &e);
}

static void
fk_data_in(struct xch_cmd *c, const uint8_t *p, size_t n)
{
	size_t k = n < c->len ? n : c->len;

	memcpy(c->buf, p, k);
	c->resid = c->len - k;
}

static void
fk_inquiry(struct fk_port *pt, struct xch_cmd *c)
{
	struct fk *f = pt->f;
	uint8_t b[256];
	struct xcm_wbuf w;
	size_t n = 0;

	memset(b, 0, sizeof(b));
	if (!(c->cdb[1] & 1)) {
		b[2] = 6;                       /* SPC-4 */
		b[4] = 91;
		b[5] = f->tpc && !f->no_tpc[pt->lu] ? 0x08 : 0;       /* 3PC */
		memcpy(b + 8, "XCMFAKE LU              1.0 ", 28);
		fk_data_in(c, b, 96);
		return;
	}
	b[1] = c->cdb[2];
	switch (c->cdb[2]) {
	case XCM_VPD_DEVICE_ID:
		/* a T10 vendor id (ASCII), then the NAA 6 LU designator */
		n = 4;
		b[n] = XCM_CODE_SET_ASCII;
		b[n + 1] = XCM_DESIG_T10;
		b[n + 3] = 8;
		memcpy(b + n + 4, "XCMFAKE ", 8);
		n += 12;
		/* a target-port association NAA that must not be chosen */
		b[n] = XCM_CODE_SET_BINARY;
		b[n + 1] = (1 << 4) | XCM_DESIG_NAA;
		b[n + 3] = 8;
		b[n + 4] = 0x50;
		n += 12;
		b[n] = XCM_CODE_SET_BINARY;
		b[n + 1] = XCM_DESIG_NAA;
		b[n + 3] = 16;
		memcpy(b + n + 4, f->lu[pt->lu].naa, 16);
		n += 20;
		xcm_put_be16(b + 2, (uint16_t)(n - 4));
		break;
	case XCM_VPD_BLOCK_LIMITS:
		xcm_put_be16(b + 2, 0x3C);
		xcm_put_be32(b + 8, 64);        /* MAXIMUM TRANSFER LENGTH */
		n = 64;
		break;
	case XCM_VPD_TPC:
		if (!f->vpd8f) {
			fk_fail(c, XCM_E_INVALID_FIELD_CDB);
			return;
		}
		w = xcm_wbuf_make(b, sizeof(b));
		xcm_vpd_tpc_encode(&f->lim, 0, &w);
		n = xcm_wbuf_stored(&w);
		break;
	default:
		fk_fail(c, XCM_E_INVALID_FIELD_CDB);
		return;
	}
	fk_data_in(c, b, n);
}

static int
fk_lu_of(struct fk *f, const struct xcm_cscd *cs)
{
	int i;

	for (i = 0; i < FK_LUS; i++) {
		if (cs->desig_type == XCM_DESIG_NAA && cs->desig_len == 16 &&
		    memcmp(cs->desig, f->lu[i].naa, 16) == 0) {
			return i;
		}
	}
	return -1;
}

/* *until = now + ms (CLOCK_REALTIME, what pthread_cond_timedwait measures). */
static void
fk_until(unsigned ms, struct timespec *until)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (long)(ms % 1000) * 1000000;
	if (until->tv_nsec >= 1000000000) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000;
	}
}

/*
 * Outstanding from here to fk_out(): wait (lock released) for `gather` of
 * them, or with until_idle for every running pool worker, or gather_ms.
 */
static void
fk_in(struct fk *f, const struct xcm_list *l)
{
	struct timespec until;
	unsigned gen = f->gen;

	f->cur++;
	if (fk_group_done(f)) {
		f->gen++;      /* the group is complete: release every waiter */
	}
	if (f->cur > f->max_cur) {
		f->max_cur = f->cur;
	}
	if (l->list_id_usage == XCM_LIST_ID_DISCARD && f->lid_busy[l->list_id]++ > 0) {
		f->dup_ids++;
	}
	pthread_cond_broadcast(&f->cv);
	fk_until(f->gather_ms, &until);
	while (f->gen == gen && pthread_cond_timedwait(&f->cv, &f->mu, &until) == 0) {
	}
}

static void
fk_out(struct fk *f, const struct xcm_list *l)
{
	f->cur--;
	if (l->list_id_usage == XCM_LIST_ID_DISCARD) {
		f->lid_busy[l->list_id]--;
	}
}

/*
 * With rw_wait_xcopies: a (not scripted) EXTENDED COPY is held until the
 * host's fallback READ has come, so that commands are left to send while
 * it copies (their arrivals are what fk_rw_wait counts).
 */
static void
fk_hold_until_rw(struct fk *f)
{
	struct timespec until;

	fk_until(f->gather_ms + 1000, &until);   /* gather_ms + 1 s */
	while (!f->rw_started && pthread_cond_timedwait(&f->cv, &f->mu, &until) == 0) {
	}
}

/* Execute a decoded list's segments on the memory LUs. */
static void
fk_run_segs(struct fk_port *pt, const struct xcm_list *l, struct xch_cmd *c)
{
	struct fk *f = pt->f;
	struct xcm_err e;
	uint32_t i;

	memset(&e, 0, sizeof(e));
	if (f->fail_src_lba1 != 0 && l->nseg > 0 && l->seg[0].src_lba + 1 == f->fail_src_lba1) {
		fk_sense(c, &f->fail_err);
		return;
	}
	for (i = 0; i < l->nseg; i++) {
		const struct xcm_segment *s = &l->seg[i];
		int a = fk_lu_of(f, s->src), b = fk_lu_of(f, s->dst);
		uint64_t n = (uint64_t)s->count * FK_BS;

		if (a < 0 || b < 0 || ((a != pt->lu || b != pt->lu) && !f->cross_ok[pt->lu])) {
			if (f->cross_err_set[pt->lu]) {
				e = f->cross_err[pt->lu];
			} else {
				xcm_err_set_segment(&e, XCM_E_CA_NOT_REACHABLE, i, -1);
			}
			fk_sense(c, &e);
			return;
		}
		if (s->src_lba + s->count > FK_BLOCKS || s->dst_lba + s->count > FK_BLOCKS) {
			xcm_err_set_segment(&e, XCM_E_CA_NOT_REACHABLE, i, -1);
			fk_sense(c, &e);
			return;
		}
		memmove(f->lu[b].data + s->dst_lba * FK_BS, f->lu[a].data + s->src_lba * FK_BS, n);
	}
	c->status = XCM_SAM_GOOD;
}

static void
fk_xcopy(struct fk_port *pt, struct xch_cmd *c)
{
	struct fk *f = pt->f;
	struct xcm_list *l;
	struct xcm_err e;
	enum xcm_status st;
	uint32_t plen;
	int k;

	memset(&e, 0, sizeof(e));
	f->xcopy_on[pt->lu]++;
	if (f->no_tpc[pt->lu]) {
		f->nxcopy++;
		fk_fail(c, XCM_E_INVALID_OPCODE);
		return;
	}
	if (f->on_xcopy != NULL) {
		f->on_xcopy(f->on_xcopy_arg);
	}
	for (k = 0; k < f->nscript; k++) {
		if (f->script[k].nth == f->nxcopy) {
			f->nxcopy++;
			pthread_cond_broadcast(&f->cv);   /* fk_rw_wait counts arrivals */
			fk_sense(c, &f->script[k].err);
			return;
		}
	}
	f->nxcopy++;
	pthread_cond_broadcast(&f->cv);
	if (f->rw_wait_xcopies > 0) {
		fk_hold_until_rw(f);
	}
	if (f->always_fail) {
		fk_sense(c, &f->always);
		return;
	}
	l = calloc(1, sizeof(*l));
	UT_ASSERT_FATAL(l != NULL);
	st = xcm_xcopy_cdb_check(c->cdb, c->cdb_len, &plen, &e);
	if (st == XCM_OK) {
		st = xcm_list_parse(plen, xcm_span_make(c->buf, c->len), &f->lim, l, &e);
	}
	/* what the host sent must decode under the limits this target reported */
	CU_ASSERT_EQUAL(st, XCM_OK);
	if (st != XCM_OK) {
		fk_sense(c, &e);
		free(l);
		return;
	}
	if (l->nseg > f->max_nseg_seen) {
		f->max_nseg_seen = l->nseg;
	}
	fk_in(f, l);
	fk_run_segs(pt, l, c);
	fk_out(f, l);
	memcpy(f->last, l, sizeof(*l));
	/* the segments point into the list itself (its CSCDs) */
	for (k = 0; k < (int)l->nseg; k++) {
		f->last->seg[k].src = (const void *)((const char *)f->last +
			((const char *)l->seg[k].src - (const char *)l));
		f->last->seg[k].dst = (const void *)((const char *)f->last +
			((const char *)l->seg[k].dst - (const char *)l));
	}
	free(l);
}

/*
 * A READ that releases the held EXTENDED COPYs and waits (lock released) for
 * rw_wait_xcopies more to arrive, or gather_ms + 1 s: what the host sends
 * while one of its workers copies a range itself. Once.
 */
static void
fk_rw_wait(struct fk *f)
{
	struct timespec until;
	int start = f->nxcopy;

	f->rw_started = true;   /* the held EXTENDED COPYs go on */
	pthread_cond_broadcast(&f->cv);
	fk_until(f->gather_ms + 1000, &until);   /* gather_ms + 1 s */
	while (f->nxcopy - start < f->rw_wait_xcopies &&
	       pthread_cond_timedwait(&f->cv, &f->mu, &until) == 0) {
	}
	f->rw_saw_xcopies = f->nxcopy - start;
	f->rw_wait_xcopies = 0;
}

static int
fk_exec_locked(void *ctx, struct xch_cmd *c)
{
	struct fk_port *pt = ctx;
	struct fk *f = pt->f;
	uint8_t b[256];
	struct xcm_wbuf w;
	uint64_t lba;
	uint32_t n;

	c->status = XCM_SAM_GOOD;
	switch (c->cdb[0]) {
	case XCM_OP_INQUIRY:
		f->nother++;
		fk_inquiry(pt, c);
		break;
	case XCM_OP_SERVICE_ACTION_IN_16:
		f->nother++;
		memset(b, 0, 32);
		xcm_put_be64(b, FK_BLOCKS - 1);
		xcm_put_be32(b + 8, FK_BS);
		fk_data_in(c, b, 32);
		break;
	case XCM_OP_RCR:
		f->nother++;
		/* SPC-4 6.18: LIO needs >= 54 bytes; list id must be 0 for OP PARAMS */
		CU_ASSERT_TRUE(xcm_get_be32(c->cdb + 10) >= 54);
		CU_ASSERT_EQUAL(c->cdb[2], 0);
		if ((c->cdb[1] & 0x1F) != XCM_SA_RCR_OP_PARAMS) {
			fk_fail(c, XCM_E_INVALID_FIELD_CDB);
			break;
		}
		w = xcm_wbuf_make(b, sizeof(b));
		xcm_rcr_encode_op_params(&f->lim, &w);
		fk_data_in(c, b, xcm_wbuf_stored(&w));
		break;
	case XCM_OP_XCOPY:
		fk_xcopy(pt, c);
		break;
	case XCM_OP_READ_16:
	case XCM_OP_WRITE_16:
		f->nrw++;
		UT_ASSERT_FATAL(xcm_cdb_rw16_decode(c->cdb, c->cdb_len, &lba, &n) == 0);
		if (lba + n > FK_BLOCKS || (size_t)n * FK_BS != c->len) {
			fk_fail(c, XCM_E_LBA_OUT_OF_RANGE);
			break;
		}
		if (c->cdb[0] == XCM_OP_READ_16 && f->rw_wait_xcopies > 0) {
			fk_rw_wait(f);
		}
		if (c->cdb[0] == XCM_OP_READ_16) {
			memcpy(c->buf, f->lu[pt->lu].data + lba * FK_BS, c->len);
		} else {
			memcpy(f->lu[pt->lu].data + lba * FK_BS, c->buf, c->len);
		}
		break;
	default:
		fk_fail(c, XCM_E_INVALID_OPCODE);
		break;
	}
	return 0;
}

static void
fk_close(void *ctx)
{
	free(ctx);
}

static int
fk_exec(void *ctx, struct xch_cmd *c)
{
	struct fk *f = ((struct fk_port *)ctx)->f;
	int rc;

	pthread_mutex_lock(&f->mu);
	rc = fk_tok_cmd(f, ((struct fk_port *)ctx)->lu, c) ? 0 : fk_exec_locked(ctx, c);
	pthread_mutex_unlock(&f->mu);
	return rc;
}

const struct xch_transport_ops fk_ops = { "fake", fk_exec, fk_close, true };
const struct xch_transport_ops fk_ops_serial = { "fake1", fk_exec, fk_close, false };

static struct xcopy_dev *
ut_attach(struct fk *f, int lu, const struct xch_transport_ops *ops, uint64_t start_512,
	  uint64_t size_512)
{
	struct fk_port *pt = calloc(1, sizeof(*pt));
	struct xcopy_dev *d = NULL;

	UT_ASSERT_FATAL(pt != NULL);
	pt->f = f;
	pt->lu = lu;
	UT_ASSERT_FATAL(xch_dev_attach(ops, pt, "fake", start_512, size_512, &d) == 0);
	return d;
}

struct xcopy_dev *
ut_open_ops(struct fk *f, int lu, const struct xch_transport_ops *ops)
{
	return ut_attach(f, lu, ops, 0, 0);
}

struct xcopy_dev *
ut_open(struct fk *f, int lu, uint64_t start_512, uint64_t size_512)
{
	return ut_attach(f, lu, &fk_ops, start_512, size_512);
}

bool
ut_block_is(const struct fk *f, int lu, uint64_t lba, int src_lu, uint64_t src_block)
{
	const uint8_t *p = f->lu[lu].data + lba * FK_BS;
	return xcm_get_be32(p) == (uint32_t)src_block && p[4] == src_lu &&
	       p[100] == (uint8_t)(src_block * 7 + 100 + src_lu * 101);
}

bool
ut_range_is(const struct fk *f, int lu, uint64_t lba, int src_lu, uint64_t src_lba, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (!ut_block_is(f, lu, lba + i, src_lu, src_lba + i)) {
			return false;
		}
	}
	return true;
}