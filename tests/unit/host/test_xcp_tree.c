/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp -r (host/cli/tree.c) on this machine's files: nothing here is on a
 * SCSI LU, so libxcopy copies on the host (reason not-scsi); the offloaded
 * case is lab test 300. Checked: bytes, modes, times, symlinks, holes kept,
 * the counts and per-file reasons, and the hostile cases: a symlink planted
 * in the destination is not written through, DST inside SRC is refused,
 * names with control bytes are printed safely, the JSON stays valid.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	memset(&t, 0, sizeof(t));
	t.err = err;
	CU_ASSERT_EQUAL(xcp_tree_copy(&t, src, dst), XCP_EXIT_OK);
	snprintf(s, sizeof(s), "%s/a", src);
	snprintf(d, sizeof(d), "%s/src/a", dst);
	CU_ASSERT_TRUE(same_bytes(s, d));
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
	char root[256], src[1024], dst[1024], p[4096], msg[1024];
	struct xcp_tree t;
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
	CU_ASSERT_EQUAL(t.failed, 2);
	snprintf(p, sizeof(p), "%s/victim", root);
	v = slurp(p, &len);
	CU_ASSERT_STRING_EQUAL(v, "untouched\n");
	free(v);
	snprintf(p, sizeof(p), "%s/elsewhere/b", root);
	CU_ASSERT_EQUAL(access(p, F_OK), -1);
	/* the rest is copied; the errors name the entries, one line each */
	snprintf(p, sizeof(p), "%s/src/sparse", dst);
	CU_ASSERT_EQUAL(access(p, F_OK), 0);
	CU_ASSERT_PTR_NOT_NULL(entry(&t, "a") ? entry(&t, "a")->error : NULL);
	CU_ASSERT_TRUE(strstr(t.error, "2 of the tree's entries not copied") != NULL);
	rewind(err);
	CU_ASSERT_PTR_NOT_NULL(fgets(msg, sizeof(msg), err));
	CU_ASSERT_TRUE(strstr(msg, "xcp: a: cannot create the copy: ") == msg);
	CU_ASSERT_TRUE(strstr(msg, "symbolic link: not followed") != NULL);
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
	{ "safe_name_bytes", safe_name_bytes },
	CU_TEST_INFO_NULL,
};
UT_SUITE(xcp_tree, g_tests)
