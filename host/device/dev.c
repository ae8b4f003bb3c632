/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device handles: the command path (xch_dev_exec, data-in commands with
 * retries, VPD pages), READ/WRITE for the host's fallback, open and close.
 * Discovery itself is in discover.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xch_base.h"
#include "xch_device.h"

enum {
	DISC_TIMEOUT_S = 30,
	RW_TIMEOUT_S = 60,
	DISC_RETRIES = 3,
	VPD_MAX = 4096,
	RW_CHUNK_BYTES = 512 * 1024,
};

int
xch_dev_exec(struct xcopy_dev *d, struct xch_cmd *c, struct xcopy_stats *st)
{
	if (st != NULL && c->cdb_len > 0 && c->cdb[0] != XCM_OP_XCOPY) {
		st->other_cmds++;
	}
	c->status = 0;
	c->sense_len = 0;
	c->resid = 0;
	if (d->ops == NULL) {
		return -ENODEV;
	}
	return d->ops->exec(d->tctx, c);
}

static bool
transient(const struct xch_cmd *c)
{
	struct xcm_sense s;

	if (c->status == XCM_SAM_BUSY || c->status == XCM_SAM_TASK_SET_FULL) {
		return true;
	}
	if (c->status != XCM_SAM_CHECK_CONDITION ||
	    xcm_sense_parse(xcm_span_make(c->sense, c->sense_len), &s) != 0) {
		return false;
	}
	return s.key == XCM_SK_UNIT_ATTENTION || s.key == XCM_SK_ABORTED_COMMAND;
}

/* One data-in command with retries of transient conditions; *got = bytes received. */
int
xch_cmd_in(struct xcopy_dev *d, const uint8_t *cdb, uint8_t cdb_len, void *buf, size_t len,
       size_t *got)
{
	struct xch_cmd c;
	int rc = -EIO, i;

	for (i = 0; i < DISC_RETRIES; i++) {
		memset(&c, 0, sizeof(c));
		c.cdb = cdb;
		c.cdb_len = cdb_len;
		c.dir = XCH_DIR_IN;
		c.buf = buf;
		c.len = len;
		c.timeout_s = DISC_TIMEOUT_S;
		memset(buf, 0, len);
		rc = xch_dev_exec(d, &c, NULL);
		if (rc < 0) {
			return rc;
		}
		if (c.status == XCM_SAM_GOOD) {
			*got = c.resid <= len ? len - c.resid : 0;
			return 0;
		}
		if (!transient(&c)) {
			return -EIO;
		}
	}
	return -EIO;
}

int
xch_read_vpd(struct xcopy_dev *d, uint8_t page, uint8_t **out, size_t *got)
{
	uint8_t cdb[XCM_CDB6_LEN];
	uint8_t *buf = malloc(VPD_MAX);
	size_t want = 255;
	int rc;

	*out = NULL;
	if (buf == NULL) {
		return -ENOMEM;
	}
	for (;;) {
		xcm_cdb_inquiry(cdb, true, page, (uint16_t)want);
		rc = xch_cmd_in(d, cdb, sizeof(cdb), buf, want, got);
		if (rc != 0) {
			break;
		}
		if (*got < XCM_VPD_HDR_LEN || buf[1] != page) {
			rc = -EIO;
			break;
		}
		/* re-read with the full PAGE LENGTH once, capped */
		size_t full = XCM_VPD_HDR_LEN + (size_t)xcm_get_be16(buf + 2);
		if (full <= want || want == VPD_MAX) {
			if (*got > full) {
				*got = full;
			}
			*out = buf;
			return 0;
		}
		want = full < VPD_MAX ? full : VPD_MAX;
	}
	free(buf);
	return rc;
}

int
xch_dev_attach(const struct xch_transport_ops *ops, void *ctx, const char *name,
	       uint64_t part_start_512, uint64_t part_size_512, struct xcopy_dev **out)
{
	struct xcopy_dev *d;
	int rc;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		ops->close(ctx);
		return -ENOMEM;
	}
	d->ops = ops;
	d->tctx = ctx;
	d->cache_fd = -1;
	d->host_fd = -1;
	d->next_list_id = 1;
	snprintf(d->name, sizeof(d->name), "%s", name);
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

