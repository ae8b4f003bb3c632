/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/store/store_copy.c: EXTENDED COPY chunks dispatched by the two LUs'
 * stores, without Ceph. The file store here is this file's xt_store_file
 * (pread/pwrite on a memfd, so file to file runs through copy.c and
 * parallel.c for real); "mem" LUs stand in for RBD LUs: a store without a
 * copy op (file <-> mem goes through the gateway loop) and one with a
 * counting copy op (two LUs of that store use it). Bytes are compared with a
 * model, outside the destination range too; failures report the side and
 * the bytes done before them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "store/file/store_file.h"
#include "store/rbd/store_rbd.h"
#include "store/store.h"
#include "target_stubs.h"
#include "ut.h"

#define LU_LEN (6u << 20)

struct mem {
	uint8_t *buf;
	uint64_t fail_at;        /* io touching [fail_at, +1) fails with EIO; UINT64_MAX: never */
	unsigned int calls;      /* copy op calls */
};

static int
mem_io(struct xcm_lu *lu, const struct iovec *iov, size_t cnt, size_t len, uint64_t off, bool wr)
{
	struct mem *m = lu->priv;
	size_t i, at = 0;

	if (off > LU_LEN || len > LU_LEN - off) {
		return -EINVAL;
	}
	if (m->fail_at >= off && m->fail_at < off + len) {
		return -EIO;
	}
	for (i = 0; i < cnt && at < len; i++) {
		size_t n = iov[i].iov_len < len - at ? iov[i].iov_len : len - at;

		if (wr) {
			memcpy(m->buf + off + at, iov[i].iov_base, n);
		} else {
			memcpy(iov[i].iov_base, m->buf + off + at, n);
		}
		at += n;
	}
	return 0;
}

static int
file_io(struct xcm_lu *lu, const struct iovec *iov, size_t cnt, size_t len, uint64_t off, bool wr)
{
	return xt_iov_io(xt_file(lu)->fd, iov, cnt, len, (off_t)off, wr);
}

/* A store's own copy: a plain memmove, counted. */
static int
mem_copy(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff, uint64_t len,
	 struct xt_copy_acct *acct, bool *at_dst, uint64_t *done)
{
	struct mem *s = src->priv, *d = dst->priv;

	d->calls++;
	memmove(d->buf + doff, s->buf + soff, len);
	acct->copyfrom_bytes += len;
	*at_dst = false;
	*done = len;
	return 0;
}

const struct xt_store_ops xt_store_file = { .name = "file", .io = file_io };
static const struct xt_store_ops g_mem = { .name = "mem", .io = mem_io };
static const struct xt_store_ops g_memcp = { .name = "memcp", .io = mem_io, .copy = mem_copy };

/* store_rbd.c's (not linked here): the deadline the gateway loop sets and clears. */
static uint64_t g_deadline_set, g_deadline_now;

void
xt_store_deadline(uint64_t deadline_ms)
{
	g_deadline_now = deadline_ms;
	if (deadline_ms != 0) {
		g_deadline_set = deadline_ms;
	}
}

/* Stand-in for iov.c's xt_iov_io (not linked into the unit tests): one pread/pwrite. */
int
xt_iov_io(int fd, const struct iovec *iov, size_t cnt, size_t len, off_t off, bool wr)
{
	ssize_t n;

	UT_ASSERT_FATAL(cnt == 1 && iov[0].iov_len == len);
	n = wr ? pwrite(fd, iov[0].iov_base, len, off) : pread(fd, iov[0].iov_base, len, off);
	return n == (ssize_t)len ? 0 : -EIO;
}

struct lu {
	struct xcm_lu lu;
	struct xt_file file;     /* the file store's state (file LUs) */
	struct mem m;
};

/* An LU of store ops filled with pseudo-random bytes (seed). */
static struct lu *
lu_make(const struct xt_store_ops *ops, unsigned int seed)
{
	struct lu *l = calloc(1, sizeof(*l));
	size_t i;

	UT_ASSERT_FATAL(l != NULL);
	l->lu.ops = ops;
	l->lu.priv = &l->m;
	l->file.fd = -1;
	l->m.fail_at = UINT64_MAX;
	l->m.buf = malloc(LU_LEN);
	UT_ASSERT_FATAL(l->m.buf != NULL);
	srand(seed);
	for (i = 0; i < LU_LEN; i++) {
		l->m.buf[i] = (uint8_t)rand();
	}
	if (ops == &xt_store_file) {
		l->lu.priv = &l->file;
		l->file.fd = memfd_create("ut-store-copy", 0);
		UT_ASSERT_FATAL(l->file.fd >= 0);
		UT_ASSERT_FATAL(pwrite(l->file.fd, l->m.buf, LU_LEN, 0) == LU_LEN);
		l->file.st_ino = (ino_t)seed;   /* tells file LUs apart (parallel.c, copy.c) */
		l->file.fs_block = 4096;
	}
	return l;
}

