/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dm-multipath: one LU reached through several paths (the whole-disk SCSI
 * devices a "multipath" table lists): a handle kind of its own (the
 * multipath kind, xch_device.h): each command goes to the current path; when it fails on the path rather
 * than on the LU (no SCSI status came back: a host or transport error, a
 * timeout, a device that is gone or offline; or LOGICAL UNIT NOT SUPPORTED,
 * SPC-4 table 49, ASC 25h: the LU is no longer exported on that path), the
 * path is marked failed and the same command is sent on the next path. A
 * path is used only while its device identification (VPD page 83h, SPC-4
 * 7.8.6) carries the designator every other path carried at open: checked
 * on every path at open, and again on a path before it takes over. Resending
 * a command is safe for what libxcopy sends: discovery reads, READ/WRITE of
 * the same bytes, and EXTENDED COPY of a source that the copy does not
 * overlap (the same bytes land on the destination again).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xch_base.h"
#include "xch_device.h"

enum {
	ASC_LU_NOT_SUPPORTED = 0x2500,  /* SPC-4: LOGICAL UNIT NOT SUPPORTED */
};

struct mp_path {
	struct xcopy_dev *dev;
	bool failed;
};

struct mp_ctx {
	pthread_mutex_t lock;   /* cur and failed: commands may run in several threads */
	pthread_mutex_t serial; /* held around exec on a path that is not concurrent */
	size_t n, cur;
	uint8_t desig[24];
	uint8_t desig_len;
	struct mp_path p[XCH_DM_MAX_LEGS];
};

static const struct xch_dev_kind g_mp_kind;

/* Did the command fail on the path (1) or get the LU's answer (0)? */
static bool
path_failed(int rc, const struct xch_cmd *c)
{
	struct xcm_sense s;

	if (rc == -EPERM || rc == -EINVAL || rc == -ENOMEM || rc == -EFAULT) {
		return false; /* the same on every path: the kernel or the caller refused it */
	}
	if (rc < 0) {
		return true;
	}
	return c->status == XCM_SAM_CHECK_CONDITION &&
	       xcm_sense_parse(xcm_span_make(c->sense, c->sense_len), &s) == 0 &&
	       s.key == XCM_SK_ILLEGAL_REQUEST && s.asc_ascq == ASC_LU_NOT_SUPPORTED;
}

/* Before a path takes over: does it still reach the LU the handle was opened on? */
static bool
same_identity(struct mp_ctx *m, struct mp_path *p)
{
	uint8_t d[sizeof(m->desig)];
	int n = xch_dev_read_designator(p->dev, d, sizeof(d));

	return n > 0 && (size_t)n == m->desig_len && memcmp(d, m->desig, m->desig_len) == 0;
}

/* One command on path i; true when it failed on the path. */
static bool
try_path(struct mp_ctx *m, size_t i, bool check, struct xch_cmd *c, int *rc)
{
	struct mp_path *p = &m->p[i];
	bool serial = !p->dev->kind->concurrent(p->dev), failed;

	if (check && !same_identity(m, p)) {
		XCH_WARN("multipath: path %s no longer carries the LU's designator: not used",
			 p->dev->name);
		*rc = -ENOTCONN;
		return true;
	}
	if (serial) {
		pthread_mutex_lock(&m->serial);
	}
	*rc = p->dev->kind->exec(p->dev, c);
	if (serial) {
		pthread_mutex_unlock(&m->serial);
	}
	failed = path_failed(*rc, c);
	if (failed) {
		XCH_WARN("multipath: path %s failed (%s) on a %02Xh command: trying the next path",
			 p->dev->name, *rc < 0 ? strerror(-*rc) : "LOGICAL UNIT NOT SUPPORTED",
			 c->cdb_len > 0 ? c->cdb[0] : 0);
		if (*rc == 0) {
			*rc = -ENOTCONN;
		}
	}
	return failed;
}

static int
mp_exec(struct xcopy_dev *d, struct xch_cmd *c)
{
	struct mp_ctx *m = d->kctx;
	int rc = -ENOTCONN;
	size_t tried, i, cur;
	bool live;

	pthread_mutex_lock(&m->lock);
	cur = m->cur;
	pthread_mutex_unlock(&m->lock);
	for (tried = 0; tried < m->n; tried++) {
		i = (cur + tried) % m->n;
		pthread_mutex_lock(&m->lock);
		live = !m->p[i].failed;
		pthread_mutex_unlock(&m->lock);
		if (!live) {
			continue;
		}
		/* a path that takes over from another is checked first */
		if (!try_path(m, i, i != cur, c, &rc)) {
			pthread_mutex_lock(&m->lock);
			m->cur = i;
			pthread_mutex_unlock(&m->lock);
			return rc;
		}
		pthread_mutex_lock(&m->lock);
		m->p[i].failed = true;
		pthread_mutex_unlock(&m->lock);
	}
	return rc;
}

