/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Held results of one LU: what RECEIVE COPY RESULTS (LID1) reports about
 * lists that were run with LIST ID USAGE 00b or 10b (SPC-4 LIST ID USAGE;
 * RECEIVE COPY RESULTS).
 *
 * A LID1 list identifier is one byte, so a fixed table of 256 records,
 * indexed by the identifier, holds every list the LU can know about. We
 * never hold data (no "and hold" segments), so RECEIVE DATA is always empty
 * and COPY STATUS sets HDD for lists that asked for data to be held.
 */
#include <stdlib.h>
#include <string.h>

#include "param_layout.h"
#include "xcm/exec.h"

enum rec_state {
	REC_FREE = 0,
	REC_IN_PROGRESS,
	REC_COMPLETED,
};

struct rec {
	enum rec_state state;
	uint8_t usage;             /* XCM_LIST_ID_HOLD or XCM_LIST_ID_DISCARD */
	enum xcm_status status;
	uint32_t segs_processed;
	uint64_t bytes;
	uint8_t scsi_status;       /* of the EXTENDED COPY command */
	uint8_t sense_len;
	uint8_t sense[XCM_SENSE_MAX];
	uint64_t done_ms;          /* store clock when completed */
};

struct xcm_store {
	struct rec rec[256];
	uint64_t (*now_ms)(void *arg);
	void *clock_arg;
};

_Static_assert(XCM_SENSE_MAX <= UINT8_MAX, "sense_len is one byte");

struct xcm_store *
xcm_store_create(void)
{
	return calloc(1, sizeof(struct xcm_store));
}

void
xcm_store_destroy(struct xcm_store *s)
{
	free(s);
}

void
xcm_store_set_clock(struct xcm_store *s, uint64_t (*now_ms)(void *arg), void *arg)
{
	s->now_ms = now_ms;
	s->clock_arg = arg;
}

/*
 * SPC-4 (held data): results are kept for the I_T nexus that ran the list
 * and discarded when that nexus is lost. The caller decides when (the
 * plugin: when a nexus it had not seen can reach the LU, target/cm/held.c);
 * lists still running keep their records (their EXTENDED COPY has not
 * completed to anyone yet).
 */
uint32_t
xcm_store_discard(struct xcm_store *s)
{
	uint32_t i, n = 0;

	for (i = 0; i < 256; i++) {
		if (s->rec[i].state == REC_COMPLETED) {
			memset(&s->rec[i], 0, sizeof(s->rec[i]));
			n++;
		}
	}
	return n;
}

uint32_t
xcm_store_expire(struct xcm_store *s, uint64_t max_age_ms)
{
	uint64_t now;
	uint32_t i, n = 0;

	if (s->now_ms == NULL) {
		return 0;
	}
	now = s->now_ms(s->clock_arg);
	for (i = 0; i < 256; i++) {
		struct rec *r = &s->rec[i];

		/* a clock that went backwards ages nothing */
		if (r->state == REC_COMPLETED && now > r->done_ms && now - r->done_ms > max_age_ms) {
			memset(r, 0, sizeof(*r));
			n++;
		}
	}
	return n;
}

/* SPC-4 LIST ID USAGE: only 00b (hold) and 10b (discard) keep a status to retrieve. */
static bool
usage_recorded(uint8_t usage)
{
	return usage == XCM_LIST_ID_HOLD || usage == XCM_LIST_ID_DISCARD;
}

enum xcm_status
xcm_store_begin(struct xcm_store *s, const struct xcm_list *l, struct xcm_err *err)
{
	struct rec *r;

	xcm_err_set(err, XCM_OK);
	if (!usage_recorded(l->list_id_usage)) {
		return XCM_OK;
	}
	r = &s->rec[l->list_id];
	/*
	 * an identifier still in use -> ILLEGAL REQUEST 00/16 OPERATION IN PROGRESS
	 * OPERATION IN PROGRESS (clients such as ddpt key off it and retry with
	 * another id); no sense-key specific data.
	 */
	if (r->state == REC_IN_PROGRESS) {
		xcm_err_set(err, XCM_E_OP_IN_PROGRESS);
		return err->status;
	}
	/* as in CTL: a completed record with the same id is replaced */
	memset(r, 0, sizeof(*r));
	r->state = REC_IN_PROGRESS;
	r->usage = l->list_id_usage;
	return XCM_OK;
}

