/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WRITE USING TOKEN (SBC-4 5.55) on a worker (RECEIVE ROD TOKEN
 * INFORMATION / REPORT ALL ROD TOKENS: tpc_in.c). A token is looked up in the table of the LU that made it (found
 * by the creator designator in the token, bytes 16-47); a WUT received on
 * another LU is allowed only where an EXTENDED COPY between the two LUs
 * would be (access.c), else ILLEGAL REQUEST, INVALID TOKEN OPERATION, CAUSE
 * NOT REPORTABLE (23/00: whether the other LU exists is not told).
 *
 * The same redemption serves the vendor specific segment C0h of an
 * EXTENDED COPY (xt_odx_redeem, docs/remote-tokens.md): another copy
 * manager of this project redeeming one of our tokens asks us to write its
 * bytes into a LU we reach, a remote one through the peer map. A token made
 * by a copy manager elsewhere is redeemed there (peer/peer_token.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lio/lio.h"
#include "odx/odx.h"
#include "peer/peer.h"
#include "store/store.h"

/* Where the source bytes of a token are, and how far a WUT has gone in them. */
struct src_pos {
	const struct xt_tok *tok;
	const struct xt_lu *from;        /* the creator LU or a view of the snapshot */
	uint32_t i;                       /* range index */
	uint64_t in;                      /* bytes into range i */
};

static uint64_t
range_bytes(const struct xt_tok *tok, uint32_t i)
{
	return (uint64_t)tok->range[i].count * tok->block_len;
}

/* Skip skip bytes of the token; false if that is past its end. */
static bool
src_seek(struct src_pos *p, uint64_t skip)
{
	for (p->i = 0, p->in = 0; p->i < p->tok->nranges; p->i++) {
		if (skip < range_bytes(p->tok, p->i)) {
			p->in = skip;
			return true;
		}
		skip -= range_bytes(p->tok, p->i);
	}
	return false;
}

/* What to redeem: the token's bytes from offset on into ranges of dst. */
struct wut_req {
	struct xt_lu *dst;
	uint64_t offset;                 /* OFFSET INTO ROD, blocks of dst */
	const uint8_t *token;
	const struct xcm_rod_token *rt;  /* token, decoded (once, by the caller) */
	bool del_tkn;
	uint32_t nranges;
	const struct xcm_range *range;
	bool exact;                      /* C0h: no residual to report, all ranges or none */
};

/* One redemption under way: its request, what it wrote, where a transfer failed. */
struct redeem_run {
	struct xt_job *job;
	const struct wut_req *q;
	uint64_t *moved;                 /* bytes written */
	struct xcm_io_err *ioerr;        /* on XCM_E_CA_DEVICE_FAILURE */
};

/* Copy into one destination range of r->q->dst. */
static enum xcm_status
copy_range(const struct redeem_run *r, struct src_pos *p, uint64_t doff, uint64_t dlen)
{
	struct xt_job *job = r->job;
	struct xt_lu *self = r->q->dst;
	struct xcm_io_err *ioerr = r->ioerr;
	uint64_t *moved = r->moved;
	struct xt_copy *c = &job->copy;
	/* between two LUs whose store copies inside itself (RBD) its chunk; else 4 MiB */
	const uint64_t store_chunk = xt_lu_store_chunk(p->from, self);
	const uint64_t chunk_max =
		store_chunk != 0 ? store_chunk : (uint64_t)XT_CHUNK * XT_PAR_PIECES;
	struct xt_range rg;
	enum xcm_status st;
	int rc;

	while (dlen > 0 && p->i < p->tok->nranges) {
		uint64_t avail = range_bytes(p->tok, p->i) - p->in;
		uint64_t n = dlen < avail ? dlen : avail;
		uint64_t soff = p->tok->range[p->i].lba * p->tok->block_len + p->in;

		n = n < chunk_max ? n : chunk_max;
		st = xt_odx_stop(job);
		if (st != XCM_OK) {
			return st;
		}
		xt_tok_note_write(self, doff, n);
		/* by the two LUs' stores (store_copy.c): files, RBD copy-from, or the gateway */
		rg = (struct xt_range){ (struct xt_lu *)p->from, soff, self, doff, n };
		c->clone = self->cfg.clone;
		c->cfr = self->cfg.cfr;
		c->merged = false;
		c->write_behind = false;
		rc = xt_lu_copy(c, &rg);
		xt_tok_note_write(self, doff, n);   /* before and after, as xt_handler_write */
		if (rc != 0) {
			*moved += c->done;
			xt_copy_io_err(c, rg.src, self, *moved, ioerr);   /* cm/backend.c */
			return XCM_E_CA_DEVICE_FAILURE;
		}
		*moved += n;
		atomic_store(&job->bytes_done, *moved);
		doff += n;
		dlen -= n;
		p->in += n;
		if (p->in == range_bytes(p->tok, p->i)) {
			p->i++;
			p->in = 0;
		}
	}
	return XCM_OK;
}

/*
 * The LU that made the token, access judged; *held: a reference the caller
 * drops (xt_lu_release) once done with it, so that LU stays open meanwhile.
 */
static enum xcm_status
token_owner(struct xt_lu *self, const struct xcm_rod_token *rt, struct xt_lu **out,
	    bool *held, struct xcm_err *err)
{
	struct xt_lu *owner = self;
	char why[512];

	*held = false;
	if (rt->creator_desig_len == 16) {
		owner = xt_registry_hold_naa(rt->creator_desig);
		*held = owner != NULL;
	}
	if (owner == NULL) {
		xcm_err_set(err, XCM_E_TOKEN_UNKNOWN);
		return err->status;
	}
	if (owner != self &&
	    (self->cfs_path[0] == '\0' || owner->cfs_path[0] == '\0' ||
	     xt_access_check(xt_configfs_root(), self->cfs_path, owner->cfs_path, why,
			     sizeof(why)) != 0)) {
		xt_lu_info(self, "xcopy: WRITE USING TOKEN with a token of LU %s refused: %s\n",
			   owner->name, owner->cfs_path[0] == '\0' ? "configfs path unknown" : why);
		XT_STAT_ADD(self, denied, 1);
		if (*held) {
			xt_lu_release(owner);
			*held = false;
		}
		xcm_err_set(err, XCM_E_TOKEN_OP);
		return err->status;
	}
	*out = owner;
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

/* Pair the token's bytes (from OFFSET INTO ROD on) with the destination ranges. */
static enum xcm_status
wut_copy(const struct redeem_run *r, struct xt_lu *owner, struct xt_tok *tok, struct xcm_err *err)
{
	const struct wut_req *q = r->q;
	struct xt_lu *view = NULL;
	uint32_t bs = xt_lu_block_size(q->dst), i;
	struct src_pos p = { tok, owner, 0, 0 };
	enum xcm_status st = XCM_OK;
	char why[256];

	/*
	 * OFFSET INTO ROD counts logical blocks of the LU the WUT went to (as
	 * QNAP's target; CTL adds it to source blocks: the same when block
	 * sizes match).
	 */
	if (q->offset > tok->total_bytes / bs || !src_seek(&p, q->offset * bs)) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, 8, -1);
		return err->status;
	}
	if (q->exact) {
		uint64_t want = 0;

		for (i = 0; i < q->nranges; i++) {
			want += (uint64_t)q->range[i].count * bs;
		}
		/* the redeemer clips to the token (peer_token.c): shorter is not ours to hide */
		if (want > tok->total_bytes - q->offset * bs) {
			xcm_err_set(err, XCM_E_CA_INEXACT_SEGMENT);
			return err->status;
		}
	}
	if (owner->ops->token_guard != NULL &&
	    owner->ops->token_guard(owner, true, why, sizeof(why)) != 0) {
		/* another client may have written the source: the token no longer stands */
		xt_lu_warn(r->job->lu, "xcopy: WRITE USING TOKEN of LU %s: token cancelled: %s\n",
			   owner->name, why);
		xcm_err_set(err, XCM_E_TOKEN_CANCELLED);
		return err->status;
	}
	if (tok->snap_fd >= 0) {
		view = xt_odx_snap_view(owner, tok->snap_fd);
		if (view == NULL) {
			xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
			return err->status;
		}
		p.from = view;
	}
	for (i = 0; i < q->nranges && st == XCM_OK; i++) {
		st = copy_range(r, &p, q->range[i].lba * bs, (uint64_t)q->range[i].count * bs);
	}
	free(view);
	if (st != XCM_OK) {
		xcm_err_set(err, st);
	}
	return st;
}

