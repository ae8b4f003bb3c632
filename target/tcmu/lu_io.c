/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ordinary I/O callouts of the handler (worker threads; return a TCMU_STS code). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cm/cm.h"
#include "store/store.h"
#include "tcmu/handler.h"
#include "tokens/tokens.h"
#include "xcm/wire.h"

int
xt_handler_read(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov, size_t cnt,
		size_t len, off_t off)
{
	struct xt_lu *lu = tcmur_dev_get_private(dev);
	const struct xt_io io = { iov, cnt, len, (uint64_t)off, false, 0, NULL, true };
	int rc = lu->ops->io(lu, &io);

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
	struct xt_lu *lu = tcmur_dev_get_private(dev);
	const struct xt_io io = { iov, cnt, len, (uint64_t)off, true, 0, NULL, true };
	int rc;

	/*
	 * WRITE, WRITE SAME, COMPARE AND WRITE cancel the change vulnerable
	 * tokens they overlap: before (a WUT reading them now fails) and after
	 * (a POPULATE TOKEN that ended meanwhile made a token of the old data).
	 */
	xt_tok_note_write(lu, (uint64_t)off, len);
	rc = lu->ops->io(lu, &io);
	xt_tok_note_write(lu, (uint64_t)off, len);

	/*
	 * WCE = 0 (write-through) promises the data is on the medium when the
	 * command completes: initiators then send no SYNCHRONIZE CACHE.
	 */
	if (rc == 0) {
		rc = xt_lu_durable(lu);
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
	struct xt_lu *lu = tcmur_dev_get_private(dev);
	int sts, rc;

	/* an EXTENDED COPY handed over as SYNCHRONIZE CACHE (async.c) */
	if (xt_tcmu_run(lu, cmd, &sts)) {
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
unmap_range(struct tcmu_device *dev, struct xt_lu *lu, uint64_t off, uint64_t len)
{
	int rc = lu->ops->zero(lu, off, len, 0);

	if (rc != 0) {
		tcmu_dev_err(dev, "unmap %s+%llu: %s\n", lu->cfg.path,
			     (unsigned long long)off, strerror(-rc));
		return TCMU_STS_WR_ERR;
	}
	return TCMU_STS_OK;
}

/*
 * Deallocate [off, off + len), cancelling the tokens it overlaps as a write
 * does; with WCE = 0 durable before GOOD, as a WRITE.
 */
static int
deallocate(struct tcmu_device *dev, struct xt_lu *lu, uint64_t off, uint64_t len)
{
	int sts, rc;

	xt_tok_note_write(lu, off, len);   /* as xt_handler_write: before and after */
	sts = unmap_range(dev, lu, off, len);
	xt_tok_note_write(lu, off, len);
	if (sts == TCMU_STS_OK && (rc = xt_lu_durable(lu)) != 0) {
		tcmu_dev_err(dev, "unmap %s: flush: %s\n", lu->cfg.path, strerror(-rc));
		sts = TCMU_STS_WR_ERR;
	}
	return sts;
}

int
xt_handler_unmap(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len)
{
	return deallocate(dev, tcmur_dev_get_private(dev), off, len);
}
