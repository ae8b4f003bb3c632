/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Third-party Copy VPD page (8Fh): encoder (copy manager) and decoder
 * (initiator). Every value reported comes from struct xcm_limits and the
 * supported-code tables of limits.c, the same ones the parser enforces.
 * Layout: SPC-4 Third-party Copy VPD page (8Fh) and its descriptors.
 */
#include <errno.h>
#include <string.h>

#include "vpd_desc.h"
#include "xcm/token.h"
#include "xcm/xcm.h"

/* Page header and third-party copy descriptor header */
enum {
	TPC_PAGE_PDT = 0,
	TPC_PAGE_CODE = 1,
	TPC_PAGE_LEN = 2,          /* 2 bytes */
	TPC_PAGE_HDR = 4,
	TPC_DESC_TYPE = 0,         /* 2 bytes */
	TPC_DESC_LEN = 2,          /* 2 bytes: total - 4 */
	TPC_DESC_HDR = 4,
	TPC_PAD = 4,               /* variable descriptors padded to a multiple of 4 */
};

/* 0004h Parameter Data, 32 bytes; MAXIMUM INLINE DATA LENGTH at byte 16 (sg3_utils' decoder
 * reads 17, CTL and ddpt write 16) */
enum {
	TPC_PD_MAX_CSCD = 8,       /* 2 bytes */
	TPC_PD_MAX_SEG = 10,       /* 2 bytes */
	TPC_PD_MAX_DESC_LIST = 12, /* 4 bytes */
	TPC_PD_MAX_INLINE = 16,    /* 4 bytes */
	TPC_PD_LEN = 32,
};

/* 8001h General Copy Operations, 36 bytes */
enum {
	TPC_GCO_TOTAL = 4,         /* 4 bytes */
	TPC_GCO_MAX_ID = 8,        /* 4 bytes */
	TPC_GCO_MAX_SEG_LEN = 12,  /* 4 bytes */
	TPC_GCO_DATA_GRAN = 16,
	TPC_GCO_INLINE_GRAN = 17,
	TPC_GCO_LEN = 36,
};

/* 0001h, 0008h, 000Ch: the list length field right after the header */
enum {
	TPC_LIST_LEN = 4,
};

size_t
xcm_vpd_desc_begin(struct xcm_wbuf *w, uint16_t type)
{
	size_t off = w->len;

	xcm_wbuf_put16(w, type);
	xcm_wbuf_put16(w, 0);          /* patched by xcm_vpd_desc_end() */
	return off;
}

void
xcm_vpd_desc_end(struct xcm_wbuf *w, size_t off)
{
	size_t n = w->len - off;

	if (n % TPC_PAD != 0) {
		xcm_wbuf_put(w, NULL, TPC_PAD - n % TPC_PAD);
		n = w->len - off;
	}
	xcm_wbuf_patch16(w, off + TPC_DESC_LEN, (uint16_t)(n - TPC_DESC_HDR));
}

/* One 0001h entry: the opcode, k, its k service actions. */
static void
put_cmd(struct xcm_wbuf *w, uint8_t opcode, const uint8_t *sas, size_t n)
{
	xcm_wbuf_put8(w, opcode);
	xcm_wbuf_put8(w, (uint8_t)n);
	xcm_wbuf_put(w, sas, n);
}

/* 0001h Supported Commands: list length, then (opcode, k, k service actions) */
static void
put_supported_cmds(struct xcm_wbuf *w)
{
	const uint8_t *xsa, *rsa;
	size_t nx, nr, d;

	xsa = xcm_supported_xcopy_sas(&nx);
	rsa = xcm_supported_rcr_sas(&nr);
	d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_SUPPORTED_CMDS);
	xcm_wbuf_put8(w, (uint8_t)(2 + nx + 2 + nr));
	put_cmd(w, XCM_OP_XCOPY, xsa, nx);
	put_cmd(w, XCM_OP_RCR, rsa, nr);
	xcm_vpd_desc_end(w, d);
}

/* 0004h Parameter Data */
static void
put_param_data(const struct xcm_limits *lim, struct xcm_wbuf *w)
{
	size_t d;

	d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_PARAM_DATA);
	xcm_wbuf_put(w, NULL, TPC_PD_MAX_CSCD - TPC_DESC_HDR);   /* 4-7 reserved */
	xcm_wbuf_put16(w, lim->max_cscd);                                /* 8-9 */
	xcm_wbuf_put16(w, lim->max_seg);                                 /* 10-11 */
	xcm_wbuf_put32(w, lim->max_desc_list_len);                       /* 12-15 */
	xcm_wbuf_put32(w, lim->max_inline_len);                          /* 16-19 */
	xcm_wbuf_put(w, NULL, TPC_PD_LEN - (TPC_PD_MAX_INLINE + 4)); /* 20-31 */
	xcm_vpd_desc_end(w, d);
}