/* The LU's bytes now (the memfd for file LUs, into m.buf). */
static const uint8_t *
lu_bytes(struct lu *l)
{
	if (l->lu.ops == &xt_store_file) {
		UT_ASSERT_FATAL(pread(l->file.fd, l->m.buf, LU_LEN, 0) == LU_LEN);
	}
	return l->m.buf;
}

static void
lu_free(struct lu *l)
{
	if (l->file.fd >= 0) {
		close(l->file.fd);
	}
	free(l->m.buf);
	free(l);
}

static uint8_t g_b0[XT_BOUNCE_LEN], g_b1[XT_BOUNCE_LEN];
static uint8_t *const g_bounce[2] = { g_b0, g_b1 };

static int
copy(struct lu *s, uint64_t so, struct lu *d, uint64_t doff, uint64_t len,
     struct xt_copy_acct *a, bool *at_dst, uint64_t *done)
{
	return xt_lu_copy(&s->lu, so, &d->lu, doff, len, g_bounce, 2, XT_CLONE_AUTO,
			  XT_CFR_AUTO, a, at_dst, done);
}

/* src[so..] to dst[doff..] between a file LU and a mem LU, both ways: gateway bytes. */
static void
store_copy_file_mem_gateway(void)
{
	const uint64_t so = 12345, doff = (1u << 20) + 512, len = (3u << 20) + 777;
	struct lu *f = lu_make(&xt_store_file, 1), *m = lu_make(&g_mem, 2);
	struct xt_copy_acct a;
	uint8_t *model = malloc(LU_LEN);
	uint64_t done = 1;
	bool at_dst = true;

	UT_ASSERT_FATAL(model != NULL);
	memset(&a, 0, sizeof(a));
	a.deadline_ms = 123456;
	memcpy(model, lu_bytes(m), LU_LEN);
	memcpy(model + doff, lu_bytes(f) + so, len);
	CU_ASSERT_EQUAL(copy(f, so, m, doff, len, &a, &at_dst, &done), 0);
	/* the job's deadline was the thread's during the pieces, and is cleared after */
	CU_ASSERT_EQUAL(g_deadline_set, 123456);
	CU_ASSERT_EQUAL(g_deadline_now, 0);
	CU_ASSERT_EQUAL(done, len);
	CU_ASSERT_FALSE(at_dst);
	CU_ASSERT_EQUAL(memcmp(lu_bytes(m), model, LU_LEN), 0);   /* outside the range too */
	CU_ASSERT_EQUAL(a.gateway_bytes, len);
	CU_ASSERT_EQUAL(a.rw_bytes + a.cfr_bytes + a.clone_bytes + a.copyfrom_bytes, 0);

	memset(&a, 0, sizeof(a));
	memcpy(model, lu_bytes(f), LU_LEN);
	memcpy(model + 4096, lu_bytes(m) + 3, len);
	CU_ASSERT_EQUAL(copy(m, 3, f, 4096, len, &a, &at_dst, &done), 0);
	CU_ASSERT_EQUAL(done, len);
	CU_ASSERT_EQUAL(memcmp(lu_bytes(f), model, LU_LEN), 0);
	CU_ASSERT_EQUAL(a.gateway_bytes, len);
	free(model);
	lu_free(f);
	lu_free(m);
}

/* One mem LU, overlapping ranges up and down: memmove semantics. */
static void
store_copy_overlap_memmove(void)
{
	const uint64_t len = (2u << 20) + 100;
	const uint64_t pairs[][2] = { { 1000, 1000 + 4096 }, { (1u << 20) + 7, 5 } };
	struct lu *m = lu_make(&g_mem, 3);
	uint8_t *model = malloc(LU_LEN);
	struct xt_copy_acct a;
	uint64_t done;
	bool at_dst;
	size_t i;

	UT_ASSERT_FATAL(model != NULL);
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		memcpy(model, m->m.buf, LU_LEN);
		memmove(model + pairs[i][1], model + pairs[i][0], len);
		CU_ASSERT_EQUAL(copy(m, pairs[i][0], m, pairs[i][1], len, &a, &at_dst, &done), 0);
		CU_ASSERT_EQUAL(memcmp(m->m.buf, model, LU_LEN), 0);
		CU_ASSERT_EQUAL(a.gateway_bytes, len);
	}
	free(model);
	lu_free(m);
}

