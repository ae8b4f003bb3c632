/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the libFuzzer targets: a failed property check ends the run. */
#ifndef XCOPY_TESTS_FUZZ_H
#define XCOPY_TESTS_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

/* Print which target and which property failed, then abort() for libFuzzer to catch. */
static inline _Noreturn void
fuzz_die(const char *target, const char *what)
{
	fprintf(stderr, "%s: %s\n", target, what);
	abort();
}

#endif
