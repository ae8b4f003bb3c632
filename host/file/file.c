/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcopy_file_range(): a file copy turned into EXTENDED COPY commands.
 *
 *   1. find the SCSI disk under each file (st_dev -> sysfs -> whole disk and
 *      partition window, or a device-mapper volume mapped onto the disks
 *      under it) and open it (handles cached per file-system device, each
 *      addressing only its partition's or volume's blocks);
 *   2. fdatasync both files, FIEMAP the source; zero the destination where
 *      the source has holes; allocate-and-zero destination ranges that are
 *      not written yet (FALLOC_FL_WRITE_ZEROES), then FIEMAP the destination;
 *   3. pair the extents, offload the safe pieces through the planner, with
 *      the destination's page cache dropped before and after;
 *   4. FIEMAP both again and redo any offloaded piece whose mapping moved;
 *   5. copy everything else (copy_file_range, then pread/pwrite).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/falloc.h>

#include "base/xch_base.h"
#include "xch_file.h"

#ifndef FALLOC_FL_WRITE_ZEROES
/* Linux 6.17: allocate written, zeroed blocks (headers may predate it) */
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif

/* ------------------------------------------------------------------------ */
/* The deferred fallback list                                                */
/* ------------------------------------------------------------------------ */

struct fb_range {
	uint64_t src_off, dst_off, len;
	enum xcopy_fallback_reason why;
};

struct job {
	int fd_in, fd_out;
	unsigned flags;
	bool tokens;           /* the offload went by ROD tokens */
	dev_t dst_dev;         /* the destination's file system */
	uint32_t bs;
	struct xcopy_stats *st;
	pthread_mutex_t fb_mu;  /* fb: fallbacks of several workers at once */
	struct fb_range *fb;
	size_t nfb, capfb;
	int err;
};

static int
defer(struct job *j, uint64_t so, uint64_t dof, uint64_t len, enum xcopy_fallback_reason why)
{
	struct fb_range *nv;

	if (len == 0) {
		return 0;
	}
	if (j->nfb == j->capfb) {
		j->capfb = j->capfb ? j->capfb * 2 : 16;
		nv = realloc(j->fb, j->capfb * sizeof(*nv));
		if (nv == NULL) {
			return -ENOMEM;
		}
		j->fb = nv;
	}
	j->fb[j->nfb].src_off = so;
	j->fb[j->nfb].dst_off = dof;
	j->fb[j->nfb].len = len;
	j->fb[j->nfb].why = why;
	j->nfb++;
	return 0;
}

/* Fallback callback of the copy loop (which counts the reason): copy later. */
static int
file_fallback(void *arg, const struct xch_pair *p, uint64_t skip, uint64_t nblocks,
	      enum xcopy_fallback_reason why)
{
	struct job *j = arg;
	uint64_t bs = j->bs;
	int rc;

	pthread_mutex_lock(&j->fb_mu);
	rc = defer(j, p->src_off + skip * bs, p->dst_off + skip * bs, nblocks * bs, why);
	pthread_mutex_unlock(&j->fb_mu);
	return rc;
}

static void
drop_cache(int fd, uint64_t off, uint64_t len)
{
	/* writeback first: DONTNEED leaves dirty pages alone */
	(void)fdatasync(fd);
	(void)posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
}

/* Is file range [off, off + len) still at phys in the fresh map e? */
static bool
still_mapped(const struct xch_fext *e, size_t n, uint64_t off, uint64_t len, uint64_t phys,
	     bool is_dst)
{
	enum xcopy_fallback_reason why;
	uint64_t pos = off, end = off + len;
	size_t i;

	for (i = 0; i < n && pos < end; i++) {
		uint64_t es = e[i].logical, ee = es + e[i].length;
		bool ok;

		if (ee <= pos) {
			continue;
		}
		ok = is_dst ? xch_dst_extent_ok(e[i].flags, &why)
			    : xch_src_extent_class(e[i].flags, &why) == XCH_SRC_DATA;
		if (es > pos || !ok || e[i].physical + (pos - es) != phys + (pos - off)) {
			return false;
		}
		pos = ee < end ? ee : end;
	}
	return pos >= end;
}

