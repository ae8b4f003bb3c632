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

static const struct xt_odx_ops *g_odx;

void
xt_cm_set_odx(const struct xt_odx_ops *ops)
{
	g_odx = ops;
}

const struct xt_odx_ops *
xt_cm_odx(void)
{
	return g_odx;
}

void
xt_count_cmd(struct xcm_lu *lu, bool ok)
{
	pthread_mutex_lock(&lu->stats_lock);
	lu->stats.commands++;
	if (ok) {
		lu->stats.commands_ok++;
	} else {
		lu->stats.errors++;
	}
	pthread_mutex_unlock(&lu->stats_lock);
}

/*
 * Copy the first min(PARAMETER LIST LENGTH, the largest list we take)
 * bytes of the data-out into lu->plist; *need: that many.
 */
static enum xcm_status
flatten_plist(struct xcm_lu *lu, struct tcmulib_cmd *lc, uint32_t plen, uint32_t *need,
	      struct xcm_err *err)
{
	size_t have = 0, i;

	/* capped before anything is read or allocated */
	*need = xcm_limits_max_param_len(xt_limits());
	if (plen < *need) {
		*need = plen;
	}
	for (i = 0; i < lc->iov_cnt; i++) {
		have += lc->iovec[i].iov_len;
	}
	if (*need > lu->plist_cap || have < *need) {
		/* the transfer holds fewer bytes than the CDB announces */
		xcm_err_set(err, XCM_E_PARAM_LIST_LEN);
		return XCM_E_PARAM_LIST_LEN;
	}
	for (i = 0, have = 0; i < lc->iov_cnt && have < *need; i++) {
		size_t n = lc->iovec[i].iov_len < *need - have ? lc->iovec[i].iov_len
							       : *need - have;

		memcpy(lu->plist + have, lc->iovec[i].iov_base, n);
		have += n;
	}
	return XCM_OK;
}

enum xcm_status
xt_job_parse(struct xcm_lu *lu, struct tcmulib_cmd *lc, const struct xcm_tpc_out_req *req,
	     struct xt_job **jobp, struct xcm_err *err)
{
	struct xt_job *job;
	enum xcm_status st;
	uint32_t need = 0;

	*jobp = NULL;
	st = flatten_plist(lu, lc, req->plen, &need, err);
	if (st != XCM_OK) {
		return st;
	}
	job = calloc(1, sizeof(*job));
	if (job == NULL) {
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return XCM_E_INSUFFICIENT_RESOURCES;
	}
	*jobp = job;
	if (req->sa == XCM_SA_POPULATE_TOKEN || req->sa == XCM_SA_WRITE_USING_TOKEN) {
		st = xt_cm_odx()->parse(lu, req, lu->plist, need, job, err);   /* odx/odx.c */
	} else if (req->sa == XCM_SA_XCOPY_LID4) {
		st = xcm_list_parse_lid4(req->plen, xcm_span_make(lu->plist, need), xt_limits(),
					 &job->list, err);
	} else {
		st = xcm_list_parse(req->plen, xcm_span_make(lu->plist, need), xt_limits(),
				    &job->list, err);
	}
	if (st != XCM_OK) {
		tcmu_dev_dbg(lu->dev, "xcopy: parameter list rejected: %s\n",
			     xcm_status_info(st)->name);
		return st;
	}
	job->bounce[0] = malloc(XT_BOUNCE_LEN);
	if (job->bounce[0] == NULL) {
		xcm_err_set(err, XCM_E_INSUFFICIENT_RESOURCES);
		return XCM_E_INSUFFICIENT_RESOURCES;
	}
	return XCM_OK;
}
