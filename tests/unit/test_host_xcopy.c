/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy against a scripted fake target built on the engine itself: the
 * fake decodes every EXTENDED COPY the host sends with xcm_xcopy_cdb_check +
 * xcm_list_parse under the limits it reported (xcm_rcr_encode_op_params /
 * xcm_vpd_tpc_encode), executes the segments on memory LUs, and answers with
 * sense from xcm_sense_build. Scripts inject failures into chosen commands.
 */
#include <errno.h>
#include <string.h>

#include "ut.h"
#include "xcopy_internal.h"

enum {
	FK_LUS = 2,
	FK_BS = 512,
	FK_BLOCKS = 4096,
	FK_SCRIPT = 8,
};

struct fk_lu {
	uint8_t naa[16];
	uint8_t *data;
};

struct fk {
	struct fk_lu lu[FK_LUS];
	struct xcm_limits lim;
	bool tpc;
	bool vpd8f;
	bool cross_ok[FK_LUS];     /* may a command received on LU i reach the other LU */
	struct {
		int nth;               /* 0-based index of the XCOPY to fail */
		struct xcm_err err;
	} script[FK_SCRIPT];
	int nscript;
	bool always_fail;
	struct xcm_err always;
	int nxcopy, nrw, nother;
	int xcopy_on[FK_LUS];      /* XCOPYs received per LU */
	struct xcm_list *last;     /* the last list parsed */
	uint32_t max_nseg_seen;
};

struct fk_port {
	struct fk *f;
	int lu;
};

static struct fk *
fk_new(void)
{
	struct fk *f = calloc(1, sizeof(*f));
	int i, b;

	UT_ASSERT_FATAL(f != NULL);
	f->last = calloc(1, sizeof(*f->last));
	UT_ASSERT_FATAL(f->last != NULL);
	f->lim = xcm_limits_default;
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
	return f;
}

