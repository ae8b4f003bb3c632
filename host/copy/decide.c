/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What to do after an EXTENDED COPY: one table from (sense key, ASC/ASCQ) to
 * an action and a fallback reason. Only definitive "not supported" answers
 * disable offload on a device; everything else affects the one range (or the
 * one pair of LUs) and the next command tries again.
 */
#include <errno.h>

#include "xch_copy.h"

struct rule {
	uint8_t key;
	uint16_t asc_ascq;
	bool asc_only;         /* match ASC, any ASCQ */
	enum xch_action act;
	enum xcopy_fallback_reason why;
};

/* First match wins; key 0xFF matches any key. */
static const struct rule g_rules[] = {
	/* SPC-4 6.4: the device server has no EXTENDED COPY at all */
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_OPCODE, false, XCH_ACT_DISABLE,
	  XCOPY_FB_INVALID_OPCODE },
	/* LID1 service action refused (only LID4, or a broken 83h): definitive */
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_FIELD_IN_CDB, false, XCH_ACT_DISABLE,
	  XCOPY_FB_INVALID_CDB },
	/* we send only E4h CSCDs and 02h segments: refusing them is definitive */
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_UNSUPP_CSCD_TYPE, false, XCH_ACT_DISABLE,
	  XCOPY_FB_UNSUPP_DESC },
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_UNSUPP_SEG_TYPE, false, XCH_ACT_DISABLE,
	  XCOPY_FB_UNSUPP_DESC },
	/* limits were wrong or unreported: retry one segment per command */
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_TOO_MANY_SEG, false, XCH_ACT_SHRINK,
	  XCOPY_FB_INVALID_PARAM },
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_TOO_MANY_CSCD, false, XCH_ACT_SHRINK,
	  XCOPY_FB_INVALID_PARAM },
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_PARAM_LIST_LEN, false, XCH_ACT_SHRINK,
	  XCOPY_FB_INVALID_PARAM },
	/*
	 * INVALID FIELD IN PARAMETER LIST: tcmu-runner answers this for a CSCD
	 * naming another LU, so it says "not this pair", not "never".
	 */
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_FIELD_IN_PARAM, false, XCH_ACT_OTHER_SIDE,
	  XCOPY_FB_INVALID_PARAM },
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_OPERATION_IN_PROGRESS, false, XCH_ACT_NEW_LIST_ID,
	  XCOPY_FB_OTHER_SENSE },
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INSUFFICIENT_RESOURCES, false, XCH_ACT_RETRY,
	  XCOPY_FB_OTHER_SENSE },
	/* SPC-4 Table 49, ASC 23h INVALID TOKEN OPERATION: this token only */
	{ XCM_SK_ILLEGAL_REQUEST, XCM_ASC_TOKEN_OP, true, XCH_ACT_FALLBACK, XCOPY_FB_TOKEN },
	/* SPC-4 8.x copy target reachability: not sticky for other pairs */
	{ XCM_SK_COPY_ABORTED, XCM_ASC_UNREACHABLE_COPY_TARGET, false, XCH_ACT_OTHER_SIDE,
	  XCOPY_FB_UNREACHABLE },
	{ XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE, false, XCH_ACT_OTHER_SIDE,
	  XCOPY_FB_UNREACHABLE },
	/*
	 * COMMAND TIMEOUT DURING PROCESSING: the copy manager ended the command
	 * at its time limit between chunks (segments before CSI are complete):
	 * send the rest again, it is not a failure of the pair.
	 */
	{ XCM_SK_COPY_ABORTED, XCM_ASC_CMD_TIMEOUT_DURING_PROCESSING, false, XCH_ACT_RETRY,
	  XCOPY_FB_COPY_ABORTED },
	{ XCM_SK_COPY_ABORTED, 0, true, XCH_ACT_FALLBACK, XCOPY_FB_COPY_ABORTED },
	/* transient conditions: the same command may succeed */
	{ XCM_SK_UNIT_ATTENTION, 0, true, XCH_ACT_RETRY, XCOPY_FB_OTHER_SENSE },
	{ XCM_SK_ABORTED_COMMAND, 0, true, XCH_ACT_RETRY, XCOPY_FB_OTHER_SENSE },
	{ XCM_SK_NOT_READY, 0x0400, true, XCH_ACT_RETRY, XCOPY_FB_OTHER_SENSE },
	{ 0xFF, 0, true, XCH_ACT_FALLBACK, XCOPY_FB_OTHER_SENSE },
};

static void
decide_sense(const struct xch_cmd *c, uint32_t nseg, struct xch_verdict *v)
{
	struct xcm_sense s;
	size_t i;

	if (xcm_sense_parse(xcm_span_make(c->sense, c->sense_len), &s) != 0) {
		v->act = XCH_ACT_FALLBACK;
		v->reason = XCOPY_FB_OTHER_SENSE;
		return;
	}
	for (i = 0; i < sizeof(g_rules) / sizeof(g_rules[0]); i++) {
		const struct rule *r = &g_rules[i];

		if (r->key != 0xFF && r->key != s.key) {
			continue;
		}
		if (r->asc_only ? (r->asc_ascq >> 8) != (s.asc_ascq >> 8) && r->asc_ascq != 0
				: r->asc_ascq != s.asc_ascq) {
			continue;
		}
		v->act = r->act;
		v->reason = r->why;
		break;
	}
	/*
	 * COPY ABORTED carries the index of the segment being processed in
	 * COMMAND-SPECIFIC INFORMATION (SPC-4 6.4.6): the ones before it are
	 * complete, so only the rest needs another way.
	 */
	if (s.key == XCM_SK_COPY_ABORTED && s.csi_valid && s.csi <= nseg) {
		v->segs_done = (uint32_t)s.csi;
	}
}

void
xch_decide(int exec_rc, const struct xch_cmd *c, uint32_t nseg, struct xch_verdict *v)
{
	v->act = XCH_ACT_FALLBACK;
	v->reason = XCOPY_FB_OTHER_SENSE;
	v->segs_done = 0;

	if (exec_rc == -EPERM || exec_rc == -EACCES) {
		/* SG_IO: 83h needs CAP_SYS_RAWIO; it will not change for this process */
		v->act = XCH_ACT_DISABLE;
		v->reason = XCOPY_FB_PERMISSION;
		return;
	}
	if (exec_rc < 0) {
		v->reason = XCOPY_FB_TRANSPORT;
		return;
	}
	switch (c->status) {
	case XCM_SAM_GOOD:
		v->act = XCH_ACT_DONE;
		v->reason = XCOPY_FB_NONE;
		v->segs_done = nseg;
		return;
	case XCM_SAM_BUSY:
	case XCM_SAM_TASK_SET_FULL:
		v->act = XCH_ACT_RETRY;
		return;
	case XCM_SAM_CHECK_CONDITION:
		decide_sense(c, nseg, v);
		return;
	default:
		/* RESERVATION CONFLICT and the rest: the host path will meet it too */
		return;
	}
}
