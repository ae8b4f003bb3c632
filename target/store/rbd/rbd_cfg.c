/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RBD form of the user:xcopy cfgstring:
 *
 *   xcopy/rbd/POOL/IMAGE[@CONF][?opt=val[&opt=val...]]
 *
 * POOL and IMAGE are RADOS pool and RBD image names (no '/', '@', '?', '&');
 * CONF is an absolute path of a ceph.conf (default: librados' own search,
 * $CEPH_CONF then /etc/ceph/ceph.conf). Options: id=NAME (client id, default
 * admin), bs=512|4096 (logical block size), copyfrom=auto|never,
 * xcopy=engine|core (who answers third-party copy commands). '?' and '&'
 * for the same reason as the file form (cfg.c): ',' ends dev_config.
 * No librbd here: the unit tests link this file alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "rbd_image.h"
#include "xos.h"

/* what follows "SUBTYPE/" (xcopy/rbd/... by default: base/env.c, xt_cfg_body) */
#define RBD_PREFIX "rbd/"

/* Copy [s, s + len) into dst (size cap) as a name: non-empty, no separators. */
static int
take_name(const char *what, const char *s, size_t len, char *dst, size_t cap,
	  char *why, size_t whylen)
{
	size_t i;

	if (len == 0) {
		xos_why_set(why, whylen, "rbd cfgstring: empty %s name "
			"(expected xcopy/rbd/POOL/IMAGE[@CONF][?opts])", what);
		return -EINVAL;
	}
	if (len >= cap) {
		xos_why_set(why, whylen, "rbd cfgstring: %s name longer than %zu bytes",
			what, cap - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == 0x7f || strchr("/@?&=", c) != NULL) {
			xos_why_set(why, whylen, "rbd cfgstring: %s name '%.*s' has a "
				"forbidden character (space, control, / @ ? & =)",
				what, (int)len, s);
			return -EINVAL;
		}
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

static int
parse_u32(const char *val, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno != 0 || end == val || *end != '\0' || v > 0xffffffffUL) {
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* One "key=value" option ([opt, opt + len), not NUL-terminated). */
static int
rbd_option(const char *opt, size_t len, struct xt_rbd_cfg *c, char *why,
	   size_t whylen)
{
	char buf[160];
	char *val;

	if (len == 0) {
		return 0;
	}
	if (len >= sizeof(buf)) {
		xos_why_set(why, whylen, "rbd option too long: %.40s", opt);
		return -EINVAL;
	}
	memcpy(buf, opt, len);
	buf[len] = '\0';
	val = strchr(buf, '=');
	if (val == NULL) {
		xos_why_set(why, whylen, "rbd option '%s' has no '=value'", buf);
		return -EINVAL;
	}
	*val++ = '\0';
	if (strcmp(buf, "id") == 0) {
		return take_name("client id", val, strlen(val), c->id, sizeof(c->id),
				 why, whylen);
	} else if (strcmp(buf, "bs") == 0) {
		if (parse_u32(val, &c->block_size) != 0 ||
		    (c->block_size != 512 && c->block_size != 4096)) {
			xos_why_set(why, whylen, "bs=%s: expected 512 or 4096", val);
			return -EINVAL;
		}
	} else if (strcmp(buf, "copyfrom") == 0) {
		if (strcmp(val, "auto") == 0) {
			c->copy_from = 1;
		} else if (strcmp(val, "never") == 0) {
			c->copy_from = 0;
		} else {
			xos_why_set(why, whylen, "copyfrom=%s: expected auto or never", val);
			return -EINVAL;
		}
	} else if (strcmp(buf, "xcopy") == 0) {
		if (strcmp(val, "engine") == 0 || strcmp(val, "core") == 0) {
			c->xcopy_core = strcmp(val, "core") == 0;
		} else {
			xos_why_set(why, whylen, "xcopy=%s: expected engine or core", val);
			return -EINVAL;
		}
	} else {
		xos_why_set(why, whylen, "unknown rbd option '%s' (known: id, bs, copyfrom, "
			"xcopy)", buf);
		return -EINVAL;
	}
	return 0;
}

static int
rbd_options(const char *s, struct xt_rbd_cfg *c, char *why, size_t whylen)
{
	const char *amp;
	int rc;

	for (;;) {
		amp = strchr(s, '&');
		rc = rbd_option(s, amp ? (size_t)(amp - s) : strlen(s), c, why, whylen);
		if (rc != 0 || amp == NULL) {
			return rc;
		}
		s = amp + 1;
	}
}

int
xt_rbd_cfg_parse(const char *cfgstring, struct xt_rbd_cfg *out, char *why,
		 size_t whylen)
{
	struct xt_rbd_cfg c = { .block_size = 512, .copy_from = 1 };
	const char *p, *slash, *end, *at, *q;
	int rc;

	xos_why_set(why, whylen, "%s", "");
	p = xt_cfg_body(cfgstring);   /* past "SUBTYPE/" (XCOPY_SUBTYPE, default xcopy) */
	if (p == NULL || strncmp(p, RBD_PREFIX, strlen(RBD_PREFIX)) != 0) {
		xos_why_set(why, whylen, "not an rbd cfgstring (expected "
			"xcopy/rbd/POOL/IMAGE[@CONF][?opts])");
		return -EINVAL;
	}
	strcpy(c.id, "admin");
	p += strlen(RBD_PREFIX);
	q = strchr(p, '?');
	end = q ? q : p + strlen(p);
	slash = memchr(p, '/', (size_t)(end - p));
	if (slash == NULL) {
		xos_why_set(why, whylen, "rbd cfgstring: no image name after the pool "
			"(expected xcopy/rbd/POOL/IMAGE)");
		return -EINVAL;
	}
	rc = take_name("pool", p, (size_t)(slash - p), c.pool, sizeof(c.pool), why, whylen);
	if (rc != 0) {
		return rc;
	}
	p = slash + 1;
	at = memchr(p, '@', (size_t)(end - p));
	rc = take_name("image", p, (size_t)((at ? at : end) - p), c.image,
		       sizeof(c.image), why, whylen);
	if (rc != 0) {
		return rc;
	}
	if (at != NULL) {
		size_t n = (size_t)(end - at - 1);

		if (n == 0 || at[1] != '/') {
			xos_why_set(why, whylen, "rbd cfgstring: @CONF must be an absolute "
				"path of a ceph.conf");
			return -EINVAL;
		}
		if (n >= sizeof(c.conf)) {
			xos_why_set(why, whylen, "rbd cfgstring: @CONF longer than %zu bytes",
				sizeof(c.conf) - 1);
			return -EINVAL;
		}
		memcpy(c.conf, at + 1, n);
		c.conf[n] = '\0';
	}
	if (q != NULL && (rc = rbd_options(q + 1, &c, why, whylen)) != 0) {
		return rc;
	}
	*out = c;
	return 0;
}
