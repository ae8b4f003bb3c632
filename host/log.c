/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logging and progress callbacks, fallback-reason names and statistics
 * helpers. The library never prints: messages go to the application's
 * callback (none by default).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "xcopy_internal.h"

static xcopy_log_fn g_log_fn;
static enum xcopy_log_level g_log_max = XCOPY_LOG_ERROR;
static void *g_log_arg;
static xcopy_progress_fn g_progress_fn;
static void *g_progress_arg;
static xcopy_progress_ex_fn g_progress_ex_fn;
static void *g_progress_ex_arg;

/* The progress of the outermost public call (they nest: dm pieces). */
static pthread_mutex_t g_progress_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_progress_depth;
static uint64_t g_progress_done, g_progress_total;

void
xcopy_set_log(xcopy_log_fn fn, enum xcopy_log_level max_level, void *arg)
{
	g_log_fn = fn;
	g_log_max = max_level;
	g_log_arg = arg;
}

void
xcopy_set_progress(xcopy_progress_fn fn, void *arg)
{
	g_progress_fn = fn;
	g_progress_arg = arg;
}

void
xcopy_set_progress_ex(xcopy_progress_ex_fn fn, void *arg)
{
	g_progress_ex_fn = fn;
	g_progress_ex_arg = arg;
}

void
xch_log(enum xcopy_log_level lvl, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	/* check the level before formatting: debug lines cost nothing when off */
	if (g_log_fn == NULL || lvl > g_log_max) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	g_log_fn(lvl, msg, g_log_arg);
}

void
xch_progress_begin(uint64_t total)
{
	pthread_mutex_lock(&g_progress_lock);
	if (g_progress_depth++ == 0) {
		g_progress_done = 0;
		g_progress_total = total;
	}
	pthread_mutex_unlock(&g_progress_lock);
}

void
xch_progress_end(void)
{
	pthread_mutex_lock(&g_progress_lock);
	if (g_progress_depth > 0) {
		g_progress_depth--;
	}
	pthread_mutex_unlock(&g_progress_lock);
}

void
xch_progress_add(enum xcopy_method m, uint64_t bytes)
{
	struct xcopy_progress p;

	if ((g_progress_fn == NULL && g_progress_ex_fn == NULL) || bytes == 0) {
		return;
	}
	/* one report at a time, in order: done never decreases */
	pthread_mutex_lock(&g_progress_lock);
	g_progress_done += bytes;
	/* a range redone (mapping moved) is counted once */
	if (g_progress_done > g_progress_total) {
		g_progress_done = g_progress_total;
	}
	p.done = g_progress_done;
	p.total = g_progress_total;
	p.bytes = bytes;
	p.method = m;
	if (g_progress_fn != NULL) {
		g_progress_fn(p.done, p.total, g_progress_arg);
	}
	if (g_progress_ex_fn != NULL) {
		g_progress_ex_fn(&p, g_progress_ex_arg);
	}
	pthread_mutex_unlock(&g_progress_lock);
}

static const char *const g_reason_names[XCOPY_FB_REASON_COUNT] = {
	[XCOPY_FB_NONE] = "none",
	[XCOPY_FB_REQUESTED] = "requested",
	[XCOPY_FB_NOT_SCSI] = "not-scsi",
	[XCOPY_FB_NO_3PC] = "no-3pc",
	[XCOPY_FB_NO_DESIGNATOR] = "no-designator",
	[XCOPY_FB_BLOCK_SIZE] = "block-size",
	[XCOPY_FB_PERMISSION] = "permission",
	[XCOPY_FB_INVALID_OPCODE] = "invalid-opcode",
	[XCOPY_FB_INVALID_CDB] = "invalid-cdb",
	[XCOPY_FB_UNSUPP_DESC] = "unsupported-descriptor",
	[XCOPY_FB_INVALID_PARAM] = "invalid-parameter-list",
	[XCOPY_FB_UNREACHABLE] = "unreachable",
	[XCOPY_FB_COPY_ABORTED] = "copy-aborted",
	[XCOPY_FB_OTHER_SENSE] = "other-sense",
	[XCOPY_FB_TRANSPORT] = "transport",
	[XCOPY_FB_UNALIGNED] = "unaligned",
	[XCOPY_FB_EXTENT_FLAGS] = "extent-flags",
	[XCOPY_FB_DST_EXTENT] = "destination-extent",
	[XCOPY_FB_ALLOC] = "allocation",
	[XCOPY_FB_HOLE] = "hole",
	[XCOPY_FB_MAPPING_MOVED] = "mapping-moved",
	[XCOPY_FB_DIFFERENT_DEV] = "different-device",
	[XCOPY_FB_NO_TOKENS] = "no-tokens",
	[XCOPY_FB_TOKEN] = "token",
};

const char *
xcopy_fallback_reason_name(enum xcopy_fallback_reason r)
{
	if ((unsigned)r >= XCOPY_FB_REASON_COUNT || g_reason_names[r] == NULL) {
		return "unknown";
	}
	return g_reason_names[r];
}

void
xch_stats_fallback(struct xcopy_stats *st, enum xcopy_fallback_reason why, uint64_t bytes)
{
	if (st == NULL || (unsigned)why >= XCOPY_FB_REASON_MAX) {
		return;
	}
	st->fallback_ranges[why]++;
	st->fallback_bytes[why] += bytes;
}

/*
 * What XCOPY_REQUIRE_OFFLOAD returns for a reason: -EXDEV when the ranges
 * are not reachable by one copy manager, -EOPNOTSUPP for everything else.
 */
int
xch_required_errno(enum xcopy_fallback_reason why)
{
	switch (why) {
	case XCOPY_FB_UNREACHABLE:
	case XCOPY_FB_DIFFERENT_DEV:
	case XCOPY_FB_NOT_SCSI:
		return -EXDEV;
	default:
		return -EOPNOTSUPP;
	}
}
