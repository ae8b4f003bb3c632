/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/store/rbd/rbd_cfg.c: the RBD cfgstring xcopy/rbd/POOL/IMAGE[@CONF][?opts].
 * Every refusal is -EINVAL with a reason naming the offending part; nothing
 * is truncated silently.
 */
#include <errno.h>
#include <string.h>

#include "store/rbd/rbd_image.h"
#include "ut.h"

static int
parse(const char *s, struct xt_rbd_cfg *c, char *why)
{
	return xt_rbd_cfg_parse(s, c, why, 256);
}

static void
rbd_cfg_defaults(void)
{
	struct xt_rbd_cfg c;
	char why[256];

	CU_ASSERT_EQUAL(parse("xcopy/rbd/rbd/img0", &c, why), 0);
	CU_ASSERT_STRING_EQUAL(c.pool, "rbd");
	CU_ASSERT_STRING_EQUAL(c.image, "img0");
	CU_ASSERT_STRING_EQUAL(c.conf, "");
	CU_ASSERT_STRING_EQUAL(c.id, "admin");
	CU_ASSERT_EQUAL(c.block_size, 512);
	CU_ASSERT_EQUAL(c.copy_from, 1);
	CU_ASSERT_EQUAL(c.xcopy_core, 0);   /* the engine answers copies */
	CU_ASSERT_STRING_EQUAL(why, "");
}

static void
rbd_cfg_every_part(void)
{
	struct xt_rbd_cfg c;
	char why[256];

	CU_ASSERT_EQUAL(parse("xcopy/rbd/p1/i.1@/etc/ceph/lab.conf?id=gw&bs=4096&copyfrom=never",
			      &c, why), 0);
	CU_ASSERT_STRING_EQUAL(c.pool, "p1");
	CU_ASSERT_STRING_EQUAL(c.image, "i.1");
	CU_ASSERT_STRING_EQUAL(c.conf, "/etc/ceph/lab.conf");
	CU_ASSERT_STRING_EQUAL(c.id, "gw");
	CU_ASSERT_EQUAL(c.block_size, 4096);
	CU_ASSERT_EQUAL(c.copy_from, 0);
	CU_ASSERT_EQUAL(parse("xcopy/rbd/p/i?&copyfrom=auto&", &c, why), 0);
	CU_ASSERT_EQUAL(c.copy_from, 1);
	CU_ASSERT_EQUAL(parse("xcopy/rbd/p/i@/c?", &c, why), 0);
	CU_ASSERT_STRING_EQUAL(c.conf, "/c");
	CU_ASSERT_EQUAL(parse("xcopy/rbd/p/i?xcopy=core", &c, why), 0);
	CU_ASSERT_EQUAL(c.xcopy_core, 1);
	CU_ASSERT_EQUAL(parse("xcopy/rbd/p/i?xcopy=engine", &c, why), 0);
	CU_ASSERT_EQUAL(c.xcopy_core, 0);
}

static void
expect_refused(const char *s, const char *what)
{
	struct xt_rbd_cfg c;
	char why[256];

	CU_ASSERT_EQUAL(parse(s, &c, why), -EINVAL);
	if (strstr(why, what) == NULL) {
		fprintf(stderr, "\n'%s': reason '%s' lacks '%s'\n", s, why, what);
		CU_FAIL("reason does not name the fault");
	}
}

static void
rbd_cfg_refusals_name_the_fault(void)
{
	struct xt_rbd_cfg c;
	char why[256];

	expect_refused("xcopy//srv/x.img", "not an rbd cfgstring");
	expect_refused("xcopy/rbd", "not an rbd cfgstring");
	expect_refused("xcopy/rbd/pool", "no image name");
	expect_refused("xcopy/rbd//img", "empty pool");
	expect_refused("xcopy/rbd/pool/", "empty image");
	expect_refused("xcopy/rbd/pool/@/c", "empty image");
	expect_refused("xcopy/rbd/pool/a/b", "image name 'a/b'");
	expect_refused("xcopy/rbd/po ol/a", "pool name 'po ol'");
	expect_refused("xcopy/rbd/p/a@rel.conf", "absolute path");
	expect_refused("xcopy/rbd/p/a@", "absolute path");
	expect_refused("xcopy/rbd/p/a?bs=1024", "bs=1024");
	expect_refused("xcopy/rbd/p/a?bs=4096x", "bs=4096x");
	expect_refused("xcopy/rbd/p/a?copyfrom=always", "copyfrom=always");
	expect_refused("xcopy/rbd/p/a?xcopy=lio", "xcopy=lio");
	expect_refused("xcopy/rbd/p/a?id=", "empty client id");
	expect_refused("xcopy/rbd/p/a?cache=on", "unknown rbd option 'cache'");
	expect_refused("xcopy/rbd/p/a?bs", "has no '=value'");
	CU_ASSERT_EQUAL(xt_rbd_cfg_parse(NULL, &c, why, sizeof(why)), -EINVAL);
}

static void
rbd_cfg_lengths_bounded(void)
{
	static char s[1024];
	struct xt_rbd_cfg c;
	char why[8];

	/* a name or conf that does not fit is refused, not truncated */
	memset(s, 'p', sizeof(s) - 1);
	memcpy(s, "xcopy/rbd/", 10);
	s[200] = '/';
	s[sizeof(s) - 1] = '\0';
	CU_ASSERT_EQUAL(xt_rbd_cfg_parse(s, &c, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(why[sizeof(why) - 1], '\0');
	memcpy(s, "xcopy/rbd/p/i@/", 15);
	CU_ASSERT_EQUAL(xt_rbd_cfg_parse(s, &c, why, sizeof(why)), -EINVAL);
	/* whylen 0: nothing is written to why; *out untouched on refusal */
	why[0] = 'K';
	c.block_size = 77;
	CU_ASSERT_EQUAL(xt_rbd_cfg_parse("bad", &c, why, 0), -EINVAL);
	CU_ASSERT_EQUAL(why[0], 'K');
	CU_ASSERT_EQUAL(c.block_size, 77);
}

static CU_TestInfo g_tests[] = {
	{ "defaults", rbd_cfg_defaults },
	{ "every_part", rbd_cfg_every_part },
	{ "refusals_name_the_fault", rbd_cfg_refusals_name_the_fault },
	{ "lengths_bounded", rbd_cfg_lengths_bounded },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_rbd_cfg, g_tests)
