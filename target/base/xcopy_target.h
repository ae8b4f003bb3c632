/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * handler_xcopy.so internals: the user:xcopy backstore (file-backed LUs) and
 * the engine's backend over them. Private to target/; only handler_init is
 * exported from the plugin (target/handler.map).
 */
#ifndef TARGET_XCOPY_TARGET_H
#define TARGET_XCOPY_TARGET_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "cmds.h"
#include "tcmu_abi.h"
#include "xcm/exec.h"
#include "xcm/lid4.h"
#include "xos.h"
#include "xcm/xcm.h"

#define XT_SUBTYPE "xcopy"
#define XT_BOUNCE_LEN (1u << 20)          /* read/write fallback buffer, one per LU */
#define XT_NAME_MAX 128
/*
 * tcmu-runner worker threads per LU (the handler's nr_threads) and how many
 * of them EXTENDED COPY jobs may hold at once: the rest stay free for
 * READ/WRITE/flush, so ordinary I/O never queues behind copies (async.c).
 */
#define XT_WORKERS 16
#define XT_MAX_JOBS 8
/* A copy checks for a stop request (close, abort, deadline) between chunks of this size. */
#define XT_CHUNK (1u << 20)
/*
 * Pieces of XT_CHUNK one chunk is cut into and copied at once (parallel.c):
 * the engine's chunks are XT_PAR_PIECES x XT_CHUNK unless a fault is armed.
 */
#define XT_PAR_PIECES 4
/*
 * A thread that copies runs at this nice value (cfgstring copy_nice=) for
 * the copy's duration: the LU's READ/WRITE workers and command thread, at
 * the runner's own priority, win the CPU from it (async.c, parallel.c).
 */
#define XT_COPY_NICE_DEFAULT 10

/* ------------------------------------------------------------------------ */
/* cfgstring: xcopy/PATH[?opt=val[&opt=val...]]  (cfg.c)                      */
/* ------------------------------------------------------------------------ */

enum xt_clone { XT_CLONE_AUTO, XT_CLONE_ALWAYS, XT_CLONE_NEVER };
enum xt_cfr { XT_CFR_AUTO, XT_CFR_NEVER };
enum xt_xcopy { XT_XCOPY_ENGINE, XT_XCOPY_CORE };

/* fault=KIND:N (fault.c): fail the Nth backend read/write of the copy manager */
enum xt_fault_kind {
	XT_FAULT_NONE,
	XT_FAULT_READ,      /* EIO on the Nth read */
	XT_FAULT_WRITE,     /* EIO on the Nth write */
	XT_FAULT_ENOSPC,    /* ENOSPC on the Nth write */
	XT_FAULT_SHORT,     /* the Nth write is short, the next one ENOSPC */
	XT_FAULT_SHORTOK,   /* the Nth write is short, the loop completes it */
	XT_FAULT_DELAY,     /* every read and write sleeps N ms (until off) */
};

struct xt_fault_spec {
	enum xt_fault_kind kind;
	uint32_t nth;       /* >= 1 (DELAY: milliseconds) */
};

struct xt_cfg {
	char path[PATH_MAX];
	enum xt_clone clone;
	enum xt_cfr cfr;
	enum xt_xcopy xcopy;
	int copy_nice;      /* nice value of a thread while it copies (copy_nice=, 0-19) */
	bool wb_late;       /* writeback=late: no write-behind pacing (file_copy.c) */
	struct xt_fault_spec fault;
};

/*
 * Parse a full cfgstring ("xcopy/PATH?..."). 0, or -EINVAL with a reason in
 * why (always NUL-terminated).
 */
int xt_cfg_parse(const char *cfgstring, struct xt_cfg *out, char *why, size_t whylen);

/* ------------------------------------------------------------------------ */
/* Designators as tcmu-runner's core / LIO derive them (naa.c)               */
/* ------------------------------------------------------------------------ */

/* NAA 6, IEEE company 00-14-05, serial hex digits packed (as tcmu-runner 1.5.4 and LIO). */
void xt_naa_from_serial(const char *serial, uint8_t naa[16]);

/* ------------------------------------------------------------------------ */
/* Cross-LU access rule from configfs (access.c)                             */
/* ------------------------------------------------------------------------ */

/* Root of LIO's configfs tree; XCOPY_CONFIGFS_ROOT overrides (tests). */
const char *xt_configfs_root(void);
/* Root of sysfs; XCOPY_SYSFS_ROOT overrides (tests). */
const char *xt_sysfs_root(void);

