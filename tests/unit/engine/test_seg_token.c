/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The vendor specific segment C0h, ROD token -> block device ranges
 * (engine/seg_token.c through xcm_list_parse / xcm_list_encode /
 * xcm_list_execute; layout docs/remote-tokens.md). The list is written out
 * byte for byte from the layout, not by the encoder; the decoder is checked
 * against it, then the encoder against the same bytes. Hostile inputs:
 * lengths, reserved bits, the source ID, a second C0h, overlapping ranges,
 * an unresolvable destination. Execution against the in-memory backend with
 * a token_copy op that records what it was asked.
 */
#include <errno.h>
#include <string.h>

#include "fake_backend.h"
#include "ut.h"
#include "xcm/exec.h"
#include "xcm/lid4.h"

enum {
	V_CSCD = 16,
	V_SEG = 48,                 /* the C0h */
	V_NR = 2,
	V_SEG_LEN = 536 + 16 * V_NR,
	V_LEN = V_SEG + V_SEG_LEN,
};

static uint8_t g_vec[V_LEN];
static uint8_t g_buf[V_LEN + 64];
static struct xcm_list g_out;
static struct xcm_err g_err;

/* LID1: one E4h (NAA 6, 16 bytes, 512-byte blocks), one C0h: F800h -> ID 0, 2 ranges. */
static void
build_vec(const uint8_t naa[16])
{
	uint8_t *s = g_vec + V_SEG;
	int i;

	memset(g_vec, 0, sizeof(g_vec));
	g_vec[0] = 0x01;
	g_vec[1] = 0x10;                     /* LIST ID USAGE 10b */
	g_vec[3] = 32;                        /* CSCD list length */
	xcm_put_be32(g_vec + 8, V_SEG_LEN);   /* segment list length */
	g_vec[V_CSCD] = 0xe4;
	g_vec[V_CSCD + 4] = 0x01;             /* binary */
	g_vec[V_CSCD + 5] = 0x03;             /* LU association, NAA */
	g_vec[V_CSCD + 7] = 16;
	memcpy(g_vec + V_CSCD + 8, naa, 16);
	g_vec[V_CSCD + 30] = 0x02;            /* 512-byte blocks */
	s[0] = 0xc0;
	s[1] = 0x02;                          /* DEL_TKN */
	xcm_put_be16(s + 2, V_SEG_LEN - 4);
	xcm_put_be16(s + 4, 0xf800);
	xcm_put_be16(s + 6, 0);
	xcm_put_be64(s + 8, 3);               /* OFFSET INTO ROD */
	for (i = 0; i < 512; i++) {
		s[16 + i] = (uint8_t)(i * 7 + 1);
	}
	xcm_put_be16(s + 534, 16 * V_NR);
	xcm_put_be64(s + 536, 10);            /* 10 + 4 blocks */
	xcm_put_be32(s + 536 + 8, 4);
	xcm_put_be64(s + 552, 40);            /* 40 + 6 blocks */
	xcm_put_be32(s + 552 + 8, 6);
}

static const uint8_t g_naa[16] = { 0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

static enum xcm_status
parse_buf(size_t len, bool lid4)
{
	uint8_t *p = malloc(len);
	enum xcm_status st;

	UT_ASSERT_FATAL(p != NULL);
	memcpy(p, g_buf, len);
	memset(&g_err, 0xA5, sizeof(g_err));
	st = lid4 ? xcm_list_parse_lid4((uint32_t)len, xcm_span_make(p, len), &xcm_limits_default,
					&g_out, &g_err)
		  : xcm_list_parse((uint32_t)len, xcm_span_make(p, len), &xcm_limits_default,
				   &g_out, &g_err);
	free(p);
	CU_ASSERT_EQUAL(g_err.status, st);
	return st;
}

static enum xcm_status
parse(size_t len)
{
	return parse_buf(len, false);
}

static void
load(void)
{
	build_vec(g_naa);
	memcpy(g_buf, g_vec, sizeof(g_vec));
}

static void
tok_decoded_from_bytes(void)
{
	const struct xcm_tok_seg *t = &g_out.tok;
	int i, bad = 0;

	load();
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	CU_ASSERT_EQUAL(g_out.ncscd, 1);
	CU_ASSERT_EQUAL(g_out.nseg, 1);
	CU_ASSERT_EQUAL(g_out.seg[0].type, XCM_SEG_TOKEN);
	CU_ASSERT_PTR_NULL(g_out.seg[0].src);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].dst, &g_out.cscd[0]);
	CU_ASSERT_EQUAL(g_out.seg[0].offset, V_SEG);
	CU_ASSERT_TRUE(t->del_tkn);
	CU_ASSERT_EQUAL(t->offset, 3);
	for (i = 0; i < 512; i++) {
		bad += t->token[i] != (uint8_t)(i * 7 + 1);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(t->nranges, 2);
	CU_ASSERT_EQUAL(t->range[0].lba, 10);
	CU_ASSERT_EQUAL(t->range[0].count, 4);
	CU_ASSERT_EQUAL(t->range[1].lba, 40);
	CU_ASSERT_EQUAL(t->range[1].count, 6);
	CU_ASSERT_EQUAL(t->total_blocks, 10);
	/* DEL_TKN clear */
	g_buf[V_SEG + 1] = 0;
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	CU_ASSERT_FALSE(g_out.tok.del_tkn);
}