static bool
fallocate_unsupported(int e)
{
	return e == EOPNOTSUPP || e == EINVAL || e == ENOSYS;
}

/*
 * Make every destination range a data piece needs into written blocks:
 * FALLOC_FL_WRITE_ZEROES allocates and zeroes them (and extends the file),
 * so the copy manager's writes land in blocks the file system reads back.
 * Returns 0; ranges it could not allocate stay unallocated (fallback).
 */
static int
alloc_dst(struct job *j, const struct xch_piece *pv, size_t n, bool *any)
{
	size_t i;

	*any = false;
	for (i = 0; i < n; i++) {
		const struct xch_piece *p = &pv[i];

		if (p->kind != XCH_PIECE_FALLBACK || p->why != XCOPY_FB_DST_EXTENT) {
			continue;
		}
		if (fallocate(j->fd_out, FALLOC_FL_WRITE_ZEROES, (off_t)p->dst_off, (off_t)p->len) !=
		    0) {
			if (fallocate_unsupported(errno)) {
				XCH_DBG("fallocate(WRITE_ZEROES) unsupported: %d", errno);
				return -EOPNOTSUPP;
			}
			if (errno == ENOSPC || errno == EDQUOT) {
				return -errno;
			}
			continue;
		}
		*any = true;
	}
	return 0;
}

struct side {
	int fd;
	struct stat st;
	struct xcopy_dev *dev;
	uint64_t part_off;     /* partition start, bytes */
};

/* Everything the host copies itself: [off, off+len) of both files. */
static int
all_fallback(struct job *j, uint64_t so, uint64_t dof, uint64_t len,
	     enum xcopy_fallback_reason why)
{
	if (j->flags & XCOPY_REQUIRE_OFFLOAD) {
		return xch_required_errno(j->st, why);
	}
	xch_stats_fallback(j->st, why, len);
	return xch_host_copy(j->fd_in, so, j->fd_out, dof, len, j->st);
}

/* The source's and destination's extents of [so, so+len) / [dof, dof+len). */
struct maps {
	struct xch_fext *se, *de;
	size_t ns, nd;
	struct xch_piece *pv;
	size_t np;
};

static void
maps_free(struct maps *m)
{
	free(m->se);
	free(m->de);
	free(m->pv);
	memset(m, 0, sizeof(*m));
}

/* FIEMAP the destination again and pair it with the source's extents. */
static int
map_dst(struct job *j, struct maps *m, uint64_t so, uint64_t dof, uint64_t len)
{
	int rc;

	free(m->de);
	free(m->pv);
	m->de = NULL;
	m->pv = NULL;
	rc = xch_fiemap(j->fd_out, dof, len, &m->de, &m->nd);
	if (rc == 0) {
		rc = xch_map_pieces(m->se, m->ns, m->de, m->nd, so, dof, len, j->bs, &m->pv,
				    &m->np);
	}
	return rc;
}

/*
 * Pass 1: zero the destination under source holes, allocate the rest
 * (*alloc_why: why WRITE_ZEROES was refused, XCOPY_FB_NONE if it was not),
 * then map the destination again.
 */
static int
prepare_dst(struct job *j, struct maps *m, uint64_t so, uint64_t dof, uint64_t len,
	    enum xcopy_fallback_reason *alloc_why)
{
	bool any;
	size_t i;
	int rc = 0;

