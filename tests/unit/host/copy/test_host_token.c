/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy's ROD token path (POPULATE TOKEN, RECEIVE ROD TOKEN INFORMATION,
 * WRITE USING TOKEN) against the fake target answering them with the
 * engine: discovery, commands issued, steps and offsets, method choice,
 * bytes compared, and the fallback of each range on every token error.
 */
#include <errno.h>
#include <string.h>

#include "fake_target.h"
#include "ut.h"

struct tk {
	struct fk *f;
	struct xcopy_dev *s, *d;
	struct xcopy_stats st;
};

static void
tk_open(struct tk *t, bool tok, bool no_lid1, uint64_t optimal_blocks)
{
	memset(t, 0, sizeof(*t));
	t->f = fk_new();
	t->f->tok = tok;
	t->f->no_lid1 = no_lid1;
	if (optimal_blocks != 0) {
		t->f->toklim.optimal_bytes = optimal_blocks * FK_BS;
	}
	t->s = ut_open(t->f, 0, 0, 0);
	t->d = ut_open(t->f, 1, 0, 0);
}

static void
tk_close(struct tk *t)
{
	xcopy_dev_close(t->s);
	xcopy_dev_close(t->d);
	fk_free(t->f);
}

static void
tk_fail(struct tk *t, uint8_t sa, int nth, enum xcm_status st)
{
	struct xcm_err *e = &t->f->tokfail[t->f->ntokfail].err;

	t->f->tokfail[t->f->ntokfail].sa = sa;
	t->f->tokfail[t->f->ntokfail].nth = nth;
	memset(e, 0, sizeof(*e));
	xcm_err_set(e, st);
	t->f->ntokfail++;
}

static void
host_token_discovery_reads_rod_limits(void)
{
	struct tk t;

	tk_open(&t, true, false, 0);
	CU_ASSERT_TRUE(t.s->tok.offered);
	CU_ASSERT_TRUE(t.s->tok.lid1);
	CU_ASSERT_EQUAL(t.s->tok.max_ranges, XCM_MAX_RANGES);
	CU_ASSERT_EQUAL(t.s->tok.max_token_blocks, (4ull << 30) / FK_BS);
	CU_ASSERT_EQUAL(t.s->tok.optimal_blocks, (64ull << 20) / FK_BS);
	CU_ASSERT_EQUAL(t.s->tok.default_inactivity_s, 60);
	tk_close(&t);
	/* a token-only target: no LID1 in VPD 8Fh, tokens offered */
	tk_open(&t, true, true, 0);
	CU_ASSERT_TRUE(t.s->tok.offered);
	CU_ASSERT_FALSE(t.s->tok.lid1);
	CU_ASSERT_FALSE(xcopy_dev_caps(t.s)->offload);
	tk_close(&t);
	/* LIO-like: no token descriptors */
	tk_open(&t, false, false, 0);
	CU_ASSERT_FALSE(t.s->tok.offered);
	tk_close(&t);
}

static void
host_token_copy_one_token_one_write(void)
{
	struct tk t;

	tk_open(&t, true, false, 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 10, t.d, 100, 1000,
				       XCOPY_USE_TOKENS | XCOPY_STATS_METHODS, &t.st), 0);
	CU_ASSERT_TRUE(ut_range_is(t.f, 1, 100, 0, 10, 1000));
	CU_ASSERT_TRUE(ut_block_is(t.f, 1, 1100, 1, 1100));
	CU_ASSERT_EQUAL(t.f->npt, 1);
	CU_ASSERT_EQUAL(t.f->nrrti, 2);   /* the token, then the WUT's transfer count */
	CU_ASSERT_EQUAL(t.f->nwut, 1);
	CU_ASSERT_EQUAL(t.f->ndel, 1);
	CU_ASSERT_EQUAL(t.f->nxcopy, 0);
	CU_ASSERT_EQUAL(t.f->nrw, 0);
	CU_ASSERT_EQUAL(t.st.bytes_offloaded, 1000 * FK_BS);
	CU_ASSERT_EQUAL(t.st.bytes_token, 1000 * FK_BS);
	CU_ASSERT_EQUAL(t.st.bytes_lid1, 0);
	CU_ASSERT_EQUAL(t.st.populate_cmds, 1);
	CU_ASSERT_EQUAL(t.st.rrti_cmds, 2);
	CU_ASSERT_EQUAL(t.st.wut_cmds, 1);
	CU_ASSERT_EQUAL(t.st.token_failed, 0);
	CU_ASSERT_EQUAL(t.st.bytes_fallback, 0);
	tk_close(&t);
}

