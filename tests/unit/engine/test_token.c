/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Token (ODX) codec (engine/token.c, engine/rod.c): POPULATE TOKEN / WRITE
 * USING TOKEN CDB and parameter-list checks with their exact sense, RRTI /
 * REPORT ALL ROD TOKENS CDB checks, the ROD token and the RRTI response bytes.
 */
#include <string.h>

#include "ut.h"
#include "xcm/token.h"

#define NBLK 1000000u
static uint8_t g_buf[4096];
static struct xcm_tok_list g_in, g_out;
static struct xcm_err g_err;

/* A PT (sa 10h) or WUT (11h) list with n ranges of 8 blocks, 100 apart. */
static uint32_t
build(uint8_t sa, uint32_t n)
{
	struct xcm_wbuf w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	uint32_t i;

	memset(&g_in, 0, sizeof(g_in));
	g_in.nranges = n;
	for (i = 0; i < n; i++) {
		g_in.range[i].lba = 100u * i;
		g_in.range[i].count = 8;
	}
	g_in.offset = 0x1122334455ull;
	g_in.del_tkn = true;
	for (i = 0; i < XCM_ROD_TOKEN_LEN; i++) {
		g_in.token[i] = (uint8_t)(i * 7);
	}
	return (uint32_t)xcm_tok_list_encode(sa, &g_in, &w);
}

static enum xcm_status
parse(uint8_t sa, uint32_t plen, size_t have)
{
	return xcm_tok_list_parse(sa, plen, xcm_span_make(g_buf, have), &xcm_tok_limits_default,
				  NBLK, 512, &g_out, &g_err);
}

static void
tok_out_cdb(void)
{
	struct xcm_tok_out_req req;
	uint8_t cdb[16];
	int i;

	xcm_cdb_populate_token(cdb, 0xA1B2C3D4u, 16 + 64 * 16);
	CU_ASSERT_EQUAL(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, 0x10);
	CU_ASSERT_EQUAL(req.list_id, 0xA1B2C3D4u);
	CU_ASSERT_EQUAL(req.plen, 16 + 64 * 16);
	CU_ASSERT_EQUAL(cdb[6], 0xA1);
	xcm_cdb_write_using_token(cdb, 7, 536 + 16);
	CU_ASSERT_EQUAL(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, 0x11);
	/* reserved bytes 2-5: INVALID FIELD IN CDB at the byte */
	for (i = 2; i < 6; i++) {
		xcm_cdb_write_using_token(cdb, 7, 536 + 16);
		cdb[i] = 1;
		UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err),
			      &g_err, XCM_E_INVALID_FIELD_CDB, i);
		CU_ASSERT_TRUE(g_err.in_cdb);
	}
	xcm_cdb_write_using_token(cdb, 7, 536 + 16);
	cdb[14] = 0x80;
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 14);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 7);
	cdb[14] = 0x3F;   /* GROUP NUMBER is ignored */
	CU_ASSERT_EQUAL(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), XCM_OK);
	/* PARAMETER LIST LENGTH: fixed part + 1 .. 64 ranges, else field 10 */
	xcm_cdb_write_using_token(cdb, 7, 536 + 15);
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 10);
	xcm_cdb_populate_token(cdb, 7, 16 + 65 * 16);
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 10);
	xcm_cdb_populate_token(cdb, 7, 0);
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 10);
	/* other service actions and opcodes */
	xcm_cdb_populate_token(cdb, 7, 32);
	cdb[1] = 0x01;
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 1);
	cdb[1] = 0x30;   /* SA 10h with reserved bit 5 */
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, 1);
	cdb[0] = 0x84;
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 16, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_OPCODE, -1);
	UT_EXPECT_ERR(xcm_tok_out_cdb_check(cdb, 10, &xcm_tok_limits_default, &req, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_CDB, -1);
}

