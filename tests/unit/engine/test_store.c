/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Held results per LU: xcm_store_begin / finish / rcr. */
#include <errno.h>
#include <string.h>

#include "fake_backend.h"
#include "ut.h"
#include "xcm/exec.h"

static struct xcm_list g_sl;

static struct xcm_list *
list_of(uint8_t id, uint8_t usage)
{
	g_sl.list_id = id;
	g_sl.list_id_usage = usage;
	return &g_sl;
}

/* RECEIVE COPY RESULTS into buf[cap]; returns the status, full length in *full. */
static enum xcm_status
rcr(struct xcm_store *s, uint8_t sa, uint8_t id, uint8_t *buf, size_t cap, size_t *full,
    struct xcm_err *err)
{
	struct xcm_rcr_req req = { sa, id, (uint32_t)cap };
	struct xcm_wbuf w = xcm_wbuf_make(buf, cap);
	enum xcm_status st;

	st = xcm_store_rcr(s, &xcm_limits_default, &req, &w, err);
	if (full != NULL) {
		*full = w.len;
	}
	return st;
}

/* COPY STATUS decoded by hand (SPC-4 COPY STATUS, LID1), independently of the codec. */
struct cs {
	uint32_t avail;
	bool hdd;
	uint8_t status;
	uint16_t segs;
	uint8_t units;
	uint32_t count;
};

static bool
copy_status(struct xcm_store *s, uint8_t id, struct cs *out)
{
	uint8_t b[64];
	size_t full = 0;
	struct xcm_err err;

	if (rcr(s, XCM_SA_RCR_COPY_STATUS, id, b, sizeof(b), &full, &err) != XCM_OK) {
		return false;
	}
	CU_ASSERT_EQUAL(full, 12);
	out->avail = xcm_get_be32(b);
	out->hdd = (b[4] & 0x80) != 0;
	out->status = b[4] & 0x7F;
	out->segs = xcm_get_be16(b + 5);
	out->units = b[7];
	out->count = xcm_get_be32(b + 8);
	return true;
}

static void
expect_unknown_id(struct xcm_store *s, uint8_t sa, uint8_t id)
{
	uint8_t b[64];
	struct xcm_err err;

	UT_EXPECT_ERR(rcr(s, sa, id, b, sizeof(b), NULL, &err), &err, XCM_E_INVALID_FIELD_CDB, 2);
	CU_ASSERT_TRUE(err.in_cdb);
	CU_ASSERT_FALSE(err.bit_valid);
	CU_ASSERT_EQUAL(xcm_status_info(err.status)->asc_ascq, 0x2400);
}

static void
store_op_params_from_limits(void)
{
	struct xcm_store *s = xcm_store_create();
	uint8_t a[128], b[128];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_rcr_req req = { XCM_SA_RCR_OP_PARAMS, 0, sizeof(a) };
	struct xcm_limits lim = xcm_limits_default;
	struct xcm_err err;
	size_t full = 0;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_OP_PARAMS, 0, a, sizeof(a), &full, &err), XCM_OK);
	xcm_rcr_encode_op_params(&xcm_limits_default, &w);
	CU_ASSERT_EQUAL(full, w.len);
	CU_ASSERT_EQUAL(memcmp(a, b, full), 0);
	CU_ASSERT_EQUAL(xcm_get_be32(a + 16), xcm_limits_default.max_seg_len);
	/* the limits passed in are the ones reported */
	lim.max_seg_len = 12345;
	w = xcm_wbuf_make(a, sizeof(a));
	CU_ASSERT_EQUAL(xcm_store_rcr(s, &lim, &req, &w, &err), XCM_OK);
	CU_ASSERT_EQUAL(xcm_get_be32(a + 16), 12345);
	xcm_store_destroy(s);
}

