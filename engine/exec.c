/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Copy manager execution: runs a parsed LID1 list against a backend.
 *
 * Phase A resolves every CSCD a segment names and checks block sizes, byte
 * counts, limits and ranges for every segment, so that nothing moves when
 * the list cannot complete for a reason known up front (check 8 of engine/param.c).
 * Phase B copies the segments in order (SPC-4 copy processing) and reports the first
 * failing sub-I/O as COPY ABORTED 0D/01 with its sense forwarded. Each
 * segment moves in chunks of at most opts->chunk_len bytes, and a command
 * with a deadline stops between chunks before it (COPY ABORTED 2E/02).
 *
 * The engine never touches the OS: everything goes through the backend ops.
 */
#include <errno.h>
#include <string.h>

#include "xcm/exec.h"

/* Segment pointer targets (SD=1, relative to the segment descriptor: 02h, 0Ah) */
enum {
	SEG_F_SRC_ID = 4,
	SEG_F_DST_ID = 6,
	SEG_F_B2B_COUNT = 10,          /* 02h: BLOCK DEVICE NUMBER OF BLOCKS */
	SEG_F_OFF_COUNT = 8,           /* 0Ah: NUMBER OF BYTES */
	SEG_F_SRC_LBA = 12,
	SEG_F_DST_LBA = 20,
	SEG_F_TOKEN_RANGES = 536,      /* C0h: the first block device range descriptor */
	SEG_F_RANGE_LEN = 16,
};

/* One resolved CSCD: each CSCD of the list is resolved at most once. */
struct res_lu {
	const struct xcm_cscd *cscd;
	struct xt_lu *lu;
	uint32_t bs;
	uint64_t nblocks;
};

struct res_cache {
	uint32_t n;
	struct res_lu e[XCM_MAX_CSCD + 1]; /* + the implicit FFFFh CSCD */
};

/* Where one segment reads and writes, in bytes. */
struct plan {
	const struct res_lu *src;
	const struct res_lu *dst;
	uint64_t src_off;
	uint64_t dst_off;
	uint64_t bytes;
};

struct exec_ctx {
	const struct xcm_list *l;
	const struct xcm_limits *lim;
	const struct xcm_backend_ops *ops;
	void *ctx;
	struct xt_lu *self;
	struct res_cache cache;
	uint64_t deadline;      /* ops->now_ms() time; 0: none */
	uint64_t chunk;         /* bytes per ops->copy() call */
	uint64_t worst_ms;      /* slowest chunk of this command so far */
};

/*
 * The LU a CSCD other than FFFFh designates, through the backend's registry
 * (field: the segment's CSCD ID field, for the segment pointer).
 */
static enum xcm_status
lookup_lu(struct exec_ctx *x, uint32_t i, const struct xcm_cscd *c, int field,
	  struct xt_lu **lu, struct xcm_err *err)
{
	int rc;

	/* E4h NUL bit - the CSCD designates no LU; nothing to reach */
	if (c->nul) {
		xcm_err_set_segment(err, XCM_E_CA_UNREACHABLE, i, field);
		return err->status;
	}
	/*
	 * SPC-4: the CSCD names a device that is not a block device,
	 * but 02h/0Ah segments move blocks: INCORRECT COPY TARGET DEVICE TYPE.
	 */
	if (c->pdt != XCM_PDT_BLOCK) {
		xcm_err_set_segment(err, XCM_E_CA_INCORRECT_TYPE, i, field);
		return err->status;
	}
	*lu = NULL;
	rc = x->ops->resolve(x->ctx, x->self, c, lu);
	if (rc == 0 && *lu == NULL) {
		rc = -ENOENT;
	}
	if (rc != 0) {
		/*
		 * check 8 (as CTL): unresolvable -> 08/04 UNREACHABLE COPY TARGET;
		 * an LU the access rule hides, or any other failure, -> 0D/02 COPY
		 * TARGET DEVICE NOT REACHABLE (as LIO, tcmu-runner).
		 */
		xcm_err_set_segment(err, rc == -ENOENT ? XCM_E_CA_UNREACHABLE :
				    XCM_E_CA_NOT_REACHABLE, i, field);
		return err->status;
	}
	return XCM_OK;
}

/*
 * Resolve one CSCD for segment i (field: the segment's CSCD ID field). The
 * cache is keyed by CSCD pointer (equality only), so a CSCD that several
 * segments name is looked up once.
 */
