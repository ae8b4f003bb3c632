/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tcmu-runner log functions target/ objects call, for the target/ unit
 * suites that link those objects without the daemon. Messages are counted
 * and the last one kept, so a test can assert that a warning was logged.
 */
#include <stdarg.h>
#include <stdio.h>

#include "target_stubs.h"

unsigned int ut_tcmu_msgs;
char ut_tcmu_last[256];

static void
keep(const char *fmt, va_list ap)
{
	ut_tcmu_msgs++;
	vsnprintf(ut_tcmu_last, sizeof(ut_tcmu_last), fmt, ap);
}

#define UT_TCMU_LOG(NAME)                                                          \
	void NAME(struct tcmu_device *dev, const char *funcname, int linenr,       \
		  const char *fmt, ...)                                             \
	{                                                                          \
		va_list ap;                                                        \
                                                                                   \
		(void)dev;                                                         \
		(void)funcname;                                                    \
		(void)linenr;                                                      \
		va_start(ap, fmt);                                                 \
		keep(fmt, ap);                                                     \
		va_end(ap);                                                        \
	}

UT_TCMU_LOG(tcmu_crit_message)
UT_TCMU_LOG(tcmu_err_message)
UT_TCMU_LOG(tcmu_warn_message)
UT_TCMU_LOG(tcmu_info_message)
UT_TCMU_LOG(tcmu_dbg_message)
