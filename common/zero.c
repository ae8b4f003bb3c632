/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* xos_zero_range: punch a hole -> zero the range -> write zeros (fallocate(2) modes). */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <unistd.h>

#include "xos.h"

int
xos_zero_range(int fd, uint64_t off, uint64_t len, bool may_write, enum xos_zero_how *how,
	       uint64_t *written)
{
	static const uint8_t zeros[65536];
	uint64_t done = 0;

	*written = 0;
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0) {
		*how = XOS_ZERO_PUNCHED;
		return 0;
	}
	if (fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0) {
		*how = XOS_ZERO_RANGE;
		return 0;
	}
	if (!may_write) {
		return -EOPNOTSUPP;
	}
	*how = XOS_ZERO_WRITTEN;
	while (done < len) {
		size_t n = len - done < sizeof(zeros) ? (size_t)(len - done) : sizeof(zeros);
		ssize_t w = pwrite(fd, zeros, n, (off_t)(off + done));

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return w < 0 ? -errno : -EIO;
		}
		done += (uint64_t)w;
		*written = done;
	}
	return 0;
}
