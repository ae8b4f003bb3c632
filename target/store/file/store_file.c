/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The file store of a user:xcopy LU: a backing file or block device (xcopy//PATH). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

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

/*
 * The LU's READ and WRITE go O_DIRECT where they can (dio=auto): the kernel
 * moves the bytes between the TCMU data area and the medium, with no copy
 * from user memory into the page cache (the cost of a buffered WRITE; docs/
 * HISTORY.md, "Where a WRITE's time goes"). A second descriptor, so small
 * I/O and copy_file_range keep the page cache; the kernel keeps
 * the two coherent on one inode (a direct write invalidates cached pages, a
 * direct read writes dirty ones back first). The alignment the file's
 * filesystem or device asks (statx STATX_DIOALIGN, else its block size);
 * none where O_DIRECT cannot be opened (tmpfs before Linux 6.6) or with
 * dio=never, nor on a block device with dio=auto: a block device does not
 * serialize a buffered write of part of a page against a direct write
 * beside it (XFS and ext4 do, by the inode's I/O lock), so the buffered
 * write's page, read before the direct write landed, could be written back
 * over it and undo blocks only the direct write wrote. dio=always there
 * sends every aligned READ and WRITE direct (the plugin's WRITE SAME still
 * goes through the page cache).
 */
static void
file_open_direct(struct xt_lu *lu, struct xt_file *f, bool blockdev)
{
	struct statx sx;

	f->dfd = -1;
	if (lu->cfg.dio == XT_DIO_NEVER || (blockdev && lu->cfg.dio == XT_DIO_AUTO)) {
		return;
	}
	f->dfd = open(lu->cfg.path, O_RDWR | O_CLOEXEC | O_DIRECT);
	if (f->dfd < 0) {
		xt_lu_info(lu, "xcopy: %s: no O_DIRECT (%s): READ and WRITE through "
		   "the page cache\n", lu->cfg.path, strerror(errno));
		return;
	}
	memset(&sx, 0, sizeof(sx));
	if (statx(f->dfd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN) != 0) {
		if (sx.stx_dio_mem_align == 0 || sx.stx_dio_offset_align == 0) {
			close(f->dfd);   /* the file says it takes no direct I/O */
			f->dfd = -1;
			return;
		}
		f->dio_mem = sx.stx_dio_mem_align;
		f->dio_off = sx.stx_dio_offset_align;
	} else {
		f->dio_mem = f->fs_block;   /* older kernels: what every filesystem takes */
		f->dio_off = f->fs_block;
	}
}

/*
 * Does copy_file_range go before the direct read/write loop on this file
 * (file_copy.c direct_first)? On filesystems whose server does it (NFS 4.2
 * COPY, SMB server-side copy, Ceph object copies, FUSE servers that
 * implement it: no byte crosses this host) and in memory (tmpfs: O_DIRECT
 * there is two memory copies where splicing is one). Elsewhere, without a
 * reflink, the kernel's copy_file_range moves each byte through the page
 * cache, and a block device takes no copy_file_range.
 */
static bool
fs_cfr_first(const struct stat *st, long type)
{
	static const long types[] = { 0x6969 /* NFS */, 0xFE534D42 /* SMB2 */,
				      0xFF534D42 /* CIFS */, 0x00C36400 /* Ceph */,
				      0x65735546 /* FUSE */, 0x01021994 /* tmpfs */ };
	size_t i;

	if (S_ISBLK(st->st_mode)) {
		return false;   /* fstatfs names the /dev filesystem, not the device's */
	}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if ((unsigned long)type == (unsigned long)types[i]) {
			return true;
		}
	}
	return false;
}

