/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host/base/: what every layer of libxcopy uses (log.c): the log callback,
 * the progress of the outermost public call and the fallback statistics.
 * Host-internal (xch_ prefix, hidden by the version script).
 */
#ifndef XCH_BASE_H
#define XCH_BASE_H

#include <stdint.h>

#include "xcopy.h"

void xch_log(enum xcopy_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Progress of the outermost public copy call: begin(total) / end() around
 * it (nested calls add to the outer one), add() wherever bytes are done.
 * Per call: the calling thread's own state; a worker thread reports into
 * the state of the call it works for (current() in the caller, adopt() in
 * the worker; xch_pool_run does both).
 */
struct xch_progress;
void xch_progress_begin(uint64_t total);
void xch_progress_add(enum xcopy_method m, uint64_t bytes);
void xch_progress_end(void);
struct xch_progress *xch_progress_current(void);
void xch_progress_adopt(struct xch_progress *p);

#define XCH_ERR(...) xch_log(XCOPY_LOG_ERROR, __VA_ARGS__)
#define XCH_WARN(...) xch_log(XCOPY_LOG_WARN, __VA_ARGS__)
#define XCH_INFO(...) xch_log(XCOPY_LOG_INFO, __VA_ARGS__)
#define XCH_DBG(...) xch_log(XCOPY_LOG_DEBUG, __VA_ARGS__)

void xch_stats_fallback(struct xcopy_stats *st, enum xcopy_fallback_reason why, uint64_t bytes);
/*
 * XCOPY_REQUIRE_OFFLOAD refused a range for why: -EXDEV or -EOPNOTSUPP, and
 * the range counted under why with 0 bytes, so the caller can name the reason.
 */
int xch_required_errno(struct xcopy_stats *st, enum xcopy_fallback_reason why);

#endif /* XCH_BASE_H */
