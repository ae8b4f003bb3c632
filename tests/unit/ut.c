/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ut.h"

void
ut_expect_err(const char *file, int line, enum xcm_status st, const struct xcm_err *err,
	      enum xcm_status exp_st, long exp_field)
{
	const struct xcm_status_info *a = xcm_status_info(st);
	const struct xcm_status_info *e = xcm_status_info(exp_st);
	bool ok = st == exp_st && err->status == st;

	if (exp_field < 0) {
		ok = ok && !err->sks_valid;
	} else {
		ok = ok && err->sks_valid && err->field == (uint32_t)exp_field;
	}
	if (!ok) {
		fprintf(stderr, "\n%s:%d: expected %s (%x %04x) field %ld, got %s (%x %04x) "
			"sks_valid %d field %" PRIu32 "\n", file, line, e->name, e->key,
			e->asc_ascq, exp_field, a->name, a->key, a->asc_ascq, err->sks_valid,
			err->field);
	}
	CU_assertImplementation(ok, (unsigned)line, "UT_EXPECT_ERR", file, "", CU_FALSE);
}

uint64_t
ut_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

void
ut_hexdump(FILE *f, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++) {
		fprintf(f, "%02x%s", b[i], (i % 16 == 15 || i + 1 == len) ? "\n" : " ");
	}
}

void
ut_tmpdir(const char *tag, char *out, size_t cap)
{
	const char *base = getenv("TMPDIR");
	int n;

	if (base == NULL || base[0] == '\0') {
		base = "/tmp";
	}
	n = snprintf(out, cap, "%s/xcopy-%s-XXXXXX", base, tag);
	UT_ASSERT_FATAL(n > 0 && (size_t)n < cap);
	UT_ASSERT_FATAL(mkdtemp(out) != NULL);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
ut_rm_tree(const char *dir)
{
	(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p of the parent of dir/rel; returns the full path in out. */
static void
make_parents(const char *dir, const char *rel, char *out, size_t cap)
{
	char *slash;
	int n = snprintf(out, cap, "%s/%s", dir, rel);

	UT_ASSERT_FATAL(n > 0 && (size_t)n < cap);
	for (slash = out + strlen(dir) + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		UT_ASSERT_FATAL(mkdir(out, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
}

void
ut_put_file(const char *dir, const char *rel, const char *s)
{
	char p[4096];
	FILE *f;

	make_parents(dir, rel, p, sizeof(p));
	f = fopen(p, "w");
	UT_ASSERT_FATAL(f != NULL);
	UT_ASSERT_FATAL(fputs(s, f) >= 0);
	UT_ASSERT_FATAL(fclose(f) == 0);
}

void
ut_symlink(const char *dir, const char *rel_link, const char *target)
{
	char p[4096];

	make_parents(dir, rel_link, p, sizeof(p));
	UT_ASSERT_FATAL(symlink(target, p) == 0);
}

void
ut_cfs_lun(const char *root, const char *tpg, int n, const char *name)
{
	char rel[256], target[4096];

	snprintf(rel, sizeof(rel), "%s/lun/lun_%d/x", tpg, n);
	snprintf(target, sizeof(target), "%s/core/user_0/%s", root, name);
	ut_symlink(root, rel, target);
}

void
ut_cfs_acl_map(const char *root, const char *tpg, const char *ini, int m, int n)
{
	char rel[256], target[4096];

	snprintf(rel, sizeof(rel), "%s/acls/%s/lun_%d/link", tpg, ini, m);
	snprintf(target, sizeof(target), "%s/%s/lun/lun_%d", root, tpg, n);
	ut_symlink(root, rel, target);
}

static unsigned int g_skipped;

void
ut_skip(const char *func, const char *why)
{
	CU_pTest t = CU_get_current_test();
	CU_pSuite su = CU_get_current_suite();

	g_skipped++;
	printf("\nSKIPPED: %s.%s (%s): %s\n", su != NULL ? su->pName : "?",
	       t != NULL ? t->pName : "?", func, why);
}

unsigned int
ut_skipped(void)
{
	return g_skipped;
}

/* A valid E4h CSCD: NAA 6 (16 bytes), binary, 512-byte blocks; seed varies the designator. */
void
ut_make_cscd(struct xcm_cscd *c, uint8_t seed)
{
	uint8_t i;

	memset(c, 0, sizeof(*c));
	c->type = XCM_CSCD_ID;
	c->code_set = XCM_CODE_SET_BINARY;
	c->desig_type = XCM_DESIG_NAA;
	c->desig_len = 16;
	c->desig[0] = 0x60;
	for (i = 1; i < 16; i++) {
		c->desig[i] = (uint8_t)(seed * 31u + i);
	}
	c->block_len = 512;
}
