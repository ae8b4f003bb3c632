/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * REPORT SUPPORTED OPERATION CODES through the loaded plugin: what it lists
 * must be what handle_cmd dispatches. Every opcode (and every service action
 * 00h-1Fh of the opcodes listed with service actions) is sent: a listed one
 * is executed or passed to the core, never refused as an invalid opcode; an
 * unlisted one is refused (20/00, or 24/00 on the SA for the engine's own
 * 83h/84h). ALUA and PR rows follow the fake configfs.
 */
#include <string.h>

#include "harness.h"
#include "xcm/rsoc.h"
#include "xcm/xcm.h"

#define MAXCMDS 128
/* SERVICE ACTION: CDB byte 1 bits 4-0 (SPC-4 CDB formats); a field pointer names its MSB */
#define SA_BIT 4

struct listed {
	size_t n;
	uint8_t op[MAXCMDS];
	bool sav[MAXCMDS];
	uint16_t sa[MAXCMDS];
	uint16_t len[MAXCMDS];
};

/* RSOC 000b on d into *l; returns handle_cmd's status. */
static int
list_all(struct tcmu_device *d, bool rctd, struct listed *l)
{
	static uint8_t buf[4096];
	uint8_t cdb[XCM_RSOC_CDB_LEN];
	size_t off, step = rctd ? 20 : 8;
	uint32_t cdl;
	int sts;

	memset(l, 0, sizeof(*l));
	memset(buf, 0xCC, sizeof(buf));
	xcm_cdb_rsoc(cdb, rctd, XCM_RSOC_ALL, 0, 0, sizeof(buf));
	sts = run_cmd(d, cdb, buf, sizeof(buf), NULL);
	if (sts != TCMU_STS_OK) {
		return sts;
	}
	cdl = xcm_get_be32(buf);
	CHECK(cdl % step == 0 && cdl + 4 <= sizeof(buf));
	CHECK(buf[4 + cdl] == 0);   /* the rest of the data-in buffer is zeroed */
	for (off = 4; off + step <= 4 + cdl && l->n < MAXCMDS; off += step) {
		l->op[l->n] = buf[off];
		l->sav[l->n] = (buf[off + 5] & 1) != 0;
		l->sa[l->n] = xcm_get_be16(buf + off + 2);
		l->len[l->n] = xcm_get_be16(buf + off + 6);
		CHECK(((buf[off + 5] & 2) != 0) == rctd);
		if (rctd) {
			CHECK(xcm_get_be16(buf + off + 8) == 0x0A);
		}
		l->n++;
	}
	return sts;
}

static bool
has(const struct listed *l, uint8_t op, int sa)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->op[i] == op && (sa < 0 ? !l->sav[i] : (l->sav[i] && l->sa[i] == sa))) {
			return true;
		}
	}
	return false;
}

static bool
opcode_has_sas(const struct listed *l, uint8_t op)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->op[i] == op && l->sav[i]) {
			return true;
		}
	}
	return false;
}

/* handle_cmd's verdict on a zero CDB of (op, sa): refused as not served? (quiet: a probe) */
static bool
refused(struct tcmu_device *d, uint8_t op, uint8_t sa)
{
	uint8_t cdb[16] = { 0 }, buf[512], sense[96];
	struct xcm_sks_ptr p;
	struct xcm_sense ps;
	int sts;

	cdb[0] = op;
	cdb[1] = sa;
	sts = run_cmd(d, cdb, buf, sizeof(buf), sense);
	if (sts == TCMU_STS_INVALID_CMD) {
		return true;
	}
	if (sts != TCMU_STS_PASSTHROUGH_ERR ||
	    xcm_sense_parse(xcm_span_make(sense, sizeof(sense)), &ps) != 0 || ps.desc ||
	    ps.deferred || ps.key != XCM_SK_ILLEGAL_REQUEST) {
		return false;
	}
	if (ps.asc_ascq == XCM_ASC_INVALID_OPCODE) {
		return true;
	}
	/* the engine's own opcodes check the service action themselves: 24/00 naming it */
	return ps.asc_ascq == XCM_ASC_INVALID_FIELD_IN_CDB && xcm_sense_sks_ptr(&ps, &p) &&
	       p.in_cdb && p.bit_valid && p.bit == SA_BIT && p.field == 1;
}

