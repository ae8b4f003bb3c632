/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcbench: the small tools `make bench` needs inside the lab guest, where
 * every exec costs ~0.1 s under TCG and shell loops are too slow.
 *
 *   xcbench fill FILE OFFSET LEN SEED     pseudo-random bytes (xorshift64*)
 *   xcbench frag FILE N                   a file of N separate 4 KiB extents
 *   xcbench probe DEV SPAN INTERVAL_MS STOPFILE MAXSEC OUT [READERS]
 *                                         open-loop O_DIRECT 4 KiB reads (xcbench_probe.c)
 *   xcbench pct OUT T0 T1 [svc]           p50/p99/max of samples due in [T0, T1)
 *   xcbench verify F1 OFF1 F2 OFF2 LEN    compare 1 MiB of every 16, and the last
 *   xcbench plan DEV SRC DST              libxcopy's planning time and counts
 *   xcbench copy SRC SLBA DST DLBA N [no-offload]
 *                                         xcopy_dev_copy, timed without discovery
 *   xcbench lid4|rcs4|abort|cfr ...       raw LID4 commands, copy_file_range (xcbench_tpc.c)
 *   xcbench sparse|sparsecmp ...          N extents spread over a span (xcbench_tpc.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/fiemap.h>
#include <linux/fs.h>

#include "file/xch_file.h"

enum {
	CHUNK = 1 << 20,
	FRAG_BS = 4096,
	MAX_SAMPLES = 1 << 20,
};

static int
usage(void)
{
	fprintf(stderr,
		"usage: xcbench fill FILE OFFSET LEN SEED\n"
		"       xcbench frag FILE N\n"
		"       xcbench probe DEV SPAN INTERVAL_MS STOPFILE MAXSEC OUT [READERS]\n"
		"       xcbench pct OUT T0 T1 [svc]\n"
		"       xcbench verify F1 OFF1 F2 OFF2 LEN\n"
		"       xcbench plan DEV SRC DST\n"
		"       xcbench copy SRC SLBA DST DLBA N [no-offload]\n"
		"       xcbench lid4|lid1 DEV ID SRC_LBA DST_LBA BLOCKS\n"
		"       xcbench rcs4 DEV ID\n"
		"       xcbench abort DEV ID\n"
		"       xcbench cfr F1 OFF1 F2 OFF2 LEN [CHUNK]\n"
		"       xcbench sparse FILE SPAN N LEN\n"
		"       xcbench sparsecmp F1 OFF1 F2 OFF2 SPAN N LEN\n");
	return 1;
}

static uint64_t
num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s) {
		fprintf(stderr, "xcbench: bad number '%s'\n", s);
		exit(1);
	}
	switch (*end) {
	case 'k': case 'K': v <<= 10; break;
	case 'm': case 'M': v <<= 20; break;
	case 'g': case 'G': v <<= 30; break;
	default: break;
	}
	return v;
}

