/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * POPULATE TOKEN / WRITE USING TOKEN CDB checks and parameter lists, RRTI /
 * REPORT ALL ROD TOKENS CDB checks, and their CDB builders. Layouts: SBC-4
 * 5.8 (POPULATE TOKEN: CDB, parameter list, 5.8.3 block device range
 * descriptor), SBC-4 5.55 (WRITE USING TOKEN), SPC-4 6.19.4 / 6.19.5.
 */
#include <string.h>

#include "param_layout.h"
#include "xcm/token.h"

/* PT / WUT CDB (SBC-4 5.8, 5.55) */
enum {
	TC_RESERVED = 2,               /* bytes 2-5 reserved */
	TC_LIST_ID = 6,                /* 4 bytes */
	TC_GROUP = 14,                 /* bits 5:0 GROUP NUMBER, 7:6 reserved */
	TC_GROUP_RESERVED = 0xC0,
	TI_RRTI_RESERVED = 6,          /* RRTI: bytes 6-9 reserved */
	TI_RART_RESERVED = 2,          /* RART: bytes 2-9 reserved */
	TI_RESERVED_END = 10,
	TI_BYTE14 = 14,
};

/* POPULATE TOKEN and WRITE USING TOKEN parameter lists (SBC-4 5.8, 5.55) */
enum {
	TL_DATA_LEN = 0,               /* 2 bytes: total - 2 */
	TL_FLAGS = 2,                  /* PT: 1 RTV, 0 IMMED; WUT: 1 DEL_TKN, 0 IMMED */
	TL_FLAG_IMMED = 0x01,
	TL_FLAG_RTV = 0x02,            /* PT */
	TL_FLAG_DEL_TKN = 0x02,        /* WUT */
	TL_FLAGS_RESERVED = 0xFC,
	PT_RESERVED3 = 3,
	PT_TIMEOUT = 4,                /* 4 bytes INACTIVITY TIMEOUT */
	PT_ROD_TYPE = 8,               /* 4 bytes */
	PT_RESERVED12 = 12,            /* 2 bytes */
	PT_RANGE_LEN = 14,             /* 2 bytes BLOCK DEVICE RANGE DESCRIPTOR LENGTH */
	WUT_RESERVED3 = 3,             /* bytes 3-7 */
	WUT_OFFSET = 8,                /* 8 bytes OFFSET INTO ROD */
	WUT_TOKEN = 16,                /* 512 bytes */
	WUT_RESERVED528 = 528,         /* bytes 528-533 */
	WUT_RANGE_LEN = 534,           /* 2 bytes */
	RD_LBA = 0,                    /* range descriptor: 8 bytes LBA */
	RD_COUNT = 8,                  /* 4 bytes NUMBER OF LOGICAL BLOCKS */
	RD_RESERVED = 12,              /* 4 bytes */
};
_Static_assert(PT_RANGE_LEN + 2 == XCM_PT_HDR_LEN, "PT header is 16 bytes");
_Static_assert(WUT_RANGE_LEN + 2 == XCM_WUT_HDR_LEN, "WUT header is 536 bytes");
_Static_assert(WUT_TOKEN + XCM_ROD_TOKEN_LEN == WUT_RESERVED528, "token at 16-527");

/* First non-zero byte of [from, to) -> INVALID FIELD (CDB or list) there; false. */
static bool
zero_bytes(const uint8_t *p, uint32_t from, uint32_t to, bool in_cdb, struct xcm_err *err)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		if (p[i] != 0) {
			xcm_err_set_field(err, in_cdb ? XCM_E_INVALID_FIELD_CDB
						      : XCM_E_INVALID_FIELD_PARAM, in_cdb, i, -1);
			return false;
		}
	}
	return true;
}

static uint32_t
hdr_len(uint8_t sa)
{
	return sa == XCM_SA_POPULATE_TOKEN ? XCM_PT_HDR_LEN : XCM_WUT_HDR_LEN;
}

enum xcm_status
xcm_tok_out_cdb_check(const uint8_t *cdb, size_t cdb_len, const struct xcm_tok_limits *lim,
		      struct xcm_tok_out_req *req, struct xcm_err *err)
{
	uint32_t max;