static void
tok_encoded_bytes(void)
{
	uint8_t out[V_LEN + 64];
	struct xcm_wbuf w = xcm_wbuf_make(out, sizeof(out));

	load();
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	CU_ASSERT_EQUAL_FATAL(xcm_list_encode(&g_out, &w), V_LEN);
	CU_ASSERT_EQUAL(memcmp(out, g_vec, V_LEN), 0);
	/* LID4 carries it too: the same CSCD and segment bytes after a 48-byte header */
	w = xcm_wbuf_make(out, sizeof(out));
	CU_ASSERT_EQUAL_FATAL(xcm_list_encode_lid4(&g_out, &w), V_LEN - 16 + 48);
	CU_ASSERT_EQUAL(memcmp(out + 48, g_vec + 16, V_LEN - 16), 0);
	memcpy(g_buf, out, w.len);
	CU_ASSERT_EQUAL(parse_buf(w.len, true), XCM_OK);
	CU_ASSERT_EQUAL(g_out.tok.nranges, 2);
	CU_ASSERT_EQUAL(g_out.seg[0].offset, 48 + 32);
}

static void
tok_fields_checked(void)
{
	/* source ID other than F800h */
	load();
	xcm_put_be16(g_buf + V_SEG + 4, 0);
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 4);
	/* reserved bits of byte 1 (FCO, CAT, 7:3) */
	load();
	g_buf[V_SEG + 1] |= 0x04;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 1);
	load();
	g_buf[V_SEG + 1] |= 0x01;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 1);
	/* reserved bytes 532-533 (528-531: TIME BUDGET) */
	load();
	g_buf[V_SEG + 532] = 1;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 532);
	/* RANGE DESCRIPTOR LENGTH disagreeing with DESCRIPTOR LENGTH */
	load();
	xcm_put_be16(g_buf + V_SEG + 534, 48);
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 534);
	load();
	xcm_put_be16(g_buf + V_SEG + 534, 0);
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 534);
	/* overlapping ranges: the second one */
	load();
	xcm_put_be64(g_buf + V_SEG + 552, 12);
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 552);
	/* a range descriptor's reserved bytes */
	load();
	g_buf[V_SEG + 536 + 13] = 1;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 536 + 13);
}

static void
tok_lengths_checked(void)
{
	static const uint16_t bad[] = { 0, 24, 532, 532 + 8, 532 + 15, 532 + 16 * 65 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		load();
		xcm_put_be16(g_buf + V_SEG + 2, bad[i]);
		UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 2);
	}
	/* the segment list ends inside the descriptor */
	load();
	xcm_put_be32(g_buf + 8, V_SEG_LEN - 16);
	CU_ASSERT_EQUAL(parse(V_LEN - 16), XCM_E_INVALID_FIELD_PARAM);
	/* a list cut short of what its header declares */
	load();
	CU_ASSERT_EQUAL(parse(V_LEN - 1), XCM_E_PARAM_LIST_LEN);
}

