/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Copies between a LU of this plugin and a LU of another iSCSI target that
 * the peer map names (target/peer/, issue #36), against the harness's fake
 * libiscsi (fake_iscsi.c): push (A -> remote, WRITE(16)) and pull (remote
 * -> A, READ(16)), bytes compared; a remote WRITE failing half way (COPY
 * ABORTED 0D/01 with the remote's sense forwarded, the exact bytes written
 * in COPY STATUS); a designator neither here nor in the map (the refusal of
 * before, byte for byte, and no login); a map entry whose LU reports
 * another designator (0D/02, nothing written); a map that is not root's
 * own 0600 (refused whole); the session pool (one login for two copies,
 * logged out after its idle time).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_iscsi.h"
#include "harness.h"
#include "peer_test.h"

/* the remote LU's designator (NAA 6), and one no LU anywhere has */
const uint8_t g_rd[16] = { 0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 0x01, 0x02,
				  0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a };
static const uint8_t g_none[16] = { 0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 0x01, 0x02,
				    0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0b };

static char g_map[300];

/* The map file with text, mode; owned by root (the harness runs as root). */
void
put_map(const char *text, mode_t mode)
{
	char tmp[320];
	FILE *f;

	snprintf(g_map, sizeof(g_map), "%s/peers.conf", g_tmp);
	snprintf(tmp, sizeof(tmp), "%s.new", g_map);
	f = fopen(tmp, "w");
	CHECK(f != NULL);
	if (f == NULL) {
		return;
	}
	fputs(text, f);
	fclose(f);
	CHECK(chmod(tmp, mode) == 0);
	CHECK(rename(tmp, g_map) == 0);
}

/* The remote LU fresh, its idle sessions of earlier tests logged out, the map naming it. */
bool
peer_up(void)
{
	char line[400];
	uint64_t i;

	if (geteuid() != 0) {
		fprintf(stderr, "  SKIP: the peer map must be root's own\n");
		return false;
	}
	plugin_clock_advance_ms(61000);   /* > XT_PEER_IDLE_MS: the pool reaps at next use */
	fake_iscsi_reset(BS, R_BLOCKS, g_rd);
	for (i = 0; i < (uint64_t)R_BLOCKS * BS; i++) {
		g_fi.medium[i] = (uint8_t)(i * 7 + 3);
	}
	snprintf(line, sizeof(line), "# the remote LU\n%s\n", PEER_LINE);
	put_map(line, 0600);
	return true;
}

/* One segment: n blocks from (src, slba) to (dst, dlba); each CSCD a raw NAA designator. */
void
list_peer(const uint8_t *src, const uint8_t *dst, uint32_t n, uint64_t slba, uint64_t dlba,
	  uint8_t id)
{
	uint8_t d[20] = { XCM_CODE_SET_BINARY, XCM_DESIG_NAA, 0, 16 };

	memset(g_list, 0, sizeof(*g_list));
	g_list->list_id = id;
	g_list->list_id_usage = id != 0 ? XCM_LIST_ID_HOLD : XCM_LIST_ID_NONE;
	memcpy(d + 4, src, 16);
	CHECK(xcm_cscd_from_designator(&g_list->cscd[0], d, sizeof(d), 0) == 0);
	memcpy(d + 4, dst, 16);
	CHECK(xcm_cscd_from_designator(&g_list->cscd[1], d, sizeof(d), 0) == 0);
	g_list->ncscd = 2;
	g_list->nseg = 1;
	g_list->seg[0].type = XCM_SEG_B2B;
	g_list->seg[0].src = &g_list->cscd[0];
	g_list->seg[0].dst = &g_list->cscd[1];
	g_list->seg[0].count = n;
	g_list->seg[0].src_lba = slba;
	g_list->seg[0].dst_lba = dlba;
}

bool
remote_is(uint64_t roff, const char *file, uint64_t off, uint64_t len)
{
	uint8_t *b = malloc(len);
	int fd = backing_fd(file);
	bool same;

	same = b != NULL && fd >= 0 && pread(fd, b, len, (off_t)off) == (ssize_t)len &&
	       memcmp(b, g_fi.medium + roff, len) == 0;
	if (fd >= 0) {
		close(fd);
	}
	free(b);
	return same;
}

static void
test_peer_push_pull(void)
{
	uint8_t a[16], sense[96];
	unsigned int logouts;

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	/* push: A 100..2147 -> remote 50.. (1 MiB: two WRITE(16) of 512 KiB) */
	fill_pattern("a.img", 100 * BS, 2048 * BS, 0x5a);
	list_peer(a, g_rd, 2048, 100, 50, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(50 * BS, "a.img", 100 * BS, 2048 * BS));
	CHECK(g_fi.logins == 1 && g_fi.inquiries == 1 && g_fi.writes == 2 &&
	      g_fi.write_bytes == 2048 * BS);
	CHECK(g_fi.syncs == 1);   /* on the remote's medium before GOOD */
	CHECK(strcmp(g_fi.portal, "127.0.0.1:3262") == 0);
	CHECK(g_fi.last_timeout > 0);   /* every command bounded */
	/* pull: remote 4000..4999 -> A 6000.. (the session of the push, pooled) */
	list_peer(g_rd, a, 1000, 4000, 6000, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(4000 * BS, "a.img", 6000 * BS, 1000 * BS));
	CHECK(g_fi.read_bytes == 1000 * BS && g_fi.syncs == 1);
	/* one session: the pool's only one (earlier tests' idle ones were logged out) */
	CHECK(g_fi.logins == 1 && g_fi.contexts == 1);
	logouts = g_fi.logouts;
	CHECK(stat_of("lu_a", "gateway_bytes") == 3048 * BS);
	/* the idle session is logged out after XT_PEER_IDLE_MS: the next copy logs in again */
	plugin_clock_advance_ms(61000);
	list_peer(g_rd, a, 8, 0, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.logins == 2 && g_fi.logouts == logouts + 1 && g_fi.contexts == 1);
	CHECK(remote_is(0, "a.img", 0, 8 * BS));
}

/*
 * The peer's target restarts between two copies (its sessions die while
 * idle in the pool): the next copy finds the pooled session dead at its
 * first command, drops it, logs in again and copies; GOOD, not a refusal.
 */
static void
test_peer_restarted(void)
{
	uint8_t a[16], sense[96];
	unsigned int logins;

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 64 * BS, 0x3c);
	list_peer(a, g_rd, 64, 0, 10, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	logins = g_fi.logins;
	CHECK(g_fi.contexts == 1);   /* pooled */
	g_fi.epoch++;
	fill_pattern("a.img", 0, 64 * BS, 0x4d);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(10 * BS, "a.img", 0, 64 * BS));
	CHECK(g_fi.logins == logins + 1);   /* the dead one dropped, one new login */
	CHECK(g_fi.contexts == 1);
}

