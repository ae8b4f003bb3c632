/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tcmu-runner handler's callouts (xt_handler_*, handler_xcopy.c holds the table)
 * and its iovec helpers, split by job: iov.c, tpc_in.c, vpd_inquiry.c,
 * lu_io.c, lu_open.c. Private to target/.
 */
#ifndef TARGET_HANDLER_H
#define TARGET_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "xcopy_target.h"

/* iov.c */
void xt_iov_fill(const struct iovec *iov, size_t cnt, const uint8_t *src, size_t len);
int xt_iov_io(int fd, const struct iovec *iov, size_t cnt, size_t len, off_t off, bool wr);

/* tpc_in.c, vpd_inquiry.c: data-in commands answered by the handler */
int xt_handler_rcr(struct xcm_lu *lu, struct tcmulib_cmd *lc);
int xt_handler_rsoc(struct xcm_lu *lu, struct tcmulib_cmd *lc);
int xt_handler_inquiry(struct xcm_lu *lu, struct tcmulib_cmd *lc);

/* lu_io.c */
int xt_handler_read(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		    size_t cnt, size_t len, off_t off);
int xt_handler_write(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		     size_t cnt, size_t len, off_t off);
int xt_handler_flush(struct tcmu_device *dev, struct tcmur_cmd *cmd);
int xt_handler_unmap(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len);

/* lu_open.c */
bool xt_handler_check_config(const char *cfgstring, char **reason);
int xt_handler_open(struct tcmu_device *dev, bool reopen);
void xt_handler_close(struct tcmu_device *dev);
int xt_handler_reconfig(struct tcmu_device *dev, struct tcmulib_cfg_info *cfg);

#endif
