/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Failures the xcp -r suite injects (tests/unit/host/cli/test_xcp_tree.c): the
 * unit binary is linked with -Wl,--wrap=fchown, --wrap=acl_set_fd and
 * --wrap=xcopy_file_range (tests/tests.mk), so the calls of every other
 * object come here; they go through to the real function until a suite
 * arms a failure, and again after ut_sys_reset(). Nothing of this is in
 * libxcopy or xcp.
 */
#ifndef UT_FAKE_SYS_H
#define UT_FAKE_SYS_H

#include <stdint.h>

/* fchown fails with err (an NFS root_squash, an idmapped mount). */
void ut_sys_fail_fchown(int err);
/* acl_set_fd fails with err (a file system without ACLs). */
void ut_sys_fail_acl_set_fd(int err);
/* xcopy_file_range copies bytes more (all calls together), then returns -err. */
void ut_sys_fail_copy_after(uint64_t bytes, int err);
/* Everything real again. */
void ut_sys_reset(void);

#endif
