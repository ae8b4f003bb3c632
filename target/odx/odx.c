/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * POPULATE TOKEN (SBC-4 5.8), WRITE USING TOKEN (SBC-4 5.55), RECEIVE ROD
 * TOKEN INFORMATION (SPC-4 6.19.4) and REPORT ALL ROD TOKENS (SPC-4 6.19.5)
 * on a user:xcopy LU. PT and WUT are parsed on the command thread and run
 * on a worker like EXTENDED COPY (async.c), recorded in the LID4 store under
 * their LIST IDENTIFIER (RRTI, RECEIVE COPY STATUS(LID4), COPY OPERATION
 * ABORT).
 *
 * Tokens are point in time copies (SPC-4 Table 115): on a store that can
 * reflink, PT clones its ranges into an unlinked file next to the backing
 * file (same offsets, so clones stay aligned) and WUT copies from there, so
 * later writes to the source do not change what the token yields (ROD type
 * 00800000h, or 00800002h when asked for persistent). Elsewhere tokens are
 * change vulnerable (00800001h): a write overlapping their ranges cancels
 * them (tokens.c) and WUT reads the live source. The block device zero ROD
 * token (FFFF0001h) zeroes the destination ranges.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "odx/odx.h"
#include "store/store.h"
#include "xos.h"

static struct xcm_tok_limits g_tl_vuln, g_tl_pit;
static pthread_once_t g_tl_once = PTHREAD_ONCE_INIT;

static void
tl_init(void)
{
	g_tl_vuln = xcm_tok_limits_default;
	g_tl_pit = xcm_tok_limits_default;
	g_tl_pit.pit_persistent = true;
}

const struct xcm_tok_limits *
xt_tok_limits(const struct xt_lu *lu)
{
	pthread_once(&g_tl_once, tl_init);
	return lu->reflink ? &g_tl_pit : &g_tl_vuln;
}

enum xcm_status
xt_odx_parse(struct xt_lu *lu, const struct xcm_tpc_out_req *req, const uint8_t *plist,
	     uint32_t have, struct xt_job *job, struct xcm_err *err)
{
	struct xt_odx_op *op = calloc(1, sizeof(*op));
	enum xcm_status st;

	if (op == NULL) {
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return err->status;
	}
	op->sa = req->sa;
	st = xcm_tok_list_parse(req->sa, req->plen, xcm_span_make(plist, have), xt_tok_limits(lu),
				xt_lu_num_lbas(lu), xt_lu_block_size(lu),
				&op->l, err);
	if (st != XCM_OK) {
		free(op);
		return st;
	}
	job->odx = op;
	/* held like a LID4 list with LIST ID USAGE 00b (SBC-4 5.8.1: RRTI reads it) */
	job->list.lid4 = true;
	job->list.list_id4 = req->list_id;
	job->list.list_id_usage = XCM_LIST_ID_HOLD;
	job->list.tpc_sa = req->sa;
	return XCM_OK;
}

/* Between chunks: COPY OPERATION ABORT, close, the command deadline. */
enum xcm_status
xt_odx_stop(const struct xt_job *job)
{
	switch (atomic_load(&job->stop)) {
	case XT_STOP_NONE:
		break;
	case XT_STOP_ABORT:
		return XCM_E_CA_ABORTED;
	default:
		return XCM_E_CA_NOT_REACHABLE;
	}
	if (job->deadline_ms != 0 && xos_now_ms() >= job->deadline_ms) {
		return XCM_E_CA_DEADLINE;
	}
	return XCM_OK;
}

/*
 * A view of a token's snapshot: an LU of lu's store on the snapshot file
 * (so xt_lu_copy can take it to any destination), no registry entry, no
 * faults; free() releases it.
 */
struct xt_lu *
xt_odx_snap_view(const struct xt_lu *lu, int fd)
{
	struct xt_lu *v = xt_lu_snap_view(lu, fd);

	if (v == NULL) {
		return NULL;
	}
	snprintf(v->cfg.path, sizeof(v->cfg.path), "%.4000s (token snapshot)", lu->cfg.path);
	snprintf(v->name, sizeof(v->name), "%.100s-snap", lu->name);
	return v;
}

