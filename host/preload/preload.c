/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy-preload.so: LD_PRELOAD it and the copy_file_range(2) and
 * sendfile(2) calls of an unmodified program that copy one regular file to
 * another go through xcopy_file_range(3), so ranges on a SCSI LU with a copy
 * manager become EXTENDED COPY commands. Every call it does not take, and
 * every call the library fails, goes to the real function (dlsym RTLD_NEXT),
 * so the program sees the real call's results and errno.
 *
 * Taken: flags 0, len > 0, both descriptors regular files, the source open
 * for reading, the destination open for writing without O_APPEND, offsets
 * >= 0, not one file with overlapping ranges, at least XCOPY_PRELOAD_MIN
 * bytes (default 1 MiB) to copy before the source's end, and a pair of
 * file-system devices not yet found unable to offload. splice(2) always has
 * a pipe on one side, so it never copies file to file and is not interposed.
 *
 * Never recursing: libxcopy copies the ranges it does not offload with
 * copy_file_range() itself, in the calling thread, which resolves to this
 * library again; a per-thread flag sends those calls to the real function.
 *
 * XCOPY_PRELOAD_LOG=1 logs every call taken, with its fallback reasons, and
 * a summary at exit, on stderr (or appended to the file named when the value
 * starts with '/'); XCOPY_PRELOAD_LOG=2 adds libxcopy's own messages.
 * XCOPY_PRELOAD_DISABLE=1 turns every call into the real one.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xcopy.h"

#define EXPORT __attribute__((visibility("default")))
#define SENDFILE_MAX 0x7ffff000L   /* sendfile(2) moves at most this much per call */
#define NEG_SLOTS 16

typedef ssize_t (*cfr_fn)(int, loff_t *, int, loff_t *, size_t, unsigned int);
typedef ssize_t (*sendfile_fn)(int, int, off_t *, size_t);
typedef ssize_t (*sendfile64_fn)(int, int, off64_t *, size_t);

static __thread int t_inside;     /* inside xcopy_file_range: real calls only */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct xcopy_stats g_total;
static unsigned long g_calls;
static struct { dev_t in, out; } g_neg[NEG_SLOTS]; /* pairs that cannot offload */
static unsigned g_nneg;
static int g_log = -1;            /* -1: not read yet; 0 off, 1 calls, 2 + libxcopy */
static FILE *g_logf;

static void
plog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
plog(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (g_log <= 0) {
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0) {
		return;
	}
	/* one write per line: the program's own output is not interleaved mid-line */
	fprintf(g_logf != NULL ? g_logf : stderr, "libxcopy-preload[%d]: %s\n", (int)getpid(),
		line);
	fflush(g_logf != NULL ? g_logf : stderr);
}

static void
lib_log(enum xcopy_log_level lvl, const char *msg, void *arg)
{
	(void)lvl;
	(void)arg;
	plog("libxcopy: %s", msg);
}

static void
log_init(void)
{
	const char *e = getenv("XCOPY_PRELOAD_LOG");

	g_log = 0;
	if (e == NULL || *e == '\0' || strcmp(e, "0") == 0) {
		return;
	}
	g_log = strcmp(e, "2") == 0 ? 2 : 1;
	if (e[0] == '/') {
		g_logf = fopen(e, "ae");
	}
	if (g_log == 2) {
		xcopy_set_log(lib_log, XCOPY_LOG_INFO, NULL);
	}
}

static bool
disabled(void)
{
	const char *e = getenv("XCOPY_PRELOAD_DISABLE");

	return e != NULL && *e != '\0' && strcmp(e, "0") != 0;
}

/* Would the real call copy file to file, with no error of its own to report? */
static bool
takeable(int fd_in, int fd_out, size_t len, struct stat *si, struct stat *so)
{
	int fi, fo;

	if (len == 0 || fstat(fd_in, si) != 0 || fstat(fd_out, so) != 0 ||
	    !S_ISREG(si->st_mode) || !S_ISREG(so->st_mode)) {
		return false;
	}
	fi = fcntl(fd_in, F_GETFL);
	fo = fcntl(fd_out, F_GETFL);
	if (fi < 0 || fo < 0 || (fi & O_ACCMODE) == O_WRONLY || (fo & O_ACCMODE) == O_RDONLY ||
	    (fo & O_APPEND) || (fi & O_PATH) || (fo & O_PATH)) {
		return false;
	}
	return true;
}

/*
 * Fewer bytes to copy than XCOPY_PRELOAD_MIN (default 1 MiB; 0: none): the
 * real call, which costs less than the flushes, FIEMAP and commands of an
 * offload (cp -r of many small files).
 */
