/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY (LID1) CDB check and parameter-list parser: one negative test
 * per validation rule (status, ASC, field and bit pointer), the maximum-size
 * list, a truncation sweep, and libiscsi's captured commands.
 *
 * Lists are built with the production encoder, then single bytes are patched
 * at the offsets the spec gives (16 + 32 * i for CSCD i, and so on). Every
 * parse reads from a heap copy of exactly the received length, so ASan sees
 * any read past what arrived.
 */
#include <dirent.h>
#include <stdbool.h>
#include <string.h>

#include "ut.h"

#ifndef UT_VECTORS_DIR
#error "UT_VECTORS_DIR must name the libiscsi capture directory (see tests/tests.mk)"
#endif

#define BUF_MAX (XCM_PLIST_HDR_LEN + XCM_MAX_CSCD * XCM_CSCD_LEN + \
		 XCM_MAX_SEG * XCM_SEG_B2B_OFF_LEN + 64)

static struct xcm_list g_in;
static struct xcm_list g_out;
static uint8_t g_buf[BUF_MAX];
static struct xcm_err g_err;

/* Offsets of descriptors in a list of n CSCDs followed by 02h segments. */
#define CSCD_OFF(i) (XCM_PLIST_HDR_LEN + (i) * XCM_CSCD_LEN)
#define SEG_OFF(nc, j) (XCM_PLIST_HDR_LEN + (nc) * XCM_CSCD_LEN + (j) * XCM_SEG_B2B_LEN)

/*
 * Status, ASC/ASCQ, field pointer (UT_EXPECT_ERR), then the bit pointer
 * (bit < 0: none) and C/D = 0 (every field here is in the parameter list).
 */
#define EXPECT_SENSE(st, exp_st, asc, exp_field, exp_bit)                                  \
	do {                                                                       \
		enum xcm_status st_ = (st);                                        \
		int bit_ = (exp_bit);                                                  \
		UT_EXPECT_ERR(st_, &g_err, (exp_st), (exp_field));                     \
		CU_ASSERT_EQUAL(xcm_status_info(st_)->asc_ascq, (asc));            \
		CU_ASSERT_FALSE(g_err.in_cdb);                                     \
		if (bit_ < 0) {                                                    \
			CU_ASSERT_FALSE(g_err.bit_valid);                          \
		} else {                                                           \
			CU_ASSERT_TRUE(g_err.bit_valid);                           \
			CU_ASSERT_EQUAL(g_err.bit, bit_);                          \
		}                                                                  \
	} while (0)

#define EXPECT_PLEN(st) EXPECT_SENSE((st), XCM_E_PARAM_LIST_LEN, XCM_ASC_PARAM_LIST_LEN, -1, -1)
#define EXPECT_INVAL(st, field, bit)                                               \
	EXPECT_SENSE((st), XCM_E_INVALID_FIELD_PARAM, XCM_ASC_INVALID_FIELD_IN_PARAM, (field), \
		     (bit))

/* ncscd CSCDs, nseg 02h segments from CSCD 0 (or self) to the last CSCD (or self). */
static size_t
build(uint32_t ncscd, uint32_t nseg)
{
	struct xcm_wbuf w;
	uint32_t i;

	memset(&g_in, 0, sizeof(g_in));
	g_in.list_id = 1;
	g_in.list_id_usage = XCM_LIST_ID_DISCARD;
	g_in.ncscd = ncscd;
	g_in.nseg = nseg;
	for (i = 0; i < ncscd; i++) {
		ut_make_cscd(&g_in.cscd[i], (uint8_t)i);
	}
	for (i = 0; i < nseg; i++) {
		struct xcm_segment *s = &g_in.seg[i];

		s->type = XCM_SEG_B2B;
		s->src = ncscd > 0 ? &g_in.cscd[0] : &g_in.self;
		s->dst = ncscd > 0 ? &g_in.cscd[ncscd - 1] : &g_in.self;
		s->count = 2048;
		s->src_lba = (uint64_t)i * 2048;
		s->dst_lba = 0x1F800 + (uint64_t)i * 2048;
	}
	w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	return xcm_list_encode(&g_in, &w);
}

/* Re-encode g_in (after a test changed it) into g_buf. */
static size_t
build_encode(void)
{
	struct xcm_wbuf w = xcm_wbuf_make(g_buf, sizeof(g_buf));

	return xcm_list_encode(&g_in, &w);
}

/* Parse the first len bytes of g_buf (declared plen), from an exact-size heap copy. */
static enum xcm_status
parse_n(uint32_t plen, size_t len, const struct xcm_limits *lim)
{
	uint8_t *p = malloc(len > 0 ? len : 1);
	enum xcm_status st;

	UT_ASSERT_FATAL(p != NULL);
	memcpy(p, g_buf, len);
	memset(&g_err, 0xA5, sizeof(g_err));
	st = xcm_list_parse(plen, xcm_span_make(p, len), lim, &g_out, &g_err);
	free(p);
	CU_ASSERT_EQUAL(g_err.status, st);
	return st;
}

static enum xcm_status
parse_len(size_t len)
{
	return parse_n((uint32_t)len, len, &xcm_limits_default);
}

/* ---- CDB ---------------------------------------------------------------- */

