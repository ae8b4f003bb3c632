/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/lio/nexus.c: the set of sessions that can reach a LU, and the rule
 * held.c applies with it (a new element = a session arrived: discard; only
 * elements gone = sessions left: keep). Judged on a configfs tree made in a
 * mkdtemp directory the way LIO lays it out (see test_target_access.c):
 *   ROOT/core/user_0/{a,b}                          storage objects
 *   ROOT/FABRIC/WWN/tpgt_1/lun/lun_N/x -> core      LUNs
 *   ROOT/FABRIC/WWN/tpgt_1/{nexus,dynamic_sessions}
 *   ROOT/iscsi/WWN/fabric_statistics/iscsi_login_stats/accepts
 *   ROOT/FABRIC/WWN/tpgt_1/acls/INI/{info,lun_M/link -> ../../lun/lun_N}
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target_stubs.h"
#include "ut.h"

#define LOOP "loopback/naa.1/tpgt_1"
#define ISCSI_WWN "iscsi/iqn.t"
#define ISCSI ISCSI_WWN "/tpgt_1"
#define ACCEPTS ISCSI_WWN "/fabric_statistics/iscsi_login_stats/accepts"
#define INFO ISCSI "/acls/iqn.i1/info"
#define SID(n) "InitiatorName: iqn.i1\nLIO Session ID: " #n "   ISID: 0x80 12 34 56 78 9a  TSIH: " #n "\n"

static char g_root[1024];
static struct xt_nexus_set g_old, g_now;   /* big: not on the stack */

static void
put(const char *rel, const char *s)
{
	ut_put_file(g_root, rel, s);
}

static void
rm_rel(const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", g_root, rel);
	CU_ASSERT_EQUAL(unlink(p), 0);
}

static void
fresh(void)
{
	if (g_root[0] != '\0') {
		ut_rm_tree(g_root);
	}
	ut_tmpdir("configfs", g_root, sizeof(g_root));
	put("core/user_0/a/enable", "1\n");
	put("core/user_0/b/enable", "1\n");
}

/* The set of LU a now. */
static void
read_set(struct xt_nexus_set *s)
{
	char so[PATH_MAX];

	snprintf(so, sizeof(so), "%s/core/user_0/a", g_root);
	CU_ASSERT_EQUAL_FATAL(xt_nexus_sessions(g_root, so, s), 0);
}

/* Read the set again, compare it with the last one: did a session arrive? */
static bool
arrived(void)
{
	bool r;

	read_set(&g_now);
	r = xt_nexus_arrived(&g_old, &g_now);
	g_old = g_now;   /* as held.c keeps the current set */
	return r;
}

static void
nexus_set_ops(void)
{
	struct xt_nexus_set *a = &g_old, *b = &g_now;
	uint32_t i;

	xt_nexus_set_init(a);
	xt_nexus_set_add(a, 30);
	xt_nexus_set_add(a, 10);
	xt_nexus_set_add(a, 20);
	xt_nexus_set_add(a, 10);   /* duplicate: kept once */
	CU_ASSERT_EQUAL(a->n, 3);
	for (i = 1; i < a->n; i++) {
		CU_ASSERT(a->el[i - 1] < a->el[i]);
	}
	*b = *a;
	CU_ASSERT_FALSE(xt_nexus_arrived(a, b));        /* the same */
	xt_nexus_set_init(b);
	xt_nexus_set_add(b, 10);
	xt_nexus_set_add(b, 30);
	CU_ASSERT_FALSE(xt_nexus_arrived(a, b));        /* 20 left */
	CU_ASSERT_TRUE(xt_nexus_arrived(b, a));         /* 20 arrived */
	xt_nexus_set_add(b, 40);
	CU_ASSERT_TRUE(xt_nexus_arrived(a, b));         /* 20 replaced by 40 */
	xt_nexus_set_init(b);
	CU_ASSERT_FALSE(xt_nexus_arrived(a, b));        /* everyone left */
	CU_ASSERT_TRUE(xt_nexus_arrived(b, a));
	CU_ASSERT_FALSE(xt_nexus_arrived(b, b));
}

