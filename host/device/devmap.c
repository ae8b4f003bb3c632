/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which LU blocks a device node addresses. The kernel passes SG_IO on a
 * partition, and (for a caller with CAP_SYS_RAWIO) on a device-mapper node,
 * straight to the whole disk underneath: READ CAPACITY then describes the
 * disk and every LBA sent addresses the disk, not the device the user
 * named. So a command goes through a block node only when the library knows
 * exactly how the node's sectors map to LBAs:
 *   - a whole SCSI disk: identity;
 *   - a partition of one: start and length from sysfs;
 * and the node's own size (BLKGETSIZE64) agrees with that window. A
 * device-mapper volume whose table is a plain remap of such devices (linear,
 * striped, multipath) is mapped piece by piece onto handles of the devices
 * under it (dm.c, mpath.c); commands then go to those devices, never through
 * the volume's node (XCOPY_DM=off turns this off). Any
 * other block device (other dm targets, md, loop, nbd, zram...) opens as a
 * host-only handle (the host kind, below): copies from or to it are done
 * with pread/pwrite on the node itself and EXTENDED COPY is never sent.
 * Every range any caller sends is checked against the handle's window
 * (xch_dev_range_check, dev.c). xcopy_dev_open() is here: the top of
 * device/, the one file that knows every kind.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/xch_base.h"
#include "xch_device.h"
#include "xos.h"

enum {
	SECTOR = 512,
	HOST_BLOCK = 512,       /* host-only handles count in 512-byte blocks */
};

static int
node_size(const char *path, int *fdp, uint64_t *bytes, uint32_t *lbs)
{
	int fd, ssz = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	if (ioctl(fd, BLKGETSIZE64, bytes) != 0 || (lbs != NULL && ioctl(fd, BLKSSZGET, &ssz) != 0)) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (lbs != NULL) {
		*lbs = ssz > 0 ? (uint32_t)ssz : HOST_BLOCK;
	}
	*fdp = fd;
	return 0;
}

static bool
host_false(const struct xcopy_dev *d)
{
	(void)d;
	return false;
}

static void
host_close(struct xcopy_dev *d)
{
	(void)d;
}

/* The host kind: a node the host reads and writes (host_fd), nothing else. */
static const struct xch_dev_kind g_host_kind = {
	.name = "host",
	.reach = XCH_REACH_HOST,
	.exec = xch_no_exec,
	.rw = xch_host_rw,
	.concurrent = host_false,
	.offload = host_false,
	.tables_same = xch_same_always,
	.locate = xch_locate_self,
	.written = xch_written_node,
	.lu_key = xch_key_node,
	.close = host_close,
};

/* A handle on a block node with no transport: sizes from the node itself. */
static int
open_host_only(const char *path, dev_t rdev, struct xcopy_dev **out)
{
	struct xcopy_dev *d;
	uint64_t bytes = 0;
	uint32_t lbs = 0;
	int fd = -1, rc;

	rc = node_size(path, &fd, &bytes, &lbs);
	if (rc != 0) {
		return rc;
	}
	d = xch_dev_new(&g_host_kind, NULL, path);
	if (d == NULL) {
		close(fd);
		return -ENOMEM;
	}
	d->host_fd = fd;
	d->disabled = true;
	d->disabled_why = XCOPY_FB_NOT_SCSI;
	d->rdev = rdev;
	d->caps.block_size = lbs;
	d->caps.num_blocks = bytes / lbs;
	d->caps.part_start = 0;
	d->caps.part_blocks = d->caps.num_blocks;
	*out = d;
	return 0;
}

/* XCOPY_DM=off: device-mapper volumes stay host-only (no mapping at all). */
static bool
dm_mapping_enabled(void)
{
	const char *v = getenv("XCOPY_DM");

	return v == NULL || strcmp(v, "off") != 0;
}