static void
cdb_lid1_returns_plen(void)
{
	uint8_t cdb[16];
	uint32_t plen = 0;

	xcm_cdb_xcopy(cdb, 0x01020304u);
	CU_ASSERT_EQUAL(xcm_xcopy_cdb_check(cdb, sizeof(cdb), &plen, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(plen, 0x01020304u);
	/* reserved CDB bytes and bits 7:5 of byte 1 do not matter */
	cdb[1] = 0xE0;
	cdb[5] = 0xFF;
	CU_ASSERT_EQUAL(xcm_xcopy_cdb_check(cdb, 32, &plen, &g_err), XCM_OK);
}

static void
cdb_other_service_actions_rejected(void)
{
	uint8_t cdb[16];
	uint32_t plen = 7;
	int sa;

	for (sa = 1; sa < 32; sa++) {
		enum xcm_status st;

		xcm_cdb_xcopy(cdb, 100);
		cdb[1] = (uint8_t)sa;
		st = xcm_xcopy_cdb_check(cdb, sizeof(cdb), &plen, &g_err);
		UT_EXPECT_ERR(st, &g_err, XCM_E_INVALID_FIELD_CDB, 1);
		CU_ASSERT_EQUAL(xcm_status_info(st)->asc_ascq, XCM_ASC_INVALID_FIELD_IN_CDB);
		CU_ASSERT_TRUE(g_err.in_cdb);
		CU_ASSERT_TRUE(g_err.bit_valid);
		CU_ASSERT_EQUAL(g_err.bit, 4);
	}
	CU_ASSERT_EQUAL(plen, 7); /* untouched on error */
}

static void
cdb_short_or_wrong_opcode(void)
{
	uint8_t cdb[16];
	uint32_t plen = 0;
	enum xcm_status st;

	xcm_cdb_xcopy(cdb, 100);
	st = xcm_xcopy_cdb_check(cdb, 15, &plen, &g_err);
	UT_EXPECT_ERR(st, &g_err, XCM_E_INVALID_FIELD_CDB, -1);
	st = xcm_xcopy_cdb_check(NULL, 16, &plen, &g_err);
	UT_EXPECT_ERR(st, &g_err, XCM_E_INVALID_FIELD_CDB, -1);
	cdb[0] = XCM_OP_RCR;
	st = xcm_xcopy_cdb_check(cdb, 16, &plen, &g_err);
	UT_EXPECT_ERR(st, &g_err, XCM_E_INVALID_OPCODE, -1);
	CU_ASSERT_EQUAL(plen, 0);
}

/* ---- header ------------------------------------------------------------- */

static void
plen_zero_is_empty_list(void)
{
	build(2, 2);
	/* data present but PARAMETER LIST LENGTH 0: nothing is looked at */
	CU_ASSERT_EQUAL(parse_n(0, 100, &xcm_limits_default), XCM_OK);
	CU_ASSERT_EQUAL(g_out.ncscd, 0);
	CU_ASSERT_EQUAL(g_out.nseg, 0);
	CU_ASSERT_FALSE(g_err.sks_valid);
	CU_ASSERT_EQUAL(xcm_list_parse(0, xcm_span_make(NULL, 0), &xcm_limits_default, &g_out,
				       &g_err), XCM_OK);
	CU_ASSERT_EQUAL(g_out.nseg, 0);
}

static void
shorter_than_header(void)
{
	build(0, 0);
	/* declared length below the header */
	EXPECT_PLEN(parse_n(15, 15, &xcm_limits_default));
	EXPECT_PLEN(parse_n(1, 16, &xcm_limits_default));
	/* declared 16, but only 15 bytes arrived */
	EXPECT_PLEN(parse_n(16, 15, &xcm_limits_default));
	/* header only, no descriptors: valid and empty */
	CU_ASSERT_EQUAL(parse_len(16), XCM_OK);
	CU_ASSERT_EQUAL(g_out.ncscd, 0);
	CU_ASSERT_EQUAL(g_out.nseg, 0);
}

static void
desc_list_len_above_max(void)
{
	struct xcm_limits lim = xcm_limits_default;
	size_t len = build(2, 3);

	lim.max_desc_list_len = 2 * XCM_CSCD_LEN + 3 * XCM_SEG_B2B_LEN;
	CU_ASSERT_EQUAL(parse_n((uint32_t)len, len, &lim), XCM_OK);
	lim.max_desc_list_len--;
	EXPECT_PLEN(parse_n((uint32_t)len, len, &lim));
	/* even when inline data is allowed, so the received length alone would not catch it */
	lim.max_inline_len = 64;
	EXPECT_PLEN(parse_n((uint32_t)len, len, &lim));
	/* header lengths near 2^32 must not wrap */
	build(0, 0);
	xcm_put_be32(g_buf + 8, 0xFFFFFFF0u);
	xcm_put_be16(g_buf + 2, 0xFFE0);
	EXPECT_PLEN(parse_n(0xFFFFFFFFu, 16, &xcm_limits_default));
}

static void
desc_list_len_checked_before_counts(void)
{
	/* libiscsi DescrLimits case 3: above the CSCD count, segment count and list length */
	struct xcm_limits lim = xcm_limits_default;
	size_t len = build(3, 34);

	lim.max_cscd = 2;
	lim.max_seg = 1;
	lim.max_desc_list_len = 1024;
	EXPECT_PLEN(parse_n((uint32_t)len, len, &lim));
}

static void
inline_data_len_exceeded(void)
{
	struct xcm_limits lim = xcm_limits_default;
	size_t len = build(1, 1);

	/* our limit is 0: any inline data is too much, even when it was sent */
	xcm_put_be32(g_buf + 12, 4);
	EXPECT_SENSE(parse_n((uint32_t)len + 4, len + 4, &lim), XCM_E_INLINE_DATA_LEN,
		     XCM_ASC_INLINE_DATA_LEN_EXCEEDED, 12, -1);
	/* a copy manager that allows 4 bytes accepts them */
	lim.max_inline_len = 4;
	CU_ASSERT_EQUAL(parse_n((uint32_t)len + 4, len + 4, &lim), XCM_OK);
	CU_ASSERT_EQUAL(g_out.inline_len, 4);
	/* ... but not 5 */
	xcm_put_be32(g_buf + 12, 5);
	EXPECT_SENSE(parse_n((uint32_t)len + 5, len + 5, &lim), XCM_E_INLINE_DATA_LEN,
		     XCM_ASC_INLINE_DATA_LEN_EXCEEDED, 12, -1);
}

static void
lists_longer_than_declared_or_received(void)
{
	size_t len = build(1, 2);

	/* declared one byte short */
	EXPECT_PLEN(parse_n((uint32_t)len - 1, len, &xcm_limits_default));
	/* declared in full, one byte short received */
	EXPECT_PLEN(parse_n((uint32_t)len, len - 1, &xcm_limits_default));
	/* trailing bytes after the lists are allowed */
	CU_ASSERT_EQUAL(parse_n((uint32_t)len + 8, len + 8, &xcm_limits_default), XCM_OK);
	CU_ASSERT_EQUAL(g_out.nseg, 2);
	/* a huge PARAMETER LIST LENGTH with the real list in front is fine too */
	CU_ASSERT_EQUAL(parse_n(0xFFFFFFFFu, len, &xcm_limits_default), XCM_OK);
}

static void
too_many_cscds(void)
{
	struct xcm_limits lim = xcm_limits_default;
	size_t len = build(3, 1);

	lim.max_cscd = 2;
	EXPECT_SENSE(parse_n((uint32_t)len, len, &lim), XCM_E_TOO_MANY_CSCD,
		     XCM_ASC_TOO_MANY_CSCD, 2, -1);
	lim.max_cscd = 3;
	CU_ASSERT_EQUAL(parse_n((uint32_t)len, len, &lim), XCM_OK);
}

static void
limits_above_capacity_are_capped(void)
{
	/* a limits table larger than struct xcm_list can hold must not overflow it */
	struct xcm_limits lim = xcm_limits_default;
	size_t len;

	lim.max_cscd = XCM_MAX_CSCD + 10;
	len = build(XCM_MAX_CSCD, 0);
	/* a 65th CSCD: append it by hand (the encoder stops at the capacity) */
	memcpy(g_buf + len, g_buf + CSCD_OFF(0), XCM_CSCD_LEN);
	xcm_put_be16(g_buf + 2, (XCM_MAX_CSCD + 1) * XCM_CSCD_LEN);
	len += XCM_CSCD_LEN;
	EXPECT_SENSE(parse_n((uint32_t)len, len, &lim), XCM_E_TOO_MANY_CSCD,
		     XCM_ASC_TOO_MANY_CSCD, 2, -1);
}

/* ---- CSCD walk ---------------------------------------------------------- */

static void
cscd_unsupported_type(void)
{
	/* EAh is decoded (test_param_ip.c); E5h, E6h, EBh are not (docs/cscd-descriptors.md) */
	static const uint8_t types[] = { 0x00, 0x02, 0xE0, 0xE3, 0xE5, 0xE6, 0xEB, 0xFE, 0xFF };
	size_t i, len;

	for (i = 0; i < sizeof(types); i++) {
		len = build(3, 1);
		g_buf[CSCD_OFF(1)] = types[i];
		EXPECT_SENSE(parse_len(len), XCM_E_UNSUPP_CSCD_TYPE, XCM_ASC_UNSUPP_CSCD_TYPE,
			     CSCD_OFF(1), -1);
	}
}

static void
cscd_list_len_not_whole_descriptor(void)
{
	size_t len = build(1, 0);

	/* CSCD list length 40: a second E4h with only 8 bytes in the list */
	memset(g_buf + len, 0, 8);
	g_buf[len] = XCM_CSCD_ID;
	xcm_put_be16(g_buf + 2, 40);
	EXPECT_INVAL(parse_len(len + 8), 2, -1);
	/* the type is looked at first: an unsupported type in the tail is 26/07 */
	g_buf[len] = 0xE0;
	EXPECT_SENSE(parse_len(len + 8), XCM_E_UNSUPP_CSCD_TYPE, XCM_ASC_UNSUPP_CSCD_TYPE, len,
		     -1);
}

static void
cscd_lu_id_type_must_be_lun(void)
{
	uint8_t luid;

	for (luid = 1; luid < 4; luid++) {
		size_t len = build(2, 1);

		/* 01b proxy token (unsupported), 10b/11b reserved on SPC-3 */
		g_buf[CSCD_OFF(1) + 1] = (uint8_t)(luid << 6);
		EXPECT_INVAL(parse_len(len), CSCD_OFF(1) + 1, 7);
	}
}

static void
cscd_nul_is_recorded(void)
{
	size_t len = build(2, 1);

	g_buf[CSCD_OFF(1) + 1] = 0x20;
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_FALSE(g_out.cscd[0].nul);
	CU_ASSERT_TRUE(g_out.cscd[1].nul);
}

static void
cscd_pdt_must_be_block(void)
{
	uint8_t pdt;

	for (pdt = 1; pdt < 32; pdt++) {
		size_t len = build(1, 1);

		g_buf[CSCD_OFF(0) + 1] = pdt;
		EXPECT_INVAL(parse_len(len), CSCD_OFF(0) + 1, 4);
	}
}

static void
cscd_code_set(void)
{
	uint8_t cs;

	for (cs = 0; cs < 16; cs++) {
		size_t len = build(1, 1);
		enum xcm_status st;

		g_buf[CSCD_OFF(0) + 4] = cs;
		st = parse_len(len);
		if (cs >= 1 && cs <= 3) {
			CU_ASSERT_EQUAL(st, XCM_OK);
			CU_ASSERT_EQUAL(g_out.cscd[0].code_set, cs);
		} else {
			EXPECT_INVAL(st, CSCD_OFF(0) + 4, 3);
		}
	}
}

static void
cscd_association_must_be_lu(void)
{
	uint8_t a;

	for (a = 1; a < 4; a++) {
		size_t len = build(1, 1);

		g_buf[CSCD_OFF(0) + 5] = (uint8_t)((a << 4) | XCM_DESIG_NAA);
		EXPECT_INVAL(parse_len(len), CSCD_OFF(0) + 5, 5);
	}
}

static void
cscd_designator_type(void)
{
	uint8_t t;

	for (t = 0; t < 16; t++) {
		size_t len = build(1, 1);
		bool valid = t <= 3 || t == 7 || t == 8 || t == 0xA;
		enum xcm_status st;

		g_buf[CSCD_OFF(0) + 5] = t;
		st = parse_len(len);
		if (valid) {
			CU_ASSERT_EQUAL(st, XCM_OK);
			CU_ASSERT_EQUAL(g_out.cscd[0].desig_type, t);
		} else {
			EXPECT_INVAL(st, CSCD_OFF(0) + 5, 3);
		}
	}
}

static void
cscd_designator_length(void)
{
	size_t len = build(1, 1);

	g_buf[CSCD_OFF(0) + 7] = 0;
	EXPECT_INVAL(parse_len(len), CSCD_OFF(0) + 7, -1);
	g_buf[CSCD_OFF(0) + 7] = 21;
	EXPECT_INVAL(parse_len(len), CSCD_OFF(0) + 7, -1);
	g_buf[CSCD_OFF(0) + 7] = 255;
	EXPECT_INVAL(parse_len(len), CSCD_OFF(0) + 7, -1);
	/* 20 is the largest; the bytes past a shorter designator are not kept */
	g_buf[CSCD_OFF(0) + 7] = 20;
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_EQUAL(g_out.cscd[0].desig_len, 20);
	g_buf[CSCD_OFF(0) + 7] = 1;
	g_buf[CSCD_OFF(0) + 9] = 0x77;
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_EQUAL(g_out.cscd[0].desig[0], 0x60);
	CU_ASSERT_EQUAL(g_out.cscd[0].desig[1], 0);
}

static void
cscd_fields_decoded(void)
{
	size_t len = build(2, 1);
	const struct xcm_cscd *c;

	g_buf[CSCD_OFF(1) + 2] = 0x12;  /* RELATIVE INITIATOR PORT IDENTIFIER */
	g_buf[CSCD_OFF(1) + 3] = 0x34;
	g_buf[CSCD_OFF(1) + 4] = 0x92;  /* protocol id 9 (ignored), code set ASCII */
	g_buf[CSCD_OFF(1) + 5] = 0xC8;  /* PIV + reserved (ignored), SCSI name string */
	g_buf[CSCD_OFF(1) + 6] = 0xFF;  /* reserved */
	g_buf[CSCD_OFF(1) + 28] = 0xFF; /* PAD + reserved bits */
	xcm_put_be24(g_buf + CSCD_OFF(1) + 29, 0xABCDEF);
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	c = &g_out.cscd[1];
	CU_ASSERT_EQUAL(c->type, XCM_CSCD_ID);
	CU_ASSERT_EQUAL(c->rel_port, 0x1234);
	CU_ASSERT_EQUAL(c->code_set, XCM_CODE_SET_ASCII);
	CU_ASSERT_EQUAL(c->assoc, 0);
	CU_ASSERT_EQUAL(c->desig_type, XCM_DESIG_SCSI_NAME);
	CU_ASSERT_TRUE(c->pad);
	CU_ASSERT_EQUAL(c->block_len, 0xABCDEFu);
	CU_ASSERT_EQUAL(c->offset, CSCD_OFF(1));
	CU_ASSERT_EQUAL(g_out.cscd[0].offset, CSCD_OFF(0));
	CU_ASSERT_FALSE(g_out.cscd[0].pad);
	CU_ASSERT_EQUAL(g_out.cscd[0].block_len, 512);
	/* the designator is copied, not pointed at */
	CU_ASSERT_EQUAL(memcmp(c->desig, g_in.cscd[1].desig, 16), 0);
}

/* ---- segment walk ------------------------------------------------------- */

static void
seg_list_tail_below_header(void)
{
	uint32_t tail;

	for (tail = 1; tail < 4; tail++) {
		size_t len = build(1, 1);

		memset(g_buf + len, XCM_SEG_B2B, tail);
		xcm_put_be32(g_buf + 8, XCM_SEG_B2B_LEN + tail);
		EXPECT_INVAL(parse_len(len + tail), 8, -1);
	}
}

static void
seg_unsupported_type(void)
{
	int t;

	for (t = 0; t < 256; t++) {
		size_t len = build(1, 2);

		if (t == XCM_SEG_B2B || t == XCM_SEG_B2B_OFF || t == XCM_SEG_TOKEN) {
			continue;   /* C0h: test_seg_token.c */
		}
		g_buf[SEG_OFF(1, 1)] = (uint8_t)t;
		EXPECT_SENSE(parse_len(len), XCM_E_UNSUPP_SEG_TYPE, XCM_ASC_UNSUPP_SEG_TYPE,
			     SEG_OFF(1, 1), -1);
	}
}

static void
seg_type_checked_before_length(void)
{
	/* libiscsi DescrType: a 20-byte stream->stream (03h, DESCRIPTOR LENGTH 0010h) */
	size_t len = build(1, 0);

	memset(g_buf + len, 0, 20);
	g_buf[len] = 0x03;
	xcm_put_be16(g_buf + len + 2, 0x10);
	xcm_put_be32(g_buf + 8, 20);
	EXPECT_SENSE(parse_len(len + 20), XCM_E_UNSUPP_SEG_TYPE, XCM_ASC_UNSUPP_SEG_TYPE, len, -1);
}

static void
seg_descriptor_length_exact(void)
{
	static const uint16_t bad02[] = { 0, 0x14, 0x17, 0x19, 0x1C, 0xFFFF };
	size_t i, len;

	for (i = 0; i < sizeof(bad02) / sizeof(bad02[0]); i++) {
		len = build(1, 2);
		xcm_put_be16(g_buf + SEG_OFF(1, 1) + 2, bad02[i]);
		EXPECT_INVAL(parse_len(len), SEG_OFF(1, 1) + 2, -1);
	}
	/* 0Ah needs 001Ch: a 0Ah with 0018h (the 02h length) is rejected */
	len = build(1, 1);
	g_buf[SEG_OFF(1, 0)] = XCM_SEG_B2B_OFF;
	EXPECT_INVAL(parse_len(len), SEG_OFF(1, 0) + 2, -1);
}

static void
seg_descriptor_past_list(void)
{
	size_t len = build(1, 2);

	/* segment list length cuts the second descriptor short (bytes still present) */
	xcm_put_be32(g_buf + 8, XCM_SEG_B2B_LEN + 20);
	EXPECT_INVAL(parse_len(len), 8, -1);
	/* a 0Ah (32 bytes) where only 28 are listed */
	len = build(1, 1);
	g_buf[SEG_OFF(1, 0)] = XCM_SEG_B2B_OFF;
	xcm_put_be16(g_buf + SEG_OFF(1, 0) + 2, 0x1C);
	EXPECT_INVAL(parse_len(len), 8, -1);
}

static void
too_many_segments(void)
{
	struct xcm_limits lim = xcm_limits_default;
	size_t len = build(1, 4);

	lim.max_seg = 2;
	EXPECT_SENSE(parse_n((uint32_t)len, len, &lim), XCM_E_TOO_MANY_SEG,
		     XCM_ASC_TOO_MANY_SEG, SEG_OFF(1, 2), -1);
	lim.max_seg = 4;
	CU_ASSERT_EQUAL(parse_n((uint32_t)len, len, &lim), XCM_OK);
	CU_ASSERT_EQUAL(g_out.nseg, 4);
}

static void
seg_0a_dc_must_be_zero(void)
{
	struct xcm_wbuf w;
	size_t len;

	build(1, 1);
	g_in.seg[0].type = XCM_SEG_B2B_OFF;
	g_in.seg[0].dc = true;
	w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	len = xcm_list_encode(&g_in, &w);
	EXPECT_INVAL(parse_len(len), SEG_OFF(1, 0) + 1, 1);
	/* DC is fine on 02h */
	g_in.seg[0].type = XCM_SEG_B2B;
	w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	len = xcm_list_encode(&g_in, &w);
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_TRUE(g_out.seg[0].dc);
}

static void
seg_flags_and_reserved_bits(void)
{
	size_t len = build(1, 1);

	/* bits 7:3 reserved (ignored), FCO, DC, CAT recorded; bytes 8-9 reserved */
	g_buf[SEG_OFF(1, 0) + 1] = 0xFF;
	g_buf[SEG_OFF(1, 0) + 8] = 0xFF;
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_TRUE(g_out.seg[0].fco);
	CU_ASSERT_TRUE(g_out.seg[0].dc);
	CU_ASSERT_TRUE(g_out.seg[0].cat);
	CU_ASSERT_EQUAL(g_out.seg[0].count, 2048);
	CU_ASSERT_EQUAL(g_out.seg[0].offset, SEG_OFF(1, 0));
	g_buf[SEG_OFF(1, 0) + 1] = 0xF8;
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_FALSE(g_out.seg[0].fco);
	CU_ASSERT_FALSE(g_out.seg[0].dc);
	CU_ASSERT_FALSE(g_out.seg[0].cat);
}

static void
expect_unreachable(enum xcm_status st, uint32_t seg, int field)
{
	UT_EXPECT_ERR(st, &g_err, XCM_E_CA_UNREACHABLE, field);
	CU_ASSERT_EQUAL(xcm_status_info(st)->key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(xcm_status_info(st)->asc_ascq, XCM_ASC_UNREACHABLE_COPY_TARGET);
	CU_ASSERT_TRUE(g_err.csi_valid);
	CU_ASSERT_EQUAL(g_err.csi, seg);
	CU_ASSERT_TRUE(g_err.sd);
}

static void
seg_cscd_index_beyond_list(void)
{
	size_t len = build(2, 3);

	/* destination index == ncscd in segment 1 (libiscsi ValidSegDescr uses 1 of 1) */
	xcm_put_be16(g_buf + SEG_OFF(2, 1) + 6, 2);
	expect_unreachable(parse_len(len), 1, 6);
	/* source index far past the list in segment 0 wins: it comes first */
	xcm_put_be16(g_buf + SEG_OFF(2, 0) + 4, 0x07FF);
	expect_unreachable(parse_len(len), 0, 4);
	/* the largest valid index is still fine */
	len = build(2, 1);
	xcm_put_be16(g_buf + SEG_OFF(2, 0) + 4, 1);
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].src, &g_out.cscd[1]);
}

static void
seg_special_cscd_ids_unreachable(void)
{
	static const uint16_t ids[] = { 0x0800, 0x1234, 0xBFFF, 0xC000, 0xC001, 0xF800, 0xFFFE };
	size_t i, len;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		len = build(1, 1);
		xcm_put_be16(g_buf + SEG_OFF(1, 0) + 4, ids[i]);
		expect_unreachable(parse_len(len), 0, 4);
	}
}

