/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Third-party Copy VPD page 8Fh (engine/vpd.c). */
#include <errno.h>
#include <string.h>

#include "ut.h"
#include "xcm/token.h"

#define CANARY 0xA5
#define BIG 1024

/* Default page: 4 + 20 (0001h) + 32 (0004h) + 8 (0008h) + 8 (000Ch) + 36 (8001h). */
/* 0008h: 1 + 4 codes (02h 0Ah E4h EAh), padded to 8 */
#define PAGE_LEN (4 + 24 + 32 + 12 + 8 + 36)

static size_t
encode(const struct xcm_limits *l, uint8_t pdt, uint8_t *b, size_t cap)
{
	struct xcm_wbuf w = xcm_wbuf_make(b, cap);

	xcm_vpd_tpc_encode(l, pdt, &w);
	return w.len;
}

/* Offset of the first descriptor of type t, or 0. */
static size_t
find_desc(const uint8_t *b, size_t len, uint16_t t)
{
	size_t off = 4;

	while (off + 4 <= len) {
		if (xcm_get_be16(b + off) == t) {
			return off;
		}
		off += 4 + xcm_get_be16(b + off + 2);
	}
	return 0;
}

static void
vpd_page_layout(void)
{
	uint8_t b[BIG];
	size_t n, off;
	unsigned count = 0;

	n = encode(&xcm_limits_default, 0x00, b, sizeof(b));
	CU_ASSERT_EQUAL(n, PAGE_LEN);
	CU_ASSERT_EQUAL(b[0], 0x00);
	CU_ASSERT_EQUAL(b[1], 0x8F);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 2), n - 4);
	/* descriptors in order, each padded to a multiple of 4, ending at the page end */
	for (off = 4; off < n; count++) {
		size_t dl = 4 + xcm_get_be16(b + off + 2);

		CU_ASSERT_EQUAL(dl % 4, 0);
		off += dl;
	}
	CU_ASSERT_EQUAL(off, n);
	CU_ASSERT_EQUAL(count, 5);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 4), 0x0001);
	CU_ASSERT_EQUAL(find_desc(b, n, 0x0004), 28);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 30), 0x001C);
	CU_ASSERT_EQUAL(find_desc(b, n, 0x0008), 60);
	CU_ASSERT_EQUAL(find_desc(b, n, 0x000C), 72);
	CU_ASSERT_EQUAL(find_desc(b, n, 0x8001), 80);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 82), 0x0020);
}

static void
vpd_supported_commands_bytes(void)
{
	uint8_t b[BIG];
	const uint8_t exp[24] = {
		0x00, 0x01, 0x00, 0x14,
		16,                             /* COMMANDS SUPPORTED LIST LENGTH */
		/* EXTENDED COPY LID1, LID4, POPULATE TOKEN, WRITE USING TOKEN, COPY OPERATION ABORT */
		0x83, 5, 0x00, 0x01, 0x10, 0x11, 0x1C,
		/* RECEIVE COPY RESULTS, RCS(LID4), RRTI, REPORT ALL ROD TOKENS */
		0x84, 7, 0x00, 0x01, 0x03, 0x04, 0x05, 0x07, 0x08,
		0, 0, 0,                        /* pad */
	};

	encode(&xcm_limits_default, 0, b, sizeof(b));
	CU_ASSERT_EQUAL(memcmp(b + 4, exp, sizeof(exp)), 0);
}

