/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The copy manager: EXTENDED COPY jobs off the command thread (async.c,
 * async_parse.c), the engine's backend over the LU registry (backend.c),
 * held results (held.c), limits and sense (cm_limits.c). POPULATE TOKEN /
 * WRITE USING TOKEN jobs are run through struct xt_odx_ops (odx/ above).
 */
#ifndef TARGET_CM_H
#define TARGET_CM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/lu.h"
#include "lio/lio.h"

/* Completed held results are forgotten after this long at the latest. */
#define XT_HELD_LIFETIME_MS (300u * 1000u)

/* ------------------------------------------------------------------------ */
/* EXTENDED COPY off the command thread (async.c)                           */
/* ------------------------------------------------------------------------ */

/*
 * A SCSI command as the copy manager sees it: tcmu/ fills it from the
 * runner's command and turns the enum xt_sts answer into the runner's
 * status (tcmu/tcmu_cmd.c), so cm/ never names the runner's types.
 */
#define XT_SENSE_LEN 96                   /* the kernel's TCMU sense buffer */
struct xt_scsi {
	const uint8_t *cdb;               /* 16 bytes readable */
	const struct iovec *iov;          /* the data-out buffer */
	size_t iov_cnt;
	uint8_t *sense;                   /* XT_SENSE_LEN bytes, XT_STS_CHECK's sense */
	/*
	 * The job a command carries: XT_STS_QUEUED sets it (tcmu/ hands the
	 * command to a worker with it), the worker's flush hands it back; 0: none.
	 */
	uint64_t job;
};

/* How a command ends, in the copy manager's words. */
enum xt_sts {
	XT_STS_GOOD,
	XT_STS_CHECK,                     /* CHECK CONDITION with the sense in c->sense */
	XT_STS_TASK_SET_FULL,             /* XT_MAX_JOBS in flight, or closing, or no memory */
	XT_STS_BUSY,                      /* BUSY: the LU is closing under a block job */
	XT_STS_WRITE_ERR,                 /* MEDIUM ERROR, WRITE ERROR */
	XT_STS_GONE,                      /* the job was dropped (after its timeout) */
	XT_STS_QUEUED,                    /* queued as c->job: runs on a worker */
};

struct xt_job;

/*
 * POPULATE TOKEN / WRITE USING TOKEN jobs belong to the ODX layer above
 * (odx/): it parses them into a job on the command thread and runs them on
 * a worker. The copy manager owns this interface; the handler hands odx/'s
 * table to each LU at open (xt_cm_init in tcmu/lu_open.c).
 */
struct xt_odx_ops {
	enum xcm_status (*parse)(struct xt_lu *lu, const struct xcm_tpc_out_req *req,
				 const uint8_t *plist, uint32_t have, struct xt_job *job,
				 struct xcm_err *err);
	enum xcm_status (*execute)(struct xt_job *job, struct xcm_exec_result *res,
				   struct xcm_err *err);
	/*
	 * An EXTENDED COPY job's C0h segment (the engine's token_copy; our token's
	 * bytes into ranges of dst, docs/remote-tokens.md).
	 */
	enum xcm_status (*redeem)(struct xt_job *job, struct xt_lu *dst,
				  const struct xcm_tok_seg *t, uint64_t *bytes,
				  struct xcm_io_err *ioerr);
};

/* Per-LU job list and held-results store; lock guards both. */
struct xt_async {
	pthread_mutex_t lock;
	pthread_cond_t changed;           /* a job ended */
	struct xt_job *jobs;
	unsigned int njobs;
	bool closing;
};

/* The copy manager's part of a LU (lu->cm), xt_cm_init .. xt_cm_free. */
struct xt_cm_lu {
	struct xt_async as;               /* jobs in flight; as.lock guards the stores too */
	struct xcm_store *store;          /* LID1 results (xcm/xcm.h) */
	struct xcm_store4 *store4;        /* LID4 lists (xcm/lid4.h) */
	struct xt_nexus_set nexus;        /* xt_nexus_sessions at the last 83h/84h command */
	bool nexus_known;
	const struct xt_odx_ops *odx;     /* PT/WUT jobs (odx/), set by the handler; NULL: none */
	/* command thread: the data-out of an 83h command, flattened (async_parse.c) */
	uint8_t *plist;
	uint32_t plist_cap;
	/* the registry of copy sources and destinations (backend.c), under its lock */
	struct xt_lu *reg_next;
	uint64_t reg_id;                  /* this LU's registration, unique */
	unsigned reg_refs;                /* other LUs' commands using it */
};

