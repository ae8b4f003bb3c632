/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* common/zero.c: xos_zero_range (punch -> zero range -> write zeros, or zero range first). */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ut.h"
#include "xos.h"

enum { FILE_LEN = 1 << 20, Z_OFF = 4096, Z_LEN = 65536 + 100 };

static int
pattern_file(char *path, size_t cap)
{
	static uint8_t buf[FILE_LEN];
	int fd;

	ut_tmpdir("zero", path, cap - 8);
	strcat(path, "/f");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		return -1;
	}
	memset(buf, 0xAB, sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The range reads as zeros, every byte around it keeps the pattern, the size stays. */
static void
zero_range_file(void)
{
	static uint8_t buf[FILE_LEN];
	char path[256];
	enum xos_zero_how how = XOS_ZERO_WRITTEN;
	uint64_t written = 1;
	struct stat st;
	size_t i, bad = 0;
	int fd = pattern_file(path, sizeof(path));

	UT_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(xos_zero_range(fd, Z_OFF, Z_LEN, XOS_ZERO_MAY_WRITE, &how, &written), 0);
	CU_ASSERT(how == XOS_ZERO_PUNCHED || how == XOS_ZERO_RANGE || written == Z_LEN);
	CU_ASSERT(how == XOS_ZERO_WRITTEN || written == 0);
	CU_ASSERT_EQUAL(pread(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	for (i = 0; i < sizeof(buf); i++) {
		uint8_t want = i >= Z_OFF && i < Z_OFF + Z_LEN ? 0x00 : 0xAB;

		bad += buf[i] != want;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(fstat(fd, &st) == 0 && st.st_size == FILE_LEN);
	close(fd);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* fallocate refused (character device): zeros written only when allowed. */
static void
zero_range_writes_when_allowed(void)
{
	enum xos_zero_how how = XOS_ZERO_PUNCHED;
	uint64_t written = 1;
	int fd = open("/dev/null", O_WRONLY);

	UT_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(xos_zero_range(fd, 0, Z_LEN, 0, &how, &written), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(written, 0);
	CU_ASSERT_EQUAL(xos_zero_range(fd, 0, Z_LEN, XOS_ZERO_MAY_WRITE, &how, &written), 0);
	CU_ASSERT_EQUAL(how, XOS_ZERO_WRITTEN);
	CU_ASSERT_EQUAL(written, Z_LEN);
	close(fd);
}

/* A descriptor that cannot be written: the write's errno, nothing written. */
static void
zero_range_write_error(void)
{
	char path[256];
	enum xos_zero_how how;
	uint64_t written = 1;
	int fd = pattern_file(path, sizeof(path)), ro;

	UT_ASSERT_FATAL(fd >= 0);
	close(fd);
	ro = open(path, O_RDONLY);
	UT_ASSERT_FATAL(ro >= 0);
	CU_ASSERT_EQUAL(xos_zero_range(ro, Z_OFF, Z_LEN, XOS_ZERO_MAY_WRITE, &how, &written), -EBADF);
	CU_ASSERT_EQUAL(written, 0);
	close(ro);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* What xos_zero_range should report for flags, given which fallocate modes fd takes. */
static enum xos_zero_how
expected_how(unsigned flags, bool punch_ok, bool range_ok)
{
	if (flags & XOS_ZERO_RANGE_FIRST) {
		return range_ok ? XOS_ZERO_RANGE : punch_ok ? XOS_ZERO_PUNCHED : XOS_ZERO_WRITTEN;
	}
	return punch_ok ? XOS_ZERO_PUNCHED : range_ok ? XOS_ZERO_RANGE : XOS_ZERO_WRITTEN;
}

/*
 * The order of the fallocate modes: punch first by default, ZERO_RANGE first
 * with XOS_ZERO_RANGE_FIRST (the modes this file system takes are probed on
 * the file's last 4 KiB); both ranges read as zeros.
 */
static void
zero_range_order(void)
{
	static uint8_t buf[Z_LEN];
	static const unsigned flags[2] = { XOS_ZERO_MAY_WRITE,
					   XOS_ZERO_MAY_WRITE | XOS_ZERO_RANGE_FIRST };
	const int keep = FALLOC_FL_KEEP_SIZE;
	char path[256];
	enum xos_zero_how how;
	uint64_t written;
	bool punch_ok, range_ok;
	int fd = pattern_file(path, sizeof(path)), i;

	UT_ASSERT_FATAL(fd >= 0);
	punch_ok = fallocate(fd, FALLOC_FL_PUNCH_HOLE | keep, FILE_LEN - 4096, 4096) == 0;
	range_ok = fallocate(fd, FALLOC_FL_ZERO_RANGE | keep, FILE_LEN - 4096, 4096) == 0;
	for (i = 0; i < 2; i++) {
		uint64_t off = Z_OFF + (uint64_t)i * 2 * Z_LEN;

		CU_ASSERT_EQUAL(xos_zero_range(fd, off, Z_LEN, flags[i], &how, &written), 0);
		CU_ASSERT_EQUAL(how, expected_how(flags[i], punch_ok, range_ok));
		memset(buf, 0xFF, sizeof(buf));
		CU_ASSERT_EQUAL(pread(fd, buf, sizeof(buf), (off_t)off), (ssize_t)sizeof(buf));
		CU_ASSERT(buf[0] == 0 && memcmp(buf, buf + 1, sizeof(buf) - 1) == 0);
	}
	close(fd);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

static CU_TestInfo g_tests[] = {
	{ "file_range_zeroed_rest_kept", zero_range_file },
	{ "writes_when_allowed", zero_range_writes_when_allowed },
	{ "write_error", zero_range_write_error },
	{ "fallocate_mode_order", zero_range_order },
	CU_TEST_INFO_NULL,
};
UT_SUITE(common_zero, g_tests)