static void
tok_in_cdb(void)
{
	struct xcm_tok_in_req req;
	uint8_t cdb[16];
	int i;

	xcm_cdb_rrti(cdb, 0x01020304u, 600);
	CU_ASSERT_EQUAL(xcm_tok_in_cdb_check(cdb, 16, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, 0x07);
	CU_ASSERT_EQUAL(req.list_id, 0x01020304u);
	CU_ASSERT_EQUAL(req.alloc_len, 600);
	for (i = 6; i < 10; i++) {
		xcm_cdb_rrti(cdb, 1, 600);
		cdb[i] = 0xFF;
		UT_EXPECT_ERR(xcm_tok_in_cdb_check(cdb, 16, &req, &g_err), &g_err,
			      XCM_E_INVALID_FIELD_CDB, i);
	}
	xcm_cdb_rrti(cdb, 1, 600);
	cdb[14] = 1;
	UT_EXPECT_ERR(xcm_tok_in_cdb_check(cdb, 16, &req, &g_err), &g_err, XCM_E_INVALID_FIELD_CDB,
		      14);
	/* REPORT ALL ROD TOKENS: bytes 2-9 reserved */
	xcm_cdb_rrti(cdb, 0, 4096);
	cdb[1] = 0x08;
	CU_ASSERT_EQUAL(xcm_tok_in_cdb_check(cdb, 16, &req, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, 0x08);
	CU_ASSERT_EQUAL(req.alloc_len, 4096);
	cdb[3] = 1;
	UT_EXPECT_ERR(xcm_tok_in_cdb_check(cdb, 16, &req, &g_err), &g_err, XCM_E_INVALID_FIELD_CDB, 3);
	cdb[3] = 0;
	cdb[1] = 0x05;
	UT_EXPECT_ERR(xcm_tok_in_cdb_check(cdb, 16, &req, &g_err), &g_err, XCM_E_INVALID_FIELD_CDB, 1);
	cdb[0] = 0x83;
	UT_EXPECT_ERR(xcm_tok_in_cdb_check(cdb, 16, &req, &g_err), &g_err, XCM_E_INVALID_OPCODE, -1);
}

static void
pt_round_trip(void)
{
	uint32_t n = build(0x10, 64), i;

	CU_ASSERT_EQUAL(n, 16 + 64 * 16);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf), n - 2);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 14), 64 * 16);
	/* the first range descriptor at byte 16 (ddpt 0.97 writes it at 15: a known ddpt bug) */
	CU_ASSERT_EQUAL(xcm_get_be64(g_buf + 16 + 16), 100);
	CU_ASSERT_EQUAL(xcm_get_be32(g_buf + 16 + 24), 8);
	CU_ASSERT_EQUAL(parse(0x10, n, n), XCM_OK);
	CU_ASSERT_EQUAL(g_out.nranges, 64);
	CU_ASSERT_EQUAL(g_out.total_blocks, 64 * 8);
	CU_ASSERT_EQUAL(g_out.inactivity_s, xcm_tok_limits_default.default_inactivity_s);
	CU_ASSERT_EQUAL(g_out.rod_type, XCM_ROD_TYPE_PIT_DEFAULT);
	for (i = 0; i < 64; i++) {
		CU_ASSERT_EQUAL(g_out.range[i].lba, 100u * i);
	}
	/* plen longer than DATA LENGTH + 2: the rest is ignored */
	CU_ASSERT_EQUAL(parse(0x10, n + 16, n + 16), XCM_OK);
	CU_ASSERT_EQUAL(g_out.nranges, 64);
}