static void
store_discard_round_trip(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 3, 1536 };
	struct xcm_err err;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(5, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	UT_ASSERT_FATAL(copy_status(s, 5, &cs));
	CU_ASSERT_EQUAL(cs.avail, 8);
	CU_ASSERT_FALSE(cs.hdd);
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_GOOD);
	CU_ASSERT_EQUAL(cs.segs, 3);
	CU_ASSERT_EQUAL(cs.units, XCM_TC_UNITS_BYTES);
	CU_ASSERT_EQUAL(cs.count, 1536);
	/* COPY STATUS is not read-once */
	CU_ASSERT_TRUE(copy_status(s, 5, &cs));
	/* other ids stay unknown */
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 4);
	xcm_store_destroy(s);
}

static void
store_hold_sets_hdd(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 1, 512 };
	struct xcm_err err;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(0, XCM_LIST_ID_HOLD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	UT_ASSERT_FATAL(copy_status(s, 0, &cs));
	CU_ASSERT_TRUE(cs.hdd);
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_GOOD);
	CU_ASSERT_EQUAL(cs.count, 512);
	xcm_store_destroy(s);
}

static void
store_usage_none_not_recorded(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 1, 512 };
	struct xcm_err err;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(0, XCM_LIST_ID_NONE), &err), XCM_OK);
	/* 11b twice in a row is never "in progress" */
	CU_ASSERT_EQUAL(xcm_store_begin(s, &g_sl, &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 0);
	/* reserved 01b is not recorded either */
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(7, XCM_LIST_ID_RESERVED), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 7);
	xcm_store_destroy(s);
}

static void
store_in_progress_status(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_err err;
	struct cs cs;
	uint8_t b[64];
	size_t full = 0;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(9, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	UT_ASSERT_FATAL(copy_status(s, 9, &cs));
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_IN_PROGRESS);
	CU_ASSERT_EQUAL(cs.segs, 0);
	CU_ASSERT_EQUAL(cs.count, 0);
	/* FAILED SEGMENT DETAILS of a running list: nothing yet, and it stays */
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_FAILED_SEGMENT, 9, b, sizeof(b), &full, &err), XCM_OK);
	CU_ASSERT_EQUAL(full, 4);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 0);
	CU_ASSERT_TRUE(copy_status(s, 9, &cs));
	xcm_store_destroy(s);
}

static void
store_duplicate_in_use(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_err err;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(42, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	UT_EXPECT_ERR(xcm_store_begin(s, &g_sl, &err), &err, XCM_E_OP_IN_PROGRESS, -1);
	CU_ASSERT_EQUAL(xcm_status_info(err.status)->key, XCM_SK_ILLEGAL_REQUEST);
	CU_ASSERT_EQUAL(xcm_status_info(err.status)->asc_ascq, 0x0016);
	CU_ASSERT_FALSE(err.csi_valid);
	/* the same id with the other recorded usage is the same identifier */
	UT_EXPECT_ERR(xcm_store_begin(s, list_of(42, XCM_LIST_ID_HOLD), &err), &err,
		      XCM_E_OP_IN_PROGRESS, -1);
	/* a different id is independent */
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(43, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_destroy(s);
}

static void
store_completed_id_replaced(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result r1 = { 0, 0 }, r2 = { 2, 4096 };
	const uint8_t sense[18] = { 0x70, 0, XCM_SK_COPY_ABORTED, [7] = 10, [12] = 0x0D, 0x02 };
	struct xcm_err err;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(1, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_E_CA_NOT_REACHABLE, &r1, sense, sizeof(sense));
	UT_ASSERT_FATAL(copy_status(s, 1, &cs));
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_ERROR);
	/* same id again: the completed record gives way */
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(1, XCM_LIST_ID_HOLD), &err), XCM_OK);
	UT_ASSERT_FATAL(copy_status(s, 1, &cs));
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_IN_PROGRESS);
	CU_ASSERT_TRUE(cs.hdd);
	xcm_store_finish(s, &g_sl, XCM_OK, &r2, NULL, 0);
	UT_ASSERT_FATAL(copy_status(s, 1, &cs));
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_GOOD);
	CU_ASSERT_EQUAL(cs.segs, 2);
	CU_ASSERT_EQUAL(cs.count, 4096);
	xcm_store_destroy(s);
}