static void
seg_self_id(void)
{
	size_t len = build(0, 2);

	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_EQUAL(g_out.nseg, 2);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].src, &g_out.self);
	CU_ASSERT_PTR_EQUAL(g_out.seg[1].dst, &g_out.self);
	CU_ASSERT_EQUAL(g_out.self.type, 0);
	CU_ASSERT_EQUAL(g_out.self.block_len, 0);
	CU_ASSERT_EQUAL(g_out.self.pdt, XCM_PDT_BLOCK);
	CU_ASSERT_EQUAL(g_out.self.desig_len, 0);
}

static void
seg_fields_decoded(void)
{
	struct xcm_wbuf w;
	const struct xcm_segment *s;
	size_t len;

	build(2, 2);
	g_in.seg[1].type = XCM_SEG_B2B_OFF;
	g_in.seg[1].src = &g_in.cscd[1];
	g_in.seg[1].dst = &g_in.self;
	g_in.seg[1].count = 0xFEDCBA98u;
	g_in.seg[1].src_lba = 0x0102030405060708ULL;
	g_in.seg[1].dst_lba = 0xFFFFFFFFFFFFFFFFULL;
	g_in.seg[1].src_off = 0x1FF;
	g_in.seg[1].dst_off = 0x8001;
	g_in.seg[1].cat = true;
	w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	len = xcm_list_encode(&g_in, &w);
	CU_ASSERT_EQUAL(len, 16 + 64 + 28 + 32);
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	s = &g_out.seg[1];
	CU_ASSERT_EQUAL(s->type, XCM_SEG_B2B_OFF);
	CU_ASSERT_PTR_EQUAL(s->src, &g_out.cscd[1]);
	CU_ASSERT_PTR_EQUAL(s->dst, &g_out.self);
	CU_ASSERT_EQUAL(s->count, 0xFEDCBA98u);
	CU_ASSERT_EQUAL(s->src_lba, 0x0102030405060708ULL);
	CU_ASSERT_EQUAL(s->dst_lba, 0xFFFFFFFFFFFFFFFFULL);
	CU_ASSERT_EQUAL(s->src_off, 0x1FF);
	CU_ASSERT_EQUAL(s->dst_off, 0x8001);
	CU_ASSERT_TRUE(s->cat);
	CU_ASSERT_EQUAL(s->offset, SEG_OFF(2, 1));
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].src, &g_out.cscd[0]);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].dst, &g_out.cscd[1]);
	CU_ASSERT_EQUAL(g_out.seg[0].dst_lba, 0x1F800);
}

