/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* host: the sense -> action table, with sense built by the engine's builder. */
#include <errno.h>
#include <string.h>

#include "ut.h"
#include "base/xch_base.h"
#include "copy/xch_copy.h"

static void
ut_cmd_with(struct xch_cmd *c, const struct xcm_err *e, bool desc)
{
	memset(c, 0, sizeof(*c));
	c->status = XCM_SAM_CHECK_CONDITION;
	c->sense_len = (uint8_t)xcm_sense_build(e, desc, c->sense, sizeof(c->sense));
}

static const struct {
	enum xcm_status st;
	enum xch_action act;
	enum xcopy_fallback_reason why;
} g_table[] = {
	{ XCM_E_INVALID_OPCODE, XCH_ACT_DISABLE, XCOPY_FB_INVALID_OPCODE },
	{ XCM_E_INVALID_FIELD_CDB, XCH_ACT_DISABLE, XCOPY_FB_INVALID_CDB },
	{ XCM_E_UNSUPP_CSCD_TYPE, XCH_ACT_DISABLE, XCOPY_FB_UNSUPP_DESC },
	{ XCM_E_UNSUPP_SEG_TYPE, XCH_ACT_DISABLE, XCOPY_FB_UNSUPP_DESC },
	{ XCM_E_TOO_MANY_SEG, XCH_ACT_SHRINK, XCOPY_FB_INVALID_PARAM },
	{ XCM_E_TOO_MANY_CSCD, XCH_ACT_SHRINK, XCOPY_FB_INVALID_PARAM },
	{ XCM_E_PARAM_LIST_LEN, XCH_ACT_SHRINK, XCOPY_FB_INVALID_PARAM },
	{ XCM_E_INVALID_FIELD_PARAM, XCH_ACT_OTHER_SIDE, XCOPY_FB_INVALID_PARAM },
	{ XCM_E_OP_IN_PROGRESS, XCH_ACT_NEW_LIST_ID, XCOPY_FB_OTHER_SENSE },
	{ XCM_E_INSUFFICIENT_RESOURCES, XCH_ACT_RETRY, XCOPY_FB_OTHER_SENSE },
	{ XCM_E_LBA_OUT_OF_RANGE, XCH_ACT_FALLBACK, XCOPY_FB_OTHER_SENSE },
	{ XCM_E_CA_UNREACHABLE, XCH_ACT_OTHER_SIDE, XCOPY_FB_UNREACHABLE },
	{ XCM_E_CA_NOT_REACHABLE, XCH_ACT_OTHER_SIDE, XCOPY_FB_UNREACHABLE },
	{ XCM_E_CA_DEVICE_FAILURE, XCH_ACT_FALLBACK, XCOPY_FB_COPY_ABORTED },
	{ XCM_E_CA_INCORRECT_TYPE, XCH_ACT_FALLBACK, XCOPY_FB_COPY_ABORTED },
	{ XCM_E_CA_UNDERRUN, XCH_ACT_FALLBACK, XCOPY_FB_COPY_ABORTED },
	{ XCM_E_CA_INEXACT_SEGMENT, XCH_ACT_FALLBACK, XCOPY_FB_COPY_ABORTED },
	{ XCM_E_CA_FAST_COPY_NOT_POSSIBLE, XCH_ACT_FALLBACK, XCOPY_FB_COPY_ABORTED },
	{ XCM_E_CA_DEADLINE, XCH_ACT_RETRY, XCOPY_FB_COPY_ABORTED },
	{ XCM_E_INTERNAL, XCH_ACT_FALLBACK, XCOPY_FB_OTHER_SENSE },
};

static void
host_decide_table_fixed_and_descriptor_sense(void)
{
	struct xch_verdict v;
	struct xch_cmd c;
	struct xcm_err e;
	size_t i;
	int desc;

	for (desc = 0; desc < 2; desc++) {
		for (i = 0; i < sizeof(g_table) / sizeof(g_table[0]); i++) {
			memset(&e, 0, sizeof(e));
			xcm_err_set(&e, g_table[i].st);
			ut_cmd_with(&c, &e, desc != 0);
			xch_decide(0, &c, 3, &v);
			if (v.act != g_table[i].act || v.reason != g_table[i].why) {
				fprintf(stderr, "\n%s (desc %d): act %d reason %s\n",
					xcm_status_info(g_table[i].st)->name, desc, v.act,
					xcopy_fallback_reason_name(v.reason));
			}
			CU_ASSERT_EQUAL(v.act, g_table[i].act);
			CU_ASSERT_EQUAL(v.reason, g_table[i].why);
			CU_ASSERT_EQUAL(v.segs_done, 0);
		}
	}
}

static void
host_decide_good_busy_and_transport(void)
{
	struct xch_verdict v;
	struct xch_cmd c;

	memset(&c, 0, sizeof(c));
	xch_decide(0, &c, 7, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_DONE);
	CU_ASSERT_EQUAL(v.segs_done, 7);
	c.status = XCM_SAM_BUSY;
	xch_decide(0, &c, 7, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_RETRY);
	c.status = XCM_SAM_TASK_SET_FULL;
	xch_decide(0, &c, 7, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_RETRY);
	c.status = 0x18; /* RESERVATION CONFLICT */
	xch_decide(0, &c, 7, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_FALLBACK);
	/* SG_IO without CAP_SYS_RAWIO: never allowed for this process */
	xch_decide(-EPERM, &c, 7, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_DISABLE);
	CU_ASSERT_EQUAL(v.reason, XCOPY_FB_PERMISSION);
	xch_decide(-EIO, &c, 7, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_FALLBACK);
	CU_ASSERT_EQUAL(v.reason, XCOPY_FB_TRANSPORT);
	/* CHECK CONDITION without (valid) sense */
	c.status = XCM_SAM_CHECK_CONDITION;
	c.sense_len = 0;
	xch_decide(0, &c, 7, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_FALLBACK);
	CU_ASSERT_EQUAL(v.reason, XCOPY_FB_OTHER_SENSE);
}

