/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Byte layout of the EXTENDED COPY (LID1) CDB and parameter list, shared by
 * the decoder (param.c) and the encoder (encode.c) so both read and write the
 * same named offsets. Private to engine/. Layout facts:
 * SPC-4 (EXTENDED COPY and RECEIVE COPY RESULTS; the structure is named per block).
 */
#ifndef XCM_PARAM_LAYOUT_H
#define XCM_PARAM_LAYOUT_H

#include <string.h>

#include "xcm/spc.h"
#include "xcm/wire.h"
#include "xcm/xcm.h"

/* EXTENDED COPY / RECEIVE COPY RESULTS CDB, 16 bytes */
enum {
	XCM_CDB_OPCODE = 0,
	XCM_CDB_SA = 1,                /* bits 4:0 */
	XCM_CDB_LIST_ID = 2,           /* RECEIVE COPY RESULTS LID1 only; reserved for SA 03h */
	XCM_CDB_LEN32 = 10,            /* PARAMETER LIST / ALLOCATION LENGTH, 4 bytes */
	XCM_CDB_SA_MASK = 0x1F,
	XCM_CDB_SA_MSB = 4,            /* bit pointer of the SERVICE ACTION field */
};

/*
 * What every 83h/84h CDB check starts with: a 16-byte CDB (anything shorter
 * cannot hold bytes 10-13: INVALID FIELD IN CDB), the opcode (else INVALID
 * COMMAND OPERATION CODE), and the SERVICE ACTION, bits 4:0 of byte 1, in *sa.
 */
enum xcm_status xcm_tpc_cdb_head(const uint8_t *cdb, size_t cdb_len, uint8_t opcode, uint8_t *sa,
				 struct xcm_err *err);

/* LID1 parameter list header, 16 bytes */
enum {
	XCM_PLH_LIST_ID = 0,
	XCM_PLH_FLAGS = 1,             /* 7:6 reserved, 5 STR, 4:3 LIST ID USAGE, 2:0 PRIORITY */
	XCM_PLH_CSCD_LEN = 2,          /* 2 bytes */
	XCM_PLH_SEG_LEN = 8,           /* 4 bytes */
	XCM_PLH_INLINE_LEN = 12,       /* 4 bytes */
	XCM_PLH_STR_SHIFT = 5,
	XCM_PLH_USAGE_SHIFT = 3,
	XCM_PLH_USAGE_MASK = 0x3,
	XCM_PLH_USAGE_MSB = 4,         /* bit pointer of LIST ID USAGE */
	XCM_PLH_PRIO_MASK = 0x7,
};
_Static_assert(XCM_PLH_INLINE_LEN + 4 == XCM_PLIST_HDR_LEN, "LID1 header is 16 bytes");

/* LID4 parameter list header, 48 bytes; byte 1 as in LID1 */
enum {
	XCM_PL4_FORMAT = 0,            /* LIST FORMAT */
	XCM_PL4_FLAGS = 1,
	XCM_PL4_HDR_CSCD_LEN = 2,      /* 2 bytes HEADER CSCD DESCRIPTOR LIST LENGTH */
	XCM_PL4_OPTS = 15,             /* 1 G_SENSE, 0 IMMED */
	XCM_PL4_HDR_CSCD_TYPE = 16,
	XCM_PL4_LIST_ID = 20,          /* 4 bytes */
	XCM_PL4_CSCD_LEN = 42,         /* 2 bytes */
	XCM_PL4_SEG_LEN = 44,          /* 2 bytes */
	XCM_PL4_INLINE_LEN = 46,       /* 2 bytes */
	XCM_PL4_FORMAT_LID4 = 0x01,
	XCM_PL4_G_SENSE_BIT = 1,
	XCM_PL4_IMMED_BIT = 0,
};
_Static_assert(XCM_PL4_INLINE_LEN + 2 == XCM_PLIST4_HDR_LEN, "LID4 header is 48 bytes");

/* Identification descriptor CSCD (E4h), 32 bytes, with the block device type
 * specific parameters in bytes 28-31 */
