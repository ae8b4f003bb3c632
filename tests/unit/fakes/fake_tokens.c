/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fake target's ROD token commands: POPULATE TOKEN and WRITE USING
 * TOKEN decoded with the engine (xcm_tok_out_cdb_check, xcm_tok_list_parse),
 * tokens made with xcm_rod_token_encode, RECEIVE ROD TOKEN INFORMATION
 * answered with xcm_rrti_encode, VPD 8Fh with xcm_vpd_tpc_encode_tok.
 */
#include <string.h>

#include "fake_target.h"
#include "ut.h"

static void
tok_sense(struct xch_cmd *c, const struct xcm_err *e)
{
	c->status = XCM_SAM_CHECK_CONDITION;
	c->sense_len = (uint8_t)xcm_sense_build(e, false, c->sense, sizeof(c->sense));
}

static void
tok_fail(struct xch_cmd *c, enum xcm_status st)
{
	struct xcm_err e;

	memset(&e, 0, sizeof(e));
	xcm_err_set(&e, st);
	tok_sense(c, &e);
}

/* SBC-4 6.6.7 / SPC-4 7.8.17: the page; without LID1, 83h/00h-01h become 83h/11h. */
void
fk_tok_vpd(struct fk *f, struct xch_cmd *c)
{
	uint8_t b[1024];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	size_t n, off = XCM_VPD_HDR_LEN, k;

	xcm_vpd_tpc_encode_tok(&f->lim, f->tok ? &f->toklim : NULL, FK_BS, 0, &w);
	n = xcm_wbuf_stored(&w);
	while (f->no_lid1 && off + 4 <= n) {
		uint16_t type = xcm_get_be16(b + off), len = xcm_get_be16(b + off + 2);

		if (type == 0x0001) {
			/* LIST LENGTH, then (opcode, count, service actions) */
			for (k = off + 5; k + 1 < off + 5 + b[off + 4]; k += 2 + b[k + 1]) {
				size_t s;

				for (s = 0; b[k] == XCM_OP_XCOPY && s < b[k + 1]; s++) {
					if (b[k + 2 + s] <= 0x01) {
						b[k + 2 + s] = XCM_SA_WRITE_USING_TOKEN;
					}
				}
			}
		}
		off += 4 + len;
	}
	b[1] = XCM_VPD_TPC;
	memcpy(c->buf, b, n < c->len ? n : c->len);
	c->resid = c->len - (n < c->len ? n : c->len);
}

/* A scripted failure for this command of service action sa (true: answered). */
static bool
tok_scripted(struct fk *f, uint8_t sa, int nth, struct xch_cmd *c)
{
	int k;

	for (k = 0; k < f->ntokfail; k++) {
		if (f->tokfail[k].sa == sa && f->tokfail[k].nth == nth) {
			tok_sense(c, &f->tokfail[k].err);
			return true;
		}
	}
	return false;
}

static struct fk_token *
tok_slot(struct fk *f)
{
	int i;

	for (i = 0; i < FK_TOKENS; i++) {
		if (!f->token[i].live) {
			return &f->token[i];
		}
	}
	return &f->token[0];
}

static void
tok_populate(struct fk *f, int lu, const struct xcm_tok_list *l, uint32_t list_id)
{
	struct fk_token *t = tok_slot(f);
	struct xcm_rod_token rt;

	memset(t, 0, sizeof(*t));
	memset(&rt, 0, sizeof(rt));
	t->live = true;
	t->list_id = list_id;
	t->lu = lu;
	t->n = l->nranges;
	memcpy(t->r, l->range, sizeof(t->r));
	t->total = l->total_blocks;
	rt.rod_type = XCM_ROD_TYPE_PIT_DEFAULT;
	rt.id = ++f->next_tok_id;
	rt.creator_desig[0] = XCM_CODE_SET_BINARY;
	rt.creator_desig[1] = XCM_DESIG_NAA;
	rt.creator_desig[3] = 16;
	memcpy(rt.creator_desig + 4, f->lu[lu].naa, 16);
	rt.creator_desig_len = 20;
	rt.bytes = t->total * FK_BS;
	rt.block_len = FK_BS;
	memset(rt.random, (int)rt.id, sizeof(rt.random));
	xcm_rod_token_encode(&rt, t->rod);
}

/* Block b of the token's data: its LU and LBA. */
static uint64_t
tok_lba(const struct fk_token *t, uint64_t b)
{
	uint32_t i;

	for (i = 0; i < t->n; i++) {
		if (b < t->r[i].count) {
			return t->r[i].lba + b;
		}
		b -= t->r[i].count;
	}
	return UINT64_MAX;
}

