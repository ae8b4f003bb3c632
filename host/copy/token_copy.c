/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ROD token ("ODX") path beside EXTENDED COPY (LID1): the pairs are cut
 * into batches of at most MAXIMUM RANGE DESCRIPTORS ranges and MAXIMUM TOKEN
 * TRANSFER SIZE blocks; each batch is one POPULATE TOKEN on the source LU
 * (SBC-4 5.8), one RECEIVE ROD TOKEN INFORMATION for the 512-byte token
 * (SPC-4 6.19.4), then WRITE USING TOKEN on the destination LU (SBC-4 5.55)
 * in steps of at most the OPTIMAL TRANSFER COUNT and 64 MiB, each with its
 * OFFSET INTO ROD, the last one with DEL_TKN, each followed by RRTI for the
 * blocks it transferred (a step cut short is continued from where it
 * ended). IMMED is 0 throughout, so the status of each command is final. Every range a command did not do goes to
 * the caller's fallback with the reason decided from its sense (decide.c).
 * All bytes on the wire come from the engine's token codec.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xcm/token.h"
#include "base/xch_base.h"
#include "xch_copy.h"
#include "xos.h"

enum {
	TOK_TIMEOUT_S = 600,
	TOK_RETRIES = 3,
	STEP_CAP_BYTES = 64 << 20,     /* per WRITE USING TOKEN, as Windows does */
	RRTI_ALLOC = 1024,             /* LID4 status + 514-byte token descriptor */
	TOK_BUF = XCM_WUT_HDR_LEN + XCM_MAX_RANGES * XCM_RANGE_DESC_LEN,
};

/* A piece of a pair in a batch: blocks [skip, skip + n) of pairs[pair]. */
struct tseg {
	size_t pair;
	uint64_t skip, n;
};

struct trun {
	struct xcopy_dev *src, *dst;
	const struct xch_pair *pairs;
	unsigned flags;
	struct xcopy_stats *st;
	xch_fallback_fn fb;
	void *fbarg;
	uint32_t bs;
	uint64_t batch_cap, step_cap;  /* blocks */
	uint16_t max_ranges;
	struct tseg seg[XCM_MAX_RANGES];
	size_t nseg;
	uint64_t total;                /* blocks in the batch */
	struct xcm_tok_list *list;
	uint8_t *buf;
};

static uint32_t g_lid4;
static int g_lid4_seeded;

uint32_t
xch_lid4_next(void)
{
	if (!__atomic_exchange_n(&g_lid4_seeded, 1, __ATOMIC_ACQ_REL)) {
		/* another process's ids start elsewhere: pid in the high bits, time below */
		uint32_t seed = ((uint32_t)getpid() << 12) ^ (uint32_t)time(NULL) << 4;

		__atomic_fetch_add(&g_lid4, seed, __ATOMIC_RELAXED);
	}
	return __atomic_fetch_add(&g_lid4, 1, __ATOMIC_RELAXED);
}

static void
tok_stat(struct trun *r, uint64_t *field, bool failed)
{
	if (r->st != NULL && (r->flags & XCOPY_STATS_METHODS)) {
		(*field)++;
		if (failed) {
			r->st->token_failed++;
		}
	}
}

/* One token command (retried while transient); the verdict from its sense. */
static void
tok_cmd(struct trun *r, struct xcopy_dev *dev, const uint8_t *cdb, enum xch_dir dir, size_t len,
	uint64_t *counter, bool sticky, struct xch_verdict *v)
{
	struct xch_cmd c;
	int i, rc;

	for (i = 0; i < TOK_RETRIES; i++) {
		memset(&c, 0, sizeof(c));
		c.cdb = cdb;
		c.cdb_len = XCM_CDB16_LEN;
		c.dir = dir;
		c.buf = r->buf;
		c.len = len;
		c.timeout_s = TOK_TIMEOUT_S;
		rc = xch_dev_exec(dev, &c, r->st);
		xch_decide(rc, &c, 0, v);
		tok_stat(r, counter, v->act != XCH_ACT_DONE);
		if (v->act != XCH_ACT_RETRY && v->act != XCH_ACT_NEW_LIST_ID) {
			break;
		}
	}
	if (v->act != XCH_ACT_DONE) {
		XCH_DBG("%s: token command 83h/84h sa %02xh -> %s (exec %d, status 0x%02x)",
			dev->name, cdb[1] & 0x1F, xcopy_fallback_reason_name(v->reason), rc,
			c.status);
		if (v->act == XCH_ACT_DISABLE && sticky) {
			__atomic_store_n(&dev->tok.disabled_why, v->reason, __ATOMIC_RELAXED);
			__atomic_store_n(&dev->tok.disabled, true, __ATOMIC_RELEASE);
			XCH_INFO("%s: ROD tokens disabled: %s", dev->name,
				 xcopy_fallback_reason_name(v->reason));
		}
	}
}