static enum xcm_status
resolve_cscd(struct exec_ctx *x, uint32_t i, const struct xcm_cscd *c, int field,
	     const struct res_lu **out, struct xcm_err *err)
{
	struct res_lu *r;
	struct xt_lu *lu = x->self;   /* CSCD ID FFFFh: the LU that received the command */
	enum xcm_status st;
	uint32_t k;

	for (k = 0; k < x->cache.n; k++) {
		if (x->cache.e[k].cscd == c) {
			*out = &x->cache.e[k];
			return XCM_OK;
		}
	}
	if (x->cache.n == XCM_MAX_CSCD + 1) {
		/* only possible if segments point outside the list */
		xcm_err_set_segment(err, XCM_E_INTERNAL, i, -1);
		return err->status;
	}
	if (c != &x->l->self && (st = lookup_lu(x, i, c, field, &lu, err)) != XCM_OK) {
		return st;
	}
	r = &x->cache.e[x->cache.n];
	r->cscd = c;
	r->lu = lu;
	r->bs = x->ops->block_size(x->ctx, lu);
	r->nblocks = x->ops->num_blocks(x->ctx, lu);
	/*
	 * E4h bytes 29-31: DISK BLOCK LENGTH 0 means "the LU's own"; any other
	 * value must be the LU's (tcmu-runner: 0D/03). A zero LU block size
	 * cannot carry a block segment at all.
	 */
	if (r->bs == 0 || (c->block_len != 0 && c->block_len != r->bs)) {
		xcm_err_set_segment(err, XCM_E_CA_INCORRECT_TYPE, i, field);
		return err->status;
	}
	x->cache.n++;
	*out = r;
	return XCM_OK;
}

/*
 * [lba * bs + off, + n) inside an LU of nblocks blocks of bs bytes, with
 * every sum checked before it is formed (a + n > cap as n > cap || a > cap - n).
 */
static bool
range_fits(const struct res_lu *r, uint64_t lba, uint64_t off, uint64_t n, uint64_t *start)
{
	uint64_t cap, a;

	cap = r->nblocks > UINT64_MAX / r->bs ? UINT64_MAX : r->nblocks * r->bs;
	if (lba > cap / r->bs) {
		return false;
	}
	a = lba * r->bs;
	if (off > cap - a) {
		return false;
	}
	a += off;
	if (n > cap - a) {
		return false;
	}
	*start = a;
	return true;
}

/*
 * Bytes of segment i by its type, with the byte offsets into the first
 * blocks (0Ah) and the parameter-list field that holds its count.
 */
static enum xcm_status
size_segment(struct exec_ctx *x, uint32_t i, struct plan *p, uint64_t *soff, uint64_t *doff,
	     uint32_t *count_field, struct xcm_err *err)
{
	const struct xcm_segment *s = &x->l->seg[i];

	switch (s->type) {
	case XCM_SEG_B2B:
		*count_field = SEG_F_B2B_COUNT;
		/* SPC-4 DC bit: DC=1 counts destination blocks, DC=0 source blocks */
		p->bytes = (uint64_t)s->count * (s->dc ? p->dst->bs : p->src->bs);
		/*
		 * SPC-4 CAT/PAD: with equal block sizes a block->block segment is
		 * always exact. Otherwise the byte count must be a whole number of
		 * both block sizes (as CTL). The CAT/PAD residual rules of the table
		 * are not implemented: an inexact segment is reported 26/0A
		 * whatever CAT and PAD say.
		 */
		if (p->src->bs != p->dst->bs &&
		    (p->bytes % p->src->bs != 0 || p->bytes % p->dst->bs != 0)) {
			xcm_err_set_segment(err, XCM_E_CA_INEXACT_SEGMENT, i, SEG_F_B2B_COUNT);
			return err->status;
		}
		return XCM_OK;
	case XCM_SEG_B2B_OFF:
		/* 0Ah: NUMBER OF BYTES, byte offsets into the first blocks */
		*count_field = SEG_F_OFF_COUNT;
		p->bytes = s->count;
		*soff = s->src_off;
		*doff = s->dst_off;
		return XCM_OK;
	default:
		/* the parser admits only the codes of xcm_supported_desc_codes() */
		xcm_err_set_segment(err, XCM_E_CA_INVALID_OP, i, 0);
		return err->status;
	}
}

