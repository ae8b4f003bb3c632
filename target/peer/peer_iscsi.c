/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sessions to peers through libiscsi's synchronous API (the only file here
 * that names libiscsi): one session is used by one copy thread at a time;
 * the pool keeps at most XT_PEER_SESSIONS_MAX of them, in use or idle,
 * keyed by (portal, target, LUN, initiator, CHAP user), and logs out a
 * session idle for XT_PEER_IDLE_MS (checked whenever the pool is used).
 * Logins and commands are bounded by the caller's timeout (the copy's
 * deadline); a session that timed out or lost its connection is not
 * reused (no automatic reconnect inside libiscsi). A pooled session whose
 * connection died while idle (the peer's target restarted) is found out by
 * the copy's first command: peer_lu.c then drops it and logs in anew.
 * Discovery (peer_disc.c) has sessions of its own, not pooled, one at a
 * time: a discovery session for SendTargets (target names only: the
 * addresses in the answer are never used) and normal sessions at the map's
 * portal for REPORT LUNS and VPD 83h, logged out when put back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "peer/peer.h"
#include "xcm/xcm.h"

struct xt_psess {
	struct iscsi_context *iscsi;
	char portal[XT_PEER_HOST_MAX + 8];
	char target[XT_PEER_NAME_MAX];
	char initiator[XT_PEER_NAME_MAX];
	char chap_user[XT_PEER_CHAP_MAX];
	uint64_t secret_hash; /* of the CHAP secret it logged in with: a new secret, a new login */
	uint16_t lun;
	bool busy;
	bool reused;          /* handed out before: its connection may have died idle */
	bool loose;           /* not in the pool (discovery's): put logs it out */
	uint64_t idle_since_ms;
	struct xt_psess *next;
};

static pthread_mutex_t g_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct xt_psess *g_pool;
static unsigned int g_pool_n;

static void
sess_free(struct xt_psess *s, bool logout)
{
	if (s->iscsi != NULL) {
		if (logout) {
			iscsi_set_timeout(s->iscsi, 2);
			(void)iscsi_logout_sync(s->iscsi);
		}
		iscsi_destroy_context(s->iscsi);
	}
	free(s);
}

/* Unlink the sessions idle too long (under g_pool_mu) onto *dead. */
static void
reap_idle(uint64_t now, struct xt_psess **dead)
{
	struct xt_psess **pp = &g_pool, *s;

	while ((s = *pp) != NULL) {
		if (!s->busy && now - s->idle_since_ms >= XT_PEER_IDLE_MS) {
			*pp = s->next;
			g_pool_n--;
			s->next = *dead;
			*dead = s;
		} else {
			pp = &s->next;
		}
	}
}

static void
free_list(struct xt_psess *dead)
{
	struct xt_psess *s;

	while ((s = dead) != NULL) {   /* logouts outside the lock */
		dead = s->next;
		sess_free(s, true);
	}
}

static void
portal_of(const struct xt_peer *p, char *out, size_t n)
{
	if (strchr(p->host, ':') != NULL) {
		snprintf(out, n, "[%s]:%u", p->host, p->port);
	} else {
		snprintf(out, n, "%s:%u", p->host, p->port);
	}
}

/* FNV-1a of a CHAP secret: tells a changed secret from the same one, keeps no copy. */
static uint64_t
secret_hash(const char *secret)
{
	uint64_t h = 14695981039346656037ull;

	for (; *secret != '\0'; secret++) {
		h = (h ^ (uint8_t)*secret) * 1099511628211ull;
	}
	return h;
}

static bool
sess_is(const struct xt_psess *s, const char *portal, const struct xt_peer *p)
{
	return strcmp(s->portal, portal) == 0 && strcmp(s->target, p->target) == 0 &&
	       strcmp(s->initiator, p->initiator) == 0 && strcmp(s->chap_user, p->chap_user) == 0 &&
	       s->secret_hash == secret_hash(p->chap_secret) && s->lun == p->lun;
}

/* A context for p's initiator and CHAP: a normal session to p's target, or discovery. */
static int
setup(struct xt_psess *s, const struct xt_peer *p, bool discovery, int timeout_s, char *why,
      size_t whylen)
{
	s->iscsi = iscsi_create_context(p->initiator);
	if (s->iscsi == NULL) {
		snprintf(why, whylen, "no iSCSI context (out of memory)");
		return -ENOMEM;
	}
	if ((!discovery && iscsi_set_targetname(s->iscsi, p->target) != 0) ||
	    iscsi_set_session_type(s->iscsi, discovery ? ISCSI_SESSION_DISCOVERY :
				   ISCSI_SESSION_NORMAL) != 0 ||
	    iscsi_set_header_digest(s->iscsi, ISCSI_HEADER_DIGEST_NONE_CRC32C) != 0 ||
	    (p->chap_user[0] != '\0' &&
	     iscsi_set_initiator_username_pwd(s->iscsi, p->chap_user, p->chap_secret) != 0)) {
		snprintf(why, whylen, "iSCSI session setup: %s", iscsi_get_error(s->iscsi));
		return -EINVAL;
	}
	iscsi_set_noautoreconnect(s->iscsi, 1);
	/* a portal that drops SYNs: give up after 3 retries (~15 s), not the kernel's 6 (~127 s) */
	iscsi_set_tcp_syncnt(s->iscsi, 3);
	iscsi_set_timeout(s->iscsi, timeout_s);
	return 0;
}

/*
 * After a login, TEST UNIT READY until the LU reports no UNIT ATTENTION (a
 * new nexus, a reset, changed LUNs), at most XT_PEER_UA_MAX of them, so the
 * copy's first READ or WRITE does not get one. Any other answer ends it: the
 * copy's own commands then meet and report it.
 */
#define XT_PEER_UA_MAX 8

static void
clear_unit_attentions(struct xt_psess *s, int lun, int timeout_s)
{
	uint8_t cdb[6] = { 0 };   /* TEST UNIT READY */
	struct xt_pcmd c = { .cdb = cdb, .cdb_len = sizeof(cdb), .timeout_s = timeout_s };
	char why[128];
	int i;

	for (i = 0; i < XT_PEER_UA_MAX; i++) {
		if (xt_psess_cmd(s, lun, &c, why, sizeof(why)) != 0 ||
		    c.status != SCSI_STATUS_CHECK_CONDITION || c.sense_len < 3 ||
		    (c.sense[2] & 0x0F) != SCSI_SENSE_UNIT_ATTENTION) {
			return;
		}
	}
}

/*
 * Connect and log in at the map's portal only: iscsi_full_connect_sync
 * would follow a login redirect (status class 01h, TargetAddress) to any
 * address the target names, outside the map; iscsi_login_sync reports it
 * as a failed login instead.
 */
static int
login(struct xt_psess *s, const struct xt_peer *p, int timeout_s, char *why, size_t whylen)
{
	int rc = setup(s, p, false, timeout_s, why, whylen);

	if (rc != 0) {
		return rc;
	}
	if (iscsi_connect_sync(s->iscsi, s->portal) != 0 || iscsi_login_sync(s->iscsi) != 0) {
		snprintf(why, whylen, "login to %s at %s as %s: %s", p->target, s->portal,
			 p->initiator, iscsi_get_error(s->iscsi));
		return -ECONNREFUSED;
	}
	clear_unit_attentions(s, p->lun, timeout_s);
	return 0;
}

struct xt_psess *
xt_psess_get(const struct xt_peer *p, int timeout_s, char *why, size_t whylen)
{
	struct xt_psess *s, *dead = NULL;
	char portal[XT_PEER_HOST_MAX + 8];

	portal_of(p, portal, sizeof(portal));
	pthread_mutex_lock(&g_pool_mu);
	reap_idle(xos_now_ms(), &dead);
	for (s = g_pool; s != NULL && (s->busy || !sess_is(s, portal, p)); s = s->next) {
	}
	if (s != NULL) {
		s->busy = true;
		s->reused = true;
		pthread_mutex_unlock(&g_pool_mu);
		free_list(dead);
		return s;
	}
	if (g_pool_n >= XT_PEER_SESSIONS_MAX) {
		/* room for a new one: the oldest idle session of another peer goes */
		struct xt_psess **pp, **old = NULL;

		for (pp = &g_pool; *pp != NULL; pp = &(*pp)->next) {
			if (!(*pp)->busy && (old == NULL || (*pp)->idle_since_ms < (*old)->idle_since_ms)) {
				old = pp;
			}
		}
		if (old == NULL) {
			pthread_mutex_unlock(&g_pool_mu);
			free_list(dead);
			snprintf(why, whylen, "%d peer sessions in use at once", XT_PEER_SESSIONS_MAX);
			return NULL;
		}
		s = *old;
		*old = s->next;
		g_pool_n--;
		s->next = dead;
		dead = s;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		pthread_mutex_unlock(&g_pool_mu);
		free_list(dead);
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	snprintf(s->portal, sizeof(s->portal), "%s", portal);
	snprintf(s->target, sizeof(s->target), "%s", p->target);
	snprintf(s->initiator, sizeof(s->initiator), "%s", p->initiator);
	snprintf(s->chap_user, sizeof(s->chap_user), "%s", p->chap_user);
	s->secret_hash = secret_hash(p->chap_secret);
	s->lun = p->lun;
	s->busy = true;
	s->next = g_pool;   /* counted now: the bound holds while it logs in */
	g_pool = s;
	g_pool_n++;
	pthread_mutex_unlock(&g_pool_mu);
	free_list(dead);
	if (login(s, p, timeout_s, why, whylen) != 0) {
		xt_psess_put(s, true);
		return NULL;
	}
	return s;
}

bool
xt_psess_reused(const struct xt_psess *s)
{
	return s->reused;
}

void
xt_psess_put(struct xt_psess *s, bool broken)
{
	struct xt_psess **pp;

	if (s->loose) {
		sess_free(s, !broken);
		return;
	}
	pthread_mutex_lock(&g_pool_mu);
	if (broken) {
		for (pp = &g_pool; *pp != NULL && *pp != s; pp = &(*pp)->next) {
		}
		if (*pp == s) {
			*pp = s->next;
			g_pool_n--;
		}
	} else {
		s->busy = false;
		s->idle_since_ms = xos_now_ms();
	}
	pthread_mutex_unlock(&g_pool_mu);
	if (broken) {
		sess_free(s, false);
	}
}

void
xt_psess_shutdown(void)
{
	struct xt_psess **pp = &g_pool, *s, *dead = NULL;

	pthread_mutex_lock(&g_pool_mu);
	while ((s = *pp) != NULL) {
		if (!s->busy) {
			*pp = s->next;
			g_pool_n--;
			s->next = dead;
			dead = s;
		} else {
			pp = &s->next;
		}
	}
	pthread_mutex_unlock(&g_pool_mu);
	free_list(dead);
}

int
xt_psess_cmd(struct xt_psess *s, int lun, struct xt_pcmd *c, char *why, size_t whylen)
{
	struct iscsi_data d = { .size = c->len, .data = c->buf };
	struct scsi_task *t, *r;
	uint8_t cdb[16];

	memcpy(cdb, c->cdb, c->cdb_len);
	c->got = 0;
	c->status = 0;
	c->sense_len = 0;
	t = scsi_create_task(c->cdb_len, cdb, c->wr ? SCSI_XFER_WRITE :
			     c->len > 0 ? SCSI_XFER_READ : SCSI_XFER_NONE, (int)c->len);
	if (t == NULL) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	iscsi_set_timeout(s->iscsi, c->timeout_s);
	r = iscsi_scsi_command_sync(s->iscsi, lun, t, c->wr ? &d : NULL);
	if (r == NULL || t->status == SCSI_STATUS_ERROR || t->status == SCSI_STATUS_CANCELLED ||
	    t->status == SCSI_STATUS_TIMEOUT) {
		int rc = r != NULL && t->status == SCSI_STATUS_TIMEOUT ? -ETIMEDOUT : -EIO;
		const char *e = iscsi_get_error(s->iscsi);

		snprintf(why, whylen, "%s", e != NULL && e[0] != '\0' ? e : "the connection was lost");
		scsi_free_scsi_task(t);
		return rc;
	}
	c->status = (uint8_t)t->status;
	if (t->status == SCSI_STATUS_CHECK_CONDITION) {
		/* libiscsi 1.19 keeps key and ASC/ASCQ, not the raw bytes */
		c->sense_len = (uint8_t)xcm_sense_build_plain((uint8_t)t->sense.key,
							      (uint16_t)t->sense.ascq, c->sense,
							      sizeof(c->sense));
	} else if (!c->wr && t->datain.data != NULL && t->datain.size > 0) {
		c->got = (size_t)t->datain.size < c->len ? (size_t)t->datain.size : c->len;
		memcpy(c->buf, t->datain.data, c->got);
	}
	scsi_free_scsi_task(t);
	return 0;
}

/* A loose session (not pooled) at p's portal: logged in, no LUN checked. */
static struct xt_psess *
loose_login(const struct xt_peer *p, bool discovery, int timeout_s, char *why, size_t whylen)
{
	struct xt_psess *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	s->loose = true;
	s->busy = true;
	portal_of(p, s->portal, sizeof(s->portal));
	if (setup(s, p, discovery, timeout_s, why, whylen) != 0) {
		sess_free(s, false);
		return NULL;
	}
	if (iscsi_connect_sync(s->iscsi, s->portal) != 0 || iscsi_login_sync(s->iscsi) != 0) {
		if (discovery) {
			snprintf(why, whylen, "discovery login: %s", iscsi_get_error(s->iscsi));
		} else {
			snprintf(why, whylen, "login to %s: %s", p->target, iscsi_get_error(s->iscsi));
		}
		sess_free(s, false);
		return NULL;
	}
	return s;
}

struct xt_psess *
xt_psess_login(const struct xt_peer *p, int timeout_s, char *why, size_t whylen)
{
	return loose_login(p, false, timeout_s, why, whylen);
}

int
xt_psess_sendtargets(const struct xt_peer *p, int timeout_s, char (*names)[XT_PEER_NAME_MAX],
		     size_t max, bool *more, char *why, size_t whylen)
{
	struct xt_psess *s = loose_login(p, true, timeout_s, why, whylen);
	struct iscsi_discovery_address *da, *a;
	size_t n = 0;

	*more = false;
	if (s == NULL) {
		return -ECONNREFUSED;
	}
	da = iscsi_discovery_sync(s->iscsi);
	if (da == NULL) {
		snprintf(why, whylen, "SendTargets: %s", iscsi_get_error(s->iscsi));
		sess_free(s, false);
		return -EIO;
	}
	for (a = da; a != NULL; a = a->next) {
		/* the target's name only: its TargetAddress is never used */
		if (a->target_name == NULL || strlen(a->target_name) >= XT_PEER_NAME_MAX) {
			continue;
		}
		if (n == max) {
			*more = true;
			break;
		}
		memcpy(names[n++], a->target_name, strlen(a->target_name) + 1);
	}
	iscsi_free_discovery_data(s->iscsi, da);
	sess_free(s, true);
	return (int)n;
}
