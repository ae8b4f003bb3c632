/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcopy_dev_copy(): an LBA range of one handle to another through
 * xch_copy_pairs (the method chosen in method.c); ranges the copy manager
 * does not do are read and written by the host through the handles the
 * caller opened, addressed by byte in each handle's LBA space (so the same
 * for a run cut on a device-mapper volume's piece).
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

int
xcopy_dev_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
	       uint64_t nblocks, unsigned flags, struct xcopy_stats *st)
{
	struct xch_rw_fb f;
	struct xch_pair p;
	uint64_t bs;
	int rc, wrc;

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
	bs = src->caps.block_size;
	p.src_lba = src->caps.part_start + src_lba;
	p.dst_lba = dst->caps.part_start + dst_lba;
	p.nblocks = nblocks;
	p.src_off = p.src_lba * bs;
	p.dst_off = p.dst_lba * bs;
	/* copy_file_range(2) refuses overlapping ranges of one file; so do we */
	if (xch_same_lu(src, dst) && p.src_lba < p.dst_lba + nblocks &&
	    p.dst_lba < p.src_lba + nblocks) {
		return -EINVAL;
	}
	xch_rw_fb_init(&f, src, dst, st, true);
	xch_progress_begin(nblocks * bs);
	rc = xch_copy_pairs(src, dst, &p, 1, flags, st, xch_rw_fallback, &f);
	xch_progress_end();
	xch_rw_fb_fini(&f);
	/* what the host wrote through a node is on the medium; stale page cache dropped */
	wrc = xch_dev_written(dst, p.dst_lba, nblocks);
	return rc != 0 ? rc : wrc;
}
