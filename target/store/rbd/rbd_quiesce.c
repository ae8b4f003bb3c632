/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Copy-from against snapshots of the destination (docs/target-rbd.md, "RBD:
 * snapshots during a copy"): the quiesce watch of each open handle, which
 * holds snapshot creation while a copy-from batch runs, and the image's
 * snapshot context, which the batch is sent with.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "rbd_image.h"
#include "rbd_image_int.h"

/*
 * librbd asks every client that has the image open to quiesce before it
 * creates a snapshot (rbd snap create without --skip-quiesce; the lock
 * owner, this LU, runs a request proxied from another client): answer at
 * once when no copy-from batch is in flight, else when the last one ends
 * (xt_rbd_quiesce_leave). Until the unquiesce no batch starts.
 */
static void
on_quiesce(void *arg)
{
	struct xt_rbd_qw *q = arg;
	struct xt_rbd *r = q->r;
	int now;

	pthread_mutex_lock(&r->q_lock);
	if (!q->quiesced) {
		q->quiesced = 1;
		r->q_quiesced++;
	}
	r->q_events++;
	now = r->q_active == 0;
	q->ack_due = !now;
	pthread_mutex_unlock(&r->q_lock);
	if (now) {
		rbd_quiesce_complete(q->img, q->handle, 0);
	}
}

static void
on_unquiesce(void *arg)
{
	struct xt_rbd_qw *q = arg;
	struct xt_rbd *r = q->r;

	pthread_mutex_lock(&r->q_lock);
	if (q->quiesced) {
		q->quiesced = 0;
		r->q_quiesced--;
	}
	pthread_cond_broadcast(&r->q_cond);
	pthread_mutex_unlock(&r->q_lock);
}

int
xt_rbd_quiesce_enter(struct xt_rbd *r, uint64_t deadline_ms, uint64_t *events)
{
	struct timespec ts = { (time_t)(deadline_ms / 1000), (long)(deadline_ms % 1000) * 1000000 };
	int rc = 0;

	pthread_mutex_lock(&r->q_lock);
	while (r->q_quiesced > 0 && rc != ETIMEDOUT) {
		rc = deadline_ms == 0 ? pthread_cond_wait(&r->q_cond, &r->q_lock)
				      : pthread_cond_timedwait(&r->q_cond, &r->q_lock, &ts);
	}
	if (r->q_quiesced > 0) {
		pthread_mutex_unlock(&r->q_lock);
		return -ETIMEDOUT;
	}
	r->q_active++;
	*events = r->q_events;
	pthread_mutex_unlock(&r->q_lock);
	return 0;
}

void
xt_rbd_quiesce_leave(struct xt_rbd *r)
{
	struct xt_rbd_qw *ack[2] = { NULL, NULL }, *q;
	int i;

	pthread_mutex_lock(&r->q_lock);
	r->q_active--;
	for (i = 0; i < 2 && r->q_active == 0; i++) {
		q = i == 0 ? r->qw : r->qw_next;
		if (q != NULL && q->ack_due) {
			q->ack_due = 0;
			ack[i] = q;
		}
	}
	pthread_mutex_unlock(&r->q_lock);
	for (i = 0; i < 2; i++) {
		if (ack[i] != NULL) {
			rbd_quiesce_complete(ack[i]->img, ack[i]->handle, 0);
		}
	}
}

/*
 * The snapshot context librbd writes the image's objects with: the header's
 * snap_seq and snapshot ids (cls_rbd get_snapcontext on rbd_header.<id>;
 * librbd's C API has no call for it). Encoded: u64 seq, u32 n, n x u64,
 * newest first.
 */
int
xt_rbd_snapc_read(struct xt_rbd *r, struct xt_rbd_snapc *sc)
{
	char oid[96], out[16 + 8 * XT_RBD_SNAPC_MAX];
	const unsigned char *p = (const unsigned char *)out;
	uint64_t v;
	uint32_t n, i, k;
	int len;

	if (snprintf(oid, sizeof(oid), "rbd_header.%s", r->geom.serial) >= (int)sizeof(oid)) {
		return -ENAMETOOLONG;
	}
	len = rados_exec(r->io, oid, "rbd", "get_snapcontext", NULL, 0, out, sizeof(out));
	if (len < 0) {
		return len;
	}
	if (len < 12) {
		return -EIO;
	}
	for (v = 0, k = 0; k < 8; k++) {
		v |= (uint64_t)p[k] << (8 * k);
	}
	n = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 | (uint32_t)p[11] << 24;
	if (n > XT_RBD_SNAPC_MAX) {
		return -E2BIG;
	}
	if ((uint64_t)len < 12 + 8 * (uint64_t)n) {
		return -EIO;
	}
	sc->seq = v;
	sc->n = n;
	for (i = 0; i < n; i++) {
		for (v = 0, k = 0; k < 8; k++) {
			v |= (uint64_t)p[12 + 8 * i + k] << (8 * k);
		}
		sc->snaps[i] = v;
	}
	return 0;
}

int
xt_rbd_quiesce_watch(struct xt_rbd_qw *q)
{
	/* librbd numbers a handle's quiesce watches from 0: this is the only one */
	return rbd_quiesce_watch(q->img, on_quiesce, on_unquiesce, q, &q->handle);
}
