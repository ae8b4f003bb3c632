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
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/falloc.h>

#include "xcopy_internal.h"

#ifndef FALLOC_FL_WRITE_ZEROES
/* Linux 6.17: allocate written, zeroed blocks (headers may predate it) */
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif

enum {
	CACHE_SLOTS = 8,
	COPY_BUF = 1 << 20,
};

/* ------------------------------------------------------------------------ */
/* Device cache: one handle per file-system device, discovery done once     */
/* ------------------------------------------------------------------------ */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	dev_t fsdev;           /* the file system's device: a disk or a partition */
	struct xcopy_dev *dev;
	int err;               /* open failed: remember, do not retry per call */
} g_cache[CACHE_SLOTS];
static size_t g_ncache;

void
xcopy_cache_flush(void)
{
	size_t i;

	pthread_mutex_lock(&g_lock);
	for (i = 0; i < g_ncache; i++) {
		xcopy_dev_close(g_cache[i].dev);
	}
	g_ncache = 0;
	pthread_mutex_unlock(&g_lock);
}

/*
 * A device-mapper volume under a file system (LVM, multipath): its handle
 * maps the volume's blocks onto the LUs underneath (dm.c); FIEMAP's
 * addresses are the volume's own, so no partition offset. -ENODEV when the
 * volume is not a plain remap of SCSI disks (the reason was logged).
 */
static int
dm_for_file(const struct xch_blk *blk, dev_t fsdev, struct xcopy_dev **out)
{
	char path[96];
	struct stat st;
	int rc;

	snprintf(path, sizeof(path), "/dev/%s", blk->name);
	if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != fsdev) {
		return -ENODEV;
	}
	rc = xch_open_blockdev(path, fsdev, out);
	if (rc == 0 && (*out)->dm == NULL) {
		xcopy_dev_close(*out);
		*out = NULL;
		rc = -ENODEV;
	}
	return rc;
}

/* A cached volume whose table changed since it was opened is opened again. */
static void
cache_drop_stale(dev_t fsdev)
{
	size_t i;

	for (i = 0; i < g_ncache; i++) {
		if (g_cache[i].fsdev == fsdev && g_cache[i].dev != NULL &&
		    g_cache[i].dev->dm != NULL && !xch_dm_tables_same(g_cache[i].dev)) {
			XCH_INFO("%s: device-mapper table changed: mapping it again",
				 g_cache[i].dev->name);
			xcopy_dev_close(g_cache[i].dev);
			g_cache[i] = g_cache[--g_ncache];
			return;
		}
	}
}

/*
 * The handle for the SCSI disk under st_dev, addressing only the file
 * system's own blocks (its partition window), and the partition's byte
 * offset on the disk; or the handle of the device-mapper volume under it.
 */
static int
dev_for_file(dev_t fsdev, struct xcopy_dev **out, uint64_t *part_off)
{
	const struct xch_transport_ops *ops;
	struct xch_blk blk;
	char path[96];
	void *ctx;
	size_t i;
	int rc;

	*out = NULL;
	rc = xch_sysfs_resolve("/sys", major(fsdev), minor(fsdev), &blk);
	if (rc != 0) {
		return rc;
	}
	if (!blk.is_scsi && !blk.is_dm) {
		return -ENODEV;
	}
	*part_off = blk.is_dm ? 0 : blk.start * 512;
	if (blk.is_dm) {
		cache_drop_stale(fsdev);
	}
	for (i = 0; i < g_ncache; i++) {
		if (g_cache[i].fsdev == fsdev) {
			*out = g_cache[i].dev;
			return g_cache[i].err;
		}
	}
	if (blk.is_dm) {
		rc = dm_for_file(&blk, fsdev, out);
	} else {
		snprintf(path, sizeof(path), "/dev/%s", blk.disk);
		rc = xch_sg_open(path, &ops, &ctx);
		if (rc == 0) {
			rc = xch_dev_attach(ops, ctx, path, blk.is_partition ? blk.start : 0,
					    blk.is_partition ? blk.size : 0, out);
		}
	}
	if (g_ncache < CACHE_SLOTS) {
		g_cache[g_ncache].fsdev = fsdev;
		g_cache[g_ncache].dev = *out;
		g_cache[g_ncache].err = rc;
		g_ncache++;
	} else if (rc == 0) {
		/* cache full: the caller closes it (flagged by cache_fd == -2) */
		(*out)->cache_fd = -2;
	}
	return rc;
}

