/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy against the scripted fake target (fakes/fake_target.h): what
 * it sends, how it splits, and what it does with every failure.
 */
#include <errno.h>
#include <string.h>

#include "fake_target.h"
#include "ut.h"


static void
host_xcopy_discovery_reads_limits_and_designator(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	const struct xcopy_caps *c;

	f->lim.max_seg = 5;
	f->lim.max_seg_len = 64 * 1024;
	d = ut_open(f, 0, 0, 0);
	c = xcopy_dev_caps(d);
	CU_ASSERT_TRUE(c->tpc);
	CU_ASSERT_TRUE(c->has_op_params);
	CU_ASSERT_TRUE(c->has_vpd_tpc);
	CU_ASSERT_TRUE(c->offload);
	CU_ASSERT_TRUE(c->snlid);
	CU_ASSERT_EQUAL(c->max_seg, 5);
	CU_ASSERT_EQUAL(c->max_cscd, f->lim.max_cscd);
	CU_ASSERT_EQUAL(c->max_seg_blocks, 128);
	CU_ASSERT_EQUAL(c->block_size, FK_BS);
	CU_ASSERT_EQUAL(c->num_blocks, FK_BLOCKS);
	CU_ASSERT_EQUAL(c->max_xfer_blocks, 64);
	/* the LU-association NAA 6, not the T10 id nor the port's NAA */
	CU_ASSERT_EQUAL(c->desig_len, 20);
	CU_ASSERT_EQUAL(c->desig[1], XCM_DESIG_NAA);
	CU_ASSERT_EQUAL(memcmp(c->desig + 4, f->lu[0].naa, 16), 0);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_same_lu_offloads_with_one_cscd(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d = ut_open(f, 0, 0, 0);
	struct xcopy_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 10, d, 2000, 300, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2000, 0, 10, 300));
	CU_ASSERT_TRUE(ut_block_is(f, 0, 2300, 0, 2300)); /* nothing past the range */
	CU_ASSERT_EQUAL(f->nxcopy, 1);
	CU_ASSERT_EQUAL(f->nrw, 0);
	CU_ASSERT_EQUAL(st.xcopy_cmds, 1);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 300 * FK_BS);
	CU_ASSERT_EQUAL(st.bytes_fallback, 0);
	/* SNLID: LIST ID USAGE 11b with LIST IDENTIFIER 0 */
	CU_ASSERT_EQUAL(f->last->list_id_usage, XCM_LIST_ID_NONE);
	CU_ASSERT_EQUAL(f->last->list_id, 0);
	CU_ASSERT_EQUAL(f->last->ncscd, 1);
	CU_ASSERT_EQUAL(f->last->nseg, 1);
	CU_ASSERT_EQUAL(f->last->seg[0].type, XCM_SEG_B2B);
	CU_ASSERT_EQUAL(f->last->seg[0].count, 300);
	CU_ASSERT_EQUAL(f->last->seg[0].src_lba, 10);
	CU_ASSERT_EQUAL(f->last->seg[0].dst_lba, 2000);
	CU_ASSERT_EQUAL(f->last->cscd[0].block_len, FK_BS);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_splits_by_max_segment_length_and_packs(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct xcopy_stats st;

	/* 16 blocks per segment, 4 segments per command: 1000 blocks = 63 segs, 16 cmds */
	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	d = ut_open(f, 0, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 3000, 1000, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 0, 0, 1000));
	CU_ASSERT_EQUAL(st.segments, 63);
	CU_ASSERT_EQUAL(f->nxcopy, 16);
	CU_ASSERT_EQUAL(f->max_nseg_seen, 4);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 1000 * FK_BS);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_between_lus_uses_two_cscds_on_destination(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a = ut_open(f, 0, 0, 0), *b = ut_open(f, 1, 0, 0);
	struct xcopy_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 100, b, 200, 50, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 200, 0, 100, 50));
	CU_ASSERT_EQUAL(f->last->ncscd, 2);
	CU_ASSERT_EQUAL(f->last->seg[0].src, &f->last->cscd[0]);
	CU_ASSERT_EQUAL(f->last->seg[0].dst, &f->last->cscd[1]);
	CU_ASSERT_EQUAL(memcmp(f->last->cscd[1].desig, f->lu[1].naa, 16), 0);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 1); /* push: sent to the destination */
	CU_ASSERT_EQUAL(f->xcopy_on[0], 0);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_without_snlid_rotates_list_ids(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	uint8_t first;

	f->lim.snlid = false;
	f->vpd8f = false; /* also: VPD 0x8F absent is fine */
	d = ut_open(f, 0, 0, 0);
	CU_ASSERT_FALSE(xcopy_dev_caps(d)->has_vpd_tpc);
	CU_ASSERT_TRUE(xcopy_dev_caps(d)->offload);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2000, 8, 0, NULL), 0);
	CU_ASSERT_EQUAL(f->last->list_id_usage, XCM_LIST_ID_DISCARD);
	first = f->last->list_id;
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 2100, 8, 0, NULL), 0);
	CU_ASSERT_NOT_EQUAL(f->last->list_id, first);
	xcopy_dev_close(d);
	fk_free(f);
}

