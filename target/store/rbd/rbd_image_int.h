/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internals shared by rbd_image.c and rbd_copy.c. */
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
	uint32_t op_timeout_s;          /* rados_osd/mon_op_timeout set on cluster */
	pthread_mutex_t copy_lock;      /* a copy from or to this image (xt_rbd_copy_lock) */
};

/*
 * Wait for a completion made without a callback, until the thread's copy
 * deadline (xt_rbd_deadline_set): its return value, or -ETIMEDOUT (the
 * operation still runs: its buffer must outlive it; rbd_aio_release is still
 * the caller's, librbd frees the completion when the operation ends).
 */
int64_t xt_rbd_aio_wait(rbd_completion_t c);

#endif
