/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LU every layer of handler_xcopy.so sees: struct xt_lu (the engine's
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
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "xcm/exec.h"
#include "xcm/lid4.h"
#include "xos.h"
#include "xcm/xcm.h"

#define XT_BOUNCE_LEN (1u << 20)          /* read/write fallback buffer, one per LU */
#define XT_BOUNCE_ALIGN 4096u             /* ... page-aligned: O_DIRECT takes it (xt_bounce_new) */
#define XT_NAME_MAX 128
/*
 * tcmu-runner worker threads per LU (the handler's nr_threads) and how many
 * of them EXTENDED COPY jobs may hold at once: the rest stay free for
 * READ/WRITE/flush, so ordinary I/O never queues behind copies (async.c).
 */
#define XT_WORKERS 16
#define XT_MAX_JOBS 8
/* One piece of a file copy's chunk (parallel.c). */
#define XT_CHUNK (1u << 20)
/*
 * Pieces of XT_CHUNK one chunk is cut into and copied at once (parallel.c):
 * the engine's chunks on files are XT_PAR_PIECES x XT_CHUNK, a fault armed
 * or not, and a copy checks for a stop request (close, abort, deadline)
 * between them.
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
/* dio=: which READ/WRITE of initiators the file store sends O_DIRECT (store_file.c) */
enum xt_dio { XT_DIO_AUTO, XT_DIO_ALWAYS, XT_DIO_NEVER };
/* dio=auto: READs, WRITEs and copies of at least this many bytes (smaller ones: the page cache) */
#define XT_DIO_MIN (128u << 10)

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
	enum xt_dio dio;    /* dio=auto|always|never (store_file.c) */
	struct xt_fault_spec fault;
};

/* ------------------------------------------------------------------------ */
/* Designators as tcmu-runner's core / LIO derive them (naa.c)              */
/* ------------------------------------------------------------------------ */

/* NAA 6, IEEE company 00-14-05, serial hex digits packed (as tcmu-runner 1.5.4 and LIO). */
void xt_naa_from_serial(const char *serial, uint8_t naa[16]);

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
	uint64_t rw_direct_bytes; /* ... of which O_DIRECT on both sides (file store, dio=) */
	uint64_t copyfrom_bytes; /* ... by RADOS copy-from, whole objects (RBD to RBD) */
	uint64_t gateway_bytes;  /* ... by read + write in this process, an RBD LU on a side */
	uint64_t hole_objects;   /* RBD: source objects absent, destination objects zeroed */
	uint64_t touch_bytes;    /* RBD: object-map marker writes (zeros, 512 B per object) */
	uint64_t fallbacks;      /* RBD to RBD calls copy-from was not safe for */
	uint64_t store_copies;   /* RBD to RBD copy calls (contiguous segments merged into one) */
	uint64_t delegated_bytes; /* copied by a peer target's copy manager (peer/, delegation) */
	const char *last_fallback; /* ... the reason of the last one (static string, NULL none) */
	uint64_t io_errors;      /* failed backend copies */
	uint64_t denied;         /* CSCDs refused by the access rule */
	uint64_t rcr;            /* RECEIVE COPY RESULTS answered */
	uint64_t deadline_cuts;  /* EXTENDED COPY commands ended at their deadline */
	uint64_t busy;           /* EXTENDED COPY answered TASK SET FULL (XT_MAX_JOBS running) */
	uint64_t inflight_max;   /* most EXTENDED COPY jobs in flight at once */
	uint64_t held_discarded; /* held results dropped: the LU's sessions changed */
	uint64_t held_expired;   /* held results dropped: older than XT_HELD_LIFETIME_MS */
	/* WRITE SAME with UNMAP = 1 (tcmu/write_same.c) */
	uint64_t ws_commands;    /* ... run by the plugin on a worker */
	uint64_t ws_written;     /* ... bytes of a non-zero block written */
	uint64_t ws_unmapped;    /* ... bytes deallocated (zero block) */
	uint64_t ws_cuts;        /* ... stopped at the command deadline */
	uint64_t ws_busy;        /* ... answered TASK SET FULL (XT_MAX_JOBS jobs running) */
	uint64_t wt_syncs;       /* store flushes because WCE = 0 (xt_lu_durable) */
	/* the file store's READ/WRITE from initiators (store/file/store_file.c: file_io) */
	uint64_t io_direct_bytes;   /* ... by O_DIRECT, straight from or to the data area */
	uint64_t io_buffered_bytes; /* ... through the page cache */
};

