/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which device nodes may carry commands, and the LU window each addresses:
 * whole SCSI disks and their partitions only, sizes cross-checked; device-
 * mapper, md, loop and other block devices refused. Built on a fake sysfs
 * tree in a mkdtemp directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ut.h"
#include "device/xch_device.h"

static void
devmap_whole_scsi_disk_is_identity(void)
{
	struct xch_blk b = { .is_scsi = true, .size = 2097152 };
	struct xch_window w;

	/* 1 GiB disk, 4096-byte blocks: sysfs, BLKGETSIZE64 and READ CAPACITY agree */
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262144, 1ull << 30, &w), 0);
	CU_ASSERT_EQUAL(w.start, 0);
	CU_ASSERT_EQUAL(w.blocks, 262144);
	/* the node's size disagrees with sysfs */
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262144, (1ull << 30) - 4096, &w), -ERANGE);
	/* READ CAPACITY (through SG_IO) describes a bigger disk than the node */
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262145, 1ull << 30, &w), -ERANGE);
	CU_ASSERT_EQUAL(w.blocks, 0);
}

static void
devmap_partition_window_from_sysfs(void)
{
	struct xch_blk b = { .is_scsi = true, .is_partition = true, .start = 16384,
			     .size = 131072 };
	struct xch_window w;

	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262144, 131072ull * 512, &w), 0);
	CU_ASSERT_EQUAL(w.start, 2048);
	CU_ASSERT_EQUAL(w.blocks, 16384);
	CU_ASSERT_EQUAL(xch_blk_window(&b, 512, 262144, 131072ull * 512, &w), 0);
	CU_ASSERT_EQUAL(w.start, 16384);
	CU_ASSERT_EQUAL(w.blocks, 131072);
	/* node size disagrees */
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262144, 131072ull * 512 + 512, &w), -ERANGE);
	/* past the LU's end */
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 18431, 131072ull * 512, &w), -ERANGE);
	/* not on logical-block boundaries */
	b.start = 16385;
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262144, 131072ull * 512, &w), -EINVAL);
	b.start = 16384;
	b.size = 131071;
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262144, 131071ull * 512, &w), -EINVAL);
	/* absurd sysfs numbers do not overflow */
	b.size = UINT64_MAX / 256;
	CU_ASSERT_EQUAL(xch_blk_window(&b, 4096, 262144, 0, &w), -ERANGE);
}

static void
devmap_other_block_devices_refused(void)
{
	struct xch_blk dm = { .is_dm = true, .size = 131072 };
	struct xch_blk dm_on_scsi = { .is_dm = true, .is_scsi = true, .size = 131072 };
	struct xch_blk loop = { .size = 131072 };
	struct xch_window w;

	CU_ASSERT_EQUAL(xch_blk_window(&dm, 512, 131072, 131072ull * 512, &w), -ENOTBLK);
	CU_ASSERT_EQUAL(xch_blk_window(&dm_on_scsi, 512, 131072, 131072ull * 512, &w), -ENOTBLK);
	CU_ASSERT_EQUAL(xch_blk_window(&loop, 512, 131072, 131072ull * 512, &w), -ENOTBLK);
	CU_ASSERT_EQUAL(xch_blk_window(&loop, 0, 131072, 131072ull * 512, &w), -ENOTBLK);
}

