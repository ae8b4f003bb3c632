/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RBD store: cluster/pool/image open, geometry, librbd aio wrappers.
 * The copy (copy-from and its fallback) is in rbd_copy.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "rbd_image.h"
#include "rbd_image_int.h"
#include "xos.h"

/* ---- time bounds (docs/target-rbd.md, "RBD: failure bounds") -------------- */

uint32_t
xt_rbd_op_timeout_for(uint32_t cmd_time_out_s)
{
	/*
	 * The copy manager stops between chunks at cmd_time_out minus a
	 * reserve of 20 % of it, at least 1 s (half of it below 2 s), at most
	 * 5 s (engine: xcm_deadline_for_timeout). One librados operation
	 * started just before that deadline must still end inside the
	 * reserve: 1 s less than the reserve in whole seconds (the option's
	 * unit), at least 1 s. cmd_time_out 30 s (TCMU's default): 4 s.
	 */
	uint32_t t = cmd_time_out_s ? cmd_time_out_s : XT_RBD_CMD_TIME_OUT_DEFAULT;
	uint64_t ms = (uint64_t)t * 1000, reserve = ms / 5, floor = ms / 2, secs;

	floor = floor > 1000 ? 1000 : floor;
	reserve = reserve < floor ? floor : reserve;
	reserve = reserve > 5000 ? 5000 : reserve;
	secs = reserve / 1000;
	return secs > 2 ? (uint32_t)secs - 1 : 1;
}

/*
 * rados_osd_op_timeout: every OSD operation of the handle (librbd's object
 * reads/writes, header and lock operations, copy-from) fails with ETIMEDOUT
 * after it; rados_mon_op_timeout: the same for monitor commands. Both are
 * read again by librados' Objecter when changed on a connected handle.
 */
static int
op_timeout_conf(rados_t cl, uint32_t secs)
{
	char v[16];
	int rc;

	snprintf(v, sizeof(v), "%u", secs);
	rc = rados_conf_set(cl, "rados_osd_op_timeout", v);
	return rc < 0 ? rc : rados_conf_set(cl, "rados_mon_op_timeout", v);
}

uint32_t
xt_rbd_io_timeout_for(uint32_t cmd_time_out_s)
{
	/*
	 * The LU's ordinary I/O: TCMU fails the command at cmd_time_out
	 * anyway; until then an OSD failover (heartbeat grace 20 s, then
	 * peering) may still complete it. The timeout only frees what a dead
	 * cluster would hold for ever (the command's ring slot).
	 */
	return cmd_time_out_s ? cmd_time_out_s : XT_RBD_CMD_TIME_OUT_DEFAULT;
}

static int
timeout_apply(struct xt_rbd *r, uint32_t secs)
{
	int rc;

	if (__atomic_load_n(&r->op_timeout_s, __ATOMIC_RELAXED) == secs) {
		return 0;
	}
	rc = op_timeout_conf(r->cluster, secs);
	if (rc == 0) {
		__atomic_store_n(&r->op_timeout_s, secs, __ATOMIC_RELAXED);
	}
	return rc;
}

int
xt_rbd_op_timeout(struct xt_rbd *r, uint32_t cmd_time_out_s)
{
	return timeout_apply(r, xt_rbd_op_timeout_for(cmd_time_out_s));
}

int
xt_rbd_io_timeout(struct xt_rbd *r, uint32_t cmd_time_out_s)
{
	return timeout_apply(r, xt_rbd_io_timeout_for(cmd_time_out_s));
}

/* The deadline of the copy this thread runs (0: none). */
static __thread uint64_t t_deadline_ms;

void
xt_rbd_deadline_set(uint64_t deadline_ms)
{
	t_deadline_ms = deadline_ms;
}

uint64_t
xt_rbd_deadline(void)
{
	return t_deadline_ms;
}

