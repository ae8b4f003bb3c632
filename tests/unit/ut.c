/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>

#include "ut.h"

void
ut_expect_err(const char *file, int line, enum xcm_status st, const struct xcm_err *err,
	      enum xcm_status exp_st, long exp_field)
{
	const struct xcm_status_info *a = xcm_status_info(st);
	const struct xcm_status_info *e = xcm_status_info(exp_st);
	bool ok = st == exp_st && err->status == st;

	if (exp_field < 0) {
		ok = ok && !err->sks_valid;
	} else {
		ok = ok && err->sks_valid && err->field == (uint32_t)exp_field;
	}
	if (!ok) {
		fprintf(stderr, "\n%s:%d: expected %s (%x %04x) field %ld, got %s (%x %04x) "
			"sks_valid %d field %" PRIu32 "\n", file, line, e->name, e->key,
			e->asc_ascq, exp_field, a->name, a->key, a->asc_ascq, err->sks_valid,
			err->field);
	}
	CU_assertImplementation(ok, (unsigned)line, "UT_EXPECT_ERR", file, "", CU_FALSE);
}

uint64_t
ut_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

void
ut_hexdump(FILE *f, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++) {
		fprintf(f, "%02x%s", b[i], (i % 16 == 15 || i + 1 == len) ? "\n" : " ");
	}
}
