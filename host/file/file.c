/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcopy_file_range(): a file copy turned into EXTENDED COPY commands.
 *
 *   1. find the SCSI disk under each file (st_dev -> sysfs -> whole disk and
 *      partition window, or a device-mapper volume mapped onto the disks
 *      under it) and open it (handles cached per file-system device, each
 *      addressing only its partition's or volume's blocks);
 *   2. take a write lease on the destination and a read lease on the
 *      source (lease.c; none: host copy, reason "lease"), held to step 6;
 *   3. fdatasync both files, FIEMAP the source; zero the destination where
 *      the source has holes; allocate-and-zero destination ranges that are
 *      not written yet (FALLOC_FL_WRITE_ZEROES), then FIEMAP the destination;
 *   4. pair the extents, offload the safe pieces through the planner in
 *      batches, the leases looked at before each, with the destination's
 *      page cache dropped before and after;
 *   5. FIEMAP both again and redo any offloaded piece whose mapping moved;
 *      copy everything else (copy_file_range, then pread/pwrite), set the
 *      destination's size;
 *   6. a lease broke on the way: once the other process is done, the host
 *      copies the whole range again (README.md: the rule). A failed call
 *      cuts the destination back to its old size.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/falloc.h>

#include "base/xch_base.h"
#include "xch_file.h"
#include "xch_fscheck.h"

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
	struct xch_lease lease_in, lease_out; /* held during the offload */
	bool broken;           /* a lease broke: the call's range is redone */
	uint64_t off_before;   /* st->bytes_offloaded when the offload began */
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

/* Are both files' leases still held, no break pending? */
static bool
leases_held(const struct job *j)
{
	return xch_lease_held(&j->lease_out) &&
	       (!j->lease_in.held || xch_lease_held(&j->lease_in));
}

/*
 * The pairs to the copy manager in batches of xch_lease_batch_bytes() (pairs
 * cut at batch edges), the leases looked at before each: once one breaks
 * no further command goes (j->broken; the caller redoes the call's range).
 */
static int
send_batches(struct job *j, struct side *s, struct side *d, const struct xch_pair *pairs,
	     size_t npairs)
{
	uint64_t per = xch_lease_batch_bytes() / j->bs, k = 0;
	struct xch_pair *b;
	size_t i = 0, nb;
	int rc = 0;

	per = per != 0 ? per : 1;
	b = calloc(npairs ? npairs : 1, sizeof(*b));
	if (b == NULL) {
		return -ENOMEM;
	}
	while (i < npairs && rc == 0) {
		uint64_t room = per;

		if (!leases_held(j)) {
			j->broken = true;
			break;
		}
		for (nb = 0; i < npairs && room > 0; nb++) {
			uint64_t m = pairs[i].nblocks - k < room ? pairs[i].nblocks - k : room;

			b[nb] = pairs[i];
			b[nb].src_lba += k;
			b[nb].dst_lba += k;
			b[nb].src_off += k * j->bs;
			b[nb].dst_off += k * j->bs;
			b[nb].nblocks = m;
			room -= m;
			k += m;
			if (k == pairs[i].nblocks) {
				i++;
				k = 0;
			}
		}
		rc = xch_copy_pairs(s->dev, d->dev, b, nb, j->flags, j->st, file_fallback, j);
	}
	free(b);
	return rc;
}

/* The pairs to the copy manager, the destination's page cache dropped around. */
static int
offload_pairs(struct job *j, struct side *s, struct side *d, const struct maps *m,
	      enum xcopy_fallback_reason alloc_why, uint64_t dof, uint64_t len)
{
	enum xcopy_fallback_reason why;
	struct xch_pair *pairs;
	size_t npairs = 0;
	int rc;

