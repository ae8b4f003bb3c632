/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcopy_file_range() never writes where copy_file_range(2) would refuse to,
 * and never offloads without a hold on both files' extent maps:
 *   - descriptors copy_file_range(2) refuses (EBADF: source not readable,
 *     destination not writable or O_APPEND) are refused before anything is
 *     sent or written;
 *   - the offload runs under a write lease on the destination and a read
 *     lease on the source; without them (the file open elsewhere) the host
 *     copies with reason "lease", and when one breaks mid-copy (another
 *     open or truncate) no further command goes and the host redoes the
 *     range; no signal reaches the process either way;
 *   - a failed call leaves the destination no longer than it was.
 * The files' device is the fake target (ut_host_fake_fsdev, fake_host.h): it
 * refuses the real disk's block addresses, so every offloaded range falls
 * back, but it counts the commands the library sends.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_target.h"
#include "fake_host.h"
#include "file/xch_file.h"
#include "ut.h"
#include "xcopy.h"

enum {
	LEN = 1 << 20,
	BATCH = 64 << 10,
};

static struct fk *g_fk;

static int
open_fake(dev_t fsdev, struct xcopy_dev **out)
{
	(void)fsdev;
	*out = ut_open(g_fk, 0, 0, 0);
	(*out)->caps.num_blocks = UINT64_MAX / 1024;
	(*out)->caps.part_blocks = (*out)->caps.num_blocks;
	return 0;
}

struct files {
	char dir[512], src[600], dst[600];
};

static void
fill(const char *path, size_t len, unsigned seed)
{
	uint8_t *b = malloc(len ? len : 1);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	size_t i;

	UT_ASSERT_FATAL(b != NULL && fd >= 0);
	for (i = 0; i < len; i++) {
		b[i] = (uint8_t)(i * 31 + seed + i / 4096);
	}
	UT_ASSERT_FATAL(write(fd, b, len) == (ssize_t)len);
	UT_ASSERT_FATAL(fsync(fd) == 0);
	close(fd);
	free(b);
}

/* Does path hold len bytes of fill(seed)? */
static bool
holds(const char *path, size_t len, unsigned seed)
{
	uint8_t *b = malloc(len + 1);
	int fd = open(path, O_RDONLY);
	bool ok = b != NULL && fd >= 0 && pread(fd, b, len + 1, 0) == (ssize_t)len;
	size_t i;

	for (i = 0; ok && i < len; i++) {
		ok = b[i] == (uint8_t)(i * 31 + seed + i / 4096);
	}
	close(fd);
	free(b);
	return ok;
}

static off_t
size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Source and a written destination on the temporary file system; false: skip. */
static bool
files_make(struct files *f, size_t dst_len)
{
	struct xch_fext *e = NULL;
	size_t n = 0;
	int fd, rc;

	ut_tmpdir("safety", f->dir, sizeof(f->dir));
	snprintf(f->src, sizeof(f->src), "%s/src", f->dir);
	snprintf(f->dst, sizeof(f->dst), "%s/dst", f->dir);
	fill(f->src, LEN, 7);
	fill(f->dst, dst_len, 200);
	fd = open(f->src, O_RDONLY);
	rc = fd >= 0 ? xch_fiemap(fd, 0, LEN, &e, &n) : -errno;
	close(fd);
	free(e);
	if (rc != 0 || n == 0) {
		UT_SKIP("FIEMAP does not map files in $TMPDIR");
		ut_rm_tree(f->dir);
		return false;
	}
	return true;
}

static void
fake_on(void)
{
	g_fk = fk_new();
	xcopy_cache_flush();
	ut_host_fake_fsdev(open_fake);
	ut_host_lease_batch(BATCH);
}

static void
fake_off(struct files *f)
{
	xcopy_cache_flush();
	ut_host_fake_fsdev(NULL);
	ut_host_lease_batch(0);
	fk_free(g_fk);
	g_fk = NULL;
	ut_rm_tree(f->dir);
}

static ssize_t
copy_paths(const char *src, int src_flags, const char *dst, int dst_flags, unsigned flags,
	   struct xcopy_stats *st)
{
	int in = open(src, src_flags), out = open(dst, dst_flags);
	int64_t oi = 0, oo = 0;
	ssize_t n;

	UT_ASSERT_FATAL(in >= 0 && out >= 0);
	n = xcopy_file_range(in, &oi, out, &oo, LEN, flags, st);
	close(in);
	close(out);
	return n;
}

static void
host_safety_refuses_what_copy_file_range_refuses(void)
{
	static const struct {
		int src_flags, dst_flags;
	} bad[] = {
		{ O_RDONLY, O_WRONLY | O_APPEND },
		{ O_RDONLY, O_RDWR | O_APPEND },
		{ O_RDONLY, O_RDONLY },
		{ O_WRONLY, O_WRONLY },
		{ O_PATH, O_WRONLY },
		{ O_RDONLY, O_PATH },
	};
	struct files f;
	size_t i;
	int k;

	if (!files_make(&f, LEN)) {
		return;
	}
	fake_on();
	for (k = 0; k < 2; k++) {
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			CU_ASSERT_EQUAL(copy_paths(f.src, bad[i].src_flags, f.dst, bad[i].dst_flags,
						   k ? XCOPY_NO_OFFLOAD : 0, NULL),
					-EBADF);
			/* nothing sent, nothing written: the destination as it was */
			CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
			CU_ASSERT_EQUAL(size_of(f.dst), LEN);
			CU_ASSERT_TRUE(holds(f.dst, LEN, 200));
		}
	}
	fake_off(&f);
}

