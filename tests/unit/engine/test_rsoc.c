/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * REPORT SUPPORTED OPERATION CODES: the engine's CDB check and encoder
 * (engine/rsoc.c) on a small list, then the plugin's command table
 * (target/cmds/cmds.c) through the same encoder: every reporting option, every
 * row, truncation at small allocation lengths, exact sense of bad requests.
 */
#include <string.h>

#include "cmds/cmds.h"
#include "ut.h"
#include "xcm/rsoc.h"

#define CANARY 0xA5

/* A list like a LU's: one opcode without service actions, one with two. */
static const struct xcm_opcode_desc g_read10 = {
	.opcode = 0x28, .cdb_len = 10,
	.usage = { 0x28, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0xFF, 0xFF, 0x00 },
};
static const struct xcm_opcode_desc g_rcr0 = {
	.opcode = 0x84, .sa_valid = true, .sa = 0x00, .cdb_len = 16,
	.usage = { 0x84, 0x00, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0 },
	.nominal_timeout = 7, .recommended_timeout = 30,
};
static const struct xcm_opcode_desc g_rcr3 = {
	.opcode = 0x84, .sa_valid = true, .sa = 0x03, .cdb_len = 16,
	.usage = { 0x84, 0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0 },
};
static const struct xcm_opcode_desc *const g_list[] = { &g_read10, &g_rcr0, &g_rcr3 };
#define NLIST (sizeof(g_list) / sizeof(g_list[0]))

/* Encode req over the list with capacity cap; returns the status, *w the result. */
static enum xcm_status
enc(uint8_t *buf, size_t cap, bool rctd, uint8_t opts, uint8_t op, uint16_t sa,
    struct xcm_wbuf *w, struct xcm_err *err)
{
	uint8_t cdb[XCM_RSOC_CDB_LEN];
	struct xcm_rsoc_req req;
	enum xcm_status st;

	memset(err, 0, sizeof(*err));
	xcm_cdb_rsoc(cdb, rctd, opts, op, sa, (uint32_t)cap);
	st = xcm_rsoc_cdb_check(cdb, sizeof(cdb), &req, err);
	if (st != XCM_OK) {
		return st;
	}
	*w = xcm_wbuf_make(buf, req.alloc_len);
	return xcm_rsoc_encode(&req, g_list, NLIST, w, err);
}

static void
rsoc_cdb_fields(void)
{
	uint8_t cdb[XCM_RSOC_CDB_LEN];
	struct xcm_rsoc_req req;
	struct xcm_err err;

	xcm_cdb_rsoc(cdb, true, XCM_RSOC_OPCODE_SA, 0x84, 0x0103, 0x01020304);
	CU_ASSERT_EQUAL(cdb[0], 0xA3);
	CU_ASSERT_EQUAL(cdb[1], 0x0C);
	CU_ASSERT_EQUAL(cdb[2], 0x82);
	CU_ASSERT_EQUAL(xcm_rsoc_cdb_check(cdb, sizeof(cdb), &req, &err), XCM_OK);
	CU_ASSERT(req.rctd);
	CU_ASSERT_EQUAL(req.options, XCM_RSOC_OPCODE_SA);
	CU_ASSERT_EQUAL(req.opcode, 0x84);
	CU_ASSERT_EQUAL(req.sa, 0x0103);
	CU_ASSERT_EQUAL(req.alloc_len, 0x01020304);
	/* reserved bits 6:3 of byte 2 are not checked */
	cdb[2] = 0x78;
	CU_ASSERT_EQUAL(xcm_rsoc_cdb_check(cdb, sizeof(cdb), &req, &err), XCM_OK);
	CU_ASSERT(!req.rctd && req.options == XCM_RSOC_ALL);
	/* not this command, or too short */
	cdb[1] = 0x0A;
	UT_EXPECT_ERR(xcm_rsoc_cdb_check(cdb, sizeof(cdb), &req, &err), &err,
		      XCM_E_INVALID_OPCODE, -1);
	cdb[1] = 0x0C;
	UT_EXPECT_ERR(xcm_rsoc_cdb_check(cdb, 10, &req, &err), &err, XCM_E_INVALID_FIELD_CDB, -1);
}

