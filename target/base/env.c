/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin's environment, read in this one place, once, at first use
 * (tcmu-runner's environment does not change while it runs). Documented in
 * docs/target-setup.md, "Environment". XCOPY_SUBTYPE is read by handler_init,
 * before the handler registers (tcmu/handler_xcopy.c).
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
	g_env.subtype = var_or("XCOPY_SUBTYPE", XT_SUBTYPE_DEFAULT);
	g_env.subtype_refused = NULL;
	if (!xt_subtype_ok(g_env.subtype)) {
		g_env.subtype_refused = g_env.subtype;
		g_env.subtype = XT_SUBTYPE_DEFAULT;
	}
}

bool
xt_subtype_ok(const char *s)
{
	size_t n = strlen(s), k = strlen(XT_SUBTYPE_DEFAULT), i;

	if (n == 0 || n > XT_SUBTYPE_MAX) {
		return false;
	}
	for (i = 0; i < n; i++) {
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) {
			return false;
		}
	}
	if (strcmp(s, XT_SUBTYPE_DEFAULT) == 0) {
		return true;
	}
	/* "xc" would be matched by the default handler, "xcopy2" would match "xcopy/..." */
	return strncmp(s, XT_SUBTYPE_DEFAULT, n < k ? n : k) != 0;
}

const char *
xt_cfg_after(const char *cfgstring, const char *subtype)
{
	size_t n = strlen(subtype);

	if (cfgstring == NULL || strncmp(cfgstring, subtype, n) != 0 || cfgstring[n] != '/') {
		return NULL;
	}
	return cfgstring + n + 1;
}

const char *
xt_cfg_body(const char *cfgstring)
{
	return xt_cfg_after(cfgstring, xt_env()->subtype);
}

const struct xt_env *
xt_env(void)
{
	pthread_once(&g_env_once, env_read);
	return &g_env;
}