/* ---- LIST ID ------------------------------------------------------------ */

static void
list_id_usage_reserved(void)
{
	size_t len = build(1, 1);

	g_buf[1] = 1u << 3;
	EXPECT_INVAL(parse_len(len), 1, 4);
}

static void
list_id_usage_none_needs_zero_id(void)
{
	size_t len = build(1, 1);

	g_buf[0] = 5;
	g_buf[1] = 3u << 3;
	EXPECT_INVAL(parse_len(len), 0, -1);
	g_buf[0] = 0;
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_EQUAL(g_out.list_id_usage, XCM_LIST_ID_NONE);
}

static void
list_id_usage_none_needs_snlid(void)
{
	struct xcm_limits lim = xcm_limits_default;
	size_t len = build(1, 1);

	lim.snlid = false;
	g_buf[0] = 0;
	g_buf[1] = 3u << 3;
	EXPECT_INVAL(parse_n((uint32_t)len, len, &lim), 1, 4);
	/* 00b and 10b need no SNLID */
	g_buf[1] = 0;
	CU_ASSERT_EQUAL(parse_n((uint32_t)len, len, &lim), XCM_OK);
	g_buf[1] = 2u << 3;
	CU_ASSERT_EQUAL(parse_n((uint32_t)len, len, &lim), XCM_OK);
}

