/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Peers: LUs of other iSCSI targets this copy manager may reach (issue #36).
 * The peer map (peer_map.c, man xcopy-peers.5) names each one by its NAA
 * designator; an EXTENDED COPY CSCD that names no LU of this process but a
 * LU of the map is opened as a remote LU (peer_lu.c): a struct xt_lu whose
 * store ops move blocks with READ(16)/WRITE(16) over a pooled libiscsi
 * session (peer_iscsi.c, the only file that names libiscsi).
 */
#ifndef TARGET_PEER_H
#define TARGET_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/lu.h"

#define XT_PEER_LINE_MAX 1024          /* bytes of one line, its newline included */
#define XT_PEER_FILE_MAX (1u << 20)    /* bytes of the whole map */
#define XT_PEER_ENTRIES_MAX 1024
#define XT_PEER_NAME_MAX 224           /* iSCSI names: 223 bytes (RFC 7143) + NUL */
#define XT_PEER_HOST_MAX 256
#define XT_PEER_CHAP_MAX 256
#define XT_PEER_PORTALS_MAX 16         /* discover lines */

/* One line of the map: a remote LU (or a portal to discover) and how to log in to it. */
struct xt_peer {
	uint8_t desig[16];                 /* NAA designator, binary */
	uint8_t desig_len;                 /* 8 or 16; 0: a discover line (no target, LUN 0) */
	char host[XT_PEER_HOST_MAX];       /* IPv4, host name, or IPv6 without brackets */
	uint16_t port;                     /* 3260 unless given */
	char target[XT_PEER_NAME_MAX];     /* target IQN / EUI / NAA name */
	uint16_t lun;                      /* 0..16383 */
	char initiator[XT_PEER_NAME_MAX];  /* the name this copy manager logs in as */
	char chap_user[XT_PEER_CHAP_MAX];  /* "" : no CHAP */
	char chap_secret[XT_PEER_CHAP_MAX];
	unsigned int line;                 /* where the map said it */
	bool found;                        /* by discovery (peer_disc.c): target, LUN its scan's */
};

struct xt_peer_map {
	struct xt_peer *v;                 /* the naa. lines */
	size_t n;
	struct xt_peer *portal;            /* the discover lines, in map order */
	size_t nportal;
};

/*
 * peer_map.c: parse a whole map (buf, len bytes; need not end in NUL).
 * 0 with *map filled (xt_peer_map_free frees it), or -EINVAL with
 * "line N: reason" in why (map left empty). Pure: no I/O.
 */
int xt_peer_map_parse(const char *buf, size_t len, struct xt_peer_map *map, char *why,
		      size_t whylen);
void xt_peer_map_free(struct xt_peer_map *map);
/* The entry of map whose designator is desig (len bytes), NULL: none. */
const struct xt_peer *xt_peer_map_find(const struct xt_peer_map *map, const uint8_t *desig,
				       size_t len);
/*
 * The one entry of map at portal addr (16 bytes: IPv6, or IPv4-mapped
 * ::ffff:a.b.c.d for an IPv4 one), TCP port and LUN, as an iSCSI IPv6 CSCD
 * (EAh) names a LU: entries whose HOST is an address literal equal to addr
 * (never a host name). NULL when none or several match (*nmatch says how
 * many).
 */
const struct xt_peer *xt_peer_map_find_portal(const struct xt_peer_map *map,
					      const uint8_t addr[16], uint16_t port,
					      uint16_t lun, size_t *nmatch);
/*
 * May a file with this owner and mode hold the map (it holds CHAP secrets)?
 * A regular file owned by uid owner, no group or other permission bit. 0,
 * or -EPERM with the reason in why.
 */
int xt_peer_map_mode_ok(const struct stat *st, uid_t owner, char *why, size_t whylen);
/*
 * The entry for desig from the map file (xt_env()->peers_path), read again
 * when its mtime, size, inode or ctime changed: 0 with *out a copy,
 * -ENOENT if the map does not name it (or there is no map, or the map is
 * refused: the reason logged on lu, once per change of the file).
 */
int xt_peer_lookup(const struct xt_lu *lu, const uint8_t *desig, size_t len,
		   struct xt_peer *out);
/*
 * The same for the entry at portal addr, port and lun (xt_peer_map_find_portal):
 * 0 with *out a copy; -ENOENT if none, or several (logged on lu), match.
 */
int xt_peer_lookup_portal(const struct xt_lu *lu, const uint8_t addr[16], uint16_t port,
			  uint16_t lun, struct xt_peer *out);
struct xcm_cscd;
/*
 * The NAA designator by which the map names the LU of CSCD c, into buf[16]
 * (*len 8 or 16): an identification CSCD's (E4h) own NAA designator, or for
 * an iSCSI IPv6 CSCD (EAh) the designator of the one entry at its portal
 * address, port and LU IDENTIFIER (a single-level LUN). The map alone
 * decides what an address may reach. 0, or -ENOENT.
 */
int xt_peer_cscd_desig(const struct xt_lu *lu, const struct xcm_cscd *c, uint8_t buf[16],
		       size_t *len);
/* Does the map file as it is now name any LU or portal (read again if changed)? */
bool xt_peer_map_any(const struct xt_lu *lu);
/* Forget the cached map (handler destroy, tests). */
void xt_peer_map_reset(void);
/*
 * The discover lines of the map file as it is now (read again if changed,
 * as xt_peer_lookup): at most max copied to v, their count returned; *gen
 * changes whenever the map is read again (a reload: discovery redone).
 */
size_t xt_peer_portals(const struct xt_lu *lu, struct xt_peer *v, size_t max, uint64_t *gen);

/* ---- discovery (peer_disc.c) ---- */

#define XT_PEER_DISC_TARGETS_MAX 64    /* targets of one portal looked at */
#define XT_PEER_DISC_LUNS_MAX 256      /* LUNs of one target looked at */
#define XT_PEER_DISC_LUS_MAX 1024      /* LUs of one portal kept */
#define XT_PEER_DISC_S 60              /* one portal's scan, at most (within the copy's deadline) */
#define XT_PEER_DISC_TTL_MS 300000     /* a scan is trusted this long */
#define XT_PEER_DISC_RETRY_MS 10000    /* a designator not found rescans at most this often */

/*
 * The entry for desig: the map's naa. line if there is one (explicit lines
 * win), else the LU of a discover line's portal whose VPD 83h reports it
 * (a scan cached XT_PEER_DISC_TTL_MS, redone on reload or, rate-limited,
 * when desig is not found), by deadline_ms. 0 with *out (target and LUN of
 * the LU found, the line's portal, initiator and CHAP); -ENOENT: found
 * nowhere; -ENOTUNIQ: found on two different LUs (why says which).
 */
int xt_peer_resolve(const struct xt_lu *lu, const uint8_t *desig, size_t len,
		    uint64_t deadline_ms, struct xt_peer *out, char *why, size_t whylen);
/* A discovered entry failed its identity check at open: its portal is scanned again. */
void xt_peer_disc_stale(const struct xt_peer *p);
/* Forget every scan (handler destroy, tests). */
void xt_peer_disc_reset(void);

/* ---- remote LUs (peer_lu.c) ---- */

/*
 * Open the LU of the map named by desig as seen from self (the LU that
 * received the copy), by deadline_ms (0: none): the map entry, a pooled
 * session, the identity check (VPD 83h holds desig; READ CAPACITY(16)).
 * 0 with *out (xt_peer_close releases it); -ENOENT: the map does not name
 * desig; another -errno: it could not be reached or is not that LU (why).
 */
int xt_peer_open(struct xt_lu *self, const uint8_t *desig, size_t len, uint64_t deadline_ms,
		 struct xt_lu **out, char *why, size_t whylen);
void xt_peer_close(struct xt_lu *lu);
/* Is lu a remote LU (opened by xt_peer_open)? */
bool xt_lu_is_peer(const struct xt_lu *lu);
/* Its designator (xt_peer_open's desig). */
bool xt_peer_is(const struct xt_lu *lu, const uint8_t *desig, size_t len);
/*
 * The SCSI status and sense of the remote's last failed command (fixed
 * format, rebuilt from its key, ASC and ASCQ): true if there is one.
 */
bool xt_peer_last_sense(const struct xt_lu *lu, uint8_t *status, uint8_t *sense,
			uint8_t *len);
/* SYNCHRONIZE CACHE(16) on the remote LU, by deadline_ms: 0 or -errno. */
int xt_peer_flush(struct xt_lu *lu, uint64_t deadline_ms);

/* ---- remote ROD tokens (peer_token.c, docs/remote-tokens.md) ---- */

struct xcm_tok_seg;
/*
 * WRITE USING TOKEN on self with a token whose creator LU (NAA designator
 * creator) is not here: the creator, found in the peer map, writes the
 * token's bytes into t's ranges of self (one EXTENDED COPY with segment
 * C0h), by deadline_ms. XCM_OK, *bytes written; 23/02 (creator not in the
 * map, or its target does not redeem for others); the creator's 23/xx;
 * COPY ABORTED 0D/02 (not reachable) or 0D/01 (its sense forwarded in err).
 */
enum xcm_status xt_peer_redeem(struct xt_lu *self, const uint8_t creator[16],
			       const struct xcm_tok_seg *t, uint64_t deadline_ms, uint64_t *bytes,
			       struct xcm_err *err);

/* ---- delegation (peer_deleg.c) ---- */

#define XT_PEER_DELEG_MAX (16u << 20)  /* bytes of one forwarded EXTENDED COPY */

struct xcm_io_err;
/* Are a and b remote LUs of one peer target, logged in to alike (portal, target, initiator, CHAP)? */
bool xt_peer_same_target(const struct xt_lu *a, const struct xt_lu *b);
/*
 * Copy len bytes from src at soff to dst at doff, two LUs of one peer
 * target, by forwarding EXTENDED COPY (LID1) commands to it, by
 * deadline_ms. 0: copied there; -EOPNOTSUPP: not delegated (not one target,
 * no copy manager there, a refusal, geometry): the caller moves the blocks;
 * another -errno: failed, *ioerr filled (bytes done, the peer's status and
 * sense).
 */
int xt_peer_copy(struct xt_lu *src, uint64_t soff, struct xt_lu *dst, uint64_t doff, uint64_t len,
		 uint64_t deadline_ms, struct xcm_io_err *ioerr);

/* ---- the session pool (peer_iscsi.c) ---- */

#define XT_PEER_SESSIONS_MAX 16        /* sessions open at once, in use or idle */
#define XT_PEER_IDLE_MS 60000          /* an idle session is logged out after this */
#define XT_PEER_LOGIN_S 10             /* login time bound (within the copy's deadline) */
#define XT_PEER_CMD_S 30               /* command time bound (within the copy's deadline) */
#define XT_PEER_RELOGINS 3             /* new sessions per copy after lost connections */
#define XT_PEER_IO_MAX (512u << 10)    /* bytes of one READ(16) / WRITE(16) */

struct xt_psess;
/*
 * A session to p's target as p's initiator, for this thread alone until
 * xt_psess_put: an idle one of the pool, or a new login bounded by
 * timeout_s. NULL with why: no login, or XT_PEER_SESSIONS_MAX in use.
 */
struct xt_psess *xt_psess_get(const struct xt_peer *p, int timeout_s, char *why, size_t whylen);
/* Back to the pool (broken: logged out and freed instead). */
void xt_psess_put(struct xt_psess *s, bool broken);
/* s came from the pool, not from a login for this caller. */
bool xt_psess_reused(const struct xt_psess *s);
/* Log out every idle session (handler destroy, tests). */
void xt_psess_shutdown(void);

/*
 * Discovery at p's portal (p->host, p->port, as p->initiator with p's
 * CHAP), a session of its own, not pooled, each step bounded by timeout_s:
 * SendTargets, at most max target names (XT_PEER_NAME_MAX each) into
 * names; the addresses the answer gives are not used (every login is at
 * p's portal). The count, or -errno with why. *more: there were more.
 */
int xt_psess_sendtargets(const struct xt_peer *p, int timeout_s, char (*names)[XT_PEER_NAME_MAX],
			 size_t max, bool *more, char *why, size_t whylen);
/*
 * A session to p's target at p's portal, not pooled, no LUN checked (for
 * REPORT LUNS and INQUIRY): xt_psess_cmd runs on it, xt_psess_put(s, true)
 * ends it. NULL with why.
 */
struct xt_psess *xt_psess_login(const struct xt_peer *p, int timeout_s, char *why, size_t whylen);

/* One command and its outcome. */
struct xt_pcmd {
	const uint8_t *cdb;
	uint8_t cdb_len;
	bool wr;                 /* data out (buf holds len bytes) */
	void *buf;
	size_t len;              /* data in: at most len bytes land in buf; *got says how many */
	int timeout_s;
	size_t got;
	uint8_t status;          /* SCSI status when the command completed */
	uint8_t sense[18];       /* fixed format, CHECK CONDITION only */
	uint8_t sense_len;
};
/*
 * Run c on s's LUN: 0 when the command completed (c->status says how;
 * GOOD or CHECK CONDITION with sense), -ETIMEDOUT / -EIO when it did not
 * (the session is then broken), with why.
 */
int xt_psess_cmd(struct xt_psess *s, int lun, struct xt_pcmd *c, char *why, size_t whylen);

#endif /* TARGET_PEER_H */