/* Segment i's size against the copy manager's limits (count_field: for the pointer). */
static enum xcm_status
check_segment_limits(struct exec_ctx *x, uint32_t i, const struct plan *p, uint32_t count_field,
		     struct xcm_err *err)
{
	/*
	 * OPERATING PARAMETERS MAXIMUM SEGMENT LENGTH (0: no limit) is a limit
	 * of the parameter list, so exceeding it is ILLEGAL REQUEST, nothing
	 * moved, with the field pointer at the count field in the parameter list.
	 */
	if (x->lim->max_seg_len != 0 && p->bytes > x->lim->max_seg_len) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false,
				  x->l->seg[i].offset + count_field, -1);
		return err->status;
	}
	/* DATA SEGMENT GRANULARITY (log2 bytes) as reported by RCR 03h */
	if (x->lim->data_seg_gran != 0 && x->lim->data_seg_gran < 64 &&
	    (p->bytes & ((UINT64_C(1) << x->lim->data_seg_gran) - 1)) != 0) {
		xcm_err_set_segment(err, XCM_E_CA_GRANULARITY, i, (int)count_field);
		return err->status;
	}
	return XCM_OK;
}

/*
 * Phase A for the C0h segment: the backend can run it, its destination
 * resolves, and every range lies inside it (else COPY ABORTED 0D/02 at the
 * range descriptor, as a block segment's LBA past the end). p->src stays
 * NULL: the token names the source.
 */
static enum xcm_status
plan_token(struct exec_ctx *x, uint32_t i, struct plan *p, struct xcm_err *err)
{
	const struct xcm_segment *s = &x->l->seg[i];
	const struct xcm_tok_seg *t = &x->l->tok;
	enum xcm_status st;
	uint32_t k;

	memset(p, 0, sizeof(*p));
	if (x->ops->token_copy == NULL) {
		xcm_err_set_field(err, XCM_E_UNSUPP_SEG_TYPE, false, s->offset, -1);
		return err->status;
	}
	if (s->dst == NULL) {
		xcm_err_set_segment(err, XCM_E_INTERNAL, i, -1);
		return err->status;
	}
	st = resolve_cscd(x, i, s->dst, SEG_F_DST_ID, &p->dst, err);
	if (st != XCM_OK) {
		return st;
	}
	for (k = 0; k < t->nranges; k++) {
		if (t->range[k].lba > p->dst->nblocks ||
		    t->range[k].count > p->dst->nblocks - t->range[k].lba) {
			xcm_err_set_segment(err, XCM_E_CA_NOT_REACHABLE, i,
					    (int)(SEG_F_TOKEN_RANGES + k * SEG_F_RANGE_LEN));
			return err->status;
		}
	}
	p->bytes = t->total_blocks * p->dst->bs;
	return XCM_OK;
}

/* Phase A for one segment: resolve, size and place it, or say why not. */
static enum xcm_status
plan_segment(struct exec_ctx *x, uint32_t i, struct plan *p, struct xcm_err *err)
{
	const struct xcm_segment *s = &x->l->seg[i];
	enum xcm_status st;
	uint32_t count_field = 0;
	uint64_t soff = 0, doff = 0;

	if (s->type == XCM_SEG_TOKEN) {
		return plan_token(x, i, p, err);
	}
	if (s->src == NULL || s->dst == NULL) {
		xcm_err_set_segment(err, XCM_E_INTERNAL, i, -1);
		return err->status;
	}
	if ((st = resolve_cscd(x, i, s->src, SEG_F_SRC_ID, &p->src, err)) != XCM_OK ||
	    (st = resolve_cscd(x, i, s->dst, SEG_F_DST_ID, &p->dst, err)) != XCM_OK ||
	    (st = size_segment(x, i, p, &soff, &doff, &count_field, err)) != XCM_OK ||
	    (st = check_segment_limits(x, i, p, count_field, err)) != XCM_OK) {
		return st;
	}
	/*
	 * A range past the end of the LU is COPY ABORTED 0D/02 (what the
	 * libiscsi ValidSegDescr test expects), pointing at the LBA field.
	 */
	if (!range_fits(p->src, s->src_lba, soff, p->bytes, &p->src_off)) {
		xcm_err_set_segment(err, XCM_E_CA_NOT_REACHABLE, i, SEG_F_SRC_LBA);
		return err->status;
	}
	if (!range_fits(p->dst, s->dst_lba, doff, p->bytes, &p->dst_off)) {
		xcm_err_set_segment(err, XCM_E_CA_NOT_REACHABLE, i, SEG_F_DST_LBA);
		return err->status;
	}
	/*
	 * SPC-4 FCO bit: asks for a copy only if it beats READ + WRITE. Every
	 * backend behind this seam is an offload (in-kernel copy_file_range or
	 * better), so FCO=1 is accepted and never yields 26/16.
	 */
	return XCM_OK;
}