	memset(req, 0, sizeof(*req));
	if (xcm_tpc_cdb_head(cdb, cdb_len, XCM_OP_XCOPY, &req->sa, err) != XCM_OK) {
		return err->status;
	}
	if ((req->sa != XCM_SA_POPULATE_TOKEN && req->sa != XCM_SA_WRITE_USING_TOKEN) ||
	    (cdb[XCM_CDB_SA] & ~XCM_CDB_SA_MASK) != 0) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_SA, XCM_CDB_SA_MSB);
		return err->status;
	}
	if (!zero_bytes(cdb, TC_RESERVED, TC_LIST_ID, true, err)) {
		return err->status;
	}
	if ((cdb[TC_GROUP] & TC_GROUP_RESERVED) != 0) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, TC_GROUP, 7);
		return err->status;
	}
	req->list_id = xcm_get_be32(cdb + TC_LIST_ID);
	req->plen = xcm_get_be32(cdb + XCM_CDB_LEN32);
	/* SBC-4 5.8.1: a list that cannot hold one range, or more than the limit */
	max = hdr_len(req->sa) + (uint32_t)lim->max_ranges * XCM_RANGE_DESC_LEN;
	if (req->plen < hdr_len(req->sa) + XCM_RANGE_DESC_LEN || req->plen > max) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_LEN32, -1);
		return err->status;
	}
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

/* Byte 2 flags and the fixed fields of PT (SBC-4 5.8, its parameter list). */
static bool
parse_pt_fixed(struct xcm_span d, const struct xcm_tok_limits *lim, struct xcm_tok_list *out,
	       struct xcm_err *err)
{
	uint32_t t;

	out->rtv = (d.p[TL_FLAGS] & TL_FLAG_RTV) != 0;
	if (!zero_bytes(d.p, PT_RESERVED3, PT_TIMEOUT, false, err) ||
	    !zero_bytes(d.p, PT_RESERVED12, PT_RANGE_LEN, false, err)) {
		return false;
	}
	/* SBC-4 5.8.2: 0 = the default; above the maximum: INVALID FIELD, field 4 */
	t = xcm_get_be32(d.p + PT_TIMEOUT);
	if (t > lim->max_inactivity_s) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, PT_TIMEOUT, -1);
		return false;
	}
	out->inactivity_s = t == 0 ? lim->default_inactivity_s : t;
	out->rod_type = XCM_ROD_TYPE_PIT_DEFAULT;
	if (out->rtv) {
		out->rod_type = xcm_get_be32(d.p + PT_ROD_TYPE);
		/* the point-in-time kinds this copy manager makes (VPD 8Fh 0108h) */
		if (out->rod_type != XCM_ROD_TYPE_PIT_DEFAULT &&
		    out->rod_type != XCM_ROD_TYPE_PIT_ANY &&
		    out->rod_type != XCM_ROD_TYPE_PIT_VULNERABLE &&
		    (out->rod_type != XCM_ROD_TYPE_PIT_PERSISTENT || !lim->pit_persistent)) {
			xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, PT_ROD_TYPE, -1);
			return false;
		}
	}
	return true;
}

static bool
parse_wut_fixed(struct xcm_span d, struct xcm_tok_list *out, struct xcm_err *err)
{
	out->del_tkn = (d.p[TL_FLAGS] & TL_FLAG_DEL_TKN) != 0;
	if (!zero_bytes(d.p, WUT_RESERVED3, WUT_OFFSET, false, err) ||
	    !zero_bytes(d.p, WUT_RESERVED528, WUT_RANGE_LEN, false, err)) {
		return false;
	}
	out->offset = xcm_get_be64(d.p + WUT_OFFSET);
	memcpy(out->token, d.p + WUT_TOKEN, XCM_ROD_TOKEN_LEN);
	return true;
}

/* Does range i overlap one of ranges [0, i)? */
static bool
overlaps_earlier(const struct xcm_tok_list *l, uint32_t i)
{
	const struct xcm_range *r = &l->range[i];
	uint32_t k;

	for (k = 0; k < i; k++) {
		const struct xcm_range *q = &l->range[k];

		if (r->count != 0 && q->count != 0 && r->lba < q->lba + q->count &&
		    q->lba < r->lba + r->count) {
			return true;
		}
	}
	return false;
}

