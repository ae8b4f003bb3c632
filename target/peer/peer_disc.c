/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Discovery (man xcopy-peers.5, "discover" lines): a designator that no
 * naa. line of the peer map names is looked for among the LUs of the
 * portals the map's discover lines name. A scan of one portal: SendTargets
 * there (peer_iscsi.c), then for each target (at most
 * XT_PEER_DISC_TARGETS_MAX) a login at that same portal (the addresses the
 * answer gives are never used), REPORT LUNS, and VPD 83h of each LUN (at
 * most XT_PEER_DISC_LUNS_MAX): the NAA designators of LU association of
 * each direct-access LU are kept (at most XT_PEER_DISC_LUS_MAX a portal).
 * Bounded: each step by XT_PEER_LOGIN_S / XT_PEER_CMD_S, the scan by
 * XT_PEER_DISC_S and by the copy's deadline (a scan cut short is not used).
 * Cached XT_PEER_DISC_TTL_MS; redone when the map is read again, and when a
 * designator is found nowhere or a found LU failed its identity check (at
 * most every XT_PEER_DISC_RETRY_MS a portal). A designator on two different
 * LUs is ambiguous: refused, never one picked. Explicit lines win
 * (xt_peer_resolve asks xt_peer_lookup first). A scan's outcome is logged
 * when it differs from the portal's previous one.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer/peer_priv.h"
#include "xcm/initiator.h"

#define VPD83_ALLOC 1024

struct disc_lu {
	uint8_t desig[16];
	uint8_t len;
	uint16_t target;               /* index into the portal's names */
	uint16_t lun;
};

struct disc_portal {
	struct xt_peer line;           /* the discover line: portal, initiator, CHAP */
	bool scanned;                  /* a scan ended (complete) at at_ms */
	bool tried;                    /* a scan was tried (at_ms) */
	bool stale;                    /* a found LU failed its identity check */
	uint64_t at_ms;                /* when the last scan was tried */
	char (*names)[XT_PEER_NAME_MAX];
	size_t nnames;
	struct disc_lu *lu;
	size_t nlu;
	char told[400];                /* the last outcome logged */
};

static pthread_mutex_t g_disc_mu = PTHREAD_MUTEX_INITIALIZER;
static struct disc_portal g_port[XT_PEER_PORTALS_MAX];
static size_t g_nport;
static uint64_t g_gen;
static bool g_have;

static void
port_clear(struct disc_portal *d)
{
	free(d->names);
	free(d->lu);
	memset(d, 0, sizeof(*d));   /* the line's CHAP secret */
}

/*
 * Log what the scan of d found (msg, and detail on a line of its own:
 * tcmu-runner cuts long lines) when msg is not what the last scan found.
 */
static void
tell(const struct xt_lu *lu, struct disc_portal *d, bool err, const char *msg, const char *detail)
{
	if (strcmp(d->told, msg) == 0) {
		return;
	}
	snprintf(d->told, sizeof(d->told), "%s", msg);
	if (err) {
		xt_lu_err(lu, "peer discovery at %s:%u as %s: %s\n", d->line.host, d->line.port,
			  d->line.initiator, msg);
	} else {
		xt_lu_info(lu, "peer discovery at %s:%u as %s: %s\n", d->line.host, d->line.port,
			   d->line.initiator, msg);
	}
	if (detail != NULL && detail[0] != '\0') {
		xt_lu_warn(lu, "peer discovery at %s:%u: %s\n", d->line.host, d->line.port, detail);
	}
}

/* Keep the NAA designators (LU association) of a direct-access LU's VPD 83h page. */
static void
keep_lu(struct disc_portal *d, const uint8_t *pg, size_t len, uint16_t target, uint16_t lun,
	bool *capped)
{
	struct xcm_span page = { pg, len };
	struct xcm_designator g;
	size_t off = 0;

	if (len < 4 || pg[0] != 0x00) {   /* qualifier 000b, type 00h (direct access) only */
		return;
	}
	while (xcm_vpd_devid_next(page, &off, &g) == 1) {
		struct disc_lu *e;

		if (g.code_set != XCM_CODE_SET_BINARY || g.assoc != XCM_ASSOC_LU ||
		    g.type != XCM_DESIG_NAA || (g.len != 8 && g.len != 16)) {
			continue;
		}
		if (d->nlu == XT_PEER_DISC_LUS_MAX) {
			*capped = true;
			return;
		}
		e = &d->lu[d->nlu++];
		memcpy(e->desig, g.body, g.len);
		e->len = g.len;
		e->target = target;
		e->lun = lun;
	}
}

