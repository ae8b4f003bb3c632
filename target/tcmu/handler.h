/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tcmu-runner handler's callouts (xt_handler_*, handler_xcopy.c holds
 * the table), split by job: tpc_in.c, vpd_inquiry.c, lu_io.c, write_same.c,
 * lu_open.c, sbc_check.c. Private to target/ (the iovec helpers: base/lu.h).
 */
#ifndef TARGET_TCMU_HANDLER_H
#define TARGET_TCMU_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "base/lu.h"
#include "tcmu/tcmu_abi.h"

struct xcm_err;
struct xt_scsi;                   /* cm/cm.h */
enum xt_sts;
struct xt_job;

/* tpc_in.c, vpd_inquiry.c: data-in commands answered by the handler */
int xt_handler_rcr(struct xt_lu *lu, struct tcmulib_cmd *lc);
int xt_handler_rsoc(struct xt_lu *lu, struct tcmulib_cmd *lc);
int xt_handler_inquiry(struct xt_lu *lu, struct tcmulib_cmd *lc);
/* RRTI / REPORT ALL ROD TOKENS (command thread): *rsp malloc'd (caller frees); TCMU_STS code. */
int xt_odx_token_in(struct xt_lu *lu, struct tcmulib_cmd *lc, uint8_t **rsp, size_t *len);

/* lu_io.c */
int xt_handler_read(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		    size_t cnt, size_t len, off_t off);
int xt_handler_write(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		     size_t cnt, size_t len, off_t off);
int xt_handler_flush(struct tcmu_device *dev, struct tcmur_cmd *cmd);
int xt_handler_unmap(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len);
/* write_same.c: WRITE SAME with UNMAP = 1 as a job on a worker; UNMAP = 0 and errors: the core's */
int xt_handler_write_same(struct tcmu_device *dev, struct xt_lu *lu, struct tcmur_cmd *cmd);

/* lu_host.c: the runner's answers about a LU (lu->host, set at open) */
extern const struct xt_lu_host xt_tcmu_host;

/*
 * tcmu_cmd.c: the runner's command as the copy manager's struct xt_scsi
 * (no job), an enum xt_sts as a TCMU_STS code (XT_STS_QUEUED: cmd handed
 * to a worker as SYNCHRONIZE CACHE with c->job, TCMU_STS_NOT_HANDLED; cmd
 * may be NULL where nothing is queued), err's sense into lc
 * (TCMU_STS_PASSTHROUGH_ERR).
 */
void xt_tcmu_scsi(struct tcmulib_cmd *lc, struct xt_scsi *c);
int xt_tcmu_sts(struct tcmur_cmd *cmd, const struct xt_scsi *c, enum xt_sts sts);
int xt_tcmu_fail(struct tcmulib_cmd *lc, const struct xcm_err *err);
/* handle_cmd, 83h: the copy manager's xt_async_submit, answered or handed to a worker */
int xt_tcmu_submit(struct xt_lu *lu, struct tcmur_cmd *cmd);
/* flush callout: true if cmd carries one of our jobs (run now, *sts its TCMU_STS code) */
bool xt_tcmu_run(struct xt_lu *lu, struct tcmur_cmd *cmd, int *sts);

/*
 * runner.c: is the running tcmu-runner 1.5.4 (the dispatch cm/async.c and
 * tcmu_cmd.c rely on)? NULL if yes, else the reason. xt_fd_has_cstring:
 * does the file read from fd hold s as a NUL-delimited C string?
 */
const char *xt_runner_unsupported(void);
bool xt_fd_has_cstring(int fd, const char *s);

/*
 * handler_xcopy.c: the LU's state for the command table (cmds/): mode from
 * the cfgstring, ALUA and PR conditions read from configfs (lio/) only when
 * probe (reporting).
 */
struct xt_lu_state;
void xt_lu_state_get(const struct xt_lu *lu, bool probe, struct xt_lu_state *s);

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
