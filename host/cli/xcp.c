/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp: copy a file, a block range or an iSCSI LU range with SCSI EXTENDED
 * COPY offload (libxcopy), falling back to a host copy per range.
 *
 * Exit codes: 0 copied; 1 usage; 2 copy failed; 3 offload required
 * (--require-offload) but refused; 4 cannot open source or destination.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xcopy.h"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_COPY = 2,
	EXIT_REFUSED = 3,
	EXIT_OPEN = 4,
};

struct opts {
	const char *src, *dst;
	uint64_t src_lba, dst_lba, blocks;
	bool have_lba, have_blocks;
	uint64_t src_off, dst_off, length;
	bool have_off, have_len;
	unsigned flags;
	bool progress, stats;
	int verbose;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: xcp [OPTIONS] SRC DST\n"
		"Copy with SCSI EXTENDED COPY offload, falling back per range.\n"
		"SRC/DST: regular files, block devices (/dev/sdX, /dev/sdX1), /dev/sgN,\n"
		"         or iscsi://host[:port]/target-iqn/lun\n"
		"  --src-lba N --dst-lba N --blocks N   device ranges (logical blocks)\n"
		"  --offset N | --src-offset N --dst-offset N --length N   file ranges (bytes)\n"
		"  --require-offload   fail (exit 3) rather than copy on the host\n"
		"  --no-offload        host copy only\n"
		"  --progress          progress on stderr\n"
		"  --stats             print statistics\n"
		"  -j, --inflight N    EXTENDED COPY commands outstanding at once (1..16,\n"
		"                      capped by the target; default $XCOPY_INFLIGHT or 1)\n"
		"  -v                  more messages (repeat for debug)\n"
		"  -h, --help\n"
		"  -V, --version\n"
		"exit: 0 ok, 1 usage, 2 copy failed, 3 offload refused, 4 cannot open\n");
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

	fprintf(stderr, "xcp: %s: %s\n", names[lvl <= XCOPY_LOG_DEBUG ? lvl : 0], msg);
}

static void
progress_cb(uint64_t done, uint64_t total, void *arg)
{
	fprintf(stderr, "\r%" PRIu64 " / %" PRIu64 " MiB", done >> 20, total >> 20);
	if (done >= total) {
		fputc('\n', stderr);
	}
}

