/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp -r: regular files, and the attributes of every entry (tree.h).
 *
 * Where a file of the copy goes, by what is at its name:
 *   - nothing: made (O_EXCL) and copied into; removed when the copy fails;
 *   - a regular file of ours with one link: copied into in place (its written
 *     blocks can receive an offloaded copy) and cut to the source's length; a
 *     failed copy puts its old length back;
 *   - anything else (another user's file, a file with more links, a symlink,
 *     a device node, a FIFO): never opened for writing. The copy is made
 *     under a temporary name in the same directory (.NAME.xcp-XXXXXX), gets
 *     its attributes there and is renamed over the entry; a failed copy
 *     removes the temporary and leaves the entry as it was.
 * The file copied into in place is opened with O_PATH, checked on that
 * handle and reopened through /proc/self/fd, so what is written is what was
 * checked (without /proc: the temporary way).
 *
 * Attributes: the owner (root), the mode with its set-id bits only when the
 * copy has the source's owner and group, the source's ACL (its group bits
 * are the ACL's mask: without the ACL they would give the owning group what
 * the ACL denies it, so where the ACL cannot be set they go), the times.
 */
#include <acl/libacl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tree.h"

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

enum {
	CHUNK = 1 << 30,
	TMP_TRIES = 64,        /* temporary names tried before giving up */
};

/* --- attributes --------------------------------------------------------------------------- */

/* Owner and group set when kept (root); true when the copy has the source's. */
static bool
set_owner(struct xcp_tree *t, struct xcp_tree_entry *e, int fd, const struct stat *st)
{
	struct stat now;

	if (t->keep_owner && fchown(fd, st->st_uid, st->st_gid) != 0) {
		xcp_tree_fail(t, e, "cannot set owner %u:%u: %s", (unsigned)st->st_uid,
			      (unsigned)st->st_gid, strerror(errno));
	}
	return fstat(fd, &now) == 0 && now.st_uid == st->st_uid && now.st_gid == st->st_gid;
}

/* The source's access ACL when it has entries beyond its mode, else NULL; *unsure: cannot tell. */
static acl_t
source_acl(int src, bool *unsure)
{
	int x = acl_extended_fd(src);
	acl_t a;

	*unsure = false;
	if (x == 0 || (x < 0 && (errno == ENOTSUP || errno == ENOSYS))) {
		return NULL;   /* none, or no ACLs on its file system: the mode says it all */
	}
	a = x > 0 ? acl_get_fd(src) : NULL;
	*unsure = a == NULL;
	if (a != NULL && acl_equiv_mode(a, NULL) == 0) {
		/* a directory's default ACL made it "extended": its access ACL is its mode */
		acl_free(a);
		a = NULL;
	}
	return a;
}

/* No group bits: the ACL that limited them is not on the copy. */
static void
drop_group(struct xcp_tree *t, struct xcp_tree_entry *e, int fd, mode_t mode, const char *why)
{
	xcp_tree_note(t, "%s: group permissions dropped", why);
	if (fchmod(fd, mode & ~(mode_t)S_IRWXG) != 0) {
		xcp_tree_fail(t, e, "cannot set mode %04o: %s", (unsigned)(mode & ~(mode_t)S_IRWXG),
			      strerror(errno));
	}
}

/* The copy's ACL: the source's (a), or none beyond its mode (not one from a default ACL). */
static void
set_acl(struct xcp_tree *t, struct xcp_tree_entry *e, int fd, acl_t a, bool unsure, mode_t mode)
{
	char why[160];
	acl_t m;

	if (a != NULL) {
		if (acl_set_fd(fd, a) != 0) {
			snprintf(why, sizeof(why), "the source's ACL cannot be set on the copy (%s)",
				 strerror(errno));
			drop_group(t, e, fd, mode, why);
		}
		return;
	}
	if (unsure) {
		drop_group(t, e, fd, mode, "the source's ACL cannot be read");
		return;
	}
	if (acl_extended_fd(fd) != 1) {
		return;
	}
	m = acl_from_mode(mode);
	if (m == NULL || acl_set_fd(fd, m) != 0) {
		xcp_tree_fail(t, e, "cannot remove the ACL inherited from the directory: %s",
			      strerror(errno));
	}
	if (m != NULL) {
		acl_free(m);
	}
}

void
xcp_tree_set_attrs(struct xcp_tree *t, struct xcp_tree_entry *e, int fd, int src,
		   const struct stat *st)
{
	const struct timespec ts[2] = { st->st_atim, st->st_mtim };
	mode_t mode = st->st_mode & 07777;
	bool unsure = false;
	acl_t a = src >= 0 ? source_acl(src, &unsure) : NULL;

	/* after the owner: chown clears set-id bits, and they stay off when it was not kept */
	if (!set_owner(t, e, fd, st)) {
		mode &= ~(mode_t)(S_ISUID | S_ISGID);
	}
	if (fchmod(fd, mode) != 0) {
		xcp_tree_fail(t, e, "cannot set mode %04o: %s", (unsigned)mode, strerror(errno));
	}
	set_acl(t, e, fd, a, unsure, mode);
	if (a != NULL) {
		acl_free(a);
	}
	/* last: writes move mtime */
	if (futimens(fd, ts) != 0) {
		xcp_tree_fail(t, e, "cannot set times: %s", strerror(errno));
	}
}

