/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one clock of host/ and target/: CLOCK_MONOTONIC (see xos.h). */
#include <time.h>

#include "xos.h"

uint64_t
xos_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
xos_now_ms(void)
{
	return xos_now_ns() / 1000000u;
}