static void
host_xcopy_partition_window_offsets_lbas(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *p;

	/* a partition starting at sector 1024 (512-byte sectors), 2048 sectors long */
	p = ut_open(f, 0, 1024, 2048);
	CU_ASSERT_EQUAL(xcopy_dev_caps(p)->part_start, 1024);
	CU_ASSERT_EQUAL(xcopy_dev_caps(p)->part_blocks, 2048);
	CU_ASSERT_EQUAL(xcopy_dev_copy(p, 0, p, 1000, 10, 0, NULL), 0);
	CU_ASSERT_EQUAL(f->last->seg[0].src_lba, 1024);
	CU_ASSERT_EQUAL(f->last->seg[0].dst_lba, 2024);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2024, 0, 1024, 10));
	/* past the partition's end */
	CU_ASSERT_EQUAL(xcopy_dev_copy(p, 0, p, 2040, 10, 0, NULL), -EINVAL);
	xcopy_dev_close(p);
	fk_free(f);
}

static void
host_xcopy_pairs_outside_window_never_sent(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *a, *b;
	struct xch_pair p = { .src_lba = 512, .dst_lba = 2048, .nblocks = 16 };
	uint8_t before[FK_BS], buf[2 * FK_BS];
	int n0;

	/* two neighbour partitions of one LU: a = blocks 512+1024, b = 2048+1024 */
	a = ut_open(f, 0, 512, 1024);
	b = ut_open(f, 0, 2048, 1024);
	memcpy(before, f->lu[0].data + (size_t)3072 * FK_BS, FK_BS);
	n0 = f->nxcopy;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), 0);
	CU_ASSERT_EQUAL(f->nxcopy, n0 + 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2048, 0, 512, 16));
	/* the destination range runs one block into b's neighbour */
	p.dst_lba = 2048 + 1024 - 15;
	n0 = f->nxcopy + f->nrw;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), -ERANGE);
	/* source below a's window; LBA arithmetic that would wrap */
	p.dst_lba = 2048;
	p.src_lba = 511;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), -ERANGE);
	p.src_lba = UINT64_MAX - 4;
	CU_ASSERT_EQUAL(xch_copy_pairs(a, b, &p, 1, 0, NULL, NULL, NULL), -ERANGE);
	CU_ASSERT_EQUAL(f->nxcopy + f->nrw, n0);
	CU_ASSERT_EQUAL(memcmp(before, f->lu[0].data + (size_t)3072 * FK_BS, FK_BS), 0);
	/* READ/WRITE fallbacks are held to the window as well */
	CU_ASSERT_EQUAL(xch_dev_write(b, 2048 + 1024, 1, before, NULL), -ERANGE);
	CU_ASSERT_EQUAL(xch_dev_read(a, 512 + 1024 - 1, 2, buf, NULL), -ERANGE);
	CU_ASSERT_EQUAL(f->nxcopy + f->nrw, n0);
	CU_ASSERT_EQUAL(xch_dev_read(a, 512 + 1024 - 1, 1, buf, NULL), 0);
	CU_ASSERT_EQUAL(f->nrw, n0 - f->nxcopy + 1);
	CU_ASSERT_EQUAL(memcmp(before, f->lu[0].data + (size_t)3072 * FK_BS, FK_BS), 0);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

