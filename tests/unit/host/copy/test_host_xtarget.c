/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Copies between LUs of different targets (issue #36, the host's side),
 * against the scripted fake target: its LU 0 and LU 1 stand for LUs of two
 * targets, cross_ok[i] says whether the copy manager behind LU i reaches the
 * other LU, cross_err[i] what it answers when not, no_tpc[i] a target
 * without EXTENDED COPY. Checked: the one list names both LUs by their
 * designators (E4h CSCDs); the destination's target gets it first, the
 * source's when the destination refuses (every refusal sense), the host
 * copies per range when both refuse; the route is remembered per handle.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake_target.h"
#include "ut.h"

/* A pair of "targets" with 16-block segments, one per command: 64 blocks = 4 commands. */
static struct fk *
two_targets(struct xcopy_dev **a, struct xcopy_dev **b)
{
	struct fk *f = fk_new();

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	*a = ut_open(f, 0, 0, 0);
	*b = ut_open(f, 1, 0, 0);
	return f;
}

static void
close_all(struct fk *f, struct xcopy_dev *a, struct xcopy_dev *b)
{
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	fk_free(f);
}

/* The CSCD names LU lu of the fake: E4h, NAA, LU association, the fake's designator. */
static bool
cscd_names(const struct fk *f, const struct xcm_cscd *c, int lu)
{
	return c->type == XCM_CSCD_ID && c->lu_id_type == 0 && !c->nul &&
	       c->desig_type == XCM_DESIG_NAA && c->assoc == XCM_ASSOC_LU &&
	       c->code_set == XCM_CODE_SET_BINARY && c->desig_len == 16 &&
	       memcmp(c->desig, f->lu[lu].naa, 16) == 0 && c->block_len == FK_BS;
}

static void
host_xtarget_list_names_both_destination_first(void)
{
	struct xcopy_dev *a, *b;
	struct fk *f = two_targets(&a, &b);
	const struct xcm_list *l = f->last;
	struct xcopy_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 100, b, 300, 64, XCOPY_REQUIRE_OFFLOAD, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 300, 0, 100, 64));
	/* every command to the destination's target: nothing refused */
	CU_ASSERT_EQUAL(f->xcopy_on[1], 4);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 0);
	CU_ASSERT_EQUAL(st.xcopy_failed, 0);
	/* the list: two identification CSCDs, source then destination, one 02h segment */
	CU_ASSERT_EQUAL(l->ncscd, 2);
	CU_ASSERT_TRUE(cscd_names(f, &l->cscd[0], 0));
	CU_ASSERT_TRUE(cscd_names(f, &l->cscd[1], 1));
	CU_ASSERT_EQUAL(l->nseg, 1);
	CU_ASSERT_EQUAL(l->seg[0].type, XCM_SEG_B2B);
	CU_ASSERT_TRUE(l->seg[0].src == &l->cscd[0]);
	CU_ASSERT_TRUE(l->seg[0].dst == &l->cscd[1]);
	CU_ASSERT_EQUAL(l->seg[0].src_lba, 148);
	CU_ASSERT_EQUAL(l->seg[0].dst_lba, 348);
	CU_ASSERT_EQUAL(l->seg[0].count, 16);
	close_all(f, a, b);
}

/* The refusals a copy manager answers for a LU it cannot reach, and what libxcopy counts. */
struct refusal {
	const char *what;
	enum xcm_status st;
	bool csi;                       /* COPY ABORTED with CSI (segment 0) */
	enum xcopy_fallback_reason why; /* when both refuse */
	int required_errno;             /* ... with XCOPY_REQUIRE_OFFLOAD */
	bool sticky;                    /* the refusing handle offloads no more */
};

static const struct refusal g_refusals[] = {
	/* this project's plugin: not served here and not in its peer map */
	{ "08/04", XCM_E_CA_UNREACHABLE, true, XCOPY_FB_UNREACHABLE, -EXDEV, false },
	/* LIO (no CSI), and the plugin for a peer it cannot log in to */
	{ "0D/02", XCM_E_CA_NOT_REACHABLE, false, XCOPY_FB_UNREACHABLE, -EXDEV, false },
	/* tcmu-runner's core: a CSCD naming another device */
	{ "05 26/00", XCM_E_INVALID_FIELD_PARAM, false, XCOPY_FB_INVALID_PARAM, -EOPNOTSUPP,
	  false },
	/* a target with no EXTENDED COPY at all */
	{ "05 20/00", XCM_E_INVALID_OPCODE, false, XCOPY_FB_INVALID_OPCODE, -EOPNOTSUPP, true },
};
#define NREFUSALS (sizeof(g_refusals) / sizeof(g_refusals[0]))

