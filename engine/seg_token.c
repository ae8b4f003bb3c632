/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The vendor specific segment descriptor C0h, "ROD token to block device
 * ranges" (docs/remote-tokens.md): how a copy manager of this project asks
 * the copy manager that created a ROD token to write the token's bytes into
 * ranges of a LU it reaches (a WRITE USING TOKEN whose destination is a CSCD).
 * SPC-4 leaves segment types C0h-DFh to vendors.
 *
 *   0      C0h
 *   1      bit 1 DEL_TKN (as WUT byte 2); other bits reserved
 *   2-3    DESCRIPTOR LENGTH = 532 + 16n
 *   4-5    SOURCE CSCD DESCRIPTOR ID: F800h (the LU the ROD token names)
 *   6-7    DESTINATION CSCD DESCRIPTOR ID
 *   8-...  bytes 8 on of a WRITE USING TOKEN parameter list (SBC-4 5.55):
 *          8-15 OFFSET INTO ROD, 16-527 ROD TOKEN, 528-531 TIME BUDGET (ms
 *          the sender waits for the command, 0: no bound; where the WUT
 *          list has reserved bytes), 532-533 reserved, 534-535 BLOCK DEVICE
 *          RANGE DESCRIPTOR LENGTH (16n), 536... the n range descriptors
 *
 * Decoded by the WUT decoder (token.c) over a copy whose bytes 0-7 are a WUT
 * header, so both commands check ranges, reserved bytes and lengths alike;
 * a field pointer it returns is the same offset within the descriptor.
 */
#include <string.h>

#include "param_layout.h"
#include "xcm/token.h"

enum {
	ST_FLAGS = 1,
	ST_DEL_TKN = 0x02,
	ST_DEL_TKN_BIT = 1,
	ST_FLAGS_RESERVED = 0xFD,
	ST_WUT_FLAGS = 2,             /* WUT byte 2: 1 DEL_TKN */
	ST_BUDGET = 528,              /* 4 bytes TIME BUDGET (reserved in a WUT list) */
	ST_MAX_LEN = XCM_WUT_HDR_LEN + XCM_MAX_RANGES * XCM_RANGE_DESC_LEN,
};

/* Is dlen (DESCRIPTOR LENGTH) one of a C0h with 1..XCM_MAX_RANGES ranges? */
bool
xcm_seg_token_dlen_ok(uint32_t dlen)
{
	uint32_t total = dlen + XCM_SEGD_DLEN_HDR;

	return total >= XCM_WUT_HDR_LEN + XCM_RANGE_DESC_LEN && total <= ST_MAX_LEN &&
	       (total - XCM_WUT_HDR_LEN) % XCM_RANGE_DESC_LEN == 0;
}

enum xcm_status
xcm_seg_token_parse(struct xcm_span d, uint32_t off, struct xcm_tok_seg *out,
		    struct xcm_err *err)
{
	static const struct xcm_tok_limits lim = { .max_ranges = XCM_MAX_RANGES };
	uint8_t wut[ST_MAX_LEN];
	struct xcm_tok_list tl, *l = &tl;
	enum xcm_status st;
	uint8_t flags;

	memset(out, 0, sizeof(*out));
	if (d.len < XCM_WUT_HDR_LEN + XCM_RANGE_DESC_LEN || d.len > ST_MAX_LEN) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, off + XCM_SEGD_DLEN, -1);
		return err->status;
	}
	flags = d.p[ST_FLAGS];
	if ((flags & ST_FLAGS_RESERVED) != 0) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, off + ST_FLAGS, 7);
		return err->status;
	}
	if (xcm_get_be16(d.p + XCM_SEGD_SRC_ID) != XCM_CSCD_ID_ROD) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, off + XCM_SEGD_SRC_ID, -1);
		return err->status;
	}
	/* RANGE DESCRIPTOR LENGTH must fill the descriptor (the WUT decoder admits less) */
	if (xcm_get_be16(d.p + XCM_WUT_HDR_LEN - 2) != d.len - XCM_WUT_HDR_LEN) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false,
				  off + XCM_WUT_HDR_LEN - 2, -1);
		return err->status;
	}
	/* bytes 0-7 as a WUT header: DATA LENGTH, DEL_TKN, reserved */
	memcpy(wut, d.p, d.len);
	memset(wut, 0, XCM_SEG_HDR_LEN);
	xcm_put_be16(wut, (uint16_t)(d.len - 2));
	memset(wut + ST_BUDGET, 0, 4);
	wut[ST_WUT_FLAGS] = (flags & ST_DEL_TKN) != 0 ? ST_DEL_TKN : 0;
	/* the destination's size is known at execution: the ranges are checked there */
	st = xcm_tok_list_parse(XCM_SA_WRITE_USING_TOKEN, (uint32_t)d.len,
				xcm_span_make(wut, d.len), &lim, UINT64_MAX, 1, l, err);
	if (st == XCM_OK) {
		out->del_tkn = l->del_tkn;
		out->budget_ms = xcm_get_be32(d.p + ST_BUDGET);
		out->offset = l->offset;
		memcpy(out->token, l->token, sizeof(out->token));
		out->nranges = l->nranges;
		out->total_blocks = l->total_blocks;
		memcpy(out->range, l->range, l->nranges * sizeof(l->range[0]));
	} else if (err->sks_valid && !err->in_cdb) {
		err->field += off;
	}
	return st;
}

size_t
xcm_seg_token_len(const struct xcm_tok_seg *t)
{
	uint32_t n = t->nranges <= XCM_MAX_RANGES ? t->nranges : XCM_MAX_RANGES;

	return XCM_WUT_HDR_LEN + (size_t)n * XCM_RANGE_DESC_LEN;
}

void
xcm_seg_token_put(struct xcm_wbuf *w, const struct xcm_tok_seg *t, uint16_t dst_id)
{
	struct xcm_tok_list tl, *l = &tl;
	uint8_t buf[ST_MAX_LEN];
	struct xcm_wbuf b = xcm_wbuf_make(buf, sizeof(buf));
	size_t len = xcm_seg_token_len(t);

	memset(buf, 0, sizeof(buf));
	memset(l, 0, sizeof(*l));
	/* the WUT encoder writes bytes 8 on; bytes 0-7 are the segment's */
	l->offset = t->offset;
	memcpy(l->token, t->token, sizeof(l->token));
	l->nranges = t->nranges <= XCM_MAX_RANGES ? t->nranges : XCM_MAX_RANGES;
	memcpy(l->range, t->range, l->nranges * sizeof(l->range[0]));
	(void)xcm_tok_list_encode(XCM_SA_WRITE_USING_TOKEN, l, &b);
	buf[XCM_SEGD_TYPE] = XCM_SEG_TOKEN;
	buf[ST_FLAGS] = t->del_tkn ? ST_DEL_TKN : 0;
	buf[ST_FLAGS + 1] = 0;
	xcm_put_be32(buf + ST_BUDGET, t->budget_ms);
	xcm_put_be16(buf + XCM_SEGD_DLEN, (uint16_t)(len - XCM_SEGD_DLEN_HDR));
	xcm_put_be16(buf + XCM_SEGD_SRC_ID, XCM_CSCD_ID_ROD);
	xcm_put_be16(buf + XCM_SEGD_DST_ID, dst_id);
	xcm_wbuf_put(w, buf, len);
}
