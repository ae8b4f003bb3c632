/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp: copy a file, a block range or an iSCSI LU range with SCSI EXTENDED
 * COPY offload (libxcopy), falling back to a host copy per range.
 *
 * Exit codes (xcp.1): 0 copied (or planned, --dry-run); 1 usage; 2 copy
 * failed; 3 offload required (--require-offload) but refused; 4 cannot open
 * source or destination.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xcp.h"

struct opts {
	const char *src, *dst;
	uint64_t src_lba, dst_lba, blocks;
	bool have_lba, have_blocks;
	uint64_t src_off, dst_off, length;
	bool have_off, have_len;
	unsigned flags;
	int progress;          /* -1 auto (stderr is a TTY), 0 off, 1 on */
	enum { STATS_NONE, STATS_TEXT, STATS_JSON } stats;
	bool dry_run, quiet, recursive;
	int verbose;
};

/* What the run did, for the messages, the JSON report and the exit code. */
struct run {
	const struct opts *o;
	struct xcopy_stats st;
	struct xcp_progress prog;
	char error[512];
	int exit_code;
	struct xcp_tree tree;  /* -r */
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: xcp [OPTIONS] SRC DST\n"
		"       xcp -r [OPTIONS] SRC DIR\n"
		"Copy with SCSI EXTENDED COPY offload, falling back per range.\n"
		"SRC/DST: regular files, block devices (/dev/sdX, /dev/sdX1), /dev/sgN,\n"
		"         or iscsi://host[:port]/target-iqn/lun; two LUs may be of different\n"
		"         targets (one EXTENDED COPY, to the target that reaches the other)\n"
		"  --src-lba N --dst-lba N --blocks N   device ranges (logical blocks)\n"
		"  --offset N | --src-offset N --dst-offset N --length N   file ranges (bytes)\n"
		"  -r, -R, --recursive copy a directory tree like cp -a (files offloaded one by\n"
		"                      one; directories, symlinks, modes, times, owner as root)\n"
		"  --require-offload   fail (exit 3) rather than copy on the host\n"
		"  --no-offload        host copy only\n"
		"  --method=auto|xcopy|odx   offload by EXTENDED COPY (xcopy), ROD tokens\n"
		"                      (odx), or whichever the devices offer (auto, default)\n"
		"  -n, --dry-run, --explain   print the plan (extents, segments, commands);\n"
		"                      write nothing (with --stats=json: as JSON)\n"
		"  --progress, --no-progress  progress on stderr (default: when it is a TTY)\n"
		"  --stats[=text|json] print statistics on stdout (json: for scripts)\n"
		"  -q, --quiet         no notes on why bytes were copied by the host\n"
		"  -j, --inflight N    EXTENDED COPY commands outstanding at once (1..16,\n"
		"                      capped by the target; default $XCOPY_INFLIGHT or 1)\n"
		"  -v                  more messages (repeat for debug)\n"
		"  -h, --help\n"
		"  -V, --version\n"
		"exit: 0 ok, 1 usage, 2 copy failed, 3 offload refused, 4 cannot open\n");
}

/* The one-line error of the run: on stderr now, in the JSON report later. */
static void __attribute__((format(printf, 3, 4)))
fail(struct run *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	r->exit_code = code;
	xcp_progress_clear(&r->prog);
	fprintf(stderr, "xcp: %s\n", r->error);
}

static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-') {
		return -1;
	}
	return 0;
}

static void
log_cb(enum xcopy_log_level lvl, const char *msg, void *arg)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };

	xcp_progress_clear(arg);
	fprintf(stderr, "xcp: %s: %s\n", names[lvl <= XCOPY_LOG_DEBUG ? lvl : 0], msg);
}

static bool
is_device(const char *p)
{
	struct stat st;

	if (strncmp(p, "iscsi://", 8) == 0) {
		return true;
	}
	return stat(p, &st) == 0 && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode));
}

