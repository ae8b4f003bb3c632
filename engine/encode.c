/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY (LID1) on the initiator side: parameter-list encoder, CSCD
 * from a VPD 83h designator, and the 16-byte CDB builders. Uses the same
 * named offsets as the decoder (param_layout.h), so what the host sends is
 * what the copy manager reads.
 */
#include <errno.h>
#include <string.h>

#include "param_layout.h"
#include "xcm/lid4.h"
#include "xcm/xcm.h"

/* CSCD ID: FFFFh for the list's "self", else the index into l->cscd. */
static uint16_t
cscd_id_of(const struct xcm_list *l, uint32_t ncscd, const struct xcm_cscd *c)
{
	uintptr_t base = (uintptr_t)l->cscd;
	uintptr_t p = (uintptr_t)c;
	uintptr_t idx;

	if (c == &l->self) {
		return XCM_CSCD_ID_SELF;
	}
	/* compare addresses as integers: no pointer arithmetic outside the array */
	if (c != NULL && p >= base && (p - base) % sizeof(l->cscd[0]) == 0) {
		idx = (p - base) / sizeof(l->cscd[0]);
		if (idx < ncscd) {
			return (uint16_t)idx;
		}
	}
	/* not a CSCD of this list (caller error): a reserved ID the copy manager rejects */
	return XCM_CSCD_ID_MAX_INDEX + 1;
}

/*
 * CSCD slot i: an identification descriptor CSCD (E4h), 32 bytes, block
 * device parameters; the first half of an IPv6 CSCD (EAh); or, for an
 * XCM_CSCD_EXT entry, the extension of the EAh before it (an extension
 * after anything else: FFh and zeros, which a copy manager refuses).
 */
static void
put_cscd(struct xcm_wbuf *w, const struct xcm_cscd *cscd, uint32_t i)
{
	const struct xcm_cscd *c = &cscd[i];
	uint8_t b[XCM_CSCD_LEN];
	uint8_t dlen = c->desig_len <= XCM_DESIG_MAX ? c->desig_len : XCM_DESIG_MAX;

	if (c->type == XCM_CSCD_IPV6) {
		xcm_cscd_ip6_put(c, 0, b);
		xcm_wbuf_put(w, b, sizeof(b));
		return;
	}
	if (c->type == XCM_CSCD_EXT) {
		if (i > 0 && cscd[i - 1].type == XCM_CSCD_IPV6) {
			xcm_cscd_ip6_put(&cscd[i - 1], 1, b);
		} else {
			memset(b, 0, sizeof(b));
			b[XCM_E4_TYPE] = XCM_CSCD_EXT;
		}
		xcm_wbuf_put(w, b, sizeof(b));
		return;
	}
	xcm_cscd_common_put(c, c->type != 0 ? c->type : XCM_CSCD_ID, b);
	b[XCM_E4_CODE_SET] = c->code_set & 0x0F;
	b[XCM_E4_DESIG_TYPE] = (uint8_t)(((c->assoc & 0x3) << XCM_E4_ASSOC_SHIFT) |
					 (c->desig_type & 0x0F));
	b[XCM_E4_DESIG_LEN] = c->desig_len;
	memcpy(b + XCM_E4_DESIG, c->desig, dlen);
	xcm_wbuf_put(w, b, sizeof(b));
}

static size_t
seg_len_of(const struct xcm_list *l, const struct xcm_segment *s)
{
	if (s->type == XCM_SEG_TOKEN) {
		return xcm_seg_token_len(&l->tok);
	}
	return s->type == XCM_SEG_B2B_OFF ? XCM_SEG_B2B_OFF_LEN : XCM_SEG_B2B_LEN;
}

