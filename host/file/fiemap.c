/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * FIEMAP: read a file's extents, decide which are safe to hand to a copy
 * manager, and cut a copy into pieces (offload / zero / fallback).
 *
 * The copy manager reads and writes the LU directly, below the file system,
 * so a piece is offloaded only when both sides are plain, stable, written
 * blocks at known addresses: no delayed allocation, no encoding or
 * encryption, no inline or tail packing, and on the destination no shared
 * (reflinked) or unwritten extent, because writing there would either hit
 * another file's data or be hidden behind the "reads as zeros" state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include "xch_file.h"

enum {
	FIEMAP_BATCH = 256,
};

/* Appends fm's mapped extents to *v (grown by doubling); advances *pos, sets *last. */
static int
fext_take(const struct fiemap *fm, struct xch_fext **v, size_t *cnt, size_t *cap,
	  uint64_t *pos, bool *last)
{
	struct xch_fext *nv;
	uint32_t i;

	for (i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];

		if (*cnt == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			nv = realloc(*v, *cap * sizeof(**v));
			if (nv == NULL) {
				return -ENOMEM;
			}
			*v = nv;
		}
		(*v)[*cnt].logical = e->fe_logical;
		(*v)[*cnt].physical = e->fe_physical;
		(*v)[*cnt].length = e->fe_length;
		(*v)[*cnt].flags = e->fe_flags;
		(*cnt)++;
		if (e->fe_flags & FIEMAP_EXTENT_LAST) {
			*last = true;
		}
		if (e->fe_logical + e->fe_length > *pos) {
			*pos = e->fe_logical + e->fe_length;
		}
	}
	return 0;
}

int
xch_fiemap(int fd, uint64_t start, uint64_t len, struct xch_fext **out, size_t *n)
{
	struct fiemap *fm;
	struct xch_fext *v = NULL;
	size_t cnt = 0, cap = 0;
	uint64_t pos = start, end = start + len;
	uint32_t flags = FIEMAP_FLAG_SYNC;
	bool last = false;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (len == 0) {
		return 0;
	}
	fm = calloc(1, sizeof(*fm) + FIEMAP_BATCH * sizeof(struct fiemap_extent));
	if (fm == NULL) {
		return -ENOMEM;
	}
	while (!last && pos < end) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = pos;
		fm->fm_length = end - pos;
		/* FIEMAP_FLAG_SYNC: flush delayed allocation before mapping */
		fm->fm_flags = flags;
		fm->fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) != 0) {
			rc = -errno;
			break;
		}
		flags = 0;
		if (fm->fm_mapped_extents == 0) {
			break;
		}
		rc = fext_take(fm, &v, &cnt, &cap, &pos, &last);
		if (rc != 0) {
			break;
		}
	}
	free(fm);
	if (rc != 0) {
		free(v);
		return rc;
	}
	*out = v;
	*n = cnt;
	return 0;
}

/* Flags that make an extent's bytes unreachable or unstable at fe_physical. */
static const struct {
	uint32_t flag;
	enum xcopy_fallback_reason why;
} g_unsafe[] = {
	{ FIEMAP_EXTENT_UNKNOWN, XCOPY_FB_EXTENT_FLAGS },        /* location unknown */
	{ FIEMAP_EXTENT_DELALLOC, XCOPY_FB_EXTENT_FLAGS },       /* not allocated yet */
	{ FIEMAP_EXTENT_ENCODED, XCOPY_FB_EXTENT_FLAGS },        /* compressed etc. */
	{ FIEMAP_EXTENT_DATA_ENCRYPTED, XCOPY_FB_EXTENT_FLAGS }, /* ciphertext on disk */
	{ FIEMAP_EXTENT_NOT_ALIGNED, XCOPY_FB_UNALIGNED },       /* not block aligned */
	{ FIEMAP_EXTENT_DATA_INLINE, XCOPY_FB_EXTENT_FLAGS },    /* inside metadata */
	{ FIEMAP_EXTENT_DATA_TAIL, XCOPY_FB_EXTENT_FLAGS },      /* packed tail */
};

enum xch_src_class
xch_src_extent_class(uint32_t flags, enum xcopy_fallback_reason *why)
{
	size_t i;

	for (i = 0; i < sizeof(g_unsafe) / sizeof(g_unsafe[0]); i++) {
		if (flags & g_unsafe[i].flag) {
			*why = g_unsafe[i].why;
			return XCH_SRC_UNSAFE;
		}
	}
	/* preallocated, never written: the file reads zeros, the blocks hold garbage */
	if (flags & FIEMAP_EXTENT_UNWRITTEN) {
		*why = XCOPY_FB_HOLE;
		return XCH_SRC_HOLE;
	}
	*why = XCOPY_FB_NONE;
	return XCH_SRC_DATA;
}

bool
xch_dst_extent_ok(uint32_t flags, enum xcopy_fallback_reason *why)
{
	enum xch_src_class c = xch_src_extent_class(flags, why);

	if (c == XCH_SRC_UNSAFE) {
		return false;
	}
	/* shared: another file's data; unwritten: the fs would still read zeros */
	if (flags & (FIEMAP_EXTENT_SHARED | FIEMAP_EXTENT_UNWRITTEN)) {
		*why = XCOPY_FB_DST_EXTENT;
		return false;
	}
	*why = XCOPY_FB_NONE;
	return true;
}

struct pieces {
	struct xch_piece *v;
	size_t n, cap;
	uint32_t bs;
	int err;
};

