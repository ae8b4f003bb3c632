/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp internals shared by its files: formatting and the JSON writer
 * (xcp_fmt.c, pure, unit-tested), reports and progress (xcp_report.c), the
 * plan printer (xcp_plan.c).
 */
#ifndef XCP_H
#define XCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xcopy.h"

/* Exit statuses (documented in xcp.1). */
enum {
	XCP_EXIT_OK = 0,
	XCP_EXIT_USAGE = 1,
	XCP_EXIT_COPY = 2,
	XCP_EXIT_REFUSED = 3,
	XCP_EXIT_OPEN = 4,
};

/* --- formatting (xcp_fmt.c) ---------------------------------------------- */

/* "512 B", "1.5 KiB", "12.3 MiB", "1.50 GiB": binary units, 3 significant digits. */
void xcp_fmt_bytes(char *buf, size_t cap, uint64_t bytes);
/* Seconds as "0:05", "12:34", "1:02:03"; "--:--" when unknown (< 0 or absurd). */
void xcp_fmt_eta(char *buf, size_t cap, double seconds);
/* Seconds left at rate bytes/s for left bytes; < 0 when unknown (rate 0). */
double xcp_eta(uint64_t left, double rate);
/* name for messages: an iscsi:// URL's password replaced by "***". */
void xcp_redact(char *buf, size_t cap, const char *name);
/* Cause and what to do for a fallback reason; NULL when there is nothing to do. */
const char *xcp_reason_hint(enum xcopy_fallback_reason r);

/* A small streaming JSON writer: objects, arrays, strings, numbers. */
struct xcp_json {
	FILE *f;
	int depth;
	bool first[16];        /* no member written yet at this depth */
};
void xcp_json_start(struct xcp_json *j, FILE *f);
void xcp_json_obj(struct xcp_json *j, const char *key);   /* key NULL: in an array / top */
void xcp_json_arr(struct xcp_json *j, const char *key);
void xcp_json_end_obj(struct xcp_json *j);
void xcp_json_end_arr(struct xcp_json *j);
void xcp_json_str(struct xcp_json *j, const char *key, const char *v);   /* v NULL: null */
void xcp_json_u64(struct xcp_json *j, const char *key, uint64_t v);
void xcp_json_int(struct xcp_json *j, const char *key, long long v);
void xcp_json_dbl(struct xcp_json *j, const char *key, double v);
void xcp_json_bool(struct xcp_json *j, const char *key, bool v);
void xcp_json_finish(struct xcp_json *j);                 /* newline */

/* --- reports (xcp_report.c) ------------------------------------------------ */

struct xcp_tree;
struct xcp_result {
	const char *src, *dst;
	int exit_code;
	const char *error;     /* one-line cause of a failure, or NULL */
	double seconds;
	uint64_t total;        /* bytes the job was to copy */
	const struct xcp_tree *tree;   /* xcp -r: the tree's entries, or NULL */
};
void xcp_stats_text(FILE *f, const struct xcopy_stats *st);
void xcp_stats_json(FILE *f, const struct xcopy_stats *st, const struct xcp_result *r);
/*
 * One line per fallback reason with a cause and what to do; all: also the
 * reasons that only say the files are not on SCSI LUs (xcp -v).
 */
void xcp_fallback_notes(FILE *f, const struct xcopy_stats *st, bool all);

/* Progress on stderr: in place on a TTY, else one line per second. */
struct xcp_progress {
	bool on, tty;
	uint64_t total, done, offloaded, host;
	uint64_t shown_done;   /* done when the last line was drawn */
	enum xcopy_method last;
	double t0, shown;      /* start and last refresh (monotonic seconds) */
	bool drawn;            /* a line is on the terminal, not ended */
};
double xcp_now(void);
void xcp_progress_init(struct xcp_progress *p, bool on, bool tty, uint64_t total);
/* The line for the current state (no control characters). */
void xcp_progress_line(const struct xcp_progress *p, double now, char *buf, size_t cap);
void xcp_progress_done(struct xcp_progress *p);   /* final line, newline */
/* Clear an unended progress line before another message goes to stderr. */
void xcp_progress_clear(struct xcp_progress *p);
void xcp_progress_install(struct xcp_progress *p);