static void
tok_one_per_list(void)
{
	static uint8_t big[V_SEG + 2 * V_SEG_LEN];
	uint8_t *h = malloc(sizeof(big));
	enum xcm_status st;

	UT_ASSERT_FATAL(h != NULL);
	load();
	/* two C0h: the second is refused at its type byte */
	memcpy(big, g_vec, V_LEN);
	memcpy(big + V_LEN, g_vec + V_SEG, V_SEG_LEN);
	xcm_put_be32(big + 8, 2 * V_SEG_LEN);
	memcpy(h, big, sizeof(big));
	st = xcm_list_parse(sizeof(big), xcm_span_make(h, sizeof(big)), &xcm_limits_default,
			    &g_out, &g_err);
	free(h);
	UT_EXPECT_ERR(st, &g_err, XCM_E_INVALID_FIELD_PARAM, V_LEN);
	/* C0h beside another segment: refused at the C0h (a token refused at execution
	 * would answer ILLEGAL REQUEST after the other had written) */
	{
		static const uint8_t b2b[28] = { 0x02, 0, 0, 0x18, 0, 0, 0, 0, 0, 0, 0, 1 };
		static uint8_t two[V_LEN + 28];
		uint8_t *h2 = malloc(sizeof(two));

		UT_ASSERT_FATAL(h2 != NULL);
		memcpy(two, g_vec, V_SEG);
		memcpy(two + V_SEG, b2b, sizeof(b2b));
		memcpy(two + V_SEG + 28, g_vec + V_SEG, V_SEG_LEN);
		xcm_put_be32(two + 8, V_SEG_LEN + 28);
		memcpy(h2, two, sizeof(two));
		st = xcm_list_parse(sizeof(two), xcm_span_make(h2, sizeof(two)), &xcm_limits_default,
				    &g_out, &g_err);
		free(h2);
		UT_EXPECT_ERR(st, &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 28);
	}
	/* TIME BUDGET (bytes 528-531) decoded and encoded back */
	load();
	xcm_put_be32(g_buf + V_SEG + 528, 20000);
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	CU_ASSERT_EQUAL(g_out.tok.budget_ms, 20000);
	{
		uint8_t enc[V_LEN + 64];
		struct xcm_wbuf w = xcm_wbuf_make(enc, sizeof(enc));

		CU_ASSERT_EQUAL_FATAL(xcm_list_encode(&g_out, &w), V_LEN);
		CU_ASSERT_EQUAL(memcmp(enc, g_buf, V_LEN), 0);
	}
	/* a destination ID past the list: COPY ABORTED 08/04, segment pointer 6 */
	load();
	xcm_put_be16(g_buf + V_SEG + 6, 5);
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_E_CA_UNREACHABLE);
	CU_ASSERT_TRUE(g_err.sd && g_err.csi_valid && g_err.csi == 0 && g_err.field == 6);
}

static void
tok_advertised(void)
{
	size_t n, i;
	const uint8_t *c = xcm_supported_desc_codes(&n);
	bool seen = false;

	for (i = 0; i < n; i++) {
		seen = seen || c[i] == XCM_SEG_TOKEN;
		if (i > 0) {
			CU_ASSERT(c[i - 1] < c[i]);
		}
	}
	CU_ASSERT_TRUE(seen);
}

/* ---- execution ---- */

static struct {
	int calls;
	struct xt_lu *self, *dst;
	uint32_t nranges;
	uint64_t offset;
	enum xcm_status ret;
	uint64_t bytes;
	bool fill;
} g_tc;

/* Writes byte 0xC0 over every range (what a creator pushing the token's bytes would). */
static enum xcm_status
tc_token_copy(void *ctx, struct xt_lu *self, struct xt_lu *dst, const struct xcm_tok_seg *t,
	      uint64_t *bytes, struct xcm_io_err *ioerr)
{
	size_t len;
	uint8_t *d = fake_lu_data(dst, &len);
	uint32_t i;

	(void)ctx;
	g_tc.calls++;
	g_tc.self = self;
	g_tc.dst = dst;
	g_tc.nranges = t->nranges;
	g_tc.offset = t->offset;
	for (i = 0; g_tc.fill && i < t->nranges; i++) {
		memset(d + t->range[i].lba * 512, 0xC0, (size_t)t->range[i].count * 512);
	}
	*bytes = g_tc.bytes;
	if (g_tc.ret == XCM_E_CA_DEVICE_FAILURE) {
		ioerr->at_dst = true;
		ioerr->status = XCM_SAM_CHECK_CONDITION;
		ioerr->sense_len = 18;
		memset(ioerr->sense, 0, 18);
		ioerr->sense[0] = 0x70;
		ioerr->sense[2] = 0x03;
		ioerr->sense[12] = 0x0C;
	}
	return g_tc.ret;
}

static enum xcm_status
run_exec(struct fake_be *be, struct xt_lu *self, bool with_op)
{
	struct xcm_backend_ops ops = fake_ops;
	struct xcm_exec_result res;

	if (with_op) {
		ops.token_copy = tc_token_copy;
	}
	memset(&g_err, 0, sizeof(g_err));
	return xcm_list_execute(&g_out, &xcm_limits_default, &ops, be, self, &res, &g_err) ==
			       XCM_OK && res.bytes == g_tc.bytes && res.segs_processed == 1
		       ? XCM_OK
		       : g_err.status;
}

