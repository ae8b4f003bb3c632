/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY (LID1): CDB check and parameter-list decode + validate.
 *
 * The list arrives from the initiator and is hostile. xcm_list_parse() runs
 * four phases, each its own function: header (lengths against the limits and
 * against what was received), CSCD walk, segment walk, then the LIST ID
 * checks. Every descriptor is carved once as a fixed-size span and then read
 * at the constant offsets of param_layout.h. Layouts and codes are SPC-4's
 * (EXTENDED COPY command, its parameter lists, CSCD and segment descriptors).
 *
 * SPC-4 does not order the checks; the order decides which error a list with
 * several faults gets, so it is fixed here ("check N" below) and matches what
 * LIO and libiscsi's tests expect:
 *   1 opcode / service action; 2 PARAMETER LIST LENGTH 0 is GOOD, no action;
 *   3 a list shorter than its header; 4 descriptor list lengths; 5 lengths
 *   against the limits and against the bytes received; 6 descriptor types
 *   and DESCRIPTOR LENGTHs, walking the lists; 7 LIST ID USAGE and LIST
 *   IDENTIFIER; 8 COPY ABORTED, reported once the whole list is known to be
 *   well formed: an EAh CSCD whose extension byte is not FFh (26/00), then
 *   the first CSCD ID not resolved (08/04) or naming an extension (26/00).
 * The result holds validated values and pointers into the result itself,
 * never wire indexes or pointers into the received buffer.
 */
#include <string.h>

#include "param_layout.h"
#include "xcm/lid4.h"
#include "xcm/xcm.h"

enum xcm_status
xcm_tpc_cdb_head(const uint8_t *cdb, size_t cdb_len, uint8_t opcode, uint8_t *sa,
		 struct xcm_err *err)
{
	if (cdb == NULL || cdb_len < XCM_CDB16_LEN) {
		xcm_err_set(err, XCM_E_INVALID_FIELD_CDB);
		return err->status;
	}
	if (cdb[XCM_CDB_OPCODE] != opcode) {
		xcm_err_set(err, XCM_E_INVALID_OPCODE);
		return err->status;
	}
	*sa = cdb[XCM_CDB_SA] & XCM_CDB_SA_MASK;
	return XCM_OK;
}

enum xcm_status
xcm_xcopy_cdb_check(const uint8_t *cdb, size_t cdb_len, uint32_t *plen, struct xcm_err *err)
{
	enum xcm_status st;
	uint8_t sa;

	/* SPC-4: EXTENDED COPY is 83h (THIRD-PARTY COPY OUT), a 16-byte CDB */
	if ((st = xcm_tpc_cdb_head(cdb, cdb_len, XCM_OP_XCOPY, &sa, err)) != XCM_OK) {
		return st;
	}
	/* check 1: only LID1 (SA 00h) here; LID4, PT, WUT, ... -> INVALID FIELD IN CDB */
	if (sa != XCM_SA_XCOPY_LID1) {
		xcm_err_set_field(err, XCM_E_INVALID_FIELD_CDB, true, XCM_CDB_SA, XCM_CDB_SA_MSB);
		return err->status;
	}
	/* SPC-4: PARAMETER LIST LENGTH, CDB bytes 10-13 (0 is not an error) */
	*plen = xcm_get_be32(cdb + XCM_CDB_LEN32);
	xcm_err_set(err, XCM_OK);
	return XCM_OK;
}

/* Lengths taken from the header, for the walks, and where the header keeps them. */
struct plist_lens {
	uint32_t cscd;
	uint32_t seg;
	uint32_t inl;
	uint32_t base;      /* offset of the first CSCD descriptor: 16 (LID1), 48 (LID4) */
	uint32_t f_cscd;    /* offsets of the length fields and the LIST IDENTIFIER */
	uint32_t f_seg;
	uint32_t f_list_id;
};

static enum xcm_status
fail_field(struct xcm_err *err, enum xcm_status st, uint32_t field, int bit)
{
	xcm_err_set_field(err, st, false, field, bit);
	return st;
}

