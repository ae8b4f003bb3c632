/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The file store of a user:xcopy LU: a backing file or block device (xcopy//PATH). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fault/fault.h"
#include "store/file/store_file.h"
#include "xos.h"

static int
backing_size(int fd, const struct stat *st, uint64_t *size)
{
	if (S_ISREG(st->st_mode)) {
		*size = (uint64_t)st->st_size;
		return 0;
	}
	if (S_ISBLK(st->st_mode)) {
		return ioctl(fd, BLKGETSIZE64, size) == 0 ? 0 : -errno;
	}
	return -EINVAL;
}

static int
file_check(const char *cfgstring, char *why, size_t whylen)
{
	struct xt_cfg cfg;
	int rc = xt_cfg_parse(cfgstring, &cfg, why, whylen);

	if (rc != 0) {
		return rc;
	}
	if (access(cfg.path, R_OK | W_OK) != 0) {
		rc = -errno;
		snprintf(why, whylen, "backing file %s: %s%s", cfg.path, strerror(-rc),
			 rc == -ENOENT ? " (create it first, e.g. truncate -s SIZE)" : "");
		return rc;
	}
	return 0;
}

/* Opens cfg.path read-write; *size: its bytes (lu_open.c checks the geometry). */
static int
file_open(struct xcm_lu *lu, uint64_t *size)
{
	struct statfs sfs;
	struct stat st;
	int rc;

	lu->fd = open(lu->cfg.path, O_RDWR | O_CLOEXEC);
	if (lu->fd < 0) {
		rc = -errno;
		tcmu_dev_err(lu->dev, "xcopy: backing file %s %s: %s\n", lu->cfg.path,
			     rc == -ENOENT ? "does not exist" : "cannot be opened read-write",
			     strerror(-rc));
		return rc;
	}
	if (fstat(lu->fd, &st) != 0 || backing_size(lu->fd, &st, size) != 0) {
		tcmu_dev_err(lu->dev, "xcopy: backing file %s is not a regular file or block "
			     "device\n", lu->cfg.path);
		return -EINVAL;
	}
	lu->st_dev = st.st_dev;
	lu->st_ino = S_ISBLK(st.st_mode) ? (ino_t)st.st_rdev : st.st_ino;
	lu->fs_block = fstatfs(lu->fd, &sfs) == 0 && sfs.f_bsize > 0 ? (uint32_t)sfs.f_bsize : 4096;
	return 0;
}

static void
file_too_small(struct xcm_lu *lu, uint64_t size, uint64_t need)
{
	uint32_t bs = tcmu_dev_get_block_size(lu->dev);

	tcmu_dev_err(lu->dev, "xcopy: backing file %s is %llu bytes, smaller than the LU (%llu "
		     "blocks of %u = %llu bytes); extend it (truncate -s %llu %s)\n",
		     lu->cfg.path, (unsigned long long)size,
		     (unsigned long long)tcmu_dev_get_num_lbas(lu->dev), bs,
		     (unsigned long long)need, (unsigned long long)need, lu->cfg.path);
}

static void
file_close(struct xcm_lu *lu)
{
	if (lu->fd >= 0) {
		close(lu->fd);
		lu->fd = -1;
	}
}

static int
file_size(struct xcm_lu *lu, uint64_t *bytes)
{
	struct stat st;

	if (fstat(lu->fd, &st) != 0) {
		return -errno;
	}
	return backing_size(lu->fd, &st, bytes);
}

static int
file_io(struct xcm_lu *lu, const struct iovec *iov, size_t cnt, size_t len, uint64_t off,
	bool wr)
{
	return xt_iov_io(lu->fd, iov, cnt, len, (off_t)off, wr);
}

static int
file_flush(struct xcm_lu *lu)
{
	return fdatasync(lu->fd) == 0 ? 0 : -errno;
}

/* Punch a hole (ZERO_RANGE or written zeros where the fs cannot). */
static int
file_zero(struct xcm_lu *lu, uint64_t off, uint64_t len)
{
	enum xos_zero_how how;
	uint64_t written;

	return xos_zero_range(lu->fd, off, len, XOS_ZERO_MAY_WRITE, &how, &written);
}

/* Zeros keeping the allocation (ZERO_RANGE first, then a hole, then written zeros). */
static int
file_write_zeroes(struct xcm_lu *lu, uint64_t off, uint64_t len, uint64_t *done)
{
	enum xos_zero_how how;

	return xos_zero_range(lu->fd, off, len, XOS_ZERO_RANGE_FIRST | XOS_ZERO_MAY_WRITE, &how,
			      done);
}

struct xcm_lu *
xt_file_view(int fd, uint32_t fs_block)
{
	struct xcm_lu *v = calloc(1, sizeof(*v));
	struct stat st;

	if (v == NULL || fstat(fd, &st) != 0) {
		free(v);
		return NULL;
	}
	v->ops = &xt_store_file;
	v->fd = fd;
	v->fs_block = fs_block;
	v->st_dev = st.st_dev;
	v->st_ino = st.st_ino;
	return v;
}

const struct xt_store_ops xt_store_file = {
	.name = "file",
	.page_cache = true,
	.copy_policy = true,
	.copy_chunk = (uint64_t)XT_CHUNK * XT_PAR_PIECES,   /* pieces copied at once (parallel.c) */
	.parse = xt_cfg_parse,
	.check = file_check,
	.open = file_open,
	.too_small = file_too_small,
	.close = file_close,
	.size = file_size,
	.io = file_io,
	.flush = file_flush,
	.zero = file_zero,
	.write_zeroes = file_write_zeroes,
};
