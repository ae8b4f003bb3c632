/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Held status of LID4 lists for RECEIVE COPY STATUS (LID4) (SPC-4 6.19;
 * LIST ID USAGE): a LIST IDENTIFIER is 4 bytes, so a fixed table of
 * XCM_STORE4_MAX records is searched by identifier; when it is full the
 * oldest completed record makes room. Lists with LIST ID USAGE 11b keep
 * nothing. No data is ever held.
 */
#include <stdlib.h>
#include <string.h>

#include "xcm/lid4.h"

enum rec4_state {
	R4_FREE = 0,
	R4_IN_PROGRESS,
	R4_COMPLETED,
};

struct rec4 {
	enum rec4_state state;
	uint32_t id;
	uint64_t seq;              /* begin order, for eviction */
	struct xcm_rcs4 st;
};

struct xcm_store4 {
	uint64_t seq;
	struct rec4 rec[XCM_STORE4_MAX];
};

struct xcm_store4 *
xcm_store4_create(void)
{
	return calloc(1, sizeof(struct xcm_store4));
}

void
xcm_store4_destroy(struct xcm_store4 *s)
{
	free(s);
}

static bool
recorded(uint8_t usage)
{
	return usage == XCM_LIST_ID_HOLD || usage == XCM_LIST_ID_DISCARD;
}

static struct rec4 *
find(const struct xcm_store4 *s, uint32_t id)
{
	size_t i;

	for (i = 0; i < XCM_STORE4_MAX; i++) {
		if (s->rec[i].state != R4_FREE && s->rec[i].id == id) {
			return (struct rec4 *)&s->rec[i];
		}
	}
	return NULL;
}

enum xcm_status
xcm_store4_begin(struct xcm_store4 *s, const struct xcm_list *l, struct xcm_err *err)
{
	struct rec4 *r, *victim = NULL;
	size_t i;

	xcm_err_set(err, XCM_OK);
	if (!recorded(l->list_id_usage)) {
		return XCM_OK;
	}
	r = find(s, l->list_id4);
	if (r != NULL && r->state == R4_IN_PROGRESS) {
		/* SPC-4: an identifier in use -> ILLEGAL REQUEST, OPERATION IN PROGRESS */
		xcm_err_set(err, XCM_E_OP_IN_PROGRESS);
		return err->status;
	}
	if (r == NULL) {
		for (i = 0; i < XCM_STORE4_MAX && r == NULL; i++) {
			if (s->rec[i].state == R4_FREE) {
				r = &s->rec[i];
			} else if (s->rec[i].state == R4_COMPLETED &&
				   (victim == NULL || s->rec[i].seq < victim->seq)) {
				victim = &s->rec[i];
			}
		}
		if (r == NULL) {
			r = victim;
		}
		if (r == NULL) {
			/* every record belongs to a running list */
			xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
			return err->status;
		}
	}
	memset(r, 0, sizeof(*r));
	r->state = R4_IN_PROGRESS;
	r->id = l->list_id4;
	r->seq = ++s->seq;
	r->st.sa = l->tpc_sa != 0 ? l->tpc_sa : XCM_SA_XCOPY_LID4;
	r->st.op_status = XCM_RCS4_IN_PROGRESS;
	r->st.est_delay_ms = UINT32_MAX;   /* cannot estimate */
	return XCM_OK;
}

void
xcm_store4_finish(struct xcm_store4 *s, const struct xcm_list *l, enum xcm_status st,
		  const struct xcm_exec_result *res, bool terminated, const uint8_t *sense,
		  size_t sense_len)
{
	struct rec4 *r;

	if (!recorded(l->list_id_usage)) {
		return;
	}
	r = find(s, l->list_id4);
	if (r == NULL || r->state != R4_IN_PROGRESS) {
		return;
	}
	r->state = R4_COMPLETED;
	if (terminated) {
		r->st.op_status = XCM_RCS4_TERMINATED;
	} else {
		r->st.op_status = st == XCM_OK ? XCM_RCS4_DONE : XCM_RCS4_DONE_ERRORS;
	}
	/* SPC-4 ESTIMATED STATUS UPDATE DELAY: FFFF_FFFEh once the operation has completed */
	r->st.est_delay_ms = UINT32_MAX - 1;
	r->st.cmd_status = xcm_status_info(st)->scsi_status;
	if (res != NULL) {
		r->st.bytes = res->bytes;
		r->st.segs = (uint16_t)(res->segs_processed > UINT16_MAX ? UINT16_MAX
									  : res->segs_processed);
	}
	r->st.sense_len = 0;
	if (st != XCM_OK && sense != NULL) {
		r->st.sense_len = (uint8_t)(sense_len < XCM_SENSE_MAX ? sense_len : XCM_SENSE_MAX);
		memcpy(r->st.sense, sense, r->st.sense_len);
	}
}

bool
xcm_store4_get(const struct xcm_store4 *s, uint32_t id, struct xcm_rcs4 *out)
{
	const struct rec4 *r = find(s, id);

	if (r == NULL) {
		return false;
	}
	*out = r->st;
	return true;
}
