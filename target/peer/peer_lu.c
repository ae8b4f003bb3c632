/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A remote LU: a struct xt_lu the copy manager resolves like a local one,
 * whose store ops read and write the peer's blocks over a pooled iSCSI
 * session (READ(16), WRITE(16), SYNCHRONIZE CACHE(16)). It lives for one
 * copy (xt_peer_open .. xt_peer_close), holds its session the whole time,
 * and has no device, registry entry, tokens or copy manager state: store/
 * copies between it and a local LU through the stores' io (gateway), so
 * the engine's segment semantics (residuals, COPY ABORTED, RCR) are the
 * local ones. The identity check at open: VPD 83h of the peer's LU holds
 * the CSCD's designator (NAA, LU association), READ CAPACITY(16) gives its
 * block size and capacity.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer/peer_priv.h"
#include "xcm/initiator.h"

#define VPD83_ALLOC 1024

static uint32_t
h_block_size(const struct xt_lu *lu)
{
	return plu(lu)->block_size;
}

static uint64_t
h_num_lbas(const struct xt_lu *lu)
{
	return plu(lu)->num_lbas;
}

static char *
h_serial(const struct xt_lu *lu)
{
	return NULL;
}

static bool
h_write_cache(const struct xt_lu *lu)
{
	return false;   /* what the copy wrote is flushed on the peer before GOOD (backend.c) */
}

static const char *
h_cfgstring(const struct xt_lu *lu)
{
	return "";
}

static void
h_log(const struct xt_lu *lu, enum xt_log_level lvl, const char *func, int line, const char *msg)
{
	const struct xt_lu *self = plu(lu)->self;

	if (self != NULL && self->host != NULL) {
		self->host->log(self, lvl, func, line, msg);
	}
}

static const struct xt_lu_host g_peer_host = {
	.block_size = h_block_size,
	.num_lbas = h_num_lbas,
	.serial = h_serial,
	.write_cache = h_write_cache,
	.cfgstring = h_cfgstring,
	.log = h_log,
};

int
xt_peer_timeout_for(uint64_t deadline_ms, int bound_s)
{
	uint64_t now = xos_now_ms(), left;

	if (deadline_ms == 0) {
		return bound_s;
	}
	if (now >= deadline_ms) {
		return 0;
	}
	left = (deadline_ms - now + 999) / 1000;
	return left < (uint64_t)bound_s ? (int)left : bound_s;
}

static int session(struct xt_peer_lu *p, uint64_t deadline_ms, char *why, size_t whylen);

/*
 * The connection dropped under a command (not a timeout): log in again and
 * check the LU's identity, at most XT_PEER_RELOGINS times per copy. Why a
 * connection drops mid-copy: libiscsi 1.19.0 (Debian's) can answer a
 * target's NOP-In ping with a NOP-Out whose CmdSN it takes from a queued
 * Data-Out PDU and then fails the connection itself ("outqueue[0]->cmdsn <
 * expcmdsn", fixed upstream after 1.19.0: sahlberg/libiscsi#328); LIO pings
 * every 15 s by default, so a long push met it (bench xtarget: 3 of 4
 * 1 GiB copies). 0 with a new session, or -errno.
 */
static int
relogin(struct xt_peer_lu *p, uint64_t deadline_ms, const char *lost, char *why, size_t whylen)
{
	if (p->relogins >= XT_PEER_RELOGINS) {
		return -ECONNABORTED;
	}
	p->relogins++;
	xt_lu_warn(p->self, "xcopy: peer %s/%u: %s: logging in again (%u of %u)\n",
		   p->peer.target, p->peer.lun, lost, p->relogins, XT_PEER_RELOGINS);
	xt_psess_put(p->sess, true);
	p->sess = NULL;
	p->broken = false;
	return session(p, deadline_ms, why, whylen);   /* as at open: identity checked */
}

