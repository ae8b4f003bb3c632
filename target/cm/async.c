/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY off the LU's command thread.
 *
 * tcmu-runner 1.5.4 calls handle_cmd synchronously on the LU's one command
 * thread and offers a handler no exported way to complete a command later
 * from its own thread. What it does offer: a CDB that handle_cmd leaves
 * ("not handled") goes on to the core, which sends SYNCHRONIZE CACHE
 * to the handler's flush callout on one of the LU's nr_threads workers and
 * completes the command with the callout's return code, through the
 * runner's own completion, tracking and device-removal paths.
 *
 * So EXTENDED COPY is checked and parsed here on the command thread (errors
 * found before data moves are answered at once), the job is queued in the
 * LU's job list and answered XT_STS_QUEUED with its token; the handler
 * (tcmu/tcmu_cmd.c) keeps the token in the runner's command and rewrites its
 * CDB to SYNCHRONIZE CACHE. The flush callout hands the token back and the
 * job runs on the worker. docs/target-commands.md lists the runner behaviour this
 * relies on.
 *
 * At most XT_MAX_JOBS jobs per LU are in flight (of XT_WORKERS workers);
 * one more is answered TASK SET FULL (SAM-5 5.3.5: the task set cannot take
 * it now; initiators retry).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xcm/lid4.h"
#include "base/env.h"
#include "cm/cm.h"
#include "lio/lio.h"
#include "store/store.h"

/*
 * A job the runner never handed to flush (the core answered the rewritten
 * command itself, e.g. BUSY during device recovery) is forgotten this long
 * after the command's timeout: the kernel has failed the command by then.
 */
#define ORPHAN_GRACE_S 10

static atomic_uint_fast64_t g_next_token = 1;
/* Tokens of block command jobs carry this bit: the worker skips the sessions walk for them. */
#define BLK_TOKEN (UINT64_C(1) << 62)

static int64_t
ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

int
xt_cm_init(struct xt_lu *lu, const struct xt_odx_ops *odx)
{
	struct xt_cm_lu *cm = calloc(1, sizeof(*cm));
	pthread_condattr_t ca;
	int rc;

	if (cm == NULL) {
		return -ENOMEM;
	}
	cm->odx = odx;
	cm->plist_cap = xcm_limits_max_param_len(xt_limits());
	cm->plist = malloc(cm->plist_cap);
	cm->store = xcm_store_create();
	cm->store4 = xcm_store4_create();
	lu->cm = cm;
	if (cm->plist == NULL || cm->store == NULL || cm->store4 == NULL) {
		xt_cm_free(lu);
		return -ENOMEM;
	}
	rc = pthread_mutex_init(&cm->as.lock, NULL);
	if (rc != 0) {
		xt_cm_free(lu);
		return -rc;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&cm->as.changed, &ca);
	pthread_condattr_destroy(&ca);
	if (rc != 0) {
		pthread_mutex_destroy(&cm->as.lock);
		xt_cm_free(lu);
		return -rc;
	}
	xt_held_init(lu);
	return 0;
}

void
xt_cm_free(struct xt_lu *lu)
{
	struct xt_cm_lu *cm = lu->cm;

	if (cm == NULL) {
		return;
	}
	if (cm->store != NULL) {
		xcm_store_destroy(cm->store);
	}
	if (cm->store4 != NULL) {
		xcm_store4_destroy(cm->store4);
	}
	free(cm->plist);
	free(cm);
	lu->cm = NULL;
}

static void
job_free(struct xt_job *job)
{
	if (job != NULL) {
		xt_copy_free(&job->copy);
		free(job->odx);
		free(job->blk);
		free(job);
	}
}

/* Caller holds as.lock. */
static void
job_unlink(struct xt_lu *lu, struct xt_job *job)
{
	struct xt_job **pp;

	for (pp = &lu->cm->as.jobs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == job) {
			*pp = job->next;
			lu->cm->as.njobs--;
			break;
		}
	}
	job->next = NULL;
	pthread_cond_broadcast(&lu->cm->as.changed);
}

