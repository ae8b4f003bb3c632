/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the host copies itself for xcopy_file_range(): copy_file_range(2)
 * then pread/pwrite, and destination ranges zeroed under source holes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/falloc.h>

#include "xcopy_internal.h"

enum {
	COPY_BUF = 1 << 20,
};

/* ------------------------------------------------------------------------ */
/* Host-side copies                                                          */
/* ------------------------------------------------------------------------ */

static int
rw_copy(int fd_in, uint64_t so, int fd_out, uint64_t dof, uint64_t len)
{
	size_t bufsz = len < COPY_BUF ? (size_t)len : COPY_BUF;
	uint8_t *buf;
	int rc = 0;

	buf = malloc(bufsz ? bufsz : 1);
	if (buf == NULL) {
		return -ENOMEM;
	}
	while (len > 0) {
		size_t want = len < bufsz ? (size_t)len : bufsz;
		ssize_t r = pread(fd_in, buf, want, (off_t)so), w, off = 0;

		if (r < 0) {
			if (errno == EINTR) {
				continue;
			}
			rc = -errno;
			break;
		}
		if (r == 0) {
			rc = -EIO; /* source shrank under us */
			break;
		}
		while (off < r) {
			w = pwrite(fd_out, buf + off, (size_t)(r - off), (off_t)(dof + (uint64_t)off));
			if (w < 0) {
				if (errno == EINTR) {
					continue;
				}
				rc = -errno;
				goto out;
			}
			off += w;
		}
		so += (uint64_t)r;
		dof += (uint64_t)r;
		len -= (uint64_t)r;
		xch_progress_add(XCOPY_METHOD_HOST, (uint64_t)r);
	}
out:
	free(buf);
	return rc;
}

/* copy_file_range first (may reflink or copy in the kernel), then read/write. */
int
xch_host_copy(int fd_in, uint64_t so, int fd_out, uint64_t dof, uint64_t len, struct xcopy_stats *st)
{
	uint64_t left = len;

	while (left > 0) {
		loff_t a = (loff_t)so, b = (loff_t)dof;
		ssize_t n = copy_file_range(fd_in, &a, fd_out, &b, (size_t)left, 0);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		so += (uint64_t)n;
		dof += (uint64_t)n;
		left -= (uint64_t)n;
		xch_progress_add(XCOPY_METHOD_HOST, (uint64_t)n);
	}
	if (left > 0) {
		int rc = rw_copy(fd_in, so, fd_out, dof, left);
		if (rc != 0) {
			return rc;
		}
	}
	if (st != NULL) {
		st->bytes_fallback += len;
	}
	return 0;
}

/* Destination bytes that must read as zeros (source hole). */
int
xch_zero_dst(int fd_out, uint64_t off, uint64_t len, unsigned flags, struct xcopy_stats *st)
{
	static const uint8_t zeros[4096];

	if (fallocate(fd_out, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) == 0 ||
	    fallocate(fd_out, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) == 0) {
		if (st != NULL) {
			st->bytes_zeroed += len;
		}
		xch_stats_fallback(st, XCOPY_FB_HOLE, len);
		xch_progress_add(XCOPY_METHOD_ZERO, len);
		return 0;
	}
	if (flags & XCOPY_REQUIRE_OFFLOAD) {
		return -EOPNOTSUPP;
	}
	while (len > 0) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);
		ssize_t w = pwrite(fd_out, zeros, n, (off_t)off);

		if (w < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -errno;
		}
		off += (uint64_t)w;
		len -= (uint64_t)w;
		if (st != NULL) {
			st->bytes_zeroed += (uint64_t)w;
			st->bytes_fallback += (uint64_t)w;
		}
		xch_progress_add(XCOPY_METHOD_ZERO, (uint64_t)w);
	}
	xch_stats_fallback(st, XCOPY_FB_HOLE, 0);
	return 0;
}
