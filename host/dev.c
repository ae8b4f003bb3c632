/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device handles and discovery. Discovery runs once per handle: standard
 * INQUIRY (3PC), READ CAPACITY(16), VPD 0x83 (the designator a CSCD will
 * carry), VPD 0xB0, and, when 3PC is set, RECEIVE COPY RESULTS OPERATING
 * PARAMETERS and VPD 0x8F. The limits the planner enforces are the smaller
 * of what RCR and VPD 0x8F report; when neither answers, the values LIO and
 * tcmu-runner report (2 CSCDs, 1 segment, 1024 bytes) are assumed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xcopy_internal.h"

enum {
	DISC_TIMEOUT_S = 30,
	RW_TIMEOUT_S = 60,
	DISC_RETRIES = 3,
	VPD_MAX = 4096,
	RCR_ALLOC = 256,           /* LIO refuses OPERATING PARAMETERS below 54 bytes */
	RW_CHUNK_BYTES = 512 * 1024,
	/* What LIO and tcmu-runner report, assumed when nothing is reported */
	DEF_MAX_CSCD = 2,
	DEF_MAX_SEG = 1,
	DEF_MAX_DESC_LIST = 1024,
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
static int
cmd_in(struct xcopy_dev *d, const uint8_t *cdb, uint8_t cdb_len, void *buf, size_t len,
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

static int
read_vpd(struct xcopy_dev *d, uint8_t page, uint8_t **out, size_t *got)
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
		rc = cmd_in(d, cdb, sizeof(cdb), buf, want, got);
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

/* Higher is better; < 0 unusable. */
static int
desig_score(const struct xcm_designator *g)
{
	/* SPC-4 6.4.5.4: an E4h CSCD holds a designator of at most 20 bytes */
	if (g->assoc != XCM_ASSOC_LU || g->len == 0 || g->len > XCM_DESIG_MAX || g->piv) {
		return -1;
	}
	switch (g->type) {
	case XCM_DESIG_NAA:
		if (g->code_set != XCM_CODE_SET_BINARY) {
			return -1;
		}
		/* LIO and tcmu-runner resolve only NAA 6 (IEEE Registered Extended) */
		if ((g->body[0] >> 4) == 6) {
			return 100;
		}
		return (g->body[0] >> 4) == 5 ? 90 : 80;
	case XCM_DESIG_EUI64:
		return g->code_set == XCM_CODE_SET_BINARY ? 50 : -1;
	case XCM_DESIG_T10:
		return 20;
	case XCM_DESIG_VENDOR:
		return 10;
	default:
		return -1;
	}
}

int
xch_pick_designator(struct xcm_span page, uint8_t *out, size_t cap)
{
	struct xcm_designator g, best = { 0 };
	size_t off = 0;
	int best_score = -1, rc, sc;

	while ((rc = xcm_vpd_devid_next(page, &off, &g)) == 1) {
		sc = desig_score(&g);
		if (sc > best_score) {
			best_score = sc;
			best = g;
		}
	}
	if (rc < 0) {
		return rc;
	}
	if (best_score < 0 || best.desc_len > cap) {
		return 0;
	}
	memcpy(out, best.desc, best.desc_len);
	return (int)best.desc_len;
}

int
xch_dev_read_designator(struct xcopy_dev *d, uint8_t *out, size_t cap)
{
	uint8_t *vpd;
	size_t got = 0;
	int rc;

	rc = read_vpd(d, XCM_VPD_DEVICE_ID, &vpd, &got);
	if (rc != 0) {
		return rc;
	}
	rc = xch_pick_designator(xcm_span_make(vpd, got), out, cap);
	free(vpd);
	return rc;
}

static uint32_t
min_nz(uint32_t a, uint32_t b)
{
	if (a == 0) {
		return b;
	}
	if (b == 0) {
		return a;
	}
	return a < b ? a : b;
}

static void
discover_copy_limits(struct xcopy_dev *d)
{
	struct xcopy_caps *c = &d->caps;
	struct xcm_op_params op;
	struct xcm_tpc_info *tpc;
	uint8_t cdb[XCM_CDB16_LEN];
	uint8_t *buf;
	size_t got = 0, i;
	bool has_b2b = true, has_e4 = true;

	c->max_cscd = DEF_MAX_CSCD;
	c->max_seg = DEF_MAX_SEG;
	c->max_desc_list_len = DEF_MAX_DESC_LIST;

	buf = malloc(RCR_ALLOC);
	if (buf == NULL) {
		return;
	}
	/* SPC-4 6.18.4: OPERATING PARAMETERS, LIST IDENTIFIER 0 */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0, RCR_ALLOC);
	if (cmd_in(d, cdb, sizeof(cdb), buf, RCR_ALLOC, &got) == 0 &&
	    xcm_rcr_decode_op_params(xcm_span_make(buf, got), &op) == 0) {
		c->has_op_params = true;
		c->snlid = op.snlid;
		if (op.max_cscd != 0) {
			c->max_cscd = op.max_cscd;
		}
		if (op.max_seg != 0) {
			c->max_seg = op.max_seg;
		}
		if (op.max_desc_list_len != 0) {
			c->max_desc_list_len = op.max_desc_list_len;
		}
		c->max_seg_len = op.max_seg_len;
		/* SPC-4 6.18.4: TOTAL / MAXIMUM (identified) CONCURRENT COPIES */
		d->max_copies = op.total_concurrent;
		d->max_id_copies = op.max_concurrent;
		if (op.n_impl > 0) {
			has_b2b = has_e4 = false;
			for (i = 0; i < op.n_impl; i++) {
				has_b2b = has_b2b || op.impl[i] == XCM_SEG_B2B;
				has_e4 = has_e4 || op.impl[i] == XCM_CSCD_ID;
			}
		}
	}
	free(buf);

	/* VPD 0x8F is optional: LIO and tcmu-runner do not implement it */
	tpc = calloc(1, sizeof(*tpc));
	if (tpc != NULL && read_vpd(d, XCM_VPD_TPC, &buf, &got) == 0) {
		if (xcm_vpd_tpc_decode(xcm_span_make(buf, got), tpc) == 0) {
			c->has_vpd_tpc = true;
			if (tpc->has_param_data) {
				c->max_cscd = (uint16_t)min_nz(c->max_cscd, tpc->max_cscd);
				c->max_seg = (uint16_t)min_nz(c->max_seg, tpc->max_seg);
				c->max_desc_list_len = min_nz(c->max_desc_list_len,
							      tpc->max_desc_list_len);
			}
			if (tpc->has_general_copy_ops) {
				c->max_seg_len = min_nz(c->max_seg_len, tpc->max_seg_len);
				d->max_copies = min_nz(d->max_copies, tpc->total_concurrent);
				d->max_id_copies = min_nz(d->max_id_copies,
							  tpc->max_identified_concurrent);
			}
			if (tpc->has_supported_cmds && !tpc->xcopy_lid1) {
				has_b2b = false;
			}
		}
		free(buf);
	}
	free(tpc);

	c->max_seg_blocks = 65535;
	if (c->max_seg_len != 0 && c->block_size != 0) {
		uint32_t b = c->max_seg_len / c->block_size;
		if (b < c->max_seg_blocks) {
			c->max_seg_blocks = b;
		}
	}
	/*
	 * Our own preference below the target's limit: COPY ABORTED reports
	 * progress in whole segments (CSI), so a failed or time-limited command
	 * loses at most one XCH_SEG_PREF_BYTES segment; a target that takes many
	 * segments per command still gets 1024 x 4 MiB in one. A target of one
	 * segment per command (LIO, tcmu-runner's core) keeps its full limit,
	 * or it would need more commands.
	 */
	if (c->max_seg > 1 && c->block_size != 0 && c->block_size <= XCH_SEG_PREF_BYTES &&
	    c->max_seg_blocks > XCH_SEG_PREF_BYTES / c->block_size) {
		c->max_seg_blocks = XCH_SEG_PREF_BYTES / c->block_size;
	}
	if (!has_b2b || !has_e4) {
		d->disabled = true;
		d->disabled_why = XCOPY_FB_UNSUPP_DESC;
	} else if (c->max_seg_blocks == 0 || c->max_seg == 0 || c->max_cscd == 0) {
		d->disabled = true;
		d->disabled_why = XCOPY_FB_INVALID_PARAM;
	}
}

static int
discover(struct xcopy_dev *d)
{
	struct xcopy_caps *c = &d->caps;
	struct xcm_std_inquiry inq;
	struct xcm_capacity cap;
	struct xcm_block_limits bl;
	uint8_t cdb[XCM_CDB16_LEN], buf[96];
	uint8_t *vpd;
	size_t got = 0;
	int rc;

	xcm_cdb_inquiry(cdb, false, 0, sizeof(buf));
	rc = cmd_in(d, cdb, XCM_CDB6_LEN, buf, sizeof(buf), &got);
	if (rc != 0) {
		return rc;
	}
	if (xcm_inquiry_std_decode(xcm_span_make(buf, got), &inq) != 0) {
		return -EIO;
	}
	/* direct-access block devices only, LU present (qualifier 0) */
	if (inq.pdt_byte != XCM_PDT_BLOCK) {
		return -ENODEV;
	}
	c->tpc = inq.tpc;
	memcpy(c->vendor, inq.vendor, sizeof(c->vendor));
	memcpy(c->product, inq.product, sizeof(c->product));

	xcm_cdb_read_capacity16(cdb, XCM_READ_CAP16_LEN);
	rc = cmd_in(d, cdb, XCM_CDB16_LEN, buf, XCM_READ_CAP16_LEN, &got);
	if (rc != 0) {
		return rc;
	}
	if (xcm_read_capacity16_decode(xcm_span_make(buf, got), &cap) != 0 ||
	    cap.last_lba == UINT64_MAX) {
		return -EIO;
	}
	c->block_size = cap.block_len;
	c->num_blocks = cap.last_lba + 1;

	if (read_vpd(d, XCM_VPD_DEVICE_ID, &vpd, &got) == 0) {
		rc = xch_pick_designator(xcm_span_make(vpd, got), c->desig, sizeof(c->desig));
		c->desig_len = rc > 0 ? (uint8_t)rc : 0;
		free(vpd);
	}
	if (read_vpd(d, XCM_VPD_BLOCK_LIMITS, &vpd, &got) == 0) {
		if (xcm_vpd_b0_decode(xcm_span_make(vpd, got), &bl) == 0) {
			c->max_xfer_blocks = bl.max_xfer_len;
		}
		free(vpd);
	}

	if (!c->tpc) {
		d->disabled = true;
		d->disabled_why = XCOPY_FB_NO_3PC;
	} else {
		discover_copy_limits(d);
	}
	if (!d->disabled && c->desig_len == 0) {
		d->disabled = true;
		d->disabled_why = XCOPY_FB_NO_DESIGNATOR;
	}
	c->offload = !d->disabled;
	return 0;
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
	rc = discover(d);
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
