/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The null store (xcopy/null/SIZE): READ returns zeros, WRITE discards,
 * every access bounded by SIZE. The store has no medium and no cache (WCE =
 * 0 at open; flush has nothing to do), no copy op (copies to and from it
 * take store/'s gateway through io) and no snapshots (its ROD tokens are
 * change vulnerable). For measuring the command path alone: the bench's
 * `io` phase (tests/bench/README.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "store/null/store_null.h"
#include "xos.h"

#define NULL_SIZE_MAX (1ull << 62)

struct xt_null {
	uint64_t size;
};

int
xt_null_size_parse(const char *spec, uint64_t *size, char *why, size_t whylen)
{
	uint64_t v = 0, mul = 1;
	const char *p = spec;

	if (whylen > 0) {
		why[0] = '\0';
	}
	if (spec == NULL || *spec < '0' || *spec > '9') {
		xos_why_set(why, whylen, "null store: xcopy/null/SIZE needs a SIZE in bytes "
			    "(K, M, G or T: powers of 1024), got '%.40s'", spec != NULL ? spec : "");
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (NULL_SIZE_MAX - (uint64_t)(*p - '0')) / 10) {
			xos_why_set(why, whylen, "null store: SIZE '%.40s' is above 2^62 bytes", spec);
			return -EINVAL;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case 'K': mul = 1ull << 10; p++; break;
	case 'M': mul = 1ull << 20; p++; break;
	case 'G': mul = 1ull << 30; p++; break;
	case 'T': mul = 1ull << 40; p++; break;
	default: break;
	}
	if (*p != '\0') {
		xos_why_set(why, whylen, "null store: '%.40s' after SIZE (xcopy/null/SIZE takes "
			    "no options)", p);
		return -EINVAL;
	}
	if (v == 0 || v > NULL_SIZE_MAX / mul || (v * mul) % 512 != 0) {
		xos_why_set(why, whylen, "null store: SIZE '%.40s' must be above 0, a multiple "
			    "of 512 and at most 2^62 bytes", spec);
		return -EINVAL;
	}
	*size = v * mul;
	return 0;
}

/* "xcopy/null/SIZE" into cfg: path "null/SIZE" (the logs' name), no copy policy of its own. */
static int
null_parse(const char *cfgstring, struct xt_cfg *cfg, char *why, size_t whylen)
{
	const size_t pre = strlen(XT_NULL_PREFIX);
	const char *body = xt_cfg_body(cfgstring);
	uint64_t size;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->clone = XT_CLONE_NEVER;
	cfg->cfr = XT_CFR_NEVER;
	cfg->xcopy = XT_XCOPY_ENGINE;
	cfg->copy_nice = XT_COPY_NICE_DEFAULT;
	if (body == NULL || strncmp(body, XT_NULL_PREFIX, pre) != 0) {
		xos_why_set(why, whylen, "cfgstring '%.60s' does not start with '%s/%s'",
			    cfgstring != NULL ? cfgstring : "", xt_env()->subtype, XT_NULL_PREFIX);
		return -EINVAL;
	}
	rc = xt_null_size_parse(body + pre, &size, why, whylen);
	if (rc != 0) {
		return rc;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", body);
	return 0;
}

static int
null_check(const char *cfgstring, char *why, size_t whylen)
{
	struct xt_cfg cfg;

	return null_parse(cfgstring, &cfg, why, whylen);
}

/* lu->cfg.path is "null/SIZE" (null_parse). */
static int
null_open(struct xt_lu *lu, uint64_t *size)
{
	struct xt_null *n = calloc(1, sizeof(*n));
	char why[160];
	int rc;

	if (n == NULL) {
		xt_lu_err(lu, "xcopy: out of memory\n");
		return -ENOMEM;
	}
	lu->priv = n;
	rc = xt_null_size_parse(lu->cfg.path + strlen("null/"), &n->size, why, sizeof(why));
	if (rc != 0) {
		xt_lu_err(lu, "xcopy: %s\n", why);
		return rc;
	}
	*size = n->size;
	xt_lu_warn(lu, "xcopy: null store of %llu bytes: READ returns zeros, WRITE "
		   "discards (for measuring, never for data)\n", (unsigned long long)n->size);
	return 0;
}

static void
null_too_small(struct xt_lu *lu, uint64_t size, uint64_t need)
{
	xt_lu_err(lu, "xcopy: null store of %llu bytes is smaller than the LU (%llu bytes); "
		  "give the LU's size: xcopy/null/%llu\n", (unsigned long long)size,
		  (unsigned long long)need, (unsigned long long)need);
}

static void
null_close(struct xt_lu *lu)
{
	free(lu->priv);
	lu->priv = NULL;
}

static int
null_size(struct xt_lu *lu, uint64_t *bytes)
{
	*bytes = ((const struct xt_null *)lu->priv)->size;
	return 0;
}

/* [off, off + len) inside the store? */
static bool
null_inside(const struct xt_lu *lu, uint64_t off, uint64_t len)
{
	uint64_t size = ((const struct xt_null *)lu->priv)->size;

	return off <= size && len <= size - off;
}

static int
null_io(struct xt_lu *lu, const struct xt_io *io)
{
	size_t i, left = io->len, n;

	if (!null_inside(lu, io->off, io->len)) {
		return -EINVAL;
	}
	if (io->wr) {
		return 0;   /* discarded */
	}
	for (i = 0; i < io->cnt && left > 0; i++) {
		n = io->iov[i].iov_len < left ? io->iov[i].iov_len : left;
		memset(io->iov[i].iov_base, 0, n);
		left -= n;
	}
	return left == 0 ? 0 : -EINVAL;   /* fewer iovec bytes than io->len */
}

static int
null_flush(struct xt_lu *lu)
{
	(void)lu;
	return 0;
}

static int
null_zero(struct xt_lu *lu, uint64_t off, uint64_t len, uint64_t deadline_ms)
{
	(void)deadline_ms;
	return null_inside(lu, off, len) ? 0 : -EINVAL;
}

const struct xt_store_ops xt_store_null = {
	.name = "null",
	.page_cache = false,
	.copy_policy = false,
	.copy_chunk = (uint64_t)XT_CHUNK * XT_PAR_PIECES,
	.parse = null_parse,
	.check = null_check,
	.open = null_open,
	.too_small = null_too_small,
	.close = null_close,
	.size = null_size,
	.io = null_io,
	.flush = null_flush,
	.zero = null_zero,
};
