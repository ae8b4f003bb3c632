/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The peer map (man xcopy-peers.5): one remote LU a line,
 *
 *   naa.HEX iscsi://HOST[:PORT]/TARGET/LUN initiator=NAME [chap_user=U chap_secret=S]
 *
 * or one portal whose LUs are found by discovery (peer_disc.c),
 *
 *   discover iscsi://HOST[:PORT] initiator=NAME [chap_user=U chap_secret=S]
 *
 * '#' at the start of a line (after blanks) comments it; blank lines are
 * skipped. The input is hostile (a typo, or a file someone else wrote):
 * every byte is checked, lines are bounded (XT_PEER_LINE_MAX), the map too
 * (XT_PEER_FILE_MAX, XT_PEER_ENTRIES_MAX), and the first fault is reported
 * as "line N: reason". Pure: the file is read by peer_load.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "peer/peer.h"
#include "xos.h"

#define FIELDS_MAX 8

static int
fail(char *why, size_t whylen, unsigned int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (why != NULL && whylen > 0) {
		snprintf(why, whylen, "line %u: %s", line, msg);
	}
	return -EINVAL;
}

/* naa.HEX: 16 hex digits (NAA 2, 3, 5) or 32 (NAA 6), as VPD 83h reports them. */
static const char *
parse_naa(const char *s, struct xt_peer *p)
{
	size_t n, i;
	int naa;

	if (strncmp(s, "naa.", 4) != 0) {
		return "the designator must be naa. followed by hex digits (or the word discover)";
	}
	s += 4;
	n = strlen(s);
	for (i = 0; i < n; i++) {
		if (xos_hex_digit(s[i]) < 0) {
			return "the designator has a character that is not a hex digit";
		}
	}
	naa = xos_hex_digit(s[0]);
	if (n == 32 && naa == 6) {
		p->desig_len = 16;
	} else if (n == 16 && (naa == 2 || naa == 3 || naa == 5)) {
		p->desig_len = 8;
	} else {
		return "the designator must be NAA 6 with 32 hex digits, or NAA 2, 3 or 5 with 16";
	}
	for (i = 0; i < p->desig_len; i++) {
		p->desig[i] = (uint8_t)(xos_hex_digit(s[2 * i]) << 4 | xos_hex_digit(s[2 * i + 1]));
	}
	return NULL;
}

/* An iSCSI name: iqn., eui. or naa., then [a-z0-9.:-] (RFC 3722 after stringprep). */
static const char *
check_name(const char *s, const char *what)
{
	static char msg[96];
	size_t n = strlen(s), i;

	if (n < 5 || n >= XT_PEER_NAME_MAX) {
		snprintf(msg, sizeof(msg), "the %s name must be 5 to %d bytes", what,
			 XT_PEER_NAME_MAX - 1);
		return msg;
	}
	if (strncmp(s, "iqn.", 4) != 0 && strncmp(s, "eui.", 4) != 0 && strncmp(s, "naa.", 4) != 0) {
		snprintf(msg, sizeof(msg), "the %s name must begin with iqn., eui. or naa.", what);
		return msg;
	}
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == ':' ||
		      c == '-')) {
			snprintf(msg, sizeof(msg),
				 "the %s name may hold only a-z 0-9 . : - (lower case)", what);
			return msg;
		}
	}
	return NULL;
}

static bool
host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-';
}

/*
 * iscsi://HOST[:PORT]/TARGET/LUN, HOST a name or IPv4, or [IPv6]. No user@ part.
 * portal (a discover line): iscsi://HOST[:PORT] and nothing after it.
 */
