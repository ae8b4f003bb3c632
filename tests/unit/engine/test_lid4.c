/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LID4 codec (engine/lid4.c, the LID4 header in param.c/encode.c) and the
 * LID4 held-status store (engine/store4.c): exact bytes, exact sense, limits.
 */
#include <errno.h>
#include <string.h>

#include "ut.h"
#include "xcm/lid4.h"

static struct xcm_list g_in, g_out;
static uint8_t g_buf[8192];
static struct xcm_err g_err;

/* Two CSCDs, nseg 02h segments, LID4 list id 0x0A0B0C0D, usage hold; returns the length. */
static size_t
build4(uint32_t nseg)
{
	struct xcm_wbuf w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	uint32_t i;

	memset(&g_in, 0, sizeof(g_in));
	g_in.lid4 = true;
	g_in.list_id4 = 0x0A0B0C0Du;
	g_in.list_id_usage = XCM_LIST_ID_HOLD;
	g_in.priority = 3;
	g_in.ncscd = 2;
	ut_make_cscd(&g_in.cscd[0], 1);
	ut_make_cscd(&g_in.cscd[1], 2);
	g_in.nseg = nseg;
	for (i = 0; i < nseg; i++) {
		g_in.seg[i].type = XCM_SEG_B2B;
		g_in.seg[i].src = &g_in.cscd[0];
		g_in.seg[i].dst = &g_in.cscd[1];
		g_in.seg[i].count = 100 + i;
		g_in.seg[i].src_lba = 1000u * i;
		g_in.seg[i].dst_lba = 77777u + i;
	}
	return xcm_list_encode_lid4(&g_in, &w);
}

static enum xcm_status
parse4(uint32_t plen, size_t len)
{
	memset(&g_out, 0x5A, sizeof(g_out));
	return xcm_list_parse_lid4(plen, xcm_span_make(g_buf, len), &xcm_limits_default, &g_out,
				   &g_err);
}

static void
lid4_round_trip(void)
{
	size_t n = build4(3);
	uint32_t i;

	CU_ASSERT_EQUAL(n, 48 + 2 * 32 + 3 * 28);
	/* header bytes as SPC-4 lays them out */
	CU_ASSERT_EQUAL(g_buf[0], 0x01);
	CU_ASSERT_EQUAL(g_buf[1], (XCM_LIST_ID_HOLD << 3) | 3);
	CU_ASSERT_EQUAL(xcm_get_be32(g_buf + 20), 0x0A0B0C0Du);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 42), 64);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 44), 84);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 46), 0);
	CU_ASSERT_EQUAL(g_buf[48], XCM_CSCD_ID);
	CU_ASSERT_EQUAL(g_buf[48 + 64], XCM_SEG_B2B);
	CU_ASSERT_EQUAL(parse4((uint32_t)n, n), XCM_OK);
	CU_ASSERT_TRUE(g_out.lid4);
	CU_ASSERT_EQUAL(g_out.list_id4, 0x0A0B0C0Du);
	CU_ASSERT_EQUAL(g_out.list_id_usage, XCM_LIST_ID_HOLD);
	CU_ASSERT_EQUAL(g_out.priority, 3);
	CU_ASSERT_EQUAL(g_out.ncscd, 2);
	CU_ASSERT_EQUAL(g_out.nseg, 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(g_out.seg[i].count, 100 + i);
		CU_ASSERT_EQUAL(g_out.seg[i].src_lba, 1000u * i);
		CU_ASSERT_EQUAL(g_out.seg[i].dst_lba, 77777u + i);
		CU_ASSERT_PTR_EQUAL(g_out.seg[i].src, &g_out.cscd[0]);
		CU_ASSERT_PTR_EQUAL(g_out.seg[i].dst, &g_out.cscd[1]);
		/* offsets are list offsets: after the 48-byte header and the CSCDs */
		CU_ASSERT_EQUAL(g_out.seg[i].offset, 48 + 64 + 28 * i);
	}
	CU_ASSERT_EQUAL(g_out.cscd[1].offset, 48 + 32);
	/* the LID1 parser does not take it (LIST FORMAT byte is a list id there) */
	CU_ASSERT_EQUAL(xcm_list_parse((uint32_t)n, xcm_span_make(g_buf, n), &xcm_limits_default,
				       &g_out, &g_err) == XCM_OK && g_out.lid4, false);
}

