/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's backend over the user:xcopy LUs of this tcmu-runner process:
 * an LU registry, CSCD resolution (designators as tcmu-runner's core and LIO
 * compute them), the cross-LU access rule (access.c) and data movement
 * (store_copy.c: file LUs by file_copy.c, RBD LUs by their store).
 *
 * Locking: the registry is a list under g_reg_mu, held only to read or
 * change the list, never across a read of configfs. A command snapshots it
 * (designators and access decisions, once per command: the unit serial can
 * be set after enable, as targetcli does, and LUN mappings change at any
 * time): every LU held while its unit serial is read outside the lock, then
 * let go (reg_hold_all, reg_release_all), and takes a reference on each
 * other LU it resolves, until it ends. Closing an LU unlinks it at once and
 * waits only for the commands that hold it: closing an LU no copy uses
 * returns at once.
 *
 * A CSCD that names no LU here but a LU of the peer map (peer/) resolves to
 * a remote LU opened for this command (at most XT_PEERS_PER_CMD of them):
 * its blocks move through store/'s gateway like an RBD LU's, a failed
 * remote command forwards its status and sense (COPY ABORTED 0D/01), what
 * the command wrote there is flushed on the peer (SYNCHRONIZE CACHE(16))
 * before GOOD, and its session goes back to the pool when the command ends.
 * Between two LUs of one peer target the peer's copy manager copies
 * (xt_peer_copy: delegation), unless it has none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm/cm.h"
#include "lio/lio.h"
#include "peer/peer.h"
#include "store/store.h"
#include "tokens/tokens.h"

static pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_reg_released = PTHREAD_COND_INITIALIZER;   /* a reference dropped */
static struct xt_lu *g_reg_head;
static uint64_t g_reg_next_id = 1;

void
xt_registry_add(struct xt_lu *lu)
{
	pthread_mutex_lock(&g_reg_mu);
	lu->cm->reg_id = g_reg_next_id++;
	lu->cm->reg_refs = 0;
	lu->cm->reg_next = g_reg_head;
	g_reg_head = lu;
	pthread_mutex_unlock(&g_reg_mu);
}

void
xt_registry_remove(struct xt_lu *lu)
{
	struct xt_lu **pp;

	pthread_mutex_lock(&g_reg_mu);
	for (pp = &g_reg_head; *pp != NULL; pp = &(*pp)->cm->reg_next) {
		if (*pp == lu) {
			*pp = lu->cm->reg_next;
			break;
		}
	}
	lu->cm->reg_next = NULL;
	while (lu->cm->reg_refs > 0) {   /* commands of other LUs that resolved this one */
		pthread_cond_wait(&g_reg_released, &g_reg_mu);
	}
	pthread_mutex_unlock(&g_reg_mu);
}

/* A reference on lu if it is still the LU registered as id (NULL: closed since). */
static struct xt_lu *
lu_hold(struct xt_lu *lu, uint64_t id)
{
	struct xt_lu *p;

	pthread_mutex_lock(&g_reg_mu);
	for (p = g_reg_head; p != NULL && !(p == lu && p->cm->reg_id == id); p = p->cm->reg_next) {
	}
	if (p != NULL) {
		p->cm->reg_refs++;
	}
	pthread_mutex_unlock(&g_reg_mu);
	return p;
}

void
xt_lu_release(struct xt_lu *lu)
{
	pthread_mutex_lock(&g_reg_mu);
	if (--lu->cm->reg_refs == 0) {
		pthread_cond_broadcast(&g_reg_released);
	}
	pthread_mutex_unlock(&g_reg_mu);
}

/*
 * Every registered LU, each with a reference (*n of them, in a new array,
 * NULL if none or out of memory): what the caller reads of them (configfs)
 * it reads without g_reg_mu; reg_release_all lets them go.
 */
static struct xt_lu **
reg_hold_all(size_t *n)
{
	struct xt_lu **v, *lu;
	size_t i = 0;

	pthread_mutex_lock(&g_reg_mu);
	for (lu = g_reg_head; lu != NULL; lu = lu->cm->reg_next) {
		i++;
	}
	v = calloc(i > 0 ? i : 1, sizeof(*v));
	*n = 0;
	for (lu = g_reg_head; v != NULL && lu != NULL; lu = lu->cm->reg_next) {
		lu->cm->reg_refs++;
		v[(*n)++] = lu;
	}
	pthread_mutex_unlock(&g_reg_mu);
	return v;
}

