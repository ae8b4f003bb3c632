/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RADOS server-side object copy for C: librados' C API has no copy-from
 * (only the C++ ObjectWriteOperation::copy_from2), so target/store/rbd/rados_copy.cc
 * wraps it. The OSD holding the destination object reads the source object
 * from its OSD and replaces the destination's data with it; no byte passes
 * through this process.
 */
#ifndef XT_RADOS_COPY_H
#define XT_RADOS_COPY_H

#include <stddef.h>
#include <rados/librados.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xt_rados_copy_item {
	const char *src_oid;
	const char *dst_oid;
	int rc;         /* out: 0, -ENOENT (no source object), or -errno */
};

/*
 * Copy items[i].src_oid (in src_io) over items[i].dst_oid (in dst_io) for
 * each of the n items, at most inflight (>= 1) operations at once. Each
 * item's result is in its rc (-ECANCELED: never issued; -ETIMEDOUT:
 * cancelled at the calling thread's copy deadline, xt_rbd_deadline_set).
 * Returns 0, or -EINVAL / -ENOMEM / -EIO / -ETIMEDOUT (deadline) when it
 * stopped early; every issued operation has completed when it returns.
 */
int xt_rados_copy_from(rados_ioctx_t dst_io, rados_ioctx_t src_io,
		       struct xt_rados_copy_item *items, size_t n,
		       unsigned inflight);

#ifdef __cplusplus
}
#endif

#endif
