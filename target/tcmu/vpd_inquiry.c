/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* INQUIRY EVPD 00h (Supported VPD Pages) and 8Fh (Third-party Copy), SPC-4 7.8. */
#include <string.h>

#include "cm/cm.h"
#include "odx/odx.h"
#include "peer/peer.h"
#include "tcmu/handler.h"

/* VPD pages tcmu-runner 1.5.4's core serves (its VPD 00h list) plus ours, ascending. */
static const uint8_t g_vpd_pages[] = { 0x00, 0x80, 0x83, XCM_VPD_TPC, 0xB0, 0xB1, 0xB2 };

/* INQUIRY EVPD 00h / 8Fh; other pages and standard INQUIRY go to the core. */
int
xt_handler_inquiry(struct xt_lu *lu, struct tcmulib_cmd *lc)
{
	const uint8_t *cdb = lc->cdb;
	uint32_t alloc = xcm_get_be16(cdb + 3);
	struct xcm_wbuf w;

	if ((cdb[1] & 0x01) == 0 || (cdb[2] != 0x00 && cdb[2] != XCM_VPD_TPC)) {
		return TCMU_STS_NOT_HANDLED;
	}
	w = xcm_wbuf_make(lu->rsp, alloc < sizeof(lu->rsp) ? alloc : sizeof(lu->rsp));
	if (cdb[2] == 0x00) {
		xcm_wbuf_put8(&w, 0x00);   /* qualifier 000b, direct access block device */
		xcm_wbuf_put8(&w, 0x00);
		xcm_wbuf_put16(&w, (uint16_t)sizeof(g_vpd_pages));
		xcm_wbuf_put(&w, g_vpd_pages, sizeof(g_vpd_pages));
	} else {
		/* tokens of other copy managers are redeemed by them (peer/peer_token.c) */
		struct xcm_tok_limits tl = *xt_tok_limits(lu);

		tl.remote_tokens = xt_peer_map_any(lu) ? XCM_REMOTE_TOKENS_OTHER_TARGETS : 0;
		xcm_vpd_tpc_encode_tok(xt_limits(), &tl, tcmu_dev_get_block_size(lu->dev), 0x00,
				       &w);
	}
	xt_iov_fill(lc->iovec, lc->iov_cnt, lu->rsp, xcm_wbuf_stored(&w));
	return TCMU_STS_OK;
}