static bool
small_copy(int fd_in, const int64_t *off_in, size_t len, const struct stat *si)
{
	const char *e = getenv("XCOPY_PRELOAD_MIN");
	uint64_t min = 1u << 20, pos, left;
	char *end;

	if (e != NULL && *e != '\0') {
		unsigned long long v = strtoull(e, &end, 10);

		if (*end == '\0') {
			min = v;
		}
	}
	if (off_in != NULL) {
		pos = (uint64_t)*off_in;
	} else {
		off_t o = lseek(fd_in, 0, SEEK_CUR);

		if (o < 0) {
			return true;
		}
		pos = (uint64_t)o;
	}
	left = (uint64_t)si->st_size > pos ? (uint64_t)si->st_size - pos : 0;
	if (left > len) {
		left = len;
	}
	return left < min;
}

static bool
known_negative(dev_t in, dev_t out)
{
	unsigned i;

	for (i = 0; i < g_nneg; i++) {
		if (g_neg[i].in == in && g_neg[i].out == out) {
			return true;
		}
	}
	return false;
}

/* Reasons that hold for every later call between these two devices. */
static bool
device_reason(const struct xcopy_stats *st)
{
	static const enum xcopy_fallback_reason dev_wide[] = {
		XCOPY_FB_NOT_SCSI, XCOPY_FB_NO_3PC, XCOPY_FB_NO_DESIGNATOR, XCOPY_FB_BLOCK_SIZE,
		XCOPY_FB_PERMISSION, XCOPY_FB_INVALID_OPCODE, XCOPY_FB_INVALID_CDB,
		XCOPY_FB_UNSUPP_DESC, XCOPY_FB_DIFFERENT_DEV, XCOPY_FB_NO_TOKENS,
	};
	size_t i;

	if (st->bytes_offloaded != 0) {
		return false;
	}
	for (i = 0; i < sizeof(dev_wide) / sizeof(dev_wide[0]); i++) {
		if (st->fallback_bytes[dev_wide[i]] != 0) {
			return true;
		}
	}
	return false;
}

static const char *
why_text(enum xcopy_fallback_reason r)
{
	switch (r) {
	case XCOPY_FB_ALLOC:
		return "the kernel cannot allocate written blocks for a new destination "
		       "(fallocate FALLOC_FL_WRITE_ZEROES, Linux 6.17): preallocate and write it";
	case XCOPY_FB_ALLOC_DISK:
		return "the disk has no unmap write zeroes (queue/write_zeroes_unmap_max_hw_bytes "
		       "is 0), so no written blocks for a new destination: preallocate and write it";
	case XCOPY_FB_ALLOC_FS:
		return "the file system refuses fallocate FALLOC_FL_WRITE_ZEROES, so no written "
		       "blocks for a new destination: preallocate and write it";
	case XCOPY_FB_DST_EXTENT:
		return "destination blocks unwritten, shared or not allocated";
	case XCOPY_FB_PERMISSION:
		return "SG_IO refused EXTENDED COPY (needs CAP_SYS_RAWIO)";
	case XCOPY_FB_NOT_SCSI:
		return "file system not on a SCSI disk";
	default:
		return xcopy_fallback_reason_name(r);
	}
}

static void
account(int fd_in, int fd_out, size_t len, ssize_t n, const struct xcopy_stats *st,
	dev_t din, dev_t dout)
{
	int r;

	pthread_mutex_lock(&g_mu);
	g_calls++;
	g_total.bytes_offloaded += st->bytes_offloaded;
	g_total.bytes_fallback += st->bytes_fallback;
	g_total.bytes_zeroed += st->bytes_zeroed;
	g_total.xcopy_cmds += st->xcopy_cmds;
	for (r = 0; r < XCOPY_FB_REASON_MAX; r++) {
		g_total.fallback_ranges[r] += st->fallback_ranges[r];
		g_total.fallback_bytes[r] += st->fallback_bytes[r];
	}
	if (n >= 0 && device_reason(st) && !known_negative(din, dout) && g_nneg < NEG_SLOTS) {
		g_neg[g_nneg].in = din;
		g_neg[g_nneg].out = dout;
		g_nneg++;
	}
	pthread_mutex_unlock(&g_mu);
	plog("fd %d -> fd %d, %zu bytes asked: %zd copied, %llu offloaded in %llu EXTENDED COPY, "
	     "%llu by fallback, %llu zeroed", fd_in, fd_out, len, n,
	     (unsigned long long)st->bytes_offloaded, (unsigned long long)st->xcopy_cmds,
	     (unsigned long long)st->bytes_fallback, (unsigned long long)st->bytes_zeroed);
	for (r = 1; r < XCOPY_FB_REASON_COUNT; r++) {
		if (st->fallback_ranges[r] != 0) {
			plog("fell back for %llu bytes (%llu ranges): %s: %s",
			     (unsigned long long)st->fallback_bytes[r],
			     (unsigned long long)st->fallback_ranges[r],
			     xcopy_fallback_reason_name((enum xcopy_fallback_reason)r),
			     why_text((enum xcopy_fallback_reason)r));
		}
	}
}