	*alloc_why = XCOPY_FB_NONE;
	for (i = 0; i < m->np && rc == 0; i++) {
		if (m->pv[i].kind == XCH_PIECE_HOLE) {
			rc = xch_zero_dst(j->fd_out, m->pv[i].dst_off, m->pv[i].len, j->flags, j->st);
		}
	}
	if (rc == 0) {
		rc = alloc_dst(j, m->pv, m->np, &any);
		if (rc == -EOPNOTSUPP) {
			*alloc_why = xch_alloc_reason_dev(j->dst_dev);
			rc = 0;
		}
	}
	if (rc != 0) {
		return rc;
	}
	(void)fdatasync(j->fd_out);
	return map_dst(j, m, so, dof, len);
}

/* Pass 2: offload pieces become pairs; the rest is queued. */
static int
build_pairs(struct job *j, const struct side *s, const struct side *d, const struct maps *m,
	    enum xcopy_fallback_reason alloc_why, struct xch_pair *pairs, size_t *npairs)
{
	uint64_t bs = j->bs;
	size_t i;
	int rc = 0;

	*npairs = 0;
	for (i = 0; i < m->np && rc == 0; i++) {
		const struct xch_piece *p = &m->pv[i];
		enum xcopy_fallback_reason why = p->why;

		if (p->kind == XCH_PIECE_OFFLOAD) {
			struct xch_pair *q = &pairs[(*npairs)++];

			q->src_lba = (s->part_off + p->src_phys) / bs;
			q->dst_lba = (d->part_off + p->dst_phys) / bs;
			q->nblocks = p->len / bs;
			q->src_off = p->src_off;
			q->dst_off = p->dst_off;
			continue;
		}
		if (p->kind == XCH_PIECE_HOLE) {
			continue; /* zeroed in pass 1 */
		}
		if (why == XCOPY_FB_DST_EXTENT && alloc_why != XCOPY_FB_NONE) {
			why = alloc_why;
		}
		if (j->flags & XCOPY_REQUIRE_OFFLOAD) {
			return xch_required_errno(j->st, why);
		}
		xch_stats_fallback(j->st, why, p->len);
		rc = defer(j, p->src_off, p->dst_off, p->len, why);
	}
	return rc;
}

/* Offloaded bytes to be redone: no longer counted as offloaded (nor by their method). */
static void
uncount(struct job *j, uint64_t len)
{
	uint64_t *m;

	if (j->st == NULL || j->st->bytes_offloaded < len) {
		return;
	}
	j->st->bytes_offloaded -= len;
	if (j->flags & XCOPY_STATS_METHODS) {
		m = j->tokens ? &j->st->bytes_token : &j->st->bytes_lid1;
		*m -= *m >= len ? len : *m;
	}
}

/* Pass 3: what moved while the copy manager worked is redone. */
static int
recheck(struct job *j, const struct maps *m, uint64_t so, uint64_t dof, uint64_t len)
{
	struct xch_fext *se2 = NULL, *de2 = NULL;
	size_t ns2 = 0, nd2 = 0, i;
	int rc;

	rc = xch_fiemap(j->fd_in, so, len, &se2, &ns2);
	if (rc == 0) {
		rc = xch_fiemap(j->fd_out, dof, len, &de2, &nd2);
	}
	for (i = 0; i < m->np && rc == 0; i++) {
		const struct xch_piece *p = &m->pv[i];

		if (p->kind != XCH_PIECE_OFFLOAD) {
			continue;
		}
		if (still_mapped(se2, ns2, p->src_off, p->len, p->src_phys, false) &&
		    still_mapped(de2, nd2, p->dst_off, p->len, p->dst_phys, true)) {
			continue;
		}
		XCH_WARN("mapping moved at offset %llu (+%llu): redoing",
			 (unsigned long long)p->src_off, (unsigned long long)p->len);
		uncount(j, p->len);
		xch_stats_fallback(j->st, XCOPY_FB_MAPPING_MOVED, p->len);
		rc = defer(j, p->src_off, p->dst_off, p->len, XCOPY_FB_MAPPING_MOVED);
	}
	free(se2);
	free(de2);
	return rc;
}

