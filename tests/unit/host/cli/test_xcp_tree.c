/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp -r (host/cli/tree.c) on this machine's files: nothing here is on a
 * SCSI LU, so libxcopy copies on the host (reason not-scsi); the offloaded
 * case is lab test 300. Checked: bytes, modes, times, symlinks, holes kept,
 * the counts and per-file reasons, and the hostile cases: a symlink planted
 * in the destination is not written through, DST inside SRC is refused,
 * names with control bytes are printed safely, the JSON stays valid; as
 * root (issue #33): set-id bits go when the owner cannot be kept (a failed
 * fchown, injected: fake_sys.h), an existing entry that is not a regular file
 * of ours with one link is replaced, never written through, ACLs are kept
 * (or the group bits dropped where they cannot be), and a failed copy leaves
 * the destination as it was (its size; no new file, no temporary).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <acl/libacl.h>
#include <dirent.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fake_sys.h"
#include "ut.h"
#include "xcp.h"

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	UT_ASSERT_FATAL(f != NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	UT_ASSERT_FATAL(buf != NULL);
	UT_ASSERT_FATAL(fread(buf, 1, (size_t)n, f) == (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static bool
same_bytes(const char *a, const char *b)
{
	size_t la, lb;
	char *x = slurp(a, &la), *y = slurp(b, &lb);
	bool same = la == lb && memcmp(x, y, la) == 0;

	free(x);
	free(y);
	return same;
}

/* dir/rel: 1 MiB of data, a 15 MiB hole, 4 KiB of data (a sparse 16 MiB file) */
static void
put_sparse(const char *dir, const char *rel)
{
	char p[8192], buf[4096];
	uint64_t seed = 7;
	int fd, i, k;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	UT_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < 257; i++) {
		for (k = 0; k < (int)sizeof(buf); k += 8) {
			uint64_t v = ut_rand(&seed);

			memcpy(buf + k, &v, 8);
		}
		UT_ASSERT_FATAL(pwrite(fd, buf, sizeof(buf), i < 256 ? (off_t)i * 4096
								     : (16 << 20) - 4096) == 4096);
	}
	close(fd);
}

static const struct xcp_tree_entry *
entry(const struct xcp_tree *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->nent; i++) {
		if (strcmp(t->ent[i].path, path) == 0) {
			return &t->ent[i];
		}
	}
	return NULL;
}

/* The tree of the lab test: 3 files (one sparse), a subdirectory, a symlink. */
static void
make_src(const char *root)
{
	char p[1024];
	struct timespec ts[2] = { { 1577934245, 0 }, { 1577934245, 123456789 } };

	ut_put_file(root, "src/a", "alpha\n");
	ut_put_file(root, "src/sub/b", "bravo bravo\n");
	snprintf(p, sizeof(p), "%s/src", root);
	put_sparse(p, "sparse");
	ut_symlink(root, "src/link", "sub/b");
	snprintf(p, sizeof(p), "%s/src/a", root);
	UT_ASSERT_FATAL(chmod(p, 0640) == 0);
	UT_ASSERT_FATAL(utimensat(AT_FDCWD, p, ts, 0) == 0);
	snprintf(p, sizeof(p), "%s/src/sub", root);
	UT_ASSERT_FATAL(chmod(p, 0750) == 0);
	UT_ASSERT_FATAL(utimensat(AT_FDCWD, p, ts, 0) == 0);
}

static void
tree_copies_like_cp_a(void)
{
	char root[256], s[4096], d[4096], src[1024], dst[1024], lnk[64];
	struct xcp_tree t;
	struct stat a, b;
	const struct xcp_tree_entry *e;
	FILE *err = tmpfile();
	ssize_t n;

	ut_tmpdir("tree", root, sizeof(root));
	make_src(root);
	snprintf(src, sizeof(src), "%s/src", root);
	snprintf(dst, sizeof(dst), "%s/dst", root);
	UT_ASSERT_FATAL(mkdir(dst, 0755) == 0);
	memset(&t, 0, sizeof(t));
	t.err = err;
	t.flags = XCOPY_STATS_METHODS;
	CU_ASSERT_EQUAL(xcp_tree_size(src), 6 + 12 + (16 << 20));
	/* DST is a directory: the copy is DST/src */
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_OK);
	CU_ASSERT_EQUAL(ftell(err), 0);
	CU_ASSERT_EQUAL(t.files, 3);
	CU_ASSERT_EQUAL(t.dirs, 2);
	CU_ASSERT_EQUAL(t.symlinks, 1);
	CU_ASSERT_EQUAL(t.failed, 0);
	CU_ASSERT_EQUAL(t.total, 6 + 12 + (16 << 20));
	CU_ASSERT_EQUAL(t.holes, (16 << 20) - (1 << 20) - 4096);
	/* every byte of every file accounted for once */
	CU_ASSERT_EQUAL(t.st.bytes_offloaded + t.st.bytes_fallback + t.holes, t.total);
	for (const char *const *f = (const char *const[]){ "a", "sub/b", "sparse", NULL }; *f; f++) {
		snprintf(s, sizeof(s), "%s/%s", src, *f);
		snprintf(d, sizeof(d), "%s/src/%s", dst, *f);
		CU_ASSERT_TRUE(same_bytes(s, d));
		UT_ASSERT_FATAL(stat(s, &a) == 0 && stat(d, &b) == 0);
		CU_ASSERT_EQUAL(a.st_mode, b.st_mode);
		CU_ASSERT_EQUAL(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
		CU_ASSERT_EQUAL(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
		e = entry(&t, *f);
		UT_ASSERT_FATAL(e != NULL);
		CU_ASSERT_EQUAL(e->bytes, (uint64_t)a.st_size);
		CU_ASSERT_EQUAL(e->offloaded + e->host + e->holes, e->bytes);
		/* not on a SCSI LU: the per-file reason says so */
		CU_ASSERT_TRUE(e->nreasons >= 1 && e->reasons[0].reason == XCOPY_FB_NOT_SCSI);
	}
	/* the sparse file stays sparse: at most its data allocated (+ slack for metadata) */
	snprintf(s, sizeof(s), "%s/sparse", src);
	snprintf(d, sizeof(d), "%s/src/sparse", dst);
	UT_ASSERT_FATAL(stat(s, &a) == 0 && stat(d, &b) == 0);
	CU_ASSERT_TRUE((uint64_t)b.st_blocks * 512 <= (1 << 20) + 4096 + 65536);
	CU_ASSERT_EQUAL(entry(&t, "sparse")->host, (1 << 20) + 4096);
	/* the subdirectory's mode and times (set after its contents) */
	snprintf(s, sizeof(s), "%s/sub", src);
	snprintf(d, sizeof(d), "%s/src/sub", dst);
	UT_ASSERT_FATAL(stat(s, &a) == 0 && stat(d, &b) == 0);
	CU_ASSERT_EQUAL(b.st_mode & 07777, 0750);
	CU_ASSERT_EQUAL(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
	/* the symlink is a symlink with the same target */
	snprintf(d, sizeof(d), "%s/src/link", dst);
	UT_ASSERT_FATAL(lstat(d, &b) == 0);
	CU_ASSERT_TRUE(S_ISLNK(b.st_mode));
	n = readlink(d, lnk, sizeof(lnk) - 1);
	UT_ASSERT_FATAL(n > 0);
	lnk[n] = '\0';
	CU_ASSERT_STRING_EQUAL(lnk, "sub/b");
	xcp_tree_free(&t);

	/* again onto the copy: an older, longer file is cut to the source's length */
	snprintf(d, sizeof(d), "%s/src", dst);
	ut_put_file(d, "a", "a much longer old content\n");
	snprintf(d, sizeof(d), "%s/src/a", dst);
	UT_ASSERT_FATAL(stat(d, &a) == 0);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_OK);
	snprintf(s, sizeof(s), "%s/a", src);
	CU_ASSERT_TRUE(same_bytes(s, d));
	/* ours, one link: copied into where it is (what lets lab 305 offload into it) */
	UT_ASSERT_FATAL(stat(d, &b) == 0);
	CU_ASSERT_EQUAL(a.st_ino, b.st_ino);
	xcp_tree_free(&t);

	/* DST does not exist: it becomes the copy */
	snprintf(dst, sizeof(dst), "%s/new", root);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_OK);
	snprintf(d, sizeof(d), "%s/sub/b", dst);
	snprintf(s, sizeof(s), "%s/sub/b", src);
	CU_ASSERT_TRUE(same_bytes(s, d));
	xcp_tree_free(&t);
	fclose(err);
	ut_rm_tree(root);
}

static void
tree_hostile_destinations(void)
{
	char root[256], src[1024], dst[1024], p[4096], s[4096], msg[1024];
	struct xcp_tree t;
	struct stat lst;
	FILE *err = tmpfile();
	size_t len;
	char *v;

	ut_tmpdir("tree-evil", root, sizeof(root));
	make_src(root);
	ut_put_file(root, "victim", "untouched\n");
	snprintf(src, sizeof(src), "%s/src", root);
	/* a symlink planted where a file of the copy goes: not written through */
	snprintf(p, sizeof(p), "%s/victim", root);
	ut_symlink(root, "dst/src/a", p);
	/* ... and where a directory goes: not entered */
	snprintf(p, sizeof(p), "%s/elsewhere", root);
	UT_ASSERT_FATAL(mkdir(p, 0755) == 0);
	ut_symlink(root, "dst/src/sub", p);
	snprintf(dst, sizeof(dst), "%s/dst", root);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_COPY);
	CU_ASSERT_EQUAL(t.failed, 1);
	snprintf(p, sizeof(p), "%s/victim", root);
	v = slurp(p, &len);
	CU_ASSERT_STRING_EQUAL(v, "untouched\n");
	free(v);
	/* the file's link is replaced by the copy (renamed over, not followed) */
	snprintf(p, sizeof(p), "%s/src/a", dst);
	CU_ASSERT_TRUE(lstat(p, &lst) == 0 && S_ISREG(lst.st_mode));
	snprintf(s, sizeof(s), "%s/a", src);
	CU_ASSERT_TRUE(same_bytes(s, p));
	snprintf(p, sizeof(p), "%s/elsewhere/b", root);
	CU_ASSERT_EQUAL(access(p, F_OK), -1);
	/* the rest is copied; the error names the entry, one line */
	snprintf(p, sizeof(p), "%s/src/sparse", dst);
	CU_ASSERT_EQUAL(access(p, F_OK), 0);
	CU_ASSERT_PTR_NOT_NULL(entry(&t, "sub") ? entry(&t, "sub")->error : NULL);
	CU_ASSERT_TRUE(strstr(t.error, "1 of the tree's entries not copied") != NULL);
	rewind(err);
	CU_ASSERT_PTR_NOT_NULL(fgets(msg, sizeof(msg), err));
	CU_ASSERT_TRUE(strstr(msg, "xcp: sub: cannot open the destination directory: ") == msg);
	CU_ASSERT_TRUE(strstr(msg, "symbolic links are not followed") != NULL);
	xcp_tree_free(&t);

	/* DST inside SRC (or SRC itself): refused before anything is made */
	snprintf(dst, sizeof(dst), "%s/src/sub", root);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_USAGE);
	CU_ASSERT_TRUE(strstr(t.error, "into itself") != NULL);
	snprintf(p, sizeof(p), "%s/src/sub/src", root);
	CU_ASSERT_EQUAL(access(p, F_OK), -1);
	xcp_tree_free(&t);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, src), XCP_EXIT_USAGE);
	xcp_tree_free(&t);

	/* a directory onto a file; a missing source */
	snprintf(dst, sizeof(dst), "%s/victim", root);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_USAGE);
	xcp_tree_free(&t);
	snprintf(p, sizeof(p), "%s/nothing", root);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, p, root), XCP_EXIT_OPEN);
	CU_ASSERT_TRUE(strstr(t.error, "No such file") != NULL);
	xcp_tree_free(&t);
	fclose(err);
	ut_rm_tree(root);
}