static void
refuse(struct fk *f, int lu, const struct refusal *r)
{
	f->cross_ok[lu] = false;
	f->cross_err_set[lu] = true;
	memset(&f->cross_err[lu], 0, sizeof(f->cross_err[lu]));
	if (r->csi) {
		xcm_err_set_segment(&f->cross_err[lu], r->st, 0, -1);
	} else {
		xcm_err_set(&f->cross_err[lu], r->st);
	}
}

/* Push refused by the destination's target: the source's copy manager does it (each sense). */
static void
host_xtarget_destination_refuses_source_does_it(void)
{
	size_t k;

	for (k = 0; k < NREFUSALS; k++) {
		const struct refusal *r = &g_refusals[k];
		struct xcopy_dev *a, *b;
		struct fk *f = two_targets(&a, &b);
		unsigned before = CU_get_number_of_failures();
		struct xcopy_stats st;

		refuse(f, 1, r);
		memset(&st, 0, sizeof(st));
		CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 64, XCOPY_REQUIRE_OFFLOAD, &st), 0);
		CU_ASSERT_TRUE(ut_range_is(f, 1, 500, 0, 0, 64));
		/* one refused command at the destination, the 4 at the source */
		CU_ASSERT_EQUAL(f->xcopy_on[1], 1);
		CU_ASSERT_EQUAL(f->xcopy_on[0], 4);
		CU_ASSERT_EQUAL(st.xcopy_failed, 1);
		CU_ASSERT_EQUAL(st.bytes_offloaded, 64 * FK_BS);
		CU_ASSERT_EQUAL(st.bytes_fallback, 0);
		CU_ASSERT_EQUAL(f->nrw, 0);
		/* the source's list names the same two LUs */
		CU_ASSERT_TRUE(cscd_names(f, &f->last->cscd[0], 0));
		CU_ASSERT_TRUE(cscd_names(f, &f->last->cscd[1], 1));
		CU_ASSERT_EQUAL(xcopy_dev_caps(b)->offload, !r->sticky);
		if (CU_get_number_of_failures() != before) {
			fprintf(stderr, "\n  refusal %s\n", r->what);
		}
		close_all(f, a, b);
	}
}

/* Pull: the destination's copy manager reaches the source; the source's is never asked. */
static void
host_xtarget_pull_by_destination(void)
{
	struct xcopy_dev *a, *b;
	struct fk *f = two_targets(&a, &b);
	struct xcopy_stats st;

	refuse(f, 1, &g_refusals[1]);   /* LU 1's target reaches nothing else */
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(b, 1000, a, 2000, 64, 0, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 0, 2000, 1, 1000, 64));
	CU_ASSERT_EQUAL(f->xcopy_on[0], 4);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 0);
	CU_ASSERT_EQUAL(st.xcopy_failed, 0);
	close_all(f, a, b);
}

/* Neither reaches the other: the host copies per range, with the reason; required: the errno. */
static void
host_xtarget_both_refuse_host_copies(void)
{
	size_t k;

	for (k = 0; k < NREFUSALS; k++) {
		const struct refusal *r = &g_refusals[k];
		struct xcopy_dev *a, *b;
		struct fk *f = two_targets(&a, &b);
		unsigned before = CU_get_number_of_failures();
		struct xcopy_stats st;

		refuse(f, 0, r);
		refuse(f, 1, r);
		memset(&st, 0, sizeof(st));
		CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 64, XCOPY_REQUIRE_OFFLOAD, &st),
				r->required_errno);
		CU_ASSERT_EQUAL(f->nrw, 0);
		CU_ASSERT_TRUE(ut_block_is(f, 1, 500, 1, 500));     /* untouched */
		CU_ASSERT_EQUAL(f->nxcopy, 2);                        /* each side once */
		close_all(f, a, b);

		f = two_targets(&a, &b);
		refuse(f, 0, r);
		refuse(f, 1, r);
		memset(&st, 0, sizeof(st));
		CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 64, 0, &st), 0);
		CU_ASSERT_TRUE(ut_range_is(f, 1, 500, 0, 0, 64));
		CU_ASSERT_EQUAL(f->xcopy_on[1], 1);
		CU_ASSERT_EQUAL(f->xcopy_on[0], 1);
		CU_ASSERT_EQUAL(st.bytes_offloaded, 0);
		CU_ASSERT_EQUAL(st.fallback_bytes[r->why], 64 * FK_BS);
		CU_ASSERT_TRUE(f->nrw >= 2);
		if (CU_get_number_of_failures() != before) {
			fprintf(stderr, "\n  refusal %s\n", r->what);
		}
		close_all(f, a, b);
	}
}

