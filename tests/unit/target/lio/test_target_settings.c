/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/lio/settings.c: the LU's settings that bound its throughput, judged
 * against the project's (1 MiB commands, a data area for hw_queue_depth of
 * them), the advice line of each cap, and the configfs read at open
 * (ROOT/core/user_0/a/attrib/ in a mkdtemp directory).
 */
#include <limits.h>
#include <string.h>

#include "lio/lio.h"
#include "target_stubs.h"
#include "ut.h"

static struct xt_lu_settings
settings(uint32_t max_sectors, uint32_t block, uint32_t area_mb, uint32_t qd)
{
	struct xt_lu_settings s = { max_sectors, block, area_mb, qd, 0 };

	xt_lu_settings_judge(&s);
	return s;
}

static void
settings_judge(void)
{
	/* the project's, the kernel's defaults, the bench's "tuned" */
	CU_ASSERT_EQUAL(settings(2048, 512, 128, 128).caps, 0);
	CU_ASSERT_EQUAL(settings(128, 512, 1024, 128).caps, XT_CAP_MAX_SECTORS);
	CU_ASSERT_EQUAL(settings(8192, 512, 256, 128).caps, XT_CAP_DATA_AREA);
	CU_ASSERT_EQUAL(settings(8192, 512, 512, 128).caps, 0);
	/* the data area is judged at 1 MiB commands at least */
	CU_ASSERT_EQUAL(settings(128, 512, 127, 128).caps, XT_CAP_MAX_SECTORS | XT_CAP_DATA_AREA);
	CU_ASSERT_EQUAL(settings(2048, 512, 127, 128).caps, XT_CAP_DATA_AREA);
	/* hw_max_sectors counts blocks */
	CU_ASSERT_EQUAL(settings(256, 4096, 128, 128).caps, 0);
	CU_ASSERT_EQUAL(settings(255, 4096, 128, 128).caps, XT_CAP_MAX_SECTORS);
	/* unknown values cap nothing */
	CU_ASSERT_EQUAL(settings(0, 0, 0, 0).caps, 0);
	CU_ASSERT_EQUAL(settings(128, 0, 0, 0).caps, 0);
	CU_ASSERT_EQUAL(settings(2048, 512, 64, 0).caps, 0);
}

static void
settings_advice(void)
{
	struct xt_lu_settings s = settings(128, 512, 64, 128);
	char line[512];
	int n;

	n = xt_lu_settings_advice(&s, XT_CAP_MAX_SECTORS, "x0", line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "xcopy: LU x0: hw_max_sectors 128 caps throughput: 64 KiB per "
			       "command, 16 per 1 MiB I/O; set hw_max_sectors=2048 at creation "
			       "(targetcli create option, or control before enable)\n");
	CU_ASSERT_EQUAL(n, (int)strlen(line));
	/* tcmu-runner keeps 256 bytes of a line with its prefix */
	CU_ASSERT_TRUE(n < 200);
	n = xt_lu_settings_advice(&s, XT_CAP_DATA_AREA, "x0", line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line,
			       "xcopy: LU x0: max_data_area_mb 64 caps throughput: room for 64 of "
			       "128 queued commands of 1024 KiB; set max_data_area_mb=128 at "
			       "creation (targetcli create control=..., or control before enable)\n");
	CU_ASSERT_TRUE(n < 200);
	CU_ASSERT_EQUAL(xt_lu_settings_advice(&s, 0, "x0", line, sizeof(line)), 0);
}

static void
settings_configfs(void)
{
	static struct xt_lu lu;   /* big: not on the stack */
	char root[256];
	unsigned int msgs;

	ut_tmpdir("settings", root, sizeof(root));
	memset(&lu, 0, sizeof(lu));
	lu.host = &ut_lu_host;
	snprintf(lu.name, sizeof(lu.name), "a");
	snprintf(lu.cfs_path, sizeof(lu.cfs_path), "%s/core/user_0/a", root);
	ut_put_file(root, "core/user_0/a/attrib/hw_max_sectors", "128\n");
	ut_put_file(root, "core/user_0/a/attrib/hw_block_size", "512\n");
	ut_put_file(root, "core/user_0/a/attrib/max_data_area_mb", "1024\n");
	ut_put_file(root, "core/user_0/a/attrib/hw_queue_depth", "128\n");
	msgs = ut_log_msgs;
	xt_lio_settings(&lu);
	CU_ASSERT_EQUAL(lu.settings.hw_max_sectors, 128);
	CU_ASSERT_EQUAL(lu.settings.hw_block_size, 512);
	CU_ASSERT_EQUAL(lu.settings.max_data_area_mb, 1024);
	CU_ASSERT_EQUAL(lu.settings.hw_queue_depth, 128);
	CU_ASSERT_EQUAL(lu.settings.caps, XT_CAP_MAX_SECTORS);
	CU_ASSERT_EQUAL(ut_log_msgs, msgs + 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(ut_log_last, "LU a: hw_max_sectors 128 caps"));
	/* the project's settings: no line */
	ut_put_file(root, "core/user_0/a/attrib/hw_max_sectors", "2048\n");
	ut_put_file(root, "core/user_0/a/attrib/max_data_area_mb", "128\n");
	msgs = ut_log_msgs;
	xt_lio_settings(&lu);
	CU_ASSERT_EQUAL(lu.settings.caps, 0);
	CU_ASSERT_EQUAL(ut_log_msgs, msgs);
	/* junk and no configfs path: unknown, nothing said */
	ut_put_file(root, "core/user_0/a/attrib/hw_max_sectors", "x\n");
	xt_lio_settings(&lu);
	CU_ASSERT_EQUAL(lu.settings.hw_max_sectors, 0);
	CU_ASSERT_EQUAL(lu.settings.max_data_area_mb, 128);
	lu.cfs_path[0] = '\0';
	xt_lio_settings(&lu);
	CU_ASSERT_EQUAL(lu.settings.max_data_area_mb, 0);
	CU_ASSERT_EQUAL(lu.settings.caps, 0);
	CU_ASSERT_EQUAL(ut_log_msgs, msgs);
	ut_rm_tree(root);
}

static CU_TestInfo g_tests[] = {
	{ "judge", settings_judge },
	{ "advice", settings_advice },
	{ "configfs", settings_configfs },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_settings, g_tests)
