/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libiscsi transport for iscsi://[user[%pass]@]host[:port]/target-iqn/lun.
 * Synchronous commands on one session per handle. On CHECK CONDITION libiscsi
 * keeps the SCSI Response data segment in task->datain: a 2-byte SENSE LENGTH
 * followed by the sense bytes (RFC 7143 11.4.7.2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "xcopy_internal.h"

#define XCH_INITIATOR_IQN "iqn.2024-01.org.xcopy:libxcopy"

struct iscsi_ctx {
	struct iscsi_context *iscsi;
	int lun;
};

static int
is_exec(void *vctx, struct xch_cmd *c)
{
	struct iscsi_ctx *ctx = vctx;
	struct scsi_task *task;
	struct iscsi_data d;
	uint8_t cdb[16];
	int dir = SCSI_XFER_NONE;

	if (c->cdb_len > sizeof(cdb) || c->len > INT32_MAX) {
		return -EINVAL;
	}
	memcpy(cdb, c->cdb, c->cdb_len);
	if (c->dir == XCH_DIR_IN) {
		dir = SCSI_XFER_READ;
	} else if (c->dir == XCH_DIR_OUT) {
		dir = SCSI_XFER_WRITE;
	}
	task = scsi_create_task(c->cdb_len, cdb, dir, (int)c->len);
	if (task == NULL) {
		return -ENOMEM;
	}
	d.data = c->buf;
	d.size = c->len;
	if (iscsi_scsi_command_sync(ctx->iscsi, ctx->lun, task,
				    c->dir == XCH_DIR_OUT ? &d : NULL) == NULL) {
		XCH_DBG("iscsi: %s", iscsi_get_error(ctx->iscsi));
		scsi_free_scsi_task(task);
		return -EIO;
	}
	if (task->status < 0 || (task->status & 0x0F000000) != 0) {
		/* libiscsi pseudo statuses: cancelled, error, timeout */
		int rc = task->status == SCSI_STATUS_TIMEOUT ? -ETIMEDOUT : -EIO;
		scsi_free_scsi_task(task);
		return rc;
	}
	c->status = (uint8_t)task->status;
	if (task->status == SCSI_STATUS_CHECK_CONDITION) {
		if (task->datain.size >= 2 && task->datain.data != NULL) {
			size_t n = (size_t)task->datain.size - 2;
			size_t slen = xcm_get_be16(task->datain.data);

			if (slen < n) {
				n = slen;
			}
			if (n > sizeof(c->sense)) {
				n = sizeof(c->sense);
			}
			memcpy(c->sense, task->datain.data + 2, n);
			c->sense_len = (uint8_t)n;
		}
	} else if (c->dir == XCH_DIR_IN) {
		size_t n = task->datain.size > 0 ? (size_t)task->datain.size : 0;

		if (n > c->len) {
			n = c->len;
		}
		if (n > 0) {
			memcpy(c->buf, task->datain.data, n);
		}
		c->resid = c->len - n;
	} else if (task->residual_status == SCSI_RESIDUAL_UNDERFLOW) {
		c->resid = task->residual;
	}
	scsi_free_scsi_task(task);
	return 0;
}

static void
is_close(void *vctx)
{
	struct iscsi_ctx *ctx = vctx;

	if (ctx == NULL) {
		return;
	}
	if (ctx->iscsi != NULL) {
		if (iscsi_is_logged_in(ctx->iscsi)) {
			iscsi_logout_sync(ctx->iscsi);
		}
		iscsi_destroy_context(ctx->iscsi);
	}
	free(ctx);
}

static const struct xch_transport_ops g_iscsi_ops = {
	.name = "iscsi",
	.exec = is_exec,
	.close = is_close,
};

int
xch_iscsi_open(const char *url, const struct xch_transport_ops **ops, void **out)
{
	const char *iqn = getenv("XCOPY_INITIATOR_IQN");
	struct iscsi_ctx *ctx = calloc(1, sizeof(*ctx));
	struct iscsi_url *u;

	if (ctx == NULL) {
		return -ENOMEM;
	}
	ctx->iscsi = iscsi_create_context(iqn != NULL ? iqn : XCH_INITIATOR_IQN);
	if (ctx->iscsi == NULL) {
		free(ctx);
		return -ENOMEM;
	}
	u = iscsi_parse_full_url(ctx->iscsi, url);
	if (u == NULL) {
		XCH_ERR("iscsi: bad URL %s: %s", url, iscsi_get_error(ctx->iscsi));
		is_close(ctx);
		return -EINVAL;
	}
	ctx->lun = u->lun;
	iscsi_set_session_type(ctx->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(ctx->iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	if (iscsi_full_connect_sync(ctx->iscsi, u->portal, u->lun) != 0) {
		XCH_ERR("iscsi: login to %s failed: %s", u->portal, iscsi_get_error(ctx->iscsi));
		iscsi_destroy_url(u);
		is_close(ctx);
		return -ECONNREFUSED;
	}
	iscsi_destroy_url(u);
	*ops = &g_iscsi_ops;
	*out = ctx;
	return 0;
}
