/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the host copies itself for xcopy_file_range(): copy_file_range(2)
 * then pread/pwrite, and destination ranges zeroed under source holes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "xcopy_internal.h"
#include "xos.h"

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

/*
 * Destination bytes that must read as zeros (source hole): punched or
 * zeroed (counted as zeroed hole bytes), else written zeros unless
 * XCOPY_REQUIRE_OFFLOAD (counted as zeroed fallback bytes, also when a
 * write fails part way).
 */
int
xch_zero_dst(int fd_out, uint64_t off, uint64_t len, unsigned flags, struct xcopy_stats *st)
{
	enum xos_zero_how how;
	uint64_t written = 0;
	int rc;

	rc = xos_zero_range(fd_out, off, len, !(flags & XCOPY_REQUIRE_OFFLOAD), &how, &written);
	if (rc == 0 && how != XOS_ZERO_WRITTEN) {
		if (st != NULL) {
			st->bytes_zeroed += len;
		}
		xch_stats_fallback(st, XCOPY_FB_HOLE, len);
		xch_progress_add(XCOPY_METHOD_ZERO, len);
		return 0;
	}
	if (st != NULL) {
		st->bytes_zeroed += written;
		st->bytes_fallback += written;
	}
	xch_progress_add(XCOPY_METHOD_ZERO, written);
	if (rc != 0) {
		return rc;
	}
	xch_stats_fallback(st, XCOPY_FB_HOLE, 0);
	return 0;
}
