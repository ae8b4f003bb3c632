/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/base/naa.c: the NAA 6 designator LIO and tcmu-runner derive from the
 * unit serial: 6h, company id 00-14-05, then the serial's hex digits packed
 * from the low nibble of byte 3; other characters are skipped and digits
 * past the 25th are dropped. Expected bytes are written out by hand.
 */
#include <string.h>

#include "target_stubs.h"
#include "ut.h"

static void
naa_digits_packed(void)
{
	static const uint8_t want[16] = { 0x60, 0x01, 0x40, 0x50, 0x12, 0x34, 0x56, 0x78,
					  0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78 };
	uint8_t naa[16];

	/* 26 digits: the 26th ('9') does not fit */
	xt_naa_from_serial("0123456789abcdef0123456789", naa);
	CU_ASSERT_EQUAL(memcmp(naa, want, 16), 0);
}

static void
naa_uuid_dashes_skipped_case_ignored(void)
{
	static const uint8_t want[16] = { 0x60, 0x01, 0x40, 0x5a, 0xbc, 0xde, 0xf0, 0x12,
					  0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12 };
	uint8_t a[16], b[16];

	/* targetcli's serials are UUIDs: the dashes are not digits */
	xt_naa_from_serial("ABCDEF01-2345-6789-abcd-ef0123456789", a);
	CU_ASSERT_EQUAL(memcmp(a, want, 16), 0);
	xt_naa_from_serial("abcdef0123456789ABCDEF0123", b);
	CU_ASSERT_EQUAL(memcmp(a, b, 16), 0);
}

static void
naa_short_and_empty(void)
{
	static const uint8_t empty[16] = { 0x60, 0x01, 0x40, 0x50 };
	static const uint8_t two[16] = { 0x60, 0x01, 0x40, 0x57, 0xa0 };
	uint8_t naa[16];

	memset(naa, 0xEE, sizeof(naa));
	xt_naa_from_serial("", naa);
	CU_ASSERT_EQUAL(memcmp(naa, empty, 16), 0);
	xt_naa_from_serial("x7-A", naa);
	CU_ASSERT_EQUAL(memcmp(naa, two, 16), 0);
}

/* Serials alike in their first 25 hex digits give one NAA (why twins are refused). */
static void
naa_twins_past_25_digits(void)
{
	uint8_t a[16], b[16];

	xt_naa_from_serial("00000000000000000000000001", a);
	xt_naa_from_serial("00000000000000000000000002", b);
	CU_ASSERT_EQUAL(memcmp(a, b, 16), 0);
	xt_naa_from_serial("0000000000000000000000001", b);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, 16), 0);
}

static CU_TestInfo g_tests[] = {
	{ "digits_packed", naa_digits_packed },
	{ "uuid_dashes_skipped_case_ignored", naa_uuid_dashes_skipped_case_ignored },
	{ "short_and_empty", naa_short_and_empty },
	{ "twins_past_25_digits", naa_twins_past_25_digits },
	CU_TEST_INFO_NULL,
};
UT_SUITE(target_naa, g_tests)
