/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device-mapper volumes (LVM logical volumes) whose table is a plain linear
 * remap: each "linear MAJ:MIN OFFSET" target maps a run of the volume's
 * sectors to a run of another block device, which is a SCSI disk, a
 * partition of one, or another such volume (resolved recursively). A copy
 * between such volumes is cut at every piece boundary of both sides and each
 * run is copied between the devices underneath, where EXTENDED COPY can be
 * sent. Anything else (striped, snapshot, thin, crypt, raid, cache, a
 * suspended volume, a table that changed) is refused and the volume opens
 * host-only. The table is read through libdevmapper (DM_DEVICE_TABLE) when
 * the volume is opened, and compared again before and after every copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xcopy_internal.h"

enum {
	DM_MAX_DEPTH = 8,       /* volumes stacked on volumes */
	DM_MAX_PIECES = 4096,
	DM_TABLE_MAX = 1 << 20, /* bytes of table text kept for the change check */
};

struct xch_dm_piece {
	uint64_t start;         /* first block of the volume */
	uint64_t blocks;
	struct xcopy_dev *dev;  /* the device underneath (owned) */
	uint64_t dev_lba;       /* first block on dev, relative to dev's window */
};

struct xch_dm_map {
	unsigned major, minor;
	size_t n;
	struct xch_dm_piece *p;
	char *table;            /* the table as read at open */
};

static void
dm_quiet(int level, const char *file, int line, int dm_errno, const char *f, ...)
{
	(void)level;
	(void)file;
	(void)line;
	(void)dm_errno;
	(void)f;
}

/*
 * The live table of MAJ:MIN as text ("START LEN TYPE PARAMS\n" per target).
 * 0, -ENXIO (no such volume), -EBUSY (suspended), -ENOMEM, -EIO.
 */
