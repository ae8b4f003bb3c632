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
#include "store/file/store_file.h"

/* Completed held results are forgotten after this long at the latest. */
#define XT_HELD_LIFETIME_MS (300u * 1000u)

/* ------------------------------------------------------------------------ */
/* EXTENDED COPY off the command thread (async.c)                           */
/* ------------------------------------------------------------------------ */

enum xt_job_state { XT_JOB_QUEUED, XT_JOB_RUNNING };
enum xt_stop { XT_STOP_NONE, XT_STOP_CLOSE, XT_STOP_ABORT };

/* One EXTENDED COPY in flight; owned by its LU's job list. */
struct xt_job {
	struct xt_wb wb;
	uint64_t token;                   /* tcmur_cmd->cmd_state; never reused */
	struct xcm_lu *lu;                /* the LU that received the command */
	enum xt_job_state state;
	struct timespec t0;               /* CLOCK_MONOTONIC when handle_cmd saw it */
	uint32_t cmd_time_out;            /* the LU's attrib/cmd_time_out (s) when queued */
	uint64_t deadline_ms;             /* xos_now_ms() time the copy must end by, 0: none */
	atomic_int stop;                  /* enum xt_stop, set by others */
	atomic_uint_fast32_t segs_done;   /* progress, for COPY STATUS while running */
	atomic_uint_fast64_t bytes_done;
	uint8_t *bounce[XT_PAR_PIECES];   /* XT_BOUNCE_LEN each, this job's own; [0] at submit,
					     the others on first parallel use */
	struct xcm_list list;
	struct xt_odx_op *odx;            /* POPULATE TOKEN / WRITE USING TOKEN (odx/odx.h), else NULL */
	struct xt_job *next;
};

/*
 * Registry (backend.c): the LUs other LUs' copies may reach. remove unlinks
 * the LU and waits until no command holds a reference on it.
 */
void xt_registry_add(struct xcm_lu *lu);
void xt_registry_remove(struct xcm_lu *lu);
/* The one LU with this NAA designator, referenced (xt_lu_release), or NULL. */
struct xcm_lu *xt_registry_hold_naa(const uint8_t naa[16]);
void xt_lu_release(struct xcm_lu *lu);

/*
 * Run one job's parsed list received on its LU: snapshot the registry
 * (designators, access decisions), call xcm_list_execute_opts with the file
 * backend, the job's deadline and chunks of XT_CHUNK (progress, stop
 * requests between chunks), account.
 */
enum xcm_status xt_execute(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err);

/*
 * cm_limits.c: the engine's limits as this target enforces and reports them (RECEIVE
 * COPY RESULTS OPERATING PARAMETERS, VPD 8Fh): the engine defaults with
 * XT_MAX_JOBS concurrent copies per LU.
 */
const struct xcm_limits *xt_limits(void);

/* async.c: set up / tear down lu->as (close: stop running jobs, wait for them). */
int xt_async_init(struct xcm_lu *lu);
void xt_async_close(struct xcm_lu *lu);
/*
 * handle_cmd, EXTENDED COPY: check and parse on the command thread, then
 * hand the job to the runner's worker pool (see target/README.md). Returns
 * a TCMU_STS code; TCMU_STS_NOT_HANDLED means "queued as SYNCHRONIZE CACHE".
 */
int xt_async_submit(struct xcm_lu *lu, struct tcmur_cmd *cmd);
/*
 * POPULATE TOKEN / WRITE USING TOKEN jobs belong to the ODX layer above
 * (odx/): it parses them into a job on the command thread and runs them on
 * a worker. handler_init (tcmu/handler_xcopy.c) hands its entry points to
 * the copy manager with xt_cm_set_odx, before any LU can open.
 */
struct xt_odx_ops {
	enum xcm_status (*parse)(struct xcm_lu *lu, const struct xcm_tpc_out_req *req,
				 const uint8_t *plist, uint32_t have, struct xt_job *job,
				 struct xcm_err *err);
	enum xcm_status (*execute)(struct xt_job *job, struct xcm_exec_result *res,
				   struct xcm_err *err);
};
/* async_parse.c: set (once, at handler_init) and get the ODX entry points. */
void xt_cm_set_odx(const struct xt_odx_ops *ops);
const struct xt_odx_ops *xt_cm_odx(void);
/*
 * async_parse.c: the data-out of an 83h command into a new *jobp (parsed
 * list, first bounce buffer); on failure *err is set and *jobp (maybe NULL)
 * is the caller's to free.
 */
enum xcm_status xt_job_parse(struct xcm_lu *lu, struct tcmulib_cmd *lc,
			     const struct xcm_tpc_out_req *req, struct xt_job **jobp,
			     struct xcm_err *err);
/* flush callout: true if cmd is one of our jobs (then *sts is its status). */
bool xt_async_run(struct xcm_lu *lu, struct tcmur_cmd *cmd, int *sts);
/* RECEIVE COPY RESULTS (LID1) under the store lock; running lists report progress. */
enum xcm_status xt_async_rcr(struct xcm_lu *lu, const struct xcm_rcr_req *req,
			     struct xcm_wbuf *w, struct xcm_err *err);
/*
 * RECEIVE COPY STATUS (LID4): the response into rsp (at most rsp_cap bytes,
 * *rsp_len stored); a TCMU_STS code (errors with sense in lc).
 */
int xt_async_rcs4(struct xcm_lu *lu, struct tcmulib_cmd *lc, uint8_t *rsp, size_t rsp_cap,
		  size_t *rsp_len);
/* The LID4 status of list id (running: in progress with progress so far); false: unknown. */
bool xt_async_status4(struct xcm_lu *lu, uint32_t id, struct xcm_rcs4 *out);
/* cm_limits.c: the sense bytes of err into the command's sense buffer; TCMU_STS_PASSTHROUGH_ERR. */
int xt_fail_sense(struct tcmulib_cmd *lc, const struct xcm_err *err);
/* Count one EXTENDED COPY answered by the engine. */
void xt_count_cmd(struct xcm_lu *lu, bool ok);
/*
 * Is the running tcmu-runner one whose dispatch async.c relies on (1.5.4)?
 * NULL if yes, else the reason.
 */
const char *xt_runner_unsupported(void);

/* backend.c: add what a copy moved, by path, to lu's counters (caller holds stats_lock) */
void xt_stats_add_acct(struct xt_stats *s, const struct xt_copy_acct *a);

/* held.c: set the store's clock (at open). */
void xt_held_init(struct xcm_lu *lu);
/*
 * Before a RECEIVE COPY RESULTS is answered and before an EXTENDED COPY
 * runs: discard the LU's completed held results if a session arrived at it
 * since the last such command (not when sessions only left: nexus.c), and
 * those older than XT_HELD_LIFETIME_MS. xt_held_sessions walks configfs
 * (slow: call it without locks, and for EXTENDED COPY on the worker, never
 * on the LU's command thread where READs wait behind it); false if it cannot
 * tell. xt_held_apply: caller holds lu->as.lock.
 */
bool xt_held_sessions(const struct xcm_lu *lu, struct xt_nexus_set *s);
void xt_held_apply(struct xcm_lu *lu, bool have, const struct xt_nexus_set *s);

#endif /* TARGET_CM_H */