static void
lid4_header_errors(void)
{
	size_t n = build4(1);

	/* shorter than the 48-byte header, declared or received: 1A/00 */
	UT_EXPECT_ERR(parse4(47, n), &g_err, XCM_E_PARAM_LIST_LEN, -1);
	UT_EXPECT_ERR(parse4((uint32_t)n, 47), &g_err, XCM_E_PARAM_LIST_LEN, -1);
	/* lists declared beyond what was sent: 1A/00 */
	UT_EXPECT_ERR(parse4((uint32_t)n - 1, n - 1), &g_err, XCM_E_PARAM_LIST_LEN, -1);
	/* LIST FORMAT must be 01h */
	g_buf[0] = 0x00;
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 0);
	CU_ASSERT_FALSE(g_err.in_cdb);
	n = build4(1);
	/* header CSCD descriptors are not supported */
	xcm_put_be16(g_buf + 2, 32);
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 2);
	n = build4(1);
	/* IMMED and G_SENSE cannot be honoured through TCMU: field 15, bit pointer */
	g_buf[15] = 0x01;
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 15);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 0);
	g_buf[15] = 0x02;
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 15);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 1);
	g_buf[15] = 0;
	/* usage 11b needs LIST IDENTIFIER 0: pointer at byte 20 */
	g_buf[1] = (uint8_t)(XCM_LIST_ID_NONE << 3);
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 20);
	xcm_put_be32(g_buf + 20, 0);
	CU_ASSERT_EQUAL(parse4((uint32_t)n, n), XCM_OK);
	/* 01b reserved: byte 1 bit 4 */
	g_buf[1] = (uint8_t)(XCM_LIST_ID_RESERVED << 3);
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 1);
	n = build4(1);
	/* a CSCD list length that ends inside a descriptor: pointer at byte 42 */
	xcm_put_be16(g_buf + 42, 48);
	xcm_put_be16(g_buf + 44, 0);
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 42);
	n = build4(1);
	/* a segment list that ends inside the descriptor: pointer at byte 44 */
	xcm_put_be16(g_buf + 44, 20);
	UT_EXPECT_ERR(parse4((uint32_t)n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 44);
	n = build4(1);
	/* inline data is not supported: 26/0B pointing at byte 46 */
	xcm_put_be16(g_buf + 46, 4);
	UT_EXPECT_ERR(parse4((uint32_t)n + 4, n + 4), &g_err, XCM_E_INLINE_DATA_LEN, 46);
	/* PARAMETER LIST LENGTH 0: nothing to do */
	CU_ASSERT_EQUAL(parse4(0, 0), XCM_OK);
	CU_ASSERT_EQUAL(g_out.nseg, 0);
}