static void
store_unknown_id_every_sa(void)
{
	struct xcm_store *s = xcm_store_create();

	UT_ASSERT_FATAL(s != NULL);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 0);
	expect_unknown_id(s, XCM_SA_RCR_RECEIVE_DATA, 255);
	expect_unknown_id(s, XCM_SA_RCR_FAILED_SEGMENT, 17);
	xcm_store_destroy(s);
}

static void
store_unsupported_sa(void)
{
	struct xcm_store *s = xcm_store_create();
	uint8_t b[16];
	struct xcm_err err;

	UT_ASSERT_FATAL(s != NULL);
	UT_EXPECT_ERR(rcr(s, 0x05, 0, b, sizeof(b), NULL, &err), &err, XCM_E_INVALID_FIELD_CDB, 1);
	CU_ASSERT_TRUE(err.in_cdb);
	xcm_store_destroy(s);
}

static void
store_failed_segment_read_once(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 2, 1024 };
	uint8_t sense[40], b[128];
	struct xcm_err err;
	size_t full = 0;
	int i;

	UT_ASSERT_FATAL(s != NULL);
	for (i = 0; i < (int)sizeof(sense); i++) {
		sense[i] = (uint8_t)(0x72 + i);
	}
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(200, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_E_CA_DEVICE_FAILURE, &res, sense, sizeof(sense));
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_FAILED_SEGMENT, 200, b, sizeof(b), &full, &err), XCM_OK);
	/* SPC-4 FAILED SEGMENT DETAILS: AVAILABLE DATA, 52 reserved, status, reserved, length, sense */
	CU_ASSERT_EQUAL(full, 60 + sizeof(sense));
	CU_ASSERT_EQUAL(xcm_get_be32(b), 56 + sizeof(sense));
	CU_ASSERT_EQUAL(b[56], XCM_SAM_CHECK_CONDITION);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 58), sizeof(sense));
	CU_ASSERT_EQUAL(memcmp(b + 60, sense, sizeof(sense)), 0);
	/* read-once: the record is gone, for every service action */
	expect_unknown_id(s, XCM_SA_RCR_FAILED_SEGMENT, 200);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 200);
	/* and the id is free again */
	CU_ASSERT_EQUAL(xcm_store_begin(s, &g_sl, &err), XCM_OK);
	xcm_store_destroy(s);
}

static void
store_failed_segment_of_success(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 1, 512 };
	uint8_t b[64];
	struct xcm_err err;
	size_t full = 0;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(3, XCM_LIST_ID_HOLD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	memset(b, 0xEE, sizeof(b));
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_FAILED_SEGMENT, 3, b, sizeof(b), &full, &err), XCM_OK);
	CU_ASSERT_EQUAL(full, 4);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 0);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 3);
	xcm_store_destroy(s);
}

static void
store_receive_data_empty(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 1, 512 };
	uint8_t b[16];
	struct xcm_err err;
	size_t full = 0;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(8, XCM_LIST_ID_HOLD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	memset(b, 0xEE, sizeof(b));
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_RECEIVE_DATA, 8, b, sizeof(b), &full, &err), XCM_OK);
	CU_ASSERT_EQUAL(full, 4);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 0);
	/* RECEIVE DATA does not consume the record */
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_RECEIVE_DATA, 8, b, sizeof(b), &full, &err), XCM_OK);
	xcm_store_destroy(s);
}

