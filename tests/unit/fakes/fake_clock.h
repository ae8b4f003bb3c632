/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A clock the target/ suites drive: the unit binary is linked with
 * -Wl,--wrap=xos_now_ms (tests/tests.mk), so every call of xos_now_ms from
 * another object (tokens.c's expiry, held.c's store clock) comes here. It
 * reads the real clock until a suite freezes it, and again after
 * ut_clock_real(): the other suites see no difference.
 */
#ifndef UT_FAKE_CLOCK_H
#define UT_FAKE_CLOCK_H

#include <stdint.h>

/* From now on xos_now_ms() returns ms until advanced or released. */
void ut_clock_freeze(uint64_t ms);
/* Move the frozen clock forward by ms. */
void ut_clock_advance(uint64_t ms);
/* Back to CLOCK_MONOTONIC. */
void ut_clock_real(void);

#endif
