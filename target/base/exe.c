/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Does a file (an executable) carry a string as a C string of its own: the
 * bytes of s and its NUL, right after a NUL? How the plugin recognises
 * tcmu-runner 1.5.4, whose executable carries its version that way
 * (cm/async.c, xt_runner_unsupported).
 */
#include <string.h>
#include <unistd.h>

#include "base/env.h"

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