static double
now_rt(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t
xs64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Each MiB is seeded by (seed, MiB index): any range can be regenerated. */
static void
fill_chunk(uint64_t *buf, uint64_t seed, uint64_t idx)
{
	uint64_t s = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (idx + 1) * 0xBF58476D1CE4E5B9ULL;
	size_t i;

	if (s == 0) {
		s = 1;
	}
	for (i = 0; i < CHUNK / sizeof(*buf); i++) {
		buf[i] = xs64(&s);
	}
}

static int
cmd_fill(int argc, char **argv)
{
	uint64_t off, len, seed, done = 0;
	uint64_t *buf;
	int fd;

	if (argc != 6) {
		return usage();
	}
	off = num(argv[3]);
	len = num(argv[4]);
	seed = num(argv[5]);
	fd = open(argv[2], O_WRONLY | O_CREAT, 0644);
	buf = malloc(CHUNK);
	if (fd < 0 || buf == NULL) {
		perror(argv[2]);
		return 1;
	}
	while (done < len) {
		size_t n = len - done < CHUNK ? (size_t)(len - done) : CHUNK;

		fill_chunk(buf, seed, done / CHUNK);
		if (pwrite(fd, buf, n, (off_t)(off + done)) != (ssize_t)n) {
			perror("pwrite");
			return 1;
		}
		done += n;
	}
	if (fsync(fd) != 0) {
		perror("fsync");
		return 1;
	}
	free(buf);
	close(fd);
	return 0;
}

/* Extents of fd as FIEMAP reports them (merged by the file system). */
static long
count_extents(int fd)
{
	struct xch_fext *e = NULL;
	struct stat st;
	size_t n = 0;
	int rc;

	if (fstat(fd, &st) != 0) {
		return -errno;
	}
	rc = xch_fiemap(fd, 0, (uint64_t)st.st_size, &e, &n);
	free(e);
	return rc != 0 ? rc : (long)n;
}

/*
 * N extents: the file and a spacer file get one 4 KiB fallocate each in
 * turn, so the allocator interleaves them on disk and none of the file's
 * blocks is next to another. Then the file is written (unwritten extents
 * become written ones without moving) and the spacer removed.
 */
static int
cmd_frag(int argc, char **argv)
{
	char spacer[4096];
	uint64_t n, i;
	uint64_t *buf;
	int fd, sfd;
	long ext;

	if (argc != 4) {
		return usage();
	}
	n = num(argv[3]);
	snprintf(spacer, sizeof(spacer), "%s.spacer", argv[2]);
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	sfd = open(spacer, O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = malloc(CHUNK);
	if (fd < 0 || sfd < 0 || buf == NULL) {
		perror("open");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (fallocate(fd, 0, (off_t)(i * FRAG_BS), FRAG_BS) != 0 ||
		    fallocate(sfd, 0, (off_t)(i * FRAG_BS), FRAG_BS) != 0) {
			perror("fallocate");
			return 1;
		}
	}
	for (i = 0; i < n * FRAG_BS; i += CHUNK) {
		size_t len = n * FRAG_BS - i < CHUNK ? (size_t)(n * FRAG_BS - i) : CHUNK;

		fill_chunk(buf, 7, i / CHUNK);
		if (pwrite(fd, buf, len, (off_t)i) != (ssize_t)len) {
			perror("pwrite");
			return 1;
		}
	}
	if (fsync(fd) != 0) {
		perror("fsync");
		return 1;
	}
	close(sfd);
	unlink(spacer);
	ext = count_extents(fd);
	if (ext < 0) {
		fprintf(stderr, "xcbench: FIEMAP: %s\n", strerror((int)-ext));
		return 1;
	}
	printf("%ld\n", ext);
	free(buf);
	close(fd);
	return 0;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of a sorted array */
static double
pct(const double *v, size_t n, double p)
{
	size_t r = (size_t)((p / 100.0) * (double)n + 0.999999);

	if (r == 0) {
		r = 1;
	}
	return v[r > n ? n - 1 : r - 1];
}

static int
cmd_pct(int argc, char **argv)
{
	double t0, t1, s, l, svc, *v;
	char line[256];
	bool want_svc = argc == 6 && strcmp(argv[5], "svc") == 0;
	size_t n = 0;
	int k;
	FILE *f;

	if (argc != 5 && !want_svc) {
		return usage();
	}
	t0 = strtod(argv[3], NULL);
	t1 = strtod(argv[4], NULL);
	f = fopen(argv[2], "r");
	v = malloc(MAX_SAMPLES * sizeof(*v));
	if (f == NULL || v == NULL) {
		perror(argv[2]);
		return 1;
	}
	/* "due latency_us [service_us]" (xcbench_probe.c) */
	while (n < MAX_SAMPLES && fgets(line, sizeof(line), f) != NULL) {
		k = sscanf(line, "%lf %lf %lf", &s, &l, &svc);
		if (k < 2 || (want_svc && k < 3) || s < t0 || s >= t1) {
			continue;
		}
		v[n++] = (want_svc ? svc : l) / 1000.0;
	}
	fclose(f);
	if (n == 0) {
		printf("0 0 0 0\n");
		free(v);
		return 0;
	}
	qsort(v, n, sizeof(*v), cmp_dbl);
	/* samples p50_ms p99_ms max_ms */
	printf("%zu %.2f %.2f %.2f\n", n, pct(v, n, 50), pct(v, n, 99), v[n - 1]);
	free(v);
	return 0;
}

static int
cmd_verify(int argc, char **argv)
{
	uint64_t o1, o2, len, pos;
	char *a, *b;
	int f1, f2;

	if (argc != 7) {
		return usage();
	}
	o1 = num(argv[3]);
	o2 = num(argv[5]);
	len = num(argv[6]);
	f1 = open(argv[2], O_RDONLY);
	f2 = open(argv[4], O_RDONLY);
	a = malloc(CHUNK);
	b = malloc(CHUNK);
	if (f1 < 0 || f2 < 0 || a == NULL || b == NULL) {
		perror("verify");
		return 1;
	}
	for (pos = 0; pos < len; pos += 16 * (uint64_t)CHUNK) {
		uint64_t at = pos, i;

		for (i = 0; i < 2; i++) {
			size_t n = len - at < CHUNK ? (size_t)(len - at) : CHUNK;

			if (pread(f1, a, n, (off_t)(o1 + at)) != (ssize_t)n ||
			    pread(f2, b, n, (off_t)(o2 + at)) != (ssize_t)n || memcmp(a, b, n) != 0) {
				printf("differ at +%" PRIu64 "\n", at);
				return 2;
			}
			/* the last MiB of the range too */
			at = len > CHUNK ? len - CHUNK : 0;
		}
	}
	free(a);
	free(b);
	close(f1);
	close(f2);
	return 0;
}

/*
 * What libxcopy does before its first EXTENDED COPY for a file copy: FIEMAP
 * of source and destination, pieces, pairs, plan, under the device's limits
 * (discovery is not counted). Prints one line of key=value.
 */
static int
cmd_plan(int argc, char **argv)
{
	struct xch_fext *se = NULL, *de = NULL;
	struct xch_piece *pv = NULL;
	struct xch_pair *pairs = NULL;
	struct xch_plan_limits lim;
	struct xch_plan plan;
	struct xcopy_dev *dev = NULL;
	size_t ns, nd, np, npairs = 0, i;
	struct stat st;
	double t0, t1;
	uint32_t bs;
	int fs, fdd, rc;

	if (argc != 5) {
		return usage();
	}
	rc = xcopy_dev_open(argv[2], &dev);
	fs = open(argv[3], O_RDONLY);
	fdd = open(argv[4], O_RDONLY);
	if (rc != 0 || fs < 0 || fdd < 0 || fstat(fs, &st) != 0) {
		fprintf(stderr, "xcbench plan: cannot open %s / %s / %s\n", argv[2], argv[3],
			argv[4]);
		return 1;
	}
	bs = xcopy_dev_caps(dev)->block_size;
	t0 = now_rt();
	rc = xch_fiemap(fs, 0, (uint64_t)st.st_size, &se, &ns);
	if (rc == 0) {
		rc = xch_fiemap(fdd, 0, (uint64_t)st.st_size, &de, &nd);
	}
	if (rc == 0) {
		rc = xch_map_pieces(se, ns, de, nd, 0, 0, (uint64_t)st.st_size, bs, &pv, &np);
	}
	if (rc == 0) {
		pairs = calloc(np ? np : 1, sizeof(*pairs));
		rc = pairs == NULL ? -ENOMEM : 0;
	}
	for (i = 0; rc == 0 && i < np; i++) {
		if (pv[i].kind == XCH_PIECE_OFFLOAD) {
			pairs[npairs].src_lba = pv[i].src_phys / bs;
			pairs[npairs].dst_lba = pv[i].dst_phys / bs;
			pairs[npairs].nblocks = pv[i].len / bs;
			npairs++;
		}
	}
	if (rc == 0) {
		xch_plan_limits_get(dev, dev, 1, &lim);
		rc = xch_plan_build(pairs, npairs, &lim, &plan);
	}
	t1 = now_rt();
	if (rc != 0) {
		fprintf(stderr, "xcbench plan: %s\n", strerror(-rc));
		return 1;
	}
	printf("extents=%zu pairs=%zu segments=%zu commands=%zu max_seg=%u plan_ms=%.2f\n", ns,
	       npairs, plan.nseg, plan.ncmd, lim.max_seg, (t1 - t0) * 1e3);
	xch_plan_free(&plan);
	free(se);
	free(de);
	free(pv);
	free(pairs);
	xcopy_dev_close(dev);
	return 0;
}

/*
 * One device copy as xcp does it, but the devices are opened (login,
 * discovery) before the clock starts: the time is the copy's own. Prints
 * key=value: open_s copy_s and libxcopy's statistics.
 */
static int
cmd_copy(int argc, char **argv)
{
	struct xcopy_dev *src = NULL, *dst = NULL;
	struct xcopy_stats st;
	unsigned flags = 0;
	double t0, t1, t2;
	int rc;

	if (argc != 7 && argc != 8) {
		return usage();
	}
	if (argc == 8) {
		if (strcmp(argv[7], "no-offload") != 0) {
			return usage();
		}
		flags = XCOPY_NO_OFFLOAD;
	}
	memset(&st, 0, sizeof(st));
	t0 = now_rt();
	rc = xcopy_dev_open(argv[2], &src);
	if (rc == 0) {
		rc = xcopy_dev_open(argv[4], &dst);
	}
	if (rc != 0) {
		fprintf(stderr, "xcbench copy: open: %s\n", strerror(-rc));
		return 4;
	}
	t1 = now_rt();
	rc = xcopy_dev_copy(src, num(argv[3]), dst, num(argv[5]), num(argv[6]), flags, &st);
	t2 = now_rt();
	if (rc != 0) {
		fprintf(stderr, "xcbench copy: %s\n", strerror(-rc));
	}
	printf("copy_t0=%.6f\ncopy_t1=%.6f\n", t1, t2);
	printf("open_s=%.3f\ncopy_s=%.3f\noffloaded_B=%" PRIu64 "\nfallback_B=%" PRIu64
	       "\nxcopy_cmds=%" PRIu64 "\nxcopy_failed=%" PRIu64 "\nsegments=%" PRIu64
	       "\nother_cmds=%" PRIu64 "\n",
	       t1 - t0, t2 - t1, st.bytes_offloaded, st.bytes_fallback, st.xcopy_cmds,
	       st.xcopy_failed, st.segments, st.other_cmds);
	xcopy_dev_close(src);
	xcopy_dev_close(dst);
	return rc != 0 ? 2 : 0;
}

int xcbench_tpc(int argc, char **argv);
int xcbench_probe(int argc, char **argv);

int
main(int argc, char **argv)
{
	int rc;

	if (argc < 2) {
		return usage();
	}
	rc = xcbench_tpc(argc, argv);
	if (rc >= 0) {
		return rc;
	}
	if (strcmp(argv[1], "fill") == 0) {
		return cmd_fill(argc, argv);
	}
	if (strcmp(argv[1], "frag") == 0) {
		return cmd_frag(argc, argv);
	}
	if (strcmp(argv[1], "probe") == 0) {
		return xcbench_probe(argc, argv);
	}
	if (strcmp(argv[1], "pct") == 0) {
		return cmd_pct(argc, argv);
	}
	if (strcmp(argv[1], "copy") == 0) {
		return cmd_copy(argc, argv);
	}
	if (strcmp(argv[1], "verify") == 0) {
		return cmd_verify(argc, argv);
	}
	if (strcmp(argv[1], "plan") == 0) {
		return cmd_plan(argc, argv);
	}
	return usage();
}