/* What to do about an open failure. */
static const char *
open_hint(const char *what, int err)
{
	bool url = strncmp(what, "iscsi://", 8) == 0;

	switch (err) {
	case ENOENT: return url ? "no such target or LU at that portal" : NULL;
	case EACCES:
	case EPERM: return url ? "the target refused this initiator (ACL): set XCOPY_INITIATOR_IQN"
			       : "no permission: run as root or get access to the file or device node";
	case ECONNREFUSED:
	case EHOSTUNREACH:
	case ETIMEDOUT: return "no iSCSI portal answered: check host, port and the target";
	case ENODEV:
	case ENOTBLK: return "not a SCSI disk or partition (see xcp(1) for device-mapper volumes)";
	case EISDIR: return "a directory: copy trees with xcp -r";
	default: return NULL;
	}
}

static void
fail_open(struct run *r, const char *what, int err)
{
	const char *h = open_hint(what, err);
	char name[4096];

	xcp_redact(name, sizeof(name), what);
	fail(r, XCP_EXIT_OPEN, "cannot open %s: %s%s%s", name, strerror(err), h ? ": " : "",
	     h ? h : "");
}

/* The first reason a refused range was counted under (nothing copied), or XCOPY_FB_NONE. */
static enum xcopy_fallback_reason
refused_reason(const struct xcopy_stats *st)
{
	int i;

	for (i = 1; i < XCOPY_FB_REASON_COUNT; i++) {
		if (st->fallback_ranges[i] != 0 && st->fallback_bytes[i] == 0 &&
		    xcp_reason_hint((enum xcopy_fallback_reason)i) != NULL) {
			return (enum xcopy_fallback_reason)i;
		}
	}
	return XCOPY_FB_NONE;
}

/* A failed copy: the exit code and one line with the cause and what to do. */
static void
fail_copy(struct run *r, int rc)
{
	enum xcopy_fallback_reason why = refused_reason(&r->st);
	char because[320] = "";
	int e = -rc;

	if ((r->o->flags & XCOPY_REQUIRE_OFFLOAD) && (e == EOPNOTSUPP || e == EXDEV)) {
		if (why != XCOPY_FB_NONE) {
			snprintf(because, sizeof(because), " (%s: %s)", xcopy_fallback_reason_name(why),
				 xcp_reason_hint(why));
		}
		fail(r, XCP_EXIT_REFUSED, "offload refused (--require-offload): %s%s; "
		     "run xcp --explain for the ranges and reasons, or drop --require-offload",
		     e == EXDEV ? "the ranges are not reachable by one copy manager"
				: "the device or a range cannot be offloaded", because);
		return;
	}
	fail(r, XCP_EXIT_COPY, "copy failed: %s%s", strerror(e),
	     e == EINVAL ? ": ranges overlap on one file or LU, or leave the device" :
	     e == ENOSPC ? ": the destination is full" :
	     e == EIO ? ": I/O error (see dmesg and xcp -v)" : "");
}

/* The plan's verdict: 1 (some range by the host) fails --require-offload. */
static void
plan_result(struct run *r, int rc)
{
	if (rc < 0) {
		fail(r, XCP_EXIT_COPY, "cannot plan the copy: %s%s", strerror(-rc),
		     rc == -EOPNOTSUPP ? " (device-mapper volumes and files on them are not planned)"
					: "");
	} else if (rc == 1 && (r->o->flags & XCOPY_REQUIRE_OFFLOAD)) {
		fail(r, XCP_EXIT_REFUSED, "offload refused (--require-offload): the plan has ranges "
		     "the host would copy (see their reasons above)");
	}
}

static uint64_t
dev_blocks(const struct opts *o, struct xcopy_dev *s, struct xcopy_dev *d)
{
	const struct xcopy_caps *sc = xcopy_dev_caps(s), *dc = xcopy_dev_caps(d);
	uint64_t a, b;

	if (o->have_blocks) {
		return o->blocks;
	}
	a = o->src_lba < sc->part_blocks ? sc->part_blocks - o->src_lba : 0;
	b = o->dst_lba < dc->part_blocks ? dc->part_blocks - o->dst_lba : 0;
	return a < b ? a : b;
}