static const char *
parse_url(char *s, struct xt_peer *p, bool portal)
{
	char *host, *end, *target, *lun;
	const char *bad;
	unsigned long v;
	size_t i;

	if (strncmp(s, "iscsi://", 8) != 0) {
		return "the URL must begin with iscsi://";
	}
	host = s + 8;
	if (host[0] == '[') {
		end = strchr(host, ']');
		if (end == NULL || end == host + 1) {
			return "the URL's [IPv6] address is not closed";
		}
		for (i = 1; host + i < end; i++) {
			if (xos_hex_digit(host[i]) < 0 && host[i] != ':' && host[i] != '.') {
				return "the URL's IPv6 address may hold only hex digits, : and .";
			}
		}
		*end = '\0';
		host++;
		end++;
	} else {
		for (end = host; host_char(*end); end++) {
		}
		if (end == host) {
			return "the URL has no host";
		}
		if (*end == '\0' && !portal) {
			return "the URL needs /TARGET/LUN after the host";
		}
		if (*end != ':' && *end != '/' && *end != '\0') {
			return "the URL's host may hold only letters, digits, . and - (no user@)";
		}
	}
	if (portal && *end == '/') {
		return "a discover line names a portal: iscsi://HOST[:PORT], no target or LUN";
	}
	if ((size_t)(end - host) >= sizeof(p->host)) {
		return "the URL's host is too long";
	}
	p->port = 3260;
	if (*end == ':') {
		char *ps = end + 1;

		*end = '\0';
		if (ps[0] < '1' || ps[0] > '9') {
			return "the URL's port must be 1 to 65535";
		}
		v = 0;
		for (end = ps; *end >= '0' && *end <= '9' && v <= 65535; end++) {
			v = v * 10 + (unsigned long)(*end - '0');
		}
		if (portal && v >= 1 && v <= 65535 && *end == '/') {
			return "a discover line names a portal: iscsi://HOST[:PORT], no target or LUN";
		}
		if (v < 1 || v > 65535 || *end != (portal ? '\0' : '/')) {
			return portal ? "the URL's port must be 1 to 65535" :
			       "the URL's port must be 1 to 65535, then /";
		}
		p->port = (uint16_t)v;
	} else if (*end != (portal ? '\0' : '/')) {
		return portal ? "a discover line names a portal: iscsi://HOST[:PORT]" :
		       "the URL needs /TARGET/LUN after the host";
	}
	*end = '\0';
	memcpy(p->host, host, strlen(host) + 1);
	if (portal) {
		return NULL;
	}
	target = end + 1;
	lun = strchr(target, '/');
	if (lun == NULL) {
		return "the URL needs /LUN after the target name";
	}
	*lun++ = '\0';
	if ((bad = check_name(target, "target")) != NULL) {
		return bad;
	}
	memcpy(p->target, target, strlen(target) + 1);
	if (lun[0] < '0' || lun[0] > '9' || (lun[0] == '0' && lun[1] != '\0')) {
		return "the URL's LUN must be a decimal number 0 to 16383";
	}
	v = 0;
	for (end = lun; *end >= '0' && *end <= '9' && v <= 16383; end++) {
		v = v * 10 + (unsigned long)(*end - '0');
	}
	if (*end != '\0' || v > 16383) {
		return "the URL's LUN must be a decimal number 0 to 16383";
	}
	p->lun = (uint16_t)v;
	return NULL;
}

/* CHAP user or secret: 1 to 255 printable bytes, no blank. */
static const char *
set_chap(char *dst, const char *v, const char *what)
{
	static char msg[64];
	size_t n = strlen(v);

	if (n == 0 || n >= XT_PEER_CHAP_MAX) {
		snprintf(msg, sizeof(msg), "%s must be 1 to %d bytes", what, XT_PEER_CHAP_MAX - 1);
		return msg;
	}
	memcpy(dst, v, n + 1);
	return NULL;
}

