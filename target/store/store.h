/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The store layer: every byte any layer above moves goes through here or
 * through a LU's store ops (base/lu.h). EXTENDED COPY data movement between
 * two LUs dispatched by their stores (store_copy.c), the store a cfgstring
 * names, durability with WCE = 0, token snapshots (store.c).
 */
#ifndef TARGET_STORE_H
#define TARGET_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lu.h"

/*
 * store_copy.c, around one job's copies: xt_copy_start (c->self and the job
 * part set; bounce[0] allocated) gives c its id, clears its accounting and
 * write-behind and lowers the thread's nice value to self's copy_nice;
 * xt_copy_end restores it; xt_copy_free frees the bounce buffers.
 */
void xt_copy_start(struct xt_copy *c);
void xt_copy_end(struct xt_copy *c);
void xt_copy_free(struct xt_copy *c);
/*
 * store_copy.c: one chunk r of a copy between two LUs, by c's policy,
 * dispatched by their stores: two LUs of a store with a copy op by that op
 * (file to file: clone, cfr, read/write, parallel pieces); anything else
 * (file and RBD) by the stores' io through c->bounce[0] in this process,
 * backwards for overlapping ranges of one LU moving up. With
 * c->write_behind, the chunk is then written back behind the copy. 0, or
 * -errno with c->at_dst and c->done.
 */
int xt_lu_copy(struct xt_copy *c, const struct xt_range *r);
/*
 * The chunk of a store that copies between src and dst inside itself (two
 * RBD LUs: copy-from inside the cluster, XT_RBD_CHUNK), 0 if they do not:
 * the most one merged run and one WRITE USING TOKEN chunk take.
 */
uint64_t xt_lu_store_chunk(const struct xt_lu *src, const struct xt_lu *dst);
/* May a copy from src to dst clone (two reflink file LUs on one filesystem)? */
bool xt_lu_clones(const struct xt_lu *src, const struct xt_lu *dst);
/*
 * store.c: with the LU's write cache off (WCE = 0, attrib/emulate_write_cache
 * = 0) make what the plugin wrote to lu durable before GOOD: the store's
 * flush (file: fdatasync; RBD: rbd_aio_flush), counted in wt_syncs. WCE = 1:
 * nothing (the initiator sends SYNCHRONIZE CACHE). 0 or -errno.
 */
int xt_lu_durable(struct xt_lu *lu);
/*
 * store.c: a point-in-time snapshot of lu for a ROD token (lu->reflink):
 * an unlinked file of size bytes beside lu's store (fd, or -errno), and an
 * LU of the store on it (NULL: failed; free() releases it, fd stays the
 * caller's).
 */
int xt_lu_snap_file(const struct xt_lu *lu, uint64_t size);
struct xt_lu *xt_lu_snap_view(const struct xt_lu *lu, int fd);
/*
 * store.c: the store a cfgstring names (xcopy/rbd/... RBD, xcopy/null/SIZE the
 * null store, anything else the file form), wrapped by the fault store
 * (fault/) when fault injection is on (the null store never).
 */
const struct xt_store_ops *xt_store_for(const char *cfgstring);
/* store.c: stop the stores' helper threads (handler destroy: the daemon exits, or dlclose). */
void xt_store_shutdown(void);

#endif /* TARGET_STORE_H */
