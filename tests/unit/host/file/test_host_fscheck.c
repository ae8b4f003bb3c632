/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host: which files' extents may go to a copy manager (fscheck.c): the
 * decision from statfs f_type and the file's flags, the mount-option
 * parsers, a probe of a real file, and xcopy_file_range() / the plan on an
 * ext4 file with journalled data (chattr +j) over the fake target: no
 * EXTENDED COPY, the host copies it with reason journal-data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/magic.h>

#include "fake_target.h"
#include "fake_host.h"
#include "file/xch_file.h"
#include "file/xch_fscheck.h"
#include "ut.h"
#include "xcopy.h"

enum {
	FILE_LEN = 64 * 1024,
};

static struct xch_fsinfo
fi_of(int64_t type, uint32_t xflags, uint32_t iflags)
{
	struct xch_fsinfo fi;

	memset(&fi, 0, sizeof(fi));
	fi.f_type = type;
	fi.xflags_known = true;
	fi.xflags = xflags;
	fi.iflags_known = true;
	fi.iflags = iflags;
	return fi;
}

static void
host_fscheck_allow_list(void)
{
	static const struct {
		int64_t type;
		enum xcopy_fallback_reason why;
	} t[] = {
		{ EXT4_SUPER_MAGIC, XCOPY_FB_NONE },
		{ XFS_SUPER_MAGIC, XCOPY_FB_NONE },
		{ BTRFS_SUPER_MAGIC, XCOPY_FB_FS_TYPE },  /* logical addresses, several devices */
		{ F2FS_SUPER_MAGIC, XCOPY_FB_FS_TYPE },
		{ TMPFS_MAGIC, XCOPY_FB_FS_TYPE },
		{ OVERLAYFS_SUPER_MAGIC, XCOPY_FB_FS_TYPE },
		{ NFS_SUPER_MAGIC, XCOPY_FB_FS_TYPE },
		{ MSDOS_SUPER_MAGIC, XCOPY_FB_FS_TYPE },
		{ 0, XCOPY_FB_FS_TYPE },
	};
	struct xch_fsinfo fi;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		fi = fi_of(t[i].type, 0, 0);
		CU_ASSERT_EQUAL(xch_fs_decide(&fi), t[i].why);
	}
}

static void
host_fscheck_file_flags(void)
{
	struct xch_fsinfo fi;

	/* XFS realtime: the extents are on the realtime device */
	fi = fi_of(XFS_SUPER_MAGIC, FS_XFLAG_REALTIME, 0);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_REALTIME);
	/* a plain file in a realtime-inherit directory is on the data device */
	fi = fi_of(XFS_SUPER_MAGIC, FS_XFLAG_RTINHERIT, 0);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_NONE);
	/* ... a file to be created in it is not */
	fi.is_dir = true;
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_REALTIME);
	/* XFS flags unreadable: realtime cannot be ruled out */
	fi = fi_of(XFS_SUPER_MAGIC, 0, 0);
	fi.xflags_known = false;
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_REALTIME);
	/* other XFS flags (append-only, noatime, extent size hint...) do not matter */
	fi = fi_of(XFS_SUPER_MAGIC, FS_XFLAG_NOATIME | FS_XFLAG_EXTSIZE, FS_NOATIME_FL);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_NONE);
	/* encrypted, told by statx or by the inode flags; on ext4 with journalled data too */
	fi = fi_of(EXT4_SUPER_MAGIC, 0, 0);
	fi.encrypted = true;
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_ENCRYPTED);
	fi = fi_of(EXT4_SUPER_MAGIC, 0, FS_ENCRYPT_FL | FS_EXTENT_FL);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_ENCRYPTED);
	fi = fi_of(EXT4_SUPER_MAGIC, 0, FS_ENCRYPT_FL | FS_JOURNAL_DATA_FL);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_ENCRYPTED);
	/* ext4 journalled data: per file, per mount, or flags unreadable */
	fi = fi_of(EXT4_SUPER_MAGIC, 0, FS_JOURNAL_DATA_FL | FS_EXTENT_FL);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_JOURNAL_DATA);
	fi = fi_of(EXT4_SUPER_MAGIC, 0, FS_EXTENT_FL);
	fi.data_journal = true;
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_JOURNAL_DATA);
	fi = fi_of(EXT4_SUPER_MAGIC, 0, 0);
	fi.iflags_known = false;
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_JOURNAL_DATA);
	/* plain ext4 files, also with extents, noatime, append-only, immutable */
	fi = fi_of(EXT4_SUPER_MAGIC, 0, FS_EXTENT_FL | FS_NOATIME_FL | FS_APPEND_FL | FS_IMMUTABLE_FL);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_NONE);
	/* the file-system type comes first */
	fi = fi_of(BTRFS_SUPER_MAGIC, FS_XFLAG_REALTIME, FS_ENCRYPT_FL);
	CU_ASSERT_EQUAL(xch_fs_decide(&fi), XCOPY_FB_FS_TYPE);
}

