/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RECEIVE COPY RESULTS: CDB check, encoders and decoders (engine/rcr.c). */
#include <errno.h>
#include <string.h>

#include "ut.h"

#define CANARY 0xA5
#define BIG 4096

typedef void (*encode_fn)(const void *ctx, struct xcm_wbuf *w);

/*
 * Encode at allocation lengths 0, 1, full - 1, full and larger: the stored
 * bytes are a prefix of the full encoding, w.len is the full length and the
 * byte after cap is untouched. Returns the full length; *full gets the bytes.
 */
static size_t
check_alloc_lengths(encode_fn enc, const void *ctx, uint8_t *full)
{
	uint8_t buf[BIG + 1];
	struct xcm_wbuf w;
	size_t caps[6], n, i;

	w = xcm_wbuf_make(full, BIG);
	enc(ctx, &w);
	n = w.len;
	UT_ASSERT_FATAL(n > 0 && n < BIG);
	caps[0] = 0;
	caps[1] = 1;
	caps[2] = n - 1;
	caps[3] = n;
	caps[4] = n + 1;
	caps[5] = n + 100;
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		memset(buf, CANARY, sizeof(buf));
		w = xcm_wbuf_make(buf, caps[i]);
		enc(ctx, &w);
		CU_ASSERT_EQUAL(w.len, n);
		CU_ASSERT_EQUAL(xcm_wbuf_stored(&w), caps[i] < n ? caps[i] : n);
		CU_ASSERT_EQUAL(memcmp(buf, full, caps[i] < n ? caps[i] : n), 0);
		CU_ASSERT_EQUAL(buf[caps[i]], CANARY);
	}
	/* no buffer at all: only the length is computed */
	w = xcm_wbuf_make(NULL, 0);
	enc(ctx, &w);
	CU_ASSERT_EQUAL(w.len, n);
	return n;
}

static void
make_cdb(uint8_t *cdb, uint8_t b1, uint8_t list_id, uint32_t alloc)
{
	memset(cdb, 0, XCM_CDB16_LEN);
	cdb[0] = XCM_OP_RCR;
	cdb[1] = b1;
	cdb[2] = list_id;
	xcm_put_be32(cdb + 10, alloc);
}

static bool
sa_supported(uint8_t sa)
{
	const uint8_t *sas;
	size_t n, i;

	sas = xcm_supported_rcr_sas(&n);
	for (i = 0; i < n; i++) {
		if (sas[i] == sa) {
			return true;
		}
	}
	return false;
}

static void
rcr_cdb_supported_sas(void)
{
	static const uint8_t want[] = { 0x00, 0x01, 0x03, 0x04 };
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_rcr_req req;
	struct xcm_err err;
	size_t i;

	for (i = 0; i < sizeof(want); i++) {
		CU_ASSERT_TRUE(sa_supported(want[i]));
		make_cdb(cdb, want[i], 0x5A, 0x01020304u + (uint32_t)i);
		memset(&req, 0xEE, sizeof(req));
		CU_ASSERT_EQUAL(xcm_rcr_cdb_check(cdb, sizeof(cdb), &req, &err), XCM_OK);
		CU_ASSERT_EQUAL(err.status, XCM_OK);
		CU_ASSERT_EQUAL(req.sa, want[i]);
		CU_ASSERT_EQUAL(req.alloc_len, 0x01020304u + (uint32_t)i);
		CU_ASSERT_EQUAL(req.list_id, want[i] == XCM_SA_RCR_OP_PARAMS ? 0 : 0x5A);
	}
}

static void
rcr_cdb_unsupported_sa(void)
{
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_rcr_req req;
	struct xcm_err err;
	enum xcm_status st;
	unsigned sa;
	unsigned nbad = 0;

	for (sa = 0; sa < 32; sa++) {
		if (sa_supported((uint8_t)sa)) {
			continue;
		}
		nbad++;
		make_cdb(cdb, (uint8_t)sa, 1, 100);
		st = xcm_rcr_cdb_check(cdb, sizeof(cdb), &req, &err);
		UT_EXPECT_ERR(st, &err, XCM_E_INVALID_FIELD_CDB, 1);
		CU_ASSERT_TRUE(err.in_cdb);
		CU_ASSERT_TRUE(err.bit_valid);
		CU_ASSERT_EQUAL(err.bit, 4);
	}
	/*
	 * 02h (reserved) and 06h among them; 05h (LID4), 07h, 08h (tokens) have
	 * their own checks (lid4.c, token.c)
	 */
	CU_ASSERT_EQUAL(nbad, 32 - 7);
}

