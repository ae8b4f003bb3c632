/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Remote ROD tokens (docs/remote-tokens.md) against the harness's fake
 * libiscsi. Redeemer: a WRITE USING TOKEN on lu_a with a token the peer's
 * LU made goes to that peer as one EXTENDED COPY whose bytes are compared
 * here (E4h naming lu_a, the C0h segment with the token, offset, DEL_TKN,
 * ranges); the peer's answer decides the outcome (GOOD, its 23/xx, 23/02
 * from a target that does not take C0h, COPY ABORTED with its sense); a
 * creator the map does not name: 23/02 without a login; a token of ours
 * whose LU is gone: TOKEN UNKNOWN as before. Creator: an EXTENDED COPY with
 * a C0h segment and one of lu_a's tokens writes its bytes to the peer LU;
 * an unknown token: 23/04; a range past the peer LU's end: 0D/02, nothing
 * written. VPD 8Fh REMOTE TOKENS: 6 with a map, 0 without.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_iscsi.h"
#include "harness.h"
#include "peer_test.h"
#include "xcm/initiator.h"
#include "xcm/token.h"

static uint8_t g_tok[XCM_ROD_TOKEN_LEN];
static struct xcm_tok_list g_tl;
static uint32_t g_answer;          /* what the fake creator says to a C0h */
static unsigned int g_pushed;      /* C0h lists it "redeemed" (wrote into a.img) */
static uint32_t g_budget;          /* the TIME BUDGET of the last forwarded C0h */

/* A token made by the peer's LU (creator g_rd, an identifier of another epoch). */
static void
foreign_token(const uint8_t creator[16])
{
	struct xcm_rod_token rt;
	size_t i;

	memset(&rt, 0, sizeof(rt));
	rt.rod_type = XCM_ROD_TYPE_PIT_DEFAULT;
	rt.id = 0x0badc0de00000007ull;
	memcpy(rt.creator_desig, creator, 16);
	rt.creator_desig_len = 16;
	rt.bytes = 64 * BS;
	rt.block_len = BS;
	for (i = 0; i < sizeof(rt.random); i++) {
		rt.random[i] = (uint8_t)(i * 13 + 5);
	}
	xcm_rod_token_encode(&rt, g_tok);
}

/* The creator's side, faked: writes 0x5A over the ranges of the list into a.img. */
static uint32_t
fake_creator(const uint8_t *l, uint32_t len)
{
	const uint8_t *s = l + 16 + 32;
	uint32_t n = xcm_get_be16(s + 534) / 16, i;
	int fd = backing_fd("a.img");
	uint8_t b[64 * BS];

	memset(b, 0x5A, sizeof(b));
	for (i = 0; g_answer == 0 && fd >= 0 && i < n && 16 + 32 + 536 + 16 * (i + 1) <= len; i++) {
		uint64_t lba = xcm_get_be64(s + 536 + 16 * i);
		uint32_t cnt = xcm_get_be32(s + 536 + 16 * i + 8);

		CHECK(cnt <= 64 && pwrite(fd, b, (size_t)cnt * BS, (off_t)(lba * BS)) ==
					   (ssize_t)cnt * BS);
	}
	if (fd >= 0) {
		close(fd);
	}
	g_pushed += g_answer == 0;
	return g_answer;
}

static int
wut_a(uint64_t off, bool del, uint8_t *sense)
{
	uint8_t buf[2048], cdb[16];
	struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
	size_t n;

	memcpy(g_tl.token, g_tok, sizeof(g_tok));
	g_tl.offset = off;
	g_tl.del_tkn = del;
	n = xcm_tok_list_encode(XCM_SA_WRITE_USING_TOKEN, &g_tl, &w);
	xcm_cdb_write_using_token(cdb, 9, (uint32_t)n);
	return run_cmd(&g_a, cdb, buf, n, sense);
}