	pairs = calloc(m->np ? m->np : 1, sizeof(*pairs));
	if (pairs == NULL) {
		return -ENOMEM;
	}
	j->tokens = xch_copy_method(s->dev, d->dev, j->flags, &why) == XCH_METHOD_TOKENS;
	rc = build_pairs(j, s, d, m, alloc_why, pairs, &npairs);
	if (rc == 0) {
		/* no stale destination pages may be written back over the copy */
		drop_cache(j->fd_out, dof, len);
		rc = send_batches(j, s, d, pairs, npairs);
	}
	if (rc == 0) {
		drop_cache(j->fd_out, dof, len);
	}
	free(pairs);
	return rc;
}

/*
 * The leases that hold both files' extent maps for the whole offload: a
 * write lease on the destination, a read lease on the source (not when
 * both are one file: the write lease covers it). 0 or -errno.
 */
static int
take_leases(struct job *j, const struct side *s, const struct side *d)
{
	int rc = xch_lease_take(&j->lease_out, j->fd_out, F_WRLCK);

	if (rc == 0 && !(s->st.st_dev == d->st.st_dev && s->st.st_ino == d->st.st_ino)) {
		rc = xch_lease_take(&j->lease_in, j->fd_in, F_RDLCK);
	}
	if (rc != 0) {
		xch_lease_drop(&j->lease_out);
	}
	return rc;
}

/* The ranges queued for the host (fallbacks, moved mappings). */
static int
copy_deferred(struct job *j)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < j->nfb && rc == 0; i++) {
		rc = xch_host_copy(j->fd_in, j->fb[i].src_off, j->fd_out, j->fb[i].dst_off,
				   j->fb[i].len, j->st);
	}
	j->nfb = 0;
	return rc;
}

enum {
	RETAKE_MS = 2000,      /* wait for the breaker to close the file, at most */
	RETAKE_STEP_MS = 10,
};

/*
 * A lease broke: the map the commands used may be stale, and what they
 * wrote before another process truncated the destination is gone. Nothing
 * of this call's offload counts: the whole range goes to the host, which
 * writes through the file system (never into blocks another file owns).
 * The leases were dropped, so the other process's open or truncate goes on;
 * the redo waits until it has closed the file (the leases can be taken
 * again, RETAKE_MS at most) and holds them meanwhile, so no truncation
 * lands in the middle of the redo and a success means every byte of the
 * range was written after it. Files that stay open elsewhere: host copy
 * without a lease, as when none could be taken at the start.
 */
static int
redo_on_host(struct job *j, const struct side *s, const struct side *d, uint64_t so, uint64_t dof,
	     uint64_t len)
{
	const struct timespec step = { 0, RETAKE_STEP_MS * 1000000L };
	unsigned waited = 0;
	int rc;

	XCH_WARN("a lease broke during the offload (another process opened or truncated a "
		 "file): copying the range again on the host");
	if (j->st != NULL && j->st->bytes_offloaded >= j->off_before) {
		uncount(j, j->st->bytes_offloaded - j->off_before);
	}
	j->nfb = 0;
	if (j->flags & XCOPY_REQUIRE_OFFLOAD) {
		return xch_required_errno(j->st, XCOPY_FB_LEASE);
	}
	while ((rc = take_leases(j, s, d)) != 0 && waited < RETAKE_MS) {
		(void)nanosleep(&step, NULL);
		waited += RETAKE_STEP_MS;
	}
	if (rc != 0) {
		XCH_WARN("the files stay open elsewhere (%s): host copy without a lease",
			 strerror(-rc));
	}
	/* the caller sets the size, then lets go of the leases */
	return all_fallback(j, so, dof, len, XCOPY_FB_LEASE);
}

static void
drop_leases(struct job *j)
{
	xch_lease_drop(&j->lease_in);
	xch_lease_drop(&j->lease_out);
}

