/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Delegation (issue #36): a copy whose source and destination are both LUs
 * of one peer target (the same portal, target name, initiator name and CHAP
 * entry in the map; the same LU or two LUNs) is not moved through this copy
 * manager. Each piece the engine hands to the backend (one chunk of a
 * segment, at most XT_PEER_DELEG_MAX bytes and 65535 blocks) is forwarded
 * as one EXTENDED COPY (LID1) to the source LU's session: two
 * identification CSCDs (E4h) naming the LUs by their NAA designators, one
 * block-to-block segment (02h), no list identifier; the peer's copy manager
 * copies inside its target. One command per piece keeps the engine's
 * semantics: the deadline and COPY OPERATION ABORT between pieces, exact
 * residuals (a failed piece counts as not written), progress in COPY STATUS.
 *
 * Fallback: a peer whose standard INQUIRY has 3PC = 0, or that answers the
 * forwarded command with ILLEGAL REQUEST (no copy manager, EXTENDED COPY
 * not supported, or a list it will not take: the command was not
 * performed), has its blocks moved through this copy manager (READ from
 * one LU, WRITE to the other) for the rest of the command; the reason is
 * logged once. Not delegated either: different block sizes, pieces not of
 * whole blocks, and overlapping ranges of one LU (the engine promises
 * memmove; a peer's copy manager need not). Any other failure of the
 * forwarded command ends the copy: COPY ABORTED 0D/01 with the peer's
 * status and sense forwarded, SENSE DATA SOURCE 1 (the source LU, which
 * received the forwarded command).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer/peer_priv.h"
#include "xcm/exec.h"
#include "xcm/initiator.h"

#define STD_INQ_LEN 36
#define INQ_3PC_BYTE 5
#define INQ_3PC_BIT 0x08
#define B2B_BLOCKS_MAX 65535u   /* 2-byte BLOCK DEVICE NUMBER OF BLOCKS */

bool
xt_peer_same_target(const struct xt_lu *a, const struct xt_lu *b)
{
	const struct xt_peer *p, *q;

	if (!xt_lu_is_peer(a) || !xt_lu_is_peer(b)) {
		return false;
	}
	p = &plu(a)->peer;
	q = &plu(b)->peer;
	return strcmp(p->host, q->host) == 0 && p->port == q->port &&
	       strcmp(p->target, q->target) == 0 && strcmp(p->initiator, q->initiator) == 0 &&
	       strcmp(p->chap_user, q->chap_user) == 0 &&
	       strcmp(p->chap_secret, q->chap_secret) == 0;
}

/* The peer's LU stops taking delegated copies for this command; logged once. */
static void
no_copy_manager(struct xt_peer_lu *p, const char *why)
{
	if (!p->no_cm) {
		xt_lu_info(p->self, "xcopy: peer %s/%u: %s: its blocks move through this copy "
			   "manager\n", p->peer.target, p->peer.lun, why);
	}
	p->no_cm = true;
}

/* Does the peer's LU have a copy manager (standard INQUIRY 3PC)? 1, 0, or -errno. */
static int
has_3pc(struct xt_peer_lu *p, uint64_t deadline_ms)
{
	uint8_t cdb[XCM_CDB6_LEN], inq[STD_INQ_LEN];
	struct xt_pcmd c = { .cdb = cdb, .cdb_len = sizeof(cdb), .buf = inq, .len = sizeof(inq) };
	char why[256];
	int rc;

	if (p->tpc != 0) {
		return p->tpc > 0;
	}
	xcm_cdb_inquiry(cdb, false, 0, sizeof(inq));
	rc = xt_peer_run(p, &c, deadline_ms, why, sizeof(why));
	if (rc != 0) {
		xt_lu_err(p->self, "xcopy: peer %s/%u: INQUIRY: %s\n", p->peer.target, p->peer.lun,
			  why);
		return rc;
	}
	p->tpc = c.got > INQ_3PC_BYTE && (inq[INQ_3PC_BYTE] & INQ_3PC_BIT) != 0 ? 1 : -1;
	return p->tpc > 0;
}

/* The list for n blocks from (a, alba) to (b, blba); its length in buf, 0: error. */
static size_t
deleg_list(const struct xt_peer_lu *a, uint64_t alba, const struct xt_peer_lu *b,
	   uint64_t blba, uint32_t n, uint8_t *buf, size_t cap)
{
	struct xcm_list *l = calloc(1, sizeof(*l));
	uint8_t d[4 + 16] = { XCM_CODE_SET_BINARY, XCM_DESIG_NAA, 0, 0 };
	struct xcm_wbuf w = xcm_wbuf_make(buf, cap);
	const struct xt_peer_lu *side[2] = { a, b };
	size_t len = 0;
	int i;

	if (l == NULL) {
		return 0;
	}
	l->list_id_usage = XCM_LIST_ID_NONE;
	for (i = 0; i < 2; i++) {
		d[3] = side[i]->peer.desig_len;
		memcpy(d + 4, side[i]->peer.desig, side[i]->peer.desig_len);
		if (xcm_cscd_from_designator(&l->cscd[i], d, 4u + d[3], side[i]->block_size) != 0) {
			free(l);
			return 0;
		}
	}
	l->ncscd = 2;
	l->nseg = 1;
	l->seg[0].type = XCM_SEG_B2B;
	l->seg[0].src = &l->cscd[0];
	l->seg[0].dst = &l->cscd[1];
	l->seg[0].count = n;
	l->seg[0].src_lba = alba;
	l->seg[0].dst_lba = blba;
	len = xcm_list_encode(l, &w);
	free(l);
	return len <= cap ? len : 0;
}

/*
 * One forwarded EXTENDED COPY of n blocks. 0; -EOPNOTSUPP: the peer refused
 * it without performing it (ILLEGAL REQUEST); another -errno: it failed (the
 * peer's status and sense kept on p).
 */
static int
deleg_one(struct xt_peer_lu *p, uint64_t slba, struct xt_peer_lu *q, uint64_t dlba, uint32_t n,
	  uint64_t deadline_ms)
{
	uint8_t list[XCM_PLIST_HDR_LEN + 2 * XCM_CSCD_LEN + XCM_SEG_B2B_LEN + 16], cdb[16];
	struct xt_pcmd c = { .cdb = cdb, .cdb_len = sizeof(cdb), .wr = true, .buf = list };
	char why[256];
	int rc;

	c.len = deleg_list(p, slba, q, dlba, n, list, sizeof(list));
	if (c.len == 0) {
		return -EINVAL;
	}
	xcm_cdb_xcopy(cdb, (uint32_t)c.len);
	rc = xt_peer_run(p, &c, deadline_ms, why, sizeof(why));
	if (rc == 0) {
		return 0;
	}
	if (p->have_sense && p->status == XCM_SAM_CHECK_CONDITION && p->sense_len >= 14 &&
	    (p->sense[2] & 0x0f) == XCM_SK_ILLEGAL_REQUEST) {
		no_copy_manager(p, why);
		return -EOPNOTSUPP;
	}
	xt_lu_err(p->self, "xcopy: peer %s: EXTENDED COPY of %u blocks %s+%llu -> %s+%llu: %s\n",
		  p->peer.target, n, p->lu.name, (unsigned long long)slba, q->lu.name,
		  (unsigned long long)dlba, why);
	return rc;
}

int
xt_peer_copy(struct xt_lu *src, uint64_t soff, struct xt_lu *dst, uint64_t doff, uint64_t len,
	     uint64_t deadline_ms, struct xcm_io_err *ioerr)
{
	struct xt_peer_lu *p, *q;
	uint64_t at = 0, n, max;
	uint32_t bs;
	int rc;

	if (!xt_peer_same_target(src, dst)) {
		return -EOPNOTSUPP;
	}
	p = plu(src);
	q = plu(dst);
	bs = p->block_size;
	if (p->no_cm || bs != q->block_size || soff % bs != 0 || doff % bs != 0 || len % bs != 0 ||
	    (p == q && soff < doff + len && doff < soff + len)) {
		return -EOPNOTSUPP;
	}
	rc = has_3pc(p, deadline_ms);
	if (rc == 0) {
		no_copy_manager(p, "no copy manager (INQUIRY 3PC = 0)");
		return -EOPNOTSUPP;
	}
	max = (uint64_t)B2B_BLOCKS_MAX * bs < XT_PEER_DELEG_MAX ? (uint64_t)B2B_BLOCKS_MAX * bs :
								    XT_PEER_DELEG_MAX;
	max -= max % bs;
	while (rc > 0 && at < len) {
		n = len - at < max ? len - at : max;
		rc = deleg_one(p, (soff + at) / bs, q, (doff + at) / bs, (uint32_t)(n / bs),
			       deadline_ms);
		if (rc == -EOPNOTSUPP && at > 0) {
			rc = -EIO;   /* part of it copied there: not moved again here */
		}
		if (rc == 0) {
			at += n;
			rc = 1;
		}
	}
	if (rc == 1) {
		if (!p->deleg_told) {
			xt_lu_info(p->self, "xcopy: copy from %s to %s delegated to their target's "
				   "copy manager\n", p->lu.name, q->lu.name);
			p->deleg_told = true;
		}
		return 0;
	}
	if (rc == -EOPNOTSUPP) {
		return rc;
	}
	memset(ioerr, 0, sizeof(*ioerr));
	ioerr->at_dst = false;   /* the source LU received the forwarded command */
	ioerr->done = at;
	ioerr->status = XCM_SAM_CHECK_CONDITION;
	(void)xt_peer_last_sense(src, &ioerr->status, ioerr->sense, &ioerr->sense_len);
	return rc;
}
