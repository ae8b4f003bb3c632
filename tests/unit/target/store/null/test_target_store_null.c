/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/store/null/store_null.c: the null store xcopy/null/SIZE through its
 * ops table. READ fills exactly the bytes asked with zeros, WRITE leaves
 * nothing behind, and every access and the SIZE itself are bounded.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "store/null/store_null.h"
#include "target_stubs.h"
#include "ut.h"

static int
size_of(const char *spec, uint64_t *size)
{
	char why[160];

	return xt_null_size_parse(spec, size, why, sizeof(why));
}

static void
null_size_forms(void)
{
	uint64_t s = 0;

	CU_ASSERT_EQUAL(size_of("512", &s), 0);
	CU_ASSERT_EQUAL(s, 512);
	CU_ASSERT_EQUAL(size_of("4K", &s), 0);
	CU_ASSERT_EQUAL(s, 4096);
	CU_ASSERT_EQUAL(size_of("256M", &s), 0);
	CU_ASSERT_EQUAL(s, 256ull << 20);
	CU_ASSERT_EQUAL(size_of("3G", &s), 0);
	CU_ASSERT_EQUAL(s, 3ull << 30);
	CU_ASSERT_EQUAL(size_of("2T", &s), 0);
	CU_ASSERT_EQUAL(s, 2ull << 40);
	CU_ASSERT_EQUAL(size_of("4611686018427387904", &s), 0);   /* 2^62 */
	CU_ASSERT_EQUAL(s, 1ull << 62);
}

static void
null_size_refusals(void)
{
	static const char *const bad[] = {
		"", "0", "0G", "100", "513", "1M?clone=never", "1MB", "1m", "-1", "G", "1 G",
		"4611686018427388416",            /* 2^62 + 512 */
		"99999999999999999999999",        /* overflows 64 bits */
		"4194305T",                        /* 2^62 + 1 TiB */
	};
	uint64_t s = 77;
	char why[160];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(xt_null_size_parse(bad[i], &s, why, sizeof(why)), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "null store"));
		CU_ASSERT_EQUAL(s, 77);   /* untouched */
	}
	CU_ASSERT_EQUAL(xt_null_size_parse(NULL, &s, why, sizeof(why)), -EINVAL);
	/* a short why is cut, NUL-terminated */
	memset(why, 'x', sizeof(why));
	CU_ASSERT_EQUAL(xt_null_size_parse("1MB", &s, why, 8), -EINVAL);
	CU_ASSERT_EQUAL(why[7], '\0');
}

static void
null_cfgstring(void)
{
	struct xt_cfg cfg;
	char why[160];

	CU_ASSERT_EQUAL(xt_store_null.parse("xcopy/null/8M", &cfg, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(cfg.path, "null/8M");
	CU_ASSERT_EQUAL(cfg.clone, XT_CLONE_NEVER);
	CU_ASSERT_EQUAL(xt_store_null.check("xcopy/null/8M", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(xt_store_null.check("xcopy/null/8M?cfr=never", why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(xt_store_null.check("xcopy//tmp/a.img", why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(xt_store_null.check(NULL, why, sizeof(why)), -EINVAL);
}

/* an open null LU of spec's size (closed by the caller) */
static int
null_lu(struct xt_lu *lu, const char *cfgstring, uint64_t *size)
{
	char why[160];

	memset(lu, 0, sizeof(*lu));
	lu->host = &ut_lu_host;
	lu->ops = &xt_store_null;
	if (xt_store_null.parse(cfgstring, &lu->cfg, why, sizeof(why)) != 0) {
		return -EINVAL;
	}
	return xt_store_null.open(lu, size);
}

static int
io(struct xt_lu *lu, uint8_t *a, size_t alen, uint8_t *b, size_t blen, size_t len, uint64_t off,
   bool wr)
{
	struct iovec v[2] = { { a, alen }, { b, blen } };
	const struct xt_io x = { v, 2, len, off, wr, 0, NULL, true };

	return xt_store_null.io(lu, &x);
}

static bool
all(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != v) {
			return false;
		}
	}
	return true;
}

static void
null_read_write(void)
{
	static uint8_t a[4096], b[8192];
	struct xt_lu lu;
	uint64_t size = 0, got = 0;
	const uint64_t S = 8ull << 20;

	CU_ASSERT_EQUAL_FATAL(null_lu(&lu, "xcopy/null/8M", &size), 0);
	CU_ASSERT_EQUAL(size, S);
	CU_ASSERT_EQUAL(xt_store_null.size(&lu, &got), 0);
	CU_ASSERT_EQUAL(got, S);
	/* READ: zeros over both iovecs, exactly len bytes (the rest untouched) */
	memset(a, 0xA5, sizeof(a));
	memset(b, 0xA5, sizeof(b));
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, sizeof(b), 4096 + 1024, 512, false), 0);
	CU_ASSERT(all(a, sizeof(a), 0));
	CU_ASSERT(all(b, 1024, 0));
	CU_ASSERT(all(b + 1024, sizeof(b) - 1024, 0xA5));
	/* WRITE discards: the buffer is left alone and the same range reads zeros */
	memset(a, 0x5A, sizeof(a));
	memset(b, 0x5A, sizeof(b));
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, sizeof(b), sizeof(a) + sizeof(b), S - 12288, true), 0);
	CU_ASSERT(all(a, sizeof(a), 0x5A) && all(b, sizeof(b), 0x5A));
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, sizeof(b), sizeof(a) + sizeof(b), S - 12288, false), 0);
	CU_ASSERT(all(a, sizeof(a), 0) && all(b, sizeof(b), 0));
	/* the last byte is inside, one past it is not; nothing is touched on a refusal */
	memset(a, 0x11, sizeof(a));
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, 0, 512, S - 512, false), 0);
	CU_ASSERT_EQUAL(io(&lu, a + 512, sizeof(a) - 512, b, 0, 512, S - 511, false), -EINVAL);
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, 0, 512, S - 511, true), -EINVAL);
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, 0, 512, S, false), -EINVAL);
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, 0, 512, UINT64_MAX - 100, false), -EINVAL);
	CU_ASSERT_EQUAL(io(&lu, a, sizeof(a), b, 0, 0, S + 512, false), -EINVAL);
	CU_ASSERT(all(a, 512, 0) && all(a + 512, sizeof(a) - 512, 0x11));
	/* len beyond the iovecs: refused, not read past them */
	CU_ASSERT_EQUAL(io(&lu, a, 512, b, 512, 2048, 0, false), -EINVAL);
	/* flush and unmap do nothing, inside the bounds only */
	CU_ASSERT_EQUAL(xt_store_null.flush(&lu), 0);
	CU_ASSERT_EQUAL(xt_store_null.zero(&lu, 0, S, 0), 0);
	CU_ASSERT_EQUAL(xt_store_null.zero(&lu, 4096, S, 0), -EINVAL);
	CU_ASSERT_EQUAL(xt_store_null.zero(&lu, UINT64_MAX, 2, 0), -EINVAL);
	xt_store_null.close(&lu);
	CU_ASSERT_PTR_NULL(lu.priv);
}

static CU_TestInfo g_tests[] = {
	{ "size_forms", null_size_forms },
	{ "size_refusals", null_size_refusals },
	{ "cfgstring", null_cfgstring },
	{ "read_write", null_read_write },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_store_null, g_tests)