enum {
	XCM_E4_TYPE = 0,
	XCM_E4_FLAGS = 1,              /* 7:6 LU ID TYPE, 5 NUL, 4:0 PERIPHERAL DEVICE TYPE */
	XCM_E4_REL_PORT = 2,           /* 2 bytes */
	XCM_E4_CODE_SET = 4,           /* 7:4 reserved (PROTOCOL IDENTIFIER in VPD 83h), 3:0 */
	XCM_E4_DESIG_TYPE = 5,         /* 7:6 reserved (PIV), 5:4 ASSOCIATION, 3:0 TYPE */
	XCM_E4_DESIG_LEN = 7,
	XCM_E4_DESIG = 8,              /* 20 bytes, zero padded */
	XCM_E4_DTSP = 28,              /* device type specific: bit 2 PAD */
	XCM_E4_BLOCK_LEN = 29,         /* 3 bytes DISK BLOCK LENGTH */
	XCM_E4_LUID_SHIFT = 6,
	XCM_E4_NUL_BIT = 5,
	XCM_E4_PDT_MASK = 0x1F,
	XCM_E4_ASSOC_SHIFT = 4,
	XCM_E4_PAD_BIT = 2,
	/* the CSCD body from CODE SET on is a VPD 83h designation descriptor */
	XCM_E4_VPD_HDR = 4,
};
_Static_assert(XCM_E4_DESIG + XCM_DESIG_MAX == XCM_E4_DTSP, "E4h designator field is 20 bytes");
_Static_assert(XCM_E4_BLOCK_LEN + 3 == XCM_CSCD_LEN, "E4h CSCD is 32 bytes");
_Static_assert(XCM_E4_DESIG - XCM_E4_CODE_SET == XCM_E4_VPD_HDR, "VPD 83h header inside E4h");

/*
 * iSCSI IPv6 CSCD descriptor (EAh), 64 bytes: SPC-4 7.6.3.9 table 496 for
 * the fields, QNAP's SPC4r36 header for the extension's offsets
 * (docs/cscd-descriptors.md). Bytes 1-3 and 28-31 as in E4h.
 */
enum {
	XCM_EA_LU_ID = 4,              /* 8 bytes LU IDENTIFIER (a SAM LUN) */
	XCM_EA_ADDR = 12,              /* 16 bytes IPV6 ADDRESS */
	XCM_EA_EXT_TYPE = 32,          /* EXTENSION DESCRIPTOR TYPE CODE, FFh */
	XCM_EA_PORT = 36,              /* 2 bytes PORT NUMBER; 33-35 reserved */
	XCM_EA_IPN = 38,               /* 2 bytes INTERNET PROTOCOL NUMBER; 40-63 reserved */
	XCM_EA_IPN_TCP = 0x0006,       /* iSCSI runs on TCP (SPC-4 note 58) */
};
_Static_assert(XCM_EA_ADDR + 16 == XCM_E4_DTSP, "EAh: address ends where the DTSP begins");
_Static_assert((int)XCM_EA_EXT_TYPE == (int)XCM_CSCD_LEN, "EAh: the extension is the second slot");

/*
 * Bytes 0-3 and 28-31, the same in every 32-byte CSCD this engine decodes
 * (E4h, EAh): TYPE CODE; LU ID TYPE, NUL, PERIPHERAL DEVICE TYPE; RELATIVE
 * INITIATOR PORT IDENTIFIER; the block device's PAD and DISK BLOCK LENGTH.
 * get: c cleared, then those fields (type as given) and c->offset = off.
 * put: b cleared, then those bytes of c (type as given).
 */
static inline void
xcm_cscd_common_get(const uint8_t *p, uint32_t off, uint8_t type, struct xcm_cscd *c)
{
	uint8_t flags = p[XCM_E4_FLAGS];

	memset(c, 0, sizeof(*c));
	c->type = type;
	c->lu_id_type = flags >> XCM_E4_LUID_SHIFT;
	c->nul = (flags >> XCM_E4_NUL_BIT) & 1u;
	c->pdt = flags & XCM_E4_PDT_MASK;
	c->rel_port = xcm_get_be16(p + XCM_E4_REL_PORT);
	c->pad = (p[XCM_E4_DTSP] >> XCM_E4_PAD_BIT) & 1u;
	c->block_len = xcm_get_be24(p + XCM_E4_BLOCK_LEN);
	c->offset = off;
}

static inline void
xcm_cscd_common_put(const struct xcm_cscd *c, uint8_t type, uint8_t b[XCM_CSCD_LEN])
{
	memset(b, 0, XCM_CSCD_LEN);
	b[XCM_E4_TYPE] = type;
	b[XCM_E4_FLAGS] = (uint8_t)(((c->lu_id_type & 0x3) << XCM_E4_LUID_SHIFT) |
				    ((c->nul ? 1u : 0u) << XCM_E4_NUL_BIT) |
				    (c->pdt & XCM_E4_PDT_MASK));
	xcm_put_be16(b + XCM_E4_REL_PORT, c->rel_port);
	b[XCM_E4_DTSP] = (uint8_t)((c->pad ? 1u : 0u) << XCM_E4_PAD_BIT);
	xcm_put_be24(b + XCM_E4_BLOCK_LEN, c->block_len & 0xFFFFFFu);
}

