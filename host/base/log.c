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

#include "xch_base.h"

static xcopy_log_fn g_log_fn;
static enum xcopy_log_level g_log_max = XCOPY_LOG_ERROR;
static void *g_log_arg;
static xcopy_progress_fn g_progress_fn;
static void *g_progress_arg;
static xcopy_progress_ex_fn g_progress_ex_fn;
static void *g_progress_ex_arg;

/*
 * The progress of one call: done and total of the outermost public call
 * (they nest: dm pieces). Each thread owns one for the calls it makes; the
 * library's in-flight workers report into the one of the call they work
 * for (xch_progress_adopt). mu: one report at a time per call.
 */
struct xch_progress {
	pthread_mutex_t mu;
	unsigned depth;
	uint64_t done, total;
};

static __thread struct xch_progress t_own = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0 };
static __thread struct xch_progress *t_cur;

struct xch_progress *
xch_progress_current(void)
{
	return t_cur != NULL ? t_cur : &t_own;
}

void
xch_progress_adopt(struct xch_progress *p)
{
	t_cur = p;
}

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
	struct xch_progress *p = xch_progress_current();

	pthread_mutex_lock(&p->mu);
	if (p->depth++ == 0) {
		p->done = 0;
		p->total = total;
	}
	pthread_mutex_unlock(&p->mu);
}

void
xch_progress_end(void)
{
	struct xch_progress *p = xch_progress_current();

	pthread_mutex_lock(&p->mu);
	if (p->depth > 0) {
		p->depth--;
	}
	pthread_mutex_unlock(&p->mu);
}

void
xch_progress_add(enum xcopy_method m, uint64_t bytes)
{
	struct xch_progress *cur = xch_progress_current();
	xcopy_progress_ex_fn ex_fn = g_progress_ex_fn;
	xcopy_progress_fn fn = g_progress_fn;
	struct xcopy_progress p;

	if ((fn == NULL && ex_fn == NULL) || bytes == 0) {
		return;
	}
	/* one report of this call at a time, in order: done never decreases */
	pthread_mutex_lock(&cur->mu);
	cur->done += bytes;
	/* a range redone (mapping moved) is counted once */
	if (cur->done > cur->total) {
		cur->done = cur->total;
	}
	p.done = cur->done;
	p.total = cur->total;
	p.bytes = bytes;
	p.method = m;
	if (fn != NULL) {
		fn(p.done, p.total, g_progress_arg);
	}
	if (ex_fn != NULL) {
		ex_fn(&p, g_progress_ex_arg);
	}
	pthread_mutex_unlock(&cur->mu);
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
	[XCOPY_FB_ALLOC_DISK] = "allocation-disk",
	[XCOPY_FB_ALLOC_FS] = "allocation-fs",
	[XCOPY_FB_HOLE] = "hole",
	[XCOPY_FB_MAPPING_MOVED] = "mapping-moved",
	[XCOPY_FB_DIFFERENT_DEV] = "different-device",
	[XCOPY_FB_NO_TOKENS] = "no-tokens",
	[XCOPY_FB_TOKEN] = "token",
	[XCOPY_FB_FS_TYPE] = "file-system",
	[XCOPY_FB_REALTIME] = "xfs-realtime",
	[XCOPY_FB_ENCRYPTED] = "encrypted",
	[XCOPY_FB_JOURNAL_DATA] = "journal-data",
	[XCOPY_FB_LEASE] = "lease",
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
 * The refused range is counted (no bytes moved) so the reason can be told.
 */
int
xch_required_errno(struct xcopy_stats *st, enum xcopy_fallback_reason why)
{
	xch_stats_fallback(st, why, 0);
	switch (why) {
	case XCOPY_FB_UNREACHABLE:
	case XCOPY_FB_DIFFERENT_DEV:
	case XCOPY_FB_NOT_SCSI:
		return -EXDEV;
	default:
		return -EOPNOTSUPP;
	}
}
