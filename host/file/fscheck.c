/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which files' extents are LBAs of the device under their file system.
 *
 * xcopy_file_range() hands FIEMAP's fe_physical (plus the partition's
 * start) to a copy manager as LBAs of the LU the file system sits on. That
 * holds only where the file system maps a file's data onto that one device,
 * in place, as the file's plain bytes:
 *
 *   ext4 (also ext2/ext3 mounted by the ext4 or ext2 driver: one magic) and
 *   XFS: physical = byte offset on the file system's device. Allowed.
 *
 * Everything else is refused by its statfs f_type (XCOPY_FB_FS_TYPE):
 *   btrfs     physical is a logical address in its chunk tree's space (RAID,
 *             several devices, DUP), not a device offset;
 *   f2fs      several devices (-c), compressed clusters, in-place-or-not
 *             writes chosen per I/O;
 *   bcachefs, zfs, ocfs2, gfs2, nfs, fuse, overlayfs (st_dev is its own,
 *   FIEMAP the lower file's), vfat, ntfs3, ...: not checked against a LU
 *   here; cluster file systems have writers on other nodes.
 *
 * and per file (either side; a destination directory for the file about to
 * be created in it):
 *   XFS realtime (FS_XFLAG_REALTIME, RTINHERIT on a directory): the extents
 *       are on the realtime device, not the data device (XCOPY_FB_REALTIME);
 *   encrypted (STATX_ATTR_ENCRYPTED or FS_ENCRYPT_FL, whatever FIEMAP's
 *       flags say: ext4 does not set FIEMAP_EXTENT_DATA_ENCRYPTED): the
 *       blocks hold ciphertext under the file's own key (XCOPY_FB_ENCRYPTED);
 *   ext4 journalled data (FS_JOURNAL_DATA_FL, a data=journal mount): the
 *       data's home blocks are written at checkpoint, after fdatasync, so the
 *       source's may still be stale and the destination's may be overwritten
 *       with older journalled contents after the copy; the kernel's own
 *       bmap() flushes the journal for such files (XCOPY_FB_JOURNAL_DATA).
 * A flag that cannot be read is taken as set.
 */
#include <linux/fs.h>
#include <linux/magic.h>

#include "xch_fscheck.h"

enum xcopy_fallback_reason
xch_fs_decide(const struct xch_fsinfo *fi)
{
	if (fi->f_type != EXT4_SUPER_MAGIC && fi->f_type != XFS_SUPER_MAGIC) {
		return XCOPY_FB_FS_TYPE;
	}
	if (fi->encrypted || (fi->iflags & FS_ENCRYPT_FL)) {
		return XCOPY_FB_ENCRYPTED;
	}
	if (fi->f_type == XFS_SUPER_MAGIC &&
	    (!fi->xflags_known || (fi->xflags & FS_XFLAG_REALTIME) ||
	     (fi->is_dir && (fi->xflags & FS_XFLAG_RTINHERIT)))) {
		return XCOPY_FB_REALTIME;
	}
	if (fi->f_type == EXT4_SUPER_MAGIC &&
	    (!fi->iflags_known || fi->data_journal || (fi->iflags & FS_JOURNAL_DATA_FL))) {
		return XCOPY_FB_JOURNAL_DATA;
	}
	return XCOPY_FB_NONE;
}

static enum xcopy_fallback_reason
check_one(int fd)
{
	struct xch_fsinfo fi;

	if (fd < 0) {
		return XCOPY_FB_NONE;
	}
	if (xch_fs_probe(fd, &fi) != 0) {
		return XCOPY_FB_FS_TYPE;
	}
	return xch_fs_decide(&fi);
}

enum xcopy_fallback_reason
xch_fs_check(int fd_in, int fd_out)
{
	enum xcopy_fallback_reason why = check_one(fd_in);

	return why != XCOPY_FB_NONE ? why : check_one(fd_out);
}