/*
 * Cluster handle: rbd_cache off, because rbd_copy.c writes objects behind
 * librbd's back (RADOS copy-from) and a librbd cache would then serve stale
 * data or flush stale dirty data over the copy.
 */
static int
rbd_connect(const struct xt_rbd_cfg *cfg, rados_t *cl, char *why, size_t whylen)
{
	int rc;

	rc = rados_create(cl, cfg->id);
	if (rc < 0) {
		xos_why_set(why, whylen, "rados_create(id %s): %s", cfg->id, strerror(-rc));
		return rc;
	}
	if (cfg->conf[0] != '\0' && access(cfg->conf, R_OK) != 0) {
		rc = -errno;
		xos_why_set(why, whylen, "ceph config %s: %s", cfg->conf, strerror(-rc));
		goto fail;
	}
	rc = rados_conf_read_file(*cl, cfg->conf[0] ? cfg->conf : NULL);
	if (rc < 0) {
		xos_why_set(why, whylen, "ceph config %s: %s", cfg->conf[0] ? cfg->conf :
			"(default: $CEPH_CONF, /etc/ceph/ceph.conf)", strerror(-rc));
		goto fail;
	}
	rados_conf_set(*cl, "rbd_cache", "false");
	/* connect and pool/image lookups: at open, not inside a SCSI command */
	rados_conf_set(*cl, "client_mount_timeout", "30");
	rc = op_timeout_conf(*cl, xt_rbd_io_timeout_for(XT_RBD_CMD_TIME_OUT_DEFAULT));
	if (rc < 0) {
		xos_why_set(why, whylen, "rados_osd_op_timeout: %s", strerror(-rc));
		goto fail;
	}
	rc = rados_connect(*cl);
	if (rc < 0) {
		xos_why_set(why, whylen, "cannot connect to the cluster of %s as client.%s: %s%s",
			cfg->conf[0] ? cfg->conf : "the default ceph.conf", cfg->id,
			strerror(-rc), rc == -EACCES || rc == -EPERM || rc == -ENOENT ?
			" (missing or refused key?)" : "");
		goto fail;
	}
	return 0;
fail:
	rados_shutdown(*cl);
	*cl = NULL;
	return rc;
}

void
xt_rbd_img_rdlock(struct xt_rbd *r)
{
	pthread_rwlock_rdlock(&r->img_lock);
}

void
xt_rbd_img_unlock(struct xt_rbd *r)
{
	pthread_rwlock_unlock(&r->img_lock);
}

/* ---- open, close, and the handle's return to automatic locking ------------ */

static int
image_open(struct xt_rbd *r, rbd_image_t *img, struct xt_rbd_qw **qw)
{
	struct xt_rbd_qw *q = calloc(1, sizeof(*q));
	int rc;

	*img = NULL;
	*qw = NULL;
	if (q == NULL) {
		return -ENOMEM;
	}
	rc = rbd_open(r->io, r->cfg.image, img, NULL);
	if (rc < 0) {
		*img = NULL;
		free(q);
		return rc;
	}
	q->r = r;
	q->img = *img;
	rc = xt_rbd_quiesce_watch(q);
	if (rc < 0) {
		rbd_close(*img);
		*img = NULL;
		free(q);
		return rc;
	}
	*qw = q;
	return 0;
}

/* Close a handle; a quiesce it was asked for ends with it. */
static void
image_close(struct xt_rbd *r, rbd_image_t img, struct xt_rbd_qw *q)
{
	rbd_quiesce_unwatch(img, q->handle);
	rbd_close(img);
	pthread_mutex_lock(&r->q_lock);
	if (q->quiesced) {
		q->quiesced = 0;
		r->q_quiesced--;
		pthread_cond_broadcast(&r->q_cond);
	}
	if (r->qw == q) {
		r->qw = NULL;
	}
	if (r->qw_next == q) {
		r->qw_next = NULL;
	}
	pthread_mutex_unlock(&r->q_lock);
	free(q);
}

