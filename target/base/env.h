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
	const char *subtype;         /* XCOPY_SUBTYPE, xcopy: the backstore is user:SUBTYPE */
	const char *subtype_refused; /* XCOPY_SUBTYPE's value when refused (xcopy kept), else NULL */
};

/*
 * The handler's subtype (backstore user:xcopy, cfgstrings "xcopy/..."), and
 * the longest XCOPY_SUBTYPE that replaces it (a second tcmu-runner with its
 * own copy manager serves user:SUBTYPE LUs: tests/lab/cm2-lib.sh).
 */
#define XT_SUBTYPE_DEFAULT "xcopy"
#define XT_SUBTYPE_MAX 15

const struct xt_env *xt_env(void);

/*
 * Can S be the handler's subtype? 1..XT_SUBTYPE_MAX of [a-z0-9_], and
 * neither a beginning of "xcopy" nor "xcopy" + more: libtcmu 1.5.4
 * (find_handler) gives a device to the first handler whose subtype starts
 * with the cfgstring's, so such a name would take, or lose, the LUs of a
 * runner that keeps the default.
 */
bool xt_subtype_ok(const char *s);

/* What follows "SUBTYPE/" in CFGSTRING, or NULL if it does not start so. */
const char *xt_cfg_after(const char *cfgstring, const char *subtype);

/* xt_cfg_after(cfgstring, xt_env()->subtype): the cfgstring past the handler's subtype. */
const char *xt_cfg_body(const char *cfgstring);

#endif
