/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcm_list_execute() against the in-memory backend. Lists are built by hand
 * (struct xcm_list is a plain struct), not through the parser, so these
 * tests exercise the copy manager alone.
 *
 * Data checks use a reference model: before executing, every LU is
 * snapshotted; the expected effect of each segment is applied to the
 * snapshots with memmove; afterwards every byte of every LU must match. That
 * proves both the copied ranges and that nothing outside them was written.
 */
#include <errno.h>
#include <string.h>

#include "fake_backend.h"
#include "ut.h"
#include "xcm/exec.h"

#define NLU 3

static struct xcm_list g_l;
static uint32_t g_seg_off;
static struct fake_be *g_be;
static struct xt_lu *g_lu[NLU];   /* A: 512 x 64 (self), B: 512 x 128, C: 4096 x 16 */
static uint8_t *g_ref[NLU];
static size_t g_len[NLU];
static uint64_t g_sum[NLU];        /* checksums at snapshot time */
static struct xcm_exec_result g_res;
static struct xcm_err g_err;

#define A g_lu[0]
#define B g_lu[1]
#define C g_lu[2]

/* ---- environment ---- */

static void
env_free(void)
{
	int i;

	for (i = 0; i < NLU; i++) {
		free(g_ref[i]);
		g_ref[i] = NULL;
	}
	fake_destroy(g_be);
	g_be = NULL;
}

/* Fresh LUs, an empty list (LIST ID USAGE 11b), snapshots taken. */
static void
env_new(void)
{
	env_free();
	g_be = fake_create();
	A = fake_lu_add(g_be, 512, 64, 1);
	B = fake_lu_add(g_be, 512, 128, 2);
	C = fake_lu_add(g_be, 4096, 16, 3);
	memset(&g_l, 0, sizeof(g_l));
	g_l.list_id_usage = XCM_LIST_ID_NONE;
	g_seg_off = XCM_PLIST_HDR_LEN;
	memset(&g_res, 0xA5, sizeof(g_res));
	memset(&g_err, 0, sizeof(g_err));
}

static void
snapshot(void)
{
	int i;

	for (i = 0; i < NLU; i++) {
		uint8_t *d = fake_lu_data(g_lu[i], &g_len[i]);

		free(g_ref[i]);
		g_ref[i] = malloc(g_len[i]);
		UT_ASSERT_FATAL(g_ref[i] != NULL);
		memcpy(g_ref[i], d, g_len[i]);
		g_sum[i] = fake_lu_sum_all(g_lu[i]);
	}
}

static int
lu_index(struct xt_lu *lu)
{
	int i;

	for (i = 0; i < NLU; i++) {
		if (g_lu[i] == lu) {
			return i;
		}
	}
	UT_ASSERT_FATAL(0);
	return -1;
}

/* Expected effect of moving n bytes, applied to the snapshots. */
static void
model_move(struct xt_lu *src, uint64_t soff, struct xt_lu *dst, uint64_t doff, uint64_t n)
{
	int s = lu_index(src), d = lu_index(dst);

	UT_ASSERT_FATAL(soff + n <= g_len[s] && doff + n <= g_len[d]);
	memmove(g_ref[d] + doff, g_ref[s] + soff, (size_t)n);
}

/* Every byte of every LU equals the model. */
static bool
lus_match_model(void)
{
	bool ok = true;
	int i;

	for (i = 0; i < NLU; i++) {
		if (memcmp(fake_lu_data(g_lu[i], NULL), g_ref[i], g_len[i]) != 0) {
			fprintf(stderr, "\nLU %d differs from the model\n", i);
			ok = false;
		}
	}
	return ok;
}

/* ---- list building ---- */

static const struct xcm_cscd *
add_cscd(struct xt_lu *lu)
{
	struct xcm_cscd *c;

	UT_ASSERT_FATAL(g_l.nseg == 0 && g_l.ncscd < XCM_MAX_CSCD);
	c = &g_l.cscd[g_l.ncscd];
	fake_lu_cscd(lu, c);
	c->offset = XCM_PLIST_HDR_LEN + g_l.ncscd * XCM_CSCD_LEN;
	g_l.ncscd++;
	g_seg_off = XCM_PLIST_HDR_LEN + g_l.ncscd * XCM_CSCD_LEN;
	return c;
}

static struct xcm_segment *
add_seg(uint8_t type, const struct xcm_cscd *src, const struct xcm_cscd *dst, uint32_t count,
	uint64_t slba, uint64_t dlba)
{
	struct xcm_segment *s;

	UT_ASSERT_FATAL(g_l.nseg < XCM_MAX_SEG);
	s = &g_l.seg[g_l.nseg++];
	memset(s, 0, sizeof(*s));
	s->type = type;
	s->src = src;
	s->dst = dst;
	s->count = count;
	s->src_lba = slba;
	s->dst_lba = dlba;
	s->offset = g_seg_off;
	g_seg_off += type == XCM_SEG_B2B ? XCM_SEG_B2B_LEN : XCM_SEG_B2B_OFF_LEN;
	return s;
}

