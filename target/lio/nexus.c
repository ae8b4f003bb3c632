/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sessions that can reach a LU, as a set (docs/target-commands.md "Held results
 * and sessions"); held.c uses it to scope held results.
 *
 * SPC-4 keeps the results of an EXTENDED COPY (the list identifier, COPY
 * STATUS and FAILED SEGMENT DETAILS of RECEIVE COPY RESULTS, 6.18) for the
 * I_T nexus that sent it, and discards them when that nexus is lost; another
 * I_T nexus never sees them. The TCMU ring carries no nexus, so the plugin
 * cannot tell which session sent a command; what it can see is which
 * sessions can reach the LU, in LIO's configfs. This file reads that as a set
 * of 64-bit element hashes, one element per session identity. Per TPG with a
 * LUN linked to the LU:
 *   - the TPG itself (a new export is a new way in);
 *   - its nexus file, when not empty (tcm_loop, vhost, xen-scsiback: the one
 *     initiator port of the TPG);
 *   - iSCSI: each line of dynamic_sessions (initiator names of demo-mode
 *     sessions); for each node ACL mapping the LU, the "LIO Session ID" line
 *     of its info (session id, ISID and TSIH of the ACL's current session);
 *     and the value of the target IQN's login counter
 *     (fabric_statistics/iscsi_login_stats/accepts), which changes exactly
 *     when a session arrives on the IQN, demo mode included, even when its
 *     initiator name is already listed.
 *
 * Rule (held.c): completed held results are discarded when the new set has an
 * element the previous one did not — a session arrived, or one was replaced
 * (left and another arrived). When sessions only left, the results stay.
 * Why this is the SPC-4-compatible choice without a nexus: a result must
 * never reach an I_T nexus other than its sender's, and every new nexus shows
 * up as a new element, so a new nexus never sees results held before it
 * arrived. Keeping results after a departure means the results of a departed
 * sender may outlive it until the next arrival or XT_HELD_LIFETIME_MS, which
 * no initiator can observe (the sender is gone; the ones still logged in were
 * there when the copy ran, the limit stated in docs/target-commands.md). Discarding
 * on departures instead lost the results of the session that was still
 * asking for them when another one logged out in between (libiscsi's
 * iscsi-test-cu: its probe session's logout).
 *
 * The set is bounded (XT_NEXUS_MAX elements). Past the bound it is marked
 * overflowed and only an order-independent sum of all elements is compared:
 * any change discards, as before the set rule.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lio/lio.h"

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)
#define NEXUS_FILE_MAX 65536      /* bytes of one configfs file looked at */

static uint64_t
fnv(uint64_t h, const char *s)
{
	const uint8_t *b = (const uint8_t *)s;
	size_t i, n = strlen(s) + 1;   /* the NUL separates the parts */

	for (i = 0; i < n; i++) {
		h = (h ^ b[i]) * FNV_PRIME;
	}
	return h;
}

/* The element of (kind, where, what): kind tells the sources apart. */
static uint64_t
element(const char *kind, const char *where, const char *what)
{
	return fnv(fnv(fnv(FNV_OFFSET, kind), where), what);
}

/* A bijective mixer (splitmix64's finaliser) for the order-independent sum. */
static uint64_t
mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

void
xt_nexus_set_init(struct xt_nexus_set *s)
{
	s->n = 0;
	s->overflow = false;
	s->sum = 0;
}

void
xt_nexus_set_add(struct xt_nexus_set *s, uint64_t h)
{
	uint32_t lo = 0, hi = s->n, mid;

	s->sum += mix(h);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->el[mid] < h) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < s->n && s->el[lo] == h) {
		return;   /* already there (the same initiator listed twice) */
	}
	if (s->n == XT_NEXUS_MAX) {
		s->overflow = true;
		return;
	}
	memmove(&s->el[lo + 1], &s->el[lo], (s->n - lo) * sizeof(s->el[0]));
	s->el[lo] = h;
	s->n++;
}

bool
xt_nexus_arrived(const struct xt_nexus_set *old, const struct xt_nexus_set *now)
{
	uint32_t i = 0, j;

	if (old->overflow || now->overflow) {
		return old->overflow != now->overflow || old->sum != now->sum;
	}
	/* both sorted: is some element of now missing from old? */
	for (j = 0; j < now->n; j++) {
		while (i < old->n && old->el[i] < now->el[j]) {
			i++;
		}
		if (i == old->n || old->el[i] != now->el[j]) {
			return true;
		}
	}
	return false;
}