/*
 * A copy made the lock explicit (rbd_lock_acquire), which librbd keeps for
 * the handle's life: other clients asking for it are refused (EROFS), and
 * rbd_lock_release would leave our own writes refused. So the handle is
 * replaced by a new one, automatic again; closing the old releases the lock.
 * Not while a ROD token relies on the lock, nor during a snapshot's quiesce.
 */
int
xt_rbd_unpin(struct xt_rbd *r)
{
	struct xt_rbd_qw *q;
	rbd_image_t img;
	int rc, busy;

	if (!r->pinned || r->token_pinned) {
		return 0;
	}
	rc = image_open(r, &img, &q);
	if (rc < 0) {
		return rc;   /* still pinned: the next copy tries again */
	}
	pthread_mutex_lock(&r->q_lock);
	r->qw_next = q;
	pthread_mutex_unlock(&r->q_lock);
	pthread_rwlock_wrlock(&r->img_lock);
	pthread_mutex_lock(&r->q_lock);
	busy = r->q_quiesced > 0 || r->q_active > 0 || r->token_pinned;
	pthread_mutex_unlock(&r->q_lock);
	if (busy) {
		pthread_rwlock_unlock(&r->img_lock);
		image_close(r, img, q);
		return -EBUSY;
	}
	image_close(r, r->image, r->qw);
	pthread_mutex_lock(&r->q_lock);
	r->image = img;
	r->qw = q;
	r->qw_next = NULL;
	pthread_mutex_unlock(&r->q_lock);
	r->pinned = 0;
	r->lock_released = 1;
	pthread_rwlock_unlock(&r->img_lock);
	return 0;
}

static void
sync_init(struct xt_rbd *r)
{
	pthread_rwlockattr_t ra;
	pthread_condattr_t ca;

	pthread_mutex_init(&r->copy_lock, NULL);
	pthread_rwlockattr_init(&ra);
	/* a waiting replacement holds new submits back: it is not starved */
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&r->img_lock, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_mutex_init(&r->q_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->q_cond, &ca);
	pthread_condattr_destroy(&ca);
}

int
xt_rbd_open(const struct xt_rbd_cfg *cfg, struct xt_rbd **out, char *why, size_t whylen)
{
	struct xt_rbd *r;
	int rc;

	xos_why_set(why, whylen, "%s", "");
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		xos_why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	r->cfg = *cfg;
	sync_init(r);
	r->op_timeout_s = xt_rbd_io_timeout_for(XT_RBD_CMD_TIME_OUT_DEFAULT);
	rc = rbd_connect(cfg, &r->cluster, why, whylen);
	if (rc < 0) {
		free(r);
		return rc;
	}
	rc = rados_ioctx_create(r->cluster, cfg->pool, &r->io);
	if (rc < 0) {
		xos_why_set(why, whylen, "pool %s: %s", cfg->pool,
			rc == -ENOENT ? "no such pool" : strerror(-rc));
		goto fail;
	}
	rc = image_open(r, &r->image, &r->qw);
	if (rc < 0) {
		xos_why_set(why, whylen, "image %s/%s: %s", cfg->pool, cfg->image,
			rc == -ENOENT ? "no such image" : strerror(-rc));
		goto fail;
	}
	rc = xt_rbd_geom(r, &r->geom);
	if (rc < 0) {
		xos_why_set(why, whylen, "image %s/%s: geometry: %s", cfg->pool, cfg->image,
			strerror(-rc));
		goto fail;
	}
	rc = rados_ioctx_create2(r->cluster, r->geom.data_pool_id, &r->data_io);
	if (rc < 0) {
		xos_why_set(why, whylen, "image %s/%s: data pool %" PRId64 ": %s", cfg->pool,
			cfg->image, r->geom.data_pool_id, strerror(-rc));
		goto fail;
	}
	*out = r;
	return 0;
fail:
	xt_rbd_close(r);
	return rc;
}

