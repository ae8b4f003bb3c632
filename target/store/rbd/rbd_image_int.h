/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internals shared by rbd_image.c, rbd_quiesce.c and rbd_copy.c. */
#ifndef XT_RBD_STORE_INT_H
#define XT_RBD_STORE_INT_H

#include <pthread.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "rbd_image.h"

struct xt_rbd {
	struct xt_rbd_cfg cfg;
	rados_t cluster;
	rados_ioctx_t io;               /* the image's pool (librbd) */
	rados_ioctx_t data_io;          /* the data objects' pool (copy-from) */
	rbd_image_t image;
	struct xt_rbd_geom geom;        /* at open */
	uint32_t op_timeout_s;          /* rados_osd/mon_op_timeout set on cluster (atomic) */
	uint32_t cto_gen;               /* the LU's cmd_time_out_gen applied (store_rbd.c, atomic) */
	pthread_mutex_t copy_lock;      /* a copy from or to this image (xt_rbd_copy_lock) */
	/*
	 * image is replaced (xt_rbd_unpin) by the thread holding copy_lock,
	 * under img_lock written; other threads submit to it under img_lock read.
	 */
	pthread_rwlock_t img_lock;
	struct xt_rbd_qw *qw;           /* rbd_quiesce_watch of image */
	struct xt_rbd_qw *qw_next;      /* ... of its replacement, while xt_rbd_unpin opens it */
	int pinned;                     /* rbd_lock_acquire made this handle's lock explicit */
	int token_pinned;               /* ... for a ROD token: kept until close */
	int lock_released;              /* ours until xt_rbd_unpin released it */
	/*
	 * Snapshots against copy-from (rbd_copy.c, "RBD: snapshots during a
	 * copy"): q_lock guards the rest; quiesce callbacks run on librbd's
	 * threads.
	 */
	pthread_mutex_t q_lock;
	pthread_cond_t q_cond;
	int q_active;                   /* copy-from batches in flight on this image */
	int q_quiesced;                 /* handles asked to quiesce, not unquiesced yet */
	uint64_t q_events;              /* quiesce requests seen */
};

/* One handle's quiesce watch (each open handle is asked, and answers). */
struct xt_rbd_qw {
	struct xt_rbd *r;
	rbd_image_t img;
	uint64_t handle;
	int quiesced;                   /* under r->q_lock */
	int ack_due;                    /* answer when the batches in flight end */
};

/*
 * Copy-from batches against snapshot creation: enter waits (until deadline_ms,
 * 0: none) while a snapshot is being made, then counts the batch and gives
 * the number of quiesce requests seen so far; leave uncounts it and answers
 * the quiesce requests that waited for it.
 */
int xt_rbd_quiesce_enter(struct xt_rbd *r, uint64_t deadline_ms, uint64_t *events);
void xt_rbd_quiesce_leave(struct xt_rbd *r);
/* rbd_quiesce_watch of q->img for q (rbd_quiesce.c): 0 or -errno. */
int xt_rbd_quiesce_watch(struct xt_rbd_qw *q);

/* The image's snapshot context, as librbd writes with it (rbd_image.c). */
#define XT_RBD_SNAPC_MAX 512
struct xt_rbd_snapc {
	uint64_t seq;
	uint32_t n;
	uint64_t snaps[XT_RBD_SNAPC_MAX];   /* newest first */
};
int xt_rbd_snapc_read(struct xt_rbd *r, struct xt_rbd_snapc *sc);

/*
 * Replace a handle a copy pinned (explicit lock) by an automatic one, by the
 * thread holding r's copy lock: 0 (or nothing to do), or -errno (still pinned).
 */
int xt_rbd_unpin(struct xt_rbd *r);

/* Submitting to r->image from any thread: under img_lock read. */
void xt_rbd_img_rdlock(struct xt_rbd *r);
void xt_rbd_img_unlock(struct xt_rbd *r);

/*
 * Wait for a completion made without a callback, until the thread's copy
 * deadline (xt_rbd_deadline_set): its return value, or -ETIMEDOUT (the
 * operation still runs: its buffer must outlive it; rbd_aio_release is still
 * the caller's, librbd frees the completion when the operation ends).
 */
int64_t xt_rbd_aio_wait(rbd_completion_t c);

#endif