/* Range descriptors at d[hdr, hdr + len) (SBC-4 5.8.3). */
static bool
parse_ranges(struct xcm_span d, uint32_t hdr, uint32_t len_field, uint64_t num_blocks,
	     struct xcm_tok_list *out, struct xcm_err *err)
{
	struct xcm_span rd;
	uint32_t i, n = len_field / XCM_RANGE_DESC_LEN;

	for (i = 0; i < n; i++) {
		struct xcm_range *r = &out->range[i];
		uint32_t off = hdr + i * XCM_RANGE_DESC_LEN;

		if (!xcm_span_sub(d, off, XCM_RANGE_DESC_LEN, &rd)) {
			xcm_err_set(err, XCM_E_PARAM_LIST_LEN);
			return false;
		}
		if (!zero_bytes(d.p, off + RD_RESERVED, off + XCM_RANGE_DESC_LEN, false, err)) {
			return false;
		}
		r->lba = xcm_get_be64(rd.p + RD_LBA);
		r->count = xcm_get_be32(rd.p + RD_COUNT);
		/* SBC-4 5.8.3: past the end of the LU (or wrapping): LBA OUT OF RANGE */
		if (r->lba > num_blocks || r->count > num_blocks - r->lba) {
			xcm_err_set(err, XCM_E_LBA_OUT_OF_RANGE);
			err->info_valid = true;
			err->info = r->lba;
			return false;
		}
		out->nranges = i + 1;
		if (overlaps_earlier(out, i)) {
			xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, off, -1);
			return false;
		}
		out->total_blocks += r->count;
	}
	return true;
}

enum xcm_status
xcm_tok_list_parse(uint8_t sa, uint32_t plen, struct xcm_span data,
		   const struct xcm_tok_limits *lim, uint64_t num_blocks, uint32_t block_len,
		   struct xcm_tok_list *out, struct xcm_err *err)
{
	uint32_t hdr = hdr_len(sa), len_off = hdr - 2, dlen, rlen;
	struct xcm_span d;

	memset(out, 0, sizeof(*out));
	/* the whole list must have arrived, and DATA LENGTH must fit in it */
	if (!xcm_span_sub(data, 0, plen, &d) || plen < hdr ||
	    (dlen = (uint32_t)xcm_get_be16(d.p + TL_DATA_LEN) + 2) > plen || dlen < hdr) {
		xcm_err_set(err, XCM_E_PARAM_LIST_LEN);
		return err->status;
	}
	d.len = dlen;
	out->immed = (d.p[TL_FLAGS] & TL_FLAG_IMMED) != 0;
	if ((d.p[TL_FLAGS] & TL_FLAGS_RESERVED) != 0) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, TL_FLAGS, 7);
		return err->status;
	}
	/* IMMED=1 (return before the copy ends) is not implemented; Windows sends 0 */
	if (out->immed) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, TL_FLAGS, 0);
		return err->status;
	}
	if (sa == XCM_SA_POPULATE_TOKEN ? !parse_pt_fixed(d, lim, out, err)
					: !parse_wut_fixed(d, out, err)) {
		return err->status;
	}
	rlen = xcm_get_be16(d.p + len_off);
	if (rlen == 0 || rlen % XCM_RANGE_DESC_LEN != 0 || rlen > dlen - hdr) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, len_off, -1);
		return err->status;
	}
	if (rlen / XCM_RANGE_DESC_LEN > lim->max_ranges ||
	    rlen / XCM_RANGE_DESC_LEN > XCM_MAX_RANGES) {
		xcm_err_set(err, XCM_E_TOO_MANY_SEG);
		return err->status;
	}
	if (!parse_ranges(d, hdr, rlen, num_blocks, out, err)) {
		return err->status;
	}
	if (sa == XCM_SA_POPULATE_TOKEN &&
	    (block_len == 0 || out->total_blocks > lim->max_token_bytes / block_len)) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, len_off, -1);
		return err->status;
	}
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