/* REPORT LUNS and VPD 83h of each LUN of target t, over a session of its own. */
static int
scan_target(struct disc_portal *d, uint16_t t, uint64_t deadline_ms, bool *capped, char *why,
	    size_t whylen)
{
	const size_t rl_len = XCM_REPORT_LUNS_HDR + 8 * XT_PEER_DISC_LUNS_MAX;
	uint8_t cdb[XCM_CDB16_LEN], *rl = malloc(rl_len), *pg = malloc(VPD83_ALLOC);
	struct xt_peer p = d->line;
	struct xt_pcmd c;
	struct xt_psess *s = NULL;
	size_t off = 0, nluns = 0;
	uint16_t lun;
	int rc = -ENOMEM, tmo;

	snprintf(why, whylen, "out of memory");
	if (rl == NULL || pg == NULL) {
		goto out;
	}
	memcpy(p.target, d->names[t], sizeof(p.target));
	rc = -ETIMEDOUT;
	snprintf(why, whylen, "the scan's time bound passed");
	if ((tmo = xt_peer_timeout_for(deadline_ms, XT_PEER_LOGIN_S)) == 0) {
		goto out;
	}
	if ((s = xt_psess_login(&p, tmo, why, whylen)) == NULL) {
		rc = -ECONNREFUSED;
		goto out;
	}
	xcm_cdb_report_luns(cdb, (uint32_t)rl_len);
	c = (struct xt_pcmd){ .cdb = cdb, .cdb_len = XCM_CDB12_LEN, .buf = rl, .len = rl_len };
	if ((c.timeout_s = xt_peer_timeout_for(deadline_ms, XT_PEER_CMD_S)) == 0) {
		goto out;
	}
	if ((rc = xt_psess_cmd(s, 0, &c, why, whylen)) != 0 || c.status != 0) {
		snprintf(why, whylen, "REPORT LUNS of %s failed", p.target);
		rc = -EIO;
		goto out;
	}
	if (c.got >= 4 && xcm_get_be32(rl) > rl_len - XCM_REPORT_LUNS_HDR) {
		*capped = true;   /* more LUNs than XT_PEER_DISC_LUNS_MAX: the rest not looked at */
	}
	while (xcm_report_luns_next((struct xcm_span){ rl, c.got }, &off, &lun) == 1 &&
	       nluns++ < XT_PEER_DISC_LUNS_MAX) {
		xcm_cdb_inquiry(cdb, true, XCM_VPD_DEVICE_ID, VPD83_ALLOC);
		c = (struct xt_pcmd){ .cdb = cdb, .cdb_len = XCM_CDB6_LEN, .buf = pg,
				      .len = VPD83_ALLOC };
		rc = -ETIMEDOUT;
		snprintf(why, whylen, "the scan's time bound passed");
		if ((c.timeout_s = xt_peer_timeout_for(deadline_ms, XT_PEER_CMD_S)) == 0) {
			goto out;
		}
		if ((rc = xt_psess_cmd(s, lun, &c, why, whylen)) != 0) {
			goto out;   /* the session is gone */
		}
		if (c.status == 0) {
			keep_lu(d, pg, c.got, t, lun, capped);
		}
	}
	rc = 0;
out:
	if (s != NULL) {
		xt_psess_put(s, rc != 0);
	}
	free(rl);
	free(pg);
	return rc;
}

/* Scan portal d by deadline_ms (0: none), within XT_PEER_DISC_S. */
static void
scan(const struct xt_lu *lu, struct disc_portal *d, uint64_t deadline_ms)
{
	uint64_t now = xos_now_ms(), end = now + XT_PEER_DISC_S * 1000ull;
	char why[256], msg[400], first[200] = "";
	unsigned int failed = 0;
	bool more = false, capped = false;
	size_t t;
	int n, tmo;

	d->at_ms = now;
	d->tried = true;
	d->stale = false;
	d->scanned = false;
	d->nnames = 0;
	d->nlu = 0;
	if (deadline_ms != 0 && deadline_ms < end) {
		end = deadline_ms;
	}
	if (d->names == NULL) {
		d->names = calloc(XT_PEER_DISC_TARGETS_MAX, sizeof(*d->names));
		d->lu = calloc(XT_PEER_DISC_LUS_MAX, sizeof(*d->lu));
	}
	if (d->names == NULL || d->lu == NULL) {
		tell(lu, d, true, "out of memory", NULL);
		return;
	}
	tmo = xt_peer_timeout_for(end, XT_PEER_LOGIN_S);
	n = tmo == 0 ? -ETIMEDOUT : xt_psess_sendtargets(&d->line, tmo, d->names,
							  XT_PEER_DISC_TARGETS_MAX, &more,
							  why, sizeof(why));
	if (n < 0) {
		snprintf(msg, sizeof(msg), "no scan: %.200s", n == -ETIMEDOUT ? "no time left" : why);
		tell(lu, d, true, msg, NULL);
		return;
	}
	d->nnames = (size_t)n;
	for (t = 0; t < d->nnames; t++) {
		int rc = scan_target(d, (uint16_t)t, end, &capped, why, sizeof(why));

		if (rc == -ETIMEDOUT) {
			snprintf(msg, sizeof(msg), "scan cut short at target %zu of %zu (its time "
				 "bound or the copy's deadline): not used", t + 1, d->nnames);
			d->nlu = 0;
			tell(lu, d, true, msg, NULL);
			return;
		}
		if (rc != 0 && failed++ == 0) {
			snprintf(first, sizeof(first), "%.190s", why);
		}
	}
	d->scanned = true;
	n = snprintf(msg, sizeof(msg), "%zu targets%s, %zu LU designators%s", d->nnames,
		     more ? " (more not looked at)" : "", d->nlu,
		     capped ? " (more not looked at)" : "");
	if (failed > 0 && n > 0 && (size_t)n < sizeof(msg)) {
		snprintf(msg + n, sizeof(msg) - (size_t)n, ", %u not scanned (the first's reason "
			 "follows)", failed);
	}
	tell(lu, d, false, msg, first);
}