struct breaker {
	const char *path;
	int calls;
	int open_rc, open_errno;
};

/* As the first command arrives, another open for writing (O_NONBLOCK: not waiting). */
static void
break_lease(void *arg)
{
	struct breaker *b = arg;
	int fd;

	if (b->calls++ != 0) {
		return;
	}
	fd = open(b->path, O_WRONLY | O_NONBLOCK);
	b->open_rc = fd >= 0 ? 0 : -1;
	b->open_errno = fd >= 0 ? 0 : errno;
	if (fd >= 0) {
		close(fd);
	}
}

static void
lease_break_run(bool on_dst)
{
	struct xcopy_stats st;
	struct files f;
	struct breaker b;
	int control;

	if (!files_make(&f, LEN)) {
		return;
	}
	/* control: no break, one command per batch at least */
	fake_on();
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(copy_paths(f.src, O_RDONLY, f.dst, O_WRONLY, 0, &st), LEN);
	control = g_fk->nxcopy;
	CU_ASSERT_TRUE(control >= LEN / BATCH);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_LEASE], 0);
	CU_ASSERT_TRUE(holds(f.dst, LEN, 7));
	fake_off(&f);

	UT_ASSERT_FATAL(files_make(&f, LEN));
	fake_on();
	memset(&b, 0, sizeof(b));
	b.path = on_dst ? f.dst : f.src;
	g_fk->on_xcopy = break_lease;
	g_fk->on_xcopy_arg = &b;
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(copy_paths(f.src, O_RDONLY, f.dst, O_WRONLY, 0, &st), LEN);
	/* the lease held: the other open had to wait */
	CU_ASSERT_EQUAL(b.open_rc, -1);
	CU_ASSERT_EQUAL(b.open_errno, EWOULDBLOCK);
	/* no command after the batch that saw the break */
	CU_ASSERT_EQUAL(b.calls, 1);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 1);
	CU_ASSERT_TRUE(g_fk->nxcopy < control);
	/* the whole range redone by the host, nothing counted as offloaded */
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_LEASE], 1);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_LEASE], LEN);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 0);
	CU_ASSERT_TRUE(holds(f.dst, LEN, 7));
	fake_off(&f);
}

static void
host_safety_dst_lease_break_stops_commands(void)
{
	lease_break_run(true);
}

static void
host_safety_src_lease_break_stops_commands(void)
{
	lease_break_run(false);
}

struct truncator {
	const char *path;
	int out;               /* the copy's destination descriptor */
	pid_t pid;
	bool seen;             /* the break showed in F_GETLEASE */
};

/* As the first command arrives, another process truncates the destination. */
static void
truncate_dst(void *arg)
{
	struct truncator *t = arg;
	const struct timespec ms = { 0, 1000000L };
	int i;

	if (t->pid != 0) {
		return;
	}
	t->pid = fork();
	if (t->pid == 0) {
		_exit(truncate(t->path, 0) == 0 ? 0 : 1);
	}
	/* the child waits in truncate(2) for the lease: the break is pending */
	for (i = 0; i < 5000 && !t->seen; i++) {
		t->seen = fcntl(t->out, F_GETLEASE) != F_WRLCK;
		(void)nanosleep(&ms, NULL);
	}
}

static void
host_safety_truncated_mid_copy_redone_after_the_truncation(void)
{
	struct xcopy_stats st;
	struct truncator t;
	struct files f;
	int in, out, status = -1;
	int64_t oi = 0, oo = 0;

	if (!files_make(&f, LEN)) {
		return;
	}
	fake_on();
	in = open(f.src, O_RDONLY);
	out = open(f.dst, O_WRONLY);
	UT_ASSERT_FATAL(in >= 0 && out >= 0);
	memset(&t, 0, sizeof(t));
	t.path = f.dst;
	t.out = out;
	g_fk->on_xcopy = truncate_dst;
	g_fk->on_xcopy_arg = &t;
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(xcopy_file_range(in, &oi, out, &oo, LEN, 0, &st), LEN);
	UT_ASSERT_FATAL(t.pid > 0);
	CU_ASSERT_EQUAL(waitpid(t.pid, &status, 0), t.pid);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_TRUE(t.seen);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 1);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_LEASE], LEN);
	/* the truncation came first, then the whole range: a success is the full copy */
	CU_ASSERT_TRUE(holds(f.dst, LEN, 7));
	close(in);
	close(out);
	fake_off(&f);
}