/*
 * The LU's TCMU settings that bound its ordinary READ/WRITE throughput, from
 * configfs at open (lio/settings.c; 0: unreadable), and which of them cap it
 * against the settings the project gives its LUs (XT_CAP_*). Read-only once
 * open; the stats file shows them.
 */
#define XT_CAP_MAX_SECTORS 1u         /* a command carries less than 1 MiB */
#define XT_CAP_DATA_AREA 2u           /* the data area holds fewer than hw_queue_depth of them */
struct xt_lu_settings {
	uint32_t hw_max_sectors;      /* attrib/hw_max_sectors: blocks per command */
	uint32_t hw_block_size;       /* attrib/hw_block_size */
	uint32_t max_data_area_mb;    /* attrib/max_data_area_mb */
	uint32_t hw_queue_depth;      /* attrib/hw_queue_depth */
	unsigned int caps;            /* XT_CAP_* */
};

struct xt_cm_lu;                  /* cm/cm.h */
struct xt_store_ops;               /* below */
struct xt_lu_host;                 /* below */

/*
 * One open user:xcopy device (tcmu/lu_open.c allocates it); the engine sees
 * it as its opaque struct xt_lu. Fields grouped by the concern that owns
 * them; the comment of each group says who writes it.
 */
struct xt_lu {
	/* identity (lu_open.c, lio/): who the LU is, read-only once open */
	void *dev;                        /* the runner's device: tcmu/ only */
	const struct xt_lu_host *host;    /* the runner's answers about it (below) */
	char name[XT_NAME_MAX];           /* configfs storage object name (or uio name) */
	char cfs_path[PATH_MAX];          /* ROOT/core/user_N/NAME, "" if unknown */
	/*
	 * TCMU attrib/cmd_time_out, seconds (0: none), when it was last read
	 * (xos_now_ms) and how many reads found it changed: written by lio/
	 * (xt_cmd_time_out) on any worker, so read and written atomically.
	 */
	uint32_t cmd_time_out;
	uint32_t cmd_time_out_gen;
	uint64_t cmd_time_out_read_ms;
	struct xt_lu_settings settings;   /* lio/settings.c at open */
	struct xt_cfg cfg;                /* the cfgstring (file: cfg.c, RBD: store_rbd.c) */

	/* store: what holds the LU's blocks (store/), set at open */
	const struct xt_store_ops *ops;   /* the store under the LU's I/O (below) */
	void *priv;                       /* its own state (struct xt_file, struct xt_rbd) */
	bool reflink;                     /* ROD tokens are snapshots (ops->reflink at open) */

	/* copy manager (cm/cm.h, xt_cm_init): jobs, held results, parameter lists */
	struct xt_cm_lu *cm;

	/* tokens (tokens/tokens.h): ROD tokens this LU made, own lock */
	struct xt_toktab *tok;

	/* command thread (tcmu/): data-in staging, touched only by this LU's command thread */
	uint8_t rsp[4096];

	/*
	 * stats (base/stats.c): any thread adds to the counters atomically
	 * (XT_STAT_ADD); the rest belongs to the stats writer, under its lock
	 */
	struct xt_stats stats;
	struct xt_stats stats_written;    /* what the file holds */
	uint32_t stats_cto_written;
	struct xt_lu *stats_next;         /* the writer's list */
};

/* Which path moved the bytes of a copy (file_copy.c, store_copy.c, store_rbd.c) */
struct xt_copy_acct {
	uint64_t clone_bytes;
	uint64_t cfr_bytes;
	uint64_t rw_bytes;
	uint64_t rw_direct_bytes;         /* of rw_bytes, O_DIRECT on both sides */
	/* an RBD LU on a side (store_copy.c, store_rbd.c) */
	uint64_t copyfrom_bytes;
	uint64_t gateway_bytes;
	uint64_t hole_objects;
	uint64_t touch_bytes;
	uint64_t fallbacks;
	uint64_t store_copies;            /* calls of the store's copy op (RBD to RBD) */
	const char *last_fallback;        /* static string, NULL: none */
};

