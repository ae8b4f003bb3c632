/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sense data: builder (copy manager) and parser (initiator).
 *
 * The builder takes a struct xcm_err; sense key and ASC/ASCQ come only from
 * the status table (xcm_status_info(), status.c). Fixed format (70h) carries
 * INFORMATION, COMMAND-SPECIFIC INFORMATION and SENSE KEY SPECIFIC;
 * descriptor format (72h) carries the same as descriptors 00h, 01h and 02h
 * plus the forwarded sense of a failed sub-I/O (0Ch). Fixed format has no
 * place for forwarded sense: the caller chooses the format (the LU's D_SENSE
 * setting, or descriptor format whenever err->fwd_valid matters to it) and a
 * fixed-format build simply leaves the forwarded sense out.
 * Layouts: SPC-4 4.5 (sense data), and for COPY ABORTED the copy-specific use
 * of COMMAND-SPECIFIC INFORMATION and the sense-key specific segment pointer.
 */
#include <errno.h>
#include <string.h>

#include "xcm/xcm.h"

/* Response codes */
enum {
	SNS_FIXED = 0x70,
	SNS_FIXED_DEFERRED = 0x71,
	SNS_DESC = 0x72,
	SNS_DESC_DEFERRED = 0x73,
	SNS_RC_MASK = 0x7F,
	SNS_VALID = 0x80,          /* fixed byte 0, information descriptor byte 2 */
	SNS_KEY_MASK = 0x0F,
};

/* Fixed format, 18 bytes */
enum {
	SNF_KEY = 2,
	SNF_INFO = 3,              /* 4 bytes */
	SNF_ADD_LEN = 7,
	SNF_CSI = 8,               /* 4 bytes */
	SNF_ASC = 12,
	SNF_ASCQ = 13,
	SNF_SKS = 15,              /* 3 bytes */
	SNF_LEN = 18,
};

/* Descriptor format header (8 bytes) and descriptors */
enum {
	SND_KEY = 1,
	SND_ASC = 2,
	SND_ASCQ = 3,
	SND_ADD_LEN = 7,
	SND_HDR = 8,
	SND_T_INFO = 0x00,         /* 12 bytes: VALID at 2, INFORMATION at 4 (8 bytes) */
	SND_T_CSI = 0x01,          /* 12 bytes: CSI at 4 (8 bytes) */
	SND_T_SKS = 0x02,          /* 8 bytes: SKS at 4 (3 bytes) */
	SND_T_FWD = 0x0C,          /* 4 + n: FSDT/SOURCE at 2, STATUS at 3, sense at 4 */
	SND_INFO_LEN = 12,
	SND_CSI_LEN = 12,
	SND_SKS_LEN = 8,
	SND_FWD_HDR = 4,
	SND_D_VAL = 4,             /* value offset in 00h, 01h, 02h */
	SND_FWD_FLAGS = 2,
	SND_FWD_STATUS = 3,
	SND_FWD_FSDT = 0x80,
	SND_FWD_SRC_MASK = 0x0F,
};

/* SENSE KEY SPECIFIC byte 0 (field pointer and segment pointer forms) */
enum {
	SKS_SKSV = 0x80,
	SKS_CD = 0x40,             /* field pointer: field in the CDB */
	SKS_SD = 0x20,             /* segment pointer: relative to the segment in CSI */
	SKS_BPV = 0x08,
	SKS_BIT_MASK = 0x07,
	SKS_LEN = 3,
};

/* Largest sense built before truncation: header + 00h + 01h + 02h + 0Ch with 64 bytes. */
enum {
	SNS_BUILD_MAX = SND_HDR + SND_INFO_LEN + SND_CSI_LEN + SND_SKS_LEN +
			    SND_FWD_HDR + XCM_FWD_SENSE_MAX,
};

/*
 * The 3 SENSE KEY SPECIFIC bytes for err, or false when there are none:
 * field pointer form for ILLEGAL REQUEST, segment pointer form for COPY
 * ABORTED (segment pointer), nothing for other keys or a field past 0xFFFF.
 */
