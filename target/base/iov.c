/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * iovec helpers of the handler: data-in fill and full-length positioned I/O
 * over a TCMU iovec (never modify the caller's iovec).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/lu.h"

/* Data-in: src then zeros for the rest of the buffer (no stale ring bytes leak). */
void
xt_iov_fill(const struct iovec *iov, size_t cnt, const uint8_t *src, size_t len)
{
	size_t i, n;

	for (i = 0; i < cnt; i++) {
		n = iov[i].iov_len < len ? iov[i].iov_len : len;
		if (n > 0) {
			memcpy(iov[i].iov_base, src, n);
		}
		memset((uint8_t *)iov[i].iov_base + n, 0, iov[i].iov_len - n);
		src += n;
		len -= n;
	}
}

bool
xt_iov_is_zero(const struct iovec *iov, size_t cnt, size_t len)
{
	size_t i, j, n;

	for (i = 0; i < cnt && len > 0; i++) {
		const uint8_t *p = iov[i].iov_base;

		n = iov[i].iov_len < len ? iov[i].iov_len : len;
		for (j = 0; j < n; j++) {
			if (p[j] != 0) {
				return false;
			}
		}
		len -= n;
	}
	return len == 0;
}

/* All io->len bytes at io->off through preadv/pwritev (io->wr), retrying short transfers. */
int
xt_iov_io(int fd, const struct xt_io *io)
{
	const struct iovec *iov = io->iov;
	size_t cnt = io->cnt, len = io->len;
	off_t off = (off_t)io->off;
	bool wr = io->wr;
	struct iovec local[64];
	struct iovec *v = cnt <= 64 ? local : malloc(cnt * sizeof(*v));
	size_t i = 0, done = 0;
	ssize_t n;
	int rc = 0;

	if (v == NULL) {
		return -ENOMEM;
	}
	memcpy(v, iov, cnt * sizeof(*v));
	while (done < len) {
		while (i < cnt && v[i].iov_len == 0) {
			i++;
		}
		if (i == cnt) {
			break;
		}
		n = wr ? pwritev(fd, v + i, (int)(cnt - i < 1024 ? cnt - i : 1024), off + (off_t)done)
		       : preadv(fd, v + i, (int)(cnt - i < 1024 ? cnt - i : 1024), off + (off_t)done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
		while (n > 0 && i < cnt) {
			size_t k = v[i].iov_len < (size_t)n ? v[i].iov_len : (size_t)n;
			v[i].iov_base = (uint8_t *)v[i].iov_base + k;
			v[i].iov_len -= k;
			n -= (ssize_t)k;
			if (v[i].iov_len == 0) {
				i++;
			}
		}
	}
	if (v != local) {
		free(v);
	}
	return rc;
}

/*
 * c->v[0..c->n): exactly len bytes of iov, at most XT_IOV_CLIP_MAX entries
 * (librbd refuses more than IOV_MAX); a longer vector goes through one bounce
 * buffer, filled from iov when wr. 0 or -ENOMEM.
 */
int
xt_iov_clip(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len, bool wr)
{
	size_t i, n, left = len;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < cnt && left > 0; i++) {
		left -= iov[i].iov_len < left ? iov[i].iov_len : left;
	}
	if (left > 0) {
		return -EINVAL;   /* the vector holds fewer than len bytes */
	}
	n = i;
	if (n > XT_IOV_CLIP_MAX) {
		c->bounce = malloc(len);
		c->v = malloc(sizeof(*c->v));
		if (c->bounce == NULL || c->v == NULL) {
			xt_iov_clip_done(c, iov, cnt, len, false);
			return -ENOMEM;
		}
		for (i = 0, left = 0; left < len; left += n, i++) {
			n = iov[i].iov_len < len - left ? iov[i].iov_len : len - left;
			if (wr) {
				memcpy((uint8_t *)c->bounce + left, iov[i].iov_base, n);
			}
		}
		c->v[0].iov_base = c->bounce;
		c->v[0].iov_len = len;
		c->n = 1;
		return 0;
	}
	c->v = malloc((n > 0 ? n : 1) * sizeof(*c->v));
	if (c->v == NULL) {
		return -ENOMEM;
	}
	memcpy(c->v, iov, n * sizeof(*c->v));
	if (n > 0) {
		for (i = 0, left = 0; i < n; i++) {
			left += c->v[i].iov_len;
		}
		c->v[n - 1].iov_len -= left - len;
	}
	c->n = n;
	return 0;
}

/* Frees c; scatter: copy the bounce buffer (a read's data) back into iov. */
void
xt_iov_clip_done(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len,
		 bool scatter)
{
	if (c->bounce != NULL && scatter) {
		xt_iov_fill(iov, cnt, c->bounce, len);
	}
	free(c->bounce);
	free(c->v);
	memset(c, 0, sizeof(*c));
}