/* The pairs to the copy manager, the destination's page cache dropped around. */
static int
offload_pairs(struct job *j, struct side *s, struct side *d, const struct maps *m,
	      enum xcopy_fallback_reason alloc_why, uint64_t dof, uint64_t len)
{
	struct xch_pair *pairs;
	size_t npairs = 0;
	int rc;

	pairs = calloc(m->np ? m->np : 1, sizeof(*pairs));
	if (pairs == NULL) {
		return -ENOMEM;
	}
	j->tokens = xch_use_tokens(s->dev, d->dev, j->flags);
	rc = build_pairs(j, s, d, m, alloc_why, pairs, &npairs);
	if (rc == 0) {
		/* no stale destination pages may be written back over the copy */
		drop_cache(j->fd_out, dof, len);
		rc = (s->dev->dm != NULL || d->dev->dm != NULL ? xch_dm_copy_pairs
							       : xch_copy_pairs)(
			s->dev, d->dev, pairs, npairs, j->flags, j->st, file_fallback, j);
	}
	if (rc == 0) {
		drop_cache(j->fd_out, dof, len);
	}
	free(pairs);
	return rc;
}

static int
offload_file(struct job *j, struct side *s, struct side *d, uint64_t so, uint64_t dof,
	     uint64_t len)
{
	struct maps m = { 0 };
	uint64_t bs = s->dev->caps.block_size;
	enum xcopy_fallback_reason alloc_why = XCOPY_FB_NONE;
	int rc;

	j->bs = (uint32_t)bs;
	if (s->part_off % bs != 0 || d->part_off % bs != 0) {
		return all_fallback(j, so, dof, len, XCOPY_FB_UNALIGNED);
	}
	/* dirty data must be on the medium before the copy manager reads it */
	if (fdatasync(j->fd_in) != 0 || fdatasync(j->fd_out) != 0) {
		return -errno;
	}
	rc = xch_fiemap(j->fd_in, so, len, &m.se, &m.ns);
	if (rc == 0) {
		rc = map_dst(j, &m, so, dof, len);
	}
	if (rc == -EOPNOTSUPP || rc == -ENOTTY) {
		maps_free(&m);
		return all_fallback(j, so, dof, len, XCOPY_FB_EXTENT_FLAGS);
	}
	if (rc == 0) {
		rc = prepare_dst(j, &m, so, dof, len, &alloc_why);
	}
	if (rc == 0) {
		rc = offload_pairs(j, s, d, &m, alloc_why, dof, len);
	}
	if (rc == 0) {
		rc = recheck(j, &m, so, dof, len);
	}
	maps_free(&m);
	return rc;
}

static int
get_pos(int fd, int64_t *off, uint64_t *pos)
{
	off_t o;

	if (off != NULL) {
		if (*off < 0) {
			return -EINVAL;
		}
		*pos = (uint64_t)*off;
		return 0;
	}
	o = lseek(fd, 0, SEEK_CUR);
	if (o < 0) {
		return -errno;
	}
	*pos = (uint64_t)o;
	return 0;
}

/* The offload of one call: the devices are held (not locked) meanwhile. */
static int
copy_offload(struct job *j, struct side *s, struct side *d, uint64_t so, uint64_t dof,
	     uint64_t len)
{
	int rc;

	if (j->flags & XCOPY_NO_OFFLOAD) {
		return all_fallback(j, so, dof, len, XCOPY_FB_REQUESTED);
	}
	rc = xch_file_dev(s->st.st_dev, &s->dev, &s->part_off);
	if (rc == 0) {
		rc = xch_file_dev(d->st.st_dev, &d->dev, &d->part_off);
	}
	if (rc != 0) {
		xch_file_dev_put(s->dev);
		XCH_DBG("no SCSI device under the files (%d): host copy", rc);
		return all_fallback(j, so, dof, len, xch_file_dev_reason(rc));
	}
	rc = offload_file(j, s, d, so, dof, len);
	xch_file_dev_put(s->dev);
	xch_file_dev_put(d->dev);
	return rc;
}