/* Copy r into the snapshot by the LU's policy (clones where aligned); not counted. */
static int
copy_part(struct xt_job *job, const struct xt_range *r)
{
	struct xt_copy *c = &job->copy;
	const struct xt_copy_acct keep = c->acct;
	int rc;

	c->clone = job->lu->cfg.clone;
	c->cfr = job->lu->cfg.cfr;
	c->merged = false;
	c->write_behind = false;
	rc = xt_lu_copy(c, r);
	c->acct = keep;
	return rc;
}

/* PT on a reflink store: each range into the snapshot at its own offset. */
static enum xcm_status
snapshot(struct xt_job *job, struct xt_tok *tok, struct xcm_err *err)
{
	struct xt_lu *lu = job->lu, *v = NULL;
	uint64_t size = xt_lu_num_lbas(lu) * tok->block_len, done = 0;
	enum xcm_status st = XCM_OK;
	uint32_t i;
	int rc = 0;

	tok->snap_fd = xt_lu_snap_file(lu, size);
	if (tok->snap_fd < 0) {
		rc = tok->snap_fd;
		tok->snap_fd = -1;
	} else if ((v = xt_odx_snap_view(lu, tok->snap_fd)) == NULL) {
		rc = -ENOMEM;
	}
	for (i = 0; rc == 0 && st == XCM_OK && i < tok->nranges; i++) {
		uint64_t off = tok->range[i].lba * tok->block_len;
		uint64_t len = (uint64_t)tok->range[i].count * tok->block_len;
		const struct xt_range r = { lu, off, v, off, len };

		st = xt_odx_stop(job);
		if (st == XCM_OK) {
			rc = copy_part(job, &r);
			done += len;
			atomic_store(&job->bytes_done, done);
		}
	}
	free(v);
	if (st == XCM_OK && rc != 0) {
		xt_lu_err(lu, "xcopy: POPULATE TOKEN snapshot failed: %s\n", strerror(-rc));
		st = XCM_E_NO_ROD_RESOURCES;
	}
	xcm_err_set(err, st);
	return st;
}

/* The token's bytes: identifier, creator (NAA of the unit serial), random part. */
static enum xcm_status
token_make(struct xt_lu *lu, struct xt_tok *tok, uint32_t rod_type, struct xcm_err *err)
{
	struct xcm_rod_token rt;
	char *serial = xt_lu_serial(lu);
	size_t got = 0;
	ssize_t n;

	memset(&rt, 0, sizeof(rt));
	rt.rod_type = rod_type;
	rt.id = tok->id;
	if (serial != NULL && serial[0] != '\0') {
		xt_naa_from_serial(serial, rt.creator_desig);
		rt.creator_desig_len = 16;
	}
	free(serial);
	rt.bytes = tok->total_bytes;
	rt.block_len = tok->block_len;
	/* unforgeable: the random part comes from the kernel's CSPRNG */
	while (got < sizeof(rt.random)) {
		n = getrandom(rt.random + got, sizeof(rt.random) - got, 0);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			xcm_err_set(err, XCM_E_INTERNAL);
			return err->status;
		}
		got += (size_t)n;
	}
	xcm_rod_token_encode(&rt, tok->bytes);
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