static void
host_safety_lease_leaves_descriptors_as_found(void)
{
	struct f_owner_ex own;
	struct files f;
	int in, out;
	int64_t oi = 0, oo = 0;

	if (!files_make(&f, LEN)) {
		return;
	}
	fake_on();
	in = open(f.src, O_RDONLY);
	out = open(f.dst, O_WRONLY);
	UT_ASSERT_FATAL(in >= 0 && out >= 0);
	CU_ASSERT_EQUAL(fcntl(out, F_SETSIG, SIGUSR2), 0);
	CU_ASSERT_EQUAL(xcopy_file_range(in, &oi, out, &oo, LEN, 0, NULL), LEN);
	CU_ASSERT_TRUE(g_fk->nxcopy > 0);
	CU_ASSERT_EQUAL(fcntl(in, F_GETLEASE), F_UNLCK);
	CU_ASSERT_EQUAL(fcntl(out, F_GETLEASE), F_UNLCK);
	CU_ASSERT_EQUAL(fcntl(out, F_GETSIG), SIGUSR2);
	CU_ASSERT_EQUAL(fcntl(in, F_GETSIG), 0);
	CU_ASSERT_EQUAL(fcntl(out, F_GETOWN_EX, &own), 0);
	CU_ASSERT_EQUAL(own.pid, 0);
	/* the caller's own lease is left alone: no offload under it */
	close(in);
	in = open(f.src, O_RDONLY);
	UT_ASSERT_FATAL(in >= 0);
	CU_ASSERT_EQUAL(fcntl(in, F_SETLEASE, F_RDLCK), 0);
	g_fk->nxcopy = 0;
	oi = oo = 0;
	CU_ASSERT_EQUAL(xcopy_file_range(in, &oi, out, &oo, LEN, 0, NULL), LEN);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	CU_ASSERT_EQUAL(fcntl(in, F_GETLEASE), F_RDLCK);
	close(in);
	close(out);
	fake_off(&f);
}

static void
host_safety_no_lease_no_offload(void)
{
	struct xcopy_stats st;
	struct files f;
	int other;

	if (!files_make(&f, LEN)) {
		return;
	}
	fake_on();
	/* the destination open elsewhere: no write lease, so no command */
	other = open(f.dst, O_RDONLY);
	UT_ASSERT_FATAL(other >= 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(copy_paths(f.src, O_RDONLY, f.dst, O_WRONLY, 0, &st), LEN);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_LEASE], 1);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_LEASE], LEN);
	CU_ASSERT_EQUAL(st.bytes_fallback, LEN);
	CU_ASSERT_TRUE(holds(f.dst, LEN, 7));
	close(other);
	/* the source open for writing elsewhere: no read lease */
	other = open(f.src, O_WRONLY);
	UT_ASSERT_FATAL(other >= 0);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(copy_paths(f.src, O_RDONLY, f.dst, O_WRONLY, XCOPY_REQUIRE_OFFLOAD, &st),
			-EOPNOTSUPP);
	CU_ASSERT_EQUAL(g_fk->nxcopy, 0);
	CU_ASSERT_EQUAL(st.fallback_ranges[XCOPY_FB_LEASE], 1);
	close(other);
	fake_off(&f);
}

/* A copy the file-size limit cuts at half: EFBIG after 512 KiB were written. */
static void
failed_copy_keeps_size(size_t dst_len, unsigned flags)
{
	struct rlimit old, lim;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldsa;
	struct files f;
	ssize_t n;

	if (!files_make(&f, dst_len)) {
		return;
	}
	UT_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = LEN / 2;
	UT_ASSERT_FATAL(sigaction(SIGXFSZ, &ign, &oldsa) == 0);
	UT_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	n = copy_paths(f.src, O_RDONLY, f.dst, O_WRONLY, flags, NULL);
	(void)setrlimit(RLIMIT_FSIZE, &old);
	(void)sigaction(SIGXFSZ, &oldsa, NULL);
	CU_ASSERT_EQUAL(n, -EFBIG);
	CU_ASSERT_EQUAL(size_of(f.dst), (off_t)dst_len);
	ut_rm_tree(f.dir);
}

static void
host_safety_failed_copy_keeps_size(void)
{
	failed_copy_keeps_size(0, 0);
	failed_copy_keeps_size(0, XCOPY_NO_OFFLOAD);
	failed_copy_keeps_size(100000, 0);
}

static CU_TestInfo g_tests[] = {
	{ "refuses_what_copy_file_range_refuses",
	  host_safety_refuses_what_copy_file_range_refuses },
	{ "dst_lease_break_stops_commands", host_safety_dst_lease_break_stops_commands },
	{ "src_lease_break_stops_commands", host_safety_src_lease_break_stops_commands },
	{ "truncated_mid_copy_redone_after_the_truncation",
	  host_safety_truncated_mid_copy_redone_after_the_truncation },
	{ "lease_leaves_descriptors_as_found", host_safety_lease_leaves_descriptors_as_found },
	{ "no_lease_no_offload", host_safety_no_lease_no_offload },
	{ "failed_copy_keeps_size", host_safety_failed_copy_keeps_size },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_safety, g_tests)
