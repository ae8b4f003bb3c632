/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Remote ROD tokens, the redeemer's side (issue #36, docs/remote-tokens.md):
 * a WRITE USING TOKEN on one of our LUs with a token another copy manager
 * made. The token's creator LU (its NAA designator, token bytes 16-47) must
 * be in the peer map. We log in to it as for a copy between targets
 * (identity checked) and send it one EXTENDED COPY (LID1): an
 * identification CSCD naming our LU by its NAA designator and the vendor
 * specific segment C0h carrying the token, OFFSET INTO ROD, DEL_TKN and the
 * ranges. The creator redeems its own token (its snapshot, its validity)
 * and writes the bytes to our LU through its own peer map; nothing passes
 * through us or the requesting host.
 *
 * Outcomes: GOOD; the creator's refusal of the token as it said it
 * (ILLEGAL REQUEST 23/xx); 23/02 REMOTE TOKEN USAGE NOT SUPPORTED when the
 * map does not name the creator, its target refuses the segment (any
 * other ILLEGAL REQUEST: not a copy manager of this project) or cannot
 * reach our LU (COPY ABORTED 08/04: its map does not name it); COPY ABORTED
 * 0D/02 when it cannot be reached or is not that LU; 0D/01 with its status
 * and sense forwarded (SENSE DATA SOURCE 1: the source) for any other
 * failure. The forwarded command cannot be interrupted: COPY OPERATION
 * ABORT and the deadline act before it is sent; we wait for it as long as
 * for any peer command (the command's deadline, at most XT_PEER_CMD_S),
 * and its TIME BUDGET (C0h bytes 528-531) tells the creator to stop
 * writing a fifth of that (at least TOKEN_MARGIN_MS) earlier. It is never
 * sent again on a new session after a lost connection (not idempotent).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer/peer_priv.h"
#include "xcm/initiator.h"

#define PT_LIST_MAX (XCM_PLIST_HDR_LEN + XCM_CSCD_LEN + 536 + XCM_MAX_RANGES * 16)
/* least time kept back from the creator's TIME BUDGET for its answer to arrive */
#define TOKEN_MARGIN_MS 1000u

/* The list: CSCD 0 = our LU (NAA), one C0h into it; its length, 0 on error. */
static size_t
redeem_list(const uint8_t naa[16], uint32_t bs, const struct xcm_tok_seg *t, uint32_t budget_ms,
	    uint8_t *buf, size_t cap)
{
	struct xcm_list *l = calloc(1, sizeof(*l));
	uint8_t d[4 + 16] = { XCM_CODE_SET_BINARY, XCM_DESIG_NAA, 0, 16 };
	struct xcm_wbuf w = xcm_wbuf_make(buf, cap);
	size_t len = 0;

	if (l == NULL) {
		return 0;
	}
	memcpy(d + 4, naa, 16);
	if (xcm_cscd_from_designator(&l->cscd[0], d, sizeof(d), bs) == 0) {
		l->list_id_usage = XCM_LIST_ID_NONE;
		l->ncscd = 1;
		l->nseg = 1;
		l->seg[0].type = XCM_SEG_TOKEN;
		l->seg[0].dst = &l->cscd[0];
		l->tok = *t;
		l->tok.budget_ms = budget_ms;
		len = xcm_list_encode(l, &w);
	}
	free(l);
	return len <= cap ? len : 0;
}

/*
 * A creator's ILLEGAL REQUEST 23/xx, as our status: the one table that maps
 * statuses to sense (engine/status.c) read backwards; an ASCQ it does not
 * have, CAUSE NOT REPORTABLE (23/00).
 */
static enum xcm_status
token_status(uint8_t ascq)
{
	const uint16_t asc_ascq = (uint16_t)(0x2300 | ascq);
	int st;

	for (st = 0; st < XCM_STATUS_COUNT; st++) {
		const struct xcm_status_info *i = xcm_status_info((enum xcm_status)st);

		if (i->key == XCM_SK_ILLEGAL_REQUEST && i->asc_ascq == asc_ascq) {
			return (enum xcm_status)st;
		}
	}
	return XCM_E_TOKEN_OP;
}

/* The forwarded command failed: what the WRITE USING TOKEN says. */
static enum xcm_status
outcome(struct xt_peer_lu *p, const char *why, struct xcm_err *err)
{
	uint8_t key = p->sense_len >= 14 ? p->sense[2] & 0x0f : 0;
	uint8_t asc = p->sense_len >= 14 ? p->sense[12] : 0;

	if (p->have_sense && p->status == XCM_SAM_CHECK_CONDITION &&
	    key == XCM_SK_ILLEGAL_REQUEST) {
		if (asc == 0x23) {
			xt_lu_info(p->self, "xcopy: token of peer %s/%u refused there: %s\n",
				   p->peer.target, p->peer.lun, why);
			xcm_err_set(err, token_status(p->sense[13]));
			return err->status;
		}
		xt_lu_warn(p->self, "xcopy: peer %s/%u cannot redeem its token for us (%s): "
			   "REMOTE TOKEN USAGE NOT SUPPORTED\n", p->peer.target, p->peer.lun, why);
		xcm_err_set(err, XCM_E_TOKEN_REMOTE);
		return err->status;
	}
	if (p->have_sense && p->status == XCM_SAM_CHECK_CONDITION && key == XCM_SK_COPY_ABORTED &&
	    asc == 0x08 && p->sense[13] == 0x04) {
		/* UNREACHABLE COPY TARGET: its map does not name our LU, nothing written */
		xt_lu_warn(p->self, "xcopy: peer %s/%u cannot reach this LU to redeem its token "
			   "(its peer map does not name it): REMOTE TOKEN USAGE NOT SUPPORTED\n",
			   p->peer.target, p->peer.lun);
		xcm_err_set(err, XCM_E_TOKEN_REMOTE);
		return err->status;
	}
	xt_lu_err(p->self, "xcopy: token redemption at peer %s/%u failed: %s\n", p->peer.target,
		  p->peer.lun, why);
	xcm_err_set(err, XCM_E_CA_DEVICE_FAILURE);
	if (p->have_sense) {
		err->fwd_valid = true;
		err->fwd_source = 1;   /* the source: the token's creator */
		err->fwd_status = p->status;
		err->fwd_len = p->sense_len < XCM_FWD_SENSE_MAX ? p->sense_len : XCM_FWD_SENSE_MAX;
		memcpy(err->fwd_sense, p->sense, err->fwd_len);
	}
	return err->status;
}

enum xcm_status
xt_peer_redeem(struct xt_lu *self, const uint8_t creator[16], const struct xcm_tok_seg *t,
	       uint64_t deadline_ms, uint64_t *bytes, struct xcm_err *err)
{
	uint8_t list[PT_LIST_MAX], cdb[16], naa[16];
	struct xt_pcmd c = { .cdb = cdb, .cdb_len = sizeof(cdb), .wr = true, .buf = list };
	char *serial = xt_lu_serial(self);
	struct xt_lu *peer = NULL;
	uint64_t tmo_ms, margin;
	char why[512];
	int rc;

	*bytes = 0;
	if (serial == NULL || serial[0] == '\0') {
		/* no unit serial: no NAA designator the creator could write to */
		free(serial);
		xt_lu_warn(self, "xcopy: WRITE USING TOKEN with another copy manager's token: "
			   "this LU has no unit serial to be named by\n");
		xcm_err_set(err, XCM_E_TOKEN_REMOTE);
		return err->status;
	}
	xt_naa_from_serial(serial, naa);
	free(serial);
	why[0] = '\0';
	rc = xt_peer_open(self, creator, 16, deadline_ms, &peer, why, sizeof(why));
	if (rc == -ENOENT) {
		xt_lu_info(self, "xcopy: WRITE USING TOKEN: the token's creator is neither here "
			   "nor in the peer map: REMOTE TOKEN USAGE NOT SUPPORTED\n");
		xcm_err_set(err, XCM_E_TOKEN_REMOTE);
		return err->status;
	}
	if (rc != 0) {
		xt_lu_warn(self, "xcopy: WRITE USING TOKEN: the token's creator not reachable: %s\n",
			   why);
		xcm_err_set(err, XCM_E_CA_NOT_REACHABLE);
		return err->status;
	}
	/*
	 * The creator stops writing (COPY ABORTED, 2E/02) within the time this
	 * side waits for its answer, less a margin for the answer's way back:
	 * no byte reaches our LU after we answered.
	 */
	tmo_ms = (uint64_t)xt_peer_timeout_for(deadline_ms, XT_PEER_CMD_S) * 1000;
	margin = tmo_ms / 5 > TOKEN_MARGIN_MS ? tmo_ms / 5 : TOKEN_MARGIN_MS;
	c.len = tmo_ms > margin ? redeem_list(naa, xt_lu_block_size(self), t,
					      (uint32_t)(tmo_ms - margin), list, sizeof(list))
				: 0;
	if (c.len == 0) {
		xt_peer_close(peer);
		xcm_err_set(err, tmo_ms > margin ? XCM_E_INTERNAL : XCM_E_CA_DEADLINE);
		return err->status;
	}
	xcm_cdb_xcopy(cdb, (uint32_t)c.len);
	/* not idempotent (DEL_TKN, a copy still running there): never sent twice */
	plu(peer)->no_relogin = true;
	rc = xt_peer_run(plu(peer), &c, deadline_ms, why, sizeof(why));
	plu(peer)->no_relogin = false;
	if (rc == 0) {
		*bytes = t->total_blocks * xt_lu_block_size(self);
		xt_lu_info(self, "xcopy: WRITE USING TOKEN of %llu bytes redeemed by the token's "
			   "creator, peer %s\n", (unsigned long long)*bytes, peer->name);
		xcm_err_set(err, XCM_OK);
	} else {
		(void)outcome(plu(peer), why, err);
	}
	xt_peer_close(peer);
	return err->status;
}