void
xch_file_cache_lock(void)
{
	pthread_mutex_lock(&g_lock);
}

void
xch_file_cache_unlock(void)
{
	pthread_mutex_unlock(&g_lock);
}

int
xch_file_dev(dev_t fsdev, struct xcopy_dev **out, uint64_t *part_off, bool *must_close)
{
	int rc = dev_for_file(fsdev, out, part_off);

	*must_close = rc == 0 && (*out)->cache_fd == -2;
	return rc;
}

enum xcopy_fallback_reason
xch_file_dev_reason(int rc)
{
	return rc == -EACCES || rc == -EPERM ? XCOPY_FB_PERMISSION
	       : rc == -EINVAL ? XCOPY_FB_UNALIGNED
	       : rc == -ENODEV || rc == -ENOENT ? XCOPY_FB_NOT_SCSI
					       : XCOPY_FB_TRANSPORT;
}

/* ------------------------------------------------------------------------ */
/* Host-side copies                                                          */
/* ------------------------------------------------------------------------ */

static int
rw_copy(int fd_in, uint64_t so, int fd_out, uint64_t dof, uint64_t len)
{
	size_t bufsz = len < COPY_BUF ? (size_t)len : COPY_BUF;
	uint8_t *buf;
	int rc = 0;

	buf = malloc(bufsz ? bufsz : 1);
	if (buf == NULL) {
		return -ENOMEM;
	}
	while (len > 0) {
		size_t want = len < bufsz ? (size_t)len : bufsz;
		ssize_t r = pread(fd_in, buf, want, (off_t)so), w, off = 0;

		if (r < 0) {
			if (errno == EINTR) {
				continue;
			}
			rc = -errno;
			break;
		}
		if (r == 0) {
			rc = -EIO; /* source shrank under us */
			break;
		}
		while (off < r) {
			w = pwrite(fd_out, buf + off, (size_t)(r - off), (off_t)(dof + (uint64_t)off));
			if (w < 0) {
				if (errno == EINTR) {
					continue;
				}
				rc = -errno;
				goto out;
			}
			off += w;
		}
		so += (uint64_t)r;
		dof += (uint64_t)r;
		len -= (uint64_t)r;
		xch_progress_add(XCOPY_METHOD_HOST, (uint64_t)r);
	}
out:
	free(buf);
	return rc;
}

/* copy_file_range first (may reflink or copy in the kernel), then read/write. */
static int
host_copy(int fd_in, uint64_t so, int fd_out, uint64_t dof, uint64_t len, struct xcopy_stats *st)
{
	uint64_t left = len;

	while (left > 0) {
		loff_t a = (loff_t)so, b = (loff_t)dof;
		ssize_t n = copy_file_range(fd_in, &a, fd_out, &b, (size_t)left, 0);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		so += (uint64_t)n;
		dof += (uint64_t)n;
		left -= (uint64_t)n;
		xch_progress_add(XCOPY_METHOD_HOST, (uint64_t)n);
	}
	if (left > 0) {
		int rc = rw_copy(fd_in, so, fd_out, dof, left);
		if (rc != 0) {
			return rc;
		}
	}
	if (st != NULL) {
		st->bytes_fallback += len;
	}
	return 0;
}

