/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The drivable xos_now_ms of the unit binary (fake_clock.h). */
#include <stdatomic.h>
#include <stdbool.h>

#include "fake_clock.h"

uint64_t __real_xos_now_ms(void);
uint64_t __wrap_xos_now_ms(void);

/* read by the token table's expiry thread too */
static atomic_bool g_frozen;
static atomic_uint_fast64_t g_now;

uint64_t
__wrap_xos_now_ms(void)
{
	return atomic_load(&g_frozen) ? (uint64_t)atomic_load(&g_now) : __real_xos_now_ms();
}

void
ut_clock_freeze(uint64_t ms)
{
	atomic_store(&g_now, ms);
	atomic_store(&g_frozen, true);
}

void
ut_clock_advance(uint64_t ms)
{
	atomic_fetch_add(&g_now, ms);
}

void
ut_clock_real(void)
{
	atomic_store(&g_frozen, false);
}
