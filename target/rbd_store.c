/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RBD store: cluster/pool/image open, geometry, librbd aio wrappers.
 * The copy (copy-from and its fallback) is in rbd_copy.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "rbd_store.h"
#include "rbd_store_int.h"
#include "xos.h"

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
	rados_conf_set(*cl, "client_mount_timeout", "30");
	rados_conf_set(*cl, "rados_osd_op_timeout", "30");
	rados_conf_set(*cl, "rados_mon_op_timeout", "30");
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
	rc = rbd_open(r->io, cfg->image, &r->image, NULL);
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
		rbd_close(r->image);
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
		return aio_submitted((call), c_, a_);           \
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

/* ---- synchronous forms ---------------------------------------------------- */

static int64_t
sync_wait(int rc, rbd_completion_t c)
{
	int64_t ret;

	if (rc < 0) {
		rbd_aio_release(c);
		return rc;
	}
	rbd_aio_wait_for_complete(c);
	ret = rbd_aio_get_return_value(c);
	rbd_aio_release(c);
	return ret;
}

#define SYNC_SUBMIT(call)                                               \
	do {                                                            \
		rbd_completion_t c_;                                    \
		int rc_ = rbd_aio_create_completion(NULL, NULL, &c_);   \
		if (rc_ < 0) {                                          \
			return rc_;                                     \
		}                                                       \
		return sync_wait((call), c_);                           \
	} while (0)

int64_t
xt_rbd_read(struct xt_rbd *r, uint64_t off, size_t len, void *buf)
{
	SYNC_SUBMIT(rbd_aio_read(r->image, off, len, buf, c_));
}

int64_t
xt_rbd_write(struct xt_rbd *r, uint64_t off, size_t len, const void *buf)
{
	SYNC_SUBMIT(rbd_aio_write(r->image, off, len, buf, c_));
}

int
xt_rbd_flush(struct xt_rbd *r)
{
	rbd_completion_t c;
	int rc = rbd_aio_create_completion(NULL, NULL, &c);

	return rc < 0 ? rc : (int)sync_wait(rbd_aio_flush(r->image, c), c);
}

int
xt_rbd_write_zeroes(struct xt_rbd *r, uint64_t off, uint64_t len)
{
	rbd_completion_t c;
	int rc = rbd_aio_create_completion(NULL, NULL, &c);

	return rc < 0 ? rc : (int)sync_wait(rbd_aio_write_zeroes(r->image, off, len, c, 0, 0), c);
}