/* The list the redeemer must send, from the layout (docs/remote-tokens.md). */
static bool
forwarded_is(uint64_t off, bool del)
{
	uint8_t w[16 + 32 + 536 + 32], naa[16];

	memset(w, 0, sizeof(w));
	w[1] = 0x18;                         /* LIST ID USAGE 11b */
	w[3] = 32;
	xcm_put_be32(w + 8, 536 + 32);
	naa_of(SER_A, naa);
	memcpy(w + 16, "\xe4\x00\x00\x00\x01\x03\x00\x10", 8);
	memcpy(w + 24, naa, 16);
	w[46] = 0x02;                        /* DISK BLOCK LENGTH 512 */
	w[48] = 0xc0;
	w[49] = del ? 0x02 : 0x00;
	xcm_put_be16(w + 50, 532 + 32);
	xcm_put_be16(w + 52, 0xf800);
	xcm_put_be64(w + 56, off);
	memcpy(w + 64, g_tok, sizeof(g_tok));
	xcm_put_be16(w + 48 + 534, 32);
	xcm_put_be64(w + 48 + 536, 100);
	xcm_put_be32(w + 48 + 544, 8);
	xcm_put_be64(w + 48 + 552, 300);
	xcm_put_be32(w + 48 + 560, 16);
	/*
	 * TIME BUDGET: lu_a's cmd_time_out (30 s) makes a deadline 25 s after
	 * the WUT arrived (xcm_deadline_for_timeout); the creator gets a fifth
	 * less: 20 s (19 s if the forwarding took a second)
	 */
	g_budget = xcm_get_be32(g_fi.xcopy_list + 48 + 528);
	memcpy(w + 48 + 528, g_fi.xcopy_list + 48 + 528, 4);
	if (g_budget < 19000 || g_budget > 20000) {
		fprintf(stderr, "  TIME BUDGET %u ms\n", g_budget);
	}
	return g_fi.xcopy_len == sizeof(w) && memcmp(g_fi.xcopy_list, w, sizeof(w)) == 0 &&
	       g_budget >= 19000 && g_budget <= 20000;
}

static bool
a_is_5a(uint64_t lba, uint32_t n)
{
	uint8_t b[16 * BS];
	int fd = backing_fd("a.img");
	bool ok = fd >= 0 && n <= 16 && pread(fd, b, (size_t)n * BS, (off_t)(lba * BS)) ==
						 (ssize_t)n * BS;
	uint32_t i;

	for (i = 0; ok && i < n * BS; i++) {
		ok = b[i] == 0x5A;
	}
	if (fd >= 0) {
		close(fd);
	}
	return ok;
}

static void
two_ranges(void)
{
	memset(&g_tl, 0, sizeof(g_tl));
	g_tl.nranges = 2;
	g_tl.range[0].lba = 100;
	g_tl.range[0].count = 8;
	g_tl.range[1].lba = 300;
	g_tl.range[1].count = 16;
}

/* POPULATE TOKEN of count blocks at lba on d (list id), then RRTI: the token into g_tok. */
static bool
populate_on(struct tcmu_device *d, uint32_t id, uint64_t lba, uint32_t count)
{
	uint8_t cdb[16], rsp[1024], buf[2048];
	struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
	struct xcm_rcs4 st;
	uint64_t blocks;
	bool has = false;
	size_t n;

	memset(&g_tl, 0, sizeof(g_tl));
	g_tl.nranges = 1;
	g_tl.range[0].lba = lba;
	g_tl.range[0].count = count;
	n = xcm_tok_list_encode(XCM_SA_POPULATE_TOKEN, &g_tl, &w);
	xcm_cdb_populate_token(cdb, id, (uint32_t)n);
	if (run_cmd(d, cdb, buf, n, NULL) != TCMU_STS_OK) {
		return false;
	}
	xcm_cdb_rrti(cdb, id, sizeof(rsp));
	return run_cmd(d, cdb, rsp, sizeof(rsp), NULL) == TCMU_STS_OK &&
	       xcm_rrti_decode(xcm_span_make(rsp, sizeof(rsp)), &st, &blocks, &has, g_tok) == 0 &&
	       has;
}