enum xt_job_state { XT_JOB_QUEUED, XT_JOB_RUNNING };
enum xt_stop { XT_STOP_NONE, XT_STOP_CLOSE, XT_STOP_ABORT };

/* One EXTENDED COPY in flight; owned by its LU's job list. */
struct xt_job {
	struct xt_copy copy;              /* the copy's state the stores see (store/store.h) */
	uint64_t token;                   /* xt_scsi.job of its command; never reused */
	struct xt_lu *lu;                /* the LU that received the command */
	enum xt_job_state state;
	struct timespec t0;               /* CLOCK_MONOTONIC when handle_cmd saw it */
	uint32_t cmd_time_out;            /* the LU's attrib/cmd_time_out (s) when queued */
	uint64_t deadline_ms;             /* xos_now_ms() time the copy must end by, 0: none */
	atomic_int stop;                  /* enum xt_stop, set by others */
	atomic_uint_fast32_t segs_done;   /* progress, for COPY STATUS while running */
	atomic_uint_fast64_t bytes_done;
	struct xcm_list list;
	struct xt_odx_op *odx;            /* POPULATE TOKEN / WRITE USING TOKEN (odx/odx.h), else NULL */
	/*
	 * A block command job (WRITE SAME, tcmu/write_same.c) instead of a
	 * list: run on the worker, returns its status (sense in c); blk is
	 * its argument, freed with the job. NULL for copies.
	 */
	enum xt_sts (*blk_run)(struct xt_job *job, struct xt_scsi *c);
	void *blk;
	struct xt_job *next;
};

/*
 * Registry (backend.c): the LUs other LUs' copies may reach. remove unlinks
 * the LU and waits until no command holds a reference on it.
 */
void xt_registry_add(struct xt_lu *lu);
void xt_registry_remove(struct xt_lu *lu);
/* The one LU with this NAA designator, referenced (xt_lu_release), or NULL. */
struct xt_lu *xt_registry_hold_naa(const uint8_t naa[16]);
void xt_lu_release(struct xt_lu *lu);

/*
 * Run one job's parsed list received on its LU: snapshot the registry
 * (designators, access decisions), call xcm_list_execute_opts with the file
 * backend, the job's deadline and chunks of XT_CHUNK (progress, stop
 * requests between chunks), account.
 */
enum xcm_status xt_execute(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err);
/*
 * *ioerr for a failed xt_lu_copy c between src and dst, done bytes written
 * before it: the side that failed, and a remote LU's status and sense
 * forwarded as they came (else the engine makes MEDIUM ERROR sense).
 */
void xt_copy_io_err(const struct xt_copy *c, const struct xt_lu *src, const struct xt_lu *dst,
		    uint64_t done, struct xcm_io_err *ioerr);

/*
 * cm_limits.c: the engine's limits as this target enforces and reports them (RECEIVE
 * COPY RESULTS OPERATING PARAMETERS, VPD 8Fh): the engine defaults with
 * XT_MAX_JOBS concurrent copies per LU.
 */
const struct xcm_limits *xt_limits(void);

/*
 * async.c: the copy manager's part of lu (lu->cm: job list, LID1/LID4
 * stores, parameter list buffer, held results' clock), with the ODX layer
 * it runs PT/WUT jobs through (NULL: those service actions are refused);
 * 0 or -ENOMEM. xt_async_close stops the running jobs and waits for them;
 * xt_cm_free frees lu->cm after it (NULL-safe).
 */
