/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a user:xcopy LU serves: one row per operation code (or opcode +
 * service action). handle_cmd dispatches by this table (a CDB with no row is
 * INVALID COMMAND OPERATION CODE, as the core would answer) and REPORT
 * SUPPORTED OPERATION CODES lists it. Adding a command is one row.
 *
 * Sources of the core rows: tcmu-runner 1.5.4 handle_sync_cmd() and
 * tcmur_cmd_handler() (INQUIRY ... FORMAT UNIT, RTPG/STPG only with ALUA
 * groups). Kernel rows: LIO's passthrough_parse_cdb() always emulates REPORT
 * LUNS and, unless PR is passed through, PR IN/OUT and RESERVE/RELEASE.
 *
 * CDB USAGE DATA (SPC-4 6.35.3): a one for each bit the LU acts on, a zero
 * for bits it ignores and for fields it only accepts as zero (the block
 * commands' RDPROTECT/WRPROTECT, DPO, FUA; WRITE SAME ANCHOR, PBDATA,
 * LBDATA, NDOB: sbc_check.c rejects them, MODE SENSE DPOFUA = 0). GROUP
 * NUMBER and CONTROL are ignored by the core. Timeouts: none specified.
 */
#include <errno.h>
#include <string.h>

#include "cmds.h"

/* Operation code without service actions; the rest of the usage data follows. */
#define OP(op_, len_, ...) \
	{ .opcode = (op_), .cdb_len = (len_), .usage = { (op_), __VA_ARGS__ } }
/* With a service action in byte 1 bits 4:0; b1 = usage of byte 1 bits 7:5. */
#define OPSA(op_, sa_, len_, b1_, ...) \
	{ .opcode = (op_), .sa_valid = true, .sa = (sa_), .cdb_len = (len_), \
	  .usage = { (op_), (uint8_t)((b1_) | (sa_)), __VA_ARGS__ } }

#define ENG XT_W_ENGINE
#define CORE XT_W_CORE
#define BOTH XT_W_MODES
#define FF 0xFF

/* byte 1..: LBA 8 bytes, length 4, group 0, control 0 */
#define RW16 FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x00, 0x00
/* LBA 4 bytes, group 0, length 2, control 0 */
#define RW10 FF, FF, FF, FF, 0x00, FF, FF, 0x00
/* LBA 4 bytes, length 4, group 0, control 0 */
#define RW12 FF, FF, FF, FF, FF, FF, FF, FF, 0x00, 0x00
/* RECEIVE COPY RESULTS: LIST IDENTIFIER byte 2, ALLOCATION LENGTH 10-13 */
#define RCR_ID FF, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0x00, 0x00
#define RCR_NOID 0x00, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0x00, 0x00
/* PERSISTENT RESERVE IN: ALLOCATION LENGTH 7-8 */
#define PRIN 0x00, 0, 0, 0, 0, FF, FF, 0x00
/* PERSISTENT RESERVE OUT: SCOPE + TYPE byte 2, PARAMETER LIST LENGTH 5-8 */
#define PROUT FF, 0, 0, FF, FF, FF, FF, 0x00

