/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/store/file/cfg.c: the user:xcopy cfgstring (xcopy/PATH?opt=val&...) and the
 * fault= option it hands to fault.c. Every refusal carries a reason that
 * names the offending part (tcmu-runner's check_config shows it to targetcli).
 */
#include <errno.h>
#include <string.h>

#include "fault/fault.h"
#include "target_stubs.h"
#include "ut.h"

static int
parse(const char *s, struct xt_cfg *c, char *why)
{
	return xt_cfg_parse(s, c, why, 256);
}

static void
cfg_defaults(void)
{
	struct xt_cfg c;
	char why[256];

	CU_ASSERT_EQUAL(parse("xcopy//srv/x0.img", &c, why), 0);
	CU_ASSERT_STRING_EQUAL(c.path, "/srv/x0.img");
	CU_ASSERT_EQUAL(c.clone, XT_CLONE_AUTO);
	CU_ASSERT_EQUAL(c.cfr, XT_CFR_AUTO);
	CU_ASSERT_EQUAL(c.xcopy, XT_XCOPY_ENGINE);
	CU_ASSERT_EQUAL(c.fault.kind, XT_FAULT_NONE);
	CU_ASSERT_EQUAL(c.dio, XT_DIO_AUTO);
	CU_ASSERT_STRING_EQUAL(why, "");
}

static void
cfg_every_option(void)
{
	struct xt_cfg c;
	char why[256];

	CU_ASSERT_EQUAL(parse("xcopy//a/b?clone=never&cfr=never&xcopy=core", &c, why), 0);
	CU_ASSERT_STRING_EQUAL(c.path, "/a/b");
	CU_ASSERT_EQUAL(c.clone, XT_CLONE_NEVER);
	CU_ASSERT_EQUAL(c.cfr, XT_CFR_NEVER);
	CU_ASSERT_EQUAL(c.xcopy, XT_XCOPY_CORE);
	CU_ASSERT_EQUAL(c.fault.kind, XT_FAULT_NONE);
	CU_ASSERT_EQUAL(parse("xcopy//a?clone=always", &c, why), 0);
	CU_ASSERT_EQUAL(c.clone, XT_CLONE_ALWAYS);
	CU_ASSERT_EQUAL(parse("xcopy//a?dio=never", &c, why), 0);
	CU_ASSERT_EQUAL(c.dio, XT_DIO_NEVER);
	CU_ASSERT_EQUAL(parse("xcopy//a?dio=always", &c, why), 0);
	CU_ASSERT_EQUAL(c.dio, XT_DIO_ALWAYS);
	CU_ASSERT_EQUAL(parse("xcopy//a?dio=auto", &c, why), 0);
	CU_ASSERT_EQUAL(c.dio, XT_DIO_AUTO);
	/* empty options ("?&", a trailing '&') are no options */
	CU_ASSERT_EQUAL(parse("xcopy//a?&clone=never&", &c, why), 0);
	CU_ASSERT_EQUAL(c.clone, XT_CLONE_NEVER);
	CU_ASSERT_EQUAL(parse("xcopy//a?", &c, why), 0);
	CU_ASSERT_STRING_EQUAL(c.path, "/a");
}

/* Each refusal: -EINVAL and a reason containing what names the fault. */
static void
expect_refused(const char *s, const char *what)
{
	struct xt_cfg c;
	char why[256];

	CU_ASSERT_EQUAL(parse(s, &c, why), -EINVAL);
	if (strstr(why, what) == NULL) {
		fprintf(stderr, "\n'%s': reason '%s' lacks '%s'\n", s, why, what);
		CU_FAIL("reason does not name the fault");
	}
}

static void
cfg_refusals_name_the_fault(void)
{
	struct xt_cfg c;
	char why[256];

	expect_refused("file//srv/x", "does not start with 'xcopy/'");
	expect_refused("xcopy", "does not start with 'xcopy/'");
	expect_refused("xcopyy//srv/x", "does not start with 'xcopy/'");
	expect_refused("xcopy/srv/x", "absolute path");
	expect_refused("xcopy/", "absolute path");
	expect_refused("xcopy/?clone=never", "absolute path");
	expect_refused("xcopy//a?clone=maybe", "clone=maybe");
	expect_refused("xcopy//a?cfr=always", "cfr=always");
	expect_refused("xcopy//a?xcopy=kernel", "xcopy=kernel");
	expect_refused("xcopy//a?dio=sometimes", "dio=sometimes: expected auto, always or never");
	expect_refused("xcopy//a?color=blue", "unknown option 'color=blue'");
	expect_refused("xcopy//a?clone", "has no '=value'");
	/* the unit binary runs without XCOPY_FAULT_CONTROL=1 (the plugin harness sets it) */
	expect_refused("xcopy//a?fault=write:3", "fault=write:3: fault injection is off");
	CU_ASSERT_EQUAL(xt_cfg_parse(NULL, &c, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "no cfgstring");
}

/* fault=KIND:N as fault.c reads it once the switch is on (tests/plugin: the option itself) */
static void
cfg_fault_spec(void)
{
	struct xt_fault_spec f;
	char why[256];

	CU_ASSERT_EQUAL(xt_fault_parse("write:3", &f, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(f.kind, XT_FAULT_WRITE);
	CU_ASSERT_EQUAL(f.nth, 3);
	CU_ASSERT_EQUAL(xt_fault_parse("off", &f, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(f.kind, XT_FAULT_NONE);
	CU_ASSERT_EQUAL(xt_fault_parse("melt:1", &f, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "melt"));
	CU_ASSERT_EQUAL(xt_fault_parse("read:0", &f, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "N must be"));
}

static void
cfg_lengths_bounded(void)
{
	static char s[PATH_MAX + 64];
	struct xt_cfg c;
	char why[8], opt[128];

	/* a path that does not fit the struct is refused, not truncated */
	memset(s, 'p', sizeof(s) - 1);
	memcpy(s, "xcopy//", 7);
	s[sizeof(s) - 1] = '\0';
	CU_ASSERT_EQUAL(xt_cfg_parse(s, &c, why, sizeof(why)), -EINVAL);
	/* an over-long option is refused; a short reason buffer stays terminated */
	memset(opt, 'o', sizeof(opt));
	memcpy(opt, "xcopy//a?clone=", 15);
	opt[sizeof(opt) - 1] = '\0';
	memset(why, 'X', sizeof(why));
	CU_ASSERT_EQUAL(xt_cfg_parse(opt, &c, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(why[sizeof(why) - 1], '\0');
	/* whylen 0: nothing is written to why */
	why[0] = 'K';
	CU_ASSERT_EQUAL(xt_cfg_parse("bad", &c, why, 0), -EINVAL);
	CU_ASSERT_EQUAL(why[0], 'K');
}

static CU_TestInfo g_tests[] = {
	{ "defaults", cfg_defaults },
	{ "every_option", cfg_every_option },
	{ "refusals_name_the_fault", cfg_refusals_name_the_fault },
	{ "fault_spec", cfg_fault_spec },
	{ "lengths_bounded", cfg_lengths_bounded },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_cfg, g_tests)
