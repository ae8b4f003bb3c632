/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RBD store: a LU's data on a Ceph RBD image (librbd aio for I/O, RADOS
 * copy-from for whole-object copies between images of one cluster).
 *
 * Linked into handler_xcopy.so (store_rbd.c) and, for the lab tool
 * tests/tools/xt_rbd.c, archived in build/target/librbdstore.a.
 */
#ifndef XT_RBD_STORE_H
#define XT_RBD_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "xos.h"

/* cfgstring: xcopy/rbd/POOL/IMAGE[@CONF][?opt=val[&opt=val...]]  (rbd_cfg.c) */
#define XT_RBD_NAME_MAX 128
#define XT_RBD_PATH_MAX 256

struct xt_rbd_cfg {
	char pool[XT_RBD_NAME_MAX];
	char image[XT_RBD_NAME_MAX];
	char conf[XT_RBD_PATH_MAX];     /* "" = librados' default search */
	char id[XT_RBD_NAME_MAX];       /* client id (id=), default "admin" */
	uint32_t block_size;            /* bs=512|4096, default 512 */
	int copy_from;                  /* copyfrom=auto (1) | never (0) */
	int xcopy_core;                 /* xcopy=core (1): the runner's core copies; engine (0) */
};

/*
 * Parse a full cfgstring ("xcopy/rbd/POOL/IMAGE..."). 0, or -EINVAL with a
 * reason in why (NUL-terminated, truncated to whylen).
 */
int xt_rbd_cfg_parse(const char *cfgstring, struct xt_rbd_cfg *out, char *why,
		     size_t whylen);

struct xt_rbd;  /* an open image (rbd_image.c) */

/*
 * Connect to the cluster (conf, client id), open the pool and the image.
 * 0, or -errno with a reason in why naming what is missing (config file,
 * monitor, pool, image, permission).
 */
int xt_rbd_open(const struct xt_rbd_cfg *cfg, struct xt_rbd **out, char *why,
		size_t whylen);
void xt_rbd_close(struct xt_rbd *r);

/* What the image says about itself. */
struct xt_rbd_geom {
	uint64_t size;                  /* bytes */
	uint32_t block_size;            /* the LU's logical block (cfg) */
	uint32_t order;                 /* object size = 1 << order */
	uint64_t object_size;
	uint64_t features;              /* RBD_FEATURE_* */
	uint64_t flags;                 /* RBD_FLAG_* (object map invalid...) */
	uint64_t stripe_unit, stripe_count;
	int64_t data_pool_id;           /* pool of the data objects */
	int has_parent;                 /* a clone: holes read the parent */
	int snap_count;
	char prefix[64];                /* rbd_data.<id>: objects <prefix>.%016x */
	char serial[64];                /* unit serial: the image id */
};
int xt_rbd_geom(struct xt_rbd *r, struct xt_rbd_geom *g);

/*
 * Asynchronous I/O. cb runs on a librbd thread with the byte count (read,
 * write) or 0, or -errno. The buffer must stay valid until then.
 */
typedef void (*xt_rbd_cb)(void *arg, int64_t ret);
int xt_rbd_aio_read(struct xt_rbd *r, uint64_t off, size_t len, void *buf,
		    xt_rbd_cb cb, void *arg);
int xt_rbd_aio_write(struct xt_rbd *r, uint64_t off, size_t len, const void *buf,
		     xt_rbd_cb cb, void *arg);
int xt_rbd_aio_flush(struct xt_rbd *r, xt_rbd_cb cb, void *arg);
int xt_rbd_aio_discard(struct xt_rbd *r, uint64_t off, uint64_t len,
		       xt_rbd_cb cb, void *arg);
int xt_rbd_aio_write_zeroes(struct xt_rbd *r, uint64_t off, uint64_t len,
			    xt_rbd_cb cb, void *arg);
