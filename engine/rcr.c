/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RECEIVE COPY RESULTS (LID1): CDB check, response encoders (copy manager)
 * and response decoders (initiator).
 *
 * Encoders write the full response through struct xcm_wbuf, which keeps the
 * first w->cap bytes (the ALLOCATION LENGTH) and counts the rest, so a short
 * allocation length is never an error: the initiator gets a prefix and can
 * read AVAILABLE DATA to ask again. OPERATING PARAMETERS reports exactly the
 * struct xcm_limits the parameter-list parser enforces.
 * Layouts: SPC-4 RECEIVE COPY RESULTS (THIRD-PARTY COPY IN, 84h) CDB and its
 * COPY STATUS, RECEIVE DATA, OPERATING PARAMETERS and FAILED SEGMENT DETAILS
 * parameter data; TRANSFER COUNT UNITS.
 */
#include <errno.h>
#include <string.h>

#include "param_layout.h"
#include "xcm/xcm.h"

/* OPERATING PARAMETERS response (SPC-4) */
enum {
	OPP_SNLID = 4,             /* bit 0 */
	OPP_MAX_CSCD = 8,          /* 2 bytes */
	OPP_MAX_SEG = 10,          /* 2 bytes */
	OPP_MAX_DESC_LIST = 12,    /* 4 bytes */
	OPP_MAX_SEG_LEN = 16,      /* 4 bytes */
	OPP_MAX_INLINE = 20,       /* 4 bytes */
	OPP_HELD_LIMIT = 24,       /* 4 bytes */
	OPP_MAX_STREAM = 28,       /* 4 bytes */
	OPP_TOTAL_CONC = 34,       /* 2 bytes */
	OPP_MAX_CONC = 36,
	OPP_DATA_GRAN = 37,
	OPP_INLINE_GRAN = 38,
	OPP_HELD_GRAN = 39,
	OPP_N_IMPL = 43,
	OPP_IMPL = 44,             /* first implemented descriptor type code */
};

/* COPY STATUS (LID1) response, 12 bytes (SPC-4) */
enum {
	CST_STATUS = 4,            /* 7 HDD, 6:0 COPY MANAGER STATUS */
	CST_SEGS = 5,              /* 2 bytes */
	CST_UNITS = 7,
	CST_COUNT = 8,             /* 4 bytes */
	CST_LEN = 12,
	CST_HDD = 0x80,
	CST_STATUS_MASK = 0x7F,
};

/* FAILED SEGMENT DETAILS (LID1) response (SPC-4) */
enum {
	FSD_STATUS = 56,
	FSD_SENSE_LEN = 58,        /* 2 bytes */
	FSD_SENSE = 60,
};

/* Every response starts with a 4-byte AVAILABLE DATA = total length - 4. */
enum {
	RCR_AVAIL_LEN = 4,
};

enum xcm_status
xcm_rcr_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_rcr_req *req,
		  struct xcm_err *err)
{
	const uint8_t *sas;
	size_t nsas;
	size_t i;
	uint8_t sa;
	bool supported = false;

	/* SPC-4: RECEIVE COPY RESULTS is 84h (THIRD-PARTY COPY IN), a 16-byte CDB */
	if (xcm_tpc_cdb_head(cdb, cdb_len, XCM_OP_RCR, &sa, err) != XCM_OK) {
		return err->status;
	}
	/* only the service actions we claim (limits.c); others: INVALID FIELD IN CDB */
	sas = xcm_supported_rcr_sas(&nsas);
	for (i = 0; i < nsas; i++) {
		if (sas[i] == sa) {
			supported = true;
		}
	}
	/*
	 * RECEIVE COPY STATUS (LID4), RRTI and REPORT ALL ROD TOKENS have other
	 * CDB layouts: xcm_rcs4_cdb_check (xcm/lid4.h), xcm_tok_in_cdb_check (xcm/token.h)
	 */
	if (sa == 0x05 || sa == 0x07 || sa == 0x08) {
		supported = false;
	}
	if (!supported) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_SA,
				  XCM_CDB_SA_MSB);
		return err->status;
	}
	req->sa = sa;
	/*
	 * SPC-4: for OPERATING PARAMETERS, CDB byte 2 is reserved. sg3_utils
	 * and libiscsi put a list id there, so any value is accepted and ignored.
	 */
	req->list_id = sa == XCM_SA_RCR_OP_PARAMS ? 0 : cdb[XCM_CDB_LIST_ID];
	/* SPC-4: ALLOCATION LENGTH, bytes 10-13 (0: nothing is transferred) */
	req->alloc_len = xcm_get_be32(cdb + XCM_CDB_LEN32);
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