/* Opens cfg.path read-write; *size: its bytes (lu_open.c checks the geometry). */
static int
file_open(struct xt_lu *lu, uint64_t *size)
{
	struct xt_file *f = calloc(1, sizeof(*f));
	struct statfs sfs;
	struct stat st;
	int rc;

	if (f == NULL) {
		xt_lu_err(lu, "xcopy: out of memory\n");
		return -ENOMEM;
	}
	lu->priv = f;
	f->dfd = -1;
	f->fd = open(lu->cfg.path, O_RDWR | O_CLOEXEC);
	if (f->fd < 0) {
		rc = -errno;
		xt_lu_err(lu, "xcopy: backing file %s %s: %s\n", lu->cfg.path,
			  rc == -ENOENT ? "does not exist" : "cannot be opened read-write",
			  strerror(-rc));
		return rc;
	}
	if (fstat(f->fd, &st) != 0 || backing_size(f->fd, &st, size) != 0) {
		xt_lu_err(lu, "xcopy: backing file %s is not a regular file or block "
			  "device\n", lu->cfg.path);
		return -EINVAL;
	}
	f->st_dev = st.st_dev;
	f->st_ino = S_ISBLK(st.st_mode) ? (ino_t)st.st_rdev : st.st_ino;
	if (fstatfs(f->fd, &sfs) == 0) {
		f->fs_block = sfs.f_bsize > 0 ? (uint32_t)sfs.f_bsize : 4096;
		f->cfr_first = fs_cfr_first(&st, (long)sfs.f_type);
	} else {
		f->fs_block = 4096;
	}
	file_open_direct(lu, f, S_ISBLK(st.st_mode));
	return 0;
}

static void
file_too_small(struct xt_lu *lu, uint64_t size, uint64_t need)
{
	uint32_t bs = xt_lu_block_size(lu);

	xt_lu_err(lu, "xcopy: backing file %s is %llu bytes, smaller than the LU (%llu "
		  "blocks of %u = %llu bytes); extend it (truncate -s %llu %s)\n",
		  lu->cfg.path, (unsigned long long)size,
		  (unsigned long long)xt_lu_num_lbas(lu), bs,
		  (unsigned long long)need, (unsigned long long)need, lu->cfg.path);
}

static void
file_close(struct xt_lu *lu)
{
	struct xt_file *f = xt_file(lu);

	if (f == NULL) {
		return;   /* never opened (bad cfgstring) */
	}
	if (f->fd >= 0) {
		close(f->fd);
	}
	if (f->dfd >= 0) {
		close(f->dfd);
	}
	free(f);
	lu->priv = NULL;
}

static int
file_size(struct xt_lu *lu, uint64_t *bytes)
{
	struct stat st;

	if (fstat(xt_file(lu)->fd, &st) != 0) {
		return -errno;
	}
	return backing_size(xt_file(lu)->fd, &st, bytes);
}

/*
 * Can io go O_DIRECT: an initiator's READ or WRITE that dio= sends so, every
 * buffer, the offset and the length aligned as the file asks? dio=auto sends
 * READs and WRITEs of XT_DIO_MIN bytes or more: measured in the lab (tests/
 * bench/README.md, "O_DIRECT"), a 1 MiB READ or WRITE gains by not copying
 * between user memory and the page cache, while a 4 KiB one pays more for
 * the direct I/O's fixed cost than the copy saves (and a 4 KiB READ loses
 * the page cache's hits).
 */
static bool
file_io_direct(const struct xt_lu *lu, const struct xt_file *f, const struct xt_io *io)
{
	size_t i;

	if (!xt_dio_len_ok(lu, io->len) || f->dfd < 0 || !io->own || io->off % f->dio_off != 0 ||
	    io->len % f->dio_off != 0) {
		return false;
	}
	for (i = 0; i < io->cnt; i++) {
		if ((uintptr_t)io->iov[i].iov_base % f->dio_mem != 0 ||
		    io->iov[i].iov_len % f->dio_off != 0) {
			return false;
		}
	}
	return true;
}

/*
 * A direct READ or WRITE that the kernel refuses (EINVAL: an alignment the
 * statx answer did not tell) is done again, whole, through the page cache;
 * what part of it had moved is moved again, the same bytes to the same place.
 */
