/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Commands in flight against the scripted fake target: how many EXTENDED
 * COPY commands are outstanding at once, their LIST IDs, the caps from the
 * target's limits and the transport, per-range fallback and exact accounting.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_target.h"
#include "ut.h"

struct prog {
	uint64_t last, total;
	int calls, backwards;
};

static void
prog_cb(uint64_t done, uint64_t total, void *arg)
{
	struct prog *p = arg;

	if (done < p->last) {
		p->backwards++;
	}
	p->last = done;
	p->total = total;
	p->calls++;
}

/* 16 blocks per segment, one segment per command: 256 blocks = 16 commands */
static struct fk *
fk_sixteen(bool snlid)
{
	struct fk *f = fk_new();

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	f->lim.snlid = snlid;
	/* SPC-4 6.18.4: the engine's default reports one copy at a time */
	f->lim.total_concurrent = 16;
	f->lim.max_concurrent = 16;
	/* a held command goes once every worker of the copy is held: no timeout */
	f->until_idle = true;
	return f;
}

static void
host_inflight_keeps_n_outstanding_with_distinct_list_ids(void)
{
	struct fk *f = fk_sixteen(false);
	struct xcopy_dev *d;
	struct xcopy_stats st;
	struct prog p;
	unsigned i;

	f->gather = 4;
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	memset(&p, 0, sizeof(p));
	xcopy_set_inflight(4);
	xcopy_set_progress(prog_cb, &p);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 256, 0, &st), 0);
	xcopy_set_progress(NULL, NULL);
	xcopy_set_inflight(0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 256));
	CU_ASSERT_TRUE(ut_block_is(f, 0, 2048 + 256, 0, 2048 + 256));
	CU_ASSERT_EQUAL(f->nxcopy, 16);
	CU_ASSERT_EQUAL(f->max_cur, 4);
	/* LIST ID USAGE 10b: no id sent while a command carrying it was outstanding */
	CU_ASSERT_EQUAL(f->last->list_id_usage, XCM_LIST_ID_DISCARD);
	CU_ASSERT_EQUAL(f->dup_ids, 0);
	for (i = 0; i < 32; i++) {
		CU_ASSERT_EQUAL(d->lid_busy[i], 0); /* every id given back */
	}
	CU_ASSERT_EQUAL(st.xcopy_cmds, 16);
	CU_ASSERT_EQUAL(st.xcopy_failed, 0);
	CU_ASSERT_EQUAL(st.segments, 16);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 256 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	CU_ASSERT_EQUAL(f->nrw, 0);
	/* progress once per command, never backwards, ending at the total */
	CU_ASSERT_EQUAL(p.calls, 16);
	CU_ASSERT_EQUAL(p.backwards, 0);
	CU_ASSERT_EQUAL(p.last, 256 * FK_BS);
	CU_ASSERT_EQUAL(p.total, 256 * FK_BS);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_inflight_spreads_segments_over_n_commands(void)
{
	struct fk *f = fk_sixteen(true);
	struct xcopy_dev *d;
	struct xcopy_stats st;

	/* a target taking 1024 segments per command: 16 segments would be one command */
	f->lim.max_seg = 1024;
	f->gather = 4;
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 256, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	xcopy_set_inflight(4);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 3000, 256, 0, &st), 0);
	xcopy_set_inflight(0);
	CU_ASSERT_EQUAL(f->nxcopy, 1 + 4);
	CU_ASSERT_EQUAL(f->max_nseg_seen, 16);
	CU_ASSERT_EQUAL(f->last->nseg, 4);
	CU_ASSERT_EQUAL(f->max_cur, 4);
	CU_ASSERT_EQUAL(st.segments, 16 + 16);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 2 * 256 * FK_BS);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 256));
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 0, 0, 256));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_inflight_capped_by_concurrent_copies(void)
{
	struct fk *f = fk_sixteen(false);
	struct xcopy_dev *d;

	/* RCR OPERATING PARAMETERS: 8 in all, 2 identified (LIST ID USAGE 10b) */
	f->lim.total_concurrent = 8;
	f->lim.max_concurrent = 2;
	f->gather = 8;
	d = ut_open(f, 0, 0, 0);
	CU_ASSERT_EQUAL(d->max_copies, 8);
	CU_ASSERT_EQUAL(d->max_id_copies, 2);
	xcopy_set_inflight(16);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 256, 0, NULL), 0);
	CU_ASSERT_EQUAL(f->max_cur, 2);
	CU_ASSERT_EQUAL(f->dup_ids, 0);
	xcopy_dev_close(d);
	/* with SNLID (11b, no id kept) only the total counts */
	f->lim.snlid = true;
	f->max_cur = 0;
	d = ut_open(f, 0, 0, 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 256, 0, NULL), 0);
	CU_ASSERT_EQUAL(f->max_cur, 8);
	CU_ASSERT_EQUAL(f->last->list_id_usage, XCM_LIST_ID_NONE);
	xcopy_set_inflight(0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 256));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_inflight_serial_transport_keeps_one(void)
{
	struct fk *f = fk_sixteen(true);
	struct xcopy_dev *d;

	f->gather = 4;       /* held until every worker is in: none joins it */
	d = ut_open_ops(f, 0, &fk_ops_serial);
	xcopy_set_inflight(4);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 256, 0, NULL), 0);
	xcopy_set_inflight(0);
	CU_ASSERT_EQUAL(f->nxcopy, 16);
	CU_ASSERT_EQUAL(f->max_cur, 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 256));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_inflight_failure_falls_back_its_ranges_only(void)
{
	struct fk *f = fk_sixteen(true);
	struct xcopy_dev *a, *b;
	struct xcopy_stats st;

	/* the command reading blocks 64..79: COPY ABORTED, THIRD PARTY DEVICE FAILURE */
	f->fail_src_lba1 = 64 + 1;
	xcm_err_set_segment(&f->fail_err, XCM_E_CA_DEVICE_FAILURE, 0, -1);
	f->gather = 4;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	memset(&st, 0, sizeof(st));
	xcopy_set_inflight(4);
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 1000, 256, 0, &st), 0);
	xcopy_set_inflight(0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 1000, 0, 0, 256));
	CU_ASSERT_TRUE(ut_block_is(f, 1, 999, 1, 999));
	CU_ASSERT_TRUE(ut_block_is(f, 1, 1256, 1, 1256));
	CU_ASSERT_EQUAL(f->max_cur, 4);
	CU_ASSERT_EQUAL(f->nxcopy, 16);
	CU_ASSERT_EQUAL(st.xcopy_cmds, 16);
	CU_ASSERT_EQUAL(st.xcopy_failed, 1);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 240 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 16 * FK_BS);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_COPY_ABORTED], 1);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_COPY_ABORTED], 16 * FK_BS);
	/* 16 blocks: one READ(16) and one WRITE(16) (MAXIMUM TRANSFER LENGTH 64) */
	CU_ASSERT_EQUAL(f->nrw, 2);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