static void
host_decide_csi_counts_completed_segments(void)
{
	struct xch_verdict v;
	struct xch_cmd c;
	struct xcm_err e;

	memset(&e, 0, sizeof(e));
	xcm_err_set_segment(&e, XCM_E_CA_DEVICE_FAILURE, 2, -1);
	ut_cmd_with(&c, &e, false);
	xch_decide(0, &c, 5, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_FALLBACK);
	CU_ASSERT_EQUAL(v.segs_done, 2);
	/* cut at the target's deadline: resend from CSI */
	xcm_err_set_segment(&e, XCM_E_CA_DEADLINE, 3, -1);
	ut_cmd_with(&c, &e, true);
	xch_decide(0, &c, 5, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_RETRY);
	CU_ASSERT_EQUAL(v.segs_done, 3);
	/* a CSI beyond the list is not believed */
	xcm_err_set_segment(&e, XCM_E_CA_DEVICE_FAILURE, 9, -1);
	ut_cmd_with(&c, &e, true);
	xch_decide(0, &c, 5, &v);
	CU_ASSERT_EQUAL(v.segs_done, 0);
	/* ILLEGAL REQUEST: nothing moved, whatever the sense says */
	memset(&e, 0, sizeof(e));
	xcm_err_set_field(&e, XCM_E_INVALID_FIELD_PARAM, false, 20, -1);
	ut_cmd_with(&c, &e, false);
	xch_decide(0, &c, 5, &v);
	CU_ASSERT_EQUAL(v.segs_done, 0);
}

static void
host_decide_unit_attention_retries(void)
{
	struct xch_verdict v;
	struct xch_cmd c;
	struct xcm_err e;
	struct xcm_sense s;

	/* the status table has no UNIT ATTENTION: build a sense, then set the key */
	memset(&e, 0, sizeof(e));
	xcm_err_set(&e, XCM_E_INTERNAL);
	ut_cmd_with(&c, &e, false);
	/* SPC-4 4.5.3: fixed format, SENSE KEY in byte 2 bits 3:0 */
	c.sense[2] = (uint8_t)((c.sense[2] & 0xF0) | XCM_SK_UNIT_ATTENTION);
	UT_ASSERT_FATAL(xcm_sense_parse(xcm_span_make(c.sense, c.sense_len), &s) == 0);
	CU_ASSERT_EQUAL(s.key, XCM_SK_UNIT_ATTENTION);
	xch_decide(0, &c, 1, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_RETRY);
	c.sense[2] = (uint8_t)((c.sense[2] & 0xF0) | XCM_SK_ABORTED_COMMAND);
	xch_decide(0, &c, 1, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_RETRY);
	c.sense[2] = (uint8_t)((c.sense[2] & 0xF0) | XCM_SK_MEDIUM_ERROR);
	xch_decide(0, &c, 1, &v);
	CU_ASSERT_EQUAL(v.act, XCH_ACT_FALLBACK);
}

static void
host_decide_reason_names(void)
{
	struct xcopy_stats st;
	int r;

	for (r = 0; r < XCOPY_FB_REASON_COUNT; r++) {
		CU_ASSERT_STRING_NOT_EQUAL(xcopy_fallback_reason_name((enum xcopy_fallback_reason)r),
					   "unknown");
	}
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name((enum xcopy_fallback_reason)99),
			       "unknown");
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name(XCOPY_FB_ALLOC), "allocation");
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name(XCOPY_FB_ALLOC_DISK), "allocation-disk");
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name(XCOPY_FB_ALLOC_FS), "allocation-fs");
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name(XCOPY_FB_FS_TYPE), "file-system");
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name(XCOPY_FB_REALTIME), "xfs-realtime");
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name(XCOPY_FB_ENCRYPTED), "encrypted");
	CU_ASSERT_STRING_EQUAL(xcopy_fallback_reason_name(XCOPY_FB_JOURNAL_DATA), "journal-data");
	CU_ASSERT(XCOPY_FB_REASON_COUNT <= XCOPY_FB_REASON_MAX);
	CU_ASSERT_EQUAL(xch_required_errno(NULL, XCOPY_FB_UNREACHABLE), -EXDEV);
	/* a refused range is counted under its reason, with no bytes moved */
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xch_required_errno(&st, XCOPY_FB_NO_3PC), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(xch_required_errno(&st, XCOPY_FB_ALLOC_DISK), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_NO_3PC], 1);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_ALLOC_DISK], 1);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_ALLOC_DISK], 0);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
}

static CU_TestInfo g_tests[] = {
	{ "table_fixed_and_descriptor_sense", host_decide_table_fixed_and_descriptor_sense },
	{ "good_busy_and_transport", host_decide_good_busy_and_transport },
	{ "csi_counts_completed_segments", host_decide_csi_counts_completed_segments },
	{ "unit_attention_retries", host_decide_unit_attention_retries },
	{ "reason_names", host_decide_reason_names },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_decide, g_tests)