static void
host_token_writes_in_optimal_steps(void)
{
	struct tk t;
	int i;

	/* OPTIMAL TRANSFER COUNT 128 blocks: 1000 = 7 x 128 + 104 */
	tk_open(&t, true, false, 128);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 2000, 1000, XCOPY_USE_TOKENS, &t.st), 0);
	CU_ASSERT_TRUE(ut_range_is(t.f, 1, 2000, 0, 0, 1000));
	CU_ASSERT_EQUAL(t.f->npt, 1);
	CU_ASSERT_EQUAL(t.f->nwut, 8);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(t.f->wut_off[i], (uint64_t)i * 128);
		CU_ASSERT_EQUAL(t.f->wut_blocks[i], i < 7 ? 128 : 104);
		CU_ASSERT_EQUAL(t.f->wut_del[i], i == 7);
	}
	CU_ASSERT_EQUAL(t.f->ndel, 1);
	CU_ASSERT_EQUAL(t.f->nrrti, 9);
	/* without XCOPY_STATS_METHODS the method fields stay untouched */
	CU_ASSERT_EQUAL(t.st.bytes_token, 0);
	CU_ASSERT_EQUAL(t.st.bytes_offloaded, 1000 * FK_BS);
	tk_close(&t);
}

static void
host_token_batches_at_token_size_and_ranges(void)
{
	struct xch_pair p[5];
	struct tk t;
	int i;

	/* MAXIMUM TOKEN TRANSFER SIZE 300 blocks: 4 tokens for 1000 */
	tk_open(&t, true, false, 0);
	t.f->toklim.max_token_bytes = 300 * FK_BS;
	xcopy_dev_close(t.s);
	xcopy_dev_close(t.d);
	t.s = ut_open(t.f, 0, 0, 0);
	t.d = ut_open(t.f, 1, 0, 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 0, 1000, XCOPY_USE_TOKENS, &t.st), 0);
	CU_ASSERT_TRUE(ut_range_is(t.f, 1, 0, 0, 0, 1000));
	CU_ASSERT_EQUAL(t.f->npt, 4);
	CU_ASSERT_EQUAL(t.f->nwut, 4);
	CU_ASSERT_EQUAL(t.f->ndel, 4);
	tk_close(&t);
	/* MAXIMUM RANGE DESCRIPTORS 2: 5 pairs in 3 tokens, each range where it belongs */
	tk_open(&t, true, false, 0);
	t.s->tok.max_ranges = 2;
	for (i = 0; i < 5; i++) {
		p[i].src_lba = (uint64_t)i * 100;
		p[i].dst_lba = 3000 - (uint64_t)i * 200;
		p[i].nblocks = 50;
	}
	CU_ASSERT_EQUAL(xch_token_copy_pairs(t.s, t.d, p, 5, 0, &t.st, NULL, NULL), 0);
	CU_ASSERT_EQUAL(t.f->npt, 3);
	for (i = 0; i < 5; i++) {
		CU_ASSERT_TRUE(ut_range_is(t.f, 1, p[i].dst_lba, 0, p[i].src_lba, 50));
	}
	tk_close(&t);
}

static void
host_token_short_writes_continue(void)
{
	struct tk t;

	/* each WUT transfers at most 60 blocks (RRTI: completed with residual) */
	tk_open(&t, true, false, 100);
	t.f->wut_cap = 60;
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 1000, 250,
				       XCOPY_USE_TOKENS | XCOPY_STATS_METHODS, &t.st), 0);
	CU_ASSERT_TRUE(ut_range_is(t.f, 1, 1000, 0, 0, 250));
	/* 0+100 -> 60, 60+100 -> 60, 120+100 -> 60, 180+70 (DEL_TKN) -> 60, 240+10 */
	CU_ASSERT_EQUAL(t.f->nwut, 5);
	CU_ASSERT_EQUAL(t.f->wut_off[1], 60);
	CU_ASSERT_EQUAL(t.f->wut_off[4], 240);
	CU_ASSERT_EQUAL(t.f->wut_blocks[4], 10);
	CU_ASSERT_TRUE(t.f->wut_del[3]);
	CU_ASSERT_EQUAL(t.f->ndel, 1);
	CU_ASSERT_EQUAL(t.st.bytes_token, 250 * FK_BS);
	CU_ASSERT_EQUAL(t.st.bytes_fallback, 0);
	tk_close(&t);
}

