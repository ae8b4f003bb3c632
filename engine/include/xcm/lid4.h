/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcm LID4: EXTENDED COPY (LID4) parameter lists (83h/01h), COPY OPERATION
 * ABORT (83h/1Ch), RECEIVE COPY STATUS (LID4) (84h/05h): CDB checks and
 * builders, the status response codec, and a held-status store keyed by the
 * 4-byte LIST IDENTIFIER. Same conventions as xcm/xcm.h.
 */
#ifndef XCM_LID4_H
#define XCM_LID4_H

#include "xcm/exec.h"
#include "xcm/xcm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	XCM_SA_COPY_OP_ABORT = 0x1C,   /* THIRD-PARTY COPY OUT service action */
	XCM_SA_RCS_LID4 = 0x05,        /* THIRD-PARTY COPY IN: RECEIVE COPY STATUS (LID4) */
	/* RECEIVE COPY STATUS (LID4) COPY OPERATION STATUS (SPC-4 6.19.3) */
	XCM_RCS4_DONE = 0x01,          /* completed without errors */
	XCM_RCS4_DONE_ERRORS = 0x02,   /* completed with errors */
	XCM_RCS4_IN_PROGRESS = 0x11,   /* in progress, foreground (the command is waiting) */
	XCM_RCS4_TERMINATED = 0x60,    /* terminated (COPY OPERATION ABORT) */
	XCM_RCS4_HDR_LEN = 32,
};

/* THIRD-PARTY COPY OUT (83h) CDB: EXTENDED COPY LID1/LID4 or COPY OPERATION ABORT. */
struct xcm_tpc_out_req {
	uint8_t sa;
	uint32_t plen;         /* EXTENDED COPY: PARAMETER LIST LENGTH */
	uint32_t list_id;      /* COPY OPERATION ABORT: LIST IDENTIFIER */
};

/*
 * Validate a 16-byte 83h CDB for SA 00h, 01h or 1Ch. Other service actions:
 * INVALID FIELD IN CDB pointing at byte 1 bit 4.
 */
enum xcm_status xcm_tpc_out_cdb_check(const uint8_t *cdb, size_t cdb_len,
				      struct xcm_tpc_out_req *req, struct xcm_err *err);

/* Decode and validate a LID4 parameter list (as xcm_list_parse; out->lid4 = true). */
enum xcm_status xcm_list_parse_lid4(uint32_t plen, struct xcm_span data,
				    const struct xcm_limits *lim, struct xcm_list *out,
				    struct xcm_err *err);
/* Encode l as a LID4 list (LIST IDENTIFIER l->list_id4); returns the full length. */
size_t xcm_list_encode_lid4(const struct xcm_list *l, struct xcm_wbuf *w);

struct xcm_rcs4_req {
	uint32_t list_id;
	uint32_t alloc_len;
};

/* Validate a RECEIVE COPY STATUS (LID4) CDB (84h SA 05h, 16 bytes). */
enum xcm_status xcm_rcs4_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_rcs4_req *req,
				   struct xcm_err *err);

/* RECEIVE COPY STATUS (LID4) response (SPC-4 6.19.3). */
struct xcm_rcs4 {
	uint8_t sa;              /* RESPONSE TO SERVICE ACTION (01h: EXTENDED COPY LID4) */
	uint8_t op_status;       /* XCM_RCS4_* */
	uint16_t op_counter;
	uint32_t est_delay_ms;   /* FFFFFFFEh once completed, FFFFFFFFh: cannot estimate */
	uint8_t cmd_status;      /* SCSI status the EXTENDED COPY completed with */
	uint8_t sense_len;       /* valid bytes of sense[] */
	uint64_t bytes;          /* TRANSFER COUNT, in bytes (units 00h) */
	uint16_t segs;           /* SEGMENTS PROCESSED */
	uint8_t sense[XCM_SENSE_MAX];
};

void xcm_rcs4_encode(const struct xcm_rcs4 *st, struct xcm_wbuf *w);
/* Initiator side: 0, or -EINVAL when too short / inconsistent (units other than bytes too). */
int xcm_rcs4_decode(struct xcm_span s, struct xcm_rcs4 *out);

/*
 * The 16-byte 83h/84h CDB frame shared by SPC-4 EXTENDED COPY (LID4), COPY
 * OPERATION ABORT, RECEIVE COPY STATUS (LID4) and RECEIVE ROD TOKEN
 * INFORMATION: OPERATION CODE, SERVICE ACTION, bytes 2-5 LIST IDENTIFIER,
 * bytes 10-13 PARAMETER LIST / ALLOCATION LENGTH; every other byte 0.
 */
void xcm_cdb_tpc16(uint8_t *cdb, uint8_t opcode, uint8_t sa, uint32_t id, uint32_t len);
void xcm_cdb_xcopy_lid4(uint8_t *cdb, uint32_t plen);
void xcm_cdb_copy_op_abort(uint8_t *cdb, uint32_t list_id);
void xcm_cdb_rcs4(uint8_t *cdb, uint32_t list_id, uint32_t alloc_len);

/*
 * Held status of LID4 lists run with LIST ID USAGE 00b or 10b, per LU
 * (XCM_STORE4_MAX records; when full, the oldest completed one goes). Not
 * thread-safe: the caller serialises.
 */
#define XCM_STORE4_MAX 256
struct xcm_store4;

struct xcm_store4 *xcm_store4_create(void);
void xcm_store4_destroy(struct xcm_store4 *s);
/* Before executing LID4 list l: an identifier still in use -> XCM_E_OP_IN_PROGRESS. */
enum xcm_status xcm_store4_begin(struct xcm_store4 *s, const struct xcm_list *l,
				 struct xcm_err *err);
/* After: record the outcome; terminated: stopped by COPY OPERATION ABORT. */
void xcm_store4_finish(struct xcm_store4 *s, const struct xcm_list *l, enum xcm_status st,
		       const struct xcm_exec_result *res, bool terminated, const uint8_t *sense,
		       size_t sense_len);
/* The status of list id (in progress while between begin and finish); false: unknown. */
bool xcm_store4_get(const struct xcm_store4 *s, uint32_t id, struct xcm_rcs4 *out);

#ifdef __cplusplus
}
#endif

#endif /* XCM_LID4_H */