/* One segment: 02h (block to block, 28 bytes) or 0Ah (with byte offsets, 32 bytes). */
static void
put_segment(struct xcm_wbuf *w, const struct xcm_list *l, uint32_t ncscd,
	    const struct xcm_segment *s)
{
	uint8_t b[XCM_SEG_B2B_OFF_LEN];
	size_t len = seg_len_of(l, s);

	if (s->type == XCM_SEG_TOKEN) {
		xcm_seg_token_put(w, &l->tok, cscd_id_of(l, ncscd, s->dst));
		return;
	}
	memset(b, 0, sizeof(b));
	b[XCM_SEGD_TYPE] = s->type;
	b[XCM_SEGD_FLAGS] = (uint8_t)(((s->fco ? 1u : 0u) << XCM_SEGD_FCO_BIT) |
				      ((s->dc ? 1u : 0u) << XCM_SEGD_DC_BIT) |
				      ((s->cat ? 1u : 0u) << XCM_SEGD_CAT_BIT));
	xcm_put_be16(b + XCM_SEGD_DLEN, (uint16_t)(len - XCM_SEGD_DLEN_HDR));
	xcm_put_be16(b + XCM_SEGD_SRC_ID, cscd_id_of(l, ncscd, s->src));
	xcm_put_be16(b + XCM_SEGD_DST_ID, cscd_id_of(l, ncscd, s->dst));
	if (s->type == XCM_SEG_B2B_OFF) {
		xcm_put_be32(b + XCM_B2BO_NBYTES, s->count);
		xcm_put_be64(b + XCM_B2BO_SRC_LBA, s->src_lba);
		xcm_put_be64(b + XCM_B2BO_DST_LBA, s->dst_lba);
		xcm_put_be16(b + XCM_B2BO_SRC_OFF, s->src_off);
		xcm_put_be16(b + XCM_B2BO_DST_OFF, s->dst_off);
	} else {
		/* 2-byte BLOCK DEVICE NUMBER OF BLOCKS: callers split larger extents */
		xcm_put_be16(b + XCM_B2B_NBLOCKS, (uint16_t)s->count);
		xcm_put_be64(b + XCM_B2B_SRC_LBA, s->src_lba);
		xcm_put_be64(b + XCM_B2B_DST_LBA, s->dst_lba);
	}
	xcm_wbuf_put(w, b, len);
}

/* Header (LID1: 16 bytes; LID4: 48 bytes), CSCDs, segments (SPC-4 EXTENDED COPY). */
static size_t
list_encode(const struct xcm_list *l, bool lid4, struct xcm_wbuf *w)
{
	uint32_t ncscd = l->ncscd < XCM_MAX_CSCD ? l->ncscd : XCM_MAX_CSCD;
	uint32_t nseg = l->nseg < XCM_MAX_SEG ? l->nseg : XCM_MAX_SEG;
	size_t start = w->len;
	uint8_t h[XCM_PLIST4_HDR_LEN];
	uint32_t seg_bytes = 0;
	uint8_t flags;
	uint32_t i;

	for (i = 0; i < nseg; i++) {
		seg_bytes += (uint32_t)seg_len_of(l, &l->seg[i]);
	}
	flags = (uint8_t)(((l->str ? 1u : 0u) << XCM_PLH_STR_SHIFT) |
			  ((l->list_id_usage & XCM_PLH_USAGE_MASK) << XCM_PLH_USAGE_SHIFT) |
			  (l->priority & XCM_PLH_PRIO_MASK));
	memset(h, 0, sizeof(h));
	if (lid4) {
		h[XCM_PL4_FORMAT] = XCM_PL4_FORMAT_LID4;
		h[XCM_PL4_FLAGS] = flags;
		xcm_put_be32(h + XCM_PL4_LIST_ID, l->list_id4);
		xcm_put_be16(h + XCM_PL4_CSCD_LEN, (uint16_t)(ncscd * XCM_CSCD_LEN));
		xcm_put_be16(h + XCM_PL4_SEG_LEN, (uint16_t)seg_bytes);
		/* no inline data, no header CSCDs, IMMED = G_SENSE = 0 */
		xcm_wbuf_put(w, h, XCM_PLIST4_HDR_LEN);
	} else {
		h[XCM_PLH_LIST_ID] = l->list_id;
		h[XCM_PLH_FLAGS] = flags;
		xcm_put_be16(h + XCM_PLH_CSCD_LEN, (uint16_t)(ncscd * XCM_CSCD_LEN));
		xcm_put_be32(h + XCM_PLH_SEG_LEN, seg_bytes);
		/* no inline data is ever sent: INLINE DATA LENGTH 0 */
		xcm_put_be32(h + XCM_PLH_INLINE_LEN, 0);
		xcm_wbuf_put(w, h, XCM_PLIST_HDR_LEN);
	}
	for (i = 0; i < ncscd; i++) {
		put_cscd(w, l->cscd, i);
	}
	for (i = 0; i < nseg; i++) {
		put_segment(w, l, ncscd, &l->seg[i]);
	}
	return w->len - start;
}

