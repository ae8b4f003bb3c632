/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp reports: --stats (text), --stats=json, the notes on why bytes were
 * copied by the host, and the progress line on standard error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "xcp.h"
#include "xos.h"

void
xcp_stats_text(FILE *f, const struct xcopy_stats *st)
{
	uint64_t tot = st->bytes_offloaded + st->bytes_fallback;
	int r;

	fprintf(f, "bytes offloaded:   %" PRIu64 "\n", st->bytes_offloaded);
	fprintf(f, "bytes by fallback: %" PRIu64 "\n", st->bytes_fallback);
	fprintf(f, "bytes zeroed:      %" PRIu64 "\n", st->bytes_zeroed);
	fprintf(f, "offloaded:         %.2f %%\n",
		tot ? 100.0 * (double)st->bytes_offloaded / (double)tot : 0.0);
	fprintf(f, "xcopy commands:    %" PRIu64 " (%" PRIu64 " failed, %" PRIu64 " segments)\n",
		st->xcopy_cmds, st->xcopy_failed, st->segments);
	fprintf(f, "bytes by xcopy:    %" PRIu64 "\n", st->bytes_offloaded - st->bytes_token);
	fprintf(f, "bytes by token:    %" PRIu64 "\n", st->bytes_token);
	fprintf(f, "token commands:    %" PRIu64 " populate, %" PRIu64 " rrti, %" PRIu64
		   " write-using-token (%" PRIu64 " failed)\n",
		st->populate_cmds, st->rrti_cmds, st->wut_cmds, st->token_failed);
	fprintf(f, "other commands:    %" PRIu64 "\n", st->other_cmds);
	for (r = 1; r < XCOPY_FB_REASON_COUNT; r++) {
		if (st->fallback_ranges[r] != 0) {
			fprintf(f, "fallback %-24s %" PRIu64 " ranges, %" PRIu64 " bytes\n",
				xcopy_fallback_reason_name((enum xcopy_fallback_reason)r),
				st->fallback_ranges[r], st->fallback_bytes[r]);
		}
	}
}

static const char *
result_name(int exit_code)
{
	switch (exit_code) {
	case XCP_EXIT_OK: return "copied";
	case XCP_EXIT_REFUSED: return "refused";
	case XCP_EXIT_OPEN: return "open-failed";
	case XCP_EXIT_USAGE: return "usage";
	default: return "failed";
	}
}

/* POPULATE TOKEN + RRTI + WRITE USING TOKEN (SBC-4 5.8, 5.55; SPC-4 6.19.4). */
static void
json_token(struct xcp_json *j, const struct xcopy_stats *st)
{
	xcp_json_obj(j, NULL);
	xcp_json_str(j, "kind", "rod-token");
	xcp_json_str(j, "command", "POPULATE TOKEN + WRITE USING TOKEN");
	xcp_json_int(j, "opcode", 0x83);
	xcp_json_u64(j, "bytes", st->bytes_token);
	xcp_json_u64(j, "populate_token", st->populate_cmds);
	xcp_json_u64(j, "receive_rod_token_information", st->rrti_cmds);
	xcp_json_u64(j, "write_using_token", st->wut_cmds);
	xcp_json_u64(j, "commands", st->populate_cmds + st->rrti_cmds + st->wut_cmds);
	xcp_json_u64(j, "failed", st->token_failed);
	xcp_json_end_obj(j);
}

/* The offload commands by kind: EXTENDED COPY (LID1) and ROD tokens. */
static void
json_offload(struct xcp_json *j, const struct xcopy_stats *st)
{
	uint64_t lid1 = st->bytes_offloaded - st->bytes_token;

	xcp_json_arr(j, "offload_commands");
	if (st->populate_cmds != 0 || st->bytes_token != 0) {
		json_token(j, st);
	}
	if (st->xcopy_cmds != 0 || lid1 != 0) {
		xcp_json_obj(j, NULL);
		xcp_json_str(j, "kind", "extended-copy-lid1");
		xcp_json_str(j, "command", "EXTENDED COPY (LID1)");
		xcp_json_int(j, "opcode", 0x83);
		xcp_json_int(j, "service_action", 0x00);
		xcp_json_str(j, "segment_kind", "block-to-block (02h)");
		xcp_json_u64(j, "bytes", lid1);
		xcp_json_u64(j, "commands", st->xcopy_cmds);
		xcp_json_u64(j, "failed", st->xcopy_failed);
		xcp_json_u64(j, "segments", st->segments);
		xcp_json_end_obj(j);
	}
	xcp_json_end_arr(j);
}

static void
json_fallbacks(struct xcp_json *j, const struct xcopy_stats *st)
{
	int r;

	xcp_json_arr(j, "fallbacks");
	for (r = 1; r < XCOPY_FB_REASON_COUNT; r++) {
		if (st->fallback_ranges[r] == 0) {
			continue;
		}
		xcp_json_obj(j, NULL);
		xcp_json_str(j, "reason", xcopy_fallback_reason_name((enum xcopy_fallback_reason)r));
		xcp_json_u64(j, "ranges", st->fallback_ranges[r]);
		xcp_json_u64(j, "bytes", st->fallback_bytes[r]);
		xcp_json_str(j, "hint", xcp_reason_hint((enum xcopy_fallback_reason)r));
		xcp_json_end_obj(j);
	}
	xcp_json_end_arr(j);
}