void
xcm_store_finish(struct xcm_store *s, const struct xcm_list *l, enum xcm_status st,
		 const struct xcm_exec_result *res, const uint8_t *sense, size_t sense_len)
{
	struct rec *r;

	if (!usage_recorded(l->list_id_usage)) {
		return;
	}
	r = &s->rec[l->list_id];
	memset(r, 0, sizeof(*r));
	r->state = REC_COMPLETED;
	r->usage = l->list_id_usage;
	r->status = st;
	if (res != NULL) {
		r->segs_processed = res->segs_processed;
		r->bytes = res->bytes;
	}
	r->scsi_status = xcm_status_info(st)->scsi_status;
	r->done_ms = s->now_ms != NULL ? s->now_ms(s->clock_arg) : 0;
	if (st != XCM_OK && sense != NULL) {
		r->sense_len = (uint8_t)(sense_len < XCM_SENSE_MAX ? sense_len : XCM_SENSE_MAX);
		memcpy(r->sense, sense, r->sense_len);
	}
}

/* COPY STATUS (LID1) of a known record. */
static void
encode_copy_status(const struct rec *r, struct xcm_wbuf *w)
{
	struct xcm_copy_status cs;

	memset(&cs, 0, sizeof(cs));
	if (r->state == REC_IN_PROGRESS) {
		cs.cm_status = XCM_CM_STATUS_IN_PROGRESS;
	} else {
		cs.cm_status = r->status == XCM_OK ? XCM_CM_STATUS_GOOD : XCM_CM_STATUS_ERROR;
	}
	/* SPC-4 LIST ID USAGE: 00b asked for held data, and we never hold any */
	cs.hdd = r->usage == XCM_LIST_ID_HOLD;
	cs.segs_processed = (uint16_t)(r->segs_processed > UINT16_MAX ? UINT16_MAX :
				       r->segs_processed);
	xcm_copy_status_set_bytes(&cs, r->bytes);
	xcm_rcr_encode_copy_status(&cs, w);
}

enum xcm_status
xcm_store_rcr(struct xcm_store *s, const struct xcm_limits *lim,
	      const struct xcm_rcr_req *req, struct xcm_wbuf *w, struct xcm_err *err)
{
	struct rec *r;

	xcm_err_set(err, XCM_OK);
	if (req->sa == XCM_SA_RCR_OP_PARAMS) {
		/* OPERATING PARAMETERS: no list involved */
		xcm_rcr_encode_op_params(lim != NULL ? lim : &xcm_limits_default, w);
		return XCM_OK;
	}
	if (req->sa != XCM_SA_RCR_COPY_STATUS && req->sa != XCM_SA_RCR_RECEIVE_DATA &&
	    req->sa != XCM_SA_RCR_FAILED_SEGMENT) {
		/* xcm_rcr_cdb_check() already refuses these: SERVICE ACTION, byte 1 */
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_SA, XCM_CDB_SA_MSB);
		return err->status;
	}
	r = &s->rec[req->list_id];
	/* as in CTL: unknown list identifier -> INVALID FIELD IN CDB, byte 2 */
	if (r->state == REC_FREE) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_LIST_ID, -1);
		return err->status;
	}
	switch (req->sa) {
	case XCM_SA_RCR_COPY_STATUS:
		encode_copy_status(r, w);
		break;
	case XCM_SA_RCR_RECEIVE_DATA:
		/* RECEIVE DATA (LID1): AVAILABLE DATA 0 - no segment type we run holds data */
		xcm_rcr_encode_receive_data(NULL, 0, w);
		break;
	default:
		/*
		 * FAILED SEGMENT DETAILS (LID1): status and sense of the failed EXTENDED COPY;
		 * AVAILABLE DATA 0 if it did not fail or is still running. Once a
		 * completed record is reported it is forgotten (read-once, F).
		 */
		if (r->state == REC_COMPLETED && r->status != XCM_OK) {
			xcm_rcr_encode_failed_segment(r->scsi_status, r->sense, r->sense_len, w);
		} else {
			xcm_rcr_encode_failed_segment(XCM_SAM_GOOD, NULL, 0, w);
		}
		if (r->state == REC_COMPLETED) {
			memset(r, 0, sizeof(*r));
		}
		break;
	}
	return XCM_OK;
}
