/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine's backend over the user:xcopy LUs of this tcmu-runner process:
 * an LU registry, CSCD resolution (designators as tcmu-runner's core and LIO
 * compute them), the cross-LU access rule (access.c) and data movement
 * (store_copy.c: file LUs by copy.c, RBD LUs by their store).
 *
 * Locking: the registry is a list under g_reg_mu, held only to read or
 * change the list. A command snapshots it (designators and access decisions,
 * once per command: the unit serial can be set after enable, as targetcli
 * does, and LUN mappings change at any time) and takes a reference on each
 * other LU it resolves, until it ends. Closing an LU unlinks it at once and
 * waits only for the commands that hold it: closing an LU no copy uses
 * returns at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm/cm.h"
#include "fault/fault.h"
#include "lio/lio.h"
#include "store/store.h"
#include "tokens/tokens.h"

static pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_reg_released = PTHREAD_COND_INITIALIZER;   /* a reference dropped */
static struct xcm_lu *g_reg_head;
static uint64_t g_reg_next_id = 1;

void
xt_registry_add(struct xcm_lu *lu)
{
	pthread_mutex_lock(&g_reg_mu);
	lu->reg_id = g_reg_next_id++;
	lu->refs = 0;
	lu->next = g_reg_head;
	g_reg_head = lu;
	pthread_mutex_unlock(&g_reg_mu);
	xt_fault_lu_add(lu);
}

void
xt_registry_remove(struct xcm_lu *lu)
{
	struct xcm_lu **pp;

	pthread_mutex_lock(&g_reg_mu);
	for (pp = &g_reg_head; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == lu) {
			*pp = lu->next;
			break;
		}
	}
	lu->next = NULL;
	while (lu->refs > 0) {   /* commands of other LUs that resolved this one */
		pthread_cond_wait(&g_reg_released, &g_reg_mu);
	}
	pthread_mutex_unlock(&g_reg_mu);
	xt_fault_lu_remove(lu);
}

/* A reference on lu if it is still the LU registered as id (NULL: closed since). */
static struct xcm_lu *
lu_hold(struct xcm_lu *lu, uint64_t id)
{
	struct xcm_lu *p;

	pthread_mutex_lock(&g_reg_mu);
	for (p = g_reg_head; p != NULL && !(p == lu && p->reg_id == id); p = p->next) {
	}
	if (p != NULL) {
		p->refs++;
	}
	pthread_mutex_unlock(&g_reg_mu);
	return p;
}

void
xt_lu_release(struct xcm_lu *lu)
{
	pthread_mutex_lock(&g_reg_mu);
	if (--lu->refs == 0) {
		pthread_cond_broadcast(&g_reg_released);
	}
	pthread_mutex_unlock(&g_reg_mu);
}

/* What one command knows about one LU. */
struct xt_snap {
	struct xcm_lu *lu;          /* valid to use only once held */
	uint64_t reg_id;
	bool held;                  /* a reference taken (xt_execute drops it) */
	char name[XT_NAME_MAX];
	bool have_serial;
	uint8_t naa[16];
	uint8_t t10[XCM_DESIG_MAX];
	uint8_t t10_len;            /* 0: "LIO-ORG " + serial does not fit a CSCD */
	int access;                 /* 1: not yet judged; 0: allowed; -errno: denied */
};

struct xt_ctx {
	struct xcm_lu *self;
	struct xt_job *job;
	struct xt_snap *snap;
	size_t n;
	struct xt_copy_acct acct;
	uint64_t denied;
	uint64_t io_errors;
};

