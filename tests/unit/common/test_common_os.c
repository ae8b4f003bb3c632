/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* common/clock.c (xos_now_ns, xos_now_ms) and common/why.c (xos_why_set). */
#include <string.h>
#include <time.h>

#include "fake_clock.h"
#include "ut.h"
#include "xos.h"

/* CLOCK_MONOTONIC in ns, never backwards; the ms clock is the same clock / 10^6. */
static void
clock_monotonic_ns_ms(void)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };   /* 2 ms */
	uint64_t a, b, ms;

	ut_clock_real();   /* xos_now_ms is wrapped by fake_clock.c: the real one */
	a = xos_now_ns();
	ms = xos_now_ms();
	nanosleep(&ts, NULL);
	b = xos_now_ns();
	CU_ASSERT_TRUE(b >= a + 2000000u);
	CU_ASSERT_TRUE(ms >= a / 1000000u && ms <= b / 1000000u);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	CU_ASSERT_TRUE((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec >= b);
}

/* Formatted, cut to whylen with a NUL; whylen 0 writes nothing. */
static void
why_truncates_and_skips(void)
{
	char why[8];

	memset(why, 'x', sizeof(why));
	xos_why_set(why, sizeof(why), "%s=%d", "clone", 12345);
	CU_ASSERT_STRING_EQUAL(why, "clone=1");
	xos_why_set(why, 4, "%d", 9);
	CU_ASSERT_STRING_EQUAL(why, "9");
	memset(why, 'x', sizeof(why));
	xos_why_set(why, 0, "%d", 1);
	CU_ASSERT_EQUAL(why[0], 'x');
}

static CU_TestInfo g_tests[] = {
	{ "clock_monotonic_ns_ms", clock_monotonic_ns_ms },
	{ "why_truncates_and_skips", why_truncates_and_skips },
	CU_TEST_INFO_NULL,
};
UT_SUITE(common_os, g_tests)