void
xcp_tree_set_attrs_at(struct xcp_tree *t, struct xcp_tree_entry *e, int dfd, const char *name,
		      const struct stat *st, bool is_link)
{
	const struct timespec ts[2] = { st->st_atim, st->st_mtim };
	mode_t mode = st->st_mode & 07777;
	struct stat now;

	if (t->keep_owner && fchownat(dfd, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) != 0) {
		xcp_tree_fail(t, e, "cannot set owner %u:%u: %s", (unsigned)st->st_uid,
			      (unsigned)st->st_gid, strerror(errno));
	}
	if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_uid != st->st_uid ||
	    now.st_gid != st->st_gid) {
		mode &= ~(mode_t)(S_ISUID | S_ISGID);
	}
	/* a symlink has no mode of its own on Linux */
	if (!is_link && fchmodat(dfd, name, mode, AT_SYMLINK_NOFOLLOW) != 0) {
		xcp_tree_fail(t, e, "cannot set mode %04o: %s", (unsigned)mode, strerror(errno));
	}
	if (utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW) != 0) {
		xcp_tree_fail(t, e, "cannot set times: %s", strerror(errno));
	}
}

int
xcp_tree_acl_at(int dfd, const char *name)
{
	char p[64 + 1024];
	int x;

	snprintf(p, sizeof(p), "/proc/self/fd/%d/%s", dfd, name);
	x = acl_extended_file_nofollow(p);
	return x == 0 || (x < 0 && (errno == ENOTSUP || errno == ENOSYS)) ? 0 : 1;
}

/* --- statistics -------------------------------------------------------------------------- */

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

/* --- data ------------------------------------------------------------------------------------ */

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


/* --- the destination ------------------------------------------------------------------------ */

struct dst_file {
	int fd;
	struct stat st;        /* of fd when opened */
	bool created;          /* the name was made by this copy */
	bool in_place;         /* the old file, copied into where it is */
	char tmp[256];         /* the temporary name, "" when none */
};

/* dname when it is a regular file of ours with one link, opened for writing; else -1. */
static int
open_in_place(int ddir, const char *dname, struct dst_file *d)
{
	char proc[64];
	struct stat now;
	int p, fd = -1;

	p = openat(ddir, dname, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0) {
		return -1;
	}
	if (fstat(p, &d->st) == 0 && S_ISREG(d->st.st_mode) && d->st.st_uid == geteuid() &&
	    d->st.st_nlink == 1) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p);
		fd = open(proc, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	}
	close(p);
	if (fd >= 0 && (fstat(fd, &now) != 0 || now.st_dev != d->st.st_dev ||
			now.st_ino != d->st.st_ino)) {
		close(fd);
		fd = -1;
	}
	d->fd = fd;
	d->in_place = fd >= 0;
	return fd >= 0 ? 0 : -1;
}

static uint32_t
tmp_random(unsigned i)
{
	struct timespec ts;
	uint32_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r)) {
		return r;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint32_t)getpid() * 2654435761u) ^ (uint32_t)ts.tv_nsec ^ (i * 40503u);
}

/* A new file .NAME.xcp-XXXXXX next to dname (NAME cut to fit NAME_MAX). */
static int
open_temp(struct xcp_tree *t, struct xcp_tree_entry *e, int ddir, const char *dname,
	  struct dst_file *d)
{
	unsigned i;

	for (i = 0; i < TMP_TRIES; i++) {
		snprintf(d->tmp, sizeof(d->tmp), ".%.200s.xcp-%06x", dname,
			 (unsigned)(tmp_random(i) & 0xffffff));
		d->fd = openat(ddir, d->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
			       O_CLOEXEC, 0600);
		if (d->fd >= 0 && fstat(d->fd, &d->st) == 0) {
			return 0;
		}
		if (d->fd >= 0 || errno != EEXIST) {
			break;
		}
	}
	xcp_tree_fail(t, e, "cannot create a temporary file for the copy: %s", strerror(errno));
	if (d->fd >= 0) {
		close(d->fd);
		unlinkat(ddir, d->tmp, 0);
	}
	d->tmp[0] = '\0';
	return -1;
}