static void
pt_errors(void)
{
	struct xcm_tok_limits lim = xcm_tok_limits_default;
	uint32_t n = build(0x10, 2);

	/* fewer bytes than plen; DATA LENGTH + 2 > plen */
	UT_EXPECT_ERR(parse(0x10, n, n - 1), &g_err, XCM_E_PARAM_LIST_LEN, -1);
	xcm_put_be16(g_buf, (uint16_t)(n - 1));
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_PARAM_LIST_LEN, -1);
	n = build(0x10, 2);
	g_buf[2] = 0x04;
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 2);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 7 && !g_err.in_cdb);
	g_buf[2] = 0x01;   /* IMMED: not supported */
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 2);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 0);
	g_buf[2] = 0;
	g_buf[3] = 1;
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 3);
	g_buf[3] = 0;
	g_buf[13] = 1;
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 13);
	g_buf[13] = 0;
	/* inactivity timeout: maximum accepted, one more refused at field 4 */
	xcm_put_be32(g_buf + 4, 600);
	CU_ASSERT_EQUAL(parse(0x10, n, n), XCM_OK);
	CU_ASSERT_EQUAL(g_out.inactivity_s, 600);
	xcm_put_be32(g_buf + 4, 601);
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 4);
	xcm_put_be32(g_buf + 4, 0);
	/* RTV with a ROD type this copy manager does not make: field 8 */
	g_buf[2] = 0x02;
	xcm_put_be32(g_buf + 8, 0x00010000u);   /* access upon reference */
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 8);
	xcm_put_be32(g_buf + 8, XCM_ROD_TYPE_PIT_PERSISTENT);
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 8);
	lim.pit_persistent = true;
	CU_ASSERT_EQUAL(xcm_tok_list_parse(0x10, n, xcm_span_make(g_buf, n), &lim, NBLK, 512,
					   &g_out, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(g_out.rod_type, XCM_ROD_TYPE_PIT_PERSISTENT);
	xcm_put_be32(g_buf + 8, XCM_ROD_TYPE_PIT_VULNERABLE);
	CU_ASSERT_EQUAL(parse(0x10, n, n), XCM_OK);
	CU_ASSERT_EQUAL(g_out.rod_type, XCM_ROD_TYPE_PIT_VULNERABLE);
	xcm_put_be32(g_buf + 8, 0);
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 8);
}

static void
range_errors(void)
{
	struct xcm_tok_limits lim = xcm_tok_limits_default;
	uint32_t n = build(0x10, 2);

	/* BLOCK DEVICE RANGE DESCRIPTOR LENGTH: 0, not a multiple of 16, past the list */
	xcm_put_be16(g_buf + 14, 0);
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 14);
	xcm_put_be16(g_buf + 14, 24);
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 14);
	xcm_put_be16(g_buf + 14, 48);
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 14);
	/* more ranges than the limit */
	n = build(0x10, 3);
	lim.max_ranges = 2;
	UT_EXPECT_ERR(xcm_tok_list_parse(0x10, n, xcm_span_make(g_buf, n), &lim, NBLK, 512, &g_out,
					 &g_err), &g_err, XCM_E_TOO_MANY_SEG, -1);
	/* a range past the end: LBA OUT OF RANGE, INFORMATION = its LBA */
	UT_EXPECT_ERR(xcm_tok_list_parse(0x10, n, xcm_span_make(g_buf, n), &xcm_tok_limits_default,
					 207, 512, &g_out, &g_err), &g_err, XCM_E_LBA_OUT_OF_RANGE, -1);
	CU_ASSERT_TRUE(g_err.info_valid && g_err.info == 200);
	CU_ASSERT_EQUAL(xcm_tok_list_parse(0x10, n, xcm_span_make(g_buf, n), &xcm_tok_limits_default,
					   208, 512, &g_out, &g_err), XCM_OK);
	xcm_put_be64(g_buf + 16 + 32, UINT64_MAX - 2);   /* wraps */
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_LBA_OUT_OF_RANGE, -1);
	CU_ASSERT_EQUAL(g_err.info, UINT64_MAX - 2);
	/* overlapping ranges: INVALID FIELD at the second descriptor */
	n = build(0x10, 3);
	xcm_put_be64(g_buf + 16 + 32, 104);
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 48);
	/* a zero-length range overlaps nothing */
	xcm_put_be32(g_buf + 16 + 32 + 8, 0);
	CU_ASSERT_EQUAL(parse(0x10, n, n), XCM_OK);
	CU_ASSERT_EQUAL(g_out.total_blocks, 16);
	/* range descriptor bytes 12-15 reserved */
	g_buf[16 + 16 + 15] = 1;
	UT_EXPECT_ERR(parse(0x10, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 47);
	/* more bytes than one token may represent: field 14 */
	n = build(0x10, 1);
	xcm_put_be32(g_buf + 16 + 8, 0xFFFFFFFFu);
	UT_EXPECT_ERR(xcm_tok_list_parse(0x10, n, xcm_span_make(g_buf, n), &xcm_tok_limits_default,
					 UINT64_MAX, 512, &g_out, &g_err), &g_err,
		      XCM_E_INVALID_FIELD_PARAM, 14);
}

