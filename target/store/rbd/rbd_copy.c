/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Copy between RBD images: whole objects by RADOS copy-from when the safety
 * rules hold (docs/target-rbd.md, "RBD: when copy-from is safe"), the rest by
 * librbd read + write in this process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "rados_copy.h"
#include "rbd_image.h"
#include "rbd_image_int.h"
#include "xos.h"

#define COPY_BATCH 32           /* objects per copy-from batch */
#define COPY_INFLIGHT 8         /* copy-from operations at once */
#define GW_CHUNK_MAX (4u << 20) /* read/write chunk of the fallback */
#define TOUCH_LEN 512           /* object-map marker write */
#define TOKEN_LOCK_WAIT_MS 5000 /* POPULATE TOKEN waiting for a copy on its image */

static int
lock_until(pthread_mutex_t *m, uint64_t deadline_ms)
{
	const struct timespec tick = { 0, 2000000 };

	while (pthread_mutex_trylock(m) != 0) {
		if (deadline_ms != 0 && xos_now_ms() >= deadline_ms) {
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
	}
	return 0;
}

int
xt_rbd_copy_lock(struct xt_rbd *a, struct xt_rbd *b, uint64_t deadline_ms)
{
	struct xt_rbd *lo = (uintptr_t)a < (uintptr_t)b ? a : b, *hi = lo == a ? b : a;

	if (lock_until(&lo->copy_lock, deadline_ms) != 0) {
		return -ETIMEDOUT;
	}
	if (hi != lo && lock_until(&hi->copy_lock, deadline_ms) != 0) {
		pthread_mutex_unlock(&lo->copy_lock);
		return -ETIMEDOUT;
	}
	return 0;
}

void
xt_rbd_copy_unlock(struct xt_rbd *a, struct xt_rbd *b)
{
	if (b != a) {
		pthread_mutex_unlock(&b->copy_lock);
	}
	pthread_mutex_unlock(&a->copy_lock);
}

/* Watchers of image r other than this process's handles a and b; -1: cannot tell. */
static int
foreign_watchers(struct xt_rbd *r, struct xt_rbd *a, struct xt_rbd *b)
{
	rbd_image_watcher_t w[16];
	size_t n = 16, i;
	int64_t ida = (int64_t)rados_get_instance_id(a->cluster);
	int64_t idb = (int64_t)rados_get_instance_id(b->cluster);
	int found = 0;

	if (rbd_watchers_list(r->image, w, &n) < 0) {
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (w[i].id != ida && w[i].id != idb) {
			found++;
		}
	}
	rbd_watchers_list_cleanup(w, n);
	return found;
}

/* Who owns r's exclusive lock (without asking anyone to give it up). */
static enum xt_rbd_lock
lock_state(struct xt_rbd *r)
{
	rbd_lock_mode_t mode;
	char *owners[4];
	size_t n = 4;
	int owner = 0, rc;

	if (!(r->geom.features & RBD_FEATURE_EXCLUSIVE_LOCK)) {
		return XT_RBD_LOCK_NONE;
	}
	if (rbd_is_exclusive_lock_owner(r->image, &owner) < 0) {
		return XT_RBD_LOCK_UNKNOWN;
	}
	if (owner) {
		return XT_RBD_LOCK_OURS;
	}
	rc = rbd_lock_get_owners(r->image, &mode, owners, &n);
	if (rc == -ENOENT || (rc >= 0 && n == 0)) {
		return XT_RBD_LOCK_FREE;
	}
	if (rc < 0) {
		return XT_RBD_LOCK_UNKNOWN;
	}
	rbd_lock_get_owners_cleanup(owners, n);
	return XT_RBD_LOCK_OTHER;
}

/*
 * Does a client that breaks a lock blocklist the old owner? Its own
 * rbd_blocklist_on_break_lock says (default true); ours is all we can read,
 * taken as the deployment's (docs/target-rbd.md, "Standby gateways").
 */
static int
no_fencing(struct xt_rbd *r)
{
	char v[16];

	return rados_conf_get(r->cluster, "rbd_blocklist_on_break_lock", v, sizeof(v)) == 0 &&
	       strcmp(v, "false") == 0;
}

/* The facts of image r for the rule (rbd_rule.c); a and b: this process's handles. */
static void
facts_get(struct xt_rbd *r, struct xt_rbd *a, struct xt_rbd *b, struct xt_rbd_facts *f)
{
	int w;

	memset(f, 0, sizeof(*f));
	f->copy_from = r->cfg.copy_from;
	/* snapshots, parents and flags change while open: read them now */
	f->geom_known = xt_rbd_geom(r, &r->geom) >= 0;
	f->geom = r->geom;
	f->journaling = (r->geom.features & RBD_FEATURE_JOURNALING) != 0;
	w = foreign_watchers(r, a, b);
	f->watchers_known = w >= 0;
	f->foreign_watchers = w > 0 ? (unsigned)w : 0;
	f->lock = lock_state(r);
	f->no_fencing = no_fencing(r);
	if (f->lock == XT_RBD_LOCK_OTHER) {
		r->lock_released = 0;
	}
}

/*
 * Make the destination's lock ours in explicit mode before a copy-from
 * (rbd_lock_acquire: librbd then refuses requests, so a client that wants
 * it must break it, which blocklists us; in automatic mode librbd would
 * hand it over on request without fencing our RADOS operations). The copy
 * gives explicit mode up when it ends (xt_rbd_unpin: a new handle). A lock
 * already ours is pinned; a free one is taken only when no other client has
 * the image open, or when it is free because our last copy gave it up
 * (lock_released: the LU was its owner): a lock is never taken from, nor
 * asked of, another client. Sets r->pinned: rbd_lock_acquire switches the
 * handle to explicit mode even when it fails.
 */
static void
lock_pin(struct xt_rbd *r, struct xt_rbd_facts *f)
{
	if (f->lock == XT_RBD_LOCK_OURS ||
	    (f->lock == XT_RBD_LOCK_FREE && f->watchers_known &&
	     (f->foreign_watchers == 0 || r->lock_released))) {
		r->pinned = 1;
		f->lock = rbd_lock_acquire(r->image, RBD_LOCK_MODE_EXCLUSIVE) == 0
			  ? XT_RBD_LOCK_OURS : lock_state(r);
		if (f->lock == XT_RBD_LOCK_FREE) {
			f->lock = XT_RBD_LOCK_UNKNOWN;   /* acquire failed, yet nobody owns it */
		}
	}
}

static int
same_cluster(struct xt_rbd *a, struct xt_rbd *b)
{
	char fa[64], fb[64];

	if (a->cluster == b->cluster) {
		return 1;
	}
	return rados_cluster_fsid(a->cluster, fa, sizeof(fa)) >= 0 &&
	       rados_cluster_fsid(b->cluster, fb, sizeof(fb)) >= 0 &&
	       strcmp(fa, fb) == 0;
}

int
xt_rbd_token_guard(struct xt_rbd *r, int at_use, char *why, size_t whylen)
{
	struct xt_rbd_facts f;
	int owner = 0, rc = 0;

	if (at_use) {
		xt_rbd_img_rdlock(r);   /* a copy does not replace the handle meanwhile */
		if (rbd_is_exclusive_lock_owner(r->image, &owner) < 0 || !owner) {
			xos_why_set(why, whylen, "the exclusive lock of %s/%s is no longer ours",
				r->cfg.pool, r->cfg.image);
			rc = -EPERM;
		}
		xt_rbd_img_unlock(r);
		return rc;
	}
	/* the image's copy lock: no copy pins or replaces the handle meanwhile */
	if (xt_rbd_copy_lock(r, r, xos_now_ms() + TOKEN_LOCK_WAIT_MS) != 0) {
		xos_why_set(why, whylen, "a copy on image %s/%s held it too long", r->cfg.pool,
			r->cfg.image);
		return -EBUSY;
	}
	facts_get(r, r, r, &f);
	if (!f.no_fencing) {
		lock_pin(r, &f);
	}
	if (r->pinned) {
		/* the token stands on the lock: explicit until the LU closes */
		r->token_pinned = 1;
	}
	xt_rbd_copy_unlock(r, r);
	if (!f.geom_known || f.lock == XT_RBD_LOCK_NONE) {
		xos_why_set(why, whylen, "image %s/%s has no exclusive-lock feature: other "
			"clients could write it unseen", r->cfg.pool, r->cfg.image);
		return -EOPNOTSUPP;
	}
	switch (xt_rbd_image_rule(&f)) {
	case XT_RBD_SAFE:
		return 0;
	case XT_RBD_UNSAFE_FENCING:
		xos_why_set(why, whylen, "rbd_blocklist_on_break_lock is false: a client "
			"breaking the lock of %s/%s would not fence this one", r->cfg.pool,
			r->cfg.image);
		return -EBUSY;
	case XT_RBD_UNSAFE_WATCHERS:
		xos_why_set(why, whylen, "image %s/%s is open by another client and the "
			"exclusive lock is not ours", r->cfg.pool, r->cfg.image);
		return -EBUSY;
	default:
		xos_why_set(why, whylen, "exclusive lock of %s/%s held elsewhere", r->cfg.pool,
			r->cfg.image);
		return -EBUSY;
	}
}

enum xt_rbd_unsafe
xt_rbd_copy_check(struct xt_rbd *src, struct xt_rbd *dst)
{
	struct xt_rbd_facts fs, fd;
	enum xt_rbd_unsafe u;

	if (!src->cfg.copy_from || !dst->cfg.copy_from) {
		return XT_RBD_UNSAFE_DISABLED;   /* no librbd call at all */
	}
	if (!same_cluster(src, dst)) {
		return XT_RBD_UNSAFE_CLUSTER;
	}
	facts_get(src, src, dst, &fs);
	facts_get(dst, src, dst, &fd);
	u = xt_rbd_copy_rule(&fs, &fd, 1);
	if ((u == XT_RBD_SAFE || u == XT_RBD_UNSAFE_LOCK || u == XT_RBD_UNSAFE_WATCHERS) &&
	    xt_rbd_source_rule(&fs) == XT_RBD_SAFE && !fd.no_fencing) {
		/*
		 * the rest holds: pin the destination's lock when lock_pin may
		 * (only the destination: the source is read), then decide
		 */
		lock_pin(dst, &fd);
		if (src == dst) {
			fs.lock = fd.lock;
		}
		u = xt_rbd_copy_rule(&fs, &fd, 1);
	}
	return u;
}

/* ---- fallback: librbd read + write through this process ------------------ */

/* One xt_rbd_copy call's images, counters and reason buffer. */
struct job {
	struct xt_rbd *src, *dst;
	struct xt_rbd_copy_stats *st;
	char *why;
	size_t whylen;
};

static int
gw_copy(const struct job *j, uint64_t soff, uint64_t doff, uint64_t len, int backward)
{
	struct xt_rbd *src = j->src, *dst = j->dst;
	struct xt_rbd_copy_stats *st = j->st;
	char *why = j->why;
	size_t whylen = j->whylen;
	uint64_t chunk = src->geom.object_size, done = 0, n, at;
	int64_t rc;
	char *buf;

	if (chunk == 0 || chunk > GW_CHUNK_MAX) {
		chunk = GW_CHUNK_MAX;
	}
	buf = malloc(chunk);
	if (buf == NULL) {
		xos_why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	while (done < len) {
		n = len - done < chunk ? len - done : chunk;
		at = backward ? len - done - n : done;
		rc = xt_rbd_read(src, soff + at, n, buf);
		if (rc >= 0 && (uint64_t)rc != n) {
			rc = -EIO;
		}
		st->err_at_dst = rc >= 0;
		if (rc >= 0) {
			rc = xt_rbd_write(dst, doff + at, n, buf);
		}
		if (rc < 0) {
			xos_why_set(why, whylen, "gateway %s at %" PRIu64 ": %s",
				st->err_at_dst ? "write" : "read",
				st->err_at_dst ? doff + at : soff + at, strerror((int)-rc));
			free(buf);
			return (int)rc;
		}
		st->gateway_bytes += n;
		st->done += n;
		done += n;
	}
	free(buf);
	return 0;
}

/* ---- copy-from of whole objects ------------------------------------------ */

/*
 * Object map: librbd skips reading an object the map says does not exist.
 * A zero write through librbd marks each destination object as existing
 * (and dirty for fast-diff) before copy-from replaces the whole object.
 */
static int
touch_objects(struct xt_rbd *dst, uint64_t dobj, size_t n,
	      struct xt_rbd_copy_stats *st)
{
	static const char zeros[TOUCH_LEN];
	rbd_completion_t c[COPY_BATCH];
	size_t i, issued = 0;
	int rc = 0, r;

	if (!(dst->geom.features & RBD_FEATURE_OBJECT_MAP)) {
		return 0;
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = rbd_aio_create_completion(NULL, NULL, &c[i]);
		if (rc < 0) {
			break;
		}
		rc = rbd_aio_write(dst->image, (dobj + i) << dst->geom.order, TOUCH_LEN,
				   zeros, c[i]);
		if (rc < 0) {
			rbd_aio_release(c[i]);
			break;
		}
		issued++;
	}
	for (i = 0; i < issued; i++) {
		/* bounded by the copy's deadline; zeros is static: a late write is harmless */
		r = (int)xt_rbd_aio_wait(c[i]);
		rbd_aio_release(c[i]);
		if (r < 0 && rc == 0) {
			rc = r;
		}
	}
	if (rc == 0) {
		rc = xt_rbd_flush(dst);
	}
	if (rc == 0) {
		st->touch_bytes += (uint64_t)n * TOUCH_LEN;
	}
	return rc;
}

/*
 * Snapshots of the destination (docs/target-rbd.md, "RBD: snapshots during a
 * copy"): copy-from writes objects behind librbd, so the OSD preserves an
 * object's old data for a snapshot only if the write carries the image's
 * snapshot context. Each batch: wait while a snapshot is being made and
 * hold the next one off until the batch ends (quiesce); send it with the
 * snapshot context read then; read it again at the end: a snapshot made in
 * between did not wait for us (rbd snap create --skip-quiesce) and may
 * hold copied data: the copy fails and says so.
 */
static int
snap_guard_enter(struct xt_rbd *dst, struct xt_rbd_snapc *sc, char *why, size_t whylen)
{
	uint64_t ev;
	int rc = xt_rbd_quiesce_enter(dst, xt_rbd_deadline(), &ev);

	if (rc < 0) {
		xos_why_set(why, whylen, "a snapshot of %s/%s being made held the copy past its "
			"deadline", dst->cfg.pool, dst->cfg.image);
		return rc;
	}
	rc = xt_rbd_snapc_read(dst, sc);
	if (rc == 0) {
		rc = rados_ioctx_selfmanaged_snap_set_write_ctx(dst->data_io, sc->seq,
								sc->snaps, (int)sc->n);
	}
	if (rc < 0) {
		xt_rbd_quiesce_leave(dst);
		xos_why_set(why, whylen, "snapshot context of %s/%s: %s", dst->cfg.pool,
			dst->cfg.image, strerror(-rc));
	}
	return rc;
}

static int
snap_guard_leave(const struct job *j, uint64_t seq, struct xt_rbd_snapc *sc, int rc)
{
	struct xt_rbd *dst = j->dst;
	char *why = j->why;
	size_t whylen = j->whylen;
	int r = rc < 0 ? 0 : xt_rbd_snapc_read(dst, sc);

	xt_rbd_quiesce_leave(dst);
	if (rc < 0) {
		return rc;
	}
	if (r < 0) {
		xos_why_set(why, whylen, "snapshot context of %s/%s after copy-from: %s",
			dst->cfg.pool, dst->cfg.image, strerror(-r));
		return r;
	}
	if (sc->seq != seq) {
		xos_why_set(why, whylen, "a snapshot of %s/%s was made during copy-from without "
			"quiesce (rbd snap create --skip-quiesce?): it may hold copied data",
			dst->cfg.pool, dst->cfg.image);
		return -EIO;
	}
	return 0;
}

/* One batch of n (<= COPY_BATCH) objects, sobj.. to dobj.. */
static int
copy_batch(const struct job *j, uint64_t sobj, uint64_t dobj, size_t n)
{
	struct xt_rbd *src = j->src, *dst = j->dst;
	struct xt_rbd_copy_stats *st = j->st;
	char *why = j->why;
	size_t whylen = j->whylen;
	char names[2][COPY_BATCH][96];
	struct xt_rados_copy_item it[COPY_BATCH];
	struct xt_rbd_snapc *sc;
	uint64_t osz = dst->geom.object_size, seq;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (xt_rbd_object_name(&src->geom, sobj + i, names[0][i], 96) < 0 ||
		    xt_rbd_object_name(&dst->geom, dobj + i, names[1][i], 96) < 0) {
			xos_why_set(why, whylen, "object name too long");
			return -ENAMETOOLONG;
		}
		it[i] = (struct xt_rados_copy_item){ names[0][i], names[1][i], 0 };
	}
	st->err_at_dst = 1;   /* marker writes and copy-from are operations on dst objects */
	sc = malloc(sizeof(*sc));
	if (sc == NULL) {
		xos_why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	rc = snap_guard_enter(dst, sc, why, whylen);
	if (rc < 0) {
		free(sc);
		return rc;
	}
	seq = sc->seq;
	rc = touch_objects(dst, dobj, n, st);
	if (rc < 0) {
		xos_why_set(why, whylen, "object-map marker write: %s", strerror(-rc));
	} else {
		rc = xt_rados_copy_from(dst->data_io, src->data_io, it, n, COPY_INFLIGHT);
		if (rc < 0) {
			xos_why_set(why, whylen, "copy-from: %s", strerror(-rc));
		}
	}
	rc = snap_guard_leave(j, seq, sc, rc);
	free(sc);
	if (rc < 0) {
		return rc;
	}
	for (i = 0; i < n; i++) {
		if (it[i].rc == -ENOENT) {
			/* a hole in the source: the destination object reads zeros */
			rc = xt_rbd_write_zeroes(dst, (dobj + i) * osz, osz);
			st->hole_objects++;
		} else {
			rc = it[i].rc;
			st->copyfrom_objects += rc == 0;
			st->copyfrom_bytes += rc == 0 ? osz : 0;
		}
		if (rc < 0) {
			xos_why_set(why, whylen, "copy-from %s -> %s: %s", it[i].src_oid,
				it[i].dst_oid, strerror(-rc));
			return rc;
		}
		st->done += osz;
	}
	return 0;
}

static int
obj_copy(const struct job *j, uint64_t sobj, uint64_t dobj, uint64_t nobj, int backward)
{
	struct xt_rbd *src = j->src, *dst = j->dst;
	struct xt_rbd_copy_stats *st = j->st;
	char *why = j->why;
	size_t whylen = j->whylen;
	uint64_t done = 0, n, at, lim = COPY_BATCH;
	int rc;

	/*
	 * Within one image a batch's destination objects must not be source
	 * objects of the same batch (its copies run at once, and the marker
	 * writes precede them): at most as many objects as the distance.
	 */
	if (src->image == dst->image) {
		at = sobj > dobj ? sobj - dobj : dobj - sobj;
		lim = at < lim ? at : lim;
	}
	/* what this process wrote through librbd is in RADOS before copy-from */
	st->err_at_dst = 0;
	rc = xt_rbd_flush(src);
	if (rc >= 0) {
		st->err_at_dst = 1;
		rc = xt_rbd_flush(dst);
	}
	if (rc < 0) {
		xos_why_set(why, whylen, "flush before copy-from: %s", strerror(-rc));
		return rc;
	}
	while (done < nobj) {
		n = nobj - done < lim ? nobj - done : lim;
		at = backward ? nobj - done - n : done;
		rc = copy_batch(j, sobj + at, dobj + at, (size_t)n);
		if (rc < 0) {
			return rc;
		}
		done += n;
	}
	rbd_invalidate_cache(dst->image);
	return 0;
}

static int
range_ok(const struct job *j, const struct xt_rbd *r, uint64_t off, uint64_t len,
	 const char *what)
{
	if (off > r->geom.size || len > r->geom.size - off) {
		xos_why_set(j->why, j->whylen, "%s range %" PRIu64 "+%" PRIu64 " past the image end "
			"(%" PRIu64 ")", what, off, len, r->geom.size);
		return -EINVAL;
	}
	return 0;
}

static int
copy_ranges(const struct job *j, uint64_t soff, uint64_t doff, uint64_t len)
{
	struct xt_rbd *src = j->src, *dst = j->dst;
	struct xt_rbd_copy_stats *st = j->st;
	enum xt_rbd_unsafe u;
	uint64_t osz = src->geom.object_size, head = len, mid = 0, tail = 0;
	int back, rc;

	xos_why_set(j->why, j->whylen, "%s", "");
	st->done = 0;
	st->err_at_dst = 0;
	if ((rc = range_ok(j, src, soff, len, "source")) < 0) {
		return rc;
	}
	st->err_at_dst = 1;
	if ((rc = range_ok(j, dst, doff, len, "destination")) < 0) {
		return rc;
	}
	if (len == 0 || (src->image == dst->image && soff == doff)) {
		return 0;
	}
	/* overlapping ranges of one image: copy from the end when moving up */
	back = src->image == dst->image && doff > soff && doff < soff + len;
	u = xt_rbd_copy_check(src, dst);
	if (u == XT_RBD_SAFE && soff % osz != doff % osz) {
		u = XT_RBD_UNSAFE_ALIGN;
	}
	if (u == XT_RBD_SAFE) {
		head = (osz - soff % osz) % osz;
		head = head < len ? head : len;
		mid = (len - head) / osz * osz;
		tail = len - head - mid;
	} else {
		st->fallbacks++;
		st->last_unsafe = u;
	}
	if (back && tail > 0 &&
	    (rc = gw_copy(j, soff + head + mid, doff + head + mid, tail, 1)) < 0) {
		return rc;
	}
	if (!back && head > 0 && (rc = gw_copy(j, soff, doff, head, 0)) < 0) {
		return rc;
	}
	if (mid > 0 &&
	    (rc = obj_copy(j, (soff + head) / osz, (doff + head) / osz, mid / osz, back)) < 0) {
		return rc;
	}
	if (back && head > 0) {
		return gw_copy(j, soff, doff, head, 1);
	}
	if (!back && tail > 0) {
		return gw_copy(j, soff + head + mid, doff + head + mid, tail, 0);
	}
	return 0;
}

int
xt_rbd_copy(const struct xt_rbd_range *r, struct xt_rbd_copy_stats *st, char *why,
	    size_t whylen)
{
	const struct job j = { r->src, r->dst, st, why, whylen };
	struct xt_rbd *dst = r->dst;
	int rc = copy_ranges(&j, r->soff, r->doff, r->len);

	/*
	 * The destination's lock back to automatic mode (a new handle), so
	 * other clients may ask for it again; the copy stands either way (a
	 * handle still pinned is tried again after the next copy).
	 */
	if (dst->pinned && !dst->token_pinned) {
		uint64_t t0 = xos_now_ms();

		if (xt_rbd_unpin(dst) == 0) {
			st->unpins++;
			st->unpin_ms += xos_now_ms() - t0;
		}
	}
	return rc;
}