static void
rcr_cdb_sa_high_bits_ignored(void)
{
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_rcr_req req;
	struct xcm_err err;

	/* byte 1 bits 7:5 are reserved; the SA is bits 4:0 */
	make_cdb(cdb, 0xE0 | XCM_SA_RCR_FAILED_SEGMENT, 9, 60);
	CU_ASSERT_EQUAL(xcm_rcr_cdb_check(cdb, sizeof(cdb), &req, &err), XCM_OK);
	CU_ASSERT_EQUAL(req.sa, XCM_SA_RCR_FAILED_SEGMENT);
	CU_ASSERT_EQUAL(req.list_id, 9);
}

static void
rcr_cdb_op_params_byte2_accepted(void)
{
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_rcr_req req;
	struct xcm_err err;
	unsigned v;

	/* D-12: reserved for SA 03h, but sg3_utils/libiscsi fill it in: accept any value */
	for (v = 0; v < 256; v += 51) {
		make_cdb(cdb, XCM_SA_RCR_OP_PARAMS, (uint8_t)v, 54);
		CU_ASSERT_EQUAL(xcm_rcr_cdb_check(cdb, sizeof(cdb), &req, &err), XCM_OK);
		CU_ASSERT_EQUAL(req.list_id, 0);
		CU_ASSERT_EQUAL(req.alloc_len, 54);
	}
}

static void
rcr_cdb_wrong_opcode_and_short(void)
{
	uint8_t cdb[XCM_CDB16_LEN];
	struct xcm_rcr_req req;
	struct xcm_err err;
	enum xcm_status st;
	size_t len;

	make_cdb(cdb, 0, 0, 12);
	cdb[0] = XCM_OP_XCOPY;
	st = xcm_rcr_cdb_check(cdb, sizeof(cdb), &req, &err);
	UT_EXPECT_ERR(st, &err, XCM_E_INVALID_OPCODE, -1);
	cdb[0] = XCM_OP_RCR;
	for (len = 0; len < XCM_CDB16_LEN; len++) {
		st = xcm_rcr_cdb_check(cdb, len, &req, &err);
		UT_EXPECT_ERR(st, &err, XCM_E_INVALID_FIELD_CDB, -1);
	}
	st = xcm_rcr_cdb_check(NULL, XCM_CDB16_LEN, &req, &err);
	UT_EXPECT_ERR(st, &err, XCM_E_INVALID_FIELD_CDB, -1);
	/* a longer buffer (e.g. a 32-byte CDB area) is fine */
	CU_ASSERT_EQUAL(xcm_rcr_cdb_check(cdb, XCM_CDB16_LEN, &req, &err), XCM_OK);
}

static void
rcr_copy_status_set_bytes(void)
{
	struct xcm_copy_status st;

	xcm_copy_status_set_bytes(&st, 0);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_BYTES);
	CU_ASSERT_EQUAL(st.transfer_count, 0);
	xcm_copy_status_set_bytes(&st, UINT32_MAX);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_BYTES);
	CU_ASSERT_EQUAL(st.transfer_count, UINT32_MAX);
	xcm_copy_status_set_bytes(&st, (uint64_t)UINT32_MAX + 1);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_KIB);
	CU_ASSERT_EQUAL(st.transfer_count, 1u << 22);
	/* largest KiB count, then the first that needs MiB */
	xcm_copy_status_set_bytes(&st, ((uint64_t)UINT32_MAX << 10) + 1023);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_KIB);
	CU_ASSERT_EQUAL(st.transfer_count, UINT32_MAX);
	xcm_copy_status_set_bytes(&st, (uint64_t)UINT32_MAX << 10 | 1ULL << 42);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_MIB);
	xcm_copy_status_set_bytes(&st, 1ULL << 50);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_MIB);
	CU_ASSERT_EQUAL(st.transfer_count, 1u << 30);
	xcm_copy_status_set_bytes(&st, (1ULL << 53) + 12345);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_GIB);
	CU_ASSERT_EQUAL(st.transfer_count, 1u << 23);
	xcm_copy_status_set_bytes(&st, UINT64_MAX);
	CU_ASSERT_EQUAL(st.units, XCM_TC_UNITS_TIB);
	CU_ASSERT_EQUAL(st.transfer_count, (1u << 24) - 1);
}