static void
snap_fill(struct xt_snap *s, struct xcm_lu *lu)
{
	char *serial = tcmu_cfgfs_dev_get_wwn(lu->dev);
	size_t len;

	memset(s, 0, sizeof(*s));
	s->lu = lu;
	s->reg_id = lu->reg_id;
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
	if (!s->have_serial || c->assoc != XCM_ASSOC_LU) {
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
be_resolve(void *vctx, struct xcm_lu *self, const struct xcm_cscd *cscd, struct xcm_lu **out)
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
			tcmu_dev_warn(self->dev, "xcopy: LUs %s and %s have the same designator "
				      "(unit serials alike in their first 25 hex digits): copy refused\n",
				      s->name, ctx->snap[i].name);
			return -ENOENT;
		}
		s = &ctx->snap[i];
	}
	if (s == NULL) {
		return -ENOENT;
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
			tcmu_dev_info(self->dev, "xcopy: copy to/from LU %s refused: %s\n",
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
be_block_size(void *vctx, struct xcm_lu *lu)
{
	return tcmu_dev_get_block_size(lu->dev);
}

static uint64_t
be_num_blocks(void *vctx, struct xcm_lu *lu)
{
	return tcmu_dev_get_num_lbas(lu->dev);
}

static int
be_copy(void *vctx, struct xcm_lu *src, uint64_t src_off, struct xcm_lu *dst, uint64_t dst_off,
	uint64_t len, struct xcm_io_err *ioerr)
{
	struct xt_ctx *ctx = vctx;
	struct xcm_lu *self = ctx->self;
	struct xt_job *job = ctx->job;
	unsigned int pieces = xt_lu_copy_pieces(src, dst);
	/* an RBD LU's policy is clone=never cfr=never (store_rbd.c): not for two files */
	enum xt_clone clone = self->ops->copy_policy ? self->cfg.clone : XT_CLONE_AUTO;
	enum xt_cfr cfr = self->ops->copy_policy ? self->cfg.cfr : XT_CFR_AUTO;
	unsigned int nb = 1;
	bool at_dst = false;
	uint64_t done = 0, cloned;
	int rc;

	/* one bounce buffer per parallel piece (files), allocated the first time they are needed */
	while (len > XT_CHUNK && nb < pieces &&
	       (job->bounce[nb] != NULL || (job->bounce[nb] = malloc(XT_BOUNCE_LEN)) != NULL)) {
		nb++;
	}
	/* an EXTENDED COPY destination write cancels change vulnerable tokens (tokens.c) */
	xt_tok_note_write(dst, dst_off, len);
	cloned = ctx->acct.clone_bytes;
	rc = xt_lu_copy(src, src_off, dst, dst_off, len, job->bounce, nb, clone, cfr, &ctx->acct,
			&at_dst, &done);
	xt_tok_note_write(dst, dst_off, len);   /* and after (see xt_handler_write) */
	if (rc == 0 && dst->ops->page_cache && ctx->acct.clone_bytes - cloned < len) {
		/* bytes went through dst's page cache: write them back now (file_copy.c) */
		xt_wb_chunk(&job->wb, dst, dst_off, len);
	}
	if (rc != 0) {
		ctx->io_errors++;
		memset(ioerr, 0, sizeof(*ioerr));
		ioerr->at_dst = at_dst;
		ioerr->done = done;
		ioerr->status = XCM_SAM_CHECK_CONDITION;
		ioerr->sense_len = 0;   /* the engine makes MEDIUM ERROR sense */
		tcmu_dev_err(self->dev, "xcopy: %s failed at %s %s+%llu (%llu of %llu bytes done): %s\n",
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
 * extents, not the bytes, up to XT_RUN_MAX bytes per call (not with a fault
 * armed: the tests count calls; not with clone=never); between two LUs whose
 * store copies itself (RBD), up to XT_RBD_CHUNK.
 */
#define XT_RUN_MAX (UINT64_C(256) << 20)

static uint64_t
be_run_len(void *vctx, struct xcm_lu *src, struct xcm_lu *dst)
{
	struct xt_ctx *ctx = vctx;

	if (xt_lu_store_copies(src, dst)) {
		return XT_RBD_CHUNK;
	}
	if (ctx->self->cfg.clone == XT_CLONE_NEVER || !xt_lu_clones(src, dst) ||
	    xt_fault_active(src) || xt_fault_active(dst)) {
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
be_copy_run(void *vctx, struct xcm_lu *src, uint64_t src_off, struct xcm_lu *dst,
	    uint64_t dst_off, uint64_t len)
{
	struct xt_ctx *ctx = vctx;
	bool at_dst = false;
	uint64_t done = 0;
	int rc;

	xt_tok_note_write(dst, dst_off, len);   /* as be_copy */
	if (xt_lu_store_copies(src, dst)) {
		rc = xt_lu_copy(src, src_off, dst, dst_off, len, ctx->job->bounce, 1, XT_CLONE_AUTO,
				XT_CFR_AUTO, &ctx->acct, &at_dst, &done);
		xt_tok_note_write(dst, dst_off, len);
		return rc;
	}
	rc = xt_file_copy(src, src_off, dst, dst_off, len, ctx->job->bounce[0], XT_CLONE_ALWAYS,
			  XT_CFR_NEVER, &ctx->acct, &at_dst, &done);
	xt_tok_note_write(dst, dst_off, len);
	return rc;
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
};

void
xt_stats_add_acct(struct xt_stats *s, const struct xt_copy_acct *a)
{
	s->clone_bytes += a->clone_bytes;
	s->cfr_bytes += a->cfr_bytes;
	s->rw_bytes += a->rw_bytes;
	s->copyfrom_bytes += a->copyfrom_bytes;
	s->gateway_bytes += a->gateway_bytes;
	s->hole_objects += a->hole_objects;
	s->touch_bytes += a->touch_bytes;
	s->fallbacks += a->fallbacks;
	s->store_copies += a->store_copies;
	if (a->last_fallback != NULL) {
		snprintf(s->last_fallback, sizeof(s->last_fallback), "%s", a->last_fallback);
	}
}

/* The LU's counters after a job; a deadline cut is logged. */
static void
exec_account(const struct xt_job *job, const struct xt_ctx *ctx, enum xcm_status st,
	     const struct xcm_exec_result *res, const struct xcm_err *err)
{
	struct xcm_lu *self = job->lu;

	pthread_mutex_lock(&self->stats_lock);
	self->stats.segments += res->segs_processed;
	self->stats.bytes += res->bytes;
	xt_stats_add_acct(&self->stats, &ctx->acct);
	self->stats.denied += ctx->denied;
	self->stats.io_errors += ctx->io_errors;
	if (st == XCM_E_CA_DEADLINE) {
		self->stats.deadline_cuts++;
	}
	pthread_mutex_unlock(&self->stats_lock);
	if (st == XCM_E_CA_DEADLINE) {
		tcmu_dev_warn(self->dev, "xcopy: stopped at the command deadline (cmd_time_out %u s) "
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
	struct xcm_lu *self = job->lu;
	const struct xcm_list *l = &job->list;
	struct xt_ctx ctx;
	struct xcm_lu *lu;
	enum xcm_status st;
	size_t n = 0, i;

	memset(&ctx, 0, sizeof(ctx));
	memset(res, 0, sizeof(*res));
	ctx.self = self;
	ctx.job = job;
	ctx.acct.deadline_ms = job->deadline_ms;
	ctx.acct.cmd_time_out = job->cmd_time_out;
	pthread_mutex_lock(&g_reg_mu);
	for (lu = g_reg_head; lu != NULL; lu = lu->next) {
		n++;
	}
	ctx.snap = calloc(n > 0 ? n : 1, sizeof(*ctx.snap));
	if (ctx.snap == NULL) {
		pthread_mutex_unlock(&g_reg_mu);
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return XCM_E_INSUFFICIENT_RESOURCES;
	}
	/*
	 * Chunks of XT_PAR_PIECES pieces copied at once (parallel.c), on an RBD
	 * LU of XT_RBD_CHUNK; with a fault armed anywhere, serial 1 MiB chunks
	 * (the tests count calls).
	 */
	opts.chunk_len = self->ops->copy_chunk;
	for (lu = g_reg_head; lu != NULL; lu = lu->next) {
		snap_fill(&ctx.snap[ctx.n++], lu);
		xt_fault_poll(lu);
		if (xt_fault_active(lu)) {
			opts.chunk_len = XT_CHUNK;
		}
	}
	pthread_mutex_unlock(&g_reg_mu);
	st = xcm_list_execute_opts(l, xt_limits(), &g_ops, &ctx, self, &opts, res, err);
	for (i = 0; i < ctx.n; i++) {
		if (ctx.snap[i].held) {
			xt_lu_release(ctx.snap[i].lu);
		}
	}
	free(ctx.snap);
	exec_account(job, &ctx, st, res, err);
	return st;
}

struct xcm_lu *
xt_registry_hold_naa(const uint8_t naa[16])
{
	struct xcm_lu *lu, *found = NULL;
	struct xt_snap s;

	pthread_mutex_lock(&g_reg_mu);
	for (lu = g_reg_head; lu != NULL; lu = lu->next) {
		snap_fill(&s, lu);
		if (s.have_serial && memcmp(s.naa, naa, 16) == 0) {
			if (found != NULL) {
				found = NULL;   /* two LUs with one designator: neither (see be_resolve) */
				break;
			}
			found = lu;
		}
	}
	if (found != NULL) {
		found->refs++;
	}
	pthread_mutex_unlock(&g_reg_mu);
	return found;
}