/* Destination bytes that must read as zeros (source hole). */
static int
zero_dst(int fd_out, uint64_t off, uint64_t len, unsigned flags, struct xcopy_stats *st)
{
	static const uint8_t zeros[4096];

	if (fallocate(fd_out, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) == 0 ||
	    fallocate(fd_out, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) == 0) {
		if (st != NULL) {
			st->bytes_zeroed += len;
		}
		xch_stats_fallback(st, XCOPY_FB_HOLE, len);
		xch_progress_add(XCOPY_METHOD_ZERO, len);
		return 0;
	}
	if (flags & XCOPY_REQUIRE_OFFLOAD) {
		return -EOPNOTSUPP;
	}
	while (len > 0) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);
		ssize_t w = pwrite(fd_out, zeros, n, (off_t)off);

		if (w < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -errno;
		}
		off += (uint64_t)w;
		len -= (uint64_t)w;
		if (st != NULL) {
			st->bytes_zeroed += (uint64_t)w;
			st->bytes_fallback += (uint64_t)w;
		}
		xch_progress_add(XCOPY_METHOD_ZERO, (uint64_t)w);
	}
	xch_stats_fallback(st, XCOPY_FB_HOLE, 0);
	return 0;
}

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
	uint32_t bs;
	struct xcopy_stats *st;
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

	return defer(j, p->src_off + skip * bs, p->dst_off + skip * bs, nblocks * bs, why);
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
	bool close_dev;
};

/* Everything the host copies itself: [off, off+len) of both files. */
static int
all_fallback(struct job *j, uint64_t so, uint64_t dof, uint64_t len,
	     enum xcopy_fallback_reason why)
{
	if (j->flags & XCOPY_REQUIRE_OFFLOAD) {
		return xch_required_errno(why);
	}
	xch_stats_fallback(j->st, why, len);
	return host_copy(j->fd_in, so, j->fd_out, dof, len, j->st);
}