static void
enc_op_params(const void *ctx, struct xcm_wbuf *w)
{
	xcm_rcr_encode_op_params(ctx, w);
}

static void
rcr_op_params_layout(void)
{
	const struct xcm_limits *l = &xcm_limits_default;
	uint8_t b[BIG];
	const uint8_t *codes;
	size_t nc, n, i;

	codes = xcm_supported_desc_codes(&nc);
	n = check_alloc_lengths(enc_op_params, l, b);
	CU_ASSERT_EQUAL(n, 44 + nc);
	CU_ASSERT_EQUAL(xcm_get_be32(b), n - 4);
	CU_ASSERT_EQUAL(b[4], l->snlid ? 1 : 0);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 8), l->max_cscd);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 10), l->max_seg);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 12), l->max_desc_list_len);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 16), l->max_seg_len);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 20), l->max_inline_len);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 24), l->held_data_limit);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 28), 0);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 34), l->total_concurrent);
	CU_ASSERT_EQUAL(b[36], l->max_concurrent);
	CU_ASSERT_EQUAL(b[37], l->data_seg_gran);
	CU_ASSERT_EQUAL(b[38], l->inline_gran);
	CU_ASSERT_EQUAL(b[39], l->held_gran);
	CU_ASSERT_EQUAL(b[43], nc);
	CU_ASSERT_EQUAL(memcmp(b + 44, codes, nc), 0);
	/* reserved bytes are zero */
	for (i = 5; i < 8; i++) {
		CU_ASSERT_EQUAL(b[i], 0);
	}
	CU_ASSERT_EQUAL(b[32] | b[33] | b[40] | b[41] | b[42], 0);
	/* the codes are ascending: segment codes, then CSCD codes */
	for (i = 1; i < nc; i++) {
		CU_ASSERT(codes[i - 1] < codes[i]);
	}
}

static void
expect_op_params_match(const struct xcm_op_params *p, const struct xcm_limits *l)
{
	const uint8_t *codes;
	size_t nc;

	codes = xcm_supported_desc_codes(&nc);
	CU_ASSERT_EQUAL(p->snlid, l->snlid);
	CU_ASSERT_EQUAL(p->max_cscd, l->max_cscd);
	CU_ASSERT_EQUAL(p->max_seg, l->max_seg);
	CU_ASSERT_EQUAL(p->max_desc_list_len, l->max_desc_list_len);
	CU_ASSERT_EQUAL(p->max_seg_len, l->max_seg_len);
	CU_ASSERT_EQUAL(p->max_inline_len, l->max_inline_len);
	CU_ASSERT_EQUAL(p->held_data_limit, l->held_data_limit);
	CU_ASSERT_EQUAL(p->max_stream_xfer, 0);
	CU_ASSERT_EQUAL(p->total_concurrent, l->total_concurrent);
	CU_ASSERT_EQUAL(p->max_concurrent, l->max_concurrent);
	CU_ASSERT_EQUAL(p->data_seg_gran, l->data_seg_gran);
	CU_ASSERT_EQUAL(p->inline_gran, l->inline_gran);
	CU_ASSERT_EQUAL(p->held_gran, l->held_gran);
	CU_ASSERT_EQUAL(p->n_impl, nc);
	CU_ASSERT_EQUAL(memcmp(p->impl, codes, nc), 0);
}

static void
rcr_op_params_round_trip_default(void)
{
	uint8_t b[BIG];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_op_params p;

	xcm_rcr_encode_op_params(&xcm_limits_default, &w);
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, w.len), &p), 0);
	expect_op_params_match(&p, &xcm_limits_default);
	/* the limits the parser enforces are the default table: check the values too */
	CU_ASSERT_EQUAL(p.max_cscd, XCM_MAX_CSCD);
	CU_ASSERT_EQUAL(p.max_seg, XCM_MAX_SEG);
	CU_ASSERT_TRUE(p.snlid);
}