/* A list that keeps a status under its identifier (LIST ID USAGE 00b or 10b). */
static bool
job_recorded(const struct xt_job *job)
{
	return job->blk_run == NULL && (job->list.list_id_usage == XCM_LIST_ID_HOLD ||
					job->list.list_id_usage == XCM_LIST_ID_DISCARD);
}

/* Caller holds as.lock: the queued or running job of list id (LID4 or LID1), or NULL. */
static struct xt_job *
job_find(struct xt_lu *lu, bool lid4, uint32_t id)
{
	struct xt_job *job;

	for (job = lu->cm->as.jobs; job != NULL; job = job->next) {
		if (job_recorded(job) && job->list.lid4 == lid4 &&
		    (lid4 ? job->list.list_id4 : job->list.list_id) == id) {
			return job;
		}
	}
	return NULL;
}

/* Caller holds as.lock: record the outcome in the LU's LID1 or LID4 store. */
static void
job_record(struct xt_lu *lu, struct xt_job *job, enum xcm_status st,
	   const struct xcm_exec_result *res, const uint8_t *sense, size_t sense_len)
{
	if (job->list.lid4) {
		xcm_store4_finish(lu->cm->store4, &job->list, st, res,
				  st == XCM_E_CA_ABORTED, sense, sense_len);
	} else {
		xcm_store_finish(lu->cm->store, &job->list, st, res, sense, sense_len);
	}
}

/* Caller holds as.lock: forget queued jobs the runner never started (see ORPHAN_GRACE_S). */
static void
reap_orphans(struct xt_lu *lu, int64_t now)
{
	struct xt_job *job = lu->cm->as.jobs, *next;
	int64_t limit;

	for (; job != NULL; job = next) {
		next = job->next;
		if (job->state != XT_JOB_QUEUED) {
			continue;
		}
		limit = ts_ns(&job->t0) +
			(int64_t)((job->cmd_time_out > 0 ? job->cmd_time_out : XT_CMD_TIME_OUT_DEFAULT) +
				  ORPHAN_GRACE_S) * 1000000000;
		if (now < limit) {
			continue;
		}
		xt_lu_warn(lu, "xcopy: job %llu was never started by the runner; dropped\n",
			      (unsigned long long)job->token);
		if (job->blk_run == NULL) {
			job_record(lu, job, XCM_E_INSUFFICIENT_RESOURCES, NULL, NULL, 0);
		}
		job_unlink(lu, job);
		job_free(job);
	}
}

/*
 * COPY OPERATION ABORT (SPC-4 6.3), on the command thread: a queued or
 * running list with that identifier (LID4, or LID1 with a one-byte value)
 * stops before its next chunk and ends with COPY ABORTED (XCM_E_CA_ABORTED);
 * RECEIVE COPY STATUS (LID4) then says TERMINATED. A list that already
 * completed: nothing to do, GOOD. An identifier never seen: INVALID FIELD IN
 * CDB at byte 2.
 */
static enum xt_sts
copy_op_abort(struct xt_lu *lu, struct xt_scsi *c, uint32_t id)
{
	struct xcm_rcs4 st4;
	struct xt_job *job;
	struct xcm_err err;
	bool known;

	pthread_mutex_lock(&lu->cm->as.lock);
	job = job_find(lu, true, id);
	if (job == NULL && id <= UINT8_MAX) {
		job = job_find(lu, false, id);
	}
	if (job != NULL) {
		atomic_store(&job->stop, XT_STOP_ABORT);
	}
	known = job != NULL || xcm_store4_get(lu->cm->store4, id, &st4);
	pthread_mutex_unlock(&lu->cm->as.lock);
	if (known) {
		xt_lu_info(lu, "xcopy: COPY OPERATION ABORT of list %u%s\n", id,
			   job != NULL ? "" : " (already completed)");
		return XT_STS_GOOD;
	}
	xcm_err_set_field(&err, XCM_E_INVALID_FIELD_CDB, true, 2, -1);
	return xt_fail_sense(c->sense, XT_SENSE_LEN, &err);
}