static int
rw_chunk_blocks(const struct xcopy_dev *d)
{
	uint32_t n = RW_CHUNK_BYTES / d->caps.block_size;

	if (d->caps.max_xfer_blocks != 0 && d->caps.max_xfer_blocks < n) {
		n = d->caps.max_xfer_blocks;
	}
	return n == 0 ? 1 : (int)n;
}

static int
rw(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf,
   struct xcopy_stats *st)
{
	uint8_t cdb[XCM_CDB16_LEN];
	uint32_t chunk = (uint32_t)rw_chunk_blocks(d);
	uint32_t done = 0;
	struct xch_cmd c;
	int rc, tries = 0;

	rc = xch_dev_range_check(d, lba, nblocks);
	if (rc != 0) {
		return rc;
	}
	if (d->host_only || d->dm != NULL) {
		return xch_host_rw(d, write, lba, nblocks, buf);
	}
	while (done < nblocks) {
		uint32_t n = nblocks - done < chunk ? nblocks - done : chunk;

		if (write) {
			xcm_cdb_write16(cdb, lba + done, n);
		} else {
			xcm_cdb_read16(cdb, lba + done, n);
		}
		memset(&c, 0, sizeof(c));
		c.cdb = cdb;
		c.cdb_len = sizeof(cdb);
		c.dir = write ? XCH_DIR_OUT : XCH_DIR_IN;
		c.buf = (uint8_t *)buf + (size_t)done * d->caps.block_size;
		c.len = (size_t)n * d->caps.block_size;
		c.timeout_s = RW_TIMEOUT_S;
		rc = xch_dev_exec(d, &c, st);
		if (rc < 0) {
			return rc;
		}
		if (c.status != XCM_SAM_GOOD || c.resid != 0) {
			if (transient(&c) && ++tries < DISC_RETRIES) {
				continue;
			}
			XCH_ERR("%s: %s(16) lba %llu x %u failed, status 0x%02x", d->name,
				write ? "WRITE" : "READ", (unsigned long long)(lba + done), n,
				c.status);
			return -EIO;
		}
		tries = 0;
		done += n;
	}
	return 0;
}

int
xch_dev_read(struct xcopy_dev *d, uint64_t lba, uint32_t nblocks, void *buf,
	     struct xcopy_stats *st)
{
	return rw(d, false, lba, nblocks, buf, st);
}

int
xch_dev_write(struct xcopy_dev *d, uint64_t lba, uint32_t nblocks, const void *buf,
	      struct xcopy_stats *st)
{
	return rw(d, true, lba, nblocks, (void *)(uintptr_t)buf, st);
}

bool
xch_same_lu(const struct xcopy_dev *a, const struct xcopy_dev *b)
{
	if (a == b) {
		return true;
	}
	if (a->ops == NULL || b->ops == NULL) {
		/* host-only and dm handles: the same node */
		return a->rdev != 0 && a->rdev == b->rdev;
	}
	return a->caps.desig_len != 0 && a->caps.desig_len == b->caps.desig_len &&
	       memcmp(a->caps.desig, b->caps.desig, a->caps.desig_len) == 0;
}

int
xcopy_dev_open(const char *path, struct xcopy_dev **out)
{
	const struct xch_transport_ops *ops;
	struct stat st;
	void *ctx;
	int rc;

	*out = NULL;
	if (path == NULL) {
		return -EINVAL;
	}
	if (strncmp(path, "iscsi://", 8) == 0) {
		rc = xch_iscsi_open(path, &ops, &ctx);
		if (rc != 0) {
			return rc;
		}
		return xch_dev_attach(ops, ctx, path, 0, 0, out);
	}
	if (stat(path, &st) != 0) {
		return -errno;
	}
	if (S_ISCHR(st.st_mode)) {
		return xch_open_chardev(path, st.st_rdev, out);
	}
	if (S_ISBLK(st.st_mode)) {
		return xch_open_blockdev(path, st.st_rdev, out);
	}
	return -ENODEV;
}

const struct xcopy_caps *
xcopy_dev_caps(const struct xcopy_dev *dev)
{
	return &dev->caps;
}

void
xcopy_dev_close(struct xcopy_dev *dev)
{
	if (dev == NULL) {
		return;
	}
	if (dev->ops != NULL && dev->ops->close != NULL) {
		dev->ops->close(dev->tctx);
	}
	if (dev->cache_fd >= 0) {
		close(dev->cache_fd);
	}
	if (dev->host_fd >= 0) {
		close(dev->host_fd);
	}
	xch_dm_free(dev);
	free(dev);
}
