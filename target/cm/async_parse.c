/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Command-thread side of async.c: the command counters, and EXTENDED COPY /
 * POPULATE TOKEN / WRITE USING TOKEN parameter lists into a job (async.c
 * queues the job afterwards). Limits and sense: cm_limits.c.
 */
#include <stdlib.h>
#include <string.h>

#include "xcm/lid4.h"
#include "xcm/token.h"
#include "cm/cm.h"

void
xt_count_cmd(struct xt_lu *lu, bool ok)
{
	XT_STAT_ADD(lu, commands, 1);
	if (ok) {
		XT_STAT_ADD(lu, commands_ok, 1);
	} else {
		XT_STAT_ADD(lu, errors, 1);
	}
}

/*
 * Copy the first min(PARAMETER LIST LENGTH, the largest list we take)
 * bytes of the data-out into lu->cm->plist; *need: that many.
 */
static enum xcm_status
flatten_plist(struct xt_lu *lu, const struct xt_scsi *c, uint32_t plen, uint32_t *need,
	      struct xcm_err *err)
{
	size_t have = 0, i;

	/* capped before anything is read or allocated */
	*need = xcm_limits_max_param_len(xt_limits());
	if (plen < *need) {
		*need = plen;
	}
	for (i = 0; i < c->iov_cnt; i++) {
		have += c->iov[i].iov_len;
	}
	if (*need > lu->cm->plist_cap || have < *need) {
		/* the transfer holds fewer bytes than the CDB announces */
		xcm_err_set(err, XCM_E_PARAM_LIST_LEN);
		return XCM_E_PARAM_LIST_LEN;
	}
	for (i = 0, have = 0; i < c->iov_cnt && have < *need; i++) {
		size_t n = c->iov[i].iov_len < *need - have ? c->iov[i].iov_len : *need - have;

		memcpy(lu->cm->plist + have, c->iov[i].iov_base, n);
		have += n;
	}
	return XCM_OK;
}

enum xcm_status
xt_job_parse(struct xt_lu *lu, const struct xt_scsi *c, const struct xcm_tpc_out_req *req,
	     struct xt_job **jobp, struct xcm_err *err)
{
	struct xt_job *job;
	enum xcm_status st;
	uint32_t need = 0;

	*jobp = NULL;
	st = flatten_plist(lu, c, req->plen, &need, err);
	if (st != XCM_OK) {
		return st;
	}
	job = calloc(1, sizeof(*job));
	if (job == NULL) {
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return XCM_E_INSUFFICIENT_RESOURCES;
	}
	*jobp = job;
	if ((req->sa == XCM_SA_POPULATE_TOKEN || req->sa == XCM_SA_WRITE_USING_TOKEN) &&
	    lu->cm->odx == NULL) {
		/* a LU opened without the ODX layer: the service action is not served */
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, 1, 4);   /* SERVICE ACTION */
		st = XCM_E_INVALID_FIELD_CDB;
	} else if (req->sa == XCM_SA_POPULATE_TOKEN || req->sa == XCM_SA_WRITE_USING_TOKEN) {
		st = lu->cm->odx->parse(lu, req, lu->cm->plist, need, job, err);   /* odx/odx.c */
	} else if (req->sa == XCM_SA_XCOPY_LID4) {
		st = xcm_list_parse_lid4(req->plen, xcm_span_make(lu->cm->plist, need), xt_limits(),
					 &job->list, err);
	} else {
		st = xcm_list_parse(req->plen, xcm_span_make(lu->cm->plist, need), xt_limits(),
				    &job->list, err);
	}
	if (st != XCM_OK) {
		xt_lu_dbg(lu, "xcopy: parameter list rejected: %s\n", xcm_status_info(st)->name);
		return st;
	}
	job->copy.bounce[0] = xt_bounce_new();
	if (job->copy.bounce[0] == NULL) {
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return XCM_E_INSUFFICIENT_RESOURCES;
	}
	return XCM_OK;
}
