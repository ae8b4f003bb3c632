/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/store/store_copy.c: EXTENDED COPY chunks dispatched by the two LUs'
 * stores, without Ceph. The file store here is this file's xt_store_file
 * (pread/pwrite on a memfd, so file to file runs through file_copy.c and
 * parallel.c for real); "mem" LUs stand in for RBD LUs: a store without a
 * copy op (file <-> mem goes through the gateway loop) and one with a
 * counting copy op (two LUs of that store use it). Bytes are compared with a
 * model, outside the destination range too; failures report the side and
 * the bytes done before them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "store/file/store_file.h"
#include "fault/fault.h"
#include "store/store.h"
#include "target_stubs.h"
#include "ut.h"

#define LU_LEN (6u << 20)

struct mem {
	uint8_t *buf;
	uint64_t fail_at;        /* io touching [fail_at, +1) fails with EIO; UINT64_MAX: never */
	unsigned int calls;      /* copy op calls */
};

/* The deadline the gateway's io calls carried (each must carry the copy's). */
static uint64_t g_deadline_seen;
static unsigned int g_deadline_calls, g_deadline_wrong;

static int
mem_io(struct xt_lu *lu, const struct xt_io *io)
{
	const struct iovec *iov = io->iov;
	size_t cnt = io->cnt, len = io->len;
	uint64_t off = io->off;
	bool wr = io->wr;
	struct mem *m = lu->priv;
	size_t i, at = 0;

	g_deadline_calls++;
	if (io->copy == NULL || io->deadline_ms != io->copy->deadline_ms) {
		g_deadline_wrong++;
	}
	g_deadline_seen = io->deadline_ms;

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
file_io(struct xt_lu *lu, const struct xt_io *io)
{
	return xt_iov_io(xt_file(lu)->fd, io);
}

/* A store's own copy: a plain memmove, counted. */
static int
mem_copy(struct xt_copy *c, const struct xt_range *r)
{
	struct mem *s = r->src->priv, *d = r->dst->priv;

	d->calls++;
	memmove(d->buf + r->doff, s->buf + r->soff, r->len);
	c->acct.copyfrom_bytes += r->len;
	c->at_dst = false;
	c->done = r->len;
	return 0;
}

/* the file store as store_file.c has it: its copy op is parallel.c's */
const struct xt_store_ops xt_store_file = { .name = "file", .page_cache = true, .io = file_io,
					    .copy = xt_par_copy };
static const struct xt_store_ops g_mem = { .name = "mem", .io = mem_io };
static const struct xt_store_ops g_memcp = { .name = "memcp", .io = mem_io, .copy = mem_copy };

/* Stand-in for iov.c's xt_iov_io (not linked into the unit tests): one pread/pwrite. */
int
xt_iov_io(int fd, const struct xt_io *io)
{
	size_t len = io->len;
	ssize_t n;

	UT_ASSERT_FATAL(io->cnt == 1 && io->iov[0].iov_len == len);
	n = io->wr ? pwrite(fd, io->iov[0].iov_base, len, (off_t)io->off)
		   : pread(fd, io->iov[0].iov_base, len, (off_t)io->off);
	return n == (ssize_t)len ? 0 : -EIO;
}

struct lu {
	struct xt_lu lu;
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
	l->file.dfd = -1;   /* no O_DIRECT descriptor (store_copy_direct_einval sets one) */
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
		l->file.st_ino = (ino_t)seed;   /* tells file LUs apart (parallel.c, file_copy.c) */
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

static uint8_t g_b0[XT_BOUNCE_LEN];
static uint64_t g_deadline;   /* the next copy's deadline */

/* One xt_lu_copy call of a copy with one bounce buffer (more on first use); *a summed. */
static int
copy(struct lu *s, uint64_t so, struct lu *d, uint64_t doff, uint64_t len,
     struct xt_copy_acct *a, bool *at_dst, uint64_t *done)
{
	struct xt_copy c;
	const struct xt_range r = { &s->lu, so, &d->lu, doff, len };
	int rc;

	memset(&c, 0, sizeof(c));
	c.self = &d->lu;
	c.deadline_ms = g_deadline;
	c.clone = XT_CLONE_AUTO;
	c.cfr = XT_CFR_AUTO;
	c.bounce[0] = g_b0;
	c.acct = *a;
	rc = xt_lu_copy(&c, &r);
	*a = c.acct;
	*at_dst = c.at_dst;
	*done = c.done;
	c.bounce[0] = NULL;
	xt_copy_free(&c);
	return rc;
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
	g_deadline = 123456;
	g_deadline_calls = g_deadline_wrong = 0;
	memcpy(model, lu_bytes(m), LU_LEN);
	memcpy(model + doff, lu_bytes(f) + so, len);
	CU_ASSERT_EQUAL(copy(f, so, m, doff, len, &a, &at_dst, &done), 0);
	g_deadline = 0;
	/* every piece's io carried the copy and the copy's deadline */
	CU_ASSERT_EQUAL(g_deadline_seen, 123456);
	CU_ASSERT_EQUAL(g_deadline_calls, 4);
	CU_ASSERT_EQUAL(g_deadline_wrong, 0);
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

/* File to file: file_copy.c's paths (cfr or read/write), never the gateway counter. */
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

/* ---- the fault store (target/fault/fault_store.c) around these stores ------ */

/* Arm spec on l (as the fault store's open does from its cfgstring). */
static void
arm(struct lu *l, enum xt_fault_kind kind, uint32_t nth)
{
	l->lu.cfg.fault.kind = kind;
	l->lu.cfg.fault.nth = nth;
	xt_fault_lu_add(&l->lu);
}

/*
 * A fault armed on two LUs of a store with a copy op: the op still moves the
 * bytes before the fault (production's path: no gateway), the Nth 1 MiB
 * write fails with the side and the exact bytes done; once fired, the same
 * pair copies whole.
 */
static void
fault_store_keeps_the_copy_op(void)
{
	const struct xt_store_ops *w = xt_store_faulty(&g_memcp);
	struct lu *s = lu_make(&g_memcp, 11), *d = lu_make(&g_memcp, 12);
	const uint64_t len = (4u << 20) + 100;
	uint8_t *before = malloc(LU_LEN);
	struct xt_copy_acct a;
	uint64_t done;
	bool at_dst;

	UT_ASSERT_FATAL(before != NULL && w != &g_memcp && w->inner == &g_memcp);
	CU_ASSERT_EQUAL(xt_store_faulty(&g_memcp), w);   /* one per inner store */
	s->lu.ops = w;
	d->lu.ops = w;
	memcpy(before, d->m.buf, LU_LEN);
	arm(d, XT_FAULT_WRITE, 3);
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(copy(s, 0, d, 4096, len, &a, &at_dst, &done), -EIO);
	CU_ASSERT_TRUE(at_dst);
	CU_ASSERT_EQUAL(done, 2u << 20);
	CU_ASSERT_EQUAL(d->m.calls, 1);                  /* the store's op, once */
	CU_ASSERT_EQUAL(a.copyfrom_bytes, 2u << 20);
	CU_ASSERT_EQUAL(a.gateway_bytes, 0);
	CU_ASSERT_EQUAL(memcmp(d->m.buf + 4096, s->m.buf, 2u << 20), 0);
	CU_ASSERT_EQUAL(memcmp(d->m.buf + 4096 + (2u << 20), before + 4096 + (2u << 20),
			       LU_LEN - 4096 - (2u << 20)), 0);
	/* fired once: the whole range now, by the op */
	CU_ASSERT_EQUAL(copy(s, 0, d, 4096, len, &a, &at_dst, &done), 0);
	CU_ASSERT_EQUAL(done, len);
	CU_ASSERT_EQUAL(d->m.calls, 2);
	CU_ASSERT_EQUAL(memcmp(d->m.buf + 4096, s->m.buf, len), 0);
	xt_fault_lu_remove(&d->lu);
	free(before);
	lu_free(s);
	lu_free(d);
}

/* read:N on the source: the source side, the units before it; short:N: half a unit more. */
static void
fault_store_read_and_short(void)
{
	const struct xt_store_ops *w = xt_store_faulty(&g_memcp);
	struct lu *s = lu_make(&g_memcp, 13), *d = lu_make(&g_memcp, 14);
	struct xt_copy_acct a;
	uint64_t done;
	bool at_dst;

	s->lu.ops = w;
	d->lu.ops = w;
	memset(&a, 0, sizeof(a));
	arm(s, XT_FAULT_READ, 2);
	CU_ASSERT_EQUAL(copy(s, 0, d, 0, 3u << 20, &a, &at_dst, &done), -EIO);
	CU_ASSERT_FALSE(at_dst);
	CU_ASSERT_EQUAL(done, 1u << 20);
	xt_fault_lu_remove(&s->lu);
	arm(d, XT_FAULT_SHORT, 2);
	CU_ASSERT_EQUAL(copy(s, 0, d, 0, 3u << 20, &a, &at_dst, &done), -ENOSPC);
	CU_ASSERT_TRUE(at_dst);
	CU_ASSERT_EQUAL(done, (1u << 20) + (512u << 10));
	CU_ASSERT_EQUAL(memcmp(d->m.buf, s->m.buf, (1u << 20) + (512u << 10)), 0);
	xt_fault_lu_remove(&d->lu);
	lu_free(s);
	lu_free(d);
}

/*
 * A merged run while armed runs as in production (the store's op, once, its
 * policy) and counts its 1 MiB calls; only a run the fault would fire in is
 * declined, nothing counted, so the fault fires at its segment.
 */
static void
fault_store_runs_merged_runs(void)
{
	const struct xt_store_ops *w = xt_store_faulty(&g_memcp);
	struct lu *s = lu_make(&g_memcp, 15), *d = lu_make(&g_memcp, 16);
	const struct xt_range r = { &s->lu, 0, &d->lu, 0, 2u << 20 };
	struct xt_copy c;

	s->lu.ops = w;
	d->lu.ops = w;
	memset(&c, 0, sizeof(c));
	c.bounce[0] = g_b0;
	c.clone = XT_CLONE_ALWAYS;   /* a merged run's policy (cm/backend.c) */
	c.cfr = XT_CFR_NEVER;
	/* write:3: the run's two writes do not reach it: the run, by the op */
	arm(d, XT_FAULT_WRITE, 3);
	c.merged = true;
	CU_ASSERT_EQUAL(xt_lu_copy(&c, &r), 0);
	CU_ASSERT_EQUAL(d->m.calls, 1);
	CU_ASSERT_EQUAL(c.done, 2u << 20);
	CU_ASSERT_EQUAL(c.clone, XT_CLONE_ALWAYS);   /* its policy kept */
	CU_ASSERT_EQUAL(memcmp(d->m.buf, s->m.buf, 2u << 20), 0);
	/* ... and counted: the next write is the 3rd */
	c.merged = false;
	CU_ASSERT_EQUAL(xt_lu_copy(&c, &r), -EIO);
	CU_ASSERT_TRUE(c.at_dst);
	CU_ASSERT_EQUAL(c.done, 0);
	CU_ASSERT_EQUAL(d->m.calls, 1);
	/* write:2 fires inside a 2 MiB run: declined, nothing counted */
	arm(d, XT_FAULT_WRITE, 2);
	c.merged = true;
	CU_ASSERT_EQUAL(xt_lu_copy(&c, &r), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(d->m.calls, 1);
	c.merged = false;
	CU_ASSERT_EQUAL(xt_lu_copy(&c, &r), -EIO);   /* its segment: the 2nd write */
	CU_ASSERT_TRUE(c.at_dst);
	CU_ASSERT_EQUAL(c.done, 1u << 20);
	/* read:2 on the source, a 1 MiB run: one read, not declined */
	xt_fault_lu_remove(&d->lu);
	arm(s, XT_FAULT_READ, 2);
	c.merged = true;
	CU_ASSERT_EQUAL(xt_lu_copy(&c, &(const struct xt_range){ &s->lu, 0, &d->lu, 0, 1u << 20 }), 0);
	CU_ASSERT_EQUAL(xt_lu_copy(&c, &r), -EOPNOTSUPP);
	xt_fault_lu_remove(&s->lu);
	lu_free(s);
	lu_free(d);
}

/* File to mem through the gateway: the wrapped io fails the Nth write of the copy only. */
static void
fault_store_gateway_io(void)
{
	const struct xt_store_ops *w = xt_store_faulty(&g_mem);
	struct lu *f = lu_make(&xt_store_file, 17), *m = lu_make(&g_mem, 18);
	const struct iovec v = { g_b0, 4096 };
	const struct xt_io own = { &v, 1, 4096, 0, true, 0, NULL, true };
	struct xt_copy_acct a;
	uint64_t done;
	bool at_dst;

	m->lu.ops = w;
	arm(m, XT_FAULT_WRITE, 2);
	CU_ASSERT_EQUAL(w->io(&m->lu, &own), 0);   /* the LU's own WRITE: not counted */
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(copy(f, 0, m, 0, 3u << 20, &a, &at_dst, &done), -EIO);
	CU_ASSERT_TRUE(at_dst);
	CU_ASSERT_EQUAL(done, 1u << 20);
	CU_ASSERT_EQUAL(a.gateway_bytes, 1u << 20);
	xt_fault_lu_remove(&m->lu);
	lu_free(f);
	lu_free(m);
}

/*
 * file_copy.c rw_copy: a direct transfer the kernel refuses (EINVAL: an
 * alignment statx did not tell; here the LU claims byte alignment and the
 * copy starts at byte 1) is finished through the page cache: forward, and
 * backward over an overlapping range of one file (memmove); nothing counted
 * direct. Skipped where the temporary directory takes misaligned direct I/O
 * or none.
 */
static void
store_copy_direct_einval(void)
{
	char path[] = "/tmp/ut-direct-XXXXXX";
	struct lu *l = lu_make(&xt_store_file, 19);
	uint8_t *model = malloc(LU_LEN), *probe = NULL;
	struct xt_copy_acct a;
	int fd = mkstemp(path), dfd = -1;
	uint64_t done;
	bool at_dst, skip;

	UT_ASSERT_FATAL(fd >= 0 && model != NULL);
	UT_ASSERT_FATAL(pwrite(fd, l->m.buf, LU_LEN, 0) == LU_LEN);
	UT_ASSERT_FATAL(fsync(fd) == 0);
	dfd = open(path, O_RDWR | O_DIRECT);
	unlink(path);   /* the descriptors keep it */
	UT_ASSERT_FATAL(posix_memalign((void **)&probe, 4096, 4096) == 0);
	skip = dfd < 0 || pread(dfd, probe, 4096, 1) >= 0 || errno != EINVAL;
	free(probe);
	if (skip) {
		printf("(skipped: %s takes misaligned O_DIRECT or none) ", path);
		goto out;
	}
	close(l->file.fd);
	l->file.fd = fd;
	l->file.dfd = dfd;
	l->file.dio_off = 1;   /* a lie: the kernel wants more */
	l->file.dio_mem = 1;
	memcpy(model, l->m.buf, LU_LEN);
	/* forward, no overlap: the direct loop first (direct_first), refused */
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(copy(l, 1, l, (3u << 20) + 1, (1u << 20) + 4096, &a, &at_dst, &done), 0);
	memmove(model + (3u << 20) + 1, model + 1, (1u << 20) + 4096);
	CU_ASSERT_EQUAL(done, (1u << 20) + 4096);
	CU_ASSERT_EQUAL(a.rw_bytes, (1u << 20) + 4096);
	CU_ASSERT_EQUAL(a.rw_direct_bytes, 0);
	CU_ASSERT_EQUAL(memcmp(lu_bytes(l), model, LU_LEN), 0);
	/* backward, overlapping, dst > src: memmove */
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(copy(l, 1, l, 1 + (512u << 10), 2u << 20, &a, &at_dst, &done), 0);
	memmove(model + 1 + (512u << 10), model + 1, 2u << 20);
	CU_ASSERT_EQUAL(done, 2u << 20);
	CU_ASSERT_EQUAL(a.rw_direct_bytes, 0);
	CU_ASSERT_EQUAL(memcmp(lu_bytes(l), model, LU_LEN), 0);
	fd = -1;   /* l's now */
out:
	if (dfd >= 0) {
		close(dfd);
	}
	if (fd >= 0) {
		close(fd);
	}
	free(model);
	lu_free(l);
}

static CU_TestInfo g_tests[] = {
	{ "fault_store_keeps_the_copy_op", fault_store_keeps_the_copy_op },
	{ "fault_store_read_and_short", fault_store_read_and_short },
	{ "fault_store_runs_merged_runs", fault_store_runs_merged_runs },
	{ "fault_store_gateway_io", fault_store_gateway_io },
	{ "file_mem_gateway", store_copy_file_mem_gateway },
	{ "overlap_memmove", store_copy_overlap_memmove },
	{ "same_store_op", store_copy_same_store_op },
	{ "file_file", store_copy_file_file },
	{ "direct_einval", store_copy_direct_einval },
	{ "errors_side_and_done", store_copy_errors_side_and_done },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_store_copy, g_tests)
