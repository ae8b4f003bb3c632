/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libxcopy's system seams as the unit suites set them (fake_host.h). */
#include <string.h>

#include "fake_host.h"

int __real_xch_fsdev_find(dev_t fsdev, struct xch_blk *blk, uint64_t *part_off);
int __wrap_xch_fsdev_find(dev_t fsdev, struct xch_blk *blk, uint64_t *part_off);
int __real_xch_fsdev_open(const struct xch_blk *blk, dev_t fsdev, struct xcopy_dev **out);
int __wrap_xch_fsdev_open(const struct xch_blk *blk, dev_t fsdev, struct xcopy_dev **out);
int __real_xch_fs_probe(int fd, struct xch_fsinfo *fi);
int __wrap_xch_fs_probe(int fd, struct xch_fsinfo *fi);
uint64_t __real_xch_lease_batch_bytes(void);
uint64_t __wrap_xch_lease_batch_bytes(void);

static int (*g_open)(dev_t fsdev, struct xcopy_dev **out);
static int (*g_probe)(int fd, struct xch_fsinfo *fi);
static uint64_t g_batch;

/* With a fake device: a whole SCSI disk, no partition (no sysfs read). */
int
__wrap_xch_fsdev_find(dev_t fsdev, struct xch_blk *blk, uint64_t *part_off)
{
	if (__atomic_load_n(&g_open, __ATOMIC_ACQUIRE) == NULL) {
		return __real_xch_fsdev_find(fsdev, blk, part_off);
	}
	memset(blk, 0, sizeof(*blk));
	blk->is_scsi = true;
	*part_off = 0;
	return 0;
}

int
__wrap_xch_fsdev_open(const struct xch_blk *blk, dev_t fsdev, struct xcopy_dev **out)
{
	int (*open)(dev_t, struct xcopy_dev **) = __atomic_load_n(&g_open, __ATOMIC_ACQUIRE);

	return open == NULL ? __real_xch_fsdev_open(blk, fsdev, out) : open(fsdev, out);
}

int
__wrap_xch_fs_probe(int fd, struct xch_fsinfo *fi)
{
	int (*probe)(int, struct xch_fsinfo *) = __atomic_load_n(&g_probe, __ATOMIC_ACQUIRE);

	return probe == NULL ? __real_xch_fs_probe(fd, fi) : probe(fd, fi);
}

uint64_t
__wrap_xch_lease_batch_bytes(void)
{
	uint64_t b = __atomic_load_n(&g_batch, __ATOMIC_ACQUIRE);

	return b == 0 ? __real_xch_lease_batch_bytes() : b;
}

void
ut_host_fake_fsdev(int (*open)(dev_t fsdev, struct xcopy_dev **out))
{
	__atomic_store_n(&g_open, open, __ATOMIC_RELEASE);
}

void
ut_host_fake_fs_probe(int (*probe)(int fd, struct xch_fsinfo *fi))
{
	__atomic_store_n(&g_probe, probe, __ATOMIC_RELEASE);
}

void
ut_host_lease_batch(uint64_t bytes)
{
	__atomic_store_n(&g_batch, bytes, __ATOMIC_RELEASE);
}
