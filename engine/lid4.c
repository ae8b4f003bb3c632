/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LID4 third-party copy commands: the THIRD-PARTY COPY OUT CDB check (EXTENDED
 * COPY LID1/LID4, COPY OPERATION ABORT), RECEIVE COPY STATUS (LID4): CDB check,
 * response encoder and decoder, and the CDB builders of the initiator side.
 * Layouts: SPC-4 6.3 (COPY OPERATION ABORT), 6.4 (EXTENDED COPY LID4), 6.19
 * (RECEIVE COPY STATUS LID4); SPC-4 layouts.
 */
#include <errno.h>
#include <string.h>

#include "param_layout.h"
#include "xcm/lid4.h"
#include "xcm/token.h"

/* COPY OPERATION ABORT and RECEIVE COPY STATUS (LID4): LIST IDENTIFIER, bytes 2-5 */
enum {
	CDB_LIST_ID4 = 2,
	CDB_LIST_ID4_END = 6,
	CDB_RESERVED4_END = 10,        /* RCS(LID4): bytes 6-9 reserved */
	CDB_ABORT_RESERVED_END = 15,   /* COPY OPERATION ABORT: bytes 6-14 reserved */
};

/* RECEIVE COPY STATUS (LID4) response header (SPC-4) */
enum {
	RCS4_SA = 4,                   /* 4:0 RESPONSE TO SERVICE ACTION */
	RCS4_STATUS = 5,               /* 6:0 COPY OPERATION STATUS */
	RCS4_OP_COUNTER = 6,           /* 2 bytes */
	RCS4_EST_DELAY = 8,            /* 4 bytes */
	RCS4_CMD_STATUS = 12,
	RCS4_SENSE_FIELD_LEN = 13,
	RCS4_SENSE_LEN = 14,
	RCS4_UNITS = 15,
	RCS4_COUNT = 16,               /* 8 bytes */
	RCS4_SEGS = 24,                /* 2 bytes */
	RCS4_SENSE = 32,
};
_Static_assert((int)RCS4_SENSE == (int)XCM_RCS4_HDR_LEN, "RCS(LID4) header is 32 bytes");

/* Reserved bytes [from, to) must be zero: INVALID FIELD IN CDB at the first set one. */
static bool
reserved_clear(const uint8_t *cdb, uint32_t from, uint32_t to, struct xcm_err *err)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		if (cdb[i] != 0) {
			xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, i, -1);
			return false;
		}
	}
	return true;
}

enum xcm_status
xcm_tpc_out_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_tpc_out_req *req,
		      struct xcm_err *err)
{
	memset(req, 0, sizeof(*req));
	if (xcm_tpc_cdb_head(cdb, cdb_len, XCM_OP_XCOPY, &req->sa, err) != XCM_OK) {
		return err->status;
	}
	switch (req->sa) {
	case XCM_SA_XCOPY_LID1:
	case XCM_SA_XCOPY_LID4:
		/* SPC-4: PARAMETER LIST LENGTH, bytes 10-13 (0 is not an error) */
		req->plen = xcm_get_be32(cdb + XCM_CDB_LEN32);
		break;
	case XCM_SA_COPY_OP_ABORT:
		req->list_id = xcm_get_be32(cdb + CDB_LIST_ID4);
		if (!reserved_clear(cdb, CDB_LIST_ID4_END, CDB_ABORT_RESERVED_END, err)) {
			return err->status;
		}
		break;
	case 0x10:
	case 0x11:
		/* POPULATE TOKEN, WRITE USING TOKEN: their own CDB check (xcm/token.h) */
		{
			struct xcm_tok_out_req t;

			if (xcm_tok_out_cdb_check(cdb, cdb_len, &xcm_tok_limits_default, &t, err) !=
			    XCM_OK) {
				return err->status;
			}
			req->plen = t.plen;
			req->list_id = t.list_id;
		}
		break;
	default:
		/* other service actions: not supported */
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_SA, XCM_CDB_SA_MSB);
		return err->status;
	}
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

enum xcm_status
xcm_rcs4_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_rcs4_req *req,
		   struct xcm_err *err)
{
	uint8_t sa;

	memset(req, 0, sizeof(*req));
	if (xcm_tpc_cdb_head(cdb, cdb_len, XCM_OP_RCR, &sa, err) != XCM_OK) {
		return err->status;
	}
	if (sa != XCM_SA_RCS_LID4) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_SA, XCM_CDB_SA_MSB);
		return err->status;
	}
	if (!reserved_clear(cdb, CDB_LIST_ID4_END, CDB_RESERVED4_END, err)) {
		return err->status;
	}
	req->list_id = xcm_get_be32(cdb + CDB_LIST_ID4);
	req->alloc_len = xcm_get_be32(cdb + XCM_CDB_LEN32);
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

