/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Moving bytes between backing files, cheapest path first:
 *   1. FICLONERANGE (reflink: metadata only) when offsets and length are
 *      aligned to the filesystem block and the ranges are not the same-file
 *      overlapping case;
 *   2. copy_file_range (in-kernel copy, server-side on NFS, reflink on some
 *      filesystems) in a loop that handles short copies; skipped on local
 *      filesystems when step 3 can go O_DIRECT (direct_first);
 *   3. pread/pwrite through the LU's 1 MiB bounce buffer, backwards when the
 *      ranges overlap in one file with dst > src (memmove semantics); both
 *      sides O_DIRECT where the LUs' dio= and the alignment allow (rw_copy).
 * The copy_file_range and pread/pwrite loops are common/copy_loops.c's.
 * copy_file_range is never used on overlapping ranges of one file: the kernel
 * does not promise memmove semantics there.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "store/file/store_file.h"
#include "xos.h"

static bool
same_file(const struct xt_lu *a, const struct xt_lu *b)
{
	return xt_file(a)->st_dev == xt_file(b)->st_dev && xt_file(a)->st_ino == xt_file(b)->st_ino;
}

static int
try_clone(const struct xt_range *r, enum xt_clone pol)
{
	const struct xt_file *s = xt_file(r->src), *d = xt_file(r->dst);
	uint64_t so = r->soff, doff = r->doff, len = r->len;
	struct file_clone_range fcr;
	uint64_t align = s->fs_block > d->fs_block ? s->fs_block : d->fs_block;

	if (align == 0) {
		align = 4096;
	}
	if (pol != XT_CLONE_ALWAYS && (so % align != 0 || doff % align != 0 || len % align != 0)) {
		return -EINVAL;
	}
	memset(&fcr, 0, sizeof(fcr));
	fcr.src_fd = s->fd;
	fcr.src_offset = so;
	fcr.src_length = len;
	fcr.dest_offset = doff;
	if (ioctl(d->fd, FICLONERANGE, &fcr) != 0) {
		return -errno;
	}
	return 0;
}

/* May a read/write copy of r go O_DIRECT on both sides (dio=, alignment)? */
static bool
rw_direct_ok(const struct xt_range *r, uint64_t so, uint64_t doff, uint64_t len, const uint8_t *buf)
{
	const struct xt_file *s = xt_file(r->src), *d = xt_file(r->dst);
	uint64_t off_al = s->dio_off > d->dio_off ? s->dio_off : d->dio_off;
	uint64_t mem_al = s->dio_mem > d->dio_mem ? s->dio_mem : d->dio_mem;

	/* dfd < 0: no O_DIRECT here, dio=never among the reasons (store_file.c) */
	return s->dfd >= 0 && d->dfd >= 0 && xt_dio_len_ok(r->src, len) &&
	       xt_dio_len_ok(r->dst, len) && buf != NULL && off_al != 0 && mem_al != 0 &&
	       (uintptr_t)buf % mem_al == 0 && XT_BOUNCE_LEN % off_al == 0 && so % off_al == 0 &&
	       doff % off_al == 0 && len % off_al == 0;
}

/*
 * Does the direct read/write loop go before copy_file_range? Yes where it
 * can run and the kernel's copy_file_range would move the bytes through the
 * page cache anyway (a local filesystem, no reflink: FICLONERANGE failed or
 * clone=never): measured in the lab, 1 GiB without reflink on XFS 7.3 s
 * direct vs 19.5-22.8 s copy_file_range (tests/bench/README.md, "Copies
 * without reflink"), and the copy leaves the page cache to the LU's readers.
 * Not where either side's filesystem copies server-side or is tmpfs
 * (store_file.c fs_cfr_first).
 */
static bool
direct_first(const struct xt_range *r, const uint8_t *bounce)
{
	return !xt_file(r->src)->cfr_first && !xt_file(r->dst)->cfr_first &&
	       rw_direct_ok(r, r->soff, r->doff, r->len, bounce);
}

/*
 * The read/write loop over the bytes of r from moved on: O_DIRECT on both
 * sides where dio= and the alignment allow (the bytes go between the medium
 * and the bounce buffer by DMA, none through the page cache: a buffered copy
 * moves each byte twice more, page cache to buffer and back; the kernel keeps
 * the page cache coherent, as for the LU's direct WRITEs), else through the
 * page cache. A direct transfer the kernel refuses (EINVAL: an alignment
 * statx did not tell) is finished through the page cache from where it
 * stopped (not a backward copy whose write was refused: see below).
 * res->done: the bytes moved (forward: the first ones; backward: the last
 * ones). ops has no io hook (it could shorten a transfer off alignment).
 */
static int
rw_copy(const struct xt_range *r, uint64_t moved, const struct xos_copy_ops *ops,
	struct xos_copy_res *res, struct xt_copy_acct *acct)
{
	const struct xt_file *s = xt_file(r->src), *d = xt_file(r->dst);
	uint64_t len = r->len - moved, first = 0, skip;
	struct xos_copy_res more;
	int rc;