static void
tree_reports_hostile_names(void)
{
	char root[256], src[1024], dst[1024], buf[8192];
	struct xcp_tree t;
	struct xcp_json j;
	FILE *f = tmpfile(), *err = tmpfile();
	size_t n;

	ut_tmpdir("tree-names", root, sizeof(root));
	/* a name with an escape sequence, a newline and a byte that is not UTF-8 */
	ut_put_file(root, "src/x\033[2J\ny\xff", "z");
	snprintf(src, sizeof(src), "%s/src", root);
	snprintf(dst, sizeof(dst), "%s/dst", root);
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_OK);
	snprintf(buf, sizeof(buf), "%s/x\033[2J\ny\xff", dst);
	CU_ASSERT_EQUAL(access(buf, F_OK), 0);
	xcp_tree_stats_text(f, &t);
	xcp_json_start(&j, f);
	xcp_json_obj(&j, NULL);
	xcp_tree_json(&j, &t);
	xcp_json_end_obj(&j);
	xcp_json_finish(&j);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	CU_ASSERT_TRUE(strstr(buf, "file x?[2J?y?: 1 bytes") != NULL);
	CU_ASSERT_TRUE(strstr(buf, "\"path\": \"x?[2J?y?\"") != NULL ||
		       strstr(buf, "\"path\":\"x?[2J?y?\"") != NULL);
	CU_ASSERT_PTR_NULL(memchr(buf, '\033', n));
	CU_ASSERT_PTR_NULL(strchr(buf, '\xff'));
	xcp_tree_free(&t);
	fclose(f);
	fclose(err);
	ut_rm_tree(root);
}

