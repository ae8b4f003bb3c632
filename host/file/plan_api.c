/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Plans without copies (xcopy_file_plan, xcopy_dev_plan): the same mapping
 * (FIEMAP pieces), the same blocker checks and the same planner the copies
 * use, turned into a public description. Nothing is written: destination
 * ranges the copy would allocate first are reported as such.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "xch_file.h"
#include "xch_fscheck.h"

int
xch_kernel_at_least(const char *release, int major, int minor)
{
	int a = 0, b = 0;

	if (release == NULL || sscanf(release, "%d.%d", &a, &b) != 2) {
		return -1;
	}
	return a > major || (a == major && b >= minor);
}

/*
 * Why a destination on a file system can get no written, zeroed blocks
 * from FALLOC_FL_WRITE_ZEROES: the kernel (the flag came in Linux 6.17),
 * else the disk (no unmap write zeroes: queue/write_zeroes_unmap_max_bytes
 * is 0), else the file system itself. blk NULL: the disk is unknown.
 */
enum xcopy_fallback_reason
xch_alloc_reason(const char *release, const struct xch_blk *blk)
{
	if (xch_kernel_at_least(release, 6, 17) != 1) {
		return XCOPY_FB_ALLOC;
	}
	if (blk == NULL || blk->wz_unmap == 0) {
		return XCOPY_FB_ALLOC_DISK;
	}
	return XCOPY_FB_ALLOC_FS;
}

/* The same for the file system on device dev, read from uname and sysfs. */
enum xcopy_fallback_reason
xch_alloc_reason_dev(dev_t dev)
{
	struct utsname u;
	struct xch_blk blk;
	bool known = xch_sysfs_resolve("/sys", major(dev), minor(dev), &blk) == 0;

	return xch_alloc_reason(uname(&u) == 0 ? u.release : NULL, known ? &blk : NULL);
}

static int
add_extent(struct xcopy_plan *pl, size_t *cap, const struct xcopy_plan_extent *e)
{
	struct xcopy_plan_extent *nv;

	if (pl->nextents == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		nv = realloc(pl->extents, *cap * sizeof(*nv));
		if (nv == NULL) {
			return -ENOMEM;
		}
		pl->extents = nv;
	}
	pl->extents[pl->nextents++] = *e;
	return 0;
}

/* Every OFFLOAD extent becomes HOST for why (the whole copy falls back). */
static void
all_host(struct xcopy_plan *pl, enum xcopy_fallback_reason why)
{
	size_t i;

	pl->blocker = why;
	for (i = 0; i < pl->nextents; i++) {
		if (pl->extents[i].kind == XCOPY_PLAN_OFFLOAD ||
		    pl->extents[i].kind == XCOPY_PLAN_ALLOCATE) {
			pl->extents[i].kind = XCOPY_PLAN_HOST;
			pl->extents[i].why = why;
		}
	}
}

/*
 * The planner's segments and commands, public (pairs[i] came from
 * extents[ext[i]]), appended to those of the batches before.
 */
static int
export_plan(struct xcopy_plan *pl, const struct xch_plan *xp, const struct xch_pair *pairs,
	    const size_t *ext)
{
	struct xcopy_plan_segment *sv;
	struct xcopy_plan_command *cv;
	size_t i, k, s0 = pl->nsegments;

	if (xp->nseg == 0) {
		return 0;
	}
	sv = realloc(pl->segments, (s0 + xp->nseg) * sizeof(*sv));
	if (sv == NULL) {
		return -ENOMEM;
	}
	pl->segments = sv;
	cv = realloc(pl->commands, (pl->ncommands + xp->ncmd) * sizeof(*cv));
	if (cv == NULL) {
		return -ENOMEM;
	}
	pl->commands = cv;
	memset(&cv[pl->ncommands], 0, xp->ncmd * sizeof(*cv));
	for (i = 0; i < xp->nseg; i++) {
		const struct xch_seg *sg = &xp->seg[i];
		struct xcopy_plan_segment *o = &pl->segments[s0 + i];

		o->extent = ext[sg->pair];
		o->src_lba = pairs[sg->pair].src_lba + sg->skip;
		o->dst_lba = pairs[sg->pair].dst_lba + sg->skip;
		o->nblocks = sg->nblocks;
	}
	pl->nsegments = s0 + xp->nseg;
	for (i = 0; i < xp->ncmd; i++) {
		struct xcopy_plan_command *c = &pl->commands[pl->ncommands + i];

		c->first_segment = s0 + xp->cmd[i].first;
		c->nsegments = xp->cmd[i].nseg;
		for (k = 0; k < c->nsegments; k++) {
			c->bytes += (uint64_t)pl->segments[c->first_segment + k].nblocks *
				    pl->block_size;
		}
	}
	pl->ncommands += xp->ncmd;
	return 0;
}