static void
header_fields_and_reserved_bits(void)
{
	size_t len = build(1, 1);

	g_buf[0] = 0xA7;
	g_buf[1] = 0xC0 | 0x20 | (0u << 3) | 5; /* reserved bits 7:6, STR, hold, PRIORITY 5 */
	memset(g_buf + 4, 0xFF, 4);             /* reserved bytes 4-7 */
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_EQUAL(g_out.list_id, 0xA7);
	CU_ASSERT_TRUE(g_out.str);
	CU_ASSERT_EQUAL(g_out.list_id_usage, XCM_LIST_ID_HOLD);
	CU_ASSERT_EQUAL(g_out.priority, 5);
	CU_ASSERT_EQUAL(g_out.inline_len, 0);
}

static void
illegal_request_beats_unreachable(void)
{
	/* an unresolvable CSCD ID and a bad later segment: ILLEGAL REQUEST wins */
	size_t len = build(1, 2);

	xcm_put_be16(g_buf + SEG_OFF(1, 0) + 6, 9);
	g_buf[SEG_OFF(1, 1)] = 0x0D;
	EXPECT_SENSE(parse_len(len), XCM_E_UNSUPP_SEG_TYPE, XCM_ASC_UNSUPP_SEG_TYPE,
		     SEG_OFF(1, 1), -1);
	/* ... and so does a bad LIST ID USAGE */
	len = build(1, 2);
	xcm_put_be16(g_buf + SEG_OFF(1, 0) + 6, 9);
	g_buf[1] = 1u << 3;
	EXPECT_INVAL(parse_len(len), 1, 4);
}

