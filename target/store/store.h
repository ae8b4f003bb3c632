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
#include "store/rbd/store_rbd.h"   /* XT_RBD_CHUNK */

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
 * The most bounce buffers xt_lu_copy uses between src and dst: XT_PAR_PIECES
 * where it copies in parallel pieces (file to file), else 1.
 */
unsigned int xt_lu_copy_pieces(const struct xcm_lu *src, const struct xcm_lu *dst);
/* May a copy from src to dst clone (two reflink file LUs on one filesystem)? */
bool xt_lu_clones(const struct xcm_lu *src, const struct xcm_lu *dst);
/* store.c: the store a cfgstring names (xcopy/rbd/... RBD, anything else the file form). */
const struct xt_store_ops *xt_store_for(const char *cfgstring);

#endif /* TARGET_STORE_H */