void
xcm_copy_status_set_bytes(struct xcm_copy_status *st, uint64_t bytes)
{
	uint8_t units = XCM_TC_UNITS_BYTES;

	/*
	 * SPC-4 TRANSFER COUNT UNITS: 00h bytes, 01h KiB, ... each 2^10 larger. The count
	 * is rounded down (bytes actually transferred, never more). TiB always
	 * fits: 2^64 >> 40 = 2^24.
	 */
	while (units < XCM_TC_UNITS_TIB && (bytes >> (10u * units)) > UINT32_MAX) {
		units++;
	}
	st->units = units;
	st->transfer_count = (uint32_t)(bytes >> (10u * units));
}

void
xcm_rcr_encode_op_params(const struct xcm_limits *lim, struct xcm_wbuf *w)
{
	const uint8_t *codes;
	size_t ncodes;

	codes = xcm_supported_desc_codes(&ncodes);
	/* SPC-4 OPERATING PARAMETERS: AVAILABLE DATA = 44 + n - 4 */
	xcm_wbuf_put32(w, (uint32_t)(OPP_IMPL + ncodes - RCR_AVAIL_LEN));
	xcm_wbuf_put8(w, lim->snlid ? 0x01 : 0x00);          /* 4: SNLID */
	xcm_wbuf_put(w, NULL, 3);                             /* 5-7 reserved */
	xcm_wbuf_put16(w, lim->max_cscd);                     /* 8-9 */
	xcm_wbuf_put16(w, lim->max_seg);                      /* 10-11 */
	xcm_wbuf_put32(w, lim->max_desc_list_len);            /* 12-15 */
	xcm_wbuf_put32(w, lim->max_seg_len);                  /* 16-19 */
	xcm_wbuf_put32(w, lim->max_inline_len);               /* 20-23 */
	xcm_wbuf_put32(w, lim->held_data_limit);              /* 24-27 */
	xcm_wbuf_put32(w, 0);                                 /* 28-31: no stream devices */
	xcm_wbuf_put(w, NULL, 2);                             /* 32-33 reserved */
	xcm_wbuf_put16(w, lim->total_concurrent);             /* 34-35 */
	xcm_wbuf_put8(w, lim->max_concurrent);                /* 36 */
	xcm_wbuf_put8(w, lim->data_seg_gran);                 /* 37 */
	xcm_wbuf_put8(w, lim->inline_gran);                   /* 38 */
	xcm_wbuf_put8(w, lim->held_gran);                     /* 39 */
	xcm_wbuf_put(w, NULL, 3);                             /* 40-42 reserved */
	xcm_wbuf_put8(w, (uint8_t)ncodes);                    /* 43 */
	xcm_wbuf_put(w, codes, ncodes);                       /* 44.. ascending */
}

void
xcm_rcr_encode_copy_status(const struct xcm_copy_status *st, struct xcm_wbuf *w)
{
	uint8_t b4 = st->cm_status & CST_STATUS_MASK;

	if (st->hdd) {
		b4 |= CST_HDD;
	}
	/* SPC-4 COPY STATUS (LID1): 12 bytes, AVAILABLE DATA 8 */
	xcm_wbuf_put32(w, CST_LEN - RCR_AVAIL_LEN);
	xcm_wbuf_put8(w, b4);                                 /* 4: HDD, status */
	xcm_wbuf_put16(w, st->segs_processed);                /* 5-6 */
	xcm_wbuf_put8(w, st->units);                          /* 7 */
	xcm_wbuf_put32(w, st->transfer_count);                /* 8-11 */
}