static struct xcm_segment *
add_b2b(const struct xcm_cscd *src, const struct xcm_cscd *dst, uint32_t blocks, uint64_t slba,
	uint64_t dlba)
{
	return add_seg(XCM_SEG_B2B, src, dst, blocks, slba, dlba);
}

static struct xcm_segment *
add_off(const struct xcm_cscd *src, const struct xcm_cscd *dst, uint32_t bytes, uint64_t slba,
	uint16_t soff, uint64_t dlba, uint16_t doff)
{
	struct xcm_segment *s = add_seg(XCM_SEG_B2B_OFF, src, dst, bytes, slba, dlba);

	s->src_off = soff;
	s->dst_off = doff;
	return s;
}

static enum xcm_status
run_lim(const struct xcm_limits *lim)
{
	return xcm_list_execute(&g_l, lim, &fake_ops, g_be, A, &g_res, &g_err);
}

static enum xcm_status
run(void)
{
	return run_lim(&xcm_limits_default);
}

/*
 * A COPY ABORTED outcome of Phase A: status, CSI, segment pointer (SD=1) and
 * proof that nothing moved (no copy call, every LU equal to its snapshot).
 */
static void
expect_phase_a(int line, enum xcm_status st, enum xcm_status exp, uint32_t csi, long field)
{
	ut_expect_err(__FILE__, line, st, &g_err, exp, field);
	CU_ASSERT_TRUE(g_err.csi_valid);
	CU_ASSERT_EQUAL(g_err.csi, csi);
	if (field >= 0) {
		CU_ASSERT_TRUE(g_err.sd);
	}
	CU_ASSERT_FALSE(g_err.fwd_valid);
	CU_ASSERT_EQUAL(g_res.segs_processed, 0);
	CU_ASSERT_EQUAL(g_res.bytes, 0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 0);
	CU_ASSERT_TRUE(lus_match_model());
	CU_ASSERT_EQUAL(fake_lu_sum_all(A), g_sum[0]);
	CU_ASSERT_EQUAL(fake_lu_sum_all(B), g_sum[1]);
	CU_ASSERT_EQUAL(fake_lu_sum_all(C), g_sum[2]);
}
#define EXPECT_PHASE_A(st, exp, csi, field) expect_phase_a(__LINE__, (st), (exp), (csi), (field))

static void
expect_ok(enum xcm_status st, uint32_t segs, uint64_t bytes)
{
	CU_ASSERT_EQUAL(st, XCM_OK);
	CU_ASSERT_EQUAL(g_err.status, XCM_OK);
	CU_ASSERT_EQUAL(g_res.segs_processed, segs);
	CU_ASSERT_EQUAL(g_res.bytes, bytes);
	CU_ASSERT_EQUAL(fake_counters(g_be)->bad_ranges, 0);
	CU_ASSERT_TRUE(lus_match_model());
}

/* ---- successful copies ---- */

static void
exec_single_segment_to_other_lu(void)
{
	const struct xcm_cscd *ca, *cb;

	env_new();
	ca = add_cscd(A);
	cb = add_cscd(B);
	add_b2b(ca, cb, 8, 3, 100);
	snapshot();
	model_move(A, 3 * 512, B, 100 * 512, 8 * 512);
	expect_ok(run(), 1, 8 * 512);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 1);
	CU_ASSERT_EQUAL(fake_counters(g_be)->bytes, 8 * 512);
}

static void
exec_multi_segment_two_lus(void)
{
	const struct xcm_cscd *ca, *cb;

	env_new();
	ca = add_cscd(A);
	cb = add_cscd(B);
	add_b2b(ca, cb, 16, 0, 0);
	add_b2b(cb, ca, 4, 120, 60);      /* back the other way, to the end of A */
	add_b2b(ca, cb, 1, 63, 127);      /* last block to last block */
	add_b2b(cb, cb, 2, 10, 20);       /* within B */
	snapshot();
	model_move(A, 0, B, 0, 16 * 512);
	model_move(B, 120 * 512, A, 60 * 512, 4 * 512);
	model_move(A, 63 * 512, B, 127 * 512, 512);
	model_move(B, 10 * 512, B, 20 * 512, 2 * 512);
	expect_ok(run(), 4, (16 + 4 + 1 + 2) * 512);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 4);
}

static void
exec_via_self_ffff(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 5, 7, 9);
	add_b2b(cb, &g_l.self, 3, 50, 40);
	add_b2b(&g_l.self, &g_l.self, 2, 0, 62);
	snapshot();
	model_move(A, 7 * 512, B, 9 * 512, 5 * 512);
	model_move(B, 50 * 512, A, 40 * 512, 3 * 512);
	model_move(A, 0, A, 62 * 512, 2 * 512);
	expect_ok(run(), 3, 10 * 512);
	/* FFFFh never goes through resolve; B is resolved once */
	CU_ASSERT_EQUAL(fake_counters(g_be)->resolve_calls, 1);
}

