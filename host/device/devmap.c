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
 * host-only handle: copies from or to it are done with pread/pwrite on the
 * node itself and EXTENDED COPY is never sent. Every range any caller sends
 * is checked against the handle's window here (xch_dev_range_check).
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

int
xch_blk_window(const struct xch_blk *b, uint32_t block_size, uint64_t lu_blocks,
	       uint64_t dev_bytes, struct xch_window *out)
{
	uint64_t start_b, size_b;

	memset(out, 0, sizeof(*out));
	if (!b->is_scsi || b->is_dm || block_size == 0) {
		return -ENOTBLK;
	}
	if (b->size > UINT64_MAX / SECTOR || b->start > UINT64_MAX / SECTOR) {
		return -ERANGE;
	}
	size_b = b->size * SECTOR;
	start_b = b->start * SECTOR;
	if (dev_bytes != size_b) {
		return -ERANGE;
	}
	if (!b->is_partition) {
		/* the whole disk: sysfs, the node and READ CAPACITY must agree */
		if (lu_blocks > UINT64_MAX / block_size || lu_blocks * block_size != size_b) {
			return -ERANGE;
		}
		out->start = 0;
		out->blocks = lu_blocks;
		return 0;
	}
	if (start_b % block_size != 0 || size_b % block_size != 0) {
		return -EINVAL;
	}
	out->start = start_b / block_size;
	out->blocks = size_b / block_size;
	if (out->start > lu_blocks || out->blocks > lu_blocks - out->start) {
		memset(out, 0, sizeof(*out));
		return -ERANGE;
	}
	return 0;
}

int
xch_dev_range_check(const struct xcopy_dev *d, uint64_t lba, uint64_t n)
{
	const struct xcopy_caps *c = &d->caps;

	/* subtraction form: no overflow */
	if (lba < c->part_start || lba - c->part_start > c->part_blocks ||
	    n > c->part_blocks - (lba - c->part_start)) {
		XCH_ERR("%s: range %llu+%llu outside the device's blocks %llu+%llu: refused",
			d->name, (unsigned long long)lba, (unsigned long long)n,
			(unsigned long long)c->part_start, (unsigned long long)c->part_blocks);
		return -ERANGE;
	}
	return 0;
}

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
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		close(fd);
		return -ENOMEM;
	}
	d->cache_fd = -1;
	d->host_fd = fd;
	d->host_only = true;
	d->disabled = true;
	d->disabled_why = XCOPY_FB_NOT_SCSI;
	d->next_list_id = 1;
	d->rdev = rdev;
	snprintf(d->name, sizeof(d->name), "%s", path);
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

/* A device-mapper volume: mapped onto the devices under it, or host-only. */
static int
open_dm(const char *path, dev_t rdev, const struct xch_blk *b, int depth, struct xcopy_dev **out)
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
	rc = xch_dm_attach(*out, major(rdev), minor(rdev), depth, why, sizeof(why));
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
	(*out)->host_only = false;
	(*out)->caps.offload = xch_dm_offload(*out);
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
		return open_dm(path, rdev, &blk, depth, out);
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
xch_host_rw(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf)
{
	size_t len = (size_t)nblocks * d->caps.block_size;
	uint64_t off = lba * d->caps.block_size;

	return write ? xos_pwrite_full(d->host_fd, buf, len, off)
		     : xos_pread_full(d->host_fd, buf, len, off);
}
