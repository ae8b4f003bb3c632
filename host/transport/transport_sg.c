/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SG_IO transport through libsgutils2's pass-through objects, for /dev/sdX
 * and /dev/sgN. One pass-through object per command, so several threads may
 * have commands outstanding on one descriptor (the block layer and the sg
 * driver both take concurrent SG_IO calls on one open file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>

#include "xch_transport.h"

struct sg_ctx {
	int fd;
};

static int sg_result(struct sg_pt_base *pt, int rc, struct xch_cmd *c);

static int
sg_exec(void *vctx, struct xch_cmd *c)
{
	struct sg_ctx *ctx = vctx;
	struct sg_pt_base *pt;
	int rc;

	if (c->len > INT32_MAX) {
		return -EINVAL;
	}
	pt = construct_scsi_pt_obj();
	if (pt == NULL) {
		return -ENOMEM;
	}
	set_scsi_pt_cdb(pt, c->cdb, c->cdb_len);
	set_scsi_pt_sense(pt, c->sense, sizeof(c->sense));
	if (c->dir == XCH_DIR_IN) {
		set_scsi_pt_data_in(pt, c->buf, (int)c->len);
	} else if (c->dir == XCH_DIR_OUT) {
		set_scsi_pt_data_out(pt, c->buf, (int)c->len);
	}
	rc = do_scsi_pt(pt, ctx->fd, c->timeout_s ? (int)c->timeout_s : 60, 0);
	rc = sg_result(pt, rc, c);
	destruct_scsi_pt_obj(pt);
	return rc;
}

static int
sg_result(struct sg_pt_base *pt, int rc, struct xch_cmd *c)
{
	int cat;

	if (rc < 0) {
		/* -EPERM: the kernel's SG_IO filter refused the opcode (83h/84h) */
		return rc;
	}
	if (rc == SCSI_PT_DO_TIMEOUT) {
		return -ETIMEDOUT;
	}
	if (rc != 0) {
		return -EIO;
	}
	cat = get_scsi_pt_result_category(pt);
	if (cat == SCSI_PT_RESULT_OS_ERR) {
		int e = get_scsi_pt_os_err(pt);
		return e > 0 ? -e : -EIO;
	}
	if (cat == SCSI_PT_RESULT_TRANSPORT_ERR) {
		return -EIO;
	}
	c->status = (uint8_t)get_scsi_pt_status_response(pt);
	rc = get_scsi_pt_sense_len(pt);
	if (rc < 0) {
		rc = 0;
	}
	if (rc > (int)sizeof(c->sense)) {
		rc = (int)sizeof(c->sense);
	}
	c->sense_len = (uint8_t)rc;
	rc = get_scsi_pt_resid(pt);
	c->resid = rc > 0 ? (size_t)rc : 0;
	return 0;
}

static void
sg_close(void *vctx)
{
	struct sg_ctx *ctx = vctx;

	if (ctx == NULL) {
		return;
	}
	if (ctx->fd >= 0) {
		close(ctx->fd);
	}
	free(ctx);
}

static const struct xch_transport_ops g_sg_ops = {
	.name = "sg",
	.exec = sg_exec,
	.close = sg_close,
	.concurrent = true,
};

int
xch_sg_open(const char *path, const struct xch_transport_ops **ops, void **out)
{
	struct sg_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx == NULL) {
		return -ENOMEM;
	}
	/* O_RDWR: data-out commands through SG_IO need a writable descriptor */
	ctx->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ctx->fd < 0) {
		int e = -errno;
		free(ctx);
		return e;
	}
	*ops = &g_sg_ops;
	*out = ctx;
	return 0;
}
