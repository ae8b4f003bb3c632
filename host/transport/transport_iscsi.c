/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libiscsi transport for iscsi://[user[%pass]@]host[:port]/target-iqn/lun.
 * Synchronous commands, one session per command in flight (see is_take).
 * On CHECK CONDITION libiscsi keeps the SCSI Response data segment in
 * task->datain: a 2-byte SENSE LENGTH
 * followed by the sense bytes (RFC 7143 11.4.7.2).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "base/xch_base.h"
#include "xch_transport.h"

#define XCH_INITIATOR_IQN "iqn.2024-01.org.xcopy:libxcopy"

/*
 * One handle, several sessions: a command takes a session nobody is using,
 * logging in another (up to XCH_INFLIGHT_MAX, each with its own ISID) when
 * all are busy, so commands in flight each have their own libiscsi context
 * (a context is not thread-safe). The first session is logged in at open.
 */
struct is_sess {
	struct iscsi_context *iscsi;
	bool busy;
};

struct iscsi_ctx {
	char *url;
	int lun;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct is_sess s[XCH_INFLIGHT_MAX];
	unsigned n;             /* sessions logged in */
	bool opening;           /* a login is under way */
	bool no_more;           /* a login failed: make do with n */
};

/* Status, sense (CHECK CONDITION), data-in bytes and residual of a completed task into c. */
static void
is_take_result(const struct scsi_task *task, struct xch_cmd *c)
{
	c->status = (uint8_t)task->status;
	if (task->status == SCSI_STATUS_CHECK_CONDITION) {
		if (task->datain.size >= 2 && task->datain.data != NULL) {
			size_t n = (size_t)task->datain.size - 2;
			size_t slen = xcm_get_be16(task->datain.data);

			if (slen < n) {
				n = slen;
			}
			if (n > sizeof(c->sense)) {
				n = sizeof(c->sense);
			}
			memcpy(c->sense, task->datain.data + 2, n);
			c->sense_len = (uint8_t)n;
		}
	} else if (c->dir == XCH_DIR_IN) {
		size_t n = task->datain.size > 0 ? (size_t)task->datain.size : 0;

		if (n > c->len) {
			n = c->len;
		}
		if (n > 0) {
			memcpy(c->buf, task->datain.data, n);
		}
		c->resid = c->len - n;
	} else if (task->residual_status == SCSI_RESIDUAL_UNDERFLOW) {
		c->resid = task->residual;
	}
}

static int
is_exec_on(struct iscsi_context *iscsi, int lun, struct xch_cmd *c)
{
	struct scsi_task *task;
	struct iscsi_data d;
	uint8_t cdb[16];
	int dir = SCSI_XFER_NONE;

	if (c->cdb_len > sizeof(cdb) || c->len > INT32_MAX) {
		return -EINVAL;
	}
	memcpy(cdb, c->cdb, c->cdb_len);
	if (c->dir == XCH_DIR_IN) {
		dir = SCSI_XFER_READ;
	} else if (c->dir == XCH_DIR_OUT) {
		dir = SCSI_XFER_WRITE;
	}
	task = scsi_create_task(c->cdb_len, cdb, dir, (int)c->len);
	if (task == NULL) {
		return -ENOMEM;
	}
	d.data = c->buf;
	d.size = c->len;
	if (iscsi_scsi_command_sync(iscsi, lun, task, c->dir == XCH_DIR_OUT ? &d : NULL) == NULL) {
		XCH_DBG("iscsi: %s", iscsi_get_error(iscsi));
		scsi_free_scsi_task(task);
		return -EIO;
	}
	if (task->status < 0 || (task->status & 0x0F000000) != 0) {
		/* libiscsi pseudo statuses: cancelled, error, timeout */
		int rc = task->status == SCSI_STATUS_TIMEOUT ? -ETIMEDOUT : -EIO;
		scsi_free_scsi_task(task);
		return rc;
	}
	is_take_result(task, c);
	scsi_free_scsi_task(task);
	return 0;
}

