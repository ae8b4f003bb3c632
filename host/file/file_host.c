/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the host copies itself for xcopy_file_range(): copy_file_range(2)
 * then pread/pwrite, and destination ranges zeroed under source holes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/xch_base.h"
#include "xch_file.h"
#include "xos.h"

enum {
	COPY_BUF = 1 << 20,
};

/* ------------------------------------------------------------------------ */
/* Host-side copies                                                          */
/* ------------------------------------------------------------------------ */

static int
progress(void *arg, uint64_t bytes)
{
	(void)arg;
	xch_progress_add(XCOPY_METHOD_HOST, bytes);
	return 0;
}

/*
 * copy_file_range first (may reflink or copy in the kernel); whatever it
 * leaves, for any reason, pread/pwrite copies (common/copy_loops.c's loops).
 */
int
xch_host_copy(int fd_in, uint64_t so, int fd_out, uint64_t dof, uint64_t len, struct xcopy_stats *st)
{
	const struct xos_copy_ops ops = { .rw_chunk = COPY_BUF, .chunk_done = progress };
	struct xos_copy_res res;
	uint64_t moved = 0;
	int rc;

	(void)xos_cfr_loop(fd_in, so, fd_out, dof, len, &ops, &moved);
	if (moved < len) {
		rc = xos_rw_loop(fd_in, so + moved, fd_out, dof + moved, len - moved, &ops, &res);
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

	rc = xos_zero_range(fd_out, off, len, (flags & XCOPY_REQUIRE_OFFLOAD) ? 0 : XOS_ZERO_MAY_WRITE,
			    &how, &written);
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