/* Reserved REPORTING OPTIONS 100b..111b: 05 24/00, field pointer CDB byte 2 bit 2. */
static void
rsoc_bad_options_sense(void)
{
	static const uint8_t want[18] = {
		0x70, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x00,
		0x24, 0x00, 0x00, 0xCA, 0x00, 0x02,   /* SKSV C/D BPV bit 2, field 0002h */
	};
	uint8_t cdb[XCM_RSOC_CDB_LEN], sense[XCM_SENSE_MAX];
	struct xcm_rsoc_req req;
	struct xcm_err err;
	uint8_t o;

	for (o = 4; o <= 7; o++) {
		memset(&err, 0, sizeof(err));
		xcm_cdb_rsoc(cdb, o == 7, o, 0x28, 0, 512);
		UT_EXPECT_ERR(xcm_rsoc_cdb_check(cdb, sizeof(cdb), &req, &err), &err,
			      XCM_E_INVALID_FIELD_CDB, 2);
		CU_ASSERT(err.in_cdb && err.bit_valid && err.bit == 2);
		memset(sense, 0, sizeof(sense));
		CU_ASSERT_EQUAL(xcm_sense_build(&err, false, sense, sizeof(sense)), 18);
		CU_ASSERT_EQUAL(memcmp(sense, want, sizeof(want)), 0);
	}
}

static void
rsoc_all_commands(void)
{
	uint8_t buf[256];
	struct xcm_wbuf w;
	struct xcm_err err;

	memset(buf, CANARY, sizeof(buf));
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), false, XCM_RSOC_ALL, 0x99, 7, &w, &err), XCM_OK);
	CU_ASSERT_EQUAL(w.len, 4 + 3 * 8);
	CU_ASSERT_EQUAL(xcm_get_be32(buf), 3 * 8);
	/* READ(10): no SA, SERVACTV 0, CDB LENGTH 10 */
	CU_ASSERT(buf[4] == 0x28 && xcm_get_be16(buf + 6) == 0 && buf[9] == 0x00);
	CU_ASSERT_EQUAL(xcm_get_be16(buf + 10), 10);
	/* 84h/00h and 84h/03h: SERVACTV 1 */
	CU_ASSERT(buf[12] == 0x84 && xcm_get_be16(buf + 14) == 0 && buf[17] == 0x01);
	CU_ASSERT(buf[20] == 0x84 && xcm_get_be16(buf + 22) == 3 && buf[25] == 0x01);
	CU_ASSERT_EQUAL(xcm_get_be16(buf + 26), 16);
	/* RCTD: 20-byte descriptors, CTDP, timeouts descriptor length 0Ah */
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), true, XCM_RSOC_ALL, 0, 0, &w, &err), XCM_OK);
	CU_ASSERT_EQUAL(w.len, 4 + 3 * 20);
	CU_ASSERT_EQUAL(xcm_get_be32(buf), 3 * 20);
	CU_ASSERT_EQUAL(buf[9], 0x02);
	CU_ASSERT_EQUAL(buf[29], 0x03);
	CU_ASSERT_EQUAL(xcm_get_be16(buf + 12), 0x0A);
	CU_ASSERT_EQUAL(xcm_get_be16(buf + 32), 0x0A);
	CU_ASSERT_EQUAL(xcm_get_be32(buf + 36), 7);
	CU_ASSERT_EQUAL(xcm_get_be32(buf + 40), 30);
}