static void
ut_put(const char *dir, const char *name, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	UT_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void
ut_mkdirs(const char *root, const char *rel)
{
	char p[1024], q[1100];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(q, sizeof(q), "mkdir -p '%s'", p);
	UT_ASSERT_FATAL(system(q) == 0);
}

static void
ut_link(const char *root, const char *target, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	UT_ASSERT_FATAL(symlink(target, p) == 0);
}

static void
devmap_sysfs_tells_dm_partition_and_sg(void)
{
	char d[1024], q[1100];
	struct xch_blk b;

	ut_tmpdir("devmap", d, sizeof(d));
	/* sda (SCSI) with sda1, dm-0 (an LV on sda), loop0, sg0 and a tty */
	ut_mkdirs(d, "devices/host0/0:0:0:0/scsi_device/0:0:0:0");
	ut_mkdirs(d, "devices/host0/0:0:0:0/block/sda/sda1");
	ut_mkdirs(d, "devices/host0/0:0:0:0/scsi_generic/sg0");
	ut_mkdirs(d, "devices/virtual/block/dm-0/dm");
	ut_mkdirs(d, "devices/virtual/block/dm-0/slaves");
	ut_mkdirs(d, "devices/virtual/block/loop0");
	ut_mkdirs(d, "devices/virtual/tty/tty0");
	ut_mkdirs(d, "dev/block");
	ut_mkdirs(d, "dev/char");
	snprintf(q, sizeof(q), "%s/devices/host0/0:0:0:0/block/sda", d);
	ut_put(q, "dev", "8:0\n");
	ut_put(q, "size", "524288\n");
	ut_link(d, "../..", "devices/host0/0:0:0:0/block/sda/device");
	snprintf(q, sizeof(q), "%s/devices/host0/0:0:0:0/block/sda/sda1", d);
	ut_put(q, "dev", "8:1\n");
	ut_put(q, "partition", "1\n");
	ut_put(q, "start", "16384\n");
	ut_put(q, "size", "131072\n");
	ut_link(d, "../..", "devices/host0/0:0:0:0/scsi_generic/sg0/device");
	snprintf(q, sizeof(q), "%s/devices/virtual/block/dm-0", d);
	ut_put(q, "dev", "254:0\n");
	ut_put(q, "size", "131072\n");
	snprintf(q, sizeof(q), "%s/devices/virtual/block/loop0", d);
	ut_put(q, "dev", "7:0\n");
	ut_put(q, "size", "2048\n");
	ut_link(d, "../../devices/host0/0:0:0:0/block/sda", "dev/block/8:0");
	ut_link(d, "../../devices/host0/0:0:0:0/block/sda/sda1", "dev/block/8:1");
	ut_link(d, "../../devices/virtual/block/dm-0", "dev/block/254:0");
	ut_link(d, "../../devices/virtual/block/loop0", "dev/block/7:0");
	ut_link(d, "../../devices/host0/0:0:0:0/scsi_generic/sg0", "dev/char/21:0");
	ut_link(d, "../../devices/virtual/tty/tty0", "dev/char/4:0");

	CU_ASSERT_EQUAL(xch_sysfs_resolve(d, 8, 0, &b), 0);
	CU_ASSERT_TRUE(b.is_scsi);
	CU_ASSERT_FALSE(b.is_partition);
	CU_ASSERT_FALSE(b.is_dm);
	CU_ASSERT_EQUAL(xch_sysfs_resolve(d, 8, 1, &b), 0);
	CU_ASSERT_TRUE(b.is_scsi);
	CU_ASSERT_TRUE(b.is_partition);
	CU_ASSERT_STRING_EQUAL(b.disk, "sda");
	CU_ASSERT_EQUAL(b.start, 16384);
	CU_ASSERT_EQUAL(b.size, 131072);
	CU_ASSERT_EQUAL(xch_sysfs_resolve(d, 254, 0, &b), 0);
	CU_ASSERT_TRUE(b.is_dm);
	CU_ASSERT_FALSE(b.is_scsi);
	CU_ASSERT_FALSE(b.is_partition);
	CU_ASSERT_STRING_EQUAL(b.disk, "dm-0");
	CU_ASSERT_EQUAL(xch_sysfs_resolve(d, 7, 0, &b), 0);
	CU_ASSERT_FALSE(b.is_scsi);
	CU_ASSERT_FALSE(b.is_dm);
	CU_ASSERT_EQUAL(xch_sysfs_char_is_scsi(d, 21, 0), 1);
	CU_ASSERT_EQUAL(xch_sysfs_char_is_scsi(d, 4, 0), 0);
	CU_ASSERT_EQUAL(xch_sysfs_char_is_scsi(d, 4, 1), -ENOENT);
	snprintf(q, sizeof(q), "rm -rf '%s'", d);
	CU_ASSERT_EQUAL(system(q), 0);
}

static CU_TestInfo g_tests[] = {
	{ "whole_scsi_disk_is_identity", devmap_whole_scsi_disk_is_identity },
	{ "partition_window_from_sysfs", devmap_partition_window_from_sysfs },
	{ "other_block_devices_refused", devmap_other_block_devices_refused },
	{ "sysfs_tells_dm_partition_and_sg", devmap_sysfs_tells_dm_partition_and_sg },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_devmap, g_tests)