static void
exec_each_cscd_resolved_once(void)
{
	const struct xcm_cscd *ca, *cb;
	int i;

	env_new();
	ca = add_cscd(A);
	cb = add_cscd(B);
	for (i = 0; i < 20; i++) {
		add_b2b(i % 2 ? cb : ca, i % 2 ? ca : cb, 1, (uint64_t)i, (uint64_t)i + 30);
	}
	snapshot();
	for (i = 0; i < 20; i++) {
		model_move(i % 2 ? B : A, (uint64_t)i * 512, i % 2 ? A : B,
			   ((uint64_t)i + 30) * 512, 512);
	}
	expect_ok(run(), 20, 20 * 512);
	CU_ASSERT_EQUAL(fake_counters(g_be)->resolve_calls, 2);
}

static void
exec_b2b_off_byte_offsets(void)
{
	const struct xcm_cscd *ca, *cc;

	env_new();
	ca = add_cscd(A);
	cc = add_cscd(C);
	add_off(ca, cc, 1000, 2, 7, 1, 4095);   /* starts in the last byte of C block 1 */
	add_off(cc, ca, 1, 15, 4095, 0, 0);     /* the very last byte of C to byte 0 of A */
	add_off(ca, ca, 513, 10, 511, 20, 1);
	snapshot();
	model_move(A, 2 * 512 + 7, C, 4096 + 4095, 1000);
	model_move(C, 15 * 4096 + 4095, A, 0, 1);
	model_move(A, 10 * 512 + 511, A, 20 * 512 + 1, 513);
	expect_ok(run(), 3, 1000 + 1 + 513);
}

static void
exec_zero_length_segment(void)
{
	const struct xcm_cscd *ca, *cb;

	env_new();
	ca = add_cscd(A);
	cb = add_cscd(B);
	add_b2b(ca, cb, 1, 0, 0);
	add_b2b(ca, cb, 0, 5, 5);               /* no-op, still processed */
	add_off(ca, cb, 0, 64, 0, 128, 0);      /* zero bytes exactly at the end: fine */
	add_b2b(ca, cb, 1, 1, 1);
	snapshot();
	model_move(A, 0, B, 0, 512);
	model_move(A, 512, B, 512, 512);
	expect_ok(run(), 4, 1024);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 2);
}

static void
exec_empty_list(void)
{
	env_new();
	snapshot();
	expect_ok(run(), 0, 0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->resolve_calls, 0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 0);
}

static void
exec_overlap_forward(void)
{
	env_new();
	/* destination inside the source, above it: a naive ascending copy smears */
	add_b2b(&g_l.self, &g_l.self, 16, 4, 7);
	snapshot();
	model_move(A, 4 * 512, A, 7 * 512, 16 * 512);
	expect_ok(run(), 1, 16 * 512);
	/* the model is memmove; make sure it is not the same as a forward smear */
	CU_ASSERT_NOT_EQUAL(memcmp(fake_lu_data(A, NULL) + 7 * 512,
				   fake_lu_data(A, NULL) + 10 * 512, 512), 0);
}

static void
exec_overlap_backward(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(cb, cb, 30, 12, 2);
	add_off(cb, cb, 3001, 40, 3, 40, 0);    /* byte-granular overlap, 3 bytes down */
	add_off(cb, cb, 3001, 50, 0, 50, 5);    /* and 5 bytes up */
	snapshot();
	model_move(B, 12 * 512, B, 2 * 512, 30 * 512);
	model_move(B, 40 * 512 + 3, B, 40 * 512, 3001);
	model_move(B, 50 * 512, B, 50 * 512 + 5, 3001);
	expect_ok(run(), 3, 30 * 512 + 3001 * 2);
}

static void
exec_dc_counts_destination_blocks(void)
{
	const struct xcm_cscd *ca, *cc;

	env_new();
	ca = add_cscd(A);
	cc = add_cscd(C);
	add_b2b(ca, cc, 2, 0, 3)->dc = true;   /* 2 x 4096 from A */
	add_b2b(ca, cc, 8, 16, 10);             /* DC=0: 8 x 512 */
	add_b2b(cc, ca, 8, 5, 50)->dc = true;   /* 8 x 512 of A from C */
	snapshot();
	model_move(A, 0, C, 3 * 4096, 8192);
	model_move(A, 16 * 512, C, 10 * 4096, 4096);
	model_move(C, 5 * 4096, A, 50 * 512, 4096);
	expect_ok(run(), 3, 8192 + 4096 + 4096);
}

static void
exec_fco_accepted(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 2, 0, 0)->fco = true;
	snapshot();
	model_move(A, 0, B, 0, 1024);
	expect_ok(run(), 1, 1024);
}

static void
exec_range_exactly_to_the_end(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 64, 0, 64);      /* all of A to the second half of B */
	snapshot();
	model_move(A, 0, B, 64 * 512, 64 * 512);
	expect_ok(run(), 1, 64 * 512);
}

/* ---- Phase A failures: exact sense, nothing moved ---- */