	if (rw_direct_ok(r, r->soff + moved, r->doff + moved, len, ops->buf)) {
		rc = xos_rw_loop(s->dfd, r->soff + moved, d->dfd, r->doff + moved, len, ops, res);
		acct->rw_direct_bytes += res->done;
		/* backward, a refused write may have put part of its chunk over
		 * source bytes not yet read again: no second pass then */
		if (rc != -EINVAL || (ops->backward && res->at_dst)) {
			return rc;
		}
		first = res->done;
	}
	skip = ops->backward ? 0 : first;   /* backward: the last bytes are done */
	rc = xos_rw_loop(s->fd, r->soff + moved + skip, d->fd, r->doff + moved + skip, len - first,
			 ops, &more);
	res->done = first + more.done;
	res->at_dst = more.at_dst;
	return rc;
}

int
xt_file_copy(struct xt_copy *c, const struct xt_range *r, uint8_t *bounce)
{
	const struct xt_lu *src = r->src, *dst = r->dst;
	uint64_t src_off = r->soff, dst_off = r->doff, len = r->len;
	bool same = same_file(src, dst);
	bool overlap = same && src_off < dst_off + len && dst_off < src_off + len;
	enum xt_clone clone = c->clone;
	enum xt_cfr cfr = c->cfr;
	struct xt_copy_acct *acct = &c->acct;
	bool *at_dst = &c->at_dst;
	uint64_t *done = &c->done;
	const struct xos_copy_ops cfr_ops = { 0 };
	struct xos_copy_ops rw_ops = { .rw_chunk = XT_BOUNCE_LEN, .buf = bounce };
	struct xos_copy_res res;
	uint64_t moved = 0;
	int rc;

	*done = 0;
	*at_dst = false;
	if (len == 0 || (same && src_off == dst_off)) {
		return 0;   /* nothing to move */
	}
	if (clone != XT_CLONE_NEVER && !overlap) {
		rc = try_clone(r, clone);
		if (rc == 0) {
			acct->clone_bytes += len;
			*done = len;
			return 0;
		}
		if (clone == XT_CLONE_ALWAYS) {
			/* policy: the store must reflink; report, do not fall back */
			*at_dst = true;
			return rc;
		}
	} else if (clone == XT_CLONE_ALWAYS) {
		*at_dst = true;
		return -EINVAL;   /* overlapping ranges in one file cannot be cloned */
	}
	if (cfr == XT_CFR_AUTO && !overlap && !direct_first(r, bounce)) {
		rc = xos_cfr_loop(xt_file(src)->fd, src_off, xt_file(dst)->fd, dst_off, len,
				  &cfr_ops, &moved);
		acct->cfr_bytes += moved;
		if (rc == 0) {
			*done = len;
			return 0;
		}
		/* EXDEV, EOPNOTSUPP, EINVAL, or a real I/O error: the read/write loop
		 * below finishes the rest and tells which side failed. */
	}
	rw_ops.backward = overlap && dst_off > src_off;
	rc = rw_copy(r, moved, &rw_ops, &res, acct);
	*at_dst = res.at_dst;
	acct->rw_bytes += res.done;
	*done = moved + res.done;
	return rc;
}

void
xt_wb_init(struct xt_copy *c)
{
	c->wb.fd = -1;
	c->wb.off = 0;
	c->wb.len = 0;
}

/*
 * Page-cache writes are throttled by the kernel (balance_dirty_pages) once
 * the dirty pages of the system pass its limits, and on XFS the throttled
 * writer holds the file's I/O lock, which the LU's READs take shared: a
 * copy that dirties gigabytes makes the READs of its destination wait for
 * writeback. Writing back each chunk as soon as it is copied keeps the
 * copy's dirty pages to two chunks; it adds no durability promise (the LU's
 * write cache is unchanged: SYNCHRONIZE CACHE still does fdatasync).
 */
void
xt_wb_chunk(struct xt_copy *c, const struct xt_range *r)
{
	const struct xt_lu *dst = r->dst;
	uint64_t off = r->doff, len = r->len;

	if (dst->cfg.wb_late || len == 0) {
		return;
	}
	/* start this chunk's writeback; errors only mean no pacing */
	(void)sync_file_range(xt_file(dst)->fd, (off64_t)off, (off64_t)len, SYNC_FILE_RANGE_WRITE);
	if (c->wb.fd >= 0 && c->wb.len > 0) {
		/* the chunk before: wait until its pages are written back */
		(void)sync_file_range(c->wb.fd, (off64_t)c->wb.off, (off64_t)c->wb.len,
				      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
					      SYNC_FILE_RANGE_WAIT_AFTER);
	}
	c->wb.fd = xt_file(dst)->fd;
	c->wb.off = off;
	c->wb.len = len;
}

int
xt_nice_lower(int nice)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int old;

	errno = 0;
	old = getpriority(PRIO_PROCESS, (id_t)tid);
	if ((old == -1 && errno != 0) || old >= nice) {
		return INT_MIN;
	}
	if (setpriority(PRIO_PROCESS, (id_t)tid, nice) != 0) {
		return INT_MIN;
	}
	return old;
}

void
xt_nice_restore(int old)
{
	if (old != INT_MIN) {
		/* raising it back needs CAP_SYS_NICE (tcmu-runner runs as root) */
		(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), old);
	}
}