/* One piece of a copy: len bytes of src at soff to dst at doff (store/ ops). */
struct xt_range {
	struct xt_lu *src;
	uint64_t soff;
	struct xt_lu *dst;
	uint64_t doff;
	uint64_t len;
};

/*
 * One copy (an EXTENDED COPY, POPULATE TOKEN or WRITE USING TOKEN job):
 * what every store op that moves its bytes needs, passed as one object
 * (store/store.h: xt_copy_start, xt_lu_copy, xt_copy_end). The job part is
 * set by whoever runs the job (cm/, odx/) before xt_copy_start; the policy
 * before each xt_lu_copy; the rest belongs to store/ and the stores.
 */
struct xt_copy {
	/* the job */
	struct xt_lu *self;               /* the LU that received the command */
	uint64_t deadline_ms;             /* xos_now_ms() time the copy must end by, 0: none */
	uint32_t cmd_time_out;            /* self's attrib/cmd_time_out when queued (s) */
	const atomic_int *stop;           /* the job's stop request (non-zero: stop), NULL: none */
	uint64_t id;                      /* unique per copy (xt_copy_start), never 0 */
	/* policy of the next xt_lu_copy call */
	enum xt_clone clone;              /* file to file (self's cfgstring, or auto) */
	enum xt_cfr cfr;
	bool merged;                      /* a run of segments the engine merged: on failure it
					     copies them again one by one */
	bool write_behind;                /* write the chunk back behind the copy (page cache) */
	/* buffers: XT_BOUNCE_LEN each, the job's own ([0] at parse, the others on first use) */
	uint8_t *bounce[XT_PAR_PIECES];
	/* progress of the last xt_lu_copy call: on failure, the side and the bytes copied */
	bool at_dst;
	uint64_t done;
	/* accounting over the whole copy: which path moved the bytes */
	struct xt_copy_acct acct;
	/* store/'s own between calls: the thread's nice value before, the last write-behind */
	int nice_old;
	struct {
		int fd;                   /* -1: none */
		uint64_t off, len;
	} wb;
};

/*
 * One read or write of a store (ops->io): len bytes between iov[0..cnt)
 * and the store at off. copy: the copy this I/O belongs to (store/'s
 * gateway), NULL for the LU's own I/O; deadline_ms: no wait past it
 * (xos_now_ms() clock; RBD: ETIMEDOUT), 0: none.
 */
struct xt_io {
	const struct iovec *iov;
	size_t cnt;
	size_t len;
	uint64_t off;
	bool wr;
	uint64_t deadline_ms;
	struct xt_copy *copy;
	/*
	 * An initiator's READ or WRITE (tcmu/lu_io.c): the store may bypass its
	 * cache (the file store's O_DIRECT); copies, WRITE SAME and tokens keep it
	 */
	bool own;
};

/* ------------------------------------------------------------------------ */
/* What the runner says of a LU, and its log (tcmu/lu_host.c implements it) */
/* ------------------------------------------------------------------------ */

enum xt_log_level { XT_LOG_ERR, XT_LOG_WARN, XT_LOG_INFO, XT_LOG_DBG };

/*
 * The runner's view of an open LU, asked through the handler: tcmu/ sets
 * lu->host at open, so no layer below it names the runner's types. The
 * geometry and WCE are asked each time (a reconfig or MODE SELECT changes
 * them in the runner).
 */
struct xt_lu_host {
	uint32_t (*block_size)(const struct xt_lu *lu);
	uint64_t (*num_lbas)(const struct xt_lu *lu);
	/* the unit serial (configfs wwn/vpd_unit_serial), malloc'd; NULL: none */
	char *(*serial)(const struct xt_lu *lu);
	/* WCE as the core reports it (MODE SENSE caching page) */
	bool (*write_cache)(const struct xt_lu *lu);
	/* the LU's cfgstring, "xcopy/..." (not owned) */
	const char *(*cfgstring)(const struct xt_lu *lu);
	/* one formatted line (ends in \n) into the runner's log for lu */
	void (*log)(const struct xt_lu *lu, enum xt_log_level lvl, const char *func, int line,
		    const char *msg);
};