/*
 * Validate the call like copy_file_range(2) and clip len to the source's
 * end: 0 with *so, *dof, *len set, 1 when *so is at or past the source's
 * end (nothing to copy), or -errno.
 */
static int
check_call(struct side *s, struct side *d, int64_t *off_in, int64_t *off_out, unsigned flags,
	   uint64_t *so, uint64_t *dof, size_t *len)
{
	int rc = xch_flags_check(flags);

	if (rc != 0) {
		return rc;
	}
	if (fstat(s->fd, &s->st) != 0 || fstat(d->fd, &d->st) != 0) {
		return -errno;
	}
	if (!S_ISREG(s->st.st_mode) || !S_ISREG(d->st.st_mode)) {
		return -EINVAL;
	}
	rc = get_pos(s->fd, off_in, so);
	if (rc == 0) {
		rc = get_pos(d->fd, off_out, dof);
	}
	if (rc != 0) {
		return rc;
	}
	/* like copy_file_range(2): stop at the source's end */
	if (*so >= (uint64_t)s->st.st_size) {
		return 1;
	}
	if (*len > (uint64_t)s->st.st_size - *so) {
		*len = (size_t)((uint64_t)s->st.st_size - *so);
	}
	if (*len > (size_t)SSIZE_MAX || *dof > (uint64_t)INT64_MAX - *len) {
		return -EOVERFLOW;
	}
	if (s->st.st_dev == d->st.st_dev && s->st.st_ino == d->st.st_ino && *so < *dof + *len &&
	    *dof < *so + *len) {
		return -EINVAL;
	}
	return 0;
}

/* The destination's size and mtime as copy_file_range(2) leaves them, on disk. */
static int
finish_dst(int fd_out, uint64_t end)
{
	/* writes below the file system do not touch mtime; copy_file_range would */
	const struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };
	struct stat now;

	/* holes at the end and WRITE_ZEROES may leave the size short */
	if (fstat(fd_out, &now) == 0 && (uint64_t)now.st_size < end &&
	    ftruncate(fd_out, (off_t)end) != 0) {
		return -errno;
	}
	(void)futimens(fd_out, ts);
	if (fdatasync(fd_out) != 0) {
		return -errno;
	}
	return 0;
}

static void
advance(int fd, int64_t *off, size_t len)
{
	if (off != NULL) {
		*off += (int64_t)len;
	} else {
		(void)lseek(fd, (off_t)len, SEEK_CUR);
	}
}

ssize_t
xcopy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len,
		 unsigned flags, struct xcopy_stats *stats)
{
	struct side s = { .fd = fd_in }, d = { .fd = fd_out };
	struct job j;
	uint64_t so = 0, dof = 0;
	size_t i;
	int rc;

	rc = check_call(&s, &d, off_in, off_out, flags, &so, &dof, &len);
	if (rc != 0) {
		return rc < 0 ? rc : 0;
	}
	memset(&j, 0, sizeof(j));
	j.fd_in = fd_in;
	j.fd_out = fd_out;
	j.flags = flags;
	j.dst_dev = d.st.st_dev;
	j.st = stats;
	pthread_mutex_init(&j.fb_mu, NULL);
	xch_progress_begin(len);
	rc = copy_offload(&j, &s, &d, so, dof, len);
	/* the queued ranges: after the offload and the cache drop */
	for (i = 0; i < j.nfb && rc == 0; i++) {
		rc = xch_host_copy(fd_in, j.fb[i].src_off, fd_out, j.fb[i].dst_off, j.fb[i].len, stats);
	}
	xch_progress_end();
	pthread_mutex_destroy(&j.fb_mu);
	free(j.fb);
	if (rc == 0) {
		rc = finish_dst(fd_out, dof + len);
	}
	if (rc != 0) {
		return rc;
	}
	advance(fd_in, off_in, len);
	advance(fd_out, off_out, len);
	return (ssize_t)len;
}
