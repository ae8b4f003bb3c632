/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Chunked execution and the command deadline (xcm_list_execute_opts) against
 * the in-memory backend and its fake clock: chunk counts and sizes, where a
 * list stops, the exact counts and sense it reports, that nothing is written
 * at or after the deadline, memmove semantics across chunks, and the
 * deadline policy for a transport timeout.
 */
#include <errno.h>
#include <string.h>

#include "fake_backend.h"
#include "ut.h"
#include "xcm/exec.h"

#define KIB 1024u
#define BS 512u
#define LU_BLOCKS 1024u          /* 512 KiB LUs */
#define CHUNK (16u * KIB)

static struct fake_be *g_be;
static struct xt_lu *g_a;       /* self */
static struct xt_lu *g_b;
static struct xcm_list g_l;
static uint32_t g_seg_off;
static uint8_t *g_ref_b;         /* B before the command */
static uint8_t *g_ref_a;
static struct xcm_exec_result g_res;
static struct xcm_err g_err;

static void
env_free(void)
{
	free(g_ref_a);
	free(g_ref_b);
	g_ref_a = g_ref_b = NULL;
	fake_destroy(g_be);
	g_be = NULL;
}

static void
env_new(void)
{
	size_t len;

	env_free();
	g_be = fake_create();
	g_a = fake_lu_add(g_be, BS, LU_BLOCKS, 11);
	g_b = fake_lu_add(g_be, BS, LU_BLOCKS, 12);
	memset(&g_l, 0, sizeof(g_l));
	g_l.list_id_usage = XCM_LIST_ID_NONE;
	g_l.ncscd = 2;
	fake_lu_cscd(g_a, &g_l.cscd[0]);
	fake_lu_cscd(g_b, &g_l.cscd[1]);
	g_l.cscd[0].offset = XCM_PLIST_HDR_LEN;
	g_l.cscd[1].offset = XCM_PLIST_HDR_LEN + XCM_CSCD_LEN;
	g_seg_off = XCM_PLIST_HDR_LEN + 2 * XCM_CSCD_LEN;
	g_ref_a = malloc(LU_BLOCKS * BS);
	g_ref_b = malloc(LU_BLOCKS * BS);
	UT_ASSERT_FATAL(g_ref_a != NULL && g_ref_b != NULL);
	memcpy(g_ref_a, fake_lu_data(g_a, &len), LU_BLOCKS * BS);
	memcpy(g_ref_b, fake_lu_data(g_b, &len), LU_BLOCKS * BS);
	memset(&g_res, 0xA5, sizeof(g_res));
	memset(&g_err, 0, sizeof(g_err));
}

/* Block -> block segment from cscd s to cscd d (0 = A, 1 = B). */
static void
add_b2b(int s, int d, uint32_t blocks, uint64_t slba, uint64_t dlba)
{
	struct xcm_segment *seg = &g_l.seg[g_l.nseg++];

	memset(seg, 0, sizeof(*seg));
	seg->type = XCM_SEG_B2B;
	seg->src = &g_l.cscd[s];
	seg->dst = &g_l.cscd[d];
	seg->count = blocks;
	seg->src_lba = slba;
	seg->dst_lba = dlba;
	seg->offset = g_seg_off;
	g_seg_off += XCM_SEG_B2B_LEN;
}

static enum xcm_status
run(uint64_t deadline, uint64_t chunk)
{
	struct xcm_exec_opts o = { .deadline_ms = deadline, .chunk_len = chunk };

	return xcm_list_execute_opts(&g_l, &xcm_limits_default, &fake_ops, g_be, g_a, &o, &g_res,
				     &g_err);
}

