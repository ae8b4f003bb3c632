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

#ifdef __cplusplus
extern "C" {
#endif

/*
 * CLOCK_MONOTONIC in nanoseconds / milliseconds: the one clock of host/
 * and target/ (deadlines, token timeouts, progress rates).
 */
uint64_t xos_now_ns(void);
uint64_t xos_now_ms(void);

/* The smaller of a and b where 0 means "no limit": 0 only if both are. */
static inline uint64_t
xos_min_nz(uint64_t a, uint64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

/* The value of hex digit c (either case), -1 if c is not one. */
static inline int
xos_hex_digit(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/* How xos_zero_range made the bytes read as zeros. */
enum xos_zero_how {
	XOS_ZERO_PUNCHED,      /* fallocate PUNCH_HOLE | KEEP_SIZE (deallocated) */
	XOS_ZERO_RANGE,        /* fallocate ZERO_RANGE | KEEP_SIZE */
	XOS_ZERO_WRITTEN,      /* pwrite of zero buffers */
};

/* xos_zero_range flags. */
enum {
	XOS_ZERO_MAY_WRITE = 1 << 0,   /* write zeros when neither fallocate mode works */
	XOS_ZERO_RANGE_FIRST = 1 << 1, /* try ZERO_RANGE before PUNCH_HOLE */
};

/*
 * Makes [off, off + len) of fd read as zeros without changing the file's
 * size: punch a hole, else zero the range (the other order with
 * XOS_ZERO_RANGE_FIRST), else (with XOS_ZERO_MAY_WRITE) write zeros.
 * 0 with *how set; -EOPNOTSUPP when neither fallocate mode worked and
 * writing is not allowed; -errno of a failed write (*written: zero bytes
 * written so far).
 */
int xos_zero_range(int fd, uint64_t off, uint64_t len, unsigned flags, enum xos_zero_how *how,
		   uint64_t *written);

/*
 * Formats an explanation into why[0, whylen) (truncated, NUL-terminated);
 * nothing when whylen is 0 (the caller asked for no explanation).
 */
void xos_why_set(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Hooks of the copy loops (xos_cfr_loop, xos_rw_loop). Zeroed fields mean:
 * copy_file_range asked for all that is left, a buffer of min(len, 1 MiB)
 * allocated per call, forward order, no hooks.
 */
struct xos_copy_ops {
	size_t cfr_max;        /* bytes asked of one copy_file_range call; 0: the rest */
	size_t rw_chunk;       /* bytes per pread/pwrite round; 0: 1 MiB */
	uint8_t *buf;          /* caller's buffer of rw_chunk bytes; NULL: allocated */
	bool backward;         /* last chunk first: overlapping dst > src in one file */
	/* before each pread (write false) / pwrite (true): may shorten *want
	 * (never to 0) or return -errno to fail that side; NULL: none */
	int (*io)(void *arg, bool write, size_t *want);
	/* after each chunk is in the destination: 0 goes on, -errno stops the
	 * loop with that value; NULL: none */
	int (*chunk_done)(void *arg, uint64_t bytes);
	void *arg;
};

/*
 * copy_file_range(2) of [so, so + len) of in to out at doff, short copies
 * continued, EINTR retried. *moved: bytes copied (and reported to
 * chunk_done). 0 when all len moved; else -errno of the failed call
 * (EXDEV, EOPNOTSUPP, EINVAL, ... : the caller falls back to xos_rw_loop
 * for the rest), -ENODATA when the source ended first, or chunk_done's rc.
 */
int xos_cfr_loop(int in, uint64_t so, int out, uint64_t doff, uint64_t len,
		 const struct xos_copy_ops *ops, uint64_t *moved);

/*
 * All len bytes at off read into (written from) buf: short transfers
 * continued, EINTR retried. 0, -errno, or -EIO when the file ended first
 * (a read returned 0) or a write wrote nothing.
 */
int xos_pread_full(int fd, void *buf, size_t len, uint64_t off);
int xos_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* Where xos_rw_loop stopped. */
struct xos_copy_res {
	uint64_t done;         /* bytes in the destination (see xos_rw_loop) */
	bool at_dst;           /* the failure was the destination's (pwrite or its io hook) */
};

/*
 * pread/pwrite copy of [so, so + len) of in to out at doff, one chunk at a
 * time: each chunk read in full (short reads continued), then written in
 * full (short writes continued), EINTR retried. 0, or -errno of the failed
 * side (-EIO: the source ended first or a write wrote nothing), -ENOMEM,
 * or chunk_done's rc. res->done counts whole chunks written, plus, going
 * forward, the bytes of a chunk's short writes before its failed write.
 */
int xos_rw_loop(int in, uint64_t so, int out, uint64_t doff, uint64_t len,
		const struct xos_copy_ops *ops, struct xos_copy_res *res);

#ifdef __cplusplus
}
#endif

#endif