/* POPULATE TOKEN over the batch's source ranges, then RRTI for the token. */
static bool
populate(struct trun *r, uint8_t token[XCM_ROD_TOKEN_LEN], struct xch_verdict *v)
{
	struct xcm_tok_list *l = r->list;
	uint8_t cdb[XCM_CDB16_LEN];
	uint32_t lid = xch_lid4_next();
	struct xcm_wbuf w;
	struct xcm_rcs4 rs;
	uint64_t blocks;
	bool has;
	size_t i, plen;

	memset(l, 0, sizeof(*l));
	l->nranges = (uint32_t)r->nseg;
	for (i = 0; i < r->nseg; i++) {
		l->range[i].lba = r->pairs[r->seg[i].pair].src_lba + r->seg[i].skip;
		l->range[i].count = (uint32_t)r->seg[i].n;
	}
	w = xcm_wbuf_make(r->buf, TOK_BUF);
	plen = xcm_tok_list_encode(XCM_SA_POPULATE_TOKEN, l, &w);
	xcm_cdb_populate_token(cdb, lid, (uint32_t)plen);
	tok_cmd(r, r->src, cdb, XCH_DIR_OUT, plen, r->st ? &r->st->populate_cmds : NULL, true,
		v);
	if (v->act != XCH_ACT_DONE) {
		return false;
	}
	xcm_cdb_rrti(cdb, lid, RRTI_ALLOC);
	memset(r->buf, 0, RRTI_ALLOC);
	tok_cmd(r, r->src, cdb, XCH_DIR_IN, RRTI_ALLOC, r->st ? &r->st->rrti_cmds : NULL, true, v);
	if (v->act != XCH_ACT_DONE) {
		return false;
	}
	if (xcm_rrti_decode(xcm_span_make(r->buf, RRTI_ALLOC), &rs, &blocks, &has, token) != 0 ||
	    !has || blocks != r->total) {
		/* no token, or one that represents less than asked for */
		v->act = XCH_ACT_FALLBACK;
		v->reason = XCOPY_FB_TOKEN;
		return false;
	}
	return true;
}

/*
 * Calls fn for each piece of blocks [off, off + n) of the batch: segment s,
 * a blocks into it, k blocks long, in order; stops at fn's first non-zero.
 */
typedef int (*seg_fn)(struct trun *r, const struct tseg *s, uint64_t a, uint64_t k, void *arg);

static int
seg_walk(struct trun *r, uint64_t off, uint64_t n, seg_fn fn, void *arg)
{
	uint64_t pos = 0;
	size_t i;
	int rc;

	for (i = 0; i < r->nseg && n > 0; i++) {
		const struct tseg *s = &r->seg[i];
		uint64_t a, k;

		if (off >= pos + s->n) {
			pos += s->n;
			continue;
		}
		a = off - pos;
		k = s->n - a < n ? s->n - a : n;
		rc = fn(r, s, a, k, arg);
		if (rc != 0) {
			return rc;
		}
		off += k;
		n -= k;
		pos += s->n;
	}
	return 0;
}

static int
fall_back_piece(struct trun *r, const struct tseg *s, uint64_t a, uint64_t k, void *arg)
{
	enum xcopy_fallback_reason why = *(const enum xcopy_fallback_reason *)arg;
	int rc;

	rc = r->fb(r->fbarg, &r->pairs[s->pair], s->skip + a, k, why);
	if (rc == 0) {
		xch_stats_fallback(r->st, why, k * r->bs);
	}
	return rc;
}

