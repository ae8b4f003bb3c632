/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcopy_dev_copy(): an LBA range of one handle to another through the
 * offload loop (lid1_copy.c), or the device-mapper copy (dm_copy.c); ranges the
 * copy manager does not do are read and written by the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xch_base.h"
#include "xch_copy.h"

/* The arguments of xcopy_dev_copy(): 0 or -EINVAL. */
static int
dev_copy_check(const struct xcopy_dev *src, uint64_t src_lba, const struct xcopy_dev *dst,
	       uint64_t dst_lba, uint64_t nblocks, unsigned flags)
{
	if (src == NULL || dst == NULL || xch_flags_check(flags) != 0) {
		return -EINVAL;
	}
	if (nblocks == 0) {
		return 0;
	}
	if (src->caps.block_size != dst->caps.block_size) {
		return -EINVAL;
	}
	/* LBA range checks in the subtraction form: no overflow */
	if (src_lba >= src->caps.part_blocks || nblocks > src->caps.part_blocks - src_lba ||
	    dst_lba >= dst->caps.part_blocks || nblocks > dst->caps.part_blocks - dst_lba) {
		return -EINVAL;
	}
	return 0;
}

/* Device-mapper volumes: cut at their pieces, copied between the devices under them. */
static int
dev_copy_dm(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	    uint64_t nblocks, unsigned flags, struct xcopy_stats *st)
{
	int rc;

	if (xch_same_lu(src, dst) && src_lba < dst_lba + nblocks && dst_lba < src_lba + nblocks) {
		return -EINVAL;
	}
	xch_progress_begin(nblocks * src->caps.block_size);
	rc = xch_dm_copy(src, src_lba, dst, dst_lba, nblocks, flags, st);
	xch_progress_end();
	return rc;
}

/* One pair of absolute LBAs through the offload loop, the host's READ/WRITE behind it. */
static int
dev_copy_pair(const struct xch_pair *p, struct xcopy_dev *src, struct xcopy_dev *dst,
	      unsigned flags, struct xcopy_stats *st)
{
	uint64_t bs = src->caps.block_size;
	struct xch_rw_fb f;
	int rc;

	xch_rw_fb_init(&f, src, dst, st, false);
	xch_progress_begin(p->nblocks * bs);
	rc = xch_copy_pairs(src, dst, p, 1, flags, st, xch_rw_fallback, &f);
	xch_progress_end();
	xch_rw_fb_fini(&f);
	return rc;
}

int
xcopy_dev_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	       uint64_t nblocks, unsigned flags, struct xcopy_stats *st)
{
	struct xch_pair p;
	uint64_t bs;
	int rc;

	rc = dev_copy_check(src, src_lba, dst, dst_lba, nblocks, flags);
	if (rc != 0 || nblocks == 0) {
		return rc;
	}
	/*
	 * Dirty pages in a node's cache would be missed by the copy manager (source)
	 * or written back over its work later (destination): flush both first.
	 */
	if ((src->host_fd >= 0 && fdatasync(src->host_fd) != 0) ||
	    (dst->host_fd >= 0 && dst->host_fd != src->host_fd && fdatasync(dst->host_fd) != 0)) {
		return -errno;
	}
	if ((src->dm != NULL || dst->dm != NULL) && !src->host_only && !dst->host_only) {
		return dev_copy_dm(src, src_lba, dst, dst_lba, nblocks, flags, st);
	}
	p.src_lba = src->caps.part_start + src_lba;
	p.dst_lba = dst->caps.part_start + dst_lba;
	p.nblocks = nblocks;
	p.src_off = 0;
	p.dst_off = 0;
	/* copy_file_range(2) refuses overlapping ranges of one file; so do we */
	if (xch_same_lu(src, dst) && p.src_lba < p.dst_lba + nblocks &&
	    p.dst_lba < p.src_lba + nblocks) {
		return -EINVAL;
	}
	bs = src->caps.block_size;
	rc = dev_copy_pair(&p, src, dst, flags, st);
	/* a host-only destination was written through its page cache */
	if ((dst->host_only || dst->dm != NULL) && fdatasync(dst->host_fd) != 0 && rc == 0) {
		rc = -errno;
	}
	/* the block device's page cache no longer matches the medium */
	if (dst->cache_fd >= 0) {
		(void)posix_fadvise(dst->cache_fd, (off_t)(p.dst_lba * bs), (off_t)(nblocks * bs),
				    POSIX_FADV_DONTNEED);
	}
	return rc;
}