void
xcm_rcr_encode_failed_segment(uint8_t scsi_status, const uint8_t *sense, size_t sense_len,
			      struct xcm_wbuf *w)
{
	/* FAILED SEGMENT DETAILS: nothing to report -> AVAILABLE DATA 0, 4 bytes in all (as CTL) */
	if (sense == NULL || sense_len == 0) {
		xcm_wbuf_put32(w, 0);
		return;
	}
	/* SENSE DATA LENGTH is a 2-byte field */
	if (sense_len > UINT16_MAX) {
		sense_len = UINT16_MAX;
	}
	xcm_wbuf_put32(w, (uint32_t)(FSD_SENSE + sense_len - RCR_AVAIL_LEN));
	xcm_wbuf_put(w, NULL, FSD_STATUS - RCR_AVAIL_LEN); /* 4-55 reserved */
	xcm_wbuf_put8(w, scsi_status);                        /* 56 */
	xcm_wbuf_put8(w, 0);                                  /* 57 reserved */
	xcm_wbuf_put16(w, (uint16_t)sense_len);               /* 58-59 */
	xcm_wbuf_put(w, sense, sense_len);                    /* 60.. */
}

void
xcm_rcr_encode_receive_data(const uint8_t *held, size_t len, struct xcm_wbuf *w)
{
	/* RECEIVE DATA (LID1): AVAILABLE DATA (4 bytes), then the held data */
	if (held == NULL) {
		len = 0;
	}
	if (len > UINT32_MAX) {
		len = UINT32_MAX;
	}
	xcm_wbuf_put32(w, (uint32_t)len);
	xcm_wbuf_put(w, held, len);
}

int
xcm_rcr_decode_op_params(struct xcm_span s, struct xcm_op_params *out)
{
	struct xcm_span hdr;
	uint64_t total;
	size_t present;
	const uint8_t *p;

	/* OPERATING PARAMETERS: the fixed part is 44 bytes; AVAILABLE DATA must cover it */
	if (!xcm_span_sub(s, 0, OPP_IMPL, &hdr)) {
		return -EINVAL;
	}
	p = hdr.p;
	total = (uint64_t)xcm_get_be32(p) + RCR_AVAIL_LEN;
	if (total < OPP_IMPL) {
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->snlid = (p[OPP_SNLID] & 0x01) != 0;
	out->max_cscd = xcm_get_be16(p + OPP_MAX_CSCD);
	out->max_seg = xcm_get_be16(p + OPP_MAX_SEG);
	out->max_desc_list_len = xcm_get_be32(p + OPP_MAX_DESC_LIST);
	out->max_seg_len = xcm_get_be32(p + OPP_MAX_SEG_LEN);
	out->max_inline_len = xcm_get_be32(p + OPP_MAX_INLINE);
	out->held_data_limit = xcm_get_be32(p + OPP_HELD_LIMIT);
	out->max_stream_xfer = xcm_get_be32(p + OPP_MAX_STREAM);
	out->total_concurrent = xcm_get_be16(p + OPP_TOTAL_CONC);
	out->max_concurrent = p[OPP_MAX_CONC];
	out->data_seg_gran = p[OPP_DATA_GRAN];
	out->inline_gran = p[OPP_INLINE_GRAN];
	out->held_gran = p[OPP_HELD_GRAN];
	/*
	 * The code list may be cut by the allocation length or by a short
	 * AVAILABLE DATA: keep only the codes that are both present and declared.
	 */
	present = s.len;
	if (total < present) {
		present = (size_t)total;
	}
	present -= OPP_IMPL;
	out->n_impl = p[OPP_N_IMPL];
	if (out->n_impl > present) {
		out->n_impl = (uint8_t)present;
	}
	memcpy(out->impl, s.p + OPP_IMPL, out->n_impl);
	return 0;
}

int
xcm_rcr_decode_copy_status(struct xcm_span s, struct xcm_copy_status *out)
{
	struct xcm_span d;

	/* SPC-4 COPY STATUS (LID1): 12 bytes, AVAILABLE DATA at least 8 */
	if (!xcm_span_sub(s, 0, CST_LEN, &d)) {
		return -EINVAL;
	}
	if (xcm_get_be32(d.p) < CST_LEN - RCR_AVAIL_LEN) {
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->hdd = (d.p[CST_STATUS] & CST_HDD) != 0;
	out->cm_status = d.p[CST_STATUS] & CST_STATUS_MASK;
	out->segs_processed = xcm_get_be16(d.p + CST_SEGS);
	out->units = d.p[CST_UNITS];
	out->transfer_count = xcm_get_be32(d.p + CST_COUNT);
	return 0;
}