/* Blocks [off, off + n) of the batch to the fallback (or the -errno it requires). */
static int
fall_back(struct trun *r, uint64_t off, uint64_t n, enum xcopy_fallback_reason why)
{
	if (n > 0 && (r->flags & XCOPY_REQUIRE_OFFLOAD)) {
		return xch_required_errno(r->st, why);
	}
	return seg_walk(r, off, n, fall_back_piece, &why);
}

static int
range_piece(struct trun *r, const struct tseg *s, uint64_t a, uint64_t k, void *arg)
{
	struct xcm_tok_list *l = arg;

	l->range[l->nranges].lba = r->pairs[s->pair].dst_lba + s->skip + a;
	l->range[l->nranges].count = (uint32_t)k;
	l->nranges++;
	return 0;
}

/* The destination ranges of blocks [off, off + n) of the batch into r->list. */
static void
step_ranges(struct trun *r, uint64_t off, uint64_t n)
{
	r->list->nranges = 0;
	(void)seg_walk(r, off, n, range_piece, r->list);
}

/*
 * Blocks a GOOD WRITE USING TOKEN of n blocks transferred: SBC-4 5.55 lets
 * the copy manager write fewer, which RECEIVE ROD TOKEN INFORMATION on its
 * list id tells (TRANSFER COUNT). No answer: the GOOD status stands for n.
 */
static uint64_t
wut_transferred(struct trun *r, uint32_t lid, uint64_t n)
{
	uint8_t cdb[XCM_CDB16_LEN], tok[XCM_ROD_TOKEN_LEN];
	struct xch_verdict v;
	struct xcm_rcs4 rs;
	uint64_t blocks;
	bool has;

	xcm_cdb_rrti(cdb, lid, RRTI_ALLOC);
	memset(r->buf, 0, RRTI_ALLOC);
	tok_cmd(r, r->dst, cdb, XCH_DIR_IN, RRTI_ALLOC, r->st ? &r->st->rrti_cmds : NULL, false,
		&v);
	if (v.act != XCH_ACT_DONE ||
	    xcm_rrti_decode(xcm_span_make(r->buf, RRTI_ALLOC), &rs, &blocks, &has, tok) != 0 ||
	    rs.sa != XCM_SA_WRITE_USING_TOKEN || blocks > n) {
		return n;
	}
	return blocks;
}

/* WRITE USING TOKEN of blocks [off, off + n) of the token; DEL_TKN on the last. */
static uint32_t
write_step(struct trun *r, const uint8_t token[XCM_ROD_TOKEN_LEN], uint64_t off, uint64_t n,
	   struct xch_verdict *v)
{
	uint32_t lid = xch_lid4_next();
	struct xcm_tok_list *l = r->list;
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_wbuf w;
	size_t plen;

	memset(l, 0, sizeof(*l));
	step_ranges(r, off, n);
	l->offset = off;
	l->del_tkn = off + n == r->total;
	memcpy(l->token, token, XCM_ROD_TOKEN_LEN);
	w = xcm_wbuf_make(r->buf, TOK_BUF);
	plen = xcm_tok_list_encode(XCM_SA_WRITE_USING_TOKEN, l, &w);
	xcm_cdb_write_using_token(cdb, lid, (uint32_t)plen);
	tok_cmd(r, r->dst, cdb, XCH_DIR_OUT, plen, r->st ? &r->st->wut_cmds : NULL, true, v);
	return lid;
}

static void
count_token(struct trun *r, uint64_t blocks)
{
	uint64_t b = blocks * r->bs;

	if (r->st != NULL) {
		r->st->bytes_offloaded += b;
		if (r->flags & XCOPY_STATS_METHODS) {
			r->st->bytes_token += b;
		}
	}
	xch_progress_add(XCOPY_METHOD_OFFLOAD, b);
}

