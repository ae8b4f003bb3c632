/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tcmu-runner handler's callouts (xt_handler_*, handler_xcopy.c holds
 * the table), split by job: tpc_in.c, vpd_inquiry.c, lu_io.c, lu_open.c,
 * sbc_check.c. Private to target/ (the iovec helpers: base/lu.h).
 */
#ifndef TARGET_TCMU_HANDLER_H
#define TARGET_TCMU_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "base/lu.h"

/* tpc_in.c, vpd_inquiry.c: data-in commands answered by the handler */
int xt_handler_rcr(struct xcm_lu *lu, struct tcmulib_cmd *lc);
int xt_handler_rsoc(struct xcm_lu *lu, struct tcmulib_cmd *lc);
int xt_handler_inquiry(struct xcm_lu *lu, struct tcmulib_cmd *lc);
/* RRTI / REPORT ALL ROD TOKENS (command thread): *rsp malloc'd (caller frees); TCMU_STS code. */
int xt_odx_token_in(struct xcm_lu *lu, struct tcmulib_cmd *lc, uint8_t **rsp, size_t *len);

/* lu_io.c */
int xt_handler_read(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		    size_t cnt, size_t len, off_t off);
int xt_handler_write(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		     size_t cnt, size_t len, off_t off);
int xt_handler_flush(struct tcmu_device *dev, struct tcmur_cmd *cmd);
int xt_handler_unmap(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len);
int xt_handler_write_same(struct tcmu_device *dev, struct xcm_lu *lu, struct tcmulib_cmd *lc);

/* lu_open.c */
bool xt_handler_check_config(const char *cfgstring, char **reason);
int xt_handler_open(struct tcmu_device *dev, bool reopen);
void xt_handler_close(struct tcmu_device *dev);
int xt_handler_reconfig(struct tcmu_device *dev, struct tcmulib_cfg_info *cfg);

/*
 * sbc_check.c: block command field checks the runner's core does not make.
 * TCMU_STS_NOT_HANDLED if the CDB may go on to the core; else
 * TCMU_STS_PASSTHROUGH_ERR with fixed sense (ILLEGAL REQUEST, INVALID FIELD
 * IN CDB, field pointer) written to sense[0..cap).
 */
int xt_sbc_check(const uint8_t *cdb, uint8_t *sense, size_t cap);

#endif /* TARGET_TCMU_HANDLER_H */