static void
host_fscheck_mount_options(void)
{
	static const char mi[] =
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
		"40 22 8:17 / /mnt/j rw,relatime shared:2 - ext4 /dev/sdb1 rw,data=journal\n"
		"41 22 8:33 / /mnt/o rw master:3 - ext4 /dev/sdc1 rw,nodata=journal,data=ordered\n"
		"42 22 8:49 / /mnt/x rw - xfs /dev/sdd1 rw,attr2,inode64\n";
	FILE *f;

	CU_ASSERT_TRUE(xch_opts_data_journal("rw,data=journal"));
	CU_ASSERT_TRUE(xch_opts_data_journal("rw\nbsddf\ndata=journal\nbarrier\n"));
	CU_ASSERT_TRUE(xch_opts_data_journal("data=journal"));
	CU_ASSERT_FALSE(xch_opts_data_journal("rw,data=ordered"));
	CU_ASSERT_FALSE(xch_opts_data_journal("rw,data=journalx,xdata=journal"));
	CU_ASSERT_FALSE(xch_opts_data_journal("journal_checksum\ndata=writeback\n"));
	CU_ASSERT_FALSE(xch_opts_data_journal(""));
	f = fmemopen((void *)mi, sizeof(mi) - 1, "r");
	UT_ASSERT_FATAL(f != NULL);
	CU_ASSERT_TRUE(xch_mountinfo_data_journal(f, 8, 17));
	rewind(f);
	CU_ASSERT_FALSE(xch_mountinfo_data_journal(f, 8, 1));
	rewind(f);
	CU_ASSERT_FALSE(xch_mountinfo_data_journal(f, 8, 33));
	rewind(f);
	CU_ASSERT_FALSE(xch_mountinfo_data_journal(f, 8, 49));
	rewind(f);
	CU_ASSERT_FALSE(xch_mountinfo_data_journal(f, 9, 17));
	fclose(f);
}

static void
write_pattern(const char *path, unsigned seed)
{
	uint8_t *b = malloc(FILE_LEN);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	size_t i;

	UT_ASSERT_FATAL(b != NULL && fd >= 0);
	for (i = 0; i < FILE_LEN; i++) {
		b[i] = (uint8_t)(i * 7 + seed);
	}
	UT_ASSERT_FATAL(write(fd, b, FILE_LEN) == FILE_LEN);
	UT_ASSERT_FATAL(fsync(fd) == 0);
	close(fd);
	free(b);
}

