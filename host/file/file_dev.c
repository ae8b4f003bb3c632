/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The device under a file: st_dev -> sysfs -> the SCSI disk (with its
 * partition window) or the device-mapper volume, opened once per file-system
 * device and cached (xcopy_file_range() and the plan share the cache).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/xch_base.h"
#include "xch_file.h"

enum {
	CACHE_SLOTS = 8,
};

/* ------------------------------------------------------------------------ */
/* Device cache: one handle per file-system device, discovery done once     */
/* ------------------------------------------------------------------------ */

/*
 * g_lock guards g_cache, g_ncache and every cached handle's cache_refs, and
 * is held only to look a device up, insert it, drop it or count a holder:
 * never across discovery or a copy. A handle is closed when its last holder
 * (the cache, each call using it) lets go, so a flush or a stale volume
 * never closes a handle another call still copies with.
 */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	dev_t fsdev;           /* the file system's device: a disk or a partition */
	struct xcopy_dev *dev;
	int err;               /* open failed: remember, do not retry per call */
} g_cache[CACHE_SLOTS];
static size_t g_ncache;

/* One holder less (g_lock held): true when the caller must close dev. */
static bool
unref_locked(struct xcopy_dev *dev)
{
	return dev != NULL && --dev->cache_refs == 0;
}

void
xcopy_cache_flush(void)
{
	struct xcopy_dev *gone[CACHE_SLOTS];
	size_t i, n = 0;

	pthread_mutex_lock(&g_lock);
	for (i = 0; i < g_ncache; i++) {
		if (unref_locked(g_cache[i].dev)) {
			gone[n++] = g_cache[i].dev;
		}
	}
	g_ncache = 0;
	pthread_mutex_unlock(&g_lock);
	for (i = 0; i < n; i++) {
		xcopy_dev_close(gone[i]);
	}
}

void
xch_file_dev_put(struct xcopy_dev *dev)
{
	bool last;

	pthread_mutex_lock(&g_lock);
	last = unref_locked(dev);
	pthread_mutex_unlock(&g_lock);
	if (last) {
		xcopy_dev_close(dev);
	}
}

/*
 * A cached volume whose table changed since it was opened is dropped from
 * the cache (and opened again by the caller). g_lock held; returns the
 * handle the caller closes after unlocking, or NULL.
 */
static struct xcopy_dev *
cache_drop_stale_locked(dev_t fsdev)
{
	struct xcopy_dev *dev;
	size_t i;

	for (i = 0; i < g_ncache; i++) {
		dev = g_cache[i].dev;
		if (g_cache[i].fsdev == fsdev && dev != NULL && !xch_dev_tables_same(dev)) {
			XCH_INFO("%s: device-mapper table changed: mapping it again", dev->name);
			g_cache[i] = g_cache[--g_ncache];
			return unref_locked(dev) ? dev : NULL;
		}
	}
	return NULL;
}

/*
 * The cached entry of fsdev (g_lock held): true with *out referenced for
 * the caller (or NULL) and *rc its open result; false when not cached.
 */
static bool
lookup_locked(dev_t fsdev, struct xcopy_dev **out, int *rc)
{
	size_t i;

	for (i = 0; i < g_ncache; i++) {
		if (g_cache[i].fsdev == fsdev) {
			*out = g_cache[i].dev;
			*rc = g_cache[i].err;
			if (*out != NULL) {
				(*out)->cache_refs++;
			}
			return true;
		}
	}
	return false;
}

/*
 * Cache what was just opened (its result rc included) unless another call
 * cached fsdev meanwhile: then *out becomes that entry and *spare is the
 * handle opened in vain (the caller closes it). g_lock held; *out is
 * referenced for the caller.
 */
static int
insert_locked(dev_t fsdev, struct xcopy_dev **out, int rc, struct xcopy_dev **spare)
{
	struct xcopy_dev *mine = *out;
	int cached_rc;

	*spare = NULL;
	if (lookup_locked(fsdev, out, &cached_rc)) {
		*spare = mine;
		return cached_rc;
	}
	if (mine != NULL) {
		mine->cache_refs = 1;          /* the caller */
	}
	if (g_ncache < CACHE_SLOTS) {
		g_cache[g_ncache].fsdev = fsdev;
		g_cache[g_ncache].dev = mine;
		g_cache[g_ncache].err = rc;
		g_ncache++;
		if (mine != NULL) {
			mine->cache_refs++;    /* the cache */
		}
	}
	return rc;
}

/*
 * The handle for the SCSI disk under st_dev, addressing only the file
 * system's own blocks (its partition window), and the partition's byte
 * offset on the disk; or the handle of the device-mapper volume under it.
 * Discovery runs without the cache's lock: two calls may open the same
 * device at once, the second to finish uses the first one's handle.
 */
int
xch_file_dev(dev_t fsdev, struct xcopy_dev **out, uint64_t *part_off)
{
	struct xcopy_dev *stale = NULL, *spare = NULL;
	struct xch_blk blk;
	bool hit;
	int rc;

	*out = NULL;
	rc = xch_fsdev_find(fsdev, &blk, part_off);
	if (rc != 0) {
		return rc;
	}
	pthread_mutex_lock(&g_lock);
	if (blk.is_dm) {
		stale = cache_drop_stale_locked(fsdev);
	}
	hit = lookup_locked(fsdev, out, &rc);
	pthread_mutex_unlock(&g_lock);
	xcopy_dev_close(stale);
	if (hit) {
		return rc;
	}
	rc = xch_fsdev_open(&blk, fsdev, out);
	pthread_mutex_lock(&g_lock);
	rc = insert_locked(fsdev, out, rc, &spare);
	pthread_mutex_unlock(&g_lock);
	xcopy_dev_close(spare);
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
