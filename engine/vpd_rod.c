/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The token (ODX) descriptors of the Third-party Copy VPD page (8Fh): 0000h
 * Block Device ROD Token Limits (SBC-4 6.6.8.2), 0106h ROD Token Features
 * and 0108h Supported ROD Token and ROD Types (SPC-4 7.8.17.9, 7.8.17.10).
 * Every value comes from struct xcm_tok_limits, the table the
 * token list parser enforces (token.c).
 */
#include <errno.h>

#include "vpd_desc.h"
#include "xcm/token.h"

enum {
	BDRL_LEN = 36,                 /* whole descriptor; DESCRIPTOR LENGTH 0020h */
	BDRL_MAX_RANGES = 10,          /* 2 bytes */
	BDRL_MAX_TIMEOUT = 12,         /* 4 bytes */
	BDRL_DEF_TIMEOUT = 16,         /* 4 bytes */
	BDRL_MAX_XFER = 20,            /* 8 bytes, logical blocks */
	BDRL_OPT_XFER = 28,            /* 8 bytes, logical blocks */
	RTF_BASE_LEN = 48,             /* ROD Token Features without device type descriptors */
	RTF_BLOCK_LEN = 48,            /* one block device type specific descriptor */
	SRT_ENTRY_LEN = 64,            /* one ROD type descriptor */
	SRT_TOKEN_IN = 0x02,
	SRT_TOKEN_OUT = 0x01,
	MIN_LIFETIME_S = 1,
};

void
xcm_vpd_tpc_put_bdrl(const struct xcm_tok_limits *tl, uint32_t block_len, struct xcm_wbuf *w)
{
	uint32_t bl = block_len != 0 ? block_len : 512;
	size_t d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_BDRL);   /* BDRL_LEN bytes */

	xcm_wbuf_put(w, NULL, BDRL_MAX_RANGES - 4);          /* 4-9 reserved */
	xcm_wbuf_put16(w, tl->max_ranges);                   /* 10-11 */
	xcm_wbuf_put32(w, tl->max_inactivity_s);             /* 12-15 */
	xcm_wbuf_put32(w, tl->default_inactivity_s);         /* 16-19 */
	xcm_wbuf_put64(w, tl->max_token_bytes / bl);         /* 20-27 MAXIMUM TOKEN TRANSFER SIZE */
	xcm_wbuf_put64(w, tl->optimal_bytes / bl);           /* 28-35 OPTIMAL TRANSFER COUNT */
	xcm_vpd_desc_end(w, d);
}

static void
put_rod_type(struct xcm_wbuf *w, uint32_t type, uint8_t flags, uint16_t pref)
{
	xcm_wbuf_put32(w, type);
	xcm_wbuf_put8(w, flags);
	xcm_wbuf_put8(w, 0);
	xcm_wbuf_put16(w, pref);                             /* PREFERENCE INDICATION */
	xcm_wbuf_put(w, NULL, SRT_ENTRY_LEN - 8);
}

void
xcm_vpd_tpc_put_rod(const struct xcm_tok_limits *tl, struct xcm_wbuf *w)
{
	uint16_t ntypes = tl->pit_persistent ? 4 : 3;
	size_t d;

	/* 0106h: REMOTE TOKENS, lifetimes, timeout */
	d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_ROD_FEATURES);   /* RTF_BASE_LEN + RTF_BLOCK_LEN */
	xcm_wbuf_put8(w, tl->remote_tokens & 0x0F);          /* 4: bits 3:0 REMOTE TOKENS */
	xcm_wbuf_put(w, NULL, 11);                           /* 5-15 */
	xcm_wbuf_put32(w, MIN_LIFETIME_S);                   /* 16-19 MINIMUM TOKEN LIFETIME */
	xcm_wbuf_put32(w, tl->max_lifetime_s);               /* 20-23 MAXIMUM TOKEN LIFETIME */
	xcm_wbuf_put32(w, tl->max_inactivity_s);             /* 24-27 */
	xcm_wbuf_put(w, NULL, 18);                           /* 28-45 */
	xcm_wbuf_put16(w, RTF_BLOCK_LEN);                    /* 46-47 */
	/* block device ROD limits descriptor (PDT 00h) */
	xcm_wbuf_put8(w, XCM_PDT_BLOCK);
	xcm_wbuf_put8(w, 0);
	xcm_wbuf_put16(w, RTF_BLOCK_LEN - 4);
	xcm_wbuf_put16(w, 0);
	xcm_wbuf_put16(w, 1);                                /* OPTIMAL BLOCK ROD LENGTH GRANULARITY */
	xcm_wbuf_put64(w, tl->max_token_bytes);              /* MAXIMUM BYTES IN BLOCK ROD */
	xcm_wbuf_put64(w, tl->optimal_bytes);                /* OPTIMAL BYTES IN BLOCK ROD TRANSFER */
	xcm_wbuf_put64(w, tl->optimal_bytes);                /* OPTIMAL BYTES TO TOKEN PER SEGMENT */
	xcm_wbuf_put64(w, tl->optimal_bytes);                /* OPTIMAL BYTES FROM TOKEN PER SEGMENT */
	xcm_wbuf_put(w, NULL, 8);
	xcm_vpd_desc_end(w, d);

	/* 0108h: the point-in-time kinds made and taken, the zero token taken only */
	d = xcm_vpd_desc_begin(w, XCM_TPC_DESC_ROD_TYPES);
	xcm_wbuf_put16(w, 0);
	xcm_wbuf_put16(w, (uint16_t)(ntypes * SRT_ENTRY_LEN));
	put_rod_type(w, XCM_ROD_TYPE_PIT_DEFAULT, SRT_TOKEN_IN | SRT_TOKEN_OUT, 0);
	put_rod_type(w, XCM_ROD_TYPE_PIT_VULNERABLE, SRT_TOKEN_IN | SRT_TOKEN_OUT, 0);
	if (tl->pit_persistent) {
		put_rod_type(w, XCM_ROD_TYPE_PIT_PERSISTENT, SRT_TOKEN_IN | SRT_TOKEN_OUT, 0);
	}
	put_rod_type(w, XCM_ROD_TYPE_ZERO, SRT_TOKEN_IN, 0);
	xcm_vpd_desc_end(w, d);
}

int
xcm_vpd_tpc_dec_bdrl(struct xcm_span d, struct xcm_tpc_info *out)
{
	if (d.len < BDRL_LEN) {
		return -EINVAL;
	}
	out->max_ranges = xcm_get_be16(d.p + BDRL_MAX_RANGES);
	out->max_inactivity_s = xcm_get_be32(d.p + BDRL_MAX_TIMEOUT);
	out->default_inactivity_s = xcm_get_be32(d.p + BDRL_DEF_TIMEOUT);
	out->max_token_blocks = xcm_get_be64(d.p + BDRL_MAX_XFER);
	out->optimal_blocks = xcm_get_be64(d.p + BDRL_OPT_XFER);
	out->has_bdrl = true;
	return 0;
}
