/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The 512-byte ROD token (SPC-4 7.3.4.4), the RECEIVE ROD TOKEN
 * INFORMATION response (SPC-4 6.19.4) and the REPORT ALL ROD
 * TOKENS response (SPC-4 6.19.5), and the token limits table.
 */
#include <errno.h>
#include <string.h>

#include "param_layout.h"
#include "xcm/token.h"

const struct xcm_tok_limits xcm_tok_limits_default = {
	.max_ranges = XCM_MAX_RANGES,
	/* SBC-4 5.8.2 / VPD 8Fh 0000h: seconds a token lives unused */
	.max_inactivity_s = 600,
	.default_inactivity_s = 60,
	/* one token: 4 GiB; Windows asks for the optimal count per WUT (64 MiB) */
	.max_token_bytes = 4ull << 30,
	.optimal_bytes = 64ull << 20,
	.max_lifetime_s = 3600,
	.pit_persistent = false,
};

/* ROD token (SPC-4 7.3.4.4) */
enum {
	RT_TYPE = 0,                   /* 4 bytes */
	RT_LEN = 6,                    /* 2 bytes ROD TOKEN LENGTH */
	RT_ID = 8,                     /* 8 bytes COPY MANAGER ROD TOKEN IDENTIFIER */
	RT_CREATOR = 16,               /* 32 bytes: E4h CSCD descriptor of the creator LU */
	RT_BYTES = 48,                 /* 16 bytes NUMBER OF BYTES REPRESENTED (low 8 used) */
	RT_DEV_SPECIFIC = 96,          /* READ CAPACITY(16) data bytes 8-31 */
	RT_TARGET_DESC = 128,          /* VPD 83h designation descriptor of the target device */
};
_Static_assert(RT_CREATOR + XCM_CSCD_LEN == RT_BYTES, "creator CSCD at 16-47");
_Static_assert(RT_TARGET_DESC + XCM_E4_VPD_HDR + XCM_DESIG_MAX <= XCM_ROD_RANDOM_OFF,
	       "target device descriptor before the random part");

/* RRTI: the ROD token descriptor part after the sense data field (SPC-4 6.19.4) */
enum {
	RR_HDR = 32,
	RR_SENSE_FIELD_LEN = 13,
	RR_UNITS = 15,
	RR_COUNT = 16,
	RR_TOKEN_DESC_LEN_SIZE = 4,
	RR_TOKEN_RESERVED = 2,
};

void
xcm_rod_token_encode(const struct xcm_rod_token *t, uint8_t out[XCM_ROD_TOKEN_LEN])
{
	uint8_t *c = out + RT_CREATOR, *td = out + RT_TARGET_DESC;
	uint8_t dl = t->creator_desig_len <= XCM_DESIG_MAX ? t->creator_desig_len : XCM_DESIG_MAX;

	memset(out, 0, XCM_ROD_TOKEN_LEN);
	xcm_put_be32(out + RT_TYPE, t->rod_type);
	xcm_put_be16(out + RT_LEN, XCM_ROD_TOKEN_LEN_FIELD);
	xcm_put_be64(out + RT_ID, t->id);
	/* creator LU: identification CSCD (SPC-4 6.4.5.6), NAA designator, LU association */
	c[XCM_E4_TYPE] = XCM_CSCD_ID;
	c[XCM_E4_FLAGS] = XCM_PDT_BLOCK;
	c[XCM_E4_CODE_SET] = XCM_CODE_SET_BINARY;
	c[XCM_E4_DESIG_TYPE] = (uint8_t)((XCM_ASSOC_LU << XCM_E4_ASSOC_SHIFT) | XCM_DESIG_NAA);
	c[XCM_E4_DESIG_LEN] = dl;
	memcpy(c + XCM_E4_DESIG, t->creator_desig, dl);
	xcm_put_be24(c + XCM_E4_BLOCK_LEN, t->block_len);
	xcm_put_be64(out + RT_BYTES + 8, t->bytes);
	/* READ CAPACITY(16) bytes 8-11: LOGICAL BLOCK LENGTH */
	xcm_put_be32(out + RT_DEV_SPECIFIC, t->block_len);
	/* target device descriptor: the same designation descriptor as in the CSCD */
	memcpy(td, c + XCM_E4_CODE_SET, XCM_E4_VPD_HDR + dl);
	memcpy(out + XCM_ROD_RANDOM_OFF, t->random, XCM_ROD_RANDOM_LEN);
}

enum xcm_status
xcm_rod_token_decode(const uint8_t in[XCM_ROD_TOKEN_LEN], struct xcm_rod_token *t,
		     struct xcm_err *err)
{
	const uint8_t *c = in + RT_CREATOR;

	memset(t, 0, sizeof(*t));
	t->rod_type = xcm_get_be32(in + RT_TYPE);
	if (xcm_get_be16(in + RT_LEN) != XCM_ROD_TOKEN_LEN_FIELD) {
		xcm_err_set(err, XCM_E_TOKEN_LENGTH);
		return err->status;
	}
	xcm_err_set(err, XCM_OK);
	if (t->rod_type == XCM_ROD_TYPE_ZERO) {
		return XCM_OK;
	}
	t->id = xcm_get_be64(in + RT_ID);
	if (c[XCM_E4_TYPE] != XCM_CSCD_ID || c[XCM_E4_DESIG_LEN] > XCM_DESIG_MAX ||
	    (c[XCM_E4_CODE_SET] & 0x0F) != XCM_CODE_SET_BINARY ||
	    (c[XCM_E4_DESIG_TYPE] & 0x0F) != XCM_DESIG_NAA) {
		xcm_err_set(err, XCM_E_TOKEN_CORRUPT);
		return err->status;
	}
	t->creator_desig_len = c[XCM_E4_DESIG_LEN];
	memcpy(t->creator_desig, c + XCM_E4_DESIG, t->creator_desig_len);
	t->block_len = xcm_get_be24(c + XCM_E4_BLOCK_LEN);
	t->bytes = xcm_get_be64(in + RT_BYTES + 8);
	memcpy(t->random, in + XCM_ROD_RANDOM_OFF, XCM_ROD_RANDOM_LEN);
	return XCM_OK;
}

