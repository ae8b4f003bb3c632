/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wire.h primitives, the status table and the limits table. */
#include "ut.h"

static void
wire_be_round_trip(void)
{
	uint8_t b[8];

	xcm_put_be16(b, 0xBEEF);
	CU_ASSERT_EQUAL(b[0], 0xBE);
	CU_ASSERT_EQUAL(xcm_get_be16(b), 0xBEEF);
	xcm_put_be24(b, 0xFFFFFF);
	CU_ASSERT_EQUAL(xcm_get_be24(b), 0xFFFFFFu);
	xcm_put_be32(b, 0x80000001u);
	CU_ASSERT_EQUAL(b[0], 0x80);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 0x80000001u);
	xcm_put_be64(b, 0xFFEEDDCCBBAA9988ULL);
	CU_ASSERT_EQUAL(b[7], 0x88);
	CU_ASSERT_EQUAL(xcm_get_be64(b), 0xFFEEDDCCBBAA9988ULL);
}

static void
wire_span_sub_bounds(void)
{
	uint8_t buf[10] = { 0 };
	struct xcm_span s = xcm_span_make(buf, sizeof(buf));
	struct xcm_span c = { NULL, 0 };

	CU_ASSERT_TRUE(xcm_span_sub(s, 0, 10, &c));
	CU_ASSERT_EQUAL(c.len, 10);
	CU_ASSERT_TRUE(xcm_span_sub(s, 10, 0, &c));
	CU_ASSERT_FALSE(xcm_span_sub(s, 10, 1, &c));
	CU_ASSERT_FALSE(xcm_span_sub(s, 11, 0, &c));
	CU_ASSERT_FALSE(xcm_span_sub(s, 4, SIZE_MAX, &c));
	CU_ASSERT_FALSE(xcm_span_sub(s, SIZE_MAX, 1, &c));
}

static void
wire_wbuf_truncates_but_counts(void)
{
	uint8_t buf[4];
	struct xcm_wbuf w = xcm_wbuf_make(buf, 3);

	xcm_wbuf_put32(&w, 0x01020304u);
	xcm_wbuf_put16(&w, 0x0506);
	CU_ASSERT_EQUAL(w.len, 6);
	CU_ASSERT_EQUAL(xcm_wbuf_stored(&w), 3);
	CU_ASSERT_EQUAL(buf[0], 1);
	CU_ASSERT_EQUAL(buf[2], 3);
	xcm_wbuf_patch16(&w, 1, 0xAABB);
	CU_ASSERT_EQUAL(buf[1], 0xAA);
	CU_ASSERT_EQUAL(buf[2], 0xBB);

	w = xcm_wbuf_make(NULL, 0);
	xcm_wbuf_put(&w, NULL, 100);
	CU_ASSERT_EQUAL(w.len, 100);
}

static void
status_table_complete(void)
{
	int st;

	for (st = 0; st < XCM_STATUS_COUNT; st++) {
		const struct xcm_status_info *i = xcm_status_info((enum xcm_status)st);
		CU_ASSERT_PTR_NOT_NULL_FATAL(i->name);
		if (st == XCM_OK) {
			CU_ASSERT_EQUAL(i->scsi_status, XCM_SAM_GOOD);
		} else {
			CU_ASSERT_EQUAL(i->scsi_status, XCM_SAM_CHECK_CONDITION);
			CU_ASSERT_NOT_EQUAL(i->key, XCM_SK_NO_SENSE);
		}
	}
	CU_ASSERT_EQUAL(xcm_status_info(XCM_E_CA_NOT_REACHABLE)->key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(xcm_status_info(XCM_E_TOO_MANY_SEG)->asc_ascq, 0x2608);
	/* out-of-range statuses map to an internal error, never out of bounds */
	CU_ASSERT_EQUAL(xcm_status_info((enum xcm_status)999)->key, XCM_SK_HARDWARE_ERROR);
}

static void
limits_default_meets_issue_floor(void)
{
	const struct xcm_limits *l = &xcm_limits_default;

	CU_ASSERT(l->max_cscd >= 64);
	CU_ASSERT(l->max_seg >= 1024);
	CU_ASSERT(l->max_cscd <= XCM_MAX_CSCD);
	CU_ASSERT(l->max_seg <= XCM_MAX_SEG);
	/* a maximum-size list of the largest descriptors must fit */
	CU_ASSERT(l->max_desc_list_len >= (uint32_t)l->max_cscd * XCM_CSCD_LEN +
					  (uint32_t)l->max_seg * XCM_SEG_B2B_OFF_LEN);
	CU_ASSERT_EQUAL(xcm_limits_max_param_len(l),
			XCM_PLIST_HDR_LEN + l->max_desc_list_len + l->max_inline_len);
}

static CU_TestInfo g_tests[] = {
	{ "be_round_trip", wire_be_round_trip },
	{ "span_sub_bounds", wire_span_sub_bounds },
	{ "wbuf_truncates_but_counts", wire_wbuf_truncates_but_counts },
	{ "status_table_complete", status_table_complete },
	{ "limits_default_meets_issue_floor", limits_default_meets_issue_floor },
	CU_TEST_INFO_NULL,
};
UT_SUITE(wire, g_tests)
