/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two copies in one process at once: xcopy_file_range() calls share the
 * device cache but not a lock across their offloads, each call reports its
 * own progress, and calls sharing a handle never send one LIST IDENTIFIER
 * twice at a time (SPC-4 6.4.3.2). The fake target holds each EXTENDED COPY
 * until two are outstanding (or gather_ms passes): a library that
 * serialises the calls leaves one outstanding at most.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fake_target.h"
#include "fake_host.h"
#include "file/xch_file.h"
#include "file/xch_fscheck.h"
#include "ut.h"
#include "xcopy.h"

enum {
	FILE_LEN = 64 * 1024,
	GATHER_MS = 5000,
};

static struct fk *g_fk;
static int g_hook_opens;

/* The file system's device is LU 0 of the fake, as large as any block address. */
static int
open_fake(dev_t fsdev, struct xcopy_dev **out)
{
	(void)fsdev;
	__atomic_fetch_add(&g_hook_opens, 1, __ATOMIC_RELAXED);
	*out = ut_open(g_fk, 0, 0, 0);
	(*out)->caps.num_blocks = UINT64_MAX / 1024;
	(*out)->caps.part_blocks = (*out)->caps.num_blocks;
	return 0;
}

static struct fk *
fk_two_at_once(void)
{
	struct fk *f = fk_new();

	f->gather = 2;
	f->gather_ms = GATHER_MS;
	f->lim.snlid = false;   /* LIST ID USAGE 10b: ids are the host's to keep apart */
	return f;
}

/* Progress seen by this thread's own call (reports come in the calling thread). */
static __thread uint64_t t_done, t_total;
static __thread unsigned t_calls;

static void
prog_ex(const struct xcopy_progress *p, void *arg)
{
	(void)arg;
	t_done = p->done;
	t_total = p->total;
	t_calls++;
}

struct file_job {
	char src[600], dst[600];
	unsigned seed;
	ssize_t n;
	uint64_t done, total;
	unsigned calls;
};

static void
write_pattern(const char *path, unsigned seed)
{
	uint8_t *b = malloc(FILE_LEN);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	size_t i;

	UT_ASSERT_FATAL(b != NULL && fd >= 0);
	for (i = 0; i < FILE_LEN; i++) {
		b[i] = (uint8_t)(i * 31 + seed + i / 4096);
	}
	UT_ASSERT_FATAL(write(fd, b, FILE_LEN) == FILE_LEN);
	UT_ASSERT_FATAL(fsync(fd) == 0);
	close(fd);
	free(b);
}

static bool
same_bytes(const char *a, const char *b)
{
	uint8_t *x = malloc(FILE_LEN), *y = malloc(FILE_LEN);
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	bool same = x != NULL && y != NULL && fa >= 0 && fb >= 0 &&
		    pread(fa, x, FILE_LEN, 0) == FILE_LEN && pread(fb, y, FILE_LEN, 0) == FILE_LEN &&
		    memcmp(x, y, FILE_LEN) == 0;

	close(fa);
	close(fb);
	free(x);
	free(y);
	return same;
}

static void *
file_thread(void *arg)
{
	struct file_job *fj = arg;
	int in = open(fj->src, O_RDONLY), out = open(fj->dst, O_WRONLY);
	int64_t oi = 0, oo = 0;

	fj->n = in >= 0 && out >= 0 ? xcopy_file_range(in, &oi, out, &oo, FILE_LEN, 0, NULL)
				    : -errno;
	fj->done = t_done;
	fj->total = t_total;
	fj->calls = t_calls;
	close(in);
	close(out);
	return NULL;
}

/* Does FIEMAP map this file's data onto its device (the offload needs block addresses)? */
static bool
fiemap_works(const char *path)
{
	struct xch_fext *e = NULL;
	size_t n = 0;
	int fd = open(path, O_RDONLY);
	int rc = fd >= 0 ? xch_fiemap(fd, 0, FILE_LEN, &e, &n) : -errno;

	if (rc == 0 && xch_fs_check(fd, -1) != XCOPY_FB_NONE) {
		rc = -EOPNOTSUPP;   /* not ext4/XFS, or a flagged file */
	}

	close(fd);
	free(e);
	return rc == 0 && n > 0;
}