/* Drop the references of reg_hold_all (keep: one LU whose reference stays, or NULL). */
static void
reg_release_all(struct xt_lu **v, size_t n, const struct xt_lu *keep)
{
	bool wake = false;
	size_t i;

	pthread_mutex_lock(&g_reg_mu);
	for (i = 0; i < n; i++) {
		if (v[i] != keep && --v[i]->cm->reg_refs == 0) {
			wake = true;
		}
	}
	if (wake) {
		pthread_cond_broadcast(&g_reg_released);
	}
	pthread_mutex_unlock(&g_reg_mu);
	free(v);
}

/* What one command knows about one LU. */
struct xt_snap {
	struct xt_lu *lu;          /* valid to use only once held */
	uint64_t reg_id;
	bool held;                  /* a reference taken (xt_execute drops it) */
	bool written;               /* a destination of this command (xt_execute: durable) */
	char name[XT_NAME_MAX];
	bool have_serial;
	uint8_t naa[16];
	uint8_t t10[XCM_DESIG_MAX];
	uint8_t t10_len;            /* 0: "LIO-ORG " + serial does not fit a CSCD */
	int access;                 /* 1: not yet judged; 0: allowed; -errno: denied */
};

/* Remote LUs one command may open (distinct designators of the peer map). */
#define XT_PEERS_PER_CMD 4

struct xt_ctx {
	struct xt_lu *self;
	struct xt_lu *peer[XT_PEERS_PER_CMD];   /* peer/: opened by be_resolve, closed at the end */
	bool peer_written[XT_PEERS_PER_CMD];
	size_t n_peer;
	struct xt_job *job;
	struct xt_snap *snap;
	size_t n;
	uint64_t denied;
	uint64_t io_errors;
};

/* dst is about to be written by this command: flushed at its end if its WCE is 0. */
static void
mark_written(struct xt_ctx *ctx, const struct xt_lu *dst)
{
	size_t i;

	for (i = 0; i < ctx->n; i++) {
		if (ctx->snap[i].lu == dst) {
			ctx->snap[i].written = true;
		}
	}
	for (i = 0; i < ctx->n_peer; i++) {
		if (ctx->peer[i] == dst) {
			ctx->peer_written[i] = true;
		}
	}
}

/*
 * A CSCD no LU here answers to: a remote LU if the peer map names it (by
 * its NAA designator, or an IPv6 CSCD by portal and LUN), opened once per
 * command, else -ENOENT as before (COPY ABORTED 08/04). A peer the map
 * names but that cannot be reached, or is not the LU the map says: -EIO
 * (COPY ABORTED 0D/02).
 */
static int
resolve_peer(struct xt_ctx *ctx, struct xt_lu *self, const struct xcm_cscd *c, struct xt_lu **out)
{
	uint8_t desig[16];
	size_t dlen;
	char why[512];
	size_t i;
	int rc;

	if (xt_peer_cscd_desig(self, c, desig, &dlen) != 0) {
		return -ENOENT;
	}
	for (i = 0; i < ctx->n_peer; i++) {
		if (xt_peer_is(ctx->peer[i], desig, dlen)) {
			*out = ctx->peer[i];
			return 0;
		}
	}
	why[0] = '\0';
	if (ctx->n_peer == XT_PEERS_PER_CMD) {
		rc = -EBUSY;
		snprintf(why, sizeof(why), "more than %d peer LUs in one command", XT_PEERS_PER_CMD);
	} else {
		rc = xt_peer_open(self, desig, dlen, ctx->job->deadline_ms,
				  &ctx->peer[ctx->n_peer], why, sizeof(why));
	}
	if (rc == -ENOENT) {
		return -ENOENT;
	}
	if (rc != 0) {
		ctx->denied++;
		xt_lu_warn(self, "xcopy: peer LU not reachable: %s\n", why);
		return -EIO;
	}
	*out = ctx->peer[ctx->n_peer++];
	xt_lu_info(self, "xcopy: copy with peer LU %s (%s)\n", (*out)->name, (*out)->cfg.path);
	return 0;
}

