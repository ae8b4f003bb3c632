/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Data-in third-party copy commands the handler answers itself:
 * RECEIVE COPY RESULTS (84h: LID1 service actions, RECEIVE COPY STATUS LID4,
 * RRTI, REPORT ALL ROD TOKENS: SPC-4 6.19.4, 6.19.5) and REPORT SUPPORTED
 * OPERATION CODES (A3h/0Ch).
 */
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"
#include "cmds/cmds.h"
#include "lio/lio.h"
#include "tcmu/handler.h"
#include "tokens/tokens.h"

int
xt_handler_rcr(struct xt_lu *lu, struct tcmulib_cmd *lc)
{
	struct xcm_rcr_req req;
	struct xcm_wbuf w;
	struct xcm_err err;
	enum xcm_status st;

	memset(&err, 0, sizeof(err));
	if ((lc->cdb[1] & 0x1F) == XCM_SA_RRTI || (lc->cdb[1] & 0x1F) == XCM_SA_RART) {
		/* RECEIVE ROD TOKEN INFORMATION, REPORT ALL ROD TOKENS (odx_wut.c) */
		uint8_t *buf = NULL;
		size_t n = 0;
		int sts = xt_odx_token_in(lu, lc, &buf, &n);

		if (sts == TCMU_STS_OK) {
			xt_iov_fill(lc->iovec, lc->iov_cnt, buf, n);
		}
		free(buf);
		return sts;
	}
	if ((lc->cdb[1] & 0x1F) == XCM_SA_RCS_LID4) {
		/* RECEIVE COPY STATUS (LID4): 4-byte list id (async.c) */
		size_t n = 0;
		struct xt_scsi c;
		enum xt_sts sts;

		xt_tcmu_scsi(lc, &c);
		sts = xt_async_rcs4(lu, &c, lu->rsp, sizeof(lu->rsp), &n);
		if (sts == XT_STS_GOOD) {
			xt_iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, n);
		}
		return xt_tcmu_sts(NULL, &c, sts);   /* GOOD or CHECK CONDITION */
	}
	st = xcm_rcr_cdb_check(lc->cdb, XCM_CDB16_LEN, &req, &err);
	if (st == XCM_OK) {
		w = xcm_wbuf_make(lu->rsp, req.alloc_len < sizeof(lu->rsp) ? req.alloc_len
									 : sizeof(lu->rsp));
		st = xt_async_rcr(lu, &req, &w, &err);
	}
	if (st != XCM_OK) {
		return xt_tcmu_fail(lc, &err);
	}
	XT_STAT_ADD(lu, rcr, 1);
	xt_iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, xcm_wbuf_stored(&w));
	return TCMU_STS_OK;
}


/* REPORT SUPPORTED OPERATION CODES: the command table (cmds.c) as this LU serves it now. */
int
xt_handler_rsoc(struct xt_lu *lu, struct tcmulib_cmd *lc)
{
	struct xt_lu_state st;
	struct xcm_err err;
	size_t n = 0;

	memset(&err, 0, sizeof(err));
	xt_lu_state_get(lu, true, &st);
	if (xt_rsoc(&st, lc->cdb, lu->rsp, sizeof(lu->rsp), &n, &err) != XCM_OK) {
		return xt_tcmu_fail(lc, &err);
	}
	xt_iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, n);
	return TCMU_STS_OK;
}

/* RRTI (SPC-4 6.19.4): the LID4 status, in blocks, with the token after a PT. */
static int
rrti(struct xt_lu *lu, struct tcmulib_cmd *lc, const struct xcm_tok_in_req *req,
     struct xcm_wbuf *w)
{
	uint8_t tok[XCM_ROD_TOKEN_LEN];
	struct xcm_rcs4 st4;
	struct xcm_err err;
	bool has = false;

	if (!xt_async_status4(lu, req->list_id, &st4)) {
		/* a list identifier this LU never ran (or forgot): byte 2 */
		xcm_err_set_field(&err, XCM_E_INVALID_FIELD_CDB, true, 2, -1);
		return xt_tcmu_fail(lc, &err);
	}
	if (st4.sa == XCM_SA_POPULATE_TOKEN && st4.op_status == XCM_RCS4_DONE) {
		has = xt_tok_of_list(lu->tok, req->list_id, tok);
	}
	xcm_rrti_encode(&st4, st4.bytes / xt_lu_block_size(lu), has ? tok : NULL, w);
	return TCMU_STS_OK;
}

int
xt_odx_token_in(struct xt_lu *lu, struct tcmulib_cmd *lc, uint8_t **rsp, size_t *len)
{
	const size_t cap = 8 + XT_TOK_MAX * XCM_ROD_TOKEN_LEN + XCM_RCS4_HDR_LEN + XCM_SENSE_MAX;
	uint8_t(*toks)[XCM_ROD_TOKEN_LEN] = NULL;
	const uint8_t *list[XT_TOK_MAX];
	struct xcm_tok_in_req req;
	struct xcm_wbuf w;
	struct xcm_err err;
	size_t n, i;
	int sts = TCMU_STS_OK;

	*rsp = NULL;
	*len = 0;
	if (xcm_tok_in_cdb_check(lc->cdb, XCM_CDB16_LEN, &req, &err) != XCM_OK) {
		return xt_tcmu_fail(lc, &err);
	}
	*rsp = malloc(cap);
	toks = malloc(sizeof(*toks) * XT_TOK_MAX);
	if (*rsp == NULL || toks == NULL) {
		free(toks);
		xcm_err_set(&err, XCM_E_INSUFFICIENT_RESOURCES);
		return xt_tcmu_fail(lc, &err);
	}
	w = xcm_wbuf_make(*rsp, req.alloc_len < cap ? req.alloc_len : cap);
	if (req.sa == XCM_SA_RART) {
		n = xt_tok_report(lu->tok, toks, XT_TOK_MAX);
		for (i = 0; i < n; i++) {
			list[i] = toks[i];
		}
		xcm_rart_encode(list, n, &w);
	} else {
		sts = rrti(lu, lc, &req, &w);
	}
	free(toks);
	*len = xcm_wbuf_stored(&w);
	return sts;
}
