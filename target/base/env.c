/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin's environment, read in this one place, once, at first use
 * (tcmu-runner's environment does not change while it runs). Documented in
 * docs/target-setup.md, "Environment".
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"

static struct xt_env g_env;
static pthread_once_t g_env_once = PTHREAD_ONCE_INIT;

static const char *
var_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v != NULL && v[0] != '\0' ? v : dflt;
}

static void
env_read(void)
{
	const char *f = getenv("XCOPY_FAULT_CONTROL");

	g_env.configfs_root = var_or("XCOPY_CONFIGFS_ROOT", "/sys/kernel/config/target");
	g_env.sysfs_root = var_or("XCOPY_SYSFS_ROOT", "/sys");
	g_env.stats_dir = var_or("XCOPY_STATS_DIR", "/run/xcopy");
	g_env.peers_path = var_or("XCOPY_PEERS", "/etc/xcopy/peers.conf");
	g_env.fault_injection = f != NULL && strcmp(f, "1") == 0;
}

const struct xt_env *
xt_env(void)
{
	pthread_once(&g_env_once, env_read);
	return &g_env;
}
