/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * handler_xcopy.so: tcmu-runner 1.5.4 handler for the user:xcopy backstore.
 *
 * A file-backed LU whose ordinary I/O (READ/WRITE/SYNC/UNMAP...) goes through
 * tcmu-runner's core emulation and our read/write/flush/unmap callouts, and
 * whose third-party copy commands are answered by the xcm engine:
 *   EXTENDED COPY (83h LID1), RECEIVE COPY RESULTS (84h, LID1 SAs),
 *   INQUIRY VPD 00h (adds 8Fh to the core's list) and VPD 8Fh, and
 *   REPORT SUPPORTED OPERATION CODES (A3h/0Ch).
 * handle_cmd is called first for every CDB, synchronously on the LU's command
 * thread (tcmu-runner 1.5.4 tcmur_generic_handle_cmd → handle_try_passthrough,
 * before the core's own emulation), and dispatches by the command table of cmds.c: rows the
 * core executes return TCMU_STS_NOT_HANDLED, CDBs without a row
 * TCMU_STS_INVALID_CMD.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "odx.h"

int handler_init(void);

/* VPD pages tcmu-runner 1.5.4's core serves (its VPD 00h list) plus ours, ascending. */
static const uint8_t g_vpd_pages[] = { 0x00, 0x80, 0x83, XCM_VPD_TPC, 0xB0, 0xB1, 0xB2 };

/* ------------------------------------------------------------------------ */
/* iovec helpers (never modify the caller's iovec)                            */
/* ------------------------------------------------------------------------ */

/* Data-in: src then zeros for the rest of the buffer (no stale ring bytes leak). */
static void
iov_fill(const struct iovec *iov, size_t cnt, const uint8_t *src, size_t len)
{
	size_t i, n;

	for (i = 0; i < cnt; i++) {
		n = iov[i].iov_len < len ? iov[i].iov_len : len;
		if (n > 0) {
			memcpy(iov[i].iov_base, src, n);
		}
		memset((uint8_t *)iov[i].iov_base + n, 0, iov[i].iov_len - n);
		src += n;
		len -= n;
	}
}

/* ------------------------------------------------------------------------ */
/* Third-party copy commands                                                  */
/* ------------------------------------------------------------------------ */

static int
do_rcr(struct xcm_lu *lu, struct tcmulib_cmd *lc)
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
			iov_fill(lc->iovec, lc->iov_cnt, buf, n);
		}
		free(buf);
		return sts;
	}
	if ((lc->cdb[1] & 0x1F) == XCM_SA_RCS_LID4) {
		/* RECEIVE COPY STATUS (LID4): 4-byte list id (async.c) */
		size_t n = 0;
		int sts = xt_async_rcs4(lu, lc, lu->rsp, sizeof(lu->rsp), &n);

		if (sts == TCMU_STS_OK) {
			iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, n);
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
	iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, xcm_wbuf_stored(&w));
	return TCMU_STS_OK;
}

/* INQUIRY EVPD 00h / 8Fh; other pages and standard INQUIRY go to the core. */
static int
do_inquiry(struct xcm_lu *lu, struct tcmulib_cmd *lc)
{
	const uint8_t *cdb = lc->cdb;
	uint32_t alloc = xcm_get_be16(cdb + 3);
	struct xcm_wbuf w;

	if ((cdb[1] & 0x01) == 0 || (cdb[2] != 0x00 && cdb[2] != XCM_VPD_TPC)) {
		return TCMU_STS_NOT_HANDLED;
	}
	w = xcm_wbuf_make(lu->rsp, alloc < sizeof(lu->rsp) ? alloc : sizeof(lu->rsp));
	if (cdb[2] == 0x00) {
		xcm_wbuf_put8(&w, 0x00);   /* qualifier 000b, direct access block device */
		xcm_wbuf_put8(&w, 0x00);
		xcm_wbuf_put16(&w, (uint16_t)sizeof(g_vpd_pages));
		xcm_wbuf_put(&w, g_vpd_pages, sizeof(g_vpd_pages));
	} else {
		xcm_vpd_tpc_encode_tok(xt_limits(), xt_tok_limits(lu), tcmu_dev_get_block_size(lu->dev),
				       0x00, &w);
	}
	iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, xcm_wbuf_stored(&w));
	return TCMU_STS_OK;
}