static bool
build_sks(const struct xcm_err *err, uint8_t key, uint8_t sks[SKS_LEN])
{
	uint8_t b0 = SKS_SKSV;

	if (!err->sks_valid || err->field > UINT16_MAX) {
		return false;
	}
	if (key == XCM_SK_ILLEGAL_REQUEST) {
		if (err->in_cdb) {
			b0 |= SKS_CD;
		}
	} else if (key == XCM_SK_COPY_ABORTED) {
		if (err->sd) {
			b0 |= SKS_SD;
		}
	} else {
		return false;
	}
	if (err->bit_valid) {
		b0 |= SKS_BPV | (err->bit & SKS_BIT_MASK);
	}
	sks[0] = b0;
	xcm_put_be16(sks + 1, (uint16_t)err->field);
	return true;
}

/* The 18 bytes of a current fixed-format sense with only key and ASC/ASCQ set. */
static void
put_fixed(uint8_t key, uint16_t asc_ascq, uint8_t *b)
{
	memset(b, 0, SNF_LEN);
	b[0] = SNS_FIXED;
	b[SNF_KEY] = key & SNS_KEY_MASK;
	b[SNF_ADD_LEN] = SNF_LEN - (SNF_ADD_LEN + 1);
	b[SNF_ASC] = (uint8_t)(asc_ascq >> 8);
	b[SNF_ASCQ] = (uint8_t)asc_ascq;
}

size_t
xcm_sense_build_plain(uint8_t key, uint16_t asc_ascq, uint8_t *buf, size_t cap)
{
	uint8_t b[SNF_LEN];
	size_t n = cap < SNF_LEN ? cap : SNF_LEN;

	put_fixed(key, asc_ascq, b);
	if (n > 0) {
		memcpy(buf, b, n);
	}
	return n;
}

/* Fixed format 70h, always 18 bytes (ADDITIONAL SENSE LENGTH 10). */
static size_t
build_fixed(const struct xcm_err *err, const struct xcm_status_info *si, uint8_t *b)
{
	put_fixed(si->key, si->asc_ascq, b);
	/* INFORMATION is 4 bytes here; a larger value leaves VALID clear */
	if (err->info_valid && err->info <= UINT32_MAX) {
		b[0] |= SNS_VALID;
		xcm_put_be32(b + SNF_INFO, (uint32_t)err->info);
	}
	/* COPY ABORTED: CSI holds the segment number as a 4-byte value (bytes 2-3 when < 64Ki) */
	if (err->csi_valid) {
		xcm_put_be32(b + SNF_CSI, err->csi);
	}
	(void)build_sks(err, si->key, b + SNF_SKS);
	return SNF_LEN;
}

/*
 * Descriptor format 72h. The forwarded sense goes last and is cut so that the
 * whole sense fits cap, with FSDT set when anything was cut.
 */