/* Open the block device MAJ:MIN under a volume by its kernel name (/dev/NAME, checked). */
static int
open_under(void *arg, unsigned major, unsigned minor, int depth, struct xcopy_dev **out)
{
	struct xch_blk blk;
	struct stat st;
	char path[96];
	int rc;

	(void)arg;
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
 * A device-mapper volume: mapped onto the devices under it, or host-only
 * (*mapped false) when it cannot be.
 */
static int
open_dm(const char *path, dev_t rdev, const struct xch_blk *b, int depth, struct xcopy_dev **out,
	bool *mapped)
{
	char why[160] = "";
	int rc;

	rc = open_host_only(path, rdev, out);
	if (rc != 0) {
		return rc;
	}
	if (!dm_mapping_enabled()) {
		if (depth == 0) {
			XCH_WARN("%s (%s): a device-mapper device, XCOPY_DM=off: no EXTENDED COPY "
				 "through it; copies go through the host", path, b->name);
		}
		return 0;
	}
	rc = xch_dm_attach(*out, major(rdev), minor(rdev), depth, open_under, why, sizeof(why));
	if (rc == -ENOMEM) {
		xcopy_dev_close(*out);
		*out = NULL;
		return rc;
	}
	if (rc != 0) {
		XCH_WARN("%s (%s): a device-mapper device that is not a plain remap of SCSI disks "
			 "(%s): no EXTENDED COPY through it; copies go through the host", path,
			 b->name, why);
		return 0;
	}
	/* commands go to the devices underneath, never through this node */
	*mapped = true;
	(*out)->caps.offload = xch_dev_offload(*out);
	XCH_INFO("%s (%s): device-mapper volume over %zu piece(s)%s", path, b->name,
		 xch_dm_pieces(*out), (*out)->caps.offload ? "" : ", not every LU offloads");
	return 0;
}

int
xch_open_blockdev(const char *path, dev_t rdev, struct xcopy_dev **out)
{
	return xch_open_blockdev_depth(path, rdev, 0, out);
}

/* The part of the disk (partition window) d may copy; -ENODEV if sizes disagree. */
static int
set_window(const char *path, const struct xch_blk *blk, uint64_t bytes, struct xcopy_dev *d)
{
	struct xch_window w;
	int rc;

	rc = xch_blk_window(blk, d->caps.block_size, d->caps.num_blocks, bytes, &w);
	if (rc != 0) {
		XCH_ERR("%s: the device's size (%llu bytes) and its place on %s (%llu+%llu sectors, "
			"LU %llu x %u) disagree: refused", path, (unsigned long long)bytes, blk->disk,
			(unsigned long long)blk->start, (unsigned long long)blk->size,
			(unsigned long long)d->caps.num_blocks, d->caps.block_size);
		return rc == -ENOTBLK ? -ENODEV : rc;
	}
	d->caps.part_start = w.start;
	d->caps.part_blocks = w.blocks;
	return 0;
}

int
xch_open_blockdev_depth(const char *path, dev_t rdev, int depth, struct xcopy_dev **out)
{
	const struct xch_transport_ops *ops;
	struct xch_blk blk;
	char disk[96];
	uint64_t bytes = 0;
	void *ctx;
	int rc, fd = -1;

	*out = NULL;
	rc = xch_sysfs_resolve("/sys", major(rdev), minor(rdev), &blk);
	if (rc != 0) {
		return rc;
	}
	if (blk.is_dm) {
		bool mapped = false;

		return open_dm(path, rdev, &blk, depth, out, &mapped);
	}
	if (!blk.is_scsi) {
		rc = open_host_only(path, rdev, out);
		if (rc == 0) {
			XCH_WARN("%s (%s): not a SCSI disk or a partition of one: no EXTENDED COPY "
				 "through it; copies go through the host", path, blk.name);
		}
		return rc;
	}
	rc = node_size(path, &fd, &bytes, NULL);
	if (rc != 0) {
		return rc;
	}
	/* commands always go to the whole disk; the window says which part of it is ours */
	snprintf(disk, sizeof(disk), "/dev/%s", blk.disk);
	rc = xch_sg_open(blk.is_partition ? disk : path, &ops, &ctx);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	rc = xch_dev_attach(ops, ctx, path, 0, 0, out);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	rc = set_window(path, &blk, bytes, *out);
	if (rc != 0) {
		close(fd);
		xcopy_dev_close(*out);
		*out = NULL;
		return rc;
	}
	(*out)->rdev = rdev;
	(*out)->host_fd = fd;
	(*out)->cache_fd = open(blk.is_partition ? disk : path, O_RDONLY | O_CLOEXEC);
	return 0;
}

int
xch_open_chardev(const char *path, dev_t rdev, struct xcopy_dev **out)
{
	const struct xch_transport_ops *ops;
	void *ctx;
	int rc;

	*out = NULL;
	rc = xch_sysfs_char_is_scsi("/sys", major(rdev), minor(rdev));
	if (rc < 0) {
		return rc;
	}
	if (rc == 0) {
		XCH_ERR("%s: not a SCSI generic node", path);
		return -ENODEV;
	}
	rc = xch_sg_open(path, &ops, &ctx);
	if (rc != 0) {
		return rc;
	}
	return xch_dev_attach(ops, ctx, path, 0, 0, out);
}

int
xch_open_volume(const char *path, dev_t rdev, struct xcopy_dev **out)
{
	struct xch_blk blk;
	bool mapped = false;
	int rc;

	*out = NULL;
	rc = xch_sysfs_resolve("/sys", major(rdev), minor(rdev), &blk);
	if (rc == 0 && !blk.is_dm) {
		rc = -ENODEV;
	}
	if (rc == 0) {
		rc = open_dm(path, rdev, &blk, 0, out, &mapped);
	}
	if (rc == 0 && !mapped) {
		xcopy_dev_close(*out);
		*out = NULL;
		rc = -ENODEV;
	}
	return rc;
}

int
xcopy_dev_open(const char *path, struct xcopy_dev **out)
{
	const struct xch_transport_ops *ops;
	struct stat st;
	void *ctx;
	int rc;

	*out = NULL;
	if (path == NULL) {
		return -EINVAL;
	}
	if (strncmp(path, "iscsi://", 8) == 0) {
		rc = xch_iscsi_open(path, &ops, &ctx);
		if (rc != 0) {
			return rc;
		}
		return xch_dev_attach(ops, ctx, path, 0, 0, out);
	}
	if (stat(path, &st) != 0) {
		return -errno;
	}
	if (S_ISCHR(st.st_mode)) {
		return xch_open_chardev(path, st.st_rdev, out);
	}
	if (S_ISBLK(st.st_mode)) {
		return xch_open_blockdev(path, st.st_rdev, out);
	}
	return -ENODEV;
}