/*
 * Plan pairs[0..n) as the copy sends them: in batches of `per` blocks
 * (xcopy_file_range's lease batches, pairs cut at their edges; 0: one
 * batch), one planner run each.
 */
static int
plan_batches(struct xcopy_plan *pl, const struct xch_pair *pairs, const size_t *ext, size_t n,
	     const struct xch_plan_limits *lim, uint64_t per)
{
	struct xch_pair *b = calloc(n ? n : 1, sizeof(*b));
	size_t *be = calloc(n ? n : 1, sizeof(*be));
	struct xch_plan xp;
	size_t i = 0, nb;
	uint64_t k = 0;
	int rc = 0;

	if (b == NULL || be == NULL) {
		free(b);
		free(be);
		return -ENOMEM;
	}
	while (i < n && rc == 0) {
		uint64_t room = per ? per : UINT64_MAX;

		for (nb = 0; i < n && room > 0; nb++) {
			uint64_t m = pairs[i].nblocks - k < room ? pairs[i].nblocks - k : room;

			b[nb] = pairs[i];
			b[nb].src_lba += k;
			b[nb].dst_lba += k;
			b[nb].nblocks = m;
			be[nb] = ext[i];
			room -= m;
			k += m;
			if (k == pairs[i].nblocks) {
				i++;
				k = 0;
			}
		}
		rc = xch_plan_build(b, nb, lim, &xp);
		if (rc == 0) {
			rc = export_plan(pl, &xp, b, be);
		}
		xch_plan_free(&xp);
	}
	free(b);
	free(be);
	return rc;
}

/* Segments and commands for the OFFLOAD extents, as xch_copy_pairs plans them. */
static int
plan_commands(struct xcopy_plan *pl, const struct xcopy_dev *src, const struct xcopy_dev *dst,
	      unsigned flags, uint64_t batch_bytes)
{
	struct xch_plan_limits lim;
	struct xch_pair *pairs;
	size_t *ext, n = 0, i;
	int rc;

	snprintf(pl->src_dev, sizeof(pl->src_dev), "%s", src->name);
	snprintf(pl->dst_dev, sizeof(pl->dst_dev), "%s", dst->name);
	pl->block_size = src->caps.block_size;
	pl->same_lu = xch_same_lu(src, dst);
	xch_plan_limits_get(src, dst, pl->same_lu ? 1 : 2, &lim);
	pl->max_segments = lim.max_seg;
	pl->max_desc_list_len = lim.max_desc_list_len;
	pl->max_segment_blocks = lim.max_seg_blocks;
	pl->blocker = (flags & XCOPY_NO_OFFLOAD) ? XCOPY_FB_REQUESTED : xch_offload_blocker(src, dst);
	if (pl->blocker != XCOPY_FB_NONE) {
		all_host(pl, pl->blocker);
		return 0;
	}
	pairs = calloc(pl->nextents ? pl->nextents : 1, sizeof(*pairs));
	ext = calloc(pl->nextents ? pl->nextents : 1, sizeof(*ext));
	if (pairs == NULL || ext == NULL) {
		free(pairs);
		free(ext);
		return -ENOMEM;
	}
	for (i = 0; i < pl->nextents; i++) {
		const struct xcopy_plan_extent *e = &pl->extents[i];

		if (e->kind == XCOPY_PLAN_OFFLOAD) {
			pairs[n].src_lba = e->src_lba;
			pairs[n].dst_lba = e->dst_lba;
			pairs[n].nblocks = e->len / pl->block_size;
			ext[n++] = i;
		}
	}
	rc = plan_batches(pl, pairs, ext, n, &lim, batch_bytes / pl->block_size);
	if (rc == -EINVAL) {
		free(pl->segments);
		free(pl->commands);
		pl->segments = NULL;
		pl->commands = NULL;
		pl->nsegments = pl->ncommands = 0;
		all_host(pl, XCOPY_FB_INVALID_PARAM);
		rc = 0;
	}
	free(pairs);
	free(ext);
	return rc;
}

void
xcopy_plan_free(struct xcopy_plan *plan)
{
	if (plan == NULL) {
		return;
	}
	free(plan->extents);
	free(plan->segments);
	free(plan->commands);
	free(plan);
}

