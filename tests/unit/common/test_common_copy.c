/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* common/copy_loops.c: xos_cfr_loop (copy_file_range) and xos_rw_loop (pread/pwrite). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ut.h"
#include "xos.h"

enum { SRC_LEN = 3 * 65536 + 777, CHUNK = 65536 };

struct files {
	char dir[256];
	char src[300], dst[300];
	int in, out;
};

static uint8_t g_pat[SRC_LEN];

static uint8_t
pat(size_t i)
{
	return (uint8_t)(i * 131u + (i >> 9) + 7u);
}

/* A source of SRC_LEN pattern bytes and an empty destination in a fresh dir. */
static int
files_open(struct files *f)
{
	size_t i;

	ut_tmpdir("copy", f->dir, sizeof(f->dir));
	snprintf(f->src, sizeof(f->src), "%s/src", f->dir);
	snprintf(f->dst, sizeof(f->dst), "%s/dst", f->dir);
	for (i = 0; i < SRC_LEN; i++) {
		g_pat[i] = pat(i);
	}
	f->in = open(f->src, O_RDWR | O_CREAT | O_TRUNC, 0600);
	f->out = open(f->dst, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (f->in < 0 || f->out < 0 || pwrite(f->in, g_pat, SRC_LEN, 0) != SRC_LEN) {
		return -1;
	}
	return 0;
}

static void
files_close(struct files *f)
{
	close(f->in);
	close(f->out);
	unlink(f->src);
	unlink(f->dst);
	rmdir(f->dir);
}

/* Bytes of fd at off that differ from the pattern at src_off (or are missing). */
static size_t
mismatches(int fd, uint64_t off, uint64_t src_off, size_t len)
{
	static uint8_t buf[SRC_LEN];
	size_t i, bad = 0;

	if (pread(fd, buf, len, (off_t)off) != (ssize_t)len) {
		return len + 1;
	}
	for (i = 0; i < len; i++) {
		bad += buf[i] != pat((size_t)src_off + i);
	}
	return bad;
}

/* Counts the hooks' calls; shortens transfers, fails a side, stops the loop. */
struct probe {
	size_t short_to;          /* io: cap each transfer at this many bytes (0: no cap) */
	unsigned fail_write_at;   /* io: the Nth write (1-based) fails with -ENOSPC */
	unsigned reads, writes, chunks;
	uint64_t bytes;
	uint64_t stop_after;      /* chunk_done: -ECANCELED once bytes >= this (0: never) */
};

static int
probe_io(void *arg, bool write, size_t *want)
{
	struct probe *p = arg;

	if (write && ++p->writes == p->fail_write_at) {
		return -ENOSPC;
	}
	p->reads += !write;
	if (p->short_to != 0 && *want > p->short_to) {
		*want = p->short_to;
	}
	return 0;
}

static int
probe_chunk(void *arg, uint64_t bytes)
{
	struct probe *p = arg;

	p->chunks++;
	p->bytes += bytes;
	return p->stop_after != 0 && p->bytes >= p->stop_after ? -ECANCELED : 0;
}

/* copy_file_range: all bytes at other offsets, progress reported as copied. */
static void
cfr_copies_bytes(void)
{
	struct files f;
	struct probe p = { 0 };
	struct xos_copy_ops ops = { .cfr_max = CHUNK, .chunk_done = probe_chunk, .arg = &p };
	uint64_t moved = 1;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_cfr_loop(f.in, 100, f.out, 5000, SRC_LEN - 100, &ops, &moved), 0);
	CU_ASSERT_EQUAL(moved, SRC_LEN - 100);
	CU_ASSERT_EQUAL(p.bytes, SRC_LEN - 100);
	CU_ASSERT(p.chunks >= 4);   /* cfr_max caps each call at 64 KiB */
	CU_ASSERT_EQUAL(mismatches(f.out, 5000, 100, SRC_LEN - 100), 0);
	files_close(&f);
}