static void
mp_close(struct xcopy_dev *d)
{
	struct mp_ctx *m = d->kctx;
	size_t i;

	if (m == NULL) {
		return;
	}
	for (i = 0; i < m->n; i++) {
		xcopy_dev_close(m->p[i].dev);
	}
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->serial);
	free(m);
}

/* State under a lock; paths that take one command at a time are serialised. */
static bool
mp_concurrent(const struct xcopy_dev *d)
{
	(void)d;
	return true;
}

static bool
mp_offload(const struct xcopy_dev *d)
{
	return d->caps.offload;
}

static const struct xch_dev_kind g_mp_kind = {
	.name = "multipath",
	.reach = XCH_REACH_CMDS,
	.exec = mp_exec,
	.rw = xch_cmd_rw,
	.concurrent = mp_concurrent,
	.offload = mp_offload,
	.tables_same = xch_same_always,
	.locate = xch_locate_self,
	.written = xch_written_cache,
	.lu_key = xch_key_desig,
	.close = mp_close,
};

/* Every path: the same designator, block size and capacity as the first. */
static int
check_paths(struct xcopy_dev **paths, size_t n, char *why, size_t whylen)
{
	const struct xcopy_caps *a = &paths[0]->caps;
	size_t i;

	if (a->desig_len == 0) {
		snprintf(why, whylen, "path %s has no designator in VPD 83h to tell its LU by",
			 paths[0]->name);
		return -ENODEV;
	}
	for (i = 1; i < n; i++) {
		const struct xcopy_caps *b = &paths[i]->caps;

		if (b->desig_len != a->desig_len || memcmp(b->desig, a->desig, a->desig_len) != 0) {
			snprintf(why, whylen, "paths %s and %s reach different LUs (VPD 83h)",
				 paths[0]->name, paths[i]->name);
			return -EXDEV;
		}
		if (b->block_size != a->block_size || b->num_blocks != a->num_blocks) {
			snprintf(why, whylen, "paths %s and %s report different capacities",
				 paths[0]->name, paths[i]->name);
			return -EXDEV;
		}
	}
	return 0;
}

int
xch_mpath_attach(struct xcopy_dev **paths, size_t n, const char *name, struct xcopy_dev **out,
		 char *why, size_t whylen)
{
	struct mp_ctx *m;
	size_t i;
	int rc;

	*out = NULL;
	rc = n == 0 || n > XCH_DM_MAX_LEGS ? -EINVAL : check_paths(paths, n, why, whylen);
	m = rc == 0 ? calloc(1, sizeof(*m)) : NULL;
	if (rc == 0 && m == NULL) {
		rc = -ENOMEM;
	}
	if (rc != 0) {
		for (i = 0; i < n; i++) {
			xcopy_dev_close(paths[i]);
		}
		return rc;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_init(&m->serial, NULL);
	m->n = n;
	m->desig_len = paths[0]->caps.desig_len;
	memcpy(m->desig, paths[0]->caps.desig, m->desig_len);
	for (i = 0; i < n; i++) {
		m->p[i].dev = paths[i];
	}
	/* discovery again, through the multipath transport: what copies will see */
	rc = xch_dev_attach_kind(&g_mp_kind, NULL, m, name, 0, 0, out);
	if (rc != 0) {
		snprintf(why, whylen, "discovery through the paths failed (%s)", strerror(-rc));
		return rc;
	}
	if ((*out)->caps.desig_len != m->desig_len ||
	    memcmp((*out)->caps.desig, m->desig, m->desig_len) != 0) {
		snprintf(why, whylen, "the LU's designator changed while its paths were opened");
		xcopy_dev_close(*out);
		*out = NULL;
		return -EXDEV;
	}
	XCH_INFO("%s: %zu path(s) to one LU", name, n);
	return 0;
}

size_t
xch_mpath_live_paths(const struct xcopy_dev *d)
{
	const struct mp_ctx *m;
	size_t i, k = 0;

	if (d == NULL || d->kind != &g_mp_kind) {
		return 0;    /* not a multipath handle */
	}
	m = d->kctx;
	for (i = 0; i < m->n; i++) {
		k += m->p[i].failed ? 0 : 1;
	}
	return k;
}
