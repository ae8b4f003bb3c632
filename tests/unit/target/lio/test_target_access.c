/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/lio/access.c: may a copy received on LU A touch LU B? Judged from a
 * configfs tree made in a mkdtemp directory the way LIO lays it out:
 *   ROOT/core/user_0/{a,b,c}                      storage objects
 *   ROOT/FABRIC/WWN/tpgt_1/lun/lun_N/X -> core    LUNs
 *   ROOT/FABRIC/WWN/tpgt_1/attrib/generate_node_acls
 *   ROOT/FABRIC/WWN/tpgt_1/acls/INI/lun_M/Y -> ../../../lun/lun_N
 * Rule: every TPG that exports A in demo mode must export B; every ACL of
 * such a TPG that maps A must map B; A must be exported somewhere.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_clock.h"
#include "lio/lio.h"
#include "target_stubs.h"
#include "ut.h"

static char g_root[1024];   /* short, so every path below fits PATH_MAX */

static void
so(const char *name)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "core/user_0/%s/enable", name);
	ut_put_file(g_root, rel, "1\n");
}

static void
demo(const char *tpg, bool on)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/attrib/generate_node_acls", tpg);
	ut_put_file(g_root, rel, on ? "1\n" : "0\n");
}

/*
 * Symlink rel -> target_rel as configfs writes it: relative, up past the
 * root and back in through its name ("../../../../../../target/core/...").
 */
static void
rel_link(const char *rel, const char *target_rel)
{
	char t[PATH_MAX] = "";
	const char *c, *base = strrchr(g_root, '/') + 1;

	for (c = rel; (c = strchr(c, '/')) != NULL; c++) {
		strcat(t, "../");
	}
	strcat(t, "../");
	strcat(t, base);
	strcat(t, "/");
	strcat(t, target_rel);
	ut_symlink(g_root, rel, t);
}

static int
check(const char *a, const char *b, char *why)
{
	char pa[PATH_MAX], pb[PATH_MAX];

	snprintf(pa, sizeof(pa), "%s/core/user_0/%s", g_root, a);
	snprintf(pb, sizeof(pb), "%s/core/user_0/%s", g_root, b);
	return xt_access_check(g_root, pa, pb, why, 512);
}

static void
fresh(void)
{
	if (g_root[0] != '\0') {
		ut_rm_tree(g_root);
	}
	ut_tmpdir("configfs", g_root, sizeof(g_root));
	so("a");
	so("b");
	so("c");
}

static void
access_same_lu_always(void)
{
	char why[512];

	fresh();
	CU_ASSERT_EQUAL(check("a", "a", why), 0);
}

static void
access_unexported_source_refused(void)
{
	char why[512];

	fresh();
	ut_cfs_lun(g_root, "loopback/naa.1/tpgt_1", 0, "b");
	CU_ASSERT_EQUAL(check("a", "b", why), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "not exported by any TPG"));
}

static void
access_tcm_loop_demo(void)
{
	char why[512];

	/* tcm_loop has no generate_node_acls: demo mode, both LUs on one TPG */
	fresh();
	ut_cfs_lun(g_root, "loopback/naa.1/tpgt_1", 0, "a");
	ut_cfs_lun(g_root, "loopback/naa.1/tpgt_1", 1, "b");
	CU_ASSERT_EQUAL(check("a", "b", why), 0);
	CU_ASSERT_EQUAL(check("b", "a", why), 0);
	/* c is on another TPG only: whoever reaches a may not reach c */
	ut_cfs_lun(g_root, "loopback/naa.2/tpgt_1", 0, "c");
	CU_ASSERT_EQUAL(check("a", "c", why), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "does not export"));
}

static void
access_iscsi_acls(void)
{
	const char *t = "iscsi/iqn.t/tpgt_1";
	char why[512];

	fresh();
	demo(t, false);
	ut_cfs_lun(g_root, t, 0, "a");
	ut_cfs_lun(g_root, t, 1, "b");
	ut_cfs_acl_map(g_root, t, "iqn.i1", 0, 0);
	ut_cfs_acl_map(g_root, t, "iqn.i1", 1, 1);
	CU_ASSERT_EQUAL(check("a", "b", why), 0);
	/* a second initiator that sees a but not b closes the way */
	ut_cfs_acl_map(g_root, t, "iqn.i2", 0, 0);
	CU_ASSERT_EQUAL(check("a", "b", why), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "iqn.i2"));
	/* ... but not the other way round: every initiator that sees b sees a */
	CU_ASSERT_EQUAL(check("b", "a", why), 0);
}

static void
access_demo_mode_iscsi_needs_both(void)
{
	const char *t = "iscsi/iqn.t/tpgt_1";
	char why[512];

	fresh();
	demo(t, true);
	ut_cfs_lun(g_root, t, 0, "a");
	CU_ASSERT_EQUAL(check("a", "b", why), -EACCES);
	ut_cfs_lun(g_root, t, 1, "b");
	CU_ASSERT_EQUAL(check("a", "b", why), 0);
}