/* --- as root (issue #33): owners, entries in the way, ACLs, failed copies ------------ */

/* Names in dir starting with '.' (temporaries left behind). */
static int
dot_names(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	UT_ASSERT_FATAL(d != NULL);
	while ((de = readdir(d)) != NULL) {
		n += de->d_name[0] == '.' && strcmp(de->d_name, ".") != 0 &&
		     strcmp(de->d_name, "..") != 0;
	}
	closedir(d);
	return n;
}

static int
run_tree(const char *src, const char *dst, bool keep_owner, FILE *err, struct xcp_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->err = err;
	t->keep_owner = keep_owner;
	return xcp_tree_copy(t, src, dst);
}

static void
tree_setid_needs_the_owner(void)
{
	char root[256], src[1024], dst[1024], p[4096];
	struct xcp_tree t;
	struct stat st;
	FILE *err = tmpfile();

	if (geteuid() != 0) {
		return;   /* chown to another user needs root */
	}
	ut_tmpdir("tree-setid", root, sizeof(root));
	ut_put_file(root, "src/tool", "#!/bin/sh\n");
	snprintf(p, sizeof(p), "%s/src/tool", root);
	UT_ASSERT_FATAL(chown(p, 12345, 12345) == 0 && chmod(p, 06755) == 0);
	snprintf(src, sizeof(src), "%s/src", root);
	/* the owner kept: the bits too */
	snprintf(dst, sizeof(dst), "%s/kept", root);
	CU_ASSERT_EQUAL(run_tree(src, dst, true, err, &t), XCP_EXIT_OK);
	snprintf(p, sizeof(p), "%s/tool", dst);
	UT_ASSERT_FATAL(stat(p, &st) == 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 06755);
	CU_ASSERT_EQUAL(st.st_uid, 12345);
	xcp_tree_free(&t);
	/* fchown refused (root_squash): a root-owned copy, no set-id bit */
	snprintf(dst, sizeof(dst), "%s/squashed", root);
	ut_sys_fail_fchown(EPERM);
	CU_ASSERT_EQUAL(run_tree(src, dst, true, err, &t), XCP_EXIT_COPY);
	ut_sys_reset();
	snprintf(p, sizeof(p), "%s/tool", dst);
	UT_ASSERT_FATAL(stat(p, &st) == 0);
	CU_ASSERT_EQUAL(st.st_uid, 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0755);
	CU_ASSERT_PTR_NOT_NULL(entry(&t, "tool") ? entry(&t, "tool")->error : NULL);
	xcp_tree_free(&t);
	fclose(err);
	ut_rm_tree(root);
}