/* The redeemer: the creator writes, we forward one EXTENDED COPY and answer as it did. */
static void
test_redeem_remote(void)
{
	uint8_t sense[96];

	if (!peer_up()) {
		return;
	}
	g_fi.on_token = fake_creator;
	g_answer = 0;
	g_pushed = 0;
	foreign_token(g_rd);
	two_ranges();
	CHECK(wut_a(2, true, sense) == TCMU_STS_OK);
	CHECK(g_fi.xcopies == 1 && g_fi.xcopy_lun == 5 && g_pushed == 1);
	CHECK(forwarded_is(2, true));
	CHECK(a_is_5a(100, 8) && a_is_5a(300, 16));
	CHECK(g_fi.reads == 0 && g_fi.writes == 0);   /* no byte through this copy manager */
	/* the creator refuses the token: its 23/08 */
	g_answer = 0x52308;
	CHECK(wut_a(0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x05, 0x2308));
	CHECK(g_fi.xcopies == 2 && forwarded_is(0, false));
	/* ... it failed writing: COPY ABORTED 0D/01, its sense forwarded */
	g_answer = 0xa0d01;
	CHECK(wut_a(0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_key(sense, sizeof(sense)) == 0x0A && sense_is(sense, 0x0A, 0x0D01));
	/* ... its map does not name our LU (08/04): REMOTE TOKEN USAGE NOT SUPPORTED */
	g_answer = 0xa0804;
	CHECK(wut_a(0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x05, 0x2302));
	/* a target that does not take C0h (26/09): the same */
	g_fi.on_token = NULL;
	CHECK(wut_a(0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x05, 0x2302));
	CHECK(g_fi.xcopies == 5);
	g_fi.on_token = NULL;
}

/* A creator not in the map: 23/02, no login. A token of ours whose LU is gone: 23/04. */
static void
test_redeem_refused(void)
{
	static const uint8_t other[16] = { 0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 9, 9,
					   9, 9, 9, 9, 9, 9, 9, 9 };
	uint8_t sense[96], naa_b[16];
	unsigned int logins;

	if (!peer_up()) {
		return;
	}
	logins = g_fi.logins;
	foreign_token(other);
	two_ranges();
	CHECK(wut_a(0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x05, 0x2302));
	CHECK(g_fi.logins == logins && g_fi.xcopies == 0);
	/* ours (made on lu_b), its creator then named as no LU here */
	memset(&g_tl, 0, sizeof(g_tl));
	g_tl.nranges = 1;
	g_tl.range[0].lba = 0;
	g_tl.range[0].count = 8;
	{
		uint8_t buf[2048], cdb[16], rsp[1024];
		struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
		size_t n = xcm_tok_list_encode(XCM_SA_POPULATE_TOKEN, &g_tl, &w);
		struct xcm_rcs4 st;
		uint64_t blocks;
		bool has = false;

		xcm_cdb_populate_token(cdb, 21, (uint32_t)n);
		CHECK(run_cmd(&g_b, cdb, buf, n, NULL) == TCMU_STS_OK);
		xcm_cdb_rrti(cdb, 21, sizeof(rsp));
		CHECK(run_cmd(&g_b, cdb, rsp, sizeof(rsp), NULL) == TCMU_STS_OK);
		CHECK(xcm_rrti_decode(xcm_span_make(rsp, sizeof(rsp)), &st, &blocks, &has, g_tok) ==
		      0 && has);
	}
	naa_of(SER_B, naa_b);
	CHECK(memcmp(g_tok + 24, naa_b, 16) == 0);   /* the creator LU, bytes 16-47 */
	g_tok[39] ^= 0x01;                            /* ... now no LU here */
	CHECK(wut_a(0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x05, 0x2304));
	CHECK(g_fi.logins == logins && g_fi.xcopies == 0);
}

/* The creator: an EXTENDED COPY with C0h on lu_a writes its token's bytes to the peer LU. */
static uint32_t g_c0_budget;       /* TIME BUDGET xcopy_c0 sends */
static uint32_t g_c0_ranges = 1;   /* ... ranges of n blocks, 16 blocks apart */

static int
xcopy_c0(const uint8_t *tok, uint64_t rlba, uint32_t n, uint8_t *sense)
{
	uint32_t i;
	uint8_t d[20] = { XCM_CODE_SET_BINARY, XCM_DESIG_NAA, 0, 16 };
	uint8_t buf[2048], cdb[16];
	struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
	size_t len;

	memset(g_list, 0, sizeof(*g_list));
	memcpy(d + 4, g_rd, 16);
	CHECK(xcm_cscd_from_designator(&g_list->cscd[0], d, sizeof(d), BS) == 0);
	g_list->list_id_usage = XCM_LIST_ID_NONE;
	g_list->ncscd = 1;
	g_list->nseg = 1;
	g_list->seg[0].type = XCM_SEG_TOKEN;
	g_list->seg[0].dst = &g_list->cscd[0];
	memcpy(g_list->tok.token, tok, XCM_ROD_TOKEN_LEN);
	g_list->tok.offset = 4;
	g_list->tok.budget_ms = g_c0_budget;
	g_list->tok.nranges = g_c0_ranges;
	for (i = 0; i < g_c0_ranges; i++) {
		g_list->tok.range[i].lba = rlba + i * (n + 16);
		g_list->tok.range[i].count = n;
	}
	g_list->tok.total_blocks = (uint64_t)n * g_c0_ranges;
	len = xcm_list_encode(g_list, &w);
	xcm_cdb_xcopy(cdb, (uint32_t)len);
	return run_cmd(&g_a, cdb, buf, len, sense);
}

static void
test_creator_pushes(void)
{
	uint8_t sense[96], *before;

	if (!peer_up()) {
		return;
	}
	fill_pattern("a.img", 0, 64 * BS, 0x31);
	CHECK(populate_on(&g_a, 22, 16, 32));
	/* blocks 4..28 of the token (LBA 20..44 of lu_a) to the peer LU's LBA 1000 */
	CHECK(xcopy_c0(g_tok, 1000, 24, sense) == TCMU_STS_OK);
	CHECK(remote_is(1000 * BS, "a.img", 20 * BS, 24 * BS));
	CHECK(g_fi.writes > 0 && g_fi.syncs >= 1);
	/* an unknown token (altered identifier): the token's status, nothing written */
	before = malloc((size_t)R_BLOCKS * BS);
	CHECK(before != NULL);
	if (before == NULL) {
		return;
	}
	memcpy(before, g_fi.medium, (size_t)R_BLOCKS * BS);
	g_tok[15] ^= 0x40;
	CHECK(xcopy_c0(g_tok, 2000, 8, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_key(sense, sizeof(sense)) == 0x05 && (sense[12] == 0x23));
	g_tok[15] ^= 0x40;
	/* a range past the peer LU's end: COPY ABORTED 0D/02 before anything moves */
	CHECK(xcopy_c0(g_tok, R_BLOCKS - 4, 8, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x0A, 0x0D02));
	CHECK(memcmp(before, g_fi.medium, (size_t)R_BLOCKS * BS) == 0);
	free(before);
}

/*
 * Review: ranges longer than what the token holds past OFFSET INTO ROD. A
 * local WUT ends GOOD with a residual (RRTI TRANSFER COUNT < requested); a
 * C0h has no residual to report, so GOOD here tells the redeemer (which
 * then reports every block transferred) that blocks were written which
 * were not.
 */
static void
test_creator_short_token(void)
{
	uint8_t sense[96];
	int rc;

	if (!peer_up()) {
		return;
	}
	fill_pattern("a.img", 0, 64 * BS, 0x31);
	CHECK(populate_on(&g_a, 23, 16, 32));
	/* offset 4: 28 blocks left in the token, 40 asked for */
	memset(g_fi.medium + 3000 * BS, 0xEE, 40 * BS);
	rc = xcopy_c0(g_tok, 3000, 40, sense);
	if (rc == TCMU_STS_OK) {
		fprintf(stderr, "C0h GOOD though blocks 3028..3039 hold 0x%02x (not written)\n",
			g_fi.medium[3030 * BS]);
	}
	/* all or nothing: COPY ABORTED 26/0A, nothing written */
	CHECK(rc == TCMU_STS_PASSTHROUGH_ERR && sense_is(sense, 0x0A, 0x260A));
	CHECK(g_fi.medium[3000 * BS] == 0xEE && g_fi.medium[3039 * BS] == 0xEE);
	/* exactly what is left: GOOD */
	CHECK(xcopy_c0(g_tok, 3000, 28, sense) == TCMU_STS_OK);
	CHECK(remote_is(3000 * BS, "a.img", 20 * BS, 28 * BS));
}

/* Review: the redeemer cuts ranges to the token (rt.bytes 64 blocks) and reports what it asked. */
static void
test_redeem_clipped(void)
{
	uint8_t sense[96], cdb[16], rsp[1024];
	struct xcm_rcs4 st;
	uint64_t blocks = 0;
	bool has = false;
	const uint8_t *s = g_fi.xcopy_list + 48;

	if (!peer_up()) {
		return;
	}
	g_fi.on_token = fake_creator;
	g_answer = 0;
	foreign_token(g_rd);
	two_ranges();                                  /* 8 + 16 blocks */
	CHECK(wut_a(60, false, sense) == TCMU_STS_OK);   /* 4 blocks left */
	CHECK(g_fi.xcopies == 1 && xcm_get_be64(s + 536) == 100 &&
	      xcm_get_be32(s + 544) == 4 && xcm_get_be32(s + 560) == 0);
	xcm_cdb_rrti(cdb, 9, sizeof(rsp));
	CHECK(run_cmd(&g_a, cdb, rsp, sizeof(rsp), NULL) == TCMU_STS_OK);
	CHECK(xcm_rrti_decode(xcm_span_make(rsp, sizeof(rsp)), &st, &blocks, &has, g_tok) == 0 &&
	      blocks == 4);
	/* OFFSET INTO ROD past the token: 26/00 at byte 8 as a local WUT, nothing sent */
	CHECK(wut_a(64, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x05, 0x2600) && g_fi.xcopies == 1);
	g_fi.on_token = NULL;
}

static void
ten_seconds_later(void)
{
	plugin_clock_advance_ms(10000);
}

/* The creator stops at the sender's TIME BUDGET: 2E/02, nothing written after it. */
static void
test_creator_budget(void)
{
	uint8_t sense[96];

	if (!peer_up()) {
		return;
	}
	fill_pattern("a.img", 0, 64 * BS, 0x33);
	CHECK(populate_on(&g_a, 23, 0, 40));
	/* two ranges of 8 blocks; each WRITE moves the clock 10 s */
	g_fi.on_write = ten_seconds_later;
	g_c0_ranges = 2;
	g_c0_budget = 0;   /* no budget, no deadline: both written */
	CHECK(xcopy_c0(g_tok, 100, 8, sense) == TCMU_STS_OK);
	CHECK(remote_is(100 * BS, "a.img", 4 * BS, 8 * BS) &&
	      remote_is(124 * BS, "a.img", 12 * BS, 8 * BS));
	g_c0_budget = 5000;   /* 5 s: the second range is past it */
	CHECK(xcopy_c0(g_tok, 200, 8, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, 0x0A, 0x2E02));
	CHECK(remote_is(200 * BS, "a.img", 4 * BS, 8 * BS));
	CHECK(g_fi.medium[224 * BS] == (uint8_t)(224 * BS * 7 + 3));   /* untouched */
	g_fi.on_write = NULL;
	g_c0_ranges = 1;
	g_c0_budget = 0;
}

/* VPD 8Fh, ROD Token Features (0106h) byte 4: REMOTE TOKENS. */
static int
remote_tokens(void)
{
	uint8_t cdb[6], b[1024];
	uint32_t off, len;

	xcm_cdb_inquiry(cdb, true, 0x8f, sizeof(b));
	memset(b, 0, sizeof(b));
	if (run_cmd(&g_a, cdb, b, sizeof(b), NULL) != TCMU_STS_OK) {
		return -1;
	}
	len = 4u + xcm_get_be16(b + 2);
	for (off = 4; off + 4 <= len && off + 4 <= sizeof(b); off += 4u + xcm_get_be16(b + off + 2)) {
		if (xcm_get_be16(b + off) == 0x0106) {
			return b[off + 4] & 0x0F;
		}
	}
	return -1;
}

static void
test_vpd_remote_tokens(void)
{
	if (!peer_up()) {
		return;
	}
	CHECK(remote_tokens() == 6);
	put_map("# nobody\n", 0600);
	CHECK(remote_tokens() == 0);
}

const struct ptest g_peer_token_tests[] = {
	{ "peer.token_redeem_remote", test_redeem_remote },
	{ "peer.token_redeem_refused", test_redeem_refused },
	{ "peer.token_creator_pushes", test_creator_pushes },
	{ "peer.token_vpd_remote", test_vpd_remote_tokens },
	{ "peer.token_creator_budget", test_creator_budget },
	{ "peer.token_creator_short", test_creator_short_token },
	{ "peer.token_redeem_clipped", test_redeem_clipped },
	{ NULL, NULL },
};
