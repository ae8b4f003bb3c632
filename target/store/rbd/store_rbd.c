/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RBD store of a user:xcopy LU (xcopy/rbd/POOL/IMAGE[@CONF][?opts],
 * rbd_cfg.c): ordinary I/O through librbd, synchronously on the runner's
 * worker thread (aio submit + wait for its completion). librbd's cache is off
 * (rbd_image.c): a completed write is in RADOS, so the LU reports WCE = 0.
 * EXTENDED COPY between two RBD LUs: rbd_copy_lu (xt_rbd_copy, rbd_copy.c);
 * with a file LU: store_copy.c's read/write loop over these io calls.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lio/lio.h"
#include "store/rbd/store_rbd.h"

#ifdef XT_HAVE_RBD
#include "rbd_image.h"
#include "rbd_image_int.h"

static int
rbd_check(const char *cfgstring, char *why, size_t whylen)
{
	struct xt_rbd_cfg cfg;
	struct xt_rbd *r = NULL;
	int rc = xt_rbd_cfg_parse(cfgstring, &cfg, why, whylen);

	if (rc != 0) {
		return rc;
	}
	/* before any librados call: a missing config file is the common mistake */
	if (cfg.conf[0] != '\0' && access(cfg.conf, R_OK) != 0) {
		rc = -errno;
		snprintf(why, whylen, "ceph config %s: %s", cfg.conf, strerror(-rc));
		return rc;
	}
	rc = xt_rbd_open(&cfg, &r, why, whylen);   /* cluster, key, pool, image */
	xt_rbd_close(r);
	return rc;
}

/* lu->cfg of an RBD LU: no backing path, no clones; copies by the engine unless xcopy=core. */
static void
rbd_lu_cfg(struct xcm_lu *lu, const struct xt_rbd_cfg *rc)
{
	memset(&lu->cfg, 0, sizeof(lu->cfg));
	snprintf(lu->cfg.path, sizeof(lu->cfg.path), "rbd:%s/%s", rc->pool, rc->image);
	lu->cfg.clone = XT_CLONE_NEVER;
	lu->cfg.cfr = XT_CFR_NEVER;
	lu->cfg.xcopy = rc->xcopy_core ? XT_XCOPY_CORE : XT_XCOPY_ENGINE;
	lu->cfg.copy_nice = XT_COPY_NICE_DEFAULT;
}

/* The LU's ordinary I/O times out with its cmd_time_out (xt_rbd_io_timeout_for). */
static void
rbd_io_timeout_apply(struct xcm_lu *lu, struct xt_rbd *r)
{
	if (xt_rbd_io_timeout(r, lu->cmd_time_out) == 0) {
		tcmu_dev_info(lu->dev, "xcopy: rbd I/O timeout %u s (cmd_time_out %u s)\n",
			      xt_rbd_io_timeout_for(lu->cmd_time_out), lu->cmd_time_out);
	}
}

/*
 * cmd_time_out may be set after open (targetcli: create, then set attribute),
 * but only while no LUN exports the LU (the kernel refuses it otherwise): the
 * first command after a change sees it here. A copy reads it too, at queue
 * time, and restores the LU's I/O timeout from it when it ends.
 */
static void
rbd_io_timeout_follow(struct xcm_lu *lu, struct xt_rbd *r)
{
	uint32_t was = lu->cmd_time_out;

	if (xt_rbd_deadline() == 0 && xt_cmd_time_out(lu) != was) {   /* not a copy's piece */
		rbd_io_timeout_apply(lu, r);
	}
}