/* Truncation: the stored bytes are a prefix of the full answer, nothing past cap. */
static void
check_truncation(bool rctd, uint8_t opts, uint8_t op, uint16_t sa)
{
	uint8_t full[512], buf[512];
	struct xcm_wbuf w;
	struct xcm_err err;
	size_t n, caps[7], i;

	CU_ASSERT_EQUAL(enc(full, sizeof(full), rctd, opts, op, sa, &w, &err), XCM_OK);
	n = w.len;
	UT_ASSERT_FATAL(n >= 4 && n < sizeof(full));
	caps[0] = 0;
	caps[1] = 1;
	caps[2] = 3;
	caps[3] = 4;
	caps[4] = n - 1;
	caps[5] = n;
	caps[6] = n + 1;
	for (i = 0; i < 7; i++) {
		memset(buf, CANARY, sizeof(buf));
		CU_ASSERT_EQUAL(enc(buf, caps[i], rctd, opts, op, sa, &w, &err), XCM_OK);
		CU_ASSERT_EQUAL(w.len, n);
		CU_ASSERT_EQUAL(xcm_wbuf_stored(&w), caps[i] < n ? caps[i] : n);
		CU_ASSERT_EQUAL(memcmp(buf, full, caps[i] < n ? caps[i] : n), 0);
		CU_ASSERT_EQUAL(buf[caps[i]], CANARY);
	}
}

static void
rsoc_truncation(void)
{
	check_truncation(false, XCM_RSOC_ALL, 0, 0);
	check_truncation(true, XCM_RSOC_ALL, 0, 0);
	check_truncation(false, XCM_RSOC_OPCODE, 0x28, 0);
	check_truncation(true, XCM_RSOC_OPCODE_SA, 0x84, 3);
	check_truncation(false, XCM_RSOC_OPCODE_ANY, 0x55, 0);   /* not supported: 4 bytes */
}

static void
rsoc_one_command(void)
{
	uint8_t buf[64];
	struct xcm_wbuf w;
	struct xcm_err err;

	/* 001b, an opcode without service actions: SUPPORT 011b, the usage data */
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE, 0x28, 0x1234, &w, &err),
			XCM_OK);
	CU_ASSERT_EQUAL(w.len, 4 + 10);
	CU_ASSERT_EQUAL(buf[1], 0x03);
	CU_ASSERT_EQUAL(xcm_get_be16(buf + 2), 10);
	CU_ASSERT_EQUAL(memcmp(buf + 4, g_read10.usage, 10), 0);
	/* 001b on an opcode with service actions: 24/00, REPORTING OPTIONS */
	UT_EXPECT_ERR(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE, 0x84, 0, &w, &err), &err,
		      XCM_E_INVALID_FIELD_CDB, 2);
	CU_ASSERT(err.in_cdb && err.bit_valid && err.bit == 2);
	/* 010b on an opcode without service actions: 24/00 */
	UT_EXPECT_ERR(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE_SA, 0x28, 0, &w, &err), &err,
		      XCM_E_INVALID_FIELD_CDB, 2);
	/* 010b, opcode + SA: supported; another SA: not supported */
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE_SA, 0x84, 3, &w, &err),
			XCM_OK);
	CU_ASSERT(buf[1] == 0x03 && xcm_get_be16(buf + 2) == 16 && buf[5] == 0x03);
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE_SA, 0x84, 5, &w, &err),
			XCM_OK);
	CU_ASSERT(w.len == 4 && buf[1] == 0x01 && xcm_get_be16(buf + 2) == 0);
	/* 011b: SA matched where the opcode has them, ignored where it has none */
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE_ANY, 0x84, 0, &w, &err),
			XCM_OK);
	CU_ASSERT(buf[1] == 0x03 && buf[5] == 0x00);
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE_ANY, 0x84, 1, &w, &err),
			XCM_OK);
	CU_ASSERT(w.len == 4 && buf[1] == 0x01);
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), false, XCM_RSOC_OPCODE_ANY, 0x28, 9, &w, &err),
			XCM_OK);
	CU_ASSERT(buf[1] == 0x03 && buf[4] == 0x28);
	/* an opcode the list lacks: SUPPORT 001b for every one-command option, no error */
	for (uint8_t o = XCM_RSOC_OPCODE; o <= XCM_RSOC_OPCODE_ANY; o++) {
		CU_ASSERT_EQUAL(enc(buf, sizeof(buf), true, o, 0x2F, 0, &w, &err), XCM_OK);
		CU_ASSERT(w.len == 4 && buf[0] == 0 && buf[1] == 0x01 && xcm_get_be16(buf + 2) == 0);
	}
	/* RCTD: CTDP and the timeouts descriptor after the usage data */
	CU_ASSERT_EQUAL(enc(buf, sizeof(buf), true, XCM_RSOC_OPCODE_SA, 0x84, 0, &w, &err),
			XCM_OK);
	CU_ASSERT_EQUAL(w.len, 4 + 16 + 12);
	CU_ASSERT_EQUAL(buf[1], 0x83);
	CU_ASSERT_EQUAL(xcm_get_be16(buf + 20), 0x0A);
	CU_ASSERT_EQUAL(xcm_get_be32(buf + 24), 7);
	CU_ASSERT_EQUAL(xcm_get_be32(buf + 28), 30);
}

