/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host's READ/WRITE of the ranges a device copy's copy manager did not
 * do (xcopy_dev_copy, device-mapper pieces): the fallback callback of the
 * offload loop, safe to run from several of its workers at once. And the
 * host method's step: every pair to the caller's fallback.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/xch_base.h"
#include "copy/xch_copy.h"

/* Counters of one fallback range into the call's statistics. */
static void
rw_fb_count(struct xch_rw_fb *f, const struct xcopy_stats *mine)
{
	if (f->st != NULL) {
		pthread_mutex_lock(&f->mu);
		f->st->other_cmds += mine->other_cmds;
		f->st->bytes_fallback += mine->bytes_fallback;
		pthread_mutex_unlock(&f->mu);
	}
}

void
xch_rw_fb_init(struct xch_rw_fb *f, struct xcopy_dev *src, struct xcopy_dev *dst,
	       struct xcopy_stats *st, bool by_off)
{
	f->src = src;
	f->dst = dst;
	f->st = st;
	f->by_off = by_off;
	f->chunk = (uint32_t)((4u << 20) / src->caps.block_size);
	f->chunk = f->chunk == 0 ? 1 : f->chunk;
	pthread_mutex_init(&f->mu, NULL);
}

void
xch_rw_fb_fini(struct xch_rw_fb *f)
{
	pthread_mutex_destroy(&f->mu);
}

int
xch_rw_fallback(void *arg, const struct xch_pair *p, uint64_t skip, uint64_t nblocks,
		enum xcopy_fallback_reason why)
{
	struct xch_rw_fb *f = arg;
	uint32_t bs = f->src->caps.block_size;
	uint64_t sl = (f->by_off ? p->src_off / bs : p->src_lba) + skip;
	uint64_t dl = (f->by_off ? p->dst_off / bs : p->dst_lba) + skip;
	uint8_t *buf = malloc((size_t)f->chunk * bs);
	struct xcopy_stats mine;
	uint64_t done = 0;
	int rc = buf != NULL ? 0 : -ENOMEM;

	(void)why;
	memset(&mine, 0, sizeof(mine));
	while (rc == 0 && done < nblocks) {
		uint32_t n = nblocks - done < f->chunk ? (uint32_t)(nblocks - done) : f->chunk;

		rc = xch_dev_read(f->src, sl + done, n, buf, &mine);
		if (rc == 0) {
			rc = xch_dev_write(f->dst, dl + done, n, buf, &mine);
		}
		if (rc == 0) {
			mine.bytes_fallback += (uint64_t)n * bs;
			xch_progress_add(XCOPY_METHOD_HOST, (uint64_t)n * bs);
			done += n;
		}
	}
	rw_fb_count(f, &mine);
	free(buf);
	return rc;
}

int
xch_fallback_all(const struct xch_pair *pairs, size_t n, uint32_t bs, unsigned flags,
		 struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg,
		 enum xcopy_fallback_reason why)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (pairs[i].nblocks == 0) {
			continue;
		}
		if (flags & XCOPY_REQUIRE_OFFLOAD) {
			return xch_required_errno(st, why);
		}
		rc = fb(fbarg, &pairs[i], 0, pairs[i].nblocks, why);
		if (rc != 0) {
			return rc;
		}
		xch_stats_fallback(st, why, pairs[i].nblocks * bs);
	}
	return 0;
}
