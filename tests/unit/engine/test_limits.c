/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one limits table: what RECEIVE COPY RESULTS OPERATING PARAMETERS and
 * VPD 8Fh report is xcm_limits_default, they agree with each other, and the
 * executor enforces exactly that MAXIMUM SEGMENT LENGTH (one byte more is
 * refused before anything moves, exactly it passes the limit check).
 */
#include <string.h>

#include "fake_backend.h"
#include "ut.h"
#include "xcm/exec.h"

static void
limits_reported_agree(void)
{
	const struct xcm_limits *l = &xcm_limits_default;
	struct xcm_tpc_info *t = calloc(1, sizeof(*t));
	struct xcm_op_params op;
	uint8_t b[1024];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));

	UT_ASSERT_FATAL(t != NULL);
	CU_ASSERT_EQUAL(l->max_seg_len, 256u << 20);   /* LIO's; ddpt/sg_xcopy split at it */
	CU_ASSERT_EQUAL(l->max_seg, XCM_MAX_SEG);
	CU_ASSERT_EQUAL(l->max_cscd, XCM_MAX_CSCD);
	xcm_rcr_encode_op_params(l, &w);
	UT_ASSERT_FATAL(xcm_rcr_decode_op_params(xcm_span_make(b, xcm_wbuf_stored(&w)), &op) == 0);
	w = xcm_wbuf_make(b, sizeof(b));
	xcm_vpd_tpc_encode(l, 0x00, &w);
	UT_ASSERT_FATAL(xcm_vpd_tpc_decode(xcm_span_make(b, xcm_wbuf_stored(&w)), t) == 0);
	UT_ASSERT_FATAL(t->has_general_copy_ops && t->has_param_data);
	CU_ASSERT_EQUAL(op.max_seg_len, l->max_seg_len);
	CU_ASSERT_EQUAL(t->max_seg_len, l->max_seg_len);
	CU_ASSERT_EQUAL(op.max_seg, t->max_seg);
	CU_ASSERT_EQUAL(op.max_cscd, t->max_cscd);
	CU_ASSERT_EQUAL(op.max_desc_list_len, t->max_desc_list_len);
	CU_ASSERT_EQUAL(op.max_desc_list_len, l->max_desc_list_len);
	free(t);
}

/* One 0Ah segment of n bytes on a small LU, run with the default limits. */
static enum xcm_status
run_off_segment(uint32_t n, struct xcm_err *err, const struct fake_counters **cnt)
{
	static struct xcm_list l;
	static struct fake_counters c;
	struct xcm_exec_result res;
	struct fake_be *be = fake_create();
	struct xt_lu *a = fake_lu_add(be, 512, 64, 1);
	enum xcm_status st;

	memset(&l, 0, sizeof(l));
	l.list_id_usage = XCM_LIST_ID_NONE;
	l.nseg = 1;
	l.seg[0].type = XCM_SEG_B2B_OFF;
	l.seg[0].src = &l.self;
	l.seg[0].dst = &l.self;
	l.seg[0].count = n;
	l.seg[0].dst_lba = 8;
	l.seg[0].offset = XCM_PLIST_HDR_LEN;
	st = xcm_list_execute(&l, &xcm_limits_default, &fake_ops, be, a, &res, err);
	c = *fake_counters(be);
	*cnt = &c;
	fake_destroy(be);
	return st;
}

static void
limits_max_seg_len_enforced_exactly(void)
{
	const uint32_t max = xcm_limits_default.max_seg_len;
	const struct fake_counters *c;
	struct xcm_err err;

	/* one byte over: ILLEGAL REQUEST 26/00 at NUMBER OF BYTES (segment byte 8) */
	UT_EXPECT_ERR(run_off_segment(max + 1, &err, &c), &err, XCM_E_INVALID_FIELD_PARAM,
		      XCM_PLIST_HDR_LEN + 8);
	CU_ASSERT_EQUAL(c->copy_calls, 0);
	/* exactly the limit passes the limit check; this 32 KiB LU then cannot hold it */
	UT_EXPECT_ERR(run_off_segment(max, &err, &c), &err, XCM_E_CA_NOT_REACHABLE, 12);
	CU_ASSERT_EQUAL(c->copy_calls, 0);
}

static CU_TestInfo g_tests[] = {
	{ "limits_reported_agree", limits_reported_agree },
	{ "limits_max_seg_len_enforced_exactly", limits_max_seg_len_enforced_exactly },
	CU_TEST_INFO_NULL,
};

UT_SUITE(limits, g_tests)