static void
vpd_fixed_descriptors_bytes(void)
{
	const struct xcm_limits *l = &xcm_limits_default;
	uint8_t b[BIG];
	const uint8_t *codes;
	size_t nc, n, off, i;

	codes = xcm_supported_desc_codes(&nc);
	n = encode(l, 0, b, sizeof(b));
	/* 0004h Parameter Data: MAXIMUM INLINE DATA LENGTH at byte 16 (CTL, ddpt; sg3_utils reads 17) */
	off = find_desc(b, n, 0x0004);
	UT_ASSERT_FATAL(off != 0);
	CU_ASSERT_EQUAL(xcm_get_be16(b + off + 8), l->max_cscd);
	CU_ASSERT_EQUAL(xcm_get_be16(b + off + 10), l->max_seg);
	CU_ASSERT_EQUAL(xcm_get_be32(b + off + 12), l->max_desc_list_len);
	CU_ASSERT_EQUAL(xcm_get_be32(b + off + 16), l->max_inline_len);
	for (i = 4; i < 8; i++) {
		CU_ASSERT_EQUAL(b[off + i], 0);
	}
	for (i = 20; i < 32; i++) {
		CU_ASSERT_EQUAL(b[off + i], 0);
	}
	/* 0008h Supported Descriptors */
	off = find_desc(b, n, 0x0008);
	UT_ASSERT_FATAL(off != 0);
	CU_ASSERT_EQUAL(b[off + 4], nc);
	CU_ASSERT_EQUAL(memcmp(b + off + 5, codes, nc), 0);
	/* 000Ch Supported CSCD Descriptor IDs: FFFFh only */
	off = find_desc(b, n, 0x000C);
	UT_ASSERT_FATAL(off != 0);
	CU_ASSERT_EQUAL(xcm_get_be16(b + off + 2), 4);
	CU_ASSERT_EQUAL(xcm_get_be16(b + off + 4), 2);
	CU_ASSERT_EQUAL(xcm_get_be16(b + off + 6), 0xFFFF);
	/* 8001h General Copy Operations */
	off = find_desc(b, n, 0x8001);
	UT_ASSERT_FATAL(off != 0);
	CU_ASSERT_EQUAL(xcm_get_be32(b + off + 4), l->total_concurrent);
	CU_ASSERT_EQUAL(xcm_get_be32(b + off + 8), l->max_concurrent);
	CU_ASSERT_EQUAL(xcm_get_be32(b + off + 12), l->max_seg_len);
	CU_ASSERT_EQUAL(b[off + 16], l->data_seg_gran);
	CU_ASSERT_EQUAL(b[off + 17], l->inline_gran);
	for (i = 18; i < 36; i++) {
		CU_ASSERT_EQUAL(b[off + i], 0);
	}
}

static void
vpd_alloc_lengths(void)
{
	static const size_t caps[] = { 0, 1, 3, 4, PAGE_LEN - 1, PAGE_LEN, PAGE_LEN + 1, BIG - 1 };
	uint8_t full[BIG], b[BIG];
	size_t i, n;

	CU_ASSERT_EQUAL(encode(&xcm_limits_default, 0x00, full, sizeof(full)), PAGE_LEN);
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct xcm_wbuf w;

		memset(b, CANARY, sizeof(b));
		w = xcm_wbuf_make(b, caps[i]);
		xcm_vpd_tpc_encode(&xcm_limits_default, 0x00, &w);
		CU_ASSERT_EQUAL(w.len, PAGE_LEN);
		n = caps[i] < PAGE_LEN ? caps[i] : PAGE_LEN;
		CU_ASSERT_EQUAL(xcm_wbuf_stored(&w), n);
		CU_ASSERT_EQUAL(memcmp(b, full, n), 0);
		CU_ASSERT_EQUAL(b[caps[i]], CANARY);
	}
	CU_ASSERT_EQUAL(encode(&xcm_limits_default, 0, NULL, 0), PAGE_LEN);
}

static void
expect_info_matches(const struct xcm_tpc_info *t, const struct xcm_limits *l)
{
	const uint8_t *codes;
	size_t nc;

	codes = xcm_supported_desc_codes(&nc);
	CU_ASSERT_TRUE(t->has_supported_cmds);
	CU_ASSERT_TRUE(t->xcopy_lid1);
	CU_ASSERT_TRUE(t->rcr_copy_status);
	CU_ASSERT_TRUE(t->rcr_receive_data);
	CU_ASSERT_TRUE(t->rcr_op_params);
	CU_ASSERT_TRUE(t->rcr_failed_segment);
	CU_ASSERT_TRUE(t->has_param_data);
	CU_ASSERT_EQUAL(t->max_cscd, l->max_cscd);
	CU_ASSERT_EQUAL(t->max_seg, l->max_seg);
	CU_ASSERT_EQUAL(t->max_desc_list_len, l->max_desc_list_len);
	CU_ASSERT_EQUAL(t->max_inline_len, l->max_inline_len);
	CU_ASSERT_TRUE(t->has_supported_descs);
	CU_ASSERT_EQUAL(t->n_descs, nc);
	CU_ASSERT_EQUAL(memcmp(t->descs, codes, nc), 0);
	CU_ASSERT_TRUE(t->has_cscd_ids);
	CU_ASSERT_EQUAL(t->n_cscd_ids, 1);
	CU_ASSERT_EQUAL(t->cscd_ids[0], XCM_CSCD_ID_SELF);
	CU_ASSERT_TRUE(t->has_general_copy_ops);
	CU_ASSERT_EQUAL(t->total_concurrent, l->total_concurrent);
	CU_ASSERT_EQUAL(t->max_identified_concurrent, l->max_concurrent);
	CU_ASSERT_EQUAL(t->max_seg_len, l->max_seg_len);
	CU_ASSERT_EQUAL(t->data_seg_gran, l->data_seg_gran);
	CU_ASSERT_EQUAL(t->inline_gran, l->inline_gran);
}