static enum xcm_status
fail_plen(struct xcm_err *err)
{
	/* PARAMETER LIST LENGTH ERROR carries no field pointer */
	xcm_err_set(err, XCM_E_PARAM_LIST_LEN);
	return XCM_E_PARAM_LIST_LEN;
}

static enum xcm_status check_lens(uint32_t plen, struct xcm_span data,
				  const struct xcm_limits *lim, const struct plist_lens *lens,
				  uint32_t f_inl, struct xcm_err *err);

/* Phase 1: the 16-byte LID1 header and the lengths it declares (checks 3-5). */
static enum xcm_status
parse_header(uint32_t plen, struct xcm_span data, const struct xcm_limits *lim,
	     struct xcm_list *out, struct plist_lens *lens, struct xcm_err *err)
{
	struct xcm_span h;
	uint8_t flags;

	/* check 3: shorter than the header (declared or received) -> 1A/00 */
	if (plen < XCM_PLIST_HDR_LEN || !xcm_span_sub(data, 0, XCM_PLIST_HDR_LEN, &h)) {
		return fail_plen(err);
	}
	out->list_id = h.p[XCM_PLH_LIST_ID];
	flags = h.p[XCM_PLH_FLAGS];
	/* byte 1 bits 7:6 are reserved and ignored */
	out->str = (flags >> XCM_PLH_STR_SHIFT) & 1u;
	out->list_id_usage = (flags >> XCM_PLH_USAGE_SHIFT) & XCM_PLH_USAGE_MASK;
	out->priority = flags & XCM_PLH_PRIO_MASK;
	lens->cscd = xcm_get_be16(h.p + XCM_PLH_CSCD_LEN);
	lens->seg = xcm_get_be32(h.p + XCM_PLH_SEG_LEN);
	lens->inl = xcm_get_be32(h.p + XCM_PLH_INLINE_LEN);
	lens->base = XCM_PLIST_HDR_LEN;
	lens->f_cscd = XCM_PLH_CSCD_LEN;
	lens->f_seg = XCM_PLH_SEG_LEN;
	lens->f_list_id = XCM_PLH_LIST_ID;
	return check_lens(plen, data, lim, lens, XCM_PLH_INLINE_LEN, err);
}

/*
 * Phase 1 for LID4 (EXTENDED COPY SA 01h): the 48-byte LID4 parameter list header.
 * What a TCMU target cannot do is refused with INVALID FIELD IN PARAMETER
 * LIST pointing at the field: header CSCD descriptors, IMMED (status before
 * the copy ends: TCMU completes a command once) and G_SENSE (sense data with
 * GOOD status: TCMU sends sense only with CHECK CONDITION).
 */
static enum xcm_status
parse_header4(uint32_t plen, struct xcm_span data, const struct xcm_limits *lim,
	      struct xcm_list *out, struct plist_lens *lens, struct xcm_err *err)
{
	struct xcm_span h;
	uint8_t flags;