static void
store_allocation_length_truncates(void)
{
	static const size_t caps[] = { 0, 1, 5, 11, 12, 13, 64 };
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 7, 0x12345678 };
	uint8_t ref[64], b[65];
	struct xcm_err err;
	size_t full = 0, i;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(77, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_COPY_STATUS, 77, ref, sizeof(ref), &full, &err), XCM_OK);
	UT_ASSERT_FATAL(full == 12);
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		size_t want = caps[i] < 12 ? caps[i] : 12;

		memset(b, 0xEE, sizeof(b));
		CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_COPY_STATUS, 77, b, caps[i], &full, &err),
				XCM_OK);
		CU_ASSERT_EQUAL(full, 12);
		CU_ASSERT_EQUAL(memcmp(b, ref, want), 0);
		/* not one byte past the allocation length */
		CU_ASSERT_EQUAL(b[caps[i]], 0xEE);
	}
	/* FAILED SEGMENT DETAILS truncated still counts as read */
	xcm_store_finish(s, &g_sl, XCM_E_CA_NOT_REACHABLE, &res, ref, 18);
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_FAILED_SEGMENT, 77, b, 8, &full, &err), XCM_OK);
	CU_ASSERT_EQUAL(full, 60 + 18);
	CU_ASSERT_EQUAL(xcm_get_be32(b), 56 + 18);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 77);
	xcm_store_destroy(s);
}

static void
store_sense_capped(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 0, 0 };
	uint8_t sense[200], b[256];
	struct xcm_err err;
	size_t full = 0;
	int i;

	UT_ASSERT_FATAL(s != NULL);
	for (i = 0; i < (int)sizeof(sense); i++) {
		sense[i] = (uint8_t)i;
	}
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(2, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_E_CA_DEVICE_FAILURE, &res, sense, sizeof(sense));
	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_FAILED_SEGMENT, 2, b, sizeof(b), &full, &err), XCM_OK);
	CU_ASSERT_EQUAL(full, 60 + XCM_SENSE_MAX);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 58), XCM_SENSE_MAX);
	CU_ASSERT_EQUAL(memcmp(b + 60, sense, XCM_SENSE_MAX), 0);
	xcm_store_destroy(s);
}

static void
store_large_transfer_count_units(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result res = { 1024, (UINT64_C(5) << 32) + 4096 };
	struct xcm_err err;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(255, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
	UT_ASSERT_FATAL(copy_status(s, 255, &cs));
	CU_ASSERT_EQUAL(cs.segs, 1024);
	/* 20 GiB + 4 KiB does not fit 32 bits of bytes: KiB */
	CU_ASSERT_EQUAL(cs.units, XCM_TC_UNITS_KIB);
	CU_ASSERT_EQUAL(cs.count, (uint32_t)(res.bytes >> 10));
	xcm_store_destroy(s);
}

static void
store_ids_are_independent(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_exec_result ra = { 1, 100 }, rb = { 2, 200 };
	struct xcm_err err;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(0, XCM_LIST_ID_DISCARD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &ra, NULL, 0);
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(255, XCM_LIST_ID_HOLD), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_E_CA_DEVICE_FAILURE, &rb, NULL, 0);
	UT_ASSERT_FATAL(copy_status(s, 0, &cs));
	CU_ASSERT_EQUAL(cs.count, 100);
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_GOOD);
	UT_ASSERT_FATAL(copy_status(s, 255, &cs));
	CU_ASSERT_EQUAL(cs.count, 200);
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_ERROR);
	xcm_store_destroy(s);
}

