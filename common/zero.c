/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xos_zero_range: punch a hole -> zero the range -> write zeros (fallocate(2)
 * modes; XOS_ZERO_RANGE_FIRST swaps the two fallocate modes).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <unistd.h>

#include "xos.h"

/* pwrite zeros over [off, off + len); *written counts what reached the file. */
static int
write_zeros(int fd, uint64_t off, uint64_t len, uint64_t *written)
{
	static const uint8_t zeros[65536];
	uint64_t done = 0;

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

int
xos_zero_range(int fd, uint64_t off, uint64_t len, unsigned flags, enum xos_zero_how *how,
	       uint64_t *written)
{
	static const int mode[2] = { FALLOC_FL_PUNCH_HOLE, FALLOC_FL_ZERO_RANGE };
	static const enum xos_zero_how got[2] = { XOS_ZERO_PUNCHED, XOS_ZERO_RANGE };
	unsigned first = (flags & XOS_ZERO_RANGE_FIRST) ? 1 : 0, i;

	*written = 0;
	for (i = 0; i < 2; i++) {
		unsigned m = i ^ first;

		if (fallocate(fd, mode[m] | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0) {
			*how = got[m];
			return 0;
		}
	}
	if (!(flags & XOS_ZERO_MAY_WRITE)) {
		return -EOPNOTSUPP;
	}
	*how = XOS_ZERO_WRITTEN;
	return write_zeros(fd, off, len, written);
}