static void
tpc_out_cdb(void)
{
	struct xcm_tpc_out_req req;
	uint8_t cdb[16];

	xcm_cdb_xcopy_lid4(cdb, 0x01020304u);
	CU_ASSERT_EQUAL(cdb[0], 0x83);
	CU_ASSERT_EQUAL(cdb[1], 0x01);
	CU_ASSERT_EQUAL(xcm_tpc_out_cdb_check(cdb, 16, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, 0x01);
	CU_ASSERT_EQUAL(req.plen, 0x01020304u);
	xcm_cdb_xcopy(cdb, 77);
	CU_ASSERT_EQUAL(xcm_tpc_out_cdb_check(cdb, 16, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, 0x00);
	CU_ASSERT_EQUAL(req.plen, 77);
	xcm_cdb_copy_op_abort(cdb, 0xDEADBEEFu);
	CU_ASSERT_EQUAL(cdb[1], 0x1C);
	CU_ASSERT_EQUAL(xcm_get_be32(cdb + 2), 0xDEADBEEFu);
	CU_ASSERT_EQUAL(xcm_tpc_out_cdb_check(cdb, 16, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, 0x1C);
	CU_ASSERT_EQUAL(req.list_id, 0xDEADBEEFu);
	/* COPY OPERATION ABORT bytes 6-14 are reserved */
	cdb[9] = 1;
	UT_EXPECT_ERR(xcm_tpc_out_cdb_check(cdb, 16, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 9);
	CU_ASSERT_TRUE(g_err.in_cdb);
	/* POPULATE TOKEN (10h) goes through its own check: a length of 0 is field 10 */
	xcm_cdb_xcopy(cdb, 0);
	cdb[1] = 0x10;
	UT_EXPECT_ERR(xcm_tpc_out_cdb_check(cdb, 16, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 10);
	/* an unsupported service action (12h): byte 1 bit 4 */
	cdb[1] = 0x12;
	UT_EXPECT_ERR(xcm_tpc_out_cdb_check(cdb, 16, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 1);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 4);
	cdb[1] = 0x10;
	/* short CDB, wrong opcode */
	UT_EXPECT_ERR(xcm_tpc_out_cdb_check(cdb, 10, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, -1);
	cdb[0] = 0x84;
	UT_EXPECT_ERR(xcm_tpc_out_cdb_check(cdb, 16, &req, &g_err), &g_err, XCM_E_INVALID_OPCODE,
		      -1);
}

static void
rcs4_cdb(void)
{
	struct xcm_rcs4_req req;
	struct xcm_rcr_req r1;
	uint8_t cdb[16];

	xcm_cdb_rcs4(cdb, 0x11223344u, 600);
	CU_ASSERT_EQUAL(cdb[0], 0x84);
	CU_ASSERT_EQUAL(cdb[1], 0x05);
	CU_ASSERT_EQUAL(xcm_rcs4_cdb_check(cdb, 16, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.list_id, 0x11223344u);
	CU_ASSERT_EQUAL(req.alloc_len, 600);
	/* the LID1 check does not read it with a 1-byte list id */
	UT_EXPECT_ERR(xcm_rcr_cdb_check(cdb, 16, &r1, &g_err), &g_err, XCM_E_INVALID_FIELD_CDB, 1);
	/* bytes 6-9 reserved */
	cdb[7] = 0x80;
	UT_EXPECT_ERR(xcm_rcs4_cdb_check(cdb, 16, &req, &g_err), &g_err, XCM_E_INVALID_FIELD_CDB,
		      7);
	cdb[7] = 0;
	cdb[1] = 0x00;
	UT_EXPECT_ERR(xcm_rcs4_cdb_check(cdb, 16, &req, &g_err), &g_err, XCM_E_INVALID_FIELD_CDB,
		      1);
}

static void
rcs4_encode_bytes(void)
{
	struct xcm_rcs4 st, back;
	struct xcm_wbuf w;
	uint8_t b[128];
	size_t i;

	memset(&st, 0, sizeof(st));
	st.sa = 0x01;
	st.op_status = XCM_RCS4_DONE_ERRORS;
	st.est_delay_ms = 0xFFFFFFFEu;
	st.cmd_status = XCM_SAM_CHECK_CONDITION;
	st.bytes = 0x0000000123456789ull;
	st.segs = 0x0102;
	st.sense_len = 18;
	for (i = 0; i < 18; i++) {
		st.sense[i] = (uint8_t)(0xA0 + i);
	}
	memset(b, 0xEE, sizeof(b));
	w = xcm_wbuf_make(b, sizeof(b));
	xcm_rcs4_encode(&st, &w);
	CU_ASSERT_EQUAL(w.len, 32 + 18);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 32 - 4 + 18);
	CU_ASSERT_EQUAL(b[4], 0x01);
	CU_ASSERT_EQUAL(b[5], 0x02);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 6), 0);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 8), 0xFFFFFFFEu);
	CU_ASSERT_EQUAL(b[12], 0x02);
	CU_ASSERT_EQUAL(b[13], 18);
	CU_ASSERT_EQUAL(b[14], 18);
	CU_ASSERT_EQUAL(b[15], 0x00);
	CU_ASSERT_EQUAL(xcm_get_be64(b + 16), 0x0000000123456789ull);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 24), 0x0102);
	for (i = 26; i < 32; i++) {
		CU_ASSERT_EQUAL(b[i], 0);
	}
	CU_ASSERT_EQUAL(b[32], 0xA0);
	CU_ASSERT_EQUAL(b[49], 0xB1);
	CU_ASSERT_EQUAL(b[50], 0);   /* xcm_wbuf_make zeroes up to cap */
	CU_ASSERT_EQUAL(xcm_rcs4_decode(xcm_span_make(b, w.len), &back), 0);
	CU_ASSERT_EQUAL(back.op_status, st.op_status);
	CU_ASSERT_EQUAL(back.bytes, st.bytes);
	CU_ASSERT_EQUAL(back.segs, st.segs);
	CU_ASSERT_EQUAL(back.sense_len, 18);
	CU_ASSERT_EQUAL(memcmp(back.sense, st.sense, 18), 0);
	/* allocation length 20: a prefix, AVAILABLE DATA still tells the whole */
	memset(b, 0xEE, sizeof(b));
	w = xcm_wbuf_make(b, 20);
	xcm_rcs4_encode(&st, &w);
	CU_ASSERT_EQUAL(xcm_wbuf_stored(&w), 20);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 46);
	CU_ASSERT_EQUAL(b[20], 0xEE);
	CU_ASSERT_EQUAL(xcm_rcs4_decode(xcm_span_make(b, 20), &back), -EINVAL);
}