/*
 * May a command received on the storage object at configfs path dev_a (e.g.
 * ROOT/core/user_1/a) touch the storage object dev_b? 0: yes; -EACCES: no
 * (reason in why); other -errno: configfs could not be read (treat as no).
 */
int xt_access_check(const char *root, const char *dev_a, const char *dev_b, char *why,
		    size_t whylen);

/* Does a LUN of TPG tpg (configfs path) export the storage object at real path so? */
bool xt_tpg_exports(const char *tpg, const char *so);
/* Does node ACL acl (configfs path) map a LUN that exports so? */
bool xt_acl_maps(const char *acl, const char *so);

/* ------------------------------------------------------------------------ */
/* Held results and sessions (nexus.c)                                        */
/* ------------------------------------------------------------------------ */

/* Completed held results are forgotten after this long at the latest. */
#define XT_HELD_LIFETIME_MS (300u * 1000u)

/*
 * The sessions that can reach a LU as configfs shows them (nexus.c): a sorted
 * set of 64-bit hashes, one per session identity (per TPG exporting the LU:
 * the TPG, its tcm_loop nexus, each demo-mode session line, each mapping
 * ACL's current session id, the iSCSI login counter's value). At most
 * XT_NEXUS_MAX elements; past that, overflow is set and only sum (of all
 * elements, order-independent) is compared.
 */
#define XT_NEXUS_MAX 256
struct xt_nexus_set {
	uint32_t n;
	bool overflow;
	uint64_t sum;
	uint64_t el[XT_NEXUS_MAX];        /* ascending, no duplicates */
};
void xt_nexus_set_init(struct xt_nexus_set *s);
void xt_nexus_set_add(struct xt_nexus_set *s, uint64_t h);
/* Has now an element old has not (a session arrived)? Overflowed: any change. */
bool xt_nexus_arrived(const struct xt_nexus_set *old, const struct xt_nexus_set *now);
/* The set of the storage object at so_path under configfs root. 0 or -errno. */
int xt_nexus_sessions(const char *root, const char *so_path, struct xt_nexus_set *s);

/* ------------------------------------------------------------------------ */
/* LUs and the engine backend (backend.c, file_copy.c)                      */
/* ------------------------------------------------------------------------ */

struct xt_stats {
	uint64_t commands;       /* EXTENDED COPY commands answered by the engine */
	uint64_t commands_ok;
	uint64_t errors;         /* EXTENDED COPY commands that ended in CHECK CONDITION */
	uint64_t segments;
	uint64_t bytes;          /* bytes written to destinations */
	uint64_t clone_bytes;    /* ... by FICLONERANGE */
	uint64_t cfr_bytes;      /* ... by copy_file_range */
	uint64_t rw_bytes;       /* ... by pread/pwrite */
	uint64_t copyfrom_bytes; /* ... by RADOS copy-from, whole objects (RBD to RBD) */
	uint64_t gateway_bytes;  /* ... by read + write in this process, an RBD LU on a side */
	uint64_t hole_objects;   /* RBD: source objects absent, destination objects zeroed */
	uint64_t touch_bytes;    /* RBD: object-map marker writes (zeros, 512 B per object) */
	uint64_t fallbacks;      /* RBD to RBD calls copy-from was not safe for */
	uint64_t store_copies;   /* RBD to RBD copy calls (contiguous segments merged into one) */
	char last_fallback[48];  /* ... the reason of the last one ("" none) */
	uint64_t io_errors;      /* failed backend copies */
	uint64_t denied;         /* CSCDs refused by the access rule */
	uint64_t rcr;            /* RECEIVE COPY RESULTS answered */
	uint64_t deadline_cuts;  /* EXTENDED COPY commands ended at their deadline */
	uint64_t busy;           /* EXTENDED COPY answered TASK SET FULL (XT_MAX_JOBS running) */
	uint64_t inflight_max;   /* most EXTENDED COPY jobs in flight at once */
	uint64_t held_discarded; /* held results dropped: the LU's sessions changed */
	uint64_t held_expired;   /* held results dropped: older than XT_HELD_LIFETIME_MS */
};

/* ------------------------------------------------------------------------ */
/* EXTENDED COPY off the command thread (async.c)                              */
/* ------------------------------------------------------------------------ */

