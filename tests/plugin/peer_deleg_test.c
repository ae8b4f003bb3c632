/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Copies between two LUs of one peer target (delegation, target/peer/
 * peer_deleg.c) and LID4 lists naming peer LUs, against the harness's fake
 * libiscsi (fake_iscsi.c, its second LU at LUN 6 and its copy manager):
 * the plugin forwards one EXTENDED COPY (LID1) whose bytes are compared
 * here, no READ/WRITE goes through it; the same LU without overlap
 * delegated, with overlap moved here (memmove); a peer without a copy
 * manager (3PC = 0, or ILLEGAL REQUEST 20/00) has its blocks moved here;
 * a forwarded command that fails: COPY ABORTED 0D/01, its sense forwarded
 * (source), the residual of the segments before it; the deadline and
 * COPY OPERATION ABORT between forwarded commands; LID4 push and a LID4
 * failure with RECEIVE COPY STATUS (LID4); a LID4 list delegated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_iscsi.h"
#include "harness.h"
#include "peer_test.h"
#include "xcm/lid4.h"

/* the second LU of the peer target (LUN 6) */
static const uint8_t g_rd2[16] = { 0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 0x01, 0x02,
				   0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0c };

/* peer_up, and the target's second LU (zeros) in the map too */
static bool
peer2_up(void)
{
	if (!peer_up()) {
		return false;
	}
	fake_iscsi_add_lu2(6, g_rd2);
	put_map("# two LUs of one target\n" PEER_LINE "\n"
		"naa.6001405feed00102030405060708090c " PEER_TARGET "/6 " PEER_INIT "\n", 0600);
	return true;
}

/*
 * The list the plugin must forward, as SPC lays it out (not through the
 * encoder under test): LID1 header (no list id: LIST ID USAGE 11b, CSCD
 * list 64 bytes, segment list 28), E4h src and dst (binary, LU, NAA, 16
 * bytes; DISK BLOCK LENGTH 512), one 02h segment (CSCD 0 -> 1).
 */
static void
want_list(uint8_t *w, const uint8_t *s, const uint8_t *d, uint16_t n, uint64_t sl, uint64_t dl)
{
	static const uint8_t hdr[16] = { 0x00, 0x18, 0x00, 0x40, 0, 0, 0, 0,
					 0x00, 0x00, 0x00, 0x1c, 0, 0, 0, 0 };
	static const uint8_t e4[8] = { 0xe4, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x10 };
	static const uint8_t dtsp[4] = { 0x00, 0x00, 0x02, 0x00 };
	static const uint8_t seg[10] = { 0x02, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x01, 0, 0 };

	memset(w, 0, 108);
	memcpy(w, hdr, 16);
	memcpy(w + 16, e4, 8);
	memcpy(w + 24, s, 16);
	memcpy(w + 44, dtsp, 4);
	memcpy(w + 48, e4, 8);
	memcpy(w + 56, d, 16);
	memcpy(w + 76, dtsp, 4);
	memcpy(w + 80, seg, 10);
	xcm_put_be16(w + 90, n);
	xcm_put_be64(w + 92, sl);
	xcm_put_be64(w + 100, dl);
}

static bool
forwarded_is(const uint8_t *s, const uint8_t *d, uint16_t n, uint64_t sl, uint64_t dl)
{
	uint8_t w[108];

	want_list(w, s, d, n, sl, dl);
	return g_fi.xcopy_len == sizeof(w) && memcmp(g_fi.xcopy_list, w, sizeof(w)) == 0;
}