	if (plen < XCM_PLIST4_HDR_LEN || !xcm_span_sub(data, 0, XCM_PLIST4_HDR_LEN, &h)) {
		return fail_plen(err);
	}
	/* SPC-4 EXTENDED COPY(LID4): LIST FORMAT 01h */
	if (h.p[XCM_PL4_FORMAT] != XCM_PL4_FORMAT_LID4) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, XCM_PL4_FORMAT, -1);
	}
	flags = h.p[XCM_PL4_FLAGS];
	out->str = (flags >> XCM_PLH_STR_SHIFT) & 1u;
	out->list_id_usage = (flags >> XCM_PLH_USAGE_SHIFT) & XCM_PLH_USAGE_MASK;
	out->priority = flags & XCM_PLH_PRIO_MASK;
	if (xcm_get_be16(h.p + XCM_PL4_HDR_CSCD_LEN) != 0) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, XCM_PL4_HDR_CSCD_LEN, -1);
	}
	if ((h.p[XCM_PL4_OPTS] >> XCM_PL4_G_SENSE_BIT) & 1u) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, XCM_PL4_OPTS, XCM_PL4_G_SENSE_BIT);
	}
	if ((h.p[XCM_PL4_OPTS] >> XCM_PL4_IMMED_BIT) & 1u) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, XCM_PL4_OPTS, XCM_PL4_IMMED_BIT);
	}
	out->list_id4 = xcm_get_be32(h.p + XCM_PL4_LIST_ID);
	lens->cscd = xcm_get_be16(h.p + XCM_PL4_CSCD_LEN);
	lens->seg = xcm_get_be16(h.p + XCM_PL4_SEG_LEN);
	lens->inl = xcm_get_be16(h.p + XCM_PL4_INLINE_LEN);
	lens->base = XCM_PLIST4_HDR_LEN;
	lens->f_cscd = XCM_PL4_CSCD_LEN;
	lens->f_seg = XCM_PL4_SEG_LEN;
	lens->f_list_id = XCM_PL4_LIST_ID;
	return check_lens(plen, data, lim, lens, XCM_PL4_INLINE_LEN, err);
}

/*
 * The lengths a header declares, against the limits and the bytes declared
 * and received (check 5); f_inl: offset of INLINE DATA LENGTH.
 */
static enum xcm_status
check_lens(uint32_t plen, struct xcm_span data, const struct xcm_limits *lim,
	   const struct plist_lens *lens, uint32_t f_inl, struct xcm_err *err)
{
	uint64_t total;

	/*
	 * check 5: CSCD + segment bytes above MAXIMUM DESCRIPTOR LIST LENGTH
	 * -> 1A/00. Checked before the count limits: libiscsi DescrLimits sends a
	 * list above every limit at once and expects 1A/00.
	 */
	if ((uint64_t)lens->cscd + lens->seg > lim->max_desc_list_len) {
		return fail_plen(err);
	}
	/*
	 * check 5: INLINE DATA LENGTH above MAXIMUM INLINE DATA
	 * LENGTH. The sources disagree (1A/00 in F, T; 26/00 in L); the project
	 * uses the dedicated ASC 26/0B INLINE DATA LENGTH EXCEEDED, pointing at the field.
	 */
	if (lens->inl > lim->max_inline_len) {
		return fail_field(err, XCM_E_INLINE_DATA_LEN, f_inl, -1);
	}
	/*
	 * check 5: header + lists + inline must have been both
	 * declared (PARAMETER LIST LENGTH) and received; trailing bytes are allowed.
	 */
	total = (uint64_t)lens->base + lens->cscd + lens->seg + lens->inl;
	if (total > plen || total > data.len) {
		return fail_plen(err);
	}
	/*
	 * check 5: CSCD list longer than MAXIMUM CSCD DESCRIPTOR COUNT x 32 -> 26/06.
	 * Counted in 32-byte slots, as CSCD IDs are: a 64-byte EAh counts twice.
	 */
	if (lens->cscd > (uint32_t)lim->max_cscd * XCM_CSCD_LEN) {
		return fail_field(err, XCM_E_TOO_MANY_CSCD, lens->f_cscd, -1);
	}
	return XCM_OK;
}

static bool
desig_type_valid_for_lu(uint8_t t)
{
	/* SPC-4 designator types that may be associated with a logical unit (VPD 83h) */
	switch (t) {
	case XCM_DESIG_VENDOR:
	case XCM_DESIG_T10:
	case XCM_DESIG_EUI64:
	case XCM_DESIG_NAA:
	case XCM_DESIG_MD5:
	case XCM_DESIG_SCSI_NAME:
	case XCM_DESIG_UUID:
		return true;
	default:
		return false;
	}
}

