/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY data movement between two LUs, dispatched by their
 * stores (store_copy.c): file to file, inside one store, or through this
 * process. The store ops table itself is in base/lu.h.
 */
#ifndef TARGET_STORE_H
#define TARGET_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lu.h"

/*
 * store_copy.c: one chunk of an EXTENDED COPY segment between two LUs,
 * dispatched by their stores: file to file by xt_par_copy (bounce[0..nb));
 * (clone, cfr: the receiving LU's policy); two LUs of a store with a copy
 * op by that op; anything else (file and RBD) by the stores' io through bounce[0] (XT_BOUNCE_LEN) in this process,
 * backwards for overlapping ranges of one LU moving up. 0 or -errno with
 * *at_dst, *done.
 */
int xt_lu_copy(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff,
	       uint64_t len, uint8_t *const *bounce, unsigned int nb, enum xt_clone clone,
	       enum xt_cfr cfr, struct xt_copy_acct *acct, bool *at_dst, uint64_t *done);
/*
 * Do src and dst share a store whose copy op moves the bytes itself (two
 * RBD LUs: copy-from inside the cluster), with no fault armed on either?
 */
bool xt_lu_store_copies(const struct xcm_lu *src, const struct xcm_lu *dst);
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
/* Is lu's store the backing file (page cache, fd, clones, tokens)? */
bool xt_lu_is_file(const struct xcm_lu *lu);

#endif /* TARGET_STORE_H */
