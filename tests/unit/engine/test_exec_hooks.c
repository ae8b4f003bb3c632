/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The optional stop and progress hooks of struct xcm_backend_ops (engine/exec.c):
 * a stop request ends the list between chunks with its status, CSI = the
 * segment, exact counts, nothing written after; progress reports every chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"
#include "ut.h"

#define BS 512u
#define LU_BLOCKS 256u
#define CHUNK 4096u

static struct xcm_backend_ops g_ops;
static unsigned g_stop_after;        /* stop() says XCM_OK this many times */
static unsigned g_stop_calls;
static enum xcm_status g_stop_status;
static unsigned g_progress_calls;
static uint32_t g_last_segs;
static uint64_t g_last_bytes;
static bool g_monotonic;

static enum xcm_status
h_stop(void *ctx)
{
	(void)ctx;
	return g_stop_calls++ < g_stop_after ? XCM_OK : g_stop_status;
}

static void
h_progress(void *ctx, uint32_t segs, uint64_t bytes)
{
	(void)ctx;
	if (segs < g_last_segs || bytes < g_last_bytes) {
		g_monotonic = false;
	}
	g_last_segs = segs;
	g_last_bytes = bytes;
	g_progress_calls++;
}

struct env {
	struct fake_be *be;
	struct xt_lu *a, *b;
	struct xcm_list l;
	uint8_t ref_b[LU_BLOCKS * BS];
	uint8_t ref_a[LU_BLOCKS * BS];
};

/* A -> B: two segments of 16 KiB (4 chunks each), A[0] -> B[64K], A[32K] -> B[96K]. */
static struct env *
env_new(unsigned stop_after, enum xcm_status st)
{
	struct env *e = calloc(1, sizeof(*e));
	uint32_t i;

	UT_ASSERT_FATAL(e != NULL);
	e->be = fake_create();
	e->a = fake_lu_add(e->be, BS, LU_BLOCKS, 21);
	e->b = fake_lu_add(e->be, BS, LU_BLOCKS, 22);
	memcpy(e->ref_a, fake_lu_data(e->a, NULL), sizeof(e->ref_a));
	memcpy(e->ref_b, fake_lu_data(e->b, NULL), sizeof(e->ref_b));
	e->l.list_id_usage = XCM_LIST_ID_NONE;
	e->l.ncscd = 2;
	fake_lu_cscd(e->a, &e->l.cscd[0]);
	fake_lu_cscd(e->b, &e->l.cscd[1]);
	e->l.nseg = 2;
	for (i = 0; i < 2; i++) {
		e->l.seg[i].type = XCM_SEG_B2B;
		e->l.seg[i].src = &e->l.cscd[0];
		e->l.seg[i].dst = &e->l.cscd[1];
		e->l.seg[i].count = 32;
		e->l.seg[i].src_lba = 64u * i;
		e->l.seg[i].dst_lba = 128u + 64u * i;
	}
	g_ops = fake_ops;
	g_ops.stop = h_stop;
	g_ops.progress = h_progress;
	g_stop_after = stop_after;
	g_stop_status = st;
	g_stop_calls = 0;
	g_progress_calls = 0;
	g_last_segs = 0;
	g_last_bytes = 0;
	g_monotonic = true;
	return e;
}

static void
env_free(struct env *e)
{
	fake_destroy(e->be);
	free(e);
}

static enum xcm_status
run(struct env *e, struct xcm_exec_result *res, struct xcm_err *err)
{
	struct xcm_exec_opts o = { .chunk_len = CHUNK };

	return xcm_list_execute_opts(&e->l, &xcm_limits_default, &g_ops, e->be, e->a, &o, res, err);
}

static void
hooks_full_run_reports_progress(void)
{
	struct env *e = env_new(1000, XCM_E_CA_NOT_REACHABLE);
	struct xcm_exec_result res;
	struct xcm_err err;

	CU_ASSERT_EQUAL(run(e, &res, &err), XCM_OK);
	CU_ASSERT_EQUAL(res.segs_processed, 2);
	CU_ASSERT_EQUAL(res.bytes, 32768);
	/* asked before each of the 8 chunks; 8 chunk reports + 2 segment reports */
	CU_ASSERT_EQUAL(g_stop_calls, 8);
	CU_ASSERT_EQUAL(g_progress_calls, 10);
	CU_ASSERT_TRUE(g_monotonic);
	CU_ASSERT_EQUAL(g_last_segs, 2);
	CU_ASSERT_EQUAL(g_last_bytes, 32768);
	env_free(e);
}

static void
hooks_stop_between_chunks(void)
{
	/* 6 chunks go (segment 0 whole, 2 of segment 1), the 7th is refused */
	struct env *e = env_new(6, XCM_E_CA_NOT_REACHABLE);
	struct xcm_exec_result res;
	struct xcm_err err;
	uint8_t *b;

	UT_EXPECT_ERR(run(e, &res, &err), &err, XCM_E_CA_NOT_REACHABLE, -1);
	CU_ASSERT_TRUE(err.csi_valid);
	CU_ASSERT_EQUAL(err.csi, 1);
	CU_ASSERT_FALSE(err.fwd_valid);
	CU_ASSERT_EQUAL(res.segs_processed, 1);
	CU_ASSERT_EQUAL(res.bytes, 6 * CHUNK);
	CU_ASSERT_EQUAL(fake_counters(e->be)->copy_calls, 6);
	CU_ASSERT_EQUAL(g_last_bytes, 6 * CHUNK);
	CU_ASSERT_EQUAL(g_last_segs, 1);
	/* written: B[64K, +16K) and B[96K, +8K); nothing after it */
	b = fake_lu_data(e->b, NULL);
	CU_ASSERT_EQUAL(memcmp(b + 65536, e->ref_a, 16384), 0);
	CU_ASSERT_EQUAL(memcmp(b + 98304, e->ref_a + 32768, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(b + 98304 + 8192, e->ref_b + 98304 + 8192, 8192), 0);
	CU_ASSERT_EQUAL(memcmp(b, e->ref_b, 65536), 0);
	env_free(e);
}

static void
hooks_stop_before_anything(void)
{
	struct env *e = env_new(0, XCM_E_CA_NOT_REACHABLE);
	struct xcm_exec_result res;
	struct xcm_err err;

	UT_EXPECT_ERR(run(e, &res, &err), &err, XCM_E_CA_NOT_REACHABLE, -1);
	CU_ASSERT_EQUAL(err.csi, 0);
	CU_ASSERT_EQUAL(res.bytes, 0);
	CU_ASSERT_EQUAL(res.segs_processed, 0);
	CU_ASSERT_EQUAL(fake_counters(e->be)->copy_calls, 0);
	CU_ASSERT_EQUAL(memcmp(fake_lu_data(e->b, NULL), e->ref_b, sizeof(e->ref_b)), 0);
	env_free(e);
}

static CU_TestInfo hooks_tests[] = {
	{ "full_run_reports_progress", hooks_full_run_reports_progress },
	{ "stop_between_chunks", hooks_stop_between_chunks },
	{ "stop_before_anything", hooks_stop_before_anything },
	CU_TEST_INFO_NULL,
};

UT_SUITE(exec_hooks, hooks_tests)