/* Fixed sense (SPC-4 4.5.3) for a failed sub-I/O whose backend supplied none. */
static uint8_t
synth_sense(const struct xcm_io_err *ioerr, int rc, uint8_t *buf)
{
	uint8_t key = XCM_SK_MEDIUM_ERROR;
	uint16_t asc = XCM_ASC_UNRECOVERED_READ_ERROR;

	if (ioerr->at_dst) {
		if (rc == -ENOSPC) {
			/* thin provisioning ran out: SBC-4 4.7.3.7 */
			key = XCM_SK_DATA_PROTECT;
			asc = XCM_ASC_NO_SPACE;
		} else {
			asc = XCM_ASC_WRITE_ERROR;
		}
	}
	return (uint8_t)xcm_sense_build_plain(key, asc, buf, XCM_FWD_SENSE_MAX);
}

/* COPY ABORTED 0D/01 for segment i with the sub-I/O's status and sense forwarded. */
static void
set_io_error(struct xcm_err *err, uint32_t i, int rc, const struct xcm_io_err *ioerr)
{
	const int field = ioerr->at_dst ? SEG_F_DST_ID : SEG_F_SRC_ID;
	uint8_t len;

	xcm_err_set_segment(err, XCM_E_CA_DEVICE_FAILURE, i, field);
	err->fwd_valid = true;
	/* SPC-4 forwarded sense: SENSE DATA SOURCE 1 = source, 2 = destination */
	err->fwd_source = ioerr->at_dst ? 2 : 1;
	err->fwd_status = ioerr->status != XCM_SAM_GOOD ? ioerr->status : XCM_SAM_CHECK_CONDITION;
	if (ioerr->sense_len > 0) {
		len = ioerr->sense_len < XCM_FWD_SENSE_MAX ? ioerr->sense_len : XCM_FWD_SENSE_MAX;
		memcpy(err->fwd_sense, ioerr->sense, len);
	} else {
		len = synth_sense(ioerr, rc, err->fwd_sense);
	}
	err->fwd_len = len;
}

bool
xcm_deadline_reached(const struct xcm_backend_ops *ops, void *ctx, uint64_t deadline_ms,
		     uint64_t need_ms)
{
	uint64_t now;

	if (deadline_ms == 0 || ops == NULL || ops->now_ms == NULL) {
		return false;
	}
	now = ops->now_ms(ctx);
	return now >= deadline_ms || need_ms > deadline_ms - now;
}

uint64_t
xcm_deadline_for_timeout(uint64_t start_ms, uint32_t timeout_s)
{
	uint64_t t = (uint64_t)timeout_s * 1000, reserve = t / 5, floor = t / 2;

	if (timeout_s == 0) {
		return 0;
	}
	if (floor > 1000) {
		floor = 1000;
	}
	if (reserve < floor) {
		reserve = floor;
	}
	if (reserve > 5000) {
		reserve = 5000;
	}
	/* reserve <= t / 2, so the deadline is > start_ms: never 0 ("none") */
	return start_ms + (t - reserve);
}

static uint64_t
clock_ms(const struct exec_ctx *x)
{
	return x->deadline != 0 && x->ops->now_ms != NULL ? x->ops->now_ms(x->ctx) : 0;
}

/*
 * May the next chunk start? XCM_OK; a stop requested from outside (its
 * status); XCM_E_CA_DEADLINE if the slowest chunk so far would not end
 * before the deadline. Nothing of the next chunk has started either way.
 */
static enum xcm_status
next_chunk_ok(const struct exec_ctx *x)
{
	enum xcm_status st = x->ops->stop != NULL ? x->ops->stop(x->ctx) : XCM_OK;

	if (st == XCM_OK && xcm_deadline_reached(x->ops, x->ctx, x->deadline, x->worst_ms)) {
		st = XCM_E_CA_DEADLINE;
	}
	return st;
}

/* Phase B for the C0h segment: one token_copy call, its outcome reported as segments' are. */
static enum xcm_status
copy_token(struct exec_ctx *x, uint32_t i, const struct plan *p, struct xcm_exec_result *res,
	   struct xcm_err *err)
{
	struct xcm_io_err ioerr;
	uint64_t bytes = 0;
	enum xcm_status st;