static void
rsoc_desc_check(void)
{
	struct xcm_opcode_desc d = g_rcr3;

	CU_ASSERT_EQUAL(xcm_opcode_desc_check(&g_read10), 0);
	CU_ASSERT_EQUAL(xcm_opcode_desc_check(&g_rcr0), 0);
	d.usage[1] = 0x04;            /* SA not in its place */
	CU_ASSERT_NOT_EQUAL(xcm_opcode_desc_check(&d), 0);
	d = g_rcr3;
	d.usage[0] = 0x83;            /* usage byte 0 is not the opcode */
	CU_ASSERT_NOT_EQUAL(xcm_opcode_desc_check(&d), 0);
	d = g_read10;
	d.usage[12] = 0xFF;           /* usage past CDB LENGTH */
	CU_ASSERT_NOT_EQUAL(xcm_opcode_desc_check(&d), 0);
	d = g_read10;
	d.sa = 1;                     /* SA without SERVACTV */
	CU_ASSERT_NOT_EQUAL(xcm_opcode_desc_check(&d), 0);
	d = g_read10;
	d.cdb_len = 0;
	CU_ASSERT_NOT_EQUAL(xcm_opcode_desc_check(&d), 0);
}

/* ------------------------------------------------------------------------ */
/* The plugin's table (target/cmds/cmds.c)                                         */
/* ------------------------------------------------------------------------ */

static const struct xt_lu_state g_eng = { .engine = true, .pr = true };

static void
table_well_formed(void)
{
	const struct xt_cmd *t;
	size_t n, i, bad = 0;

	t = xt_cmds(&n);
	UT_ASSERT_FATAL(n > 40);
	CU_ASSERT_EQUAL(xt_cmds_check(&bad), 0);
	if (bad + 1 != n) {
		fprintf(stderr, "\nbad command row %zu (%s)\n", bad, t[bad].name);
	}
	for (i = 0; i < n; i++) {
		CU_ASSERT(t[i].name != NULL && t[i].name[0] != '\0');
	}
}

/* The engine's service-action lists (what its CDB checks accept) = the plugin rows. */
static void
table_matches_engine_sas(void)
{
	const struct xt_cmd *t;
	const uint8_t *sas;
	size_t n, i, k, nsas, rows;
	uint8_t ops[2] = { XCM_OP_XCOPY, XCM_OP_RCR };
	enum xt_exec ex[2] = { XT_X_XCOPY, XT_X_RCR };

	t = xt_cmds(&n);
	for (k = 0; k < 2; k++) {
		sas = k == 0 ? xcm_supported_xcopy_sas(&nsas) : xcm_supported_rcr_sas(&nsas);
		rows = 0;
		for (i = 0; i < n; i++) {
			if (t[i].d.opcode != ops[k] || !xt_cmd_served(&t[i], &g_eng)) {
				continue;
			}
			CU_ASSERT_EQUAL(t[i].exec, ex[k]);
			CU_ASSERT(rows < nsas && sas[rows] == t[i].d.sa);
			rows++;
		}
		CU_ASSERT_EQUAL(rows, nsas);
	}
}

