/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/peer/peer_map.c and peer_load.c: the peer map's parser (every
 * field, every refusal with its exact line and reason), the designator ->
 * entry resolution, the portal -> entry resolution of IPv6 CSCDs, the
 * file's owner and mode rule, and its reload when the file changes. XCOPY_PEERS points the unit binary at a file of its own
 * (set before main: xt_env() reads the environment once).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peer/peer.h"
#include "ut.h"

static char g_path[64];

__attribute__((constructor)) static void
peers_env(void)
{
	snprintf(g_path, sizeof(g_path), "/tmp/xcopy-ut-peers.%d", (int)getpid());
	setenv("XCOPY_PEERS", g_path, 1);
}

#define D16 "naa.60014051234567890abcdef012345678"
#define U1 "iscsi://127.0.0.1:3261/iqn.2026-12.org.example:peer/3"
#define I1 "initiator=iqn.2026-12.org.example:cm"

static int
parse(const char *text, struct xt_peer_map *m, char *why, size_t n)
{
	why[0] = '\0';
	return xt_peer_map_parse(text, strlen(text), m, why, n);
}

static void
map_parse_fields(void)
{
	static const uint8_t d16[16] = { 0x60, 0x01, 0x40, 0x51, 0x23, 0x45, 0x67, 0x89,
					 0x0a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78 };
	static const uint8_t d8[8] = { 0x50, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07 };
	const char *text = "# peers of this copy manager\n"
			   "\n"
			   "   \t\n"
			   D16 " " U1 " " I1 "\n"
			   "\tnaa.5001020304050607\tiscsi://[fd00::1]/eui.0123456789abcdef/0 "
			   "chap_secret=s3cr#t:x=1 initiator=iqn.2026-12.org.example:cm2 "
			   "chap_user=cm";   /* no newline at the end */
	struct xt_peer_map m;
	const struct xt_peer *p;
	char why[256];

	UT_ASSERT_FATAL(parse(text, &m, why, sizeof(why)) == 0);
	CU_ASSERT_STRING_EQUAL(why, "");
	UT_ASSERT_FATAL(m.n == 2);
	p = &m.v[0];
	CU_ASSERT_EQUAL(p->desig_len, 16);
	CU_ASSERT_EQUAL(memcmp(p->desig, d16, 16), 0);
	CU_ASSERT_STRING_EQUAL(p->host, "127.0.0.1");
	CU_ASSERT_EQUAL(p->port, 3261);
	CU_ASSERT_STRING_EQUAL(p->target, "iqn.2026-12.org.example:peer");
	CU_ASSERT_EQUAL(p->lun, 3);
	CU_ASSERT_STRING_EQUAL(p->initiator, "iqn.2026-12.org.example:cm");
	CU_ASSERT_STRING_EQUAL(p->chap_user, "");
	CU_ASSERT_EQUAL(p->line, 4);
	p = &m.v[1];
	CU_ASSERT_EQUAL(p->desig_len, 8);
	CU_ASSERT_EQUAL(memcmp(p->desig, d8, 8), 0);
	CU_ASSERT_STRING_EQUAL(p->host, "fd00::1");
	CU_ASSERT_EQUAL(p->port, 3260);
	CU_ASSERT_STRING_EQUAL(p->target, "eui.0123456789abcdef");
	CU_ASSERT_EQUAL(p->lun, 0);
	CU_ASSERT_STRING_EQUAL(p->chap_user, "cm");
	CU_ASSERT_STRING_EQUAL(p->chap_secret, "s3cr#t:x=1");
	CU_ASSERT_EQUAL(p->line, 5);
	/* resolution: the exact designator and length, nothing else */
	CU_ASSERT_PTR_EQUAL(xt_peer_map_find(&m, d16, 16), &m.v[0]);
	CU_ASSERT_PTR_EQUAL(xt_peer_map_find(&m, d8, 8), &m.v[1]);
	CU_ASSERT_PTR_NULL(xt_peer_map_find(&m, d16, 8));
	{
		uint8_t other[16];

		memcpy(other, d16, 16);
		other[15] ^= 1;
		CU_ASSERT_PTR_NULL(xt_peer_map_find(&m, other, 16));
	}
	xt_peer_map_free(&m);
	CU_ASSERT_EQUAL(m.n, 0);
	/* an empty map, or only comments */
	CU_ASSERT_EQUAL(parse("", &m, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(m.n, 0);
	CU_ASSERT_EQUAL(parse("#x\n\n", &m, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(m.n, 0);
}

static const struct {
	const char *text;
	const char *why;
} g_bad[] = {
	{ "naa.6001405\t" U1 " " I1, "line 1: the designator must be NAA 6 with 32 hex digits, "
				     "or NAA 2, 3 or 5 with 16" },
	{ "naa.50010203040506070809 " U1 " " I1, "line 1: the designator must be NAA 6 with 32 "
						 "hex digits, or NAA 2, 3 or 5 with 16" },
	{ "naa.600140512345678g0abcdef012345678 " U1 " " I1,
	  "line 1: the designator has a character that is not a hex digit" },
	{ "eui.0123456789abcdef " U1 " " I1, "line 1: the designator must be naa. followed by hex "
					     "digits (or the word discover)" },
	{ "#\n" D16 " " U1, "line 2: expected: naa.HEX iscsi://HOST[:PORT]/TARGET/LUN "
			    "initiator=NAME [chap_user=U chap_secret=S], or discover "
			    "iscsi://HOST[:PORT] initiator=NAME [chap_user=U chap_secret=S]" },
	/* discover lines: a portal and nothing more */
	{ "discover iscsi://h/iqn.2026-12.x:y/0 " I1,
	  "line 1: a discover line names a portal: iscsi://HOST[:PORT], no target or LUN" },
	{ "discover iscsi://h:3260/iqn.2026-12.x:y " I1,
	  "line 1: a discover line names a portal: iscsi://HOST[:PORT], no target or LUN" },
	{ "discover iscsi://h/ " I1,
	  "line 1: a discover line names a portal: iscsi://HOST[:PORT], no target or LUN" },
	{ "discover iscsi://h:0 " I1, "line 1: the URL's port must be 1 to 65535" },
	{ "discover iscsi://h:65536 " I1, "line 1: the URL's port must be 1 to 65535" },
	{ "discover iscsi://h:32x " I1, "line 1: the URL's port must be 1 to 65535" },
	{ "discover iscsi:// " I1, "line 1: the URL has no host" },
	{ "discover iscsi://u@h " I1,
	  "line 1: the URL's host may hold only letters, digits, . and - (no user@)" },
	{ "discover iscsi://[fd00::1 " I1, "line 1: the URL's [IPv6] address is not closed" },
	{ "discover iscsi://[fd00::1]x " I1, "line 1: a discover line names a portal: iscsi://HOST[:PORT]" },
	{ "discover http://h " I1, "line 1: the URL must begin with iscsi://" },
	{ "discover iscsi://h", "line 1: expected: naa.HEX iscsi://HOST[:PORT]/TARGET/LUN "
				"initiator=NAME [chap_user=U chap_secret=S], or discover "
				"iscsi://HOST[:PORT] initiator=NAME [chap_user=U chap_secret=S]" },
	{ "discover iscsi://h chap_user=a chap_secret=b", "line 1: initiator= is missing" },
	{ "discover iscsi://h " I1 " chap_secret=b", "line 1: chap_user= and chap_secret= go together" },
	{ "discover iscsi://h " I1 " lun=0", "line 1: unknown key (initiator, chap_user, chap_secret)" },
	{ "Discover iscsi://h " I1, "line 1: the designator must be naa. followed by hex digits "
				   "(or the word discover)" },
	{ "discover iscsi://h " I1 "\n#\ndiscover iscsi://h:3260 " I1,
	  "line 3: the portal and initiator of line 1 again" },
	{ D16 " http://h/iqn.2026-12.x:y/0 " I1, "line 1: the URL must begin with iscsi://" },
	{ D16 " iscsi://user:pw@h/iqn.2026-12.x:y/0 " I1,
	  "line 1: the URL's port must be 1 to 65535" },
	{ D16 " iscsi://u@h/iqn.2026-12.x:y/0 " I1,
	  "line 1: the URL's host may hold only letters, digits, . and - (no user@)" },
	{ D16 " iscsi://h:0/iqn.2026-12.x:y/0 " I1, "line 1: the URL's port must be 1 to 65535" },
	{ D16 " iscsi://h:65536/iqn.2026-12.x:y/0 " I1,
	  "line 1: the URL's port must be 1 to 65535, then /" },
	{ D16 " iscsi://h:99999999999999999999/iqn.2026-12.x:y/0 " I1,
	  "line 1: the URL's port must be 1 to 65535, then /" },
	{ D16 " iscsi://[fd00::1/iqn.2026-12.x:y/0 " I1, "line 1: the URL's [IPv6] address is not closed" },
	{ D16 " iscsi://[fd0g::1]/iqn.2026-12.x:y/0 " I1,
	  "line 1: the URL's IPv6 address may hold only hex digits, : and ." },
	{ D16 " iscsi://h/iqn.2026-12.x:y " I1, "line 1: the URL needs /LUN after the target name" },
	{ D16 " iscsi://h " I1, "line 1: the URL needs /TARGET/LUN after the host" },
	{ D16 " iscsi://h/iqn.2026-12.X:y/0 " I1,
	  "line 1: the target name may hold only a-z 0-9 . : - (lower case)" },
	{ D16 " iscsi://h/foo.bar/0 " I1, "line 1: the target name must begin with iqn., eui. or naa." },
	{ D16 " iscsi://h/iqn.2026-12.x:y/16384 " I1,
	  "line 1: the URL's LUN must be a decimal number 0 to 16383" },
	{ D16 " iscsi://h/iqn.2026-12.x:y/01 " I1,
	  "line 1: the URL's LUN must be a decimal number 0 to 16383" },
	{ D16 " iscsi://h/iqn.2026-12.x:y/1/2 " I1,
	  "line 1: the URL's LUN must be a decimal number 0 to 16383" },
	{ D16 " " U1 " initiator", "line 1: a field after the URL must be KEY=VALUE" },
	{ D16 " " U1 " " I1 " " I1, "line 1: initiator= given twice" },
	{ D16 " " U1 " " I1 " lun=2", "line 1: unknown key (initiator, chap_user, chap_secret)" },
	{ D16 " " U1 " chap_user=a", "line 1: initiator= is missing" },
	{ D16 " " U1 " " I1 " chap_user=a", "line 1: chap_user= and chap_secret= go together" },
	{ D16 " " U1 " " I1 " chap_secret=", "line 1: chap_secret must be 1 to 255 bytes" },
	{ D16 " " U1 " " I1 " a b c d e f", "line 1: too many fields" },
	{ D16 " " U1 " " I1 "\r\n", "line 1: byte 0x0d at column 128: only printable ASCII and tabs" },
	{ "#\n#\n# caf\xc3\xa9\n", "line 3: byte 0xc3 at column 6: only printable ASCII and tabs" },
	{ D16 " " U1 " " I1 "\n" D16 " " U1 " " I1 "\n", "line 2: the designator of line 1 again" },
};

/* discover lines: the portals, apart from the naa. lines; the same portal as two initiators */
static void
map_parse_discover(void)
{
	const char *text = "discover iscsi://192.0.2.7 " I1 "\n"
			   D16 " " U1 " " I1 "\n"
			   "discover\tiscsi://[fd00::7]:3261 initiator=iqn.2026-12.org.example:cm2 "
			   "chap_user=cm chap_secret=s\n"
			   "discover iscsi://192.0.2.7:3260 initiator=iqn.2026-12.org.example:cm2\n";
	struct xt_peer_map m;
	char why[256], *big;
	size_t i, at = 0;

	UT_ASSERT_FATAL(parse(text, &m, why, sizeof(why)) == 0);
	UT_ASSERT_FATAL(m.n == 1 && m.nportal == 3);
	CU_ASSERT_EQUAL(m.v[0].line, 2);
	CU_ASSERT_STRING_EQUAL(m.portal[0].host, "192.0.2.7");
	CU_ASSERT_EQUAL(m.portal[0].port, 3260);
	CU_ASSERT_EQUAL(m.portal[0].desig_len, 0);
	CU_ASSERT_STRING_EQUAL(m.portal[0].target, "");
	CU_ASSERT_STRING_EQUAL(m.portal[0].initiator, "iqn.2026-12.org.example:cm");
	CU_ASSERT_EQUAL(m.portal[0].line, 1);
	CU_ASSERT_STRING_EQUAL(m.portal[1].host, "fd00::7");
	CU_ASSERT_EQUAL(m.portal[1].port, 3261);
	CU_ASSERT_STRING_EQUAL(m.portal[1].chap_user, "cm");
	CU_ASSERT_STRING_EQUAL(m.portal[1].chap_secret, "s");
	CU_ASSERT_EQUAL(m.portal[2].line, 4);
	/* a discover line is not a designator: resolution by the naa. lines only */
	{
		static const uint8_t zero[16];

		CU_ASSERT_PTR_NULL(xt_peer_map_find(&m, zero, 0));
		CU_ASSERT_PTR_NULL(xt_peer_map_find(&m, zero, 16));
	}
	xt_peer_map_free(&m);
	CU_ASSERT_EQUAL(m.nportal, 0);
	CU_ASSERT_PTR_NULL(m.portal);
	/* XT_PEER_PORTALS_MAX discover lines, then one more */
	big = malloc(64 * (XT_PEER_PORTALS_MAX + 1));
	UT_ASSERT_FATAL(big != NULL);
	for (i = 0; i <= XT_PEER_PORTALS_MAX; i++) {
		at += (size_t)sprintf(big + at, "discover iscsi://h%zu " I1 "\n", i);
	}
	CU_ASSERT_EQUAL(xt_peer_map_parse(big, at, &m, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "line 17: more than 16 discover lines");
	CU_ASSERT_EQUAL(m.nportal, 0);
	CU_ASSERT_PTR_NULL(m.portal);
	free(big);
}

static void
map_parse_refusals(void)
{
	struct xt_peer_map m;
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(g_bad) / sizeof(g_bad[0]); i++) {
		int rc = parse(g_bad[i].text, &m, why, sizeof(why));

		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_EQUAL(m.n, 0);
		CU_ASSERT_PTR_NULL(m.v);
		CU_ASSERT_EQUAL(m.nportal, 0);
		CU_ASSERT_PTR_NULL(m.portal);
		if (strcmp(why, g_bad[i].why) != 0) {
			fprintf(stderr, "case %zu: got \"%s\"\n  want \"%s\"\n", i, why, g_bad[i].why);
			CU_FAIL("reason");
		}
	}
	/* a NUL inside the buffer is a byte like any other */
	CU_ASSERT_EQUAL(xt_peer_map_parse("#a\0b\n", 5, &m, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "line 1: byte 0x00 at column 3: only printable ASCII and tabs");
}

static void
map_parse_bounds(void)
{
	struct xt_peer_map m;
	char why[256];
	char *big;
	size_t i;

	big = malloc(XT_PEER_FILE_MAX + 2);
	UT_ASSERT_FATAL(big != NULL);
	/* line 2 is 1024 bytes without its newline: one too many */
	memset(big, '#', 2000);
	big[0] = '\n';
	big[1 + XT_PEER_LINE_MAX] = '\n';
	CU_ASSERT_EQUAL(xt_peer_map_parse(big, 2 + XT_PEER_LINE_MAX, &m, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "line 2: longer than 1023 bytes");
	/* 1023 bytes and no newline: the longest line */
	CU_ASSERT_EQUAL(xt_peer_map_parse(big, XT_PEER_LINE_MAX, &m, why, sizeof(why)), 0);
	memset(big, '\n', XT_PEER_FILE_MAX + 1);
	CU_ASSERT_EQUAL(xt_peer_map_parse(big, XT_PEER_FILE_MAX + 1, &m, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "line 0: the map is larger than 1048576 bytes");
	CU_ASSERT_EQUAL(xt_peer_map_parse(big, XT_PEER_FILE_MAX, &m, why, sizeof(why)), 0);
	/* XT_PEER_ENTRIES_MAX peers, then one more */
	{
		size_t at = 0;

		for (i = 0; i <= XT_PEER_ENTRIES_MAX; i++) {
			at += (size_t)sprintf(big + at, "naa.6%031zx " U1 " " I1 "\n", i);
		}
		CU_ASSERT_EQUAL(xt_peer_map_parse(big, at, &m, why, sizeof(why)), -EINVAL);
		CU_ASSERT_STRING_EQUAL(why, "line 1025: more than 1024 peers");
	}
	free(big);
}

static void
map_mode_rule(void)
{
	struct stat st;
	char why[160];

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0600;
	CU_ASSERT_EQUAL(xt_peer_map_mode_ok(&st, 0, why, sizeof(why)), 0);
	st.st_mode = S_IFREG | 0400;
	CU_ASSERT_EQUAL(xt_peer_map_mode_ok(&st, 0, why, sizeof(why)), 0);
	st.st_mode = S_IFREG | 0644;
	CU_ASSERT_EQUAL(xt_peer_map_mode_ok(&st, 0, why, sizeof(why)), -EPERM);
	CU_ASSERT_STRING_EQUAL(why, "mode 0644: it holds CHAP secrets, no group or other "
				    "permission may be set (chmod 600)");
	st.st_mode = S_IFREG | 0602;
	CU_ASSERT_EQUAL(xt_peer_map_mode_ok(&st, 0, why, sizeof(why)), -EPERM);
	st.st_mode = S_IFREG | 0640;
	CU_ASSERT_EQUAL(xt_peer_map_mode_ok(&st, 0, why, sizeof(why)), -EPERM);
	st.st_mode = S_IFREG | 0600;
	st.st_uid = 1000;
	CU_ASSERT_EQUAL(xt_peer_map_mode_ok(&st, 0, why, sizeof(why)), -EPERM);
	CU_ASSERT_STRING_EQUAL(why, "owned by uid 1000, not 0");
	st.st_uid = 0;
	st.st_mode = S_IFDIR | 0700;
	CU_ASSERT_EQUAL(xt_peer_map_mode_ok(&st, 0, why, sizeof(why)), -EPERM);
	CU_ASSERT_STRING_EQUAL(why, "not a regular file");
}

static void
put_map(const char *text, mode_t mode)
{
	char tmp[80];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", g_path);
	f = fopen(tmp, "w");
	UT_ASSERT_FATAL(f != NULL);
	UT_ASSERT_FATAL(fputs(text, f) >= 0);
	UT_ASSERT_FATAL(fclose(f) == 0);
	UT_ASSERT_FATAL(chmod(tmp, mode) == 0);
	UT_ASSERT_FATAL(rename(tmp, g_path) == 0);
}

/* xt_peer_lookup: the file as it is now (absent, refused, replaced), never a stale entry. */
static void
map_lookup_reload(void)
{
	static const uint8_t d16[16] = { 0x60, 0x01, 0x40, 0x51, 0x23, 0x45, 0x67, 0x89,
					 0x0a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78 };
	struct xt_lu lu;
	struct xt_peer p;

	if (geteuid() != 0) {
		UT_SKIP("the map must be root's own: runs as root only");
		return;
	}
	memset(&lu, 0, sizeof(lu));
	xt_peer_map_reset();
	unlink(g_path);
	CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), -ENOENT);   /* no file: no peers */
	put_map(D16 " " U1 " " I1 "\n", 0600);
	memset(&p, 0, sizeof(p));
	CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), 0);
	CU_ASSERT_STRING_EQUAL(p.target, "iqn.2026-12.org.example:peer");
	CU_ASSERT_EQUAL(p.port, 3261);
	/* world-readable: refused whole, although it names the LU */
	UT_ASSERT_FATAL(chmod(g_path, 0644) == 0);
	CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), -ENOENT);
	UT_ASSERT_FATAL(chmod(g_path, 0600) == 0);
	CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), 0);
	/* replaced by a map that names another LU: the old entry is gone at once */
	put_map("naa.6" "0000000000000000000000000000001 " U1 " " I1 "\n", 0600);
	CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), -ENOENT);
	/* a map that does not parse: no peer at all */
	put_map(D16 " " U1 " " I1 "\nnonsense\n", 0600);
	CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), -ENOENT);
	/* a symlink to a good map is not followed */
	put_map(D16 " " U1 " " I1 "\n", 0600);
	{
		char real[80];

		snprintf(real, sizeof(real), "%s.real", g_path);
		UT_ASSERT_FATAL(rename(g_path, real) == 0);
		UT_ASSERT_FATAL(symlink(real, g_path) == 0);
		CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), -ENOENT);
		unlink(real);
	}
	/* the discover lines as the file is now; a new file, a new generation */
	{
		struct xt_peer v[XT_PEER_PORTALS_MAX];
		uint64_t g1, g2, g3;

		put_map("discover iscsi://192.0.2.9 " I1 "\n" D16 " " U1 " " I1 "\n", 0600);
		CU_ASSERT_EQUAL(xt_peer_portals(&lu, v, XT_PEER_PORTALS_MAX, &g1), 1);
		CU_ASSERT_STRING_EQUAL(v[0].host, "192.0.2.9");
		CU_ASSERT_EQUAL(xt_peer_lookup(&lu, d16, 16, &p), 0);   /* naa. lines as before */
		CU_ASSERT_EQUAL(xt_peer_portals(&lu, v, XT_PEER_PORTALS_MAX, &g2), 1);
		CU_ASSERT_EQUAL(g1, g2);   /* not read again: unchanged */
		put_map("# none\n", 0600);
		CU_ASSERT_EQUAL(xt_peer_portals(&lu, v, XT_PEER_PORTALS_MAX, &g3), 0);
		CU_ASSERT_NOT_EQUAL(g3, g2);
	}
	unlink(g_path);
	xt_peer_map_reset();
}

