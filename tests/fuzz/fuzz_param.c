/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the EXTENDED COPY (LID1) decoder.
 *
 * Input: a 16-byte CDB followed by the parameter list (the format of the
 * libiscsi captures in tests/vectors). Runs the CDB check, then the
 * parser with the CDB's PARAMETER LIST LENGTH over the rest. A list that
 * parses is re-encoded and re-parsed; the two decodes must agree field for
 * field and the re-encoding must be stable, else abort().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "xcm/xcm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct xcm_list *g_a;
static struct xcm_list *g_b;
static uint8_t *g_enc;
static uint8_t *g_enc2;
static size_t g_enc_cap;

#define die(what) fuzz_die("fuzz_param", (what))

static long
index_of(const struct xcm_list *l, const struct xcm_cscd *c)
{
	uint32_t i;

	if (c == &l->self) {
		return -1;
	}
	for (i = 0; i < l->ncscd; i++) {
		if (c == &l->cscd[i]) {
			return (long)i;
		}
	}
	return -2;
}

static void
same_cscd(const struct xcm_cscd *a, const struct xcm_cscd *b)
{
	if (a->type != b->type || a->lu_id_type != b->lu_id_type || a->nul != b->nul ||
	    a->pdt != b->pdt || a->rel_port != b->rel_port || a->code_set != b->code_set ||
	    a->assoc != b->assoc || a->desig_type != b->desig_type ||
	    a->desig_len != b->desig_len || memcmp(a->desig, b->desig, sizeof(a->desig)) != 0 ||
	    a->pad != b->pad || a->block_len != b->block_len || a->offset != b->offset ||
	    memcmp(a->lu_id, b->lu_id, sizeof(a->lu_id)) != 0 ||
	    memcmp(a->ip, b->ip, sizeof(a->ip)) != 0 || a->port != b->port || a->ipn != b->ipn) {
		die("CSCD differs after re-encode");
	}
}

static void
same_list(const struct xcm_list *a, const struct xcm_list *b)
{
	uint32_t i;

	if (a->list_id != b->list_id || a->list_id_usage != b->list_id_usage ||
	    a->priority != b->priority || a->str != b->str || a->ncscd != b->ncscd ||
	    a->nseg != b->nseg || b->inline_len != 0) {
		die("header differs after re-encode");
	}
	for (i = 0; i < a->ncscd; i++) {
		same_cscd(&a->cscd[i], &b->cscd[i]);
	}
	for (i = 0; i < a->nseg; i++) {
		const struct xcm_segment *x = &a->seg[i], *y = &b->seg[i];

		if (x->type == XCM_SEG_TOKEN) {
			/* C0h: the source is the token (no CSCD); its body compared whole */
			if (x->src != NULL || y->type != XCM_SEG_TOKEN || x->dst == NULL ||
			    index_of(a, x->dst) != index_of(b, y->dst) || index_of(a, x->dst) < -1 ||
			    x->offset != y->offset || a->tok.budget_ms != b->tok.budget_ms ||
			    a->tok.del_tkn != b->tok.del_tkn || a->tok.offset != b->tok.offset ||
			    a->tok.nranges != b->tok.nranges ||
			    a->tok.total_blocks != b->tok.total_blocks ||
			    memcmp(a->tok.token, b->tok.token, sizeof(a->tok.token)) != 0 ||
			    memcmp(a->tok.range, b->tok.range,
				   a->tok.nranges * sizeof(a->tok.range[0])) != 0) {
				die("C0h segment differs after re-encode");
			}
			continue;
		}
		if (x->src == NULL || x->dst == NULL ||
		    index_of(a, x->src) != index_of(b, y->src) ||
		    index_of(a, x->dst) != index_of(b, y->dst) || index_of(a, x->src) < -1 ||
		    index_of(a, x->dst) < -1) {
			die("segment CSCD reference differs or dangles");
		}
		if (x->type != y->type || x->fco != y->fco || x->dc != y->dc || x->cat != y->cat ||
		    x->count != y->count || x->src_lba != y->src_lba || x->dst_lba != y->dst_lba ||
		    x->src_off != y->src_off || x->dst_off != y->dst_off ||
		    x->offset != y->offset) {
			die("segment differs after re-encode");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct xcm_limits *lim = &xcm_limits_default;
	struct xcm_err err;
	struct xcm_wbuf w;
	uint32_t plen = 0;
	size_t n;

	if (g_a == NULL) {
		g_enc_cap = xcm_limits_max_param_len(lim) + 64;
		g_a = malloc(sizeof(*g_a));
		g_b = malloc(sizeof(*g_b));
		g_enc = malloc(g_enc_cap);
		g_enc2 = malloc(g_enc_cap);
		if (g_a == NULL || g_b == NULL || g_enc == NULL || g_enc2 == NULL) {
			die("out of memory");
		}
	}
	if (xcm_xcopy_cdb_check(data, size, &plen, &err) != XCM_OK) {
		if (err.status == XCM_OK) {
			die("error without status");
		}
		return 0;
	}
	if (xcm_list_parse(plen, xcm_span_make(data + XCM_CDB16_LEN, size - XCM_CDB16_LEN), lim,
			   g_a, &err) != XCM_OK) {
		if (err.status == XCM_OK) {
			die("error without status");
		}
		return 0;
	}
	if (g_a->ncscd > XCM_MAX_CSCD || g_a->nseg > XCM_MAX_SEG) {
		die("counts past capacity");
	}

	/* re-encode, re-parse, compare */
	w = xcm_wbuf_make(g_enc, g_enc_cap);
	n = xcm_list_encode(g_a, &w);
	if (n > g_enc_cap) {
		die("encoding larger than the maximum parameter list");
	}
	if (plen != 0 && xcm_list_parse((uint32_t)n, xcm_span_make(g_enc, n), lim, g_b, &err) !=
	    XCM_OK) {
		die("re-encoded list does not parse");
	}
	if (plen == 0) {
		return 0;
	}
	same_list(g_a, g_b);
	w = xcm_wbuf_make(g_enc2, g_enc_cap);
	if (xcm_list_encode(g_b, &w) != n || memcmp(g_enc, g_enc2, n) != 0) {
		die("re-encoding is not stable");
	}
	return 0;
}