static void
make_jobs(const char *dir, struct file_job *fj)
{
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(fj[i].src, sizeof(fj[i].src), "%s/src%d", dir, i);
		snprintf(fj[i].dst, sizeof(fj[i].dst), "%s/dst%d", dir, i);
		fj[i].seed = (unsigned)(7 + i * 13);
		write_pattern(fj[i].src, fj[i].seed);
		/* written blocks the copy manager may overwrite */
		write_pattern(fj[i].dst, 200u + (unsigned)i);
	}
}

static void
host_concurrent_file_copies_on_one_device_overlap(void)
{
	struct file_job fj[2];
	pthread_t tid[2];
	char dir[512];
	int i;

	memset(fj, 0, sizeof(fj));
	ut_tmpdir("concurrent", dir, sizeof(dir));
	make_jobs(dir, fj);
	if (!fiemap_works(fj[0].src)) {
		UT_SKIP("FIEMAP does not map files in $TMPDIR");
		ut_rm_tree(dir);
		return;
	}
	g_fk = fk_two_at_once();
	g_hook_opens = 0;
	xcopy_cache_flush();
	ut_host_fake_fsdev(open_fake);
	xcopy_set_progress_ex(prog_ex, NULL);
	for (i = 0; i < 2; i++) {
		UT_ASSERT_FATAL(pthread_create(&tid[i], NULL, file_thread, &fj[i]) == 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(tid[i], NULL);
	}
	xcopy_set_progress_ex(NULL, NULL);
	xcopy_cache_flush();
	ut_host_fake_fsdev(NULL);
	/* both EXTENDED COPY commands were outstanding at the same time */
	CU_ASSERT_EQUAL(g_fk->max_cur, 2);
	CU_ASSERT_TRUE(g_fk->nxcopy >= 2);
	CU_ASSERT_EQUAL(g_fk->dup_ids, 0);
	/* one handle for the file system's device, opened once or twice (a race) */
	CU_ASSERT_TRUE(g_hook_opens >= 1 && g_hook_opens <= 2);
	for (i = 0; i < 2; i++) {
		/* the fake's LU is smaller than the disk: its refusals fell back */
		CU_ASSERT_EQUAL(fj[i].n, FILE_LEN);
		CU_ASSERT_TRUE(same_bytes(fj[i].src, fj[i].dst));
		/* each call's progress is its own: ends at its own length */
		CU_ASSERT_EQUAL(fj[i].total, FILE_LEN);
		CU_ASSERT_EQUAL(fj[i].done, FILE_LEN);
		CU_ASSERT_TRUE(fj[i].calls >= 1);
	}
	fk_free(g_fk);
	g_fk = NULL;
	ut_rm_tree(dir);
}

struct dev_job {
	struct xcopy_dev *d;
	uint64_t src, dst, n;
	int rc;
	struct xcopy_stats st;
	uint64_t done, total;
	unsigned calls;
};

static void *
dev_thread(void *arg)
{
	struct dev_job *dj = arg;

	dj->rc = xcopy_dev_copy(dj->d, dj->src, dj->d, dj->dst, dj->n, 0, &dj->st);
	dj->done = t_done;
	dj->total = t_total;
	dj->calls = t_calls;
	return NULL;
}

static void
host_concurrent_dev_copies_keep_own_progress_and_list_ids(void)
{
	struct fk *f = fk_two_at_once();
	struct xcopy_dev *d = ut_open(f, 0, 0, 0);
	struct dev_job dj[2] = {
		{ .d = d, .src = 0, .dst = 1024, .n = 64 },
		{ .d = d, .src = 2048, .dst = 3072, .n = 128 },
	};
	pthread_t tid[2];
	int i;

	xcopy_set_progress_ex(prog_ex, NULL);
	for (i = 0; i < 2; i++) {
		UT_ASSERT_FATAL(pthread_create(&tid[i], NULL, dev_thread, &dj[i]) == 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(tid[i], NULL);
	}
	xcopy_set_progress_ex(NULL, NULL);
	CU_ASSERT_EQUAL(f->max_cur, 2);
	CU_ASSERT_EQUAL(f->last->list_id_usage, XCM_LIST_ID_DISCARD);
	CU_ASSERT_EQUAL(f->dup_ids, 0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(dj[i].rc, 0);
		CU_ASSERT_TRUE(ut_range_is(f, 0, dj[i].dst, 0, dj[i].src, dj[i].n));
		CU_ASSERT_EQUAL(dj[i].total, dj[i].n * FK_BS);
		CU_ASSERT_EQUAL(dj[i].done, dj[i].n * FK_BS);
		CU_ASSERT_TRUE(dj[i].calls >= 1);
	}
	for (i = 0; i < 32; i++) {
		CU_ASSERT_EQUAL(d->lid_busy[i], 0); /* every id given back */
	}
	xcopy_dev_close(d);
	fk_free(f);
}

/*
 * Both calls on one handle get INVALID COMMAND OPERATION CODE: whichever
 * verdict comes first disables the handle for both (stored atomically: a
 * TSan build reports no race), each call falls back its own ranges and
 * counts them in its own statistics.
 */
static void
host_concurrent_shared_handle_disabled_once(void)
{
	struct fk *f = fk_new();
	struct xcopy_dev *d;
	struct dev_job dj[2];
	pthread_t tid[2];
	int i;

	f->always_fail = true;
	xcm_err_set(&f->always, XCM_E_INVALID_OPCODE);
	d = ut_open(f, 0, 0, 0);
	memset(dj, 0, sizeof(dj));
	for (i = 0; i < 2; i++) {
		dj[i].d = d;
		dj[i].src = (uint64_t)i * 512;
		dj[i].dst = 2048 + (uint64_t)i * 512;
		dj[i].n = 64 + (uint64_t)i * 64;
		UT_ASSERT_FATAL(pthread_create(&tid[i], NULL, dev_thread, &dj[i]) == 0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(tid[i], NULL);
	}
	CU_ASSERT_FALSE(xcopy_dev_caps(d)->offload);
	CU_ASSERT_TRUE(f->nxcopy >= 1 && f->nxcopy <= 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(dj[i].rc, 0);
		CU_ASSERT_TRUE(ut_range_is(f, 0, dj[i].dst, 0, dj[i].src, dj[i].n));
		CU_ASSERT_EQUAL(dj[i].st.fallback_bytes[XCOPY_FB_INVALID_OPCODE], dj[i].n * FK_BS);
		CU_ASSERT_EQUAL(dj[i].st.bytes_offloaded, 0);
	}
	xcopy_dev_close(d);
	fk_free(f);
}

/* A handle in use survives a flush; the last holder closes it (ASan sees a use after free). */
static void
host_concurrent_cache_handle_outlives_flush(void)
{
	struct xcopy_dev *a = NULL, *b = NULL;
	uint64_t off = 1;

	g_fk = fk_new();
	g_hook_opens = 0;
	xcopy_cache_flush();
	ut_host_fake_fsdev(open_fake);
	CU_ASSERT_EQUAL(xch_file_dev(makedev(259, 77), &a, &off), 0);
	CU_ASSERT_EQUAL(xch_file_dev(makedev(259, 77), &b, &off), 0);
	CU_ASSERT_PTR_EQUAL(a, b);
	CU_ASSERT_EQUAL(g_hook_opens, 1);
	CU_ASSERT_EQUAL(off, 0);
	UT_ASSERT_FATAL(a != NULL);
	CU_ASSERT_EQUAL(a->cache_refs, 3); /* the cache and two holders */
	xcopy_cache_flush();
	CU_ASSERT_EQUAL(a->cache_refs, 2);
	xch_file_dev_put(b);
	/* still open: a command goes through */
	CU_ASSERT_EQUAL(xcopy_dev_copy(a, 0, a, 1024, 8, 0, NULL), 0);
	CU_ASSERT_TRUE(ut_range_is(g_fk, 0, 1024, 0, 0, 8));
	xch_file_dev_put(a);
	/* not cached any more: opened again */
	CU_ASSERT_EQUAL(xch_file_dev(makedev(259, 77), &b, &off), 0);
	CU_ASSERT_EQUAL(g_hook_opens, 2);
	xch_file_dev_put(b);
	xcopy_cache_flush();
	ut_host_fake_fsdev(NULL);
	fk_free(g_fk);
	g_fk = NULL;
}

static CU_TestInfo g_tests[] = {
	{ "file_copies_on_one_device_overlap", host_concurrent_file_copies_on_one_device_overlap },
	{ "dev_copies_keep_own_progress_and_list_ids",
	  host_concurrent_dev_copies_keep_own_progress_and_list_ids },
	{ "shared_handle_disabled_once", host_concurrent_shared_handle_disabled_once },
	{ "cache_handle_outlives_flush", host_concurrent_cache_handle_outlives_flush },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_concurrent, g_tests)