	st = next_chunk_ok(x);
	if (st != XCM_OK) {
		xcm_err_set_segment(err, st, i, -1);
		return err->status;
	}
	memset(&ioerr, 0, sizeof(ioerr));
	st = x->ops->token_copy(x->ctx, x->self, p->dst->lu, &x->l->tok, &bytes, &ioerr);
	res->bytes += bytes < p->bytes ? bytes : p->bytes;
	if (st == XCM_E_CA_DEVICE_FAILURE) {
		set_io_error(err, i, -EIO, &ioerr);
	} else if (st >= XCM_E_CA_ABORTED && st <= XCM_E_CA_DEADLINE) {
		xcm_err_set_segment(err, st, i, -1);
	} else if (st != XCM_OK) {
		xcm_err_set(err, st);   /* the token's own status, e.g. 23/08 */
	}
	if (st == XCM_OK && x->ops->progress != NULL) {
		x->ops->progress(x->ctx, res->segs_processed, res->bytes);
	}
	return st;
}

/*
 * Phase B for one planned segment: move it in chunks. A same-LU copy whose
 * destination starts inside its source (dst > src, overlapping) goes last
 * chunk first, so no chunk overwrites source bytes a later one still reads
 * (memmove semantics across chunks; each chunk is memmove'd by the backend).
 * Before each chunk the deadline is checked: a chunk is started only if the
 * slowest chunk so far would still end before it.
 */
static enum xcm_status
copy_segment(struct exec_ctx *x, uint32_t i, const struct plan *p, struct xcm_exec_result *res,
	     struct xcm_err *err)
{
	struct xcm_io_err ioerr;
	uint64_t done = 0, n, pos, t0, t1;
	bool backward;
	int rc;

	enum xcm_status st;

	if (p->src == NULL) {
		return copy_token(x, i, p, res, err);
	}
	backward = p->src->lu == p->dst->lu && p->dst_off > p->src_off &&
		   p->dst_off - p->src_off < p->bytes;
	while (done < p->bytes) {
		st = next_chunk_ok(x);
		if (st != XCM_OK) {
			/* stopped or at the deadline between chunks; res counts what was written */
			xcm_err_set_segment(err, st, i, -1);
			return err->status;
		}
		n = p->bytes - done < x->chunk ? p->bytes - done : x->chunk;
		pos = backward ? p->bytes - done - n : done;
		memset(&ioerr, 0, sizeof(ioerr));
		t0 = clock_ms(x);
		rc = x->ops->copy(x->ctx, p->src->lu, p->src_off + pos, p->dst->lu,
				  p->dst_off + pos, n, &ioerr);
		if (rc != 0) {
			if (rc > 0) {
				rc = -EIO;
			}
			res->bytes += ioerr.done < n ? ioerr.done : n;
			set_io_error(err, i, rc, &ioerr);
			return err->status;
		}
		t1 = clock_ms(x);
		if (t1 > t0 && t1 - t0 > x->worst_ms) {
			x->worst_ms = t1 - t0;
		}
		res->bytes += n;
		done += n;
		if (x->ops->progress != NULL) {
			x->ops->progress(x->ctx, res->segs_processed, res->bytes);
		}
	}
	return XCM_OK;
}

/*
 * The segments from i on that one copy_run call can take, planned into
 * *run (the first one is *p): same source and destination LU, each segment
 * starting where the previous one ended on both sides, at most
 * ops->run_len bytes, and on one LU the merged ranges apart. 1: no merge.
 */
static uint32_t
merge_run(struct exec_ctx *x, uint32_t i, const struct plan *p, struct plan *run)
{
	struct xcm_err err;   /* planned in phase A already: cannot fail */
	uint64_t max = 0;
	struct plan q;
	uint32_t k = 1;

	*run = *p;
	if (p->src == NULL) {
		return 1;   /* C0h: never merged */
	}
	if (x->ops->copy_run != NULL && x->ops->run_len != NULL) {
		max = x->ops->run_len(x->ctx, p->src->lu, p->dst->lu);
	}
	while (max != 0 && p->bytes <= max && i + k < x->l->nseg &&
	       plan_segment(x, i + k, &q, &err) == XCM_OK && q.src != NULL &&
	       q.src->lu == run->src->lu &&
	       q.dst->lu == run->dst->lu && q.src_off == run->src_off + run->bytes &&
	       q.dst_off == run->dst_off + run->bytes && q.bytes <= max - run->bytes) {
		run->bytes += q.bytes;
		k++;
	}
	if (run->src->lu == run->dst->lu && run->src_off < run->dst_off + run->bytes &&
	    run->dst_off < run->src_off + run->bytes) {
		return 1;   /* a later segment would read what an earlier one wrote */
	}
	return k;
}