/* Synchronous forms (wait for the aio): bytes / 0, or -errno. */
int64_t xt_rbd_read(struct xt_rbd *r, uint64_t off, size_t len, void *buf);
int64_t xt_rbd_write(struct xt_rbd *r, uint64_t off, size_t len, const void *buf);
int xt_rbd_flush(struct xt_rbd *r);
int xt_rbd_write_zeroes(struct xt_rbd *r, uint64_t off, uint64_t len);

/* Name of object number objno of the image: "<prefix>.%016llx". */
int xt_rbd_object_name(const struct xt_rbd_geom *g, uint64_t objno, char *buf,
		       size_t len);

/* Why an object could not be copied by copy-from (rbd_copy.c). */
enum xt_rbd_unsafe {
	XT_RBD_SAFE = 0,
	XT_RBD_UNSAFE_DISABLED,         /* copyfrom=never */
	XT_RBD_UNSAFE_CLUSTER,          /* images of two different clusters */
	XT_RBD_UNSAFE_ORDER,            /* different object sizes */
	XT_RBD_UNSAFE_ALIGN,            /* offsets not on object boundaries */
	XT_RBD_UNSAFE_STRIPING,         /* stripe unit != object size */
	XT_RBD_UNSAFE_JOURNAL,          /* journaling: writes must be journaled */
	XT_RBD_UNSAFE_PARENT,           /* a clone: a missing object is the parent's */
	XT_RBD_UNSAFE_DST_SNAPS,        /* destination has snapshots */
	XT_RBD_UNSAFE_LOCK,             /* exclusive lock not ours */
	XT_RBD_UNSAFE_WATCHERS,         /* another client has the image open */
	XT_RBD_UNSAFE_FENCING,          /* rbd_blocklist_on_break_lock false here */
	XT_RBD_UNSAFE_MAX
};
const char *xt_rbd_unsafe_name(enum xt_rbd_unsafe u);

/* Who holds an image's exclusive lock, as far as this process can tell. */
enum xt_rbd_lock {
	XT_RBD_LOCK_NONE,               /* no exclusive-lock feature: any client may write */
	XT_RBD_LOCK_OURS,               /* this process owns it (explicit mode) */
	XT_RBD_LOCK_FREE,               /* nobody owns it */
	XT_RBD_LOCK_OTHER,              /* another client owns it */
	XT_RBD_LOCK_UNKNOWN,            /* librbd could not say */
};

/* What the copy-from rule looks at, per image (rbd_copy.c gathers it). */
struct xt_rbd_facts {
	int copy_from;                  /* cfg: copyfrom=auto */
	int geom_known;                 /* geom read now (snapshots, parent change) */
	struct xt_rbd_geom geom;
	int journaling;                 /* feature journaling */
	int watchers_known;             /* rbd_watchers_list answered */
	unsigned foreign_watchers;      /* watchers other than this process's handles */
	enum xt_rbd_lock lock;          /* after taking a free lock nobody else watches */
	int no_fencing;                 /* our rbd_blocklist_on_break_lock is false */
};

/*
 * The rule (rbd_rule.c, pure): XT_RBD_SAFE, or why not. image_rule: the
 * lock and the other clients of an image written behind librbd's back (the
 * destination; a ROD token's source); source_rule: the same for an image
 * only read (copy-from's source: no lock of ours needed while nobody else
 * has it open); copy_rule: both images, their layout, then source_rule and
 * image_rule.
 */
enum xt_rbd_unsafe xt_rbd_image_rule(const struct xt_rbd_facts *f);
enum xt_rbd_unsafe xt_rbd_source_rule(const struct xt_rbd_facts *f);
enum xt_rbd_unsafe xt_rbd_copy_rule(const struct xt_rbd_facts *src,
				    const struct xt_rbd_facts *dst, int same_cluster);