static int
rbd_open_lu(struct xcm_lu *lu, uint64_t *size)
{
	uint32_t bs = tcmu_dev_get_block_size(lu->dev);
	struct xt_rbd_cfg cfg;
	struct xt_rbd *r;
	char why[512];
	int rc = xt_rbd_cfg_parse(tcmu_dev_get_cfgstring(lu->dev), &cfg, why, sizeof(why));

	if (rc == 0 && cfg.conf[0] != '\0' && access(cfg.conf, R_OK) != 0) {
		rc = -errno;
		snprintf(why, sizeof(why), "ceph config %s: %s", cfg.conf, strerror(-rc));
	}
	if (rc == 0) {
		rc = xt_rbd_open(&cfg, &r, why, sizeof(why));
	}
	if (rc != 0) {
		tcmu_dev_err(lu->dev, "xcopy: %s\n", why);
		return rc;
	}
	rbd_lu_cfg(lu, &cfg);
	lu->priv = r;
	rbd_io_timeout_apply(lu, r);   /* ordinary I/O: the LU's cmd_time_out (read before open) */
	if (bs != cfg.block_size) {
		tcmu_dev_err(lu->dev, "xcopy: LU block size %u but the cfgstring says bs=%u "
			     "(add ?bs=%u)\n", bs, cfg.block_size, bs);
		return -EINVAL;
	}
	*size = r->geom.size;
	return 0;
}

static void
rbd_too_small(struct xcm_lu *lu, uint64_t size, uint64_t need)
{
	tcmu_dev_err(lu->dev, "xcopy: image %s is %llu bytes, smaller than the LU (%llu bytes); "
		     "grow it (rbd resize --size %lluB)\n", lu->cfg.path,
		     (unsigned long long)size, (unsigned long long)need, (unsigned long long)need);
}

static void
rbd_close_lu(struct xcm_lu *lu)
{
	xt_rbd_close(lu->priv);
	lu->priv = NULL;
}

static int
rbd_size(struct xcm_lu *lu, uint64_t *bytes)
{
	struct xt_rbd *r = lu->priv;

	return rbd_get_size(r->image, bytes);
}

/* Wait for one submitted aio: its return value, or the submit error. */
static int64_t
rbd_wait(int rc, rbd_completion_t c)
{
	int64_t ret = rc;

	if (rc >= 0) {
		rbd_aio_wait_for_complete(c);
		ret = rbd_aio_get_return_value(c);
	}
	rbd_aio_release(c);
	return ret;
}

static int
rbd_io(struct xcm_lu *lu, const struct iovec *iov, size_t cnt, size_t len, uint64_t off,
       bool wr)
{
	struct xt_rbd *r = lu->priv;
	struct xt_iov_clip v;
	rbd_completion_t c;
	int64_t ret;
	int rc;

	if (len == 0) {
		return 0;
	}
	if (xt_rbd_deadline() != 0 && cnt == 1 && iov[0].iov_len >= len) {
		/* a copy's gateway piece (store_copy.c): the deadline-bounded forms */
		ret = wr ? xt_rbd_write(r, off, len, iov[0].iov_base)
			 : xt_rbd_read(r, off, len, iov[0].iov_base);
		if (ret < 0) {
			return (int)ret;
		}
		return wr || (uint64_t)ret == len ? 0 : -EIO;   /* a read returns its bytes */
	}
	rbd_io_timeout_follow(lu, r);
	rc = xt_iov_clip(&v, iov, cnt, len, wr);   /* exactly len bytes, <= IOV_MAX entries */
	if (rc != 0) {
		return rc;
	}
	rc = rbd_aio_create_completion(NULL, NULL, &c);
	if (rc == 0) {
		rc = wr ? rbd_aio_writev(r->image, v.v, (int)v.n, off, c)
			: rbd_aio_readv(r->image, v.v, (int)v.n, off, c);
		ret = rbd_wait(rc, c);
		rc = ret < 0 ? (int)ret : 0;
	}
	xt_iov_clip_done(&v, iov, cnt, len, !wr && rc == 0);
	return rc;
}

static int
rbd_flush_lu(struct xcm_lu *lu)
{
	struct xt_rbd *r = lu->priv;

	rbd_io_timeout_follow(lu, r);
	return xt_rbd_flush(r);
}

/* rbd write-zeroes: whole objects discarded, partial ones zero-filled (LBPRZ = 1 holds). */
static int
rbd_zero(struct xcm_lu *lu, uint64_t off, uint64_t len)
{
	struct xt_rbd *r = lu->priv;

	rbd_io_timeout_follow(lu, r);
	return xt_rbd_write_zeroes(r, off, len);
}

void
xt_store_deadline(uint64_t deadline_ms)
{
	xt_rbd_deadline_set(deadline_ms);
}

