/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Is the running tcmu-runner the one whose dispatch the plugin relies on
 * (1.5.4: cm/async.c, tcmu/tcmu_cmd.c)? Its executable carries its version as
 * a C string of its own: the bytes and their NUL, right after a NUL. A
 * runner without "1.5.4" is refused at open. (The plugin harness carries
 * the same string: it reproduces that dispatch.)
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "tcmu/handler.h"

bool
xt_fd_has_cstring(int fd, const char *s)
{
	char buf[16384];
	size_t want = strlen(s) + 1, keep = 0, len, k;
	ssize_t n;

	if (want + 1 > sizeof(buf) / 2) {
		return false;
	}
	while ((n = read(fd, buf + keep, sizeof(buf) - keep)) > 0) {
		len = keep + (size_t)n;
		for (k = 0; k + want + 1 <= len; k++) {
			if (buf[k] == '\0' && memcmp(buf + k + 1, s, want) == 0) {
				return true;
			}
		}
		/* a match may straddle two reads: keep the tail that could start one */
		keep = len < want + 1 ? len : want;
		memmove(buf, buf + len - keep, keep);
	}
	return false;
}

const char *
xt_runner_unsupported(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0) {
		return "cannot read /proc/self/exe to check the tcmu-runner version";
	}
	ok = xt_fd_has_cstring(fd, "1.5.4");
	close(fd);
	return ok ? NULL
		  : "the running tcmu-runner is not version 1.5.4 (EXTENDED COPY runs on its "
		    "worker pool through the 1.5.4 flush path)";
}