static void
copy_devices(struct run *r)
{
	const struct opts *o = r->o;
	struct xcopy_dev *s = NULL, *d = NULL;
	uint64_t n;
	int rc;

	rc = xcopy_dev_open(o->src, &s);
	if (rc != 0) {
		fail_open(r, o->src, -rc);
		return;
	}
	if (strcmp(o->src, o->dst) == 0) {
		d = s;
	} else if ((rc = xcopy_dev_open(o->dst, &d)) != 0) {
		fail_open(r, o->dst, -rc);
		xcopy_dev_close(s);
		return;
	}
	n = dev_blocks(o, s, d);
	if (o->dry_run) {
		if (o->stats != STATS_JSON) {
			printf("plan: %s -> %s, %" PRIu64 " blocks\n", o->src, o->dst, n);
		}
		plan_result(r, xcp_plan_devices(stdout, s, o->src_lba, d, o->dst_lba, n, o->flags,
						o->stats == STATS_JSON));
		rc = 0;
	} else {
		xcp_progress_init(&r->prog, r->prog.on, r->prog.tty, n * xcopy_dev_caps(s)->block_size);
		xcp_progress_install(&r->prog);
		rc = xcopy_dev_copy(s, o->src_lba, d, o->dst_lba, n, o->flags, &r->st);
	}
	if (rc < 0) {
		fail_copy(r, rc);
	}
	if (d != s) {
		xcopy_dev_close(d);
	}
	xcopy_dev_close(s);
}

static uint64_t
file_length(const struct opts *o, const struct stat *sst)
{
	if (o->have_len) {
		return o->length;
	}
	return (uint64_t)sst->st_size > o->src_off ? (uint64_t)sst->st_size - o->src_off : 0;
}

/* The copy loop: 1 GiB a call, so progress and errors come per call. */
static int
copy_fds(struct run *r, int in, int out, uint64_t left)
{
	int64_t si = (int64_t)r->o->src_off, di = (int64_t)r->o->dst_off;

	while (left > 0) {
		size_t chunk = left > (1ull << 30) ? (size_t)(1ull << 30) : (size_t)left;
		ssize_t n = xcopy_file_range(in, &si, out, &di, chunk, r->o->flags, &r->st);

		if (n < 0) {
			return (int)n;
		}
		if (n == 0) {
			break;
		}
		left -= (uint64_t)n;
	}
	return 0;
}

static void
dry_run_files(struct run *r, int in, uint64_t len)
{
	char dir[4096];
	const char *slash;
	int out;

	/* nothing is created or written: a missing destination is planned as empty,
	 * on the file system of the directory it would be created in */
	out = open(r->o->dst, O_RDONLY | O_CLOEXEC);
	if (out < 0 && errno == ENOENT) {
		slash = strrchr(r->o->dst, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - r->o->dst) + 1 : 1,
			 slash ? r->o->dst : ".");
		out = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (out < 0) {
		fail_open(r, r->o->dst, errno);
		return;
	}
	if (r->o->stats != STATS_JSON) {
		printf("plan: %s -> %s, %" PRIu64 " bytes\n", r->o->src, r->o->dst, len);
	}
	plan_result(r, xcp_plan_files(stdout, in, r->o->src_off, out, r->o->dst_off, len,
				      r->o->flags, r->o->stats == STATS_JSON));
	close(out);
}