bool
xt_async_status4(struct xt_lu *lu, uint32_t id, struct xcm_rcs4 *st4)
{
	struct xt_job *job;
	bool known = true, have;
	struct xt_nexus_set sessions;

	have = xt_held_sessions(lu, &sessions);   /* configfs walk, outside the lock */
	pthread_mutex_lock(&lu->cm->as.lock);
	xt_held_apply(lu, have, &sessions);   /* a session arrived: held results go */
	job = job_find(lu, true, id);
	if (job != NULL) {
		/* SPC-4 6.19.3: running, the EXTENDED COPY still waiting: foreground */
		memset(st4, 0, sizeof(*st4));
		st4->sa = job->list.tpc_sa != 0 ? job->list.tpc_sa : XCM_SA_XCOPY_LID4;
		st4->op_status = XCM_RCS4_IN_PROGRESS;
		st4->est_delay_ms = UINT32_MAX;
		st4->segs = (uint16_t)atomic_load(&job->segs_done);
		st4->bytes = atomic_load(&job->bytes_done);
	} else {
		known = xcm_store4_get(lu->cm->store4, id, st4);
	}
	pthread_mutex_unlock(&lu->cm->as.lock);
	return known;
}

enum xt_sts
xt_async_rcs4(struct xt_lu *lu, struct xt_scsi *c, uint8_t *rsp, size_t rsp_cap,
	      size_t *rsp_len)
{
	struct xcm_rcs4_req req;
	struct xcm_rcs4 st4;
	struct xcm_wbuf w;
	struct xcm_err err;

	memset(&err, 0, sizeof(err));
	if (xcm_rcs4_cdb_check(c->cdb, XCM_CDB16_LEN, &req, &err) != XCM_OK) {
		return xt_fail_sense(c->sense, XT_SENSE_LEN, &err);
	}
	if (!xt_async_status4(lu, req.list_id, &st4)) {
		/* an identifier this LU never ran (or forgot): LIST IDENTIFIER, byte 2 */
		xcm_err_set_field(&err, XCM_E_INVALID_FIELD_CDB, true, 2, -1);
		return xt_fail_sense(c->sense, XT_SENSE_LEN, &err);
	}
	w = xcm_wbuf_make(rsp, req.alloc_len < rsp_cap ? req.alloc_len : rsp_cap);
	xcm_rcs4_encode(&st4, &w);
	*rsp_len = xcm_wbuf_stored(&w);
	return XT_STS_GOOD;
}

/*
 * Queue job on lu: TASK SET FULL beyond XT_MAX_JOBS or while closing (1),
 * OPERATION IN PROGRESS for a list identifier still running (-1, *err set),
 * else linked with a fresh token (0).
 */
static int
job_enqueue(struct xt_lu *lu, struct xt_job *job, enum xcm_status *st, struct xcm_err *err)
{
	unsigned int inflight;

	pthread_mutex_lock(&lu->cm->as.lock);
	reap_orphans(lu, ts_ns(&job->t0));
	if (lu->cm->as.closing || lu->cm->as.njobs >= XT_MAX_JOBS) {
		pthread_mutex_unlock(&lu->cm->as.lock);
		return 1;
	}
	/* a list identifier still running -> OPERATION IN PROGRESS (store.c) */
	*st = job->blk_run != NULL ? XCM_OK
	      : job->list.lid4	   ? xcm_store4_begin(lu->cm->store4, &job->list, err)
				   : xcm_store_begin(lu->cm->store, &job->list, err);
	if (*st != XCM_OK) {
		pthread_mutex_unlock(&lu->cm->as.lock);
		return -1;
	}
	job->token = atomic_fetch_add(&g_next_token, 1) | (job->blk_run != NULL ? BLK_TOKEN : 0);
	job->next = lu->cm->as.jobs;
	lu->cm->as.jobs = job;
	inflight = ++lu->cm->as.njobs;
	pthread_mutex_unlock(&lu->cm->as.lock);
	if (job->blk_run != NULL) {
		return 0;   /* inflight_max counts EXTENDED COPY jobs */
	}

	xt_stat_max(&lu->stats.inflight_max, inflight);
	return 0;
}