static void
emit(struct pieces *ps, enum xch_piece_kind kind, enum xcopy_fallback_reason why,
     uint64_t src_off, uint64_t dst_off, uint64_t len, uint64_t sp, uint64_t dp)
{
	struct xch_piece *last, *nv;

	if (len == 0 || ps->err != 0) {
		return;
	}
	/* merge with the previous piece when both files continue it */
	if (ps->n > 0) {
		last = &ps->v[ps->n - 1];
		if (last->kind == kind && last->why == why && last->src_off + last->len == src_off &&
		    last->dst_off + last->len == dst_off &&
		    (kind != XCH_PIECE_OFFLOAD ||
		     (last->src_phys + last->len == sp && last->dst_phys + last->len == dp))) {
			last->len += len;
			return;
		}
	}
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 32;
		nv = realloc(ps->v, ps->cap * sizeof(*nv));
		if (nv == NULL) {
			ps->err = -ENOMEM;
			return;
		}
		ps->v = nv;
	}
	ps->v[ps->n].kind = kind;
	ps->v[ps->n].why = why;
	ps->v[ps->n].src_off = src_off;
	ps->v[ps->n].dst_off = dst_off;
	ps->v[ps->n].len = len;
	ps->v[ps->n].src_phys = sp;
	ps->v[ps->n].dst_phys = dp;
	ps->n++;
}

/* An offload candidate: trim to whole logical blocks on both sides. */
static void
emit_offload(struct pieces *ps, uint64_t so, uint64_t dof, uint64_t len, uint64_t sp, uint64_t dp)
{
	uint64_t bs = ps->bs, head, mid;

	if (sp % bs != dp % bs) {
		/* the two sides can never line up on LU blocks */
		emit(ps, XCH_PIECE_FALLBACK, XCOPY_FB_UNALIGNED, so, dof, len, 0, 0);
		return;
	}
	head = (bs - sp % bs) % bs;
	if (head >= len) {
		emit(ps, XCH_PIECE_FALLBACK, XCOPY_FB_UNALIGNED, so, dof, len, 0, 0);
		return;
	}
	mid = (len - head) / bs * bs;
	emit(ps, XCH_PIECE_FALLBACK, XCOPY_FB_UNALIGNED, so, dof, head, 0, 0);
	emit(ps, XCH_PIECE_OFFLOAD, XCOPY_FB_NONE, so + head, dof + head, mid, sp + head, dp + head);
	emit(ps, XCH_PIECE_FALLBACK, XCOPY_FB_UNALIGNED, so + head + mid, dof + head + mid,
	     len - head - mid, 0, 0);
}

/* Source data [so, so + len) at sp: pair it with the destination's extents. */
static void
pair_dst(struct pieces *ps, const struct xch_fext *dst, size_t nd, uint64_t so, uint64_t dof,
	 uint64_t len, uint64_t sp)
{
	uint64_t pos = dof, end = dof + len;
	enum xcopy_fallback_reason why;
	size_t i;

	for (i = 0; i < nd && pos < end; i++) {
		const struct xch_fext *e = &dst[i];
		uint64_t es = e->logical, ee = e->logical + e->length, a, b;

		if (ee <= pos || es >= end) {
			continue;
		}
		if (es > pos) {
			/* destination hole: not allocated, nothing to write under */
			emit(ps, XCH_PIECE_FALLBACK, XCOPY_FB_DST_EXTENT, so + (pos - dof), pos,
			     es - pos, 0, 0);
			pos = es;
		}
		a = pos;
		b = ee < end ? ee : end;
		if (xch_dst_extent_ok(e->flags, &why)) {
			emit_offload(ps, so + (a - dof), a, b - a, sp + (a - dof),
				     e->physical + (a - es));
		} else {
			emit(ps, XCH_PIECE_FALLBACK, why, so + (a - dof), a, b - a, 0, 0);
		}
		pos = b;
	}
	if (pos < end) {
		emit(ps, XCH_PIECE_FALLBACK, XCOPY_FB_DST_EXTENT, so + (pos - dof), pos, end - pos, 0,
		     0);
	}
}

int
xch_map_pieces(const struct xch_fext *src, size_t ns, const struct xch_fext *dst, size_t nd,
	       uint64_t off_in, uint64_t off_out, uint64_t len, uint32_t bs,
	       struct xch_piece **out, size_t *n)
{
	struct pieces ps = { NULL, 0, 0, bs ? bs : 512, 0 };
	uint64_t pos = off_in, end = off_in + len;
	enum xcopy_fallback_reason why;
	size_t i;

	for (i = 0; i < ns && pos < end; i++) {
		const struct xch_fext *e = &src[i];
		uint64_t es = e->logical, ee = e->logical + e->length, a, b;

		if (ee <= pos || es >= end) {
			continue;
		}
		if (es > pos) {
			emit(&ps, XCH_PIECE_HOLE, XCOPY_FB_HOLE, pos, off_out + (pos - off_in), es - pos,
			     0, 0);
			pos = es;
		}
		a = pos;
		b = ee < end ? ee : end;
		switch (xch_src_extent_class(e->flags, &why)) {
		case XCH_SRC_DATA:
			pair_dst(&ps, dst, nd, a, off_out + (a - off_in), b - a,
				 e->physical + (a - es));
			break;
		case XCH_SRC_HOLE:
			emit(&ps, XCH_PIECE_HOLE, XCOPY_FB_HOLE, a, off_out + (a - off_in), b - a, 0, 0);
			break;
		default:
			emit(&ps, XCH_PIECE_FALLBACK, why, a, off_out + (a - off_in), b - a, 0, 0);
			break;
		}
		pos = b;
	}
	if (pos < end) {
		emit(&ps, XCH_PIECE_HOLE, XCOPY_FB_HOLE, pos, off_out + (pos - off_in), end - pos, 0, 0);
	}
	if (ps.err != 0) {
		free(ps.v);
		return ps.err;
	}
	*out = ps.v;
	*n = ps.n;
	return 0;
}
