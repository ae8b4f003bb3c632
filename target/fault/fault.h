/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection for reliability tests: the fault store (fault_store.c)
 * wraps a LU's store when the one switch is on (XCOPY_FAULT_CONTROL=1,
 * base/env.c); cfgstring fault= and the control file STATSDIR/<name>.fault
 * arm a fault on the copies' I/O of that LU (fault.c).
 */
#ifndef TARGET_FAULT_H
#define TARGET_FAULT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/lu.h"

/*
 * fault_store.c: the fault store around inner (one per inner store, made
 * once): inner's ops and capabilities, with fault= taken out of the
 * cfgstring, the fault armed at open, and the copies' I/O (copy op, io of
 * a copy) failing, short or delayed as armed. store/store.c puts it under
 * every LU while fault injection is on.
 */
const struct xt_store_ops *xt_store_faulty(const struct xt_store_ops *inner);

/* ---- fault.c, for fault_store.c and the unit tests ---------------------- */

/* Parse "KIND:N" or "off". 0, or -EINVAL with a reason in why. */
int xt_fault_parse(const char *val, struct xt_fault_spec *out, char *why, size_t whylen);
const char *xt_fault_kind_name(enum xt_fault_kind k);
/* Arm lu->cfg.fault (open); forget the LU (close). */
void xt_fault_lu_add(const struct xt_lu *lu);
void xt_fault_lu_remove(const struct xt_lu *lu);
/* (Re)arm from the control file STATSDIR/<name>.fault, if present (removes it). */
void xt_fault_poll(const struct xt_lu *lu);
/* xt_fault_poll, once per copy (copy_id, struct xt_copy's id) and LU. */
void xt_fault_poll_once(const struct xt_lu *lu, uint64_t copy_id);
/* An armed fault not yet fired on lu (the fault store counts its copies' calls). */
bool xt_fault_active(const struct xt_lu *lu);
/*
 * Would the next calls reads (write false) or writes on lu fire its armed
 * fault (not a delay)? Nothing is counted: the fault store asks before a
 * merged run, which it declines if so.
 */
bool xt_fault_fires_in(const struct xt_lu *lu, bool write, uint32_t calls);
/*
 * Before one read (write false) or write of *len bytes on lu's store: 0 to
 * go on (*len may have been shortened; *delay_ms: sleep that long first),
 * or -errno to fail it.
 */
int xt_fault_gate(const struct xt_lu *lu, bool write, size_t *len, uint32_t *delay_ms);

#endif /* TARGET_FAULT_H */