/* ::ffff:a.b.c.d, as an IPv6 CSCD carries an IPv4 address */
static void
v4mapped(uint8_t a[16], uint8_t x, uint8_t y, uint8_t z, uint8_t w)
{
	memset(a, 0, 16);
	a[10] = 0xff;
	a[11] = 0xff;
	a[12] = x;
	a[13] = y;
	a[14] = z;
	a[15] = w;
}

/*
 * xt_peer_map_find_portal: an IPv6 CSCD (EAh) names a LU by portal address,
 * TCP port and LUN; an entry matches when its HOST is that address (IPv4
 * entries as IPv4-mapped IPv6), its port and LUN equal; a host name never
 * matches; two entries alike match nothing.
 */
static void
map_find_portal(void)
{
	static const uint8_t fd00_1[16] = { 0xfd, 0x00, [15] = 0x01 };
	static const uint8_t db8_9[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x09 };
	const char *text = D16 " " U1 " " I1 "\n"
			   "naa.5001020304050607 iscsi://[fd00::1]/iqn.2026-12.org.example:six/0 "
			   I1 "\n"
			   "naa.5001020304050608 iscsi://peer.example/iqn.2026-12.org.example:name/0 "
			   I1 "\n"
			   "naa.5001020304050609 iscsi://[2001:db8::9]/iqn.2026-12.org.example:a/1 "
			   I1 "\n"
			   "naa.500102030405060a iscsi://[2001:db8::9]/iqn.2026-12.org.example:b/1 "
			   I1 "\n"
			   "naa.500102030405060b iscsi://[::ffff:10.0.0.2]:3262/iqn.2026-12.org.example:m/7 "
			   I1 "\n";
	struct xt_peer_map m;
	const struct xt_peer *p;
	uint8_t a[16];
	char why[256];
	size_t n;

	UT_ASSERT_FATAL(parse(text, &m, why, sizeof(why)) == 0);
	UT_ASSERT_FATAL(m.n == 6);
	/* 127.0.0.1:3261 LUN 3: the IPv4 entry */
	v4mapped(a, 127, 0, 0, 1);
	p = xt_peer_map_find_portal(&m, a, 3261, 3, &n);
	CU_ASSERT_PTR_EQUAL(p, &m.v[0]);
	CU_ASSERT_EQUAL(n, 1);
	/* the same with another port, another LUN, another address: none */
	CU_ASSERT_PTR_NULL(xt_peer_map_find_portal(&m, a, 3260, 3, &n));
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(xt_peer_map_find_portal(&m, a, 3261, 4, &n));
	v4mapped(a, 127, 0, 0, 2);
	CU_ASSERT_PTR_NULL(xt_peer_map_find_portal(&m, a, 3261, 3, &n));
	/* [fd00::1], port 3260 by default, LUN 0 */
	CU_ASSERT_PTR_EQUAL(xt_peer_map_find_portal(&m, fd00_1, 3260, 0, &n), &m.v[1]);
	/* an IPv4-compatible form is not the IPv4-mapped one: ::127.0.0.1 names nothing */
	memset(a, 0, sizeof(a));
	a[12] = 127;
	a[15] = 1;
	CU_ASSERT_PTR_NULL(xt_peer_map_find_portal(&m, a, 3261, 3, &n));
	/* two targets at [2001:db8::9]:3260 with LUN 1: the CSCD names neither */
	CU_ASSERT_PTR_NULL(xt_peer_map_find_portal(&m, db8_9, 3260, 1, &n));
	CU_ASSERT_EQUAL(n, 2);
	/* an entry written [::ffff:10.0.0.2] is the IPv4 address 10.0.0.2 */
	v4mapped(a, 10, 0, 0, 2);
	CU_ASSERT_PTR_EQUAL(xt_peer_map_find_portal(&m, a, 3262, 7, &n), &m.v[5]);
	xt_peer_map_free(&m);
}