static void
tok_write(struct fk *f, int lu, const struct xcm_tok_list *l, uint32_t lid, struct xch_cmd *c)
{
	struct fk_token *t = NULL;
	uint64_t b = l->offset, left = l->total_blocks;
	uint32_t i, k;

	for (i = 0; i < FK_TOKENS; i++) {
		if (f->token[i].live && xcm_rod_token_equal(f->token[i].rod, l->token)) {
			t = &f->token[i];
		}
	}
	if (t == NULL) {
		tok_fail(c, XCM_E_TOKEN_UNKNOWN);
		return;
	}
	if (l->offset + l->total_blocks > t->total) {
		tok_fail(c, XCM_E_INVALID_FIELD_PARAM);
		return;
	}
	if (f->wut_cap != 0 && left > f->wut_cap) {
		left = f->wut_cap;
	}
	if (f->nwut <= FK_WUT_LOG) {
		f->wut_lid[f->nwut - 1] = lid;
		f->wut_done[f->nwut - 1] = left;
		f->wut_off[f->nwut - 1] = l->offset;
		f->wut_blocks[f->nwut - 1] = l->total_blocks;
		f->wut_del[f->nwut - 1] = l->del_tkn;
	}
	for (i = 0; i < l->nranges; i++) {
		for (k = 0; k < l->range[i].count && left > 0; k++, b++, left--) {
			memcpy(f->lu[lu].data + (l->range[i].lba + k) * FK_BS,
			       f->lu[t->lu].data + tok_lba(t, b) * FK_BS, FK_BS);
		}
	}
	if (l->del_tkn && b == l->offset + l->total_blocks) {
		t->live = false;
		f->ndel++;
	}
}

/* POPULATE TOKEN or WRITE USING TOKEN received on LU lu. */
static void
tok_out(struct fk *f, int lu, struct xch_cmd *c)
{
	struct xcm_tok_out_req req;
	struct xcm_tok_list *l;
	struct xcm_err e;
	uint8_t sa = c->cdb[1] & 0x1F;
	int nth = sa == XCM_SA_POPULATE_TOKEN ? f->npt++ : f->nwut++;

	memset(&e, 0, sizeof(e));
	if (tok_scripted(f, sa, nth, c)) {
		return;
	}
	if (xcm_tok_out_cdb_check(c->cdb, c->cdb_len, &f->toklim, &req, &e) != XCM_OK) {
		tok_sense(c, &e);
		return;
	}
	l = calloc(1, sizeof(*l));
	UT_ASSERT_FATAL(l != NULL);
	if (xcm_tok_list_parse(sa, req.plen, xcm_span_make(c->buf, c->len), &f->toklim, FK_BLOCKS,
			       FK_BS, l, &e) != XCM_OK) {
		tok_sense(c, &e);
	} else if (sa == XCM_SA_POPULATE_TOKEN) {
		tok_populate(f, lu, l, req.list_id);
	} else {
		tok_write(f, lu, l, req.list_id, c);
	}
	free(l);
}

/* The logged WUT with this list id, or -1. */
static int
tok_wut_of(const struct fk *f, uint32_t lid)
{
	int i;

	for (i = (f->nwut < FK_WUT_LOG ? f->nwut : FK_WUT_LOG) - 1; i >= 0; i--) {
		if (f->wut_lid[i] == lid) {
			return i;
		}
	}
	return -1;
}

static void
tok_rrti(struct fk *f, struct xch_cmd *c)
{
	struct xcm_tok_in_req req;
	struct xcm_rcs4 st;
	struct xcm_err e;
	uint8_t b[1024];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	size_t n;
	int i;

	memset(&e, 0, sizeof(e));
	if (tok_scripted(f, XCM_SA_RRTI, f->nrrti++, c)) {
		return;
	}
	if (xcm_tok_in_cdb_check(c->cdb, c->cdb_len, &req, &e) != XCM_OK) {
		tok_sense(c, &e);
		return;
	}
	memset(&st, 0, sizeof(st));
	st.op_status = XCM_RCS4_DONE;
	st.est_delay_ms = 0xFFFFFFFEu;
	for (i = 0; i < FK_TOKENS; i++) {
		if (f->token[i].live && f->token[i].list_id == req.list_id) {
			break;
		}
	}
	if (i < FK_TOKENS) {
		st.sa = XCM_SA_POPULATE_TOKEN;
		xcm_rrti_encode(&st, f->token[i].total, f->token[i].rod, &w);
	} else if ((i = tok_wut_of(f, req.list_id)) >= 0) {
		st.sa = XCM_SA_WRITE_USING_TOKEN;
		if (f->wut_done[i] < f->wut_blocks[i]) {
			st.op_status = XCM_RCS4_DONE_RESIDUAL;
		}
		xcm_rrti_encode(&st, f->wut_done[i], NULL, &w);
	} else {
		tok_fail(c, XCM_E_INVALID_FIELD_CDB);
		return;
	}
	n = xcm_wbuf_stored(&w);
	memcpy(c->buf, b, n < c->len ? n : c->len);
	c->resid = c->len - (n < c->len ? n : c->len);
}

bool
fk_tok_cmd(struct fk *f, int lu, struct xch_cmd *c)
{
	uint8_t sa = c->cdb[1] & 0x1F;

	c->status = XCM_SAM_GOOD;
	if (c->cdb[0] == XCM_OP_INQUIRY && (c->cdb[1] & 1) && c->cdb[2] == XCM_VPD_TPC &&
	    (f->tok || f->no_lid1)) {
		f->nother++;
		fk_tok_vpd(f, c);
		return true;
	}
	if (c->cdb[0] == XCM_OP_XCOPY && f->no_lid1 && sa <= 0x01) {
		f->nother++;
		tok_fail(c, XCM_E_INVALID_FIELD_CDB);
		return true;
	}
	if (!f->tok) {
		return false;
	}
	if (c->cdb[0] == XCM_OP_XCOPY &&
	    (sa == XCM_SA_POPULATE_TOKEN || sa == XCM_SA_WRITE_USING_TOKEN)) {
		tok_out(f, lu, c);
		return true;
	}
	if (c->cdb[0] == XCM_OP_RCR && sa == XCM_SA_RRTI) {
		tok_rrti(f, c);
		return true;
	}
	return false;
}
