/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's side of a LU for the target/ unit suites that link target/
 * objects without the daemon: a struct xt_lu_host (base/lu.h) whose log
 * counts the lines and keeps the last one, so a test can assert that a
 * warning was logged. A suite sets lu.host = &ut_lu_host.
 */
#include <stdio.h>

#include "target_stubs.h"

unsigned int ut_log_msgs;
char ut_log_last[256];

static void
ut_log(const struct xt_lu *lu, enum xt_log_level lvl, const char *func, int line,
       const char *msg)
{
	ut_log_msgs++;
	snprintf(ut_log_last, sizeof(ut_log_last), "%s", msg);
}

static uint32_t
ut_block_size(const struct xt_lu *lu)
{
	return 512;
}

static uint64_t
ut_num_lbas(const struct xt_lu *lu)
{
	return 0;
}

static char *
ut_serial(const struct xt_lu *lu)
{
	return NULL;
}

static bool
ut_write_cache(const struct xt_lu *lu)
{
	return true;
}

static const char *
ut_cfgstring(const struct xt_lu *lu)
{
	return "xcopy/";
}

const struct xt_lu_host ut_lu_host = {
	.block_size = ut_block_size,
	.num_lbas = ut_num_lbas,
	.serial = ut_serial,
	.write_cache = ut_write_cache,
	.cfgstring = ut_cfgstring,
	.log = ut_log,
};