static int
file_io(struct xt_lu *lu, const struct xt_io *io)
{
	const struct xt_file *f = xt_file(lu);
	int rc;

	if (file_io_direct(lu, f, io)) {
		rc = xt_iov_io(f->dfd, io);
		if (rc != -EINVAL) {
			if (rc == 0) {
				XT_STAT_ADD(lu, io_direct_bytes, io->len);
			}
			return rc;
		}
	}
	rc = xt_iov_io(f->fd, io);
	if (rc == 0 && io->own) {
		XT_STAT_ADD(lu, io_buffered_bytes, io->len);
	}
	return rc;
}

static int
file_flush(struct xt_lu *lu)
{
	return fdatasync(xt_file(lu)->fd) == 0 ? 0 : -errno;
}

/* Punch a hole (ZERO_RANGE or written zeros where the fs cannot). */
static int
file_zero(struct xt_lu *lu, uint64_t off, uint64_t len, uint64_t deadline_ms)
{
	enum xos_zero_how how;
	uint64_t written;

	(void)deadline_ms;   /* a local file: no wait to bound */
	return xos_zero_range(xt_file(lu)->fd, off, len, XOS_ZERO_MAY_WRITE, &how, &written);
}

/* Zeros keeping the allocation (ZERO_RANGE first, then a hole, then written zeros). */
static int
file_write_zeroes(struct xt_lu *lu, uint64_t off, uint64_t len, uint64_t *done)
{
	enum xos_zero_how how;

	return xos_zero_range(xt_file(lu)->fd, off, len, XOS_ZERO_RANGE_FIRST | XOS_ZERO_MAY_WRITE,
			      &how, done);
}

/* An unlinked file in lu's backing file's directory (same filesystem: clones work); fd or -1. */
static int
file_tmpfile(const struct xt_lu *lu)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", lu->cfg.path);
	return open(dirname(dir), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

/* A token's snapshot file: unlinked, beside the backing file, size bytes; fd or -errno. */
static int
file_snap_file(const struct xt_lu *lu, uint64_t size)
{
	int fd = file_tmpfile(lu), rc;

	if (fd < 0) {
		return -errno;
	}
	if (ftruncate(fd, (off_t)size) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* Can the backing file clone into a file beside it (clone= not never)? */
static bool
file_reflink(struct xt_lu *lu)
{
	const struct xt_file *f = xt_file(lu);
	struct file_clone_range fcr;
	struct stat st;
	int fd;
	bool ok;

	if (lu->cfg.clone == XT_CLONE_NEVER || fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < f->fs_block) {
		return false;
	}
	fd = file_tmpfile(lu);
	if (fd < 0) {
		return false;
	}
	memset(&fcr, 0, sizeof(fcr));
	fcr.src_fd = f->fd;
	fcr.src_length = f->fs_block;
	ok = ioctl(fd, FICLONERANGE, &fcr) == 0;
	close(fd);
	return ok;
}

/* The LU and its file state in one allocation: free() of the LU releases both. */
struct file_view {
	struct xt_lu lu;                 /* first */
	struct xt_file f;
};

static struct xt_lu *
file_snap_view(const struct xt_lu *like, int fd)
{
	struct file_view *v = calloc(1, sizeof(*v));
	struct stat st;

	if (v == NULL || fstat(fd, &st) != 0) {
		free(v);
		return NULL;
	}
	v->lu.ops = &xt_store_file;
	v->lu.priv = &v->f;
	v->lu.cfg = like->cfg;
	v->f.fd = fd;
	v->f.dfd = -1;   /* a token's snapshot: read by copies only */
	v->f.fs_block = xt_file(like)->fs_block;
	v->f.st_dev = st.st_dev;
	v->f.st_ino = st.st_ino;
	return &v->lu;
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
	.reflink = file_reflink,
	.copy = xt_par_copy,
	.write_behind = xt_wb_chunk,
	.snap_file = file_snap_file,
	.snap_view = file_snap_view,
};