static void
tree_never_writes_through(void)
{
	char root[256], src[1024], dst[1024], p[4096], s[4096];
	struct xcp_tree t;
	struct stat st;
	FILE *err = tmpfile();
	size_t len;
	char *v;

	if (geteuid() != 0) {
		return;   /* mknod and chown need root */
	}
	ut_tmpdir("tree-through", root, sizeof(root));
	make_src(root);
	ut_put_file(root, "victim", "untouched\n");
	ut_put_file(root, "dst/src/sub/.keep", "");
	snprintf(src, sizeof(src), "%s/src", root);
	snprintf(dst, sizeof(dst), "%s/dst", root);
	/* a: a hard link to a file elsewhere; sub/b: a device node; sparse: someone else's */
	snprintf(p, sizeof(p), "%s/victim", root);
	snprintf(s, sizeof(s), "%s/src/a", dst);
	UT_ASSERT_FATAL(chmod(p, 0604) == 0 && link(p, s) == 0);
	snprintf(s, sizeof(s), "%s/src/sub/b", dst);
	UT_ASSERT_FATAL(mknod(s, S_IFCHR | 0666, makedev(1, 3)) == 0);
	ut_put_file(root, "dst/src/sparse", "old");
	snprintf(s, sizeof(s), "%s/src/sparse", dst);
	UT_ASSERT_FATAL(chown(s, 12345, 12345) == 0);
	CU_ASSERT_EQUAL(run_tree(src, dst, false, err, &t), XCP_EXIT_OK);
	CU_ASSERT_EQUAL(t.failed, 0);
	/* the linked file: neither its bytes nor its mode moved */
	v = slurp(p, &len);
	CU_ASSERT_STRING_EQUAL(v, "untouched\n");
	free(v);
	UT_ASSERT_FATAL(stat(p, &st) == 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0604);
	CU_ASSERT_EQUAL(st.st_nlink, 1);
	/* each name is now the copy: a regular file of ours, one link */
	for (const char *const *f = (const char *const[]){ "a", "sub/b", "sparse", NULL }; *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", src, *f);
		snprintf(s, sizeof(s), "%s/src/%s", dst, *f);
		CU_ASSERT_TRUE(same_bytes(p, s));
		UT_ASSERT_FATAL(lstat(s, &st) == 0);
		CU_ASSERT_TRUE(S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == 0);
	}
	/* no temporary left */
	snprintf(p, sizeof(p), "%s/src", dst);
	CU_ASSERT_EQUAL(dot_names(p), 0);
	snprintf(p, sizeof(p), "%s/src/sub", dst);
	CU_ASSERT_EQUAL(dot_names(p), 1);   /* .keep */
	xcp_tree_free(&t);
	fclose(err);
	ut_rm_tree(root);
}