static enum xcm_status
pt_run(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err)
{
	struct xt_lu *lu = job->lu;
	const struct xcm_tok_list *l = &job->odx->l;
	uint32_t bs = xt_lu_block_size(lu);
	bool snap = lu->reflink && l->rod_type != XCM_ROD_TYPE_PIT_VULNERABLE;
	uint64_t total = l->total_blocks * bs;
	struct xt_tok *tok;
	enum xcm_status st;

	char why[256];

	if (lu->ops->token_guard != NULL &&
	    lu->ops->token_guard(lu, false, why, sizeof(why)) != 0) {
		/* a token another client could change behind it: none (the host copies itself) */
		xt_lu_warn(lu, "xcopy: POPULATE TOKEN list %u: no token: %s\n",
			   job->list.list_id4, why);
		xcm_err_set(err, XCM_E_NO_TOKEN_RESOURCES);
		return err->status;
	}
	if (xt_tok_reserve(lu->tok, snap ? total : 0, err) != XCM_OK) {
		return err->status;
	}
	tok = calloc(1, sizeof(*tok));
	if (tok == NULL) {
		xt_tok_unreserve(lu->tok, snap ? total : 0);
		xcm_err_set(err, XCM_E_NO_TOKEN_RESOURCES);
		return err->status;
	}
	tok->id = xt_tok_new_id();
	tok->list_id = job->list.list_id4;
	tok->snap_fd = -1;
	tok->nranges = l->nranges;
	memcpy(tok->range, l->range, l->nranges * sizeof(l->range[0]));
	tok->block_len = bs;
	tok->total_bytes = total;
	tok->timeout_ms = (uint64_t)l->inactivity_s * 1000;
	st = snap ? snapshot(job, tok, err) : XCM_OK;
	if (st == XCM_OK) {
		st = token_make(lu, tok, !snap ? XCM_ROD_TYPE_PIT_VULNERABLE
				: l->rod_type == XCM_ROD_TYPE_PIT_PERSISTENT ? XCM_ROD_TYPE_PIT_PERSISTENT
									      : XCM_ROD_TYPE_PIT_DEFAULT,
				err);
	}
	if (st != XCM_OK) {
		if (tok->snap_fd >= 0) {
			close(tok->snap_fd);
		}
		free(tok);
		xt_tok_unreserve(lu->tok, snap ? total : 0);
		return st;
	}
	xt_tok_insert(lu->tok, tok);
	res->bytes = total;
	xt_lu_dbg(lu, "xcopy: POPULATE TOKEN list %u: %u ranges, %llu bytes%s\n",
		  tok->list_id, tok->nranges, (unsigned long long)total,
		  snap ? ", point-in-time snapshot" : ", change vulnerable");
	return XCM_OK;
}

/*
 * WUT with the block device zero ROD token: zero the ranges, cheapest way
 * first (ZERO_RANGE keeps the allocation, then a hole, then written zeros).
 */
enum xcm_status
xt_odx_zero(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err)
{
	struct xt_lu *lu = job->lu;
	const struct xcm_tok_list *l = &job->odx->l;
	uint32_t bs = xt_lu_block_size(lu), i;

	for (i = 0; i < l->nranges; i++) {
		uint64_t off = l->range[i].lba * bs, len = (uint64_t)l->range[i].count * bs, done;
		int rc = 0;

		xt_tok_note_write(lu, off, len);
		done = 0;
		if (len > 0 && lu->ops->write_zeroes != NULL) {
			rc = lu->ops->write_zeroes(lu, off, len, &done);
		} else if (len > 0) {
			rc = lu->ops->zero(lu, off, len, 0);   /* RBD: librbd write-zeroes */
		}
		res->bytes += rc == 0 ? len : done;
		if (rc != 0) {
			xcm_err_set(err, XCM_E_CA_DEVICE_FAILURE);
			return err->status;
		}
		xt_tok_note_write(lu, off, len);
	}
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

enum xcm_status
xt_odx_execute(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err)
{
	enum xcm_status st;

	memset(res, 0, sizeof(*res));
	/* aborted (COPY OPERATION ABORT) or closing before it started */
	st = xt_odx_stop(job);
	if (st != XCM_OK) {
		xcm_err_set(err, st);
		return st;
	}
	st = job->odx->sa == XCM_SA_POPULATE_TOKEN ? pt_run(job, res, err)
						   : xt_odx_wut(job, res, err);
	/* WUT writes the receiving LU: with WCE = 0 on the medium before GOOD */
	if (st == XCM_OK && job->odx->sa != XCM_SA_POPULATE_TOKEN && xt_lu_durable(job->lu) != 0) {
		xcm_err_set(err, XCM_E_CA_DEVICE_FAILURE);
		st = err->status;
	}
	/* SPC-4 6.19.4: SEGMENTS PROCESSED stays 0 for token commands */
	res->segs_processed = 0;
	return st;
}

const struct xt_odx_ops xt_odx_ops = {
	.parse = xt_odx_parse,
	.execute = xt_odx_execute,
	.redeem = xt_odx_redeem,
};