/* Redeem q's token (ours) into q's ranges: the token looked up, used, put back. */
static enum xcm_status
redeem(struct xt_job *job, const struct wut_req *q, uint64_t *moved, struct xcm_io_err *ioerr,
       struct xcm_err *err)
{
	const struct xcm_rod_token *rt = q->rt;
	struct xt_lu *owner = NULL;
	bool held = false;
	struct xt_tok *tok = NULL;
	enum xcm_status st;
	bool cancelled = false;
	const struct redeem_run r = { job, q, moved, ioerr };

	if (rt->rod_type != XCM_ROD_TYPE_PIT_DEFAULT && rt->rod_type != XCM_ROD_TYPE_PIT_VULNERABLE &&
	    rt->rod_type != XCM_ROD_TYPE_PIT_PERSISTENT) {
		xcm_err_set(err, XCM_E_TOKEN_UNSUPPORTED);
		return err->status;
	}
	st = token_owner(job->lu, rt, &owner, &held, err);
	if (st == XCM_OK) {
		st = xt_tok_get(owner->tok, q->token, &tok, err);
	}
	if (st == XCM_OK) {
		st = wut_copy(&r, owner, tok, err);
		xt_tok_put(owner->tok, tok, q->del_tkn, &cancelled);
		/* a write hit the (change vulnerable) source while it was read */
		if (st == XCM_OK && cancelled) {
			xcm_err_set(err, XCM_E_TOKEN_CANCELLED);
			st = err->status;
		}
	}
	if (held) {
		xt_lu_release(owner);
	}
	return st;
}

