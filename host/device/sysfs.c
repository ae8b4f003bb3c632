/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sysfs: from a device number to its whole disk, the partition window and
 * whether a SCSI device is behind it. /sys/dev/block/MAJ:MIN links to the
 * device's directory; a partition's directory has a "partition" file and
 * sits inside its disk's directory ("start" and "size" in 512-byte sectors).
 * A SCSI disk's "device" link leads to its scsi_device; device-mapper, md,
 * loop, nbd, zram, virtio-blk and NVMe disks have none. The root is a
 * parameter so the unit tests can build a fake tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xch_device.h"

enum {
	BLK_SECTOR = 512,
};

static int
read_line(const char *dir, const char *name, char *buf, size_t cap)
{
	char path[PATH_MAX];
	FILE *f;
	int rc = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		return -ENAMETOOLONG;
	}
	f = fopen(path, "re");
	if (f == NULL) {
		return -errno;
	}
	if (fgets(buf, (int)cap, f) == NULL) {
		rc = -EIO;
	} else {
		buf[strcspn(buf, "\n")] = '\0';
	}
	fclose(f);
	return rc;
}

static int
read_u64(const char *dir, const char *name, uint64_t *v)
{
	char buf[64], *end;
	int rc = read_line(dir, name, buf, sizeof(buf));

	if (rc != 0) {
		return rc;
	}
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno != 0 || end == buf) {
		return -EINVAL;
	}
	return 0;
}

static bool
exists(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		return false;
	}
	return stat(path, &st) == 0;
}

/* Size (and for a partition its start) of the device at dir; a partition's dir becomes its disk's. */
static int
sysfs_sizes(char *dir, struct xch_blk *out)
{
	char *slash;
	int rc;

	if (!exists(dir, "partition")) {
		return read_u64(dir, "size", &out->size);
	}
	out->is_partition = true;
	rc = read_u64(dir, "start", &out->start);
	if (rc != 0) {
		return rc;
	}
	rc = read_u64(dir, "size", &out->size);
	if (rc != 0) {
		return rc;
	}
	/* the disk is the parent directory */
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir) {
		return -ENODEV;
	}
	*slash = '\0';
	return 0;
}

int
xch_sysfs_resolve(const char *sysroot, unsigned major, unsigned minor, struct xch_blk *out)
{
	char link[PATH_MAX], dir[PATH_MAX], devbuf[32];
	char *slash;
	const char *name;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((size_t)snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysroot, major, minor) >=
	    sizeof(link)) {
		return -ENAMETOOLONG;
	}
	if (realpath(link, dir) == NULL) {
		return -errno;
	}
	slash = strrchr(dir, '/');
	name = slash != NULL ? slash + 1 : dir;
	if (strlen(name) >= sizeof(out->name) || name[0] == '\0') {
		return -ENAMETOOLONG;
	}
	strcpy(out->name, name);
	rc = sysfs_sizes(dir, out);
	if (rc != 0) {
		return rc;
	}
	slash = strrchr(dir, '/');
	name = slash != NULL ? slash + 1 : dir;
	if (strlen(name) >= sizeof(out->disk) || name[0] == '\0') {
		return -ENAMETOOLONG;
	}
	strcpy(out->disk, name);
	rc = read_line(dir, "dev", devbuf, sizeof(devbuf));
	if (rc != 0) {
		return rc;
	}
	if (sscanf(devbuf, "%u:%u", &out->disk_major, &out->disk_minor) != 2) {
		return -EINVAL;
	}
	/* a SCSI disk's "device" is a scsi_device (dm, loop, nvme have none) */
	out->is_scsi = exists(dir, "device/scsi_device") || exists(dir, "device/scsi_disk");
	/* device-mapper (LVM, multipath, crypt...) says so itself */
	out->is_dm = exists(dir, "dm");
	/* what FALLOC_FL_WRITE_ZEROES needs of the disk; absent before 6.17 */
	if (read_u64(dir, "queue/write_zeroes_unmap_max_bytes", &out->wz_unmap) != 0) {
		out->wz_unmap = 0;
	}
	return 0;
}

int
xch_sysfs_char_is_scsi(const char *sysroot, unsigned major, unsigned minor)
{
	char link[PATH_MAX], dir[PATH_MAX];

	if ((size_t)snprintf(link, sizeof(link), "%s/dev/char/%u:%u", sysroot, major, minor) >=
	    sizeof(link)) {
		return -ENAMETOOLONG;
	}
	if (realpath(link, dir) == NULL) {
		return -errno;
	}
	/* /dev/sgN and /dev/bsg/H:C:T:L: a class device whose parent is a scsi_device */
	return exists(dir, "device/scsi_device") ? 1 : 0;
}

/* The window of LU blocks a node addresses (xch_device.h). */
int
xch_blk_window(const struct xch_blk *b, uint32_t block_size, uint64_t lu_blocks,
	       uint64_t dev_bytes, struct xch_window *out)
{
	uint64_t start_b, size_b;

	memset(out, 0, sizeof(*out));
	if (!b->is_scsi || b->is_dm || block_size == 0) {
		return -ENOTBLK;
	}
	if (b->size > UINT64_MAX / BLK_SECTOR || b->start > UINT64_MAX / BLK_SECTOR) {
		return -ERANGE;
	}
	size_b = b->size * BLK_SECTOR;
	start_b = b->start * BLK_SECTOR;
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