size_t
xcm_list_encode(const struct xcm_list *l, struct xcm_wbuf *w)
{
	return list_encode(l, false, w);
}

size_t
xcm_list_encode_lid4(const struct xcm_list *l, struct xcm_wbuf *w)
{
	return list_encode(l, true, w);
}

int
xcm_cscd_from_designator(struct xcm_cscd *c, const uint8_t *desig, size_t len,
			 uint32_t block_len)
{
	uint8_t dlen;

	/* VPD 83h designation descriptor: 4-byte header, then DESIGNATOR LENGTH bytes */
	if (c == NULL || desig == NULL || len < XCM_E4_VPD_HDR) {
		return -EINVAL;
	}
	dlen = desig[XCM_E4_DESIG_LEN - XCM_E4_CODE_SET];
	if (dlen == 0 || dlen > XCM_DESIG_MAX || len < (size_t)XCM_E4_VPD_HDR + dlen) {
		return -EINVAL;
	}
	/* an E4h names a logical unit (ASSOCIATION 00b) */
	if (((desig[XCM_E4_DESIG_TYPE - XCM_E4_CODE_SET] >> XCM_E4_ASSOC_SHIFT) & 0x3) !=
	    XCM_ASSOC_LU) {
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c));
	c->type = XCM_CSCD_ID;
	c->pdt = XCM_PDT_BLOCK;
	/* PROTOCOL IDENTIFIER (byte 0 bits 7:4) and PIV (byte 1 bit 7) are dropped (S does this) */
	c->code_set = desig[XCM_E4_CODE_SET - XCM_E4_CODE_SET] & 0x0F;
	c->assoc = XCM_ASSOC_LU;
	c->desig_type = desig[XCM_E4_DESIG_TYPE - XCM_E4_CODE_SET] & 0x0F;
	c->desig_len = dlen;
	memcpy(c->desig, desig + XCM_E4_VPD_HDR, dlen);
	c->block_len = block_len & 0xFFFFFFu;
	return 0;
}

void
xcm_cdb_xcopy(uint8_t *cdb, uint32_t plen)
{
	memset(cdb, 0, XCM_CDB16_LEN);
	cdb[XCM_CDB_OPCODE] = XCM_OP_XCOPY;
	cdb[XCM_CDB_SA] = XCM_SA_XCOPY_LID1;
	xcm_put_be32(cdb + XCM_CDB_LEN32, plen);
}

void
xcm_cdb_rcr(uint8_t *cdb, uint8_t sa, uint8_t list_id, uint32_t alloc_len)
{
	memset(cdb, 0, XCM_CDB16_LEN);
	cdb[XCM_CDB_OPCODE] = XCM_OP_RCR;
	cdb[XCM_CDB_SA] = sa & XCM_CDB_SA_MASK;
	/* SPC-4: CDB byte 2 is reserved for OPERATING PARAMETERS; LIO rejects non-zero */
	cdb[XCM_CDB_LIST_ID] = sa == XCM_SA_RCR_OP_PARAMS ? 0 : list_id;
	xcm_put_be32(cdb + XCM_CDB_LEN32, alloc_len);
}