/* E4h bytes 4-7: the designator's code set, association, type and length. */
static enum xcm_status
check_e4_desig(uint8_t code_set, uint8_t assoc, uint8_t dtype, uint8_t dlen, uint32_t off,
	       struct xcm_err *err)
{
	/* E4h byte 4 bits 3:0: CODE SET binary, ASCII or UTF-8; bits 7:4 (protocol id) ignored */
	if (code_set != XCM_CODE_SET_BINARY && code_set != XCM_CODE_SET_ASCII &&
	    code_set != XCM_CODE_SET_UTF8) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_E4_CODE_SET, 3);
	}
	/* E4h byte 5 bits 5:4: ASSOCIATION must be 00b (logical unit), as LIO enforces */
	if (assoc != XCM_ASSOC_LU) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_E4_DESIG_TYPE, 5);
	}
	/* E4h byte 5 bits 3:0 / VPD 83h: a designator type that can name a logical unit */
	if (!desig_type_valid_for_lu(dtype)) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_E4_DESIG_TYPE, 3);
	}
	/* E4h byte 7: DESIGNATOR LENGTH 1..20 (the field holds at most 20 bytes) */
	if (dlen == 0 || dlen > XCM_DESIG_MAX) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_E4_DESIG_LEN, -1);
	}
	return XCM_OK;
}

/* One identification descriptor CSCD (E4h), d = its 32 bytes at list offset off. */
static enum xcm_status
parse_e4(struct xcm_span d, uint32_t off, struct xcm_cscd *c, struct xcm_err *err)
{
	uint8_t flags = d.p[XCM_E4_FLAGS];
	uint8_t luid = flags >> XCM_E4_LUID_SHIFT;
	uint8_t pdt = flags & XCM_E4_PDT_MASK;
	uint8_t code_set = d.p[XCM_E4_CODE_SET] & 0x0F;
	uint8_t assoc = (d.p[XCM_E4_DESIG_TYPE] >> XCM_E4_ASSOC_SHIFT) & 0x3;
	uint8_t dtype = d.p[XCM_E4_DESIG_TYPE] & 0x0F;
	uint8_t dlen = d.p[XCM_E4_DESIG_LEN];

	/*
	 * E4h byte 1 bits 7:6: LU ID TYPE must be 00b (LUN). Our INQUIRY claims
	 * SPC-3, where 10b/11b are reserved (libiscsi ValidTgtDescr expects 26/00),
	 * and 01b (proxy token) is not supported.
	 */
	if (luid != 0) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_E4_FLAGS, 7);
	}
	/*
	 * E4h: NUL (byte 1 bit 5) is accepted and recorded; the executor
	 * aborts a segment that references such a CSCD with COPY ABORTED.
	 */
	/* E4h byte 1 bits 4:0: only block devices (PDT 00h) are copy sources/destinations here */
	if (pdt != XCM_PDT_BLOCK) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_E4_FLAGS, 4);
	}
	enum xcm_status st = check_e4_desig(code_set, assoc, dtype, dlen, off, err);

	if (st != XCM_OK) {
		return st;
	}

	/* bytes 28-31, block device type specific parameters: PAD, DISK BLOCK LENGTH (0 = LU's) */
	xcm_cscd_common_get(d.p, off, XCM_CSCD_ID, c);
	c->code_set = code_set;
	c->assoc = assoc;
	c->desig_type = dtype;
	c->desig_len = dlen;
	memcpy(c->desig, d.p + XCM_E4_DESIG, dlen);
	return XCM_OK;
}

/*
 * A COPY ABORTED found in the lists, reported once the whole list passed the
 * ILLEGAL REQUEST checks (check 8): the first CSCD ID that cannot be
 * resolved (08/04) or that names a CSCD descriptor extension (26/00), both
 * with CSI = segment index and a segment-relative pointer to the ID field;
 * before them, an EAh whose byte 32 is not FFh (26/00, pointer relative to
 * the parameter list: no segment is involved).
 */
struct unresolved {
	bool valid;
	enum xcm_status st;
	bool in_list;       /* field relative to the parameter list, no CSI */
	uint32_t seg;
	int field;
};