int
xt_peer_run(struct xt_peer_lu *p, struct xt_pcmd *c, uint64_t deadline_ms, char *why, size_t whylen)
{
	char lost[160];
	int rc;

	p->have_sense = false;   /* only the last command's sense is forwarded */
	if (p->broken || p->sess == NULL) {
		snprintf(why, whylen, "the session to the peer was lost");
		return -EIO;
	}
	c->timeout_s = xt_peer_timeout_for(deadline_ms, XT_PEER_CMD_S);
	if (c->timeout_s == 0) {
		snprintf(why, whylen, "the copy's deadline passed");
		return -ETIMEDOUT;
	}
	rc = xt_psess_cmd(p->sess, p->peer.lun, c, why, whylen);
	/*
	 * A lost connection (not a timeout) once the LU is open: every command
	 * the plugin sends a peer (READ, WRITE of the same bytes, SYNCHRONIZE
	 * CACHE, INQUIRY, READ CAPACITY, a delegated EXTENDED COPY of disjoint
	 * ranges) has the same outcome when sent again, so it is, on a new
	 * session. While the LU opens, session() tries the pool's sessions.
	 */
	while (rc == -EIO && !p->no_relogin) {
		p->broken = true;
		snprintf(lost, sizeof(lost), "%s", why);
		rc = relogin(p, deadline_ms, lost, why, whylen);
		if (rc == -ECONNABORTED) {
			snprintf(why, whylen, "%s (after %u new sessions)", lost, p->relogins);
			rc = -EIO;
			break;
		}
		if (rc == -EIO) {
			continue;   /* the new session lost its connection too (a dead pooled one) */
		}
		if (rc != 0) {
			rc = rc == -ETIMEDOUT ? rc : -EIO;
			break;
		}
		c->timeout_s = xt_peer_timeout_for(deadline_ms, XT_PEER_CMD_S);
		if (c->timeout_s == 0) {
			snprintf(why, whylen, "the copy's deadline passed");
			rc = -ETIMEDOUT;
			break;
		}
		rc = xt_psess_cmd(p->sess, p->peer.lun, c, why, whylen);
	}
	if (rc != 0) {
		p->broken = true;
		return rc;
	}
	if (c->status == 0) {
		return 0;
	}
	p->have_sense = true;
	p->status = c->status;
	p->sense_len = c->sense_len;
	memcpy(p->sense, c->sense, c->sense_len);
	if (c->sense_len >= 14) {
		snprintf(why, whylen, "status %02xh, sense %x/%02x/%02x", c->status,
			 c->sense[2] & 0x0f, c->sense[12], c->sense[13]);
	} else {
		snprintf(why, whylen, "status %02xh", c->status);
	}
	return -EIO;
}

static int
rw_blocks(struct xt_peer_lu *p, bool wr, uint8_t *buf, size_t len, uint64_t off,
	  uint64_t deadline_ms)
{
	uint8_t cdb[16];
	struct xt_pcmd c = { .cdb = cdb, .cdb_len = 16, .wr = wr, .buf = buf, .len = len };
	char why[256];
	int rc;

	(wr ? xcm_cdb_write16 : xcm_cdb_read16)(cdb, off / p->block_size,
						 (uint32_t)(len / p->block_size));
	rc = xt_peer_run(p, &c, deadline_ms, why, sizeof(why));
	if (rc == 0 && !wr && c.got != len) {
		snprintf(why, sizeof(why), "short read, %zu of %zu bytes", c.got, len);
		rc = -EIO;
	}
	if (rc != 0) {
		xt_lu_err(p->self, "xcopy: peer %s/%u: %s at byte %llu (%zu bytes): %s\n",
			  p->peer.target, p->peer.lun, wr ? "WRITE(16)" : "READ(16)",
			  (unsigned long long)off, len, why);
	}
	return rc;
}

/* The store's io: whole blocks of one buffer, in commands of at most XT_PEER_IO_MAX. */
static int
peer_io(struct xt_lu *lu, const struct xt_io *io)
{
	struct xt_peer_lu *p = plu(lu);
	uint64_t deadline = io->copy != NULL ? io->copy->deadline_ms : io->deadline_ms;
	size_t at = 0, n;
	uint8_t *buf;
	int rc = 0;

	if (io->off % p->block_size != 0 || io->len % p->block_size != 0) {
		xt_lu_err(p->self, "xcopy: peer %s/%u: %zu bytes at byte %llu are not whole "
			  "blocks of %u\n", p->peer.target, p->peer.lun, io->len,
			  (unsigned long long)io->off, p->block_size);
		return -EINVAL;
	}
	if (io->off / p->block_size + io->len / p->block_size > p->num_lbas) {
		return -ERANGE;
	}
	if (io->cnt != 1 || io->iov[0].iov_len < io->len) {
		return -EINVAL;   /* store/'s gateway hands one buffer (store_copy.c gw_io) */
	}
	buf = io->iov[0].iov_base;
	while (at < io->len && rc == 0) {
		n = io->len - at < XT_PEER_IO_MAX ? io->len - at : XT_PEER_IO_MAX;
		rc = rw_blocks(p, io->wr, buf + at, n, io->off + at, deadline);
		at += n;
	}
	return rc;
}

