/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Configuration check, open, close and reconfiguration of a user:xcopy LU. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cm/cm.h"
#include "lio/lio.h"
#include "odx/odx.h"
#include "store/store.h"
#include "tcmu/handler.h"
#include "tokens/tokens.h"

bool
xt_handler_check_config(const char *cfgstring, char **reason)
{
	char why[PATH_MAX + 256];

	if (xt_store_for(cfgstring)->check(cfgstring, why, sizeof(why)) == 0) {
		return true;
	}
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
lu_identify(struct xt_lu *lu)
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
lu_free(struct xt_lu *lu)
{
	if (lu == NULL) {
		return;
	}
	if (lu->ops != NULL && lu->ops->close != NULL) {
		lu->ops->close(lu);
	}
	xt_cm_free(lu);
	xt_tok_destroy(lu->tok);   /* snapshots freed */
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

/* Opens the LU's store and checks it holds the LU's geometry; *size: its bytes. */
static int
backing_open(struct tcmu_device *dev, struct xt_lu *lu, uint64_t *size)
{
	uint32_t bs = tcmu_dev_get_block_size(dev);
	uint64_t lbas = tcmu_dev_get_num_lbas(dev), need;
	const struct xt_store_ops *ops = lu->ops;
	int rc = ops->open(lu, size);

	if (rc != 0) {
		return rc;
	}
	if (bs == 0 || lbas > UINT64_MAX / bs) {
		tcmu_dev_err(dev, "xcopy: invalid LU geometry (%llu blocks of %u bytes)\n",
			     (unsigned long long)lbas, bs);
		return -EINVAL;
	}
	need = lbas * bs;
	if (*size < need) {
		ops->too_small(lu, *size, need);
		return -EINVAL;
	}
	return 0;
}

/* Token table, the store's reflink answer; 0 or -ENOMEM. */
static int
lu_alloc_state(struct xt_lu *lu)
{
	lu->tok = xt_tok_create(lu);
	lu->reflink = lu->ops->reflink != NULL && lu->ops->reflink(lu);
	if (lu->tok == NULL) {
		tcmu_dev_err(lu->dev, "xcopy: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/*
 * A zeroed LU with the copy manager's part (which runs
 * PT/WUT jobs through odx/), or NULL (*rc set).
 */
static struct xt_lu *
lu_new(struct tcmu_device *dev, int *rc)
{
	struct xt_lu *lu = calloc(1, sizeof(*lu));

	if (lu == NULL) {
		*rc = -ENOMEM;
		return NULL;
	}
	lu->ops = xt_store_for(tcmu_dev_get_cfgstring(dev));
	lu->dev = dev;
	lu->host = &xt_tcmu_host;   /* what layers below ask of the runner (lu_host.c) */
	*rc = xt_cm_init(lu, &xt_odx_ops);
	if (*rc != 0) {
		free(lu);
		return NULL;
	}
	return lu;
}

int
xt_handler_open(struct tcmu_device *dev, bool reopen)
{
	uint64_t size = 0;
	struct xt_lu *lu;
	const char *unsupported;
	char why[512];
	int rc;

	unsupported = xt_runner_unsupported();
	if (unsupported != NULL) {
		tcmu_dev_err(dev, "xcopy: refusing to open: %s\n", unsupported);
		return -EOPNOTSUPP;
	}
	lu = lu_new(dev, &rc);
	if (lu == NULL) {
		return rc;
	}
	/* the file form's cfgstring; the RBD store fills lu->cfg itself (store_rbd.c) */
	rc = lu->ops->parse != NULL ?
	     lu->ops->parse(tcmu_dev_get_cfgstring(dev), &lu->cfg, why, sizeof(why)) : 0;
	if (rc != 0) {
		tcmu_dev_err(dev, "xcopy: bad cfgstring: %s\n", why);
		goto fail;
	}
	/* who the LU is and its cmd_time_out first: the RBD store sizes its timeouts by it */
	lu_identify(lu);
	lu->cmd_time_out = XT_CMD_TIME_OUT_DEFAULT;
	xt_cmd_time_out(lu);
	rc = backing_open(dev, lu, &size);
	if (rc == 0) {
		rc = lu_alloc_state(lu);
	}
	if (rc != 0) {
		goto fail;
	}
	set_unmap_granularity(dev);
	/*
	 * File: writes land in the page cache, a volatile cache (WCE = 1: initiators
	 * send SYNCHRONIZE CACHE -> fdatasync). RBD: librbd's cache is off (WCE = 0).
	 */
	tcmu_dev_set_write_cache_enabled(dev, lu->ops->page_cache);
	tcmur_dev_set_private(dev, lu);
	xt_registry_add(lu);   /* file and RBD LUs: copy sources and destinations */
	xt_lio_settings(lu);   /* hw_max_sectors & co.: a warning per one that caps throughput */
	xt_stats_open(lu);   /* the file now, then the stats writer's */
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

void
xt_handler_close(struct tcmu_device *dev)
{
	struct xt_lu *lu = tcmur_dev_get_private(dev);

	if (lu == NULL) {
		return;
	}
	xt_async_close(lu);       /* stops this LU's running copies, waits for them */
	xt_registry_remove(lu);   /* waits for commands of other LUs using it */
	xt_stats_close(lu);       /* its last counters written */
	tcmur_dev_set_private(dev, NULL);
	lu_free(lu);
}

int
xt_handler_reconfig(struct tcmu_device *dev, struct tcmulib_cfg_info *cfg)
{
	struct xt_lu *lu = tcmur_dev_get_private(dev);
	const struct xt_store_ops *ops = lu->ops;
	uint64_t size = 0;

	switch (cfg->type) {
	case TCMULIB_CFG_DEV_SIZE:
		if (ops->size(lu, &size) != 0 || size < cfg->data.dev_size) {
			tcmu_dev_err(dev, "xcopy: cannot grow the LU to %llu bytes: %s has %llu\n",
				     (unsigned long long)cfg->data.dev_size, lu->cfg.path,
				     (unsigned long long)size);
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
