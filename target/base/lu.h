/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LU every layer of handler_xcopy.so sees: struct xcm_lu (the engine's
 * opaque LU) with its configuration, counters, job list and the store ops
 * table under it, plus the small helpers with no dependency in target/
 * (naa.c, iov.c, stats.c). Private to target/; only handler_init is
 * exported from the plugin (target/handler.map).
 */
#ifndef TARGET_BASE_LU_H
#define TARGET_BASE_LU_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "base/tcmu_abi.h"
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
/* cfgstring fields (parsed by store/file/cfg.c)                            */
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

/* ------------------------------------------------------------------------ */
/* Designators as tcmu-runner's core / LIO derive them (naa.c)              */
/* ------------------------------------------------------------------------ */

/* NAA 6, IEEE company 00-14-05, serial hex digits packed (as tcmu-runner 1.5.4 and LIO). */
void xt_naa_from_serial(const char *serial, uint8_t naa[16]);

/* ------------------------------------------------------------------------ */
/* Sessions of a LU (lio/nexus.c fills the set)                             */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* LUs (opened by tcmu/lu_open.c, used by every layer)                      */
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

struct xt_job;                    /* cm/cm.h */

/* Per-LU job list and held-results store; lock guards both. */
struct xt_async {
	pthread_mutex_t lock;
	pthread_cond_t changed;           /* a job ended */
	struct xt_job *jobs;
	unsigned int njobs;
	bool closing;
};

struct xt_store_ops;               /* below */

/*
 * One open user:xcopy device (tcmu/lu_open.c allocates it); the engine sees
 * it as its opaque struct xcm_lu. Fields grouped by the concern that owns
 * them; the comment of each group says who writes it.
 */
struct xcm_lu {
	/* identity (lu_open.c, lio/): who the LU is, read-only once open */
	struct tcmu_device *dev;
	char name[XT_NAME_MAX];           /* configfs storage object name (or uio name) */
	char cfs_path[PATH_MAX];          /* ROOT/core/user_N/NAME, "" if unknown */
	uint32_t cmd_time_out;            /* TCMU attrib/cmd_time_out, seconds (0: none) */
	struct xt_cfg cfg;                /* the cfgstring (file: cfg.c, RBD: store_rbd.c) */

	/* store: what holds the LU's blocks (store/), set at open */
	const struct xt_store_ops *ops;   /* the store under the LU's I/O (below) */
	void *priv;                       /* its own state (struct xt_file, struct xt_rbd) */
	bool reflink;                     /* ROD tokens are snapshots (ops->reflink at open) */

	/* copy manager (cm/): jobs in flight, held results, under as.lock */
	struct xt_async as;
	struct xcm_store *store;          /* LID1 results (xcm/xcm.h) */
	struct xcm_store4 *store4;        /* LID4 lists (xcm/lid4.h) */
	struct xt_nexus_set nexus;        /* xt_nexus_sessions at the last 83h/84h command */
	bool nexus_known;

	/* tokens (tokens/): ROD tokens this LU made, own lock */
	struct xt_toktab *tok;

	/* command thread (tcmu/): touched only by this LU's command thread */
	uint8_t *plist;                   /* flattened parameter list */
	uint32_t plist_cap;
	uint8_t rsp[4096];                /* data-in staging */

	/* stats (base/stats.c), under stats_lock */
	pthread_mutex_t stats_lock;
	struct xt_stats stats;

	/* registry (cm/backend.c), under its lock */
	struct xcm_lu *next;
	uint64_t reg_id;                  /* this LU's registration, unique */
	unsigned refs;                    /* other LUs' commands using it */
};

/* Which path moved the bytes of a copy (file_copy.c, store_copy.c, store_rbd.c) */
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

/* ------------------------------------------------------------------------ */
/* The store under a LU (store/file, store/rbd implement it)                */
/* ------------------------------------------------------------------------ */

/*
 * The store under an LU's ordinary I/O (read, write, flush, unmap): the
 * backing file (store_file.c) or an RBD image (store_rbd.c), chosen by the
 * cfgstring (xcopy//PATH or xcopy/rbd/POOL/IMAGE). Every call is synchronous
 * on the calling thread (the runner's workers); 0 or -errno. EXTENDED COPY
 * goes through xt_lu_copy (store_copy.c). Callers above store/ ask the
 * store what they need (the capabilities below), never which store it is.
 */