static size_t
build_desc(const struct xcm_err *err, const struct xcm_status_info *si, size_t cap, uint8_t *b)
{
	uint8_t sks[SKS_LEN];
	size_t n = SND_HDR;

	memset(b, 0, SNS_BUILD_MAX);
	b[0] = SNS_DESC;
	b[SND_KEY] = si->key & SNS_KEY_MASK;
	b[SND_ASC] = (uint8_t)(si->asc_ascq >> 8);
	b[SND_ASCQ] = (uint8_t)si->asc_ascq;
	if (err->info_valid) {
		b[n] = SND_T_INFO;
		b[n + 1] = SND_INFO_LEN - 2;
		b[n + 2] = SNS_VALID;
		xcm_put_be64(b + n + SND_D_VAL, err->info);
		n += SND_INFO_LEN;
	}
	if (err->csi_valid) {
		b[n] = SND_T_CSI;
		b[n + 1] = SND_CSI_LEN - 2;
		xcm_put_be64(b + n + SND_D_VAL, err->csi);
		n += SND_CSI_LEN;
	}
	if (build_sks(err, si->key, sks)) {
		b[n] = SND_T_SKS;
		b[n + 1] = SND_SKS_LEN - 2;
		memcpy(b + n + SND_D_VAL, sks, sizeof(sks));
		n += SND_SKS_LEN;
	}
	if (err->fwd_valid) {
		size_t fl = err->fwd_len;
		bool fsdt = false;

		/* only XCM_FWD_SENSE_MAX bytes are kept in struct xcm_err */
		if (fl > XCM_FWD_SENSE_MAX) {
			fl = XCM_FWD_SENSE_MAX;
			fsdt = true;
		}
		/* forwarded sense descriptor: cut the forwarded sense to fit, and say so (FSDT) */
		if (n + SND_FWD_HDR + fl > cap) {
			size_t room = cap > n + SND_FWD_HDR ? cap - n - SND_FWD_HDR : 0;
			if (room < fl) {
				fl = room;
				fsdt = true;
			}
		}
		b[n] = SND_T_FWD;
		b[n + 1] = (uint8_t)(SND_FWD_HDR - 2 + fl);
		b[n + SND_FWD_FLAGS] = (uint8_t)((fsdt ? SND_FWD_FSDT : 0) |
						     (err->fwd_source & SND_FWD_SRC_MASK));
		b[n + SND_FWD_STATUS] = err->fwd_status;
		memcpy(b + n + SND_FWD_HDR, err->fwd_sense, fl);
		n += SND_FWD_HDR + fl;
	}
	b[SND_ADD_LEN] = (uint8_t)(n - SND_HDR);
	return n;
}

size_t
xcm_sense_build(const struct xcm_err *err, bool desc, uint8_t *buf, size_t cap)
{
	const struct xcm_status_info *si = xcm_status_info(err->status);
	uint8_t b[SNS_BUILD_MAX];
	size_t n;

	/*
	 * Built whole, then cut at cap like any allocation length: ADDITIONAL
	 * SENSE LENGTH keeps the untruncated value (SPC-4 4.5.1).
	 */
	if (desc) {
		n = build_desc(err, si, cap, b);
	} else {
		n = build_fixed(err, si, b);
	}
	if (n > cap) {
		n = cap;
	}
	if (n > 0) {
		memcpy(buf, b, n);
	}
	return n;
}

/* Fixed format: fields beyond what the buffer and ADDITIONAL SENSE LENGTH hold are not valid. */
static int
parse_fixed(struct xcm_span s, struct xcm_sense *out)
{
	size_t len;

	/* bytes 0-7 hold the key, INFORMATION and ADDITIONAL SENSE LENGTH */
	if (s.len < SNF_ADD_LEN + 1) {
		return -EINVAL;
	}
	len = (size_t)SNF_ADD_LEN + 1 + s.p[SNF_ADD_LEN];
	if (len > s.len) {
		len = s.len;
	}
	out->key = s.p[SNF_KEY] & SNS_KEY_MASK;
	out->info_valid = (s.p[0] & SNS_VALID) != 0;
	out->info = xcm_get_be32(s.p + SNF_INFO);
	if (len >= SNF_CSI + 4) {
		out->csi_valid = true;
		out->csi = xcm_get_be32(s.p + SNF_CSI);
	}
	if (len > SNF_ASC) {
		out->asc_ascq = (uint16_t)(s.p[SNF_ASC] << 8);
	}
	if (len > SNF_ASCQ) {
		out->asc_ascq |= s.p[SNF_ASCQ];
	}
	if (len >= SNF_SKS + SKS_LEN) {
		memcpy(out->sks, s.p + SNF_SKS, SKS_LEN);
		out->sks_valid = (out->sks[0] & SKS_SKSV) != 0;
	}
	return 0;
}