/* One batch: a token over its source ranges, written to the destination in steps. */
static int
run_batch(struct trun *r)
{
	uint8_t token[XCM_ROD_TOKEN_LEN];
	struct xch_verdict v;
	uint64_t off = 0, n, got;
	enum xcopy_fallback_reason why;
	uint32_t lid;
	int rc;

	if (xch_tok_off(r->src, &why) || xch_tok_off(r->dst, &why)) {
		return fall_back(r, 0, r->total, why);
	}
	if (!populate(r, token, &v)) {
		return fall_back(r, 0, r->total, v.reason);
	}
	while (off < r->total) {
		n = r->total - off < r->step_cap ? r->total - off : r->step_cap;
		lid = write_step(r, token, off, n, &v);
		got = v.act == XCH_ACT_DONE ? wut_transferred(r, lid, n) : 0;
		if (got > 0) {
			/* fewer than asked: the next step starts where this one ended */
			count_token(r, got);
			off += got;
			continue;
		}
		if (v.act == XCH_ACT_DONE) {
			v.reason = XCOPY_FB_COPY_ABORTED;  /* GOOD, yet nothing transferred */
		}
		/* the token is gone or the device refuses: the rest of the batch too */
		if (v.act == XCH_ACT_DISABLE || v.reason == XCOPY_FB_TOKEN) {
			return fall_back(r, off, r->total - off, v.reason);
		}
		rc = fall_back(r, off, n, v.reason);
		if (rc != 0) {
			return rc;
		}
		off += n;
	}
	return 0;
}

/* Batch and step sizes from both handles' VPD 0x8F limits. */
static void
tok_limits(struct trun *r)
{
	const struct xch_tok_caps *s = &r->src->tok, *d = &r->dst->tok;
	uint64_t cap = STEP_CAP_BYTES / r->bs;

	r->max_ranges = (uint16_t)xos_min_nz(xos_min_nz(s->max_ranges, d->max_ranges),
					     XCM_MAX_RANGES);
	r->batch_cap = xos_min_nz(xos_min_nz(s->max_token_blocks, d->max_token_blocks), UINT32_MAX);
	if (s->max_token_blocks == 0 && d->max_token_blocks == 0) {
		r->batch_cap = cap;    /* nothing reported: one step per token */
	}
	r->step_cap = xos_min_nz(xos_min_nz(d->optimal_blocks, cap), r->batch_cap);
	if (r->step_cap == 0) {
		r->step_cap = 1;
	}
}

/* Every pair, cut into batches; each batch run when full. */
static int
run_batches(struct trun *r, size_t n)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		uint64_t skip = 0;

		while (skip < r->pairs[i].nblocks && rc == 0) {
			uint64_t k = r->pairs[i].nblocks - skip;

			if (k > r->batch_cap - r->total) {
				k = r->batch_cap - r->total;
			}
			r->seg[r->nseg].pair = i;
			r->seg[r->nseg].skip = skip;
			r->seg[r->nseg].n = k;
			r->nseg++;
			r->total += k;
			skip += k;
			if (r->nseg == r->max_ranges || r->total == r->batch_cap) {
				rc = run_batch(r);
				r->nseg = 0;
				r->total = 0;
			}
		}
	}
	if (rc == 0 && r->nseg > 0) {
		rc = run_batch(r);
	}
	return rc;
}

int
xch_token_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst,
		     const struct xch_pair *pairs, size_t n, unsigned flags,
		     struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg)
{
	struct trun *r;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (xch_dev_range_check(src, pairs[i].src_lba, pairs[i].nblocks) != 0 ||
		    xch_dev_range_check(dst, pairs[i].dst_lba, pairs[i].nblocks) != 0) {
			return -ERANGE;
		}
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		return -ENOMEM;
	}
	r->list = calloc(1, sizeof(*r->list));
	r->buf = malloc(TOK_BUF > RRTI_ALLOC ? TOK_BUF : RRTI_ALLOC);
	r->src = src;
	r->dst = dst;
	r->pairs = pairs;
	r->flags = flags;
	r->st = st;
	r->fb = fb;
	r->fbarg = fbarg;
	r->bs = src->caps.block_size;
	rc = r->list == NULL || r->buf == NULL ? -ENOMEM : 0;
	if (rc == 0) {
		enum xcopy_fallback_reason why = xch_tok_blocker(src, dst, flags);

		if (why == XCOPY_FB_NONE) {
			tok_limits(r);
			rc = run_batches(r, n);
		} else {
			rc = xch_fallback_all(pairs, n, r->bs, flags, st, fb, fbarg, why);
		}
	}
	free(r->buf);
	free(r->list);
	free(r);
	return rc;
}