enum xt_job_state { XT_JOB_QUEUED, XT_JOB_RUNNING };
enum xt_stop { XT_STOP_NONE, XT_STOP_CLOSE, XT_STOP_ABORT };

/* One EXTENDED COPY in flight; owned by its LU's job list. */
/* Write-behind of one job's destination chunks (file_copy.c). */
struct xt_wb {
	int fd;                           /* -1: nothing pending */
	uint64_t off, len;                /* the last chunk, writeback started */
};

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
	struct xt_odx_op *odx;            /* POPULATE TOKEN / WRITE USING TOKEN (odx.h), else NULL */
	struct xt_job *next;
};

/* Per-LU job list and held-results store; lock guards both. */
struct xt_async {
	pthread_mutex_t lock;
	pthread_cond_t changed;           /* a job ended */
	struct xt_job *jobs;
	unsigned int njobs;
	bool closing;
};

/* One open user:xcopy device; the engine sees it as struct xcm_lu. */
struct xcm_lu {
	struct tcmu_device *dev;
	struct xt_cfg cfg;
	int fd;
	dev_t st_dev;
	ino_t st_ino;
	uint32_t fs_block;                /* clone alignment of the backing file's fs */
	char name[XT_NAME_MAX];           /* configfs storage object name (or uio name) */
	char cfs_path[PATH_MAX];          /* ROOT/core/user_N/NAME, "" if unknown */
	uint32_t cmd_time_out;            /* TCMU attrib/cmd_time_out, seconds (0: none) */
	struct xt_async as;               /* jobs in flight + store (under as.lock) */
	struct xt_nexus_set nexus;        /* xt_nexus_sessions at the last 83h/84h command */
	bool nexus_known;                 /* (both under as.lock) */
	struct xcm_store *store;
	struct xcm_store4 *store4;        /* LID4 lists (xcm/lid4.h), also under as.lock */
	struct xt_toktab *tok;            /* ROD tokens this LU made (odx.h, own lock) */
	bool reflink;                     /* tokens are snapshots (FICLONERANGE works) */
	/* command state, touched only by this LU's command thread */
	uint8_t *plist;                   /* flattened parameter list */
	uint32_t plist_cap;
	uint8_t rsp[4096];                /* data-in staging */
	pthread_mutex_t stats_lock;
	struct xt_stats stats;
	struct xcm_lu *next;              /* registry */
};

/* Registry (backend.c). add/remove take the registry's write lock. */
void xt_registry_add(struct xcm_lu *lu);
void xt_registry_remove(struct xcm_lu *lu);
/* Read lock for a command's whole use of other LUs; find an LU by its NAA designator. */
void xt_registry_rdlock(void);
void xt_registry_unlock(void);
struct xcm_lu *xt_registry_find_naa(const uint8_t naa[16]);

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

/*
 * access.c: the LU's TCMU command timeout in seconds, re-read from configfs
 * (CFS_PATH/attrib/cmd_time_out; settable while the LU is not exported, so
 * read per command); the last value read (lu->cmd_time_out) if unreadable.
 */
uint32_t xt_cmd_time_out(struct xcm_lu *lu);

/* TCMU's default cmd_time_out (seconds), assumed when configfs cannot be read */
#define XT_CMD_TIME_OUT_DEFAULT 30

/* file_copy.c: which path moved the bytes */
struct xt_copy_acct {
	uint64_t clone_bytes;
	uint64_t cfr_bytes;
	uint64_t rw_bytes;
	/* an RBD LU on a side (store_copy.c, store_rbd.c) */
	uint64_t copyfrom_bytes;
	uint64_t gateway_bytes;
	uint64_t hole_objects;
	uint64_t touch_bytes;
	uint64_t fallbacks;
	uint64_t store_copies;            /* calls of the store's copy op (RBD to RBD) */
	const char *last_fallback;        /* static string, NULL: none */
	/* in: the job's bounds, for stores that wait on a cluster (store_rbd.c) */
	uint64_t deadline_ms;             /* xos_now_ms() time, 0: none */
	uint32_t cmd_time_out;            /* the receiving LU's, seconds */
};

/*
 * Copy len bytes between two open backing files (may be the same file and
 * overlap: memmove semantics). bounce: XT_BOUNCE_LEN bytes. 0 or -errno with
 * *at_dst and *done describing the failure.
 */