/*
 * One CSCD at list offset off whose type byte is type, taking one slot
 * (E4h) or two (EAh: the descriptor and its extension, SPC-4 6.4.5.2).
 * *len: the bytes it takes.
 */
static enum xcm_status
parse_cscd(struct xcm_span data, uint32_t off, uint32_t end, const struct plist_lens *lens,
	   struct xcm_list *out, struct unresolved *unres, uint32_t *len, struct xcm_err *err)
{
	struct xcm_span d;
	enum xcm_status st;
	bool ext_ok = true;

	*len = data.p[off] == XCM_CSCD_IPV6 ? XCM_CSCD_LEN64 : XCM_CSCD_LEN;
	/* SPC-4: E4h is 32 bytes, EAh 64; ending inside one: bad CSCD list length */
	if (end - off < *len || !xcm_span_sub(data, off, *len, &d)) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, lens->f_cscd, -1);
	}
	/* capacity in slots: the header bounded the list by max_cscd; don't trust a limits table */
	if (out->ncscd + *len / XCM_CSCD_LEN > XCM_MAX_CSCD) {
		return fail_field(err, XCM_E_TOO_MANY_CSCD, lens->f_cscd, -1);
	}
	if (*len == XCM_CSCD_LEN) {
		return parse_e4(d, off, &out->cscd[out->ncscd++], err);
	}
	st = xcm_cscd_ip6_parse(d, off, &out->cscd[out->ncscd], &ext_ok, err);
	if (st != XCM_OK) {
		return st;
	}
	if (!ext_ok && !unres->valid) {
		unres->valid = true;
		unres->st = XCM_E_CA_INVALID_FIELD_PARAM;
		unres->in_list = true;
		unres->field = (int)(off + XCM_EA_EXT_TYPE);
	}
	/* the second slot: the extension, which no segment may name */
	memset(&out->cscd[out->ncscd + 1], 0, sizeof(out->cscd[0]));
	out->cscd[out->ncscd + 1].type = XCM_CSCD_EXT;
	out->cscd[out->ncscd + 1].offset = off + XCM_CSCD_LEN;
	out->ncscd += 2;
	return XCM_OK;
}

/* Phase 2: the CSCD descriptor list, bytes [16, 16 + lens->cscd) (check 6). */
static enum xcm_status
walk_cscds(struct xcm_span data, const struct plist_lens *lens, struct xcm_list *out,
	   struct unresolved *unres, struct xcm_err *err)
{
	uint32_t off = lens->base;
	uint32_t end = lens->base + lens->cscd;
	enum xcm_status st;
	uint32_t len;

	out->ncscd = 0;
	while (off < end) {
		/*
		 * check 6: the CSCD type code decides the layout; E4h and EAh only.
		 * E5h (layout not established), E6h (no alias list), EBh (vendor
		 * specific protocol), an extension (FFh) without its CSCD, and the
		 * rest: 26/07 (docs/cscd-descriptors.md).
		 */
		if (data.p[off] != XCM_CSCD_ID && data.p[off] != XCM_CSCD_IPV6) {
			return fail_field(err, XCM_E_UNSUPP_CSCD_TYPE, off, -1);
		}
		st = parse_cscd(data, off, end, lens, out, unres, &len, err);
		if (st != XCM_OK) {
			return st;
		}
		off += len;
	}
	return XCM_OK;
}

/*
 * SPC-4: a CSCD ID is an index into the CSCD list, counted in 32-byte slots,
 * or FFFFh for the LU that received the command. Null LUs (C000h, C001h),
 * the ROD CSCD (F800h), reserved values and indexes past the list cannot be
 * resolved (*st 08/04); an index naming the extension of a 64-byte CSCD is
 * COPY ABORTED, INVALID FIELD IN PARAMETER LIST (SPC-4 6.4.5.2). NULL then.
 */