/* Two LUs of a store with a copy op: the op, once per chunk, no gateway bytes. */
static void
store_copy_same_store_op(void)
{
	struct lu *s = lu_make(&g_memcp, 4), *d = lu_make(&g_memcp, 5), *f;
	struct xt_copy_acct a;
	uint64_t done;
	bool at_dst;

	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(copy(s, 0, d, 8192, 4u << 20, &a, &at_dst, &done), 0);
	CU_ASSERT_EQUAL(d->m.calls, 1);
	CU_ASSERT_EQUAL(memcmp(d->m.buf + 8192, s->m.buf, 4u << 20), 0);
	CU_ASSERT_EQUAL(a.copyfrom_bytes, 4u << 20);
	CU_ASSERT_EQUAL(a.gateway_bytes, 0);
	/* with a file LU on the other side the op is not asked */
	f = lu_make(&xt_store_file, 6);
	CU_ASSERT_EQUAL(copy(f, 0, d, 0, 1u << 20, &a, &at_dst, &done), 0);
	CU_ASSERT_EQUAL(d->m.calls, 1);
	CU_ASSERT_EQUAL(a.gateway_bytes, 1u << 20);
	CU_ASSERT_EQUAL(memcmp(d->m.buf, lu_bytes(f), 1u << 20), 0);
	lu_free(f);
	lu_free(s);
	lu_free(d);
}

/* File to file: copy.c's paths (cfr or read/write), never the gateway counter. */
static void
store_copy_file_file(void)
{
	struct lu *s = lu_make(&xt_store_file, 7), *d = lu_make(&xt_store_file, 8);
	struct xt_copy_acct a;
	uint64_t done;
	bool at_dst;

	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(copy(s, 4096, d, 0, 2u << 20, &a, &at_dst, &done), 0);
	CU_ASSERT_EQUAL(done, 2u << 20);
	CU_ASSERT_EQUAL(memcmp(lu_bytes(d), lu_bytes(s) + 4096, 2u << 20), 0);
	CU_ASSERT_EQUAL(a.clone_bytes + a.cfr_bytes + a.rw_bytes, 2u << 20);
	CU_ASSERT_EQUAL(a.gateway_bytes, 0);
	lu_free(s);
	lu_free(d);
}

/* A failing read or write: the side, and the whole pieces done before it. */
static void
store_copy_errors_side_and_done(void)
{
	struct lu *f = lu_make(&xt_store_file, 9), *m = lu_make(&g_mem, 10);
	struct xt_copy_acct a;
	uint64_t done = 0;
	bool at_dst = true;

	memset(&a, 0, sizeof(a));
	m->m.fail_at = (2u << 20) + 5;   /* in the third 1 MiB piece read from offset 0 */
	CU_ASSERT_EQUAL(copy(m, 0, f, 0, 4u << 20, &a, &at_dst, &done), -EIO);
	CU_ASSERT_FALSE(at_dst);
	CU_ASSERT_EQUAL(done, 2u << 20);
	CU_ASSERT_EQUAL(memcmp(lu_bytes(f), m->m.buf, 2u << 20), 0);
	m->m.fail_at = (1u << 20) + 9;   /* written by the second piece */
	CU_ASSERT_EQUAL(copy(f, 0, m, 0, 4u << 20, &a, &at_dst, &done), -EIO);
	CU_ASSERT_TRUE(at_dst);
	CU_ASSERT_EQUAL(done, 1u << 20);
	lu_free(f);
	lu_free(m);
}

static CU_TestInfo g_tests[] = {
	{ "file_mem_gateway", store_copy_file_mem_gateway },
	{ "overlap_memmove", store_copy_overlap_memmove },
	{ "same_store_op", store_copy_same_store_op },
	{ "file_file", store_copy_file_file },
	{ "errors_side_and_done", store_copy_errors_side_and_done },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_store_copy, g_tests)
