/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The device under a file: st_dev -> sysfs -> the SCSI disk (with its
 * partition window) or the device-mapper volume, opened once per file-system
 * device and cached (xcopy_file_range() and the plan share the cache).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "xcopy_internal.h"

enum {
	CACHE_SLOTS = 8,
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