static void
fk_free(struct fk *f)
{
	int i;

	for (i = 0; i < FK_LUS; i++) {
		free(f->lu[i].data);
	}
	free(f->last);
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
		b[5] = f->tpc ? 0x08 : 0;       /* 3PC */
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

static void
fk_xcopy(struct fk_port *pt, struct xch_cmd *c)
{
	struct fk *f = pt->f;
	struct xcm_err e;
	enum xcm_status st;
	uint32_t plen, i;
	int k;

	memset(&e, 0, sizeof(e));
	f->xcopy_on[pt->lu]++;
	for (k = 0; k < f->nscript; k++) {
		if (f->script[k].nth == f->nxcopy) {
			f->nxcopy++;
			fk_sense(c, &f->script[k].err);
			return;
		}
	}
	f->nxcopy++;
	if (f->always_fail) {
		fk_sense(c, &f->always);
		return;
	}
	st = xcm_xcopy_cdb_check(c->cdb, c->cdb_len, &plen, &e);
	if (st == XCM_OK) {
		st = xcm_list_parse(plen, xcm_span_make(c->buf, c->len), &f->lim, f->last, &e);
	}
	/* what the host sent must decode under the limits this target reported */
	CU_ASSERT_EQUAL(st, XCM_OK);
	if (st != XCM_OK) {
		fk_sense(c, &e);
		return;
	}
	if (f->last->nseg > f->max_nseg_seen) {
		f->max_nseg_seen = f->last->nseg;
	}
	for (i = 0; i < f->last->nseg; i++) {
		const struct xcm_segment *s = &f->last->seg[i];
		int a = fk_lu_of(f, s->src), b = fk_lu_of(f, s->dst);
		uint64_t n = (uint64_t)s->count * FK_BS;

		if (a < 0 || b < 0 || ((a != pt->lu || b != pt->lu) && !f->cross_ok[pt->lu])) {
			xcm_err_set_segment(&e, XCM_E_CA_NOT_REACHABLE, i, -1);
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

static int
fk_exec(void *ctx, struct xch_cmd *c)
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

static const struct xch_transport_ops g_fk_ops = { "fake", fk_exec, fk_close };

static struct xcopy_dev *
ut_open(struct fk *f, int lu, uint64_t start_512, uint64_t size_512)
{
	struct fk_port *pt = calloc(1, sizeof(*pt));
	struct xcopy_dev *d = NULL;

	UT_ASSERT_FATAL(pt != NULL);
	pt->f = f;
	pt->lu = lu;
	UT_ASSERT_FATAL(xch_dev_attach(&g_fk_ops, pt, "fake", start_512, size_512, &d) == 0);
	return d;
}

/* Expected content: block b of LU lu as fk_new() wrote it. */
static bool
ut_block_is(const struct fk *f, int lu, uint64_t lba, int src_lu, uint64_t src_block)
{
	const uint8_t *p = f->lu[lu].data + lba * FK_BS;
	return xcm_get_be32(p) == (uint32_t)src_block && p[4] == src_lu &&
	       p[100] == (uint8_t)(src_block * 7 + 100 + src_lu * 101);
}

static bool
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

static void
host_xcopy_discovery_reads_limits_and_designator(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	const struct xcopy_caps *c;

	f->lim.max_seg = 5;
	f->lim.max_seg_len = 64 * 1024;
	d = ut_open(f, 0, 0, 0);
	c = xcopy_dev_caps(d);
	CU_ASSERT_TRUE(c->tpc);
	CU_ASSERT_TRUE(c->has_op_params);
	CU_ASSERT_TRUE(c->has_vpd_tpc);
	CU_ASSERT_TRUE(c->offload);
	CU_ASSERT_TRUE(c->snlid);
	CU_ASSERT_EQUAL(c->max_seg, 5);
	CU_ASSERT_EQUAL(c->max_cscd, f->lim.max_cscd);
	CU_ASSERT_EQUAL(c->max_seg_blocks, 128);
	CU_ASSERT_EQUAL(c->block_size, FK_BS);
	CU_ASSERT_EQUAL(c->num_blocks, FK_BLOCKS);
	CU_ASSERT_EQUAL(c->max_xfer_blocks, 64);
	/* the LU-association NAA 6, not the T10 id nor the port's NAA */
	CU_ASSERT_EQUAL(c->desig_len, 20);
	CU_ASSERT_EQUAL(c->desig[1], XCM_DESIG_NAA);
	CU_ASSERT_EQUAL(memcmp(c->desig + 4, f->lu[0].naa, 16), 0);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_same_lu_offloads_with_one_cscd(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d = ut_open(f, 0, 0, 0);
	struct xcopy_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 10, d, 2000, 300, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2000, 0, 10, 300));
	CU_ASSERT_TRUE(ut_block_is(f, 0, 2300, 0, 2300)); /* nothing past the range */
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_EQUAL(f->nrw, 0);
	CU_ASSERT_EQUAL(st.xcopy_cmds, 1);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 300 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	/* SNLID: LIST ID USAGE 11b with LIST IDENTIFIER 0 */
	CU_ASSERT_EQUAL(f->last->list_id_usage, XCM_LIST_ID_NONE);
	CU_ASSERT_EQUAL(f->last->list_id, 0);
	CU_ASSERT_EQUAL(f->last->ncscd, 1);
	CU_ASSERT_EQUAL(f->last->nseg, 1);
	CU_ASSERT_EQUAL(f->last->seg[0].type, XCM_SEG_B2B);
	CU_ASSERT_EQUAL(f->last->seg[0].count, 300);
	CU_ASSERT_EQUAL(f->last->seg[0].src_lba, 10);
	CU_ASSERT_EQUAL(f->last->seg[0].dst_lba, 2000);
	CU_ASSERT_EQUAL(f->last->cscd[0].block_len, FK_BS);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_splits_by_max_segment_length_and_packs(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	/* 16 blocks per segment, 4 segments per command: 1000 blocks = 63 segs, 16 cmds */
	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 3000, 1000, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 0, 0, 1000));
	CU_ASSERT_EQUAL(st.segments, 63);
	CU_ASSERT_EQUAL(f->nxcopy, 16);
	CU_ASSERT_EQUAL(f->max_nseg_seen, 4);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 1000 * FK_BS);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_between_lus_uses_two_cscds_on_destination(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a = ut_open(f, 0, 0, 0), *b = ut_open(f, 1, 0, 0);
	struct xcopy_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 100, b, 200, 50, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 200, 0, 100, 50));
	CU_ASSERT_EQUAL(f->last->ncscd, 2);
	CU_ASSERT_EQUAL(f->last->seg[0].src, &f->last->cscd[0]);
	CU_ASSERT_EQUAL(f->last->seg[0].dst, &f->last->cscd[1]);
	CU_ASSERT_EQUAL(memcmp(f->last->cscd[1].desig, f->lu[1].naa, 16), 0);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 1); /* push: sent to the destination */
	CU_ASSERT_EQUAL(f->xcopy_on[0], 0);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_unreachable_from_destination_tries_source(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a, *b;
	struct xcopy_stats st;

	f->cross_ok[1] = false; /* the destination cannot reach LU 0; LU 0 can */
	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 0, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 0, 0, 0, 64));
	/* one refused push, then 4 pulls; the pair is remembered for the call */
	CU_ASSERT_EQUAL(f->xcopy_on[1], 1);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 4);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 64 * FK_BS);
	CU_ASSERT_EQUAL(st.xcopy_failed, 1);
	CU_ASSERT_EQUAL(f->nrw, 0);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_unreachable_both_ways_falls_back_per_pair(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a, *b;
	struct xcopy_stats st;

	f->cross_ok[0] = f->cross_ok[1] = false;
	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 500, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 2); /* no more tries for this pair in this call */
	CU_ASSERT_EQUAL(st.bytes_fallback, 64 * FK_BS);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_UNREACHABLE], 64 * FK_BS);
	/* not sticky: the same LU still offloads */
	CU_ASSERT_TRUE(xcopy_dev_caps(b)->offload);
	CU_ASSERT_EQUAL(xcopy_dev_copy(b, 0, b, 1000, 16, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 3);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 16 * FK_BS);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_copy_aborted_falls_back_that_range_only(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	/* the 2nd command: COPY ABORTED, THIRD PARTY DEVICE FAILURE */
	f->nscript = 1;
	f->script[0].nth = 1;
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_DEVICE_FAILURE, 0, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 4);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 48 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 16 * FK_BS);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_COPY_ABORTED], 1);
	CU_ASSERT_TRUE(f->nrw >= 2); /* READ(16) + WRITE(16) */
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_csi_keeps_completed_segments(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	/* the only command fails at segment index 2: 0 and 1 are done */
	f->nscript = 1;
	f->script[0].nth = 0;
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_UNDERRUN, 2, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	/* the fake did not move anything for the scripted failure: the host did it all
	 * for segments 2 and 3, and trusted 0 and 1 */
	CU_ASSERT_EQUAL(st.bytes_offloaded, 32 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 32 * FK_BS);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048 + 32, 0, 32, 32));
	CU_ASSERT_TRUE(ut_block_is(f, 0, 2048, 0, 2048)); /* proves what was trusted */
	xcopy_dev_close(d);
	fk_free(f);
}