static void
wut_round_trip_errors(void)
{
	uint32_t n = build(0x11, 3);

	CU_ASSERT_EQUAL(n, 536 + 48);
	CU_ASSERT_EQUAL(g_buf[2], 0x02);
	CU_ASSERT_EQUAL(xcm_get_be64(g_buf + 8), 0x1122334455ull);
	CU_ASSERT_EQUAL(memcmp(g_buf + 16, g_in.token, 512), 0);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 534), 48);
	CU_ASSERT_EQUAL(xcm_get_be64(g_buf + 536 + 16), 100);
	CU_ASSERT_EQUAL(parse(0x11, n, n), XCM_OK);
	CU_ASSERT_TRUE(g_out.del_tkn);
	CU_ASSERT_EQUAL(g_out.offset, 0x1122334455ull);
	CU_ASSERT_EQUAL(memcmp(g_out.token, g_in.token, 512), 0);
	CU_ASSERT_EQUAL(g_out.nranges, 3);
	g_buf[5] = 1;
	UT_EXPECT_ERR(parse(0x11, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 5);
	g_buf[5] = 0;
	g_buf[530] = 1;
	UT_EXPECT_ERR(parse(0x11, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 530);
	g_buf[530] = 0;
	xcm_put_be16(g_buf + 534, 8);
	UT_EXPECT_ERR(parse(0x11, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 534);
	xcm_put_be16(g_buf + 534, 48);
	xcm_put_be64(g_buf + 536 + 32, 1);   /* overlaps the first range [0, 8) */
	UT_EXPECT_ERR(parse(0x11, n, n), &g_err, XCM_E_INVALID_FIELD_PARAM, 536 + 32);
	UT_EXPECT_ERR(parse(0x11, 100, 100), &g_err, XCM_E_PARAM_LIST_LEN, -1);
}

static void
make_token(struct xcm_rod_token *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->rod_type = XCM_ROD_TYPE_PIT_DEFAULT;
	t->id = 0xDEADBEEF00000001ull;
	t->creator_desig_len = 16;
	for (i = 0; i < 16; i++) {
		t->creator_desig[i] = (uint8_t)(0x60 + i);
	}
	t->bytes = 64ull << 20;
	t->block_len = 512;
	for (i = 0; i < XCM_ROD_RANDOM_LEN; i++) {
		t->random[i] = (uint8_t)(i ^ 0xA5);
	}
}

static void
rod_token(void)
{
	struct xcm_rod_token t, d;
	uint8_t b[512], z[512];

	make_token(&t);
	xcm_rod_token_encode(&t, b);
	CU_ASSERT_EQUAL(xcm_get_be32(b), XCM_ROD_TYPE_PIT_DEFAULT);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 6), 0x01F8);
	CU_ASSERT_EQUAL(xcm_get_be64(b + 8), t.id);
	CU_ASSERT_EQUAL(b[16], 0xE4);
	CU_ASSERT_EQUAL(b[16 + 4], 0x01);
	CU_ASSERT_EQUAL(b[16 + 5], 0x03);
	CU_ASSERT_EQUAL(b[16 + 7], 16);
	CU_ASSERT_EQUAL(b[16 + 8], 0x60);
	CU_ASSERT_EQUAL(xcm_get_be24(b + 16 + 29), 512);
	CU_ASSERT_EQUAL(xcm_get_be64(b + 48), 0);
	CU_ASSERT_EQUAL(xcm_get_be64(b + 56), 64ull << 20);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 96), 512);
	CU_ASSERT_EQUAL(b[128 + 3], 16);
	CU_ASSERT_EQUAL(b[256], 0xA5);
	CU_ASSERT_EQUAL(xcm_rod_token_decode(b, &d, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(memcmp(&t, &d, sizeof(t)), 0);
	CU_ASSERT_TRUE(xcm_rod_token_equal(b, b));
	memcpy(z, b, 512);
	z[511] ^= 1;
	CU_ASSERT_FALSE(xcm_rod_token_equal(b, z));
	/* wrong ROD TOKEN LENGTH: INVALID TOKEN LENGTH (23/0A) */
	z[7] = 0xF0;
	UT_EXPECT_ERR(xcm_rod_token_decode(z, &d, &g_err), &g_err, XCM_E_TOKEN_LENGTH, -1);
	/* a creator descriptor that is not an E4h NAA one: TOKEN CORRUPT (23/05) */
	memcpy(z, b, 512);
	z[16] = 0xE0;
	UT_EXPECT_ERR(xcm_rod_token_decode(z, &d, &g_err), &g_err, XCM_E_TOKEN_CORRUPT, -1);
	memcpy(z, b, 512);
	z[16 + 7] = 21;
	UT_EXPECT_ERR(xcm_rod_token_decode(z, &d, &g_err), &g_err, XCM_E_TOKEN_CORRUPT, -1);
	/* the block device zero token */
	xcm_rod_token_zero(z);
	CU_ASSERT_EQUAL(xcm_get_be32(z), 0xFFFF0001u);
	CU_ASSERT_EQUAL(xcm_get_be16(z + 6), 0x01F8);
	CU_ASSERT_EQUAL(xcm_rod_token_decode(z, &d, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(d.rod_type, XCM_ROD_TYPE_ZERO);
}

static void
rrti_bytes(void)
{
	struct xcm_rcs4 st, back;
	struct xcm_rod_token t;
	uint8_t tok[512], out[512], r[700];
	struct xcm_wbuf w;
	uint64_t blocks;
	bool has;

	make_token(&t);
	xcm_rod_token_encode(&t, tok);
	memset(&st, 0, sizeof(st));
	st.sa = 0x10;
	st.op_status = XCM_RCS4_DONE;
	st.est_delay_ms = UINT32_MAX - 1;
	st.bytes = 12345;
	st.segs = 9;
	w = xcm_wbuf_make(r, sizeof(r));
	xcm_rrti_encode(&st, 131072, tok, &w);
	CU_ASSERT_EQUAL(w.len, 32 + 4 + 2 + 512);
	CU_ASSERT_EQUAL(xcm_get_be32(r), 32 + 4 + 2 + 512 - 4);
	CU_ASSERT_EQUAL(r[4], 0x10);
	CU_ASSERT_EQUAL(r[5], 0x01);
	CU_ASSERT_EQUAL(r[13], 0);
	CU_ASSERT_EQUAL(r[15], 0xF1);
	CU_ASSERT_EQUAL(xcm_get_be64(r + 16), 131072);
	CU_ASSERT_EQUAL(xcm_get_be16(r + 24), 0);
	CU_ASSERT_EQUAL(xcm_get_be32(r + 32), 514);
	CU_ASSERT_EQUAL(xcm_get_be16(r + 36), 0);
	CU_ASSERT_EQUAL(memcmp(r + 38, tok, 512), 0);
	CU_ASSERT_EQUAL(xcm_rrti_decode(xcm_span_make(r, w.len), &back, &blocks, &has, out), 0);
	CU_ASSERT_TRUE(has);
	CU_ASSERT_EQUAL(blocks, 131072);
	CU_ASSERT_EQUAL(back.sa, 0x10);
	CU_ASSERT_EQUAL(memcmp(out, tok, 512), 0);
	/* a WUT that failed: sense data field, no token */
	st.sa = 0x11;
	st.op_status = XCM_RCS4_DONE_ERRORS;
	st.cmd_status = 2;
	st.sense_len = 18;
	memset(st.sense, 0x70, 18);
	w = xcm_wbuf_make(r, sizeof(r));
	xcm_rrti_encode(&st, 7, NULL, &w);
	CU_ASSERT_EQUAL(w.len, 32 + 18 + 4);
	CU_ASSERT_EQUAL(xcm_get_be32(r), 32 + 18 + 4 - 4);
	CU_ASSERT_EQUAL(r[13], 18);
	CU_ASSERT_EQUAL(r[14], 18);
	CU_ASSERT_EQUAL(xcm_get_be32(r + 50), 0);
	CU_ASSERT_EQUAL(xcm_rrti_decode(xcm_span_make(r, w.len), &back, &blocks, &has, out), 0);
	CU_ASSERT_FALSE(has);
	CU_ASSERT_EQUAL(back.sense_len, 18);
	CU_ASSERT_EQUAL(back.cmd_status, 2);
	/* short or inconsistent responses */
	CU_ASSERT_EQUAL(xcm_rrti_decode(xcm_span_make(r, 40), &back, &blocks, &has, out), -EINVAL);
	r[15] = 0;
	CU_ASSERT_EQUAL(xcm_rrti_decode(xcm_span_make(r, w.len), &back, &blocks, &has, out), -EINVAL);
	/* allocation length truncates, the full length is still counted */
	w = xcm_wbuf_make(r, 16);
	xcm_rrti_encode(&st, 7, tok, &w);
	CU_ASSERT_EQUAL(xcm_wbuf_stored(&w), 16);
	CU_ASSERT_EQUAL(w.len, 32 + 18 + 4 + 514);
}

static void
rart_bytes(void)
{
	uint8_t a[512], b[512], r[256];
	const uint8_t *list[2] = { a, b };
	struct xcm_wbuf w = xcm_wbuf_make(r, sizeof(r));

	memset(a, 0x11, sizeof(a));
	memset(b, 0x22, sizeof(b));
	xcm_rart_encode(list, 2, &w);
	CU_ASSERT_EQUAL(w.len, 8 + 192);
	CU_ASSERT_EQUAL(xcm_get_be32(r), 196);
	CU_ASSERT_EQUAL(r[8], 0x11);
	CU_ASSERT_EQUAL(r[8 + 95], 0x11);
	CU_ASSERT_EQUAL(r[8 + 96], 0x22);
}

static void
token_sense(void)
{
	static const struct {
		enum xcm_status st;
		uint16_t asc;
	} t[] = {
		{ XCM_E_TOKEN_OP, 0x2300 }, { XCM_E_TOKEN_UNSUPPORTED, 0x2301 },
		{ XCM_E_TOKEN_UNKNOWN, 0x2304 }, { XCM_E_TOKEN_CORRUPT, 0x2305 },
		{ XCM_E_TOKEN_EXPIRED, 0x2307 }, { XCM_E_TOKEN_CANCELLED, 0x2308 },
		{ XCM_E_TOKEN_DELETED, 0x2309 }, { XCM_E_TOKEN_LENGTH, 0x230A },
		{ XCM_E_NO_ROD_RESOURCES, 0x550C }, { XCM_E_NO_TOKEN_RESOURCES, 0x550D },
	};
	uint8_t s[96];
	struct xcm_err e;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CU_ASSERT_EQUAL(xcm_status_info(t[i].st)->key, XCM_SK_ILLEGAL_REQUEST);
		CU_ASSERT_EQUAL(xcm_status_info(t[i].st)->asc_ascq, t[i].asc);
		xcm_err_set(&e, t[i].st);
		CU_ASSERT_EQUAL(xcm_sense_build(&e, false, s, sizeof(s)), 18);
		CU_ASSERT_EQUAL(s[2], 0x05);
		CU_ASSERT_EQUAL(s[12], t[i].asc >> 8);
		CU_ASSERT_EQUAL(s[13], t[i].asc & 0xFF);
	}
}

static CU_TestInfo token_tests[] = {
	{ "tok_out_cdb", tok_out_cdb },
	{ "tok_in_cdb", tok_in_cdb },
	{ "pt_round_trip", pt_round_trip },
	{ "pt_errors", pt_errors },
	{ "range_errors", range_errors },
	{ "wut_round_trip_errors", wut_round_trip_errors },
	{ "rod_token", rod_token },
	{ "rrti_bytes", rrti_bytes },
	{ "rart_bytes", rart_bytes },
	{ "token_sense", token_sense },
	CU_TEST_INFO_NULL,
};

UT_SUITE(token, token_tests)