/* Stamp job with its start time and the deadline its LU's cmd_time_out gives. */
static void
job_stamp(struct xt_lu *lu, struct xt_job *job)
{
	job->lu = lu;
	job->state = XT_JOB_QUEUED;
	clock_gettime(CLOCK_MONOTONIC, &job->t0);
	/*
	 * The kernel fails the command cmd_time_out seconds after it queued it
	 * to the ring; the engine stops between chunks before that (the reserve
	 * of xcm_deadline_for_timeout covers the wait in the ring and in the
	 * worker queue), so nothing is written after the initiator was told.
	 */
	job->cmd_time_out = xt_cmd_time_out(lu);
	job->deadline_ms = xcm_deadline_for_timeout((uint64_t)ts_ns(&job->t0) / 1000000,
						     job->cmd_time_out);
}

/* The queued job goes to a worker: the handler hands c on with its token. */
static enum xt_sts
hand_off(struct xt_scsi *c, const struct xt_job *job)
{
	c->job = job->token;
	return XT_STS_QUEUED;
}

/* Answer the command now: GOOD or CHECK CONDITION with err's sense. */
static enum xt_sts
submit_answer(struct xt_lu *lu, struct xt_scsi *c, struct xt_job *job,
	      enum xcm_status st, const struct xcm_err *err)
{
	job_free(job);
	xt_count_cmd(lu, st == XCM_OK);
	if (st == XCM_OK) {
		return XT_STS_GOOD;
	}
	return xt_fail_sense(c->sense, XT_SENSE_LEN, err);
}

enum xt_sts
xt_async_submit(struct xt_lu *lu, struct xt_scsi *c)
{
	struct xcm_tpc_out_req req;
	struct xt_job *job = NULL;
	struct xcm_err err;
	enum xcm_status st;
	int rc;

	memset(&err, 0, sizeof(err));
	/* 83h: EXTENDED COPY LID1 (00h), LID4 (01h), COPY OPERATION ABORT (1Ch) */
	st = xcm_tpc_out_cdb_check(c->cdb, XCM_CDB16_LEN, &req, &err);
	if (st == XCM_OK && req.sa == XCM_SA_COPY_OP_ABORT) {
		return copy_op_abort(lu, c, req.list_id);
	}
	if (st != XCM_OK || req.plen == 0) {
		/* PARAMETER LIST LENGTH 0: no data is moved, GOOD (check 2 of engine/param.c) */
		return submit_answer(lu, c, NULL, st, &err);
	}
	st = xt_job_parse(lu, c, &req, &job, &err);   /* async_parse.c */
	if (st != XCM_OK) {
		return submit_answer(lu, c, job, st, &err);
	}
	job_stamp(lu, job);
	rc = job_enqueue(lu, job, &st, &err);
	if (rc < 0) {
		return submit_answer(lu, c, job, st, &err);
	}
	if (rc > 0) {
		job_free(job);
		XT_STAT_ADD(lu, busy, 1);
		/* SAM-5: TASK SET FULL; the initiator retries later */
		return XT_STS_TASK_SET_FULL;
	}
	return hand_off(c, job);
}

enum xt_sts
xt_async_submit_blk(struct xt_lu *lu, struct xt_scsi *c,
		    enum xt_sts (*run)(struct xt_job *job, struct xt_scsi *c), void *arg)
{
	struct xt_job *job = calloc(1, sizeof(*job));
	struct xcm_err err;
	enum xcm_status st;

