/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What is under a file system, found and opened: st_dev -> sysfs -> the
 * SCSI disk (with its partition window) or the device-mapper volume
 * (file_dev.c caches the handles). Its own file so that the unit tests can
 * put their fake target in its place at link time
 * (-Wl,--wrap=xch_fsdev_find, --wrap=xch_fsdev_open).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "xch_file.h"

int
xch_fsdev_find(dev_t fsdev, struct xch_blk *blk, uint64_t *part_off)
{
	int rc;

	memset(blk, 0, sizeof(*blk));
	*part_off = 0;
	rc = xch_sysfs_resolve("/sys", major(fsdev), minor(fsdev), blk);
	if (rc != 0) {
		return rc;
	}
	if (!blk->is_scsi && !blk->is_dm) {
		return -ENODEV;
	}
	*part_off = blk->is_dm ? 0 : blk->start * 512;
	return 0;
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

	snprintf(path, sizeof(path), "/dev/%s", blk->name);
	if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != fsdev) {
		return -ENODEV;
	}
	return xch_open_volume(path, fsdev, out);
}

/* Open the SCSI disk or device-mapper volume xch_fsdev_find found (no lock held). */
int
xch_fsdev_open(const struct xch_blk *blk, dev_t fsdev, struct xcopy_dev **out)
{
	const struct xch_transport_ops *ops;
	char path[96];
	void *ctx;
	int rc;

	*out = NULL;
	if (blk->is_dm) {
		return dm_for_file(blk, fsdev, out);
	}
	snprintf(path, sizeof(path), "/dev/%s", blk->disk);
	rc = xch_sg_open(path, &ops, &ctx);
	if (rc == 0) {
		rc = xch_dev_attach(ops, ctx, path, blk->is_partition ? blk->start : 0,
				    blk->is_partition ? blk->size : 0, out);
	}
	return rc;
}