static void
exec_nul_cscd_unreachable(void)
{
	struct xcm_cscd *cb;

	env_new();
	cb = (struct xcm_cscd *)add_cscd(B);
	cb->nul = true;
	add_b2b(&g_l.self, &g_l.self, 1, 0, 1);
	add_b2b(&g_l.self, cb, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_UNREACHABLE, 1, 6);
	CU_ASSERT_EQUAL(fake_counters(g_be)->resolve_calls, 0);

	env_new();
	cb = (struct xcm_cscd *)add_cscd(B);
	cb->nul = true;
	add_b2b(cb, &g_l.self, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_UNREACHABLE, 0, 4);
}

static void
exec_unknown_lu_unreachable(void)
{
	struct xcm_cscd *cx;

	env_new();
	add_cscd(A);
	cx = (struct xcm_cscd *)add_cscd(B);
	cx->desig[15] ^= 0xFF;                  /* designates nothing */
	add_b2b(&g_l.cscd[0], &g_l.self, 1, 0, 1);
	add_b2b(&g_l.cscd[0], &g_l.cscd[0], 1, 2, 3);
	add_b2b(&g_l.self, cx, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_UNREACHABLE, 2, 6);
	CU_ASSERT_EQUAL(g_err.status, XCM_E_CA_UNREACHABLE);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->asc_ascq, 0x0804);
}

static void
exec_designator_fields_all_matter(void)
{
	struct xcm_cscd *c;
	int i;

	/* code set, designator type, length: each alone makes the CSCD name nothing */
	for (i = 0; i < 3; i++) {
		env_new();
		c = (struct xcm_cscd *)add_cscd(B);
		if (i == 0) {
			c->code_set = XCM_CODE_SET_ASCII;
		} else if (i == 1) {
			c->desig_type = XCM_DESIG_EUI64;
		} else {
			c->desig_len = 8;
		}
		add_b2b(c, &g_l.self, 1, 0, 0);
		snapshot();
		EXPECT_PHASE_A(run(), XCM_E_CA_UNREACHABLE, 0, 4);
	}
	/* and a custom designator resolves when the CSCD carries it */
	env_new();
	fake_lu_set_desig(B, XCM_CODE_SET_ASCII, XCM_DESIG_T10,
			  (const uint8_t *)"LIO-ORG xcopy", 13);
	c = (struct xcm_cscd *)add_cscd(B);
	CU_ASSERT_EQUAL(c->desig_len, 13);
	add_b2b(c, &g_l.self, 1, 0, 0);
	snapshot();
	model_move(B, 0, A, 0, 512);
	expect_ok(run(), 1, 512);
}

static void
exec_access_denied_not_reachable(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	fake_allow(g_be, A, B, false);
	add_b2b(&g_l.self, &g_l.self, 1, 0, 1);
	add_b2b(&g_l.self, cb, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 1, 6);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->asc_ascq, 0x0D02);

	/* the rule is per (self, other): B may reach A, so as source it is fine */
	env_new();
	cb = add_cscd(B);
	fake_allow(g_be, B, A, false);
	add_b2b(cb, &g_l.self, 1, 0, 0);
	snapshot();
	model_move(B, 0, A, 0, 512);
	expect_ok(run(), 1, 512);
}

static void
exec_resolve_other_errno_not_reachable(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	fake_lu_set_resolve_err(B, -EIO);
	add_b2b(cb, &g_l.self, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 0, 4);

	env_new();
	cb = add_cscd(B);
	fake_lu_set_resolve_err(B, -ENOENT);
	add_b2b(cb, &g_l.self, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_UNREACHABLE, 0, 4);
}

static void
exec_block_len_mismatch_incorrect_type(void)
{
	struct xcm_cscd *cb, *cc;

	env_new();
	cb = (struct xcm_cscd *)add_cscd(B);
	cb->block_len = 4096;                   /* B has 512-byte blocks */
	add_b2b(cb, &g_l.self, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_INCORRECT_TYPE, 0, 4);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->asc_ascq, 0x0D03);

	env_new();
	cc = (struct xcm_cscd *)add_cscd(C);
	cc->block_len = 512;
	add_b2b(&g_l.self, cc, 8, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_INCORRECT_TYPE, 0, 6);

	/* the matching DISK BLOCK LENGTH is accepted */
	env_new();
	cc = (struct xcm_cscd *)add_cscd(C);
	cc->block_len = 4096;
	add_b2b(&g_l.self, cc, 8, 0, 0);
	snapshot();
	model_move(A, 0, C, 0, 4096);
	expect_ok(run(), 1, 4096);
}

static void
exec_non_block_pdt_incorrect_type(void)
{
	struct xcm_cscd *cb;

	env_new();
	cb = (struct xcm_cscd *)add_cscd(B);
	cb->pdt = XCM_PDT_STREAM;
	add_b2b(&g_l.self, cb, 1, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_INCORRECT_TYPE, 0, 6);
}

