/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * handler_xcopy.so: tcmu-runner 1.5.4 handler for the user:xcopy backstore.
 *
 * A file-backed LU whose ordinary I/O (READ/WRITE/SYNC/UNMAP...) goes through
 * tcmu-runner's core emulation and our read/write/flush/unmap callouts, and
 * whose third-party copy commands are answered by the xcm engine:
 *   EXTENDED COPY (83h LID1), RECEIVE COPY RESULTS (84h, LID1 SAs),
 *   INQUIRY VPD 00h (adds 8Fh to the core's list) and VPD 8Fh, and
 *   REPORT SUPPORTED OPERATION CODES (A3h/0Ch).
 * handle_cmd is called first for every CDB, synchronously on the LU's command
 * thread (tcmu-runner 1.5.4 tcmur_generic_handle_cmd → handle_try_passthrough,
 * before the core's own emulation), and dispatches by the command table of cmds.c: rows the
 * core executes return TCMU_STS_NOT_HANDLED, CDBs without a row
 * TCMU_STS_INVALID_CMD.
 */
#include <string.h>

#include "base/env.h"
#include "cm/cm.h"
#include "cmds/cmds.h"
#include "lio/lio.h"
#include "odx/odx.h"
#include "peer/peer.h"
#include "store/store.h"
#include "tcmu/handler.h"
#include "tokens/tokens.h"

int handler_init(void);

void
xt_lu_state_get(const struct xt_lu *lu, bool probe, struct xt_lu_state *s)
{
	s->engine = lu->cfg.xcopy == XT_XCOPY_ENGINE;
	s->alua = probe && xt_lio_alua(lu);
	s->pr = probe && xt_lio_pr(lu);
}

/* Data-in commands tcmu-runner 1.5.4's core answers (its command table). */
static bool
core_data_in(uint8_t op)
{
	switch (op) {
	case 0x03:   /* REQUEST SENSE */
	case 0x12:   /* INQUIRY */
	case 0x1A:   /* MODE SENSE(6) */
	case 0x25:   /* READ CAPACITY(10) */
	case 0x5A:   /* MODE SENSE(10) */
	case 0x9E:   /* SERVICE ACTION IN(16): READ CAPACITY(16) */
	case 0xA3:   /* MAINTENANCE IN: REPORT TARGET PORT GROUPS */
		return true;
	default:
		return false;
	}
}

/*
 * Dispatch by the command table (cmds.c), the same table REPORT SUPPORTED
 * OPERATION CODES reports. A CDB without a row gets INVALID COMMAND
 * OPERATION CODE here, as the core would answer it; an unlisted service
 * action of an opcode the plugin executes goes to that handler, whose
 * engine check answers INVALID FIELD IN CDB.
 */
static int
xt_handler_handle_cmd(struct tcmu_device *dev, struct tcmur_cmd *cmd)
{
	struct xt_lu *lu = tcmur_dev_get_private(dev);
	struct tcmulib_cmd *lc = cmd->lib_cmd;
	const struct xt_cmd *row, *same_op = NULL;
	struct xt_lu_state st;
	int sts;

	if (lu == NULL) {
		return TCMU_STS_NOT_HANDLED;
	}
	if (core_data_in(lc->cdb[0])) {
		/*
		 * The core writes only its response's bytes into the TCMU data
		 * area, whose pages keep earlier commands' data: zero the whole
		 * data-in buffer first so nothing leaks to the initiator
		 * (libiscsi Inquiry.Standard: "Padding data is not zero").
		 */
		xt_iov_fill(lc->iovec, lc->iov_cnt, NULL, 0);
	}
	/* CDB fields the core would accept and misexecute (sbc_check.c) */
	sts = xt_sbc_check(lc->cdb, lc->sense_buf, sizeof(lc->sense_buf));
	if (sts != TCMU_STS_NOT_HANDLED) {
		return sts;
	}
	xt_lu_state_get(lu, false, &st);   /* the mode only: ALUA/PR rows are the core's */
	row = xt_cmd_lookup(&st, lc->cdb, &same_op);
	if (row == NULL && same_op != NULL && same_op->exec != XT_X_CORE &&
	    same_op->exec != XT_X_KERNEL && same_op->exec != XT_X_WSAME) {
		row = same_op;
	}
	if (row == NULL) {
		return TCMU_STS_INVALID_CMD;
	}
	switch (row->exec) {
	case XT_X_XCOPY:
		return xt_tcmu_submit(lu, cmd);   /* cm/async.c: runs on a worker */
	case XT_X_RCR:
		return xt_handler_rcr(lu, lc);
	case XT_X_INQUIRY:
		return xt_handler_inquiry(lu, lc);
	case XT_X_RSOC:
		return xt_handler_rsoc(lu, lc);
	case XT_X_WSAME:
		/* UNMAP = 1: a job handed to the core as SYNCHRONIZE CACHE, ALUA checked there */
		return xt_handler_write_same(dev, lu, cmd);
	case XT_X_CORE:
	case XT_X_KERNEL:
	default:
		/* kernel rows reach us only if PR is passed through: the core refuses them */
		return TCMU_STS_NOT_HANDLED;
	}
}

static void
xt_handler_destroy(void)
{
	xt_store_shutdown();
	xt_psess_shutdown();   /* idle peer sessions logged out */
	xt_peer_map_reset();
	xt_peer_disc_reset();
	xt_tok_shutdown();
}

static struct tcmur_handler g_handler = {
	.name = "XCOPY offload file handler",
	.subtype = XT_SUBTYPE_DEFAULT,   /* XCOPY_SUBTYPE replaces it: handler_init */
	/* shown by "targetcli /backstores/user:xcopy help create": targetcli prepends "xcopy/" */
	.cfg_desc = "/PATH[?clone=auto|always|never&cfr=auto|never&xcopy=engine|core"
		    "&copy_nice=0..19&writeback=early|late&dio=auto|always|never] "
		    "(PATH: an existing backing file or block device; configfs dev_config=xcopy//PATH...) "
		    "or /rbd/POOL/IMAGE[@CONF][?id=NAME&bs=512|4096&copyfrom=auto|never"
		    "&xcopy=engine|core] (a Ceph RBD image)",
	.check_config = xt_handler_check_config,
	.reconfig = xt_handler_reconfig,
	.open = xt_handler_open,
	.close = xt_handler_close,
	.nr_threads = XT_WORKERS,   /* EXTENDED COPY jobs use at most XT_MAX_JOBS of them */
	.handle_cmd = xt_handler_handle_cmd,
	.read = xt_handler_read,
	.write = xt_handler_write,
	.flush = xt_handler_flush,
	.unmap = xt_handler_unmap,
	.destroy = xt_handler_destroy,
};

/*
 * XCOPY_SUBTYPE (base/env.c) read here, once, before the handler registers:
 * a second tcmu-runner serves user:SUBTYPE LUs with its own copy manager
 * (two runners must not open the same uio device, and libtcmu gives a
 * device to the handler whose subtype its cfgstring names).
 */
int
handler_init(void)
{
	const struct xt_env *e = xt_env();

	if (e->subtype_refused != NULL) {
		tcmu_warn_message(NULL, __func__, __LINE__,
				  "xcopy: XCOPY_SUBTYPE '%.40s' refused (1-%d of a-z 0-9 _, "
				  "not xcopy's beginning nor xcopy + more): subtype %s\n",
				  e->subtype_refused, XT_SUBTYPE_MAX, e->subtype);
	} else if (strcmp(e->subtype, XT_SUBTYPE_DEFAULT) != 0) {
		tcmu_info_message(NULL, __func__, __LINE__,
				  "xcopy: subtype %s (XCOPY_SUBTYPE): backstore user:%s\n",
				  e->subtype, e->subtype);
	}
	g_handler.subtype = e->subtype;
	return tcmur_register_handler(&g_handler);
}