static enum xcm_status
table_rsoc(const struct xt_lu_state *s, bool rctd, uint8_t opts, uint8_t op, uint16_t sa,
	   uint32_t alloc, uint8_t *buf, size_t cap, size_t *got, struct xcm_err *err)
{
	uint8_t cdb[XCM_RSOC_CDB_LEN];

	memset(err, 0, sizeof(*err));
	xcm_cdb_rsoc(cdb, rctd, opts, op, sa, alloc);
	return xt_rsoc(s, cdb, buf, cap, got, err);
}

/* 000b lists exactly the rows served in that state, in table order. */
static void
check_listing(const struct xt_lu_state *s)
{
	static uint8_t buf[4096];
	const struct xt_cmd *t;
	struct xcm_err err;
	size_t n, i, got, off = 4, seen = 0;

	t = xt_cmds(&n);
	CU_ASSERT_EQUAL(table_rsoc(s, false, 0, 0, 0, 65535, buf, sizeof(buf), &got, &err), XCM_OK);
	UT_ASSERT_FATAL(got >= 4 && got < sizeof(buf));
	CU_ASSERT_EQUAL(xcm_get_be32(buf), got - 4);
	for (i = 0; i < n; i++) {
		if (!xt_cmd_served(&t[i], s)) {
			continue;
		}
		seen++;
		UT_ASSERT_FATAL(off + 8 <= got);
		CU_ASSERT_EQUAL(buf[off], t[i].d.opcode);
		CU_ASSERT_EQUAL(xcm_get_be16(buf + off + 2), t[i].d.sa);
		CU_ASSERT_EQUAL(buf[off + 5], t[i].d.sa_valid ? 1 : 0);
		CU_ASSERT_EQUAL(xcm_get_be16(buf + off + 6), t[i].d.cdb_len);
		off += 8;
	}
	CU_ASSERT_EQUAL(off, got);
	CU_ASSERT(seen > 30);
}

static void
table_listing_by_state(void)
{
	struct xt_lu_state s = g_eng;
	const struct xcm_opcode_desc *l[128];
	size_t n_eng, n;

	check_listing(&s);
	n_eng = xt_cmd_list(&s, l, 128);
	s.alua = true;   /* + REPORT / SET TARGET PORT GROUPS */
	check_listing(&s);
	CU_ASSERT_EQUAL(xt_cmd_list(&s, l, 128), n_eng + 2);
	s.alua = false;
	s.pr = false;    /* - RESERVE/RELEASE(6/10), PR IN x4, PR OUT x8 */
	check_listing(&s);
	CU_ASSERT_EQUAL(xt_cmd_list(&s, l, 128), n_eng - 16);
	s.pr = true;
	/* xcopy=core: 83h/01h, 10h, 11h, 1Ch and 84h/00h, 01h, 04h, 05h, 07h, 08h are gone */
	s.engine = false;
	check_listing(&s);
	n = xt_cmd_list(&s, l, 128);
	CU_ASSERT_EQUAL(n, n_eng - 10);
	/* the cap is honoured */
	CU_ASSERT_EQUAL(xt_cmd_list(&s, l, 5), 5);
}