static void
print_stats(const struct xcopy_stats *st)
{
	uint64_t tot = st->bytes_offloaded + st->bytes_fallback;
	int r;

	printf("bytes offloaded:   %" PRIu64 "\n", st->bytes_offloaded);
	printf("bytes by fallback: %" PRIu64 "\n", st->bytes_fallback);
	printf("bytes zeroed:      %" PRIu64 "\n", st->bytes_zeroed);
	printf("offloaded:         %.2f %%\n", tot ? 100.0 * (double)st->bytes_offloaded / (double)tot
						   : 0.0);
	printf("xcopy commands:    %" PRIu64 " (%" PRIu64 " failed, %" PRIu64 " segments)\n",
	       st->xcopy_cmds, st->xcopy_failed, st->segments);
	printf("other commands:    %" PRIu64 "\n", st->other_cmds);
	for (r = 1; r < XCOPY_FB_REASON_COUNT; r++) {
		if (st->fallback_ranges[r] != 0) {
			printf("fallback %-24s %" PRIu64 " ranges, %" PRIu64 " bytes\n",
			       xcopy_fallback_reason_name((enum xcopy_fallback_reason)r),
			       st->fallback_ranges[r], st->fallback_bytes[r]);
		}
	}
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

static int
exit_for(int rc, unsigned flags)
{
	if (rc >= 0) {
		return EXIT_OK;
	}
	if ((flags & XCOPY_REQUIRE_OFFLOAD) && (rc == -EOPNOTSUPP || rc == -EXDEV)) {
		return EXIT_REFUSED;
	}
	return EXIT_COPY;
}

static int
copy_devices(const struct opts *o, struct xcopy_stats *st)
{
	struct xcopy_dev *s = NULL, *d = NULL;
	uint64_t n;
	int rc, ex;

	rc = xcopy_dev_open(o->src, &s);
	if (rc != 0) {
		fprintf(stderr, "xcp: %s: %s\n", o->src, strerror(-rc));
		return EXIT_OPEN;
	}
	if (strcmp(o->src, o->dst) == 0) {
		d = s;
	} else {
		rc = xcopy_dev_open(o->dst, &d);
		if (rc != 0) {
			fprintf(stderr, "xcp: %s: %s\n", o->dst, strerror(-rc));
			xcopy_dev_close(s);
			return EXIT_OPEN;
		}
	}
	if (o->have_blocks) {
		n = o->blocks;
	} else {
		const struct xcopy_caps *sc = xcopy_dev_caps(s), *dc = xcopy_dev_caps(d);
		uint64_t a = o->src_lba < sc->part_blocks ? sc->part_blocks - o->src_lba : 0;
		uint64_t b = o->dst_lba < dc->part_blocks ? dc->part_blocks - o->dst_lba : 0;
		n = a < b ? a : b;
	}
	rc = xcopy_dev_copy(s, o->src_lba, d, o->dst_lba, n, o->flags, st);
	ex = exit_for(rc, o->flags);
	if (rc < 0) {
		fprintf(stderr, "xcp: copy failed: %s\n", strerror(-rc));
	}
	if (d != s) {
		xcopy_dev_close(d);
	}
	xcopy_dev_close(s);
	return ex;
}

static int
copy_files(const struct opts *o, struct xcopy_stats *st)
{
	struct stat sst;
	loff_t si = (loff_t)o->src_off, di = (loff_t)o->dst_off;
	uint64_t left;
	int in, out, ex = EXIT_OK;
	ssize_t n;

	in = open(o->src, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &sst) != 0) {
		fprintf(stderr, "xcp: %s: %s\n", o->src, strerror(errno));
		return EXIT_OPEN;
	}
	/* no O_TRUNC: an existing, written destination can be copied into in place */
	out = open(o->dst, O_WRONLY | O_CREAT | O_CLOEXEC, sst.st_mode & 0777);
	if (out < 0) {
		fprintf(stderr, "xcp: %s: %s\n", o->dst, strerror(errno));
		close(in);
		return EXIT_OPEN;
	}
	left = o->have_len ? o->length
			   : ((uint64_t)sst.st_size > o->src_off ? (uint64_t)sst.st_size - o->src_off : 0);
	while (left > 0) {
		size_t chunk = left > (1ull << 30) ? (size_t)(1ull << 30) : (size_t)left;

		n = xcopy_file_range(in, &si, out, &di, chunk, o->flags, st);
		if (n < 0) {
			fprintf(stderr, "xcp: copy failed: %s\n", strerror((int)-n));
			ex = exit_for((int)n, o->flags);
			break;
		}
		if (n == 0) {
			break;
		}
		left -= (uint64_t)n;
	}
	/* whole-file copy: the destination ends where the source does */
	if (ex == EXIT_OK && !o->have_off && !o->have_len && ftruncate(out, sst.st_size) != 0) {
		fprintf(stderr, "xcp: %s: %s\n", o->dst, strerror(errno));
		ex = EXIT_COPY;
	}
	if (close(out) != 0 && ex == EXIT_OK) {
		ex = EXIT_COPY;
	}
	close(in);
	return ex;
}