/* The probe reads the real file's file system and flags. */
static void
host_fscheck_probe_real_file(void)
{
	char dir[512], path[600];
	struct xch_fsinfo fi;
	struct statfs sf;
	int fd, dfd;

	ut_tmpdir("fscheck", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	write_pattern(path, 1);
	fd = open(path, O_RDONLY);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	UT_ASSERT_FATAL(fd >= 0 && dfd >= 0 && fstatfs(fd, &sf) == 0);
	CU_ASSERT_EQUAL(xch_fs_probe(fd, &fi), 0);
	CU_ASSERT_EQUAL(fi.f_type, (int64_t)sf.f_type);
	CU_ASSERT_FALSE(fi.is_dir);
	CU_ASSERT_FALSE(fi.encrypted);
	CU_ASSERT_EQUAL(xch_fs_probe(dfd, &fi), 0);
	CU_ASSERT_TRUE(fi.is_dir);
	if (sf.f_type == EXT4_SUPER_MAGIC || sf.f_type == XFS_SUPER_MAGIC) {
		CU_ASSERT_TRUE(fi.iflags_known);
		if (!fi.data_journal) {
			CU_ASSERT_EQUAL(xch_fs_check(fd, dfd), XCOPY_FB_NONE);
		}
	} else {
		CU_ASSERT_EQUAL(xch_fs_check(fd, dfd), XCOPY_FB_FS_TYPE);
	}
	CU_ASSERT_EQUAL(xch_fs_probe(-1, &fi), -EBADF);
	CU_ASSERT_EQUAL(xch_fs_check(-1, -1), XCOPY_FB_NONE);
	close(fd);
	close(dfd);
	ut_rm_tree(dir);
}

static struct fk *g_fk;

/* The file system's device is LU 0 of the fake, as large as any block address. */
static int
open_fake(dev_t fsdev, struct xcopy_dev **out)
{
	(void)fsdev;
	*out = ut_open(g_fk, 0, 0, 0);
	(*out)->caps.num_blocks = UINT64_MAX / 1024;
	(*out)->caps.part_blocks = (*out)->caps.num_blocks;
	return 0;
}

static bool
same_file(const char *a, const char *b)
{
	uint8_t *x = malloc(FILE_LEN), *y = malloc(FILE_LEN);
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	bool same = x != NULL && y != NULL && fa >= 0 && fb >= 0 &&
		    pread(fa, x, FILE_LEN, 0) == FILE_LEN && pread(fb, y, FILE_LEN, 0) == FILE_LEN &&
		    memcmp(x, y, FILE_LEN) == 0;

	close(fa);
	close(fb);
	free(x);
	free(y);
	return same;
}

/*
 * chattr +j on an ext4 source (needs CAP_SYS_RESOURCE): the copy sends no
 * EXTENDED COPY and names the reason; the plan says the same. The control
 * copy without the flag does send EXTENDED COPY (the fake is reachable).
 */
static void
host_fscheck_journal_data_file_falls_back(void)
{
	char dir[512], src[600], dst[600];
	struct xcopy_plan *pl = NULL;
	struct xcopy_stats st;
	int in, out, fl = 0, rc;
	int64_t oi = 0, oo = 0;
	struct statfs sf;
	ssize_t n;

	ut_tmpdir("fscheck-j", dir, sizeof(dir));
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(dst, sizeof(dst), "%s/dst", dir);
	write_pattern(src, 3);
	write_pattern(dst, 99);
	in = open(src, O_RDONLY);
	out = open(dst, O_WRONLY);
	UT_ASSERT_FATAL(in >= 0 && out >= 0 && fstatfs(in, &sf) == 0);
	if (sf.f_type != EXT4_SUPER_MAGIC || ioctl(in, FS_IOC_GETFLAGS, &fl) != 0 ||
	    xch_fs_check(in, out) != XCOPY_FB_NONE) {
		UT_SKIP("$TMPDIR is not a plain ext4 file system");
		goto out;
	}
	g_fk = fk_new();
	xcopy_cache_flush();
	ut_host_fake_fsdev(open_fake);
	/* control: a plain file goes to the copy manager */
	memset(&st, 0, sizeof(st));
	n = xcopy_file_range(in, &oi, out, &oo, FILE_LEN, 0, &st);
	CU_ASSERT_EQUAL(n, FILE_LEN);
	CU_ASSERT_TRUE(g_fk->nxcopy >= 1);
	fl |= FS_JOURNAL_DATA_FL;
	rc = ioctl(in, FS_IOC_SETFLAGS, &fl);
	if (rc != 0) {
		UT_SKIP("chattr +j refused (no CAP_SYS_RESOURCE?)");
		goto done;
	}
	g_fk->nxcopy = 0;
	write_pattern(dst, 98);
	memset(&st, 0, sizeof(st));
	oi = oo = 0;
	n = xcopy_file_range(in, &oi, out, &oo, FILE_LEN, 0, &st);
	CU_ASSERT_EQUAL(n, FILE_LEN);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 0);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_JOURNAL_DATA], FILE_LEN);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_JOURNAL_DATA], 1);
	CU_ASSERT_TRUE(same_file(src, dst));
	/* --require-offload refuses it, under the same reason */
	memset(&st, 0, sizeof(st));
	oi = oo = 0;
	n = xcopy_file_range(in, &oi, out, &oo, FILE_LEN, XCOPY_REQUIRE_OFFLOAD, &st);
	CU_ASSERT_TRUE(n < 0);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_JOURNAL_DATA], 1);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	/* the plan (xcp --explain) names it */
	CU_ASSERT_EQUAL(xcopy_file_plan(in, 0, out, 0, FILE_LEN, 0, &pl), 0);
	if (pl != NULL) {
		CU_ASSERT_EQUAL(pl->blocker, XCOPY_FB_JOURNAL_DATA);
		CU_ASSERT_EQUAL(pl->nextents, 1);
		CU_ASSERT_EQUAL(pl->ncommands, 0);
		CU_ASSERT_EQUAL(pl->extents[0].kind, XCOPY_PLAN_HOST);
		CU_ASSERT_EQUAL(pl->extents[0].why, XCOPY_FB_JOURNAL_DATA);
	}
	xcopy_plan_free(pl);
	fl &= ~FS_JOURNAL_DATA_FL;
	CU_ASSERT_EQUAL(ioctl(in, FS_IOC_SETFLAGS, &fl), 0);