/* Between two LUs of the target: one EXTENDED COPY forwarded, no block through the plugin. */
static void
test_deleg(void)
{
	uint8_t sense[96], *orig;

	if (!peer2_up()) {
		return;
	}
	list_peer(g_rd, g_rd2, 2048, 100, 50, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(memcmp(g_fi.medium2 + 50 * BS, g_fi.medium + 100 * BS, 2048 * BS) == 0);
	CHECK(g_fi.xcopies == 1 && g_fi.xcopy_lun == 5);   /* to the source LU */
	CHECK(forwarded_is(g_rd, g_rd2, 2048, 100, 50));
	CHECK(g_fi.reads == 0 && g_fi.writes == 0 && g_fi.xcopy_bytes == 2048 * BS);
	CHECK(g_fi.syncs == 1);   /* the destination flushed before GOOD */
	CHECK(stat_of("lu_a", "delegated_bytes") == 2048 * BS);
	CHECK(stat_of("lu_a", "gateway_bytes") == 0);
	/* one LU, ranges apart: delegated too (both CSCDs name it) */
	list_peer(g_rd, g_rd, 64, 0, 4000, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.xcopies == 2 && forwarded_is(g_rd, g_rd, 64, 0, 4000));
	CHECK(memcmp(g_fi.medium + 4000 * BS, g_fi.medium, 64 * BS) == 0);
	CHECK(g_fi.reads == 0 && g_fi.writes == 0);
	/* one LU, ranges overlapping: moved here as memmove would, not delegated */
	orig = malloc(64 * BS);
	CHECK(orig != NULL);
	if (orig == NULL) {
		return;
	}
	memcpy(orig, g_fi.medium + 200 * BS, 64 * BS);
	list_peer(g_rd, g_rd, 64, 200, 232, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(g_fi.xcopies == 2 && g_fi.reads > 0 && g_fi.writes > 0);
	CHECK(memcmp(g_fi.medium + 232 * BS, orig, 64 * BS) == 0);
	free(orig);
}

/* No copy manager there (3PC = 0; ILLEGAL REQUEST 20/00): the blocks move through the plugin. */
static void
test_deleg_fallback(void)
{
	uint8_t sense[96];

	if (!peer2_up()) {
		return;
	}
	g_fi.no_3pc = true;
	list_peer(g_rd, g_rd2, 2048, 100, 50, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(memcmp(g_fi.medium2 + 50 * BS, g_fi.medium + 100 * BS, 2048 * BS) == 0);
	CHECK(g_fi.std_inquiries == 1 && g_fi.xcopies == 0);
	CHECK(g_fi.read_bytes == 2048 * BS && g_fi.write_bytes == 2048 * BS);
	CHECK(stat_of("lu_a", "gateway_bytes") == 2048 * BS);   /* read + written */
	/* 3PC = 1 but EXTENDED COPY refused: the refused piece and the rest move here */
	g_fi.no_3pc = false;
	g_fi.no_xcopy = true;
	list_peer(g_rd, g_rd2, 1000, 3000, 5000, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(memcmp(g_fi.medium2 + 5000 * BS, g_fi.medium + 3000 * BS, 1000 * BS) == 0);
	CHECK(g_fi.xcopies == 1 && g_fi.read_bytes == 3048 * BS);
	CHECK(stat_of("lu_a", "delegated_bytes") == 0);
}

/*
 * The second of two forwarded commands fails (LIO's answer to any failure:
 * COPY ABORTED 0D/02): COPY ABORTED 0D/01 in segment 1, the peer's status
 * and sense forwarded as the source's, COPY STATUS: segment 0's bytes.
 */
static void
test_deleg_error(void)
{
	uint8_t sense[96], cdb[16], buf[64];
	struct xcm_copy_status cs;
	struct xcm_sks_ptr ptr;
	struct xcm_sense ps, fs;

	if (!peer2_up()) {
		return;
	}
	list_peer(g_rd, g_rd2, 100, 0, 0, 7);
	g_list->nseg = 2;
	g_list->seg[1] = g_list->seg[0];
	g_list->seg[1].src_lba = 1000;
	g_list->seg[1].dst_lba = 2000;
	g_fi.fail_xcopy_nth = 2;
	g_fi.fail_xcopy_key = 0x0a;
	g_fi.fail_xcopy_asc = 0x0d02;
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE));
	CHECK(xcm_sense_parse(xcm_span_make(sense, 96), &ps) == 0);
	CHECK(ps.csi == 1);
	CHECK(xcm_sense_sks_ptr(&ps, &ptr) && ptr.sd && ptr.field == 4);   /* its source */
	CHECK(ps.fwd_valid && ps.fwd_source == 1 && ps.fwd_status == XCM_SAM_CHECK_CONDITION);
	CHECK(ps.fwd_valid && ps.fwd_len >= 14 &&
	      xcm_sense_parse(xcm_span_make(ps.fwd_sense, ps.fwd_len), &fs) == 0 &&
	      fs.key == 0x0a && fs.asc_ascq == 0x0d02);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 7, 12);
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 12, NULL) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_copy_status(xcm_span_make(buf, 12), &cs) == 0);
	CHECK(cs.cm_status == XCM_CM_STATUS_ERROR && cs.transfer_count == 100 * BS);
	CHECK(memcmp(g_fi.medium2, g_fi.medium, 100 * BS) == 0);
	CHECK(g_fi.xcopies == 2 && g_fi.reads == 0 && g_fi.writes == 0 && g_fi.syncs == 0);
}