/* ---- whole lists -------------------------------------------------------- */

static void
maximum_size_list(void)
{
	struct xcm_limits lim = xcm_limits_default;
	struct xcm_wbuf w;
	size_t len, desc;
	uint32_t i;

	build(XCM_MAX_CSCD, XCM_MAX_SEG);
	for (i = 0; i < XCM_MAX_SEG; i++) {
		struct xcm_segment *s = &g_in.seg[i];

		s->type = (i % 3 == 1) ? XCM_SEG_B2B_OFF : XCM_SEG_B2B;
		s->src = &g_in.cscd[i % XCM_MAX_CSCD];
		s->dst = (i % 7 == 0) ? &g_in.self : &g_in.cscd[(i * 5) % XCM_MAX_CSCD];
		s->count = s->type == XCM_SEG_B2B_OFF ? 0x10000u + i : i;
		s->src_off = (uint16_t)i;
	}
	w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	len = xcm_list_encode(&g_in, &w);
	UT_ASSERT_FATAL(len <= sizeof(g_buf));
	desc = len - XCM_PLIST_HDR_LEN;
	CU_ASSERT(desc <= xcm_limits_default.max_desc_list_len);
	CU_ASSERT_EQUAL(parse_len(len), XCM_OK);
	CU_ASSERT_EQUAL(g_out.ncscd, XCM_MAX_CSCD);
	CU_ASSERT_EQUAL(g_out.nseg, XCM_MAX_SEG);
	for (i = 0; i < XCM_MAX_SEG; i++) {
		const struct xcm_segment *s = &g_out.seg[i];

		CU_ASSERT_EQUAL(s->type, g_in.seg[i].type);
		CU_ASSERT_EQUAL(s->count, g_in.seg[i].count);
		CU_ASSERT_EQUAL(s->src_lba, g_in.seg[i].src_lba);
		CU_ASSERT_EQUAL(s->dst_lba, g_in.seg[i].dst_lba);
		CU_ASSERT_PTR_EQUAL(s->src, &g_out.cscd[i % XCM_MAX_CSCD]);
		CU_ASSERT_PTR_EQUAL(s->dst, (i % 7 == 0) ? &g_out.self :
					    &g_out.cscd[(i * 5) % XCM_MAX_CSCD]);
	}
	CU_ASSERT_EQUAL(g_out.seg[XCM_MAX_SEG - 1].offset, len - XCM_SEG_B2B_LEN);
	/* exactly at a tight MAXIMUM DESCRIPTOR LIST LENGTH, and one byte below */
	lim.max_desc_list_len = (uint32_t)desc;
	CU_ASSERT_EQUAL(parse_n((uint32_t)len, len, &lim), XCM_OK);
	lim.max_desc_list_len--;
	EXPECT_PLEN(parse_n((uint32_t)len, len, &lim));
	/* one segment more than the maximum count is 26/08 at its offset */
	memcpy(g_buf + len, g_buf + len - XCM_SEG_B2B_LEN, XCM_SEG_B2B_LEN);
	xcm_put_be32(g_buf + 8, (uint32_t)(desc - XCM_MAX_CSCD * XCM_CSCD_LEN + XCM_SEG_B2B_LEN));
	EXPECT_SENSE(parse_len(len + XCM_SEG_B2B_LEN), XCM_E_TOO_MANY_SEG, XCM_ASC_TOO_MANY_SEG,
		     len, -1);
}

static void
truncation_sweep(void)
{
	struct xcm_wbuf w;
	size_t full, n;

	build(3, 3);
	g_in.seg[1].type = XCM_SEG_B2B_OFF;
	w = xcm_wbuf_make(g_buf, sizeof(g_buf));
	full = xcm_list_encode(&g_in, &w);
	CU_ASSERT_EQUAL(full, 16 + 3 * 32 + 2 * 28 + 32);
	CU_ASSERT_EQUAL(parse_len(full), XCM_OK);
	for (n = 1; n < full; n++) {
		/* PARAMETER LIST LENGTH n, n bytes received */
		EXPECT_PLEN(parse_n((uint32_t)n, n, &xcm_limits_default));
		/* full length declared, only n bytes received */
		EXPECT_PLEN(parse_n((uint32_t)full, n, &xcm_limits_default));
	}
}

/* ---- libiscsi captures -------------------------------------------------- */

struct vector {
	const char *name;
	const char *what;
	enum xcm_status st;
	long field;           /* SKS field pointer, -1 none */
	int bit;              /* bit pointer, -1 none */
	long csi;             /* COPY ABORTED segment, -1 none */
};

/*
 * Expected verdicts under the limits of the capturing target (2 CSCDs, 1
 * segment, 1024-byte descriptor lists, like LIO): libiscsi sizes the
 * DescrLimits lists from the OPERATING PARAMETERS it read.
 */
