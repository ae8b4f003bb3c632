/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runs of contiguous segments in one backend call (engine/exec.c merge_run,
 * ops run_len + copy_run): which segments merge, and that data, counts and
 * the failed-segment report are those of serial execution, also when the
 * merged call fails (the run is then copied again segment by segment).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"
#include "ut.h"

#define BS 512u
#define LU_BLOCKS 512u
#define SEG_BLOCKS 32u             /* 16 KiB segments */
#define CHUNK 4096u

static struct xcm_backend_ops g_ops;
static uint64_t g_run_len;          /* what run_len() answers */
static int g_run_fail;              /* copy_run(): copy half, then return this (0: works) */
static unsigned g_run_calls;
static uint64_t g_run_bytes[8];     /* len of each copy_run call */

static uint64_t
m_run_len(void *ctx, struct xt_lu *src, struct xt_lu *dst)
{
	(void)ctx;
	(void)src;
	(void)dst;
	return g_run_len;
}

static int
m_copy_run(void *ctx, struct xt_lu *src, uint64_t so, struct xt_lu *dst, uint64_t doff,
	   uint64_t len)
{
	uint8_t *s = fake_lu_data(src, NULL), *d = fake_lu_data(dst, NULL);

	(void)ctx;
	if (g_run_calls < 8) {
		g_run_bytes[g_run_calls] = len;
	}
	g_run_calls++;
	/* a failed call may have written part of the run */
	memmove(d + doff, s + so, g_run_fail != 0 ? len / 2 : len);
	return g_run_fail;
}

struct env {
	struct fake_be *be;
	struct xt_lu *a, *b;
	struct xcm_list l;
};

/*
 * A -> B, nseg segments of 16 KiB: A[16K i] -> B[64K + 16K i] (contiguous),
 * except segment gap (if < nseg) which starts one segment further on both sides.
 */
static void
env_init(struct env *e, uint32_t nseg, uint32_t gap, bool merge)
{
	uint32_t i, skip;

	memset(e, 0, sizeof(*e));
	e->be = fake_create();
	e->a = fake_lu_add(e->be, BS, LU_BLOCKS, 31);
	e->b = fake_lu_add(e->be, BS, LU_BLOCKS, 32);
	e->l.list_id_usage = XCM_LIST_ID_NONE;
	e->l.ncscd = 2;
	fake_lu_cscd(e->a, &e->l.cscd[0]);
	fake_lu_cscd(e->b, &e->l.cscd[1]);
	e->l.nseg = nseg;
	for (i = 0; i < nseg; i++) {
		skip = i >= gap ? 1 : 0;
		e->l.seg[i].type = XCM_SEG_B2B;
		e->l.seg[i].src = &e->l.cscd[0];
		e->l.seg[i].dst = &e->l.cscd[1];
		e->l.seg[i].count = SEG_BLOCKS;
		e->l.seg[i].src_lba = SEG_BLOCKS * (i + skip);
		e->l.seg[i].dst_lba = 128u + SEG_BLOCKS * (i + skip);
	}
	g_ops = fake_ops;
	if (merge) {
		g_ops.run_len = m_run_len;
		g_ops.copy_run = m_copy_run;
	}
	g_run_calls = 0;
	memset(g_run_bytes, 0, sizeof(g_run_bytes));
}

static enum xcm_status
run(struct env *e, struct xcm_exec_result *res, struct xcm_err *err)
{
	struct xcm_exec_opts o = { .chunk_len = CHUNK };

	memset(err, 0, sizeof(*err));
	return xcm_list_execute_opts(&e->l, &xcm_limits_default, &g_ops, e->be, e->a, &o, res, err);
}

static void
merge_contiguous_one_call(void)
{
	struct xcm_exec_result res, rs;
	struct xcm_err err, es;
	struct env m, s;

	/* 4 contiguous segments, then one after a gap: one call of 64 KiB + the 5th serially */
	env_init(&s, 5, 4, false);
	CU_ASSERT_EQUAL(run(&s, &rs, &es), XCM_OK);
	env_init(&m, 5, 4, true);
	g_run_len = UINT64_C(1) << 30;
	CU_ASSERT_EQUAL(run(&m, &res, &err), XCM_OK);
	CU_ASSERT_EQUAL(g_run_calls, 1);
	CU_ASSERT_EQUAL(g_run_bytes[0], 4 * SEG_BLOCKS * BS);
	/* the 5th: 16 KiB in 4 KiB chunks through copy() */
	CU_ASSERT_EQUAL(fake_counters(m.be)->copy_calls, 4);
	CU_ASSERT_EQUAL(res.segs_processed, 5);
	CU_ASSERT_EQUAL(res.bytes, 5 * SEG_BLOCKS * BS);
	CU_ASSERT_EQUAL(res.segs_processed, rs.segs_processed);
	CU_ASSERT_EQUAL(res.bytes, rs.bytes);
	CU_ASSERT_EQUAL(memcmp(fake_lu_data(m.b, NULL), fake_lu_data(s.b, NULL),
			       LU_BLOCKS * BS), 0);
	fake_destroy(m.be);
	fake_destroy(s.be);
}