/* A command cut at the target's deadline (2E/02) is resent from CSI; no progress: fallback. */
static void
host_xcopy_deadline_cut_resends_rest(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;
	int k;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	f->nscript = 1;
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_DEADLINE, 2, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, XCOPY_REQUIRE_OFFLOAD, &st), 0);
	/* segments 2 and 3 went again as a second command; 0 and 1 trusted */
	CU_ASSERT_EQUAL(f->nxcopy, 2);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 64 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048 + 32, 0, 32, 32));
	/* cut before anything moved, every time: 1 + 3 retries, then the host copies */
	f->nscript = 4;
	for (k = 0; k < 4; k++) {
		f->script[k].nth = f->nxcopy + k;
		xcm_err_set_segment(&f->script[k].err, XCM_E_CA_DEADLINE, 0, -1);
	}
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 3000, 64, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 6);
	CU_ASSERT_EQUAL(st.bytes_fallback, 64 * FK_BS);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 0, 0, 64));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_invalid_opcode_is_sticky(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	f->always_fail = true;
	xcm_err_set(&f->always, XCM_E_INVALID_OPCODE);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_FALSE(xcopy_dev_caps(d)->offload);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_INVALID_OPCODE], 64 * FK_BS);
	/* a second call does not even try */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 100, d, 3000, 8, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 0, 100, 8));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_require_offload_refuses_fallback(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->always_fail = true;
	xcm_err_set_field(&f->always, XCM_E_UNSUPP_SEG_TYPE, false, 16, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	CU_ASSERT_EQUAL(f->nrw, 0);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	CU_ASSERT_TRUE(ut_block_is(f, 0, 2048, 0, 2048)); /* untouched */
	/* device now known not to offload: refused without a command */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_too_many_segments_shrinks(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	/* the target said 4 but refuses the first 4-segment list */
	f->nscript = 1;
	f->script[0].nth = 0;
	xcm_err_set(&f->script[0].err, XCM_E_TOO_MANY_SEG);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 5);
	CU_ASSERT_EQUAL(f->max_nseg_seen, 1);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 64 * FK_BS);
	CU_ASSERT_EQUAL(xcopy_dev_caps(d)->max_seg, 1);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_hardware_error_falls_back_once(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->nscript = 1;
	f->script[0].nth = 0;
	f->script[0].err.status = XCM_E_INTERNAL;
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 8, 0, &st), 0);
	/* HARDWARE ERROR is not transient: one command, then the host copy */
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_OTHER_SENSE], 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 8));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_no_3pc_never_sends(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->tpc = false;
	d = ut_open(f, 0, 0, 0);
	CU_ASSERT_FALSE(xcopy_dev_caps(d)->offload);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 7, d, 1500, 100, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 1500, 0, 7, 100));
	CU_ASSERT_EQUAL(f->nxcopy, 0);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_NO_3PC], 100 * FK_BS);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 7, d, 1500, 100, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_without_snlid_rotates_list_ids(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	uint8_t first;

	f->lim.snlid = false;
	f->vpd8f = false; /* also: VPD 0x8F absent is fine */
	d = ut_open(f, 0, 0, 0);
	CU_ASSERT_FALSE(xcopy_dev_caps(d)->has_vpd_tpc);
	CU_ASSERT_TRUE(xcopy_dev_caps(d)->offload);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2000, 8, 0, NULL), 0);
	CU_ASSERT_EQUAL(f->last->list_id_usage, XCM_LIST_ID_DISCARD);
	first = f->last->list_id;
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2100, 8, 0, NULL), 0);
	CU_ASSERT_NOT_EQUAL(f->last->list_id, first);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_partition_window_offsets_lbas(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *p;

	/* a partition starting at sector 1024 (512-byte sectors), 2048 sectors long */
	p = ut_open(f, 0, 1024, 2048);
	CU_ASSERT_EQUAL(xcopy_dev_caps(p)->part_start, 1024);
	CU_ASSERT_EQUAL(xcopy_dev_caps(p)->part_blocks, 2048);
	CU_ASSERT_EQUAL(xcopy_dev_copy(p, 0, p, 1000, 10, 0, NULL), 0);
	CU_ASSERT_EQUAL(f->last->seg[0].src_lba, 1024);
	CU_ASSERT_EQUAL(f->last->seg[0].dst_lba, 2024);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2024, 0, 1024, 10));
	/* past the partition's end */
	CU_ASSERT_EQUAL(xcopy_dev_copy(p, 0, p, 2040, 10, 0, NULL), -EINVAL);
	xcopy_dev_close(p);
	fk_free(f);
}