/* The whole path: execute a failing list, build its sense, store it, read it back. */
static void
store_exec_failure_end_to_end(void)
{
	static struct xcm_list l;
	struct xcm_store *s = xcm_store_create();
	struct fake_be *be = fake_create();
	struct xt_lu *a = fake_lu_add(be, 512, 32, 1);
	struct xt_lu *b = fake_lu_add(be, 512, 32, 2);
	struct fake_fault f;
	struct xcm_exec_result res;
	struct xcm_err err;
	struct xcm_sense sn;
	uint8_t sense[XCM_SENSE_MAX], out[256];
	size_t n, full = 0;
	enum xcm_status st;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	memset(&l, 0, sizeof(l));
	l.list_id = 12;
	l.list_id_usage = XCM_LIST_ID_DISCARD;
	fake_lu_cscd(b, &l.cscd[0]);
	l.ncscd = 1;
	l.nseg = 2;
	l.seg[0].type = XCM_SEG_B2B;
	l.seg[0].src = &l.self;
	l.seg[0].dst = &l.cscd[0];
	l.seg[0].count = 4;
	l.seg[1] = l.seg[0];
	l.seg[1].src_lba = 4;
	l.seg[1].dst_lba = 4;
	memset(&f, 0, sizeof(f));
	f.nth = 2;
	f.err = -EIO;
	f.after = 1024;
	fake_set_fault(be, &f);

	CU_ASSERT_EQUAL(xcm_store_begin(s, &l, &err), XCM_OK);
	st = xcm_list_execute(&l, &xcm_limits_default, &fake_ops, be, a, &res, &err);
	CU_ASSERT_EQUAL(st, XCM_E_CA_DEVICE_FAILURE);
	n = xcm_sense_build(&err, true, sense, sizeof(sense));
	UT_ASSERT_FATAL(n > 0);
	xcm_store_finish(s, &l, st, &res, sense, n);

	UT_ASSERT_FATAL(copy_status(s, 12, &cs));
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_ERROR);
	CU_ASSERT_EQUAL(cs.segs, 1);
	CU_ASSERT_EQUAL(cs.count, 4 * 512 + 1024);

	CU_ASSERT_EQUAL(rcr(s, XCM_SA_RCR_FAILED_SEGMENT, 12, out, sizeof(out), &full, &err),
			XCM_OK);
	UT_ASSERT_FATAL(full == 60 + n);
	CU_ASSERT_EQUAL(out[56], XCM_SAM_CHECK_CONDITION);
	CU_ASSERT_EQUAL(memcmp(out + 60, sense, n), 0);
	UT_ASSERT_FATAL(xcm_sense_parse(xcm_span_make(out + 60, n), &sn) == 0);
	CU_ASSERT_EQUAL(sn.key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(sn.asc_ascq, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE);
	CU_ASSERT_TRUE(sn.csi_valid);
	CU_ASSERT_EQUAL(sn.csi, 1);
	CU_ASSERT_TRUE(sn.fwd_valid);
	CU_ASSERT_EQUAL(sn.fwd_source, 1);
	fake_destroy(be);
	xcm_store_destroy(s);
}

/* ---- scope: discard on a nexus change, bounded lifetime ---- */

static uint64_t g_now;

static uint64_t
ut_now(void *arg)
{
	CU_ASSERT_PTR_EQUAL(arg, &g_now);
	return g_now;
}

/* A completed record of list id with usage, finished at the current g_now. */
static void
ut_complete(struct xcm_store *s, uint8_t id, uint8_t usage)
{
	struct xcm_exec_result res = { 1, 4096 };
	struct xcm_err err;

	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(id, usage), &err), XCM_OK);
	xcm_store_finish(s, &g_sl, XCM_OK, &res, NULL, 0);
}

/* A nexus change drops every completed record (all ids, both usages) and nothing else. */
static void
store_discard_drops_completed_only(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_err err;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	ut_complete(s, 1, XCM_LIST_ID_HOLD);
	ut_complete(s, 200, XCM_LIST_ID_DISCARD);
	/* list 7 is still running: its EXTENDED COPY has not completed to anyone */
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(7, XCM_LIST_ID_HOLD), &err), XCM_OK);
	CU_ASSERT_EQUAL(xcm_store_discard(s), 2);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 1);
	expect_unknown_id(s, XCM_SA_RCR_FAILED_SEGMENT, 200);
	UT_ASSERT_FATAL(copy_status(s, 7, &cs));
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_IN_PROGRESS);
	/* still in use: the same id is refused, the record survived */
	UT_EXPECT_ERR(xcm_store_begin(s, list_of(7, XCM_LIST_ID_HOLD), &err), &err,
		      XCM_E_OP_IN_PROGRESS, -1);
	CU_ASSERT_EQUAL(xcm_store_discard(s), 0);
	/* ids are usable again at once */
	ut_complete(s, 1, XCM_LIST_ID_HOLD);
	CU_ASSERT_TRUE(copy_status(s, 1, &cs));
	xcm_store_destroy(s);
}

