/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plugin tests: the cross-LU access rule, designators, RECEIVE COPY RESULTS, held results, paths. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* copy 8 blocks A:200 -> B:300; expect allowed (data moved) or 0D/02 (nothing moved) */
static void
expect_cross(bool allowed, const char *what)
{
	uint8_t sense[96];
	int sts;

	fill_pattern("a.img", 200 * BS, 8 * BS, (uint8_t)(rand() & 0xFF));
	fill_pattern("b.img", 300 * BS, 8 * BS, 0x00);
	snapshot("b.img", "b.orig");
	list_one(SER_A, SER_B, 8, 200, 300, XCM_LIST_ID_NONE, 0);
	sts = send_xcopy(&g_a, 0, 0, sense);
	if (allowed) {
		CHECK(sts == TCMU_STS_OK);
		CHECK(same_bytes("b.img", 300 * BS, "a.img", 200 * BS, 8 * BS));
	} else {
		CHECK(sts == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE));
		CHECK(same_bytes("b.img", 0, "b.orig", 0, (uint64_t)NLBAS * BS));
	}
	if ((allowed && sts != TCMU_STS_OK) || (!allowed && sts == TCMU_STS_OK)) {
		fprintf(stderr, "  access case: %s\n", what);
	}
}

void
test_access_rule(void)
{
	uint64_t denied0;

	/* A exported nowhere: no initiator can be judged, refuse */
	cfs_reset();
	expect_cross(false, "A not exported");
	/* tcm_loop (no generate_node_acls attribute = demo) exporting A and B */
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
	expect_cross(true, "loopback exports both");
	/* ... plus an iSCSI demo-mode TPG exporting only A: refuse */
	cfs_lun(ISCSI, 0, "user_1/lu_a");
	cfs_demo(ISCSI, true);
	denied0 = stat_of("lu_a", "denied");
	expect_cross(false, "iscsi demo exports A only");
	CHECK(stat_of("lu_a", "denied") == denied0 + 1);
	/* iSCSI with ACLs: init1 maps A only -> refuse */
	cfs_demo(ISCSI, false);
	cfs_acl_map(ISCSI, INIT1, 0, 0);
	expect_cross(false, "acl maps A only");
	/* B exported in the TPG and mapped for init1 -> allow */
	cfs_lun(ISCSI, 1, "user_2/lu_b");
	cfs_acl_map(ISCSI, INIT1, 1, 1);
	expect_cross(true, "acl maps A and B");
	/* init2 maps A only -> refuse (every initiator must reach B) */
	cfs_acl_map(ISCSI, INIT2, 0, 0);
	expect_cross(false, "second acl maps A only");
	/* demo mode with both exported, but init2's explicit ACL lacks B: still refuse */
	cfs_demo(ISCSI, true);
	expect_cross(false, "demo mode, explicit acl lacks B");
	cfs_acl_map(ISCSI, INIT2, 1, 1);
	expect_cross(true, "demo mode, every acl maps both");
	/* a mapping removed at run time is honoured at once */
	unlink_rel(ISCSI "/lun/lun_1/lu_b");
	expect_cross(false, "B unlinked from the TPG");
	cfs_reset();
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
}

/*
 * Two open LUs whose unit serials agree in the first 25 hex digits have the
 * same NAA designator: a CSCD naming it is ambiguous and must reach neither
 * (COPY ABORTED 08/04, nothing written), not the first one found.
 */
#define SER_B_TWIN "6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e"   /* SER_B, last digit changed */
void
test_ambiguous_designator(void)
{
	struct tcmu_device e;
	uint8_t sense[96];

	make_backing("e.img", (uint64_t)NLBAS * BS);
	fill_pattern("e.img", 0, (uint64_t)NLBAS * BS, 0x3C);
	dev_setup(&e, 4, 5, "lu_e", "e.img", "", SER_B_TWIN);
	CHECK(g_handler->open(&e, false) == 0);
	cfs_lun(LOOP, 2, "user_5/lu_e");   /* exported with A and B: the access rule allows */
	snapshot("e.img", "e.orig");
	snapshot("b.img", "b.orig");
	list_one(SER_A, SER_B, 8, 200, 300, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_UNREACHABLE_COPY_TARGET));
	CHECK(same_bytes("b.img", 0, "b.orig", 0, (uint64_t)NLBAS * BS));
	CHECK(same_bytes("e.img", 0, "e.orig", 0, (uint64_t)NLBAS * BS));
	/* the twin named as the source is just as ambiguous */
	snapshot("a.img", "a.orig");
	list_one(SER_B, SER_A, 8, 300, 200, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_UNREACHABLE_COPY_TARGET));
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
	g_handler->close(&e);
	unlink_rel(LOOP "/lun/lun_2/lu_e");
	expect_cross(true, "E closed: B is unique again");
}

