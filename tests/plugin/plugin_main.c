/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlopen harness for handler_xcopy.so: loads the built plugin the way
 * tcmu-runner does (RTLD_NOW | RTLD_LOCAL, dlsym handler_init), and runs each
 * test on its own fixture: a mkdtemp directory with backing files, LUs opened
 * through the plugin's open, a fake configfs/sysfs tree (XCOPY_CONFIGFS_ROOT /
 * XCOPY_SYSFS_ROOT) for the cross-LU access rule and a stats directory; all
 * closed and removed after the test. Tests drive handle_cmd with real CDBs
 * and parameter lists built by the engine's encoder.
 *
 * usage: plugin_tests PATH/handler_xcopy.so [-v] [-r] [-l] [-t NAME]...
 *   -v  verbose   -r  run the list in reverse order   -l  list the test names
 *   -t NAME  run only the named tests (repeatable)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

int g_pass, g_fail;
char g_tmp[256];

/*
 * The plugin opens LUs only in tcmu-runner 1.5.4, whose executable carries
 * "1.5.4" as a C string (target/cm/async.c): this harness reproduces that
 * runner's dispatch, so it carries the string too.
 */
__attribute__((used)) static const char g_runner_version[] = "\0" "1.5.4";

#define MAX_TESTS 128
#define MAX_PICKS 16

struct opts {
	bool reverse;
	bool list;
	int npick;
	const char *pick[MAX_PICKS];
};

/*
 * The run's temporary directory, empty at the start of each test, and the
 * plugin's view of it: the environment is set once, before the plugin is
 * loaded (as tcmu-runner's is: handler_init reads it, target/base/env.c
 * reads it once per process), so every test uses the same paths.
 */
static void
tmp_name(void)
{
	const char *base = getenv("TMPDIR");
	char env[300];

	snprintf(g_tmp, sizeof(g_tmp), "%s/xcopy-plugin.XXXXXX", base != NULL ? base : "/tmp");
	if (mkdtemp(g_tmp) == NULL || rmdir(g_tmp) != 0) {   /* the name: tmp_up makes it */
		perror("mkdtemp");
		exit(2);
	}
	snprintf(env, sizeof(env), "%s/cfs", g_tmp);
	setenv("XCOPY_CONFIGFS_ROOT", env, 1);
	snprintf(env, sizeof(env), "%s/sys", g_tmp);
	setenv("XCOPY_SYSFS_ROOT", env, 1);
	snprintf(env, sizeof(env), "%s/stats", g_tmp);
	setenv("XCOPY_STATS_DIR", env, 1);
	snprintf(env, sizeof(env), "%s/peers.conf", g_tmp);   /* peer_test.c writes it */
	setenv("XCOPY_PEERS", env, 1);
}

static void
tmp_up(void)
{
	if (mkdir(g_tmp, 0700) != 0) {
		perror(g_tmp);
		exit(2);
	}
}

/* Backing files, LUs A (auto), B (read/write loop only), C (xcopy=core), loopback A+B. */
static void
fixture_up(void)
{
	tmp_up();
	plugin_gate_open(true);   /* no gate left from an earlier test; delays sleep */
	make_backing("a.img", (uint64_t)NLBAS * BS);
	make_backing("b.img", (uint64_t)NLBAS * BS + 4096);   /* larger than the LU: fine */
	make_backing("c.img", (uint64_t)NLBAS * BS);
	memset(g_list, 0, sizeof(*g_list));
	dev_setup(&g_a, 0, 1, "lu_a", "a.img", "", SER_A);
	dev_setup(&g_b, 1, 2, "lu_b", "b.img", "?clone=never&cfr=never", SER_B);
	dev_setup(&g_c, 2, 3, "lu_c", "c.img", "?xcopy=core", SER_C);
	CHECK(g_handler->open(&g_a, false) == 0);
	CHECK(g_handler->open(&g_b, false) == 0);
	CHECK(g_handler->open(&g_c, false) == 0);
	CHECK(stat_of("lu_a", "commands") == 0);   /* stats file exists from open */
	/* UNMAP alignment set (the runner divides by it), equal to the granularity, 2^n */
	CHECK(g_a.unmap_gran_align == 64 && g_a.opt_unmap_gran == 64);
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
}