static void
exec_inexact_segment(void)
{
	const struct xcm_cscd *cc;

	env_new();
	cc = add_cscd(C);
	add_b2b(&g_l.self, cc, 8, 0, 0);        /* exact: 4096 */
	add_b2b(&g_l.self, cc, 3, 0, 1);        /* 1536 is not a whole 4096 block */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_INEXACT_SEGMENT, 1, 10);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->asc_ascq, 0x260A);

	/* DC=1: one 512-byte block of A read from 4096-byte C is inexact too */
	env_new();
	cc = add_cscd(C);
	add_b2b(cc, &g_l.self, 1, 0, 0)->dc = true;
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_INEXACT_SEGMENT, 0, 10);

	/* CAT does not rescue it (residual handling not implemented) */
	env_new();
	cc = add_cscd(C);
	add_b2b(cc, &g_l.self, 1, 0, 0)->cat = true;    /* 4096: exact either way */
	add_b2b(&g_l.self, cc, 1, 0, 0)->cat = true;    /* 512 -> 4096: inexact */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_INEXACT_SEGMENT, 1, 10);
}

static void
exec_source_beyond_capacity(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 2, 63, 0);       /* A has 64 blocks: 63 + 2 > 64 */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 0, 12);

	env_new();
	cb = add_cscd(B);
	add_off(&g_l.self, cb, 2, 63, 511, 0, 0);   /* one byte past the end */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 0, 12);
}

static void
exec_destination_beyond_capacity_after_good_segments(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 4, 0, 0);
	add_b2b(&g_l.self, cb, 4, 4, 4);
	add_b2b(&g_l.self, cb, 1, 0, 128);      /* B has 128 blocks */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 2, 20);
}

static void
exec_range_arithmetic_overflow(void)
{
	struct xcm_limits unlimited = xcm_limits_default;
	const struct xcm_cscd *cb;

	unlimited.max_seg_len = 0;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 1, UINT64_MAX, 0);           /* lba * bs wraps */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 0, 12);

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 1, 0, UINT64_MAX / 512 + 1);  /* wraps to exactly 0 */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 0, 20);

	env_new();
	cb = add_cscd(B);
	add_off(&g_l.self, cb, UINT32_MAX, 0, UINT16_MAX, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run_lim(&unlimited), XCM_E_CA_NOT_REACHABLE, 0, 12);

	env_new();
	cb = add_cscd(B);
	add_off(&g_l.self, cb, 1, 1, 0, UINT64_MAX / 512, UINT16_MAX);
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 0, 20);
}

static void
exec_max_segment_length(void)
{
	struct xcm_limits lim = xcm_limits_default;
	const struct xcm_cscd *cb;
	struct xcm_segment *s;

	lim.max_seg_len = 4096;
	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 8, 0, 0);        /* exactly the limit: fine */
	s = add_b2b(&g_l.self, cb, 9, 0, 0);
	snapshot();
	UT_EXPECT_ERR(run_lim(&lim), &g_err, XCM_E_INVALID_FIELD_PARAM, s->offset + 10);
	CU_ASSERT_EQUAL(s->offset, XCM_PLIST_HDR_LEN + XCM_CSCD_LEN + XCM_SEG_B2B_LEN);
	CU_ASSERT_FALSE(g_err.in_cdb);
	CU_ASSERT_FALSE(g_err.sd);
	CU_ASSERT_FALSE(g_err.csi_valid);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->key, XCM_SK_ILLEGAL_REQUEST);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 0);
	CU_ASSERT_TRUE(lus_match_model());

	env_new();
	cb = add_cscd(B);
	s = add_off(&g_l.self, cb, 4097, 0, 0, 0, 0);
	snapshot();
	UT_EXPECT_ERR(run_lim(&lim), &g_err, XCM_E_INVALID_FIELD_PARAM, s->offset + 8);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 0);

	/* MAXIMUM SEGMENT LENGTH 0: not limited */
	lim.max_seg_len = 0;
	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 64, 0, 0);
	snapshot();
	model_move(A, 0, B, 0, 64 * 512);
	expect_ok(run_lim(&lim), 1, 64 * 512);
}

static void
exec_granularity(void)
{
	struct xcm_limits lim = xcm_limits_default;
	const struct xcm_cscd *cb;

	lim.data_seg_gran = 9;                  /* 512-byte units */
	env_new();
	cb = add_cscd(B);
	add_off(&g_l.self, cb, 1024, 0, 0, 0, 0);
	add_off(&g_l.self, cb, 100, 0, 0, 0, 0);
	snapshot();
	EXPECT_PHASE_A(run_lim(&lim), XCM_E_CA_GRANULARITY, 1, 8);
}

static void
exec_first_failing_segment_reported(void)
{
	const struct xcm_cscd *cb;
	struct xcm_cscd *cc;

	/* two bad segments: the lower index wins, whatever the error */
	env_new();
	cb = add_cscd(B);
	cc = (struct xcm_cscd *)add_cscd(C);
	add_b2b(&g_l.self, cb, 1, 0, 0);
	add_b2b(&g_l.self, cb, 1, 64, 0);       /* source out of range */
	fake_allow(g_be, A, C, false);
	add_b2b(&g_l.self, cc, 8, 0, 0);        /* access denied */
	snapshot();
	EXPECT_PHASE_A(run(), XCM_E_CA_NOT_REACHABLE, 1, 12);
}

