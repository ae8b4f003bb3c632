/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ODX in the target: POPULATE TOKEN / WRITE USING TOKEN jobs (odx.c,
 * odx_wut.c), run by the copy manager through struct xt_odx_ops (cm/cm.h).
 * The token table: tokens/tokens.h; RRTI / REPORT ALL ROD TOKENS:
 * tcmu/tpc_in.c. Private to target/.
 */
#ifndef TARGET_ODX_H
#define TARGET_ODX_H

#include "xcm/token.h"
#include "cm/cm.h"
#include "tokens/tokens.h"

/* odx.c: what a PT/WUT job carries (xt_job.odx). */
struct xt_odx_op {
	uint8_t sa;
	struct xcm_tok_list l;
};
/* The token limits of lu (reflink stores make persistent point-in-time tokens). */
const struct xcm_tok_limits *xt_tok_limits(const struct xt_lu *lu);
/* Parse a PT/WUT list (command thread) into job->odx, job->list ids. */
enum xcm_status xt_odx_parse(struct xt_lu *lu, const struct xcm_tpc_out_req *req,
			     const uint8_t *plist, uint32_t have, struct xt_job *job,
			     struct xcm_err *err);
/* Run a PT/WUT job (worker). */
enum xcm_status xt_odx_execute(struct xt_job *job, struct xcm_exec_result *res,
			       struct xcm_err *err);
/* xt_odx_parse and xt_odx_execute: the handler hands this table to each LU at open (xt_cm_init) */
extern const struct xt_odx_ops xt_odx_ops;
/* odx.c helpers for odx_wut.c */
enum xcm_status xt_odx_stop(const struct xt_job *job);
struct xt_lu *xt_odx_snap_view(const struct xt_lu *lu, int fd);
enum xcm_status xt_odx_zero(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err);
enum xcm_status xt_odx_wut(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err);
/*
 * The C0h segment of an EXTENDED COPY job (the backend's token_copy,
 * docs/remote-tokens.md): redeem our token t->token into t's ranges of dst
 * (a LU here or a remote LU), as a WRITE USING TOKEN received on job->lu
 * would. The engine's token_copy contract: XCM_OK, a token status (23/xx),
 * XCM_E_CA_DEVICE_FAILURE with *ioerr, or a COPY ABORTED status.
 */
enum xcm_status xt_odx_redeem(struct xt_job *job, struct xt_lu *dst, const struct xcm_tok_seg *t,
			      uint64_t *bytes, struct xcm_io_err *ioerr);

#endif /* TARGET_ODX_H */
