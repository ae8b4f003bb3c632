/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp --dry-run / --explain: libxcopy's plan (xcopy_file_plan(3),
 * xcopy_dev_plan(3)) printed as extents -> segments -> commands, as text or
 * (with --stats=json) as one JSON object.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "xcp.h"

static const char *
kind_name(enum xcopy_plan_kind k)
{
	switch (k) {
	case XCOPY_PLAN_OFFLOAD: return "offload";
	case XCOPY_PLAN_ZERO: return "zero";
	case XCOPY_PLAN_ALLOCATE: return "allocate+offload";
	default: return "host";
	}
}

static void
print_extents(FILE *f, const struct xcopy_plan *pl, uint64_t sum[4])
{
	size_t i;

	fprintf(f, "extents: %zu\n", pl->nextents);
	for (i = 0; i < pl->nextents; i++) {
		const struct xcopy_plan_extent *e = &pl->extents[i];

		sum[(unsigned)e->kind < 4 ? (unsigned)e->kind : 1] += e->len;
		fprintf(f, "  [%zu] %-16s src %" PRIu64 " -> dst %" PRIu64 ", %" PRIu64 " bytes", i,
			kind_name(e->kind), e->src_off, e->dst_off, e->len);
		if (e->kind == XCOPY_PLAN_OFFLOAD) {
			fprintf(f, ": LBA %" PRIu64 " -> %" PRIu64, e->src_lba, e->dst_lba);
		} else if (e->why != XCOPY_FB_NONE) {
			fprintf(f, " (%s)", xcopy_fallback_reason_name(e->why));
		}
		fputc('\n', f);
	}
}

static void
print_commands(FILE *f, const struct xcopy_plan *pl)
{
	size_t i, k;

	fprintf(f, "segments: %zu (block-to-block, 02h)\ncommands: %zu (EXTENDED COPY LID1, 83h/00h)\n",
		pl->nsegments, pl->ncommands);
	for (i = 0; i < pl->ncommands; i++) {
		const struct xcopy_plan_command *c = &pl->commands[i];

		fprintf(f, "  command %zu: %zu segment(s), %" PRIu64 " bytes -> %s\n", i, c->nsegments,
			c->bytes, pl->dst_dev);
		for (k = c->first_segment; k < c->first_segment + c->nsegments && k < pl->nsegments;
		     k++) {
			const struct xcopy_plan_segment *s = &pl->segments[k];

			fprintf(f, "    segment %zu (extent %zu): LBA %" PRIu64 " -> %" PRIu64
				", %u blocks\n", k, s->extent, s->src_lba, s->dst_lba, s->nblocks);
		}
	}
}

/* Ranges the host would copy: what --require-offload refuses. */
static void
print_plan(FILE *f, const struct xcopy_plan *pl, bool *host)
{
	uint64_t sum[4] = { 0, 0, 0, 0 };
	char b[4][32];
	int k;

	if (pl->src_dev[0] != '\0') {
		fprintf(f, "devices: %s -> %s%s, block size %u; planned within %u segment(s) a "
			"command, descriptor list <= %u bytes, <= %u blocks a segment\n",
			pl->src_dev, pl->dst_dev, pl->same_lu ? " (one LU)" : "", pl->block_size,
			pl->max_segments, pl->max_desc_list_len, pl->max_segment_blocks);
	}
	if (pl->blocker != XCOPY_FB_NONE) {
		const char *h = xcp_reason_hint(pl->blocker);

		fprintf(f, "no offload: %s%s%s\n", xcopy_fallback_reason_name(pl->blocker),
			h ? ": " : "", h ? h : "");
	}
	print_extents(f, pl, sum);
	print_commands(f, pl);
	for (k = 0; k < 4; k++) {
		xcp_fmt_bytes(b[k], sizeof(b[k]), sum[k]);
	}
	fprintf(f, "total: %s offloaded, %s allocated then offloaded, %s by the host, %s zeroed; "
		"nothing written\n", b[XCOPY_PLAN_OFFLOAD], b[XCOPY_PLAN_ALLOCATE],
		b[XCOPY_PLAN_HOST], b[XCOPY_PLAN_ZERO]);
	*host = sum[XCOPY_PLAN_HOST] != 0;
}

