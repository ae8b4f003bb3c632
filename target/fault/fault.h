/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection for reliability tests (fault.c): cfgstring fault= and
 * the control file STATSDIR/<name>.fault arm a fault on a LU's store I/O.
 */
#ifndef TARGET_FAULT_H
#define TARGET_FAULT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/lu.h"

/* Parse "KIND:N" or "off". 0, or -EINVAL with a reason in why. */
int xt_fault_parse(const char *val, struct xt_fault_spec *out, char *why, size_t whylen);
const char *xt_fault_kind_name(enum xt_fault_kind k);
/* Registry hooks: arm lu->cfg.fault at open; forget the LU at close. */
void xt_fault_lu_add(const struct xcm_lu *lu);
void xt_fault_lu_remove(const struct xcm_lu *lu);
/* (Re)arm from the control file STATSDIR/<name>.fault, if present (removes it). */
void xt_fault_poll(const struct xcm_lu *lu);
/* An armed fault not yet fired on lu: copies must take the pread/pwrite path. */
bool xt_fault_active(const struct xcm_lu *lu);
/*
 * Before one pread (write false) or pwrite of *len bytes on lu's backing
 * file: 0 to go on (*len may have been shortened), or -errno to fail it.
 */
int xt_fault_io(const struct xcm_lu *lu, bool write, size_t *len);

#endif /* TARGET_FAULT_H */
