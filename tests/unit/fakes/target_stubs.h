/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the target/ unit suites (log stubs, temporary directories). */
#ifndef UT_TARGET_STUBS_H
#define UT_TARGET_STUBS_H

#include "base/lu.h"
#include "fault/fault.h"
#include "lio/lio.h"
#include "store/file/store_file.h"
#include "tcmu/handler.h"

/* tcmu_*_message calls so far, and the text of the last one */
extern unsigned int ut_tcmu_msgs;
extern char ut_tcmu_last[256];

#endif