static const struct xt_cmd g_cmds[] = {
	{ XT_X_CORE, BOTH, "TEST UNIT READY", OP(0x00, 6, 0x00, 0x00, 0x00, 0x00, 0x00) },
	/* the core formats with zeros whatever FMTDATA and the other fields say */
	{ XT_X_CORE, BOTH, "FORMAT UNIT", OP(0x04, 6, 0x00, 0x00, 0x00, 0x00, 0x00) },
	{ XT_X_CORE, BOTH, "READ(6)", OP(0x08, 6, 0x1F, FF, FF, FF, 0x00) },
	{ XT_X_CORE, BOTH, "WRITE(6)", OP(0x0A, 6, 0x1F, FF, FF, FF, 0x00) },
	{ XT_X_INQUIRY, ENG, "INQUIRY", OP(0x12, 6, 0x01, FF, FF, FF, 0x00) },
	{ XT_X_CORE, CORE, "INQUIRY", OP(0x12, 6, 0x01, FF, FF, FF, 0x00) },
	/* PF must be 1 (evaluated), SP must be 0 */
	{ XT_X_CORE, BOTH, "MODE SELECT(6)", OP(0x15, 6, 0x10, 0x00, 0x00, FF, 0x00) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "RESERVE(6)", OP(0x16, 6, 0x00, 0x00, 0x00, 0x00, 0x00) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "RELEASE(6)", OP(0x17, 6, 0x00, 0x00, 0x00, 0x00, 0x00) },
	/* PAGE CODE + SUBPAGE CODE + ALLOCATION LENGTH; DBD and PC are ignored */
	{ XT_X_CORE, BOTH, "MODE SENSE(6)", OP(0x1A, 6, 0x00, 0x3F, FF, FF, 0x00) },
	/* START must be 1, POWER CONDITION 0; IMMED, LOEJ ignored */
	{ XT_X_CORE, BOTH, "START STOP UNIT", OP(0x1B, 6, 0x00, 0x00, 0x00, 0x01, 0x00) },
	{ XT_X_CORE, BOTH, "READ CAPACITY(10)",
	  OP(0x25, 10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00) },
	{ XT_X_CORE, BOTH, "READ(10)", OP(0x28, 10, 0x00, RW10) },
	{ XT_X_CORE, BOTH, "WRITE(10)", OP(0x2A, 10, 0x00, RW10) },
	{ XT_X_CORE, BOTH, "WRITE AND VERIFY(10)", OP(0x2E, 10, 0x00, RW10) },
	/* the core flushes the whole file: LBA, NUMBER OF BLOCKS, IMMED ignored */
	{ XT_X_CORE, BOTH, "SYNCHRONIZE CACHE(10)",
	  OP(0x35, 10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00) },
	{ XT_X_WSAME, BOTH, "WRITE SAME(10)", OP(0x41, 10, 0x08, RW10) },
	/* ANCHOR must be 0 */
	{ XT_X_CORE, BOTH, "UNMAP", OP(0x42, 10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, FF, FF, 0x00) },
	{ XT_X_CORE, BOTH, "MODE SELECT(10)",
	  OP(0x55, 10, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, FF, FF, 0x00) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "RESERVE(10)",
	  OP(0x56, 10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "RELEASE(10)",
	  OP(0x57, 10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00) },
	{ XT_X_CORE, BOTH, "MODE SENSE(10)",
	  OP(0x5A, 10, 0x00, 0x3F, FF, 0x00, 0x00, 0x00, FF, FF, 0x00) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR IN READ KEYS", OPSA(0x5E, 0x00, 10, 0x00, PRIN) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR IN READ RESERVATION", OPSA(0x5E, 0x01, 10, 0x00, PRIN) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR IN REPORT CAPABILITIES",
	  OPSA(0x5E, 0x02, 10, 0x00, PRIN) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR IN READ FULL STATUS", OPSA(0x5E, 0x03, 10, 0x00, PRIN) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT REGISTER", OPSA(0x5F, 0x00, 10, 0x00, PROUT) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT RESERVE", OPSA(0x5F, 0x01, 10, 0x00, PROUT) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT RELEASE", OPSA(0x5F, 0x02, 10, 0x00, PROUT) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT CLEAR", OPSA(0x5F, 0x03, 10, 0x00, PROUT) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT PREEMPT", OPSA(0x5F, 0x04, 10, 0x00, PROUT) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT PREEMPT AND ABORT", OPSA(0x5F, 0x05, 10, 0x00, PROUT) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT REGISTER AND IGNORE EXISTING KEY",
	  OPSA(0x5F, 0x06, 10, 0x00, PROUT) },
	{ XT_X_KERNEL, BOTH | XT_W_PR, "PR OUT REGISTER AND MOVE", OPSA(0x5F, 0x07, 10, 0x00, PROUT) },
	/* EXTENDED COPY: PARAMETER LIST LENGTH bytes 10-13 */
	{ XT_X_XCOPY, ENG, "EXTENDED COPY(LID1)", OPSA(0x83, 0x00, 16, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
							  FF, FF, FF, FF, 0x00, 0x00) },
	{ XT_X_CORE, CORE, "EXTENDED COPY(LID1)", OPSA(0x83, 0x00, 16, 0x00, 0, 0, 0, 0, 0, 0, 0,
							  0, FF, FF, FF, FF, 0x00, 0x00) },
	{ XT_X_XCOPY, ENG, "EXTENDED COPY(LID4)", OPSA(0x83, 0x01, 16, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
							  FF, FF, FF, FF, 0x00, 0x00) },
	/* POPULATE TOKEN / WRITE USING TOKEN: LIST IDENTIFIER 6-9, PARAMETER LIST LENGTH 10-13 */
	{ XT_X_XCOPY, ENG, "POPULATE TOKEN", OPSA(0x83, 0x10, 16, 0x00, 0, 0, 0, 0, FF, FF, FF, FF,
						     FF, FF, FF, FF, 0x00, 0x00) },
	{ XT_X_XCOPY, ENG, "WRITE USING TOKEN", OPSA(0x83, 0x11, 16, 0x00, 0, 0, 0, 0, FF, FF, FF,
							FF, FF, FF, FF, FF, 0x00, 0x00) },
	/* COPY OPERATION ABORT: LIST IDENTIFIER bytes 2-5 */
	{ XT_X_XCOPY, ENG, "COPY OPERATION ABORT", OPSA(0x83, 0x1C, 16, 0x00, FF, FF, FF, FF, 0, 0,
							  0, 0, 0, 0, 0, 0, 0x00, 0x00) },
	{ XT_X_RCR, ENG, "RECEIVE COPY STATUS(LID1)", OPSA(0x84, 0x00, 16, 0x00, RCR_ID) },
	{ XT_X_RCR, ENG, "RECEIVE COPY DATA(LID1)", OPSA(0x84, 0x01, 16, 0x00, RCR_ID) },
	{ XT_X_RCR, ENG, "RECEIVE COPY OPERATING PARAMETERS", OPSA(0x84, 0x03, 16, 0x00, RCR_NOID) },
	{ XT_X_CORE, CORE, "RECEIVE COPY OPERATING PARAMETERS", OPSA(0x84, 0x03, 16, 0x00, RCR_NOID) },
	{ XT_X_RCR, ENG, "RECEIVE COPY FAILURE DETAILS(LID1)", OPSA(0x84, 0x04, 16, 0x00, RCR_ID) },
	/* RECEIVE COPY STATUS(LID4): LIST IDENTIFIER bytes 2-5, ALLOCATION LENGTH 10-13 */
	{ XT_X_RCR, ENG, "RECEIVE COPY STATUS(LID4)", OPSA(0x84, 0x05, 16, 0x00, FF, FF, FF, FF, 0,
							  0, 0, 0, FF, FF, FF, FF, 0x00, 0x00) },
	/* RECEIVE ROD TOKEN INFORMATION: LIST IDENTIFIER 2-5, ALLOCATION LENGTH 10-13 */
	{ XT_X_RCR, ENG, "RECEIVE ROD TOKEN INFORMATION", OPSA(0x84, 0x07, 16, 0x00, FF, FF, FF, FF,
								0, 0, 0, 0, FF, FF, FF, FF, 0x00,
								0x00) },
	{ XT_X_RCR, ENG, "REPORT ALL ROD TOKENS", OPSA(0x84, 0x08, 16, 0x00, RCR_NOID) },
	{ XT_X_CORE, BOTH, "READ(16)", OP(0x88, 16, 0x00, RW16) },
	/* NUMBER OF LOGICAL BLOCKS is byte 13 */
	{ XT_X_CORE, BOTH, "COMPARE AND WRITE",
	  OP(0x89, 16, 0x00, FF, FF, FF, FF, FF, FF, FF, FF, 0x00, 0x00, 0x00, FF, 0x00, 0x00) },
	{ XT_X_CORE, BOTH, "WRITE(16)", OP(0x8A, 16, 0x00, RW16) },
	{ XT_X_CORE, BOTH, "WRITE AND VERIFY(16)", OP(0x8E, 16, 0x00, RW16) },
	{ XT_X_CORE, BOTH, "SYNCHRONIZE CACHE(16)",
	  OP(0x91, 16, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00) },
	{ XT_X_WSAME, BOTH, "WRITE SAME(16)", OP(0x93, 16, 0x08, RW16) },
	/* ALLOCATION LENGTH bytes 10-13; LBA and PMI ignored */
	{ XT_X_CORE, BOTH, "READ CAPACITY(16)", OPSA(0x9E, 0x10, 16, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
						      FF, FF, FF, FF, 0x00, 0x00) },
	{ XT_X_KERNEL, BOTH, "REPORT LUNS",
	  OP(0xA0, 12, 0x00, FF, 0x00, 0x00, 0x00, FF, FF, FF, FF, 0x00, 0x00) },
	/* PARAMETER DATA FORMAT (bits 7:5): the core has the extended header */
	{ XT_X_CORE, BOTH | XT_W_ALUA, "REPORT TARGET PORT GROUPS",
	  OPSA(0xA3, 0x0A, 12, 0xE0, 0x00, 0x00, 0x00, 0x00, FF, FF, FF, FF, 0x00, 0x00) },
	/* RCTD + REPORTING OPTIONS, REQUESTED OPCODE / SA, ALLOCATION LENGTH */
	{ XT_X_RSOC, BOTH, "REPORT SUPPORTED OPERATION CODES",
	  OPSA(0xA3, 0x0C, 12, 0x00, 0x87, FF, FF, FF, FF, FF, FF, FF, 0x00, 0x00) },
	{ XT_X_CORE, BOTH | XT_W_ALUA, "SET TARGET PORT GROUPS",
	  OPSA(0xA4, 0x0A, 12, 0x00, 0x00, 0x00, 0x00, 0x00, FF, FF, FF, FF, 0x00, 0x00) },
	{ XT_X_CORE, BOTH, "READ(12)", OP(0xA8, 12, 0x00, RW12) },
	{ XT_X_CORE, BOTH, "WRITE(12)", OP(0xAA, 12, 0x00, RW12) },
};

#define NCMDS (sizeof(g_cmds) / sizeof(g_cmds[0]))

const struct xt_cmd *
xt_cmds(size_t *n)
{
	*n = NCMDS;
	return g_cmds;
}

static bool
mode_ok(const struct xt_cmd *c, const struct xt_lu_state *s)
{
	return (c->when & (s->engine ? XT_W_ENGINE : XT_W_CORE)) != 0;
}

bool
xt_cmd_served(const struct xt_cmd *c, const struct xt_lu_state *s)
{
	return mode_ok(c, s) && ((c->when & XT_W_ALUA) == 0 || s->alua) &&
	       ((c->when & XT_W_PR) == 0 || s->pr);
}

const struct xt_cmd *
xt_cmd_lookup(const struct xt_lu_state *s, const uint8_t *cdb, const struct xt_cmd **same_op)
{
	const struct xt_cmd *other = NULL;
	size_t i;

	for (i = 0; i < NCMDS; i++) {
		const struct xt_cmd *c = &g_cmds[i];

		if (c->d.opcode != cdb[0] || !mode_ok(c, s)) {
			continue;
		}
		/* service actions are in CDB byte 1 bits 4:0 for every opcode listed */
		if (!c->d.sa_valid || c->d.sa == (cdb[1] & 0x1F)) {
			return c;
		}
		other = c;
	}
	if (same_op != NULL) {
		*same_op = other;
	}
	return NULL;
}

size_t
xt_cmd_list(const struct xt_lu_state *s, const struct xcm_opcode_desc **list, size_t cap)
{
	size_t i, n = 0;

	for (i = 0; i < NCMDS && n < cap; i++) {
		if (xt_cmd_served(&g_cmds[i], s)) {
			list[n++] = &g_cmds[i].d;
		}
	}
	return n;
}

enum xcm_status
xt_rsoc(const struct xt_lu_state *s, const uint8_t *cdb, uint8_t *buf, size_t cap,
	size_t *stored, struct xcm_err *err)
{
	const struct xcm_opcode_desc *list[NCMDS];
	struct xcm_rsoc_req req;
	struct xcm_wbuf w;
	enum xcm_status st;
	size_t n;

	*stored = 0;
	st = xcm_rsoc_cdb_check(cdb, XCM_RSOC_CDB_LEN, &req, err);
	if (st != XCM_OK) {
		return st;
	}
	n = xt_cmd_list(s, list, NCMDS);
	w = xcm_wbuf_make(buf, req.alloc_len < cap ? req.alloc_len : cap);
	st = xcm_rsoc_encode(&req, list, n, &w, err);
	if (st == XCM_OK) {
		*stored = xcm_wbuf_stored(&w);
	}
	return st;
}

int
xt_cmds_check(size_t *bad)
{
	size_t i;

	for (i = 0; i < NCMDS; i++) {
		const struct xcm_opcode_desc *d = &g_cmds[i].d, *p = &g_cmds[i - (i > 0)].d;

		*bad = i;
		if (xcm_opcode_desc_check(d) != 0 || (g_cmds[i].when & XT_W_MODES) == 0) {
			return -EINVAL;
		}
		if (i == 0) {
			continue;
		}
		/* ascending; one opcode is either with or without service actions */
		if (p->opcode > d->opcode || (p->opcode == d->opcode && p->sa_valid != d->sa_valid)) {
			return -EINVAL;
		}
		/* the same (opcode, SA) twice only for rows of different modes */
		if (p->opcode == d->opcode && p->sa > d->sa) {
			return -EINVAL;
		}
		if (p->opcode == d->opcode && p->sa == d->sa &&
		    (g_cmds[i - 1].when & g_cmds[i].when & XT_W_MODES) != 0) {
			return -EINVAL;
		}
	}
	return 0;
}