/* REPORT SUPPORTED OPERATION CODES: the command table (cmds.c) as this LU serves it now. */
static int
do_rsoc(struct xcm_lu *lu, struct tcmulib_cmd *lc)
{
	struct xt_lu_state st;
	struct xcm_err err;
	size_t n = 0;

	memset(&err, 0, sizeof(err));
	xt_lu_state_get(lu, true, &st);
	if (xt_rsoc(&st, lc->cdb, lu->rsp, sizeof(lu->rsp), &n, &err) != XCM_OK) {
		return xt_fail_sense(lc, &err);
	}
	iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, n);
	return TCMU_STS_OK;
}

/* Data-in commands tcmu-runner 1.5.4's core answers (its command table). */
static bool
core_data_in(uint8_t op)
{
	switch (op) {
	case 0x03:   /* REQUEST SENSE */
	case 0x12:   /* INQUIRY */
	case 0x1A:   /* MODE SENSE(6) */
	case 0x25:   /* READ CAPACITY(10) */
	case 0x5A:   /* MODE SENSE(10) */
	case 0x9E:   /* SERVICE ACTION IN(16): READ CAPACITY(16) */
	case 0xA3:   /* MAINTENANCE IN: REPORT TARGET PORT GROUPS */
		return true;
	default:
		return false;
	}
}

/*
 * Dispatch by the command table (cmds.c), the same table REPORT SUPPORTED
 * OPERATION CODES reports. A CDB without a row gets INVALID COMMAND
 * OPERATION CODE here, as the core would answer it; an unlisted service
 * action of an opcode the plugin executes goes to that handler, whose
 * engine check answers INVALID FIELD IN CDB.
 */
static int
xh_handle_cmd(struct tcmu_device *dev, struct tcmur_cmd *cmd)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	struct tcmulib_cmd *lc = cmd->lib_cmd;
	const struct xt_cmd *row, *same_op = NULL;
	struct xt_lu_state st;
	int sts;

	if (lu == NULL) {
		return TCMU_STS_NOT_HANDLED;
	}
	if (core_data_in(lc->cdb[0])) {
		/*
		 * The core writes only its response's bytes into the TCMU data
		 * area, whose pages keep earlier commands' data: zero the whole
		 * data-in buffer first so nothing leaks to the initiator
		 * (libiscsi Inquiry.Standard: "Padding data is not zero").
		 */
		iov_fill(lc->iovec, lc->iov_cnt, NULL, 0);
	}
	/* CDB fields the core would accept and misexecute (sbc_check.c) */
	sts = xt_sbc_check(lc->cdb, lc->sense_buf, sizeof(lc->sense_buf));
	if (sts != TCMU_STS_NOT_HANDLED) {
		return sts;
	}
	xt_lu_state_get(lu, false, &st);
	row = xt_cmd_lookup(&st, lc->cdb, &same_op);
	if (row == NULL && same_op != NULL && same_op->exec != XT_X_CORE &&
	    same_op->exec != XT_X_KERNEL) {
		row = same_op;
	}
	if (row == NULL) {
		return TCMU_STS_INVALID_CMD;
	}
	switch (row->exec) {
	case XT_X_XCOPY:
		return xt_async_submit(lu, cmd);   /* async.c: runs on a worker */
	case XT_X_RCR:
		return do_rcr(lu, lc);
	case XT_X_INQUIRY:
		return do_inquiry(lu, lc);
	case XT_X_RSOC:
		return do_rsoc(lu, lc);
	case XT_X_CORE:
	case XT_X_KERNEL:
	default:
		/* kernel rows reach us only if PR is passed through: the core refuses them */
		return TCMU_STS_NOT_HANDLED;
	}
}

/* ------------------------------------------------------------------------ */
/* Ordinary I/O (worker threads; return a TCMU_STS code)                      */
/* ------------------------------------------------------------------------ */