static const struct xcm_cscd *
resolve_id(struct xcm_list *out, uint16_t id, enum xcm_status *st)
{
	*st = XCM_E_CA_UNREACHABLE;
	if (id == XCM_CSCD_ID_SELF) {
		return &out->self;
	}
	if (id < out->ncscd) {
		if (out->cscd[id].type == XCM_CSCD_EXT) {
			*st = XCM_E_CA_INVALID_FIELD_PARAM;
			return NULL;
		}
		return &out->cscd[id];
	}
	return NULL;
}

/* One segment descriptor d at list offset off, index n (SPC-4 segment descriptors 02h and 0Ah). */
static enum xcm_status
parse_segment(struct xcm_span d, uint32_t off, uint32_t n, struct xcm_list *out,
	      struct unresolved *unres, struct xcm_err *err)
{
	struct xcm_segment *s = &out->seg[n];
	uint8_t flags = d.p[XCM_SEGD_FLAGS];
	uint16_t src_id = xcm_get_be16(d.p + XCM_SEGD_SRC_ID);
	uint16_t dst_id = xcm_get_be16(d.p + XCM_SEGD_DST_ID);
	enum xcm_status src_st, dst_st;

	memset(s, 0, sizeof(*s));
	s->type = d.p[XCM_SEGD_TYPE];
	/* segment descriptor byte 1: bits 7:3 reserved (ignored), 2 FCO, 1 DC, 0 CAT */
	s->fco = (flags >> XCM_SEGD_FCO_BIT) & 1u;
	s->dc = (flags >> XCM_SEGD_DC_BIT) & 1u;
	s->cat = (flags >> XCM_SEGD_CAT_BIT) & 1u;
	s->offset = off;
	if (s->type == XCM_SEG_TOKEN) {
		/* the source is the LU the token names (F800h); nothing else to resolve */
		if (xcm_seg_token_parse(d, off, &out->tok, err) != XCM_OK) {
			return err->status;
		}
		s->fco = s->dc = s->cat = false;
		s->dst = resolve_id(out, dst_id, &dst_st);
		if (!unres->valid && s->dst == NULL) {
			unres->valid = true;
			unres->st = dst_st;
			unres->in_list = false;
			unres->seg = n;
			unres->field = XCM_SEGD_DST_ID;
		}
		return XCM_OK;
	}
	if (s->type == XCM_SEG_B2B) {
		/* 02h: bytes 8-9 reserved, 10-11 BLOCK DEVICE NUMBER OF BLOCKS */
		s->count = xcm_get_be16(d.p + XCM_B2B_NBLOCKS);
		s->src_lba = xcm_get_be64(d.p + XCM_B2B_SRC_LBA);
		s->dst_lba = xcm_get_be64(d.p + XCM_B2B_DST_LBA);
	} else {
		/* 0Ah has no DC bit; a set DC asks for something we cannot honour */
		if (s->dc) {
			return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_SEGD_FLAGS,
					  XCM_SEGD_DC_BIT);
		}
		s->count = xcm_get_be32(d.p + XCM_B2BO_NBYTES);
		s->src_lba = xcm_get_be64(d.p + XCM_B2BO_SRC_LBA);
		s->dst_lba = xcm_get_be64(d.p + XCM_B2BO_DST_LBA);
		s->src_off = xcm_get_be16(d.p + XCM_B2BO_SRC_OFF);
		s->dst_off = xcm_get_be16(d.p + XCM_B2BO_DST_OFF);
	}
	/*
	 * check 8: an unresolvable CSCD ID is COPY ABORTED 08/04
	 * (libiscsi ValidSegDescr), with CSI = segment index and a segment-relative
	 * pointer to the ID field. Remembered here, reported once the whole list
	 * passed the ILLEGAL REQUEST checks.
	 */
	s->src = resolve_id(out, src_id, &src_st);
	s->dst = resolve_id(out, dst_id, &dst_st);
	if (!unres->valid && (s->src == NULL || s->dst == NULL)) {
		unres->valid = true;
		unres->st = s->src == NULL ? src_st : dst_st;
		unres->in_list = false;
		unres->seg = n;
		unres->field = s->src == NULL ? XCM_SEGD_SRC_ID : XCM_SEGD_DST_ID;
	}
	return XCM_OK;
}

