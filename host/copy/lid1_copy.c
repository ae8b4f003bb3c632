/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LID1 method (chosen by method.c, entered from copy_pairs.c) for files
 * and devices alike: plan the pairs, encode each command's parameter list
 * with the engine codec, send EXTENDED COPY to the destination LU (or the
 * source LU when the destination cannot reach the source), decide from the
 * sense, and hand every range the copy manager did not do to the caller's
 * fallback. The two LUs may be of different targets: the list names both by
 * their designators (E4h CSCDs) and goes to the copy manager that can reach
 * the other LU; one that refuses (COPY ABORTED 08/04 or 0D/02, or no
 * EXTENDED COPY at all) leaves the pair to the other side, and a handle
 * remembers the LU its copy manager could not reach, so the next copy
 * between the two starts on the side that worked (xch_dev_route_*). Up to
 * xch_inflight_wanted() commands are
 * outstanding at once (inflight.c): every worker takes the next planned
 * command, and everything but the EXTENDED COPY itself and the host's copy
 * of a range that falls back (planning state, statistics, list ids) runs
 * under the copy's lock, so the accounting is that of the sequential loop
 * and a failed command falls back exactly its own segments, while the other
 * workers keep their commands in flight.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/xch_base.h"
#include "xch_copy.h"

enum {
	XCOPY_TIMEOUT_S = 600,
	MAX_RETRIES = 3,
};

struct run {
	struct xcopy_dev *src;
	struct xcopy_dev *dst;
	const struct xch_pair *pairs;
	struct xch_plan plan;
	bool same_lu;
	bool src_side_failed;  /* the source LU also refused this pair of LUs */
	bool dst_side_failed;
	bool prefer_src;       /* the destination could not reach the source last time */
	bool dst_refused;      /* ... and this time */
	unsigned cmds_src, cmds_dst; /* commands that moved data, per side */
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

/*
 * Fill the list for segments [first, first + nseg): its list id (SPC-4
 * 6.4.3.2: with SNLID the copy manager accepts LIST ID USAGE 11b, which
 * keeps no state at all; otherwise 10b with an id nobody else of ours uses
 * at the same time), its CSCD descriptors and its segments. 0, or -errno
 * when a designator cannot be encoded (the list id is given back).
 */
static int
fill_list(struct run *r, struct xcm_list *l, struct xcopy_dev *dev, uint32_t first,
	  uint32_t nseg)
{
	uint32_t bs = r->src->caps.block_size;
	uint32_t i;
	int rc;

	memset(l, 0, sizeof(*l));
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
		return rc;
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
	return 0;
}

/* Build and send one command carrying segments [first, first + nseg) to dev. */
static int
send_cmd(struct worker *wk, struct xcopy_dev *dev, uint32_t first, uint32_t nseg,
	 struct xch_verdict *v)
{
	struct run *r = wk->r;
	struct xcm_list *l = wk->list;
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_wbuf w;
	struct xch_cmd c;
	size_t plen;
	int rc;

	if (fill_list(r, l, dev, first, nseg) != 0) {
		v->act = XCH_ACT_DISABLE;
		v->reason = XCOPY_FB_NO_DESIGNATOR;
		v->segs_done = 0;
		return 0;
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
		return xch_required_errno(r->st, why);
	}
	for (i = 0; i < nseg; i++) {
		const struct xch_seg *sg = &r->plan.seg[first + i];
		uint64_t bytes = (uint64_t)sg->nblocks * r->src->caps.block_size;

		/*
		 * The host copies without the copy's lock: the other workers go on
		 * sending their commands meanwhile (the plan and the pairs do not
		 * change; the callback's progress has its own lock).
		 */
		pthread_mutex_unlock(&r->mu);
		rc = r->fb(r->fbarg, &r->pairs[sg->pair], sg->skip, sg->nblocks, why);
		pthread_mutex_lock(&r->mu);
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
			if (r->flags & XCOPY_STATS_METHODS) {
				r->st->bytes_lid1 += b;
			}
		}
		xch_progress_add(XCOPY_METHOD_OFFLOAD, b);
	}
}

static int run_cmd(struct worker *wk, uint32_t first, uint32_t nseg);

