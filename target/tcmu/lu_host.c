/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's answers about an open LU (struct xt_lu_host, base/lu.h):
 * the layers below tcmu/ ask through lu->host, set at open (lu_open.c), and
 * never name the runner's device or call libtcmu themselves.
 */
#include "tcmu/handler.h"

static uint32_t
host_block_size(const struct xt_lu *lu)
{
	return tcmu_dev_get_block_size(lu->dev);
}

static uint64_t
host_num_lbas(const struct xt_lu *lu)
{
	return tcmu_dev_get_num_lbas(lu->dev);
}

static char *
host_serial(const struct xt_lu *lu)
{
	return tcmu_cfgfs_dev_get_wwn(lu->dev);
}

static bool
host_write_cache(const struct xt_lu *lu)
{
	return tcmu_dev_get_write_cache_enabled(lu->dev);
}

static const char *
host_cfgstring(const struct xt_lu *lu)
{
	return tcmu_dev_get_cfgstring(lu->dev);
}

static void
host_log(const struct xt_lu *lu, enum xt_log_level lvl, const char *func, int line,
	 const char *msg)
{
	switch (lvl) {
	case XT_LOG_ERR:
		tcmu_err_message(lu->dev, func, line, "%s", msg);
		break;
	case XT_LOG_WARN:
		tcmu_warn_message(lu->dev, func, line, "%s", msg);
		break;
	case XT_LOG_INFO:
		tcmu_info_message(lu->dev, func, line, "%s", msg);
		break;
	default:
		tcmu_dbg_message(lu->dev, func, line, "%s", msg);
		break;
	}
}

const struct xt_lu_host xt_tcmu_host = {
	.block_size = host_block_size,
	.num_lbas = host_num_lbas,
	.serial = host_serial,
	.write_cache = host_write_cache,
	.cfgstring = host_cfgstring,
	.log = host_log,
};