void
xt_rbd_close(struct xt_rbd *r)
{
	if (r == NULL) {
		return;
	}
	if (r->image != NULL) {
		image_close(r, r->image, r->qw);
	}
	if (r->data_io != NULL) {
		rados_ioctx_destroy(r->data_io);
	}
	if (r->io != NULL) {
		rados_ioctx_destroy(r->io);
	}
	if (r->cluster != NULL) {
		rados_shutdown(r->cluster);
	}
	pthread_mutex_destroy(&r->copy_lock);
	pthread_rwlock_destroy(&r->img_lock);
	pthread_cond_destroy(&r->q_cond);
	pthread_mutex_destroy(&r->q_lock);
	free(r);
}

int
xt_rbd_geom(struct xt_rbd *r, struct xt_rbd_geom *g)
{
	rbd_image_info_t info;
	rbd_linked_image_spec_t parent;
	rbd_snap_spec_t psnap;
	int rc, max = 0;

	memset(g, 0, sizeof(*g));
	if ((rc = rbd_stat(r->image, &info, sizeof(info))) < 0 ||
	    (rc = rbd_get_features(r->image, &g->features)) < 0 ||
	    (rc = rbd_get_flags(r->image, &g->flags)) < 0 ||
	    (rc = rbd_get_stripe_unit(r->image, &g->stripe_unit)) < 0 ||
	    (rc = rbd_get_stripe_count(r->image, &g->stripe_count)) < 0 ||
	    (rc = rbd_get_block_name_prefix(r->image, g->prefix, sizeof(g->prefix))) < 0 ||
	    (rc = rbd_get_id(r->image, g->serial, sizeof(g->serial))) < 0) {
		return rc;
	}
	g->size = info.size;
	g->order = (uint32_t)info.order;
	g->object_size = info.obj_size;
	g->block_size = r->cfg.block_size;
	g->data_pool_id = rbd_get_data_pool_id(r->image);
	if (g->data_pool_id < 0) {
		return (int)g->data_pool_id;
	}
	rc = rbd_get_parent(r->image, &parent, &psnap);
	if (rc == 0) {
		g->has_parent = 1;
		rbd_linked_image_spec_cleanup(&parent);
		rbd_snap_spec_cleanup(&psnap);
	} else if (rc != -ENOENT) {
		return rc;
	}
	/* with no room, librbd answers -ERANGE and the count + 1 (end marker) */
	rc = rbd_snap_list(r->image, NULL, &max);
	if (rc < 0 && rc != -ERANGE) {
		return rc;
	}
	g->snap_count = rc == -ERANGE && max > 0 ? max - 1 : 0;
	return 0;
}

