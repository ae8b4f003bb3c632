/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Data-in third-party copy commands the handler answers itself:
 * RECEIVE COPY RESULTS (84h: LID1 service actions, RECEIVE COPY STATUS LID4,
 * RRTI, REPORT ALL ROD TOKENS) and REPORT SUPPORTED OPERATION CODES (A3h/0Ch).
 */
#include <stdlib.h>
#include <string.h>

#include "handler.h"
#include "odx.h"

int
xt_handler_rcr(struct xcm_lu *lu, struct tcmulib_cmd *lc)
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
		int sts = xt_async_rcs4(lu, lc, lu->rsp, sizeof(lu->rsp), &n);

		if (sts == TCMU_STS_OK) {
			xt_iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, n);
		}
		return sts;
	}
	st = xcm_rcr_cdb_check(lc->cdb, XCM_CDB16_LEN, &req, &err);
	if (st == XCM_OK) {
		w = xcm_wbuf_make(lu->rsp, req.alloc_len < sizeof(lu->rsp) ? req.alloc_len
									 : sizeof(lu->rsp));
		st = xt_async_rcr(lu, &req, &w, &err);
	}
	if (st != XCM_OK) {
		return xt_fail_sense(lc, &err);
	}
	pthread_mutex_lock(&lu->stats_lock);
	lu->stats.rcr++;
	pthread_mutex_unlock(&lu->stats_lock);
	xt_stats_write(lu);
	xt_iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, xcm_wbuf_stored(&w));
	return TCMU_STS_OK;
}


/* REPORT SUPPORTED OPERATION CODES: the command table (cmds.c) as this LU serves it now. */
int
xt_handler_rsoc(struct xcm_lu *lu, struct tcmulib_cmd *lc)
{
	struct xt_lu_state st;
	struct xcm_err err;
	size_t n = 0;

	memset(&err, 0, sizeof(err));
	xt_lu_state_get(lu, true, &st);
	if (xt_rsoc(&st, lc->cdb, lu->rsp, sizeof(lu->rsp), &n, &err) != XCM_OK) {
		return xt_fail_sense(lc, &err);
	}
	xt_iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, n);
	return TCMU_STS_OK;
}