/* The limits we were told are too large: one segment per command. */
static int
run_one_by_one(struct worker *wk, struct xcopy_dev *dev, uint32_t first, uint32_t nseg,
	       enum xcopy_fallback_reason why)
{
	uint32_t i;
	int rc;

	if (nseg <= 1) {
		return fallback_segs(wk->r, first, nseg, why);
	}
	__atomic_store_n(&dev->caps.max_seg, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nseg; i++) {
		rc = run_cmd(wk, first + i, 1);
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

/*
 * Push refused: try pull (the command on the source LU) once. True with
 * *dev the other LU; false when neither LU reaches the other (the rest of
 * this call falls back for this pair of LUs; other pairs, other calls retry).
 */
static bool
other_side(struct run *r, struct xcopy_dev **dev, enum xcopy_fallback_reason why)
{
	if (*dev == r->dst) {
		r->dst_side_failed = true;
	} else {
		r->src_side_failed = true;
	}
	if (!(r->src_side_failed && r->dst_side_failed)) {
		*dev = r->src_side_failed ? r->dst : r->src;
		return true;
	}
	r->pair_why = why;
	return false;
}

static void
disable_dev(struct xcopy_dev *dev, enum xcopy_fallback_reason why)
{
	__atomic_store_n(&dev->disabled_why, why, __ATOMIC_RELAXED);
	__atomic_store_n(&dev->caps.offload, false, __ATOMIC_RELAXED);
	__atomic_store_n(&dev->disabled, true, __ATOMIC_RELEASE);
	XCH_INFO("%s: offload disabled: %s", dev->name, xcopy_fallback_reason_name(why));
}

/* The LU whose copy manager gets the next command. */
static struct xcopy_dev *
first_side(const struct run *r)
{
	if (r->dst_side_failed) {
		return r->src;
	}
	if (r->src_side_failed) {
		return r->dst;
	}
	return r->prefer_src ? r->src : r->dst;
}

/*
 * A side refused for good (DISABLE): whether the other LU's copy manager is
 * worth a try. Not for a designator that cannot be encoded: the list would
 * name the same two LUs.
 */
static bool
other_may_do(const struct run *r, enum xcopy_fallback_reason why)
{
	return !r->same_lu && why != XCOPY_FB_NO_DESIGNATOR;
}

/* Run segments [first, first + nseg) as one command, then whatever is left. */
static int
run_cmd(struct worker *wk, uint32_t first, uint32_t nseg)
{
	struct run *r = wk->r;
	struct xcopy_dev *dev = first_side(r), *was;
	enum xcopy_fallback_reason why;
	struct xch_verdict v;
	int retries = 0, rc;

	while (nseg > 0) {
		if (xch_dev_off(dev, &why)) {
			if (!r->same_lu && other_side(r, &dev, why)) {
				continue;
			}
			return fallback_segs(r, first, nseg, r->same_lu ? why : r->pair_why);
		}
		if (r->src_side_failed && r->dst_side_failed) {
			return fallback_segs(r, first, nseg, r->pair_why);
		}
		rc = send_cmd(wk, dev, first, nseg, &v);
		if (rc != 0) {
			return rc;
		}
		if (v.segs_done > nseg) {
			v.segs_done = nseg;
		}
		count_done(r, first, v.act == XCH_ACT_DONE ? nseg : v.segs_done);
		if (v.act == XCH_ACT_DONE || v.segs_done > 0) {
			if (dev == r->src && !r->same_lu) {
				r->cmds_src++;
			} else {
				r->cmds_dst++;
			}
		}
		if (v.act == XCH_ACT_DONE) {
			return 0;
		}
		first += v.segs_done;
		nseg -= v.segs_done;
		if (v.segs_done > 0) {
			retries = 0;   /* progress: a command cut at its time limit is resent */
		}
		if ((v.act == XCH_ACT_RETRY || v.act == XCH_ACT_NEW_LIST_ID) &&
		    ++retries <= MAX_RETRIES) {
			continue;
		}
		if (v.act == XCH_ACT_SHRINK) {
			return run_one_by_one(wk, dev, first, nseg, v.reason);
		}
		was = dev;
		if (v.act == XCH_ACT_OTHER_SIDE && !r->same_lu) {
			r->dst_refused |= dev == r->dst;
			if (other_side(r, &dev, v.reason)) {
				XCH_INFO("%s cannot reach the other LU (%s): EXTENDED COPY to %s",
					 was->name, xcopy_fallback_reason_name(v.reason), dev->name);
				continue;
			}
		}
		if (v.act == XCH_ACT_DISABLE) {
			disable_dev(dev, v.reason);
			if (other_may_do(r, v.reason) && other_side(r, &dev, v.reason)) {
				XCH_INFO("%s takes no EXTENDED COPY (%s): EXTENDED COPY to %s", was->name,
					 xcopy_fallback_reason_name(v.reason), dev->name);
				continue;
			}
		}
		return fallback_segs(r, first, nseg, v.reason);
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

/*
 * Which copy managers may get the commands of a copy between two LUs: a
 * side whose offload is off or whose CSCD limit is below 2 does not; the
 * source's first when the destination's could not reach the source last
 * time. 0, or the reason (> 0) when neither may (xch_offload_blocker lets
 * no such copy come here).
 */
static int
pick_sides(struct run *r)
{
	enum xcopy_fallback_reason ws, wd;

	if (r->same_lu) {
		return 0;
	}
	r->dst_side_failed = !xch_cm_usable(r->dst, 2, &wd);
	r->src_side_failed = !xch_cm_usable(r->src, 2, &ws);
	if (r->dst_side_failed && r->src_side_failed) {
		return (int)wd;
	}
	r->prefer_src = !r->src_side_failed && xch_dev_route_unreached(r->dst, r->src);
	return 0;
}

/* What this copy learnt about the route between the two LUs, and which side did it. */
static void
note_sides(const struct run *r)
{
	if (r->same_lu) {
		return;
	}
	if (r->cmds_src > 0) {
		XCH_INFO("%s -> %s: EXTENDED COPY through the source %s (%u commands)",
			 r->src->name, r->dst->name, r->src->name, r->cmds_src);
		if (r->dst_refused) {
			xch_dev_route_set(r->dst, r->src, true);
		}
	}
	if (r->cmds_dst > 0) {
		XCH_DBG("%s -> %s: EXTENDED COPY through the destination %s (%u commands)",
			r->src->name, r->dst->name, r->dst->name, r->cmds_dst);
		xch_dev_route_set(r->dst, r->src, false);
	}
}

int
xch_lid1_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
		    size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb,
		    void *fbarg)
{
	struct xch_plan_limits lim;
	struct run r;
	size_t i;
	int rc;

	memset(&r, 0, sizeof(r));
	r.src = src;
	r.dst = dst;
	r.pairs = pairs;
	r.flags = flags;
	r.st = st;
	r.fb = fb;
	r.fbarg = fbarg;
	r.same_lu = xch_same_lu(src, dst);
	for (i = 0; i < n; i++) {
		r.total_bytes += pairs[i].nblocks * src->caps.block_size;
	}
	rc = pick_sides(&r);
	if (rc != 0) {
		return xch_fallback_all(pairs, n, src->caps.block_size, flags, st, fb, fbarg,
					(enum xcopy_fallback_reason)rc);
	}
	/* the limits of the copy managers that may get the commands */
	xch_plan_limits_get(r.src_side_failed ? dst : src, r.dst_side_failed ? src : dst,
			    r.same_lu ? 1 : 2, &lim);
	rc = plan_for_inflight(pairs, n, &lim, inflight_for(src, dst), &r.plan);
	if (rc == -EINVAL) {
		/* the limits leave no room for a segment: every pair the other way */
		return xch_fallback_all(pairs, n, src->caps.block_size, flags, st, fb, fbarg,
					XCOPY_FB_INVALID_PARAM);
	}
	if (rc != 0) {
		return rc;
	}
	rc = run_workers(&r);
	xch_plan_free(&r.plan);
	note_sides(&r);
	return rc;
}

int
xch_flags_check(unsigned flags)
{
	if ((flags & ~(unsigned)XCH_FLAGS_ALL) != 0 ||
	    ((flags & XCOPY_REQUIRE_OFFLOAD) && (flags & XCOPY_NO_OFFLOAD)) ||
	    ((flags & XCOPY_USE_LID1) && (flags & XCOPY_USE_TOKENS))) {
		return -EINVAL;
	}
	return 0;
}