static void
merge_capped_by_run_len(void)
{
	struct xcm_exec_result res;
	struct xcm_err err;
	struct env m;

	/* 6 contiguous segments, at most 32 KiB per call: 3 calls of 2 segments */
	env_init(&m, 6, 6, true);
	g_run_len = 2 * SEG_BLOCKS * BS + 100;
	CU_ASSERT_EQUAL(run(&m, &res, &err), XCM_OK);
	CU_ASSERT_EQUAL(g_run_calls, 3);
	CU_ASSERT_EQUAL(g_run_bytes[0], 2 * SEG_BLOCKS * BS);
	CU_ASSERT_EQUAL(g_run_bytes[2], 2 * SEG_BLOCKS * BS);
	CU_ASSERT_EQUAL(fake_counters(m.be)->copy_calls, 0);
	CU_ASSERT_EQUAL(res.segs_processed, 6);
	CU_ASSERT_EQUAL(res.bytes, 6 * SEG_BLOCKS * BS);
	/* run_len 0: never merged */
	fake_destroy(m.be);
	env_init(&m, 6, 6, true);
	g_run_len = 0;
	CU_ASSERT_EQUAL(run(&m, &res, &err), XCM_OK);
	CU_ASSERT_EQUAL(g_run_calls, 0);
	CU_ASSERT_EQUAL(fake_counters(m.be)->copy_calls, 24);
	fake_destroy(m.be);
}

static void
merge_failure_reported_as_serial(void)
{
	struct fake_fault f = { .nth = 7, .err = -EIO, .at_dst = true, .after = 1024 };
	struct xcm_exec_result res, rs;
	struct xcm_err err, es;
	enum xcm_status st, ss;
	struct env m, s;

	/*
	 * The merged call fails (after writing half the run); copied again
	 * segment by segment, the 7th copy() (segment 1, 3rd chunk) fails after
	 * 1 KiB: the same failed segment, counts and forwarded sense as serially.
	 */
	env_init(&s, 4, 4, false);
	fake_set_fault(s.be, &f);
	ss = run(&s, &rs, &es);
	env_init(&m, 4, 4, true);
	g_run_len = UINT64_C(1) << 30;
	g_run_fail = -EIO;
	fake_set_fault(m.be, &f);
	st = run(&m, &res, &err);
	g_run_fail = 0;
	CU_ASSERT_EQUAL(g_run_calls, 1);
	CU_ASSERT_EQUAL(ss, XCM_E_CA_DEVICE_FAILURE);
	CU_ASSERT_EQUAL(st, ss);
	CU_ASSERT_TRUE(err.csi_valid);
	CU_ASSERT_EQUAL(err.csi, 1);
	CU_ASSERT_EQUAL(err.csi, es.csi);
	CU_ASSERT_EQUAL(res.segs_processed, 1);
	CU_ASSERT_EQUAL(res.segs_processed, rs.segs_processed);
	CU_ASSERT_EQUAL(res.bytes, SEG_BLOCKS * BS + 2 * CHUNK + 1024);
	CU_ASSERT_EQUAL(res.bytes, rs.bytes);
	CU_ASSERT_EQUAL(err.fwd_valid, es.fwd_valid);
	CU_ASSERT_EQUAL(err.fwd_source, es.fwd_source);
	CU_ASSERT_EQUAL(err.fwd_len, es.fwd_len);
	CU_ASSERT_EQUAL(memcmp(err.fwd_sense, es.fwd_sense, es.fwd_len), 0);
	/* up to the failure point the destination is the serial one */
	CU_ASSERT_EQUAL(memcmp(fake_lu_data(m.b, NULL), fake_lu_data(s.b, NULL),
			       65536 + SEG_BLOCKS * BS + 2 * CHUNK + 1024), 0);
	fake_destroy(m.be);
	fake_destroy(s.be);
}

static void
merge_not_over_same_lu_overlap(void)
{
	struct xcm_exec_result res, rs;
	struct xcm_err err, es;
	struct env m, s;
	uint32_t i;

	/* A[16K i] -> A[16K (i + 1)]: contiguous, but each reads what the one before wrote */
	for (i = 0; i < 2; i++) {
		struct env *e = i == 0 ? &s : &m;
		uint32_t j;

		env_init(e, 3, 3, i == 1);
		for (j = 0; j < 3; j++) {
			e->l.seg[j].dst = &e->l.cscd[0];
			e->l.seg[j].dst_lba = SEG_BLOCKS * (j + 1);
		}
	}
	g_run_len = UINT64_C(1) << 30;
	CU_ASSERT_EQUAL(run(&s, &rs, &es), XCM_OK);
	CU_ASSERT_EQUAL(run(&m, &res, &err), XCM_OK);
	CU_ASSERT_EQUAL(g_run_calls, 0);
	CU_ASSERT_EQUAL(res.bytes, rs.bytes);
	CU_ASSERT_EQUAL(memcmp(fake_lu_data(m.a, NULL), fake_lu_data(s.a, NULL),
			       LU_BLOCKS * BS), 0);
	fake_destroy(m.be);
	fake_destroy(s.be);
}

static CU_TestInfo merge_tests[] = {
	{ "contiguous_one_call", merge_contiguous_one_call },
	{ "capped_by_run_len", merge_capped_by_run_len },
	{ "failure_reported_as_serial", merge_failure_reported_as_serial },
	{ "not_over_same_lu_overlap", merge_not_over_same_lu_overlap },
	CU_TEST_INFO_NULL,
};

UT_SUITE(exec_merge, merge_tests)