static void
host_xcopy_pairs_outside_window_never_sent(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a, *b;
	struct xch_pair p = { .src_lba = 512, .dst_lba = 2048, .nblocks = 16 };
	uint8_t before[FK_BS], buf[2 * FK_BS];
	int n0;

	/* two neighbour partitions of one LU: a = blocks 512+1024, b = 2048+1024 */
	a = ut_open(f, 0, 512, 1024);
	b = ut_open(f, 0, 2048, 1024);
	memcpy(before, f->lu[0].data + (size_t)3072 * FK_BS, FK_BS);
	n0 = f->nxcopy;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL(f->nxcopy, n0 + 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 512, 16));
	/* the destination range runs one block into b's neighbour */
	p.dst_lba = 2048 + 1024 - 15;
	n0 = f->nxcopy + f->nrw;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), -ERANGE);
	/* source below a's window; LBA arithmetic that would wrap */
	p.dst_lba = 2048;
	p.src_lba = 511;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), -ERANGE);
	p.src_lba = UINT64_MAX - 4;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), -ERANGE);
	CU_ASSERT_EQUAL(f->nxcopy + f->nrw, n0);
	CU_ASSERT_EQUAL(memcmp(before, f->lu[0].data + (size_t)3072 * FK_BS, FK_BS), 0);
	/* READ/WRITE fallbacks are held to the window as well */
	CU_ASSERT_EQUAL(xch_dev_write(b, 2048 + 1024, 1, before, NULL), -ERANGE);
	CU_ASSERT_EQUAL(xch_dev_read(a, 512 + 1024 - 1, 2, buf, NULL), -ERANGE);
	CU_ASSERT_EQUAL(f->nxcopy + f->nrw, n0);
	CU_ASSERT_EQUAL(xch_dev_read(a, 512 + 1024 - 1, 1, buf, NULL), 0);
	CU_ASSERT_EQUAL(f->nrw, n0 - f->nxcopy + 1);
	CU_ASSERT_EQUAL(memcmp(before, f->lu[0].data + (size_t)3072 * FK_BS, FK_BS), 0);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_argument_checks(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d = ut_open(f, 0, 0, 0);
	struct xcopy_stats st;

	memset(&st, 0, sizeof(st));
	/* overlapping ranges on one LU */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 50, 100, 0, &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 8, XCOPY_REQUIRE_OFFLOAD | XCOPY_NO_OFFLOAD,
				       &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 8, 0x80, &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, FK_BLOCKS, d, 0, 1, 0, &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 0, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 0);
	/* NO_OFFLOAD: host copy only */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 8, XCOPY_NO_OFFLOAD, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 0);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_REQUESTED], 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 100, 0, 0, 8));
	xcopy_dev_close(d);
	fk_free(f);
}

