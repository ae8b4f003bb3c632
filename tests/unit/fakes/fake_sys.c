/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The injectable fchown, acl_set_fd and xcopy_file_range of the unit binary (fake_sys.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/acl.h>
#include <unistd.h>

#include "fake_sys.h"

struct xcopy_stats;

int __real_fchown(int fd, uid_t uid, gid_t gid);
int __wrap_fchown(int fd, uid_t uid, gid_t gid);
int __real_acl_set_fd(int fd, acl_t acl);
int __wrap_acl_set_fd(int fd, acl_t acl);
ssize_t __real_xcopy_file_range(int in, int64_t *in_off, int out, int64_t *out_off, size_t len,
				unsigned flags, struct xcopy_stats *st);
ssize_t __wrap_xcopy_file_range(int in, int64_t *in_off, int out, int64_t *out_off, size_t len,
				unsigned flags, struct xcopy_stats *st);

static int g_fchown_err, g_acl_err, g_copy_err;
static uint64_t g_copy_left;

int
__wrap_fchown(int fd, uid_t uid, gid_t gid)
{
	if (g_fchown_err != 0) {
		errno = g_fchown_err;
		return -1;
	}
	return __real_fchown(fd, uid, gid);
}

int
__wrap_acl_set_fd(int fd, acl_t acl)
{
	if (g_acl_err != 0) {
		errno = g_acl_err;
		return -1;
	}
	return __real_acl_set_fd(fd, acl);
}

ssize_t
__wrap_xcopy_file_range(int in, int64_t *in_off, int out, int64_t *out_off, size_t len,
			unsigned flags, struct xcopy_stats *st)
{
	ssize_t n;

	if (g_copy_err == 0) {
		return __real_xcopy_file_range(in, in_off, out, out_off, len, flags, st);
	}
	if (g_copy_left == 0) {
		return -g_copy_err;
	}
	if (len > g_copy_left) {
		len = (size_t)g_copy_left;
	}
	n = __real_xcopy_file_range(in, in_off, out, out_off, len, flags, st);
	if (n > 0) {
		g_copy_left -= (uint64_t)n;
	}
	return n;
}

void
ut_sys_fail_fchown(int err)
{
	g_fchown_err = err;
}

void
ut_sys_fail_acl_set_fd(int err)
{
	g_acl_err = err;
}

void
ut_sys_fail_copy_after(uint64_t bytes, int err)
{
	g_copy_left = bytes;
	g_copy_err = err;
}

void
ut_sys_reset(void)
{
	g_fchown_err = g_acl_err = g_copy_err = 0;
	g_copy_left = 0;
}