/*
 * Route one copy through libxcopy: bytes copied, or -1 when the caller must
 * make the real call (not taken, or libxcopy failed: the real call then
 * copies the whole range again and reports its own errno).
 */
static ssize_t
route(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len)
{
	struct xcopy_stats st;
	struct stat si, so;
	ssize_t n;
	bool neg;

	if (g_log < 0) {
		pthread_mutex_lock(&g_mu);
		if (g_log < 0) {
			log_init();
		}
		pthread_mutex_unlock(&g_mu);
	}
	if (t_inside || disabled() || !takeable(fd_in, fd_out, len, &si, &so) ||
	    (off_in != NULL && *off_in < 0) || (off_out != NULL && *off_out < 0)) {
		return -1;
	}
	if (small_copy(fd_in, off_in, len, &si)) {
		return -1;
	}
	pthread_mutex_lock(&g_mu);
	neg = known_negative(si.st_dev, so.st_dev);
	pthread_mutex_unlock(&g_mu);
	if (neg) {
		return -1;
	}
	memset(&st, 0, sizeof(st));
	t_inside = 1;
	n = xcopy_file_range(fd_in, off_in, fd_out, off_out, len, 0, &st);
	t_inside = 0;
	account(fd_in, fd_out, len, n, &st, si.st_dev, so.st_dev);
	if (n < 0) {
		plog("libxcopy failed (%s): the real call copies the range", strerror((int)-n));
		return -1;
	}
	return n;
}

static void *
real_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (p == NULL) {
		errno = ENOSYS;
	}
	return p;
}

EXPORT ssize_t
copy_file_range(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len,
		unsigned int flags)
{
	static cfr_fn real;
	ssize_t n;

	if (flags == 0) {
		int saved = errno;

		n = route(fd_in, (int64_t *)off_in, fd_out, (int64_t *)off_out, len);
		if (n >= 0) {
			errno = saved;
			return n;
		}
		errno = saved;
	}
	if (real == NULL && (real = (cfr_fn)real_sym("copy_file_range")) == NULL) {
		return -1;
	}
	return real(fd_in, off_in, fd_out, off_out, len, flags);
}

static ssize_t
sendfile_route(int out_fd, int in_fd, int64_t *offset, size_t *count)
{
	int saved = errno;
	ssize_t n;

	if (*count > (size_t)SENDFILE_MAX) {
		*count = SENDFILE_MAX;
	}
	/* sendfile: *offset is the source's, the destination uses its file position */
	n = route(in_fd, offset, out_fd, NULL, *count);
	errno = saved;
	return n;
}

EXPORT ssize_t
sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
{
	static sendfile_fn real;
	int64_t off = offset != NULL ? (int64_t)*offset : 0;
	ssize_t n = sendfile_route(out_fd, in_fd, offset != NULL ? &off : NULL, &count);

	if (n >= 0) {
		if (offset != NULL) {
			*offset = (off_t)off;
		}
		return n;
	}
	if (real == NULL && (real = (sendfile_fn)real_sym("sendfile")) == NULL) {
		return -1;
	}
	return real(out_fd, in_fd, offset, count);
}

EXPORT ssize_t
sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count)
{
	static sendfile64_fn real;
	int64_t off = offset != NULL ? (int64_t)*offset : 0;
	ssize_t n = sendfile_route(out_fd, in_fd, offset != NULL ? &off : NULL, &count);

	if (n >= 0) {
		if (offset != NULL) {
			*offset = (off64_t)off;
		}
		return n;
	}
	if (real == NULL && (real = (sendfile64_fn)real_sym("sendfile64")) == NULL) {
		return -1;
	}
	return real(out_fd, in_fd, offset, count);
}

__attribute__((destructor)) static void
summary(void)
{
	if (g_log > 0 && g_calls > 0) {
		plog("total: %lu calls taken, %llu bytes offloaded, %llu by fallback, %llu zeroed",
		     g_calls, (unsigned long long)g_total.bytes_offloaded,
		     (unsigned long long)g_total.bytes_fallback,
		     (unsigned long long)g_total.bytes_zeroed);
	}
	if (g_logf != NULL) {
		fclose(g_logf);
		g_logf = NULL;
	}
}