static void
snap_fill(struct xt_snap *s, struct xt_lu *lu)
{
	char *serial = xt_lu_serial(lu);
	size_t len;

	memset(s, 0, sizeof(*s));
	s->lu = lu;
	s->reg_id = lu->cm->reg_id;
	snprintf(s->name, sizeof(s->name), "%s", lu->name);
	s->access = 1;
	if (serial == NULL || serial[0] == '\0') {
		/* no unit serial: the core reports no NAA designator, nothing can match */
		free(serial);
		return;
	}
	s->have_serial = true;
	xt_naa_from_serial(serial, s->naa);
	len = strlen(serial);
	if (len + 8 <= sizeof(s->t10)) {
		memcpy(s->t10, "LIO-ORG ", 8);
		memcpy(s->t10 + 8, serial, len);
		s->t10_len = (uint8_t)(len + 8);
	}
	free(serial);
}

static bool
snap_matches(const struct xt_snap *s, const struct xcm_cscd *c)
{
	/* an LU here answers to its designators (E4h), never to an address (EAh) */
	if (!s->have_serial || c->type != XCM_CSCD_ID || c->assoc != XCM_ASSOC_LU) {
		return false;
	}
	if (c->desig_type == XCM_DESIG_NAA && c->code_set == XCM_CODE_SET_BINARY) {
		return c->desig_len == 16 && memcmp(c->desig, s->naa, 16) == 0;
	}
	if (c->desig_type == XCM_DESIG_T10 && c->code_set == XCM_CODE_SET_ASCII) {
		return s->t10_len != 0 && c->desig_len == s->t10_len &&
		       memcmp(c->desig, s->t10, s->t10_len) == 0;
	}
	return false;
}

static int
be_resolve(void *vctx, struct xt_lu *self, const struct xcm_cscd *cscd, struct xt_lu **out)
{
	struct xt_ctx *ctx = vctx;
	struct xt_snap *s = NULL;
	char why[512];
	size_t i;

	if (cscd->type == 0) {
		*out = self;   /* CSCD ID FFFFh: the LU that received the command */
		return 0;
	}
	for (i = 0; i < ctx->n; i++) {
		if (!snap_matches(&ctx->snap[i], cscd)) {
			continue;
		}
		if (s != NULL && s->lu != ctx->snap[i].lu) {
			/*
			 * Two LUs answer to this designator (LIO's NAA holds only the
			 * first 25 hex digits of the unit serial): the initiator cannot
			 * have meant both, so neither is reachable, rather than writing
			 * to whichever is found first.
			 */
			xt_lu_warn(self, "xcopy: LUs %s and %s have the same designator "
				   "(unit serials alike in their first 25 hex digits): copy refused\n",
				   s->name, ctx->snap[i].name);
			return -ENOENT;
		}
		s = &ctx->snap[i];
	}
	if (s == NULL) {
		return resolve_peer(ctx, self, cscd, out);
	}
	if (s->lu == self) {
		*out = self;
		return 0;
	}
	if (!s->held) {   /* held until the command ends; closed since the snapshot: gone */
		if (lu_hold(s->lu, s->reg_id) == NULL) {
			return -ENOENT;
		}
		s->held = true;
	}
	if (s->access == 1) {
		if (self->cfs_path[0] == '\0' || s->lu->cfs_path[0] == '\0') {
			s->access = -EACCES;
			strcpy(why, "configfs path of the LU unknown");
		} else {
			s->access = xt_access_check(xt_configfs_root(), self->cfs_path,
						    s->lu->cfs_path, why, sizeof(why));
		}
		if (s->access != 0) {
			s->access = -EACCES;
			ctx->denied++;
			xt_lu_info(self, "xcopy: copy to/from LU %s refused: %s\n",
				   s->name, why);
		}
	}
	if (s->access != 0) {
		return -EACCES;
	}
	*out = s->lu;
	return 0;
}

static uint32_t
be_block_size(void *vctx, struct xt_lu *lu)
{
	return xt_lu_block_size(lu);
}

static uint64_t
be_num_blocks(void *vctx, struct xt_lu *lu)
{
	return xt_lu_num_lbas(lu);
}