void
test_rcr(void)
{
	uint8_t cdb[16], buf[1024], sense[96];
	struct xcm_copy_status cs;
	struct xcm_op_params op;

	/* OPERATING PARAMETERS report the engine's limits */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), sense) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_op_params(xcm_span_make(buf, sizeof(buf)), &op) == 0);
	CHECK(op.max_cscd == xcm_limits_default.max_cscd && op.max_seg == xcm_limits_default.max_seg);
	CHECK(op.max_desc_list_len == xcm_limits_default.max_desc_list_len);
	CHECK(op.snlid == xcm_limits_default.snlid);
	/* COPY STATUS of an unknown list id: ILLEGAL REQUEST 24/00 */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 5, 12);
	CHECK(run_cmd(&g_a, cdb, buf, 12, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_FIELD_IN_CDB));
	/* a held copy (usage 00b, id 5) then COPY STATUS: GOOD, 1 segment, bytes */
	list_one(SER_A, SER_B, 4, 10, 20, XCM_LIST_ID_HOLD, 5);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 5, 12);
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 12, sense) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_copy_status(xcm_span_make(buf, 12), &cs) == 0);
	CHECK(cs.cm_status == XCM_CM_STATUS_GOOD && cs.segs_processed == 1);
	CHECK(cs.units == XCM_TC_UNITS_BYTES && cs.transfer_count == 4 * BS);
	/* list ids are per LU: B does not know id 5 */
	CHECK(run_cmd(&g_b, cdb, buf, 12, sense) == TCMU_STS_PASSTHROUGH_ERR);
	/* a failed held copy (id 7) then FAILED SEGMENT DETAILS carries its sense */
	list_one(SER_A, SER_A, 2048, 0, NLBAS - 1, XCM_LIST_ID_HOLD, 7);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_FAILED_SEGMENT, 7, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(xcm_get_be32(buf) >= 56 + 8);
	CHECK(buf[56] == XCM_SAM_CHECK_CONDITION);
	CHECK(xcm_get_be16(buf + 58) >= 8 &&
	      sense_key(buf + 60, xcm_get_be16(buf + 58)) == XCM_SK_COPY_ABORTED);
	CHECK(stat_of("lu_a", "rcr") >= 3);
}

/* COPY STATUS of list id on A: true when answered (GOOD), false when unknown (24/00) */
static bool
held_known(uint8_t id)
{
	uint8_t cdb[16], buf[16], sense[96];
	int sts;

	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, id, 12);
	sts = run_cmd(&g_a, cdb, buf, 12, sense);
	if (sts != TCMU_STS_OK) {
		CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_FIELD_IN_CDB));
	}
	return sts == TCMU_STS_OK;
}

static void
held_copy(uint8_t id)
{
	uint8_t sense[96];

	list_one(SER_A, SER_A, 2, 40, 60, XCM_LIST_ID_HOLD, id);   /* within A: no access rule */
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
}

#define ISCSI_WWN "cfs/iscsi/iqn.2003-01.org.test:t1"
#define SID_LINE(n) "InitiatorName: " INIT1 "\nLIO Session ID: " #n "   ISID: 0x80 12 34 56 78 9a  TSIH: " #n "\n"

#define ACCEPTS ISCSI_WWN "/fabric_statistics/iscsi_login_stats/accepts"

/*
 * Held results are discarded when configfs shows a session that can reach
 * the LU and was not there at the last 83h/84h command; kept when sessions
 * only left (target/lio/nexus.c).
 */