static void
vpd_round_trip_default(void)
{
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	size_t n;

	n = encode(&xcm_limits_default, 0x00, b, sizeof(b));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	expect_info_matches(&t, &xcm_limits_default);
	/* the same numbers RCR OPERATING PARAMETERS reports */
	{
		uint8_t r[BIG];
		struct xcm_wbuf w = xcm_wbuf_make(r, sizeof(r));
		struct xcm_op_params p;

		xcm_rcr_encode_op_params(&xcm_limits_default, &w);
		UT_ASSERT_FATAL(xcm_rcr_decode_op_params(xcm_span_make(r, w.len), &p) == 0);
		CU_ASSERT_EQUAL(p.max_cscd, t.max_cscd);
		CU_ASSERT_EQUAL(p.max_seg, t.max_seg);
		CU_ASSERT_EQUAL(p.max_desc_list_len, t.max_desc_list_len);
		CU_ASSERT_EQUAL(p.max_inline_len, t.max_inline_len);
		CU_ASSERT_EQUAL(p.max_seg_len, t.max_seg_len);
		CU_ASSERT_EQUAL(p.n_impl, t.n_descs);
		CU_ASSERT_EQUAL(memcmp(p.impl, t.descs, t.n_descs), 0);
	}
}

static void
vpd_round_trip_custom(void)
{
	const struct xcm_limits l = {
		.max_cscd = 0x0102,
		.max_seg = 0xF0E1,
		.max_desc_list_len = 0xDEADBEEF,
		.max_seg_len = 0x87654321,
		.max_inline_len = 0x00ABCDEF,
		.held_data_limit = 0,
		.total_concurrent = 0xFFFF,
		.max_concurrent = 0xFE,
		.data_seg_gran = 12,
		.inline_gran = 3,
		.held_gran = 0,
		.snlid = false,
	};
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	size_t n;

	n = encode(&l, 0x1F, b, sizeof(b));
	CU_ASSERT_EQUAL(n, PAGE_LEN);
	CU_ASSERT_EQUAL(b[0], 0x1F);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	expect_info_matches(&t, &l);
}

static void
vpd_decode_wrong_page(void)
{
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	size_t n;

	n = encode(&xcm_limits_default, 0, b, sizeof(b));
	b[1] = 0x83;
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	b[1] = 0x8F;
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(NULL, 0), &t), -EINVAL);
}

static void
vpd_decode_truncated_sweep(void)
{
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	size_t n, len;

	n = encode(&xcm_limits_default, 0, b, sizeof(b));
	for (len = 0; len < n; len++) {
		uint8_t *copy = malloc(len + 1);   /* exact size for ASan */

		UT_ASSERT_FATAL(copy != NULL);
		memcpy(copy, b, len);
		CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(copy, len), &t), -EINVAL);
		free(copy);
	}
	/* trailing bytes past PAGE LENGTH are ignored */
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n + 10), &t), 0);
}

