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
/* Do the first len bytes of iov hold only zeros (false if it holds fewer)? */
bool xt_iov_is_zero(const struct iovec *iov, size_t cnt, size_t len);
int xt_iov_io(int fd, const struct iovec *iov, size_t cnt, size_t len, off_t off, bool wr);
#define XT_IOV_CLIP_MAX 1024
struct xt_iov_clip {
	struct iovec *v;
	size_t n;
	void *bounce;
};
int xt_iov_clip(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len, bool wr);
void xt_iov_clip_done(struct xt_iov_clip *c, const struct iovec *iov, size_t cnt, size_t len,
		      bool scatter);

/*
 * The store under an LU's ordinary I/O (read, write, flush, unmap): the
 * backing file (store_file.c) or an RBD image (store_rbd.c), chosen by the
 * cfgstring (xcopy//PATH or xcopy/rbd/POOL/IMAGE). Every call is synchronous
 * on the calling thread (the runner's workers); 0 or -errno. EXTENDED COPY
 * goes through xt_lu_copy (store_copy.c); ROD tokens (odx.c) and write-behind
 * work on lu->fd: file LUs only.
 */
struct xt_store_ops {
	const char *name;                                          /* "file", "rbd" */
	/* check_config: may the LU be opened? 0, or -errno with a reason in why */
	int (*check)(const char *cfgstring, char *why, size_t whylen);
	/* open the store of lu->dev (logs its reasons); *size: the store's bytes */
	int (*open)(struct xcm_lu *lu, uint64_t *size);
	void (*close)(struct xcm_lu *lu);
	int (*size)(struct xcm_lu *lu, uint64_t *bytes);
	int (*io)(struct xcm_lu *lu, const struct iovec *iov, size_t cnt, size_t len,
		  uint64_t off, bool wr);
	int (*flush)(struct xcm_lu *lu);
	/* UNMAP / WRITE SAME with UNMAP: reads return zeros afterwards (LBPRZ = 1) */
	int (*zero)(struct xcm_lu *lu, uint64_t off, uint64_t len);
	/*
	 * Optional: copy between two LUs of this store inside the store (RBD:
	 * RADOS copy-from when safe, else librbd read/write; counted in acct).
	 * Ranges are inside both LUs; on one LU they may overlap (memmove).
	 * 0, or -errno with *at_dst and *done (bytes copied before it failed).
	 */
	int (*copy)(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff,
		    uint64_t len, struct xt_copy_acct *acct, bool *at_dst, uint64_t *done);
	/*
	 * Optional (stores other processes can write behind this one, RBD):
	 * may a change vulnerable ROD token of lu stand? At POPULATE TOKEN
	 * (at_use false) it makes sure no other client can write lu's store
	 * until the token is gone; at WRITE USING TOKEN (true) it checks that
	 * still holds. 0, or -errno with a reason in why.
	 */
	int (*token_guard)(struct xcm_lu *lu, bool at_use, char *why, size_t whylen);
};
extern const struct xt_store_ops xt_store_file;
extern const struct xt_store_ops xt_store_rbd;

/*
 * store_copy.c: one chunk of an EXTENDED COPY segment between two LUs,
 * dispatched by their stores: file to file by xt_par_copy (bounce[0..nb));
 * (clone, cfr: the receiving LU's policy); two LUs of a store with a copy
 * op by that op; anything else (file and RBD) by the stores' io through bounce[0] (XT_BOUNCE_LEN) in this process,
 * backwards for overlapping ranges of one LU moving up. 0 or -errno with
 * *at_dst, *done.
 */
int xt_lu_copy(struct xcm_lu *src, uint64_t soff, struct xcm_lu *dst, uint64_t doff,
	       uint64_t len, uint8_t *const *bounce, unsigned int nb, enum xt_clone clone,
	       enum xt_cfr cfr, struct xt_copy_acct *acct, bool *at_dst, uint64_t *done);
/*
 * Do src and dst share a store whose copy op moves the bytes itself (two
 * RBD LUs: copy-from inside the cluster), with no fault armed on either?
 */
bool xt_lu_store_copies(const struct xcm_lu *src, const struct xcm_lu *dst);
/*
 * Chunks of a list received on an RBD LU, the most one merged run of
 * contiguous segments between two RBD LUs carries, and the WRITE USING
 * TOKEN chunk between them: 128 MiB, 32 objects of RBD's default 4 MiB, one
 * batch of rbd_copy.c (copy-from keeps 8 objects in flight across it; the
 * safety check, flushes and object-map marker writes are per call). Hosts
 * send segments of a few MiB (libxcopy 4 MiB, Windows and ESXi alike): one
 * call per segment would copy one object at a time. A chunk holds whole
 * objects of up to 128 MiB (order 27).
 */
#define XT_RBD_CHUNK (UINT64_C(128) << 20)
/* backend.c: add what a copy moved, by path, to lu's counters (caller holds stats_lock) */
void xt_stats_add_acct(struct xt_stats *s, const struct xt_copy_acct *a);
/* Is lu's store the backing file (page cache, fd, clones, tokens)? */
bool xt_lu_is_file(const struct xcm_lu *lu);
/*
 * store_rbd.c: the calling thread's copy deadline (xos_now_ms() clock, 0:
 * none): the RBD store's io waits no longer (store_copy.c sets it around
 * its gateway pieces; the runner's workers also serve ordinary I/O).
 */
void xt_store_deadline(uint64_t deadline_ms);

/*
 * An LU as lu_open.c allocates it: the engine-facing struct xcm_lu first,
 * then its store. Only LUs opened by xt_handler_open are xt_lu_x.
 */
struct xt_lu_x {
	struct xcm_lu lu;
	const struct xt_store_ops *ops;
	void *priv;                                                /* struct xt_rbd * (rbd) */
};

static inline struct xt_lu_x *
xt_lux(const struct xcm_lu *lu)
{
	return (struct xt_lu_x *)lu;
}

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
int xt_handler_write_same(struct tcmu_device *dev, struct xcm_lu *lu, struct tcmulib_cmd *lc);

/* lu_open.c */
bool xt_handler_check_config(const char *cfgstring, char **reason);
int xt_handler_open(struct tcmu_device *dev, bool reopen);
void xt_handler_close(struct tcmu_device *dev);
int xt_handler_reconfig(struct tcmu_device *dev, struct tcmulib_cfg_info *cfg);

#endif