static CU_TestInfo g_tests[] = {
	{ "discovery_reads_limits_and_designator",
	  host_xcopy_discovery_reads_limits_and_designator },
	{ "same_lu_offloads_with_one_cscd", host_xcopy_same_lu_offloads_with_one_cscd },
	{ "splits_by_max_segment_length_and_packs",
	  host_xcopy_splits_by_max_segment_length_and_packs },
	{ "between_lus_uses_two_cscds_on_destination",
	  host_xcopy_between_lus_uses_two_cscds_on_destination },
	{ "unreachable_from_destination_tries_source",
	  host_xcopy_unreachable_from_destination_tries_source },
	{ "unreachable_both_ways_falls_back_per_pair",
	  host_xcopy_unreachable_both_ways_falls_back_per_pair },
	{ "copy_aborted_falls_back_that_range_only",
	  host_xcopy_copy_aborted_falls_back_that_range_only },
	{ "csi_keeps_completed_segments", host_xcopy_csi_keeps_completed_segments },
	{ "deadline_cut_resends_rest", host_xcopy_deadline_cut_resends_rest },
	{ "invalid_opcode_is_sticky", host_xcopy_invalid_opcode_is_sticky },
	{ "require_offload_refuses_fallback", host_xcopy_require_offload_refuses_fallback },
	{ "too_many_segments_shrinks", host_xcopy_too_many_segments_shrinks },
	{ "hardware_error_falls_back_once", host_xcopy_hardware_error_falls_back_once },
	{ "no_3pc_never_sends", host_xcopy_no_3pc_never_sends },
	{ "without_snlid_rotates_list_ids", host_xcopy_without_snlid_rotates_list_ids },
	{ "partition_window_offsets_lbas", host_xcopy_partition_window_offsets_lbas },
	{ "pairs_outside_window_never_sent", host_xcopy_pairs_outside_window_never_sent },
	{ "argument_checks", host_xcopy_argument_checks },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_xcopy, g_tests)