/* ---- Phase B: I/O failures ---- */

static void
fault(unsigned nth, int err, bool at_dst, uint64_t after)
{
	struct fake_fault f;

	memset(&f, 0, sizeof(f));
	f.nth = nth;
	f.err = err;
	f.at_dst = at_dst;
	f.after = after;
	fake_set_fault(g_be, &f);
}

/* The 4-segment list the I/O failure tests share: A -> B, segment i moves i+1 blocks. */
static void
io_list(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 1, 0, 10);
	add_b2b(&g_l.self, cb, 2, 1, 20);
	add_b2b(&g_l.self, cb, 3, 3, 30);
	add_b2b(&g_l.self, cb, 4, 6, 40);
	snapshot();
}

static void
expect_io_failure(uint32_t seg, uint8_t fwd_source, uint64_t bytes)
{
	CU_ASSERT_EQUAL(g_err.status, XCM_E_CA_DEVICE_FAILURE);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(xcm_status_info(g_err.status)->asc_ascq, 0x0D01);
	CU_ASSERT_TRUE(g_err.csi_valid);
	CU_ASSERT_EQUAL(g_err.csi, seg);
	CU_ASSERT_TRUE(g_err.sks_valid && g_err.sd);
	CU_ASSERT_EQUAL(g_err.field, fwd_source == 1 ? 4u : 6u);
	CU_ASSERT_TRUE(g_err.fwd_valid);
	CU_ASSERT_EQUAL(g_err.fwd_source, fwd_source);
	CU_ASSERT_EQUAL(g_res.segs_processed, seg);
	CU_ASSERT_EQUAL(g_res.bytes, bytes);
	CU_ASSERT_TRUE(lus_match_model());
}

static void
expect_fixed_fwd(uint8_t key, uint16_t asc)
{
	CU_ASSERT_EQUAL(g_err.fwd_status, XCM_SAM_CHECK_CONDITION);
	CU_ASSERT_EQUAL(g_err.fwd_len, 18);
	CU_ASSERT_EQUAL(g_err.fwd_sense[0], 0x70);
	CU_ASSERT_EQUAL(g_err.fwd_sense[2], key);
	CU_ASSERT_EQUAL(g_err.fwd_sense[7], 10);
	CU_ASSERT_EQUAL(xcm_get_be16(g_err.fwd_sense + 12), asc);
}

static void
exec_write_failure_mid_list(void)
{
	io_list();
	fault(3, -EIO, true, 1000);
	/* segments 0, 1 done; segment 2 wrote its first 1000 bytes; segment 3 never ran */
	model_move(A, 0, B, 10 * 512, 512);
	model_move(A, 512, B, 20 * 512, 1024);
	model_move(A, 3 * 512, B, 30 * 512, 1000);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	expect_io_failure(2, 2, 512 + 1024 + 1000);
	expect_fixed_fwd(XCM_SK_MEDIUM_ERROR, XCM_ASC_WRITE_ERROR);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 3);
	/* segment 3's destination blocks are untouched */
	CU_ASSERT_EQUAL(memcmp(fake_lu_data(B, NULL) + 40 * 512, g_ref[1] + 40 * 512, 4 * 512), 0);
}

static void
exec_read_failure_first_segment(void)
{
	io_list();
	fault(1, -EIO, false, 0);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	expect_io_failure(0, 1, 0);
	expect_fixed_fwd(XCM_SK_MEDIUM_ERROR, XCM_ASC_UNRECOVERED_READ_ERROR);
}

static void
exec_enospc_data_protect(void)
{
	io_list();
	fault(4, -ENOSPC, true, 512);
	model_move(A, 0, B, 10 * 512, 512);
	model_move(A, 512, B, 20 * 512, 1024);
	model_move(A, 3 * 512, B, 30 * 512, 1536);
	model_move(A, 6 * 512, B, 40 * 512, 512);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	expect_io_failure(3, 2, 512 + 1024 + 1536 + 512);
	expect_fixed_fwd(XCM_SK_DATA_PROTECT, XCM_ASC_NO_SPACE);

	/* -ENOSPC on a read is just a read error */
	io_list();
	fault(1, -ENOSPC, false, 0);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	expect_fixed_fwd(XCM_SK_MEDIUM_ERROR, XCM_ASC_UNRECOVERED_READ_ERROR);
}

static void
exec_canned_sense_forwarded(void)
{
	struct fake_fault f;
	int i;

	io_list();
	memset(&f, 0, sizeof(f));
	f.nth = 2;
	f.err = -EIO;
	f.at_dst = false;
	f.after = 0;
	f.status = XCM_SAM_BUSY;
	f.sense_len = 22;
	for (i = 0; i < 22; i++) {
		f.sense[i] = (uint8_t)(0xC0 + i);
	}
	fake_set_fault(g_be, &f);
	model_move(A, 0, B, 10 * 512, 512);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	expect_io_failure(1, 1, 512);
	CU_ASSERT_EQUAL(g_err.fwd_status, XCM_SAM_BUSY);
	CU_ASSERT_EQUAL(g_err.fwd_len, 22);
	CU_ASSERT_EQUAL(memcmp(g_err.fwd_sense, f.sense, 22), 0);
}