static void
store4_lifecycle(void)
{
	struct xcm_store4 *s = xcm_store4_create();
	struct xcm_exec_result res = { 2, 4096 };
	struct xcm_rcs4 st;
	uint8_t sense[18] = { 0x70, 0, XCM_SK_COPY_ABORTED };

	UT_ASSERT_FATAL(s != NULL);
	build4(1);
	CU_ASSERT_FALSE(xcm_store4_get(s, g_in.list_id4, &st));
	CU_ASSERT_EQUAL(xcm_store4_begin(s, &g_in, &g_err), XCM_OK);
	CU_ASSERT_TRUE(xcm_store4_get(s, g_in.list_id4, &st));
	CU_ASSERT_EQUAL(st.op_status, XCM_RCS4_IN_PROGRESS);
	CU_ASSERT_EQUAL(st.sa, 0x01);
	CU_ASSERT_EQUAL(st.est_delay_ms, 0xFFFFFFFFu);
	/* the same id again while in use: OPERATION IN PROGRESS 00/16 */
	UT_EXPECT_ERR(xcm_store4_begin(s, &g_in, &g_err), &g_err, XCM_E_OP_IN_PROGRESS, -1);
	CU_ASSERT_EQUAL(xcm_status_info(XCM_E_OP_IN_PROGRESS)->asc_ascq, 0x0016);
	xcm_store4_finish(s, &g_in, XCM_OK, &res, false, NULL, 0);
	CU_ASSERT_TRUE(xcm_store4_get(s, g_in.list_id4, &st));
	CU_ASSERT_EQUAL(st.op_status, XCM_RCS4_DONE);
	CU_ASSERT_EQUAL(st.cmd_status, XCM_SAM_GOOD);
	CU_ASSERT_EQUAL(st.bytes, 4096);
	CU_ASSERT_EQUAL(st.segs, 2);
	CU_ASSERT_EQUAL(st.sense_len, 0);
	CU_ASSERT_EQUAL(st.est_delay_ms, 0xFFFFFFFEu);
	/* reused after completion; terminated by COPY OPERATION ABORT: 60h, with its sense */
	CU_ASSERT_EQUAL(xcm_store4_begin(s, &g_in, &g_err), XCM_OK);
	xcm_store4_finish(s, &g_in, XCM_E_CA_ABORTED, &res, true, sense, sizeof(sense));
	CU_ASSERT_TRUE(xcm_store4_get(s, g_in.list_id4, &st));
	CU_ASSERT_EQUAL(st.op_status, XCM_RCS4_TERMINATED);
	CU_ASSERT_EQUAL(st.cmd_status, XCM_SAM_CHECK_CONDITION);
	CU_ASSERT_EQUAL(st.sense_len, 18);
	CU_ASSERT_EQUAL(st.sense[2], XCM_SK_COPY_ABORTED);
	/* an error without termination: 02h */
	CU_ASSERT_EQUAL(xcm_store4_begin(s, &g_in, &g_err), XCM_OK);
	xcm_store4_finish(s, &g_in, XCM_E_CA_DEVICE_FAILURE, &res, false, sense, sizeof(sense));
	CU_ASSERT_TRUE(xcm_store4_get(s, g_in.list_id4, &st) && st.op_status == XCM_RCS4_DONE_ERRORS);
	/* usage 11b keeps nothing */
	g_in.list_id_usage = XCM_LIST_ID_NONE;
	g_in.list_id4 = 0;
	CU_ASSERT_EQUAL(xcm_store4_begin(s, &g_in, &g_err), XCM_OK);
	xcm_store4_finish(s, &g_in, XCM_OK, &res, false, NULL, 0);
	CU_ASSERT_FALSE(xcm_store4_get(s, 0, &st));
	xcm_store4_destroy(s);
}