static inline uint32_t
xt_lu_block_size(const struct xt_lu *lu)
{
	return lu->host->block_size(lu);
}

static inline uint64_t
xt_lu_num_lbas(const struct xt_lu *lu)
{
	return lu->host->num_lbas(lu);
}

static inline char *
xt_lu_serial(const struct xt_lu *lu)
{
	return lu->host->serial(lu);
}

static inline bool
xt_lu_write_cache(const struct xt_lu *lu)
{
	return lu->host->write_cache(lu);
}

static inline const char *
xt_lu_cfgstring(const struct xt_lu *lu)
{
	return lu->host->cfgstring(lu);
}

/* log.c: format and hand to lu->host->log (stderr without a host: unit suites, tools) */
void xt_lu_log(const struct xt_lu *lu, enum xt_log_level lvl, const char *func, int line,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define xt_lu_err(lu, ...) xt_lu_log(lu, XT_LOG_ERR, __func__, __LINE__, __VA_ARGS__)
#define xt_lu_warn(lu, ...) xt_lu_log(lu, XT_LOG_WARN, __func__, __LINE__, __VA_ARGS__)
#define xt_lu_info(lu, ...) xt_lu_log(lu, XT_LOG_INFO, __func__, __LINE__, __VA_ARGS__)
#define xt_lu_dbg(lu, ...) xt_lu_log(lu, XT_LOG_DBG, __func__, __LINE__, __VA_ARGS__)

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
	/* The engine's chunk for a list this LU receives (fault armed or not). */
	uint64_t copy_chunk;
	/*
	 * Optional: parse the cfgstring into lu->cfg before open (file: cfg.c);
	 * NULL: open fills lu->cfg itself (RBD). 0, or -errno with a reason in why.
	 */
	int (*parse)(const char *cfgstring, struct xt_cfg *cfg, char *why, size_t whylen);
	/* check_config: may the LU be opened? 0, or -errno with a reason in why */
	int (*check)(const char *cfgstring, char *why, size_t whylen);
	/* open the LU's store (logs its reasons); *size: the store's bytes */
	int (*open)(struct xt_lu *lu, uint64_t *size);
	/* log that the store's size bytes cannot hold the LU's need bytes, and the fix */
	void (*too_small)(struct xt_lu *lu, uint64_t size, uint64_t need);
	void (*close)(struct xt_lu *lu);
	int (*size)(struct xt_lu *lu, uint64_t *bytes);
	int (*io)(struct xt_lu *lu, const struct xt_io *io);
	int (*flush)(struct xt_lu *lu);
	/*
	 * UNMAP / WRITE SAME with UNMAP: reads return zeros afterwards (LBPRZ = 1);
	 * no wait past deadline_ms (0: none)
	 */
	int (*zero)(struct xt_lu *lu, uint64_t off, uint64_t len, uint64_t deadline_ms);
	/*
	 * Optional: zeros that keep the allocation where the store can (WRITE
	 * USING TOKEN with the block device zero ROD token); *done: bytes zeroed
	 * before a failure. NULL: zero does it (RBD: librbd write-zeroes).
	 */
	int (*write_zeroes)(struct xt_lu *lu, uint64_t off, uint64_t len, uint64_t *done);
	/*
	 * Optional, once at open: can the store snapshot lu's blocks by clones
	 * into an unlinked file beside it (point-in-time ROD tokens, odx.c)?
	 * NULL: no (tokens are change vulnerable).
	 */
	bool (*reflink)(struct xt_lu *lu);
	/*
	 * Optional: copy r between two LUs of this store inside the store (file:
	 * clone, copy_file_range or read/write in parallel pieces by c's policy;
	 * RBD: RADOS copy-from when safe, else librbd read/write), counted in
	 * c->acct, bounded by c->deadline_ms. Ranges are inside both LUs; on one
	 * LU they may overlap (memmove). 0, or -errno with c->at_dst and c->done
	 * (bytes copied before it failed).
	 */
	int (*copy)(struct xt_copy *c, const struct xt_range *r);
	/*
	 * Optional (stores with page_cache): the chunk r of c reached r->dst's
	 * cache: start its writeback and wait for c's chunk before it
	 * (store_copy.c calls it when c->write_behind).
	 */
	void (*write_behind)(struct xt_copy *c, const struct xt_range *r);
	/*
	 * Optional, with reflink: a point-in-time copy of lu's blocks for a ROD
	 * token (odx.c): snap_file makes an unlinked file of size bytes beside
	 * the store (fd, or -errno), snap_view an LU of this store on such an fd
	 * (like's configuration; no device, no registry; free() releases it,
	 * the caller keeps fd).
	 */
	int (*snap_file)(const struct xt_lu *lu, uint64_t size);
	struct xt_lu *(*snap_view)(const struct xt_lu *like, int fd);
	/*
	 * A store that wraps another (fault/): the wrapped store, whose state
	 * lu->priv is and whose kind decides store/'s dispatch. NULL: none.
	 */
	const struct xt_store_ops *inner;
	/*
	 * Optional (stores other processes can write behind this one, RBD):
	 * may a change vulnerable ROD token of lu stand? At POPULATE TOKEN
	 * (at_use false) it makes sure no other client can write lu's store
	 * until the token is gone; at WRITE USING TOKEN (true) it checks that
	 * still holds. 0, or -errno with a reason in why.
	 */
	int (*token_guard)(struct xt_lu *lu, bool at_use, char *why, size_t whylen);
};