enum xcm_status
xt_odx_redeem(struct xt_job *job, struct xt_lu *dst, const struct xcm_tok_seg *t,
	      uint64_t *bytes, struct xcm_io_err *ioerr)
{
	struct xcm_rod_token rt;
	const struct wut_req q = { dst,       t->offset,   t->token, &rt,
				   t->del_tkn, t->nranges, t->range, true };
	struct xcm_err err;
	enum xcm_status st;

	memset(&err, 0, sizeof(err));
	*bytes = 0;
	if (xcm_rod_token_decode(t->token, &rt, &err) != XCM_OK) {
		return err.status;
	}
	st = redeem(job, &q, bytes, ioerr, &err);
	/* OFFSET INTO ROD past the token: no list field of this command to point at */
	return st == XCM_E_INVALID_FIELD_PARAM ? XCM_E_TOKEN_OP : st;
}

/*
 * A token another copy manager made: not of this process (the epoch of its
 * identifier, tokens.c), its creator LU (an NAA designator) not a LU here.
 * A token of ours whose LU is gone since stays ours: TOKEN UNKNOWN.
 */
static bool
made_elsewhere(const struct xcm_rod_token *rt)
{
	struct xt_lu *owner;

	if (rt->creator_desig_len != 16 || xt_tok_ours(rt->id)) {
		return false;
	}
	owner = xt_registry_hold_naa(rt->creator_desig);
	if (owner != NULL) {
		xt_lu_release(owner);
		return false;
	}
	return true;
}

/*
 * As a local WUT: OFFSET INTO ROD past the token is 26/00 (field 8); ranges
 * longer than the token holds past it are cut (GOOD with a residual, the
 * transfer count what was written): the creator writes all of t or nothing.
 */
static bool
clip_to_token(struct xcm_tok_seg *t, uint64_t tok_bytes, uint32_t bs)
{
	uint64_t left, n;
	uint32_t i;

	if (bs == 0 || t->offset >= tok_bytes / bs) {
		return false;
	}
	left = tok_bytes / bs - t->offset;
	t->total_blocks = 0;
	for (i = 0; i < t->nranges; i++) {
		n = t->range[i].count < left ? t->range[i].count : left;
		t->range[i].count = (uint32_t)n;
		t->total_blocks += n;
		left -= n;
	}
	return true;
}

/* Its creator redeems it into our ranges (peer/peer_token.c). */
static enum xcm_status
redeem_remote(struct xt_job *job, const struct xcm_rod_token *rt, struct xcm_exec_result *res,
	      struct xcm_err *err)
{
	const struct xcm_tok_list *l = &job->odx->l;
	struct xcm_tok_seg *t = calloc(1, sizeof(*t));
	enum xcm_status st;

	if (t == NULL) {
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return err->status;
	}
	t->del_tkn = l->del_tkn;
	t->offset = l->offset;
	memcpy(t->token, l->token, sizeof(t->token));
	t->nranges = l->nranges;
	t->total_blocks = l->total_blocks;
	memcpy(t->range, l->range, l->nranges * sizeof(l->range[0]));
	if (!clip_to_token(t, rt->bytes, xt_lu_block_size(job->lu))) {
		free(t);
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, 8, -1);
		return err->status;
	}
	st = xt_peer_redeem(job->lu, rt->creator_desig, t, job->deadline_ms, &res->bytes, err);
	free(t);
	XT_STAT_ADD(job->lu, bytes, res->bytes);
	return st;
}

enum xcm_status
xt_odx_wut(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err)
{
	const struct xcm_tok_list *l = &job->odx->l;
	struct xcm_rod_token rt;
	const struct wut_req q = { job->lu,    l->offset,   l->token, &rt,
				   l->del_tkn, l->nranges, l->range, false };
	struct xcm_io_err ioerr;
	enum xcm_status st;

	if (xcm_rod_token_decode(l->token, &rt, err) != XCM_OK) {
		return err->status;
	}
	if (rt.rod_type == XCM_ROD_TYPE_ZERO) {
		return xt_odx_zero(job, res, err);
	}
	if (made_elsewhere(&rt)) {
		st = xt_odx_stop(job);
		if (st != XCM_OK) {
			xcm_err_set(err, st);
			return st;
		}
		return redeem_remote(job, &rt, res, err);
	}
	st = redeem(job, &q, &res->bytes, &ioerr, err);
	XT_STAT_ADD(job->lu, bytes, res->bytes);
	xt_stats_add_acct(job->lu, &job->copy.acct);
	return st;
}