static const struct vector g_vectors[] = {
	{ "libiscsi-ExtendedCopy-11.bin", "Simple", XCM_OK, -1, -1, -1 },
	{ "libiscsi-ExtendedCopy-12.bin", "ParamHdr: truncated CSCD", XCM_E_PARAM_LIST_LEN, -1, -1,
	  -1 },
	{ "libiscsi-ExtendedCopy-13.bin", "ParamHdr: truncated segment", XCM_E_PARAM_LIST_LEN, -1,
	  -1, -1 },
	{ "libiscsi-ExtendedCopy-14.bin", "ParamHdr: length 0", XCM_OK, -1, -1, -1 },
	{ "libiscsi-ExtendedCopy-15.bin", "DescrLimits: CSCDs", XCM_E_TOO_MANY_CSCD, 2, -1, -1 },
	{ "libiscsi-ExtendedCopy-16.bin", "DescrLimits: segments", XCM_E_TOO_MANY_SEG, 76, -1, -1 },
	{ "libiscsi-ExtendedCopy-17.bin", "DescrLimits: list length", XCM_E_PARAM_LIST_LEN, -1, -1,
	  -1 },
	{ "libiscsi-ExtendedCopy-18.bin", "DescrType: CSCD E0h", XCM_E_UNSUPP_CSCD_TYPE, 16, -1,
	  -1 },
	{ "libiscsi-ExtendedCopy-19.bin", "DescrType: segment 03h", XCM_E_UNSUPP_SEG_TYPE, 48, -1,
	  -1 },
	{ "libiscsi-ExtendedCopy-20.bin", "ValidTgtDescr: LU ID TYPE 10b",
	  XCM_E_INVALID_FIELD_PARAM, 17, 7, -1 },
	{ "libiscsi-ExtendedCopy-21.bin", "ValidTgtDescr: NUL", XCM_OK, -1, -1, -1 },
	{ "libiscsi-ExtendedCopy-22.bin", "ValidSegDescr: destination index 1",
	  XCM_E_CA_UNREACHABLE, 6, -1, 0 },
	{ "libiscsi-ExtendedCopy-23.bin", "ValidSegDescr: beyond the end (executor aborts)", XCM_OK,
	  -1, -1, -1 },
};

static const struct xcm_limits *
capture_limits(void)
{
	static struct xcm_limits lim;

	lim = xcm_limits_default;
	lim.max_cscd = 2;
	lim.max_seg = 1;
	lim.max_desc_list_len = 1024;
	return &lim;
}

static uint8_t *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (f == NULL) {
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	p = malloc(n > 0 ? (size_t)n : 1);
	if (p != NULL && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* CDB check, then the parse of what followed it, like the target does. */
static enum xcm_status
parse_command(const uint8_t *p, size_t len, const struct xcm_limits *lim)
{
	uint32_t plen = 0;
	enum xcm_status st;

	UT_ASSERT_FATAL(len >= XCM_CDB16_LEN);
	st = xcm_xcopy_cdb_check(p, XCM_CDB16_LEN, &plen, &g_err);
	CU_ASSERT_EQUAL(st, XCM_OK);
	return xcm_list_parse(plen, xcm_span_make(p + XCM_CDB16_LEN, len - XCM_CDB16_LEN), lim,
			      &g_out, &g_err);
}

static void
libiscsi_vectors(void)
{
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(g_vectors) / sizeof(g_vectors[0]); i++) {
		const struct vector *v = &g_vectors[i];
		enum xcm_status st;
		uint8_t *p;
		size_t len = 0;

		snprintf(path, sizeof(path), "%s/%s", UT_VECTORS_DIR, v->name);
		p = read_file(path, &len);
		if (p == NULL) {
			fprintf(stderr, "\nmissing vector %s\n", path);
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		st = parse_command(p, len, capture_limits());
		if (st != v->st) {
			fprintf(stderr, "\n%s (%s): got %s\n", v->name, v->what,
				xcm_status_info(st)->name);
		}
		UT_EXPECT_ERR(st, &g_err, v->st, v->field);
		if (v->bit >= 0) {
			CU_ASSERT_TRUE(g_err.bit_valid);
			CU_ASSERT_EQUAL(g_err.bit, v->bit);
		}
		if (v->csi >= 0) {
			CU_ASSERT_TRUE(g_err.csi_valid);
			CU_ASSERT_EQUAL(g_err.csi, (uint32_t)v->csi);
			CU_ASSERT_EQUAL(xcm_status_info(st)->key, XCM_SK_COPY_ABORTED);
			CU_ASSERT_EQUAL(xcm_status_info(st)->asc_ascq, 0x0804);
		}
		free(p);
	}
}

static void
libiscsi_vectors_details(void)
{
	char path[512];
	uint8_t *p;
	size_t len = 0;

	/* Simple: one NAA CSCD with 512-byte blocks, 2048 blocks from LBA 0 to 0x1F800 */
	snprintf(path, sizeof(path), "%s/libiscsi-ExtendedCopy-11.bin", UT_VECTORS_DIR);
	p = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(parse_command(p, len, capture_limits()), XCM_OK);
	CU_ASSERT_EQUAL(g_out.list_id, 1);
	CU_ASSERT_EQUAL(g_out.list_id_usage, XCM_LIST_ID_DISCARD);
	CU_ASSERT_EQUAL(g_out.ncscd, 1);
	CU_ASSERT_EQUAL(g_out.cscd[0].desig_type, XCM_DESIG_NAA);
	CU_ASSERT_EQUAL(g_out.cscd[0].desig_len, 16);
	CU_ASSERT_EQUAL(g_out.cscd[0].desig[0] >> 4, 6);
	CU_ASSERT_EQUAL(g_out.cscd[0].block_len, 512);
	CU_ASSERT_EQUAL(g_out.nseg, 1);
	CU_ASSERT_EQUAL(g_out.seg[0].count, 2048);
	CU_ASSERT_EQUAL(g_out.seg[0].dst_lba, 0x1F800);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].dst, &g_out.cscd[0]);
	free(p);

	/* NUL is recorded for the executor */
	snprintf(path, sizeof(path), "%s/libiscsi-ExtendedCopy-21.bin", UT_VECTORS_DIR);
	p = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(parse_command(p, len, capture_limits()), XCM_OK);
	CU_ASSERT_TRUE(g_out.cscd[0].nul);
	free(p);

	/*
	 * ValidSegDescr case 2 (hold list): 2048 blocks to LBA 1FFFFh of a
	 * 20000h-block LU. Well formed; the range check is the executor's.
	 */
	snprintf(path, sizeof(path), "%s/libiscsi-ExtendedCopy-23.bin", UT_VECTORS_DIR);
	p = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(parse_command(p, len, capture_limits()), XCM_OK);
	CU_ASSERT_EQUAL(g_out.list_id_usage, XCM_LIST_ID_HOLD);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].dst, &g_out.cscd[0]);
	CU_ASSERT_EQUAL(g_out.seg[0].count, 2048);
	CU_ASSERT_EQUAL(g_out.seg[0].dst_lba, 0x1FFFF);
	free(p);
}

