/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/cm/held.c: when an LU's held copy results are dropped. Before each
 * RECEIVE COPY RESULTS / EXTENDED COPY, xt_held_apply compares the sessions
 * that can reach the LU with the set it saw last: a session that arrived
 * (an element not in the old set) discards the completed results, sessions
 * that only left keep them, a list still running is never dropped, and
 * results older than XT_HELD_LIFETIME_MS age out. The sets are made by
 * hand (xt_nexus_set_add) except in the last test, which reads them from a
 * fake configfs tree through xt_held_sessions. Time is fake_clock.c's.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm/cm.h"
#include "fake_clock.h"
#include "target_stubs.h"
#include "ut.h"

#define T0 5000000u
#define LOOP "loopback/naa.1/tpgt_1"

static struct xt_lu g_lu;                 /* big: not on the stack */
static struct xt_cm_lu g_cm;              /* its copy manager part (held results) */
static struct xt_nexus_set g_s;
static struct xcm_list g_l;

static void
setup(void)
{
	ut_clock_freeze(T0);
	memset(&g_lu, 0, sizeof(g_lu));
	memset(&g_cm, 0, sizeof(g_cm));
	g_lu.host = &ut_lu_host;
	g_lu.cm = &g_cm;
	g_cm.store = xcm_store_create();
	UT_ASSERT_FATAL(g_cm.store != NULL);
	g_cm.nexus_known = true;               /* xt_held_init must reset it */
	xt_held_init(&g_lu);
	CU_ASSERT_FALSE(g_cm.nexus_known);
}

static void
teardown(void)
{
	xcm_store_destroy(g_cm.store);
}

static int
suite_fini(void)
{
	ut_clock_real();
	return 0;
}

/* The set of the session hashes h[] (0 ends them). */
static const struct xt_nexus_set *
set_of(const uint64_t *h)
{
	xt_nexus_set_init(&g_s);
	for (; *h != 0; h++) {
		xt_nexus_set_add(&g_s, *h);
	}
	return &g_s;
}

#define SET(...) set_of((const uint64_t[]){ __VA_ARGS__ })

/* EXTENDED COPY list id ran to completion now, its result held. */
static void
hold(uint8_t id)
{
	struct xcm_exec_result res = { 1, 512 };
	struct xcm_err err;

	g_l.list_id = id;
	g_l.list_id_usage = XCM_LIST_ID_HOLD;
	CU_ASSERT_EQUAL_FATAL(xcm_store_begin(g_cm.store, &g_l, &err), XCM_OK);
	xcm_store_finish(g_cm.store, &g_l, XCM_OK, &res, NULL, 0);
}

/* Does RECEIVE COPY RESULTS (COPY STATUS) still know list id? */
static bool
held(uint8_t id)
{
	struct xcm_rcr_req req = { XCM_SA_RCR_COPY_STATUS, id, 64 };
	uint8_t b[64];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_err err;
	enum xcm_status st = xcm_store_rcr(g_cm.store, &xcm_limits_default, &req, &w, &err);

	CU_ASSERT(st == XCM_OK || st == XCM_E_INVALID_FIELD_CDB);
	return st == XCM_OK;
}

static void
held_first_set_keeps(void)
{
	setup();
	hold(1);
	/* nothing known before: the first set is no arrival */
	xt_held_apply(&g_lu, true, SET(10, 20, 0));
	CU_ASSERT_TRUE(held(1));
	CU_ASSERT_TRUE(g_cm.nexus_known);
	CU_ASSERT_EQUAL(g_cm.nexus.n, 2);
	CU_ASSERT_EQUAL(g_cm.nexus.el[0], 10);
	CU_ASSERT_EQUAL(g_cm.nexus.el[1], 20);
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 0);
	teardown();
}

static void
held_arrival_discards(void)
{
	unsigned int msgs;

	setup();
	xt_held_apply(&g_lu, true, SET(10, 0));
	hold(1);
	hold(2);
	xt_held_apply(&g_lu, true, SET(10, 0));      /* the same sessions */
	CU_ASSERT_TRUE(held(1));
	CU_ASSERT_TRUE(held(2));
	msgs = ut_log_msgs;
	xt_held_apply(&g_lu, true, SET(10, 20, 0));  /* 20 arrived */
	CU_ASSERT_FALSE(held(1));
	CU_ASSERT_FALSE(held(2));
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 2);
	CU_ASSERT_EQUAL(g_lu.stats.held_expired, 0);
	CU_ASSERT_EQUAL(ut_log_msgs, msgs + 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(ut_log_last, "discarded"));
	/* nothing left to discard: no count, no message */
	xt_held_apply(&g_lu, true, SET(10, 20, 30, 0));
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 2);
	CU_ASSERT_EQUAL(ut_log_msgs, msgs + 1);
	teardown();
}

static void
held_departure_keeps(void)
{
	setup();
	xt_held_apply(&g_lu, true, SET(10, 20, 30, 0));
	hold(1);
	xt_held_apply(&g_lu, true, SET(10, 30, 0));  /* 20 left */
	CU_ASSERT_TRUE(held(1));
	xt_held_apply(&g_lu, true, SET(0));          /* everyone left */
	CU_ASSERT_TRUE(held(1));
	CU_ASSERT_EQUAL(g_cm.nexus.n, 0);
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 0);
	/* compared with the last set, not the first: 10 coming back is an arrival */
	xt_held_apply(&g_lu, true, SET(10, 0));
	CU_ASSERT_FALSE(held(1));
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 1);
	teardown();
}