/* The destination file: made when missing (*created), else opened as it is; *old: its stat. */
static int
open_dst_file(const char *path, mode_t mode, bool *created, struct stat *old)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST) {
		/* no O_TRUNC: an existing, written destination can be copied into in place */
		fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	if (fd >= 0 && fstat(fd, old) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * After a failed copy, the destination as it was: one this run made is
 * removed (if path still names it), an existing one gets its length back
 * (through fd, or path when fd is closed). Its overwritten bytes stay.
 */
static void
undo_dst(struct run *r, const char *path, int fd, bool created, const struct stat *old)
{
	struct stat now;
	bool same = lstat(path, &now) == 0 && now.st_dev == old->st_dev && now.st_ino == old->st_ino;
	int rc = 0;

	if (created) {
		rc = same ? unlink(path) : 0;
	} else if (fd >= 0) {
		rc = ftruncate(fd, old->st_size);
	} else if (same) {
		rc = truncate(path, old->st_size);
	}
	if (rc != 0) {
		xcp_progress_clear(&r->prog);
		fprintf(stderr, "xcp: %s: cannot %s after the failure: %s\n", path,
			created ? "remove the copy" : "put back the old length", strerror(errno));
	}
}

static void
copy_files(struct run *r)
{
	const struct opts *o = r->o;
	struct stat sst, old;
	bool created;
	int in, out, rc;

	in = open(o->src, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &sst) != 0) {
		fail_open(r, o->src, errno);
		return;
	}
	if (S_ISDIR(sst.st_mode)) {
		fail_open(r, o->src, EISDIR);
		close(in);
		return;
	}
	if (o->dry_run) {
		dry_run_files(r, in, file_length(o, &sst));
		close(in);
		return;
	}
	out = open_dst_file(o->dst, sst.st_mode & 0777, &created, &old);
	if (out < 0) {
		fail_open(r, o->dst, errno);
		close(in);
		return;
	}
	xcp_progress_init(&r->prog, r->prog.on, r->prog.tty, file_length(o, &sst));
	xcp_progress_install(&r->prog);
	rc = copy_fds(r, in, out, file_length(o, &sst));
	if (rc < 0) {
		fail_copy(r, rc);
	} else if (!o->have_off && !o->have_len && ftruncate(out, sst.st_size) != 0) {
		/* whole-file copy: the destination ends where the source does */
		fail(r, XCP_EXIT_COPY, "cannot set the length of %s: %s", o->dst, strerror(errno));
	}
	if (r->exit_code != XCP_EXIT_OK) {
		undo_dst(r, o->dst, out, created, &old);
	}
	if (close(out) != 0 && r->exit_code == XCP_EXIT_OK) {
		fail(r, XCP_EXIT_COPY, "%s: %s", o->dst, strerror(errno));
		undo_dst(r, o->dst, -1, created, &old);
	}
	close(in);
}

enum {
	OPT_SRC_LBA = 256, OPT_DST_LBA, OPT_BLOCKS, OPT_OFFSET, OPT_SRC_OFF, OPT_DST_OFF,
	OPT_LENGTH, OPT_REQUIRE, OPT_NO_OFFLOAD, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_STATS,
	OPT_METHOD,
};
static const struct option g_lopts[] = {
	{ "src-lba", required_argument, NULL, OPT_SRC_LBA },
	{ "dst-lba", required_argument, NULL, OPT_DST_LBA },
	{ "blocks", required_argument, NULL, OPT_BLOCKS },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "src-offset", required_argument, NULL, OPT_SRC_OFF },
	{ "dst-offset", required_argument, NULL, OPT_DST_OFF },
	{ "length", required_argument, NULL, OPT_LENGTH },
	{ "require-offload", no_argument, NULL, OPT_REQUIRE },
	{ "no-offload", no_argument, NULL, OPT_NO_OFFLOAD },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "stats", optional_argument, NULL, OPT_STATS },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "explain", no_argument, NULL, 'n' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "inflight", required_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "recursive", no_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* --method: the library's method flags (the per-method statistics always). */
static int
parse_method(const char *arg, unsigned *flags)
{
	*flags &= ~(unsigned)(XCOPY_USE_LID1 | XCOPY_USE_TOKENS);
	if (strcmp(arg, "xcopy") == 0) {
		*flags |= XCOPY_USE_LID1;
	} else if (strcmp(arg, "odx") == 0 || strcmp(arg, "token") == 0) {
		*flags |= XCOPY_USE_TOKENS;
	} else if (strcmp(arg, "auto") != 0) {
		fprintf(stderr, "xcp: --method wants auto, xcopy or odx, not '%s'\n", arg);
		return -1;
	}
	return 0;
}