static int
be_copy(void *vctx, struct xt_lu *src, uint64_t src_off, struct xt_lu *dst, uint64_t dst_off,
	uint64_t len, struct xcm_io_err *ioerr)
{
	struct xt_ctx *ctx = vctx;
	struct xt_lu *self = ctx->self;
	struct xt_copy *c = &ctx->job->copy;
	const struct xt_range r = { src, src_off, dst, dst_off, len };
	bool at_dst;
	uint64_t done;
	int rc;

	/* an RBD LU's policy is clone=never cfr=never (store_rbd.c): not for two files */
	c->clone = self->ops->copy_policy ? self->cfg.clone : XT_CLONE_AUTO;
	c->cfr = self->ops->copy_policy ? self->cfg.cfr : XT_CFR_AUTO;
	c->merged = false;
	c->write_behind = true;   /* through a page cache: written back behind the copy */
	/* an EXTENDED COPY destination write cancels change vulnerable tokens (tokens.c) */
	mark_written(ctx, dst);
	xt_tok_note_write(dst, dst_off, len);
	/* two LUs of one peer target: its copy manager copies (peer_deleg.c) */
	rc = xt_peer_copy(src, src_off, dst, dst_off, len, ctx->job->deadline_ms, ioerr);
	if (rc != -EOPNOTSUPP) {
		XT_STAT_ADD(self, delegated_bytes, rc == 0 ? len : ioerr->done);
		if (rc != 0) {
			ctx->io_errors++;
		}
		return rc;
	}
	rc = xt_lu_copy(c, &r);
	xt_tok_note_write(dst, dst_off, len);   /* and after (see xt_handler_write) */
	at_dst = c->at_dst;
	done = c->done;
	if (rc != 0) {
		ctx->io_errors++;
		xt_copy_io_err(c, src, dst, done, ioerr);
		xt_lu_err(self, "xcopy: %s failed at %s %s+%llu (%llu of %llu bytes done): %s\n",
			  at_dst ? "write" : "read", at_dst ? "destination" : "source",
			  at_dst ? dst->cfg.path : src->cfg.path,
			  (unsigned long long)(at_dst ? dst_off : src_off),
			  (unsigned long long)done, (unsigned long long)len, strerror(-rc));
	}
	return rc;
}

/* Between chunks: a stop request of the job (async.c) ends the list. */
static enum xcm_status
be_stop(void *vctx)
{
	struct xt_ctx *ctx = vctx;

	switch (atomic_load(&ctx->job->stop)) {
	case XT_STOP_NONE:
		return XCM_OK;
	case XT_STOP_ABORT:
		/* COPY OPERATION ABORT (async.c) */
		return XCM_E_CA_ABORTED;
	default:
		/*
		 * The LU is going away: the copy target is no longer reachable
		 * (COPY ABORTED 0D/02), in the segment that was running.
		 */
		return XCM_E_CA_NOT_REACHABLE;
	}
}

/* After each chunk: progress for COPY STATUS / RECEIVE COPY STATUS of a running list. */
static void
be_progress(void *vctx, uint32_t segs, uint64_t bytes)
{
	struct xt_ctx *ctx = vctx;

	atomic_store(&ctx->job->segs_done, segs);
	atomic_store(&ctx->job->bytes_done, bytes);
}

static uint64_t
be_now_ms(void *vctx)
{
	return xos_now_ms();
}

/*
 * Contiguous segments merged into one call (engine/exec.c copy_run):
 * between reflink LUs of one filesystem, where one FICLONERANGE costs the
 * extents, not the bytes, up to XT_RUN_MAX bytes per call (not with
 * clone=never); between two LUs whose store copies inside itself (RBD), up
 * to that store's chunk.
 */
#define XT_RUN_MAX (UINT64_C(256) << 20)

static uint64_t
be_run_len(void *vctx, struct xt_lu *src, struct xt_lu *dst)
{
	struct xt_ctx *ctx = vctx;
	uint64_t chunk = xt_lu_store_chunk(src, dst);

	if (chunk != 0) {
		return chunk;
	}
	if (ctx->self->cfg.clone == XT_CLONE_NEVER || !xt_lu_clones(src, dst)) {
		return 0;
	}
	return XT_RUN_MAX;
}

/*
 * A merged run: by the store's copy (RBD), or clone or nothing (files). The
 * engine copies a failed run again segment by segment, which reports the
 * failure at its segment (and counts it).
 */
static int
be_copy_run(void *vctx, struct xt_lu *src, uint64_t src_off, struct xt_lu *dst,
	    uint64_t dst_off, uint64_t len)
{
	struct xt_ctx *ctx = vctx;
	struct xt_copy *c = &ctx->job->copy;
	const struct xt_range r = { src, src_off, dst, dst_off, len };
	int rc;

	mark_written(ctx, dst);
	xt_tok_note_write(dst, dst_off, len);   /* as be_copy */
	/* RBD: the store's copy; files: clone or nothing */
	c->clone = xt_lu_store_chunk(src, dst) != 0 ? XT_CLONE_AUTO : XT_CLONE_ALWAYS;
	c->cfr = xt_lu_store_chunk(src, dst) != 0 ? XT_CFR_AUTO : XT_CFR_NEVER;
	c->merged = true;
	c->write_behind = false;
	rc = xt_lu_copy(c, &r);
	xt_tok_note_write(dst, dst_off, len);
	return rc;
}

