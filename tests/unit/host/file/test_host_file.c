/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcopy_file_range() semantics that hold on any file system: offsets and
 * file positions advance like copy_file_range(2), the source's end stops the
 * copy, overlapping ranges of one file are refused, and when no SCSI copy
 * manager is under the files the data still arrives (host copy, counted).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ut.h"
#include "file/xch_file.h"

/* An unlinked file in a fresh mkdtemp directory (removed at once). */
static int
ut_tmpfile(void)
{
	char dir[4096], path[4200];
	int fd;

	ut_tmpdir("file", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	UT_ASSERT_FATAL(fd >= 0);
	unlink(path);
	ut_rm_tree(dir);
	return fd;
}

/* Is fd's file system on a SCSI disk (one that might hold a copy manager)? */
static bool
on_scsi_disk(int fd)
{
	char p[128];
	struct stat st;

	UT_ASSERT_FATAL(fstat(fd, &st) == 0);
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/device/scsi_device", major(st.st_dev),
		 minor(st.st_dev));
	if (access(p, F_OK) == 0) {
		return true;
	}
	/* a partition: its disk's device */
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../device/scsi_device", major(st.st_dev),
		 minor(st.st_dev));
	return access(p, F_OK) == 0;
}

static uint8_t *
ut_pattern(size_t n, unsigned seed)
{
	uint8_t *p = malloc(n);
	size_t i;

	UT_ASSERT_FATAL(p != NULL);
	for (i = 0; i < n; i++) {
		p[i] = (uint8_t)(i * 31 + seed + (i >> 12));
	}
	return p;
}

static void
host_file_copies_with_explicit_offsets(void)
{
	enum { N = 300000 };
	uint8_t *src = ut_pattern(N, 1), *got = malloc(N);
	struct xcopy_stats st;
	loff_t oi = 1000, oo = 5000;
	int in = ut_tmpfile(), out = ut_tmpfile();
	ssize_t n;

	UT_ASSERT_FATAL(got != NULL);
	CU_ASSERT_EQUAL(pwrite(in, src, N, 0), N);
	memset(&st, 0, sizeof(st));
	n = xcopy_file_range(in, &oi, out, &oo, 200000, 0, &st);
	CU_ASSERT_EQUAL(n, 200000);
	CU_ASSERT_EQUAL(oi, 201000);
	CU_ASSERT_EQUAL(oo, 205000);
	/* file positions untouched when offsets are given */
	CU_ASSERT_EQUAL(lseek(in, 0, SEEK_CUR), 0);
	CU_ASSERT_EQUAL(lseek(out, 0, SEEK_CUR), 0);
	CU_ASSERT_EQUAL(pread(out, got, 200000, 5000), 200000);
	CU_ASSERT_EQUAL(memcmp(got, src + 1000, 200000), 0);
	/* every byte is accounted for, one way or the other */
	CU_ASSERT_EQUAL(st.bytes_offloaded + st.bytes_fallback, 200000);
	free(src);
	free(got);
	close(in);
	close(out);
}

static void
host_file_null_offsets_use_positions_and_stop_at_eof(void)
{
	enum { N = 70000 };
	uint8_t *src = ut_pattern(N, 7), *got = malloc(N);
	int in = ut_tmpfile(), out = ut_tmpfile();
	ssize_t n;

	UT_ASSERT_FATAL(got != NULL);
	CU_ASSERT_EQUAL(pwrite(in, src, N, 0), N);
	CU_ASSERT_EQUAL(lseek(in, 60000, SEEK_SET), 60000);
	CU_ASSERT_EQUAL(lseek(out, 10, SEEK_SET), 10);
	/* asks for more than is left: gets the 10000 bytes to EOF */
	n = xcopy_file_range(in, NULL, out, NULL, 1 << 20, 0, NULL);
	CU_ASSERT_EQUAL(n, 10000);
	CU_ASSERT_EQUAL(lseek(in, 0, SEEK_CUR), 70000);
	CU_ASSERT_EQUAL(lseek(out, 0, SEEK_CUR), 10010);
	CU_ASSERT_EQUAL(pread(out, got, 10000, 10), 10000);
	CU_ASSERT_EQUAL(memcmp(got, src + 60000, 10000), 0);
	/* at EOF: 0 */
	CU_ASSERT_EQUAL(xcopy_file_range(in, NULL, out, NULL, 100, 0, NULL), 0);
	free(src);
	free(got);
	close(in);
	close(out);
}

static void
host_file_source_holes_become_zeros(void)
{
	enum { N = 1 << 20 };
	uint8_t *src = ut_pattern(65536, 3), *got = malloc(N), *junk = ut_pattern(N, 9);
	struct xcopy_stats st;
	loff_t oi = 0, oo = 0;
	int in = ut_tmpfile(), out = ut_tmpfile();
	size_t i;
	bool zero = true;

	UT_ASSERT_FATAL(got != NULL);
	/* source: data, a hole, data; destination pre-filled with junk */
	CU_ASSERT_EQUAL(pwrite(in, src, 65536, 0), 65536);
	CU_ASSERT_EQUAL(pwrite(in, src, 65536, N - 65536), 65536);
	CU_ASSERT_EQUAL(pwrite(out, junk, N, 0), N);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_file_range(in, &oi, out, &oo, N, 0, &st), N);
	CU_ASSERT_EQUAL(pread(out, got, N, 0), N);
	CU_ASSERT_EQUAL(memcmp(got, src, 65536), 0);
	CU_ASSERT_EQUAL(memcmp(got + N - 65536, src, 65536), 0);
	for (i = 65536; i < N - 65536; i++) {
		zero = zero && got[i] == 0;
	}
	CU_ASSERT_TRUE(zero);
	free(src);
	free(got);
	free(junk);
	close(in);
	close(out);
}

