/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin's fdatasync, interposed (as fake_time.c's clock: the harness is
 * linked with -rdynamic, so the dlopened plugin binds to this one): every
 * call is counted, then done for real. A test reads the count around a
 * command to see that the store was made durable before GOOD (WCE = 0) or
 * left to SYNCHRONIZE CACHE (WCE = 1).
 */
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"

static atomic_ulong g_syncs;

int
fdatasync(int fd)
{
	atomic_fetch_add(&g_syncs, 1);
	return (int)syscall(SYS_fdatasync, fd);
}

unsigned long
plugin_fdatasyncs(void)
{
	return atomic_load(&g_syncs);
}
