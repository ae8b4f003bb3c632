/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RBD store (store_rbd.c): LUs backed by an RBD image
 * (xcopy/rbd/POOL/IMAGE); without librbd it refuses RBD cfgstrings.
 * rbd_image.h is the image layer under it.
 */
#ifndef TARGET_STORE_RBD_H
#define TARGET_STORE_RBD_H

#include <stdint.h>

#include "base/lu.h"

extern const struct xt_store_ops xt_store_rbd;

/*
 * store_rbd.c: the calling thread's copy deadline (xos_now_ms() clock, 0:
 * none): the RBD store's io waits no longer (store_copy.c sets it around
 * its gateway pieces; the runner's workers also serve ordinary I/O).
 */
void xt_store_deadline(uint64_t deadline_ms);

#endif /* TARGET_STORE_RBD_H */
