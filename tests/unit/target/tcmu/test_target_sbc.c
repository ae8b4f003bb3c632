/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/tcmu/sbc_check.c: CDB bits tcmu-runner's core would ignore on the block
 * commands it executes. A set bit gives ILLEGAL REQUEST 24/00 with the
 * field pointer at CDB byte 1 and the bit; the sense is decoded through the
 * engine, not read by byte index.
 */
#include <string.h>

#include "target_stubs.h"
#include "ut.h"

/* op with byte 1 = b1: expect NOT_HANDLED (bit < 0) or 24/00 at byte 1 bit `bit`. */
static void
expect(uint8_t op, uint8_t b1, int bit)
{
	uint8_t cdb[16] = { op, b1 }, sense[32];
	struct xcm_sks_ptr f;
	struct xcm_sense s;
	int rc = xt_sbc_check(cdb, sense, sizeof(sense));

	if (bit < 0) {
		CU_ASSERT_EQUAL(rc, TCMU_STS_NOT_HANDLED);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(rc, TCMU_STS_PASSTHROUGH_ERR);
	CU_ASSERT_EQUAL_FATAL(xcm_sense_parse(xcm_span_make(sense, sizeof(sense)), &s), 0);
	CU_ASSERT_EQUAL(s.key, XCM_SK_ILLEGAL_REQUEST);
	CU_ASSERT_EQUAL(s.asc_ascq, XCM_ASC_INVALID_FIELD_IN_CDB);
	CU_ASSERT_TRUE_FATAL(xcm_sense_sks_ptr(&s, &f));
	CU_ASSERT_TRUE(f.in_cdb);
	CU_ASSERT_EQUAL(f.field, 1);
	CU_ASSERT_TRUE(f.bit_valid);
	CU_ASSERT_EQUAL(f.bit, bit);
}

static void
sbc_reads_writes(void)
{
	static const uint8_t ops[] = { 0x28, 0xA8, 0x88, 0x2A, 0xAA, 0x8A, 0x89 };
	size_t i;

	for (i = 0; i < sizeof(ops); i++) {
		expect(ops[i], 0x00, -1);
		expect(ops[i], 0x20, 7);    /* RD/WRPROTECT 001b */
		expect(ops[i], 0xE0, 7);
		expect(ops[i], 0x10, 4);    /* DPO */
		expect(ops[i], 0x08, 3);    /* FUA */
		expect(ops[i], 0x02, -1);   /* byte 1 bit 1 is not checked here */
	}
}

static void
sbc_write_and_verify_bit3_not_fua(void)
{
	expect(0x2E, 0x08, -1);
	expect(0x8E, 0x08, -1);
	expect(0x2E, 0x10, 4);
	expect(0x8E, 0x40, 7);
}

static void
sbc_write_same(void)
{
	expect(0x41, 0x00, -1);
	expect(0x41, 0x10, 4);     /* ANCHOR */
	expect(0x41, 0x04, 2);     /* PBDATA */
	expect(0x41, 0x02, 1);     /* LBDATA */
	expect(0x41, 0x01, -1);    /* NDOB exists in WRITE SAME(16) only */
	expect(0x93, 0x01, 0);     /* NDOB */
	expect(0x93, 0x08, -1);    /* UNMAP is the core's */
	expect(0x93, 0x14, 4);     /* ANCHOR reported before PBDATA */
}

static void
sbc_other_opcodes_untouched(void)
{
	expect(0x00, 0xFF, -1);   /* TEST UNIT READY */
	expect(0x12, 0xFF, -1);   /* INQUIRY */
	expect(0x35, 0xFF, -1);   /* SYNCHRONIZE CACHE(10) */
	expect(0x83, 0xFF, -1);   /* EXTENDED COPY: the engine's */
}

static void
sbc_sense_cut_at_cap(void)
{
	uint8_t cdb[16] = { 0x28, 0x10 }, sense[8];

	memset(sense, 0xEE, sizeof(sense));
	CU_ASSERT_EQUAL(xt_sbc_check(cdb, sense, sizeof(sense)), TCMU_STS_PASSTHROUGH_ERR);
	CU_ASSERT_EQUAL(sense[0], 0x70);
	CU_ASSERT_EQUAL(sense[2], XCM_SK_ILLEGAL_REQUEST);
}

static CU_TestInfo g_tests[] = {
	{ "reads_writes", sbc_reads_writes },
	{ "write_and_verify_bit3_not_fua", sbc_write_and_verify_bit3_not_fua },
	{ "write_same", sbc_write_same },
	{ "other_opcodes_untouched", sbc_other_opcodes_untouched },
	{ "sense_cut_at_cap", sbc_sense_cut_at_cap },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_sbc, g_tests)