/* One line cut into fields (in place); fault text or NULL. */
static const char *
parse_line(char *line, struct xt_peer *p)
{
	char *f[FIELDS_MAX];
	const char *bad;
	size_t n = 0, i;
	char *s = line;

	while (*s != '\0') {
		while (*s == ' ' || *s == '\t') {
			*s++ = '\0';
		}
		if (*s == '\0') {
			break;
		}
		if (n == FIELDS_MAX) {
			return "too many fields";
		}
		f[n++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t') {
			s++;
		}
	}
	if (n < 3) {
		return "expected: naa.HEX iscsi://HOST[:PORT]/TARGET/LUN initiator=NAME "
		       "[chap_user=U chap_secret=S], or discover iscsi://HOST[:PORT] initiator=NAME "
		       "[chap_user=U chap_secret=S]";
	}
	if (strcmp(f[0], "discover") == 0) {
		bad = parse_url(f[1], p, true);   /* desig_len 0: a portal */
	} else if ((bad = parse_naa(f[0], p)) == NULL) {
		bad = parse_url(f[1], p, false);
	}
	if (bad != NULL) {
		return bad;
	}
	for (i = 2; i < n; i++) {
		char *eq = strchr(f[i], '=');

		if (eq == NULL) {
			return "a field after the URL must be KEY=VALUE";
		}
		*eq++ = '\0';
		if (strcmp(f[i], "initiator") == 0) {
			if (p->initiator[0] != '\0') {
				return "initiator= given twice";
			}
			if ((bad = check_name(eq, "initiator")) != NULL) {
				return bad;
			}
			memcpy(p->initiator, eq, strlen(eq) + 1);
			continue;
		}
		if (strcmp(f[i], "chap_user") == 0) {
			if (p->chap_user[0] != '\0') {
				return "chap_user= given twice";
			}
			bad = set_chap(p->chap_user, eq, "chap_user");
		} else if (strcmp(f[i], "chap_secret") == 0) {
			if (p->chap_secret[0] != '\0') {
				return "chap_secret= given twice";
			}
			bad = set_chap(p->chap_secret, eq, "chap_secret");
		} else {
			return "unknown key (initiator, chap_user, chap_secret)";
		}
		if (bad != NULL) {
			return bad;
		}
	}
	if (p->initiator[0] == '\0') {
		return "initiator= is missing";
	}
	if ((p->chap_user[0] == '\0') != (p->chap_secret[0] == '\0')) {
		return "chap_user= and chap_secret= go together";
	}
	return NULL;
}

/* A discover line: one portal and initiator once, at most XT_PEER_PORTALS_MAX. */
static const char *
add_portal(struct xt_peer_map *map, const struct xt_peer *p)
{
	static char msg[64];
	struct xt_peer *v;
	size_t i;

	for (i = 0; i < map->nportal; i++) {
		const struct xt_peer *o = &map->portal[i];

		if (strcmp(o->host, p->host) == 0 && o->port == p->port &&
		    strcmp(o->initiator, p->initiator) == 0) {
			snprintf(msg, sizeof(msg), "the portal and initiator of line %u again", o->line);
			return msg;
		}
	}
	if (map->nportal == XT_PEER_PORTALS_MAX) {
		snprintf(msg, sizeof(msg), "more than %d discover lines", XT_PEER_PORTALS_MAX);
		return msg;
	}
	v = realloc(map->portal, (map->nportal + 1) * sizeof(*v));
	if (v == NULL) {
		return "out of memory";
	}
	map->portal = v;
	map->portal[map->nportal++] = *p;
	return NULL;
}

int
xt_peer_map_parse(const char *buf, size_t len, struct xt_peer_map *map, char *why,
		  size_t whylen)
{
	char line[XT_PEER_LINE_MAX + 1];
	struct xt_peer p;
	unsigned int no = 0;
	const char *bad;
	size_t at = 0, n, i;

	memset(map, 0, sizeof(*map));
	if (len > XT_PEER_FILE_MAX) {
		return fail(why, whylen, 0, "the map is larger than %u bytes", XT_PEER_FILE_MAX);
	}
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t ll = nl != NULL ? (size_t)(nl - (buf + at)) : len - at;

		no++;
		if (ll + 1 > XT_PEER_LINE_MAX) {
			xt_peer_map_free(map);
			return fail(why, whylen, no, "longer than %d bytes", XT_PEER_LINE_MAX - 1);
		}
		memcpy(line, buf + at, ll);
		line[ll] = '\0';
		at += ll + 1;
		for (i = 0; i < ll; i++) {
			unsigned char c = (unsigned char)line[i];

			if ((c < 0x20 && c != '\t') || c >= 0x7f) {
				xt_peer_map_free(map);
				return fail(why, whylen, no,
					    "byte 0x%02x at column %zu: only printable ASCII and tabs",
					    c, i + 1);
			}
		}
		for (i = 0; line[i] == ' ' || line[i] == '\t'; i++) {
		}
		if (line[i] == '\0' || line[i] == '#') {
			continue;
		}
		memset(&p, 0, sizeof(p));
		p.line = no;
		if ((bad = parse_line(line, &p)) != NULL) {
			xt_peer_map_free(map);
			return fail(why, whylen, no, "%s", bad);
		}
		if (p.desig_len == 0) {
			if ((bad = add_portal(map, &p)) != NULL) {
				xt_peer_map_free(map);
				return fail(why, whylen, no, "%s", bad);
			}
			continue;
		}
		for (n = 0; n < map->n; n++) {
			if (map->v[n].desig_len == p.desig_len &&
			    memcmp(map->v[n].desig, p.desig, p.desig_len) == 0) {
				unsigned int first = map->v[n].line;

				xt_peer_map_free(map);
				return fail(why, whylen, no, "the designator of line %u again", first);
			}
		}
		if (map->n == XT_PEER_ENTRIES_MAX) {
			xt_peer_map_free(map);
			return fail(why, whylen, no, "more than %d peers", XT_PEER_ENTRIES_MAX);
		}
		if ((map->n & (map->n - 1)) == 0) {   /* 0, 1, 2, 4, ...: grow */
			struct xt_peer *v = realloc(map->v, (map->n ? map->n * 2 : 1) * sizeof(*v));

			if (v == NULL) {
				xt_peer_map_free(map);
				return fail(why, whylen, no, "out of memory");
			}
			map->v = v;
		}
		map->v[map->n++] = p;
	}
	return 0;
}

