/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What LIO's configfs says about the LUs of this process: the cross-LU
 * access rule and the LU's state for the command table (access.c), the
 * command timeout, the settings that bound its throughput (settings.c),
 * and the sessions that can reach a LU (nexus.c).
 */
#ifndef TARGET_LIO_H
#define TARGET_LIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/lu.h"

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
 * (CFS_PATH/attrib/cmd_time_out); the last value read (lu->cmd_time_out) if
 * unreadable. A read that finds it changed counts lu->cmd_time_out_gen up.
 * Copies read it when queued (their deadline is the kernel's).
 */
uint32_t xt_cmd_time_out(struct xt_lu *lu);
/*
 * The same for the ordinary I/O path (RBD READ/WRITE/flush): configfs is
 * read again only when the last read is XT_CMD_TIME_OUT_RECHECK_MS old, by
 * the one thread that claims it; every other call is an atomic load. The
 * kernel refuses a change while a LUN exports the LU and sends the runner no
 * event for it (reconfig carries only dev_config, dev_size and the write
 * cache), so a change reaches the I/O path at most that late.
 */
uint32_t xt_cmd_time_out_follow(struct xt_lu *lu);
#define XT_CMD_TIME_OUT_RECHECK_MS 1000

/* TCMU's default cmd_time_out (seconds), assumed when configfs cannot be read */
#define XT_CMD_TIME_OUT_DEFAULT 30

/*
 * access.c: what configfs says of the conditions of the command table
 * (tcmu/ puts them in cmds/' struct xt_lu_state). xt_lio_alua: the LU has an
 * ALUA target port group other than default_tg_pt_gp with members (the
 * core then answers RTPG/STPG); xt_lio_pr: LIO emulates PR (attrib/
 * pgr_support = 1 and emulate_pr = 1). false when configfs cannot tell.
 */
bool xt_lio_alua(const struct xt_lu *lu);
bool xt_lio_pr(const struct xt_lu *lu);
/* access.c: the integer in file dir/name, or def if it cannot be read */
long xt_lio_read_long(const char *dir, const char *name, long def);

/* ------------------------------------------------------------------------ */
/* The LU's settings that bound its throughput (settings.c)                 */
/* ------------------------------------------------------------------------ */

/*
 * What the project creates its LUs with (docs/target-setup.md, "LU
 * settings"): commands of 1 MiB (hw_max_sectors 2048 of 512 bytes; the
 * kernel's default 128 makes a 1 MiB READ 16 commands through the TCMU
 * ring), and a data area that holds hw_queue_depth of them (128 x 1 MiB).
 */
#define XT_LU_CMD_BYTES (1024u * 1024u)
#define XT_LU_HW_MAX_SECTORS 2048u
#define XT_LU_MAX_DATA_AREA_MB 128u

/* s->caps (XT_CAP_*) from s's values; a value 0 (unknown) caps nothing */
void xt_lu_settings_judge(struct xt_lu_settings *s);
/*
 * The log line for one cap of s (XT_CAP_*): the setting, what it costs,
 * the value to set and the command that sets it (ends in \n). Its length.
 */
int xt_lu_settings_advice(const struct xt_lu_settings *s, unsigned int cap, const char *lu,
			  char *buf, size_t n);
/*
 * At open: lu->settings from configfs (lu->cfs_path/attrib/), judged; one
 * warning in the runner's log per cap (once per LU: open is once per LU).
 */
void xt_lio_settings(struct xt_lu *lu);

/* ------------------------------------------------------------------------ */
/* Sessions of a LU (lio/nexus.c fills the set)                             */
/* ------------------------------------------------------------------------ */

/*
 * The sessions that can reach a LU as configfs shows them (nexus.c): a sorted
 * set of 64-bit hashes, one per session identity (per TPG exporting the LU:
 * the TPG, its tcm_loop nexus, each demo-mode session line, each mapping
 * ACL's current session id, the iSCSI login counter's value). At most
 * XT_NEXUS_MAX elements; past that, overflow is set and only sum (of all
 * elements, order-independent) is compared.
 */
#define XT_NEXUS_MAX 256
struct xt_nexus_set {
	uint32_t n;
	bool overflow;
	uint64_t sum;
	uint64_t el[XT_NEXUS_MAX];        /* ascending, no duplicates */
};

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
