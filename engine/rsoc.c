/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * REPORT SUPPORTED OPERATION CODES (SPC-4 6.35): CDB check and encoder over
 * a caller-supplied list of commands. Truncation to the allocation length
 * comes from struct xcm_wbuf (SPC-4 4.2.5.6: a short allocation length is
 * never an error; COMMAND DATA LENGTH / CDB SIZE still tell the full size).
 */
#include <errno.h>
#include <string.h>

#include "xcm/rsoc.h"

/* CDB (SPC-4 table 282) */
enum {
	RSOC_CDB_OPCODE = 0,
	RSOC_CDB_SA = 1,               /* bits 4:0 */
	RSOC_CDB_OPTS = 2,             /* RCTD bit 7, REPORTING OPTIONS bits 2:0 */
	RSOC_CDB_REQ_OPCODE = 3,
	RSOC_CDB_REQ_SA = 4,           /* 2 bytes */
	RSOC_CDB_ALLOC_LEN = 6,        /* 4 bytes */
	RSOC_RCTD = 0x80,
	RSOC_OPTS_MASK = 0x07,
	RSOC_OPTS_MSB = 2,
	RSOC_SA_MASK = 0x1F,
};

/* all_commands descriptor byte 5 (SPC-4 table 284) and one_command byte 1 (table 285) */
enum {
	RSOC_DESC_SERVACTV = 0x01,
	RSOC_DESC_CTDP = 0x02,
	RSOC_ONE_CTDP = 0x80,
	RSOC_TIMEOUTS_DESC_LEN = 0x000A,   /* DESCRIPTOR LENGTH of the timeouts descriptor */
};

_Static_assert(XCM_RSOC_TIMEOUTS_LEN == RSOC_TIMEOUTS_DESC_LEN + 2, "timeouts descriptor");

void
xcm_cdb_rsoc(uint8_t *cdb, bool rctd, uint8_t options, uint8_t opcode, uint16_t sa,
	     uint32_t alloc_len)
{
	memset(cdb, 0, XCM_RSOC_CDB_LEN);
	cdb[RSOC_CDB_OPCODE] = XCM_OP_MAINTENANCE_IN;
	cdb[RSOC_CDB_SA] = XCM_SA_REPORT_SUPPORTED_OPCODES;
	cdb[RSOC_CDB_OPTS] = (uint8_t)((rctd ? RSOC_RCTD : 0) | (options & RSOC_OPTS_MASK));
	cdb[RSOC_CDB_REQ_OPCODE] = opcode;
	xcm_put_be16(cdb + RSOC_CDB_REQ_SA, sa);
	xcm_put_be32(cdb + RSOC_CDB_ALLOC_LEN, alloc_len);
}

enum xcm_status
xcm_rsoc_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_rsoc_req *req,
		   struct xcm_err *err)
{
	uint8_t opts;

	if (cdb == NULL || cdb_len < XCM_RSOC_CDB_LEN) {
		xcm_err_set(err, XCM_E_INVALID_FIELD_CDB);
		return err->status;
	}
	if (cdb[RSOC_CDB_OPCODE] != XCM_OP_MAINTENANCE_IN ||
	    (cdb[RSOC_CDB_SA] & RSOC_SA_MASK) != XCM_SA_REPORT_SUPPORTED_OPCODES) {
		xcm_err_set(err, XCM_E_INVALID_OPCODE);
		return err->status;
	}
	/* SPC-4 table 283: REPORTING OPTIONS 100b-111b are reserved */
	opts = cdb[RSOC_CDB_OPTS] & RSOC_OPTS_MASK;
	if (opts > XCM_RSOC_OPCODE_ANY) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, RSOC_CDB_OPTS, RSOC_OPTS_MSB);
		return err->status;
	}
	req->rctd = (cdb[RSOC_CDB_OPTS] & RSOC_RCTD) != 0;
	req->options = opts;
	req->opcode = cdb[RSOC_CDB_REQ_OPCODE];
	req->sa = xcm_get_be16(cdb + RSOC_CDB_REQ_SA);
	req->alloc_len = xcm_get_be32(cdb + RSOC_CDB_ALLOC_LEN);
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

int
xcm_opcode_desc_check(const struct xcm_opcode_desc *d)
{
	size_t i;

	if (d->cdb_len == 0 || d->cdb_len > XCM_RSOC_USAGE_MAX || d->usage[0] != d->opcode) {
		return -EINVAL;
	}
	/* SPC-4 6.35.3: the service action sits in the usage data where the CDB has it */
	if (d->sa_valid ? (d->sa > RSOC_SA_MASK || d->cdb_len < 2 ||
			   (d->usage[1] & RSOC_SA_MASK) != d->sa)
			: d->sa != 0) {
		return -EINVAL;
	}
	for (i = d->cdb_len; i < XCM_RSOC_USAGE_MAX; i++) {
		if (d->usage[i] != 0) {
			return -EINVAL;
		}
	}
	return 0;
}

