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

#include "fault/fault.h"
#include "odx/odx.h"
#include "store/file/store_file.h"
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
xt_tok_limits(const struct xcm_lu *lu)
{
	pthread_once(&g_tl_once, tl_init);
	return lu->reflink ? &g_tl_pit : &g_tl_vuln;
}

enum xcm_status
xt_odx_parse(struct xcm_lu *lu, const struct xcm_tpc_out_req *req, const uint8_t *plist,
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
				tcmu_dev_get_num_lbas(lu->dev), tcmu_dev_get_block_size(lu->dev),
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
 * A backing-file view of a token's snapshot for copy.c and store_copy.c: an
 * LU of the file store (so xt_lu_copy can take it to any destination), no
 * registry entry, no faults; free() releases it.
 */
struct xcm_lu *
xt_odx_snap_view(const struct xcm_lu *lu, int fd)
{
	struct xcm_lu *v = xt_file_view(lu, fd);

	if (v == NULL) {
		return NULL;
	}
	snprintf(v->cfg.path, sizeof(v->cfg.path), "%.4000s (token snapshot)", lu->cfg.path);
	snprintf(v->name, sizeof(v->name), "%.100s-snap", lu->name);
	return v;
}

/* Copy [off, off + len) of src to dst at doff, clone-aligned middle part apart. */
static int
copy_part(struct xt_job *job, const struct xcm_lu *src, uint64_t off, const struct xcm_lu *dst,
	  uint64_t doff, uint64_t len, struct xt_copy_acct *acct)
{
	const struct xcm_lu *self = job->lu;
	unsigned int nb = 1;
	bool at_dst = false;
	uint64_t done = 0;

	while (len > XT_CHUNK && nb < XT_PAR_PIECES &&
	       (job->bounce[nb] != NULL || (job->bounce[nb] = malloc(XT_BOUNCE_LEN)) != NULL)) {
		nb++;
	}
	return xt_par_copy(src, off, dst, doff, len, job->bounce, nb, self->cfg.clone,
			   self->cfg.cfr, acct, &at_dst, &done);
}

/* PT on a reflink store: each range into the snapshot at its own offset. */
static enum xcm_status
snapshot(struct xt_job *job, struct xt_tok *tok, struct xcm_err *err)
{
	struct xcm_lu *lu = job->lu, *v = NULL;
	uint64_t size = tcmu_dev_get_num_lbas(lu->dev) * tok->block_len, done = 0;
	struct xt_copy_acct acct = { 0 };
	enum xcm_status st = XCM_OK;
	uint32_t i;
	int rc = 0;

	tok->snap_fd = xt_file_tmpfile(lu);
	if (tok->snap_fd < 0 || ftruncate(tok->snap_fd, (off_t)size) != 0 ||
	    (v = xt_odx_snap_view(lu, tok->snap_fd)) == NULL) {
		rc = -errno;
	}
	for (i = 0; rc == 0 && st == XCM_OK && i < tok->nranges; i++) {
		uint64_t off = tok->range[i].lba * tok->block_len;
		uint64_t len = (uint64_t)tok->range[i].count * tok->block_len;

		st = xt_odx_stop(job);
		if (st == XCM_OK) {
			rc = copy_part(job, lu, off, v, off, len, &acct);
			done += len;
			atomic_store(&job->bytes_done, done);
		}
	}
	free(v);
	if (st == XCM_OK && rc != 0) {
		tcmu_dev_err(lu->dev, "xcopy: POPULATE TOKEN snapshot failed: %s\n", strerror(-rc));
		st = XCM_E_NO_ROD_RESOURCES;
	}
	xcm_err_set(err, st);
	return st;
}

/* The token's bytes: identifier, creator (NAA of the unit serial), random part. */
static enum xcm_status
token_make(struct xcm_lu *lu, struct xt_tok *tok, uint32_t rod_type, struct xcm_err *err)
{
	struct xcm_rod_token rt;
	char *serial = tcmu_cfgfs_dev_get_wwn(lu->dev);
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
	struct xcm_lu *lu = job->lu;
	const struct xcm_tok_list *l = &job->odx->l;
	uint32_t bs = tcmu_dev_get_block_size(lu->dev);
	bool snap = lu->reflink && l->rod_type != XCM_ROD_TYPE_PIT_VULNERABLE;
	uint64_t total = l->total_blocks * bs;
	struct xt_tok *tok;
	enum xcm_status st;

	char why[256];

	if (lu->ops->token_guard != NULL &&
	    lu->ops->token_guard(lu, false, why, sizeof(why)) != 0) {
		/* a token another client could change behind it: none (the host copies itself) */
		tcmu_dev_warn(lu->dev, "xcopy: POPULATE TOKEN list %u: no token: %s\n",
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
	tcmu_dev_dbg(lu->dev, "xcopy: POPULATE TOKEN list %u: %u ranges, %llu bytes%s\n",
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
	struct xcm_lu *lu = job->lu;
	const struct xcm_tok_list *l = &job->odx->l;
	uint32_t bs = tcmu_dev_get_block_size(lu->dev), i;

	for (i = 0; i < l->nranges; i++) {
		uint64_t off = l->range[i].lba * bs, len = (uint64_t)l->range[i].count * bs, done;
		int rc = 0;

		xt_tok_note_write(lu, off, len);
		done = 0;
		if (len > 0 && lu->ops->write_zeroes != NULL) {
			rc = lu->ops->write_zeroes(lu, off, len, &done);
		} else if (len > 0) {
			rc = lu->ops->zero(lu, off, len);   /* RBD: librbd write-zeroes */
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
	/* SPC-4 6.19.4: SEGMENTS PROCESSED stays 0 for token commands */
	res->segs_processed = 0;
	return st;
}

const struct xt_odx_ops xt_odx_ops = {
	.parse = xt_odx_parse,
	.execute = xt_odx_execute,
};