/* B equals its snapshot with [off, off + n) taken from A's snapshot at soff. */
static bool
b_is(uint64_t soff, uint64_t off, uint64_t n)
{
	uint8_t *want = malloc(LU_BLOCKS * BS);
	bool ok;

	UT_ASSERT_FATAL(want != NULL);
	memcpy(want, g_ref_b, LU_BLOCKS * BS);
	memcpy(want + off, g_ref_a + soff, (size_t)n);
	ok = memcmp(fake_lu_data(g_b, NULL), want, LU_BLOCKS * BS) == 0;
	free(want);
	return ok;
}

/* COPY ABORTED 2E/02 in fixed sense, CSI = seg, no sense-key specific data. */
static void
expect_deadline_sense(uint32_t seg)
{
	uint8_t sense[XCM_SENSE_MAX];
	size_t n;

	UT_EXPECT_ERR(g_err.status, &g_err, XCM_E_CA_DEADLINE, -1);
	CU_ASSERT_TRUE(g_err.csi_valid);
	CU_ASSERT_EQUAL(g_err.csi, seg);
	CU_ASSERT_FALSE(g_err.fwd_valid);
	memset(sense, 0, sizeof(sense));
	n = xcm_sense_build(&g_err, false, sense, sizeof(sense));
	UT_ASSERT_FATAL(n >= 18);
	CU_ASSERT_EQUAL(sense[0], 0x70);
	CU_ASSERT_EQUAL(sense[2] & 0x0F, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(xcm_get_be32(sense + 8), seg);        /* COMMAND-SPECIFIC INFORMATION */
	CU_ASSERT_EQUAL(sense[12], 0x2E);
	CU_ASSERT_EQUAL(sense[13], 0x02);
	CU_ASSERT_EQUAL(sense[15] & 0x80, 0);                  /* SKSV 0 */
}

/* A 256 KiB segment in 16 KiB chunks: 16 copy calls of 16 KiB, data exact. */
static void
deadline_segment_runs_in_chunks(void)
{
	env_new();
	add_b2b(0, 1, 512, 0, 256);
	CU_ASSERT_EQUAL(run(0, CHUNK), XCM_OK);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 16);
	CU_ASSERT_EQUAL(fake_counters(g_be)->max_copy_len, CHUNK);
	CU_ASSERT_EQUAL(g_res.segs_processed, 1);
	CU_ASSERT_EQUAL(g_res.bytes, 512 * BS);
	CU_ASSERT_TRUE(b_is(0, 256 * BS, 512 * BS));
	/* no deadline: the clock is never read */
	CU_ASSERT_EQUAL(fake_counters(g_be)->clock_reads, 0);
	env_free();
}

/* Default chunk: a segment up to XCM_EXEC_CHUNK_LEN is one call; a remainder is its own. */
static void
deadline_default_chunk_and_remainder(void)
{
	env_new();
	add_b2b(0, 1, 40, 0, 0);       /* 20 KiB in 16 KiB chunks: 16 + 4 */
	CU_ASSERT_EQUAL(run(0, 0), XCM_OK);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 1);
	fake_reset_counters(g_be);
	CU_ASSERT_EQUAL(run(0, CHUNK), XCM_OK);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 2);
	CU_ASSERT_EQUAL(fake_counters(g_be)->bytes, 40 * BS);
	CU_ASSERT_TRUE(b_is(0, 0, 40 * BS));
	env_free();
}

/*
 * 100 ms per chunk, deadline 350 ms after the start: chunks end at 100, 200,
 * 300; the 4th would end at 400 > 350, so the list stops with exactly 3
 * chunks written and nothing after the deadline.
 */
static void
deadline_stops_between_chunks(void)
{
	env_new();
	add_b2b(0, 1, 512, 0, 100);
	fake_clock_set(g_be, 1000, 100, 0);
	CU_ASSERT_EQUAL(run(1350, CHUNK), XCM_E_CA_DEADLINE);
	expect_deadline_sense(0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 3);
	CU_ASSERT_EQUAL(g_res.segs_processed, 0);
	CU_ASSERT_EQUAL(g_res.bytes, 3 * CHUNK);
	CU_ASSERT_TRUE(fake_counters(g_be)->last_write_end_ms <= 1350);
	CU_ASSERT_TRUE(b_is(0, 100 * BS, 3 * CHUNK));   /* and not one byte more */
	env_free();
}

