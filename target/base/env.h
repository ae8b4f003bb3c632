/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plugin's environment (env.c): every variable it honours, read once. */
#ifndef TARGET_BASE_ENV_H
#define TARGET_BASE_ENV_H

#include <stdbool.h>

struct xt_env {
	const char *configfs_root;   /* XCOPY_CONFIGFS_ROOT, /sys/kernel/config/target */
	const char *sysfs_root;      /* XCOPY_SYSFS_ROOT, /sys */
	const char *stats_dir;       /* XCOPY_STATS_DIR, /run/xcopy */
	const char *peers_path;      /* XCOPY_PEERS, /etc/xcopy/peers.conf (the peer map) */
	bool fault_injection;        /* XCOPY_FAULT_CONTROL=1: fault= and control files */
};

const struct xt_env *xt_env(void);

#endif