/* getopt_long into o; returns -1 to go on, else the exit code. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	uint64_t v = 0;
	int c;

	while ((c = getopt_long(argc, argv, "nqvhVrRj:", g_lopts, NULL)) != -1) {
		if (c >= OPT_SRC_LBA && c <= OPT_LENGTH && parse_u64(optarg, &v) != 0) {
			fprintf(stderr, "xcp: bad number '%s'\n", optarg);
			return XCP_EXIT_USAGE;
		}
		switch (c) {
		case OPT_SRC_LBA: o->src_lba = v; o->have_lba = true; break;
		case OPT_DST_LBA: o->dst_lba = v; o->have_lba = true; break;
		case OPT_BLOCKS: o->blocks = v; o->have_blocks = true; break;
		case OPT_OFFSET: o->src_off = o->dst_off = v; o->have_off = true; break;
		case OPT_SRC_OFF: o->src_off = v; o->have_off = true; break;
		case OPT_DST_OFF: o->dst_off = v; o->have_off = true; break;
		case OPT_LENGTH: o->length = v; o->have_len = true; break;
		case OPT_REQUIRE: o->flags |= XCOPY_REQUIRE_OFFLOAD; break;
		case OPT_NO_OFFLOAD: o->flags |= XCOPY_NO_OFFLOAD; break;
		case OPT_PROGRESS: o->progress = 1; break;
		case OPT_NO_PROGRESS: o->progress = 0; break;
		case OPT_STATS:
			if (optarg == NULL || strcmp(optarg, "text") == 0) {
				o->stats = STATS_TEXT;
			} else if (strcmp(optarg, "json") == 0) {
				o->stats = STATS_JSON;
			} else {
				fprintf(stderr, "xcp: --stats wants text or json, not '%s'\n", optarg);
				return XCP_EXIT_USAGE;
			}
			break;
		case OPT_METHOD:
			if (parse_method(optarg, &o->flags) != 0) {
				return XCP_EXIT_USAGE;
			}
			break;
		case 'j':
			if (parse_u64(optarg, &v) != 0 || v < 1 || v > 16) {
				fprintf(stderr, "xcp: --inflight takes 1..16, not '%s'\n", optarg);
				return XCP_EXIT_USAGE;
			}
			xcopy_set_inflight((unsigned)v);
			break;
		case 'n': o->dry_run = true; break;
		case 'r':
		case 'R': o->recursive = true; break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose++; break;
		case 'h': usage(stdout); return XCP_EXIT_OK;
		case 'V': printf("xcp %s\n", XCOPY_VERSION); return XCP_EXIT_OK;
		default: usage(stderr); return XCP_EXIT_USAGE;
		}
	}
	return -1;
}

/* Options that do not go together or do not fit SRC/DST: message, or NULL. */
static const char *
check_args(const struct opts *o, bool dev)
{
	if ((o->flags & XCOPY_REQUIRE_OFFLOAD) && (o->flags & XCOPY_NO_OFFLOAD)) {
		return "--require-offload and --no-offload exclude each other";
	}
	if (o->recursive) {
		if (dev || is_device(o->dst)) {
			return "-r copies files and directory trees, not devices or iSCSI LUs";
		}
		if (o->have_off || o->have_len || o->have_lba || o->have_blocks) {
			return "-r copies whole files: no --*offset/--length/--*-lba/--blocks";
		}
		if (o->dry_run) {
			return "-r has no --dry-run/--explain: explain one file of the tree at a time";
		}
		return NULL;
	}
	if (dev != is_device(o->dst)) {
		return "SRC and DST must both be files or both be devices";
	}
	if ((dev && (o->have_off || o->have_len)) || (!dev && (o->have_lba || o->have_blocks))) {
		return "--*-lba/--blocks are for devices, --*offset/--length for files";
	}
	return NULL;
}