/* 8001h General Copy Operations */
static void
put_gco(const struct xcm_limits *lim, struct xcm_wbuf *w)
{
	size_t d;

	d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_GENERAL_COPY_OPS);
	xcm_wbuf_put32(w, lim->total_concurrent);                        /* 4-7 */
	xcm_wbuf_put32(w, lim->max_concurrent);                          /* 8-11 */
	xcm_wbuf_put32(w, lim->max_seg_len);                             /* 12-15 */
	xcm_wbuf_put8(w, lim->data_seg_gran);                            /* 16 */
	xcm_wbuf_put8(w, lim->inline_gran);                              /* 17 */
	xcm_wbuf_put(w, NULL, TPC_GCO_LEN - (TPC_GCO_INLINE_GRAN + 1)); /* 18-35 */
	xcm_vpd_desc_end(w, d);
}

void
xcm_vpd_tpc_encode(const struct xcm_limits *lim, uint8_t pdt_byte, struct xcm_wbuf *w)
{
	xcm_vpd_tpc_encode_tok(lim, NULL, 0, pdt_byte, w);
}

static void
tpc_encode(const struct xcm_limits *lim, const struct xcm_tok_limits *tl, uint32_t block_len,
	   uint8_t pdt_byte, struct xcm_wbuf *w)
{
	const uint8_t *codes;
	size_t nc;
	size_t start = w->len;
	size_t d;

	codes = xcm_supported_desc_codes(&nc);

	xcm_wbuf_put8(w, pdt_byte);
	xcm_wbuf_put8(w, XCM_VPD_TPC);
	xcm_wbuf_put16(w, 0);          /* PAGE LENGTH, patched at the end */

	/*
	 * 0000h Block Device ROD Token Limits first: Windows' class driver reads
	 * only the first descriptor and wants this type at its exact length.
	 */
	if (tl != NULL) {
		xcm_vpd_tpc_put_bdrl(tl, block_len, w);
	}
	put_supported_cmds(w);

	put_param_data(lim, w);

	/* 0008h Supported Descriptors: segment and CSCD type codes together */
	d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_SUPPORTED_DESCS);
	xcm_wbuf_put8(w, (uint8_t)nc);
	xcm_wbuf_put(w, codes, nc);
	xcm_vpd_desc_end(w, d);

	/* 000Ch Supported CSCD Descriptor IDs: only FFFFh (this LU) */
	d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_SUPPORTED_CSCD_IDS);
	xcm_wbuf_put16(w, 2);
	xcm_wbuf_put16(w, XCM_CSCD_ID_SELF);
	xcm_vpd_desc_end(w, d);

	put_gco(lim, w);

	/* 0106h ROD Token Features, 0108h Supported ROD Token and ROD Types */
	if (tl != NULL) {
		xcm_vpd_tpc_put_rod(tl, w);
	}
	xcm_wbuf_patch16(w, start + TPC_PAGE_LEN,
			 (uint16_t)(w->len - start - TPC_PAGE_HDR));
}

void
xcm_vpd_tpc_encode_tok(const struct xcm_limits *lim, const struct xcm_tok_limits *tl,
		       uint32_t block_len, uint8_t pdt_byte, struct xcm_wbuf *w)
{
	tpc_encode(lim, tl, block_len, pdt_byte, w);
}

/* 0001h: entries (opcode, k, k service actions) inside COMMANDS SUPPORTED LIST LENGTH. */
static int
dec_supported_cmds(struct xcm_span d, struct xcm_tpc_info *out)
{
	struct xcm_span n, list, ent, sas;
	size_t off = 0;
	size_t i;

	if (!xcm_span_sub(d, TPC_LIST_LEN, 1, &n) ||
	    !xcm_span_sub(d, TPC_LIST_LEN + 1, n.p[0], &list)) {
		return -EINVAL;
	}
	while (off < list.len) {
		/* each entry: 2-byte head, then its service actions, all inside the list */
		if (!xcm_span_sub(list, off, 2, &ent) ||
		    !xcm_span_sub(list, off + 2, ent.p[1], &sas)) {
			return -EINVAL;
		}
		for (i = 0; i < sas.len; i++) {
			if (ent.p[0] == XCM_OP_XCOPY && sas.p[i] == XCM_SA_XCOPY_LID1) {
				out->xcopy_lid1 = true;
			}
			if (ent.p[0] == XCM_OP_XCOPY && sas.p[i] == XCM_SA_WRITE_USING_TOKEN) {
				out->populate_token = true;
			}
			if (ent.p[0] == XCM_OP_RCR && sas.p[i] == XCM_SA_RRTI) {
				out->rrti = true;
			}
			if (ent.p[0] != XCM_OP_RCR) {
				continue;
			}
			switch (sas.p[i]) {
			case XCM_SA_RCR_COPY_STATUS:
				out->rcr_copy_status = true;
				break;
			case XCM_SA_RCR_RECEIVE_DATA:
				out->rcr_receive_data = true;
				break;
			case XCM_SA_RCR_OP_PARAMS:
				out->rcr_op_params = true;
				break;
			case XCM_SA_RCR_FAILED_SEGMENT:
				out->rcr_failed_segment = true;
				break;
			default:
				break;
			}
		}
		off += 2 + sas.len;
	}
	out->has_supported_cmds = true;
	return 0;
}