int
xt_rbd_object_name(const struct xt_rbd_geom *g, uint64_t objno, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s.%016" PRIx64, g->prefix, objno);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- aio ---------------------------------------------------------------- */

struct aio_ctx {
	xt_rbd_cb cb;
	void *arg;
};

static void
aio_done(rbd_completion_t c, void *p)
{
	struct aio_ctx *a = p;
	int64_t ret = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	a->cb(a->arg, ret);
	free(a);
}

/* A completion calling cb(arg, ret); *ctx to free if the submit fails. */
static int
aio_new(xt_rbd_cb cb, void *arg, rbd_completion_t *c, struct aio_ctx **ctx)
{
	struct aio_ctx *a = malloc(sizeof(*a));
	int rc;

	if (a == NULL) {
		return -ENOMEM;
	}
	a->cb = cb;
	a->arg = arg;
	rc = rbd_aio_create_completion(a, aio_done, c);
	if (rc < 0) {
		free(a);
		return rc;
	}
	*ctx = a;
	return 0;
}

static int
aio_submitted(int rc, rbd_completion_t c, struct aio_ctx *a)
{
	if (rc < 0) {
		rbd_aio_release(c);
		free(a);
	}
	return rc < 0 ? rc : 0;
}

#define AIO_SUBMIT(call)                                        \
	do {                                                    \
		rbd_completion_t c_;                            \
		struct aio_ctx *a_;                             \
		int rc_ = aio_new(cb, arg, &c_, &a_);           \
		if (rc_ < 0) {                                  \
			return rc_;                             \
		}                                               \
		xt_rbd_img_rdlock(r);                           \
		rc_ = (call);                                   \
		xt_rbd_img_unlock(r);                           \
		return aio_submitted(rc_, c_, a_);              \
	} while (0)

int
xt_rbd_aio_read(struct xt_rbd *r, uint64_t off, size_t len, void *buf,
		xt_rbd_cb cb, void *arg)
{
	AIO_SUBMIT(rbd_aio_read(r->image, off, len, buf, c_));
}

int
xt_rbd_aio_write(struct xt_rbd *r, uint64_t off, size_t len, const void *buf,
		 xt_rbd_cb cb, void *arg)
{
	AIO_SUBMIT(rbd_aio_write(r->image, off, len, buf, c_));
}

int
xt_rbd_aio_flush(struct xt_rbd *r, xt_rbd_cb cb, void *arg)
{
	AIO_SUBMIT(rbd_aio_flush(r->image, c_));
}

int
xt_rbd_aio_discard(struct xt_rbd *r, uint64_t off, uint64_t len, xt_rbd_cb cb,
		   void *arg)
{
	AIO_SUBMIT(rbd_aio_discard(r->image, off, len, c_));
}

int
xt_rbd_aio_write_zeroes(struct xt_rbd *r, uint64_t off, uint64_t len,
			xt_rbd_cb cb, void *arg)
{
	AIO_SUBMIT(rbd_aio_write_zeroes(r->image, off, len, c_, 0, 0));
}

/* ---- synchronous forms, bounded by the thread's copy deadline ------------ */

/*
 * One aio waited for by one thread. Past the deadline the waiter leaves and
 * the completion callback frees the wait when the operation ends (its
 * rados_osd_op_timeout ends it at the latest); data then goes through buf,
 * owned by the wait, so the late operation never touches the caller's
 * memory.
 */
struct bwait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, orphan;
	int64_t ret;
	void *buf;
};

static void
bwait_free(struct bwait *w)
{
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w->buf);
	free(w);
}