/* SPC-4 table 286: command timeouts descriptor */
static void
put_timeouts(const struct xcm_opcode_desc *d, struct xcm_wbuf *w)
{
	xcm_wbuf_put16(w, RSOC_TIMEOUTS_DESC_LEN);
	xcm_wbuf_put8(w, 0);                      /* reserved */
	xcm_wbuf_put8(w, 0);                      /* COMMAND SPECIFIC */
	xcm_wbuf_put32(w, d->nominal_timeout);    /* NOMINAL COMMAND PROCESSING TIMEOUT */
	xcm_wbuf_put32(w, d->recommended_timeout);/* RECOMMENDED COMMAND TIMEOUT */
}

/* 000b: 4-byte header (COMMAND DATA LENGTH) + one descriptor per command (table 284) */
static void
encode_all(bool rctd, const struct xcm_opcode_desc *const *cmds, size_t n, struct xcm_wbuf *w)
{
	size_t i, start = w->len;

	xcm_wbuf_put32(w, 0);
	for (i = 0; i < n; i++) {
		xcm_wbuf_put8(w, cmds[i]->opcode);
		xcm_wbuf_put8(w, 0);
		xcm_wbuf_put16(w, cmds[i]->sa);
		xcm_wbuf_put8(w, 0);
		xcm_wbuf_put8(w, (uint8_t)((rctd ? RSOC_DESC_CTDP : 0) |
					   (cmds[i]->sa_valid ? RSOC_DESC_SERVACTV : 0)));
		xcm_wbuf_put16(w, cmds[i]->cdb_len);
		if (rctd) {
			put_timeouts(cmds[i], w);
		}
	}
	/* COMMAND DATA LENGTH: the bytes after the header */
	xcm_wbuf_patch32(w, start, (uint32_t)(w->len - start - 4));
}

/* one_command format (table 285); d NULL: SUPPORT 001b, no usage data */
static void
encode_one(bool rctd, const struct xcm_opcode_desc *d, struct xcm_wbuf *w)
{
	if (d == NULL) {
		xcm_wbuf_put8(w, 0);
		xcm_wbuf_put8(w, XCM_RSOC_SUPPORT_NONE);
		xcm_wbuf_put16(w, 0);             /* CDB SIZE */
		return;
	}
	xcm_wbuf_put8(w, 0);
	xcm_wbuf_put8(w, (uint8_t)((rctd ? RSOC_ONE_CTDP : 0) | XCM_RSOC_SUPPORT_STANDARD));
	xcm_wbuf_put16(w, d->cdb_len);
	xcm_wbuf_put(w, d->usage, d->cdb_len);
	if (rctd) {
		put_timeouts(d, w);
	}
}

enum xcm_status
xcm_rsoc_encode(const struct xcm_rsoc_req *req, const struct xcm_opcode_desc *const *cmds,
		size_t n, struct xcm_wbuf *w, struct xcm_err *err)
{
	const struct xcm_opcode_desc *hit = NULL;
	bool has_sa = false, known = false;
	size_t i;

	if (req->options == XCM_RSOC_ALL) {
		encode_all(req->rctd, cmds, n, w);
		xcm_err_set(err, XCM_OK);
		return XCM_OK;
	}
	for (i = 0; i < n; i++) {
		if (cmds[i]->opcode != req->opcode) {
			continue;
		}
		known = true;
		has_sa = cmds[i]->sa_valid;
		if (!cmds[i]->sa_valid || cmds[i]->sa == req->sa) {
			hit = cmds[i];
		}
	}
	switch (req->options) {
	case XCM_RSOC_OPCODE:
		/*
		 * SPC-4 table 283, 001b: an operation code that has service
		 * actions is an error; REQUESTED SERVICE ACTION is ignored.
		 */
		if (known && has_sa) {
			goto bad_option;
		}
		break;
	case XCM_RSOC_OPCODE_SA:
		/* 010b: an operation code without service actions is an error */
		if (known && !has_sa) {
			goto bad_option;
		}
		break;
	default:
		/*
		 * 011b: the service action is matched when the operation code
		 * has them and ignored when it has none.
		 */
		break;
	}
	encode_one(req->rctd, hit, w);
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
bad_option:
	xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, RSOC_CDB_OPTS, RSOC_OPTS_MSB);
	return err->status;
}