static void
store4_full(void)
{
	struct xcm_store4 *s = xcm_store4_create();
	struct xcm_rcs4 st;
	uint32_t i;

	UT_ASSERT_FATAL(s != NULL);
	build4(1);
	/* every record running: the next list cannot be tracked */
	for (i = 0; i < XCM_STORE4_MAX; i++) {
		g_in.list_id4 = 1000 + i;
		CU_ASSERT_EQUAL(xcm_store4_begin(s, &g_in, &g_err), XCM_OK);
	}
	g_in.list_id4 = 5;
	UT_EXPECT_ERR(xcm_store4_begin(s, &g_in, &g_err), &g_err, XCM_E_INSUFFICIENT_RESOURCES, -1);
	/* complete them in reverse order: the oldest completed (1000 + max - 1) goes first */
	for (i = XCM_STORE4_MAX; i-- > 0;) {
		g_in.list_id4 = 1000 + i;
		xcm_store4_finish(s, &g_in, XCM_OK, NULL, false, NULL, 0);
	}
	g_in.list_id4 = 5;
	CU_ASSERT_EQUAL(xcm_store4_begin(s, &g_in, &g_err), XCM_OK);
	CU_ASSERT_FALSE(xcm_store4_get(s, 1000, &st));   /* begun first: evicted */
	CU_ASSERT_TRUE(xcm_store4_get(s, 1001, &st));
	CU_ASSERT_TRUE(xcm_store4_get(s, 5, &st) && st.op_status == XCM_RCS4_IN_PROGRESS);
	xcm_store4_destroy(s);
}

static void
aborted_status_sense(void)
{
	const struct xcm_status_info *i = xcm_status_info(XCM_E_CA_ABORTED);
	struct xcm_err e;
	uint8_t b[96];

	CU_ASSERT_EQUAL(i->key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(i->asc_ascq, 0x0000);
	CU_ASSERT_EQUAL(i->scsi_status, XCM_SAM_CHECK_CONDITION);
	xcm_err_set_segment(&e, XCM_E_CA_ABORTED, 3, -1);
	memset(b, 0, sizeof(b));
	CU_ASSERT_TRUE(xcm_sense_build(&e, false, b, sizeof(b)) >= 18);
	CU_ASSERT_EQUAL(b[0], 0x70);
	CU_ASSERT_EQUAL(b[2] & 0x0F, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 8), 3);   /* COMMAND-SPECIFIC INFORMATION: segment */
	CU_ASSERT_EQUAL(b[12], 0);
	CU_ASSERT_EQUAL(b[13], 0);
}

static void
supported_service_actions(void)
{
	const uint8_t *sas;
	size_t n, i;
	bool lid4 = false, abort_sa = false, rcs4 = false;

	sas = xcm_supported_xcopy_sas(&n);
	for (i = 0; i < n; i++) {
		lid4 |= sas[i] == 0x01;
		abort_sa |= sas[i] == 0x1C;
	}
	sas = xcm_supported_rcr_sas(&n);
	for (i = 0; i < n; i++) {
		rcs4 |= sas[i] == 0x05;
	}
	CU_ASSERT_TRUE(lid4 && abort_sa && rcs4);
}

static CU_TestInfo lid4_tests[] = {
	{ "round_trip", lid4_round_trip },
	{ "header_errors", lid4_header_errors },
	{ "tpc_out_cdb", tpc_out_cdb },
	{ "rcs4_cdb", rcs4_cdb },
	{ "rcs4_encode_bytes", rcs4_encode_bytes },
	{ "store4_lifecycle", store4_lifecycle },
	{ "store4_full", store4_full },
	{ "aborted_status_sense", aborted_status_sense },
	{ "supported_service_actions", supported_service_actions },
	CU_TEST_INFO_NULL,
};

UT_SUITE(lid4, lid4_tests)