static void
nexus_set_overflow(void)
{
	struct xt_nexus_set *a = &g_old, *b = &g_now;
	uint64_t i;

	xt_nexus_set_init(a);
	for (i = 0; i < XT_NEXUS_MAX; i++) {
		xt_nexus_set_add(a, i * 7 + 1);
	}
	CU_ASSERT_FALSE(a->overflow);
	CU_ASSERT_EQUAL(a->n, XT_NEXUS_MAX);
	xt_nexus_set_add(a, 1);                         /* a duplicate does not overflow */
	CU_ASSERT_FALSE(a->overflow);
	*b = *a;
	xt_nexus_set_add(b, 5);                         /* one more: overflow */
	CU_ASSERT_TRUE(b->overflow);
	CU_ASSERT_EQUAL(b->n, XT_NEXUS_MAX);
	CU_ASSERT_TRUE(xt_nexus_arrived(a, b));
	CU_ASSERT_TRUE(xt_nexus_arrived(b, a));         /* overflowed: any change, leaving too */
	*a = *b;
	CU_ASSERT_FALSE(xt_nexus_arrived(a, b));        /* overflowed, unchanged: kept */
	xt_nexus_set_add(b, 1000001);                   /* a change past the bound is seen */
	CU_ASSERT_TRUE(xt_nexus_arrived(a, b));
}

static void
nexus_tcm_loop(void)
{
	fresh();
	ut_cfs_lun(g_root, LOOP, 0, "a");
	read_set(&g_old);
	CU_ASSERT_EQUAL(g_old.n, 1);                    /* the TPG alone */
	put(LOOP "/nexus", "naa.5001405bbbbbbbbb\n");
	CU_ASSERT_TRUE(arrived());                      /* a nexus was created */
	CU_ASSERT_FALSE(arrived());                     /* nothing changed */
	put(LOOP "/nexus", "");
	CU_ASSERT_FALSE(arrived());                     /* dropped: left */
	put(LOOP "/nexus", "naa.5001405ccccccccc\n");
	CU_ASSERT_TRUE(arrived());                      /* a new one */
	put(LOOP "/nexus", "naa.5001405ddddddddd\n");
	CU_ASSERT_TRUE(arrived());                      /* replaced between two reads */
	/* a nexus on a TPG that does not export a is not a way to a */
	put("loopback/naa.2/tpgt_1/nexus", "naa.5001405eeeeeeeee\n");
	ut_cfs_lun(g_root, "loopback/naa.2/tpgt_1", 0, "b");
	CU_ASSERT_FALSE(arrived());
	ut_cfs_lun(g_root, "loopback/naa.2/tpgt_1", 1, "a");
	CU_ASSERT_TRUE(arrived());                      /* ... until it does */
	rm_rel("loopback/naa.2/tpgt_1/lun/lun_1/x");
	CU_ASSERT_FALSE(arrived());                     /* export gone: left */
}

static void
nexus_iscsi_demo(void)
{
	fresh();
	ut_cfs_lun(g_root, ISCSI, 0, "a");
	put(ACCEPTS, "3\n");
	put(ISCSI "/dynamic_sessions", "iqn.i1\niqn.i2\n");
	read_set(&g_old);
	put(ISCSI "/dynamic_sessions", "iqn.i1\n");
	CU_ASSERT_FALSE(arrived());                     /* i2 logged out */
	put(ISCSI "/dynamic_sessions", "");
	put(ISCSI_WWN "/fabric_statistics/iscsi_logout_stats/normal_logouts", "2\n");
	put(ISCSI_WWN "/fabric_statistics/iscsi_logout_stats/abnormal_logouts", "1\n");
	CU_ASSERT_FALSE(arrived());                     /* logout counters do not count */
	put(ISCSI "/dynamic_sessions", "iqn.i3\n");
	CU_ASSERT_TRUE(arrived());                      /* a new demo-mode session */
	put(ACCEPTS, "4\n");
	CU_ASSERT_TRUE(arrived());                      /* a login, name already listed */
	put(ISCSI "/dynamic_sessions", "iqn.i3\niqn.i3\n");
	CU_ASSERT_FALSE(arrived());                     /* the same name twice: no new element */
	put(ISCSI "/dynamic_sessions", "iqn.i3\n");
	CU_ASSERT_FALSE(arrived());
}