/* The stop lands in segment 1: CSI 1, segment 0 counted whole, bytes exact. */
static void
deadline_csi_is_segment_being_processed(void)
{
	env_new();
	add_b2b(0, 1, 64, 0, 0);       /* 32 KiB: 2 chunks */
	add_b2b(0, 1, 256, 64, 64);    /* 128 KiB: 8 chunks */
	fake_clock_set(g_be, 0, 10, 0);
	/* chunks end at 10, 20 (seg 0), 30, 40, 50 (seg 1); the next would end at 60 > 55 */
	CU_ASSERT_EQUAL(run(55, CHUNK), XCM_E_CA_DEADLINE);
	expect_deadline_sense(1);
	CU_ASSERT_EQUAL(g_res.segs_processed, 1);
	CU_ASSERT_EQUAL(g_res.bytes, 64 * BS + 3 * CHUNK);
	CU_ASSERT_TRUE(b_is(0, 0, 64 * BS + 3 * CHUNK));
	env_free();
}

/* A deadline already passed when execution starts: nothing moves at all. */
static void
deadline_already_passed(void)
{
	env_new();
	add_b2b(0, 1, 8, 0, 0);
	fake_clock_set(g_be, 5000, 1, 0);
	CU_ASSERT_EQUAL(run(5000, CHUNK), XCM_E_CA_DEADLINE);
	expect_deadline_sense(0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 0);
	CU_ASSERT_EQUAL(g_res.bytes, 0);
	CU_ASSERT_EQUAL(g_res.segs_processed, 0);
	CU_ASSERT_TRUE(b_is(0, 0, 0));
	env_free();
}

/* A slow first chunk (cost grows with bytes) is remembered: no second one is started. */
static void
deadline_slowest_chunk_predicts(void)
{
	env_new();
	add_b2b(0, 1, 1024, 0, 0);     /* 512 KiB: one 512 KiB chunk would do it all */
	fake_clock_set(g_be, 0, 0, 900); /* 900 ms per (started) MiB */
	CU_ASSERT_EQUAL(run(1000, 256 * KIB), XCM_E_CA_DEADLINE);
	expect_deadline_sense(0);
	/* chunk 1 ended at 900; chunk 2 would end at 1800 > 1000: never started */
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 1);
	CU_ASSERT_EQUAL(g_res.bytes, 256 * KIB);
	CU_ASSERT_TRUE(b_is(0, 0, 256 * KIB));
	env_free();
}

/* Enough time: a deadline that is never reached changes nothing. */
static void
deadline_not_reached_completes(void)
{
	env_new();
	add_b2b(0, 1, 512, 0, 0);
	fake_clock_set(g_be, 0, 10, 0);
	CU_ASSERT_EQUAL(run(1000, CHUNK), XCM_OK);
	CU_ASSERT_EQUAL(g_res.segs_processed, 1);
	CU_ASSERT_EQUAL(g_res.bytes, 512 * BS);
	CU_ASSERT_TRUE(fake_counters(g_be)->clock_reads > 0);
	CU_ASSERT_TRUE(b_is(0, 0, 512 * BS));
	env_free();
}

/* A backend without a clock never stops a list for time. */
static void
deadline_ignored_without_clock(void)
{
	struct xcm_backend_ops ops = fake_ops;
	struct xcm_exec_opts o = { .deadline_ms = 1, .chunk_len = CHUNK };

	env_new();
	ops.now_ms = NULL;
	add_b2b(0, 1, 128, 0, 0);
	fake_clock_set(g_be, 100, 100, 0);
	CU_ASSERT_EQUAL(xcm_list_execute_opts(&g_l, NULL, &ops, g_be, g_a, &o, &g_res, &g_err),
			XCM_OK);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 4);
	CU_ASSERT_FALSE(xcm_deadline_reached(&ops, g_be, 1, 0));
	CU_ASSERT_TRUE(b_is(0, 0, 128 * BS));
	env_free();
}