static int
peer_flush_op(struct xt_lu *lu)
{
	return xt_peer_flush(lu, 0);
}

static int
peer_size(struct xt_lu *lu, uint64_t *bytes)
{
	*bytes = plu(lu)->num_lbas * plu(lu)->block_size;
	return 0;
}

static int
peer_zero(struct xt_lu *lu, uint64_t off, uint64_t len, uint64_t deadline_ms)
{
	return -EOPNOTSUPP;
}

/* The ops of a remote LU: io and flush; no copy op (store/ goes through io). */
static const struct xt_store_ops xt_store_peer = {
	.name = "peer",
	.page_cache = false,
	.copy_policy = false,
	.copy_chunk = 4 * XT_CHUNK,
	.size = peer_size,
	.io = peer_io,
	.flush = peer_flush_op,
	.zero = peer_zero,
};

bool
xt_lu_is_peer(const struct xt_lu *lu)
{
	return lu != NULL && lu->ops == &xt_store_peer;
}

bool
xt_peer_is(const struct xt_lu *lu, const uint8_t *desig, size_t len)
{
	const struct xt_peer_lu *p = plu(lu);

	return xt_lu_is_peer(lu) && p->peer.desig_len == len && memcmp(p->peer.desig, desig, len) == 0;
}

/* Does the VPD 83h page (len bytes) name the LU by desig (NAA, binary, LU association)? */
static bool
vpd83_names(const uint8_t *pg, size_t len, const uint8_t *desig, size_t dlen)
{
	struct xcm_span page = { pg, len };
	struct xcm_designator d;
	size_t off = 0;

	while (xcm_vpd_devid_next(page, &off, &d) == 1) {
		if (d.code_set == XCM_CODE_SET_BINARY && d.assoc == XCM_ASSOC_LU &&
		    d.type == XCM_DESIG_NAA && d.len == dlen && memcmp(d.body, desig, dlen) == 0) {
			return true;
		}
	}
	return false;
}

/* Identity and geometry of the peer's LU. 0, or -errno with why. */
static int
identify(struct xt_peer_lu *p, uint64_t deadline_ms, char *why, size_t whylen)
{
	uint8_t inq[XCM_CDB6_LEN], rc16[16];
	uint8_t *pg = calloc(1, VPD83_ALLOC);
	struct xt_pcmd c = { .cdb = inq, .cdb_len = sizeof(inq), .buf = pg, .len = VPD83_ALLOC };
	uint8_t cap[XCM_READ_CAP16_LEN];
	struct xcm_capacity cd;
	int rc;

	if (pg == NULL) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	xcm_cdb_inquiry(inq, true, XCM_VPD_DEVICE_ID, VPD83_ALLOC);
	rc = xt_peer_run(p, &c, deadline_ms, why, whylen);
	if (rc == 0 && !vpd83_names(pg, c.got, p->peer.desig, p->peer.desig_len)) {
		snprintf(why, whylen, "%s LUN %u does not report the designator of the map "
			 "(VPD 83h): not the LU the map names", p->peer.target, p->peer.lun);
		rc = -ENXIO;
	}
	free(pg);
	if (rc != 0) {
		return rc;
	}
	xcm_cdb_read_capacity16(rc16, sizeof(cap));
	c = (struct xt_pcmd){ .cdb = rc16, .cdb_len = sizeof(rc16), .buf = cap, .len = sizeof(cap) };
	if ((rc = xt_peer_run(p, &c, deadline_ms, why, whylen)) != 0) {
		return rc;
	}
	if (xcm_read_capacity16_decode((struct xcm_span){ cap, c.got }, &cd) != 0) {
		snprintf(why, whylen, "READ CAPACITY(16): %zu bytes, no block length", c.got);
		return -EIO;
	}
	p->num_lbas = cd.last_lba + 1;
	p->block_size = cd.block_len;
	if (p->block_size < 512 || p->block_size > (1u << 20) ||
	    (p->block_size & (p->block_size - 1)) != 0 || XT_PEER_IO_MAX % p->block_size != 0 ||
	    p->num_lbas == 0) {
		snprintf(why, whylen, "READ CAPACITY(16): block size %u, %llu blocks: not usable",
			 p->block_size, (unsigned long long)p->num_lbas);
		return -EIO;
	}
	return 0;
}