static void
access_relative_links(void)
{
	const char *t = "iscsi/iqn.t/tpgt_1";
	char why[512];

	/* the iscsi_acls case with links as LIO makes them (relative) */
	fresh();
	demo(t, false);
	rel_link("iscsi/iqn.t/tpgt_1/lun/lun_0/x", "core/user_0/a");
	rel_link("iscsi/iqn.t/tpgt_1/lun/lun_1/x", "./core/user_0/b/");
	rel_link("iscsi/iqn.t/tpgt_1/acls/iqn.i1/lun_0/link", "iscsi/iqn.t/tpgt_1/lun/lun_0");
	rel_link("iscsi/iqn.t/tpgt_1/acls/iqn.i1/lun_1/link", "iscsi/iqn.t/tpgt_1/lun/lun_1");
	CU_ASSERT_EQUAL(check("a", "b", why), 0);
	rel_link("iscsi/iqn.t/tpgt_1/acls/iqn.i2/lun_0/link", "iscsi/../iscsi/iqn.t/tpgt_1/lun/lun_0");
	CU_ASSERT_EQUAL(check("a", "b", why), -EACCES);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "iqn.i2"));
	CU_ASSERT_EQUAL(check("b", "a", why), 0);
	/* a link to a look-alike name is not the LU */
	fresh();
	rel_link("loopback/naa.1/tpgt_1/lun/lun_0/x", "core/user_0/a");
	rel_link("loopback/naa.1/tpgt_1/lun/lun_1/x", "core/user_0/bb");
	CU_ASSERT_EQUAL(check("a", "b", why), -EACCES);
	rel_link("loopback/naa.1/tpgt_1/lun/lun_2/x", "core/user_0/b");
	CU_ASSERT_EQUAL(check("a", "b", why), 0);
}

static void
access_unresolvable_paths(void)
{
	char why[512];

	fresh();
	ut_cfs_lun(g_root, "loopback/naa.1/tpgt_1", 0, "a");
	CU_ASSERT_EQUAL(check("a", "nosuch", why), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "cannot resolve"));
	ut_rm_tree(g_root);
	g_root[0] = '\0';
}

/*
 * cmd_time_out on the I/O path (xt_cmd_time_out_follow): configfs is read
 * again only once the last read is XT_CMD_TIME_OUT_RECHECK_MS old; a read
 * that finds it changed counts cmd_time_out_gen up, one that does not (or
 * cannot read it) leaves the value and the count alone.
 */
static void
access_cmd_time_out_follow(void)
{
	static struct xt_lu lu;
	int i;

	fresh();
	memset(&lu, 0, sizeof(lu));
	snprintf(lu.cfs_path, sizeof(lu.cfs_path), "%s/core/user_0/a", g_root);
	lu.cmd_time_out = XT_CMD_TIME_OUT_DEFAULT;
	ut_put_file(g_root, "core/user_0/a/attrib/cmd_time_out", "30\n");
	ut_clock_freeze(1000000);
	CU_ASSERT_EQUAL(xt_cmd_time_out(&lu), 30);
	CU_ASSERT_EQUAL(lu.cmd_time_out_gen, 0);
	ut_put_file(g_root, "core/user_0/a/attrib/cmd_time_out", "45\n");
	for (i = 0; i < 100; i++) {   /* the same millisecond: no read */
		CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 30);
	}
	ut_clock_advance(XT_CMD_TIME_OUT_RECHECK_MS - 1);
	CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 30);
	CU_ASSERT_EQUAL(lu.cmd_time_out_gen, 0);
	ut_clock_advance(1);   /* a second since the last read: read, changed */
	CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 45);
	CU_ASSERT_EQUAL(lu.cmd_time_out_gen, 1);
	ut_put_file(g_root, "core/user_0/a/attrib/cmd_time_out", "60\n");
	CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 45);   /* read just now */
	ut_clock_advance(XT_CMD_TIME_OUT_RECHECK_MS);
	CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 60);
	CU_ASSERT_EQUAL(lu.cmd_time_out_gen, 2);
	ut_clock_advance(XT_CMD_TIME_OUT_RECHECK_MS);   /* read, unchanged */
	CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 60);
	CU_ASSERT_EQUAL(lu.cmd_time_out_gen, 2);
	ut_put_file(g_root, "core/user_0/a/attrib/cmd_time_out", "junk\n");
	ut_clock_advance(XT_CMD_TIME_OUT_RECHECK_MS);   /* unreadable: the last value */
	CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 60);
	CU_ASSERT_EQUAL(lu.cmd_time_out_gen, 2);
	/* a copy's read at queue time (xt_cmd_time_out) reads at once */
	ut_put_file(g_root, "core/user_0/a/attrib/cmd_time_out", "7\n");
	CU_ASSERT_EQUAL(xt_cmd_time_out(&lu), 7);
	CU_ASSERT_EQUAL(lu.cmd_time_out_gen, 3);
	CU_ASSERT_EQUAL(xt_cmd_time_out_follow(&lu), 7);
	ut_clock_real();
	ut_rm_tree(g_root);
	g_root[0] = '\0';
}

static CU_TestInfo g_tests[] = {
	{ "same_lu_always", access_same_lu_always },
	{ "unexported_source_refused", access_unexported_source_refused },
	{ "tcm_loop_demo", access_tcm_loop_demo },
	{ "iscsi_acls", access_iscsi_acls },
	{ "demo_mode_iscsi_needs_both", access_demo_mode_iscsi_needs_both },
	{ "relative_links", access_relative_links },
	{ "unresolvable_paths", access_unresolvable_paths },
	{ "cmd_time_out_follow", access_cmd_time_out_follow },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_access, g_tests)