static void
held_replaced_session_discards(void)
{
	setup();
	xt_held_apply(&g_lu, true, SET(10, 0));
	hold(1);
	xt_held_apply(&g_lu, true, SET(11, 0));      /* same count, another session */
	CU_ASSERT_FALSE(held(1));
	teardown();
}

static void
held_no_sessions_read_keeps(void)
{
	setup();
	xt_held_apply(&g_lu, true, SET(10, 0));
	hold(1);
	/* configfs could not be read: neither compared nor remembered */
	xt_held_apply(&g_lu, false, SET(10, 20, 0));
	CU_ASSERT_TRUE(held(1));
	CU_ASSERT_EQUAL(g_cm.nexus.n, 1);
	CU_ASSERT_EQUAL(g_cm.nexus.el[0], 10);
	/* unknown before: the first set read later is no arrival either */
	teardown();
	setup();
	hold(1);
	xt_held_apply(&g_lu, false, SET(10, 0));
	CU_ASSERT_FALSE(g_cm.nexus_known);
	xt_held_apply(&g_lu, true, SET(10, 20, 0));
	CU_ASSERT_TRUE(held(1));
	teardown();
}

static void
held_running_list_kept(void)
{
	struct xcm_exec_result res = { 1, 512 };
	struct xcm_err err;

	setup();
	xt_held_apply(&g_lu, true, SET(10, 0));
	hold(1);
	g_l.list_id = 2;
	g_l.list_id_usage = XCM_LIST_ID_HOLD;
	CU_ASSERT_EQUAL(xcm_store_begin(g_cm.store, &g_l, &err), XCM_OK);   /* still running */
	xt_held_apply(&g_lu, true, SET(10, 20, 0));
	CU_ASSERT_FALSE(held(1));
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 1);
	CU_ASSERT_EQUAL(xcm_store_begin(g_cm.store, &g_l, &err), XCM_E_OP_IN_PROGRESS);
	xcm_store_finish(g_cm.store, &g_l, XCM_OK, &res, NULL, 0);
	CU_ASSERT_TRUE(held(2));
	teardown();
}

static void
held_results_age_out(void)
{
	setup();
	xt_held_apply(&g_lu, true, SET(10, 0));
	hold(1);
	ut_clock_advance(1000);
	hold(2);
	ut_clock_advance(XT_HELD_LIFETIME_MS - 1000);   /* list 1 exactly the lifetime old */
	xt_held_apply(&g_lu, true, SET(10, 0));
	CU_ASSERT_TRUE(held(1));
	CU_ASSERT_EQUAL(g_lu.stats.held_expired, 0);
	ut_clock_advance(1);
	xt_held_apply(&g_lu, true, SET(10, 0));
	CU_ASSERT_FALSE(held(1));
	CU_ASSERT_TRUE(held(2));
	CU_ASSERT_EQUAL(g_lu.stats.held_expired, 1);
	/* without a session list too (aging does not need configfs) */
	ut_clock_advance(1000);
	xt_held_apply(&g_lu, false, &g_s);
	CU_ASSERT_FALSE(held(2));
	CU_ASSERT_EQUAL(g_lu.stats.held_expired, 2);
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 0);
	teardown();
}

static void
held_sessions_from_configfs(void)
{
	char root[1024];
	struct xt_nexus_set now;

	setup();
	/* no configfs path known: no set */
	CU_ASSERT_FALSE(xt_held_sessions(&g_lu, &now));
	CU_ASSERT_EQUAL(now.n, 0);

	/* the run's configfs root (unit_main.c: the environment is read once) */
	snprintf(root, sizeof(root), "%s", getenv("XCOPY_CONFIGFS_ROOT"));
	ut_put_file(root, "core/user_0/a/enable", "1\n");
	ut_cfs_lun(root, LOOP, 0, "a");
	ut_put_file(root, LOOP "/nexus", "naa.5001405aaaaaaaaa\n");
	snprintf(g_lu.cfs_path, sizeof(g_lu.cfs_path), "%s/core/user_0/a", root);

	CU_ASSERT_TRUE(xt_held_sessions(&g_lu, &now));
	CU_ASSERT(now.n > 0);
	xt_held_apply(&g_lu, true, &now);
	hold(1);
	/* the tcm_loop nexus goes away: a departure */
	ut_put_file(root, LOOP "/nexus", "");
	CU_ASSERT_TRUE(xt_held_sessions(&g_lu, &now));
	xt_held_apply(&g_lu, true, &now);
	CU_ASSERT_TRUE(held(1));
	/* a new nexus: an arrival */
	ut_put_file(root, LOOP "/nexus", "naa.5001405bbbbbbbbb\n");
	CU_ASSERT_TRUE(xt_held_sessions(&g_lu, &now));
	xt_held_apply(&g_lu, true, &now);
	CU_ASSERT_FALSE(held(1));
	CU_ASSERT_EQUAL(g_lu.stats.held_discarded, 1);

	ut_rm_tree(root);
	UT_ASSERT_FATAL(mkdir(root, 0700) == 0);   /* the run's root stays */
	teardown();
}

static CU_TestInfo tests[] = {
	{ "first_set_keeps", held_first_set_keeps },
	{ "arrival_discards", held_arrival_discards },
	{ "departure_keeps", held_departure_keeps },
	{ "replaced_session_discards", held_replaced_session_discards },
	{ "no_sessions_read_keeps", held_no_sessions_read_keeps },
	{ "running_list_kept", held_running_list_kept },
	{ "results_age_out", held_results_age_out },
	{ "sessions_from_configfs", held_sessions_from_configfs },
	CU_TEST_INFO_NULL,
};

UT_SUITE_FULL(target_held, tests, NULL, suite_fini)