/* Log one session in: 0 with *out, or -errno. isid_q: 0 keeps libiscsi's ISID. */
static int
is_login(const char *url, unsigned isid_q, struct iscsi_context **out, int *lun)
{
	const char *iqn = getenv("XCOPY_INITIATOR_IQN");
	struct iscsi_context *iscsi = iscsi_create_context(iqn != NULL ? iqn : XCH_INITIATOR_IQN);
	struct iscsi_url *u;

	if (iscsi == NULL) {
		return -ENOMEM;
	}
	u = iscsi_parse_full_url(iscsi, url);
	if (u == NULL) {
		XCH_ERR("iscsi: bad URL %s: %s", url, iscsi_get_error(iscsi));
		iscsi_destroy_context(iscsi);
		return -EINVAL;
	}
	/* RFC 7143 11.12.5: a second session of one initiator needs its own ISID */
	if (isid_q != 0) {
		iscsi_set_isid_random(iscsi, (uint32_t)rand() ^ (uint32_t)getpid(), isid_q);
	}
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C);
	if (iscsi_full_connect_sync(iscsi, u->portal, u->lun) != 0) {
		XCH_ERR("iscsi: login to %s failed: %s", u->portal, iscsi_get_error(iscsi));
		iscsi_destroy_url(u);
		iscsi_destroy_context(iscsi);
		return -ECONNREFUSED;
	}
	*lun = u->lun;
	iscsi_destroy_url(u);
	*out = iscsi;
	return 0;
}

/* A free session (logging another in when all are busy); the caller frees it. */
static int
is_take(struct iscsi_ctx *ctx)
{
	unsigned i;
	int lun;

	pthread_mutex_lock(&ctx->mu);
	for (;;) {
		for (i = 0; i < ctx->n; i++) {
			if (!ctx->s[i].busy) {
				ctx->s[i].busy = true;
				pthread_mutex_unlock(&ctx->mu);
				return (int)i;
			}
		}
		if (!ctx->opening && !ctx->no_more && ctx->n < XCH_INFLIGHT_MAX) {
			struct iscsi_context *iscsi = NULL;
			unsigned q = ctx->n;
			int rc;

			ctx->opening = true;
			pthread_mutex_unlock(&ctx->mu);
			rc = is_login(ctx->url, q, &iscsi, &lun);
			pthread_mutex_lock(&ctx->mu);
			ctx->opening = false;
			if (rc == 0) {
				i = ctx->n++;
				ctx->s[i].iscsi = iscsi;
				ctx->s[i].busy = true;
				XCH_DBG("iscsi: session %u logged in for commands in flight", i + 1);
				pthread_cond_broadcast(&ctx->cv);
				pthread_mutex_unlock(&ctx->mu);
				return (int)i;
			}
			ctx->no_more = true;
			continue;
		}
		pthread_cond_wait(&ctx->cv, &ctx->mu);
	}
}

static int
is_exec(void *vctx, struct xch_cmd *c)
{
	struct iscsi_ctx *ctx = vctx;
	int i = is_take(ctx), rc;

	rc = is_exec_on(ctx->s[i].iscsi, ctx->lun, c);
	pthread_mutex_lock(&ctx->mu);
	ctx->s[i].busy = false;
	pthread_cond_broadcast(&ctx->cv);
	pthread_mutex_unlock(&ctx->mu);
	return rc;
}

static void
is_close(void *vctx)
{
	struct iscsi_ctx *ctx = vctx;
	unsigned i;

	if (ctx == NULL) {
		return;
	}
	for (i = 0; i < ctx->n; i++) {
		if (iscsi_is_logged_in(ctx->s[i].iscsi)) {
			iscsi_logout_sync(ctx->s[i].iscsi);
		}
		iscsi_destroy_context(ctx->s[i].iscsi);
	}
	pthread_cond_destroy(&ctx->cv);
	pthread_mutex_destroy(&ctx->mu);
	free(ctx->url);
	free(ctx);
}

static const struct xch_transport_ops g_iscsi_ops = {
	.name = "iscsi",
	.exec = is_exec,
	.close = is_close,
	.concurrent = true,
};

int
xch_iscsi_open(const char *url, const struct xch_transport_ops **ops, void **out)
{
	struct iscsi_ctx *ctx = calloc(1, sizeof(*ctx));
	int rc;

	if (ctx == NULL) {
		return -ENOMEM;
	}
	ctx->url = strdup(url);
	if (ctx->url == NULL) {
		free(ctx);
		return -ENOMEM;
	}
	pthread_mutex_init(&ctx->mu, NULL);
	pthread_cond_init(&ctx->cv, NULL);
	rc = is_login(url, 0, &ctx->s[0].iscsi, &ctx->lun);
	if (rc != 0) {
		is_close(ctx);
		return rc;
	}
	ctx->n = 1;
	*ops = &g_iscsi_ops;
	*out = ctx;
	return 0;
}