static void
rcr_op_params_round_trip_custom(void)
{
	const struct xcm_limits l = {
		.max_cscd = 0x1234,
		.max_seg = 0xFEDC,
		.max_desc_list_len = 0x89ABCDEF,
		.max_seg_len = 0x76543210,
		.max_inline_len = 0x0BADF00D,
		.held_data_limit = 0xCAFEBABE,
		.total_concurrent = 0xA55A,
		.max_concurrent = 0xC3,
		.data_seg_gran = 9,
		.inline_gran = 12,
		.held_gran = 0x7F,
		.snlid = false,
	};
	uint8_t b[BIG];
	struct xcm_op_params p;
	size_t n;

	n = check_alloc_lengths(enc_op_params, &l, b);
	CU_ASSERT_EQUAL(b[4], 0);
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, n), &p), 0);
	expect_op_params_match(&p, &l);
}

static void
rcr_op_params_decode_truncated_sweep(void)
{
	uint8_t b[BIG];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_op_params p;
	size_t len;

	xcm_rcr_encode_op_params(&xcm_limits_default, &w);
	for (len = 0; len < 44; len++) {
		uint8_t *copy = malloc(len + 1);   /* exact size for ASan */

		UT_ASSERT_FATAL(copy != NULL);
		memcpy(copy, b, len);
		CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(copy, len), &p), -EINVAL);
		free(copy);
	}
	/* from 44 bytes on, the codes present are decoded */
	for (len = 44; len <= w.len; len++) {
		CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, len), &p), 0);
		CU_ASSERT_EQUAL(p.n_impl, len - 44);
		CU_ASSERT_EQUAL(p.max_seg, xcm_limits_default.max_seg);
	}
}

static void
rcr_op_params_decode_available_data(void)
{
	uint8_t b[BIG];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_op_params p;

	xcm_rcr_encode_op_params(&xcm_limits_default, &w);
	/* AVAILABLE DATA below the fixed 40 bytes: not an OPERATING PARAMETERS response */
	xcm_put_be32(b, 39);
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, w.len), &p), -EINVAL);
	xcm_put_be32(b, 0);
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, w.len), &p), -EINVAL);
	/* 40: the fixed part only, so no codes although byte 43 says 3 */
	xcm_put_be32(b, 40);
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, w.len), &p), 0);
	CU_ASSERT_EQUAL(p.n_impl, 0);
	xcm_put_be32(b, 41);
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, w.len), &p), 0);
	CU_ASSERT_EQUAL(p.n_impl, 1);
	CU_ASSERT_EQUAL(p.impl[0], b[44]);
	/* huge AVAILABLE DATA (a truncated transfer): bounded by the buffer */
	xcm_put_be32(b, UINT32_MAX);
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, w.len), &p), 0);
	CU_ASSERT_EQUAL(p.n_impl, w.len - 44);
}

static void
rcr_op_params_decode_count_over_present(void)
{
	uint8_t b[44 + 255];
	struct xcm_op_params p;
	size_t i;

	/* byte 43 claims 255 codes, 10 are present */
	memset(b, 0, sizeof(b));
	xcm_put_be32(b, sizeof(b) - 4);
	b[43] = 255;
	for (i = 0; i < 10; i++) {
		b[44 + i] = (uint8_t)(0xE0 + i);
	}
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, 54), &p), 0);
	CU_ASSERT_EQUAL(p.n_impl, 10);
	CU_ASSERT_EQUAL(p.impl[9], 0xE9);
	/* all 255 present: all kept */
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, sizeof(b)), &p), 0);
	CU_ASSERT_EQUAL(p.n_impl, 255);
	/* fewer claimed than present: the claim wins */
	b[43] = 2;
	CU_ASSERT_EQUAL(xcm_rcr_decode_op_params(xcm_span_make(b, sizeof(b)), &p), 0);
	CU_ASSERT_EQUAL(p.n_impl, 2);
}

static void
enc_copy_status(const void *ctx, struct xcm_wbuf *w)
{
	xcm_rcr_encode_copy_status(ctx, w);
}