	if (job == NULL) {
		free(arg);
		return XT_STS_TASK_SET_FULL;
	}
	job->blk_run = run;
	job->blk = arg;
	job_stamp(lu, job);
	if (job_enqueue(lu, job, &st, &err) != 0) {
		job_free(job);
		return XT_STS_TASK_SET_FULL;   /* (or closing) */
	}
	return hand_off(c, job);
}

/*
 * The queued job of token, now marked running (stop set if the LU is
 * closing); NULL if it is gone (dropped after its timeout).
 */
static struct xt_job *
job_claim(struct xt_lu *lu, uint64_t token, bool blk)
{
	struct xt_job *job;
	struct xt_nexus_set sessions;
	bool have;

	/* configfs walk here on the worker, not on the command thread (nexus.c) */
	have = !blk && xt_held_sessions(lu, &sessions);
	pthread_mutex_lock(&lu->cm->as.lock);
	if (!blk) {
		xt_held_apply(lu, have, &sessions);   /* a session arrived: held results go */
	}
	for (job = lu->cm->as.jobs; job != NULL && job->token != token; job = job->next) {
	}
	if (job == NULL || job->state != XT_JOB_QUEUED) {
		pthread_mutex_unlock(&lu->cm->as.lock);
		return NULL;
	}
	job->state = XT_JOB_RUNNING;
	if (lu->cm->as.closing) {
		atomic_store(&job->stop, XT_STOP_CLOSE);
	}
	pthread_mutex_unlock(&lu->cm->as.lock);
	return job;
}

/* Run job at the LU's copy niceness; its sense into sense (*sense_len, 0 on success). */
static enum xcm_status
job_execute(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err,
	    uint8_t *sense, size_t *sense_len)
{
	enum xcm_status st;

	memset(err, 0, sizeof(*err));
	/* the copy's bounds and stop request, for the stores (store/store.h) */
	job->copy.self = job->lu;
	job->copy.deadline_ms = job->deadline_ms;
	job->copy.cmd_time_out = job->cmd_time_out;
	job->copy.stop = &job->stop;
	xt_copy_start(&job->copy);   /* and the worker yields the CPU while it copies */
	st = job->odx != NULL ? job->lu->cm->odx->execute(job, res, err) : xt_execute(job, res, err);
	xt_copy_end(&job->copy);
	*sense_len = 0;
	if (st != XCM_OK) {
		memset(sense, 0, XCM_SENSE_MAX);
		*sense_len = xcm_sense_build(err, err->fwd_valid, sense, XCM_SENSE_MAX);
		xt_lu_dbg(job->lu, "xcopy: %s (%u segments done)\n",
			  xcm_status_info(st)->name, res->segs_processed);
	}
	return st;
}