/*
 * A pooled session is the map entry's only while the entry's CHAP secret is
 * the one it logged in with: a new secret in the map is a new login (a wrong
 * one is refused, 0D/02), not the old session's reuse.
 */
static void
test_peer_secret_changed(void)
{
	uint8_t a[16], sense[96];
	char line[400];
	unsigned int logins;

	if (!peer_up()) {
		return;
	}
	snprintf(g_fi.chap_user, sizeof(g_fi.chap_user), "cm");
	snprintf(g_fi.chap_secret, sizeof(g_fi.chap_secret), "secret-one");
	snprintf(line, sizeof(line), "%s chap_user=cm chap_secret=secret-one\n", PEER_LINE);
	put_map(line, 0600);
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 64 * BS, 0x5e);
	list_peer(a, g_rd, 64, 0, 20, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	logins = g_fi.logins;
	/* the target's secret and the map's change together: one new login, GOOD */
	snprintf(g_fi.chap_secret, sizeof(g_fi.chap_secret), "secret-two");
	snprintf(line, sizeof(line), "%s chap_user=cm chap_secret=secret-two\n", PEER_LINE);
	put_map(line, 0600);
	fill_pattern("a.img", 0, 64 * BS, 0x6f);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.logins == logins + 1);
	CHECK(remote_is(20 * BS, "a.img", 0, 64 * BS));
	/* a wrong secret in the map: refused at login although a session is pooled */
	snprintf(line, sizeof(line), "%s chap_user=cm chap_secret=secret-bad\n", PEER_LINE);
	put_map(line, 0600);
	CHECK(send_xcopy(&g_a, 0, 0, sense) != TCMU_STS_OK);
	CHECK(sense_is(sense, 0x0A, 0x0D02));
	CHECK(g_fi.logins == logins + 2);
	g_fi.chap_user[0] = '\0';
	g_fi.chap_secret[0] = '\0';
}

/*
 * The peer's target answers the login with a redirect to another portal:
 * the copy manager does not follow it (only the map's portal is reached),
 * the copy is refused as for any failed login (0D/02), nothing is written.
 * libiscsi's full connect would have followed it (the fake counts that as
 * a foreign connection).
 */