/*
 * Two RBD LUs: whole objects by copy-from when safe, the rest through librbd.
 * Every wait ends by the job's deadline; librados' operation timeouts of both
 * images follow the receiving LU's cmd_time_out (target/README.md, "RBD:
 * failure bounds").
 */
static int
rbd_copy_lu(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff, uint64_t len,
	    struct xt_copy_acct *acct, bool *at_dst, uint64_t *done)
{
	struct xt_rbd_copy_stats st;
	char why[256];
	int rc;

	memset(&st, 0, sizeof(st));
	/* one copy per image at a time (xt_rbd_copy_lock); other images' copies run at once */
	rc = xt_rbd_copy_lock(src->priv, dst->priv, acct->deadline_ms);
	if (rc != 0) {
		snprintf(why, sizeof(why), "another copy on these images held them past the deadline");
	} else {
		/* short operation timeouts while the copy runs, the LUs' own after */
		xt_rbd_op_timeout(src->priv, acct->cmd_time_out);
		xt_rbd_op_timeout(dst->priv, acct->cmd_time_out);
		xt_rbd_deadline_set(acct->deadline_ms);
		rc = xt_rbd_copy(src->priv, soff, dst->priv, doff, len, &st, why,
				 sizeof(why));
		xt_rbd_deadline_set(0);
		xt_rbd_io_timeout(src->priv, src->cmd_time_out);
		xt_rbd_io_timeout(dst->priv, dst->cmd_time_out);
		xt_rbd_copy_unlock(src->priv, dst->priv);
	}
	acct->copyfrom_bytes += st.copyfrom_bytes;
	acct->gateway_bytes += st.gateway_bytes;
	acct->hole_objects += st.hole_objects;
	acct->touch_bytes += st.touch_bytes;
	acct->store_copies++;
	if (st.fallbacks > 0) {
		acct->fallbacks += st.fallbacks;
		acct->last_fallback = xt_rbd_unsafe_name(st.last_unsafe);
	}
	*at_dst = st.err_at_dst != 0;
	*done = st.done < len ? st.done : len;
	if (rc != 0) {
		tcmu_dev_err(dst->dev, "xcopy: rbd copy %s -> %s: %s\n", src->cfg.path,
			     dst->cfg.path, why);
	}
	return rc;
}

/* ROD tokens on an RBD LU: change vulnerable, guarded by the image's exclusive lock */
static int
rbd_token_guard(struct xcm_lu *lu, bool at_use, char *why, size_t whylen)
{
	return xt_rbd_token_guard(lu->priv, at_use, why, whylen);
}

const struct xt_store_ops xt_store_rbd = {
	.name = "rbd",
	.copy_chunk = XT_RBD_CHUNK,
	.check = rbd_check,
	.open = rbd_open_lu,
	.too_small = rbd_too_small,
	.close = rbd_close_lu,
	.size = rbd_size,
	.io = rbd_io,
	.flush = rbd_flush_lu,
	.zero = rbd_zero,
	.copy = rbd_copy_lu,
	.token_guard = rbd_token_guard,
};

#else /* !XT_HAVE_RBD */

static int
rbd_missing(const char *cfgstring, char *why, size_t whylen)
{
	snprintf(why, whylen, "%s: this handler_xcopy.so was built without librbd "
		 "(install librbd-dev and rebuild)", cfgstring);
	return -EOPNOTSUPP;
}

static int
rbd_missing_open(struct xcm_lu *lu, uint64_t *size)
{
	char why[512];

	rbd_missing(tcmu_dev_get_cfgstring(lu->dev), why, sizeof(why));
	tcmu_dev_err(lu->dev, "xcopy: %s\n", why);
	return -EOPNOTSUPP;
}

const struct xt_store_ops xt_store_rbd = {
	.name = "rbd",
	.copy_chunk = XT_RBD_CHUNK,
	.check = rbd_missing,
	.open = rbd_missing_open,
};

void
xt_store_deadline(uint64_t deadline_ms)
{
	(void)deadline_ms;   /* no RBD store: nothing waits on librbd */
}

#endif