void
xt_copy_io_err(const struct xt_copy *c, const struct xt_lu *src, const struct xt_lu *dst,
	       uint64_t done, struct xcm_io_err *ioerr)
{
	memset(ioerr, 0, sizeof(*ioerr));
	ioerr->at_dst = c->at_dst;
	ioerr->done = done;
	ioerr->status = XCM_SAM_CHECK_CONDITION;
	ioerr->sense_len = 0;   /* the engine makes MEDIUM ERROR sense */
	/* a peer's CHECK CONDITION: its status and sense forwarded as they came */
	(void)xt_peer_last_sense(c->at_dst ? dst : src, &ioerr->status, ioerr->sense,
				 &ioerr->sense_len);
}

/* The C0h segment (docs/remote-tokens.md): our token's bytes into ranges of dst. */
static enum xcm_status
be_token_copy(void *vctx, struct xt_lu *self, struct xt_lu *dst, const struct xcm_tok_seg *t,
	      uint64_t *bytes, struct xcm_io_err *ioerr)
{
	struct xt_ctx *ctx = vctx;
	enum xcm_status st;

	if (self->cm->odx == NULL || self->cm->odx->redeem == NULL) {
		return XCM_E_TOKEN_UNKNOWN;   /* no token table here */
	}
	/* the sender stops waiting after TIME BUDGET: nothing written after that */
	if (t->budget_ms != 0) {
		uint64_t until = xos_now_ms() + t->budget_ms;

		if (ctx->job->deadline_ms == 0 || until < ctx->job->deadline_ms) {
			ctx->job->deadline_ms = until;
		}
	}
	mark_written(ctx, dst);
	st = self->cm->odx->redeem(ctx->job, dst, t, bytes, ioerr);   /* odx/odx_wut.c */
	if (st == XCM_E_CA_DEVICE_FAILURE) {
		ctx->io_errors++;
	}
	return st;
}

static const struct xcm_backend_ops g_ops = {
	.resolve = be_resolve,
	.block_size = be_block_size,
	.num_blocks = be_num_blocks,
	.copy = be_copy,
	.now_ms = be_now_ms,
	.stop = be_stop,
	.progress = be_progress,
	.run_len = be_run_len,
	.copy_run = be_copy_run,
	.token_copy = be_token_copy,
};

void
xt_stats_add_acct(struct xt_lu *lu, const struct xt_copy_acct *a)
{
	XT_STAT_ADD(lu, clone_bytes, a->clone_bytes);
	XT_STAT_ADD(lu, cfr_bytes, a->cfr_bytes);
	XT_STAT_ADD(lu, rw_bytes, a->rw_bytes);
	XT_STAT_ADD(lu, rw_direct_bytes, a->rw_direct_bytes);
	XT_STAT_ADD(lu, copyfrom_bytes, a->copyfrom_bytes);
	XT_STAT_ADD(lu, gateway_bytes, a->gateway_bytes);
	XT_STAT_ADD(lu, hole_objects, a->hole_objects);
	XT_STAT_ADD(lu, touch_bytes, a->touch_bytes);
	XT_STAT_ADD(lu, fallbacks, a->fallbacks);
	XT_STAT_ADD(lu, store_copies, a->store_copies);
	if (a->last_fallback != NULL) {   /* a static string */
		__atomic_store_n(&lu->stats.last_fallback, a->last_fallback, __ATOMIC_RELAXED);
	}
}