static void
rcr_copy_status_layout(void)
{
	struct xcm_copy_status st = {
		.cm_status = XCM_CM_STATUS_ERROR,
		.hdd = true,
		.segs_processed = 0x0102,
		.units = XCM_TC_UNITS_MIB,
		.transfer_count = 0xA0B0C0D0,
	};
	const uint8_t exp[12] = { 0, 0, 0, 8, 0x82, 0x01, 0x02, 0x02, 0xA0, 0xB0, 0xC0, 0xD0 };
	uint8_t b[BIG];

	CU_ASSERT_EQUAL(check_alloc_lengths(enc_copy_status, &st, b), 12);
	CU_ASSERT_EQUAL(memcmp(b, exp, sizeof(exp)), 0);
	/* COPY MANAGER STATUS is 7 bits: a stray bit 7 does not become HDD */
	st.hdd = false;
	st.cm_status = 0x81;
	check_alloc_lengths(enc_copy_status, &st, b);
	CU_ASSERT_EQUAL(b[4], 0x01);
}

static void
rcr_copy_status_round_trip(void)
{
	struct xcm_copy_status st, out;
	uint8_t b[12];
	struct xcm_wbuf w;
	uint64_t seed = 0x1234;
	int i;

	for (i = 0; i < 64; i++) {
		uint64_t r = ut_rand(&seed);

		memset(&st, 0, sizeof(st));
		st.cm_status = (uint8_t)(r % 3);
		st.hdd = (r >> 8) & 1;
		st.segs_processed = (uint16_t)(r >> 16);
		xcm_copy_status_set_bytes(&st, ut_rand(&seed) >> (r % 64));
		w = xcm_wbuf_make(b, sizeof(b));
		xcm_rcr_encode_copy_status(&st, &w);
		CU_ASSERT_EQUAL(xcm_rcr_decode_copy_status(xcm_span_make(b, w.len), &out), 0);
		CU_ASSERT_EQUAL(out.cm_status, st.cm_status);
		CU_ASSERT_EQUAL(out.hdd, st.hdd);
		CU_ASSERT_EQUAL(out.segs_processed, st.segs_processed);
		CU_ASSERT_EQUAL(out.units, st.units);
		CU_ASSERT_EQUAL(out.transfer_count, st.transfer_count);
	}
}

static void
rcr_copy_status_decode_truncated(void)
{
	struct xcm_copy_status st = { .cm_status = XCM_CM_STATUS_GOOD, .transfer_count = 7 };
	struct xcm_copy_status out;
	uint8_t b[16];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	size_t len;

	xcm_rcr_encode_copy_status(&st, &w);
	for (len = 0; len < 12; len++) {
		uint8_t *copy = malloc(len + 1);

		UT_ASSERT_FATAL(copy != NULL);
		memcpy(copy, b, len);
		CU_ASSERT_EQUAL(xcm_rcr_decode_copy_status(xcm_span_make(copy, len), &out),
				-EINVAL);
		free(copy);
	}
	CU_ASSERT_EQUAL(xcm_rcr_decode_copy_status(xcm_span_make(b, 12), &out), 0);
	CU_ASSERT_EQUAL(out.transfer_count, 7);
	/* AVAILABLE DATA below 8 */
	xcm_put_be32(b, 7);
	CU_ASSERT_EQUAL(xcm_rcr_decode_copy_status(xcm_span_make(b, 12), &out), -EINVAL);
	/* more than 8 is fine (a later revision may add fields) */
	xcm_put_be32(b, 12);
	CU_ASSERT_EQUAL(xcm_rcr_decode_copy_status(xcm_span_make(b, 16), &out), 0);
}

struct failed_ctx {
	uint8_t status;
	const uint8_t *sense;
	size_t len;
};

static void
enc_failed(const void *ctx, struct xcm_wbuf *w)
{
	const struct failed_ctx *c = ctx;

	xcm_rcr_encode_failed_segment(c->status, c->sense, c->len, w);
}

