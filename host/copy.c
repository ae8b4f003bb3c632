/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The offload loop shared by files and devices: plan the pairs, encode each
 * command's parameter list with the engine codec, send EXTENDED COPY to the
 * destination LU (or the source LU when the destination cannot reach the
 * source), decide from the sense, and hand every range the copy manager did
 * not do to the caller's fallback. Up to xch_inflight_wanted() commands are
 * outstanding at once (inflight.c): every worker takes the next planned
 * command, and everything but the EXTENDED COPY itself (planning state,
 * statistics, progress, list ids, fallbacks) runs under the copy's lock, so
 * the accounting is that of the sequential loop and a failed command falls
 * back exactly its own segments.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#include "xcopy_internal.h"

enum {
	XCOPY_TIMEOUT_S = 600,
	MAX_RETRIES = 3,
};

enum xcopy_fallback_reason
xch_offload_blocker(const struct xcopy_dev *src, const struct xcopy_dev *dst)
{
	if (src->disabled) {
		return src->disabled_why;
	}
	if (dst->disabled) {
		return dst->disabled_why;
	}
	if (src->caps.block_size != dst->caps.block_size) {
		return XCOPY_FB_BLOCK_SIZE;
	}
	if (!xch_same_lu(src, dst) && (src->caps.max_cscd < 2 || dst->caps.max_cscd < 2)) {
		return XCOPY_FB_INVALID_PARAM;
	}
	return XCOPY_FB_NONE;
}

struct run {
	struct xcopy_dev *src;
	struct xcopy_dev *dst;
	const struct xch_pair *pairs;
	struct xch_plan plan;
	bool same_lu;
	bool src_side_failed;  /* the source LU also refused this pair of LUs */
	bool dst_side_failed;
	enum xcopy_fallback_reason pair_why; /* why both sides refused */
	unsigned flags;
	struct xcopy_stats *st;
	xch_fallback_fn fb;
	void *fbarg;
	uint64_t done_bytes;
	uint64_t total_bytes;
	pthread_mutex_t mu;    /* everything above and the handles' list ids */
	size_t next_cmd;       /* next planned command a worker takes */
	int rc;                /* first error: no further command is started */
};

/* One command in flight: its own parameter list buffers. */
struct worker {
	struct run *r;
	struct xcm_list *list;
	uint8_t *plist;
};

#define PLIST_CAP (XCM_PLIST_HDR_LEN + 2 * XCM_CSCD_LEN + (size_t)XCM_MAX_SEG * XCM_SEG_B2B_LEN)

/* Send an encoded list to dev without the lock; the list id stays taken meanwhile. */
static int
exec_unlocked(struct run *r, struct xcopy_dev *dev, struct xch_cmd *c, bool lid_taken,
	      uint8_t lid)
{
	int rc;

	pthread_mutex_unlock(&r->mu);
	rc = xch_dev_exec(dev, c, NULL);
	pthread_mutex_lock(&r->mu);
	/* no status: the copy manager may still run it, so its id stays taken */
	if (lid_taken && rc == 0) {
		xch_list_id_put(dev, lid);
	}
	return rc;
}

/* Build and send one command carrying segments [first, first + nseg) to dev. */
static int
send_cmd(struct worker *wk, struct xcopy_dev *dev, uint32_t first, uint32_t nseg,
	 struct xch_verdict *v)
{
	struct run *r = wk->r;
	struct xcm_list *l = wk->list;
	uint32_t bs = r->src->caps.block_size;
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_wbuf w;
	struct xch_cmd c;
	size_t plen;
	uint32_t i;
	int rc;