static int
dm_table_text(unsigned major, unsigned minor, char **out)
{
	struct dm_task *t;
	struct dm_info info;
	uint64_t start, len;
	char *type, *params, *buf = NULL;
	size_t used = 0, cap = 0;
	void *next = NULL;
	int rc = 0;

	*out = NULL;
	dm_log_with_errno_init(dm_quiet);
	t = dm_task_create(DM_DEVICE_TABLE);
	if (t == NULL) {
		return -ENOMEM;
	}
	if (!dm_task_set_major(t, (int)major) || !dm_task_set_minor(t, (int)minor) ||
	    !dm_task_run(t) || !dm_task_get_info(t, &info)) {
		rc = -EIO;
		goto out;
	}
	if (!info.exists) {
		rc = -ENXIO;
		goto out;
	}
	if (info.suspended) {
		rc = -EBUSY;
		goto out;
	}
	do {
		int n;

		next = dm_get_next_target(t, next, &start, &len, &type, &params);
		if (type == NULL) {
			break;
		}
		for (;;) {
			n = snprintf(buf == NULL ? NULL : buf + used, cap - used,
				     "%" PRIu64 " %" PRIu64 " %s %s\n", start, len, type,
				     params != NULL ? params : "");
			if (n < 0) {
				rc = -EIO;
				goto out;
			}
			if ((size_t)n < cap - used) {
				used += (size_t)n;
				break;
			}
			if (cap >= DM_TABLE_MAX) {
				rc = -E2BIG;
				goto out;
			}
			char *nb = realloc(buf, cap == 0 ? 4096 : cap * 2);
			if (nb == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = cap == 0 ? 4096 : cap * 2;
		}
	} while (next != NULL);
	if (buf == NULL) {
		rc = -ENOTSUP; /* no table loaded */
	}
out:
	dm_task_destroy(t);
	if (rc != 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

static void
map_free(struct xch_dm_map *m)
{
	size_t i;

	if (m == NULL) {
		return;
	}
	for (i = 0; i < m->n; i++) {
		xcopy_dev_close(m->p[i].dev);
	}
	free(m->p);
	free(m->table);
	free(m);
}

size_t
xch_dm_pieces(const struct xcopy_dev *d)
{
	return d->dm != NULL ? d->dm->n : 0;
}

struct xcopy_dev *
xch_dm_piece_dev(const struct xcopy_dev *d, size_t i)
{
	return d->dm->p[i].dev;
}

void
xch_dm_free(struct xcopy_dev *d)
{
	map_free(d->dm);
	d->dm = NULL;
}

/* Open the block device MAJ:MIN by its kernel name (/dev/NAME, checked). */
static int
open_under(unsigned major, unsigned minor, int depth, struct xcopy_dev **out)
{
	struct xch_blk blk;
	struct stat st;
	char path[96];
	int rc;

	rc = xch_sysfs_resolve("/sys", major, minor, &blk);
	if (rc != 0) {
		return rc;
	}
	snprintf(path, sizeof(path), "/dev/%s", blk.name);
	if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != major ||
	    minor(st.st_rdev) != minor) {
		return -ENODEV;
	}
	return xch_open_blockdev_depth(path, st.st_rdev, depth, out);
}

/*
 * One "START LEN linear MAJ:MIN OFFSET" line into a piece. bs: the volume's
 * logical block size; every number must fall on it. 0, -ENOTSUP (not a
 * linear target), -EINVAL (unaligned), or what opening the device returned.
 */
static int
parse_piece(const char *line, uint32_t bs, int depth, struct xch_dm_piece *p, char *why,
	    size_t whylen)
{
	uint64_t start, len, off;
	unsigned ma, mi;
	char type[32];
	uint32_t spb = bs / 512;
	int rc;

	if (sscanf(line, "%" SCNu64 " %" SCNu64 " %31s", &start, &len, type) != 3) {
		snprintf(why, whylen, "unreadable table line");
		return -EINVAL;
	}
	if (strcmp(type, "linear") != 0) {
		snprintf(why, whylen, "a '%s' target, not a plain linear remap", type);
		return -ENOTSUP;
	}
	if (sscanf(line, "%*u %*u %*s %u:%u %" SCNu64, &ma, &mi, &off) != 3) {
		snprintf(why, whylen, "linear target names no MAJ:MIN device");
		return -EINVAL;
	}
	if (spb == 0 || start % spb != 0 || len % spb != 0 || off % spb != 0 || len == 0) {
		snprintf(why, whylen, "linear target not on %u-byte blocks", bs);
		return -EINVAL;
	}
	rc = open_under(ma, mi, depth + 1, &p->dev);
	if (rc != 0) {
		snprintf(why, whylen, "device %u:%u under it cannot be opened (%s)", ma, mi,
			 strerror(-rc));
		return rc;
	}
	if (p->dev->caps.block_size != bs) {
		snprintf(why, whylen, "device %u:%u has %u-byte blocks, the volume %u", ma, mi,
			 p->dev->caps.block_size, bs);
		return -EINVAL;
	}
	p->start = start / spb;
	p->blocks = len / spb;
	p->dev_lba = off / spb;
	if (p->dev_lba > p->dev->caps.part_blocks ||
	    p->blocks > p->dev->caps.part_blocks - p->dev_lba) {
		snprintf(why, whylen, "linear target runs past the end of %u:%u", ma, mi);
		return -ERANGE;
	}
	return 0;
}

static int
build_map(struct xch_dm_map *m, uint32_t bs, uint64_t vol_blocks, int depth, char *why,
	  size_t whylen)
{
	const char *line;
	uint64_t next = 0;
	size_t cap = 0;
	int rc;

	for (line = m->table; *line != '\0'; line = strchr(line, '\n') + 1) {
		if (m->n == cap) {
			struct xch_dm_piece *np;

			if (cap >= DM_MAX_PIECES) {
				snprintf(why, whylen, "more than %d targets", DM_MAX_PIECES);
				return -E2BIG;
			}
			cap = cap == 0 ? 8 : cap * 2;
			np = realloc(m->p, cap * sizeof(*np));
			if (np == NULL) {
				return -ENOMEM;
			}
			m->p = np;
		}
		memset(&m->p[m->n], 0, sizeof(m->p[m->n]));
		rc = parse_piece(line, bs, depth, &m->p[m->n], why, whylen);
		if (m->p[m->n].dev != NULL) {
			m->n++;
		}
		if (rc != 0) {
			return rc;
		}
		/* targets tile the volume from sector 0, in order, without gaps */
		if (m->p[m->n - 1].start != next) {
			snprintf(why, whylen, "targets leave a gap at block %" PRIu64, next);
			return -EINVAL;
		}
		next += m->p[m->n - 1].blocks;
	}
	if (next != vol_blocks) {
		snprintf(why, whylen, "table covers %" PRIu64 " of %" PRIu64 " blocks", next,
			 vol_blocks);
		return -ERANGE;
	}
	return 0;
}

int
xch_dm_attach(struct xcopy_dev *d, unsigned major, unsigned minor, int depth, char *why,
	      size_t whylen)
{
	struct xch_dm_map *m;
	int rc;

	if (depth >= DM_MAX_DEPTH) {
		snprintf(why, whylen, "volumes stacked more than %d deep", DM_MAX_DEPTH);
		return -ELOOP;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		return -ENOMEM;
	}
	m->major = major;
	m->minor = minor;
	rc = dm_table_text(major, minor, &m->table);
	if (rc != 0) {
		snprintf(why, whylen, "%s", rc == -EBUSY ? "the volume is suspended"
					    : rc == -ENOTSUP ? "the volume has no table"
							     : "its table cannot be read");
		map_free(m);
		return rc == -EIO ? -ENOTSUP : rc;
	}
	rc = build_map(m, d->caps.block_size, d->caps.num_blocks, depth, why, whylen);
	if (rc != 0) {
		map_free(m);
		return rc;
	}
	d->dm = m;
	return 0;
}

/* The table now is the table at open (0), or not (-ESTALE). */
static int
table_same(const struct xcopy_dev *d)
{
	char *now = NULL;
	int rc;

	rc = dm_table_text(d->dm->major, d->dm->minor, &now);
	if (rc == 0 && strcmp(now, d->dm->table) != 0) {
		rc = -ESTALE;
	}
	free(now);
	return rc == 0 ? 0 : -ESTALE;
}

/* Where block lba of h lies: the device, its block, blocks left in this piece. */
static void
locate(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev, uint64_t *dev_lba,
       uint64_t *run)
{
	size_t lo = 0, hi;
	const struct xch_dm_piece *p;

	if (h->dm == NULL) {
		*dev = h;
		*dev_lba = lba;
		*run = h->caps.part_blocks - lba;
		return;
	}
	hi = h->dm->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->dm->p[mid].start <= lba) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	p = &h->dm->p[lo];
	*dev = p->dev;
	*dev_lba = p->dev_lba + (lba - p->start);
	*run = p->start + p->blocks - lba;
}

static int
split_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	   uint64_t nblocks, unsigned flags, struct xcopy_stats *st)
{
	uint64_t done = 0;
	int rc;

	while (done < nblocks) {
		struct xcopy_dev *sd, *dd;
		uint64_t sl, dl, sr, dr, n;

		locate(src, src_lba + done, &sd, &sl, &sr);
		locate(dst, dst_lba + done, &dd, &dl, &dr);
		n = nblocks - done;
		n = sr < n ? sr : n;
		n = dr < n ? dr : n;
		rc = xcopy_dev_copy(sd, sl, dd, dl, n, flags, st);
		if (rc != 0) {
			return rc;
		}
		done += n;
	}
	return 0;
}