done:
	xcopy_cache_flush();
	ut_host_fake_fsdev(NULL);
	fk_free(g_fk);
	g_fk = NULL;
out:
	close(in);
	close(out);
	ut_rm_tree(dir);
}

/* Fake probe: g_flagged_fd gets g_flagged, every other fd is a plain ext4 file. */
static int g_flagged_fd = -1;
static struct xch_fsinfo g_flagged;

static int
probe_fake(int fd, struct xch_fsinfo *fi)
{
	struct stat st;

	*fi = fi_of(EXT4_SUPER_MAGIC, 0, FS_EXTENT_FL);
	if (fd == g_flagged_fd) {
		*fi = g_flagged;
	}
	fi->is_dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	return 0;
}

/* One copy with the fake device and probe: bytes right, *st filled. */
static ssize_t
copy_once(int in, int out, unsigned flags, struct xcopy_stats *st)
{
	int64_t oi = 0, oo = 0;

	memset(st, 0, sizeof(*st));
	g_fk->nxcopy = 0;
	return xcopy_file_range(in, &oi, out, &oo, FILE_LEN, flags, st);
}

/*
 * xcopy_file_range() and xcopy_file_plan() ask the check for both sides:
 * an XFS realtime source, an encrypted destination, and a directory that
 * makes new files realtime are copied by the host, reason named, with no
 * EXTENDED COPY sent; the same files probed plain go to the copy manager.
 */
