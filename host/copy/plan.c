/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Planner: extent pairs -> 02h segment descriptors -> EXTENDED COPY commands,
 * within every limit the copy manager reported. One segment per extent pair
 * piece; a pair longer than a segment may carry is split; commands take as
 * many segments as MAXIMUM SEGMENT DESCRIPTOR COUNT and MAXIMUM DESCRIPTOR
 * LIST LENGTH allow.
 */
#include <errno.h>
#include <stdlib.h>

#include "xch_copy.h"
#include "xos.h"

/* SPC-4 6.4.5.4: the 02h descriptor's BLOCK DEVICE NUMBER OF BLOCKS is 16 bits */
#define B2B_MAX_BLOCKS 65535u

void
xch_plan_limits_get(const struct xcopy_dev *src, const struct xcopy_dev *dst, uint32_t ncscd,
		    struct xch_plan_limits *out)
{
	const struct xcopy_caps *a = &src->caps;
	const struct xcopy_caps *b = &dst->caps;

	out->ncscd = ncscd;
	/* a verdict of another call sharing the handle may lower it (lid1_copy.c): atomic */
	out->max_seg = (uint32_t)xos_min_nz(__atomic_load_n(&a->max_seg, __ATOMIC_RELAXED),
					      __atomic_load_n(&b->max_seg, __ATOMIC_RELAXED));
	out->max_desc_list_len = (uint32_t)xos_min_nz(a->max_desc_list_len, b->max_desc_list_len);
	out->max_seg_blocks = (uint32_t)xos_min_nz(a->max_seg_blocks, b->max_seg_blocks);
	if (out->max_seg_blocks == 0 || out->max_seg_blocks > B2B_MAX_BLOCKS) {
		out->max_seg_blocks = B2B_MAX_BLOCKS;
	}
}

/* Segments one command can carry under lim; 0 when not even one fits. */
static uint32_t
segs_per_cmd(const struct xch_plan_limits *lim)
{
	uint64_t csd = (uint64_t)lim->ncscd * XCM_CSCD_LEN;
	uint64_t room, n;

	if (lim->max_desc_list_len < csd) {
		return 0;
	}
	/* SPC-4 6.4.3.1: CSCD + segment descriptor bytes <= MAX DESCRIPTOR LIST LENGTH */
	room = lim->max_desc_list_len - csd;
	n = room / XCM_SEG_B2B_LEN;
	if (n > lim->max_seg) {
		n = lim->max_seg;
	}
	if (n > XCM_MAX_SEG) {
		n = XCM_MAX_SEG;
	}
	return (uint32_t)n;
}

int
xch_plan_build(const struct xch_pair *pairs, size_t n, const struct xch_plan_limits *lim,
	       struct xch_plan *out)
{
	uint32_t per_cmd = segs_per_cmd(lim);
	uint32_t max_blocks = lim->max_seg_blocks;
	size_t nseg = 0, i, s;

	out->seg = NULL;
	out->cmd = NULL;
	out->nseg = 0;
	out->ncmd = 0;
	if (per_cmd == 0 || max_blocks == 0 || lim->ncscd == 0 || lim->ncscd > 2) {
		return -EINVAL;
	}
	if (max_blocks > B2B_MAX_BLOCKS) {
		max_blocks = B2B_MAX_BLOCKS;
	}
	for (i = 0; i < n; i++) {
		nseg += (size_t)((pairs[i].nblocks + max_blocks - 1) / max_blocks);
	}
	if (nseg == 0) {
		return 0;
	}
	out->seg = calloc(nseg, sizeof(*out->seg));
	out->cmd = calloc((nseg + per_cmd - 1) / per_cmd, sizeof(*out->cmd));
	if (out->seg == NULL || out->cmd == NULL) {
		xch_plan_free(out);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		uint64_t skip;

		for (skip = 0; skip < pairs[i].nblocks; skip += max_blocks) {
			uint64_t left = pairs[i].nblocks - skip;
			struct xch_seg *sg = &out->seg[out->nseg++];

			sg->pair = (uint32_t)i;
			sg->skip = skip;
			sg->nblocks = (uint32_t)(left < max_blocks ? left : max_blocks);
		}
	}
	for (s = 0; s < out->nseg; s += per_cmd) {
		struct xch_cmdplan *c = &out->cmd[out->ncmd++];

		c->first = (uint32_t)s;
		c->nseg = (uint32_t)(out->nseg - s < per_cmd ? out->nseg - s : per_cmd);
	}
	return 0;
}

void
xch_plan_free(struct xch_plan *p)
{
	free(p->seg);
	free(p->cmd);
	p->seg = NULL;
	p->cmd = NULL;
	p->nseg = 0;
	p->ncmd = 0;
}
