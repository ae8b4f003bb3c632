/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ordinary I/O callouts of the handler (worker threads; return a TCMU_STS code). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cm/cm.h"
#include "tcmu/handler.h"
#include "tokens/tokens.h"
#include "xcm/wire.h"

int
xt_handler_read(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov, size_t cnt,
		size_t len, off_t off)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	const struct xt_store_ops *ops = lu->ops;
	int rc = ops->io(lu, iov, cnt, len, (uint64_t)off, false);

	if (rc != 0) {
		tcmu_dev_err(dev, "read %s+%lld len %zu: %s\n", lu->cfg.path, (long long)off, len,
			     strerror(-rc));
		return TCMU_STS_RD_ERR;
	}
	return TCMU_STS_OK;
}

int
xt_handler_write(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov, size_t cnt,
		 size_t len, off_t off)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	const struct xt_store_ops *ops = lu->ops;
	int rc;

	/*
	 * WRITE, WRITE SAME, COMPARE AND WRITE cancel the change vulnerable
	 * tokens they overlap: before (a WUT reading them now fails) and after
	 * (a POPULATE TOKEN that ended meanwhile made a token of the old data).
	 */
	xt_tok_note_write(lu, (uint64_t)off, len);
	rc = ops->io(lu, iov, cnt, len, (uint64_t)off, true);
	xt_tok_note_write(lu, (uint64_t)off, len);

	/*
	 * WCE = 0 (write-through) promises the data is on the medium when the
	 * command completes: initiators then send no SYNCHRONIZE CACHE.
	 */
	if (rc == 0 && !tcmu_dev_get_write_cache_enabled(dev)) {
		rc = ops->flush(lu);
	}
	if (rc != 0) {
		tcmu_dev_err(dev, "write %s+%lld len %zu: %s\n", lu->cfg.path, (long long)off, len,
			     strerror(-rc));
		return TCMU_STS_WR_ERR;
	}
	return TCMU_STS_OK;
}

int
xt_handler_flush(struct tcmu_device *dev, struct tcmur_cmd *cmd)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	int sts, rc;

	/* an EXTENDED COPY handed over as SYNCHRONIZE CACHE (async.c) */
	if (xt_async_run(lu, cmd, &sts)) {
		return sts;
	}
	rc = lu->ops->flush(lu);
	if (rc != 0) {
		tcmu_dev_err(dev, "flush %s: %s\n", lu->cfg.path, strerror(-rc));
		return TCMU_STS_WR_ERR;
	}
	return TCMU_STS_OK;
}

/* UNMAP: deallocate (reads return zeros, as the core's LBPRZ=1 promises). */
static int
unmap_range(struct tcmu_device *dev, struct xcm_lu *lu, uint64_t off, uint64_t len)
{
	int rc = lu->ops->zero(lu, off, len);

	if (rc != 0) {
		tcmu_dev_err(dev, "unmap %s+%llu: %s\n", lu->cfg.path,
			     (unsigned long long)off, strerror(-rc));
		return TCMU_STS_WR_ERR;
	}
	return TCMU_STS_OK;
}

/* Deallocate [off, off + len), cancelling the tokens it overlaps as a write does. */
static int
deallocate(struct tcmu_device *dev, struct xcm_lu *lu, uint64_t off, uint64_t len)
{
	int sts;

	xt_tok_note_write(lu, off, len);   /* as xt_handler_write: before and after */
	sts = unmap_range(dev, lu, off, len);
	xt_tok_note_write(lu, off, len);
	return sts;
}

int
xt_handler_unmap(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len)
{
	return deallocate(dev, tcmur_dev_get_private(dev), off, len);
}

/*
 * WRITE SAME(10/16) with UNMAP = 1 and a block of zeros: the whole range is
 * deallocated through the store (file: punched; RBD: discard/write-zeroes),
 * and reads back zeros as LBPRZ = 1 says. It is what the kernel's sd sends
 * for a write-zeroes request (zeroing_mode writesame_16_unmap), so what
 * fallocate(FALLOC_FL_WRITE_ZEROES) costs; the runner's core would write
 * zeros over a range not aligned to the unmap granularity instead.
 * Anything else stays the core's (TCMU_STS_NOT_HANDLED): UNMAP = 0, a
 * block that is not zeros, NUMBER OF LOGICAL BLOCKS 0 (WSNZ = 1: refused)
 * or a range past the end (LBA OUT OF RANGE), a short data-out buffer.
 */
int
xt_handler_write_same(struct tcmu_device *dev, struct xcm_lu *lu, struct tcmulib_cmd *lc)
{
	const uint8_t *cdb = lc->cdb;
	uint64_t bs = tcmu_dev_get_block_size(dev), end = tcmu_dev_get_num_lbas(dev);
	uint64_t lba, n;

	if (!(cdb[1] & 0x08)) {
		return TCMU_STS_NOT_HANDLED;
	}
	if (cdb[0] == 0x93) {
		lba = xcm_get_be64(cdb + 2);
		n = xcm_get_be32(cdb + 10);
	} else {
		lba = xcm_get_be32(cdb + 2);
		n = xcm_get_be16(cdb + 7);
	}
	if (n == 0 || lba >= end || n > end - lba ||
	    !xt_iov_is_zero(lc->iovec, lc->iov_cnt, (size_t)bs)) {
		return TCMU_STS_NOT_HANDLED;
	}
	return deallocate(dev, lu, lba * bs, n * bs);
}