/* --- trees (tree.c): xcp -r ------------------------------------------------- */

/* Why a file was (partly) copied by the host: one per reason it had. */
struct xcp_tree_reason {
	enum xcopy_fallback_reason reason;
	uint64_t ranges, bytes;
};

/* One entry the copy met: every file, and any entry that failed. */
struct xcp_tree_entry {
	char *path;            /* relative to the copy's root ("." for the root) */
	char type;             /* 'f' file, 'd' directory, 'l' symlink, 's' special */
	uint64_t bytes;        /* file size */
	uint64_t offloaded, host, holes;  /* holes: left as holes, not copied */
	struct xcp_tree_reason *reasons;
	unsigned nreasons;
	char *error;           /* one line, or NULL */
	bool refused;          /* error is --require-offload's refusal */
};

struct xcp_tree {
	/* in: the library's flags (XCOPY_*), owner kept (root), messages */
	unsigned flags;
	bool keep_owner;
	FILE *err;             /* one line per failed entry; NULL: stderr */
	struct xcp_progress *prog;   /* NULL: none */
	/* out */
	struct xcopy_stats st; /* the sum of every file's */
	uint64_t files, dirs, symlinks, specials, failed;
	uint64_t total, holes; /* bytes of all files; of which left as holes */
	struct xcp_tree_entry *ent;
	size_t nent, cap;
	char error[512];       /* the run's one-line error, "" when none */
	/* internal: the destination root (never walked into), the entry's kind */
	uint64_t droot_dev, droot_ino;
	char kind;
	char path[4096];
};

/*
 * Copy SRC like cp -a: a directory recursively (into DST/basename(SRC) when
 * DST is a directory, else as DST), regular files through
 * xcopy_file_range() one by one (holes kept: only data ranges are copied),
 * symlinks as symlinks, special files by mknod; modes, times, owner
 * (keep_owner). Never follows a symlink below SRC or DST, so nothing is
 * written outside DST. An entry that fails is reported and skipped.
 * Returns the exit code: 0, XCP_EXIT_COPY (an entry failed),
 * XCP_EXIT_REFUSED (only --require-offload refusals), XCP_EXIT_OPEN (SRC or
 * DST unusable), XCP_EXIT_USAGE (DST inside SRC, directory onto a file).
 */
int xcp_tree_copy(struct xcp_tree *t, const char *src, const char *dst);
void xcp_tree_free(struct xcp_tree *t);
/* Bytes to copy under SRC (sizes of its regular files), for the progress line. */
uint64_t xcp_tree_size(const char *src);
/* --stats text: counts and one line per file (its reasons when the host copied). */
void xcp_tree_stats_text(FILE *f, const struct xcp_tree *t);
/* The "tree" member of --stats=json. */
void xcp_tree_json(struct xcp_json *j, const struct xcp_tree *t);
/* s for a terminal: control bytes and invalid UTF-8 as '?'. */
void xcp_safe_name(char *buf, size_t cap, const char *s);

/* --- plans (xcp_plan.c) ------------------------------------------------------ */

/*
 * Print libxcopy's plan of the copy (json: as one JSON object). 0; 1 when
 * some range would be copied by the host (what --require-offload refuses);
 * -errno. out a directory: no destination file yet.
 */
int xcp_plan_files(FILE *f, int in, uint64_t so, int out, uint64_t dof, uint64_t len,
		   unsigned flags, bool json);
int xcp_plan_devices(FILE *f, struct xcopy_dev *s, uint64_t slba, struct xcopy_dev *d,
		     uint64_t dlba, uint64_t n, unsigned flags, bool json);

#endif /* XCP_H */
