/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy against the scripted fake target (fakes/fake_target.h): what
 * it does with every EXTENDED COPY failure (unreachable LUs, COPY ABORTED
 * and CSI, deadline cuts, sticky refusals, XCOPY_REQUIRE_OFFLOAD, shrinking).
 */
#include <errno.h>
#include <string.h>

#include "fake_target.h"
#include "ut.h"

static void
host_xcopy_unreachable_from_destination_tries_source(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a, *b;
	struct xcopy_stats st;

	f->cross_ok[1] = false; /* the destination cannot reach LU 0; LU 0 can */
	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 0, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 0, 0, 0, 64));
	/* one refused push, then 4 pulls; the pair is remembered for the call */
	CU_ASSERT_EQUAL(f->xcopy_on[1], 1);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 4);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 64 * FK_BS);
	CU_ASSERT_EQUAL(st.xcopy_failed, 1);
	CU_ASSERT_EQUAL(f->nrw, 0);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_unreachable_both_ways_falls_back_per_pair(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a, *b;
	struct xcopy_stats st;

	f->cross_ok[0] = f->cross_ok[1] = false;
	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 500, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 2); /* no more tries for this pair in this call */
	CU_ASSERT_EQUAL(st.bytes_fallback, 64 * FK_BS);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_UNREACHABLE], 64 * FK_BS);
	/* not sticky: the same LU still offloads */
	CU_ASSERT_TRUE(xcopy_dev_caps(b)->offload);
	CU_ASSERT_EQUAL(xcopy_dev_copy(b, 0, b, 1000, 16, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 3);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 16 * FK_BS);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_copy_aborted_falls_back_that_range_only(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	/* the 2nd command: COPY ABORTED, THIRD PARTY DEVICE FAILURE */
	f->nscript = 1;
	f->script[0].nth = 1;
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_DEVICE_FAILURE, 0, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 4);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 48 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 16 * FK_BS);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_COPY_ABORTED], 1);
	CU_ASSERT_TRUE(f->nrw >= 2); /* READ(16) + WRITE(16) */
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_csi_keeps_completed_segments(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	/* the only command fails at segment index 2: 0 and 1 are done */
	f->nscript = 1;
	f->script[0].nth = 0;
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_UNDERRUN, 2, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	/* the fake did not move anything for the scripted failure: the host did it all
	 * for segments 2 and 3, and trusted 0 and 1 */
	CU_ASSERT_EQUAL(st.bytes_offloaded, 32 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 32 * FK_BS);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048 + 32, 0, 32, 32));
	CU_ASSERT_TRUE(ut_block_is(f, 0, 2048, 0, 2048)); /* proves what was trusted */
	xcopy_dev_close(d);
	fk_free(f);
}

/* A command cut at the target's deadline (2E/02) is resent from CSI; no progress: fallback. */
static void
host_xcopy_deadline_cut_resends_rest(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;
	int k;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	f->nscript = 1;
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_DEADLINE, 2, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, XCOPY_REQUIRE_OFFLOAD, &st), 0);
	/* segments 2 and 3 went again as a second command; 0 and 1 trusted */
	CU_ASSERT_EQUAL(f->nxcopy, 2);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 64 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048 + 32, 0, 32, 32));
	/* cut before anything moved, every time: 1 + 3 retries, then the host copies */
	f->nscript = 4;
	for (k = 0; k < 4; k++) {
		f->script[k].nth = f->nxcopy + k;
		xcm_err_set_segment(&f->script[k].err, XCM_E_CA_DEADLINE, 0, -1);
	}
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 3000, 64, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 6);
	CU_ASSERT_EQUAL(st.bytes_fallback, 64 * FK_BS);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 0, 0, 64));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_invalid_opcode_is_sticky(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	f->always_fail = true;
	xcm_err_set(&f->always, XCM_E_INVALID_OPCODE);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_FALSE(xcopy_dev_caps(d)->offload);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_INVALID_OPCODE], 64 * FK_BS);
	/* a second call does not even try */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 100, d, 3000, 8, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 0, 100, 8));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_require_offload_refuses_fallback(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->always_fail = true;
	xcm_err_set_field(&f->always, XCM_E_UNSUPP_SEG_TYPE, false, 16, -1);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	CU_ASSERT_EQUAL(f->nrw, 0);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	CU_ASSERT_TRUE(ut_block_is(f, 0, 2048, 0, 2048)); /* untouched */
	/* device now known not to offload: refused without a command */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_too_many_segments_shrinks(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	/* the target said 4 but refuses the first 4-segment list */
	f->nscript = 1;
	f->script[0].nth = 0;
	xcm_err_set(&f->script[0].err, XCM_E_TOO_MANY_SEG);
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 64));
	CU_ASSERT_EQUAL(f->nxcopy, 5);
	CU_ASSERT_EQUAL(f->max_nseg_seen, 1);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 64 * FK_BS);
	CU_ASSERT_EQUAL(xcopy_dev_caps(d)->max_seg, 1);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_hardware_error_falls_back_once(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->nscript = 1;
	f->script[0].nth = 0;
	f->script[0].err.status = XCM_E_INTERNAL;
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2048, 8, 0, &st), 0);
	/* HARDWARE ERROR is not transient: one command, then the host copy */
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_OTHER_SENSE], 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 0, 8));
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_no_3pc_never_sends(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	f->tpc = false;
	d = ut_open(f, 0, 0, 0);
	CU_ASSERT_FALSE(xcopy_dev_caps(d)->offload);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 7, d, 1500, 100, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 1500, 0, 7, 100));
	CU_ASSERT_EQUAL(f->nxcopy, 0);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_NO_3PC], 100 * FK_BS);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 7, d, 1500, 100, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	xcopy_dev_close(d);
	fk_free(f);
}

static CU_TestInfo g_tests[] = {
	{ "unreachable_from_destination_tries_source",
	  host_xcopy_unreachable_from_destination_tries_source },
	{ "unreachable_both_ways_falls_back_per_pair",
	  host_xcopy_unreachable_both_ways_falls_back_per_pair },
	{ "copy_aborted_falls_back_that_range_only",
	  host_xcopy_copy_aborted_falls_back_that_range_only },
	{ "csi_keeps_completed_segments", host_xcopy_csi_keeps_completed_segments },
	{ "deadline_cut_resends_rest", host_xcopy_deadline_cut_resends_rest },
	{ "invalid_opcode_is_sticky", host_xcopy_invalid_opcode_is_sticky },
	{ "require_offload_refuses_fallback", host_xcopy_require_offload_refuses_fallback },
	{ "too_many_segments_shrinks", host_xcopy_too_many_segments_shrinks },
	{ "hardware_error_falls_back_once", host_xcopy_hardware_error_falls_back_once },
	{ "no_3pc_never_sends", host_xcopy_no_3pc_never_sends },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_xcopy_fail, g_tests)