/*
 * Rows reported only under a configfs condition (ALUA group, PR emulated by
 * LIO) are still passed to the core / kernel when not reported: those decide.
 */
static bool
conditional(uint8_t op, uint8_t sa)
{
	return ((op == 0xA3 || op == 0xA4) && sa == 0x0A) || op == 0x16 || op == 0x17 ||
	       op == 0x56 || op == 0x57 || (op == 0x5E && sa <= 3) || (op == 0x5F && sa <= 7);
}

/* Listing == dispatch, over every opcode and the service actions 00h-1Fh. */
static void
check_dispatch(struct tcmu_device *d, const struct listed *l)
{
	unsigned int op, sa;
	int bad = 0;

	for (op = 0; op < 256; op++) {
		if (!has(l, (uint8_t)op, -1) && !opcode_has_sas(l, (uint8_t)op) &&
		    conditional((uint8_t)op, 0)) {
			continue;
		}
		if (!opcode_has_sas(l, (uint8_t)op) && (op == 0x5E || op == 0x5F)) {
			continue;   /* PR not reported: every SA goes to the kernel's absent emulation */
		}
		if (!opcode_has_sas(l, (uint8_t)op)) {
			if (has(l, (uint8_t)op, -1) == refused(d, (uint8_t)op, 0)) {
				fprintf(stderr, "  opcode %02x: listed %d, refused %d\n", op,
					has(l, (uint8_t)op, -1), !has(l, (uint8_t)op, -1));
				bad++;
			}
			continue;
		}
		for (sa = 0; sa < 32; sa++) {
			if (!has(l, (uint8_t)op, (int)sa) && conditional((uint8_t)op, (uint8_t)sa)) {
				continue;
			}
			if (has(l, (uint8_t)op, (int)sa) == refused(d, (uint8_t)op, (uint8_t)sa)) {
				fprintf(stderr, "  %02xh/%02xh: listed %d\n", op, sa,
					has(l, (uint8_t)op, (int)sa));
				bad++;
			}
		}
	}
	CHECK(bad == 0);
}

/* fake configfs: LIO emulates PR for lu_a; lu_c has PR passed through; A's ALUA default group */
static void
rsoc_cfs(void)
{
	mkdirs("cfs/core/user_1/lu_a/attrib");
	put_file("cfs/core/user_1/lu_a/attrib/pgr_support", "1\n");
	put_file("cfs/core/user_1/lu_a/attrib/emulate_pr", "1\n");
	mkdirs("cfs/core/user_3/lu_c/attrib");
	put_file("cfs/core/user_3/lu_c/attrib/pgr_support", "0\n");
	put_file("cfs/core/user_3/lu_c/attrib/emulate_pr", "1\n");
	/* default_tg_pt_gp with a member does not count as ALUA for the core */
	mkdirs("cfs/core/user_1/lu_a/alua/default_tg_pt_gp");
	put_file("cfs/core/user_1/lu_a/alua/default_tg_pt_gp/members", "loopback/naa.1/tpgt_1/lun_0\n");
}