static void
vpd_decode_descriptor_past_page(void)
{
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	size_t n, off;

	/* 8001h is the last descriptor: make it one byte longer than the page */
	n = encode(&xcm_limits_default, 0, b, sizeof(b));
	off = find_desc(b, n, 0x8001);
	xcm_put_be16(b + off + 2, 0x0021);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, sizeof(b)), &t), -EINVAL);
	/* the first descriptor claiming the whole page and more */
	n = encode(&xcm_limits_default, 0, b, sizeof(b));
	xcm_put_be16(b + 6, 0xFFFF);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, sizeof(b)), &t), -EINVAL);
	/* two stray bytes after the last descriptor: a header that does not fit */
	n = encode(&xcm_limits_default, 0, b, sizeof(b));
	xcm_put_be16(b + 2, (uint16_t)(n - 4 + 2));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, sizeof(b)), &t), -EINVAL);
	/* PAGE LENGTH shorter than the descriptors: the last one runs past the page */
	n = encode(&xcm_limits_default, 0, b, sizeof(b));
	xcm_put_be16(b + 2, (uint16_t)(n - 4 - 4));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
}

static void
vpd_decode_unknown_skipped(void)
{
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	size_t n;

	/* append a C001h Held Data and a 0106h descriptor: skipped, rest decoded */
	n = encode(&xcm_limits_default, 0, b, sizeof(b));
	xcm_put_be16(b + n, 0xC001);
	xcm_put_be16(b + n + 2, 8);
	memset(b + n + 4, 0xFF, 8);
	n += 12;
	xcm_put_be16(b + n, 0x0106);
	xcm_put_be16(b + n + 2, 0);
	n += 4;
	xcm_put_be16(b + 2, (uint16_t)(n - 4));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	expect_info_matches(&t, &xcm_limits_default);
}

static void
vpd_decode_empty_page(void)
{
	const uint8_t b[4] = { 0, 0x8F, 0, 0 };
	struct xcm_tpc_info t;

	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, sizeof(b)), &t), 0);
	CU_ASSERT_FALSE(t.has_supported_cmds);
	CU_ASSERT_FALSE(t.has_param_data);
	CU_ASSERT_FALSE(t.has_general_copy_ops);
}

/* A page of one descriptor (type, body) for the malformed-body tests. */
static size_t
one_desc_page(uint8_t *b, uint16_t type, const uint8_t *body, size_t blen)
{
	b[0] = 0;
	b[1] = 0x8F;
	xcm_put_be16(b + 2, (uint16_t)(4 + blen));
	xcm_put_be16(b + 4, type);
	xcm_put_be16(b + 6, (uint16_t)blen);
	memcpy(b + 8, body, blen);
	return 8 + blen;
}

static void
vpd_decode_short_fixed_descriptors(void)
{
	uint8_t body[32], b[BIG];
	struct xcm_tpc_info t;
	size_t n;

	memset(body, 0, sizeof(body));
	/* Parameter Data needs 28 body bytes, General Copy Operations 32 */
	n = one_desc_page(b, 0x0004, body, 27);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	n = one_desc_page(b, 0x0004, body, 28);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	CU_ASSERT_TRUE(t.has_param_data);
	n = one_desc_page(b, 0x8001, body, 31);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	n = one_desc_page(b, 0x8001, body, 32);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	CU_ASSERT_TRUE(t.has_general_copy_ops);
}

static void
vpd_decode_list_lengths_past_descriptor(void)
{
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	size_t n;
	/* Supported Commands: list length 6, but the 84h entry claims 5 SAs */
	const uint8_t cmds_bad[8] = { 6, 0x83, 1, 0x00, 0x84, 5, 0x00, 0 };
	const uint8_t cmds_list_long[4] = { 9, 0x83, 1, 0x00 };
	const uint8_t cmds_ok[8] = { 6, 0x83, 1, 0x00, 0x84, 1, 0x03, 0 };
	const uint8_t descs_long[4] = { 4, 0x02, 0x0A, 0xE4 };
	const uint8_t ids_long[4] = { 0x00, 0x04, 0xFF, 0xFF };
	const uint8_t empty[1] = { 0 };

	n = one_desc_page(b, 0x0001, cmds_bad, sizeof(cmds_bad));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	n = one_desc_page(b, 0x0001, cmds_list_long, sizeof(cmds_list_long));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	n = one_desc_page(b, 0x0001, cmds_ok, sizeof(cmds_ok));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	CU_ASSERT_TRUE(t.xcopy_lid1);
	CU_ASSERT_TRUE(t.rcr_op_params);
	CU_ASSERT_FALSE(t.rcr_copy_status);
	n = one_desc_page(b, 0x0008, descs_long, sizeof(descs_long));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	n = one_desc_page(b, 0x000C, ids_long, sizeof(ids_long));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	/* descriptors too short for their list-length field */
	n = one_desc_page(b, 0x0001, empty, 0);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
	n = one_desc_page(b, 0x000C, empty, 1);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), -EINVAL);
}

