/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp -r: copy a directory tree like cp -a, each regular file through
 * xcopy_file_range() (so each is offloaded where libxcopy can), its data
 * ranges only (SEEK_DATA/SEEK_HOLE), so a sparse file stays sparse even when
 * the host copies it.
 *
 * Every name below the two roots is reached from an open directory with
 * openat/mkdirat/... and O_NOFOLLOW / AT_SYMLINK_NOFOLLOW: a symlink in the
 * source is copied as a link, and one in the destination (planted or left
 * from before) is never written through, so nothing lands outside DST. A
 * file that is no longer what fstatat said when it is opened (replaced
 * meanwhile) is an error for that entry, not a surprise for the copy.
 *
 * This file walks the tree and makes directories, symlinks and special
 * files; regular files and every entry's attributes (owner, mode, ACL,
 * times) are tree_file.c's (tree.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"

enum {
	/* directories deeper than this are reported, not walked (one fd per level) */
	TREE_MAX_DEPTH = 256,
};

/* --- names and entries ------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at p (1..4), 0 if none starts there. */
static size_t
utf8_len(const unsigned char *p)
{
	size_t n, i;

	if (p[0] < 0x80) {
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			return 0;
		}
	}
	/* overlong 3- and 4-byte forms, surrogates, beyond U+10FFFF */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f)) {
		return 0;
	}
	return n;
}

void
xcp_safe_name(char *buf, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n;

	if (cap == 0) {
		return;
	}
	while (*p != '\0' && o + 1 < cap) {
		n = utf8_len(p);
		if (n == 1 && (*p < 0x20 || *p == 0x7f)) {
			n = 0;
		}
		if (n == 0) {
			buf[o++] = '?';
			p++;
			continue;
		}
		if (o + n >= cap) {
			break;
		}
		memcpy(buf + o, p, n);
		o += n;
		p += n;
	}
	buf[o] = '\0';
}

struct xcp_tree_entry *
xcp_tree_add(struct xcp_tree *t, char type)
{
	struct xcp_tree_entry *e;

	if (t->nent == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		void *p = realloc(t->ent, cap * sizeof(*t->ent));

		if (p == NULL) {
			return NULL;
		}
		t->ent = p;
		t->cap = cap;
	}
	e = &t->ent[t->nent];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->path = strdup(t->path[0] ? t->path : ".");
	if (e->path == NULL) {
		return NULL;
	}
	t->nent++;
	return e;
}

/* One line "xcp: PATH: msg" on t->err, control bytes and bad UTF-8 as '?'. */
static void
entry_line(struct xcp_tree *t, const char *msg)
{
	char name[1024];

	if (t->prog != NULL) {
		xcp_progress_clear(t->prog);
	}
	xcp_safe_name(name, sizeof(name), t->path[0] ? t->path : ".");
	fprintf(t->err ? t->err : stderr, "xcp: %s: %s\n", name, msg);
}

/* fmt with ap into msg, made safe to print (xcp_safe_name) */
__attribute__((format(printf, 3, 0))) static void
safe_vfmt(char *msg, size_t len, const char *fmt, va_list ap)
{
	char raw[512];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	xcp_safe_name(msg, len, raw);
}

void
xcp_tree_note(struct xcp_tree *t, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	safe_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	entry_line(t, msg);
}

void
xcp_tree_fail(struct xcp_tree *t, struct xcp_tree_entry *e, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	safe_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->failed++;
	if (e == NULL) {
		e = xcp_tree_add(t, t->kind);
	}
	if (e != NULL && e->error == NULL) {
		e->error = strdup(msg);
	}
	entry_line(t, msg);
}

/* t->path += "/" name; 0, or -1 when it would not fit (reported). */
static int
path_push(struct xcp_tree *t, const char *name, size_t *saved)
{
	size_t len = strlen(t->path), n = strlen(name);

	*saved = len;
	if (len + 1 + n + 1 > sizeof(t->path)) {
		xcp_tree_fail(t, NULL, "path longer than %zu bytes below the source: skipped",
			   sizeof(t->path) - 1);
		return -1;
	}
	if (len > 0) {
		t->path[len++] = '/';
	}
	memcpy(t->path + len, name, n + 1);
	return 0;
}

static void
path_pop(struct xcp_tree *t, size_t saved)
{
	t->path[saved] = '\0';
}

/* --- symlinks and special files ------------------------------------------------------ */