static void
host_fscheck_copy_and_plan_ask_both_sides(void)
{
	char dir[512], src[600], dst[600];
	struct xcopy_plan *pl = NULL;
	struct xcopy_stats st;
	struct statfs sf;
	int in, out, dfd;

	ut_tmpdir("fscheck-c", dir, sizeof(dir));
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(dst, sizeof(dst), "%s/dst", dir);
	write_pattern(src, 5);
	write_pattern(dst, 77);
	in = open(src, O_RDONLY);
	out = open(dst, O_WRONLY);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	UT_ASSERT_FATAL(in >= 0 && out >= 0 && dfd >= 0 && fstatfs(in, &sf) == 0);
	if (sf.f_type != EXT4_SUPER_MAGIC && sf.f_type != XFS_SUPER_MAGIC) {
		UT_SKIP("FIEMAP addresses in $TMPDIR are not tested here (not ext4/XFS)");
		goto out;
	}
	g_fk = fk_new();
	xcopy_cache_flush();
	ut_host_fake_fsdev(open_fake);
	ut_host_fake_fs_probe(probe_fake);
	/* control: nothing flagged, EXTENDED COPY goes out */
	g_flagged_fd = -1;
	CU_ASSERT_EQUAL(copy_once(in, out, 0, &st), FILE_LEN);
	CU_ASSERT_TRUE(g_fk->nxcopy >= 1);
	/* an XFS realtime source */
	write_pattern(dst, 76);
	g_flagged_fd = in;
	g_flagged = fi_of(XFS_SUPER_MAGIC, FS_XFLAG_REALTIME, 0);
	CU_ASSERT_EQUAL(copy_once(in, out, 0, &st), FILE_LEN);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 0);
	CU_ASSERT_EQUAL(st.bytes_fallback, FILE_LEN);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_REALTIME], FILE_LEN);
	CU_ASSERT_TRUE(same_file(src, dst));
	CU_ASSERT_EQUAL(xcopy_file_plan(in, 0, out, 0, FILE_LEN, 0, &pl), 0);
	UT_ASSERT_FATAL(pl != NULL);
	CU_ASSERT_EQUAL(pl->blocker, XCOPY_FB_REALTIME);
	CU_ASSERT_EQUAL(pl->ncommands, 0);
	CU_ASSERT_TRUE(pl->nextents == 1 && pl->extents[0].kind == XCOPY_PLAN_HOST &&
		       pl->extents[0].why == XCOPY_FB_REALTIME && pl->extents[0].len == FILE_LEN);
	xcopy_plan_free(pl);
	pl = NULL;
	/* an encrypted destination; --require-offload refuses it */
	write_pattern(dst, 75);
	g_flagged_fd = out;
	g_flagged = fi_of(EXT4_SUPER_MAGIC, 0, FS_EXTENT_FL);
	g_flagged.encrypted = true;
	CU_ASSERT_EQUAL(copy_once(in, out, 0, &st), FILE_LEN);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_ENCRYPTED], FILE_LEN);
	CU_ASSERT_TRUE(same_file(src, dst));
	CU_ASSERT_TRUE(copy_once(in, out, XCOPY_REQUIRE_OFFLOAD, &st) < 0);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_ENCRYPTED], 1);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	/* a plan into a directory whose new files are realtime */
	g_flagged_fd = dfd;
	g_flagged = fi_of(XFS_SUPER_MAGIC, FS_XFLAG_RTINHERIT, 0);
	CU_ASSERT_EQUAL(xcopy_file_plan(in, 0, dfd, 0, FILE_LEN, 0, &pl), 0);
	UT_ASSERT_FATAL(pl != NULL);
	CU_ASSERT_EQUAL(pl->blocker, XCOPY_FB_REALTIME);
	xcopy_plan_free(pl);
	/* ... the same directory without it: planned offloaded (allocated first) */
	g_flagged_fd = -1;
	CU_ASSERT_EQUAL(xcopy_file_plan(in, 0, dfd, 0, FILE_LEN, 0, &pl), 0);
	UT_ASSERT_FATAL(pl != NULL);
	CU_ASSERT_NOT_EQUAL(pl->blocker, XCOPY_FB_REALTIME);
	xcopy_plan_free(pl);
	ut_host_fake_fs_probe(NULL);
	xcopy_cache_flush();
	ut_host_fake_fsdev(NULL);
	fk_free(g_fk);
	g_fk = NULL;
out:
	close(in);
	close(out);
	close(dfd);
	ut_rm_tree(dir);
}

static CU_TestInfo g_tests[] = {
	{ "allow_list", host_fscheck_allow_list },
	{ "file_flags", host_fscheck_file_flags },
	{ "mount_options", host_fscheck_mount_options },
	{ "probe_real_file", host_fscheck_probe_real_file },
	{ "journal_data_file_falls_back", host_fscheck_journal_data_file_falls_back },
	{ "copy_and_plan_ask_both_sides", host_fscheck_copy_and_plan_ask_both_sides },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_fscheck, g_tests)