static int
iov_io_full(int fd, const struct iovec *iov, size_t cnt, size_t len, off_t off, bool wr)
{
	struct iovec local[64];
	struct iovec *v = cnt <= 64 ? local : malloc(cnt * sizeof(*v));
	size_t i = 0, done = 0;
	ssize_t n;
	int rc = 0;

	if (v == NULL) {
		return -ENOMEM;
	}
	memcpy(v, iov, cnt * sizeof(*v));
	while (done < len) {
		while (i < cnt && v[i].iov_len == 0) {
			i++;
		}
		if (i == cnt) {
			break;
		}
		n = wr ? pwritev(fd, v + i, (int)(cnt - i < 1024 ? cnt - i : 1024), off + (off_t)done)
		       : preadv(fd, v + i, (int)(cnt - i < 1024 ? cnt - i : 1024), off + (off_t)done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
		while (n > 0 && i < cnt) {
			size_t k = v[i].iov_len < (size_t)n ? v[i].iov_len : (size_t)n;
			v[i].iov_base = (uint8_t *)v[i].iov_base + k;
			v[i].iov_len -= k;
			n -= (ssize_t)k;
			if (v[i].iov_len == 0) {
				i++;
			}
		}
	}
	if (v != local) {
		free(v);
	}
	return rc;
}

static int
xh_read(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov, size_t cnt,
	size_t len, off_t off)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	int rc = iov_io_full(lu->fd, iov, cnt, len, off, false);

	if (rc != 0) {
		tcmu_dev_err(dev, "read %s+%lld len %zu: %s\n", lu->cfg.path, (long long)off, len,
			     strerror(-rc));
		return TCMU_STS_RD_ERR;
	}
	return TCMU_STS_OK;
}

static int
xh_write(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov, size_t cnt,
	 size_t len, off_t off)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	int rc;

	/*
	 * WRITE, WRITE SAME, COMPARE AND WRITE cancel the change vulnerable
	 * tokens they overlap: before (a WUT reading them now fails) and after
	 * (a POPULATE TOKEN that ended meanwhile made a token of the old data).
	 */
	xt_tok_note_write(lu, (uint64_t)off, len);
	rc = iov_io_full(lu->fd, iov, cnt, len, off, true);
	xt_tok_note_write(lu, (uint64_t)off, len);

	/*
	 * WCE = 0 (write-through) promises the data is on the medium when the
	 * command completes: initiators then send no SYNCHRONIZE CACHE.
	 */
	if (rc == 0 && !tcmu_dev_get_write_cache_enabled(dev) && fdatasync(lu->fd) != 0) {
		rc = -errno;
	}
	if (rc != 0) {
		tcmu_dev_err(dev, "write %s+%lld len %zu: %s\n", lu->cfg.path, (long long)off, len,
			     strerror(-rc));
		return TCMU_STS_WR_ERR;
	}
	return TCMU_STS_OK;
}

static int
xh_flush(struct tcmu_device *dev, struct tcmur_cmd *cmd)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	int sts;

	/* an EXTENDED COPY handed over as SYNCHRONIZE CACHE (async.c) */
	if (xt_async_run(lu, cmd, &sts)) {
		return sts;
	}
	if (fdatasync(lu->fd) != 0) {
		tcmu_dev_err(dev, "fdatasync %s: %s\n", lu->cfg.path, strerror(errno));
		return TCMU_STS_WR_ERR;
	}
	return TCMU_STS_OK;
}

/* UNMAP: punch a hole (reads return zeros, as the core's LBPRZ=1 promises). */
static int
unmap_range(struct tcmu_device *dev, struct xcm_lu *lu, uint64_t off, uint64_t len)
{
	static const uint8_t zeros[65536];
	uint64_t done = 0;
	size_t n;

	if (fallocate(lu->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) == 0) {
		return TCMU_STS_OK;
	}
	if (fallocate(lu->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) == 0) {
		return TCMU_STS_OK;
	}
	while (done < len) {
		n = len - done < sizeof(zeros) ? (size_t)(len - done) : sizeof(zeros);
		if (pwrite(lu->fd, zeros, n, (off_t)(off + done)) != (ssize_t)n) {
			tcmu_dev_err(dev, "unmap %s+%llu: %s\n", lu->cfg.path,
				     (unsigned long long)off, strerror(errno));
			return TCMU_STS_WR_ERR;
		}
		done += n;
	}
	return TCMU_STS_OK;
}

