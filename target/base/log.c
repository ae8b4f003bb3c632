/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LU's log: every layer logs through xt_lu_err/warn/info/dbg (lu.h);
 * the line goes to the runner's log by the LU's host (tcmu/lu_host.c), or
 * to stderr for a LU without one (unit suites and tools build LUs by hand).
 */
#include <stdarg.h>
#include <stdio.h>

#include "base/lu.h"

/* Longer lines are cut; the runner's own log line is shorter still. */
#define XT_LOG_LINE 1024

void
xt_lu_log(const struct xt_lu *lu, enum xt_log_level lvl, const char *func, int line,
	  const char *fmt, ...)
{
	static const char *const names[] = { "ERROR", "WARN", "INFO", "DEBUG" };
	char msg[XT_LOG_LINE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (lu != NULL && lu->host != NULL && lu->host->log != NULL) {
		lu->host->log(lu, lvl, func, line, msg);
		return;
	}
	if (lvl != XT_LOG_DBG) {
		fprintf(stderr, "%s %s:%d: %s", names[lvl], func, line, msg);
	}
}