/* xt_peer_cscd_desig: the designator the map names a CSCD's LU by (E4h own, EAh by portal). */
static void
map_cscd_desig(void)
{
	static const uint8_t d16[16] = { 0x60, 0x01, 0x40, 0x51, 0x23, 0x45, 0x67, 0x89,
					 0x0a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78 };
	struct xcm_cscd c;
	struct xt_lu lu;
	uint8_t d[16];
	size_t len;

	if (geteuid() != 0) {
		UT_SKIP("the map must be root's own: runs as root only");
		return;
	}
	memset(&lu, 0, sizeof(lu));
	xt_peer_map_reset();
	put_map(D16 " " U1 " " I1 "\n"
		"naa.5001020304050608 iscsi://localhost:3261/iqn.2026-12.org.example:n/4 " I1 "\n",
		0600);
	memset(&c, 0, sizeof(c));
	c.type = XCM_CSCD_IPV6;
	c.pdt = XCM_PDT_BLOCK;
	v4mapped(c.ip, 127, 0, 0, 1);
	c.port = 3261;
	c.ipn = 6;
	xcm_lun_encode(3, c.lu_id);
	len = 0;
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), 0);
	CU_ASSERT_EQUAL(len, 16);
	CU_ASSERT_EQUAL(memcmp(d, d16, 16), 0);
	/* LUN 3 in flat space addressing is LUN 3 */
	c.lu_id[0] = 0x40;
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), 0);
	/* a LUN with a bus number, a second level: not a map LUN */
	c.lu_id[0] = 0x01;
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), -ENOENT);
	xcm_lun_encode(3, c.lu_id);
	c.lu_id[3] = 1;
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), -ENOENT);
	xcm_lun_encode(3, c.lu_id);
	c.port = 3260;
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), -ENOENT);
	/* "localhost" is a name: never looked up, never matched */
	c.port = 3261;
	xcm_lun_encode(4, c.lu_id);
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), -ENOENT);
	/* an E4h: its own NAA designator, whether or not the map names it */
	memset(&c, 0, sizeof(c));
	c.type = XCM_CSCD_ID;
	c.code_set = XCM_CODE_SET_BINARY;
	c.desig_type = XCM_DESIG_NAA;
	c.desig_len = 16;
	memcpy(c.desig, d16, 16);
	memset(d, 0, sizeof(d));
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), 0);
	CU_ASSERT_EQUAL(memcmp(d, d16, 16), 0);
	/* an E4h with a T10 vendor ID designator: the map names LUs by NAA only */
	c.desig_type = XCM_DESIG_T10;
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), -ENOENT);
	/* an extension slot names nothing */
	c.type = XCM_CSCD_EXT;
	CU_ASSERT_EQUAL(xt_peer_cscd_desig(&lu, &c, d, &len), -ENOENT);
	unlink(g_path);
	xt_peer_map_reset();
}

static CU_TestInfo g_tests[] = {
	{ "parse_fields", map_parse_fields },
	{ "parse_refusals", map_parse_refusals },
	{ "parse_discover", map_parse_discover },
	{ "parse_bounds", map_parse_bounds },
	{ "mode_rule", map_mode_rule },
	{ "lookup_reload", map_lookup_reload },
	{ "find_portal", map_find_portal },
	{ "cscd_desig", map_cscd_desig },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_peer_map, g_tests)
