/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The user:xcopy cfgstring: xcopy/PATH[?opt=val[&opt=val...]]
 *
 * Why '?' and '&': the kernel's control parser ends dev_config at the first
 * ',' (so ',' can never appear), rtslib refuses ':', and tcmu-runner treats a
 * trailing ";tcmur_cmd_time_out=N" as its own; '?' and '&' reach the handler
 * untouched (checked in the lab: tests/lab/tests/220-target-copy.sh and
 * 230-targetcli.sh create LUs with such cfgstrings).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "store/file/store_file.h"
#include "xos.h"

/* The index of val in names (enum order), or -1. */
static int
cfg_choice(const char *val, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(val, names[i]) == 0) {
			return (int)i;
		}
	}
	return -1;
}

static const char *const g_clone_opts[] = { "auto", "always", "never" };   /* enum xt_clone */
static const char *const g_cfr_opts[] = { "auto", "never" };               /* enum xt_cfr */
static const char *const g_xcopy_opts[] = { "engine", "core" };            /* enum xt_xcopy */
static const char *const g_wb_opts[] = { "early", "late" };                /* wb_late */
static const char *const g_dio_opts[] = { "auto", "always", "never" };     /* enum xt_dio */

#define CFG_CHOICE(val, names) cfg_choice((val), (names), sizeof(names) / sizeof((names)[0]))

static int
cfg_copy_nice(const char *val, struct xt_cfg *c, char *why, size_t whylen)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (errno != 0 || end == val || *end != '\0' || v < 0 || v > 19) {
		xos_why_set(why, whylen, "copy_nice=%s: expected 0 to 19", val);
		return -EINVAL;
	}
	c->copy_nice = (int)v;
	return 0;
}

/* key=val with both NUL-terminated; 0 or -EINVAL with why set. */
static int
cfg_keyval(const char *buf, const char *val, struct xt_cfg *c, char *why, size_t whylen)
{
	int i;

	if (strncmp(buf, "clone=", 6) == 0) {
		if ((i = CFG_CHOICE(val, g_clone_opts)) < 0) {
			xos_why_set(why, whylen, "clone=%s: expected auto, always or never", val);
			return -EINVAL;
		}
		c->clone = (enum xt_clone)i;
	} else if (strncmp(buf, "cfr=", 4) == 0) {
		if ((i = CFG_CHOICE(val, g_cfr_opts)) < 0) {
			xos_why_set(why, whylen, "cfr=%s: expected auto or never", val);
			return -EINVAL;
		}
		c->cfr = (enum xt_cfr)i;
	} else if (strncmp(buf, "xcopy=", 6) == 0) {
		if ((i = CFG_CHOICE(val, g_xcopy_opts)) < 0) {
			xos_why_set(why, whylen, "xcopy=%s: expected engine or core", val);
			return -EINVAL;
		}
		c->xcopy = (enum xt_xcopy)i;
	} else if (strncmp(buf, "copy_nice=", 10) == 0) {
		return cfg_copy_nice(val, c, why, whylen);
	} else if (strncmp(buf, "writeback=", 10) == 0) {
		if ((i = CFG_CHOICE(val, g_wb_opts)) < 0) {
			xos_why_set(why, whylen, "writeback=%s: expected early or late", val);
			return -EINVAL;
		}
		c->wb_late = i == 1;
	} else if (strncmp(buf, "dio=", 4) == 0) {
		if ((i = CFG_CHOICE(val, g_dio_opts)) < 0) {
			xos_why_set(why, whylen, "dio=%s: expected auto, always or never", val);
			return -EINVAL;
		}
		c->dio = (enum xt_dio)i;
	} else if (strncmp(buf, "fault=", 6) == 0) {
		/*
		 * reliability tests only: with the one switch on (base/env.c) the
		 * fault store (fault/) takes fault= out before this parser sees it
		 */
		xos_why_set(why, whylen, "%s: fault injection is off (tcmu-runner runs "
			    "without XCOPY_FAULT_CONTROL=1 in its environment)", buf);
		return -EINVAL;
	} else {
		xos_why_set(why, whylen,
			"unknown option '%s' (known: clone, cfr, xcopy, copy_nice, writeback, dio, fault)",
			buf);
		return -EINVAL;
	}
	return 0;
}

/* One "key=value" option (not NUL-terminated: [opt, opt + len)). */
static int
cfg_option(const char *opt, size_t len, struct xt_cfg *c, char *why, size_t whylen)
{
	char buf[64];
	const char *val;

	if (len == 0) {
		return 0;       /* "?&" or a trailing '&' */
	}
	if (len >= sizeof(buf)) {
		xos_why_set(why, whylen, "option too long: %.40s", opt);
		return -EINVAL;
	}
	memcpy(buf, opt, len);
	buf[len] = '\0';
	val = strchr(buf, '=');
	if (val == NULL) {
		xos_why_set(why, whylen, "option '%s' has no '=value'", buf);
		return -EINVAL;
	}
	return cfg_keyval(buf, val + 1, c, why, whylen);
}

int
xt_cfg_parse(const char *cfgstring, struct xt_cfg *out, char *why, size_t whylen)
{
	const char *p, *q, *end;
	size_t plen;
	int rc;

	if (whylen > 0) {
		why[0] = '\0';
	}
	memset(out, 0, sizeof(*out));
	out->clone = XT_CLONE_AUTO;
	out->cfr = XT_CFR_AUTO;
	out->xcopy = XT_XCOPY_ENGINE;
	out->copy_nice = XT_COPY_NICE_DEFAULT;
	if (cfgstring == NULL) {
		xos_why_set(why, whylen, "%s", "no cfgstring");
		return -EINVAL;
	}
	p = xt_cfg_body(cfgstring);   /* past "SUBTYPE/" (XCOPY_SUBTYPE, base/env.c) */
	if (p == NULL) {
		xos_why_set(why, whylen, "cfgstring '%s' does not start with '%s/'", cfgstring,
			    xt_env()->subtype);
		return -EINVAL;
	}
	q = strchr(p, '?');
	plen = q != NULL ? (size_t)(q - p) : strlen(p);
	if (plen == 0 || p[0] != '/') {
		xos_why_set(why, whylen,
			    "the backing file must be an absolute path: %s//PATH[?opt=val&...]",
			    xt_env()->subtype);
		return -EINVAL;
	}
	if (plen >= sizeof(out->path)) {
		xos_why_set(why, whylen, "%s", "backing file path too long");
		return -EINVAL;
	}
	memcpy(out->path, p, plen);
	out->path[plen] = '\0';
	if (q == NULL) {
		return 0;
	}
	for (p = q + 1; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = strchr(p, '&');
		if (end == NULL) {
			end = p + strlen(p);
		}
		rc = cfg_option(p, (size_t)(end - p), out, why, whylen);
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}
