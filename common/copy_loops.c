/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The two byte-moving loops of host/ and target/: copy_file_range(2)
 * (xos_cfr_loop) and pread/pwrite through a buffer (xos_rw_loop).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "xos.h"

enum { RW_CHUNK = 1 << 20 };

int
xos_cfr_loop(int in, uint64_t so, int out, uint64_t doff, uint64_t len,
	     const struct xos_copy_ops *ops, uint64_t *moved)
{
	uint64_t left;
	ssize_t n;
	int rc;

	*moved = 0;
	while (*moved < len) {
		loff_t a = (loff_t)(so + *moved), b = (loff_t)(doff + *moved);

		left = len - *moved;
		if (ops->cfr_max != 0 && left > ops->cfr_max) {
			left = ops->cfr_max;
		}
		n = copy_file_range(in, &a, out, &b, (size_t)left, 0);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -errno;
		}
		if (n == 0) {
			return -ENODATA;   /* source shorter than expected */
		}
		*moved += (uint64_t)n;
		rc = ops->chunk_done != NULL ? ops->chunk_done(ops->arg, (uint64_t)n) : 0;
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

/* len bytes at off into buf; short reads continued. 0 or -errno (-EIO: EOF). */
static int
read_full(int fd, uint8_t *buf, size_t len, uint64_t off, const struct xos_copy_ops *ops)
{
	size_t got = 0, want;
	ssize_t n;
	int rc;

	while (got < len) {
		want = len - got;
		rc = ops->io != NULL ? ops->io(ops->arg, false, &want) : 0;
		if (rc != 0) {
			return rc;
		}
		n = pread(fd, buf + got, want, (off_t)(off + got));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -errno : -EIO;   /* n == 0: the source ended first */
		}
		got += (size_t)n;
	}
	return 0;
}

/* len bytes of buf at off; short writes continued. *put: bytes written. */
static int
write_full(int fd, const uint8_t *buf, size_t len, uint64_t off, const struct xos_copy_ops *ops,
	   size_t *put)
{
	size_t want;
	ssize_t n;
	int rc;

	*put = 0;
	while (*put < len) {
		want = len - *put;
		rc = ops->io != NULL ? ops->io(ops->arg, true, &want) : 0;
		if (rc != 0) {
			return rc;
		}
		n = pwrite(fd, buf + *put, want, (off_t)(off + *put));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -errno : -EIO;
		}
		*put += (size_t)n;
	}
	return 0;
}

int
xos_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	static const struct xos_copy_ops none;

	return read_full(fd, buf, len, off, &none);
}

int
xos_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	static const struct xos_copy_ops none;
	size_t put;

	return write_full(fd, buf, len, off, &none, &put);
}

static int
rw_chunks(int in, uint64_t so, int out, uint64_t doff, uint64_t len, uint8_t *buf, size_t bufsz,
	  const struct xos_copy_ops *ops, struct xos_copy_res *res)
{
	uint64_t pos, chunk;
	size_t put;
	int rc;

	while (res->done < len) {
		chunk = len - res->done < bufsz ? len - res->done : bufsz;
		/* backward: the last chunk first, so overlapping dst > src is safe */
		pos = ops->backward ? len - res->done - chunk : res->done;
		rc = read_full(in, buf, (size_t)chunk, so + pos, ops);
		if (rc != 0) {
			return rc;
		}
		rc = write_full(out, buf, (size_t)chunk, doff + pos, ops, &put);
		if (rc != 0) {
			res->at_dst = true;
			/* forward: the bytes of a short write before the error count */
			res->done += ops->backward ? 0 : put;
			return rc;
		}
		res->done += chunk;
		rc = ops->chunk_done != NULL ? ops->chunk_done(ops->arg, chunk) : 0;
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

int
xos_rw_loop(int in, uint64_t so, int out, uint64_t doff, uint64_t len,
	    const struct xos_copy_ops *ops, struct xos_copy_res *res)
{
	size_t bufsz = ops->rw_chunk != 0 ? ops->rw_chunk : RW_CHUNK;
	uint8_t *buf = ops->buf;
	int rc;

	res->done = 0;
	res->at_dst = false;
	if (buf == NULL) {
		bufsz = len < bufsz ? (size_t)len : bufsz;
		buf = malloc(bufsz != 0 ? bufsz : 1);
		if (buf == NULL) {
			return -ENOMEM;
		}
	}
	rc = rw_chunks(in, so, out, doff, len, buf, bufsz, ops, res);
	if (buf != ops->buf) {
		free(buf);
	}
	return rc;
}