/* Every served row answers its one-command form; the other option is 24/00. */
static void
table_one_command_every_row(void)
{
	uint8_t buf[64];
	const struct xt_cmd *t;
	struct xcm_err err;
	size_t n, i, got;
	uint8_t good, bad;

	t = xt_cmds(&n);
	for (i = 0; i < n; i++) {
		if (!xt_cmd_served(&t[i], &g_eng)) {
			continue;
		}
		good = t[i].d.sa_valid ? XCM_RSOC_OPCODE_SA : XCM_RSOC_OPCODE;
		bad = t[i].d.sa_valid ? XCM_RSOC_OPCODE : XCM_RSOC_OPCODE_SA;
		CU_ASSERT_EQUAL(table_rsoc(&g_eng, false, good, t[i].d.opcode, t[i].d.sa, 64, buf,
					   sizeof(buf), &got, &err), XCM_OK);
		CU_ASSERT_EQUAL(got, 4u + t[i].d.cdb_len);
		CU_ASSERT_EQUAL(buf[1], XCM_RSOC_SUPPORT_STANDARD);
		CU_ASSERT_EQUAL(memcmp(buf + 4, t[i].d.usage, t[i].d.cdb_len), 0);
		UT_EXPECT_ERR(table_rsoc(&g_eng, false, bad, t[i].d.opcode, t[i].d.sa, 64, buf,
					 sizeof(buf), &got, &err), &err, XCM_E_INVALID_FIELD_CDB, 2);
		CU_ASSERT_EQUAL(got, 0);
		/* RCTD: timeouts descriptor follows, no timeouts specified */
		CU_ASSERT_EQUAL(table_rsoc(&g_eng, true, XCM_RSOC_OPCODE_ANY, t[i].d.opcode,
					   t[i].d.sa, 64, buf, sizeof(buf), &got, &err), XCM_OK);
		CU_ASSERT_EQUAL(got, 4u + t[i].d.cdb_len + 12);
		CU_ASSERT_EQUAL(buf[1], 0x83);
	}
	/* VERIFY(10), WRITE AND VERIFY(12), GET LBA STATUS: not served -> SUPPORT 001b */
	CU_ASSERT_EQUAL(table_rsoc(&g_eng, false, 1, 0x2F, 0, 64, buf, sizeof(buf), &got, &err),
			XCM_OK);
	CU_ASSERT(got == 4 && buf[1] == 0x01);
	CU_ASSERT_EQUAL(table_rsoc(&g_eng, false, 1, 0xAE, 0, 64, buf, sizeof(buf), &got, &err),
			XCM_OK);
	CU_ASSERT(got == 4 && buf[1] == 0x01);
	CU_ASSERT_EQUAL(table_rsoc(&g_eng, false, 2, 0x9E, 0x12, 64, buf, sizeof(buf), &got, &err),
			XCM_OK);
	CU_ASSERT(got == 4 && buf[1] == 0x01);
}

/* Allocation lengths 0, 1, 3, 4, full - 1, full on the real table; bad options' sense. */
static void
table_truncation_and_bad_options(void)
{
	static uint8_t full[4096], buf[4096];
	struct xcm_err err;
	size_t n, got, i, caps[6];
	uint8_t sense[XCM_SENSE_MAX];

	CU_ASSERT_EQUAL(table_rsoc(&g_eng, true, 0, 0, 0, 65535, full, sizeof(full), &n, &err),
			XCM_OK);
	caps[0] = 0;
	caps[1] = 1;
	caps[2] = 3;
	caps[3] = 4;
	caps[4] = n - 1;
	caps[5] = n;
	for (i = 0; i < 6; i++) {
		memset(buf, CANARY, sizeof(buf));
		CU_ASSERT_EQUAL(table_rsoc(&g_eng, true, 0, 0, 0, (uint32_t)caps[i], buf,
					   sizeof(buf), &got, &err), XCM_OK);
		CU_ASSERT_EQUAL(got, caps[i]);
		CU_ASSERT_EQUAL(memcmp(buf, full, caps[i]), 0);
		CU_ASSERT_EQUAL(buf[caps[i]], CANARY);
	}
	/* a buffer smaller than the allocation length caps the copy too */
	CU_ASSERT_EQUAL(table_rsoc(&g_eng, true, 0, 0, 0, 65535, buf, 10, &got, &err), XCM_OK);
	CU_ASSERT_EQUAL(got, 10);
	CU_ASSERT_EQUAL(table_rsoc(&g_eng, false, 5, 0x28, 0, 512, buf, sizeof(buf), &got, &err),
			XCM_E_INVALID_FIELD_CDB);
	CU_ASSERT_EQUAL(got, 0);
	memset(sense, 0, sizeof(sense));
	xcm_sense_build(&err, false, sense, sizeof(sense));
	CU_ASSERT(sense[2] == 0x05 && sense[12] == 0x24 && sense[13] == 0x00);
	CU_ASSERT(sense[15] == 0xCA && sense[16] == 0x00 && sense[17] == 0x02);
}