static void
host_xcopy_argument_checks(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d = ut_open(f, 0, 0, 0);
	struct xcopy_stats st;

	memset(&st, 0, sizeof(st));
	/* overlapping ranges on one LU */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 50, 100, 0, &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 8, XCOPY_REQUIRE_OFFLOAD | XCOPY_NO_OFFLOAD,
				       &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 8, 0x80, &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, FK_BLOCKS, d, 0, 1, 0, &st), -EINVAL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 0, 0, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 0);
	/* NO_OFFLOAD: host copy only */
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 100, 8, XCOPY_NO_OFFLOAD, &st), 0);
	CU_ASSERT_EQUAL(f->nxcopy, 0);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_REQUESTED], 1);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 100, 0, 0, 8));
	xcopy_dev_close(d);
	fk_free(f);
}

/* xcopy_dev_plan: the planner's segments and commands, and nothing sent. */
static void
host_xcopy_dev_plan_matches_copy(void)
{
	struct fk *f = fk_new();
	struct xcopy_plan *pl = NULL;
	struct xcopy_dev *d;
	uint64_t bytes = 0, lba = 0;
	size_t i;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	d = ut_open(f, 0, 0, 0);
	UT_ASSERT_FATAL(xcopy_dev_plan(d, 0, d, 3000, 1000, 0, &pl) == 0);
	CU_ASSERT_EQUAL(f->nxcopy, 0);
	CU_ASSERT_EQUAL(f->nrw, 0);
	CU_ASSERT_EQUAL(pl->blocker, XCOPY_FB_NONE);
	CU_ASSERT_TRUE(pl->same_lu);
	CU_ASSERT_EQUAL(pl->nextents, 1);
	CU_ASSERT_EQUAL(pl->extents[0].kind, XCOPY_PLAN_OFFLOAD);
	CU_ASSERT_EQUAL(pl->extents[0].dst_lba, 3000);
	/* what the copy test above sends: 63 segments in 16 commands of <= 4 */
	CU_ASSERT_EQUAL(pl->nsegments, 63);
	CU_ASSERT_EQUAL(pl->ncommands, 16);
	CU_ASSERT_EQUAL(pl->max_segments, 4);
	for (i = 0; i < pl->nsegments; i++) {
		CU_ASSERT_EQUAL(pl->segments[i].src_lba, lba);
		CU_ASSERT_EQUAL(pl->segments[i].dst_lba, 3000 + lba);
		lba += pl->segments[i].nblocks;
	}
	CU_ASSERT_EQUAL(lba, 1000);
	for (i = 0; i < pl->ncommands; i++) {
		CU_ASSERT_TRUE(pl->commands[i].nsegments <= 4);
		bytes += pl->commands[i].bytes;
	}
	CU_ASSERT_EQUAL(bytes, 1000 * FK_BS);
	xcopy_plan_free(pl);
	/* not offloaded, with the reason: requested, past the end refused */
	UT_ASSERT_FATAL(xcopy_dev_plan(d, 0, d, 3000, 10, XCOPY_NO_OFFLOAD, &pl) == 0);
	CU_ASSERT_EQUAL(pl->blocker, XCOPY_FB_REQUESTED);
	CU_ASSERT_EQUAL(pl->extents[0].kind, XCOPY_PLAN_HOST);
	CU_ASSERT_EQUAL(pl->ncommands, 0);
	xcopy_plan_free(pl);
	CU_ASSERT_EQUAL(xcopy_dev_plan(d, 0, d, FK_BLOCKS - 5, 10, 0, &pl), -EINVAL);
	CU_ASSERT_PTR_NULL(pl);
	xcopy_dev_close(d);
	f->tpc = false;
	d = ut_open(f, 0, 0, 0);
	UT_ASSERT_FATAL(xcopy_dev_plan(d, 0, d, 3000, 10, 0, &pl) == 0);
	CU_ASSERT_EQUAL(pl->blocker, XCOPY_FB_NO_3PC);
	CU_ASSERT_EQUAL(pl->extents[0].why, XCOPY_FB_NO_3PC);
	xcopy_plan_free(pl);
	xcopy_dev_close(d);
	fk_free(f);
}