/* copy_file_range past the source's end: -ENODATA, the bytes before it copied. */
static void
cfr_eof_before_len(void)
{
	struct files f;
	const struct xos_copy_ops ops = { 0 };
	uint64_t moved = 0;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_cfr_loop(f.in, 0, f.out, 0, SRC_LEN + 4096, &ops, &moved), -ENODATA);
	CU_ASSERT_EQUAL(moved, SRC_LEN);
	CU_ASSERT_EQUAL(mismatches(f.out, 0, 0, SRC_LEN), 0);
	files_close(&f);
}

/* A destination copy_file_range refuses (O_APPEND: EBADF): its errno, nothing moved. */
static void
cfr_refused_tells_caller(void)
{
	struct files f;
	const struct xos_copy_ops ops = { 0 };
	uint64_t moved = 1;
	int app;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	app = open(f.dst, O_WRONLY | O_APPEND);
	UT_ASSERT_FATAL(app >= 0);
	CU_ASSERT(xos_cfr_loop(f.in, 0, app, 0, SRC_LEN, &ops, &moved) < 0);
	CU_ASSERT_EQUAL(moved, 0);
	close(app);
	files_close(&f);
}

/* chunk_done's error stops copy_file_range after the first chunk. */
static void
cfr_callback_stops(void)
{
	struct files f;
	struct probe p = { .stop_after = 1 };
	struct xos_copy_ops ops = { .cfr_max = CHUNK, .chunk_done = probe_chunk, .arg = &p };
	uint64_t moved = 0;
	struct stat st;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_cfr_loop(f.in, 0, f.out, 0, SRC_LEN, &ops, &moved), -ECANCELED);
	CU_ASSERT_EQUAL(p.chunks, 1);
	CU_ASSERT(moved > 0 && moved <= CHUNK);
	CU_ASSERT(fstat(f.out, &st) == 0 && (uint64_t)st.st_size == moved);
	CU_ASSERT_EQUAL(mismatches(f.out, 0, 0, (size_t)moved), 0);
	files_close(&f);
}

/* read/write with transfers cut to 1000 bytes: every byte right, one callback per chunk. */
static void
rw_short_transfers(void)
{
	struct files f;
	struct probe p = { .short_to = 1000 };
	struct xos_copy_ops ops = { .rw_chunk = CHUNK, .io = probe_io, .chunk_done = probe_chunk,
				    .arg = &p };
	struct xos_copy_res res = { 7, true };

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_rw_loop(f.in, 3, f.out, 11, SRC_LEN - 3, &ops, &res), 0);
	CU_ASSERT_EQUAL(res.done, SRC_LEN - 3);
	CU_ASSERT_FALSE(res.at_dst);
	CU_ASSERT_EQUAL(p.chunks, 4);
	CU_ASSERT_EQUAL(p.bytes, SRC_LEN - 3);
	CU_ASSERT_EQUAL(p.reads, 3 * ((CHUNK + 999) / 1000) + 1);   /* 3 full chunks, 774 bytes */
	CU_ASSERT_EQUAL(mismatches(f.out, 11, 3, SRC_LEN - 3), 0);
	files_close(&f);
}

/* read/write past the source's end: -EIO on the source side, whole chunks done. */
static void
rw_eof_before_len(void)
{
	struct files f;
	const struct xos_copy_ops ops = { .rw_chunk = CHUNK };
	struct xos_copy_res res;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_rw_loop(f.in, 0, f.out, 0, SRC_LEN + 1, &ops, &res), -EIO);
	CU_ASSERT_FALSE(res.at_dst);
	CU_ASSERT_EQUAL(res.done, 3 * CHUNK);
	CU_ASSERT_EQUAL(mismatches(f.out, 0, 0, 3 * CHUNK), 0);
	files_close(&f);
}

