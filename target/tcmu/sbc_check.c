/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CDB field checks that tcmu-runner 1.5.4's core does not make for the
 * block commands it executes through our callouts (its tcmur_cmd_handler.c
 * command table). handle_cmd runs them before it returns TCMU_STS_NOT_HANDLED
 * (the runner's core then executes the CDB), so a CDB the core
 * would silently misexecute ends in ILLEGAL REQUEST, INVALID FIELD IN CDB
 * (24/00) with a field pointer to the offending bit instead.
 *
 * What the LU advertises, and so what is checked:
 *  - no protection information (standard INQUIRY PROTECT=0, READ CAPACITY(16)
 *    PROT_EN=0): RDPROTECT / WRPROTECT != 0 is an error (SBC-3 4.22.2,
 *    tables "RDPROTECT field", "WRPROTECT field": "if the logical unit does
 *    not support protection information ... shall be terminated ... INVALID
 *    FIELD IN CDB");
 *  - DPOFUA = 0 in the MODE SENSE device-specific parameter (the core's):
 *    the device server does not support the DPO and FUA bits (SBC-3 6.4.1),
 *    so a CDB that sets them is rejected, as LIO does for a device without
 *    emulate_fua_write / emulate_dpo;
 *  - no ANC_SUP in VPD B2h: WRITE SAME with ANCHOR = 1 is an error, whether
 *    UNMAP is 0 (SBC-3 5.42: always invalid) or 1 (ANC_SUP = 0);
 *  - WRITE SAME PBDATA / LBDATA (SBC-3 5.42, obsolete in SBC-4) and NDOB
 *    (SBC-4 5.48) are not implemented by the core, which would write the
 *    block unchanged or read a data-out buffer that is not there.
 * COMPARE AND WRITE's length, capacity and data-out checks are the core's
 * (it refuses more than MAXIMUM COMPARE AND WRITE LENGTH = 1 block).
 */
#include <string.h>

#include "tcmu/handler.h"

/* CDB byte 1 of the commands checked (SBC-3 5.x) */
#define B1_PROTECT_MASK 0xE0u   /* RDPROTECT / WRPROTECT, bits 7..5 */
#define B1_PROTECT_MSB 7
#define B1_DPO 4
#define B1_FUA 3
#define B1_WS_ANCHOR 4
#define B1_WS_PBDATA 2
#define B1_WS_LBDATA 1
#define B1_WS16_NDOB 0

enum {
	CHK_PROTECT = 1u << 0,   /* RDPROTECT / WRPROTECT must be 000b */
	CHK_DPO = 1u << 1,
	CHK_FUA = 1u << 2,
	CHK_WS = 1u << 3,        /* ANCHOR, PBDATA, LBDATA */
	CHK_NDOB = 1u << 4,      /* WRITE SAME(16) only */
};

struct op_rule {
	uint8_t op;
	uint8_t checks;
};

/*
 * Only opcodes the core executes: the core answers the others (VERIFY,
 * WRITE AND VERIFY(12), ...) with INVALID COMMAND OPERATION CODE, which
 * SPC-4 puts before any field check.
 */
static const struct op_rule g_rules[] = {
	{ 0x28, CHK_PROTECT | CHK_DPO | CHK_FUA },   /* READ(10) */
	{ 0xA8, CHK_PROTECT | CHK_DPO | CHK_FUA },   /* READ(12) */
	{ 0x88, CHK_PROTECT | CHK_DPO | CHK_FUA },   /* READ(16) */
	{ 0x2A, CHK_PROTECT | CHK_DPO | CHK_FUA },   /* WRITE(10) */
	{ 0xAA, CHK_PROTECT | CHK_DPO | CHK_FUA },   /* WRITE(12) */
	{ 0x8A, CHK_PROTECT | CHK_DPO | CHK_FUA },   /* WRITE(16) */
	{ 0x89, CHK_PROTECT | CHK_DPO | CHK_FUA },   /* COMPARE AND WRITE */
	/* WRITE AND VERIFY: byte 1 bit 3 is reserved there, not FUA (SBC-3 5.36) */
	{ 0x2E, CHK_PROTECT | CHK_DPO },             /* WRITE AND VERIFY(10) */
	{ 0x8E, CHK_PROTECT | CHK_DPO },             /* WRITE AND VERIFY(16) */
	{ 0x41, CHK_PROTECT | CHK_WS },              /* WRITE SAME(10) */
	{ 0x93, CHK_PROTECT | CHK_WS | CHK_NDOB },   /* WRITE SAME(16) */
};

static const struct op_rule *
rule_of(uint8_t op)
{
	size_t i;

	for (i = 0; i < sizeof(g_rules) / sizeof(g_rules[0]); i++) {
		if (g_rules[i].op == op) {
			return &g_rules[i];
		}
	}
	return NULL;
}

/* ILLEGAL REQUEST, INVALID FIELD IN CDB, field pointer CDB byte 1 bit `bit` */
static int
invalid_bit(uint8_t bit, uint8_t *sense, size_t cap)
{
	struct xcm_err err;

	memset(&err, 0, sizeof(err));
	xcm_err_set_field(&err, XCM_E_INVALID_FIELD_CDB, true, 1, bit);
	memset(sense, 0, cap);
	xcm_sense_build(&err, false, sense, cap);
	return TCMU_STS_PASSTHROUGH_ERR;
}

int
xt_sbc_check(const uint8_t *cdb, uint8_t *sense, size_t cap)
{
	const struct op_rule *r = rule_of(cdb[0]);
	uint8_t b1;

	if (r == NULL) {
		return TCMU_STS_NOT_HANDLED;
	}
	b1 = cdb[1];
	/* SBC-3 4.22.2: protection fields on a LU without protection information */
	if ((r->checks & CHK_PROTECT) != 0 && (b1 & B1_PROTECT_MASK) != 0) {
		return invalid_bit(B1_PROTECT_MSB, sense, cap);
	}
	/* SBC-3 6.4.1: DPOFUA = 0, the DPO and FUA bits are not supported */
	if ((r->checks & CHK_DPO) != 0 && (b1 & (1u << B1_DPO)) != 0) {
		return invalid_bit(B1_DPO, sense, cap);
	}
	if ((r->checks & CHK_FUA) != 0 && (b1 & (1u << B1_FUA)) != 0) {
		return invalid_bit(B1_FUA, sense, cap);
	}
	if ((r->checks & CHK_WS) != 0) {
		/* SBC-3 5.42: ANCHOR = 1 with UNMAP = 0, or with ANC_SUP = 0 */
		if ((b1 & (1u << B1_WS_ANCHOR)) != 0) {
			return invalid_bit(B1_WS_ANCHOR, sense, cap);
		}
		/* SBC-3 5.42: PBDATA / LBDATA not implemented by the core */
		if ((b1 & (1u << B1_WS_PBDATA)) != 0) {
			return invalid_bit(B1_WS_PBDATA, sense, cap);
		}
		if ((b1 & (1u << B1_WS_LBDATA)) != 0) {
			return invalid_bit(B1_WS_LBDATA, sense, cap);
		}
	}
	/* SBC-4 5.48: NDOB (no data-out buffer) not implemented by the core */
	if ((r->checks & CHK_NDOB) != 0 && (b1 & (1u << B1_WS16_NDOB)) != 0) {
		return invalid_bit(B1_WS16_NDOB, sense, cap);
	}
	return TCMU_STS_NOT_HANDLED;
}
