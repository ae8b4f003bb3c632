/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Moving bytes between backing files, cheapest path first:
 *   1. FICLONERANGE (reflink: metadata only) when offsets and length are
 *      aligned to the filesystem block and the ranges are not the same-file
 *      overlapping case;
 *   2. copy_file_range (in-kernel copy, server-side on NFS, reflink on some
 *      filesystems) in a loop that handles short copies;
 *   3. pread/pwrite through the LU's 1 MiB bounce buffer, backwards when the
 *      ranges overlap in one file with dst > src (memmove semantics).
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

#include "xcopy_target.h"

static bool
same_file(const struct xcm_lu *a, const struct xcm_lu *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int
try_clone(const struct xcm_lu *src, uint64_t so, const struct xcm_lu *dst, uint64_t doff,
	  uint64_t len, enum xt_clone pol)
{
	struct file_clone_range fcr;
	uint64_t align = src->fs_block > dst->fs_block ? src->fs_block : dst->fs_block;

	if (align == 0) {
		align = 4096;
	}
	if (pol != XT_CLONE_ALWAYS && (so % align != 0 || doff % align != 0 || len % align != 0)) {
		return -EINVAL;
	}
	memset(&fcr, 0, sizeof(fcr));
	fcr.src_fd = src->fd;
	fcr.src_offset = so;
	fcr.src_length = len;
	fcr.dest_offset = doff;
	if (ioctl(dst->fd, FICLONERANGE, &fcr) != 0) {
		return -errno;
	}
	return 0;
}

/* copy_file_range loop; *moved = bytes copied. 0 or -errno (caller falls back). */
static int
try_cfr(const struct xcm_lu *src, uint64_t so, const struct xcm_lu *dst, uint64_t doff,
	uint64_t len, uint64_t *moved)
{
	loff_t in = (loff_t)so, out = (loff_t)doff;
	ssize_t n;

	*moved = 0;
	while (*moved < len) {
		n = copy_file_range(src->fd, &in, dst->fd, &out, (size_t)(len - *moved), 0);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -errno;
		}
		if (n == 0) {
			return -ENODATA;   /* source shorter than expected */
		}
		*moved += (uint64_t)n;
	}
	return 0;
}

static int
pread_full(const struct xcm_lu *lu, uint8_t *buf, size_t len, uint64_t off)
{
	size_t got = 0, want;
	ssize_t n;
	int rc;

	while (got < len) {
		want = len - got;
		rc = xt_fault_io(lu, false, &want);   /* fault injection (fault.c) */
		if (rc != 0) {
			return rc;
		}
		n = pread(lu->fd, buf + got, want, (off_t)(off + got));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -errno;
		}
		if (n == 0) {
			return -EIO;   /* backing file shorter than the LU */
		}
		got += (size_t)n;
	}
	return 0;
}

static int
pwrite_full(const struct xcm_lu *lu, const uint8_t *buf, size_t len, uint64_t off,
	    uint64_t *put_out)
{
	size_t put = 0, want;
	ssize_t n;
	int rc;

	*put_out = 0;
	while (put < len) {
		want = len - put;
		rc = xt_fault_io(lu, true, &want);   /* fault injection (fault.c) */
		if (rc != 0) {
			return rc;
		}
		n = pwrite(lu->fd, buf + put, want, (off_t)(off + put));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -errno : -EIO;
		}
		put += (size_t)n;
		*put_out = put;
	}
	return 0;
}

static int
rw_copy(const struct xcm_lu *src, uint64_t so, const struct xcm_lu *dst, uint64_t doff,
	uint64_t len, uint8_t *bounce, bool backward, bool *at_dst, uint64_t *done)
{
	uint64_t pos, chunk, put;
	int rc;

	*done = 0;
	while (*done < len) {
		chunk = len - *done < XT_BOUNCE_LEN ? len - *done : XT_BOUNCE_LEN;
		/* backward: the last chunk first, so overlapping dst > src is safe */
		pos = backward ? len - *done - chunk : *done;
		rc = pread_full(src, bounce, (size_t)chunk, so + pos);
		if (rc != 0) {
			*at_dst = false;
			return rc;
		}
		rc = pwrite_full(dst, bounce, (size_t)chunk, doff + pos, &put);
		if (rc != 0) {
			*at_dst = true;
			/* forward: the bytes of a short write before the error count */
			if (!backward) {
				*done += put;
			}
			return rc;
		}
		*done += chunk;
	}
	return 0;
}

int
xt_file_copy(const struct xcm_lu *src, uint64_t src_off, const struct xcm_lu *dst,
	     uint64_t dst_off, uint64_t len, uint8_t *bounce, enum xt_clone clone,
	     enum xt_cfr cfr, struct xt_copy_acct *acct, bool *at_dst, uint64_t *done)
{
	bool same = same_file(src, dst);
	bool overlap = same && src_off < dst_off + len && dst_off < src_off + len;
	uint64_t moved = 0, rwdone = 0;
	int rc;

	*done = 0;
	*at_dst = false;
	if (len == 0 || (same && src_off == dst_off)) {
		return 0;   /* nothing to move */
	}
	if (xt_fault_active(src) || xt_fault_active(dst)) {
		/* fault injection (fault.c) counts pread/pwrite calls: no clone, no cfr */
		clone = XT_CLONE_NEVER;
		cfr = XT_CFR_NEVER;
	}
	if (clone != XT_CLONE_NEVER && !overlap) {
		rc = try_clone(src, src_off, dst, dst_off, len, clone);
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
	if (cfr == XT_CFR_AUTO && !overlap) {
		rc = try_cfr(src, src_off, dst, dst_off, len, &moved);
		acct->cfr_bytes += moved;
		if (rc == 0) {
			*done = len;
			return 0;
		}
		/* EXDEV, EOPNOTSUPP, EINVAL, or a real I/O error: the read/write loop
		 * below finishes the rest and tells which side failed. */
	}
	rc = rw_copy(src, src_off + moved, dst, dst_off + moved, len - moved, bounce,
		     overlap && dst_off > src_off, at_dst, &rwdone);
	acct->rw_bytes += rwdone;
	*done = moved + rwdone;
	return rc;
}

void
xt_wb_init(struct xt_wb *wb)
{
	wb->fd = -1;
	wb->off = 0;
	wb->len = 0;
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
xt_wb_chunk(struct xt_wb *wb, const struct xcm_lu *dst, uint64_t off, uint64_t len)
{
	if (dst->cfg.wb_late || len == 0) {
		return;
	}
	/* start this chunk's writeback; errors only mean no pacing */
	(void)sync_file_range(dst->fd, (off64_t)off, (off64_t)len, SYNC_FILE_RANGE_WRITE);
	if (wb->fd >= 0 && wb->len > 0) {
		/* the chunk before: wait until its pages are written back */
		(void)sync_file_range(wb->fd, (off64_t)wb->off, (off64_t)wb->len,
				      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
					      SYNC_FILE_RANGE_WAIT_AFTER);
	}
	wb->fd = dst->fd;
	wb->off = off;
	wb->len = len;
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