/* acl_to_text of path's access ACL, "" when it has none beyond its mode */
static void
acl_text(const char *path, char *buf, size_t cap)
{
	acl_t a = acl_get_file(path, ACL_TYPE_ACCESS);
	char *txt;

	buf[0] = '\0';
	UT_ASSERT_FATAL(a != NULL);
	txt = acl_to_any_text(a, NULL, ',', 0);
	UT_ASSERT_FATAL(txt != NULL);
	snprintf(buf, cap, "%s", txt);
	acl_free(txt);
	acl_free(a);
}

static void
tree_keeps_acls(void)
{
	char root[256], src[1024], dst[1024], p[4096], s[4096], want[512], got[512];
	struct xcp_tree t;
	struct stat st, st2;
	FILE *err = tmpfile();
	acl_t a;

	ut_tmpdir("tree-acl", root, sizeof(root));
	ut_put_file(root, "src/f", "secret\n");
	ut_put_file(root, "src/plain", "plain\n");
	snprintf(s, sizeof(s), "%s/src/f", root);
	a = acl_from_text("u::rw-,u:12345:rwx,g::r--,m::rwx,o::---");
	UT_ASSERT_FATAL(a != NULL);
	if (acl_set_file(s, ACL_TYPE_ACCESS, a) != 0) {
		acl_free(a);
		ut_rm_tree(root);
		fclose(err);
		return;   /* this file system has no ACLs */
	}
	acl_free(a);
	UT_ASSERT_FATAL(stat(s, &st) == 0 && (st.st_mode & 07777) == 0670);   /* g = the mask */
	/* the copy's directory hands a default ACL to new files: not to the copy's */
	snprintf(dst, sizeof(dst), "%s/dst", root);
	UT_ASSERT_FATAL(mkdir(dst, 0755) == 0);
	snprintf(p, sizeof(p), "%s/src", dst);
	UT_ASSERT_FATAL(mkdir(p, 0755) == 0);
	a = acl_from_text("u::rwx,u:54321:rwx,g::r-x,m::rwx,o::r-x");
	UT_ASSERT_FATAL(a != NULL && acl_set_file(p, ACL_TYPE_DEFAULT, a) == 0);
	acl_free(a);
	snprintf(src, sizeof(src), "%s/src", root);
	/* the source directory: a default ACL only (its access ACL is its mode) */
	a = acl_from_text("u::rwx,g::r-x,o::r-x");
	UT_ASSERT_FATAL(a != NULL && acl_set_file(src, ACL_TYPE_DEFAULT, a) == 0);
	acl_free(a);
	CU_ASSERT_EQUAL(run_tree(src, dst, true, err, &t), XCP_EXIT_OK);
	xcp_tree_free(&t);
	snprintf(p, sizeof(p), "%s/src/f", dst);
	acl_text(s, want, sizeof(want));
	acl_text(p, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT_TRUE(strstr(got, "group::r--") != NULL);
	snprintf(p, sizeof(p), "%s/src/plain", dst);
	CU_ASSERT_EQUAL(acl_extended_file(p), 0);
	/* a file system without ACLs: the group loses what the mask would give it */
	snprintf(dst, sizeof(dst), "%s/noacl", root);
	ut_sys_fail_acl_set_fd(EOPNOTSUPP);
	CU_ASSERT_EQUAL(run_tree(src, dst, true, err, &t), XCP_EXIT_OK);
	ut_sys_reset();
	xcp_tree_free(&t);
	snprintf(p, sizeof(p), "%s/f", dst);
	UT_ASSERT_FATAL(stat(p, &st) == 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	snprintf(p, sizeof(p), "%s/plain", dst);
	snprintf(s, sizeof(s), "%s/src/plain", root);
	UT_ASSERT_FATAL(stat(p, &st) == 0 && stat(s, &st2) == 0);
	CU_ASSERT_EQUAL(st.st_mode, st2.st_mode);
	/* ... and the directory keeps its group bits: they are not a mask */
	UT_ASSERT_FATAL(stat(dst, &st) == 0 && stat(src, &st2) == 0);
	CU_ASSERT_EQUAL(st.st_mode, st2.st_mode);
	fclose(err);
	ut_rm_tree(root);
}

static void
tree_failed_copy_leaves_dst_as_it_was(void)
{
	char root[256], src[1024], dst[1024], p[4096], s[4096];
	struct xcp_tree t;
	struct stat st;
	FILE *err = tmpfile();

	ut_tmpdir("tree-fail", root, sizeof(root));
	make_src(root);
	snprintf(src, sizeof(src), "%s/src", root);
	snprintf(dst, sizeof(dst), "%s/dst", root);
	/* sparse: written in place (ours, one link), 100 bytes before; sub/b: linked, replaced */
	ut_put_file(root, "dst/src/sparse", "");
	snprintf(p, sizeof(p), "%s/src/sparse", dst);
	UT_ASSERT_FATAL(truncate(p, 100) == 0);
	snprintf(p, sizeof(p), "%s/src/sub", dst);
	UT_ASSERT_FATAL(mkdir(p, 0755) == 0);
	ut_put_file(root, "other", "other\n");
	snprintf(p, sizeof(p), "%s/other", root);
	snprintf(s, sizeof(s), "%s/src/sub/b", dst);
	UT_ASSERT_FATAL(link(p, s) == 0);
	/* a (6 bytes) is copied, then every copy fails after 64 KiB more */
	ut_sys_fail_copy_after(6 + 65536, EIO);
	CU_ASSERT_EQUAL(run_tree(src, dst, false, err, &t), XCP_EXIT_COPY);
	ut_sys_reset();
	CU_ASSERT_EQUAL(t.failed, 2);
	CU_ASSERT_PTR_NULL(entry(&t, "a")->error);
	CU_ASSERT_PTR_NOT_NULL(entry(&t, "sparse")->error);
	CU_ASSERT_PTR_NOT_NULL(entry(&t, "sub/b")->error);
	/* the in-place file is as long as before, the linked one untouched */
	snprintf(p, sizeof(p), "%s/src/sparse", dst);
	UT_ASSERT_FATAL(stat(p, &st) == 0);
	CU_ASSERT_EQUAL(st.st_size, 100);
	snprintf(p, sizeof(p), "%s/other", root);
	CU_ASSERT_TRUE(same_bytes(p, s));
	UT_ASSERT_FATAL(stat(s, &st) == 0);
	CU_ASSERT_EQUAL(st.st_nlink, 2);
	snprintf(p, sizeof(p), "%s/src", dst);
	CU_ASSERT_EQUAL(dot_names(p), 0);
	snprintf(p, sizeof(p), "%s/src/sub", dst);
	CU_ASSERT_EQUAL(dot_names(p), 0);
	xcp_tree_free(&t);
	/* into a new tree: the failed files are not there at all */
	snprintf(dst, sizeof(dst), "%s/new", root);
	ut_sys_fail_copy_after(6 + 65536, EIO);
	CU_ASSERT_EQUAL(run_tree(src, dst, false, err, &t), XCP_EXIT_COPY);
	ut_sys_reset();
	snprintf(p, sizeof(p), "%s/a", dst);
	CU_ASSERT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/sparse", dst);
	CU_ASSERT_EQUAL(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/sub/b", dst);
	CU_ASSERT_EQUAL(access(p, F_OK), -1);
	CU_ASSERT_EQUAL(dot_names(dst), 0);
	xcp_tree_free(&t);
	fclose(err);
	ut_rm_tree(root);
}

static void
safe_name_bytes(void)
{
	char b[16];

	xcp_safe_name(b, sizeof(b), "plain/é");
	CU_ASSERT_STRING_EQUAL(b, "plain/é");
	xcp_safe_name(b, sizeof(b), "a\tb\x7f" "c");
	CU_ASSERT_STRING_EQUAL(b, "a?b?c");
	/* overlong, surrogate, truncated sequences */
	xcp_safe_name(b, sizeof(b), "\xc0\xaf|\xed\xa0\x80|\xe2\x82");
	CU_ASSERT_STRING_EQUAL(b, "??|???|??");
	/* never splits a character, always terminated */
	xcp_safe_name(b, 4, "ab\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(b, "ab");
	xcp_safe_name(b, 1, "abc");
	CU_ASSERT_STRING_EQUAL(b, "");
}

static CU_TestInfo g_tests[] = {
	{ "copies_like_cp_a", tree_copies_like_cp_a },
	{ "hostile_destinations", tree_hostile_destinations },
	{ "reports_hostile_names", tree_reports_hostile_names },
	{ "setid_needs_the_owner", tree_setid_needs_the_owner },
	{ "never_writes_through", tree_never_writes_through },
	{ "keeps_acls", tree_keeps_acls },
	{ "failed_copy_leaves_dst_as_it_was", tree_failed_copy_leaves_dst_as_it_was },
	{ "safe_name_bytes", safe_name_bytes },
	CU_TEST_INFO_NULL,
};
UT_SUITE(xcp_tree, g_tests)
