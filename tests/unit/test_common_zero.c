/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* common/zero.c: xos_zero_range (punch -> zero range -> write zeros). */
#include <errno.h>
#include <fcntl.h>
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
	CU_ASSERT_EQUAL(xos_zero_range(fd, Z_OFF, Z_LEN, true, &how, &written), 0);
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
	CU_ASSERT_EQUAL(xos_zero_range(fd, 0, Z_LEN, false, &how, &written), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(written, 0);
	CU_ASSERT_EQUAL(xos_zero_range(fd, 0, Z_LEN, true, &how, &written), 0);
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
	CU_ASSERT_EQUAL(xos_zero_range(ro, Z_OFF, Z_LEN, true, &how, &written), -EBADF);
	CU_ASSERT_EQUAL(written, 0);
	close(ro);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

static CU_TestInfo g_tests[] = {
	{ "file_range_zeroed_rest_kept", zero_range_file },
	{ "writes_when_allowed", zero_range_writes_when_allowed },
	{ "write_error", zero_range_write_error },
	CU_TEST_INFO_NULL,
};
UT_SUITE(common_zero, g_tests)