/*
 * A worker copying its failed command's range on the host does not hold up
 * the others. The first EXTENDED COPY fails; the others are held until its
 * fallback READ comes (8 commands are then still to send), and that READ
 * waits for two more EXTENDED COPYs, which only come if the other workers
 * can take and send commands meanwhile (a fallback under the copy's lock
 * sees none and waits out its bound).
 */
static void
host_inflight_fallback_beside_commands_in_flight(void)
{
	struct fk *f = fk_sixteen(true);
	struct xcopy_dev *a, *b;
	struct xcopy_stats st;

	f->until_idle = false;
	f->gather = 1;
	f->script[0].nth = 0;   /* the first command to arrive: COPY ABORTED, host copy */
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_DEVICE_FAILURE, 0, -1);
	f->nscript = 1;
	f->rw_wait_xcopies = 2;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	memset(&st, 0, sizeof(st));
	xcopy_set_inflight(8);
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 1000, 256, 0, &st), 0);
	xcopy_set_inflight(0);
	CU_ASSERT_TRUE(f->rw_saw_xcopies >= 2);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 1000, 0, 0, 256));
	CU_ASSERT_TRUE(ut_block_is(f, 1, 999, 1, 999));
	CU_ASSERT_TRUE(ut_block_is(f, 1, 1256, 1, 1256));
	CU_ASSERT_EQUAL(f->nxcopy, 16);
	CU_ASSERT_EQUAL(st.xcopy_failed, 1);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 240 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 16 * FK_BS);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_COPY_ABORTED], 16 * FK_BS);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_inflight_require_offload_never_falls_back(void)
{
	struct fk *f = fk_sixteen(true);
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->fail_src_lba1 = 0 + 1;
	xcm_err_set_segment(&f->fail_err, XCM_E_CA_DEVICE_FAILURE, 0, -1);
	f->gather = 2;
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	xcopy_set_inflight(2);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 256, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	xcopy_set_inflight(0);
	/*
	 * The command beside the failed one completes; how many more start before
	 * the failure is seen depends on scheduling, but every one is counted.
	 */
	CU_ASSERT_TRUE(f->nxcopy >= 2);
	CU_ASSERT_EQUAL(st.xcopy_cmds, (uint64_t)f->nxcopy);
	CU_ASSERT_EQUAL(st.xcopy_failed, 1);
	CU_ASSERT_EQUAL(st.bytes_offloaded, (uint64_t)(f->nxcopy - 1) * 16 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	CU_ASSERT_EQUAL(f->nrw, 0);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_inflight_default_limits_keep_one(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;

	/* a target reporting TOTAL CONCURRENT COPIES 1 gets one command at a time */
	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	f->gather = 4;       /* held until every worker is in: none joins it */
	f->until_idle = true;
	d = ut_open(f, 0, 0, 0);
	xcopy_set_inflight(4);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, NULL), 0);
	xcopy_set_inflight(0);
	CU_ASSERT_EQUAL(f->nxcopy, 4);
	CU_ASSERT_EQUAL(f->max_cur, 1);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_inflight_setting_and_environment(void)
{
	xcopy_set_inflight(0);
	unsetenv("XCOPY_INFLIGHT");
	CU_ASSERT_EQUAL(xch_inflight_wanted(), 1);
	setenv("XCOPY_INFLIGHT", "6", 1);
	CU_ASSERT_EQUAL(xch_inflight_wanted(), 6);
	setenv("XCOPY_INFLIGHT", "999", 1);
	CU_ASSERT_EQUAL(xch_inflight_wanted(), XCH_INFLIGHT_MAX);
	setenv("XCOPY_INFLIGHT", "4x", 1);
	CU_ASSERT_EQUAL(xch_inflight_wanted(), 1);
	setenv("XCOPY_INFLIGHT", "6", 1);
	xcopy_set_inflight(3);  /* the API wins over the environment */
	CU_ASSERT_EQUAL(xch_inflight_wanted(), 3);
	xcopy_set_inflight(100);
	CU_ASSERT_EQUAL(xch_inflight_wanted(), XCH_INFLIGHT_MAX);
	xcopy_set_inflight(0);
	unsetenv("XCOPY_INFLIGHT");
}

static CU_TestInfo g_tests[] = {
	{ "keeps_n_outstanding_with_distinct_list_ids",
	  host_inflight_keeps_n_outstanding_with_distinct_list_ids },
	{ "spreads_segments_over_n_commands", host_inflight_spreads_segments_over_n_commands },
	{ "capped_by_concurrent_copies", host_inflight_capped_by_concurrent_copies },
	{ "serial_transport_keeps_one", host_inflight_serial_transport_keeps_one },
	{ "failure_falls_back_its_ranges_only", host_inflight_failure_falls_back_its_ranges_only },
	{ "fallback_beside_commands_in_flight", host_inflight_fallback_beside_commands_in_flight },
	{ "require_offload_never_falls_back", host_inflight_require_offload_never_falls_back },
	{ "default_limits_keep_one", host_inflight_default_limits_keep_one },
	{ "setting_and_environment", host_inflight_setting_and_environment },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_inflight, g_tests)