/* Counters of one copy call (added to, never reset by the copy). */
struct xt_rbd_copy_stats {
	uint64_t copyfrom_bytes;        /* whole objects moved by RADOS copy-from */
	uint64_t copyfrom_objects;
	uint64_t hole_objects;          /* source object absent: destination zeroed */
	uint64_t gateway_bytes;         /* read + written by this process */
	uint64_t touch_bytes;           /* object-map marker writes (zeros) */
	uint64_t fallbacks;             /* calls that fell back to read/write */
	uint64_t unpins;                /* destination locks given back (xt_rbd_unpin) */
	uint64_t unpin_ms;              /* ... time spent on it */
	enum xt_rbd_unsafe last_unsafe; /* reason of the last fallback */
	/* of the last xt_rbd_copy call (set by it, not added to): */
	uint64_t done;                  /* bytes copied before it returned */
	int err_at_dst;                 /* its error was on the destination */
};

/*
 * Copy r->len bytes at r->soff of r->src to r->doff of r->dst. The object-aligned
 * middle goes by RADOS copy-from when xt_rbd_copy_check() finds it safe; the
 * head, tail and anything unsafe by librbd read + write in this process
 * (chunks of one object, in the direction that is correct for overlapping
 * ranges of one image). 0, or -errno with a reason in why.
 */
struct xt_rbd_range {
	struct xt_rbd *src;
	uint64_t soff;
	struct xt_rbd *dst;
	uint64_t doff;
	uint64_t len;
};
int xt_rbd_copy(const struct xt_rbd_range *r, struct xt_rbd_copy_stats *st, char *why,
		size_t whylen);
/*
 * The copy locks of a and b (one lock when a == b), taken in address order,
 * waiting until deadline_ms (xos_now_ms() clock, 0: no limit): 0, or
 * -ETIMEDOUT with neither held. xt_rbd_copy refreshes both images' geometry
 * and takes their exclusive locks: one copy per image at a time; copies
 * between other images run at once.
 */
int xt_rbd_copy_lock(struct xt_rbd *a, struct xt_rbd *b, uint64_t deadline_ms);
void xt_rbd_copy_unlock(struct xt_rbd *a, struct xt_rbd *b);
/*
 * May a change vulnerable ROD token of image r stand (docs/target-rbd.md, "RBD:
 * ROD tokens")? at_use 0 (POPULATE TOKEN): the image has the exclusive-lock
 * feature, no other client has it open, and this client takes the lock
 * (explicit: no other client can write until it is broken, which blocklists
 * this one); at_use 1 (WRITE USING TOKEN): this client still holds it. 0, or
 * -errno with the reason in why.
 */
int xt_rbd_token_guard(struct xt_rbd *r, int at_use, char *why, size_t whylen);
/* The safety rules for copy-from between the two images (docs/target-rbd.md). */
enum xt_rbd_unsafe xt_rbd_copy_check(struct xt_rbd *src, struct xt_rbd *dst);

/*
 * Time bounds (docs/target-rbd.md, "RBD: failure bounds"). TCMU fails a
 * command cmd_time_out seconds after it queued it (default 30 s).
 */
#define XT_RBD_CMD_TIME_OUT_DEFAULT 30
/*
 * librados' per-operation timeout (s) while a copy runs on an image of an LU
 * with that cmd_time_out: short, so the copy's synchronous librbd calls end
 * inside the engine's reserve. xt_rbd_op_timeout applies it to r's cluster
 * handle (a no-op when already so): 0 or -errno.
 */
uint32_t xt_rbd_op_timeout_for(uint32_t cmd_time_out_s);
int xt_rbd_op_timeout(struct xt_rbd *r, uint32_t cmd_time_out_s);
/*
 * The timeout of the LU's ordinary I/O (the handle's state at open and
 * between copies): cmd_time_out itself. xt_rbd_io_timeout applies it.
 */
uint32_t xt_rbd_io_timeout_for(uint32_t cmd_time_out_s);
int xt_rbd_io_timeout(struct xt_rbd *r, uint32_t cmd_time_out_s);
/*
 * The deadline (xos_now_ms() clock, CLOCK_MONOTONIC ms; 0: none) of the
 * copy the calling thread runs: the synchronous forms above and copy-from
 * stop waiting at it and return -ETIMEDOUT.
 */
void xt_rbd_deadline_set(uint64_t deadline_ms);
uint64_t xt_rbd_deadline(void);

#endif