static void
json_extents(struct xcp_json *j, const struct xcopy_plan *pl, uint64_t sum[4])
{
	size_t i;

	xcp_json_arr(j, "extents");
	for (i = 0; i < pl->nextents; i++) {
		const struct xcopy_plan_extent *e = &pl->extents[i];

		sum[(unsigned)e->kind < 4 ? (unsigned)e->kind : 1] += e->len;
		xcp_json_obj(j, NULL);
		xcp_json_str(j, "kind", kind_name(e->kind));
		xcp_json_str(j, "reason", e->why != XCOPY_FB_NONE ? xcopy_fallback_reason_name(e->why)
								  : NULL);
		xcp_json_u64(j, "src_offset", e->src_off);
		xcp_json_u64(j, "dst_offset", e->dst_off);
		xcp_json_u64(j, "length", e->len);
		if (e->kind == XCOPY_PLAN_OFFLOAD) {
			xcp_json_u64(j, "src_lba", e->src_lba);
			xcp_json_u64(j, "dst_lba", e->dst_lba);
		}
		xcp_json_end_obj(j);
	}
	xcp_json_end_arr(j);
}

static void
json_commands(struct xcp_json *j, const struct xcopy_plan *pl)
{
	size_t i, k;

	xcp_json_arr(j, "commands");
	for (i = 0; i < pl->ncommands; i++) {
		const struct xcopy_plan_command *c = &pl->commands[i];

		xcp_json_obj(j, NULL);
		xcp_json_u64(j, "bytes", c->bytes);
		xcp_json_arr(j, "segments");
		for (k = c->first_segment; k < c->first_segment + c->nsegments && k < pl->nsegments;
		     k++) {
			xcp_json_obj(j, NULL);
			xcp_json_u64(j, "extent", pl->segments[k].extent);
			xcp_json_u64(j, "src_lba", pl->segments[k].src_lba);
			xcp_json_u64(j, "dst_lba", pl->segments[k].dst_lba);
			xcp_json_u64(j, "blocks", pl->segments[k].nblocks);
			xcp_json_end_obj(j);
		}
		xcp_json_end_arr(j);
		xcp_json_end_obj(j);
	}
	xcp_json_end_arr(j);
}

/* --explain --stats=json: the plan as one JSON object (xcp.1, JSON). */
static void
json_plan(FILE *f, const struct xcopy_plan *pl, bool *host)
{
	uint64_t sum[4] = { 0, 0, 0, 0 };
	struct xcp_json j;

	xcp_json_start(&j, f);
	xcp_json_obj(&j, NULL);
	xcp_json_int(&j, "version", 1);
	xcp_json_str(&j, "src_device", pl->src_dev[0] ? pl->src_dev : NULL);
	xcp_json_str(&j, "dst_device", pl->dst_dev[0] ? pl->dst_dev : NULL);
	xcp_json_u64(&j, "block_size", pl->block_size);
	xcp_json_bool(&j, "same_lu", pl->same_lu);
	xcp_json_str(&j, "blocker", pl->blocker != XCOPY_FB_NONE
					   ? xcopy_fallback_reason_name(pl->blocker) : NULL);
	xcp_json_u64(&j, "max_segments", pl->max_segments);
	xcp_json_u64(&j, "max_desc_list_len", pl->max_desc_list_len);
	xcp_json_u64(&j, "max_segment_blocks", pl->max_segment_blocks);
	json_extents(&j, pl, sum);
	xcp_json_u64(&j, "nsegments", pl->nsegments);
	json_commands(&j, pl);
	xcp_json_u64(&j, "bytes_offload", sum[XCOPY_PLAN_OFFLOAD]);
	xcp_json_u64(&j, "bytes_allocate_offload", sum[XCOPY_PLAN_ALLOCATE]);
	xcp_json_u64(&j, "bytes_host", sum[XCOPY_PLAN_HOST]);
	xcp_json_u64(&j, "bytes_zero", sum[XCOPY_PLAN_ZERO]);
	xcp_json_end_obj(&j);
	xcp_json_finish(&j);
	*host = sum[XCOPY_PLAN_HOST] != 0;
}

/* rc: 0, 1 when some range would be copied by the host, or -errno. */
static int
finish(FILE *f, int rc, struct xcopy_plan *pl, bool json)
{
	bool host = false;

	if (rc == 0) {
		if (json) {
			json_plan(f, pl, &host);
		} else {
			print_plan(f, pl, &host);
		}
		xcopy_plan_free(pl);
	}
	return rc < 0 ? rc : host ? 1 : 0;
}

int
xcp_plan_files(FILE *f, int in, uint64_t so, int out, uint64_t dof, uint64_t len, unsigned flags,
	       bool json)
{
	struct xcopy_plan *pl = NULL;
	int rc = xcopy_file_plan(in, (int64_t)so, out, (int64_t)dof, (size_t)len, flags, &pl);

	return finish(f, rc, pl, json);
}

int
xcp_plan_devices(FILE *f, struct xcopy_dev *s, uint64_t slba, struct xcopy_dev *d, uint64_t dlba,
		 uint64_t n, unsigned flags, bool json)
{
	struct xcopy_plan *pl = NULL;
	int rc = xcopy_dev_plan(s, slba, d, dlba, n, flags, &pl);

	return finish(f, rc, pl, json);
}
