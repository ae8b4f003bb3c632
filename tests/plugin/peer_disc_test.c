/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Discovery (target/peer/peer_disc.c, "discover" lines of the peer map)
 * against the harness's fake libiscsi: a map that names only a portal;
 * a copy to the LU found there (SendTargets, REPORT LUNS, VPD 83h) and
 * back, bytes compared, logins only at the map's portal (never the
 * TargetAddress SendTargets gives), targets that refuse the login skipped;
 * the scan cached (one SendTargets for several copies), redone when a
 * designator is not found (at most every XT_PEER_DISC_RETRY_MS), when the
 * map changes and when its lifetime ends; a designator not on the portal
 * refused with the bytes of an unknown one (08/04); an explicit line wins
 * (no discovery at all); a designator on two LUs refused (0D/02, nothing
 * written); a found LU replaced (its identity check fails: the scan redone);
 * a portal that refuses discovery: 08/04, logged once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_iscsi.h"
#include "fake_tcmu.h"
#include "harness.h"
#include "peer_test.h"

#define DISC_LINE "discover iscsi://127.0.0.1:3262 " PEER_INIT "\n"

static const uint8_t g_elsewhere[16] = { 0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 0x01, 0x02,
					 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0c };

/* COPY ABORTED 08/04, segment 0, its destination CSCD: what an unknown designator gets */
static const uint8_t g_unknown[18] = { 0x70, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00,
				       0x00, 0x00, 0x00, 0x08, 0x04, 0x00, 0xa0, 0x00, 0x06 };

/* The remote LU fresh, and a map naming only its portal. */
static bool
disc_up(void)
{
	if (!peer_up()) {
		return false;
	}
	strcpy(g_fi.other[0], "iqn.2026-12.org.test:not-for-us");
	put_map("# only a portal\n" DISC_LINE, 0600);
	return true;
}

static void
test_disc_copy(void)
{
	uint8_t a[16], sense[96];
	unsigned int logins;

	if (!disc_up()) {
		return;
	}
	naa_of(SER_A, a);
	/* push: A 0..1023 -> remote 300.. */
	fill_pattern("a.img", 0, 1024 * BS, 0x71);
	list_peer(a, g_rd, 1024, 0, 300, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(300 * BS, "a.img", 0, 1024 * BS));
	CHECK(g_fi.discoveries == 1 && g_fi.report_luns == 1);
	CHECK(g_fi.foreign == 0 && strcmp(g_fi.portal, "127.0.0.1:3262") == 0);
	/* the scan's two logins (ours, the refusing target's) and the copy's */
	CHECK(g_fi.logins == 3 && g_fi.writes == 1 && g_fi.syncs == 1);
	CHECK(g_fi.contexts == 1);   /* the scan's sessions ended; the copy's pooled */
	/* pull: remote 7000..7099 -> A 2000..: the cached scan, the pooled session */
	logins = g_fi.logins;
	list_peer(g_rd, a, 100, 7000, 2000, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(7000 * BS, "a.img", 2000 * BS, 100 * BS));
	CHECK(g_fi.discoveries == 1 && g_fi.logins == logins);
	/* a designator not on the portal: 08/04 as unknown, the scan not redone so soon */
	snapshot("a.img", "a.orig");
	list_peer(a, g_elsewhere, 8, 0, 0, 0);
	memset(sense, 0, sizeof(sense));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(memcmp(sense, g_unknown, sizeof(g_unknown)) == 0);
	CHECK(g_fi.discoveries == 1);
	/* ... XT_PEER_DISC_RETRY_MS later: scanned again (still not there), then not again */
	plugin_clock_advance_ms(11000);
	memset(sense, 0, sizeof(sense));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(memcmp(sense, g_unknown, sizeof(g_unknown)) == 0);
	CHECK(g_fi.discoveries == 2);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(g_fi.discoveries == 2 && g_fi.foreign == 0);
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
}

/* The scan is cached for its lifetime, and redone when the map is read again. */
static void
test_disc_cache(void)
{
	uint8_t a[16], sense[96];

	if (!disc_up()) {
		return;
	}
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 16 * BS, 0x72);
	list_peer(a, g_rd, 16, 0, 40, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.discoveries == 1);
	plugin_clock_advance_ms(100000);   /* < XT_PEER_DISC_TTL_MS */
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.discoveries == 1);
	plugin_clock_advance_ms(201000);   /* past it: scanned again */
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.discoveries == 2);
	/* the map rewritten (the same line): read again, scanned again */
	put_map("# again\n" DISC_LINE, 0600);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.discoveries == 3);
	CHECK(remote_is(40 * BS, "a.img", 0, 16 * BS));
}