struct xt_store_ops {
	const char *name;                                          /* "file", "rbd" */
	/*
	 * Writes land in this host's page cache: a volatile write cache (WCE = 1
	 * at open: initiators send SYNCHRONIZE CACHE) and EXTENDED COPY writes
	 * are written back behind the copy (xt_wb_chunk). False: the store has
	 * no cache of its own here (RBD: librbd's cache is off, WCE = 0).
	 */
	bool page_cache;
	/*
	 * lu->cfg.clone and .cfr are the LU's policy for the file to file copies
	 * it receives (cfgstring clone=, cfr=). False: they only describe the
	 * LU's own store (RBD: never/never) and such copies use auto/auto.
	 */
	bool copy_policy;
	/* The engine's chunk for a list this LU receives, with no fault armed. */
	uint64_t copy_chunk;
	/*
	 * Optional: parse the cfgstring into lu->cfg before open (file: cfg.c);
	 * NULL: open fills lu->cfg itself (RBD). 0, or -errno with a reason in why.
	 */
	int (*parse)(const char *cfgstring, struct xt_cfg *cfg, char *why, size_t whylen);
	/* check_config: may the LU be opened? 0, or -errno with a reason in why */
	int (*check)(const char *cfgstring, char *why, size_t whylen);
	/* open the store of lu->dev (logs its reasons); *size: the store's bytes */
	int (*open)(struct xcm_lu *lu, uint64_t *size);
	/* log that the store's size bytes cannot hold the LU's need bytes, and the fix */
	void (*too_small)(struct xcm_lu *lu, uint64_t size, uint64_t need);
	void (*close)(struct xcm_lu *lu);
	int (*size)(struct xcm_lu *lu, uint64_t *bytes);
	int (*io)(struct xcm_lu *lu, const struct iovec *iov, size_t cnt, size_t len,
		  uint64_t off, bool wr);
	int (*flush)(struct xcm_lu *lu);
	/* UNMAP / WRITE SAME with UNMAP: reads return zeros afterwards (LBPRZ = 1) */
	int (*zero)(struct xcm_lu *lu, uint64_t off, uint64_t len);
	/*
	 * Optional: zeros that keep the allocation where the store can (WRITE
	 * USING TOKEN with the block device zero ROD token); *done: bytes zeroed
	 * before a failure. NULL: zero does it (RBD: librbd write-zeroes).
	 */
	int (*write_zeroes)(struct xcm_lu *lu, uint64_t off, uint64_t len, uint64_t *done);
	/*
	 * Optional, once at open: can the store snapshot lu's blocks by clones
	 * into an unlinked file beside it (point-in-time ROD tokens, odx.c)?
	 * NULL: no (tokens are change vulnerable).
	 */
	bool (*reflink)(struct xcm_lu *lu);
	/*
	 * Optional: copy between two LUs of this store inside the store (RBD:
	 * RADOS copy-from when safe, else librbd read/write; counted in acct).
	 * Ranges are inside both LUs; on one LU they may overlap (memmove).
	 * 0, or -errno with *at_dst and *done (bytes copied before it failed).
	 */
	int (*copy)(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff,
		    uint64_t len, struct xt_copy_acct *acct, bool *at_dst, uint64_t *done);
	/*
	 * Optional (stores other processes can write behind this one, RBD):
	 * may a change vulnerable ROD token of lu stand? At POPULATE TOKEN
	 * (at_use false) it makes sure no other client can write lu's store
	 * until the token is gone; at WRITE USING TOKEN (true) it checks that
	 * still holds. 0, or -errno with a reason in why.
	 */
	int (*token_guard)(struct xcm_lu *lu, bool at_use, char *why, size_t whylen);
};

/* ------------------------------------------------------------------------ */
/* iovec helpers (iov.c), stats file (stats.c)                              */
/* ------------------------------------------------------------------------ */

void xt_iov_fill(const struct iovec *iov, size_t cnt, const uint8_t *src, size_t len);
/* Do the first len bytes of iov hold only zeros (false if it holds fewer)? */
bool xt_iov_is_zero(const struct iovec *iov, size_t cnt, size_t len);
int xt_iov_io(int fd, const struct iovec *iov, size_t cnt, size_t len, off_t off, bool wr);
#define XT_IOV_CLIP_MAX 1024
struct xt_iov_clip {
	struct iovec *v;
	size_t n;
	void *bounce;
};
int xt_iov_clip(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len, bool wr);
void xt_iov_clip_done(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len,
		      bool scatter);

/* stats.c: write STATSDIR/<name>.stats (XCOPY_STATS_DIR, default /run/xcopy); kept after close. */
void xt_stats_write(struct xcm_lu *lu);
/* $XCOPY_STATS_DIR, else /run/xcopy: where the stats and fault control files live. */
const char *xt_stats_dir(void);

#endif /* TARGET_BASE_LU_H */