int
xcopy_dev_plan(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	       uint64_t nblocks, unsigned flags, struct xcopy_plan **out)
{
	enum xcopy_fallback_reason why;
	struct xcopy_plan_extent e;
	struct xcopy_plan *pl;
	size_t cap = 0;
	uint64_t bs;
	int rc;

	*out = NULL;
	if (src == NULL || dst == NULL ||
	    (flags & ~(unsigned)XCH_FLAGS_ALL) != 0 ||
	    src->caps.block_size != dst->caps.block_size || src->caps.block_size == 0) {
		return -EINVAL;
	}
	if (src_lba > src->caps.part_blocks || nblocks > src->caps.part_blocks - src_lba ||
	    dst_lba > dst->caps.part_blocks || nblocks > dst->caps.part_blocks - dst_lba) {
		return -EINVAL;
	}
	if (xch_copy_method(src, dst, flags, &why) == XCH_METHOD_MAP) {
		return -EOPNOTSUPP;    /* the volume's blocks map onto LUs piece by piece */
	}
	pl = calloc(1, sizeof(*pl));
	if (pl == NULL) {
		return -ENOMEM;
	}
	bs = src->caps.block_size;
	memset(&e, 0, sizeof(e));
	e.kind = XCOPY_PLAN_OFFLOAD;
	e.src_off = src_lba * bs;
	e.dst_off = dst_lba * bs;
	e.len = nblocks * bs;
	e.src_lba = src->caps.part_start + src_lba;
	e.dst_lba = dst->caps.part_start + dst_lba;
	rc = nblocks ? add_extent(pl, &cap, &e) : 0;
	if (rc == 0) {
		rc = plan_commands(pl, src, dst, flags, 0);
	}
	if (rc != 0) {
		xcopy_plan_free(pl);
		return rc;
	}
	*out = pl;
	return 0;
}

/* --- files ------------------------------------------------------------------- */

/* A mapping piece as a plan extent (part offsets: the partitions' bytes on their LUs). */
static void
piece_extent(const struct xch_piece *p, uint64_t s_part, uint64_t d_part, uint64_t bs,
	     enum xcopy_fallback_reason alloc_why, struct xcopy_plan_extent *e)
{
	memset(e, 0, sizeof(*e));
	e->src_off = p->src_off;
	e->dst_off = p->dst_off;
	e->len = p->len;
	e->why = p->why;
	switch (p->kind) {
	case XCH_PIECE_OFFLOAD:
		e->kind = XCOPY_PLAN_OFFLOAD;
		e->src_lba = (s_part + p->src_phys) / bs;
		e->dst_lba = (d_part + p->dst_phys) / bs;
		break;
	case XCH_PIECE_HOLE:
		e->kind = XCOPY_PLAN_ZERO;
		break;
	default:
		/*
		 * the copy allocates unwritten destinations written first when
		 * the kernel and the disk can (the file system is not asked here)
		 */
		if (p->why == XCOPY_FB_DST_EXTENT) {
			bool wz = alloc_why == XCOPY_FB_ALLOC_FS;

			e->kind = wz ? XCOPY_PLAN_ALLOCATE : XCOPY_PLAN_HOST;
			e->why = wz ? XCOPY_FB_DST_EXTENT : alloc_why;
		} else {
			e->kind = XCOPY_PLAN_HOST;
		}
	}
}

struct fplan {
	int fd_in, fd_out;     /* fd_out < 0: no destination file yet */
	int fd_dst;            /* the destination file or its directory */
	dev_t ddev;            /* the destination's file system */
	uint64_t so, dof, len;
	struct xcopy_dev *s, *d;
	uint64_t s_part, d_part;
};

/* The extents of a file copy between the devices found (the cache is locked). */
static int
file_extents(struct xcopy_plan *pl, size_t *cap, const struct fplan *f)
{
	struct xch_fext *se = NULL, *de = NULL;
	struct xch_piece *pv = NULL;
	size_t ns = 0, nd = 0, np = 0, i;
	uint64_t bs = f->s->caps.block_size;
	struct xcopy_plan_extent e;
	enum xcopy_fallback_reason alloc_why = xch_alloc_reason_dev(f->ddev);
	int rc;

	rc = xch_fiemap(f->fd_in, f->so, f->len, &se, &ns);
	if (rc == 0 && f->fd_out >= 0) {
		rc = xch_fiemap(f->fd_out, f->dof, f->len, &de, &nd);
	}
	if (rc == -EOPNOTSUPP || rc == -ENOTTY) {
		free(se);
		free(de);
		return 1;      /* no extent map: the copy falls back as a whole */
	}
	if (rc == 0) {
		rc = xch_map_pieces(se, ns, de, nd, f->so, f->dof, f->len, (uint32_t)bs, &pv, &np);
	}
	for (i = 0; rc == 0 && i < np; i++) {
		piece_extent(&pv[i], f->s_part, f->d_part, bs, alloc_why, &e);
		rc = add_extent(pl, cap, &e);
	}
	free(se);
	free(de);
	free(pv);
	return rc;
}