/* two segments of 2048 blocks between the target's LUs: two forwarded commands */
static void
list_two(uint8_t id)
{
	list_peer(g_rd, g_rd2, 2048, 0, 0, id);
	g_list->nseg = 2;
	g_list->seg[1] = g_list->seg[0];
	g_list->seg[1].src_lba = 4096;
	g_list->seg[1].dst_lba = 4096;
}

static void
advance_4500(void)
{
	plugin_clock_advance_ms(4500);
}

/*
 * The deadline (cmd_time_out 5 s) passes during the first forwarded command:
 * the second is not sent; COPY ABORTED 2E/02 in segment 1, COPY STATUS the
 * first segment's bytes; each forwarded command bounded by the deadline.
 */
static void
test_deleg_deadline(void)
{
	uint8_t sense[96], cdb[16], buf[64];
	struct xcm_copy_status cs;

	if (!peer2_up()) {
		return;
	}
	mkdirs("cfs/core/user_1/lu_a/attrib");
	put_file("cfs/core/user_1/lu_a/attrib/cmd_time_out", "5\n");
	list_two(3);
	g_fi.on_xcopy = advance_4500;
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	g_fi.on_xcopy = NULL;
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, 0x2E02));
	CHECK(sense_csi_is(sense, sizeof(sense), 1));
	CHECK(g_fi.xcopies == 1 && g_fi.last_timeout > 0 && g_fi.last_timeout <= 5);
	CHECK(memcmp(g_fi.medium2, g_fi.medium, 2048 * BS) == 0);
	CHECK(g_fi.medium2[4096 * BS] == 0 && g_fi.reads == 0 && g_fi.writes == 0);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 3, 12);
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 12, NULL) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_copy_status(xcm_span_make(buf, 12), &cs) == 0);
	CHECK(cs.transfer_count == 2048 * BS);
	CHECK(stat_of("lu_a", "deadline_cuts") == 1);
}

/* g_list as LID4 with identifier id, to d: the TCMU status (the runner's core's flush done). */
static int
send_lid4(struct tcmu_device *d, uint32_t id, uint8_t *sense)
{
	uint8_t buf[4096], cdb[16];
	struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
	size_t n;

	g_list->lid4 = true;
	g_list->list_id4 = id;
	g_list->list_id = 0;
	n = xcm_list_encode_lid4(g_list, &w);
	xcm_cdb_xcopy_lid4(cdb, (uint32_t)n);
	return run_cmd(d, cdb, buf, n, sense);
}

static int
rcs4(uint32_t id, struct xcm_rcs4 *st)
{
	uint8_t cdb[16], buf[256];
	int sts;

	memset(buf, 0, sizeof(buf));
	xcm_cdb_rcs4(cdb, id, sizeof(buf));
	sts = run_cmd(&g_a, cdb, buf, sizeof(buf), NULL);
	if (sts == TCMU_STS_OK) {
		CHECK(xcm_rcs4_decode(xcm_span_make(buf, sizeof(buf)), st) == 0);
	}
	return sts;
}

