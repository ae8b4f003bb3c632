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
rbd_lu_cfg(struct xt_lu *lu, const struct xt_rbd_cfg *rc)
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
rbd_io_timeout_apply(struct xt_lu *lu, struct xt_rbd *r)
{
	if (xt_rbd_io_timeout(r, lu->cmd_time_out) == 0) {
		xt_lu_info(lu, "xcopy: rbd I/O timeout %u s (cmd_time_out %u s)\n",
			   xt_rbd_io_timeout_for(lu->cmd_time_out), lu->cmd_time_out);
	}
}

/*
 * cmd_time_out may be set after open (targetcli: create, then set attribute),
 * but only while no LUN exports the LU (the kernel refuses it otherwise).
 * The I/O path looks at configfs at most once a second
 * (xt_cmd_time_out_follow; otherwise two atomic loads and no system call);
 * the first command after a read that found it changed (this one's or a
 * copy's at queue time: lu->cmd_time_out_gen) applies it, once. A copy
 * restores the LU's I/O timeout from it when it ends.
 */
static void
rbd_io_timeout_follow(struct xt_lu *lu, struct xt_rbd *r)
{
	uint32_t seen, gen;

	if (xt_rbd_deadline() != 0) {   /* a copy's piece: the copy's timeouts */
		return;
	}
	xt_cmd_time_out_follow(lu);
	gen = __atomic_load_n(&lu->cmd_time_out_gen, __ATOMIC_ACQUIRE);
	seen = __atomic_load_n(&r->cto_gen, __ATOMIC_RELAXED);
	if (gen != seen && __atomic_compare_exchange_n(&r->cto_gen, &seen, gen, false,
						       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		rbd_io_timeout_apply(lu, r);
	}
}

static int
rbd_open_lu(struct xt_lu *lu, uint64_t *size)
{
	uint32_t bs = xt_lu_block_size(lu);
	struct xt_rbd_cfg cfg;
	struct xt_rbd *r;
	char why[512];
	int rc = xt_rbd_cfg_parse(xt_lu_cfgstring(lu), &cfg, why, sizeof(why));

	if (rc == 0 && cfg.conf[0] != '\0' && access(cfg.conf, R_OK) != 0) {
		rc = -errno;
		snprintf(why, sizeof(why), "ceph config %s: %s", cfg.conf, strerror(-rc));
	}
	if (rc == 0) {
		rc = xt_rbd_open(&cfg, &r, why, sizeof(why));
	}
	if (rc != 0) {
		xt_lu_err(lu, "xcopy: %s\n", why);
		return rc;
	}
	rbd_lu_cfg(lu, &cfg);
	lu->priv = r;
	r->cto_gen = __atomic_load_n(&lu->cmd_time_out_gen, __ATOMIC_ACQUIRE);
	rbd_io_timeout_apply(lu, r);   /* ordinary I/O: the LU's cmd_time_out (read before open) */
	if (bs != cfg.block_size) {
		xt_lu_err(lu, "xcopy: LU block size %u but the cfgstring says bs=%u "
			  "(add ?bs=%u)\n", bs, cfg.block_size, bs);
		return -EINVAL;
	}
	*size = r->geom.size;
	return 0;
}

static void
rbd_too_small(struct xt_lu *lu, uint64_t size, uint64_t need)
{
	xt_lu_err(lu, "xcopy: image %s is %llu bytes, smaller than the LU (%llu bytes); "
		  "grow it (rbd resize --size %lluB)\n", lu->cfg.path,
		  (unsigned long long)size, (unsigned long long)need, (unsigned long long)need);
}

static void
rbd_close_lu(struct xt_lu *lu)
{
	xt_rbd_close(lu->priv);
	lu->priv = NULL;
}

static int
rbd_size(struct xt_lu *lu, uint64_t *bytes)
{
	struct xt_rbd *r = lu->priv;
	int rc;

	xt_rbd_img_rdlock(r);   /* a copy may replace the handle (xt_rbd_unpin) */
	rc = rbd_get_size(r->image, bytes);
	xt_rbd_img_unlock(r);
	return rc;
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
rbd_io(struct xt_lu *lu, const struct xt_io *io)
{
	const struct iovec *iov = io->iov;
	size_t cnt = io->cnt, len = io->len;
	uint64_t off = io->off;
	bool wr = io->wr;
	struct xt_rbd *r = lu->priv;
	struct xt_iov_clip v;
	rbd_completion_t c;
	int64_t ret;
	int rc;

	if (len == 0) {
		return 0;
	}
	if (io->deadline_ms != 0 && cnt == 1 && iov[0].iov_len >= len) {
		/* a copy's gateway piece (store_copy.c): the deadline-bounded forms,
		 * the image layer's bound for this call only */
		xt_rbd_deadline_set(io->deadline_ms);
		ret = wr ? xt_rbd_write(r, off, len, iov[0].iov_base)
			 : xt_rbd_read(r, off, len, iov[0].iov_base);
		xt_rbd_deadline_set(0);
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
		xt_rbd_img_rdlock(r);   /* a copy may replace the handle (xt_rbd_unpin) */
		rc = wr ? rbd_aio_writev(r->image, v.v, (int)v.n, off, c)
			: rbd_aio_readv(r->image, v.v, (int)v.n, off, c);
		xt_rbd_img_unlock(r);
		ret = rbd_wait(rc, c);
		rc = ret < 0 ? (int)ret : 0;
	}
	xt_iov_clip_done(&v, iov, cnt, len, !wr && rc == 0);
	return rc;
}

static int
rbd_flush_lu(struct xt_lu *lu)
{
	struct xt_rbd *r = lu->priv;

	rbd_io_timeout_follow(lu, r);
	return xt_rbd_flush(r);
}

/* rbd write-zeroes: whole objects discarded, partial ones zero-filled (LBPRZ = 1 holds). */
static int
rbd_zero(struct xt_lu *lu, uint64_t off, uint64_t len, uint64_t deadline_ms)
{
	struct xt_rbd *r = lu->priv;
	int rc;

	if (deadline_ms == 0) {
		rbd_io_timeout_follow(lu, r);
	}
	xt_rbd_deadline_set(deadline_ms);   /* the image layer's bound, this call only */
	rc = xt_rbd_write_zeroes(r, off, len);
	xt_rbd_deadline_set(0);
	return rc;
}

/*
 * Two RBD LUs: whole objects by copy-from when safe, the rest through librbd.
 * Every wait ends by the job's deadline; librados' operation timeouts of both
 * images follow the receiving LU's cmd_time_out (docs/target-rbd.md, "RBD:
 * failure bounds").
 */
static int
rbd_copy_lu(struct xt_copy *c, const struct xt_range *rg)
{
	struct xt_lu *src = rg->src, *dst = rg->dst;
	uint64_t soff = rg->soff, doff = rg->doff, len = rg->len;
	struct xt_copy_acct *acct = &c->acct;
	bool *at_dst = &c->at_dst;
	uint64_t *done = &c->done;
	struct xt_rbd_copy_stats st;
	char why[256];
	int rc;

	memset(&st, 0, sizeof(st));
	/* one copy per image at a time (xt_rbd_copy_lock); other images' copies run at once */
	rc = xt_rbd_copy_lock(src->priv, dst->priv, c->deadline_ms);
	if (rc != 0) {
		snprintf(why, sizeof(why), "another copy on these images held them past the deadline");
	} else {
		/* short operation timeouts while the copy runs, the LUs' own after */
		xt_rbd_op_timeout(src->priv, c->cmd_time_out);
		xt_rbd_op_timeout(dst->priv, c->cmd_time_out);
		xt_rbd_deadline_set(c->deadline_ms);   /* the image layer's bound, this call only */
		const struct xt_rbd_range rr = { src->priv, soff, dst->priv, doff, len };

		rc = xt_rbd_copy(&rr, &st, why, sizeof(why));
		xt_rbd_deadline_set(0);
		xt_rbd_io_timeout(src->priv, xt_lu_cmd_time_out(src));
		xt_rbd_io_timeout(dst->priv, xt_lu_cmd_time_out(dst));
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
		xt_lu_err(dst, "xcopy: rbd copy %s -> %s: %s\n", src->cfg.path,
			  dst->cfg.path, why);
	}
	return rc;
}

/* ROD tokens on an RBD LU: change vulnerable, guarded by the image's exclusive lock */
static int
rbd_token_guard(struct xt_lu *lu, bool at_use, char *why, size_t whylen)
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
rbd_missing_open(struct xt_lu *lu, uint64_t *size)
{
	char why[512];

	rbd_missing(xt_lu_cfgstring(lu), why, sizeof(why));
	xt_lu_err(lu, "xcopy: %s\n", why);
	return -EOPNOTSUPP;
}

const struct xt_store_ops xt_store_rbd = {
	.name = "rbd",
	.copy_chunk = XT_RBD_CHUNK,
	.check = rbd_missing,
	.open = rbd_missing_open,
};

#endif
