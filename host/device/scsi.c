/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SCSI handle kind: one LU reached through a transport (SG_IO or a
 * libiscsi session); commands go to the transport, block reads and writes
 * are READ/WRITE(16), what the host wrote reaches the medium with the
 * commands. Also the attach of every kind that takes commands (this one and
 * multipath): the handle made and discovered, its partition window set.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xch_base.h"
#include "xch_device.h"

static int
scsi_exec(struct xcopy_dev *d, struct xch_cmd *c)
{
	return d->ops->exec(d->kctx, c);
}

static bool
scsi_concurrent(const struct xcopy_dev *d)
{
	return d->ops->concurrent;
}

static bool
scsi_offload(const struct xcopy_dev *d)
{
	return d->caps.offload;
}

static void
scsi_close(struct xcopy_dev *d)
{
	d->ops->close(d->kctx);
}

const struct xch_dev_kind xch_kind_scsi = {
	.name = "scsi",
	.reach = XCH_REACH_CMDS,
	.exec = scsi_exec,
	.rw = xch_cmd_rw,
	.concurrent = scsi_concurrent,
	.offload = scsi_offload,
	.tables_same = xch_same_always,
	.locate = xch_locate_self,
	.written = xch_written_cache,
	.lu_key = xch_key_desig,
	.close = scsi_close,
};

int
xch_dev_attach_kind(const struct xch_dev_kind *kind, const struct xch_transport_ops *ops,
		    void *ctx, const char *name, uint64_t part_start_512, uint64_t part_size_512,
		    struct xcopy_dev **out)
{
	struct xcopy_dev *d;
	int rc;

	*out = NULL;
	d = xch_dev_new(kind, ctx, name);
	if (d == NULL) {
		struct xcopy_dev t = { .kind = kind, .kctx = ctx, .ops = ops };

		kind->close(&t);
		return -ENOMEM;
	}
	d->ops = ops;
	rc = xch_discover(d);
	if (rc != 0) {
		XCH_DBG("%s: discovery failed (%d)", d->name, rc);
		xcopy_dev_close(d);
		return rc;
	}
	d->caps.part_blocks = d->caps.num_blocks;
	if (part_size_512 != 0) {
		struct xch_blk b = { .is_scsi = true, .is_partition = true,
				     .start = part_start_512, .size = part_size_512 };
		struct xch_window w;

		/* the partition window must start and end on logical blocks, inside the LU */
		if (part_size_512 > UINT64_MAX / 512 ||
		    xch_blk_window(&b, d->caps.block_size, d->caps.num_blocks,
				   part_size_512 * 512, &w) != 0) {
			xcopy_dev_close(d);
			return -EINVAL;
		}
		d->caps.part_start = w.start;
		d->caps.part_blocks = w.blocks;
	}
	XCH_INFO("%s: %s %s bs=%u blocks=%llu 3PC=%d op_params=%d vpd8f=%d cscd=%u seg=%u "
		 "list=%u seglen=%u offload=%d%s%s",
		 d->name, d->caps.vendor, d->caps.product, d->caps.block_size,
		 (unsigned long long)d->caps.num_blocks, d->caps.tpc, d->caps.has_op_params,
		 d->caps.has_vpd_tpc, d->caps.max_cscd, d->caps.max_seg,
		 d->caps.max_desc_list_len, d->caps.max_seg_len, d->caps.offload,
		 d->disabled ? " reason=" : "",
		 d->disabled ? xcopy_fallback_reason_name(d->disabled_why) : "");
	if (d->tok.offered) {
		XCH_INFO("%s: ROD tokens: ranges=%u max_blocks=%llu optimal_blocks=%llu "
			 "inactivity=%us lid1=%d",
			 d->name, d->tok.max_ranges, (unsigned long long)d->tok.max_token_blocks,
			 (unsigned long long)d->tok.optimal_blocks, d->tok.default_inactivity_s,
			 d->tok.lid1);
	}
	*out = d;
	return 0;
}

int
xch_dev_attach(const struct xch_transport_ops *ops, void *ctx, const char *name,
	       uint64_t part_start_512, uint64_t part_size_512, struct xcopy_dev **out)
{
	return xch_dev_attach_kind(&xch_kind_scsi, ops, ctx, name, part_start_512, part_size_512,
				   out);
}