static void
stats_json(const struct run *r, double secs)
{
	char src[4096], dst[4096];
	struct xcp_result res = { src, dst, r->exit_code, r->error[0] ? r->error : NULL, secs,
				  r->prog.total, r->o->recursive ? &r->tree : NULL };

	xcp_redact(src, sizeof(src), r->o->src);
	xcp_redact(dst, sizeof(dst), r->o->dst);
	xcp_stats_json(stdout, &r->st, &res);
}

/* Like cp: a DST that is a directory receives SRC's base name. */
static const char *
dst_path(const char *src, const char *dst, char *buf, size_t cap)
{
	const char *base = strrchr(src, '/');
	struct stat st;
	int n;

	if (strncmp(dst, "iscsi://", 8) == 0 || stat(dst, &st) != 0 || !S_ISDIR(st.st_mode)) {
		return dst;
	}
	base = base ? base + 1 : src;
	n = snprintf(buf, cap, "%s%s%s", dst, dst[strlen(dst) - 1] == '/' ? "" : "/", base);
	return n > 0 && (size_t)n < cap && base[0] != '\0' ? buf : dst;
}

/* xcp -r: the tree's statistics become the run's; its error the run's. */
static void
copy_tree(struct run *r)
{
	struct xcp_tree *t = &r->tree;

	t->flags = r->o->flags;
	t->keep_owner = geteuid() == 0;
	t->prog = &r->prog;
	xcp_progress_init(&r->prog, r->prog.on, r->prog.tty, xcp_tree_size(r->o->src));
	xcp_progress_install(&r->prog);
	r->exit_code = xcp_tree_copy(t, r->o->src, r->o->dst);
	r->st = t->st;
	r->prog.total = t->total;
	snprintf(r->error, sizeof(r->error), "%s", t->error);
}

int
main(int argc, char **argv)
{
	char dst_buf[4096];
	struct opts o;
	struct run r;
	const char *bad;
	double t0;
	bool dev;
	int ex;

	memset(&o, 0, sizeof(o));
	o.flags = XCOPY_STATS_METHODS;
	o.progress = -1;
	ex = parse_args(argc, argv, &o);
	if (ex >= 0) {
		return ex;
	}
	if (argc - optind != 2) {
		usage(stderr);
		return XCP_EXIT_USAGE;
	}
	o.src = argv[optind];
	/* -r: the tree copy decides (and opens) the destination itself */
	o.dst = o.recursive ? argv[optind + 1] : dst_path(o.src, argv[optind + 1], dst_buf,
							    sizeof(dst_buf));
	dev = is_device(o.src);
	bad = check_args(&o, dev);
	if (bad != NULL) {
		fprintf(stderr, "xcp: %s\n", bad);
		return XCP_EXIT_USAGE;
	}
	memset(&r, 0, sizeof(r));
	r.o = &o;
	xcp_progress_init(&r.prog, !o.dry_run && (o.progress == 1 || (o.progress < 0 && isatty(2))),
			  isatty(2), 0);
	xcopy_set_log(log_cb, o.verbose >= 2 ? XCOPY_LOG_DEBUG
			      : o.verbose == 1 ? XCOPY_LOG_INFO : XCOPY_LOG_WARN, &r.prog);
	t0 = xcp_now();
	if (o.recursive) {
		copy_tree(&r);
	} else if (dev) {
		copy_devices(&r);
	} else {
		copy_files(&r);
	}
	xcopy_cache_flush();
	if (r.exit_code == XCP_EXIT_OK) {
		xcp_progress_done(&r.prog);
	}
	xcp_progress_clear(&r.prog);
	if (!o.quiet && !o.dry_run && !(o.flags & XCOPY_NO_OFFLOAD)) {
		xcp_fallback_notes(stderr, &r.st, o.verbose > 0);
	}
	if (o.stats == STATS_TEXT && !o.dry_run) {
		xcp_stats_text(stdout, &r.st);
		if (o.recursive) {
			xcp_tree_stats_text(stdout, &r.tree);
		}
	} else if (o.stats == STATS_JSON && !o.dry_run) {
		stats_json(&r, xcp_now() - t0);
	}
	xcp_tree_free(&r.tree);
	return r.exit_code;
}