size_t
xcm_tok_list_encode(uint8_t sa, const struct xcm_tok_list *l, struct xcm_wbuf *w)
{
	size_t start = w->len;
	uint32_t hdr = hdr_len(sa), i;
	uint8_t flags = l->immed ? TL_FLAG_IMMED : 0;

	xcm_wbuf_put16(w, (uint16_t)(hdr + l->nranges * XCM_RANGE_DESC_LEN - 2));
	if (sa == XCM_SA_POPULATE_TOKEN) {
		xcm_wbuf_put8(w, (uint8_t)(flags | (l->rtv ? TL_FLAG_RTV : 0)));
		xcm_wbuf_put8(w, 0);
		xcm_wbuf_put32(w, l->inactivity_s);
		xcm_wbuf_put32(w, l->rtv ? l->rod_type : 0);
		xcm_wbuf_put16(w, 0);
	} else {
		xcm_wbuf_put8(w, (uint8_t)(flags | (l->del_tkn ? TL_FLAG_DEL_TKN : 0)));
		xcm_wbuf_put(w, NULL, WUT_OFFSET - WUT_RESERVED3);
		xcm_wbuf_put64(w, l->offset);
		xcm_wbuf_put(w, l->token, XCM_ROD_TOKEN_LEN);
		xcm_wbuf_put(w, NULL, WUT_RANGE_LEN - WUT_RESERVED528);
	}
	xcm_wbuf_put16(w, (uint16_t)(l->nranges * XCM_RANGE_DESC_LEN));
	for (i = 0; i < l->nranges; i++) {
		xcm_wbuf_put64(w, l->range[i].lba);
		xcm_wbuf_put32(w, l->range[i].count);
		xcm_wbuf_put32(w, 0);
	}
	return w->len - start;
}

enum xcm_status
xcm_tok_in_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_tok_in_req *req,
		     struct xcm_err *err)
{
	memset(req, 0, sizeof(*req));
	if (xcm_tpc_cdb_head(cdb, cdb_len, XCM_OP_RCR, &req->sa, err) != XCM_OK) {
		return err->status;
	}
	if ((req->sa != XCM_SA_RRTI && req->sa != XCM_SA_RART) ||
	    (cdb[XCM_CDB_SA] & ~XCM_CDB_SA_MASK) != 0) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_SA, XCM_CDB_SA_MSB);
		return err->status;
	}
	if (!zero_bytes(cdb, req->sa == XCM_SA_RRTI ? TI_RRTI_RESERVED : TI_RART_RESERVED,
			TI_RESERVED_END, true, err) ||
	    !zero_bytes(cdb, TI_BYTE14, TI_BYTE14 + 1, true, err)) {
		return err->status;
	}
	if (req->sa == XCM_SA_RRTI) {
		req->list_id = xcm_get_be32(cdb + TC_RESERVED);
	}
	req->alloc_len = xcm_get_be32(cdb + XCM_CDB_LEN32);
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

static void
cdb_tok_out(uint8_t *cdb, uint8_t sa, uint32_t list_id, uint32_t plen)
{
	memset(cdb, 0, XCM_CDB16_LEN);
	cdb[XCM_CDB_OPCODE] = XCM_OP_XCOPY;
	cdb[XCM_CDB_SA] = sa;
	xcm_put_be32(cdb + TC_LIST_ID, list_id);
	xcm_put_be32(cdb + XCM_CDB_LEN32, plen);
}

void
xcm_cdb_populate_token(uint8_t *cdb, uint32_t list_id, uint32_t plen)
{
	cdb_tok_out(cdb, XCM_SA_POPULATE_TOKEN, list_id, plen);
}

void
xcm_cdb_write_using_token(uint8_t *cdb, uint32_t list_id, uint32_t plen)
{
	cdb_tok_out(cdb, XCM_SA_WRITE_USING_TOKEN, list_id, plen);
}

void
xcm_cdb_rrti(uint8_t *cdb, uint32_t list_id, uint32_t alloc_len)
{
	/* the RECEIVE COPY STATUS (LID4) frame: LIST IDENTIFIER at byte 2 */
	xcm_cdb_tpc16(cdb, XCM_OP_RCR, XCM_SA_RRTI, list_id, alloc_len);
}