static int
dec_param_data(struct xcm_span d, struct xcm_tpc_info *out)
{
	if (d.len < TPC_PD_LEN) {
		return -EINVAL;
	}
	out->max_cscd = xcm_get_be16(d.p + TPC_PD_MAX_CSCD);
	out->max_seg = xcm_get_be16(d.p + TPC_PD_MAX_SEG);
	out->max_desc_list_len = xcm_get_be32(d.p + TPC_PD_MAX_DESC_LIST);
	out->max_inline_len = xcm_get_be32(d.p + TPC_PD_MAX_INLINE);
	out->has_param_data = true;
	return 0;
}

static int
dec_supported_descs(struct xcm_span d, struct xcm_tpc_info *out)
{
	struct xcm_span n, list;

	if (!xcm_span_sub(d, TPC_LIST_LEN, 1, &n) ||
	    !xcm_span_sub(d, TPC_LIST_LEN + 1, n.p[0], &list)) {
		return -EINVAL;
	}
	out->n_descs = (uint8_t)list.len;
	memcpy(out->descs, list.p, list.len);
	out->has_supported_descs = true;
	return 0;
}

static int
dec_cscd_ids(struct xcm_span d, struct xcm_tpc_info *out)
{
	struct xcm_span n, list;
	size_t i, count;

	if (!xcm_span_sub(d, TPC_LIST_LEN, 2, &n) ||
	    !xcm_span_sub(d, TPC_LIST_LEN + 2, xcm_get_be16(n.p), &list)) {
		return -EINVAL;
	}
	/* 2-byte IDs; an odd trailing byte is not an ID */
	count = list.len / 2;
	out->n_cscd_ids = (uint16_t)count;
	for (i = 0; i < count && i < sizeof(out->cscd_ids) / sizeof(out->cscd_ids[0]); i++) {
		out->cscd_ids[i] = xcm_get_be16(list.p + 2 * i);
	}
	out->has_cscd_ids = true;
	return 0;
}

static int
dec_general_copy_ops(struct xcm_span d, struct xcm_tpc_info *out)
{
	if (d.len < TPC_GCO_LEN) {
		return -EINVAL;
	}
	out->total_concurrent = xcm_get_be32(d.p + TPC_GCO_TOTAL);
	out->max_identified_concurrent = xcm_get_be32(d.p + TPC_GCO_MAX_ID);
	out->max_seg_len = xcm_get_be32(d.p + TPC_GCO_MAX_SEG_LEN);
	out->data_seg_gran = d.p[TPC_GCO_DATA_GRAN];
	out->inline_gran = d.p[TPC_GCO_INLINE_GRAN];
	out->has_general_copy_ops = true;
	return 0;
}

int
xcm_vpd_tpc_decode(struct xcm_span page, struct xcm_tpc_info *out)
{
	struct xcm_span hdr, body, dh, d;
	size_t off = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!xcm_span_sub(page, 0, TPC_PAGE_HDR, &hdr) ||
	    hdr.p[TPC_PAGE_CODE] != XCM_VPD_TPC) {
		return -EINVAL;
	}
	/*
	 * A page longer than the buffer (short allocation length) is refused as
	 * a whole: the caller re-reads with PAGE LENGTH + 4 rather than act on a
	 * partial descriptor list.
	 */
	if (!xcm_span_sub(page, TPC_PAGE_HDR, xcm_get_be16(hdr.p + TPC_PAGE_LEN), &body)) {
		return -EINVAL;
	}
	/* walk by 4 + DESCRIPTOR LENGTH; one bounds check per descriptor */
	while (off < body.len && rc == 0) {
		if (!xcm_span_sub(body, off, TPC_DESC_HDR, &dh) ||
		    !xcm_span_sub(body, off,
				  TPC_DESC_HDR + (size_t)xcm_get_be16(dh.p + TPC_DESC_LEN),
				  &d)) {
			return -EINVAL;
		}
		switch (xcm_get_be16(d.p + TPC_DESC_TYPE)) {
		case XCM_TPC_DESC_SUPPORTED_CMDS:
			rc = dec_supported_cmds(d, out);
			break;
		case XCM_TPC_DESC_PARAM_DATA:
			rc = dec_param_data(d, out);
			break;
		case XCM_TPC_DESC_SUPPORTED_DESCS:
			rc = dec_supported_descs(d, out);
			break;
		case XCM_TPC_DESC_SUPPORTED_CSCD_IDS:
			rc = dec_cscd_ids(d, out);
			break;
		case XCM_TPC_DESC_GENERAL_COPY_OPS:
			rc = dec_general_copy_ops(d, out);
			break;
		case XCM_TPC_DESC_BDRL:
			rc = xcm_vpd_tpc_dec_bdrl(d, out);
			break;
		default:
			/* unknown descriptor types are skipped */
			break;
		}
		off += d.len;
	}
	return rc;
}