static void
rcr_failed_segment_nothing(void)
{
	const uint8_t zero4[4] = { 0 };
	struct failed_ctx c = { XCM_SAM_GOOD, NULL, 0 };
	uint8_t b[BIG];
	uint8_t s[1] = { 0x70 };

	CU_ASSERT_EQUAL(check_alloc_lengths(enc_failed, &c, b), 4);
	CU_ASSERT_EQUAL(memcmp(b, zero4, 4), 0);
	/* a buffer with length 0 is nothing as well */
	c.sense = s;
	CU_ASSERT_EQUAL(check_alloc_lengths(enc_failed, &c, b), 4);
}

static void
rcr_failed_segment_layout(void)
{
	uint8_t sense[18];
	struct failed_ctx c = { XCM_SAM_CHECK_CONDITION, sense, sizeof(sense) };
	uint8_t b[BIG];
	size_t i;

	for (i = 0; i < sizeof(sense); i++) {
		sense[i] = (uint8_t)(0x70 + i);
	}
	CU_ASSERT_EQUAL(check_alloc_lengths(enc_failed, &c, b), 60 + sizeof(sense));
	CU_ASSERT_EQUAL(xcm_get_be32(b), 56 + sizeof(sense));
	for (i = 4; i < 56; i++) {
		CU_ASSERT_EQUAL(b[i], 0);
	}
	CU_ASSERT_EQUAL(b[56], XCM_SAM_CHECK_CONDITION);
	CU_ASSERT_EQUAL(b[57], 0);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 58), sizeof(sense));
	CU_ASSERT_EQUAL(memcmp(b + 60, sense, sizeof(sense)), 0);
}

struct data_ctx {
	const uint8_t *held;
	size_t len;
};

static void
enc_data(const void *ctx, struct xcm_wbuf *w)
{
	const struct data_ctx *c = ctx;

	xcm_rcr_encode_receive_data(c->held, c->len, w);
}

static void
rcr_receive_data_layout(void)
{
	uint8_t held[300];
	struct data_ctx c = { held, sizeof(held) };
	uint8_t b[BIG];
	size_t i;

	for (i = 0; i < sizeof(held); i++) {
		held[i] = (uint8_t)(i * 7);
	}
	CU_ASSERT_EQUAL(check_alloc_lengths(enc_data, &c, b), 4 + sizeof(held));
	CU_ASSERT_EQUAL(xcm_get_be32(b), sizeof(held));
	CU_ASSERT_EQUAL(memcmp(b + 4, held, sizeof(held)), 0);
	/* no held data: AVAILABLE DATA 0 */
	c.held = NULL;
	c.len = 0;
	CU_ASSERT_EQUAL(check_alloc_lengths(enc_data, &c, b), 4);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 0);
}

static CU_TestInfo g_tests[] = {
	{ "cdb_supported_sas", rcr_cdb_supported_sas },
	{ "cdb_unsupported_sa", rcr_cdb_unsupported_sa },
	{ "cdb_sa_high_bits_ignored", rcr_cdb_sa_high_bits_ignored },
	{ "cdb_op_params_byte2_accepted", rcr_cdb_op_params_byte2_accepted },
	{ "cdb_wrong_opcode_and_short", rcr_cdb_wrong_opcode_and_short },
	{ "copy_status_set_bytes", rcr_copy_status_set_bytes },
	{ "op_params_layout", rcr_op_params_layout },
	{ "op_params_round_trip_default", rcr_op_params_round_trip_default },
	{ "op_params_round_trip_custom", rcr_op_params_round_trip_custom },
	{ "op_params_decode_truncated_sweep", rcr_op_params_decode_truncated_sweep },
	{ "op_params_decode_available_data", rcr_op_params_decode_available_data },
	{ "op_params_decode_count_over_present", rcr_op_params_decode_count_over_present },
	{ "copy_status_layout", rcr_copy_status_layout },
	{ "copy_status_round_trip", rcr_copy_status_round_trip },
	{ "copy_status_decode_truncated", rcr_copy_status_decode_truncated },
	{ "failed_segment_nothing", rcr_failed_segment_nothing },
	{ "failed_segment_layout", rcr_failed_segment_layout },
	{ "receive_data_layout", rcr_receive_data_layout },
	CU_TEST_INFO_NULL,
};
UT_SUITE(rcr, g_tests)