int xt_file_copy(const struct xcm_lu *src, uint64_t src_off, const struct xcm_lu *dst,
		 uint64_t dst_off, uint64_t len, uint8_t *bounce, enum xt_clone clone,
		 enum xt_cfr cfr, struct xt_copy_acct *acct, bool *at_dst, uint64_t *done);

/*
 * parallel.c: xt_file_copy of [src_off, +len) cut into XT_CHUNK pieces copied
 * at once (non-overlapping ranges, no fault armed), one bounce buffer per
 * piece (bounce[0..nbounce)); otherwise serial. Same result and counts as
 * serial execution (see parallel.c for what a failure leaves).
 */
int xt_par_copy(const struct xcm_lu *src, uint64_t src_off, const struct xcm_lu *dst,
		uint64_t dst_off, uint64_t len, uint8_t *const *bounce, unsigned int nbounce,
		enum xt_clone clone, enum xt_cfr cfr, struct xt_copy_acct *acct, bool *at_dst,
		uint64_t *done);
/*
 * file_copy.c, write-behind: after a chunk [off, +len) reached dst's page cache,
 * start its writeback and wait for the writeback of the chunk before it, so
 * one job keeps at most two chunks of dirty or in-flight pages (no dirty
 * throttling, no writeback storm after the copy). xt_wb_init first.
 */
void xt_wb_init(struct xt_wb *wb);
void xt_wb_chunk(struct xt_wb *wb, const struct xcm_lu *dst, uint64_t off, uint64_t len);
/*
 * file_copy.c: the calling thread's nice value becomes nice (if higher than now);
 * returns the value to give xt_nice_restore, or INT_MIN when unchanged.
 */
int xt_nice_lower(int nice);
void xt_nice_restore(int old);

/* Pieces copied at once: min(XT_PAR_PIECES, CPUs - 1), 1 on <= 2 CPUs. */
unsigned int xt_par_pieces(void);
/* Stop and join the helper pool (handler destroy: the daemon exits, or dlclose). */
void xt_par_shutdown(void);

/* ------------------------------------------------------------------------ */
/* Fault injection for reliability tests (fault.c)                            */
/* ------------------------------------------------------------------------ */

/* Parse "KIND:N" or "off". 0, or -EINVAL with a reason in why. */
int xt_fault_parse(const char *val, struct xt_fault_spec *out, char *why, size_t whylen);
const char *xt_fault_kind_name(enum xt_fault_kind k);
/* Registry hooks: arm lu->cfg.fault at open; forget the LU at close. */
void xt_fault_lu_add(const struct xcm_lu *lu);
void xt_fault_lu_remove(const struct xcm_lu *lu);
/* (Re)arm from the control file STATSDIR/<name>.fault, if present (removes it). */
void xt_fault_poll(const struct xcm_lu *lu);
/* An armed fault not yet fired on lu: copies must take the pread/pwrite path. */
bool xt_fault_active(const struct xcm_lu *lu);
/*
 * Before one pread (write false) or pwrite of *len bytes on lu's backing
 * file: 0 to go on (*len may have been shortened), or -errno to fail it.
 */
int xt_fault_io(const struct xcm_lu *lu, bool write, size_t *len);

/* ------------------------------------------------------------------------ */
/* Block command field checks the runner's core does not make (sbc_check.c)   */
/* ------------------------------------------------------------------------ */

/*
 * TCMU_STS_NOT_HANDLED if the CDB may go on to the core; else
 * TCMU_STS_PASSTHROUGH_ERR with fixed sense (ILLEGAL REQUEST, INVALID FIELD
 * IN CDB, field pointer) written to sense[0..cap).
 */
int xt_sbc_check(const uint8_t *cdb, uint8_t *sense, size_t cap);

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

/*
 * The LU's state for the command table (access.c): mode from the cfgstring,
 * ALUA and PR conditions read from configfs (only when reporting).
 */
void xt_lu_state_get(const struct xcm_lu *lu, bool probe, struct xt_lu_state *s);

/* stats.c: write STATSDIR/<name>.stats (XCOPY_STATS_DIR, default /run/xcopy); kept after close. */
void xt_stats_write(struct xcm_lu *lu);
/* $XCOPY_STATS_DIR, else /run/xcopy: where the stats and fault control files live. */
const char *xt_stats_dir(void);

#endif /* TARGET_XCOPY_TARGET_H */