	memset(l, 0, sizeof(*l));
	/*
	 * SPC-4 6.4.3.2: with SNLID the copy manager accepts LIST ID USAGE 11b,
	 * which keeps no state at all; otherwise 10b with an id nobody else of
	 * ours uses at the same time.
	 */
	if (dev->caps.snlid) {
		l->list_id_usage = XCM_LIST_ID_NONE;
		l->list_id = 0;
	} else {
		l->list_id_usage = XCM_LIST_ID_DISCARD;
		l->list_id = xch_list_id_get(dev);
	}
	l->ncscd = r->same_lu ? 1 : 2;
	rc = xcm_cscd_from_designator(&l->cscd[0], r->src->caps.desig, r->src->caps.desig_len, bs);
	if (rc == 0 && !r->same_lu) {
		rc = xcm_cscd_from_designator(&l->cscd[1], r->dst->caps.desig,
					      r->dst->caps.desig_len, bs);
	}
	if (rc != 0) {
		if (!dev->caps.snlid) {
			xch_list_id_put(dev, (uint8_t)l->list_id);
		}
		v->act = XCH_ACT_DISABLE;
		v->reason = XCOPY_FB_NO_DESIGNATOR;
		v->segs_done = 0;
		return 0;
	}
	l->nseg = nseg;
	for (i = 0; i < nseg; i++) {
		const struct xch_seg *sg = &r->plan.seg[first + i];
		const struct xch_pair *p = &r->pairs[sg->pair];
		struct xcm_segment *s = &l->seg[i];

		s->type = XCM_SEG_B2B;
		s->src = &l->cscd[0];
		s->dst = &l->cscd[r->same_lu ? 0 : 1];
		s->count = sg->nblocks;
		s->src_lba = p->src_lba + sg->skip;
		s->dst_lba = p->dst_lba + sg->skip;
	}
	w = xcm_wbuf_make(wk->plist, PLIST_CAP);
	plen = xcm_list_encode(l, &w);
	if (plen > PLIST_CAP) {
		if (!dev->caps.snlid) {
			xch_list_id_put(dev, (uint8_t)l->list_id);
		}
		return -EOVERFLOW;
	}
	xcm_cdb_xcopy(cdb, (uint32_t)plen);
	memset(&c, 0, sizeof(c));
	c.cdb = cdb;
	c.cdb_len = sizeof(cdb);
	c.dir = XCH_DIR_OUT;
	c.buf = wk->plist;
	c.len = plen;
	c.timeout_s = XCOPY_TIMEOUT_S;
	rc = exec_unlocked(r, dev, &c, !dev->caps.snlid, (uint8_t)l->list_id);
	if (r->st != NULL) {
		r->st->xcopy_cmds++;
		r->st->segments += nseg;
	}
	xch_decide(rc, &c, nseg, v);
	if (v->act != XCH_ACT_DONE) {
		if (r->st != NULL) {
			r->st->xcopy_failed++;
		}
		XCH_DBG("%s: EXTENDED COPY (%u segments) -> %s (exec %d, status 0x%02x)",
			dev->name, nseg, xcopy_fallback_reason_name(v->reason), rc, c.status);
	}
	return 0;
}

static int
fallback_segs(struct run *r, uint32_t first, uint32_t nseg, enum xcopy_fallback_reason why)
{
	uint32_t i;
	int rc;

	if (r->flags & XCOPY_REQUIRE_OFFLOAD) {
		return xch_required_errno(why);
	}
	for (i = 0; i < nseg; i++) {
		const struct xch_seg *sg = &r->plan.seg[first + i];
		uint64_t bytes = (uint64_t)sg->nblocks * r->src->caps.block_size;

		rc = r->fb(r->fbarg, &r->pairs[sg->pair], sg->skip, sg->nblocks, why);
		if (rc != 0) {
			return rc;
		}
		xch_stats_fallback(r->st, why, bytes);
		r->done_bytes += bytes;
	}
	return 0;
}

static void
count_done(struct run *r, uint32_t first, uint32_t nseg)
{
	uint32_t i;

	for (i = 0; i < nseg; i++) {
		uint64_t b = (uint64_t)r->plan.seg[first + i].nblocks * r->src->caps.block_size;

		r->done_bytes += b;
		if (r->st != NULL) {
			r->st->bytes_offloaded += b;
		}
		xch_progress_add(XCOPY_METHOD_OFFLOAD, b);
	}
}

