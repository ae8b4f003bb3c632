/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One line of a device-mapper table ("START LEN TYPE ARGS...", as the kernel
 * reports it: sectors of 512 bytes, devices as MAJ:MIN) into what libxcopy
 * can map. Three targets are plain remaps of blocks:
 *   linear    DEV OFFSET
 *   striped   #STRIPES CHUNK_SECTORS (DEV OFFSET){#STRIPES}
 *   multipath #FEATURES FEATURES... #HW_ARGS HW_ARGS... #GROUPS FIRST_GROUP
 *             (SELECTOR #SEL_ARGS SEL_ARGS... #PATHS #PATH_ARGS
 *              (DEV PATH_ARGS...){#PATHS}){#GROUPS}
 * Every other target is refused with what makes it unsafe to address the
 * blocks underneath directly. Pure text processing: the unit tests feed it
 * fake tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xch_device.h"

enum {
	MAX_TOKENS = 1024,
};

struct toks {
	char *buf;
	char *t[MAX_TOKENS];
	size_t n, i;
};

static int
tokenize(const char *line, struct toks *k)
{
	char *save = NULL, *p;
	size_t len = strcspn(line, "\n");

	memset(k, 0, sizeof(*k));
	k->buf = strndup(line, len);
	if (k->buf == NULL) {
		return -ENOMEM;
	}
	for (p = strtok_r(k->buf, " \t", &save); p != NULL; p = strtok_r(NULL, " \t", &save)) {
		if (k->n == MAX_TOKENS) {
			return -E2BIG;
		}
		k->t[k->n++] = p;
	}
	return 0;
}

static const char *
next(struct toks *k)
{
	return k->i < k->n ? k->t[k->i++] : NULL;
}

static bool
next_u64(struct toks *k, uint64_t *v)
{
	const char *s = next(k);
	char *end;

	if (s == NULL || *s < '0' || *s > '9') {
		return false;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

static bool
next_dev(struct toks *k, struct xch_dm_leg_spec *l)
{
	const char *s = next(k);
	char tail;

	return s != NULL && sscanf(s, "%u:%u%c", &l->major, &l->minor, &tail) == 2;
}

/* Skip COUNT tokens given by the next number (feature and argument lists). */
static bool
skip_counted(struct toks *k, uint64_t *count)
{
	uint64_t n, i;

	if (!next_u64(k, &n) || n > k->n - k->i) {
		return false;
	}
	for (i = 0; i < n; i++) {
		(void)next(k);
	}
	if (count != NULL) {
		*count = n;
	}
	return true;
}

/* Why a target is not a plain remap of blocks: said once, by name. */
static const char *
refusal(const char *type)
{
	static const struct {
		const char *prefix, *why;
	} tbl[] = {
		{ "snapshot", "its blocks may live in the snapshot's copy-on-write store" },
		{ "thin", "thin provisioning: blocks are placed when written" },
		{ "crypt", "encryption: the bytes on the disk are not the volume's" },
		{ "integrity", "integrity tags: the bytes on the disk are not the volume's" },
		{ "raid", "RAID: a write must reach every leg and its parity" },
		{ "mirror", "a mirror: a write must reach every leg" },
		{ "cache", "a cache: the newest blocks may be on the cache device" },
		{ "writecache", "a cache: the newest blocks may be on the cache device" },
		{ "era", "era tracking: writes must go through the volume" },
		{ "zero", "no blocks underneath" },
		{ "error", "no blocks underneath" },
		{ "delay", "timing target" },
		{ "flakey", "fault injection" },
		{ "verity", "read-only hashed volume" },
	};
	size_t i;

	for (i = 0; i < sizeof(tbl) / sizeof(tbl[0]); i++) {
		if (strncmp(type, tbl[i].prefix, strlen(tbl[i].prefix)) == 0) {
			return tbl[i].why;
		}
	}
	return "unknown mapping";
}

static int
parse_linear(struct toks *k, struct xch_dm_target *t)
{
	t->kind = XCH_DM_LINEAR;
	t->nleg = 1;
	return next_dev(k, &t->leg[0]) && next_u64(k, &t->leg[0].off) && next(k) == NULL
		       ? 0
		       : -EINVAL;
}

static int
parse_striped(struct toks *k, struct xch_dm_target *t, char *why, size_t whylen)
{
	uint64_t n, i;

	t->kind = XCH_DM_STRIPED;
	if (!next_u64(k, &n) || !next_u64(k, &t->chunk) || n == 0 || t->chunk == 0) {
		return -EINVAL;
	}
	if (n > XCH_DM_MAX_LEGS) {
		snprintf(why, whylen, "a 'striped' target over %" PRIu64 " devices (at most %d)", n,
			 XCH_DM_MAX_LEGS);
		return -E2BIG;
	}
	t->nleg = (uint32_t)n;
	for (i = 0; i < n; i++) {
		if (!next_dev(k, &t->leg[i]) || !next_u64(k, &t->leg[i].off)) {
			return -EINVAL;
		}
	}
	/* the kernel's own rules: LEN = STRIPES x width, width = whole chunks */
	if (next(k) != NULL || t->len % n != 0 || (t->len / n) % t->chunk != 0) {
		return -EINVAL;
	}
	return 0;
}

static int
parse_multipath(struct toks *k, struct xch_dm_target *t, char *why, size_t whylen)
{
	uint64_t ngroups, first, g, npaths, nargs, p, a;

	t->kind = XCH_DM_MULTIPATH;
	/* features, then the hardware handler's arguments (count includes its name) */
	if (!skip_counted(k, NULL) || !skip_counted(k, NULL) || !next_u64(k, &ngroups) ||
	    !next_u64(k, &first)) {
		return -EINVAL;
	}
	for (g = 0; g < ngroups; g++) {
		if (next(k) == NULL || !skip_counted(k, NULL) || !next_u64(k, &npaths) ||
		    !next_u64(k, &nargs)) {
			return -EINVAL;
		}
		for (p = 0; p < npaths; p++) {
			if (t->nleg == XCH_DM_MAX_LEGS) {
				snprintf(why, whylen, "a 'multipath' target with more than %d paths",
					 XCH_DM_MAX_LEGS);
				return -E2BIG;
			}
			if (!next_dev(k, &t->leg[t->nleg])) {
				return -EINVAL;
			}
			t->leg[t->nleg++].off = 0;
			for (a = 0; a < nargs; a++) {
				if (next(k) == NULL) {
					return -EINVAL;
				}
			}
		}
	}
	return next(k) == NULL && t->nleg > 0 ? 0 : -EINVAL;
}

int
xch_dm_parse_target(const char *line, struct xch_dm_target *t, char *why, size_t whylen)
{
	struct toks k;
	const char *type = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	if (whylen > 0) {
		why[0] = '\0';
	}
	rc = tokenize(line, &k);
	if (rc == 0 && (!next_u64(&k, &t->start) || !next_u64(&k, &t->len) ||
			(type = next(&k)) == NULL || t->len == 0)) {
		rc = -EINVAL;
	}
	if (rc == 0) {
		snprintf(t->type, sizeof(t->type), "%s", type);
		if (strcmp(type, "linear") == 0) {
			rc = parse_linear(&k, t);
		} else if (strcmp(type, "striped") == 0) {
			rc = parse_striped(&k, t, why, whylen);
		} else if (strcmp(type, "multipath") == 0) {
			rc = parse_multipath(&k, t, why, whylen);
		} else {
			snprintf(why, whylen, "a '%s' target (%s), not a plain remap of blocks", type,
				 refusal(type));
			rc = -ENOTSUP;
		}
	}
	if (rc == -EINVAL) {
		snprintf(why, whylen, "an unreadable '%s' table line", t->type[0] ? t->type : "?");
	} else if ((rc == -ENOMEM || rc == -E2BIG) && whylen > 0 && why[0] == '\0') {
		snprintf(why, whylen, "a table line too long to read");
	}
	free(k.buf);
	return rc;
}
