/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* host planner: pairs -> segments -> commands within the copy manager's limits. */
#include <string.h>

#include "ut.h"
#include "copy/xch_copy.h"

static struct xch_plan_limits
lim_make(uint32_t ncscd, uint32_t max_seg, uint32_t list_len, uint32_t seg_blocks)
{
	struct xch_plan_limits l = { ncscd, max_seg, list_len, seg_blocks };
	return l;
}

/* Every block of every pair appears exactly once, in order, within limits. */
static void
ut_check_cover(const struct xch_pair *p, size_t n, const struct xch_plan *pl,
	       const struct xch_plan_limits *l)
{
	size_t i, s = 0, c;
	uint64_t skip;

	for (i = 0; i < n; i++) {
		for (skip = 0; skip < p[i].nblocks;) {
			UT_ASSERT_FATAL(s < pl->nseg);
			CU_ASSERT_EQUAL(pl->seg[s].pair, i);
			CU_ASSERT_EQUAL(pl->seg[s].skip, skip);
			CU_ASSERT_TRUE(pl->seg[s].nblocks > 0);
			CU_ASSERT_TRUE(pl->seg[s].nblocks <= l->max_seg_blocks);
			CU_ASSERT_TRUE(pl->seg[s].nblocks <= 65535);
			skip += pl->seg[s].nblocks;
			s++;
		}
		CU_ASSERT_EQUAL(skip, p[i].nblocks);
	}
	CU_ASSERT_EQUAL(s, pl->nseg);
	s = 0;
	for (c = 0; c < pl->ncmd; c++) {
		CU_ASSERT_EQUAL(pl->cmd[c].first, s);
		CU_ASSERT_TRUE(pl->cmd[c].nseg >= 1);
		CU_ASSERT_TRUE(pl->cmd[c].nseg <= l->max_seg);
		CU_ASSERT_TRUE(l->ncscd * 32 + pl->cmd[c].nseg * 28 <= l->max_desc_list_len);
		s += pl->cmd[c].nseg;
	}
	CU_ASSERT_EQUAL(s, pl->nseg);
}