static struct bwait *
bwait_new(size_t buflen)
{
	struct bwait *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;

	if (w == NULL || (buflen > 0 && (w->buf = malloc(buflen)) == NULL)) {
		free(w);
		return NULL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	return w;
}

static void
bwait_done(rbd_completion_t c, void *p)
{
	struct bwait *w = p;
	int64_t ret = rbd_aio_get_return_value(c);
	int orphan;

	rbd_aio_release(c);
	pthread_mutex_lock(&w->lock);
	w->ret = ret;
	w->done = 1;
	orphan = w->orphan;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (orphan) {
		bwait_free(w);
	}
}

/* 0 and *ret, or -ETIMEDOUT: the deadline passed first (w now belongs to bwait_done). */
static int
bwait_wait(struct bwait *w, uint64_t deadline_ms, int64_t *ret)
{
	struct timespec ts = { (time_t)(deadline_ms / 1000), (long)(deadline_ms % 1000) * 1000000 };
	int rc = 0;

	pthread_mutex_lock(&w->lock);
	while (!w->done && rc != ETIMEDOUT) {
		rc = deadline_ms == 0 ? pthread_cond_wait(&w->cond, &w->lock)
				      : pthread_cond_timedwait(&w->cond, &w->lock, &ts);
	}
	if (!w->done) {
		w->orphan = 1;
		pthread_mutex_unlock(&w->lock);
		return -ETIMEDOUT;
	}
	*ret = w->ret;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

enum sync_op { SYNC_READ, SYNC_WRITE, SYNC_FLUSH, SYNC_ZERO };

/* One synchronous call: op on [off, +len), buf the caller's data (read into, written from). */
struct sync_req {
	enum sync_op op;
	uint64_t off, len;
	void *buf;
};

static int
sync_submit(struct xt_rbd *r, const struct sync_req *q, void *buf, rbd_completion_t c)
{
	uint64_t off = q->off, len = q->len;

	switch (q->op) {
	case SYNC_READ:
		return rbd_aio_read(r->image, off, len, buf, c);
	case SYNC_WRITE:
		return rbd_aio_write(r->image, off, len, buf, c);
	case SYNC_FLUSH:
		return rbd_aio_flush(r->image, c);
	default:
		return rbd_aio_write_zeroes(r->image, off, len, c, 0, 0);
	}
}

/*
 * Submit op and wait for it, until the thread's deadline (xt_rbd_deadline_set)
 * when one is set: then -ETIMEDOUT without waiting longer (and without
 * submitting once it has passed). q->buf: the caller's data (read into, written from).
 */
static int64_t
sync_io(struct xt_rbd *r, const struct sync_req *q)
{
	enum sync_op op = q->op;
	uint64_t len = q->len;
	void *rbuf = q->buf;
	const void *wbuf = q->buf;
	uint64_t dl = t_deadline_ms;
	int data = op == SYNC_READ || op == SYNC_WRITE;
	struct bwait *w;
	rbd_completion_t c;
	int64_t ret = 0;
	int rc;

	if (dl != 0 && xos_now_ms() >= dl) {
		return -ETIMEDOUT;
	}
	w = bwait_new(dl != 0 && data ? (size_t)len : 0);
	if (w == NULL) {
		return -ENOMEM;
	}
	if (op == SYNC_WRITE && w->buf != NULL) {
		memcpy(w->buf, wbuf, (size_t)len);
	}
	rc = rbd_aio_create_completion(w, bwait_done, &c);
	if (rc < 0) {
		bwait_free(w);
		return rc;
	}
	xt_rbd_img_rdlock(r);
	rc = sync_submit(r, q, w->buf != NULL ? w->buf : q->buf, c);
	xt_rbd_img_unlock(r);
	if (rc < 0) {
		rbd_aio_release(c);
		bwait_free(w);
		return rc;
	}
	if (bwait_wait(w, dl, &ret) < 0) {
		return -ETIMEDOUT;
	}
	if (op == SYNC_READ && w->buf != NULL && ret > 0) {
		memcpy(rbuf, w->buf, (size_t)ret);
	}
	bwait_free(w);
	return ret;
}

int64_t
xt_rbd_aio_wait(rbd_completion_t c)
{
	const struct timespec tick = { 0, 2000000 };
	uint64_t dl = t_deadline_ms;

	if (dl == 0) {
		rbd_aio_wait_for_complete(c);
		return rbd_aio_get_return_value(c);
	}
	while (!rbd_aio_is_complete(c)) {
		if (xos_now_ms() >= dl) {
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
	}
	return rbd_aio_get_return_value(c);
}

int64_t
xt_rbd_read(struct xt_rbd *r, uint64_t off, size_t len, void *buf)
{
	const struct sync_req q = { SYNC_READ, off, len, buf };

	return sync_io(r, &q);
}

int64_t
xt_rbd_write(struct xt_rbd *r, uint64_t off, size_t len, const void *buf)
{
	const struct sync_req q = { SYNC_WRITE, off, len, (void *)(uintptr_t)buf };

	return sync_io(r, &q);
}

int
xt_rbd_flush(struct xt_rbd *r)
{
	const struct sync_req q = { SYNC_FLUSH, 0, 0, NULL };

	return (int)sync_io(r, &q);
}

int
xt_rbd_write_zeroes(struct xt_rbd *r, uint64_t off, uint64_t len)
{
	const struct sync_req q = { SYNC_ZERO, off, len, NULL };

	return (int)sync_io(r, &q);
}
