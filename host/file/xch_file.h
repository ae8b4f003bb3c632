/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host/file/: files to extents to LU blocks: FIEMAP and the extent pairing
 * (fiemap.c), the device handles under file systems (file_dev.c), the host's
 * own copies (file_host.c), xcopy_file_range() (file.c) and the plans
 * (plan_api.c). Host-internal (xch_ prefix, hidden by the version script).
 */
#ifndef XCH_FILE_H
#define XCH_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/types.h>

#include "xcopy.h"
#include "copy/xch_copy.h"
#include "device/xch_device.h"

/* ------------------------------------------------------------------------ */
/* Files: FIEMAP and the extent pairing                                       */
/* ------------------------------------------------------------------------ */

struct xch_fext {
	uint64_t logical;
	uint64_t physical;
	uint64_t length;
	uint32_t flags;        /* FIEMAP_EXTENT_* */
};

/* All extents of fd overlapping [start, start + len), sorted. 0 or -errno. */
int xch_fiemap(int fd, uint64_t start, uint64_t len, struct xch_fext **out, size_t *n);

enum xch_src_class {
	XCH_SRC_DATA = 0,      /* copy by offload */
	XCH_SRC_HOLE,          /* reads as zeros: zero the destination */
	XCH_SRC_UNSAFE,        /* copy by fallback */
};
/* Classify a source extent from its FIEMAP flags (*why set for UNSAFE). */
enum xch_src_class xch_src_extent_class(uint32_t flags, enum xcopy_fallback_reason *why);
/* May the copy manager write under a destination extent with these flags? */
bool xch_dst_extent_ok(uint32_t flags, enum xcopy_fallback_reason *why);

/*
 * The device handles under files (file_dev.c's cache): the handle for a
 * file system's device, referenced for the caller until xch_file_dev_put(),
 * and its partition's byte offset. 0 or -errno, which
 * xch_file_dev_reason() turns into the fallback reason. The cache's lock is
 * held only inside these calls.
 */
int xch_file_dev(dev_t fsdev, struct xcopy_dev **out, uint64_t *part_off);
void xch_file_dev_put(struct xcopy_dev *dev);
/*
 * What the cache opens (fsdev.c): the device under a file system as sysfs
 * names it (*blk) and its partition's byte offset (0, -ENODEV when it is
 * neither a SCSI disk, a partition of one nor a device-mapper volume), and
 * the handle of what was found. 0 or -errno.
 */
int xch_fsdev_find(dev_t fsdev, struct xch_blk *blk, uint64_t *part_off);
int xch_fsdev_open(const struct xch_blk *blk, dev_t fsdev, struct xcopy_dev **out);
enum xcopy_fallback_reason xch_file_dev_reason(int rc);

/*
 * Host copies of xcopy_file_range() (file_host.c): copy_file_range(2) then
 * pread/pwrite, counted as fallback bytes; destination bytes that must read
 * as zeros (punched or zeroed; written zeros unless XCOPY_REQUIRE_OFFLOAD).
 */
int xch_host_copy(int fd_in, uint64_t so, int fd_out, uint64_t dof, uint64_t len,
		  struct xcopy_stats *st);
int xch_zero_dst(int fd_out, uint64_t off, uint64_t len, unsigned flags, struct xcopy_stats *st);

/*
 * Leases holding a file's extent map during an offload (lease.c): a lease
 * of type F_RDLCK / F_WRLCK on fd, with no signal ever sent for its break
 * (owner cleared; breaks found by xch_lease_held polling F_GETLEASE).
 * xch_lease_take: 0 or -errno (-EAGAIN: the file is open elsewhere;
 * -EACCES: neither owner nor CAP_LEASE; -EINVAL: no leases on this file
 * system; -EBUSY: fd already holds one). xch_lease_drop puts the caller's
 * owner and signal back (a lease not taken: nothing).
 */
struct xch_lease {
	int fd;
	int type;              /* F_RDLCK / F_WRLCK (F_RDLCK is 0) */
	bool held;
	int sig;               /* the descriptor's F_GETSIG before */
	struct f_owner_ex own; /* its F_GETOWN_EX before */
};
int xch_lease_take(struct xch_lease *l, int fd, int type);
bool xch_lease_held(const struct xch_lease *l);
void xch_lease_drop(struct xch_lease *l);
/* Bytes offloaded between two looks at the leases (32 MiB; lease.c). */
uint64_t xch_lease_batch_bytes(void);

/* Release >= major.minor ("6.17.0-1-amd64"): 1, 0, or -1 when unreadable (plan_api.c). */
int xch_kernel_at_least(const char *release, int major, int minor);
/*
 * Why FALLOC_FL_WRITE_ZEROES cannot give a destination written blocks:
 * XCOPY_FB_ALLOC (kernel < 6.17), _ALLOC_DISK (blk NULL or without unmap
 * write zeroes) or _ALLOC_FS (kernel and disk can: the file system cannot).
 */
enum xcopy_fallback_reason xch_alloc_reason(const char *release, const struct xch_blk *blk);
/* The same for the file system on dev (uname, /sys). */
enum xcopy_fallback_reason xch_alloc_reason_dev(dev_t dev);

enum xch_piece_kind {
	XCH_PIECE_OFFLOAD = 0,
	XCH_PIECE_HOLE,
	XCH_PIECE_FALLBACK,
};

struct xch_piece {
	enum xch_piece_kind kind;
	enum xcopy_fallback_reason why;  /* FALLBACK / HOLE */
	uint64_t src_off;      /* file offsets */
	uint64_t dst_off;
	uint64_t len;
	uint64_t src_phys;     /* byte addresses on the file systems' devices (OFFLOAD) */
	uint64_t dst_phys;
};

/*
 * Cut [off_in, off_in + len) into pieces from both files' extents. dst may
 * be NULL/0 (pre-pass: every data piece then needs a destination, reported
 * as FALLBACK with XCOPY_FB_DST_EXTENT). bs: the LU block size; offload
 * pieces are trimmed to whole blocks (edges become FALLBACK UNALIGNED) and
 * contiguous ones merged. 0 or -ENOMEM; *out freed by the caller.
 */
int xch_map_pieces(const struct xch_fext *src, size_t ns, const struct xch_fext *dst, size_t nd,
		   uint64_t off_in, uint64_t off_out, uint64_t len, uint32_t bs,
		   struct xch_piece **out, size_t *n);

#endif /* XCH_FILE_H */