/*
 * Overlapping ranges of one LU with dst > src, copied in chunks: the result
 * must be memmove's (the engine goes last chunk first), and src > dst too.
 */
static void
deadline_overlap_chunks_memmove(void)
{
	uint8_t *want = malloc(LU_BLOCKS * BS);
	uint8_t *d;

	UT_ASSERT_FATAL(want != NULL);
	env_new();
	add_b2b(0, 0, 300, 10, 50);    /* dst 40 blocks after src: 150 KiB, 10 chunks */
	memcpy(want, g_ref_a, LU_BLOCKS * BS);
	memmove(want + 50 * BS, want + 10 * BS, 300 * BS);
	CU_ASSERT_EQUAL(run(0, CHUNK), XCM_OK);
	d = fake_lu_data(g_a, NULL);
	CU_ASSERT_EQUAL(memcmp(d, want, LU_BLOCKS * BS), 0);
	CU_ASSERT_EQUAL(fake_counters(g_be)->copy_calls, 10);

	g_l.seg[0].src_lba = 400;      /* src after dst */
	g_l.seg[0].dst_lba = 390;
	memmove(want + 390 * BS, want + 400 * BS, 300 * BS);
	CU_ASSERT_EQUAL(run(0, CHUNK), XCM_OK);
	CU_ASSERT_EQUAL(memcmp(d, want, LU_BLOCKS * BS), 0);
	free(want);
	env_free();
}

/* An I/O failure in a later chunk counts the earlier chunks and the failed one's done bytes. */
static void
deadline_io_error_mid_segment_counts_chunks(void)
{
	struct fake_fault f = { .nth = 3, .err = -EIO, .at_dst = true, .after = 1000 };

	env_new();
	add_b2b(0, 1, 256, 0, 0);
	fake_set_fault(g_be, &f);
	CU_ASSERT_EQUAL(run(0, CHUNK), XCM_E_CA_DEVICE_FAILURE);
	CU_ASSERT_EQUAL(g_err.csi, 0);
	CU_ASSERT_EQUAL(g_res.bytes, 2 * CHUNK + 1000);
	CU_ASSERT_EQUAL(g_res.segs_processed, 0);
	CU_ASSERT_TRUE(b_is(0, 0, 2 * CHUNK + 1000));
	env_free();
}

/* The held results of a list cut at its deadline: COPY STATUS counts exactly what was written. */
static void
deadline_held_results_exact(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_rcr_req req = { XCM_SA_RCR_COPY_STATUS, 7, 64 };
	struct xcm_copy_status cs;
	uint8_t sense[XCM_SENSE_MAX], b[64];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_err e;
	size_t n;

	UT_ASSERT_FATAL(s != NULL);
	env_new();
	g_l.list_id = 7;
	g_l.list_id_usage = XCM_LIST_ID_HOLD;
	add_b2b(0, 1, 512, 0, 0);
	fake_clock_set(g_be, 0, 100, 0);
	CU_ASSERT_EQUAL(xcm_store_begin(s, &g_l, &e), XCM_OK);
	CU_ASSERT_EQUAL(run(250, CHUNK), XCM_E_CA_DEADLINE);
	n = xcm_sense_build(&g_err, false, sense, sizeof(sense));
	xcm_store_finish(s, &g_l, g_err.status, &g_res, sense, n);
	CU_ASSERT_EQUAL(xcm_store_rcr(s, NULL, &req, &w, &e), XCM_OK);
	UT_ASSERT_FATAL(xcm_rcr_decode_copy_status(xcm_span_make(b, xcm_wbuf_stored(&w)), &cs) == 0);
	CU_ASSERT_EQUAL(cs.cm_status, XCM_CM_STATUS_ERROR);
	CU_ASSERT_EQUAL(cs.segs_processed, 0);
	/* 2 chunks of 16 KiB = 32 KiB: reported in bytes (units 0) or KiB exactly */
	CU_ASSERT_EQUAL(g_res.bytes, 2 * CHUNK);
	CU_ASSERT_TRUE((cs.units == XCM_TC_UNITS_BYTES && cs.transfer_count == 2 * CHUNK) ||
		       (cs.units == XCM_TC_UNITS_KIB && cs.transfer_count == 32));
	xcm_store_destroy(s);
	env_free();
}

