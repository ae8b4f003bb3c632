/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The null store: a LU of SIZE bytes with no medium (xcopy/null/SIZE).
 * READ returns zeros from memory, WRITE discards, flush and unmap do
 * nothing. What is left of a command's time is TCMU's and the plugin's own:
 * the floor the bench's `io` phase measures the other stores against.
 */
#ifndef TARGET_STORE_NULL_H
#define TARGET_STORE_NULL_H

#include <stddef.h>
#include <stdint.h>

#include "base/lu.h"

/* what follows "SUBTYPE/" (xcopy/null/SIZE by default: base/env.c, xt_cfg_body) */
#define XT_NULL_PREFIX "null/"

extern const struct xt_store_ops xt_store_null;

/*
 * SIZE of a null cfgstring's tail (what follows "xcopy/null/"): decimal
 * bytes, or with one suffix K, M, G or T (powers of 1024); above 0, a
 * multiple of 512, at most 2^62; no options (no '?'). 0, or -EINVAL with a
 * reason in why (NUL-terminated when whylen > 0; *size untouched).
 */
int xt_null_size_parse(const char *spec, uint64_t *size, char *why, size_t whylen);

#endif /* TARGET_STORE_NULL_H */
