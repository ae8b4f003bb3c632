/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the plugin's peer map parser (target/peer/peer_map.c,
 * man xcopy-peers.5): the file root writes, but a typo or a hostile edit
 * must never crash the copy manager nor let through an entry that is not
 * whole.
 *
 * Input: a map file. Invariants, else abort(): 0 or -EINVAL; a refusal
 * says "line N: ..." with N at most the input's lines and leaves the map
 * empty; an accepted map has at most XT_PEER_ENTRIES_MAX entries, each with
 * an 8 or 16 byte NAA designator (NAA 2/3/5 or 6), NUL-terminated names of
 * iSCSI form, a port, a LUN <= 16383, CHAP user and secret both or neither,
 * no designator twice, lines rising; each entry is found by its designator.
 * Discover lines: at most XT_PEER_PORTALS_MAX, no designator, no target,
 * LUN 0, a host, a port, an iSCSI initiator name, CHAP both or neither,
 * no portal and initiator twice, lines rising and none shared with a naa.
 * line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "peer/peer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define die(what) fuzz_die("fuzz_peer_map", (what))

static bool
terminated(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

static bool
iscsi_name(const char *s)
{
	return strncmp(s, "iqn.", 4) == 0 || strncmp(s, "eui.", 4) == 0 ||
	       strncmp(s, "naa.", 4) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xt_peer_map m;
	char why[256];
	unsigned int lines = 1, last = 0;
	size_t i, j;
	int rc;

	for (i = 0; i < size; i++) {
		lines += data[i] == '\n';
	}
	memset(why, 'X', sizeof(why));
	rc = xt_peer_map_parse((const char *)data, size, &m, why, sizeof(why));
	if (rc != 0 && rc != -EINVAL) {
		die("unexpected return");
	}
	if (rc != 0) {
		unsigned int n = 0;

		if (!terminated(why, sizeof(why)) || sscanf(why, "line %u: ", &n) != 1 ||
		    n > lines || m.n != 0 || m.v != NULL || m.nportal != 0 || m.portal != NULL) {
			die("a refusal without its line, or with a map");
		}
		return 0;
	}
	if (m.n > XT_PEER_ENTRIES_MAX || (m.n > 0) != (m.v != NULL)) {
		die("map size");
	}
	for (i = 0; i < m.n; i++) {
		const struct xt_peer *p = &m.v[i];
		uint8_t naa = p->desig[0] >> 4;

		if (!(p->desig_len == 16 && naa == 6) &&
		    !(p->desig_len == 8 && (naa == 2 || naa == 3 || naa == 5))) {
			die("designator");
		}
		if (!terminated(p->host, sizeof(p->host)) || p->host[0] == '\0' ||
		    !terminated(p->target, sizeof(p->target)) || !iscsi_name(p->target) ||
		    !terminated(p->initiator, sizeof(p->initiator)) || !iscsi_name(p->initiator) ||
		    !terminated(p->chap_user, sizeof(p->chap_user)) ||
		    !terminated(p->chap_secret, sizeof(p->chap_secret))) {
			die("a name not whole");
		}
		if (p->port == 0 || p->lun > 16383 ||
		    (p->chap_user[0] == '\0') != (p->chap_secret[0] == '\0')) {
			die("port, LUN or CHAP");
		}
		if (p->line <= last || p->line > lines) {
			die("line numbers");
		}
		last = p->line;
		for (j = 0; j < i; j++) {
			if (m.v[j].desig_len == p->desig_len &&
			    memcmp(m.v[j].desig, p->desig, p->desig_len) == 0) {
				die("a designator twice");
			}
		}
		if (xt_peer_map_find(&m, p->desig, p->desig_len) != p) {
			die("an entry not found by its designator");
		}
	}
	if (m.nportal > XT_PEER_PORTALS_MAX || (m.nportal > 0) != (m.portal != NULL)) {
		die("portal count");
	}
	last = 0;
	for (i = 0; i < m.nportal; i++) {
		const struct xt_peer *p = &m.portal[i];

		if (p->desig_len != 0 || !terminated(p->target, sizeof(p->target)) ||
		    p->target[0] != '\0' || p->lun != 0) {
			die("a discover line with a designator, target or LUN");
		}
		if (!terminated(p->host, sizeof(p->host)) || p->host[0] == '\0' || p->port == 0 ||
		    !terminated(p->initiator, sizeof(p->initiator)) || !iscsi_name(p->initiator) ||
		    !terminated(p->chap_user, sizeof(p->chap_user)) ||
		    !terminated(p->chap_secret, sizeof(p->chap_secret)) ||
		    (p->chap_user[0] == '\0') != (p->chap_secret[0] == '\0')) {
			die("a discover line not whole");
		}
		if (p->line <= last || p->line > lines) {
			die("discover line numbers");
		}
		last = p->line;
		for (j = 0; j < m.n; j++) {
			if (m.v[j].line == p->line) {
				die("a line both naa. and discover");
			}
		}
		for (j = 0; j < i; j++) {
			if (strcmp(m.portal[j].host, p->host) == 0 && m.portal[j].port == p->port &&
			    strcmp(m.portal[j].initiator, p->initiator) == 0) {
				die("a portal and initiator twice");
			}
		}
	}
	xt_peer_map_free(&m);
	if (m.n != 0 || m.v != NULL || m.nportal != 0 || m.portal != NULL) {
		die("freed map not empty");
	}
	return 0;
}