static int
xh_unmap(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	int sts;

	xt_tok_note_write(lu, off, len);   /* as xh_write: before and after */
	sts = unmap_range(dev, lu, off, len);
	xt_tok_note_write(lu, off, len);
	return sts;
}

/* ------------------------------------------------------------------------ */
/* Configuration, open, close                                                 */
/* ------------------------------------------------------------------------ */

static int
backing_size(int fd, const struct stat *st, uint64_t *size)
{
	if (S_ISREG(st->st_mode)) {
		*size = (uint64_t)st->st_size;
		return 0;
	}
	if (S_ISBLK(st->st_mode)) {
		return ioctl(fd, BLKGETSIZE64, size) == 0 ? 0 : -errno;
	}
	return -EINVAL;
}

static bool
xh_check_config(const char *cfgstring, char **reason)
{
	struct xt_cfg cfg;
	char why[PATH_MAX + 256];

	if (xt_cfg_parse(cfgstring, &cfg, why, sizeof(why)) != 0) {
		goto bad;
	}
	if (access(cfg.path, R_OK | W_OK) != 0) {
		snprintf(why, sizeof(why), "backing file %s: %s%s", cfg.path, strerror(errno),
			 errno == ENOENT ? " (create it first, e.g. truncate -s SIZE)" : "");
		goto bad;
	}
	return true;
bad:
	if (reason != NULL && asprintf(reason, "%s", why) < 0) {
		*reason = NULL;
	}
	return false;
}

/*
 * configfs identity from /sys/class/uio/uioN/name = "tcm-user/<hba>/<name>/<cfg>":
 * the storage object is ROOT/core/user_<hba>/<name>.
 */
