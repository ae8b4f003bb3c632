// SPDX-License-Identifier: LGPL-2.1-or-later
// C interface to librados' ObjectWriteOperation::copy_from2 (rados_copy.h).
// No exception leaves this file: a C caller cannot handle one.
#include <cerrno>
#include <new>
#include <string>
#include <vector>

#include <time.h>

#include <rados/librados.hpp>

#include "rados_copy.h"

extern "C" {
#include "rbd_image.h"   // xt_rbd_deadline, xos_now_ms
}

namespace {

struct slot {
	librados::AioCompletion *c = nullptr;
	size_t item = 0;
};

// Wait for the operation in s, store its result, free the completion. Past
// the thread's copy deadline (xt_rbd_deadline_set) the operation is
// cancelled (librados then completes it with ECANCELED and never resends
// it) and its result is ETIMEDOUT.
void
reap(librados::IoCtx &dst, slot &s, struct xt_rados_copy_item *items)
{
	const struct timespec tick = { 0, 2000000 };
	uint64_t dl = xt_rbd_deadline();
	bool late = false;

	while (dl != 0 && !s.c->is_complete()) {
		if (xos_now_ms() >= dl) {
			dst.aio_cancel(s.c);
			late = true;
			break;
		}
		nanosleep(&tick, nullptr);
	}
	s.c->wait_for_complete();
	items[s.item].rc = late ? -ETIMEDOUT : s.c->get_return_value();
	s.c->release();
	s.c = nullptr;
}

int
issue(librados::IoCtx &dst, librados::IoCtx &src, slot &s,
      struct xt_rados_copy_item *items, size_t i)
{
	librados::ObjectWriteOperation op;

	// truncate_seq/size 0: RBD data objects are never truncated with a
	// sequence (librbd writes them with 0 as well); src_version 0: any.
	op.copy_from2(items[i].src_oid, src, 0, 0, 0,
		      LIBRADOS_OP_FLAG_FADVISE_SEQUENTIAL |
		      LIBRADOS_OP_FLAG_FADVISE_NOCACHE);
	s.c = librados::Rados::aio_create_completion();
	s.item = i;
	int rc = dst.aio_operate(items[i].dst_oid, s.c, &op);
	if (rc < 0) {
		s.c->release();
		s.c = nullptr;
		items[i].rc = rc;
	}
	return rc;
}

}  // namespace

extern "C" int
xt_rados_copy_from(rados_ioctx_t dst_io, rados_ioctx_t src_io,
		   struct xt_rados_copy_item *items, size_t n, unsigned inflight)
{
	if (dst_io == nullptr || src_io == nullptr || (items == nullptr && n > 0) ||
	    inflight == 0) {
		return -EINVAL;
	}
	std::vector<slot> win;
	librados::IoCtx dst, src;
	uint64_t dl = xt_rbd_deadline();
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		items[i].rc = -ECANCELED;
	}
	try {
		librados::IoCtx::from_rados_ioctx_t(dst_io, dst);
		librados::IoCtx::from_rados_ioctx_t(src_io, src);
		win.resize(inflight);
		size_t next = 0;

		for (size_t i = 0; i < n; i++) {
			slot &s = win[next];
			if (s.c != nullptr) {
				reap(dst, s, items);
			}
			if (dl != 0 && xos_now_ms() >= dl) {
				rc = -ETIMEDOUT;   // the rest stays -ECANCELED: never issued
				break;
			}
			issue(dst, src, s, items, i);
			next = (next + 1) % inflight;
		}
	} catch (const std::bad_alloc &) {
		rc = -ENOMEM;
	} catch (...) {
		rc = -EIO;
	}
	// what was issued completes before the caller's buffers go away
	for (slot &s : win) {
		if (s.c != nullptr) {
			reap(dst, s, items);
		}
	}
	return rc;
}
