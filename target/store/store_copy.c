/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY data movement between two LUs, by their stores (base/lu.h):
 * two LUs of one store with a copy op by that op (files: clone,
 * copy_file_range or read/write in parallel pieces, parallel.c; RBD: RADOS
 * copy-from when safe, store_rbd.c), a wrapping store's (fault/) first;
 * a file LU and an RBD LU through the stores' own read and write in this
 * process, one bounce buffer (XT_BOUNCE_LEN) at a time. Nothing goes
 * through the initiator. Everything a call needs travels in struct xt_copy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "store/file/store_file.h"
#include "store/store.h"

/* The store that holds lu's state: under any wrapping store (fault/). */
static const struct xt_store_ops *
base_ops(const struct xt_lu *lu)
{
	const struct xt_store_ops *o = lu->ops;

	while (o->inner != NULL) {
		o = o->inner;
	}
	return o;
}

/* Is lu's store the backing file (file to file copies: file_copy.c, parallel.c)? */
static bool
xt_lu_is_file(const struct xt_lu *lu)
{
	return base_ops(lu) == &xt_store_file;
}

bool
xt_lu_clones(const struct xt_lu *src, const struct xt_lu *dst)
{
	return src->reflink && dst->reflink && xt_lu_is_file(src) && xt_lu_is_file(dst) &&
	       xt_file(src)->st_dev == xt_file(dst)->st_dev;
}

/*
 * The copy op for src and dst: both of one store that has one; a wrapping
 * store on either side (dst's first) runs it. NULL: through this process.
 */
static const struct xt_store_ops *
pair_ops(const struct xt_lu *src, const struct xt_lu *dst)
{
	const struct xt_store_ops *b = base_ops(src);

	if (b != base_ops(dst) || b->copy == NULL) {
		return NULL;
	}
	return dst->ops->inner != NULL ? dst->ops : src->ops;
}

uint64_t
xt_lu_store_chunk(const struct xt_lu *src, const struct xt_lu *dst)
{
	const struct xt_store_ops *b = base_ops(src);

	/* a store copying inside itself (not in this process): RBD copy-from */
	return pair_ops(src, dst) != NULL && !b->page_cache ? b->copy_chunk : 0;
}

/* n bytes at off of lu through its store's io and c's bounce buffer, part of copy c. */
static int
gw_io(struct xt_copy *c, struct xt_lu *lu, size_t n, uint64_t off, bool wr)
{
	struct iovec v = { .iov_base = c->bounce[0], .iov_len = n };
	struct xt_io io = { .iov = &v, .cnt = 1, .len = n, .off = off, .wr = wr,
			    .deadline_ms = c->deadline_ms, .copy = c };

	return lu->ops->io(lu, &io);
}

/*
 * Through this process: pieces of XT_BOUNCE_LEN, from the end when the
 * ranges of one LU overlap and the destination is above the source
 * (memmove order, SPC-4 copy semantics of a block device segment). Every
 * wait of the stores' io ends by the copy's deadline (RBD: ETIMEDOUT).
 */
static int
gw_copy(struct xt_copy *c, const struct xt_range *r)
{
	bool back = r->src == r->dst && r->doff > r->soff && r->doff < r->soff + r->len;
	uint64_t n, at;
	int rc = 0;

	while (c->done < r->len) {
		n = r->len - c->done < XT_BOUNCE_LEN ? r->len - c->done : XT_BOUNCE_LEN;
		at = back ? r->len - c->done - n : c->done;
		c->at_dst = false;
		rc = gw_io(c, r->src, (size_t)n, r->soff + at, false);
		if (rc == 0) {
			c->at_dst = true;
			rc = gw_io(c, r->dst, (size_t)n, r->doff + at, true);
		}
		if (rc != 0) {
			return rc;
		}
		c->acct.gateway_bytes += n;
		c->done += n;
	}
	c->at_dst = false;
	return 0;
}

int
xt_lu_copy(struct xt_copy *c, const struct xt_range *r)
{
	const struct xt_store_ops *po = pair_ops(r->src, r->dst);
	uint64_t cloned = c->acct.clone_bytes;
	const struct xt_store_ops *d = base_ops(r->dst);
	int rc;

	c->at_dst = false;
	c->done = 0;
	if (r->len == 0 || (r->src == r->dst && r->soff == r->doff)) {
		return 0;
	}
	rc = po != NULL ? po->copy(c, r) : gw_copy(c, r);
	if (rc == 0 && c->write_behind && d->write_behind != NULL &&
	    c->acct.clone_bytes - cloned < r->len) {
		/* bytes went through dst's page cache: write them back now (file_copy.c) */
		d->write_behind(c, r);
	}
	return rc;
}

void
xt_copy_start(struct xt_copy *c)
{
	static uint64_t next_id;

	c->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	memset(&c->acct, 0, sizeof(c->acct));
	xt_wb_init(c);
	/* the worker yields the CPU to the LU's I/O while it copies (file_copy.c) */
	c->nice_old = xt_nice_lower(c->self->cfg.copy_nice);
}

void
xt_copy_end(struct xt_copy *c)
{
	xt_nice_restore(c->nice_old);
}

void
xt_copy_free(struct xt_copy *c)
{
	unsigned int i;

	for (i = 0; i < XT_PAR_PIECES; i++) {
		free(c->bounce[i]);
		c->bounce[i] = NULL;
	}
}
