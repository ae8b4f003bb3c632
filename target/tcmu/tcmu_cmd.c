/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's command in the copy manager's words and back: a struct
 * xt_scsi made from a struct tcmur_cmd, an enum xt_sts made a TCMU_STS
 * code, and the hand-off of a queued job to a worker (cm/async.c says why:
 * the core queues the command as SYNCHRONIZE CACHE to our flush callout).
 */
#include <string.h>

#include "cm/cm.h"
#include "tcmu/handler.h"

#define OP_SYNC_CACHE_16 0x91      /* SBC-4 5.24: SYNCHRONIZE CACHE(16) */
#define OP_SYNC_CACHE_10 0x35      /* SBC-4 5.23: SYNCHRONIZE CACHE(10) */

_Static_assert(XT_SENSE_LEN == TCMU_SENSE_BUFFERSIZE, "cm's sense length is the runner's");

void
xt_tcmu_scsi(struct tcmulib_cmd *lc, struct xt_scsi *c)
{
	c->cdb = lc->cdb;
	c->iov = lc->iovec;
	c->iov_cnt = lc->iov_cnt;
	c->sense = lc->sense_buf;
	c->job = 0;
}

/* The token a command handed to a worker carries (hand_off); 0: the runner's own. */
static uint64_t
cmd_token(const struct tcmur_cmd *cmd)
{
	return (uint64_t)(uintptr_t)cmd->cmd_state;
}

/*
 * Hand a queued job to the core as SYNCHRONIZE CACHE: lib_cmd->cdb is the
 * runner's own copy of the CDB (the ring is not touched), and the core does
 * not look at cmd_state on the flush path. libtcmu allocates that copy with
 * the CDB's own length (by its group code), so a 16-byte CDB becomes
 * SYNCHRONIZE CACHE(16), a 10- or 12-byte one (WRITE SAME(10))
 * SYNCHRONIZE CACHE(10): writing 16 bytes there would overrun the runner's
 * command allocation.
 */
static int
hand_off(struct tcmur_cmd *cmd, uint64_t token)
{
	struct tcmulib_cmd *lc = cmd->lib_cmd;
	uint8_t group = lc->cdb[0] >> 5;
	size_t len = group == 4 ? XCM_CDB16_LEN : group == 5 ? 12 : 10;

	cmd->cmd_state = (void *)(uintptr_t)token;
	memset(lc->cdb, 0, len);
	lc->cdb[0] = len == XCM_CDB16_LEN ? OP_SYNC_CACHE_16 : OP_SYNC_CACHE_10;
	return TCMU_STS_NOT_HANDLED;
}

int
xt_tcmu_sts(struct tcmur_cmd *cmd, const struct xt_scsi *c, enum xt_sts sts)
{
	switch (sts) {
	case XT_STS_GOOD:
		return TCMU_STS_OK;
	case XT_STS_CHECK:
		return TCMU_STS_PASSTHROUGH_ERR;   /* c->sense is lib_cmd->sense_buf */
	case XT_STS_TASK_SET_FULL:
		return TCMU_STS_NO_RESOURCE;       /* libtcmu: TASK SET FULL */
	case XT_STS_BUSY:
		return TCMU_STS_BUSY;
	case XT_STS_WRITE_ERR:
		return TCMU_STS_WR_ERR;
	case XT_STS_GONE:
		return TCMU_STS_TIMEOUT;
	case XT_STS_QUEUED:
		if (cmd != NULL) {
			return hand_off(cmd, c->job);
		}
		break;
	}
	return TCMU_STS_HW_ERR;
}

int
xt_tcmu_fail(struct tcmulib_cmd *lc, const struct xcm_err *err)
{
	xt_fail_sense(lc->sense_buf, sizeof(lc->sense_buf), err);
	return TCMU_STS_PASSTHROUGH_ERR;
}

int
xt_tcmu_submit(struct xt_lu *lu, struct tcmur_cmd *cmd)
{
	struct xt_scsi c;

	xt_tcmu_scsi(cmd->lib_cmd, &c);
	return xt_tcmu_sts(cmd, &c, xt_async_submit(lu, &c));
}

bool
xt_tcmu_run(struct xt_lu *lu, struct tcmur_cmd *cmd, int *sts)
{
	enum xt_sts st;
	struct xt_scsi c;

	if (cmd_token(cmd) == 0) {
		return false;   /* a real SYNCHRONIZE CACHE */
	}
	xt_tcmu_scsi(cmd->lib_cmd, &c);
	c.job = cmd_token(cmd);
	if (!xt_async_run(lu, &c, &st)) {
		return false;
	}
	*sts = xt_tcmu_sts(cmd, &c, st);
	return true;
}