static void
test_peer_login_redirect(void)
{
	uint8_t a[16], sense[96];

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 64 * BS, 0x3c);
	g_fi.redirect = true;
	list_peer(a, g_rd, 64, 0, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) != TCMU_STS_OK);
	CHECK(sense_is(sense, 0x0A, 0x0D02));
	CHECK(g_fi.foreign == 0 && g_fi.writes == 0);
	g_fi.redirect = false;
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(0, "a.img", 0, 64 * BS));
	CHECK(g_fi.foreign == 0);
}

/*
 * The peer's LU holds UNIT ATTENTIONs for a new session (a reset, changed
 * LUNs): they are cleared by TEST UNIT READY after the login, and the
 * copy's READ/WRITE never meets one.
 */
static void
test_peer_login_ua(void)
{
	uint8_t a[16], sense[96];

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 256 * BS, 0x4d);
	g_fi.login_ua = 3;
	list_peer(a, g_rd, 256, 0, 10, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(10 * BS, "a.img", 0, 256 * BS));
	CHECK(g_fi.turs >= 4);   /* three answered UNIT ATTENTION, one GOOD */
	list_peer(g_rd, a, 64, 10, 1000, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(10 * BS, "a.img", 1000 * BS, 64 * BS));
}

/*
 * The connection drops under the 2nd WRITE(16) of a push (libiscsi 1.19.0
 * fails it on a target's NOP-In, peer_lu.c relogin): a new session, the
 * identity checked again, the WRITE sent again; GOOD, every byte there.
 * Connections that drop every time: COPY ABORTED after XT_PEER_RELOGINS
 * new sessions, not a loop.
 */
static void
test_peer_conn_lost(void)
{
	uint8_t a[16], sense[96];
	unsigned int logins;

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 2048 * BS, 0x71);
	fake_warn_reset();
	g_fi.drop_write_nth = 2;
	list_peer(a, g_rd, 2048, 0, 100, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(100 * BS, "a.img", 0, 2048 * BS));
	CHECK(g_fi.logins == 2 && g_fi.inquiries == 2 && g_fi.writes == 3);
	CHECK(strstr(g_warns, "logging in again (1 of 3)") != NULL);
	/* a pull on the pooled new session: no login */
	list_peer(g_rd, a, 64, 100, 4000, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(100 * BS, "a.img", 4000 * BS, 64 * BS));
	CHECK(g_fi.logins == 2);
	/* every WRITE drops: three new sessions, then COPY ABORTED */
	g_fi.drop_write_nth = 0;
	g_fi.drop_writes = true;
	logins = g_fi.logins;
	list_peer(a, g_rd, 64, 0, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) != TCMU_STS_OK);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, 0x0D01));   /* THIRD-PARTY DEVICE FAILURE */
	CHECK(g_fi.logins == logins + 3);   /* XT_PEER_RELOGINS */
	g_fi.drop_writes = false;
}

/* The 3rd WRITE(16) fails with DATA PROTECT 27/00: 1 MiB written of 2 MiB, sense forwarded. */
static void
test_peer_remote_error(void)
{
	uint8_t a[16], sense[96], cdb[16], buf[64];
	struct xcm_copy_status cs;
	struct xcm_sks_ptr ptr;
	struct xcm_sense ps, fs;
	uint8_t *orig;

	if (!peer_up()) {
		return;
	}
	orig = malloc((size_t)R_BLOCKS * BS);
	CHECK(orig != NULL);
	if (orig == NULL) {
		return;
	}
	memcpy(orig, g_fi.medium, (size_t)R_BLOCKS * BS);
	naa_of(SER_A, a);
	fill_pattern("a.img", 0, 4096 * BS, 0x33);
	g_fi.fail_write_nth = 3;
	g_fi.fail_key = 0x07;
	g_fi.fail_asc = 0x2700;
	list_peer(a, g_rd, 4096, 0, 1000, 9);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE));
	CHECK(xcm_sense_parse(xcm_span_make(sense, 96), &ps) == 0);
	CHECK(ps.csi == 0);   /* segment 0 */
	CHECK(xcm_sense_sks_ptr(&ps, &ptr) && ptr.sd && ptr.field == 6);   /* destination */
	CHECK(ps.fwd_valid && ps.fwd_source == 2 && ps.fwd_status == XCM_SAM_CHECK_CONDITION);
	CHECK(ps.fwd_valid && ps.fwd_len >= 14 &&
	      xcm_sense_parse(xcm_span_make(ps.fwd_sense, ps.fwd_len), &fs) == 0 &&
	      fs.key == 0x07 && fs.asc_ascq == 0x2700);
	/* COPY STATUS: exactly the first MiB written (two WRITE(16) of 512 KiB) */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 9, 12);
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 12, NULL) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_copy_status(xcm_span_make(buf, 12), &cs) == 0);
	CHECK(cs.cm_status == XCM_CM_STATUS_ERROR && cs.units == XCM_TC_UNITS_BYTES &&
	      cs.transfer_count == (1u << 20));
	CHECK(remote_is(1000 * BS, "a.img", 0, 1u << 20));
	CHECK(memcmp(g_fi.medium + 1000 * BS + (1u << 20), orig + 1000 * BS + (1u << 20),
		     (size_t)R_BLOCKS * BS - 1000 * BS - (1u << 20)) == 0);
	CHECK(memcmp(g_fi.medium, orig, 1000 * BS) == 0);
	CHECK(g_fi.syncs == 0);
	free(orig);
}