void
test_held_scope(void)
{
	uint64_t d0;

	cfs_reset();
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
	held_copy(8);                             /* the LU takes note of this set */
	d0 = stat_of("lu_a", "held_discarded");
	/* tcm_loop: the nexus (initiator port) of a TPG exporting A */
	put_file(LOOP "/nexus", "naa.5001405bbbbbbbbb\n");
	CHECK(!held_known(8));                    /* a nexus was created: discarded */
	held_copy(9);
	CHECK(held_known(9));
	CHECK(held_known(9));                     /* nothing changed: still there */
	put_file(LOOP "/nexus", "");
	CHECK(held_known(9));                     /* the nexus left: kept */
	put_file(LOOP "/nexus", "naa.5001405ccccccccc\n");
	CHECK(!held_known(9));                    /* a new nexus: discarded */
	held_copy(9);                             /* the id is usable again at once */
	/* the stats file is rewritten by a command that succeeds (the copy, not the refused RCR) */
	CHECK(stat_of("lu_a", "held_discarded") == d0 + 2);
	CHECK(held_known(9));
	put_file(LOOP "/nexus", "naa.5001405ddddddddd\n");
	CHECK(!held_known(9));                    /* replaced (left and arrived): discarded */

	/* iSCSI with an ACL mapping A: its session id; other lines may change */
	cfs_lun(ISCSI, 0, "user_1/lu_a");
	cfs_acl_map(ISCSI, INIT1, 0, 0);
	put_file(ISCSI "/acls/" INIT1 "/info", SID_LINE(1) " 0x00000010   0x00000011\n");
	held_copy(10);
	put_file(ISCSI "/acls/" INIT1 "/info", SID_LINE(1) " 0x00000020   0x00000021\n");
	CHECK(held_known(10));                    /* same session, new CmdSN: kept */
	put_file(ISCSI "/acls/" INIT1 "/info", "No active iSCSI Session for Initiator Endpoint\n");
	CHECK(held_known(10));                    /* logged out: kept */
	put_file(ISCSI "/acls/" INIT1 "/info", SID_LINE(2) " 0x00000001   0x00000002\n");
	CHECK(!held_known(10));                   /* a new session of init1 */

	/*
	 * iSCSI demo mode, as libiscsi's iscsi-test-cu does it: a probe session
	 * and the test session of one initiator name; the probe's logout ends
	 * between the test's EXTENDED COPY and its RECEIVE COPY RESULTS.
	 */
	mkdirs(ISCSI_WWN "/fabric_statistics/iscsi_login_stats");
	mkdirs(ISCSI_WWN "/fabric_statistics/iscsi_logout_stats");
	put_file(ACCEPTS, "3\n");
	put_file(ISCSI "/dynamic_sessions", INIT1 "\n" INIT1 "\n");
	held_copy(11);
	put_file(ISCSI "/dynamic_sessions", INIT1 "\n");
	put_file(ISCSI_WWN "/fabric_statistics/iscsi_logout_stats/normal_logouts", "1\n");
	CHECK(held_known(11));                    /* the probe left: kept */
	put_file(ACCEPTS, "4\n");
	CHECK(!held_known(11));                   /* a login, same initiator name: discarded */
	held_copy(11);
	put_file(ISCSI "/dynamic_sessions", INIT1 "\niqn.1994-05.com.example:init9\n");
	CHECK(!held_known(11));                   /* a new demo-mode session */
	/* a TPG that stops exporting A: kept; one that starts: discarded */
	held_copy(12);
	unlink_rel(ISCSI "/lun/lun_0/lu_a");
	CHECK(held_known(12));
	cfs_lun(ISCSI, 0, "user_1/lu_a");
	CHECK(!held_known(12));
	held_copy(12);
	CHECK(stat_of("lu_a", "held_discarded") == d0 + 7);
	cfs_reset();
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
}

void
test_paths(void)
{
	uint8_t sense[96];
	uint64_t rw0, cfr0, pc0;

	/* A -> B with A's policy (auto): clone (if the fs reflinks), else the
	 * direct read/write loop (a local fs), else copy_file_range; never the
	 * bounce buffer through the page cache */
	cfr0 = stat_of("lu_a", "clone_bytes") + stat_of("lu_a", "cfr_bytes") +
	       stat_of("lu_a", "rw_direct_bytes");
	pc0 = stat_of("lu_a", "rw_bytes") - stat_of("lu_a", "rw_direct_bytes");
	fill_pattern("a.img", 2048 * BS, 1024 * BS, 0x42);
	list_one(SER_A, SER_B, 1024, 2048, 4096, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(same_bytes("b.img", 4096 * BS, "a.img", 2048 * BS, 1024 * BS));
	CHECK(stat_of("lu_a", "clone_bytes") + stat_of("lu_a", "cfr_bytes") +
	      stat_of("lu_a", "rw_direct_bytes") - cfr0 == 1024 * BS);
	CHECK(stat_of("lu_a", "rw_bytes") - stat_of("lu_a", "rw_direct_bytes") == pc0);
	/* B opened with clone=never&cfr=never: the read/write loop */
	rw0 = stat_of("lu_b", "rw_bytes");
	fill_pattern("b.img", 0, 256 * BS, 0x77);
	list_one(SER_B, SER_A, 256, 0, 7000, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_b, 0, 0, sense) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 7000 * BS, "b.img", 0, 256 * BS));
	CHECK(stat_of("lu_b", "rw_bytes") == rw0 + 256 * BS);
	CHECK(stat_of("lu_b", "cfr_bytes") == 0 && stat_of("lu_b", "clone_bytes") == 0);
}