static int
offload_file(struct job *j, struct side *s, struct side *d, uint64_t so, uint64_t dof,
	     uint64_t len)
{
	struct xch_fext *se = NULL, *de = NULL, *se2 = NULL, *de2 = NULL;
	struct xch_piece *pv = NULL;
	struct xch_pair *pairs = NULL;
	size_t ns = 0, nd = 0, ns2 = 0, nd2 = 0, np = 0, npairs = 0, i;
	uint64_t bs = s->dev->caps.block_size;
	bool alloc_failed = false, any;
	int rc;

	j->bs = (uint32_t)bs;
	if (s->part_off % bs != 0 || d->part_off % bs != 0) {
		return all_fallback(j, so, dof, len, XCOPY_FB_UNALIGNED);
	}
	/* dirty data must be on the medium before the copy manager reads it */
	if (fdatasync(j->fd_in) != 0 || fdatasync(j->fd_out) != 0) {
		return -errno;
	}
	rc = xch_fiemap(j->fd_in, so, len, &se, &ns);
	if (rc == 0) {
		rc = xch_fiemap(j->fd_out, dof, len, &de, &nd);
	}
	if (rc == -EOPNOTSUPP || rc == -ENOTTY) {
		rc = all_fallback(j, so, dof, len, XCOPY_FB_EXTENT_FLAGS);
		goto out;
	}
	if (rc == 0) {
		rc = xch_map_pieces(se, ns, de, nd, so, dof, len, (uint32_t)bs, &pv, &np);
	}
	if (rc != 0) {
		goto out;
	}
	/* pass 1: zero the destination under source holes, allocate the rest */
	for (i = 0; i < np && rc == 0; i++) {
		if (pv[i].kind == XCH_PIECE_HOLE) {
			rc = zero_dst(j->fd_out, pv[i].dst_off, pv[i].len, j->flags, j->st);
		}
	}
	if (rc == 0) {
		rc = alloc_dst(j, pv, np, &any);
		if (rc == -EOPNOTSUPP) {
			alloc_failed = true;
			rc = 0;
		}
	}
	if (rc != 0) {
		goto out;
	}
	free(de);
	free(pv);
	de = NULL;
	pv = NULL;
	(void)fdatasync(j->fd_out);
	rc = xch_fiemap(j->fd_out, dof, len, &de, &nd);
	if (rc == 0) {
		rc = xch_map_pieces(se, ns, de, nd, so, dof, len, (uint32_t)bs, &pv, &np);
	}
	if (rc != 0) {
		goto out;
	}
	/* pass 2: offload pieces become pairs; the rest is queued */
	pairs = calloc(np ? np : 1, sizeof(*pairs));
	if (pairs == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < np && rc == 0; i++) {
		const struct xch_piece *p = &pv[i];
		enum xcopy_fallback_reason why = p->why;

		if (p->kind == XCH_PIECE_OFFLOAD) {
			struct xch_pair *q = &pairs[npairs++];

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
		if (why == XCOPY_FB_DST_EXTENT && alloc_failed) {
			why = XCOPY_FB_ALLOC;
		}
		if (j->flags & XCOPY_REQUIRE_OFFLOAD) {
			rc = xch_required_errno(why);
			break;
		}
		xch_stats_fallback(j->st, why, p->len);
		rc = defer(j, p->src_off, p->dst_off, p->len, why);
	}
	if (rc != 0) {
		goto out;
	}
	/* no stale destination pages may be written back over the copy */
	drop_cache(j->fd_out, dof, len);
	rc = (s->dev->dm != NULL || d->dev->dm != NULL ? xch_dm_copy_pairs : xch_copy_pairs)(
		s->dev, d->dev, pairs, npairs, j->flags, j->st, file_fallback, j);
	if (rc != 0) {
		goto out;
	}
	drop_cache(j->fd_out, dof, len);

	/* pass 3: what moved while the copy manager worked is redone */
	rc = xch_fiemap(j->fd_in, so, len, &se2, &ns2);
	if (rc == 0) {
		rc = xch_fiemap(j->fd_out, dof, len, &de2, &nd2);
	}
	for (i = 0; i < np && rc == 0; i++) {
		const struct xch_piece *p = &pv[i];

		if (p->kind != XCH_PIECE_OFFLOAD) {
			continue;
		}
		if (still_mapped(se2, ns2, p->src_off, p->len, p->src_phys, false) &&
		    still_mapped(de2, nd2, p->dst_off, p->len, p->dst_phys, true)) {
			continue;
		}
		XCH_WARN("mapping moved at offset %llu (+%llu): redoing",
			 (unsigned long long)p->src_off, (unsigned long long)p->len);
		if (j->st != NULL && j->st->bytes_offloaded >= p->len) {
			j->st->bytes_offloaded -= p->len;
		}
		xch_stats_fallback(j->st, XCOPY_FB_MAPPING_MOVED, p->len);
		rc = defer(j, p->src_off, p->dst_off, p->len, XCOPY_FB_MAPPING_MOVED);
	}
out:
	free(se);
	free(de);
	free(se2);
	free(de2);
	free(pv);
	free(pairs);
	return rc;
}

static int
flags_ok(unsigned flags)
{
	if ((flags & ~(unsigned)(XCOPY_REQUIRE_OFFLOAD | XCOPY_NO_OFFLOAD)) != 0) {
		return -EINVAL;
	}
	if ((flags & XCOPY_REQUIRE_OFFLOAD) && (flags & XCOPY_NO_OFFLOAD)) {
		return -EINVAL;
	}
	return 0;
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

static int
copy_locked(struct job *j, struct side *s, struct side *d, uint64_t so, uint64_t dof,
	    uint64_t len)
{
	int rc;

	if (j->flags & XCOPY_NO_OFFLOAD) {
		return all_fallback(j, so, dof, len, XCOPY_FB_REQUESTED);
	}
	rc = dev_for_file(s->st.st_dev, &s->dev, &s->part_off);
	if (rc == 0) {
		rc = dev_for_file(d->st.st_dev, &d->dev, &d->part_off);
	}
	if (rc != 0) {
		XCH_DBG("no SCSI device under the files (%d): host copy", rc);
		return all_fallback(j, so, dof, len, xch_file_dev_reason(rc));
	}
	s->close_dev = s->dev->cache_fd == -2;
	d->close_dev = d->dev->cache_fd == -2 && d->dev != s->dev;
	rc = offload_file(j, s, d, so, dof, len);
	if (s->close_dev) {
		xcopy_dev_close(s->dev);
	}
	if (d->close_dev) {
		xcopy_dev_close(d->dev);
	}
	return rc;
}

ssize_t
xcopy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len,
		 unsigned flags, struct xcopy_stats *stats)
{
	struct side s = { .fd = fd_in }, d = { .fd = fd_out };
	struct job j;
	uint64_t so = 0, dof = 0, end;
	size_t i;
	int rc;

	rc = flags_ok(flags);
	if (rc != 0) {
		return rc;
	}
	if (fstat(fd_in, &s.st) != 0 || fstat(fd_out, &d.st) != 0) {
		return -errno;
	}
	if (!S_ISREG(s.st.st_mode) || !S_ISREG(d.st.st_mode)) {
		return -EINVAL;
	}
	rc = get_pos(fd_in, off_in, &so);
	if (rc == 0) {
		rc = get_pos(fd_out, off_out, &dof);
	}
	if (rc != 0) {
		return rc;
	}
	/* like copy_file_range(2): stop at the source's end */
	if (so >= (uint64_t)s.st.st_size) {
		return 0;
	}
	if (len > (uint64_t)s.st.st_size - so) {
		len = (size_t)((uint64_t)s.st.st_size - so);
	}
	if (len > (size_t)SSIZE_MAX || dof > (uint64_t)INT64_MAX - len) {
		return -EOVERFLOW;
	}
	if (s.st.st_dev == d.st.st_dev && s.st.st_ino == d.st.st_ino && so < dof + len &&
	    dof < so + len) {
		return -EINVAL;
	}

	memset(&j, 0, sizeof(j));
	j.fd_in = fd_in;
	j.fd_out = fd_out;
	j.flags = flags;
	j.st = stats;
	xch_progress_begin(len);
	pthread_mutex_lock(&g_lock);
	rc = copy_locked(&j, &s, &d, so, dof, len);
	pthread_mutex_unlock(&g_lock);
	/* the queued ranges: after the offload and the cache drop */
	for (i = 0; i < j.nfb && rc == 0; i++) {
		rc = host_copy(fd_in, j.fb[i].src_off, fd_out, j.fb[i].dst_off, j.fb[i].len, stats);
	}
	xch_progress_end();
	free(j.fb);
	if (rc == 0) {
		struct stat now;

		/* holes at the end and WRITE_ZEROES may leave the size short */
		end = dof + len;
		if (fstat(fd_out, &now) == 0 && (uint64_t)now.st_size < end &&
		    ftruncate(fd_out, (off_t)end) != 0) {
			rc = -errno;
		}
	}
	if (rc == 0) {
		/* writes below the file system do not touch mtime; copy_file_range would */
		const struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };

		(void)futimens(fd_out, ts);
		if (fdatasync(fd_out) != 0) {
			rc = -errno;
		}
	}
	if (rc != 0) {
		return rc;
	}
	if (off_in != NULL) {
		*off_in += (int64_t)len;
	} else {
		(void)lseek(fd_in, (off_t)len, SEEK_CUR);
	}
	if (off_out != NULL) {
		*off_out += (int64_t)len;
	} else {
		(void)lseek(fd_out, (off_t)len, SEEK_CUR);
	}
	return (ssize_t)len;
}