/* Host copy between the volumes' own nodes (the mapping cannot be trusted). */
static int
host_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	  uint64_t nblocks, struct xcopy_stats *st)
{
	uint32_t bs = src->caps.block_size, chunk = (4u << 20) / bs;
	uint64_t done = 0;
	uint8_t *buf;
	int rc = 0;

	chunk = chunk == 0 ? 1 : chunk;
	if (src_lba > src->caps.part_blocks || nblocks > src->caps.part_blocks - src_lba ||
	    dst_lba > dst->caps.part_blocks || nblocks > dst->caps.part_blocks - dst_lba) {
		return -ERANGE;
	}
	buf = malloc((size_t)chunk * bs);
	if (buf == NULL) {
		return -ENOMEM;
	}
	while (done < nblocks && rc == 0) {
		uint32_t n = nblocks - done < chunk ? (uint32_t)(nblocks - done) : chunk;

		rc = xch_host_rw(src, false, src_lba + done, n, buf);
		if (rc == 0) {
			rc = xch_host_rw(dst, true, dst_lba + done, n, buf);
		}
		done += n;
	}
	free(buf);
	if (rc == 0 && fdatasync(dst->host_fd) != 0) {
		rc = -errno;
	}
	if (rc == 0) {
		xch_stats_fallback(st, XCOPY_FB_MAPPING_MOVED, nblocks * bs);
	}
	return rc;
}

int
xch_dm_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	    uint64_t nblocks, unsigned flags, struct xcopy_stats *st)
{
	struct xcopy_stats before;
	bool moved;
	int rc;

	if (st != NULL) {
		before = *st;
	}
	moved = (src->dm != NULL && table_same(src) != 0) ||
		(dst->dm != NULL && table_same(dst) != 0);
	if (!moved) {
		rc = split_copy(src, src_lba, dst, dst_lba, nblocks, flags, st);
		if (rc != 0) {
			return rc;
		}
		/* a table changed while the copy ran: what it wrote may be elsewhere now */
		moved = (src->dm != NULL && table_same(src) != 0) ||
			(dst->dm != NULL && table_same(dst) != 0);
		if (!moved) {
			if (dst->dm != NULL && dst->host_fd >= 0) {
				(void)posix_fadvise(dst->host_fd,
						    (off_t)(dst_lba * dst->caps.block_size),
						    (off_t)(nblocks * dst->caps.block_size),
						    POSIX_FADV_DONTNEED);
			}
			return 0;
		}
		if (st != NULL) {
			*st = before;
		}
	}
	XCH_WARN("%s -> %s: a device-mapper table changed: copying through the volumes on the host",
		 src->name, dst->name);
	if (flags & XCOPY_REQUIRE_OFFLOAD) {
		return -EOPNOTSUPP;
	}
	if (src->host_fd < 0 || dst->host_fd < 0) {
		return -ESTALE;
	}
	return host_copy(src, src_lba, dst, dst_lba, nblocks, st);
}
