/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xch_copy_pairs, the one entry of every copy of LBA pairs: the method
 * method.c chooses, run (map here, tokens in token_copy.c, LID1 in
 * lid1_copy.c, host: every pair to the caller's fallback). The map method
 * lives here because it comes back to the entry: copies through mapped
 * device-mapper volumes (dm.c) cut each pair at every piece and
 * stripe-chunk boundary of both sides (xch_dev_locate), group the runs on
 * the same two devices underneath into one xch_copy_pairs call (so a file
 * on a volume, or a striped volume, still gets many segments per command),
 * and compare the tables before and after: a table that changed means what
 * the copy manager wrote may belong elsewhere now, so every pair is redone
 * by the caller's fallback (reason mapping-moved) and nothing counts as
 * offloaded.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xch_base.h"
#include "xch_copy.h"

/* A run on the devices underneath, in the order it was cut. */
struct run {
	struct xcopy_dev *sd, *dd;
	size_t seq;
	struct xch_pair q;
};

struct batch {
	struct run *v;
	size_t n, cap;
};

static int
add(struct batch *b, struct xcopy_dev *sd, struct xcopy_dev *dd, const struct xch_pair *q)
{
	if (b->n == b->cap) {
		size_t cap = b->cap == 0 ? 16 : b->cap * 2;
		struct run *nv = realloc(b->v, cap * sizeof(*nv));

		if (nv == NULL) {
			return -ENOMEM;
		}
		b->v = nv;
		b->cap = cap;
	}
	b->v[b->n].sd = sd;
	b->v[b->n].dd = dd;
	b->v[b->n].seq = b->n;
	b->v[b->n].q = *q;
	b->n++;
	return 0;
}

static int
run_cmp(const void *x, const void *y)
{
	const struct run *a = x, *b = y;

	if (a->sd != b->sd) {
		return (uintptr_t)a->sd < (uintptr_t)b->sd ? -1 : 1;
	}
	if (a->dd != b->dd) {
		return (uintptr_t)a->dd < (uintptr_t)b->dd ? -1 : 1;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * The runs grouped by the pair of devices they copy between (a striped
 * volume alternates devices every chunk), each group in one xch_copy_pairs
 * call, so its runs share commands. The runs never overlap one another, so
 * their order does not matter.
 */
static int
send_groups(struct batch *b, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb,
	    void *fbarg)
{
	struct xch_pair *v;
	size_t i = 0, k;
	int rc = 0;

	v = malloc((b->n ? b->n : 1) * sizeof(*v));
	if (v == NULL) {
		return -ENOMEM;
	}
	qsort(b->v, b->n, sizeof(*b->v), run_cmp);
	while (i < b->n && rc == 0) {
		for (k = i; k < b->n && b->v[k].sd == b->v[i].sd && b->v[k].dd == b->v[i].dd; k++) {
			v[k - i] = b->v[k].q;
		}
		rc = xch_copy_pairs(b->v[i].sd, b->v[i].dd, v, k - i, flags, st, fb, fbarg);
		i = k;
	}
	free(v);
	return rc;
}

/* One caller pair into runs on the devices underneath. */
static int
split_pair(struct batch *b, struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *p)
{
	uint64_t bs = src->caps.block_size, done = 0;
	int rc;

	while (done < p->nblocks) {
		struct xcopy_dev *sd, *dd;
		struct xch_pair q;
		uint64_t sr, dr, n = p->nblocks - done;

		xch_dev_locate(src, p->src_lba + done, &sd, &q.src_lba, &sr);
		xch_dev_locate(dst, p->dst_lba + done, &dd, &q.dst_lba, &dr);
		n = sr < n ? sr : n;
		n = dr < n ? dr : n;
		if (n == 0) {
			return -ERANGE;
		}
		/* two volumes over the same blocks: refused like an overlap inside one LU */
		if (xch_same_lu(sd, dd) && q.src_lba < q.dst_lba + n && q.dst_lba < q.src_lba + n) {
			return -EINVAL;
		}
		q.nblocks = n;
		q.src_off = p->src_off + done * bs;
		q.dst_off = p->dst_off + done * bs;
		rc = add(b, sd, dd, &q);
		if (rc != 0) {
			return rc;
		}
		done += n;
	}
	return 0;
}

/* A table changed: everything through the caller's fallback. */
static int
redo_all(const struct xch_pair *pairs, size_t n, uint64_t bs, unsigned flags,
	 struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg)
{
	size_t i;
	int rc = 0;

	if (flags & XCOPY_REQUIRE_OFFLOAD) {
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n && rc == 0; i++) {
		rc = fb(fbarg, &pairs[i], 0, pairs[i].nblocks, XCOPY_FB_MAPPING_MOVED);
		if (rc == 0) {
			xch_stats_fallback(st, XCOPY_FB_MAPPING_MOVED, pairs[i].nblocks * bs);
		}
	}
	return rc;
}

int
xch_dm_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
		  size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb,
		  void *fbarg)
{
	struct batch b = { 0 };
	struct xcopy_stats before;
	size_t i;
	int rc = 0;

	if (st != NULL) {
		before = *st;
	}
	for (i = 0; i < n; i++) {
		if (xch_dev_range_check(src, pairs[i].src_lba, pairs[i].nblocks) != 0 ||
		    xch_dev_range_check(dst, pairs[i].dst_lba, pairs[i].nblocks) != 0) {
			return -ERANGE;
		}
	}
	if (xch_dev_tables_same(src) && xch_dev_tables_same(dst)) {
		for (i = 0; i < n && rc == 0; i++) {
			rc = split_pair(&b, src, dst, &pairs[i]);
		}
		if (rc == 0) {
			rc = send_groups(&b, flags, st, fb, fbarg);
		}
		free(b.v);
		if (rc != 0) {
			return rc;
		}
		/* a table changed while the copy ran: what it wrote may be elsewhere now */
		if (xch_dev_tables_same(src) && xch_dev_tables_same(dst)) {
			return 0;
		}
		if (st != NULL) {
			*st = before;
		}
	}
	XCH_WARN("%s -> %s: a device-mapper table changed: copying on the host", src->name,
		 dst->name);
	return redo_all(pairs, n, src->caps.block_size, flags, st, fb, fbarg);
}

int
xch_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
	       size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg)
{
	enum xcopy_fallback_reason why;
	size_t i;

	/* the one check every range passes before anything is encoded or sent */
	for (i = 0; i < n; i++) {
		if (xch_dev_range_check(src, pairs[i].src_lba, pairs[i].nblocks) != 0 ||
		    xch_dev_range_check(dst, pairs[i].dst_lba, pairs[i].nblocks) != 0) {
			return -ERANGE;
		}
	}
	switch (xch_copy_method(src, dst, flags, &why)) {
	case XCH_METHOD_MAP:
		return xch_dm_copy_pairs(src, dst, pairs, n, flags, st, fb, fbarg);
	case XCH_METHOD_TOKENS:
		return xch_token_copy_pairs(src, dst, pairs, n, flags, st, fb, fbarg);
	case XCH_METHOD_LID1:
		return xch_lid1_copy_pairs(src, dst, pairs, n, flags, st, fb, fbarg);
	case XCH_METHOD_HOST:
	default:
		return xch_fallback_all(pairs, n, src->caps.block_size, flags, st, fb, fbarg, why);
	}
}