/* Close the LUs; remove the directory, or keep it as DIR-NAME when the test failed. */
static void
fixture_down(const char *name, bool failed)
{
	char cmd[400], kept[400];

	g_handler->close(&g_c);
	g_handler->close(&g_b);
	g_handler->close(&g_a);
	if (failed) {
		snprintf(kept, sizeof(kept), "%s-%s", g_tmp, name);
		if (rename(g_tmp, kept) == 0) {
			fprintf(stderr, "FAILED %s: files kept in %s\n", name, kept);
			return;
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", g_tmp);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot remove %s\n", g_tmp);
	}
}

/* All tests in the normal order; returns their number. */
static size_t
collect(const struct ptest **all)
{
	const struct ptest *lists[] = { g_core_tests, g_async_tests, g_odx_tests, g_peer_tests,
					 g_peer_deleg_tests, g_peer_ip_tests,
					 g_peer_disc_tests, g_peer_token_tests };
	size_t i, n = 0;
	const struct ptest *t;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		for (t = lists[i]; t->name != NULL; t++) {
			if (n == MAX_TESTS) {   /* never drop a test silently */
				fprintf(stderr, "plugin tests: more than MAX_TESTS (%d): raise it\n",
					MAX_TESTS);
				exit(2);
			}
			all[n++] = t;
		}
	}
	return n;
}

static bool
picked(const struct opts *o, const char *name)
{
	int i;

	for (i = 0; i < o->npick; i++) {
		if (strcmp(o->pick[i], name) == 0) {
			return true;
		}
	}
	return o->npick == 0;
}

/* Runs the chosen tests; returns how many ran, -1 when a -t name is unknown. */
static int
run_tests(const struct opts *o)
{
	const struct ptest *all[MAX_TESTS];
	size_t n = collect(all), i, k;
	int ran = 0, fail0;

	for (k = 0; k < (size_t)o->npick; k++) {
		for (i = 0; i < n && strcmp(all[i]->name, o->pick[k]) != 0; i++) {
		}
		if (i == n) {
			fprintf(stderr, "no test named %s (-l lists them)\n", o->pick[k]);
			return -1;
		}
	}
	for (k = 0; k < n; k++) {
		const struct ptest *t = all[o->reverse ? n - 1 - k : k];

		if (o->list) {
			printf("%s\n", t->name);
			continue;
		}
		if (!picked(o, t->name)) {
			continue;
		}
		if (g_verbose) {
			fprintf(stderr, "test %s\n", t->name);
		}
		fail0 = g_fail;
		fixture_up();
		t->fn();
		fixture_down(t->name, g_fail != fail0);
		ran++;
	}
	return ran;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0) {
			g_verbose = 1;
		} else if (strcmp(argv[i], "-r") == 0) {
			o->reverse = true;
		} else if (strcmp(argv[i], "-l") == 0) {
			o->list = true;
		} else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc && o->npick < MAX_PICKS) {
			o->pick[o->npick++] = argv[++i];
		} else {
			return -1;
		}
	}
	return 0;
}

/* As tcmu-runner: dlopen RTLD_NOW|RTLD_LOCAL, dlsym handler_init, call it. */
static void *
load_plugin(const char *so)
{
	int (*init)(void);
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(1);
	}
	*(void **)&init = dlsym(h, "handler_init");
	CHECK(init != NULL);
	CHECK(dlsym(h, "xt_execute") == NULL && dlsym(h, "xcm_list_parse") == NULL);
	if (init == NULL || init() != 0 || g_handler == NULL) {
		fprintf(stderr, "handler_init failed\n");
		exit(1);
	}
	return h;
}

int
main(int argc, char **argv)
{
	struct opts o;
	void *h;
	int ran;

	if (argc < 2 || parse_opts(argc, argv, &o) != 0) {
		fprintf(stderr, "usage: %s PATH/handler_xcopy.so [-v] [-r] [-l] [-t NAME]...\n",
			argv[0]);
		return 2;
	}
	/* fault injection (fault= and control files) is on only with this (target/base/env.c) */
	setenv("XCOPY_FAULT_CONTROL", "1", 1);
	tmp_name();
	(void)g_runner_version;
	h = load_plugin(argv[1]);
	snprintf(g_init_warns, sizeof(g_init_warns), "%s", g_warns);
	g_list = calloc(1, sizeof(*g_list));
	ran = run_tests(&o);
	if (g_handler->destroy != NULL) {
		g_handler->destroy();
	}
	free(g_list);
	dlclose(h);
	if (o.list) {
		return 0;
	}
	if (ran < 0) {
		return 2;
	}
	printf("plugin tests (%s%s): %d tests, %d checks passed, %d failed\n", argv[1],
	       o.reverse ? ", reverse order" : "", ran, g_pass, g_fail);
	return g_fail == 0 ? 0 : 1;
}