/* Dispatch: which row a CDB gets, or none. */
static void
table_lookup(void)
{
	struct xt_lu_state core = { .engine = false };
	const struct xt_cmd *r, *o;
	uint8_t cdb[16] = { 0 };
	size_t n;

	cdb[0] = 0x28;
	r = xt_cmd_lookup(&g_eng, cdb, &o);
	CU_ASSERT(r != NULL && r->exec == XT_X_CORE);
	cdb[0] = 0x12;
	r = xt_cmd_lookup(&g_eng, cdb, &o);
	CU_ASSERT(r != NULL && r->exec == XT_X_INQUIRY);
	r = xt_cmd_lookup(&core, cdb, &o);
	CU_ASSERT(r != NULL && r->exec == XT_X_CORE);
	/* 84h/02h (reserved): no row, but the RCR handler answers its SA */
	cdb[0] = 0x84;
	cdb[1] = 0x02;
	o = NULL;
	CU_ASSERT(xt_cmd_lookup(&g_eng, cdb, &o) == NULL);
	CU_ASSERT(o != NULL && o->exec == XT_X_RCR);
	/* xcopy=core: 84h/00h is the core's business (it refuses it) */
	cdb[1] = 0x00;
	CU_ASSERT(xt_cmd_lookup(&core, cdb, &o) == NULL);
	CU_ASSERT(o != NULL && o->exec == XT_X_CORE);
	cdb[1] = 0x03;
	r = xt_cmd_lookup(&core, cdb, &o);
	CU_ASSERT(r != NULL && r->exec == XT_X_CORE);
	/* 9Eh/12h GET LBA STATUS: same opcode as READ CAPACITY(16), not served */
	cdb[0] = 0x9E;
	cdb[1] = 0x12;
	CU_ASSERT(xt_cmd_lookup(&g_eng, cdb, &o) == NULL);
	CU_ASSERT(o != NULL && o->exec == XT_X_CORE);
	/* A3h/0Ch, RSOC: the plugin's in both modes */
	cdb[0] = 0xA3;
	cdb[1] = 0x0C;
	r = xt_cmd_lookup(&core, cdb, &o);
	CU_ASSERT(r != NULL && r->exec == XT_X_RSOC);
	/* VERIFY(10): no row at all */
	cdb[0] = 0x2F;
	cdb[1] = 0;
	o = xt_cmds(&n);   /* any non-NULL value: lookup must clear it */
	CU_ASSERT(xt_cmd_lookup(&g_eng, cdb, &o) == NULL && o == NULL);
}

static CU_TestInfo g_tests[] = {
	{ "rsoc_cdb_fields", rsoc_cdb_fields },
	{ "rsoc_bad_options_sense", rsoc_bad_options_sense },
	{ "rsoc_all_commands", rsoc_all_commands },
	{ "rsoc_truncation", rsoc_truncation },
	{ "rsoc_one_command", rsoc_one_command },
	{ "rsoc_desc_check", rsoc_desc_check },
	{ "table_well_formed", table_well_formed },
	{ "table_matches_engine_sas", table_matches_engine_sas },
	{ "table_listing_by_state", table_listing_by_state },
	{ "table_one_command_every_row", table_one_command_every_row },
	{ "table_truncation_and_bad_options", table_truncation_and_bad_options },
	{ "table_lookup", table_lookup },
	CU_TEST_INFO_NULL,
};

UT_SUITE(rsoc, g_tests)
