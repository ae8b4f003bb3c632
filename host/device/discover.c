/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Discovery, once per handle: standard INQUIRY (3PC), READ CAPACITY(16),
 * VPD 0x83 (the designator a CSCD will carry), VPD 0xB0, and, when 3PC is
 * set, RECEIVE COPY RESULTS OPERATING PARAMETERS and VPD 0x8F. The limits the
 * planner enforces are the smaller of what RCR and VPD 0x8F report; when
 * neither answers, the values LIO and tcmu-runner report (2 CSCDs, 1
 * segment, 1024 bytes) are assumed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xch_device.h"
#include "xos.h"

enum {
	RCR_ALLOC = 256,           /* LIO refuses OPERATING PARAMETERS below 54 bytes */
	/* What LIO and tcmu-runner report, assumed when nothing is reported */
	DEF_MAX_CSCD = 2,
	DEF_MAX_SEG = 1,
	DEF_MAX_DESC_LIST = 1024,
};

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

	rc = xch_read_vpd(d, XCM_VPD_DEVICE_ID, &vpd, &got);
	if (rc != 0) {
		return rc;
	}
	rc = xch_pick_designator(xcm_span_make(vpd, got), out, cap);
	free(vpd);
	return rc;
}

/* SPC-4 6.18.4: RECEIVE COPY RESULTS OPERATING PARAMETERS, LIST IDENTIFIER 0. */
static void
rcr_limits(struct xcopy_dev *d, bool *has_b2b, bool *has_e4)
{
	struct xcopy_caps *c = &d->caps;
	struct xcm_op_params op;
	uint8_t cdb[XCM_CDB16_LEN];
	uint8_t *buf;
	size_t got = 0, i;

	buf = malloc(RCR_ALLOC);
	if (buf == NULL) {
		return;
	}
	xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0, RCR_ALLOC);
	if (xch_cmd_in(d, cdb, sizeof(cdb), buf, RCR_ALLOC, &got) == 0 &&
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
			*has_b2b = *has_e4 = false;
			for (i = 0; i < op.n_impl; i++) {
				*has_b2b = *has_b2b || op.impl[i] == XCM_SEG_B2B;
				*has_e4 = *has_e4 || op.impl[i] == XCM_CSCD_ID;
			}
		}
	}
	free(buf);
}

/* The smaller of RCR's and VPD 0x8F's limits (SPC-4 7.8.17). */
static void
tpc_limits(struct xcopy_dev *d, const struct xcm_tpc_info *tpc, bool *has_b2b)
{
	struct xcopy_caps *c = &d->caps;

	c->has_vpd_tpc = true;
	if (tpc->has_param_data) {
		c->max_cscd = (uint16_t)xos_min_nz(c->max_cscd, tpc->max_cscd);
		c->max_seg = (uint16_t)xos_min_nz(c->max_seg, tpc->max_seg);
		c->max_desc_list_len = (uint32_t)xos_min_nz(c->max_desc_list_len,
							      tpc->max_desc_list_len);
	}
	if (tpc->has_general_copy_ops) {
		c->max_seg_len = (uint32_t)xos_min_nz(c->max_seg_len, tpc->max_seg_len);
		d->max_copies = (uint32_t)xos_min_nz(d->max_copies, tpc->total_concurrent);
		d->max_id_copies = (uint32_t)xos_min_nz(d->max_id_copies,
							 tpc->max_identified_concurrent);
	}
	if (tpc->has_supported_cmds && !tpc->xcopy_lid1) {
		*has_b2b = false;
	}
	/* SBC-4 6.6.7: Block Device ROD Token Limits, and PT/WUT and RRTI listed */
	d->tok.lid1 = !tpc->has_supported_cmds || tpc->xcopy_lid1;
	if (tpc->has_bdrl && tpc->populate_token && tpc->rrti) {
		d->tok.offered = true;
		d->tok.max_ranges = tpc->max_ranges;
		d->tok.max_token_blocks = tpc->max_token_blocks;
		d->tok.optimal_blocks = tpc->optimal_blocks;
		d->tok.default_inactivity_s = tpc->default_inactivity_s;
	}
}

/* VPD 0x8F is optional: LIO and tcmu-runner do not implement it. */
static void
vpd_tpc_limits(struct xcopy_dev *d, bool *has_b2b)
{
	struct xcm_tpc_info *tpc;
	uint8_t *buf;
	size_t got = 0;

	tpc = calloc(1, sizeof(*tpc));
	if (tpc != NULL && xch_read_vpd(d, XCM_VPD_TPC, &buf, &got) == 0) {
		if (xcm_vpd_tpc_decode(xcm_span_make(buf, got), tpc) == 0) {
			tpc_limits(d, tpc, has_b2b);
		}
		free(buf);
	}
	free(tpc);
}