/*
 * A designator neither served here nor in the map: COPY ABORTED 08/04, the
 * same bytes as with no map at all, and no login. The exact bytes: fixed,
 * current, COPY ABORTED, CSI 0 (segment 0), 08/04, sense key specific:
 * SKSV, SD (a segment descriptor), byte 6 (its destination CSCD ID).
 */
static void
test_peer_not_in_map(void)
{
	static const uint8_t want[18] = { 0x70, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x0a,
					  0x00, 0x00, 0x00, 0x00, 0x08, 0x04, 0x00, 0xa0,
					  0x00, 0x06 };
	uint8_t a[16], with_map[96], no_map[96];

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	snapshot("a.img", "a.orig");
	list_peer(a, g_none, 8, 0, 0, 0);
	memset(with_map, 0, sizeof(with_map));
	CHECK(send_xcopy(&g_a, 0, 0, with_map) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(with_map, XCM_SK_COPY_ABORTED, XCM_ASC_UNREACHABLE_COPY_TARGET));
	if (memcmp(with_map, want, sizeof(want)) != 0) {
		int i;

		fprintf(stderr, "  sense:");
		for (i = 0; i < 18; i++) {
			fprintf(stderr, " %02x", with_map[i]);
		}
		fprintf(stderr, "\n");
		CHECK(!"sense bytes");
	}
	unlink(g_map);
	memset(no_map, 0, sizeof(no_map));
	CHECK(send_xcopy(&g_a, 0, 0, no_map) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(memcmp(with_map, no_map, sizeof(no_map)) == 0);
	CHECK(g_fi.logins == 0 && g_fi.inquiries == 0);
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
}

/* The map names the designator, but the LU at that URL reports another: 0D/02, nothing moved. */
static void
test_peer_identity(void)
{
	uint8_t a[16], sense[96];
	uint8_t *orig;

	if (!peer_up()) {
		return;
	}
	orig = malloc((size_t)R_BLOCKS * BS);
	CHECK(orig != NULL);
	if (orig == NULL) {
		return;
	}
	memcpy(orig, g_fi.medium, (size_t)R_BLOCKS * BS);
	naa_of(SER_A, a);
	g_fi.report_desig = g_none;
	list_peer(a, g_rd, 8, 0, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE));
	CHECK(g_fi.inquiries == 1 && g_fi.writes == 0);
	CHECK(memcmp(g_fi.medium, orig, (size_t)R_BLOCKS * BS) == 0);
	/* the remote refuses our initiator (its ACL / CHAP): 0D/02, nothing moved */
	g_fi.report_desig = NULL;
	strcpy(g_fi.initiator, "iqn.2026-12.org.test:someone-else");
	plugin_clock_advance_ms(61000);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE));
	CHECK(g_fi.writes == 0);
	free(orig);
}

/* A map that is not root's own 0600 names nothing: 08/04, no login. */
static void
test_peer_map_mode(void)
{
	uint8_t a[16], sense[96];

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	CHECK(chmod(g_map, 0644) == 0);
	list_peer(a, g_rd, 8, 0, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_UNREACHABLE_COPY_TARGET));
	CHECK(g_fi.logins == 0);
	CHECK(chmod(g_map, 0600) == 0);   /* fixed: reachable again (ctime changed: read again) */
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.logins == 1);
}

const struct ptest g_peer_tests[] = {
	{ "peer.push_pull", test_peer_push_pull },
	{ "peer.restarted", test_peer_restarted },
	{ "peer.secret_changed", test_peer_secret_changed },
	{ "peer.login_redirect", test_peer_login_redirect },
	{ "peer.login_ua", test_peer_login_ua },
	{ "peer.conn_lost", test_peer_conn_lost },
	{ "peer.remote_error", test_peer_remote_error },
	{ "peer.not_in_map", test_peer_not_in_map },
	{ "peer.identity", test_peer_identity },
	{ "peer.map_mode", test_peer_map_mode },
	{ NULL, NULL },
};