static void
copy_link(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname,
	  const struct stat *lst)
{
	struct xcp_tree_entry *e = xcp_tree_add(t, 'l');
	char target[4096];
	struct stat dst;
	ssize_t n;

	t->symlinks++;
	n = readlinkat(sdir, sname, target, sizeof(target));
	if (n < 0 || (size_t)n >= sizeof(target)) {
		xcp_tree_fail(t, e, "cannot read the link: %s", n < 0 ? strerror(errno) : "too long");
		return;
	}
	target[n] = '\0';
	if (symlinkat(target, ddir, dname) != 0) {
		/* an old link there is replaced (unlinking never follows it); anything else stays */
		if (errno != EEXIST || fstatat(ddir, dname, &dst, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISLNK(dst.st_mode) || unlinkat(ddir, dname, 0) != 0 ||
		    symlinkat(target, ddir, dname) != 0) {
			xcp_tree_fail(t, e, "cannot create the link: %s", strerror(errno));
			return;
		}
	}
	xcp_tree_set_attrs_at(t, e, ddir, dname, lst, true);
}

static void
copy_special(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname,
	     const struct stat *lst)
{
	struct xcp_tree_entry *e = xcp_tree_add(t, 's');
	struct stat st = *lst;

	t->specials++;
	if (mknodat(ddir, dname, lst->st_mode & (S_IFMT | 0600), lst->st_rdev) != 0) {
		xcp_tree_fail(t, e, "cannot create the special file: %s", strerror(errno));
		return;
	}
	/* its group bits are an ACL's mask (the ACL is not copied): no group access */
	if ((st.st_mode & S_IRWXG) != 0 && xcp_tree_acl_at(sdir, sname) != 0) {
		xcp_tree_note(t, "the source's ACL is not copied for special files: group "
			      "permissions dropped");
		st.st_mode &= ~(mode_t)S_IRWXG;
	}
	xcp_tree_set_attrs_at(t, e, ddir, dname, &st, false);
}

/* --- directories ----------------------------------------------------------------------- */

static void copy_entry(struct xcp_tree *t, int sdir, int ddir, const char *sname,
		       const char *dname, int depth);

static int
skip_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* Everything in sfd into dfd, in name order (the report's order). */
static void
copy_children(struct xcp_tree *t, int sfd, int dfd, int depth)
{
	struct dirent **list = NULL;
	size_t saved;
	int n, i;

	n = scandirat(sfd, ".", &list, skip_dots, alphasort);
	if (n < 0) {
		xcp_tree_fail(t, NULL, "cannot read the directory: %s", strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (path_push(t, list[i]->d_name, &saved) == 0) {
			copy_entry(t, sfd, dfd, list[i]->d_name, list[i]->d_name, depth + 1);
			path_pop(t, saved);
		}
		free(list[i]);
	}
	free(list);
}

/* The directory dname in ddir, made (0700 while it is filled) or an existing one. */
static int
open_dst_dir(struct xcp_tree *t, struct xcp_tree_entry *e, int ddir, const char *dname)
{
	int dfd;

	if (mkdirat(ddir, dname, 0700) != 0 && errno != EEXIST) {
		xcp_tree_fail(t, e, "cannot create the directory: %s", strerror(errno));
		return -1;
	}
	/* O_NOFOLLOW: a symlink where the directory should be is not entered */
	dfd = openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		xcp_tree_fail(t, e, "cannot open the destination directory: %s%s", strerror(errno),
			   errno == ELOOP || errno == ENOTDIR ?
			   " (it exists and is not a directory; symbolic links are not followed)" : "");
	}
	return dfd;
}

static void
copy_dir(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname, int depth)
{
	struct xcp_tree_entry *e = NULL;
	struct stat sst;
	int sfd, dfd;

	t->dirs++;
	t->kind = 'd';
	sfd = openat(sdir, sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0 || fstat(sfd, &sst) != 0) {
		xcp_tree_fail(t, e, "cannot open the directory: %s", strerror(errno));
		if (sfd >= 0) {
			close(sfd);
		}
		return;
	}
	if ((uint64_t)sst.st_dev == t->droot_dev && (uint64_t)sst.st_ino == t->droot_ino) {
		xcp_tree_fail(t, e, "is the destination of this copy: not copied into itself");
		close(sfd);
		return;
	}
	if (depth > TREE_MAX_DEPTH) {
		xcp_tree_fail(t, e, "more than %d directories deep: not copied", TREE_MAX_DEPTH);
		close(sfd);
		return;
	}
	dfd = open_dst_dir(t, e, ddir, dname);
	if (dfd < 0) {
		close(sfd);
		return;
	}
	copy_children(t, sfd, dfd, depth);
	t->kind = 'd';
	xcp_tree_set_attrs(t, e, dfd, sfd, &sst);
	close(dfd);
	close(sfd);
}

static void
copy_entry(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname, int depth)
{
	struct stat lst;

	t->kind = 's';
	if (fstatat(sdir, sname, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
		xcp_tree_fail(t, NULL, "cannot stat: %s", strerror(errno));
		return;
	}
	t->kind = S_ISDIR(lst.st_mode) ? 'd' : S_ISREG(lst.st_mode) ? 'f' : S_ISLNK(lst.st_mode) ? 'l' : 's';
	if (S_ISDIR(lst.st_mode)) {
		copy_dir(t, sdir, ddir, sname, dname, depth);
	} else if (S_ISREG(lst.st_mode)) {
		xcp_tree_copy_file(t, sdir, ddir, sname, dname, &lst);
	} else if (S_ISLNK(lst.st_mode)) {
		copy_link(t, sdir, ddir, sname, dname, &lst);
	} else {
		copy_special(t, sdir, ddir, sname, dname, &lst);
	}
}

/* --- the roots ------------------------------------------------------------------------------ */

/* Is directory fd inside (or) the directory (dev, ino)? Walks up "..". */
static bool
inside(int fd, dev_t dev, ino_t ino)
{
	struct stat st, up;
	int cur = dup(fd), next, i;
	bool in = false;

	for (i = 0; cur >= 0 && i < 4096; i++) {
		if (fstat(cur, &st) != 0) {
			break;
		}
		if (st.st_dev == dev && st.st_ino == ino) {
			in = true;
			break;
		}
		next = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || fstat(next, &up) != 0 ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
			if (next >= 0) {
				close(next);
			}
			break;   /* the root */
		}
		close(cur);
		cur = next;
	}
	if (cur >= 0) {
		close(cur);
	}
	return in;
}

/* Split path into its directory (opened) and last name; -errno. */
static int
open_parent(const char *path, char *name, size_t cap)
{
	char dir[4096];
	size_t len = strlen(path);
	const char *slash;
	int fd;

	while (len > 1 && path[len - 1] == '/') {
		len--;
	}
	if (len == 0 || len >= sizeof(dir)) {
		return -ENAMETOOLONG;
	}
	memcpy(dir, path, len);
	dir[len] = '\0';
	slash = strrchr(dir, '/');
	if (slash == NULL) {
		if (len >= cap) {
			return -ENAMETOOLONG;
		}
		memcpy(name, dir, len + 1);
		fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		if (strlen(slash + 1) >= cap) {
			return -ENAMETOOLONG;
		}
		memcpy(name, slash + 1, strlen(slash + 1) + 1);
		dir[slash == dir ? 1 : (size_t)(slash - dir)] = '\0';
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (name[0] == '\0') {
		/* "/": its own parent */
		snprintf(name, cap, ".");
	}
	return fd < 0 ? -errno : fd;
}

/* The run's error (SRC or DST unusable): one line, control bytes and bad UTF-8 as '?'. */
static int __attribute__((format(printf, 3, 4)))
root_fail(struct xcp_tree *t, int code, const char *fmt, ...)
{
	char msg[sizeof(t->error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	xcp_safe_name(t->error, sizeof(t->error), msg);
	if (t->prog != NULL) {
		xcp_progress_clear(t->prog);
	}
	fprintf(t->err ? t->err : stderr, "xcp: %s\n", t->error);
	return code;
}

static bool
is_dots(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/*
 * The directory DST goes in, opened, and the name of the copy in it
 * (dname): DST itself when it is a directory (followed: the user named
 * it), else DST's parent; -errno.
 */
static int
open_dst_parent(const char *dst, const char *sname, const struct stat *sst, char *dname,
		size_t cap, bool *into, bool *merge)
{
	struct stat st;
	int fd;

	*into = stat(dst, &st) == 0 && S_ISDIR(st.st_mode);
	*merge = false;
	if (*into) {
		fd = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		/* "xcp -r . DIR", "xcp -r / DIR": the contents, into DIR itself */
		*merge = S_ISDIR(sst->st_mode) && is_dots(sname);
		snprintf(dname, cap, "%s", *merge ? "." : sname);
		return fd < 0 ? -errno : fd;
	}
	fd = open_parent(dst, dname, cap);
	if (fd >= 0 && is_dots(dname)) {
		close(fd);
		fd = -EINVAL;
	}
	return fd;
}

/* A directory SRC: checked against DST, DST made; then the walk. An exit code, or -1 to go on. */
static int
copy_root_dir(struct xcp_tree *t, const char *src, const char *dst, int spfd, const char *sname,
	      const struct stat *sst, int dpfd, const char *dname, bool into, bool merge)
{
	struct stat st;
	int sfd, dfd;
	bool in;

	if (!into && fstatat(dpfd, dname, &st, 0) == 0 && !S_ISDIR(st.st_mode)) {
		return root_fail(t, XCP_EXIT_USAGE, "cannot copy directory %s onto %s: not a directory",
				 src, dst);
	}
	sfd = openat(spfd, sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0) {
		return root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", src, strerror(errno));
	}
	/* the copy would land in SRC itself or below it: cp refuses too */
	in = inside(dpfd, sst->st_dev, sst->st_ino);
	close(sfd);
	if (in) {
		return root_fail(t, XCP_EXIT_USAGE, "cannot copy %s into itself (%s is inside it)",
				 src, dst);
	}
	/* made now, so that the walk knows it (and never enters it) */
	if (!merge && mkdirat(dpfd, dname, 0700) != 0 && errno != EEXIST) {
		return root_fail(t, XCP_EXIT_OPEN, "cannot create %s: %s", dst, strerror(errno));
	}
	dfd = merge ? dup(dpfd) : openat(dpfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) != 0) {
		int code = root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", dst, strerror(errno));

		if (dfd >= 0) {
			close(dfd);
		}
		return code;
	}
	t->droot_dev = (uint64_t)st.st_dev;
	t->droot_ino = (uint64_t)st.st_ino;
	close(dfd);
	copy_dir(t, spfd, dpfd, sname, dname, 0);
	return -1;
}

/* The run's exit code from its entries; t->error names the first failed one. */
static int
tree_exit_code(struct xcp_tree *t)
{
	char name[1024];
	int code = XCP_EXIT_REFUSED;
	size_t i;

	if (t->failed == 0) {
		return XCP_EXIT_OK;
	}
	for (i = 0; i < t->nent; i++) {
		if (t->ent[i].error != NULL && !t->ent[i].refused) {
			code = XCP_EXIT_COPY;
		}
	}
	if (t->nent == 0) {
		code = XCP_EXIT_COPY;
	}
	for (i = 0; i < t->nent && t->error[0] == '\0'; i++) {
		if (t->ent[i].error != NULL) {
			xcp_safe_name(name, sizeof(name), t->ent[i].path);
			snprintf(t->error, sizeof(t->error), "%" PRIu64 " of the tree's entries not "
				 "copied (first: %.200s: %.200s)", t->failed, name, t->ent[i].error);
		}
	}
	return code;
}

int
xcp_tree_copy(struct xcp_tree *t, const char *src, const char *dst)
{
	char sname[256 * 4], dname[256 * 4];
	struct stat sst;
	bool into, merge;
	int spfd, dpfd, code;

	if ((spfd = open_parent(src, sname, sizeof(sname))) < 0) {
		return root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", src, strerror(-spfd));
	}
	if (fstatat(spfd, sname, &sst, AT_SYMLINK_NOFOLLOW) != 0) {
		code = root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", src, strerror(errno));
		close(spfd);
		return code;
	}
	dpfd = open_dst_parent(dst, sname, &sst, dname, sizeof(dname), &into, &merge);
	if (dpfd < 0) {
		code = root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", dst, strerror(-dpfd));
		close(spfd);
		return code;
	}
	snprintf(t->path, sizeof(t->path), "%s", S_ISDIR(sst.st_mode) ? "" : sname);
	code = -1;
	if (S_ISDIR(sst.st_mode)) {
		code = copy_root_dir(t, src, dst, spfd, sname, &sst, dpfd, dname, into, merge);
	} else {
		copy_entry(t, spfd, dpfd, sname, dname, 0);
	}
	if (code < 0) {
		code = tree_exit_code(t);
	}
	close(dpfd);
	close(spfd);
	return code;
}

/* --- size, reports ------------------------------------------------------------------------------ */

static uint64_t
size_at(int dir, const char *name, int depth)
{
	struct dirent **list = NULL;
	struct stat st;
	uint64_t sum = 0;
	int fd, n, i;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		return (uint64_t)st.st_size;
	}
	if (!S_ISDIR(st.st_mode) || depth > TREE_MAX_DEPTH ||
	    (fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		return 0;
	}
	n = scandirat(fd, ".", &list, skip_dots, NULL);
	for (i = 0; i < n; i++) {
		sum += size_at(fd, list[i]->d_name, depth + 1);
		free(list[i]);
	}
	free(list);
	close(fd);
	return sum;
}

uint64_t
xcp_tree_size(const char *src)
{
	char name[1024];
	uint64_t n;
	int fd = open_parent(src, name, sizeof(name));

	if (fd < 0) {
		return 0;
	}
	n = size_at(fd, name, 0);
	close(fd);
	return n;
}

void
xcp_tree_free(struct xcp_tree *t)
{
	size_t i;

	for (i = 0; i < t->nent; i++) {
		free(t->ent[i].path);
		free(t->ent[i].error);
		free(t->ent[i].reasons);
	}
	free(t->ent);
	t->ent = NULL;
	t->nent = t->cap = 0;
}

static const char *
type_name(char type)
{
	switch (type) {
	case 'f': return "file";
	case 'd': return "directory";
	case 'l': return "symlink";
	default: return "special";
	}
}

void
xcp_tree_stats_text(FILE *f, const struct xcp_tree *t)
{
	char name[1024];
	size_t i;
	unsigned k;

	fprintf(f, "tree:              %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64
		   " symlinks, %" PRIu64 " special, %" PRIu64 " failed\n",
		t->files, t->dirs, t->symlinks, t->specials, t->failed);
	fprintf(f, "bytes in files:    %" PRIu64 " (%" PRIu64 " left as holes)\n", t->total, t->holes);
	for (i = 0; i < t->nent; i++) {
		const struct xcp_tree_entry *e = &t->ent[i];

		xcp_safe_name(name, sizeof(name), e->path);
		if (e->type != 'f') {
			if (e->error != NULL) {
				fprintf(f, "%s %s: failed: %s\n", type_name(e->type), name, e->error);
			}
			continue;
		}
		fprintf(f, "file %s: %" PRIu64 " bytes, %" PRIu64 " offloaded, %" PRIu64 " host, %"
			   PRIu64 " holes", name, e->bytes, e->offloaded, e->host, e->holes);
		for (k = 0; k < e->nreasons; k++) {
			fprintf(f, "%s%s %" PRIu64, k == 0 ? "; fallback " : ", ",
				xcopy_fallback_reason_name(e->reasons[k].reason), e->reasons[k].bytes);
		}
		if (e->error != NULL) {
			fprintf(f, "; failed: %s", e->error);
		}
		fputc('\n', f);
	}
}

void
xcp_tree_json(struct xcp_json *j, const struct xcp_tree *t)
{
	char name[4096 * 2];
	size_t i;
	unsigned k;

	xcp_json_obj(j, "tree");
	xcp_json_u64(j, "files", t->files);
	xcp_json_u64(j, "directories", t->dirs);
	xcp_json_u64(j, "symlinks", t->symlinks);
	xcp_json_u64(j, "special", t->specials);
	xcp_json_u64(j, "failed", t->failed);
	xcp_json_u64(j, "bytes_holes", t->holes);
	xcp_json_arr(j, "entries");
	for (i = 0; i < t->nent; i++) {
		const struct xcp_tree_entry *e = &t->ent[i];

		if (e->type != 'f' && e->error == NULL) {
			continue;
		}
		/* valid JSON whatever the name's bytes */
		xcp_safe_name(name, sizeof(name), e->path);
		xcp_json_obj(j, NULL);
		xcp_json_str(j, "path", name);
		xcp_json_str(j, "type", type_name(e->type));
		if (e->type == 'f') {
			xcp_json_u64(j, "bytes", e->bytes);
			xcp_json_u64(j, "bytes_offloaded", e->offloaded);
			xcp_json_u64(j, "bytes_host", e->host);
			xcp_json_u64(j, "bytes_holes", e->holes);
			xcp_json_arr(j, "fallbacks");
			for (k = 0; k < e->nreasons; k++) {
				xcp_json_obj(j, NULL);
				xcp_json_str(j, "reason",
					     xcopy_fallback_reason_name(e->reasons[k].reason));
				xcp_json_u64(j, "ranges", e->reasons[k].ranges);
				xcp_json_u64(j, "bytes", e->reasons[k].bytes);
				xcp_json_end_obj(j);
			}
			xcp_json_end_arr(j);
		}
		xcp_json_str(j, "error", e->error);
		xcp_json_end_obj(j);
	}
	xcp_json_end_arr(j);
	xcp_json_end_obj(j);
}