/* Phase 3: the segment descriptor list, exactly lens->seg bytes after the CSCDs (check 6). */
static enum xcm_status
walk_segments(struct xcm_span data, const struct plist_lens *lens, const struct xcm_limits *lim,
	      struct xcm_list *out, struct unresolved *unres, struct xcm_err *err)
{
	uint32_t off = lens->base + lens->cscd;
	uint32_t end = off + lens->seg; /* <= data.len, checked by parse_header */
	uint32_t cap = lim->max_seg < XCM_MAX_SEG ? lim->max_seg : XCM_MAX_SEG;
	struct xcm_span d;
	uint32_t need;
	uint16_t dlen;
	uint8_t type;
	bool has_token = false;
	uint32_t token_off = 0;
	enum xcm_status st;

	out->nseg = 0;
	while (off < end) {
		/* the list must hold at least the type and DESCRIPTOR LENGTH */
		if (end - off < XCM_SEGD_DLEN_HDR) {
			return fail_field(err, XCM_E_INVALID_FIELD_PARAM, lens->f_seg, -1);
		}
		/*
		 * check 6: type first (libiscsi DescrType sends a
		 * 20-byte 03h and expects 26/09); we implement 02h and 0Ah only.
		 */
		type = data.p[off + XCM_SEGD_TYPE];
		dlen = xcm_get_be16(data.p + off + XCM_SEGD_DLEN);
		if (type == XCM_SEG_B2B) {
			need = XCM_B2B_DLEN;
		} else if (type == XCM_SEG_B2B_OFF) {
			need = XCM_B2BO_DLEN;
		} else if (type == XCM_SEG_TOKEN) {
			/* vendor specific C0h (seg_token.c): one a list, 532 + 16n */
			if (has_token) {
				return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off, -1);
			}
			has_token = true;
			token_off = off;
			/* never 0: a 4-byte C0h would be read past its end (parse_segment) */
			need = xcm_seg_token_dlen_ok(dlen) ? dlen : UINT32_MAX;
		} else {
			return fail_field(err, XCM_E_UNSUPP_SEG_TYPE, off, -1);
		}
		/* check 6: DESCRIPTOR LENGTH 0018h / 001Ch exactly */
		if (dlen != need) {
			return fail_field(err, XCM_E_INVALID_FIELD_PARAM, off + XCM_SEGD_DLEN, -1);
		}
		/* the descriptor must end inside the segment list */
		if (end - off < XCM_SEGD_DLEN_HDR + need ||
		    !xcm_span_sub(data, off, XCM_SEGD_DLEN_HDR + need, &d)) {
			return fail_field(err, XCM_E_INVALID_FIELD_PARAM, lens->f_seg, -1);
		}
		/* check 5: over MAXIMUM SEGMENT DESCRIPTOR COUNT: 26/08 here */
		if (out->nseg >= cap) {
			return fail_field(err, XCM_E_TOO_MANY_SEG, off, -1);
		}
		st = parse_segment(d, off, out->nseg, out, unres, err);
		if (st != XCM_OK) {
			return st;
		}
		out->nseg++;
		off += d.len;
	}
	/*
	 * C0h is the whole list: a token refused at execution (23/xx, ILLEGAL
	 * REQUEST) must not follow segments that already wrote
	 */
	if (has_token && out->nseg != 1) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, token_off, -1);
	}
	return XCM_OK;
}