/* Where the copy of dname is written (see the top of this file); 0 or -1 (reported). */
static int
open_dst(struct xcp_tree *t, struct xcp_tree_entry *e, int ddir, const char *dname,
	 struct dst_file *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		       0600);
	if (d->fd >= 0) {
		d->created = true;
		if (fstat(d->fd, &d->st) == 0) {
			return 0;
		}
		xcp_tree_fail(t, e, "cannot stat the copy: %s", strerror(errno));
		close(d->fd);
		unlinkat(ddir, dname, 0);
		return -1;
	}
	if (errno != EEXIST) {
		xcp_tree_fail(t, e, "cannot create the copy: %s", strerror(errno));
		return -1;
	}
	if (open_in_place(ddir, dname, d) == 0) {
		return 0;
	}
	return open_temp(t, e, ddir, dname, d);
}

/* The file made by this copy, if dname still is it. */
static void
unlink_created(int ddir, const char *dname, const struct stat *st)
{
	struct stat now;

	if (fstatat(ddir, dname, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino) {
		unlinkat(ddir, dname, 0);
	}
}

/*
 * The end: when ok, the temporary renamed over the entry; else the
 * destination as it was (its old length, no new file, no temporary).
 */
static void
close_dst(struct xcp_tree *t, struct xcp_tree_entry *e, int ddir, const char *dname,
	  struct dst_file *d, bool ok)
{
	if (!ok && d->in_place && ftruncate(d->fd, d->st.st_size) != 0) {
		xcp_tree_fail(t, e, "cannot put back the old length %lld: %s",
			      (long long)d->st.st_size, strerror(errno));
	}
	if (close(d->fd) != 0 && ok) {
		xcp_tree_fail(t, e, "%s", strerror(errno));
		ok = false;
	}
	if (ok && d->tmp[0] != '\0' && renameat(ddir, d->tmp, ddir, dname) != 0) {
		xcp_tree_fail(t, e, "cannot replace the entry there: %s", strerror(errno));
		ok = false;
	}
	if (!ok && d->tmp[0] != '\0') {
		unlinkat(ddir, d->tmp, 0);
	} else if (!ok && d->created) {
		unlink_created(ddir, dname, &d->st);
	}
}

/* --- a file ----------------------------------------------------------------------------------- */

static int
open_source(struct xcp_tree *t, struct xcp_tree_entry *e, int sdir, const char *sname,
	    struct stat *sst)
{
	int in = openat(sdir, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (in < 0 || fstat(in, sst) != 0) {
		xcp_tree_fail(t, e, "cannot open: %s", strerror(errno));
		if (in >= 0) {
			close(in);
		}
		return -1;
	}
	if (!S_ISREG(sst->st_mode)) {
		xcp_tree_fail(t, e, "replaced by another kind of file during the copy: skipped");
		close(in);
		return -1;
	}
	return in;
}

/* The data and the length into d; 0 when the copy is complete, else -1 (reported). */
static int
copy_body(struct xcp_tree *t, struct xcp_tree_entry *e, int in, const struct stat *sst,
	  const struct dst_file *d)
{
	struct xcopy_stats st;
	uint64_t holes = 0;
	const char *why;
	int rc;

	if (d->st.st_dev == sst->st_dev && d->st.st_ino == sst->st_ino) {
		xcp_tree_fail(t, e, "source and destination are the same file");
		return -1;
	}
	memset(&st, 0, sizeof(st));
	rc = copy_data(t, in, d->fd, (uint64_t)sst->st_size, (uint64_t)d->st.st_size, &holes, &st);
	e->offloaded = st.bytes_offloaded;
	e->host = st.bytes_fallback;
	e->holes = holes;
	entry_reasons(e, &st);
	stats_add(&t->st, &st);
	t->holes += holes;
	if (rc != 0) {
		why = copy_error(t, e, rc);
		if (why != NULL) {
			xcp_tree_fail(t, e, "%s", why);
		} else {
			xcp_tree_fail(t, e, "copy failed: %s", strerror(-rc));
		}
		return -1;
	}
	/* the copy ends where the source does (an older, longer file is cut) */
	if (ftruncate(d->fd, sst->st_size) != 0) {
		xcp_tree_fail(t, e, "cannot set the length: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void
xcp_tree_copy_file(struct xcp_tree *t, int sdir, int ddir, const char *sname, const char *dname,
		   const struct stat *lst)
{
	struct xcp_tree_entry *e = xcp_tree_add(t, 'f');
	struct dst_file d;
	struct stat sst;
	bool ok;
	int in;

	t->files++;
	if (e == NULL) {
		xcp_tree_fail(t, NULL, "out of memory");
		return;
	}
	e->bytes = (uint64_t)lst->st_size;
	in = open_source(t, e, sdir, sname, &sst);
	if (in < 0) {
		return;
	}
	e->bytes = (uint64_t)sst.st_size;
	t->total += e->bytes;
	if (open_dst(t, e, ddir, dname, &d) != 0) {
		close(in);
		return;
	}
	ok = copy_body(t, e, in, &sst, &d) == 0;
	if (ok) {
		/* on the temporary when there is one: the entry's name never has wrong permissions */
		xcp_tree_set_attrs(t, e, d.fd, in, &sst);
	}
	close_dst(t, e, ddir, dname, &d, ok);
	close(in);
}