/* The deadline policy: timeout less a reserve of 1/5, at least min(1 s, t/2), at most 5 s. */
static void
deadline_for_timeout_policy(void)
{
	CU_ASSERT_EQUAL(xcm_deadline_for_timeout(1000, 0), 0);
	CU_ASSERT_EQUAL(xcm_deadline_for_timeout(1000, 1), 1000 + 500);
	CU_ASSERT_EQUAL(xcm_deadline_for_timeout(1000, 5), 1000 + 4000);
	CU_ASSERT_EQUAL(xcm_deadline_for_timeout(1000, 30), 1000 + 25000);
	CU_ASSERT_EQUAL(xcm_deadline_for_timeout(0, 10), 8000);
	CU_ASSERT_EQUAL(xcm_deadline_for_timeout(0, 600), 595000);
	CU_ASSERT_EQUAL(xcm_deadline_for_timeout(0, UINT32_MAX),
			(uint64_t)UINT32_MAX * 1000 - 5000);
}

/* xcm_deadline_reached: now >= deadline, or now + need > deadline. */
static void
deadline_reached_rule(void)
{
	env_new();
	fake_clock_set(g_be, 100, 0, 0);
	CU_ASSERT_FALSE(xcm_deadline_reached(&fake_ops, g_be, 0, 1000));
	CU_ASSERT_FALSE(xcm_deadline_reached(&fake_ops, g_be, 101, 0));
	CU_ASSERT_FALSE(xcm_deadline_reached(&fake_ops, g_be, 150, 50));
	CU_ASSERT_TRUE(xcm_deadline_reached(&fake_ops, g_be, 150, 51));
	CU_ASSERT_TRUE(xcm_deadline_reached(&fake_ops, g_be, 100, 0));
	CU_ASSERT_TRUE(xcm_deadline_reached(&fake_ops, g_be, 99, 0));
	CU_ASSERT_FALSE(xcm_deadline_reached(NULL, g_be, 99, 0));
	env_free();
}

static CU_TestInfo g_tests[] = {
	{ "deadline_segment_runs_in_chunks", deadline_segment_runs_in_chunks },
	{ "deadline_default_chunk_and_remainder", deadline_default_chunk_and_remainder },
	{ "deadline_stops_between_chunks", deadline_stops_between_chunks },
	{ "deadline_csi_is_segment_being_processed", deadline_csi_is_segment_being_processed },
	{ "deadline_already_passed", deadline_already_passed },
	{ "deadline_slowest_chunk_predicts", deadline_slowest_chunk_predicts },
	{ "deadline_not_reached_completes", deadline_not_reached_completes },
	{ "deadline_ignored_without_clock", deadline_ignored_without_clock },
	{ "deadline_overlap_chunks_memmove", deadline_overlap_chunks_memmove },
	{ "deadline_io_error_mid_segment_counts_chunks", deadline_io_error_mid_segment_counts_chunks },
	{ "deadline_held_results_exact", deadline_held_results_exact },
	{ "deadline_for_timeout_policy", deadline_for_timeout_policy },
	{ "deadline_reached_rule", deadline_reached_rule },
	CU_TEST_INFO_NULL,
};

UT_SUITE(deadline, g_tests)