/* ------------------------------------------------------------------------ */
/* iovec helpers (iov.c), stats file (stats.c)                              */
/* ------------------------------------------------------------------------ */

void xt_iov_fill(const struct iovec *iov, size_t cnt, const uint8_t *src, size_t len);
/* Do the first len bytes of iov hold only zeros (false if it holds fewer)? */
bool xt_iov_is_zero(const struct iovec *iov, size_t cnt, size_t len);
/* All io->len bytes at io->off through preadv/pwritev, short transfers retried; 0 or -errno. */
int xt_iov_io(int fd, const struct xt_io *io);
/* A bounce buffer: XT_BOUNCE_LEN bytes aligned to XT_BOUNCE_ALIGN (free()), NULL: no memory. */
static inline uint8_t *
xt_bounce_new(void)
{
	void *p = NULL;

	return posix_memalign(&p, XT_BOUNCE_ALIGN, XT_BOUNCE_LEN) == 0 ? p : NULL;
}
#define XT_IOV_CLIP_MAX 1024
struct xt_iov_clip {
	struct iovec *v;
	size_t n;
	void *bounce;
};
int xt_iov_clip(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len, bool wr);
void xt_iov_clip_done(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len,
		      bool scatter);

/* lu->cmd_time_out, as the last read of configfs found it (lio/access.c) */
static inline uint32_t
xt_lu_cmd_time_out(const struct xt_lu *lu)
{
	return __atomic_load_n(&lu->cmd_time_out, __ATOMIC_RELAXED);
}

/*
 * stats.c: STATSDIR/<name>.stats (XCOPY_STATS_DIR, default /run/xcopy),
 * written by one writer thread off the command path: every
 * XT_STATS_PERIOD_MS for the LUs whose counters changed, and on a refresh
 * request (STATSDIR/refresh, xcopy-stat: at once by inotify, else within
 * XT_STATS_TICK_MS).
 * Counters are added to with XT_STAT_ADD (an atomic add, nothing else).
 */
#define XT_STATS_TICK_MS 500
#define XT_STATS_PERIOD_MS 500
#define XT_STAT_ADD(lu, field, n) \
	((void)__atomic_fetch_add(&(lu)->stats.field, (uint64_t)(n), __ATOMIC_RELAXED))
/* *field = max(*field, v), atomically */
void xt_stat_max(uint64_t *field, uint64_t v);
/* at open: the LU's file written, the LU given to the writer (started at the first open) */
void xt_stats_open(struct xt_lu *lu);
/* at close: taken from the writer, its last counters written (the file is kept) */
void xt_stats_close(struct xt_lu *lu);
/* $XCOPY_STATS_DIR, else /run/xcopy: where the stats and fault control files live. */
const char *xt_stats_dir(void);

#endif /* TARGET_BASE_LU_H */
