/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The copy manager's limits as this target enforces and reports them, and
 * the sense of a failed command: small helpers every layer above calls
 * (moved here from async_parse.c).
 */
#include <string.h>

#include "cm/cm.h"

static struct xcm_limits g_limits;
static pthread_once_t g_limits_once = PTHREAD_ONCE_INIT;

static void
limits_init(void)
{
	g_limits = xcm_limits_default;
	/* SPC-4 6.18.4: copies this copy manager runs at once (per LU: list ids are per LU) */
	g_limits.total_concurrent = XT_MAX_JOBS;
	g_limits.max_concurrent = XT_MAX_JOBS;
}

const struct xcm_limits *
xt_limits(void)
{
	pthread_once(&g_limits_once, limits_init);
	return &g_limits;
}

enum xt_sts
xt_fail_sense(uint8_t *sense, size_t cap, const struct xcm_err *err)
{
	memset(sense, 0, cap);
	/* fixed format (70h) unless forwarded sense needs descriptor format (72h) */
	xcm_sense_build(err, err->fwd_valid, sense, cap);
	return XT_STS_CHECK;
}
