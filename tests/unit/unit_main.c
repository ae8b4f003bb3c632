/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit-test runner: registers every suite that linked itself in with
 * UT_SUITE(), runs them (optionally filtered by -t suite[.test] patterns),
 * prints the CUnit summary and exits with the number of failures.
 *   unit_tests [-t PATTERN[,PATTERN...]] [-x XMLBASENAME] [-l]
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Automated.h>

#include "ut.h"

#define UT_MAX_SUITES 64

static const struct ut_suite *g_suites[UT_MAX_SUITES];
static size_t g_nsuites;

void
ut_register(const struct ut_suite *s)
{
	if (g_nsuites == UT_MAX_SUITES) {
		fprintf(stderr, "too many suites\n");
		abort();
	}
	g_suites[g_nsuites++] = s;
}

static int
cmp_suite(const void *a, const void *b)
{
	const struct ut_suite *const *x = a;
	const struct ut_suite *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

static bool
selected(const char *filter, const char *suite, const char *test)
{
	char name[256];
	char buf[1024];
	char *tok, *save = NULL;

	if (filter == NULL) {
		return true;
	}
	snprintf(name, sizeof(name), "%s.%s", suite, test);
	snprintf(buf, sizeof(buf), "%s", filter);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (fnmatch(tok, name, 0) == 0 || fnmatch(tok, suite, 0) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * The target's environment is read once per process (target/base/env.c):
 * the run has one configfs root and one stats folder, set before any suite
 * runs; suites write under them (XCOPY_CONFIGFS_ROOT, XCOPY_STATS_DIR) and
 * clean up after themselves.
 */
static char g_env_root[512];

static void
env_up(void)
{
	char p[600];

	const char *base = getenv("TMPDIR");

	snprintf(g_env_root, sizeof(g_env_root), "%s/xcopy-unit-XXXXXX",
		 base != NULL ? base : "/tmp");
	if (mkdtemp(g_env_root) == NULL) {
		perror(g_env_root);
		exit(2);
	}
	snprintf(p, sizeof(p), "%s/cfs", g_env_root);
	if (mkdir(p, 0700) != 0 || setenv("XCOPY_CONFIGFS_ROOT", p, 1) != 0) {
		perror(p);
		exit(2);
	}
	snprintf(p, sizeof(p), "%s/stats", g_env_root);
	if (mkdir(p, 0700) != 0 || setenv("XCOPY_STATS_DIR", p, 1) != 0) {
		perror(p);
		exit(2);
	}
}

static void
env_down(void)
{
	ut_rm_tree(g_env_root);
}

int
main(int argc, char **argv)
{
	const char *filter = NULL;
	const char *xml = NULL;
	bool list = false;
	unsigned int failures;
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "t:x:l")) != -1) {
		switch (c) {
		case 't':
			filter = optarg;
			break;
		case 'x':
			xml = optarg;
			break;
		case 'l':
			list = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-t suite[.test][,...]] [-x xmlbase] [-l]\n", argv[0]);
			return 2;
		}
	}

	if (CU_initialize_registry() != CUE_SUCCESS) {
		return 2;
	}
	qsort(g_suites, g_nsuites, sizeof(g_suites[0]), cmp_suite);
	for (i = 0; i < g_nsuites; i++) {
		CU_pSuite s = NULL;
		CU_TestInfo *t;

		for (t = g_suites[i]->tests; t->pName != NULL; t++) {
			if (!selected(filter, g_suites[i]->name, t->pName)) {
				continue;
			}
			if (list) {
				printf("%s.%s\n", g_suites[i]->name, t->pName);
				continue;
			}
			if (s == NULL) {
				s = CU_add_suite(g_suites[i]->name, g_suites[i]->init, g_suites[i]->fini);
				if (s == NULL) {
					return 2;
				}
			}
			if (CU_add_test(s, t->pName, t->pTestFunc) == NULL) {
				return 2;
			}
		}
	}
	if (list) {
		CU_cleanup_registry();
		return 0;
	}
	env_up();
	if (xml != NULL) {
		CU_set_output_filename(xml);
		CU_automated_run_tests();
	}
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	printf("\nunit tests: %u tests run, %u asserts failed, %u tests failed, %u skipped\n",
	       CU_get_number_of_tests_run(), failures, CU_get_number_of_tests_failed(),
	       ut_skipped());
	CU_cleanup_registry();
	env_down();
	return failures > 255 ? 255 : (int)failures;
}
