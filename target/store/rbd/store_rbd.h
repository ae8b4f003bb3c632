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
 * Chunks of a list received on an RBD LU, the most one merged run of
 * contiguous segments between two RBD LUs carries, and the WRITE USING
 * TOKEN chunk between them: 128 MiB, 32 objects of RBD's default 4 MiB, one
 * batch of rbd_copy.c (copy-from keeps 8 objects in flight across it; the
 * safety check, flushes and object-map marker writes are per call). Hosts
 * send segments of a few MiB (libxcopy 4 MiB, Windows and ESXi alike): one
 * call per segment would copy one object at a time. A chunk holds whole
 * objects of up to 128 MiB (order 27).
 */
#define XT_RBD_CHUNK (UINT64_C(128) << 20)

#endif /* TARGET_STORE_RBD_H */