/* Blocks per segment: the target's limit, then our preference below it. */
static void
seg_blocks(struct xcopy_caps *c)
{
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
}

static void
discover_copy_limits(struct xcopy_dev *d)
{
	struct xcopy_caps *c = &d->caps;
	bool has_b2b = true, has_e4 = true;

	c->max_cscd = DEF_MAX_CSCD;
	c->max_seg = DEF_MAX_SEG;
	c->max_desc_list_len = DEF_MAX_DESC_LIST;
	rcr_limits(d, &has_b2b, &has_e4);
	vpd_tpc_limits(d, &has_b2b);
	seg_blocks(c);
	if (!has_b2b || !has_e4) {
		d->disabled = true;
		d->disabled_why = XCOPY_FB_UNSUPP_DESC;
	} else if (c->max_seg_blocks == 0 || c->max_seg == 0 || c->max_cscd == 0) {
		d->disabled = true;
		d->disabled_why = XCOPY_FB_INVALID_PARAM;
	}
}

/* Standard INQUIRY: a direct-access block device, LU present (qualifier 0). */
static int
discover_inquiry(struct xcopy_dev *d)
{
	struct xcopy_caps *c = &d->caps;
	struct xcm_std_inquiry inq;
	uint8_t cdb[XCM_CDB6_LEN], buf[96];
	size_t got = 0;
	int rc;

	xcm_cdb_inquiry(cdb, false, 0, sizeof(buf));
	rc = xch_cmd_in(d, cdb, XCM_CDB6_LEN, buf, sizeof(buf), &got);
	if (rc != 0) {
		return rc;
	}
	if (xcm_inquiry_std_decode(xcm_span_make(buf, got), &inq) != 0) {
		return -EIO;
	}
	if (inq.pdt_byte != XCM_PDT_BLOCK) {
		return -ENODEV;
	}
	c->tpc = inq.tpc;
	memcpy(c->vendor, inq.vendor, sizeof(c->vendor));
	memcpy(c->product, inq.product, sizeof(c->product));
	return 0;
}

static int
discover_capacity(struct xcopy_dev *d)
{
	struct xcm_capacity cap;
	uint8_t cdb[XCM_CDB16_LEN], buf[XCM_READ_CAP16_LEN];
	size_t got = 0;
	int rc;

	xcm_cdb_read_capacity16(cdb, XCM_READ_CAP16_LEN);
	rc = xch_cmd_in(d, cdb, XCM_CDB16_LEN, buf, XCM_READ_CAP16_LEN, &got);
	if (rc != 0) {
		return rc;
	}
	if (xcm_read_capacity16_decode(xcm_span_make(buf, got), &cap) != 0 ||
	    cap.last_lba == UINT64_MAX) {
		return -EIO;
	}
	d->caps.block_size = cap.block_len;
	d->caps.num_blocks = cap.last_lba + 1;
	return 0;
}

/* VPD 0x83 (the designator a CSCD carries) and 0xB0 (MAXIMUM TRANSFER LENGTH). */
static void
discover_vpds(struct xcopy_dev *d)
{
	struct xcopy_caps *c = &d->caps;
	struct xcm_block_limits bl;
	uint8_t *vpd;
	size_t got = 0;
	int rc;

	if (xch_read_vpd(d, XCM_VPD_DEVICE_ID, &vpd, &got) == 0) {
		rc = xch_pick_designator(xcm_span_make(vpd, got), c->desig, sizeof(c->desig));
		c->desig_len = rc > 0 ? (uint8_t)rc : 0;
		free(vpd);
	}
	if (xch_read_vpd(d, XCM_VPD_BLOCK_LIMITS, &vpd, &got) == 0) {
		if (xcm_vpd_b0_decode(xcm_span_make(vpd, got), &bl) == 0) {
			c->max_xfer_blocks = bl.max_xfer_len;
		}
		free(vpd);
	}
}

int
xch_discover(struct xcopy_dev *d)
{
	struct xcopy_caps *c = &d->caps;
	int rc;

	rc = discover_inquiry(d);
	if (rc == 0) {
		rc = discover_capacity(d);
	}
	if (rc != 0) {
		return rc;
	}
	discover_vpds(d);
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