/* Devices (held, not locked), extents, commands; a reason when nothing can be offloaded. */
static int
file_plan_devs(struct xcopy_plan *pl, size_t *cap, struct fplan *f, dev_t sdev, dev_t ddev,
		 unsigned flags, enum xcopy_fallback_reason *why)
{
	enum xcopy_fallback_reason method_why;
	int rc;

	rc = xch_file_dev(sdev, &f->s, &f->s_part);
	if (rc == 0) {
		rc = xch_file_dev(ddev, &f->d, &f->d_part);
	}
	if (rc != 0) {
		*why = xch_file_dev_reason(rc);
		rc = 0;
	} else if ((*why = xch_fs_check(f->fd_in, f->fd_dst)) != XCOPY_FB_NONE) {
		rc = 0;
	} else if (xch_copy_method(f->s, f->d, flags, &method_why) == XCH_METHOD_MAP) {
		/* the volume's blocks map onto LUs piece by piece (dm.c): not planned */
		rc = -EOPNOTSUPP;
	} else if (f->s_part % f->s->caps.block_size != 0 ||
		   f->d_part % f->s->caps.block_size != 0) {
		*why = XCOPY_FB_UNALIGNED;
	} else {
		rc = file_extents(pl, cap, f);
		if (rc == 1) {
			*why = XCOPY_FB_EXTENT_FLAGS;
			rc = 0;
		} else if (rc == 0) {
			rc = plan_commands(pl, f->s, f->d, flags, xch_lease_batch_bytes());
		}
	}
	xch_file_dev_put(f->s);
	xch_file_dev_put(f->d);
	return rc;
}

/* Nothing offloadable (why): the plan is the whole range as one host extent. */
static int
plan_all_host(struct xcopy_plan *pl, size_t *cap, const struct fplan *f,
	      enum xcopy_fallback_reason why)
{
	struct xcopy_plan_extent e;

	memset(&e, 0, sizeof(e));
	e.kind = XCOPY_PLAN_HOST;
	e.why = why;
	e.src_off = f->so;
	e.dst_off = f->dof;
	e.len = f->len;
	pl->nextents = 0;
	pl->blocker = why;
	return add_extent(pl, cap, &e);
}

int
xcopy_file_plan(int fd_in, int64_t off_in, int fd_out, int64_t off_out, size_t len,
		unsigned flags, struct xcopy_plan **out)
{
	enum xcopy_fallback_reason why = XCOPY_FB_NONE;
	struct stat ss, ds;
	struct xcopy_plan *pl;
	struct fplan f;
	size_t cap = 0;
	int rc = 0;

	*out = NULL;
	if ((flags & ~(unsigned)XCH_FLAGS_ALL) != 0 || off_in < 0 || off_out < 0) {
		return -EINVAL;
	}
	if (fstat(fd_in, &ss) != 0 || fstat(fd_out, &ds) != 0) {
		return -errno;
	}
	if (!S_ISREG(ss.st_mode) || !(S_ISREG(ds.st_mode) || S_ISDIR(ds.st_mode))) {
		return -EINVAL;
	}
	memset(&f, 0, sizeof(f));
	f.fd_in = fd_in;
	f.fd_out = S_ISREG(ds.st_mode) ? fd_out : -1;
	f.fd_dst = fd_out;
	f.ddev = ds.st_dev;
	f.so = (uint64_t)off_in;
	f.dof = (uint64_t)off_out;
	/* like the copy: stop at the source's end */
	f.len = f.so >= (uint64_t)ss.st_size ? 0 : (uint64_t)ss.st_size - f.so;
	f.len = len < f.len ? len : f.len;
	pl = calloc(1, sizeof(*pl));
	if (pl == NULL) {
		return -ENOMEM;
	}
	if (f.len > 0 && (flags & XCOPY_NO_OFFLOAD)) {
		why = XCOPY_FB_REQUESTED;
	} else if (f.len > 0) {
		rc = file_plan_devs(pl, &cap, &f, ss.st_dev, ds.st_dev, flags, &why);
	}
	if (rc == 0 && why != XCOPY_FB_NONE) {
		rc = plan_all_host(pl, &cap, &f, why);
	}
	if (rc != 0) {
		xcopy_plan_free(pl);
		return rc;
	}
	*out = pl;
	return 0;
}