void
xcm_rcs4_encode(const struct xcm_rcs4 *st, struct xcm_wbuf *w)
{
	uint8_t h[XCM_RCS4_HDR_LEN];
	uint8_t slen = st->sense_len < XCM_SENSE_MAX ? st->sense_len : XCM_SENSE_MAX;

	memset(h, 0, sizeof(h));
	/* AVAILABLE DATA: everything after the 4-byte field itself */
	xcm_put_be32(h, (uint32_t)(XCM_RCS4_HDR_LEN - 4 + slen));
	h[RCS4_SA] = st->sa & XCM_CDB_SA_MASK;
	h[RCS4_STATUS] = st->op_status & 0x7F;
	xcm_put_be16(h + RCS4_OP_COUNTER, st->op_counter);
	xcm_put_be32(h + RCS4_EST_DELAY, st->est_delay_ms);
	h[RCS4_CMD_STATUS] = st->cmd_status;
	/* the sense data field is exactly as long as the sense it holds */
	h[RCS4_SENSE_FIELD_LEN] = slen;
	h[RCS4_SENSE_LEN] = slen;
	h[RCS4_UNITS] = XCM_TC_UNITS_BYTES;
	xcm_put_be64(h + RCS4_COUNT, st->bytes);
	xcm_put_be16(h + RCS4_SEGS, st->segs);
	xcm_wbuf_put(w, h, sizeof(h));
	xcm_wbuf_put(w, st->sense, slen);
}

int
xcm_rcs4_decode(struct xcm_span s, struct xcm_rcs4 *out)
{
	uint32_t avail;
	uint8_t field, slen;

	memset(out, 0, sizeof(*out));
	if (s.p == NULL || s.len < XCM_RCS4_HDR_LEN) {
		return -EINVAL;
	}
	avail = xcm_get_be32(s.p);
	field = s.p[RCS4_SENSE_FIELD_LEN];
	slen = s.p[RCS4_SENSE_LEN];
	if (avail < XCM_RCS4_HDR_LEN - 4 || slen > field || s.p[RCS4_UNITS] != XCM_TC_UNITS_BYTES ||
	    (uint64_t)avail + 4 < (uint64_t)XCM_RCS4_HDR_LEN + field) {
		return -EINVAL;
	}
	out->sa = s.p[RCS4_SA] & XCM_CDB_SA_MASK;
	out->op_status = s.p[RCS4_STATUS] & 0x7F;
	out->op_counter = xcm_get_be16(s.p + RCS4_OP_COUNTER);
	out->est_delay_ms = xcm_get_be32(s.p + RCS4_EST_DELAY);
	out->cmd_status = s.p[RCS4_CMD_STATUS];
	out->bytes = xcm_get_be64(s.p + RCS4_COUNT);
	out->segs = xcm_get_be16(s.p + RCS4_SEGS);
	/* keep what was both received and fits */
	if (slen > XCM_SENSE_MAX) {
		slen = XCM_SENSE_MAX;
	}
	if ((size_t)XCM_RCS4_HDR_LEN + slen > s.len) {
		slen = (uint8_t)(s.len - XCM_RCS4_HDR_LEN);
	}
	out->sense_len = slen;
	memcpy(out->sense, s.p + RCS4_SENSE, slen);
	return 0;
}

void
xcm_cdb_tpc16(uint8_t *cdb, uint8_t opcode, uint8_t sa, uint32_t id, uint32_t len)
{
	memset(cdb, 0, XCM_CDB16_LEN);
	cdb[XCM_CDB_OPCODE] = opcode;
	cdb[XCM_CDB_SA] = sa;
	xcm_put_be32(cdb + CDB_LIST_ID4, id);
	xcm_put_be32(cdb + XCM_CDB_LEN32, len);
}

void
xcm_cdb_xcopy_lid4(uint8_t *cdb, uint32_t plen)
{
	xcm_cdb_tpc16(cdb, XCM_OP_XCOPY, XCM_SA_XCOPY_LID4, 0, plen);
}

void
xcm_cdb_copy_op_abort(uint8_t *cdb, uint32_t list_id)
{
	xcm_cdb_tpc16(cdb, XCM_OP_XCOPY, XCM_SA_COPY_OP_ABORT, list_id, 0);
}

void
xcm_cdb_rcs4(uint8_t *cdb, uint32_t list_id, uint32_t alloc_len)
{
	xcm_cdb_tpc16(cdb, XCM_OP_RCR, XCM_SA_RCS_LID4, list_id, alloc_len);
}