static void
tok_executed(void)
{
	struct fake_be *be = fake_create();
	struct xt_lu *a = fake_lu_add(be, 512, 64, 1), *b = fake_lu_add(be, 512, 64, 2);
	struct xcm_cscd c;
	size_t len;
	uint8_t *d, *ref;

	fake_lu_cscd(b, &c);
	build_vec(c.desig);
	memcpy(g_buf, g_vec, sizeof(g_vec));
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	d = fake_lu_data(b, &len);
	ref = malloc(len);
	UT_ASSERT_FATAL(ref != NULL);
	memcpy(ref, d, len);
	memset(ref + 10 * 512, 0xC0, 4 * 512);
	memset(ref + 40 * 512, 0xC0, 6 * 512);
	memset(&g_tc, 0, sizeof(g_tc));
	g_tc.fill = true;
	g_tc.bytes = 10 * 512;
	CU_ASSERT_EQUAL(run_exec(be, a, true), XCM_OK);
	CU_ASSERT_EQUAL(g_tc.calls, 1);
	CU_ASSERT_PTR_EQUAL(g_tc.self, a);
	CU_ASSERT_PTR_EQUAL(g_tc.dst, b);
	CU_ASSERT_EQUAL(g_tc.nranges, 2);
	CU_ASSERT_EQUAL(g_tc.offset, 3);
	/* the ranges written, nothing else */
	CU_ASSERT_EQUAL(memcmp(d, ref, len), 0);
	free(ref);

	/* the token's status comes back as is (ILLEGAL REQUEST 23/08) */
	memset(&g_tc, 0, sizeof(g_tc));
	g_tc.ret = XCM_E_TOKEN_CANCELLED;
	CU_ASSERT_EQUAL(run_exec(be, a, true), XCM_E_TOKEN_CANCELLED);
	CU_ASSERT_FALSE(g_err.csi_valid);
	/* a failed write: COPY ABORTED 0D/01, the destination's sense forwarded */
	memset(&g_tc, 0, sizeof(g_tc));
	g_tc.ret = XCM_E_CA_DEVICE_FAILURE;
	CU_ASSERT_EQUAL(run_exec(be, a, true), XCM_E_CA_DEVICE_FAILURE);
	CU_ASSERT_TRUE(g_err.fwd_valid && g_err.fwd_source == 2 && g_err.fwd_sense[12] == 0x0C);
	CU_ASSERT_TRUE(g_err.csi_valid && g_err.csi == 0);

	/* a range past the destination's end: 0D/02 at its descriptor, op not called */
	xcm_put_be64(g_buf + V_SEG + 552, 60);
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	memset(&g_tc, 0, sizeof(g_tc));
	CU_ASSERT_EQUAL(run_exec(be, a, true), XCM_E_CA_NOT_REACHABLE);
	CU_ASSERT_TRUE(g_err.sd && g_err.field == 536 + 16);
	CU_ASSERT_EQUAL(g_tc.calls, 0);

	/* a backend without the op: 26/09 at the segment, nothing called */
	memcpy(g_buf, g_vec, sizeof(g_vec));
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	memset(&g_tc, 0, sizeof(g_tc));
	CU_ASSERT_EQUAL(run_exec(be, a, false), XCM_E_UNSUPP_SEG_TYPE);
	CU_ASSERT_EQUAL(g_err.field, V_SEG);
	CU_ASSERT_EQUAL(g_tc.calls, 0);
	fake_destroy(be);
}

/* Review: a 4-byte C0h (DESCRIPTOR LENGTH 0) ending the list is read past its end. */
static void
tok_dlen0_at_end(void)
{
	load();
	g_buf[V_SEG + 2] = 0;
	g_buf[V_SEG + 3] = 0;
	xcm_put_be32(g_buf + 8, 4);
	UT_EXPECT_ERR(parse(V_SEG + 4), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 2);
}

/* Review: docs/remote-tokens.md: a range length disagreeing with the descriptor is 26/00 at 534. */
static void
tok_rlen_short(void)
{
	load();
	xcm_put_be16(g_buf + V_SEG + 534, 16);
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_SEG + 534);
}

static CU_TestInfo g_tests[] = {
	{ "tok_dlen0_at_end", tok_dlen0_at_end },
	{ "tok_rlen_short", tok_rlen_short },
	{ "tok_decoded_from_bytes", tok_decoded_from_bytes },
	{ "tok_encoded_bytes", tok_encoded_bytes },
	{ "tok_fields_checked", tok_fields_checked },
	{ "tok_lengths_checked", tok_lengths_checked },
	{ "tok_one_per_list", tok_one_per_list },
	{ "tok_advertised", tok_advertised },
	{ "tok_executed", tok_executed },
	CU_TEST_INFO_NULL,
};
UT_SUITE(seg_token, g_tests)