/*
 * One EAh CSCD, d = its 64 bytes at list offset off (cscd_ip.c). XCM_OK with
 * *c filled and *ext_ok false when byte 32 is not FFh (the caller reports
 * COPY ABORTED once the list is otherwise well formed; the extension's
 * fields are then not looked at); else ILLEGAL REQUEST with *err set.
 */
enum xcm_status xcm_cscd_ip6_parse(struct xcm_span d, uint32_t off, struct xcm_cscd *c,
				   bool *ext_ok, struct xcm_err *err);
/* Bytes 0-31 (slot 0) or 32-63 (slot 1) of the EAh CSCD c, into b. */
void xcm_cscd_ip6_put(const struct xcm_cscd *c, int slot, uint8_t b[XCM_CSCD_LEN]);

/* Segment descriptor header, common to all types */
enum {
	XCM_SEGD_TYPE = 0,
	XCM_SEGD_FLAGS = 1,            /* 7:3 reserved, 2 FCO, 1 DC, 0 CAT */
	XCM_SEGD_DLEN = 2,             /* DESCRIPTOR LENGTH = total - 4 */
	XCM_SEGD_SRC_ID = 4,
	XCM_SEGD_DST_ID = 6,
	XCM_SEGD_DLEN_HDR = 4,         /* bytes not counted by DESCRIPTOR LENGTH */
	XCM_SEGD_FCO_BIT = 2,
	XCM_SEGD_DC_BIT = 1,
	XCM_SEGD_CAT_BIT = 0,
};

/* Block -> block (02h), 28 bytes */
enum {
	XCM_B2B_NBLOCKS = 10,          /* 2 bytes; 8-9 reserved */
	XCM_B2B_SRC_LBA = 12,
	XCM_B2B_DST_LBA = 20,
	XCM_B2B_DLEN = XCM_SEG_B2B_LEN - XCM_SEGD_DLEN_HDR,         /* 0018h */
};
_Static_assert(XCM_B2B_DST_LBA + 8 == XCM_SEG_B2B_LEN, "02h segment is 28 bytes");
_Static_assert(XCM_B2B_DLEN == 0x18, "02h DESCRIPTOR LENGTH");

/* Block (byte offset) -> block (byte offset) (0Ah), 32 bytes */
enum {
	XCM_B2BO_NBYTES = 8,           /* 4 bytes */
	XCM_B2BO_SRC_LBA = 12,
	XCM_B2BO_DST_LBA = 20,
	XCM_B2BO_SRC_OFF = 28,         /* 2 bytes */
	XCM_B2BO_DST_OFF = 30,
	XCM_B2BO_DLEN = XCM_SEG_B2B_OFF_LEN - XCM_SEGD_DLEN_HDR,    /* 001Ch */
};
_Static_assert(XCM_B2BO_DST_OFF + 2 == XCM_SEG_B2B_OFF_LEN, "0Ah segment is 32 bytes");
_Static_assert(XCM_B2BO_DLEN == 0x1C, "0Ah DESCRIPTOR LENGTH");
_Static_assert(XCM_SEGD_DST_ID + 2 == XCM_SEG_HDR_LEN, "segment header is 8 bytes");

/* The vendor specific C0h segment (seg_token.c, docs/remote-tokens.md). */
bool xcm_seg_token_dlen_ok(uint32_t dlen);
/*
 * Decode the C0h descriptor d found at list offset off (DESCRIPTOR LENGTH
 * already checked): byte 1, the F800h source ID, and bytes 8 on as a WUT
 * list. INVALID FIELD IN PARAMETER LIST (field pointer: list offset) or the
 * WUT decoder's status (TOO MANY SEGMENT DESCRIPTORS for > 64 ranges).
 */
enum xcm_status xcm_seg_token_parse(struct xcm_span d, uint32_t off, struct xcm_tok_seg *out,
				    struct xcm_err *err);
size_t xcm_seg_token_len(const struct xcm_tok_seg *t);
void xcm_seg_token_put(struct xcm_wbuf *w, const struct xcm_tok_seg *t, uint16_t dst_id);

#endif /* XCM_PARAM_LAYOUT_H */
