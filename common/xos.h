/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers shared by libxcopy (host/) and the tcmu-runner handler
 * (target/): small, stateless wrappers over Linux file calls and the
 * message buffer of explained refusals. The engine stays OS-free and does
 * not link this.
 */
#ifndef XCOPY_COMMON_XOS_H
#define XCOPY_COMMON_XOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How xos_zero_range made the bytes read as zeros. */
enum xos_zero_how {
	XOS_ZERO_PUNCHED,      /* fallocate PUNCH_HOLE | KEEP_SIZE (deallocated) */
	XOS_ZERO_RANGE,        /* fallocate ZERO_RANGE | KEEP_SIZE */
	XOS_ZERO_WRITTEN,      /* pwrite of zero buffers */
};

/*
 * Makes [off, off + len) of fd read as zeros without changing the file's
 * size: punch a hole, else zero the range, else (if may_write) write zeros.
 * 0 with *how set; -EOPNOTSUPP when neither fallocate mode worked and
 * !may_write; -errno of a failed write (*written: zero bytes written so far).
 */
int xos_zero_range(int fd, uint64_t off, uint64_t len, bool may_write, enum xos_zero_how *how,
		   uint64_t *written);

/*
 * Formats an explanation into why[0, whylen) (truncated, NUL-terminated);
 * nothing when whylen is 0 (the caller asked for no explanation).
 */
void xos_why_set(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