/* One descriptor of a 72h/73h sense, d carved to its full 2 + length bytes. */
static void
parse_descriptor(struct xcm_span d, struct xcm_sense *out)
{
	switch (d.p[0]) {
	case SND_T_INFO:
		if (d.len >= SND_INFO_LEN) {
			out->info_valid = (d.p[2] & SNS_VALID) != 0;
			out->info = xcm_get_be64(d.p + SND_D_VAL);
		}
		break;
	case SND_T_CSI:
		if (d.len >= SND_CSI_LEN) {
			out->csi_valid = true;
			out->csi = xcm_get_be64(d.p + SND_D_VAL);
		}
		break;
	case SND_T_SKS:
		if (d.len >= SND_SKS_LEN) {
			memcpy(out->sks, d.p + SND_D_VAL, SKS_LEN);
			out->sks_valid = (out->sks[0] & SKS_SKSV) != 0;
		}
		break;
	case SND_T_FWD:
		/* the first forwarded sense descriptor is kept */
		if (d.len >= SND_FWD_HDR && !out->fwd_valid) {
			out->fwd_valid = true;
			out->fwd_truncated = (d.p[SND_FWD_FLAGS] & SND_FWD_FSDT) != 0;
			out->fwd_source = d.p[SND_FWD_FLAGS] & SND_FWD_SRC_MASK;
			out->fwd_status = d.p[SND_FWD_STATUS];
			out->fwd_len = (uint8_t)(d.len - SND_FWD_HDR);
			out->fwd_sense = d.p + SND_FWD_HDR;
		}
		break;
	default:
		/* other descriptor types are skipped */
		break;
	}
}

static int
parse_desc(struct xcm_span s, struct xcm_sense *out)
{
	struct xcm_span body, dh, d;
	size_t len, off = 0;

	if (s.len < SND_HDR) {
		return -EINVAL;
	}
	out->key = s.p[SND_KEY] & SNS_KEY_MASK;
	out->asc_ascq = (uint16_t)((s.p[SND_ASC] << 8) | s.p[SND_ASCQ]);
	/* descriptors: bounded by ADDITIONAL SENSE LENGTH and by the buffer */
	len = s.p[SND_ADD_LEN];
	if (len > s.len - SND_HDR) {
		len = s.len - SND_HDR;
	}
	body = xcm_span_make(s.p + SND_HDR, len);
	while (off < body.len) {
		/* a descriptor cut by the buffer ends the walk; what came before stands */
		if (!xcm_span_sub(body, off, 2, &dh) ||
		    !xcm_span_sub(body, off, 2 + (size_t)dh.p[1], &d)) {
			break;
		}
		parse_descriptor(d, out);
		off += d.len;
	}
	return 0;
}

int
xcm_sense_parse(struct xcm_span s, struct xcm_sense *out)
{
	uint8_t rc;

	memset(out, 0, sizeof(*out));
	if (s.p == NULL || s.len < 1) {
		return -EINVAL;
	}
	rc = s.p[0] & SNS_RC_MASK;
	switch (rc) {
	case SNS_FIXED:
	case SNS_FIXED_DEFERRED:
		if (parse_fixed(s, out) != 0) {
			return -EINVAL;
		}
		out->deferred = rc == SNS_FIXED_DEFERRED;
		return 0;
	case SNS_DESC:
	case SNS_DESC_DEFERRED:
		if (parse_desc(s, out) != 0) {
			return -EINVAL;
		}
		out->desc = true;
		out->deferred = rc == SNS_DESC_DEFERRED;
		return 0;
	default:
		return -EINVAL;
	}
}

bool
xcm_sense_sks_ptr(const struct xcm_sense *s, struct xcm_sks_ptr *out)
{
	memset(out, 0, sizeof(*out));
	if (!s->sks_valid || (s->sks[0] & SKS_SKSV) == 0 ||
	    (s->key != XCM_SK_ILLEGAL_REQUEST && s->key != XCM_SK_COPY_ABORTED)) {
		return false;
	}
	out->in_cdb = s->key == XCM_SK_ILLEGAL_REQUEST && (s->sks[0] & SKS_CD) != 0;
	out->sd = s->key == XCM_SK_COPY_ABORTED && (s->sks[0] & SKS_SD) != 0;
	out->bit_valid = (s->sks[0] & SKS_BPV) != 0;
	out->bit = s->sks[0] & SKS_BIT_MASK;
	out->field = xcm_get_be16(s->sks + 1);
	return true;
}
