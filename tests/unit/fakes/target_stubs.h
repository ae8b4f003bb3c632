/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the target/ unit suites (log stubs, temporary directories). */
#ifndef UT_TARGET_STUBS_H
#define UT_TARGET_STUBS_H

#include "xcopy_target.h"

/* tcmu_*_message calls so far, and the text of the last one */
extern unsigned int ut_tcmu_msgs;
extern char ut_tcmu_last[256];

#endif