/* The 3rd write fails: destination side, the 2 short writes before it counted. */
static void
rw_write_fails(void)
{
	struct files f;
	struct probe p = { .short_to = 1000, .fail_write_at = 3 };
	struct xos_copy_ops ops = { .rw_chunk = CHUNK, .io = probe_io, .arg = &p };
	struct xos_copy_res res;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_rw_loop(f.in, 0, f.out, 0, SRC_LEN, &ops, &res), -ENOSPC);
	CU_ASSERT_TRUE(res.at_dst);
	CU_ASSERT_EQUAL(res.done, 2000);
	CU_ASSERT_EQUAL(mismatches(f.out, 0, 0, 2000), 0);
	ops.backward = true;
	p.writes = 0;
	CU_ASSERT_EQUAL(xos_rw_loop(f.in, 0, f.out, 0, SRC_LEN, &ops, &res), -ENOSPC);
	CU_ASSERT_TRUE(res.at_dst);
	/* backward: the last 64 KiB first; its 2 short writes do not count */
	CU_ASSERT_EQUAL(res.done, 0);
	CU_ASSERT_EQUAL(mismatches(f.out, SRC_LEN - CHUNK, SRC_LEN - CHUNK, 2000), 0);
	files_close(&f);
}

/* chunk_done stops the loop after two chunks; nothing after them written. */
static void
rw_callback_stops(void)
{
	struct files f;
	struct probe p = { .stop_after = 2 * CHUNK };
	struct xos_copy_ops ops = { .rw_chunk = CHUNK, .chunk_done = probe_chunk, .arg = &p };
	struct xos_copy_res res;
	struct stat st;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_rw_loop(f.in, 0, f.out, 0, SRC_LEN, &ops, &res), -ECANCELED);
	CU_ASSERT_EQUAL(res.done, 2 * CHUNK);
	CU_ASSERT_FALSE(res.at_dst);
	CU_ASSERT(fstat(f.out, &st) == 0 && st.st_size == 2 * CHUNK);
	CU_ASSERT_EQUAL(mismatches(f.out, 0, 0, 2 * CHUNK), 0);
	files_close(&f);
}

/* Backward in one file, dst > src overlapping: memmove result with the caller's buffer. */
static void
rw_backward_overlap(void)
{
	static uint8_t buf[CHUNK];
	struct files f;
	const uint64_t len = 2 * CHUNK + 5, shift = 1000;
	struct xos_copy_ops ops = { .rw_chunk = CHUNK, .buf = buf, .backward = true };
	struct xos_copy_res res;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_rw_loop(f.in, 0, f.in, shift, len, &ops, &res), 0);
	CU_ASSERT_EQUAL(res.done, len);
	CU_ASSERT_EQUAL(mismatches(f.in, shift, 0, (size_t)len), 0);
	CU_ASSERT_EQUAL(mismatches(f.in, 0, 0, (size_t)shift), 0);
	files_close(&f);
}

/* Whole-buffer pread/pwrite: bytes round-trip, EOF before len -EIO, wrong mode -EBADF. */
static void
full_transfers(void)
{
	static uint8_t buf[SRC_LEN];
	struct files f;

	UT_ASSERT_FATAL(files_open(&f) == 0);
	CU_ASSERT_EQUAL(xos_pread_full(f.in, buf, SRC_LEN - 9, 9), 0);
	CU_ASSERT_EQUAL(xos_pwrite_full(f.out, buf, SRC_LEN - 9, 9), 0);
	CU_ASSERT_EQUAL(mismatches(f.out, 9, 9, SRC_LEN - 9), 0);
	CU_ASSERT_EQUAL(xos_pread_full(f.in, buf, 100, SRC_LEN - 50), -EIO);
	close(f.out);
	f.out = open(f.dst, O_RDONLY);
	UT_ASSERT_FATAL(f.out >= 0);
	CU_ASSERT_EQUAL(xos_pwrite_full(f.out, buf, 10, 0), -EBADF);
	files_close(&f);
}

static CU_TestInfo g_tests[] = {
	{ "cfr_copies_bytes", cfr_copies_bytes },
	{ "cfr_eof_before_len", cfr_eof_before_len },
	{ "cfr_refused_tells_caller", cfr_refused_tells_caller },
	{ "cfr_callback_stops", cfr_callback_stops },
	{ "rw_short_transfers", rw_short_transfers },
	{ "rw_eof_before_len", rw_eof_before_len },
	{ "rw_write_fails", rw_write_fails },
	{ "rw_callback_stops", rw_callback_stops },
	{ "rw_backward_overlap", rw_backward_overlap },
	{ "full_transfers", full_transfers },
	CU_TEST_INFO_NULL,
};
UT_SUITE(common_copy, g_tests)