static void
lu_identify(struct xcm_lu *lu)
{
	const char *uio = tcmu_dev_get_uio_name(lu->dev);
	char p[PATH_MAX], buf[PATH_MAX + 64] = "", *hba, *name, *end;
	ssize_t n;
	int fd;

	snprintf(lu->name, sizeof(lu->name), "%s", uio != NULL ? uio : "unknown");
	lu->cfs_path[0] = '\0';
	if (uio == NULL ||
	    snprintf(p, sizeof(p), "%s/class/uio/%s/name", xt_sysfs_root(), uio) >= (int)sizeof(p)) {
		return;
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tcmu_dev_warn(lu->dev, "cannot read %s (%s): cross-LU copies disabled\n", p,
			      strerror(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || strncmp(buf, "tcm-user/", 9) != 0) {
		return;
	}
	buf[n] = '\0';
	hba = buf + 9;
	name = strchr(hba, '/');
	if (name == NULL) {
		return;
	}
	*name++ = '\0';
	end = strchr(name, '/');
	if (end == NULL) {
		return;
	}
	*end = '\0';
	if (name[0] == '\0' || strlen(name) >= sizeof(lu->name)) {
		return;
	}
	snprintf(lu->name, sizeof(lu->name), "%s", name);
	if (snprintf(lu->cfs_path, sizeof(lu->cfs_path), "%s/core/user_%s/%s", xt_configfs_root(),
		     hba, name) >= (int)sizeof(lu->cfs_path)) {
		lu->cfs_path[0] = '\0';
	}
}

static void
lu_free(struct xcm_lu *lu)
{
	if (lu == NULL) {
		return;
	}
	if (lu->fd >= 0) {
		close(lu->fd);
	}
	if (lu->store != NULL) {
		xcm_store_destroy(lu->store);
	}
	if (lu->store4 != NULL) {
		xcm_store4_destroy(lu->store4);
	}
	xt_tok_destroy(lu->tok);   /* snapshots freed */
	free(lu->plist);
	pthread_mutex_destroy(&lu->stats_lock);
	free(lu);
}

/*
 * The runner's default UNMAP GRANULARITY ALIGNMENT is 0, and its WRITE SAME
 * with UNMAP path computes lba % alignment: tcmu-runner 1.5.4 dies with a
 * divide error (found by libiscsi's WriteSame tests in the lab). Its split
 * code also assumes alignment == optimal granularity, a power of two.
 */
static void
set_unmap_granularity(struct tcmu_device *dev)
{
	unsigned int opt = tcmu_dev_get_opt_unmap_gran(dev), gran = 1;

	while (gran <= opt / 2) {
		gran *= 2;
	}
	tcmu_dev_set_opt_unmap_gran(dev, gran, false);
	tcmu_dev_set_unmap_gran_align(dev, gran);
}

static const char *const g_clone_names[] = { "auto", "always", "never" };

static int
xh_open(struct tcmu_device *dev, bool reopen)
{
	uint32_t bs = tcmu_dev_get_block_size(dev);
	uint64_t lbas = tcmu_dev_get_num_lbas(dev), size = 0, need;
	struct xcm_lu *lu;
	struct statfs sfs;
	struct stat st;
	const char *unsupported;
	char why[512];
	int rc;

	unsupported = xt_runner_unsupported();
	if (unsupported != NULL) {
		tcmu_dev_err(dev, "xcopy: refusing to open: %s\n", unsupported);
		return -EOPNOTSUPP;
	}
	lu = calloc(1, sizeof(*lu));
	if (lu == NULL) {
		return -ENOMEM;
	}
	lu->fd = -1;
	lu->dev = dev;
	pthread_mutex_init(&lu->stats_lock, NULL);
	rc = xt_async_init(lu);
	if (rc != 0) {
		pthread_mutex_destroy(&lu->stats_lock);
		free(lu);
		return rc;
	}
	rc = xt_cfg_parse(tcmu_dev_get_cfgstring(dev), &lu->cfg, why, sizeof(why));
	if (rc != 0) {
		tcmu_dev_err(dev, "xcopy: bad cfgstring: %s\n", why);
		goto fail;
	}
	lu->fd = open(lu->cfg.path, O_RDWR | O_CLOEXEC);
	if (lu->fd < 0) {
		rc = -errno;
		tcmu_dev_err(dev, "xcopy: backing file %s %s: %s\n", lu->cfg.path,
			     rc == -ENOENT ? "does not exist" : "cannot be opened read-write",
			     strerror(-rc));
		goto fail;
	}
	if (fstat(lu->fd, &st) != 0 || backing_size(lu->fd, &st, &size) != 0) {
		rc = -EINVAL;
		tcmu_dev_err(dev, "xcopy: backing file %s is not a regular file or block device\n",
			     lu->cfg.path);
		goto fail;
	}
	if (bs == 0 || lbas > UINT64_MAX / bs) {
		rc = -EINVAL;
		tcmu_dev_err(dev, "xcopy: invalid LU geometry (%llu blocks of %u bytes)\n",
			     (unsigned long long)lbas, bs);
		goto fail;
	}
	need = lbas * bs;
	if (size < need) {
		rc = -EINVAL;
		tcmu_dev_err(dev, "xcopy: backing file %s is %llu bytes, smaller than the LU (%llu "
			     "blocks of %u = %llu bytes); extend it (truncate -s %llu %s)\n",
			     lu->cfg.path, (unsigned long long)size, (unsigned long long)lbas, bs,
			     (unsigned long long)need, (unsigned long long)need, lu->cfg.path);
		goto fail;
	}
	lu->st_dev = st.st_dev;
	lu->st_ino = S_ISBLK(st.st_mode) ? (ino_t)st.st_rdev : st.st_ino;
	lu->fs_block = fstatfs(lu->fd, &sfs) == 0 && sfs.f_bsize > 0 ? (uint32_t)sfs.f_bsize : 4096;
	lu->plist_cap = xcm_limits_max_param_len(xt_limits());
	lu->plist = malloc(lu->plist_cap);
	lu->store = xcm_store_create();
	lu->store4 = xcm_store4_create();
	lu->tok = xt_tok_create(lu);
	lu->reflink = xt_odx_probe_reflink(lu);
	if (lu->plist == NULL || lu->store == NULL || lu->store4 == NULL || lu->tok == NULL) {
		rc = -ENOMEM;
		tcmu_dev_err(dev, "xcopy: out of memory\n");
		goto fail;
	}
	lu_identify(lu);
	xt_held_init(lu);
	lu->cmd_time_out = XT_CMD_TIME_OUT_DEFAULT;
	xt_cmd_time_out(lu);
	set_unmap_granularity(dev);
	/*
	 * Writes land in the host's page cache: a volatile write cache. Say so
	 * (caching page WCE = 1), so initiators send SYNCHRONIZE CACHE (-> our
	 * flush, fdatasync) where they need durability; the runner's default
	 * WCE = 0 claimed write-through while writes were buffered.
	 */
	tcmu_dev_set_write_cache_enabled(dev, true);
	tcmur_dev_set_private(dev, lu);
	xt_registry_add(lu);
	xt_stats_write(lu);
	tcmu_dev_info(dev, "xcopy: %s opened (%llu bytes, LU %s, clone=%s cfr=%s xcopy=%s, "
		      "cmd_time_out %u s)\n",
		      lu->cfg.path, (unsigned long long)size, lu->name, g_clone_names[lu->cfg.clone],
		      lu->cfg.cfr == XT_CFR_AUTO ? "auto" : "never",
		      lu->cfg.xcopy == XT_XCOPY_ENGINE ? "engine" : "core", lu->cmd_time_out);
	return 0;
fail:
	xt_async_close(lu);
	lu_free(lu);
	return rc;
}

static void
xh_close(struct tcmu_device *dev)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);

	if (lu == NULL) {
		return;
	}
	xt_async_close(lu);       /* stops this LU's running copies, waits for them */
	xt_registry_remove(lu);   /* waits for commands of other LUs using it */
	tcmur_dev_set_private(dev, NULL);
	lu_free(lu);
}