/*
 * The side that reaches the other fails part way (its remote WRITE failed:
 * COPY ABORTED 0D/01, CSI 2): the segments before CSI are kept, the rest of
 * that command is copied by the host, and the next commands go on there.
 */
static void
host_xtarget_third_party_failure_falls_back_rest(void)
{
	struct xcopy_dev *a, *b;
	struct fk *f = two_targets(&a, &b);
	struct xcopy_stats st;

	f->lim.max_seg = 4;
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	refuse(f, 1, &g_refusals[1]);
	f->nscript = 1;
	f->script[0].nth = 1;    /* the first command at the source */
	xcm_err_set_segment(&f->script[0].err, XCM_E_CA_DEVICE_FAILURE, 2, -1);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 128, 0, &st), 0);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 1);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 2);  /* the failed one, then the next 4 segments */
	CU_ASSERT_EQUAL(st.bytes_offloaded, 96 * FK_BS);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_COPY_ABORTED], 32 * FK_BS);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 500 + 32, 0, 32, 96));
	close_all(f, a, b);
}

/* A handle remembers the LU its copy manager could not reach: the next copy starts on the other. */
static void
host_xtarget_route_remembered(void)
{
	struct xcopy_dev *a, *b;
	struct fk *f = two_targets(&a, &b);
	struct xcopy_stats st;

	refuse(f, 1, &g_refusals[1]);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 64, 0, &st), 0);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 1);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 4);
	/* the next copy between the two: no refused command */
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 64, b, 564, 64, 0, &st), 0);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 1);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 8);
	CU_ASSERT_EQUAL(st.xcopy_failed, 1);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 500, 0, 0, 128));
	/* the routes changed: the source refuses, the destination reaches it now */
	f->cross_ok[1] = true;
	refuse(f, 0, &g_refusals[0]);
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 200, b, 800, 32, 0, &st), 0);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 9);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 3);
	/* ... and is asked first again */
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 300, b, 900, 32, 0, &st), 0);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 9);
	CU_ASSERT_EQUAL(f->xcopy_on[1], 5);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 800, 0, 200, 32));
	CU_ASSERT_TRUE(ut_range_is(f, 1, 900, 0, 300, 32));
	close_all(f, a, b);
}

/* A LU of a target without a copy manager (3PC=0) is still named by the other's. */
static void
host_xtarget_one_side_without_copy_manager(void)
{
	struct xcopy_dev *a, *b;
	struct fk *f = fk_new();
	struct xcopy_stats st;

	f->lim.max_seg_len = 16 * FK_BS;
	f->lim.max_seg = 1;
	f->no_tpc[1] = true;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	CU_ASSERT_FALSE(xcopy_dev_caps(b)->offload);
	memset(&st, 0, sizeof(st));
	/* push and pull: the commands go to LU 0 only */
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 500, 64, XCOPY_REQUIRE_OFFLOAD, &st), 0);
	CU_ASSERT_EQUAL(xcopy_dev_copy(b, 1000, a, 3000, 64, XCOPY_REQUIRE_OFFLOAD, &st), 0);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 500, 0, 0, 64));
	CU_ASSERT_TRUE(ut_range_is(f, 0, 3000, 1, 1000, 64));
	CU_ASSERT_EQUAL(f->xcopy_on[1], 0);
	CU_ASSERT_EQUAL(f->xcopy_on[0], 8);
	CU_ASSERT_EQUAL(st.xcopy_failed, 0);
	/* within the LU without one: the host, as before */
	CU_ASSERT_EQUAL(xcopy_dev_copy(b, 0, b, 2000, 16, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	xcopy_dev_close(a);
	xcopy_dev_close(b);
	/* neither has one: the host, reason no-3pc, nothing sent */
	f->no_tpc[0] = true;
	a = ut_open(f, 0, 0, 0);
	b = ut_open(f, 1, 0, 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, b, 700, 16, 0, &st), 0);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_NO_3PC], 16 * FK_BS);
	CU_ASSERT_EQUAL(f->nxcopy, 8);
	CU_ASSERT_TRUE(ut_range_is(f, 1, 700, 0, 0, 16));
	close_all(f, a, b);
}

static CU_TestInfo g_tests[] = {
	{ "list_names_both_destination_first", host_xtarget_list_names_both_destination_first },
	{ "destination_refuses_source_does_it", host_xtarget_destination_refuses_source_does_it },
	{ "pull_by_destination", host_xtarget_pull_by_destination },
	{ "both_refuse_host_copies", host_xtarget_both_refuse_host_copies },
	{ "third_party_failure_falls_back_rest", host_xtarget_third_party_failure_falls_back_rest },
	{ "route_remembered", host_xtarget_route_remembered },
	{ "one_side_without_copy_manager", host_xtarget_one_side_without_copy_manager },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_xtarget, g_tests)