static void
encoder_reproduces_libiscsi_simple(void)
{
	/* the host encoder builds libiscsi's Simple command byte for byte */
	static const uint8_t naa[16] = { 0x60, 0x01, 0x40, 0x5D, 0xD2, 0x4E, 0x61, 0x87,
					 0xD7, 0x24, 0x2A, 0x99, 0x87, 0xAE, 0x10, 0xED };
	uint8_t cdb[XCM_CDB16_LEN];
	char path[512];
	uint8_t *p;
	size_t len = 0, n;

	build(1, 1);
	g_in.cscd[0].desig_type = XCM_DESIG_NAA;
	memcpy(g_in.cscd[0].desig, naa, sizeof(naa));
	n = build_encode();
	xcm_cdb_xcopy(cdb, (uint32_t)n);
	snprintf(path, sizeof(path), "%s/libiscsi-ExtendedCopy-11.bin", UT_VECTORS_DIR);
	p = read_file(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL_FATAL(len, XCM_CDB16_LEN + n);
	CU_ASSERT_EQUAL(memcmp(p, cdb, XCM_CDB16_LEN), 0);
	CU_ASSERT_EQUAL(memcmp(p + XCM_CDB16_LEN, g_buf, n), 0);
	free(p);
}

static void
libiscsi_vectors_default_limits(void)
{
	/* our own limits (64 CSCDs, 1024 segments) accept the DescrLimits lists */
	static const char *const ok[] = { "libiscsi-ExtendedCopy-15.bin",
					  "libiscsi-ExtendedCopy-16.bin",
					  "libiscsi-ExtendedCopy-17.bin" };
	char path[512];
	DIR *d;
	struct dirent *e;
	size_t i, seen = 0;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint8_t *p;
		size_t len = 0;

		snprintf(path, sizeof(path), "%s/%s", UT_VECTORS_DIR, ok[i]);
		p = read_file(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL(parse_command(p, len, &xcm_limits_default), XCM_OK);
		free(p);
	}
	CU_ASSERT_EQUAL(g_out.ncscd, 3);
	CU_ASSERT_EQUAL(g_out.nseg, 34);
	/* every capture in the directory parses without a crash under both limit sets */
	d = opendir(UT_VECTORS_DIR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)) != NULL) {
		size_t nl = strlen(e->d_name);
		uint8_t *p;
		size_t len = 0;

		if (nl < 4 || strcmp(e->d_name + nl - 4, ".bin") != 0) {
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", UT_VECTORS_DIR, e->d_name);
		p = read_file(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		if (len >= XCM_CDB16_LEN) {
			(void)parse_command(p, len, &xcm_limits_default);
			(void)parse_command(p, len, capture_limits());
		}
		free(p);
		seen++;
	}
	closedir(d);
	CU_ASSERT(seen >= sizeof(g_vectors) / sizeof(g_vectors[0]));
}

static CU_TestInfo g_tests[] = {
	{ "cdb_lid1_returns_plen", cdb_lid1_returns_plen },
	{ "cdb_other_service_actions_rejected", cdb_other_service_actions_rejected },
	{ "cdb_short_or_wrong_opcode", cdb_short_or_wrong_opcode },
	{ "plen_zero_is_empty_list", plen_zero_is_empty_list },
	{ "shorter_than_header", shorter_than_header },
	{ "desc_list_len_above_max", desc_list_len_above_max },
	{ "desc_list_len_checked_before_counts", desc_list_len_checked_before_counts },
	{ "inline_data_len_exceeded", inline_data_len_exceeded },
	{ "lists_longer_than_declared_or_received", lists_longer_than_declared_or_received },
	{ "too_many_cscds", too_many_cscds },
	{ "limits_above_capacity_are_capped", limits_above_capacity_are_capped },
	{ "cscd_unsupported_type", cscd_unsupported_type },
	{ "cscd_list_len_not_whole_descriptor", cscd_list_len_not_whole_descriptor },
	{ "cscd_lu_id_type_must_be_lun", cscd_lu_id_type_must_be_lun },
	{ "cscd_nul_is_recorded", cscd_nul_is_recorded },
	{ "cscd_pdt_must_be_block", cscd_pdt_must_be_block },
	{ "cscd_code_set", cscd_code_set },
	{ "cscd_association_must_be_lu", cscd_association_must_be_lu },
	{ "cscd_designator_type", cscd_designator_type },
	{ "cscd_designator_length", cscd_designator_length },
	{ "cscd_fields_decoded", cscd_fields_decoded },
	{ "seg_list_tail_below_header", seg_list_tail_below_header },
	{ "seg_unsupported_type", seg_unsupported_type },
	{ "seg_type_checked_before_length", seg_type_checked_before_length },
	{ "seg_descriptor_length_exact", seg_descriptor_length_exact },
	{ "seg_descriptor_past_list", seg_descriptor_past_list },
	{ "too_many_segments", too_many_segments },
	{ "seg_0a_dc_must_be_zero", seg_0a_dc_must_be_zero },
	{ "seg_flags_and_reserved_bits", seg_flags_and_reserved_bits },
	{ "seg_cscd_index_beyond_list", seg_cscd_index_beyond_list },
	{ "seg_special_cscd_ids_unreachable", seg_special_cscd_ids_unreachable },
	{ "seg_self_id", seg_self_id },
	{ "seg_fields_decoded", seg_fields_decoded },
	{ "list_id_usage_reserved", list_id_usage_reserved },
	{ "list_id_usage_none_needs_zero_id", list_id_usage_none_needs_zero_id },
	{ "list_id_usage_none_needs_snlid", list_id_usage_none_needs_snlid },
	{ "header_fields_and_reserved_bits", header_fields_and_reserved_bits },
	{ "illegal_request_beats_unreachable", illegal_request_beats_unreachable },
	{ "maximum_size_list", maximum_size_list },
	{ "truncation_sweep", truncation_sweep },
	{ "libiscsi_vectors", libiscsi_vectors },
	{ "libiscsi_vectors_details", libiscsi_vectors_details },
	{ "libiscsi_vectors_default_limits", libiscsi_vectors_default_limits },
	{ "encoder_reproduces_libiscsi_simple", encoder_reproduces_libiscsi_simple },
	CU_TEST_INFO_NULL,
};
UT_SUITE(param, g_tests)