/* Run segments [first, first + nseg) as one command, then whatever is left. */
static int
run_cmd(struct worker *wk, uint32_t first, uint32_t nseg)
{
	struct run *r = wk->r;
	struct xcopy_dev *dev = r->dst_side_failed ? r->src : r->dst;
	struct xch_verdict v;
	int retries = 0, rc;

	while (nseg > 0) {
		if (dev->disabled || (r->src_side_failed && r->dst_side_failed)) {
			enum xcopy_fallback_reason why =
				dev->disabled ? dev->disabled_why : r->pair_why;
			return fallback_segs(r, first, nseg, why);
		}
		rc = send_cmd(wk, dev, first, nseg, &v);
		if (rc != 0) {
			return rc;
		}
		if (v.segs_done > nseg) {
			v.segs_done = nseg;
		}
		count_done(r, first, v.act == XCH_ACT_DONE ? nseg : v.segs_done);
		if (v.act == XCH_ACT_DONE) {
			return 0;
		}
		first += v.segs_done;
		nseg -= v.segs_done;
		if (v.segs_done > 0) {
			retries = 0;   /* progress: a command cut at its time limit is resent */
		}
		switch (v.act) {
		case XCH_ACT_RETRY:
		case XCH_ACT_NEW_LIST_ID:
			if (++retries <= MAX_RETRIES) {
				continue;
			}
			return fallback_segs(r, first, nseg, v.reason);
		case XCH_ACT_SHRINK:
			if (nseg > 1) {
				uint32_t i;

				/* the limits we were told are too large: one segment per command */
				dev->caps.max_seg = 1;
				for (i = 0; i < nseg; i++) {
					rc = run_cmd(wk, first + i, 1);
					if (rc != 0) {
						return rc;
					}
				}
				return 0;
			}
			return fallback_segs(r, first, nseg, v.reason);
		case XCH_ACT_OTHER_SIDE:
			if (r->same_lu) {
				return fallback_segs(r, first, nseg, v.reason);
			}
			/* push refused: try pull (the command on the source LU) once */
			if (dev == r->dst) {
				r->dst_side_failed = true;
			} else {
				r->src_side_failed = true;
			}
			if (!(r->src_side_failed && r->dst_side_failed)) {
				dev = r->src_side_failed ? r->dst : r->src;
				continue;
			}
			/*
			 * Neither LU reaches the other: the rest of this call falls
			 * back for this pair of LUs (other pairs, other calls retry).
			 */
			r->pair_why = v.reason;
			return fallback_segs(r, first, nseg, v.reason);
		case XCH_ACT_DISABLE:
			dev->disabled = true;
			dev->disabled_why = v.reason;
			dev->caps.offload = false;
			XCH_INFO("%s: offload disabled: %s", dev->name,
				 xcopy_fallback_reason_name(v.reason));
			return fallback_segs(r, first, nseg, v.reason);
		default:
			return fallback_segs(r, first, nseg, v.reason);
		}
	}
	return 0;
}

/* Commands this copy keeps outstanding: the setting, capped by both handles. */
static unsigned
inflight_for(const struct xcopy_dev *src, const struct xcopy_dev *dst)
{
	unsigned n = xch_inflight_wanted();

	n = n < xch_inflight_cap(dst) ? n : xch_inflight_cap(dst);
	return n < xch_inflight_cap(src) ? n : xch_inflight_cap(src);
}

/*
 * A target taking many segments per command would get the whole copy in
 * fewer commands than may be in flight: spread the segments over n commands
 * instead, so n copies run at once (each still within every limit).
 */
static int
plan_for_inflight(const struct xch_pair *pairs, size_t np, struct xch_plan_limits *lim,
		  unsigned n, struct xch_plan *plan)
{
	int rc = xch_plan_build(pairs, np, lim, plan);

	if (rc != 0 || n <= 1 || plan->ncmd >= n || plan->nseg <= plan->ncmd) {
		return rc;
	}
	lim->max_seg = (uint32_t)((plan->nseg + n - 1) / n);
	xch_plan_free(plan);
	return xch_plan_build(pairs, np, lim, plan);
}