/* Records older than the lifetime go; younger ones and running lists stay. */
static void
store_expire_by_age(void)
{
	struct xcm_store *s = xcm_store_create();
	struct xcm_err err;
	struct cs cs;

	UT_ASSERT_FATAL(s != NULL);
	/* no clock: nothing ages */
	ut_complete(s, 9, XCM_LIST_ID_HOLD);
	CU_ASSERT_EQUAL(xcm_store_expire(s, 0), 0);
	CU_ASSERT_TRUE(copy_status(s, 9, &cs));

	xcm_store_set_clock(s, ut_now, &g_now);
	g_now = 1000;
	ut_complete(s, 1, XCM_LIST_ID_HOLD);          /* done at 1000 */
	g_now = 5000;
	ut_complete(s, 2, XCM_LIST_ID_DISCARD);       /* done at 5000 */
	CU_ASSERT_EQUAL(xcm_store_begin(s, list_of(3, XCM_LIST_ID_HOLD), &err), XCM_OK);
	/* at 11000 with a 10 s lifetime: list 1 is exactly 10 s old, kept */
	g_now = 11000;
	CU_ASSERT_EQUAL(xcm_store_expire(s, 10000), 1);  /* list 9 (stamped 0 without a clock) */
	CU_ASSERT_TRUE(copy_status(s, 1, &cs));
	g_now = 11001;
	CU_ASSERT_EQUAL(xcm_store_expire(s, 10000), 1);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 1);
	CU_ASSERT_TRUE(copy_status(s, 2, &cs));
	g_now = 20000;
	CU_ASSERT_EQUAL(xcm_store_expire(s, 10000), 1);
	expect_unknown_id(s, XCM_SA_RCR_COPY_STATUS, 2);
	/* running lists never age */
	g_now = 1000000;
	CU_ASSERT_EQUAL(xcm_store_expire(s, 10000), 0);
	UT_ASSERT_FATAL(copy_status(s, 3, &cs));
	CU_ASSERT_EQUAL(cs.status, XCM_CM_STATUS_IN_PROGRESS);
	/* a clock that went backwards ages nothing */
	xcm_store_finish(s, &g_sl, XCM_OK, NULL, NULL, 0);
	g_now = 10;
	CU_ASSERT_EQUAL(xcm_store_expire(s, 0), 0);
	CU_ASSERT_TRUE(copy_status(s, 3, &cs));
	xcm_store_destroy(s);
}

static CU_TestInfo store_tests[] = {
	{ "op_params_from_limits", store_op_params_from_limits },
	{ "discard_round_trip", store_discard_round_trip },
	{ "hold_sets_hdd", store_hold_sets_hdd },
	{ "usage_none_not_recorded", store_usage_none_not_recorded },
	{ "in_progress_status", store_in_progress_status },
	{ "duplicate_in_use", store_duplicate_in_use },
	{ "completed_id_replaced", store_completed_id_replaced },
	{ "unknown_id_every_sa", store_unknown_id_every_sa },
	{ "unsupported_sa", store_unsupported_sa },
	{ "failed_segment_read_once", store_failed_segment_read_once },
	{ "failed_segment_of_success", store_failed_segment_of_success },
	{ "receive_data_empty", store_receive_data_empty },
	{ "allocation_length_truncates", store_allocation_length_truncates },
	{ "sense_capped", store_sense_capped },
	{ "large_transfer_count_units", store_large_transfer_count_units },
	{ "ids_are_independent", store_ids_are_independent },
	{ "exec_failure_end_to_end", store_exec_failure_end_to_end },
	{ "discard_drops_completed_only", store_discard_drops_completed_only },
	{ "expire_by_age", store_expire_by_age },
	CU_TEST_INFO_NULL,
};

UT_SUITE(store, store_tests)