static void
vpd_decode_many_cscd_ids(void)
{
	uint8_t body[2 + 2 * 40], b[BIG];
	struct xcm_tpc_info t;
	size_t n, i;

	xcm_put_be16(body, 2 * 40);
	for (i = 0; i < 40; i++) {
		xcm_put_be16(body + 2 + 2 * i, (uint16_t)(0xC000 + i));
	}
	n = one_desc_page(b, 0x000C, body, sizeof(body));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	CU_ASSERT_EQUAL(t.n_cscd_ids, 40);
	CU_ASSERT_EQUAL(t.cscd_ids[0], 0xC000);
	CU_ASSERT_EQUAL(t.cscd_ids[31], 0xC01F);
}

/* With the token limits: 0000h first at its exact length, 0106h and 0108h last. */
static void
vpd_token_descriptors(void)
{
	struct xcm_tok_limits tl = xcm_tok_limits_default;
	uint8_t b[BIG];
	struct xcm_tpc_info t;
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	size_t n, f;

	xcm_vpd_tpc_encode_tok(&xcm_limits_default, &tl, 4096, 0x00, &w);
	n = w.len;
	CU_ASSERT_EQUAL(n, PAGE_LEN + 36 + 96 + 8 + 3 * 64);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 2), n - 4);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 4), 0x0000);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 6), 0x0020);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 4 + 10), 64);            /* MAXIMUM RANGE DESCRIPTORS */
	CU_ASSERT_EQUAL(xcm_get_be32(b + 4 + 12), 600);           /* MAXIMUM INACTIVITY TIMEOUT */
	CU_ASSERT_EQUAL(xcm_get_be32(b + 4 + 16), 60);            /* DEFAULT INACTIVITY TIMEOUT */
	CU_ASSERT_EQUAL(xcm_get_be64(b + 4 + 20), (4ull << 30) / 4096);
	CU_ASSERT_EQUAL(xcm_get_be64(b + 4 + 28), (64ull << 20) / 4096); /* 64 MiB per WUT */
	CU_ASSERT_EQUAL(xcm_get_be16(b + 40), 0x0001);            /* then Supported Commands */
	f = find_desc(b, n, 0x0106);
	UT_ASSERT_FATAL(f != 0);
	CU_ASSERT_EQUAL(xcm_get_be16(b + f + 2), 92);
	CU_ASSERT_EQUAL(b[f + 4], 0);                             /* REMOTE TOKENS: none */
	CU_ASSERT_EQUAL(xcm_get_be32(b + f + 24), 600);
	CU_ASSERT_EQUAL(xcm_get_be16(b + f + 46), 48);
	CU_ASSERT_EQUAL(xcm_get_be16(b + f + 48 + 2), 0x002C);
	CU_ASSERT_EQUAL(xcm_get_be64(b + f + 48 + 8), 4ull << 30);
	f = find_desc(b, n, 0x0108);
	UT_ASSERT_FATAL(f != 0);
	CU_ASSERT_EQUAL(xcm_get_be16(b + f + 6), 3 * 64);
	CU_ASSERT_EQUAL(xcm_get_be32(b + f + 8), 0x00800000u);
	CU_ASSERT_EQUAL(b[f + 8 + 4], 0x03);
	CU_ASSERT_EQUAL(xcm_get_be32(b + f + 8 + 64), 0x00800001u);
	CU_ASSERT_EQUAL(xcm_get_be32(b + f + 8 + 128), 0xFFFF0001u);
	CU_ASSERT_EQUAL(b[f + 8 + 128 + 4], 0x02);                /* zero token: in only */
	CU_ASSERT_EQUAL(f + 8 + 3 * 64, n);
	CU_ASSERT_EQUAL(xcm_vpd_tpc_decode(xcm_span_make(b, n), &t), 0);
	CU_ASSERT_TRUE(t.has_bdrl && t.populate_token && t.rrti && t.xcopy_lid1);
	CU_ASSERT_EQUAL(t.max_ranges, 64);
	CU_ASSERT_EQUAL(t.optimal_blocks, 16384);
	/* a reflink store also makes persistent point-in-time tokens */
	tl.pit_persistent = true;
	w = xcm_wbuf_make(b, sizeof(b));
	xcm_vpd_tpc_encode_tok(&xcm_limits_default, &tl, 512, 0x00, &w);
	f = find_desc(b, w.len, 0x0108);
	CU_ASSERT_EQUAL(xcm_get_be32(b + f + 8 + 128), 0x00800002u);
	CU_ASSERT_EQUAL(xcm_get_be64(b + 4 + 28), (64ull << 20) / 512);
}