/* Take planned commands one after the other until none is left or one failed. */
static void *
worker_main(void *arg)
{
	struct worker *wk = arg;
	struct run *r = wk->r;

	pthread_mutex_lock(&r->mu);
	while (r->rc == 0 && r->next_cmd < r->plan.ncmd) {
		const struct xch_cmdplan *cp = &r->plan.cmd[r->next_cmd++];
		int rc = run_cmd(wk, cp->first, cp->nseg);

		if (rc != 0 && r->rc == 0) {
			r->rc = rc;
		}
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static int
run_workers(struct run *r)
{
	struct worker wk[XCH_INFLIGHT_MAX];
	void *args[XCH_INFLIGHT_MAX];
	unsigned n = inflight_for(r->src, r->dst), i;
	int rc = 0;

	if (n > r->plan.ncmd) {
		n = r->plan.ncmd > 0 ? (unsigned)r->plan.ncmd : 1;
	}
	memset(wk, 0, sizeof(wk));
	for (i = 0; i < n && rc == 0; i++) {
		wk[i].r = r;
		wk[i].list = calloc(1, sizeof(*wk[i].list));
		wk[i].plist = malloc(PLIST_CAP);
		args[i] = &wk[i];
		if (wk[i].list == NULL || wk[i].plist == NULL) {
			rc = -ENOMEM;
		}
	}
	if (rc == 0 && pthread_mutex_init(&r->mu, NULL) != 0) {
		rc = -ENOMEM;
	}
	if (rc == 0) {
		if (n > 1) {
			XCH_DBG("%s -> %s: %zu commands, %u in flight", r->src->name, r->dst->name,
				r->plan.ncmd, n);
		}
		(void)xch_pool_run(worker_main, args, n);
		pthread_mutex_destroy(&r->mu);
		rc = r->rc;
	}
	for (i = 0; i < n; i++) {
		free(wk[i].plist);
		free(wk[i].list);
	}
	return rc;
}

int
xch_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
	       size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg)
{
	struct xch_plan_limits lim;
	struct run r;
	enum xcopy_fallback_reason why;
	size_t i;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.src = src;
	r.dst = dst;
	r.pairs = pairs;
	r.flags = flags;
	r.st = st;
	r.fb = fb;
	r.fbarg = fbarg;
	r.same_lu = xch_same_lu(src, dst);
	/* the one check every range passes before anything is encoded or sent */
	for (i = 0; i < n; i++) {
		if (xch_dev_range_check(src, pairs[i].src_lba, pairs[i].nblocks) != 0 ||
		    xch_dev_range_check(dst, pairs[i].dst_lba, pairs[i].nblocks) != 0) {
			return -ERANGE;
		}
		r.total_bytes += pairs[i].nblocks * src->caps.block_size;
	}
	why = (flags & XCOPY_NO_OFFLOAD) ? XCOPY_FB_REQUESTED : xch_offload_blocker(src, dst);
	xch_plan_limits_get(src, dst, r.same_lu ? 1 : 2, &lim);
	if (why == XCOPY_FB_NONE) {
		rc = plan_for_inflight(pairs, n, &lim, inflight_for(src, dst), &r.plan);
		if (rc == -EINVAL) {
			why = XCOPY_FB_INVALID_PARAM;
		} else if (rc != 0) {
			return rc;
		}
	}
	if (why != XCOPY_FB_NONE) {
		/* nothing to offload: every pair goes the other way, in one piece */
		if (flags & XCOPY_REQUIRE_OFFLOAD) {
			return n == 0 ? 0 : xch_required_errno(why);
		}
		for (i = 0; i < n && rc == 0; i++) {
			if (pairs[i].nblocks == 0) {
				continue;
			}
			rc = fb(fbarg, &pairs[i], 0, pairs[i].nblocks, why);
			if (rc == 0) {
				xch_stats_fallback(st, why, pairs[i].nblocks * src->caps.block_size);
			}
		}
		return rc;
	}
	rc = run_workers(&r);
	xch_plan_free(&r.plan);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* xcopy_dev_copy                                                            */
/* ------------------------------------------------------------------------ */

struct dev_fb {
	struct xcopy_dev *src;
	struct xcopy_dev *dst;
	struct xcopy_stats *st;
	uint8_t *buf;
	uint32_t chunk;        /* blocks per READ/WRITE pair */
};

static int
dev_fallback(void *arg, const struct xch_pair *p, uint64_t skip, uint64_t nblocks,
	     enum xcopy_fallback_reason why)
{
	struct dev_fb *f = arg;
	uint64_t done = 0;
	int rc;

	while (done < nblocks) {
		uint32_t n = nblocks - done < f->chunk ? (uint32_t)(nblocks - done) : f->chunk;

		rc = xch_dev_read(f->src, p->src_lba + skip + done, n, f->buf, f->st);
		if (rc == 0) {
			rc = xch_dev_write(f->dst, p->dst_lba + skip + done, n, f->buf, f->st);
		}
		if (rc != 0) {
			return rc;
		}
		if (f->st != NULL) {
			f->st->bytes_fallback += (uint64_t)n * f->src->caps.block_size;
		}
		xch_progress_add(XCOPY_METHOD_HOST, (uint64_t)n * f->src->caps.block_size);
		done += n;
	}
	return 0;
}

int
xcopy_dev_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	       uint64_t nblocks, unsigned flags, struct xcopy_stats *st)
{
	struct xch_pair p;
	struct dev_fb f;
	uint64_t bs;
	int rc;

	if (src == NULL || dst == NULL ||
	    (flags & ~(unsigned)(XCOPY_REQUIRE_OFFLOAD | XCOPY_NO_OFFLOAD)) != 0 ||
	    (flags & XCOPY_REQUIRE_OFFLOAD && flags & XCOPY_NO_OFFLOAD)) {
		return -EINVAL;
	}
	if (nblocks == 0) {
		return 0;
	}
	if (src->caps.block_size != dst->caps.block_size) {
		return -EINVAL;
	}
	/* LBA range checks in the subtraction form: no overflow */
	if (src_lba >= src->caps.part_blocks || nblocks > src->caps.part_blocks - src_lba ||
	    dst_lba >= dst->caps.part_blocks || nblocks > dst->caps.part_blocks - dst_lba) {
		return -EINVAL;
	}
	/*
	 * Dirty pages in a node's cache would be missed by the copy manager (source)
	 * or written back over its work later (destination): flush both first.
	 */
	if ((src->host_fd >= 0 && fdatasync(src->host_fd) != 0) ||
	    (dst->host_fd >= 0 && dst->host_fd != src->host_fd && fdatasync(dst->host_fd) != 0)) {
		return -errno;
	}
	/* device-mapper volumes: cut at their pieces, copied between the devices under them */
	if ((src->dm != NULL || dst->dm != NULL) && !src->host_only && !dst->host_only) {
		if (xch_same_lu(src, dst) && src_lba < dst_lba + nblocks &&
		    dst_lba < src_lba + nblocks) {
			return -EINVAL;
		}
		xch_progress_begin(nblocks * src->caps.block_size);
		rc = xch_dm_copy(src, src_lba, dst, dst_lba, nblocks, flags, st);
		xch_progress_end();
		return rc;
	}
	p.src_lba = src->caps.part_start + src_lba;
	p.dst_lba = dst->caps.part_start + dst_lba;
	p.nblocks = nblocks;
	p.src_off = 0;
	p.dst_off = 0;
	/* copy_file_range(2) refuses overlapping ranges of one file; so do we */
	if (xch_same_lu(src, dst) && p.src_lba < p.dst_lba + nblocks &&
	    p.dst_lba < p.src_lba + nblocks) {
		return -EINVAL;
	}
	bs = src->caps.block_size;
	f.src = src;
	f.dst = dst;
	f.st = st;
	f.chunk = (uint32_t)((4u << 20) / bs);
	if (f.chunk == 0) {
		f.chunk = 1;
	}
	f.buf = malloc((size_t)f.chunk * bs);
	if (f.buf == NULL) {
		return -ENOMEM;
	}
	xch_progress_begin(nblocks * bs);
	rc = xch_copy_pairs(src, dst, &p, 1, flags, st, dev_fallback, &f);
	xch_progress_end();
	free(f.buf);
	/* a host-only destination was written through its page cache */
	if ((dst->host_only || dst->dm != NULL) && fdatasync(dst->host_fd) != 0 && rc == 0) {
		rc = -errno;
	}
	/* the block device's page cache no longer matches the medium */
	if (dst->cache_fd >= 0) {
		(void)posix_fadvise(dst->cache_fd, (off_t)(p.dst_lba * bs), (off_t)(nblocks * bs),
				    POSIX_FADV_DONTNEED);
	}
	return rc;
}
