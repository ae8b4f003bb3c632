/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WRITE SAME(10/16) with UNMAP = 1, run by the plugin on one of the LU's
 * workers (cm/async.c's SYNCHRONIZE CACHE hand-off, so the core's ALUA and
 * recovery checks come first, as for the WRITE SAME it would run itself):
 *
 * - a block of zeros: the range is deallocated through the store's zero op
 *   (file: punched, zero range or written zeros; RBD: discard/write-zeroes)
 *   and reads back zeros, as LBPRZ = 1 says;
 * - any other block: the block is written to every LBA of the range through
 *   the store's io. tcmu-runner 1.5.4's core would deallocate any range
 *   aligned to the unmap granularity without looking at the block (SBC-4
 *   5.50: the blocks must read back as the data sent; deallocating is only
 *   allowed when that reads back the same).
 *
 * The work is cut into chunks: XT_WS_ZERO_CHUNK for deallocation (a store
 * that can only zero by writing writes that much per call), XT_WS_WRITE_CHUNK
 * for the pattern. Before each chunk the job stops when the LU closes or
 * when the slowest chunk so far would not end before the command's deadline
 * (cmd_time_out minus the engine's reserve, as EXTENDED COPY): ABORTED
 * COMMAND, 2E/02 COMMAND TIMEOUT DURING PROCESSING; the range is then
 * partly written, which a command that did not complete allows. With WCE =
 * 0 the store is flushed before GOOD.
 *
 * UNMAP = 0 stays the core's: it writes the block over the range in 1 MiB
 * writes through our write callout (fdatasync with WCE = 0), each one a
 * separate worker request, so nothing waits behind it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"
#include "store/store.h"
#include "tcmu/handler.h"
#include "tokens/tokens.h"
#include "xcm/wire.h"
#include "xos.h"

/*
 * Deallocation chunk: a punch is a metadata operation (free extents, drop
 * the page cache of the range, write back its dirty pages first on XFS), so
 * 16 MiB per call keeps one call short even on a store that zeroes by
 * writing (16 MiB at >= 16 MB/s is under the 1 s minimum reserve), and a
 * 4 GiB write-zeroes (sd's maximum, 7FFFFFh blocks) is 256 calls.
 */
#define XT_WS_ZERO_CHUNK (16u << 20)
/* Pattern chunk: one bounce buffer (XT_BOUNCE_LEN) of the block repeated. */
#define XT_WS_WRITE_CHUNK XT_BOUNCE_LEN

struct ws_op {
	uint64_t off, len;      /* bytes */
	uint32_t bs;
	bool zero;              /* the block is all zeros: deallocate */
	uint8_t block[];        /* bs bytes */
};

static void
ws_count(struct xt_lu *lu, uint64_t done, bool zero, bool cut)
{
	XT_STAT_ADD(lu, ws_commands, 1);
	if (zero) {
		XT_STAT_ADD(lu, ws_unmapped, done);
	} else {
		XT_STAT_ADD(lu, ws_written, done);
	}
	if (cut) {
		XT_STAT_ADD(lu, ws_cuts, 1);
	}
}

/* ABORTED COMMAND with asc_ascq, fixed format, in the command's sense buffer. */
static enum xt_sts
ws_abort(struct xt_scsi *c, uint16_t asc_ascq)
{
	memset(c->sense, 0, XT_SENSE_LEN);
	xcm_sense_build_plain(XCM_SK_ABORTED_COMMAND, asc_ascq, c->sense, XT_SENSE_LEN);
	return XT_STS_CHECK;
}

/* Fill buf[0..cap) with as many copies of the block as fit; the bytes filled. */
static size_t
ws_fill(uint8_t *buf, size_t cap, const uint8_t *block, uint32_t bs)
{
	size_t n = 0;

	while (n + bs <= cap) {
		memcpy(buf + n, block, bs);
		n += bs;
	}
	return n;
}

static enum xt_sts
ws_run(struct xt_job *job, struct xt_scsi *c)
{
	struct xt_lu *lu = job->lu;
	const struct ws_op *op = job->blk;
	uint64_t pos = op->off, end = op->off + op->len, slowest = 0, t, n;
	uint8_t *buf = NULL;
	size_t fill = 0;
	bool cut = false;
	int rc = 0;

	if (!op->zero) {
		buf = malloc(XT_WS_WRITE_CHUNK);
		if (buf == NULL) {
			ws_count(lu, 0, op->zero, false);
			return XT_STS_TASK_SET_FULL;
		}
		fill = ws_fill(buf, XT_WS_WRITE_CHUNK, op->block, op->bs);
	}
	xt_tok_note_write(lu, op->off, op->len);   /* as a WRITE: before and after */
	while (pos < end) {
		t = xos_now_ms();
		if (atomic_load(&job->stop) != XT_STOP_NONE ||
		    (job->deadline_ms != 0 && t + slowest >= job->deadline_ms)) {
			cut = true;
			break;
		}
		if (op->zero) {
			/* chunk ends on XT_WS_ZERO_CHUNK boundaries: whole fs blocks inside */
			n = (pos / XT_WS_ZERO_CHUNK + 1) * XT_WS_ZERO_CHUNK - pos;
			n = n < end - pos ? n : end - pos;
			/* RBD: no librbd wait past the deadline */
			rc = lu->ops->zero(lu, pos, n, job->deadline_ms);
		} else {
			struct iovec iov = { buf, fill };
			struct xt_io io = { &iov, 1, 0, pos, true, job->deadline_ms, NULL, false };

			n = fill < end - pos ? fill : end - pos;
			iov.iov_len = (size_t)n;
			io.len = (size_t)n;
			rc = lu->ops->io(lu, &io);
		}
		if (rc != 0) {
			break;
		}
		pos += n;
		t = xos_now_ms() - t;
		slowest = t > slowest ? t : slowest;
	}
	xt_tok_note_write(lu, op->off, op->len);
	free(buf);
	if (rc == 0 && !cut) {
		rc = xt_lu_durable(lu);   /* WCE = 0: on the medium before GOOD */
	}
	ws_count(lu, pos - op->off, op->zero, cut);
	if (rc != 0) {
		xt_lu_err(lu, "write same %s+%llu len %llu: %s\n", lu->cfg.path,
			  (unsigned long long)pos, (unsigned long long)(end - pos), strerror(-rc));
		return XT_STS_WRITE_ERR;
	}
	if (cut) {
		xt_lu_warn(lu, "write same: stopped %s after %llu of %llu bytes\n",
			   atomic_load(&job->stop) != XT_STOP_NONE ? "(LU closing)"
							       : "at the command deadline",
			   (unsigned long long)(pos - op->off), (unsigned long long)op->len);
		return atomic_load(&job->stop) != XT_STOP_NONE
			       ? XT_STS_BUSY
			       : ws_abort(c, XCM_ASC_CMD_TIMEOUT_DURING_PROCESSING);
	}
	return XT_STS_GOOD;
}

/* The first len bytes of the data-out buffer into out (false: it holds fewer). */
static bool
ws_block(const struct tcmulib_cmd *lc, uint8_t *out, size_t len)
{
	size_t have = 0, i, n;

	for (i = 0; i < lc->iov_cnt && have < len; i++) {
		n = lc->iovec[i].iov_len < len - have ? lc->iovec[i].iov_len : len - have;
		memcpy(out + have, lc->iovec[i].iov_base, n);
		have += n;
	}
	return have == len;
}

int
xt_handler_write_same(struct tcmu_device *dev, struct xt_lu *lu, struct tcmur_cmd *cmd)
{
	struct tcmulib_cmd *lc = cmd->lib_cmd;
	const uint8_t *cdb = lc->cdb;
	uint64_t bs = tcmu_dev_get_block_size(dev), end = tcmu_dev_get_num_lbas(dev);
	uint64_t lba, n;
	struct ws_op *op;
	size_t i, total = 0;
	struct xt_scsi c;
	enum xt_sts sts;

	if (!(cdb[1] & 0x08)) {
		return TCMU_STS_NOT_HANDLED;   /* UNMAP = 0: the core writes the block */
	}
	if (cdb[0] == 0x93) {
		lba = xcm_get_be64(cdb + 2);
		n = xcm_get_be32(cdb + 10);
	} else {
		lba = xcm_get_be32(cdb + 2);
		n = xcm_get_be16(cdb + 7);
	}
	for (i = 0; i < lc->iov_cnt; i++) {
		total += lc->iovec[i].iov_len;
	}
	/*
	 * The core's answers stay the core's: 0 blocks (WSNZ = 1), a range past
	 * the end (LBA OUT OF RANGE), a data-out buffer that is not one block.
	 */
	if (n == 0 || lba >= end || n > end - lba || total != bs || bs == 0 ||
	    bs > XT_WS_WRITE_CHUNK) {
		return TCMU_STS_NOT_HANDLED;
	}
	op = malloc(sizeof(*op) + bs);
	if (op == NULL) {
		return TCMU_STS_NO_RESOURCE;
	}
	op->off = lba * bs;
	op->len = n * bs;
	op->bs = (uint32_t)bs;
	(void)ws_block(lc, op->block, (size_t)bs);
	op->zero = xt_iov_is_zero(lc->iovec, lc->iov_cnt, (size_t)bs);
	xt_tcmu_scsi(lc, &c);
	sts = xt_async_submit_blk(lu, &c, ws_run, op);
	if (sts == XT_STS_TASK_SET_FULL) {
		XT_STAT_ADD(lu, ws_busy, 1);
	}
	return xt_tcmu_sts(cmd, &c, sts);
}