int
main(int argc, char **argv)
{
	enum {
		O_SRC_LBA = 256, O_DST_LBA, O_BLOCKS, O_OFFSET, O_SRC_OFF, O_DST_OFF, O_LENGTH,
		O_REQUIRE, O_NO_OFFLOAD, O_PROGRESS, O_STATS,
	};
	unsigned long inflight;
	char *end;
	static const struct option lopts[] = {
		{ "src-lba", required_argument, NULL, O_SRC_LBA },
		{ "dst-lba", required_argument, NULL, O_DST_LBA },
		{ "blocks", required_argument, NULL, O_BLOCKS },
		{ "offset", required_argument, NULL, O_OFFSET },
		{ "src-offset", required_argument, NULL, O_SRC_OFF },
		{ "dst-offset", required_argument, NULL, O_DST_OFF },
		{ "length", required_argument, NULL, O_LENGTH },
		{ "require-offload", no_argument, NULL, O_REQUIRE },
		{ "no-offload", no_argument, NULL, O_NO_OFFLOAD },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "stats", no_argument, NULL, O_STATS },
		{ "inflight", required_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct xcopy_stats st;
	struct opts o;
	uint64_t v = 0;
	bool dev_src, dev_dst;
	int c, ex;

	memset(&o, 0, sizeof(o));
	memset(&st, 0, sizeof(st));
	while ((c = getopt_long(argc, argv, "vhVj:", lopts, NULL)) != -1) {
		if (c >= O_SRC_LBA && c <= O_LENGTH) {
			if (parse_u64(optarg, &v) != 0) {
				fprintf(stderr, "xcp: bad number '%s'\n", optarg);
				return EXIT_USAGE;
			}
		}
		switch (c) {
		case O_SRC_LBA: o.src_lba = v; o.have_lba = true; break;
		case O_DST_LBA: o.dst_lba = v; o.have_lba = true; break;
		case O_BLOCKS: o.blocks = v; o.have_blocks = true; break;
		case O_OFFSET: o.src_off = o.dst_off = v; o.have_off = true; break;
		case O_SRC_OFF: o.src_off = v; o.have_off = true; break;
		case O_DST_OFF: o.dst_off = v; o.have_off = true; break;
		case O_LENGTH: o.length = v; o.have_len = true; break;
		case O_REQUIRE: o.flags |= XCOPY_REQUIRE_OFFLOAD; break;
		case O_NO_OFFLOAD: o.flags |= XCOPY_NO_OFFLOAD; break;
		case O_PROGRESS: o.progress = true; break;
		case O_STATS: o.stats = true; break;
		case 'j':
			errno = 0;
			inflight = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || inflight < 1 || inflight > 16) {
				fprintf(stderr, "xcp: --inflight takes 1..16, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			xcopy_set_inflight((unsigned)inflight);
			break;
		case 'v': o.verbose++; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("xcp %s\n", XCOPY_VERSION); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((o.flags & XCOPY_REQUIRE_OFFLOAD) && (o.flags & XCOPY_NO_OFFLOAD)) {
		fprintf(stderr, "xcp: --require-offload and --no-offload exclude each other\n");
		return EXIT_USAGE;
	}
	o.src = argv[optind];
	o.dst = argv[optind + 1];
	xcopy_set_log(log_cb, o.verbose >= 2 ? XCOPY_LOG_DEBUG
			      : o.verbose == 1 ? XCOPY_LOG_INFO : XCOPY_LOG_WARN, NULL);
	if (o.progress) {
		xcopy_set_progress(progress_cb, NULL);
	}
	dev_src = is_device(o.src);
	dev_dst = is_device(o.dst);
	if (dev_src != dev_dst) {
		fprintf(stderr, "xcp: SRC and DST must both be files or both be devices\n");
		return EXIT_USAGE;
	}
	if ((dev_src && (o.have_off || o.have_len)) || (!dev_src && (o.have_lba || o.have_blocks))) {
		fprintf(stderr, "xcp: --*-lba/--blocks are for devices, --*offset/--length for files\n");
		return EXIT_USAGE;
	}
	ex = dev_src ? copy_devices(&o, &st) : copy_files(&o, &st);
	xcopy_cache_flush();
	if (o.stats) {
		print_stats(&st);
	}
	return ex;
}
