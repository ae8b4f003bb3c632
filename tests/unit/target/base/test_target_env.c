/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/base/env.c and tcmu/runner.c: the plugin's environment, read once (the
 * unit binary runs without XCOPY_FAULT_CONTROL: fault injection is off;
 * without XCOPY_SUBTYPE: the subtype is xcopy, the names it may take checked),
 * and the scan that tells tcmu-runner 1.5.4 by the C string its executable
 * carries.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "tcmu/handler.h"
#include "ut.h"

/* A temporary file of len bytes of 'x' with str (and its NUL) at off; its fd at 0. */
static int
file_with(size_t len, const char *str, size_t slen, size_t off)
{
	char path[] = "/tmp/xcopy-env.XXXXXX";
	char *b = malloc(len);
	int fd = mkstemp(path);

	UT_ASSERT_FATAL(b != NULL && fd >= 0);
	unlink(path);
	memset(b, 'x', len);
	if (str != NULL) {
		memcpy(b + off, str, slen);
	}
	UT_ASSERT_FATAL(write(fd, b, len) == (ssize_t)len);
	UT_ASSERT_FATAL(lseek(fd, 0, SEEK_SET) == 0);
	free(b);
	return fd;
}

static bool
has(size_t len, const char *str, size_t slen, size_t off)
{
	int fd = file_with(len, str, slen, off);
	bool r = xt_fd_has_cstring(fd, "1.5.4");

	close(fd);
	return r;
}

static void
env_runner_version_scan(void)
{
	static const char v[] = "\0" "1.5.4";   /* NUL, the string, its NUL: 7 bytes */

	CU_ASSERT_TRUE(has(100000, v, sizeof(v), 5000));
	CU_ASSERT_TRUE(has(100000, v, sizeof(v), 0));
	CU_ASSERT_TRUE(has(100000, v, sizeof(v), 100000 - sizeof(v)));
	/* across the scan's 16 KiB reads, at every split */
	for (size_t k = 1; k < sizeof(v); k++) {
		CU_ASSERT_TRUE(has(40000, v, sizeof(v), 16384 - k));
	}
	/* no NUL before, no NUL after, another version, nothing */
	CU_ASSERT_FALSE(has(100000, "x1.5.4", 7, 5000));
	CU_ASSERT_FALSE(has(100000, "\0" "1.5.4x", 7, 5000));
	CU_ASSERT_FALSE(has(100000, "\0" "1.5.3", 7, 5000));
	CU_ASSERT_FALSE(has(100000, "\0" "1.5.41", 8, 5000));
	CU_ASSERT_FALSE(has(100000, NULL, 0, 0));
}

static void
env_defaults_read_once(void)
{
	const struct xt_env *e = xt_env();

	CU_ASSERT_PTR_EQUAL(xt_env(), e);
	CU_ASSERT_FALSE(e->fault_injection);   /* the unit binary sets no switch */
	CU_ASSERT_PTR_NOT_NULL(e->configfs_root);
	CU_ASSERT_PTR_NOT_NULL(e->stats_dir);
}

/* XCOPY_SUBTYPE: which names a second runner's handler may take, and the cfgstring's body. */
static void
env_subtype_names(void)
{
	CU_ASSERT_STRING_EQUAL(xt_env()->subtype, "xcopy");   /* the unit binary sets none */
	CU_ASSERT_PTR_NULL(xt_env()->subtype_refused);
	CU_ASSERT_TRUE(xt_subtype_ok("xcopy"));
	CU_ASSERT_TRUE(xt_subtype_ok("cm2"));
	CU_ASSERT_TRUE(xt_subtype_ok("a"));
	CU_ASSERT_TRUE(xt_subtype_ok("xcat_9"));
	CU_ASSERT_TRUE(xt_subtype_ok("abcdefghij12345"));     /* 15 */
	CU_ASSERT_FALSE(xt_subtype_ok("abcdefghij123456"));   /* 16 */
	CU_ASSERT_FALSE(xt_subtype_ok(""));
	CU_ASSERT_FALSE(xt_subtype_ok("Cm2"));
	CU_ASSERT_FALSE(xt_subtype_ok("cm-2"));
	CU_ASSERT_FALSE(xt_subtype_ok("cm2/"));
	CU_ASSERT_FALSE(xt_subtype_ok("cm 2"));
	/* libtcmu matches the cfgstring's subtype as a beginning of a handler's */
	CU_ASSERT_FALSE(xt_subtype_ok("x"));
	CU_ASSERT_FALSE(xt_subtype_ok("xcop"));
	CU_ASSERT_FALSE(xt_subtype_ok("xcopy2"));
	CU_ASSERT_FALSE(xt_subtype_ok("xcopy_b"));

	CU_ASSERT_STRING_EQUAL(xt_cfg_after("cm2//srv/a.img", "cm2"), "/srv/a.img");
	CU_ASSERT_STRING_EQUAL(xt_cfg_after("cm2/rbd/p/i", "cm2"), "rbd/p/i");
	CU_ASSERT_STRING_EQUAL(xt_cfg_after("cm2/", "cm2"), "");
	CU_ASSERT_PTR_NULL(xt_cfg_after("xcopy//srv/a.img", "cm2"));
	CU_ASSERT_PTR_NULL(xt_cfg_after("cm22//srv/a.img", "cm2"));
	CU_ASSERT_PTR_NULL(xt_cfg_after("cm", "cm2"));
	CU_ASSERT_PTR_NULL(xt_cfg_after("cm2", "cm2"));
	CU_ASSERT_PTR_NULL(xt_cfg_after(NULL, "cm2"));
	CU_ASSERT_STRING_EQUAL(xt_cfg_body("xcopy/null/4M"), "null/4M");
	CU_ASSERT_PTR_NULL(xt_cfg_body("cm2/null/4M"));
}

static CU_TestInfo g_tests[] = {
	{ "subtype_names", env_subtype_names },
	{ "runner_version_scan", env_runner_version_scan },
	{ "defaults_read_once", env_defaults_read_once },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_env, g_tests)
