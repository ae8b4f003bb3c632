/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers of the target/ unit suites (the LU host and its log, temporary directories). */
#ifndef UT_TARGET_STUBS_H
#define UT_TARGET_STUBS_H

#include "base/lu.h"
#include "fault/fault.h"
#include "lio/lio.h"
#include "store/file/store_file.h"
#include "tcmu/handler.h"

/* a LU's runner side (lu.host): log lines so far, and the text of the last one */
extern const struct xt_lu_host ut_lu_host;
extern unsigned int ut_log_msgs;
extern char ut_log_last[256];

#endif