int xt_cm_init(struct xt_lu *lu, const struct xt_odx_ops *odx);
void xt_async_close(struct xt_lu *lu);
void xt_cm_free(struct xt_lu *lu);
/*
 * handle_cmd, 83h (EXTENDED COPY, COPY OPERATION ABORT): check and parse
 * on the command thread; XT_STS_QUEUED: a job (c->job) for the worker the
 * handler hands the command to (see docs/target-commands.md).
 */
enum xt_sts xt_async_submit(struct xt_lu *lu, struct xt_scsi *c);
/*
 * handle_cmd, a block command whose work may be long (WRITE SAME): a job
 * that runs run(job, lc) with arg (malloc'd; the job frees it) on a
 * worker, with the LU's deadline (job->deadline_ms) and stop requests
 * (job->stop: close), through the same SYNCHRONIZE CACHE hand-off as
 * EXTENDED COPY, so the core's ALUA and recovery checks apply to it.
 * Copies and block jobs share XT_MAX_JOBS; beyond it TASK SET FULL
 * (XT_STS_TASK_SET_FULL, arg freed). XT_STS_QUEUED: queued as c->job.
 */
enum xt_sts xt_async_submit_blk(struct xt_lu *lu, struct xt_scsi *c,
				enum xt_sts (*run)(struct xt_job *job, struct xt_scsi *c),
				void *arg);
/*
 * async_parse.c: the data-out of an 83h command into a new *jobp (parsed
 * list, first bounce buffer); on failure *err is set and *jobp (maybe NULL)
 * is the caller's to free.
 */
enum xcm_status xt_job_parse(struct xt_lu *lu, const struct xt_scsi *c,
			     const struct xcm_tpc_out_req *req, struct xt_job **jobp,
			     struct xcm_err *err);
/* flush callout: true if c carries one of our jobs (then *sts is its status). */
bool xt_async_run(struct xt_lu *lu, struct xt_scsi *c, enum xt_sts *sts);
/* RECEIVE COPY RESULTS (LID1) under the store lock; running lists report progress. */
enum xcm_status xt_async_rcr(struct xt_lu *lu, const struct xcm_rcr_req *req,
			     struct xcm_wbuf *w, struct xcm_err *err);
/*
 * RECEIVE COPY STATUS (LID4): the response into rsp (at most rsp_cap bytes,
 * *rsp_len stored); XT_STS_GOOD, or XT_STS_CHECK with sense in c.
 */
enum xt_sts xt_async_rcs4(struct xt_lu *lu, struct xt_scsi *c, uint8_t *rsp, size_t rsp_cap,
			  size_t *rsp_len);
/* The LID4 status of list id (running: in progress with progress so far); false: unknown. */
bool xt_async_status4(struct xt_lu *lu, uint32_t id, struct xcm_rcs4 *out);
/* cm_limits.c: the sense bytes of err into sense (cap bytes, zeroed first); XT_STS_CHECK. */
enum xt_sts xt_fail_sense(uint8_t *sense, size_t cap, const struct xcm_err *err);
/* Count one EXTENDED COPY answered by the engine. */
void xt_count_cmd(struct xt_lu *lu, bool ok);

/* backend.c: add what a copy moved, by path, to lu's counters (atomically) */
void xt_stats_add_acct(struct xt_lu *lu, const struct xt_copy_acct *a);

/* held.c: set the store's clock (at open). */
void xt_held_init(struct xt_lu *lu);
/*
 * Before a RECEIVE COPY RESULTS is answered and before an EXTENDED COPY
 * runs: discard the LU's completed held results if a session arrived at it
 * since the last such command (not when sessions only left: nexus.c), and
 * those older than XT_HELD_LIFETIME_MS. xt_held_sessions walks configfs
 * (slow: call it without locks, and for EXTENDED COPY on the worker, never
 * on the LU's command thread where READs wait behind it); false if it cannot
 * tell. xt_held_apply: caller holds lu->as.lock.
 */
bool xt_held_sessions(const struct xt_lu *lu, struct xt_nexus_set *s);
void xt_held_apply(struct xt_lu *lu, bool have, const struct xt_nexus_set *s);

#endif /* TARGET_CM_H */