static void
nexus_iscsi_acl(void)
{
	fresh();
	ut_cfs_lun(g_root, ISCSI, 0, "a");
	ut_cfs_lun(g_root, ISCSI, 1, "b");
	ut_cfs_acl_map(g_root, ISCSI, "iqn.i1", 0, 0);
	ut_cfs_acl_map(g_root, ISCSI, "iqn.i2", 0, 1);                 /* i2 maps only b */
	put(INFO, SID(1) "  0x00000010   0x00000011\n");
	read_set(&g_old);
	put(INFO, SID(1) "  0x00000020   0x00000021\n");
	CU_ASSERT_FALSE(arrived());                     /* same session, new CmdSN */
	put(INFO, SID(2) "  0x00000001   0x00000002\n");
	CU_ASSERT_TRUE(arrived());                      /* another session of i1 */
	put(INFO, "No active iSCSI Session for Initiator Endpoint: iqn.i1\n");
	CU_ASSERT_FALSE(arrived());                     /* logged out */
	put(ISCSI "/acls/iqn.i2/info", SID(7));
	CU_ASSERT_FALSE(arrived());                     /* i2 cannot reach a */
	put(INFO, SID(3));
	CU_ASSERT_TRUE(arrived());
}

static void
nexus_overflow_configfs(void)
{
	char *list = malloc(64 * (XT_NEXUS_MAX + 8)), *p;
	int i;

	CU_ASSERT_FATAL(list != NULL);
	fresh();
	ut_cfs_lun(g_root, ISCSI, 0, "a");
	for (p = list, i = 0; i < XT_NEXUS_MAX + 8; i++) {
		p += sprintf(p, "iqn.1994-05.com.example:host%d\n", i);
	}
	put(ISCSI "/dynamic_sessions", list);
	read_set(&g_old);
	CU_ASSERT_TRUE(g_old.overflow);
	CU_ASSERT_FALSE(arrived());                     /* unchanged */
	*strstr(list, "host7\n") = 'H';                 /* host7 replaced by Host7 */
	put(ISCSI "/dynamic_sessions", list);
	CU_ASSERT_TRUE(arrived());
	put(ISCSI "/dynamic_sessions", strchr(list, '\n') + 1);
	CU_ASSERT_TRUE(arrived());                      /* overflowed: a departure discards too */
	put(ISCSI "/dynamic_sessions", "iqn.i1\n");
	CU_ASSERT_TRUE(arrived());                      /* back under the bound: a change */
	CU_ASSERT_FALSE(g_old.overflow);
	free(list);
}

static void
nexus_unresolvable(void)
{
	char so[PATH_MAX];

	fresh();
	snprintf(so, sizeof(so), "%s/core/user_0/nosuch", g_root);
	CU_ASSERT_EQUAL(xt_nexus_sessions(g_root, so, &g_now), -ENOENT);
	ut_rm_tree(g_root);
	g_root[0] = '\0';
}

static CU_TestInfo g_tests[] = {
	{ "set_ops", nexus_set_ops },
	{ "set_overflow", nexus_set_overflow },
	{ "tcm_loop", nexus_tcm_loop },
	{ "iscsi_demo", nexus_iscsi_demo },
	{ "iscsi_acl", nexus_iscsi_acl },
	{ "overflow_configfs", nexus_overflow_configfs },
	{ "unresolvable", nexus_unresolvable },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_nexus, g_tests)
