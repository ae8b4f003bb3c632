/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the token (ODX) codec: POPULATE TOKEN and WRITE
 * USING TOKEN parameter lists (target side), the RRTI response decoder
 * (initiator side), the ROD token decoder and the PT/WUT/RRTI CDB checks.
 *
 * Input: byte 0 picks the LU size (num_blocks = 1 << (byte0 % 40)), the
 * rest is the list / response. Invariants, else abort(): an accepted list
 * has 1..max_ranges ranges inside the LU, none overlapping, whose sum is
 * total_blocks, and re-encodes to a list that parses to the same ranges;
 * an error always carries a status; an RRTI that decodes with a token had
 * the 512 token bytes in the input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "xcm/token.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct xcm_tok_list g_a, g_b;
static uint8_t g_enc[XCM_WUT_HDR_LEN + XCM_MAX_RANGES * XCM_RANGE_DESC_LEN];

#define die(what) fuzz_die("fuzz_token", (what))

static void
check_ranges(const struct xcm_tok_list *l, uint64_t nblk)
{
	uint64_t sum = 0;
	uint32_t i, k;

	if (l->nranges == 0 || l->nranges > xcm_tok_limits_default.max_ranges) {
		die("range count out of bounds");
	}
	for (i = 0; i < l->nranges; i++) {
		const struct xcm_range *r = &l->range[i];

		if (r->lba > nblk || r->count > nblk - r->lba) {
			die("range past the LU");
		}
		for (k = 0; k < i; k++) {
			const struct xcm_range *q = &l->range[k];

			if (r->count && q->count && r->lba < q->lba + q->count &&
			    q->lba < r->lba + r->count) {
				die("overlapping ranges accepted");
			}
		}
		sum += r->count;
	}
	if (sum != l->total_blocks) {
		die("total_blocks differs from the sum");
	}
}

static void
one_list(uint8_t sa, struct xcm_span s, uint64_t nblk)
{
	struct xcm_err err;
	struct xcm_wbuf w;
	uint32_t plen = (uint32_t)s.len;
	size_t n;

	memset(&err, 0, sizeof(err));
	if (xcm_tok_list_parse(sa, plen, s, &xcm_tok_limits_default, nblk, 512, &g_a, &err) !=
	    XCM_OK) {
		if (err.status == XCM_OK) {
			die("list error without a status");
		}
		return;
	}
	check_ranges(&g_a, nblk);
	w = xcm_wbuf_make(g_enc, sizeof(g_enc));
	n = xcm_tok_list_encode(sa, &g_a, &w);
	if (n > sizeof(g_enc) ||
	    xcm_tok_list_parse(sa, (uint32_t)n, xcm_span_make(g_enc, n), &xcm_tok_limits_default,
			       nblk, 512, &g_b, &err) != XCM_OK ||
	    g_b.nranges != g_a.nranges ||
	    memcmp(g_b.range, g_a.range, g_a.nranges * sizeof(g_a.range[0])) != 0 ||
	    g_b.offset != g_a.offset || memcmp(g_b.token, g_a.token, sizeof(g_a.token)) != 0) {
		die("re-encoded list differs");
	}
}

static void
other_decoders(struct xcm_span s)
{
	uint8_t tok[XCM_ROD_TOKEN_LEN];
	struct xcm_tok_out_req oreq;
	struct xcm_tok_in_req ireq;
	struct xcm_rod_token t;
	struct xcm_rcs4 st;
	struct xcm_err err;
	uint64_t blocks;
	bool has;
	int rc;

	rc = xcm_rrti_decode(s, &st, &blocks, &has, tok);
	if (rc != 0 && rc != -EINVAL) {
		die("rrti: unexpected return");
	}
	if (rc == 0 && has && s.len < 32 + 4 + 2 + XCM_ROD_TOKEN_LEN) {
		die("rrti: token from fewer bytes than a token");
	}
	if (s.len >= XCM_ROD_TOKEN_LEN &&
	    xcm_rod_token_decode(s.p, &t, &err) == XCM_OK && t.creator_desig_len > XCM_DESIG_MAX) {
		die("token: designator longer than its field");
	}
	if (s.len >= XCM_CDB16_LEN) {
		if (xcm_tok_out_cdb_check(s.p, s.len, &xcm_tok_limits_default, &oreq, &err) == XCM_OK &&
		    (oreq.plen > XCM_WUT_HDR_LEN + XCM_MAX_RANGES * XCM_RANGE_DESC_LEN ||
		     oreq.plen < XCM_PT_HDR_LEN + XCM_RANGE_DESC_LEN)) {
			die("CDB accepted with a list length out of bounds");
		}
		if (xcm_tok_in_cdb_check(s.p, s.len, &ireq, &err) == XCM_OK &&
		    ireq.sa != XCM_SA_RRTI && ireq.sa != XCM_SA_RART) {
			die("CDB accepted with another service action");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xcm_span s;
	uint64_t nblk;

	if (size < 1) {
		return 0;
	}
	nblk = 1ull << (data[0] % 40);
	s = xcm_span_make(data + 1, size - 1);
	one_list(XCM_SA_POPULATE_TOKEN, s, nblk);
	one_list(XCM_SA_WRITE_USING_TOKEN, s, nblk);
	other_decoders(s);
	return 0;
}