struct ut_prog {
	int calls, old_calls;
	uint64_t bytes[3], last_done, last_total, old_done;
	bool monotonic;
};

static void
ut_prog_ex(const struct xcopy_progress *p, void *arg)
{
	struct ut_prog *u = arg;

	u->monotonic = u->monotonic && p->done >= u->last_done && p->done <= p->total;
	u->calls++;
	u->bytes[p->method] += p->bytes;
	u->last_done = p->done;
	u->last_total = p->total;
}

static void
ut_prog_old(uint64_t done, uint64_t total, void *arg)
{
	struct ut_prog *u = arg;

	u->old_calls++;
	u->old_done = done;
}

/* xcopy_set_progress_ex: every command's bytes, by method; the old callback too. */
static void
host_xcopy_progress_reports_method(void)
{
	struct fk *f = fk_new();
	struct ut_prog u = { .monotonic = true }, v = { .monotonic = true };
	struct xcopy_dev *d;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 4;
	d = ut_open(f, 0, 0, 0);
	xcopy_set_progress_ex(ut_prog_ex, &u);
	xcopy_set_progress(ut_prog_old, &u);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 3000, 1000, 0, NULL), 0);
	CU_ASSERT_TRUE(u.monotonic);
	CU_ASSERT_TRUE(u.calls >= 16);
	CU_ASSERT_EQUAL(u.bytes[XCOPY_METHOD_OFFLOAD], 1000 * FK_BS);
	CU_ASSERT_EQUAL(u.bytes[XCOPY_METHOD_HOST], 0);
	CU_ASSERT_EQUAL(u.last_done, 1000 * FK_BS);
	CU_ASSERT_EQUAL(u.last_total, 1000 * FK_BS);
	CU_ASSERT_EQUAL(u.old_calls, u.calls);
	CU_ASSERT_EQUAL(u.old_done, 1000 * FK_BS);
	/* refused: the host's READ/WRITE bytes are reported as such */
	xcopy_set_progress_ex(ut_prog_ex, &v);
	xcopy_set_progress(NULL, NULL);
	CU_ASSERT_EQUAL(xcopy_dev_copy(d, 0, d, 3000, 100, XCOPY_NO_OFFLOAD, NULL), 0);
	CU_ASSERT_EQUAL(v.bytes[XCOPY_METHOD_HOST], 100 * FK_BS);
	CU_ASSERT_EQUAL(v.bytes[XCOPY_METHOD_OFFLOAD], 0);
	CU_ASSERT_EQUAL(v.last_done, 100 * FK_BS);
	CU_ASSERT_EQUAL(v.last_total, 100 * FK_BS);
	CU_ASSERT_TRUE(v.monotonic);
	xcopy_set_progress_ex(NULL, NULL);
	xcopy_dev_close(d);
	fk_free(f);
}

static CU_TestInfo g_tests[] = {
	{ "discovery_reads_limits_and_designator",
	  host_xcopy_discovery_reads_limits_and_designator },
	{ "same_lu_offloads_with_one_cscd", host_xcopy_same_lu_offloads_with_one_cscd },
	{ "splits_by_max_segment_length_and_packs",
	  host_xcopy_splits_by_max_segment_length_and_packs },
	{ "between_lus_uses_two_cscds_on_destination",
	  host_xcopy_between_lus_uses_two_cscds_on_destination },
	{ "without_snlid_rotates_list_ids", host_xcopy_without_snlid_rotates_list_ids },
	{ "partition_window_offsets_lbas", host_xcopy_partition_window_offsets_lbas },
	{ "pairs_outside_window_never_sent", host_xcopy_pairs_outside_window_never_sent },
	{ "argument_checks", host_xcopy_argument_checks },
	{ "dev_plan_matches_copy", host_xcopy_dev_plan_matches_copy },
	{ "progress_reports_method", host_xcopy_progress_reports_method },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_xcopy, g_tests)
