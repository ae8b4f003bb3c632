/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit-test helpers. Each test file registers one suite with UT_SUITE();
 * tests/unit/unit_main.c runs them all (filter with -t suite[.test]).
 */
#ifndef UT_H
#define UT_H

#include <stdio.h>
#include <stdlib.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "xcm/xcm.h"

struct ut_suite {
	const char *name;
	CU_TestInfo *tests;
	CU_InitializeFunc init;
	CU_CleanupFunc fini;
};

void ut_register(const struct ut_suite *s);

/* Registers suite NAME with the NULL-terminated CU_TestInfo array TESTS. */
#define UT_SUITE_FULL(NAME, TESTS, INIT, FINI)                                  \
	static const struct ut_suite ut_suite_##NAME = { #NAME, TESTS, INIT, FINI }; \
	__attribute__((constructor)) static void ut_ctor_##NAME(void)          \
	{                                                                        \
		ut_register(&ut_suite_##NAME);                                   \
	}
#define UT_SUITE(NAME, TESTS) UT_SUITE_FULL(NAME, TESTS, NULL, NULL)

/* Fatal assert that also aborts, so static analysers see the stop (SPDK style). */
#define UT_ASSERT_FATAL(cond)                                                    \
	do {                                                                     \
		int ut_c_ = !!(cond);                                            \
		CU_ASSERT_FATAL(ut_c_);                                          \
		if (!ut_c_) {                                                    \
			abort();                                                 \
		}                                                                \
	} while (0)

/*
 * Check a status and its location: key/ASC from the status table must match
 * the expectation, and so must the SKS field pointer (field < 0: SKS must be
 * invalid). Prints expected vs actual by name on mismatch.
 */
#define UT_EXPECT_ERR(st, err, exp_st, exp_field)                                \
	ut_expect_err(__FILE__, __LINE__, (st), (err), (exp_st), (exp_field))
void ut_expect_err(const char *file, int line, enum xcm_status st, const struct xcm_err *err,
		   enum xcm_status exp_st, long exp_field);

/*
 * The machine lacks what the test needs (e.g. FIEMAP on this file system):
 * print "SKIPPED: suite.test: why" and count it in the run's summary line.
 * The caller returns right after. CUnit 2.1 has no runtime skip of its own.
 */
#define UT_SKIP(why) ut_skip(__func__, (why))
void ut_skip(const char *func, const char *why);
unsigned int ut_skipped(void);

/* Deterministic PRNG for randomised round trips (xorshift64*). */
uint64_t ut_rand(uint64_t *state);

void ut_hexdump(FILE *f, const void *p, size_t len);

/*
 * A new private directory from mkdtemp under $TMPDIR (else /tmp), named
 * xcopy-TAG-XXXXXX; aborts the run when none can be made. ut_rm_tree()
 * removes it and everything below it (symlinks are removed, not followed).
 */
void ut_tmpdir(const char *tag, char *out, size_t cap);
/* A valid E4h CSCD: NAA 6 (16 bytes), binary, 512-byte blocks; seed varies the designator. */
void ut_make_cscd(struct xcm_cscd *c, uint8_t seed);
void ut_rm_tree(const char *dir);
/* Write len bytes of s to dir/rel, making the parent directories; aborts on failure. */
void ut_put_file(const char *dir, const char *rel, const char *s);
/* dir/rel_link -> target (made with the parent directories); aborts on failure. */
void ut_symlink(const char *dir, const char *rel_link, const char *target);
/*
 * A fake LIO configfs tree under root: LUN n of TPG tpg (FABRIC/WWN/tpgt_N)
 * links the storage object core/user_0/name; ACL ini of tpg maps its mapped
 * LUN m to the TPG's lun_n.
 */
void ut_cfs_lun(const char *root, const char *tpg, int n, const char *name);
void ut_cfs_acl_map(const char *root, const char *tpg, const char *ini, int m, int n);

#endif /* UT_H */