static void
host_plan_single_pair_one_segment(void)
{
	struct xch_pair p = { 100, 5000, 2048, 0, 0 };
	struct xch_plan_limits l = lim_make(1, 1, 1024, 65535);
	struct xch_plan pl;

	CU_ASSERT_EQUAL(xch_plan_build(&p, 1, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.nseg, 1);
	CU_ASSERT_EQUAL(pl.ncmd, 1);
	CU_ASSERT_EQUAL(pl.seg[0].nblocks, 2048);
	ut_check_cover(&p, 1, &pl, &l);
	xch_plan_free(&pl);
}

static void
host_plan_splits_at_65535_blocks(void)
{
	struct xch_pair p = { 0, 1000000, 65535 * 3 + 7, 0, 0 };
	/* limits larger than the 02h field can carry: the field wins */
	struct xch_plan_limits l = lim_make(1, 16, 4096, 1u << 20);
	struct xch_plan pl;

	CU_ASSERT_EQUAL(xch_plan_build(&p, 1, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.nseg, 4);
	CU_ASSERT_EQUAL(pl.seg[0].nblocks, 65535);
	CU_ASSERT_EQUAL(pl.seg[2].nblocks, 65535);
	CU_ASSERT_EQUAL(pl.seg[3].nblocks, 7);
	CU_ASSERT_EQUAL(pl.seg[3].skip, 65535 * 3);
	CU_ASSERT_EQUAL(pl.ncmd, 1);
	l.max_seg_blocks = 65535;
	ut_check_cover(&p, 1, &pl, &l);
	xch_plan_free(&pl);
}

static void
host_plan_splits_at_max_segment_length(void)
{
	/* 16 MiB MAXIMUM SEGMENT LENGTH at 4096-byte blocks: 4096 blocks */
	struct xch_pair p = { 0, 50000, 10000, 0, 0 };
	struct xch_plan_limits l = lim_make(1, 1, 1024, (16u << 20) / 4096);
	struct xch_plan pl;

	CU_ASSERT_EQUAL(xch_plan_build(&p, 1, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.nseg, 3);
	CU_ASSERT_EQUAL(pl.seg[0].nblocks, 4096);
	CU_ASSERT_EQUAL(pl.seg[2].nblocks, 10000 - 8192);
	CU_ASSERT_EQUAL(pl.ncmd, 3); /* LIO/tcmu: one segment per command */
	ut_check_cover(&p, 1, &pl, &l);
	xch_plan_free(&pl);
}

static void
host_plan_packs_pairs_up_to_max_seg(void)
{
	struct xch_pair p[10];
	struct xch_plan_limits l = lim_make(2, 4, 4096, 65535);
	struct xch_plan pl;
	size_t i;

	for (i = 0; i < 10; i++) {
		p[i].src_lba = i * 1000;
		p[i].dst_lba = 50000 + i * 1000;
		p[i].nblocks = 100 + i;
	}
	CU_ASSERT_EQUAL(xch_plan_build(p, 10, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.nseg, 10);   /* one segment per extent pair */
	CU_ASSERT_EQUAL(pl.ncmd, 3);    /* 4 + 4 + 2 */
	CU_ASSERT_EQUAL(pl.cmd[2].nseg, 2);
	ut_check_cover(p, 10, &pl, &l);
	xch_plan_free(&pl);
}

static void
host_plan_descriptor_list_length_limits_segments(void)
{
	struct xch_pair p[100];
	/* (1024 - 2 * 32) / 28 = 34 segments fit, although 1024 are allowed */
	struct xch_plan_limits l = lim_make(2, 1024, 1024, 65535);
	struct xch_plan pl;
	size_t i;

	for (i = 0; i < 100; i++) {
		p[i].src_lba = i * 10;
		p[i].dst_lba = 5000 + i * 10;
		p[i].nblocks = 8;
	}
	CU_ASSERT_EQUAL(xch_plan_build(p, 100, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.cmd[0].nseg, 34);
	CU_ASSERT_EQUAL(pl.ncmd, 3);
	CU_ASSERT_EQUAL(pl.cmd[2].nseg, 100 - 68);
	ut_check_cover(p, 100, &pl, &l);
	xch_plan_free(&pl);
	/* one CSCD leaves room for one more: (1024 - 32) / 28 = 35 */
	l.ncscd = 1;
	CU_ASSERT_EQUAL(xch_plan_build(p, 100, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.cmd[0].nseg, 35);
	xch_plan_free(&pl);
}

static void
host_plan_no_room_is_einval(void)
{
	struct xch_pair p = { 0, 100, 10, 0, 0 };
	struct xch_plan pl;
	struct xch_plan_limits l = lim_make(2, 1, 64 + 27, 65535);

	CU_ASSERT_EQUAL(xch_plan_build(&p, 1, &l, &pl), -EINVAL);
	CU_ASSERT_PTR_NULL(pl.seg);
	l = lim_make(2, 0, 1024, 65535);
	CU_ASSERT_EQUAL(xch_plan_build(&p, 1, &l, &pl), -EINVAL);
	l = lim_make(1, 1, 1024, 0);
	CU_ASSERT_EQUAL(xch_plan_build(&p, 1, &l, &pl), -EINVAL);
	/* exactly one segment fits */
	l = lim_make(2, 1, 64 + 28, 65535);
	CU_ASSERT_EQUAL(xch_plan_build(&p, 1, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.ncmd, 1);
	xch_plan_free(&pl);
}

static void
host_plan_empty_and_zero_length_pairs(void)
{
	struct xch_pair p[3] = { { 0, 10, 0, 0, 0 }, { 5, 20, 3, 0, 0 }, { 9, 30, 0, 0, 0 } };
	struct xch_plan_limits l = lim_make(1, 8, 1024, 65535);
	struct xch_plan pl;

	CU_ASSERT_EQUAL(xch_plan_build(p, 0, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.ncmd, 0);
	CU_ASSERT_EQUAL(xch_plan_build(p, 3, &l, &pl), 0);
	CU_ASSERT_EQUAL(pl.nseg, 1);
	CU_ASSERT_EQUAL(pl.seg[0].pair, 1);
	xch_plan_free(&pl);
}

static void
host_plan_limits_take_the_smaller_side(void)
{
	struct xcopy_dev a, b;
	struct xch_plan_limits l;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.caps.max_seg = 8;
	a.caps.max_desc_list_len = 4096;
	a.caps.max_seg_blocks = 65535;
	b.caps.max_seg = 1;
	b.caps.max_desc_list_len = 1024;
	b.caps.max_seg_blocks = 32768;
	xch_plan_limits_get(&a, &b, 2, &l);
	CU_ASSERT_EQUAL(l.ncscd, 2);
	CU_ASSERT_EQUAL(l.max_seg, 1);
	CU_ASSERT_EQUAL(l.max_desc_list_len, 1024);
	CU_ASSERT_EQUAL(l.max_seg_blocks, 32768);
	b.caps.max_seg_blocks = 0; /* not reported: 02h field limit */
	a.caps.max_seg_blocks = 0;
	xch_plan_limits_get(&a, &b, 1, &l);
	CU_ASSERT_EQUAL(l.max_seg_blocks, 65535);
}

static CU_TestInfo g_tests[] = {
	{ "single_pair_one_segment", host_plan_single_pair_one_segment },
	{ "splits_at_65535_blocks", host_plan_splits_at_65535_blocks },
	{ "splits_at_max_segment_length", host_plan_splits_at_max_segment_length },
	{ "packs_pairs_up_to_max_seg", host_plan_packs_pairs_up_to_max_seg },
	{ "descriptor_list_length_limits_segments",
	  host_plan_descriptor_list_length_limits_segments },
	{ "no_room_is_einval", host_plan_no_room_is_einval },
	{ "empty_and_zero_length_pairs", host_plan_empty_and_zero_length_pairs },
	{ "limits_take_the_smaller_side", host_plan_limits_take_the_smaller_side },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_plan, g_tests)