/* LID4 lists naming peer LUs: push, a remote failure held for RCS(LID4), delegated. */
static void
test_peer_lid4(void)
{
	uint8_t a[16], sense[96];
	struct xcm_rcs4 st;
	struct xcm_sense ps, fs;

	if (!peer2_up()) {
		return;
	}
	naa_of(SER_A, a);
	/* push A 100.. -> remote 50.. (1 MiB) */
	fill_pattern("a.img", 100 * BS, 2048 * BS, 0x6b);
	list_peer(a, g_rd, 2048, 100, 50, 0);
	g_list->list_id_usage = XCM_LIST_ID_HOLD;
	CHECK(send_lid4(&g_a, 0x50505050u, sense) == TCMU_STS_OK);
	CHECK(remote_is(50 * BS, "a.img", 100 * BS, 2048 * BS));
	CHECK(g_fi.writes == 2 && g_fi.syncs == 1);
	CHECK(rcs4(0x50505050u, &st) == TCMU_STS_OK);
	CHECK(st.sa == 0x01 && st.op_status == XCM_RCS4_DONE && st.cmd_status == 0 &&
	      st.segs == 1 && st.bytes == 2048 * BS);
	/* the 3rd WRITE(16) fails (DATA PROTECT 27/00): 1 MiB of 2 MiB, the sense held */
	fill_pattern("a.img", 0, 4096 * BS, 0x7c);
	g_fi.fail_write_nth = g_fi.writes + 3;
	g_fi.fail_key = 0x07;
	g_fi.fail_asc = 0x2700;
	list_peer(a, g_rd, 4096, 0, 1000, 0);
	g_list->list_id_usage = XCM_LIST_ID_HOLD;
	CHECK(send_lid4(&g_a, 0x60606060u, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE));
	CHECK(rcs4(0x60606060u, &st) == TCMU_STS_OK);
	CHECK(st.op_status == XCM_RCS4_DONE_ERRORS && st.cmd_status == XCM_SAM_CHECK_CONDITION &&
	      st.bytes == (1u << 20) && st.segs == 0);
	CHECK(st.sense_len >= 18 && xcm_sense_parse(xcm_span_make(st.sense, st.sense_len), &ps) == 0 &&
	      ps.key == XCM_SK_COPY_ABORTED && ps.asc_ascq == XCM_ASC_THIRD_PARTY_DEVICE_FAILURE);
	CHECK(ps.fwd_valid && ps.fwd_source == 2 && ps.fwd_len >= 14 &&
	      xcm_sense_parse(xcm_span_make(ps.fwd_sense, ps.fwd_len), &fs) == 0 &&
	      fs.key == 0x07 && fs.asc_ascq == 0x2700);
	CHECK(remote_is(1000 * BS, "a.img", 0, 1u << 20));
	/* a LID4 list between the target's two LUs: forwarded as one LID1 list */
	g_fi.fail_write_nth = 0;
	list_peer(g_rd, g_rd2, 512, 7000, 10, 0);
	g_list->list_id_usage = XCM_LIST_ID_HOLD;
	CHECK(send_lid4(&g_a, 0x70707070u, sense) == TCMU_STS_OK);
	CHECK(g_fi.xcopies == 1 && forwarded_is(g_rd, g_rd2, 512, 7000, 10));
	CHECK(memcmp(g_fi.medium2 + 10 * BS, g_fi.medium + 7000 * BS, 512 * BS) == 0);
	CHECK(rcs4(0x70707070u, &st) == TCMU_STS_OK && st.op_status == XCM_RCS4_DONE &&
	      st.bytes == 512 * BS);
}

static void
abort_lid4(void)
{
	uint8_t cdb[16];

	xcm_cdb_copy_op_abort(cdb, 0x0AB0u);
	CHECK(run_cmd(&g_a, cdb, NULL, 0, NULL) == TCMU_STS_OK);
}

/*
 * COPY OPERATION ABORT while a delegated LID4 list runs (sent as its first
 * forwarded command completes): the second is not sent; COPY ABORTED, RCS
 * (LID4) terminated with the first segment's bytes.
 */
static void
test_deleg_abort(void)
{
	uint8_t sense[96];
	struct xcm_rcs4 st;

	if (!peer2_up()) {
		return;
	}
	list_two(0);
	g_list->list_id_usage = XCM_LIST_ID_HOLD;
	g_fi.on_xcopy = abort_lid4;
	CHECK(send_lid4(&g_a, 0x0AB0u, sense) == TCMU_STS_PASSTHROUGH_ERR);
	g_fi.on_xcopy = NULL;
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, 0x0000));
	CHECK(g_fi.xcopies == 1 && g_fi.reads == 0 && g_fi.writes == 0);
	CHECK(memcmp(g_fi.medium2, g_fi.medium, 2048 * BS) == 0 && g_fi.medium2[4096 * BS] == 0);
	CHECK(rcs4(0x0AB0u, &st) == TCMU_STS_OK);
	CHECK(st.op_status == XCM_RCS4_TERMINATED && st.bytes == 2048 * BS);
}

const struct ptest g_peer_deleg_tests[] = {
	{ "peer.deleg", test_deleg },
	{ "peer.deleg_fallback", test_deleg_fallback },
	{ "peer.deleg_error", test_deleg_error },
	{ "peer.deleg_deadline", test_deleg_deadline },
	{ "peer.deleg_abort", test_deleg_abort },
	{ "peer.lid4", test_peer_lid4 },
	{ NULL, NULL },
};
