/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An iSCSI IPv6 CSCD (EAh: portal address, TCP port, LUN; 64 bytes) naming
 * the remote LU of the peer map (target/peer/, docs/cscd-descriptors.md),
 * against the harness's fake libiscsi: push and pull through it, bytes
 * compared, the map's IPv4 portal named by its IPv4-mapped address; and
 * what stays out of reach, byte for byte: another port, another LUN, a
 * portal two map entries share (08/04, no login), a segment naming the
 * EAh's extension (26/00), a LU that is not the map's (0D/02).
 */
#include <stdio.h>
#include <string.h>

#include "fake_iscsi.h"
#include "harness.h"
#include "peer_test.h"

/* ::ffff:127.0.0.1, the fake remote's portal (PEER_TARGET) */
static const uint8_t g_v4[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 };

/* g_list: CSCD 0 the local LU a (E4h), CSCD 1-2 an EAh at addr, port, lun; one segment. */
static void
list_ip(const uint8_t *a, const uint8_t *addr, uint16_t port, uint16_t lun, bool push,
	uint32_t n, uint64_t slba, uint64_t dlba)
{
	struct xcm_cscd *ip;

	list_peer(a, a, n, slba, dlba, 0);   /* CSCD 0: a; the segment's other fields */
	ip = &g_list->cscd[1];
	memset(ip, 0, sizeof(*ip));
	ip->type = XCM_CSCD_IPV6;
	ip->pdt = XCM_PDT_BLOCK;
	memcpy(ip->ip, addr, 16);
	ip->port = port;
	ip->ipn = 6;
	xcm_lun_encode(lun, ip->lu_id);
	memset(&g_list->cscd[2], 0, sizeof(g_list->cscd[2]));
	g_list->cscd[2].type = XCM_CSCD_EXT;
	g_list->ncscd = 3;
	g_list->seg[0].src = push ? &g_list->cscd[0] : &g_list->cscd[1];
	g_list->seg[0].dst = push ? &g_list->cscd[1] : &g_list->cscd[0];
}

static void
dump(const char *what, const uint8_t *s)
{
	int i;

	fprintf(stderr, "  %s:", what);
	for (i = 0; i < 18; i++) {
		fprintf(stderr, " %02x", s[i]);
	}
	fprintf(stderr, "\n");
}

static void
test_peer_ipv6(void)
{
	uint8_t a[16], sense[96];

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	/* push: A 100..1123 -> remote 50.. through the EAh */
	fill_pattern("a.img", 100 * BS, 1024 * BS, 0x6b);
	list_ip(a, g_v4, 3262, 5, true, 1024, 100, 50);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(50 * BS, "a.img", 100 * BS, 1024 * BS));
	CHECK(g_fi.logins == 1 && g_fi.inquiries == 1 && g_fi.write_bytes == 1024 * BS);
	CHECK(strcmp(g_fi.portal, "127.0.0.1:3262") == 0);
	/* pull: remote 3000..3499 -> A 7000.. on the pooled session */
	list_ip(a, g_v4, 3262, 5, false, 500, 3000, 7000);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(remote_is(3000 * BS, "a.img", 7000 * BS, 500 * BS));
	CHECK(g_fi.logins == 1 && g_fi.read_bytes == 500 * BS);
}

/*
 * Not in the map: COPY ABORTED 08/04, no login. Fixed sense: COPY ABORTED,
 * CSI 0, 08/04, SKSV + SD, byte 6 (the segment's destination CSCD ID).
 */
static void
test_peer_ipv6_not_in_map(void)
{
	static const uint8_t want[18] = { 0x70, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x0a,
					  0x00, 0x00, 0x00, 0x00, 0x08, 0x04, 0x00, 0xa0,
					  0x00, 0x06 };
	static const uint8_t other[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 2 };
	static const struct {
		const uint8_t *addr;
		uint16_t port, lun;
	} v[] = {
		{ g_v4, 3263, 5 },     /* another port */
		{ g_v4, 3262, 6 },     /* another LUN */
		{ other, 3262, 5 },    /* another address */
	};
	uint8_t a[16], sense[96];
	char line[800];
	size_t i;

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	snapshot("a.img", "a.orig");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		list_ip(a, v[i].addr, v[i].port, v[i].lun, true, 8, 0, 0);
		memset(sense, 0, sizeof(sense));
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
		if (memcmp(sense, want, sizeof(want)) != 0) {
			dump("sense", sense);
			CHECK(!"sense bytes");
		}
	}
	/* two map entries at that portal and LUN (two targets): neither is meant */
	snprintf(line, sizeof(line), "%s\nnaa.6001405feed00102030405060708090b "
		 "iscsi://127.0.0.1:3262/iqn.2026-12.org.test:other/5 " PEER_INIT "\n", PEER_LINE);
	put_map(line, 0600);
	list_ip(a, g_v4, 3262, 5, true, 8, 0, 0);
	memset(sense, 0, sizeof(sense));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(memcmp(sense, want, sizeof(want)) == 0);
	/* the map names its LU by host name: an address never matches a name */
	snprintf(line, sizeof(line), "naa.6001405feed00102030405060708090a "
		 "iscsi://localhost:3262/iqn.2026-12.org.test:peer/5 " PEER_INIT "\n");
	put_map(line, 0600);
	memset(sense, 0, sizeof(sense));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(memcmp(sense, want, sizeof(want)) == 0);
	CHECK(g_fi.logins == 0 && g_fi.inquiries == 0 && g_fi.writes == 0);
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
}

/*
 * A segment naming the EAh's extension (ID 2): COPY ABORTED, INVALID FIELD
 * IN PARAMETER LIST (SPC-4 6.4.5.2), CSI 0, SD, byte 6; nothing reached.
 * The map's entry at that portal whose LU reports another designator: the
 * identity check of E4h CSCDs holds: 0D/02, nothing written.
 */
static void
test_peer_ipv6_refusals(void)
{
	static const uint8_t want[18] = { 0x70, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x0a,
					  0x00, 0x00, 0x00, 0x00, 0x26, 0x00, 0x00, 0xa0,
					  0x00, 0x06 };
	static const uint8_t none[16] = { 0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 0x01, 0x02,
					  0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0b };
	uint8_t a[16], sense[96];

	if (!peer_up()) {
		return;
	}
	naa_of(SER_A, a);
	list_ip(a, g_v4, 3262, 5, true, 8, 0, 0);
	g_list->seg[0].dst = &g_list->cscd[2];
	memset(sense, 0, sizeof(sense));
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	if (memcmp(sense, want, sizeof(want)) != 0) {
		dump("sense", sense);
		CHECK(!"sense bytes");
	}
	CHECK(g_fi.logins == 0);
	g_fi.report_desig = none;
	list_ip(a, g_v4, 3262, 5, true, 8, 0, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE));
	CHECK(g_fi.inquiries == 1 && g_fi.writes == 0);
	g_fi.report_desig = NULL;
}

const struct ptest g_peer_ip_tests[] = {
	{ "peer.ipv6", test_peer_ipv6 },
	{ "peer.ipv6_not_in_map", test_peer_ipv6_not_in_map },
	{ "peer.ipv6_refusals", test_peer_ipv6_refusals },
	{ NULL, NULL },
};