/*
 * The Block Device ROD Token Limits descriptor alone (vpd_rod.c): every field
 * written where the decoder reads it, sizes in blocks of block_len (0 = 512),
 * and a descriptor one byte short refused.
 */
static void
vpd_bdrl_descriptor_alone(void)
{
	const struct xcm_tok_limits tl = {
		.max_ranges = 17, .max_inactivity_s = 0x01020304, .default_inactivity_s = 99,
		.max_token_bytes = 3ull << 30, .optimal_bytes = 8ull << 20,
	};
	uint8_t b[64];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_tpc_info t;

	memset(&t, 0, sizeof(t));
	xcm_vpd_tpc_put_bdrl(&tl, 0, &w);
	UT_ASSERT_FATAL(w.len == 36);
	CU_ASSERT_EQUAL(xcm_get_be16(b), 0x0000);                 /* DESCRIPTOR TYPE */
	CU_ASSERT_EQUAL(xcm_get_be16(b + 2), 0x0020);             /* DESCRIPTOR LENGTH */
	CU_ASSERT_EQUAL(xcm_vpd_tpc_dec_bdrl(xcm_span_make(b, w.len), &t), 0);
	CU_ASSERT_TRUE(t.has_bdrl);
	CU_ASSERT_EQUAL(t.max_ranges, 17);
	CU_ASSERT_EQUAL(t.max_inactivity_s, 0x01020304);
	CU_ASSERT_EQUAL(t.default_inactivity_s, 99);
	CU_ASSERT_EQUAL(t.max_token_blocks, (3ull << 30) / 512);
	CU_ASSERT_EQUAL(t.optimal_blocks, (8ull << 20) / 512);
	memset(&t, 0, sizeof(t));
	CU_ASSERT_EQUAL(xcm_vpd_tpc_dec_bdrl(xcm_span_make(b, w.len - 1), &t), -EINVAL);
	CU_ASSERT_FALSE(t.has_bdrl);
}

static CU_TestInfo g_tests[] = {
	{ "token_descriptors", vpd_token_descriptors },
	{ "bdrl_descriptor_alone", vpd_bdrl_descriptor_alone },
	{ "page_layout", vpd_page_layout },
	{ "supported_commands_bytes", vpd_supported_commands_bytes },
	{ "fixed_descriptors_bytes", vpd_fixed_descriptors_bytes },
	{ "alloc_lengths", vpd_alloc_lengths },
	{ "round_trip_default", vpd_round_trip_default },
	{ "round_trip_custom", vpd_round_trip_custom },
	{ "decode_wrong_page", vpd_decode_wrong_page },
	{ "decode_truncated_sweep", vpd_decode_truncated_sweep },
	{ "decode_descriptor_past_page", vpd_decode_descriptor_past_page },
	{ "decode_unknown_skipped", vpd_decode_unknown_skipped },
	{ "decode_empty_page", vpd_decode_empty_page },
	{ "decode_short_fixed_descriptors", vpd_decode_short_fixed_descriptors },
	{ "decode_list_lengths_past_descriptor", vpd_decode_list_lengths_past_descriptor },
	{ "decode_many_cscd_ids", vpd_decode_many_cscd_ids },
	CU_TEST_INFO_NULL,
};
UT_SUITE(vpd, g_tests)