/*
 * A session to the peer whose LU answers as the CSCD named it, each login
 * bounded by XT_PEER_LOGIN_S within the copy's deadline. A pooled session
 * may have died while idle (the peer's target restarted, the connection
 * reset): its first command fails; it is dropped and the next pooled one,
 * or a new login, is tried, as many times as the pool holds.
 */
static int
session(struct xt_peer_lu *p, uint64_t deadline_ms, char *why, size_t whylen)
{
	int rc = -ECONNREFUSED, tries, t;

	for (tries = 0; tries <= XT_PEER_SESSIONS_MAX; tries++) {
		t = xt_peer_timeout_for(deadline_ms, XT_PEER_LOGIN_S);
		if (t == 0) {
			snprintf(why, whylen, "the copy's deadline passed");
			return -ETIMEDOUT;
		}
		p->sess = xt_psess_get(&p->peer, t, why, whylen);
		if (p->sess == NULL) {
			return -ECONNREFUSED;
		}
		p->no_relogin = true;
		rc = identify(p, deadline_ms, why, whylen);
		p->no_relogin = false;
		if (rc == 0 || !p->broken || !xt_psess_reused(p->sess)) {
			return rc;
		}
		xt_psess_put(p->sess, true);
		p->sess = NULL;
		p->broken = false;
	}
	return rc;
}

int
xt_peer_open(struct xt_lu *self, const uint8_t *desig, size_t len, uint64_t deadline_ms,
	     struct xt_lu **out, char *why, size_t whylen)
{
	struct xt_peer_lu *p;
	int rc;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	why[0] = '\0';
	rc = xt_peer_resolve(self, desig, len, deadline_ms, &p->peer, why, whylen);
	if (rc != 0) {
		memset(&p->peer, 0, sizeof(p->peer));
		free(p);
		if (rc == -ENOENT) {
			snprintf(why, whylen, "not in the peer map");
		}
		return rc;   /* -ENOTUNIQ: on two LUs, why says which */
	}
	p->self = self;
	rc = session(p, deadline_ms, why, whylen);
	if (rc != 0) {
		if (p->peer.found && rc == -ENXIO) {
			xt_peer_disc_stale(&p->peer);   /* the scan is out of date: redo it */
		}
		if (p->sess != NULL) {
			xt_psess_put(p->sess, p->broken);
		}
		memset(&p->peer, 0, sizeof(p->peer));
		free(p);
		return rc == -ENOENT ? -EIO : rc;
	}
	p->lu.priv = p;
	p->lu.ops = &xt_store_peer;
	p->lu.host = &g_peer_host;
	snprintf(p->lu.name, sizeof(p->lu.name), "peer:%.100s/%u", p->peer.target, p->peer.lun);
	snprintf(p->lu.cfg.path, sizeof(p->lu.cfg.path), "iscsi://%s:%u/%s/%u", p->peer.host,
		 p->peer.port, p->peer.target, p->peer.lun);
	*out = &p->lu;
	return 0;
}

void
xt_peer_close(struct xt_lu *lu)
{
	struct xt_peer_lu *p;

	if (lu == NULL || !xt_lu_is_peer(lu)) {
		return;
	}
	p = plu(lu);
	if (p->sess != NULL) {
		xt_psess_put(p->sess, p->broken);
	}
	memset(&p->peer, 0, sizeof(p->peer));   /* the CHAP secret */
	free(p);
}

bool
xt_peer_last_sense(const struct xt_lu *lu, uint8_t *status, uint8_t *sense, uint8_t *len)
{
	const struct xt_peer_lu *p;

	if (!xt_lu_is_peer(lu) || !plu(lu)->have_sense) {
		return false;
	}
	p = plu(lu);
	*status = p->status;
	memcpy(sense, p->sense, p->sense_len);
	*len = p->sense_len;
	return true;
}

int
xt_peer_flush(struct xt_lu *lu, uint64_t deadline_ms)
{
	uint8_t cdb[16] = { 0x91 };
	struct xt_pcmd c = { .cdb = cdb, .cdb_len = 16 };
	char why[256];
	int rc;

	if (!xt_lu_is_peer(lu)) {
		return -EINVAL;
	}
	rc = xt_peer_run(plu(lu), &c, deadline_ms, why, sizeof(why));
	if (rc != 0) {
		xt_lu_err(plu(lu)->self, "xcopy: peer %s: SYNCHRONIZE CACHE(16): %s\n", lu->name, why);
	}
	return rc;
}