static int
xh_reconfig(struct tcmu_device *dev, struct tcmulib_cfg_info *cfg)
{
	struct xcm_lu *lu = tcmur_dev_get_private(dev);
	uint64_t size = 0;
	struct stat st;

	switch (cfg->type) {
	case TCMULIB_CFG_DEV_SIZE:
		if (fstat(lu->fd, &st) != 0 || backing_size(lu->fd, &st, &size) != 0 ||
		    size < cfg->data.dev_size) {
			tcmu_dev_err(dev, "xcopy: cannot grow the LU to %llu bytes: backing file %s "
				     "has %llu\n", (unsigned long long)cfg->data.dev_size,
				     lu->cfg.path, (unsigned long long)size);
			return -EINVAL;
		}
		return 0;
	case TCMULIB_CFG_WRITE_CACHE:
		/* attrib/emulate_write_cache: WCE as reported; 0 makes writes synchronous */
		tcmu_dev_set_write_cache_enabled(dev, cfg->data.write_cache);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static void
xh_destroy(void)
{
	xt_par_shutdown();
	xt_tok_shutdown();
}

static struct tcmur_handler g_handler = {
	.name = "XCOPY offload file handler",
	.subtype = XT_SUBTYPE,
	/* shown by "targetcli /backstores/user:xcopy help create": targetcli prepends "xcopy/" */
	.cfg_desc = "/PATH[?clone=auto|always|never&cfr=auto|never&xcopy=engine|core"
		    "&copy_nice=0..19&writeback=early|late] "
		    "(PATH: an existing backing file or block device; configfs dev_config=xcopy//PATH...)",
	.check_config = xh_check_config,
	.reconfig = xh_reconfig,
	.open = xh_open,
	.close = xh_close,
	.nr_threads = XT_WORKERS,   /* EXTENDED COPY jobs use at most XT_MAX_JOBS of them */
	.handle_cmd = xh_handle_cmd,
	.read = xh_read,
	.write = xh_write,
	.flush = xh_flush,
	.unmap = xh_unmap,
	.destroy = xh_destroy,
};

int
handler_init(void)
{
	return tcmur_register_handler(&g_handler);
}