static void
host_token_auto_method(void)
{
	struct tk t;

	/* LID1 and tokens offered: automatic stays with EXTENDED COPY */
	tk_open(&t, true, false, 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 0, 100, XCOPY_STATS_METHODS, &t.st), 0);
	CU_ASSERT_EQUAL(t.f->nxcopy, 1);
	CU_ASSERT_EQUAL(t.f->npt, 0);
	CU_ASSERT_EQUAL(t.st.bytes_lid1, 100 * FK_BS);
	tk_close(&t);
	/* tokens only: automatic uses them; XCOPY_USE_LID1 falls back instead */
	tk_open(&t, true, true, 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 0, 100, 0, &t.st), 0);
	CU_ASSERT_EQUAL(t.f->npt, 1);
	CU_ASSERT_EQUAL(t.f->nwut, 1);
	CU_ASSERT_EQUAL(t.st.bytes_offloaded, 100 * FK_BS);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 200, t.d, 200, 100, XCOPY_USE_LID1, &t.st), 0);
	CU_ASSERT_EQUAL(t.f->npt, 1);
	CU_ASSERT_EQUAL(t.st.bytes_fallback, 100 * FK_BS);
	CU_ASSERT_EQUAL(t.st.fallback_bytes[XCOPY_FB_UNSUPP_DESC], 100 * FK_BS);
	CU_ASSERT_TRUE(ut_range_is(t.f, 1, 0, 0, 0, 100));
	CU_ASSERT_TRUE(ut_range_is(t.f, 1, 200, 0, 200, 100));
	tk_close(&t);
	/* no tokens offered and tokens asked for: fallback, or -EOPNOTSUPP when required */
	tk_open(&t, false, false, 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 0, 100, XCOPY_USE_TOKENS, &t.st), 0);
	CU_ASSERT_EQUAL(t.st.fallback_bytes[XCOPY_FB_NO_TOKENS], 100 * FK_BS);
	CU_ASSERT_EQUAL(t.f->nxcopy + t.f->npt, 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 0, 100,
				       XCOPY_USE_TOKENS | XCOPY_REQUIRE_OFFLOAD, &t.st),
			-EOPNOTSUPP);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 0, 100, XCOPY_USE_TOKENS | XCOPY_USE_LID1,
				       &t.st),
			-EINVAL);
	tk_close(&t);
}

/* One scripted token error: the data still arrives, the right bytes fell back. */
static void
check_error(uint8_t sa, int nth, enum xcm_status err, enum xcopy_fallback_reason why,
	    uint64_t fb_blocks, int nwut, bool disabled)
{
	struct tk t;

	tk_open(&t, true, false, 100);
	tk_fail(&t, sa, nth, err);
	CU_ASSERT_EQUAL(xcopy_dev_copy(t.s, 0, t.d, 500, 1000,
				       XCOPY_USE_TOKENS | XCOPY_STATS_METHODS, &t.st), 0);
	CU_ASSERT_TRUE(ut_range_is(t.f, 1, 500, 0, 0, 1000));
	CU_ASSERT_EQUAL(t.st.fallback_bytes[why], fb_blocks * FK_BS);
	CU_ASSERT_EQUAL(t.st.bytes_fallback, fb_blocks * FK_BS);
	CU_ASSERT_EQUAL(t.st.bytes_token, (1000 - fb_blocks) * FK_BS);
	CU_ASSERT_EQUAL(t.f->nwut, nwut);
	CU_ASSERT_EQUAL(t.st.token_failed, 1);
	CU_ASSERT_EQUAL(t.s->tok.disabled || t.d->tok.disabled, disabled);
	tk_close(&t);
}

