/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* xos_why_set: the message buffer of functions that explain a refusal. */
#include <stdarg.h>
#include <stdio.h>

#include "xos.h"

void
xos_why_set(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (whylen > 0) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
}
