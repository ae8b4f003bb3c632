/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What fscheck.c decides from, read from the system: statfs(2), the
 * inode's flags (FS_IOC_FSGETXATTR, FS_IOC_GETFLAGS, statx(2)) and whether
 * an ext4 file system is mounted data=journal (/proc/fs/ext4, else
 * /proc/self/mountinfo). Its own file so that the unit tests can put a
 * fake probe in its place at link time (-Wl,--wrap=xch_fs_probe).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/magic.h>

#include "xch_fscheck.h"

bool
xch_opts_data_journal(const char *opts)
{
	const char *p = opts, *e;

	while (p != NULL && *p != '\0') {
		e = p + strcspn(p, ",\n");
		if ((size_t)(e - p) == strlen("data=journal") && strncmp(p, "data=journal", 12) == 0) {
			return true;
		}
		p = *e != '\0' ? e + 1 : e;
	}
	return false;
}

bool
xch_mountinfo_data_journal(FILE *f, unsigned maj, unsigned min)
{
	char line[4096], fstype[64], src[1024], opts[2048];
	unsigned a, b;
	const char *sep;

	while (fgets(line, sizeof(line), f) != NULL) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS */
		if (sscanf(line, "%*s %*s %u:%u", &a, &b) != 2 || a != maj || b != min) {
			continue;
		}
		sep = strstr(line, " - ");
		if (sep != NULL && sscanf(sep + 3, "%63s %1023s %2047s", fstype, src, opts) == 3 &&
		    xch_opts_data_journal(opts)) {
			return true;
		}
	}
	return false;
}

/* /proc/fs/ext4/NAME/options lists every option in effect (defaults too). */
static int
ext4_proc_data_journal(dev_t dev)
{
	char path[PATH_MAX + 32], link[PATH_MAX], buf[4096];
	const char *name;
	ssize_t n;
	size_t got;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0) {
		return -1;
	}
	link[n] = '\0';
	name = strrchr(link, '/');
	name = name != NULL ? name + 1 : link;
	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/options", name);
	f = fopen(path, "re");
	if (f == NULL) {
		return -1;
	}
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	return xch_opts_data_journal(buf);
}

static bool
ext4_data_journal(dev_t dev)
{
	int rc = ext4_proc_data_journal(dev);
	FILE *f;
	bool dj;

	if (rc >= 0) {
		return rc == 1;
	}
	/* no /proc/fs/ext4: the mount's options (data=journal shown unless the default) */
	f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL) {
		return false;
	}
	dj = xch_mountinfo_data_journal(f, major(dev), minor(dev));
	fclose(f);
	return dj;
}

int
xch_fs_probe(int fd, struct xch_fsinfo *fi)
{
	struct fsxattr fx;
	struct statfs sf;
	struct statx sx;
	struct stat st;
	int fl = 0;

	memset(fi, 0, sizeof(*fi));
	if (fstatfs(fd, &sf) != 0 || fstat(fd, &st) != 0) {
		return -errno;
	}
	fi->f_type = (int64_t)sf.f_type;
	fi->is_dir = S_ISDIR(st.st_mode);
	memset(&fx, 0, sizeof(fx));
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) == 0) {
		fi->xflags_known = true;
		fi->xflags = fx.fsx_xflags;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0) {
		fi->iflags_known = true;
		fi->iflags = (uint32_t)fl;
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) == 0 &&
	    (sx.stx_attributes & STATX_ATTR_ENCRYPTED)) {
		fi->encrypted = true;
	}
	if (fi->f_type == EXT4_SUPER_MAGIC) {
		fi->data_journal = ext4_data_journal(st.st_dev);
	}
	return 0;
}