/*
 * Segments [i, i + k) as one copy_run call: true if it copied them all.
 * Not tried when a stop or the deadline is due (the serial path reports
 * those at the exact segment).
 */
static bool
copy_merged(struct exec_ctx *x, uint32_t k, const struct plan *run,
	    struct xcm_exec_result *res)
{
	uint64_t t0, t1;

	if (next_chunk_ok(x) != XCM_OK) {
		return false;
	}
	t0 = clock_ms(x);
	if (x->ops->copy_run(x->ctx, run->src->lu, run->src_off, run->dst->lu, run->dst_off,
			     run->bytes) != 0) {
		return false;
	}
	t1 = clock_ms(x);
	if (t1 > t0 && t1 - t0 > x->worst_ms) {
		x->worst_ms = t1 - t0;
	}
	res->bytes += run->bytes;
	res->segs_processed += k;
	if (x->ops->progress != NULL) {
		x->ops->progress(x->ctx, res->segs_processed, res->bytes);
	}
	return true;
}

/* Phase B for segments [i, i + k): each planned and copied in order. */
static enum xcm_status
copy_serial(struct exec_ctx *x, uint32_t i, uint32_t k, struct xcm_exec_result *res,
	    struct xcm_err *err)
{
	enum xcm_status st;
	struct plan p;
	uint32_t j;

	for (j = i; j < i + k; j++) {
		st = plan_segment(x, j, &p, err);
		if (st != XCM_OK) {
			return st;
		}
		st = copy_segment(x, j, &p, res, err);
		if (st != XCM_OK) {
			return st;
		}
		res->segs_processed++;
		if (x->ops->progress != NULL) {
			x->ops->progress(x->ctx, res->segs_processed, res->bytes);
		}
	}
	return XCM_OK;
}

enum xcm_status
xcm_list_execute(const struct xcm_list *l, const struct xcm_limits *lim,
		 const struct xcm_backend_ops *ops, void *ctx, struct xt_lu *self,
		 struct xcm_exec_result *res, struct xcm_err *err)
{
	return xcm_list_execute_opts(l, lim, ops, ctx, self, NULL, res, err);
}

enum xcm_status
xcm_list_execute_opts(const struct xcm_list *l, const struct xcm_limits *lim,
		      const struct xcm_backend_ops *ops, void *ctx, struct xt_lu *self,
		      const struct xcm_exec_opts *opts, struct xcm_exec_result *res,
		      struct xcm_err *err)
{
	struct exec_ctx x;
	struct plan p, run;
	enum xcm_status st;
	uint32_t i, k;

	res->segs_processed = 0;
	res->bytes = 0;
	xcm_err_set(err, XCM_OK);
	if (l->nseg > XCM_MAX_SEG || l->ncscd > XCM_MAX_CSCD) {
		xcm_err_set(err, XCM_E_INTERNAL);
		return err->status;
	}
	x.l = l;
	x.lim = lim != NULL ? lim : &xcm_limits_default;
	x.ops = ops;
	x.ctx = ctx;
	x.self = self;
	x.cache.n = 0;
	x.deadline = opts != NULL ? opts->deadline_ms : 0;
	x.chunk = opts != NULL && opts->chunk_len != 0 ? opts->chunk_len : XCM_EXEC_CHUNK_LEN;
	x.worst_ms = 0;

	/* Phase A: nothing moves until every segment is known to be possible. */
	for (i = 0; i < l->nseg; i++) {
		st = plan_segment(&x, i, &p, err);
		if (st != XCM_OK) {
			return st;
		}
	}

	/*
	 * Phase B: segments in order. Planning again is cheap and
	 * cannot fail now (every CSCD is cached), and saves a per-list plan array.
	 * Runs of contiguous segments go to the backend in one call when it
	 * offers copy_run; a failed run is copied again segment by segment, so
	 * data, counts and the failed segment are those of serial execution.
	 */
	for (i = 0; i < l->nseg; i += k) {
		st = plan_segment(&x, i, &p, err);
		if (st != XCM_OK) {
			return st;
		}
		k = merge_run(&x, i, &p, &run);
		if (k > 1 && copy_merged(&x, k, &run, res)) {
			continue;
		}
		st = copy_serial(&x, i, k, res, err);
		if (st != XCM_OK) {
			return st;
		}
	}
	return XCM_OK;
}