void
xt_peer_map_free(struct xt_peer_map *map)
{
	/* CHAP secrets: not left in freed memory */
	if (map->v != NULL) {
		memset(map->v, 0, map->n * sizeof(*map->v));
	}
	free(map->v);
	map->v = NULL;
	map->n = 0;
	if (map->portal != NULL) {
		memset(map->portal, 0, map->nportal * sizeof(*map->portal));
	}
	free(map->portal);
	map->portal = NULL;
	map->nportal = 0;
}

const struct xt_peer *
xt_peer_map_find(const struct xt_peer_map *map, const uint8_t *desig, size_t len)
{
	size_t i;

	for (i = 0; i < map->n; i++) {
		if (map->v[i].desig_len == len && memcmp(map->v[i].desig, desig, len) == 0) {
			return &map->v[i];
		}
	}
	return NULL;
}

/*
 * An entry's HOST as a 16-byte address: an IPv6 literal, or an IPv4 one as
 * its IPv4-mapped IPv6 address (::ffff:a.b.c.d, RFC 4291 2.5.5.2). A host
 * name has none: it is never looked up (no DNS answer decides what a copy
 * may reach).
 */
static bool
host_addr(const char *host, uint8_t a[16])
{
	struct in_addr v4;

	if (inet_pton(AF_INET6, host, a) == 1) {
		return true;
	}
	if (inet_pton(AF_INET, host, &v4) == 1) {
		memset(a, 0, 10);
		a[10] = 0xFF;
		a[11] = 0xFF;
		memcpy(a + 12, &v4, 4);
		return true;
	}
	return false;
}

const struct xt_peer *
xt_peer_map_find_portal(const struct xt_peer_map *map, const uint8_t addr[16], uint16_t port,
			uint16_t lun, size_t *nmatch)
{
	const struct xt_peer *found = NULL;
	uint8_t a[16];
	size_t i;

	*nmatch = 0;
	for (i = 0; i < map->n; i++) {
		const struct xt_peer *p = &map->v[i];

		if (p->port == port && p->lun == lun && host_addr(p->host, a) &&
		    memcmp(a, addr, sizeof(a)) == 0) {
			found = p;
			(*nmatch)++;
		}
	}
	/* two targets behind one portal with the same LUN: the CSCD names neither */
	return *nmatch == 1 ? found : NULL;
}

int
xt_peer_map_mode_ok(const struct stat *st, uid_t owner, char *why, size_t whylen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file");
		return -EPERM;
	}
	if (st->st_uid != owner) {
		snprintf(why, whylen, "owned by uid %u, not %u", (unsigned int)st->st_uid,
			 (unsigned int)owner);
		return -EPERM;
	}
	if ((st->st_mode & 077) != 0) {
		snprintf(why, whylen, "mode %04o: it holds CHAP secrets, no group or other "
			 "permission may be set (chmod 600)", (unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}