/* The LU's counters after a job; a deadline cut is logged. */
static void
exec_account(const struct xt_job *job, const struct xt_ctx *ctx, enum xcm_status st,
	     const struct xcm_exec_result *res, const struct xcm_err *err)
{
	struct xt_lu *self = job->lu;

	XT_STAT_ADD(self, segments, res->segs_processed);
	XT_STAT_ADD(self, bytes, res->bytes);
	xt_stats_add_acct(self, &job->copy.acct);
	XT_STAT_ADD(self, denied, ctx->denied);
	XT_STAT_ADD(self, io_errors, ctx->io_errors);
	if (st == XCM_E_CA_DEADLINE) {
		XT_STAT_ADD(self, deadline_cuts, 1);
	}
	if (st == XCM_E_CA_DEADLINE) {
		xt_lu_warn(self, "xcopy: stopped at the command deadline (cmd_time_out %u s) "
			   "in segment %u, %llu bytes written, %llu ms after arrival\n",
			   job->cmd_time_out, err->csi, (unsigned long long)res->bytes,
			   (unsigned long long)(xos_now_ms() - ((uint64_t)job->t0.tv_sec * 1000 +
							     (uint64_t)job->t0.tv_nsec / 1000000)));
	}
}

enum xcm_status
xt_execute(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err)
{
	struct xcm_exec_opts opts = { .deadline_ms = job->deadline_ms };
	struct xt_lu *self = job->lu;
	const struct xcm_list *l = &job->list;
	struct xt_ctx ctx;
	struct xt_lu **all;
	enum xcm_status st;
	size_t n = 0, i;

	memset(&ctx, 0, sizeof(ctx));
	memset(res, 0, sizeof(*res));
	ctx.self = self;
	ctx.job = job;
	all = reg_hold_all(&n);
	ctx.snap = all != NULL ? calloc(n > 0 ? n : 1, sizeof(*ctx.snap)) : NULL;
	if (ctx.snap == NULL) {
		if (all != NULL) {
			reg_release_all(all, n, NULL);
		}
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return XCM_E_INSUFFICIENT_RESOURCES;
	}
	/*
	 * Chunks of XT_PAR_PIECES pieces copied at once (parallel.c), on an RBD
	 * LU of XT_RBD_CHUNK: the store's, a fault armed or not (fault/).
	 */
	opts.chunk_len = self->ops->copy_chunk;
	for (i = 0; i < n; i++) {   /* held: configfs read without g_reg_mu */
		snap_fill(&ctx.snap[ctx.n++], all[i]);
	}
	reg_release_all(all, n, NULL);   /* be_resolve holds what the list names */
	st = xcm_list_execute_opts(l, xt_limits(), &g_ops, &ctx, self, &opts, res, err);
	/*
	 * WCE = 0 on a destination: what the command wrote there is on the
	 * medium before GOOD (a WRITE is, xt_handler_write). Only written LUs
	 * are in use (self, or held since resolve).
	 */
	for (i = 0; i < ctx.n && st == XCM_OK; i++) {
		int rc = ctx.snap[i].written ? xt_lu_durable(ctx.snap[i].lu) : 0;

		if (rc != 0) {
			xt_lu_err(self, "xcopy: flush of destination %s: %s\n",
				  ctx.snap[i].lu->cfg.path, strerror(-rc));
			ctx.io_errors++;
			xcm_err_set(err, XCM_E_CA_DEVICE_FAILURE);
			st = err->status;
		}
	}
	for (i = 0; i < ctx.n_peer; i++) {   /* on the peer's medium before GOOD */
		if (st == XCM_OK && ctx.peer_written[i] &&
		    xt_peer_flush(ctx.peer[i], job->deadline_ms) != 0) {
			ctx.io_errors++;
			xcm_err_set(err, XCM_E_CA_DEVICE_FAILURE);
			st = err->status;
		}
		xt_peer_close(ctx.peer[i]);
	}
	for (i = 0; i < ctx.n; i++) {
		if (ctx.snap[i].held) {
			xt_lu_release(ctx.snap[i].lu);
		}
	}
	free(ctx.snap);
	exec_account(job, &ctx, st, res, err);
	return st;
}

struct xt_lu *
xt_registry_hold_naa(const uint8_t naa[16])
{
	struct xt_lu **all, *found = NULL;
	struct xt_snap s;
	size_t n, i;

	all = reg_hold_all(&n);
	if (all == NULL) {
		return NULL;
	}
	for (i = 0; i < n; i++) {   /* held: configfs read without g_reg_mu */
		snap_fill(&s, all[i]);
		if (s.have_serial && memcmp(s.naa, naa, 16) == 0) {
			if (found != NULL) {
				found = NULL;   /* two LUs with one designator: neither (see be_resolve) */
				break;
			}
			found = all[i];
		}
	}
	reg_release_all(all, n, found);   /* found's reference is the caller's */
	return found;
}