/*
 * The offload under both leases: map, allocate, send (batches, the leases
 * looked at before each: a break stops the commands, j->broken), check the
 * maps again. The leases stay held for the caller (xcopy_file_range: the
 * queued host copies and the size under them too, then a last look), or
 * are dropped on an error.
 */
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
	j->off_before = j->st != NULL ? j->st->bytes_offloaded : 0;
	rc = take_leases(j, s, d);
	if (rc != 0) {
		XCH_INFO("no lease on the files (%s): host copy", strerror(-rc));
		return all_fallback(j, so, dof, len, XCOPY_FB_LEASE);
	}
	/* dirty data must be on the medium before the copy manager reads it */
	if (fdatasync(j->fd_in) != 0 || fdatasync(j->fd_out) != 0) {
		rc = -errno;
		goto out;
	}
	rc = xch_fiemap(j->fd_in, so, len, &m.se, &m.ns);
	if (rc == 0) {
		rc = map_dst(j, &m, so, dof, len);
	}
	if (rc == -EOPNOTSUPP || rc == -ENOTTY) {
		maps_free(&m);
		rc = all_fallback(j, so, dof, len, XCOPY_FB_EXTENT_FLAGS);
		goto out;
	}
	if (rc == 0) {
		rc = prepare_dst(j, &m, so, dof, len, &alloc_why);
	}
	if (rc == 0) {
		rc = offload_pairs(j, s, d, &m, alloc_why, dof, len);
	}
	if (rc == 0 && !j->broken) {
		rc = recheck(j, &m, so, dof, len);
	}
out:
	maps_free(&m);
	if (rc != 0) {
		drop_leases(j);
	}
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
	enum xcopy_fallback_reason why;
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
	why = xch_fs_check(s->fd, d->fd);
	rc = why != XCOPY_FB_NONE ? all_fallback(j, so, dof, len, why)
				  : offload_file(j, s, d, so, dof, len);
	xch_file_dev_put(s->dev);
	xch_file_dev_put(d->dev);
	return rc;
}

/*
 * copy_file_range(2)'s EBADF: the source not open for reading, the
 * destination not open for writing or open with O_APPEND (whose writes go
 * to the end: a copy by block addresses would land at off_out instead).
 */
static int
check_modes(int fd_in, int fd_out)
{
	int fi = fcntl(fd_in, F_GETFL), fo = fcntl(fd_out, F_GETFL);

	if (fi < 0 || fo < 0) {
		return -errno;
	}
	if ((fi & O_PATH) || (fo & O_PATH) || (fi & O_ACCMODE) == O_WRONLY ||
	    (fo & O_ACCMODE) == O_RDONLY || (fo & O_APPEND)) {
		return -EBADF;
	}
	return 0;
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
	rc = check_modes(s->fd, d->fd);
	if (rc != 0) {
		return rc;
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

/*
 * A failed call leaves the destination no longer than it found it: the
 * allocation (FALLOC_FL_WRITE_ZEROES), hole zeroing and host copies extend
 * it before all data is there, and size-based tools (rsync --size-only,
 * resume logic) would take a full-length file for a finished copy. Bytes
 * below the old size stay as the failed copy left them.
 */
static void
restore_size(int fd_out, uint64_t size)
{
	struct stat now;

	if (fstat(fd_out, &now) == 0 && (uint64_t)now.st_size > size &&
	    ftruncate(fd_out, (off_t)size) != 0) {
		XCH_WARN("cannot cut the destination back to %llu bytes: %s",
			 (unsigned long long)size, strerror(errno));
	}
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
	if (rc == 0 && !j.broken) {
		rc = copy_deferred(&j);
	}
	if (rc == 0 && !j.broken) {
		rc = finish_dst(fd_out, dof + len);
	}
	/* held to the end: offload, host copies and size done before any other open or truncate */
	if (rc == 0 && j.lease_out.held && !leases_held(&j)) {
		j.broken = true;
	}
	drop_leases(&j);
	if (rc == 0 && j.broken) {
		rc = redo_on_host(&j, &s, &d, so, dof, len);
		if (rc == 0) {
			rc = finish_dst(fd_out, dof + len);
		}
		drop_leases(&j);
	}
	xch_progress_end();
	pthread_mutex_destroy(&j.fb_mu);
	free(j.fb);
	if (rc != 0) {
		restore_size(fd_out, (uint64_t)d.st.st_size);
		return rc;
	}
	advance(fd_in, off_in, len);
	advance(fd_out, off_out, len);
	return (ssize_t)len;
}