/* The map's discover lines changed (or first use): forget every scan. */
static void
take_lines(const struct xt_peer *v, size_t n, uint64_t gen)
{
	size_t i;

	for (i = 0; i < g_nport; i++) {
		port_clear(&g_port[i]);
	}
	for (i = 0; i < n; i++) {
		g_port[i].line = v[i];
	}
	g_nport = n;
	g_gen = gen;
	g_have = true;
}

/* The LUs of the scans that hold desig: 0 none, 1 (*out), 2 ambiguous (why). */
static int
find(const uint8_t *desig, size_t len, struct xt_peer *out, char *why, size_t whylen)
{
	const struct disc_portal *fd = NULL;
	const struct disc_lu *fl = NULL;
	size_t i, j;

	for (i = 0; i < g_nport; i++) {
		const struct disc_portal *d = &g_port[i];

		for (j = 0; d->scanned && j < d->nlu; j++) {
			const struct disc_lu *e = &d->lu[j];

			if (e->len != len || memcmp(e->desig, desig, len) != 0) {
				continue;
			}
			if (fl == NULL) {
				fd = d;
				fl = e;
				continue;
			}
			/* the same LU seen again (another initiator, a second designator entry) */
			if (strcmp(fd->line.host, d->line.host) == 0 && fd->line.port == d->line.port &&
			    strcmp(fd->names[fl->target], d->names[e->target]) == 0 &&
			    fl->lun == e->lun) {
				continue;
			}
			snprintf(why, whylen, "the designator is on two LUs: %s LUN %u at %s:%u and "
				 "%s LUN %u at %s:%u (ambiguous: refused)", fd->names[fl->target],
				 fl->lun, fd->line.host, fd->line.port, d->names[e->target], e->lun,
				 d->line.host, d->line.port);
			return 2;
		}
	}
	if (fl == NULL) {
		return 0;
	}
	*out = fd->line;
	memcpy(out->target, fd->names[fl->target], sizeof(out->target));
	out->lun = fl->lun;
	memcpy(out->desig, desig, len);
	out->desig_len = (uint8_t)len;
	out->found = true;
	return 1;
}

int
xt_peer_resolve(const struct xt_lu *lu, const uint8_t *desig, size_t len, uint64_t deadline_ms,
		struct xt_peer *out, char *why, size_t whylen)
{
	struct xt_peer v[XT_PEER_PORTALS_MAX];
	uint64_t gen, now;
	size_t n, i;
	int rc;

	if (xt_peer_lookup(lu, desig, len, out) == 0) {
		return 0;   /* a naa. line names it: explicit wins */
	}
	n = xt_peer_portals(lu, v, XT_PEER_PORTALS_MAX, &gen);
	pthread_mutex_lock(&g_disc_mu);
	if (!g_have || gen != g_gen) {
		take_lines(v, n, gen);
	}
	memset(v, 0, sizeof(v));
	now = xos_now_ms();
	for (i = 0; i < g_nport; i++) {
		struct disc_portal *d = &g_port[i];

		if (!d->tried || now - d->at_ms >= XT_PEER_DISC_TTL_MS ||
		    (d->stale && now - d->at_ms >= XT_PEER_DISC_RETRY_MS)) {
			scan(lu, d, deadline_ms);
		}
	}
	rc = find(desig, len, out, why, whylen);
	if (rc == 0) {
		/* not found: the portals not scanned lately are scanned again */
		bool again = false;

		now = xos_now_ms();
		for (i = 0; i < g_nport; i++) {
			if (now - g_port[i].at_ms >= XT_PEER_DISC_RETRY_MS) {
				scan(lu, &g_port[i], deadline_ms);
				again = true;
			}
		}
		rc = again ? find(desig, len, out, why, whylen) : 0;
	}
	pthread_mutex_unlock(&g_disc_mu);
	if (rc == 2) {
		return -ENOTUNIQ;
	}
	return rc == 1 ? 0 : -ENOENT;
}

void
xt_peer_disc_stale(const struct xt_peer *p)
{
	size_t i;

	pthread_mutex_lock(&g_disc_mu);
	for (i = 0; i < g_nport; i++) {
		struct disc_portal *d = &g_port[i];

		if (strcmp(d->line.host, p->host) == 0 && d->line.port == p->port &&
		    strcmp(d->line.initiator, p->initiator) == 0) {
			d->stale = true;
		}
	}
	pthread_mutex_unlock(&g_disc_mu);
}

void
xt_peer_disc_reset(void)
{
	size_t i;

	pthread_mutex_lock(&g_disc_mu);
	for (i = 0; i < g_nport; i++) {
		port_clear(&g_port[i]);
	}
	g_nport = 0;
	g_have = false;
	pthread_mutex_unlock(&g_disc_mu);
}
