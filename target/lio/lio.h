/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What LIO's configfs says about the LUs of this process: the cross-LU
 * access rule and the LU's state for the command table (access.c), the
 * command timeout, and the sessions that can reach a LU (nexus.c).
 */
#ifndef TARGET_LIO_H
#define TARGET_LIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/lu.h"
#include "cmds/cmds.h"

/* ------------------------------------------------------------------------ */
/* Cross-LU access rule from configfs (access.c)                            */
/* ------------------------------------------------------------------------ */

/* Root of LIO's configfs tree; XCOPY_CONFIGFS_ROOT overrides (tests). */
const char *xt_configfs_root(void);
/* Root of sysfs; XCOPY_SYSFS_ROOT overrides (tests). */
const char *xt_sysfs_root(void);

/*
 * May a command received on the storage object at configfs path dev_a (e.g.
 * ROOT/core/user_1/a) touch the storage object dev_b? 0: yes; -EACCES: no
 * (reason in why); other -errno: configfs could not be read (treat as no).
 */
int xt_access_check(const char *root, const char *dev_a, const char *dev_b, char *why,
		    size_t whylen);

/* Does a LUN of TPG tpg (configfs path) export the storage object at real path so? */
bool xt_tpg_exports(const char *tpg, const char *so);
/* Does node ACL acl (configfs path) map a LUN that exports so? */
bool xt_acl_maps(const char *acl, const char *so);

/*
 * The LU's TCMU command timeout in seconds, re-read from configfs
 * (CFS_PATH/attrib/cmd_time_out; settable while the LU is not exported, so
 * read per command); the last value read (lu->cmd_time_out) if unreadable.
 */
uint32_t xt_cmd_time_out(struct xcm_lu *lu);

/* TCMU's default cmd_time_out (seconds), assumed when configfs cannot be read */
#define XT_CMD_TIME_OUT_DEFAULT 30

/*
 * The LU's state for the command table (access.c): mode from the cfgstring,
 * ALUA and PR conditions read from configfs (only when reporting).
 */
void xt_lu_state_get(const struct xcm_lu *lu, bool probe, struct xt_lu_state *s);

/* ------------------------------------------------------------------------ */
/* Sessions that can reach a LU (nexus.c)                                   */
/* ------------------------------------------------------------------------ */

void xt_nexus_set_init(struct xt_nexus_set *s);
void xt_nexus_set_add(struct xt_nexus_set *s, uint64_t h);
/* Has now an element old has not (a session arrived)? Overflowed: any change. */
bool xt_nexus_arrived(const struct xt_nexus_set *old, const struct xt_nexus_set *now);
/* The set of the storage object at so_path under configfs root. 0 or -errno. */
int xt_nexus_sessions(const char *root, const char *so_path, struct xt_nexus_set *s);

#endif /* TARGET_LIO_H */