/* dir/name into a malloc'd NUL-terminated buffer (the first NEXUS_FILE_MAX bytes); NULL if absent. */
static char *
read_small(const char *dir, const char *name)
{
	char p[PATH_MAX], *buf;
	ssize_t n, got = 0;
	int fd;

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p) ||
	    (fd = open(p, O_RDONLY | O_CLOEXEC)) < 0) {
		return NULL;
	}
	buf = malloc(NEXUS_FILE_MAX + 1);
	if (buf != NULL) {
		while (got < NEXUS_FILE_MAX &&
		       (n = read(fd, buf + got, NEXUS_FILE_MAX - got)) > 0) {
			got += n;
		}
		buf[got] = '\0';
	}
	close(fd);
	return buf;
}

/*
 * One element per non-blank line of dir/name (with prefix: only the lines
 * that start with it; counters and state lines around them change with
 * every command), tagged kind and where.
 */
static void
add_lines(struct xt_nexus_set *s, const char *kind, const char *where, const char *dir,
	  const char *name, const char *prefix)
{
	char *buf = read_small(dir, name), *line, *save = NULL;

	if (buf == NULL) {
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		if (line[strspn(line, " \t\r")] == '\0' ||
		    (prefix != NULL && strncmp(line, prefix, strlen(prefix)) != 0)) {
			continue;
		}
		xt_nexus_set_add(s, element(kind, where, line));
	}
	free(buf);
}

/* The elements of one TPG that exports so (wwn: its fabric WWN directory). */
static void
tpg_sessions(struct xt_nexus_set *s, const char *wwn, const char *tpg, const char *so)
{
	char acls[PATH_MAX], acl[PATH_MAX];
	struct dirent *de;
	DIR *d;

	xt_nexus_set_add(s, element("tpg", tpg, ""));
	add_lines(s, "nexus", tpg, tpg, "nexus", NULL);
	add_lines(s, "dynamic", tpg, tpg, "dynamic_sessions", NULL);
	add_lines(s, "accepts", wwn, wwn, "fabric_statistics/iscsi_login_stats/accepts", NULL);
	if (snprintf(acls, sizeof(acls), "%s/acls", tpg) >= (int)sizeof(acls) ||
	    (d = opendir(acls)) == NULL) {
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    snprintf(acl, sizeof(acl), "%s/%s", acls, de->d_name) >= (int)sizeof(acl) ||
		    !xt_acl_maps(acl, so)) {
			continue;
		}
		add_lines(s, "acl", acl, acl, "info", "LIO Session ID");
	}
	closedir(d);
}

/* Every TPG under the fabric WWN directory wwn that exports so. */
static void
wwn_sessions(struct xt_nexus_set *s, const char *wwn, const char *so)
{
	char tpg[PATH_MAX];
	struct dirent *t;
	DIR *dt;

	if ((dt = opendir(wwn)) == NULL) {
		return;
	}
	while ((t = readdir(dt)) != NULL) {
		if (strncmp(t->d_name, "tpgt_", 5) != 0 ||
		    snprintf(tpg, sizeof(tpg), "%s/%s", wwn, t->d_name) >= (int)sizeof(tpg) ||
		    !xt_tpg_exports(tpg, so)) {
			continue;
		}
		tpg_sessions(s, wwn, tpg, so);
	}
	closedir(dt);
}

int
xt_nexus_sessions(const char *root, const char *so_path, struct xt_nexus_set *s)
{
	char so[PATH_MAX], fab[PATH_MAX], wwn[PATH_MAX], rroot[PATH_MAX];
	struct dirent *f, *w;
	DIR *df, *dw;

	xt_nexus_set_init(s);
	/* the real root: xt_tpg_exports compares link targets with so as text */
	if (realpath(so_path, so) == NULL || realpath(root, rroot) == NULL) {
		return -errno;
	}
	if ((df = opendir(rroot)) == NULL) {
		return -errno;
	}
	while ((f = readdir(df)) != NULL) {
		if (f->d_name[0] == '.' || strcmp(f->d_name, "core") == 0 ||
		    snprintf(fab, sizeof(fab), "%s/%s", rroot, f->d_name) >= (int)sizeof(fab) ||
		    (dw = opendir(fab)) == NULL) {
			continue;
		}
		while ((w = readdir(dw)) != NULL) {
			if (w->d_name[0] != '.' &&
			    snprintf(wwn, sizeof(wwn), "%s/%s", fab, w->d_name) < (int)sizeof(wwn)) {
				wwn_sessions(s, wwn, so);
			}
		}
		closedir(dw);
	}
	closedir(df);
	return 0;
}