void
xcm_rod_token_zero(uint8_t out[XCM_ROD_TOKEN_LEN])
{
	memset(out, 0, XCM_ROD_TOKEN_LEN);
	xcm_put_be32(out + RT_TYPE, XCM_ROD_TYPE_ZERO);
	xcm_put_be16(out + RT_LEN, XCM_ROD_TOKEN_LEN_FIELD);
}

bool
xcm_rod_token_equal(const uint8_t *a, const uint8_t *b)
{
	/* every byte is looked at, whatever differs first: no timing signal */
	volatile uint8_t diff = 0;
	size_t i;

	for (i = 0; i < XCM_ROD_TOKEN_LEN; i++) {
		diff |= (uint8_t)(a[i] ^ b[i]);
	}
	return diff == 0;
}

void
xcm_rrti_encode(const struct xcm_rcs4 *st, uint64_t blocks, const uint8_t *token,
		struct xcm_wbuf *w)
{
	struct xcm_rcs4 h = *st;
	uint8_t slen = st->sense_len < XCM_SENSE_MAX ? st->sense_len : XCM_SENSE_MAX;
	uint32_t tail = RR_TOKEN_DESC_LEN_SIZE + (token != NULL ? XCM_RRTI_TOKEN_DESC_LEN : 0);
	size_t start = w->len;

	/* the RCS(LID4) header, then units, count and segments set for RRTI */
	h.bytes = 0;
	h.segs = 0;   /* SPC-4 6.19.4: SEGMENTS PROCESSED is 0 for PT/WUT (what Windows checks) */
	xcm_rcs4_encode(&h, w);
	xcm_wbuf_patch32(w, start, (uint32_t)(RR_HDR - 4 + slen + tail));
	xcm_wbuf_write_at(w, start + RR_UNITS, (const uint8_t[]){ XCM_TC_UNITS_BLOCKS }, 1);
	{
		uint8_t b[8];

		xcm_put_be64(b, blocks);
		xcm_wbuf_write_at(w, start + RR_COUNT, b, sizeof(b));
	}
	xcm_wbuf_put32(w, token != NULL ? XCM_RRTI_TOKEN_DESC_LEN : 0);
	if (token != NULL) {
		xcm_wbuf_put(w, NULL, RR_TOKEN_RESERVED);
		xcm_wbuf_put(w, token, XCM_ROD_TOKEN_LEN);
	}
}

int
xcm_rrti_decode(struct xcm_span s, struct xcm_rcs4 *st, uint64_t *blocks, bool *has_token,
		uint8_t token[XCM_ROD_TOKEN_LEN])
{
	struct xcm_span tl, tok;
	uint32_t avail;
	size_t off;

	memset(st, 0, sizeof(*st));
	*blocks = 0;
	*has_token = false;
	if (s.p == NULL || s.len < RR_HDR || s.p[RR_UNITS] != XCM_TC_UNITS_BLOCKS) {
		return -EINVAL;
	}
	avail = xcm_get_be32(s.p);
	off = RR_HDR + (size_t)s.p[RR_SENSE_FIELD_LEN];
	/* the ROD TOKEN DESCRIPTORS LENGTH field must be inside AVAILABLE DATA and received */
	if ((uint64_t)avail + 4 < off + RR_TOKEN_DESC_LEN_SIZE ||
	    !xcm_span_sub(s, off, RR_TOKEN_DESC_LEN_SIZE, &tl)) {
		return -EINVAL;
	}
	/* reuse the LID4 decoder for the header: present it with units 00h */
	{
		uint8_t h[RR_HDR + XCM_SENSE_MAX];
		size_t n = off < sizeof(h) ? off : sizeof(h);

		memcpy(h, s.p, n);
		h[RR_UNITS] = XCM_TC_UNITS_BYTES;
		if (xcm_rcs4_decode(xcm_span_make(h, n), st) != 0) {
			return -EINVAL;
		}
	}
	st->bytes = 0;
	*blocks = xcm_get_be64(s.p + RR_COUNT);
	if (xcm_get_be32(tl.p) >= XCM_RRTI_TOKEN_DESC_LEN) {
		if (!xcm_span_sub(s, off + RR_TOKEN_DESC_LEN_SIZE + RR_TOKEN_RESERVED,
				  XCM_ROD_TOKEN_LEN, &tok)) {
			return -EINVAL;
		}
		memcpy(token, tok.p, XCM_ROD_TOKEN_LEN);
		*has_token = true;
	}
	return 0;
}

void
xcm_rart_encode(const uint8_t *const *tokens, size_t n, struct xcm_wbuf *w)
{
	size_t i;

	/* AVAILABLE DATA, 4 reserved, then the ROD management tokens */
	xcm_wbuf_put32(w, (uint32_t)(4 + n * XCM_RART_ENTRY_LEN));
	xcm_wbuf_put32(w, 0);
	for (i = 0; i < n; i++) {
		xcm_wbuf_put(w, tokens[i], XCM_RART_ENTRY_LEN);
	}
}