static void
host_token_errors_fall_back_per_range(void)
{
	/* POPULATE TOKEN refused as an unknown command: the device's tokens are off */
	check_error(XCM_SA_POPULATE_TOKEN, 0, XCM_E_INVALID_OPCODE, XCOPY_FB_INVALID_OPCODE, 1000,
		    0, true);
	/* no resources for a token: this batch falls back, nothing sticky */
	check_error(XCM_SA_POPULATE_TOKEN, 0, XCM_E_NO_TOKEN_RESOURCES, XCOPY_FB_OTHER_SENSE,
		    1000, 0, false);
	/* RRTI refused: no token, the batch falls back */
	check_error(XCM_SA_RRTI, 0, XCM_E_INVALID_FIELD_CDB, XCOPY_FB_INVALID_CDB, 1000, 0, true);
	/* token expired at the 4th step: steps 4-10 fall back (the token is gone) */
	check_error(XCM_SA_WRITE_USING_TOKEN, 3, XCM_E_TOKEN_EXPIRED, XCOPY_FB_TOKEN, 700, 4,
		    false);
	/* a hardware error on the 2nd step: that step only, the rest by token */
	check_error(XCM_SA_WRITE_USING_TOKEN, 1, XCM_E_INTERNAL, XCOPY_FB_OTHER_SENSE, 100,
		    10, false);
}

/* The method of every copy is chosen in one place (xch_copy_method), once. */
static void
host_token_method_chosen_once(void)
{
	enum xcopy_fallback_reason why;
	struct tk t;

	/* LID1 and tokens offered */
	tk_open(&t, true, false, 0);
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, 0, &why), XCH_METHOD_LID1);
	CU_ASSERT_EQUAL(why, XCOPY_FB_NONE);
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, XCOPY_USE_TOKENS, &why), XCH_METHOD_TOKENS);
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, XCOPY_NO_OFFLOAD, &why), XCH_METHOD_HOST);
	CU_ASSERT_EQUAL(why, XCOPY_FB_REQUESTED);
	/* EXTENDED COPY turned off on a handle by a verdict: tokens take over */
	t.s->disabled_why = XCOPY_FB_INVALID_CDB;
	t.s->disabled = true;
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, 0, &why), XCH_METHOD_TOKENS);
	/* LID1 asked for: the other LU's copy manager may still take it (issue #36) */
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, XCOPY_USE_LID1, &why), XCH_METHOD_LID1);
	/* ... unless it is off there too */
	t.d->disabled_why = XCOPY_FB_INVALID_OPCODE;
	t.d->disabled = true;
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, XCOPY_USE_LID1, &why), XCH_METHOD_HOST);
	CU_ASSERT_EQUAL(why, XCOPY_FB_INVALID_CDB);
	tk_close(&t);
	/* tokens only */
	tk_open(&t, true, true, 0);
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, 0, &why), XCH_METHOD_TOKENS);
	tk_close(&t);
	/* no tokens offered, tokens asked for */
	tk_open(&t, false, false, 0);
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, XCOPY_USE_TOKENS, &why), XCH_METHOD_HOST);
	CU_ASSERT_EQUAL(why, XCOPY_FB_NO_TOKENS);
	CU_ASSERT_EQUAL(xch_copy_method(t.s, t.d, 0, &why), XCH_METHOD_LID1);
	tk_close(&t);
}

static void
host_token_list_ids_differ(void)
{
	uint32_t a = xch_lid4_next(), b = xch_lid4_next();

	CU_ASSERT_NOT_EQUAL(a, b);
}

static CU_TestInfo g_tests[] = {
	{ "discovery_reads_rod_limits", host_token_discovery_reads_rod_limits },
	{ "copy_one_token_one_write", host_token_copy_one_token_one_write },
	{ "writes_in_optimal_steps", host_token_writes_in_optimal_steps },
	{ "batches_at_token_size_and_ranges", host_token_batches_at_token_size_and_ranges },
	{ "short_writes_continue", host_token_short_writes_continue },
	{ "auto_method", host_token_auto_method },
	{ "errors_fall_back_per_range", host_token_errors_fall_back_per_range },
	{ "method_chosen_once", host_token_method_chosen_once },
	{ "list_ids_differ", host_token_list_ids_differ },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_token, g_tests)