/* Phase 4: LIST ID USAGE and LIST IDENTIFIER (SPC-4 LIST ID USAGE field; check 7). */
static enum xcm_status
check_list_id(const struct xcm_list *out, const struct plist_lens *lens,
	      const struct xcm_limits *lim, struct xcm_err *err)
{
	/* LIST ID USAGE 01b is reserved */
	if (out->list_id_usage == XCM_LIST_ID_RESERVED) {
		return fail_field(err, XCM_E_INVALID_FIELD_PARAM, XCM_PLH_FLAGS, XCM_PLH_USAGE_MSB);
	}
	if (out->list_id_usage == XCM_LIST_ID_NONE) {
		/* with 11b the LIST IDENTIFIER must be 0 (26/00, as tcmu-runner returns) */
		if ((out->lid4 ? out->list_id4 : out->list_id) != 0) {
			return fail_field(err, XCM_E_INVALID_FIELD_PARAM, lens->f_list_id, -1);
		}
		/* 11b only when OPERATING PARAMETERS reports SNLID = 1 */
		if (!lim->snlid) {
			return fail_field(err, XCM_E_INVALID_FIELD_PARAM, XCM_PLH_FLAGS,
					  XCM_PLH_USAGE_MSB);
		}
	}
	return XCM_OK;
}

/* An empty list: no CSCDs, no segments, FFFFh names the receiving LU. */
static void
list_reset(struct xcm_list *out, bool lid4)
{
	out->list_id = 0;
	out->lid4 = lid4;
	out->list_id4 = 0;
	out->list_id_usage = 0;
	out->priority = 0;
	out->str = false;
	out->ncscd = 0;
	out->nseg = 0;
	out->inline_len = 0;
	/* FFFFh: the LU that received the command; the executor knows which */
	memset(&out->self, 0, sizeof(out->self));
	out->self.type = 0;
	out->self.pdt = XCM_PDT_BLOCK;
	out->self.block_len = 0;
}

static enum xcm_status
list_parse(uint32_t plen, struct xcm_span data, const struct xcm_limits *lim, bool lid4,
	   struct xcm_list *out, struct xcm_err *err)
{
	struct plist_lens lens;
	struct unresolved unres = { false, XCM_OK, false, 0, -1 };
	uint32_t maxp = xcm_limits_max_param_len(lim);
	enum xcm_status st;

	xcm_err_set(err, XCM_OK);
	list_reset(out, lid4);

	/* check 2: PARAMETER LIST LENGTH 0 -> GOOD, nothing to do */
	if (plen == 0) {
		return XCM_OK;
	}
	/* look at no more than was declared and no more than could ever be valid */
	if (data.p == NULL) {
		data.len = 0;
	}
	if (data.len > plen) {
		data.len = plen;
	}
	if (data.len > maxp) {
		data.len = maxp;
	}

	st = lid4 ? parse_header4(plen, data, lim, out, &lens, err)
		  : parse_header(plen, data, lim, out, &lens, err);
	if (st == XCM_OK) {
		st = walk_cscds(data, &lens, out, &unres, err);
	}
	if (st == XCM_OK) {
		st = walk_segments(data, &lens, lim, out, &unres, err);
	}
	if (st == XCM_OK) {
		st = check_list_id(out, &lens, lim, err);
	}
	if (st == XCM_OK && unres.valid) {
		if (unres.in_list) {
			xcm_err_set_field(err, unres.st, false, (uint32_t)unres.field, -1);
		} else {
			xcm_err_set_segment(err, unres.st, unres.seg, unres.field);
		}
		st = unres.st;
	}
	if (st != XCM_OK) {
		out->ncscd = 0;
		out->nseg = 0;
		return st;
	}
	out->inline_len = lens.inl;
	return XCM_OK;
}

enum xcm_status
xcm_list_parse(uint32_t plen, struct xcm_span data, const struct xcm_limits *lim,
	       struct xcm_list *out, struct xcm_err *err)
{
	return list_parse(plen, data, lim, false, out, err);
}

enum xcm_status
xcm_list_parse_lid4(uint32_t plen, struct xcm_span data, const struct xcm_limits *lim,
		    struct xcm_list *out, struct xcm_err *err)
{
	return list_parse(plen, data, lim, true, out, err);
}
