/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host/file/fscheck.c: may a file's FIEMAP addresses be handed to a copy
 * manager as LBAs of the device under its file system? Only on file systems
 * known to map files onto their own device (ext4, XFS), and per file not
 * when the bytes at those addresses are not the file's bytes (encrypted) or
 * not on that device (XFS realtime), or when the file system may still write
 * older contents there after the copy (ext4 journalled data).
 */
#ifndef XCH_FSCHECK_H
#define XCH_FSCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xcopy.h"

/* What the decision needs, gathered by xch_fs_probe() (tests fill it). */
struct xch_fsinfo {
	int64_t f_type;        /* statfs(2) f_type */
	bool is_dir;           /* a directory: the file about to be created in it */
	bool xflags_known;     /* FS_IOC_FSGETXATTR answered */
	uint32_t xflags;       /* its fsx_xflags (FS_XFLAG_*) */
	bool iflags_known;     /* FS_IOC_GETFLAGS answered */
	uint32_t iflags;       /* FS_*_FL */
	bool encrypted;        /* statx(2) STATX_ATTR_ENCRYPTED */
	bool data_journal;     /* ext4 mounted data=journal */
};

/* XCOPY_FB_NONE when offload may use the file's extents, else the reason. */
enum xcopy_fallback_reason xch_fs_decide(const struct xch_fsinfo *fi);
/* Fill *fi for fd (a regular file or a directory; fsprobe.c). 0 or -errno (statfs). */
int xch_fs_probe(int fd, struct xch_fsinfo *fi);
/*
 * Both sides of a copy: fd_out may be the destination's directory (a plan
 * before the file exists) or < 0 (not checked). XCOPY_FB_NONE or the
 * first side's reason.
 */
enum xcopy_fallback_reason xch_fs_check(int fd_in, int fd_out);
/* Mount options text ("rw,data=journal" or one per line): data=journal? */
bool xch_opts_data_journal(const char *opts);
/* /proc/self/mountinfo text: is the file system on major:minor data=journal? */
bool xch_mountinfo_data_journal(FILE *f, unsigned maj, unsigned min);

#endif /* XCH_FSCHECK_H */