bool
xt_async_run(struct xt_lu *lu, struct xt_scsi *c, enum xt_sts *sts)
{
	uint64_t token = c->job;
	uint8_t sense[XCM_SENSE_MAX];
	struct xcm_exec_result res;
	struct xt_job *job;
	struct xcm_err err;
	enum xcm_status st;
	size_t sense_len = 0;
	int cancel_state;

	if (token == 0) {
		return false;   /* a real SYNCHRONIZE CACHE */
	}
	job = job_claim(lu, token, (token & BLK_TOKEN) != 0);
	if (job == NULL) {
		xt_lu_err(lu, "xcopy: job %llu not found (dropped after its timeout)\n",
			  (unsigned long long)token);
		*sts = XT_STS_GONE;
		return true;
	}
	/*
	 * The runner stops a LU's workers with pthread_cancel; a job cancelled
	 * mid-way would leave the command, the store record and the registry
	 * lock behind. Jobs stop between chunks instead (close sets stop), so
	 * cancellation waits for that.
	 */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	if (job->blk_run != NULL) {
		/* a block command: its own status and sense, nothing recorded */
		*sts = job->blk_run(job, c);
		pthread_mutex_lock(&lu->cm->as.lock);
		job_unlink(lu, job);   /* last touch of lu, as below */
		pthread_mutex_unlock(&lu->cm->as.lock);
		job_free(job);
		pthread_setcancelstate(cancel_state, NULL);
		return true;
	}
	st = job_execute(job, &res, &err, sense, &sense_len);
	xt_count_cmd(lu, st == XCM_OK);
	/*
	 * Last touch of lu: once the job is unlinked, a waiting close may free
	 * the LU.
	 */
	pthread_mutex_lock(&lu->cm->as.lock);
	job_record(lu, job, st, &res, sense_len > 0 ? sense : NULL, sense_len);
	job_unlink(lu, job);
	pthread_mutex_unlock(&lu->cm->as.lock);
	job_free(job);
	*sts = st == XCM_OK ? XT_STS_GOOD : xt_fail_sense(c->sense, XT_SENSE_LEN, &err);
	pthread_setcancelstate(cancel_state, NULL);
	return true;
}

enum xcm_status
xt_async_rcr(struct xt_lu *lu, const struct xcm_rcr_req *req, struct xcm_wbuf *w,
	     struct xcm_err *err)
{
	struct xcm_copy_status cs;
	struct xt_job *job;
	enum xcm_status st;
	struct xt_nexus_set sessions;
	bool have;

	have = xt_held_sessions(lu, &sessions);   /* configfs walk, outside the lock */
	pthread_mutex_lock(&lu->cm->as.lock);
	xt_held_apply(lu, have, &sessions);   /* a session arrived: held results go */
	if (req->sa == XCM_SA_RCR_COPY_STATUS) {
		job = job_find(lu, false, req->list_id);
		if (job != NULL) {
			/* SPC-4 6.18.3 COPY STATUS: a list still running, with its progress */
			memset(&cs, 0, sizeof(cs));
			cs.cm_status = XCM_CM_STATUS_IN_PROGRESS;
			cs.hdd = job->list.list_id_usage == XCM_LIST_ID_HOLD;
			cs.segs_processed = (uint16_t)atomic_load(&job->segs_done);
			xcm_copy_status_set_bytes(&cs, atomic_load(&job->bytes_done));
			pthread_mutex_unlock(&lu->cm->as.lock);
			xcm_err_set(err, XCM_OK);
			xcm_rcr_encode_copy_status(&cs, w);
			return XCM_OK;
		}
	}
	st = xcm_store_rcr(lu->cm->store, xt_limits(), req, w, err);
	pthread_mutex_unlock(&lu->cm->as.lock);
	return st;
}

void
xt_async_close(struct xt_lu *lu)
{
	struct xt_job *job, *next;
	bool running;

	if (lu->cm == NULL) {
		return;
	}
	pthread_mutex_lock(&lu->cm->as.lock);
	lu->cm->as.closing = true;
	for (;;) {
		running = false;
		for (job = lu->cm->as.jobs; job != NULL; job = next) {
			next = job->next;
			if (job->state == XT_JOB_RUNNING) {
				atomic_store(&job->stop, XT_STOP_CLOSE);
				running = true;
			} else {
				/*
				 * Queued but not started: the runner stops and joins the
				 * LU's workers before close, so nobody will start it.
				 */
				job_unlink(lu, job);
				job_free(job);
			}
		}
		if (!running) {
			break;
		}
		/* each job stops at its next chunk boundary */
		pthread_cond_wait(&lu->cm->as.changed, &lu->cm->as.lock);
	}
	pthread_mutex_unlock(&lu->cm->as.lock);
	pthread_cond_destroy(&lu->cm->as.changed);
	pthread_mutex_destroy(&lu->cm->as.lock);
}