void
xcp_stats_json(FILE *f, const struct xcopy_stats *st, const struct xcp_result *r)
{
	uint64_t moved = st->bytes_offloaded + st->bytes_fallback;
	struct xcp_json j;

	xcp_json_start(&j, f);
	xcp_json_obj(&j, NULL);
	xcp_json_int(&j, "version", 1);
	xcp_json_str(&j, "source", r->src);
	xcp_json_str(&j, "destination", r->dst);
	xcp_json_str(&j, "result", result_name(r->exit_code));
	xcp_json_int(&j, "exit_code", r->exit_code);
	xcp_json_str(&j, "error", r->error);
	xcp_json_u64(&j, "bytes_total", r->total);
	xcp_json_u64(&j, "bytes_offloaded", st->bytes_offloaded);
	xcp_json_u64(&j, "bytes_host", st->bytes_fallback);
	xcp_json_u64(&j, "bytes_zeroed", st->bytes_zeroed);
	xcp_json_dbl(&j, "offloaded_percent",
		     moved ? 100.0 * (double)st->bytes_offloaded / (double)moved : 0.0);
	xcp_json_dbl(&j, "seconds", r->seconds);
	json_offload(&j, st);
	xcp_json_u64(&j, "other_commands", st->other_cmds);
	json_fallbacks(&j, st);
	if (r->tree != NULL) {
		xcp_tree_json(&j, r->tree);
	}
	xcp_json_end_obj(&j);
	xcp_json_finish(&j);
}

/*
 * Reasons noted without -v: offload was within reach and something the user
 * can change stopped it. Files simply not on SCSI LUs are no news.
 */
static bool
worth_a_note(int r)
{
	return r != XCOPY_FB_NOT_SCSI && r != XCOPY_FB_DIFFERENT_DEV;
}

void
xcp_fallback_notes(FILE *f, const struct xcopy_stats *st, bool all)
{
	char b[32];
	struct utsname u;
	int r;

	for (r = 1; r < XCOPY_FB_REASON_COUNT; r++) {
		const char *hint = xcp_reason_hint((enum xcopy_fallback_reason)r);

		if (st->fallback_ranges[r] == 0 || hint == NULL || (!all && !worth_a_note(r))) {
			continue;
		}
		xcp_fmt_bytes(b, sizeof(b), st->fallback_bytes[r]);
		fprintf(f, "xcp: note: %s copied by the host (%s): %s", b,
			xcopy_fallback_reason_name((enum xcopy_fallback_reason)r), hint);
		if (r == XCOPY_FB_ALLOC && uname(&u) == 0) {
			fprintf(f, " (this kernel: %s)", u.release);
		}
		fputc('\n', f);
	}
}

/* --- progress ------------------------------------------------------------------ */

double
xcp_now(void)
{
	return (double)xos_now_ns() / 1e9;
}

void
xcp_progress_init(struct xcp_progress *p, bool on, bool tty, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->on = on;
	p->tty = tty;
	p->total = total;
	p->t0 = xcp_now();
	p->last = XCOPY_METHOD_OFFLOAD;
}

void
xcp_progress_line(const struct xcp_progress *p, double now, char *buf, size_t cap)
{
	static const char *const how[] = { "offloaded", "host", "zeroing" };
	char d[32], t[32], rate[32], eta[16];
	double secs = now - p->t0;
	double bps = secs > 0.0 ? (double)p->done / secs : 0.0;
	unsigned pct = p->total ? (unsigned)(p->done * 100 / p->total) : 100;

	xcp_fmt_bytes(d, sizeof(d), p->done);
	xcp_fmt_bytes(t, sizeof(t), p->total);
	xcp_fmt_bytes(rate, sizeof(rate), (uint64_t)bps);
	xcp_fmt_eta(eta, sizeof(eta), p->done >= p->total ? 0.0 : xcp_eta(p->total - p->done, bps));
	snprintf(buf, cap, "%s / %s %3u%% %s/s ETA %s %s", d, t, pct, rate, eta,
		 how[(unsigned)p->last < 3 ? (unsigned)p->last : 1]);
}

static void
draw(struct xcp_progress *p, double now)
{
	char line[160];

	xcp_progress_line(p, now, line, sizeof(line));
	if (p->tty) {
		/* in place: carriage return, the line, erase to its end (ECMA-48 EL) */
		fprintf(stderr, "\r%s\033[K", line);
		p->drawn = true;
	} else {
		fprintf(stderr, "%s\n", line);
	}
	fflush(stderr);
	p->shown = now;
	p->shown_done = p->done;
}

static void
progress_cb(const struct xcopy_progress *lp, void *arg)
{
	struct xcp_progress *p = arg;
	double now = xcp_now();

	p->done += lp->bytes;
	if (p->done > p->total) {
		p->done = p->total;
	}
	p->last = lp->method;
	if (lp->method == XCOPY_METHOD_OFFLOAD) {
		p->offloaded += lp->bytes;
	} else {
		p->host += lp->bytes;
	}
	/* a TTY is refreshed 5 times a second at most, a log once a second */
	if (now - p->shown >= (p->tty ? 0.2 : 1.0)) {
		draw(p, now);
	}
}

void
xcp_progress_install(struct xcp_progress *p)
{
	if (p->on) {
		xcopy_set_progress_ex(progress_cb, p);
	}
}

void
xcp_progress_done(struct xcp_progress *p)
{
	if (!p->on) {
		return;
	}
	xcopy_set_progress_ex(NULL, NULL);
	/* the final state, unless a log line already shows it */
	if (p->tty || p->shown_done != p->done || p->shown == 0.0) {
		draw(p, xcp_now());
	}
	if (p->tty) {
		fputc('\n', stderr);
		p->drawn = false;
	}
}

void
xcp_progress_clear(struct xcp_progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", stderr);
		p->drawn = false;
	}
}
