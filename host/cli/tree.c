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

#include "xcp.h"

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

enum {
	/* directories deeper than this are reported, not walked (one fd per level) */
	TREE_MAX_DEPTH = 256,
	CHUNK = 1 << 30,
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

static struct xcp_tree_entry *
add_entry(struct xcp_tree *t, char type)
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

/* The failure of the entry at t->path: one line, kept for the report. */
static void __attribute__((format(printf, 3, 4)))
entry_fail(struct xcp_tree *t, struct xcp_tree_entry *e, const char *fmt, ...)
{
	char raw[512], msg[512], name[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	xcp_safe_name(msg, sizeof(msg), raw);
	t->failed++;
	if (e == NULL) {
		e = add_entry(t, t->kind);
	}
	if (e != NULL && e->error == NULL) {
		e->error = strdup(msg);
	}
	if (t->prog != NULL) {
		xcp_progress_clear(t->prog);
	}
	xcp_safe_name(name, sizeof(name), t->path[0] ? t->path : ".");
	fprintf(t->err ? t->err : stderr, "xcp: %s: %s\n", name, msg);
}

/* t->path += "/" name; 0, or -1 when it would not fit (reported). */
static int
path_push(struct xcp_tree *t, const char *name, size_t *saved)
{
	size_t len = strlen(t->path), n = strlen(name);

	*saved = len;
	if (len + 1 + n + 1 > sizeof(t->path)) {
		entry_fail(t, NULL, "path longer than %zu bytes below the source: skipped",
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

static void
stats_add(struct xcopy_stats *a, const struct xcopy_stats *b)
{
	int i;

	a->bytes_offloaded += b->bytes_offloaded;
	a->bytes_fallback += b->bytes_fallback;
	a->bytes_zeroed += b->bytes_zeroed;
	a->xcopy_cmds += b->xcopy_cmds;
	a->xcopy_failed += b->xcopy_failed;
	a->segments += b->segments;
	a->other_cmds += b->other_cmds;
	for (i = 0; i < XCOPY_FB_REASON_MAX; i++) {
		a->fallback_ranges[i] += b->fallback_ranges[i];
		a->fallback_bytes[i] += b->fallback_bytes[i];
	}
	a->bytes_lid1 += b->bytes_lid1;
	a->bytes_token += b->bytes_token;
	a->populate_cmds += b->populate_cmds;
	a->rrti_cmds += b->rrti_cmds;
	a->wut_cmds += b->wut_cmds;
	a->token_failed += b->token_failed;
}

/* The file's reasons (ranges > 0) into e->reasons. */
static void
entry_reasons(struct xcp_tree_entry *e, const struct xcopy_stats *st)
{
	unsigned n = 0;
	int r;

	for (r = 1; r < XCOPY_FB_REASON_COUNT; r++) {
		n += st->fallback_ranges[r] != 0;
	}
	if (n == 0 || (e->reasons = calloc(n, sizeof(*e->reasons))) == NULL) {
		return;
	}
	for (r = 1; r < XCOPY_FB_REASON_COUNT; r++) {
		if (st->fallback_ranges[r] != 0) {
			e->reasons[e->nreasons].reason = (enum xcopy_fallback_reason)r;
			e->reasons[e->nreasons].ranges = st->fallback_ranges[r];
			e->reasons[e->nreasons].bytes = st->fallback_bytes[r];
			e->nreasons++;
		}
	}
}

/* --- attributes ----------------------------------------------------------------- */

/* Owner (when kept), mode, then times: chown clears set-id bits, writes move mtime. */
static void
set_attrs(struct xcp_tree *t, struct xcp_tree_entry *e, int fd, const struct stat *st)
{
	const struct timespec ts[2] = { st->st_atim, st->st_mtim };

	if (t->keep_owner && fchown(fd, st->st_uid, st->st_gid) != 0) {
		entry_fail(t, e, "cannot set owner %u:%u: %s", (unsigned)st->st_uid,
			   (unsigned)st->st_gid, strerror(errno));
	}
	if (fchmod(fd, st->st_mode & 07777) != 0) {
		entry_fail(t, e, "cannot set mode %04o: %s", (unsigned)(st->st_mode & 07777),
			   strerror(errno));
	}
	if (futimens(fd, ts) != 0) {
		entry_fail(t, e, "cannot set times: %s", strerror(errno));
	}
}

/* The same for an entry that cannot be opened (symlink, special file). */
static void
set_attrs_at(struct xcp_tree *t, struct xcp_tree_entry *e, int dfd, const char *name,
	     const struct stat *st, bool is_link)
{
	const struct timespec ts[2] = { st->st_atim, st->st_mtim };

	if (t->keep_owner && fchownat(dfd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) != 0) {
		entry_fail(t, e, "cannot set owner %u:%u: %s", (unsigned)st->st_uid,
			   (unsigned)st->st_gid, strerror(errno));
	}
	/* a symlink has no mode of its own on Linux */
	if (!is_link && fchmodat(dfd, name, st->st_mode & 07777, AT_SYMLINK_NOFOLLOW) != 0) {
		entry_fail(t, e, "cannot set mode %04o: %s", (unsigned)(st->st_mode & 07777),
			   strerror(errno));
	}
	if (utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW) != 0) {
		entry_fail(t, e, "cannot set times: %s", strerror(errno));
	}
}

/* --- regular files ---------------------------------------------------------------- */

/* [off, off+len) of in to the same offsets of out, through libxcopy. */
static int
copy_range(struct xcp_tree *t, int in, int out, uint64_t off, uint64_t len, struct xcopy_stats *st)
{
	int64_t si = (int64_t)off, di = (int64_t)off;

	while (len > 0) {
		size_t chunk = len > CHUNK ? (size_t)CHUNK : (size_t)len;
		ssize_t n = xcopy_file_range(in, &si, out, &di, chunk, t->flags, st);

		if (n < 0) {
			return (int)n;
		}
		if (n == 0) {
			return -ENODATA;   /* the source shrank under us */
		}
		len -= (uint64_t)n;
	}
	return 0;
}

/*
 * A source hole at [off, end): the destination must read zeros there. Past
 * the destination's old end it will (ftruncate makes a hole); below it the
 * old bytes are punched out, or, where punching is not supported, the zeros
 * are copied like data. Bytes left as holes: *holes.
 */
static int
copy_hole(struct xcp_tree *t, int in, int out, uint64_t off, uint64_t end, uint64_t dsize,
	  uint64_t *holes, struct xcopy_stats *st)
{
	uint64_t pend = end < dsize ? end : dsize;

	if (off < pend && fallocate(out, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				    (off_t)(pend - off)) != 0) {
		return copy_range(t, in, out, off, end - off, st);
	}
	*holes += end - off;
	if (t->prog != NULL) {
		t->prog->done += end - off;
	}
	return 0;
}

/* Data ranges (SEEK_DATA/SEEK_HOLE) one by one; holes kept. */
static int
copy_data(struct xcp_tree *t, int in, int out, uint64_t size, uint64_t dsize, uint64_t *holes,
	  struct xcopy_stats *st)
{
	uint64_t off = 0, data, hole;
	off_t o;
	int rc;

	while (off < size) {
		o = lseek(in, (off_t)off, SEEK_DATA);
		if (o < 0) {
			/* ENXIO: a hole to the end; else no SEEK_DATA: all of it is data */
			data = errno == ENXIO ? size : off;
		} else {
			data = (uint64_t)o < size ? (uint64_t)o : size;
		}
		if (data > off && (rc = copy_hole(t, in, out, off, data, dsize, holes, st)) != 0) {
			return rc;
		}
		if (data >= size) {
			break;
		}
		o = lseek(in, (off_t)data, SEEK_HOLE);
		hole = o < 0 || (uint64_t)o > size ? size : (uint64_t)o;
		if (hole <= data) {
			hole = size;
		}
		if ((rc = copy_range(t, in, out, data, hole - data, st)) != 0) {
			return rc;
		}
		off = hole;
	}
	return 0;
}

static const char *
copy_error(struct xcp_tree *t, struct xcp_tree_entry *e, int rc)
{
	if ((t->flags & XCOPY_REQUIRE_OFFLOAD) && (rc == -EOPNOTSUPP || rc == -EXDEV)) {
		e->refused = true;
		return "offload refused (--require-offload): not copied; xcp --explain shows why";
	}
	if (rc == -ENODATA) {
		return "the source file shrank during the copy";
	}
	return NULL;
}

static void
copy_file(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname,
	  const struct stat *lst)
{
	struct xcp_tree_entry *e = add_entry(t, 'f');
	struct xcopy_stats st;
	struct stat sst, dst;
	uint64_t holes = 0;
	const char *why;
	bool created;
	int in, out, rc;

	t->files++;
	if (e == NULL) {
		entry_fail(t, NULL, "out of memory");
		return;
	}
	e->bytes = (uint64_t)lst->st_size;
	in = openat(sdir, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0 || fstat(in, &sst) != 0) {
		entry_fail(t, e, "cannot open: %s", strerror(errno));
		if (in >= 0) {
			close(in);
		}
		return;
	}
	if (!S_ISREG(sst.st_mode)) {
		entry_fail(t, e, "replaced by another kind of file during the copy: skipped");
		close(in);
		return;
	}
	e->bytes = (uint64_t)sst.st_size;
	t->total += e->bytes;
	/* no O_TRUNC: an existing, written destination can be copied into in place
	 * (offloaded: its blocks exist); O_NONBLOCK: a FIFO there must not hang us */
	out = openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		     O_CLOEXEC, 0600);
	created = out >= 0;
	if (out < 0 && errno == EEXIST) {
		out = openat(ddir, dname, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	}
	if (out < 0) {
		entry_fail(t, e, "cannot create the copy: %s%s", strerror(errno),
			   errno == ELOOP ? " (the destination is a symbolic link: not followed)" : "");
		close(in);
		return;
	}
	if (fstat(out, &dst) != 0 || !S_ISREG(dst.st_mode)) {
		entry_fail(t, e, "the destination exists and is not a regular file");
		goto out;
	}
	if (dst.st_dev == sst.st_dev && dst.st_ino == sst.st_ino) {
		entry_fail(t, e, "source and destination are the same file");
		goto out;
	}
	memset(&st, 0, sizeof(st));
	rc = copy_data(t, in, out, (uint64_t)sst.st_size, (uint64_t)dst.st_size, &holes, &st);
	e->offloaded = st.bytes_offloaded;
	e->host = st.bytes_fallback;
	e->holes = holes;
	entry_reasons(e, &st);
	stats_add(&t->st, &st);
	t->holes += holes;
	if (rc != 0) {
		why = copy_error(t, e, rc);
		if (why != NULL) {
			entry_fail(t, e, "%s", why);
			/* refused before a byte was written: no empty file left behind */
			if (e->refused && created && e->host == 0 && e->offloaded == 0) {
				unlinkat(ddir, dname, 0);
			}
		} else {
			entry_fail(t, e, "copy failed: %s", strerror(-rc));
		}
		goto out;
	}
	/* the copy ends where the source does (an older, longer file is cut) */
	if (ftruncate(out, sst.st_size) != 0) {
		entry_fail(t, e, "cannot set the length: %s", strerror(errno));
		goto out;
	}
	set_attrs(t, e, out, &sst);
out:
	if (close(out) != 0) {
		entry_fail(t, e, "%s", strerror(errno));
	}
	close(in);
}

/* --- symlinks and special files ------------------------------------------------------ */

static void
copy_link(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname,
	  const struct stat *lst)
{
	struct xcp_tree_entry *e = add_entry(t, 'l');
	char target[4096];
	struct stat dst;
	ssize_t n;

	t->symlinks++;
	n = readlinkat(sdir, sname, target, sizeof(target));
	if (n < 0 || (size_t)n >= sizeof(target)) {
		entry_fail(t, e, "cannot read the link: %s", n < 0 ? strerror(errno) : "too long");
		return;
	}
	target[n] = '\0';
	if (symlinkat(target, ddir, dname) != 0) {
		/* an old link there is replaced (unlinking never follows it); anything else stays */
		if (errno != EEXIST || fstatat(ddir, dname, &dst, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISLNK(dst.st_mode) || unlinkat(ddir, dname, 0) != 0 ||
		    symlinkat(target, ddir, dname) != 0) {
			entry_fail(t, e, "cannot create the link: %s", strerror(errno));
			return;
		}
	}
	set_attrs_at(t, e, ddir, dname, lst, true);
}

static void
copy_special(struct xcp_tree *t, int ddir, const char *dname, const struct stat *lst)
{
	struct xcp_tree_entry *e = add_entry(t, 's');

	t->specials++;
	if (mknodat(ddir, dname, lst->st_mode & (S_IFMT | 0600), lst->st_rdev) != 0) {
		entry_fail(t, e, "cannot create the special file: %s", strerror(errno));
		return;
	}
	set_attrs_at(t, e, ddir, dname, lst, false);
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
		entry_fail(t, NULL, "cannot read the directory: %s", strerror(errno));
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
		entry_fail(t, e, "cannot create the directory: %s", strerror(errno));
		return -1;
	}
	/* O_NOFOLLOW: a symlink where the directory should be is not entered */
	dfd = openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		entry_fail(t, e, "cannot open the destination directory: %s%s", strerror(errno),
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
		entry_fail(t, e, "cannot open the directory: %s", strerror(errno));
		if (sfd >= 0) {
			close(sfd);
		}
		return;
	}
	if ((uint64_t)sst.st_dev == t->droot_dev && (uint64_t)sst.st_ino == t->droot_ino) {
		entry_fail(t, e, "is the destination of this copy: not copied into itself");
		close(sfd);
		return;
	}
	if (depth > TREE_MAX_DEPTH) {
		entry_fail(t, e, "more than %d directories deep: not copied", TREE_MAX_DEPTH);
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
	set_attrs(t, e, dfd, &sst);
	close(dfd);
	close(sfd);
}

static void
copy_entry(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname, int depth)
{
	struct stat lst;

	t->kind = 's';
	if (fstatat(sdir, sname, &lst, AT_SYMLINK_NOFOLLOW) != 0) {
		entry_fail(t, NULL, "cannot stat: %s", strerror(errno));
		return;
	}
	t->kind = S_ISDIR(lst.st_mode) ? 'd' : S_ISREG(lst.st_mode) ? 'f' : S_ISLNK(lst.st_mode) ? 'l' : 's';
	if (S_ISDIR(lst.st_mode)) {
		copy_dir(t, sdir, ddir, sname, dname, depth);
	} else if (S_ISREG(lst.st_mode)) {
		copy_file(t, sdir, ddir, sname, dname, &lst);
	} else if (S_ISLNK(lst.st_mode)) {
		copy_link(t, sdir, ddir, sname, dname, &lst);
	} else {
		copy_special(t, ddir, dname, &lst);
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

int
xcp_tree_copy(struct xcp_tree *t, const char *src, const char *dst)
{
	char sname[256 * 4], dname[256 * 4];
	struct stat sst, dst_st, st;
	bool into, merge = false;
	int spfd, dpfd = -1, dfd = -1, sfd, code;

	if ((spfd = open_parent(src, sname, sizeof(sname))) < 0) {
		return root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", src, strerror(-spfd));
	}
	if (fstatat(spfd, sname, &sst, AT_SYMLINK_NOFOLLOW) != 0) {
		code = root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", src, strerror(errno));
		close(spfd);
		return code;
	}
	/* DST a directory (followed: the user named it): the copy goes into it */
	into = stat(dst, &dst_st) == 0 && S_ISDIR(dst_st.st_mode);
	if (into) {
		dpfd = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		/* "xcp -r . DIR", "xcp -r / DIR": the contents, into DIR itself */
		merge = S_ISDIR(sst.st_mode) && is_dots(sname);
		snprintf(dname, sizeof(dname), "%s", merge ? "." : sname);
	} else {
		dpfd = open_parent(dst, dname, sizeof(dname));
		if (dpfd >= 0 && is_dots(dname)) {
			close(dpfd);
			dpfd = -EINVAL;
		}
		if (dpfd < 0) {
			errno = -dpfd;
		}
	}
	if (dpfd < 0) {
		code = root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", dst, strerror(errno));
		close(spfd);
		return code;
	}
	snprintf(t->path, sizeof(t->path), "%s", S_ISDIR(sst.st_mode) ? "" : sname);
	if (!S_ISDIR(sst.st_mode)) {
		copy_entry(t, spfd, dpfd, sname, dname, 0);
		goto out;
	}
	if (!into && fstatat(dpfd, dname, &st, 0) == 0 && !S_ISDIR(st.st_mode)) {
		code = root_fail(t, XCP_EXIT_USAGE, "cannot copy directory %s onto %s: not a directory",
				 src, dst);
		goto done;
	}
	sfd = openat(spfd, sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0) {
		code = root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", src, strerror(errno));
		goto done;
	}
	/* the copy would land in SRC itself or below it: cp refuses too */
	if (inside(dpfd, sst.st_dev, sst.st_ino)) {
		close(sfd);
		code = root_fail(t, XCP_EXIT_USAGE, "cannot copy %s into itself (%s is inside it)",
				 src, dst);
		goto done;
	}
	close(sfd);
	dfd = merge ? dup(dpfd) : -1;
	if (!merge) {
		/* made now, so that the walk knows it (and never enters it) */
		if (mkdirat(dpfd, dname, 0700) != 0 && errno != EEXIST) {
			code = root_fail(t, XCP_EXIT_OPEN, "cannot create %s: %s", dst, strerror(errno));
			goto done;
		}
		dfd = openat(dpfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (dfd < 0 || fstat(dfd, &st) != 0) {
		code = root_fail(t, XCP_EXIT_OPEN, "cannot open %s: %s", dst, strerror(errno));
		goto done;
	}
	t->droot_dev = (uint64_t)st.st_dev;
	t->droot_ino = (uint64_t)st.st_ino;
	close(dfd);
	dfd = -1;
	copy_dir(t, spfd, dpfd, sname, dname, 0);
out:
	code = XCP_EXIT_OK;
	if (t->failed != 0) {
		size_t i;

		code = XCP_EXIT_REFUSED;
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
				char name[1024];

				xcp_safe_name(name, sizeof(name), t->ent[i].path);
				snprintf(t->error, sizeof(t->error), "%" PRIu64 " of the tree's entries not "
					 "copied (first: %.200s: %.200s)", t->failed, name, t->ent[i].error);
			}
		}
	}
done:
	if (dfd >= 0) {
		close(dfd);
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