static void
host_file_argument_checks(void)
{
	int in = ut_tmpfile(), out = ut_tmpfile();
	uint8_t b[8192] = { 1 };
	loff_t a = 0, c = 4096;
	ssize_t n;

	CU_ASSERT_EQUAL(pwrite(in, b, sizeof(b), 0), (ssize_t)sizeof(b));
	/* one file, overlapping ranges */
	CU_ASSERT_EQUAL(xcopy_file_range(in, &a, in, &c, 8192, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_file_range(in, &a, out, &c, 10,
					 XCOPY_REQUIRE_OFFLOAD | XCOPY_NO_OFFLOAD, NULL), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_file_range(in, &a, out, &c, 10, 0x100, NULL), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_file_range(-1, &a, out, &c, 10, 0, NULL), -EBADF);
	c = -1;
	CU_ASSERT_EQUAL(xcopy_file_range(in, &a, out, &c, 10, 0, NULL), -EINVAL);
	c = 0;
	/* no copy manager under the files: a required offload is refused, nothing copied */
	if (on_scsi_disk(in) || on_scsi_disk(out)) {
		UT_SKIP("the temporary directory is on a SCSI disk: it may offload");
	} else {
		n = xcopy_file_range(in, &a, out, &c, 8192, XCOPY_REQUIRE_OFFLOAD, NULL);
		CU_ASSERT_TRUE(n == -EXDEV || n == -EOPNOTSUPP);
		CU_ASSERT_EQUAL(a, 0);
		CU_ASSERT_EQUAL(c, 0);
	}
	close(in);
	close(out);
}

static void
host_file_no_offload_counts_requested(void)
{
	uint8_t *src = ut_pattern(50000, 5), *got = malloc(50000);
	struct xcopy_stats st;
	int in = ut_tmpfile(), out = ut_tmpfile();
	loff_t a = 0, c = 0;

	UT_ASSERT_FATAL(got != NULL);
	CU_ASSERT_EQUAL(pwrite(in, src, 50000, 0), 50000);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_file_range(in, &a, out, &c, 50000, XCOPY_NO_OFFLOAD, &st), 50000);
	CU_ASSERT_EQUAL(st.bytes_fallback, 50000);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 0);
	CU_ASSERT_EQUAL(st.xcopy_cmds, 0);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_REQUESTED], 1);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_REQUESTED], 50000);
	CU_ASSERT_EQUAL(pread(out, got, 50000, 0), 50000);
	CU_ASSERT_EQUAL(memcmp(got, src, 50000), 0);
	free(src);
	free(got);
	close(in);
	close(out);
}

/*
 * The host's own copy and hole zeroing (file_host.c) on their own: the bytes
 * land at the destination offset and nowhere else, each counted once; a
 * source that cannot be read is an error, not a short copy.
 */
static void
host_file_host_copy_and_zero(void)
{
	enum { N = 300000, SO = 1000, DO = 5000, LEN = 200000, ZO = 8192, ZLEN = 65536 };
	uint8_t *src = ut_pattern(N, 7), *want = malloc(N), *got = malloc(N);
	struct xcopy_stats st;
	int in = ut_tmpfile(), out = ut_tmpfile(), wo;
	char path[64];

	UT_ASSERT_FATAL(want != NULL && got != NULL);
	memset(want, 0xEE, N);
	UT_ASSERT_FATAL(pwrite(in, src, N, 0) == N && pwrite(out, want, N, 0) == N);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xch_host_copy(in, SO, out, DO, LEN, &st), 0);
	memcpy(want + DO, src + SO, LEN);
	CU_ASSERT_EQUAL(st.bytes_fallback, LEN);
	CU_ASSERT_EQUAL(xch_zero_dst(out, ZO, ZLEN, 0, &st), 0);
	memset(want + ZO, 0, ZLEN);
	CU_ASSERT_EQUAL(st.bytes_zeroed, ZLEN);
	CU_ASSERT_EQUAL(pread(out, got, N, 0), N);
	CU_ASSERT_EQUAL(memcmp(got, want, N), 0);
	/* a write-only source: the error, nothing counted */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", in);
	wo = open(path, O_WRONLY);
	UT_ASSERT_FATAL(wo >= 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xch_host_copy(wo, 0, out, 0, 4096, &st), -EBADF);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	close(wo);
	close(in);
	close(out);
	free(src);
	free(want);
	free(got);
}

static CU_TestInfo g_tests[] = {
	{ "copies_with_explicit_offsets", host_file_copies_with_explicit_offsets },
	{ "null_offsets_use_positions_and_stop_at_eof",
	  host_file_null_offsets_use_positions_and_stop_at_eof },
	{ "source_holes_become_zeros", host_file_source_holes_become_zeros },
	{ "argument_checks", host_file_argument_checks },
	{ "no_offload_counts_requested", host_file_no_offload_counts_requested },
	{ "host_copy_and_zero", host_file_host_copy_and_zero },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_file, g_tests)