/* REPORT SUPPORTED OPERATION CODES, all commands: what it lists is what is dispatched. */
void
test_rsoc(void)
{
	struct listed l, lc;
	size_t i;

	rsoc_cfs();
	CHECK(list_all(&g_a, false, &l) == TCMU_STS_OK);
	CHECK(l.n > 40);
	CHECK(has(&l, 0xA3, 0x0C) && has(&l, 0x83, 0x00) && has(&l, 0x84, 0x00) &&
	      has(&l, 0x84, 0x01) && has(&l, 0x84, 0x03) && has(&l, 0x84, 0x04));
	CHECK(!has(&l, 0x83, 0x01) || has(&l, 0x84, 0x05));   /* LID4 comes with its RCR */
	CHECK(has(&l, 0x28, -1) && has(&l, 0x8A, -1) && has(&l, 0x9E, 0x10) && has(&l, 0xA0, -1));
	CHECK(has(&l, 0x5E, 0x00) && has(&l, 0x5F, 0x07));     /* PR: LIO emulates it */
	CHECK(!has(&l, 0xA3, 0x0A) && !has(&l, 0x2F, -1) && !has(&l, 0x9E, 0x12));
	for (i = 0; i < l.n; i++) {
		CHECK(l.sav[i] || l.sa[i] == 0);                    /* SERVACTV 0: SA 0 */
		CHECK(i == 0 || l.op[i - 1] < l.op[i] ||
		      (l.op[i - 1] == l.op[i] && l.sa[i - 1] < l.sa[i]));
	}
	check_dispatch(&g_a, &l);
	/* RCTD: 20-byte descriptors, same list */
	CHECK(list_all(&g_a, true, &lc) == TCMU_STS_OK);
	CHECK(lc.n == l.n && memcmp(lc.op, l.op, l.n) == 0);

	/* ALUA group with a member: RTPG / STPG (the core's) are reported */
	mkdirs("cfs/core/user_1/lu_a/alua/tg1");
	put_file("cfs/core/user_1/lu_a/alua/tg1/members", "loopback/naa.1/tpgt_1/lun_0\n");
	CHECK(list_all(&g_a, false, &lc) == TCMU_STS_OK);
	CHECK(lc.n == l.n + 2 && has(&lc, 0xA3, 0x0A) && has(&lc, 0xA4, 0x0A));
	put_file("cfs/core/user_1/lu_a/alua/tg1/members", "");
	CHECK(list_all(&g_a, false, &lc) == TCMU_STS_OK && lc.n == l.n);

	/* xcopy=core: the core's 83h/00h and 84h/03h only; PR passed through: not listed */
	CHECK(list_all(&g_c, false, &lc) == TCMU_STS_OK);
	CHECK(has(&lc, 0xA3, 0x0C) && has(&lc, 0x83, 0x00) && has(&lc, 0x84, 0x03));
	CHECK(!has(&lc, 0x84, 0x00) && !has(&lc, 0x84, 0x04) && !has(&lc, 0x5E, 0x00) &&
	      !has(&lc, 0x16, -1));
	check_dispatch(&g_c, &lc);
}

/* REPORT SUPPORTED OPERATION CODES of one command, its errors, a short allocation length. */
void
test_rsoc_one(void)
{
	uint8_t cdb[XCM_RSOC_CDB_LEN], buf[64], sense[96];
	struct listed l;

	rsoc_cfs();
	CHECK(list_all(&g_a, false, &l) == TCMU_STS_OK);
	/* one command: 83h/00h with its CDB usage data */
	memset(buf, 0xCC, sizeof(buf));
	xcm_cdb_rsoc(cdb, false, XCM_RSOC_OPCODE_SA, 0x83, 0x00, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(buf[1] == 0x03 && xcm_get_be16(buf + 2) == 16 && buf[4] == 0x83 && buf[5] == 0x00);
	CHECK(buf[14] == 0xFF && buf[17] == 0xFF && buf[20] == 0);   /* PLL; rest zeroed */
	/* not served: SUPPORT 001b, GOOD */
	xcm_cdb_rsoc(cdb, false, XCM_RSOC_OPCODE, 0x2F, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(buf[1] == 0x01 && xcm_get_be16(buf + 2) == 0);
	/* 001b for an opcode with service actions: 05 24/00, field pointer byte 2 bit 2 */
	xcm_cdb_rsoc(cdb, false, XCM_RSOC_OPCODE, 0x84, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_ptr_is(sense, sizeof(sense), XCM_SK_ILLEGAL_REQUEST,
			   XCM_ASC_INVALID_FIELD_IN_CDB, true, 2, 2));
	/* reserved reporting option 110b: the same sense */
	xcm_cdb_rsoc(cdb, false, 6, 0, 0, sizeof(buf));
	memset(sense, 0, sizeof(sense));
	CHECK(run_cmd(&g_c, cdb, buf, sizeof(buf), sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_ptr_is(sense, sizeof(sense), XCM_SK_ILLEGAL_REQUEST,
			   XCM_ASC_INVALID_FIELD_IN_CDB, true, 2, 2));
	/* allocation length 3: three bytes, the rest of the buffer zeroed */
	memset(buf, 0xCC, sizeof(buf));
	xcm_cdb_rsoc(cdb, false, XCM_RSOC_ALL, 0, 0, 3);
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	/* COMMAND DATA LENGTH's first 3 bytes */
	CHECK(buf[0] == 0 && buf[1] == 0 && buf[2] == (uint8_t)((l.n * 8) >> 8) && buf[3] == 0);
	xcm_cdb_rsoc(cdb, false, XCM_RSOC_ALL, 0, 0, 4);
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(xcm_get_be32(buf) == l.n * 8 && buf[4] == 0);
}