static void
exec_forwarded_sense_truncated(void)
{
	struct fake_fault f;
	int i;

	io_list();
	memset(&f, 0, sizeof(f));
	f.nth = 1;
	f.err = -EIO;
	f.at_dst = true;
	f.after = 100000;                       /* more than the segment: capped */
	f.sense_len = 200;                      /* claims more than fits */
	for (i = 0; i < XCM_FWD_SENSE_MAX; i++) {
		f.sense[i] = (uint8_t)i;
	}
	fake_set_fault(g_be, &f);
	model_move(A, 0, B, 10 * 512, 512);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	expect_io_failure(0, 2, 512);
	CU_ASSERT_EQUAL(g_err.fwd_status, XCM_SAM_CHECK_CONDITION);
	CU_ASSERT_EQUAL(g_err.fwd_len, XCM_FWD_SENSE_MAX);
	CU_ASSERT_EQUAL(memcmp(g_err.fwd_sense, f.sense, XCM_FWD_SENSE_MAX), 0);
}

static void
exec_io_failure_sense_round_trip(void)
{
	uint8_t buf[XCM_SENSE_MAX];
	struct xcm_sense sn;
	size_t n;

	io_list();
	fault(3, -EIO, true, 0);
	model_move(A, 0, B, 10 * 512, 512);
	model_move(A, 512, B, 20 * 512, 1024);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	expect_io_failure(2, 2, 1536);

	/* what the initiator sees: descriptor format with the forwarded sense */
	n = xcm_sense_build(&g_err, true, buf, sizeof(buf));
	UT_ASSERT_FATAL(n > 0 && n <= sizeof(buf));
	UT_ASSERT_FATAL(xcm_sense_parse(xcm_span_make(buf, n), &sn) == 0);
	CU_ASSERT_TRUE(sn.desc);
	CU_ASSERT_EQUAL(sn.key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(sn.asc_ascq, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE);
	CU_ASSERT_TRUE(sn.csi_valid);
	CU_ASSERT_EQUAL(sn.csi, 2);
	CU_ASSERT_TRUE(sn.sks_valid);
	CU_ASSERT_EQUAL(sn.sks[0] & 0xA0, 0xA0);        /* SKSV, SD */
	CU_ASSERT_EQUAL(xcm_get_be16(sn.sks + 1), 6);
	UT_ASSERT_FATAL(sn.fwd_valid);
	CU_ASSERT_FALSE(sn.fwd_truncated);
	CU_ASSERT_EQUAL(sn.fwd_source, 2);
	CU_ASSERT_EQUAL(sn.fwd_status, XCM_SAM_CHECK_CONDITION);
	UT_ASSERT_FATAL(sn.fwd_len == 18);
	CU_ASSERT_EQUAL(sn.fwd_sense[0], 0x70);
	CU_ASSERT_EQUAL(sn.fwd_sense[2], XCM_SK_MEDIUM_ERROR);
	CU_ASSERT_EQUAL(sn.fwd_sense[12], 0x0C);
	CU_ASSERT_EQUAL(sn.fwd_sense[13], 0x00);
}

static void
exec_failure_after_zero_length_segment(void)
{
	const struct xcm_cscd *cb;

	env_new();
	cb = add_cscd(B);
	add_b2b(&g_l.self, cb, 0, 0, 0);
	add_b2b(&g_l.self, cb, 2, 0, 0);
	snapshot();
	fault(1, -EIO, false, 0);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	/* the zero-length segment counts as processed, and never reached copy() */
	expect_io_failure(1, 1, 0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 1);
}

static void
exec_rerun_after_failure_completes(void)
{
	io_list();
	fault(2, -EIO, true, 0);
	CU_ASSERT_EQUAL(run(), XCM_E_CA_DEVICE_FAILURE);
	/* the fault is one-shot; the same list then completes */
	fake_reset_counters(g_be);
	model_move(A, 0, B, 10 * 512, 512);
	model_move(A, 512, B, 20 * 512, 1024);
	model_move(A, 3 * 512, B, 30 * 512, 1536);
	model_move(A, 6 * 512, B, 40 * 512, 2048);
	expect_ok(run(), 4, 5120);
	env_free();
}

/* ---- the fake itself (other suites rely on it) ---- */

static void
exec_fake_backend_contract(void)
{
	struct xcm_io_err ioerr;
	struct xcm_cscd ca, cb;
	struct xt_lu *out = NULL;
	uint8_t *d;
	uint64_t sum;

	env_new();
	fake_lu_cscd(A, &ca);
	fake_lu_cscd(B, &cb);
	/* distinct seeds: distinct designators and data */
	CU_ASSERT_NOT_EQUAL(memcmp(ca.desig, cb.desig, ca.desig_len), 0);
	CU_ASSERT_NOT_EQUAL(fake_lu_sum(A, 0, 512), fake_lu_sum(B, 0, 512));
	CU_ASSERT_EQUAL(fake_ops.resolve(g_be, A, &cb, &out), 0);
	CU_ASSERT_PTR_EQUAL(out, B);
	CU_ASSERT_EQUAL(fake_ops.block_size(g_be, C), 4096);
	CU_ASSERT_EQUAL(fake_ops.num_blocks(g_be, B), 128);
	/* one changed byte changes the checksum; sums clamp to the LU */
	sum = fake_lu_sum_all(A);
	d = fake_lu_data(A, NULL);
	d[32767] ^= 1;
	CU_ASSERT_NOT_EQUAL(fake_lu_sum_all(A), sum);
	CU_ASSERT_EQUAL(fake_lu_sum(A, 0, UINT64_MAX), fake_lu_sum(A, 0, 32768));
	/* an out-of-range copy is refused and counted, never performed */
	CU_ASSERT_EQUAL(fake_ops.copy(g_be, A, 32768 - 511, B, 0, 512, &ioerr), -ERANGE);
	CU_ASSERT_EQUAL(fake_counters(g_be)->bad_ranges, 1);
	CU_ASSERT_EQUAL(fake_counters(g_be)->bytes, 0);
	/* faults are one-shot */
	fault(1, -EIO, true, 3);
	CU_ASSERT_EQUAL(fake_ops.copy(g_be, A, 0, B, 0, 512, &ioerr), -EIO);
	CU_ASSERT_TRUE(ioerr.at_dst);
	CU_ASSERT_EQUAL(ioerr.done, 3);
	CU_ASSERT_EQUAL(fake_ops.copy(g_be, A, 0, B, 0, 512, &ioerr), 0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->bytes, 3 + 512);
	CU_ASSERT_EQUAL(memcmp(fake_lu_data(B, NULL), d, 512), 0);
	/* refill restores the pattern */
	fake_lu_fill(A, 1);
	CU_ASSERT_EQUAL(fake_lu_sum_all(A), sum);
}

static CU_TestInfo exec_tests[] = {
	{ "fake_backend_contract", exec_fake_backend_contract },
	{ "single_segment_to_other_lu", exec_single_segment_to_other_lu },
	{ "multi_segment_two_lus", exec_multi_segment_two_lus },
	{ "via_self_ffff", exec_via_self_ffff },
	{ "each_cscd_resolved_once", exec_each_cscd_resolved_once },
	{ "b2b_off_byte_offsets", exec_b2b_off_byte_offsets },
	{ "zero_length_segment", exec_zero_length_segment },
	{ "empty_list", exec_empty_list },
	{ "overlap_forward", exec_overlap_forward },
	{ "overlap_backward", exec_overlap_backward },
	{ "dc_counts_destination_blocks", exec_dc_counts_destination_blocks },
	{ "fco_accepted", exec_fco_accepted },
	{ "range_exactly_to_the_end", exec_range_exactly_to_the_end },
	{ "nul_cscd_unreachable", exec_nul_cscd_unreachable },
	{ "unknown_lu_unreachable", exec_unknown_lu_unreachable },
	{ "designator_fields_all_matter", exec_designator_fields_all_matter },
	{ "access_denied_not_reachable", exec_access_denied_not_reachable },
	{ "resolve_other_errno_not_reachable", exec_resolve_other_errno_not_reachable },
	{ "block_len_mismatch_incorrect_type", exec_block_len_mismatch_incorrect_type },
	{ "non_block_pdt_incorrect_type", exec_non_block_pdt_incorrect_type },
	{ "inexact_segment", exec_inexact_segment },
	{ "source_beyond_capacity", exec_source_beyond_capacity },
	{ "destination_beyond_capacity_after_good_segments",
	  exec_destination_beyond_capacity_after_good_segments },
	{ "range_arithmetic_overflow", exec_range_arithmetic_overflow },
	{ "max_segment_length", exec_max_segment_length },
	{ "granularity", exec_granularity },
	{ "first_failing_segment_reported", exec_first_failing_segment_reported },
	{ "write_failure_mid_list", exec_write_failure_mid_list },
	{ "read_failure_first_segment", exec_read_failure_first_segment },
	{ "enospc_data_protect", exec_enospc_data_protect },
	{ "canned_sense_forwarded", exec_canned_sense_forwarded },
	{ "forwarded_sense_truncated", exec_forwarded_sense_truncated },
	{ "io_failure_sense_round_trip", exec_io_failure_sense_round_trip },
	{ "failure_after_zero_length_segment", exec_failure_after_zero_length_segment },
	{ "rerun_after_failure_completes", exec_rerun_after_failure_completes },
	CU_TEST_INFO_NULL,
};

static int
exec_suite_fini(void)
{
	env_free();
	return 0;
}

UT_SUITE_FULL(exec, exec_tests, NULL, exec_suite_fini)