/* A naa. line for the designator wins: no discovery at all. */
static void
test_disc_explicit_wins(void)
{
	uint8_t a[16], sense[96];

	if (!disc_up()) {
		return;
	}
	put_map(DISC_LINE PEER_LINE "\n", 0600);
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 16 * BS, 0x73);
	list_peer(a, g_rd, 16, 0, 80, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(80 * BS, "a.img", 0, 16 * BS));
	CHECK(g_fi.discoveries == 0 && g_fi.report_luns == 0 && g_fi.logins == 1);
}

/* Two LUs of the portal report the designator: refused (0D/02), nothing written, logged. */
static void
test_disc_ambiguous(void)
{
	uint8_t a[16], sense[96];
	uint8_t *orig;

	if (!disc_up()) {
		return;
	}
	fake_iscsi_add_lu2(7, g_elsewhere);
	g_fi.report_desig = g_rd;   /* both LUNs report g_rd */
	orig = malloc((size_t)R_BLOCKS * BS);
	CHECK(orig != NULL);
	if (orig == NULL) {
		return;
	}
	memcpy(orig, g_fi.medium, (size_t)R_BLOCKS * BS);
	naa_of(SER_A, a);
	fake_warn_reset();
	list_peer(a, g_rd, 8, 0, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE));
	CHECK(g_fi.writes == 0 && g_fi.inquiries == 2);   /* the scan's two VPD 83h, no open */
	CHECK(memcmp(g_fi.medium, orig, (size_t)R_BLOCKS * BS) == 0);
	CHECK(strstr(g_warns, "on two LUs") != NULL && strstr(g_warns, "LUN 5") != NULL &&
	      strstr(g_warns, "LUN 7") != NULL);
	/* LUN 7 gets its own designator back: found after the rescan's rate limit */
	g_fi.report_desig = NULL;
	plugin_clock_advance_ms(301000);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.writes == 1);
	free(orig);
}

/*
 * The LU found by a scan is replaced (LUN 5 now reports another designator):
 * the copy fails its identity check (0D/02) and marks the scan stale; the
 * rescan (after XT_PEER_DISC_RETRY_MS) no longer finds the designator
 * (08/04); the LU back: found again by the rescan of a designator not found.
 */
static void
test_disc_stale(void)
{
	uint8_t a[16], sense[96];

	if (!disc_up()) {
		return;
	}
	naa_of(SER_A, a);
	list_peer(a, g_rd, 8, 0, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	g_fi.report_desig = g_elsewhere;
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(g_fi.discoveries == 1);   /* stale, but not rescanned so soon */
	plugin_clock_advance_ms(11000);
	memset(sense, 0, sizeof(sense));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(memcmp(sense, g_unknown, sizeof(g_unknown)) == 0);
	CHECK(g_fi.discoveries == 2 && g_fi.writes == 1);
	g_fi.report_desig = NULL;
	plugin_clock_advance_ms(11000);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.discoveries == 3 && g_fi.writes == 2);
}

/* The portal refuses discovery: 08/04 (not found), the reason logged once. */
static void
test_disc_portal_down(void)
{
	uint8_t a[16], sense[96];

	if (!disc_up()) {
		return;
	}
	g_fi.no_discovery = true;
	naa_of(SER_A, a);
	list_peer(a, g_rd, 8, 0, 0, 0);
	g_last_err[0] = '\0';
	memset(sense, 0, sizeof(sense));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(memcmp(sense, g_unknown, sizeof(g_unknown)) == 0);
	CHECK(strstr(g_last_err, "no scan") != NULL && strstr(g_last_err, "Target not found"));
	g_last_err[0] = '\0';
	plugin_clock_advance_ms(11000);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(g_last_err[0] == '\0');   /* the same failure: not logged again */
	CHECK(g_fi.writes == 0 && g_fi.logins == 0);
	/* the portal back: found at the next rescan */
	g_fi.no_discovery = false;
	plugin_clock_advance_ms(11000);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.discoveries == 1);
}

const struct ptest g_peer_disc_tests[] = {
	{ "peer.disc_copy", test_disc_copy },
	{ "peer.disc_cache", test_disc_cache },
	{ "peer.disc_explicit_wins", test_disc_explicit_wins },
	{ "peer.disc_ambiguous", test_disc_ambiguous },
	{ "peer.disc_stale", test_disc_stale },
	{ "peer.disc_portal_down", test_disc_portal_down },
	{ NULL, NULL },
};
