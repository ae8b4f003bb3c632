/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sense builder and parser (engine/sense.c). Every built sense is decoded
 * twice: by libsgutils2 from sg3_utils (an independent decoder) and by the
 * engine's own xcm_sense_parse(), and both must agree with what was asked.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <scsi/sg_lib.h>

#include "ut.h"

#define CANARY 0xA5

static const uint8_t g_fwd[] = {
	/* a fixed-format MEDIUM ERROR 11/00 as a backend would return it */
	0xF0, 0x00, 0x03, 0x00, 0x00, 0x10, 0x00, 0x0A, 0x00, 0x00,
	0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* What the spec says the sense for e must say (computed here, not by the builder). */
struct expect {
	uint8_t key, asc, ascq;
	bool sks;
	uint8_t sks0;
	bool info_valid;
	bool csi_present;
	uint64_t csi;
};

static struct expect
expect_for(const struct xcm_err *e, bool desc)
{
	const struct xcm_status_info *si = xcm_status_info(e->status);
	struct expect x;

	memset(&x, 0, sizeof(x));
	x.key = si->key;
	x.asc = (uint8_t)(si->asc_ascq >> 8);
	x.ascq = (uint8_t)si->asc_ascq;
	x.sks = e->sks_valid && e->field <= 0xFFFF &&
		(si->key == XCM_SK_ILLEGAL_REQUEST || si->key == XCM_SK_COPY_ABORTED);
	if (x.sks) {
		x.sks0 = 0x80;
		if (si->key == XCM_SK_ILLEGAL_REQUEST && e->in_cdb) {
			x.sks0 |= 0x40;
		}
		if (si->key == XCM_SK_COPY_ABORTED && e->sd) {
			x.sks0 |= 0x20;
		}
		if (e->bit_valid) {
			x.sks0 |= 0x08 | (e->bit & 7);
		}
	}
	x.info_valid = e->info_valid && (desc || e->info <= UINT32_MAX);
	/* fixed format always has the 4-byte CSI field; descriptor format only 01h */
	x.csi_present = desc ? e->csi_valid : true;
	x.csi = e->csi_valid ? (desc ? e->csi : (uint32_t)e->csi) : 0;
	return x;
}

/* The sg3_utils text for the SKS, e.g. "Error in Command: byte 1 bit 4". */
static void
sks_text(const struct expect *x, uint16_t field, char *b, size_t n)
{
	int k;

	if (x->key == XCM_SK_ILLEGAL_REQUEST) {
		k = snprintf(b, n, "Error in %s: byte %u",
			     (x->sks0 & 0x40) ? "Command" : "Data parameters", field);
	} else {
		k = snprintf(b, n, "Relative to start of %s, byte %u",
			     (x->sks0 & 0x20) ? "segment descriptor" : "parameter list", field);
	}
	if (x->sks0 & 0x08) {
		snprintf(b + k, n - (size_t)k, " bit %u", x->sks0 & 7u);
	}
}

/* Build e in one format and check every field with libsgutils2 and xcm_sense_parse. */
static void
check_round_trip(const struct xcm_err *e, bool desc)
{
	struct expect x = expect_for(e, desc);
	uint8_t b[XCM_SENSE_MAX];
	struct sg_scsi_sense_hdr h;
	struct xcm_sense ps;
	char str[4096], asc[128], sks[128];
	uint64_t v = 0;
	bool fm, eom, ili;
	int progress;
	size_t n;
	int sl;

	n = xcm_sense_build(e, desc, b, sizeof(b));
	UT_ASSERT_FATAL(n >= 8 && n <= sizeof(b));
	sl = (int)n;

	/* libsgutils2 */
	CU_ASSERT_EQUAL(sg_get_sense_key(b, sl), x.key);
	memset(&h, 0, sizeof(h));
	CU_ASSERT_TRUE(sg_scsi_normalize_sense(b, sl, &h));
	CU_ASSERT_EQUAL(h.response_code, desc ? 0x72 : 0x70);
	CU_ASSERT_EQUAL(h.sense_key, x.key);
	CU_ASSERT_EQUAL(h.asc, x.asc);
	CU_ASSERT_EQUAL(h.ascq, x.ascq);
	CU_ASSERT_EQUAL(sg_get_sense_info_fld(b, sl, &v), x.info_valid);
	if (x.info_valid) {
		CU_ASSERT_EQUAL(v, e->info);
	}
	v = ~0ULL;
	CU_ASSERT_EQUAL(sg_get_sense_cmd_spec_fld(b, sl, &v), x.csi_present);
	if (x.csi_present) {
		CU_ASSERT_EQUAL(v, x.csi);
	}
	/* no progress indication, and no stream bits, for these keys */
	CU_ASSERT_FALSE(sg_get_sense_progress_fld(b, sl, &progress));
	CU_ASSERT_FALSE(sg_get_sense_filemark_eom_ili(b, sl, &fm, &eom, &ili));
	sg_get_sense_str(NULL, b, sl, false, (int)sizeof(str), str);
	sg_get_asc_ascq_str(x.asc, x.ascq, (int)sizeof(asc), asc);
	CU_ASSERT_PTR_NOT_NULL(strstr(str, asc));
	if (x.sks) {
		sks_text(&x, (uint16_t)e->field, sks, sizeof(sks));
		CU_ASSERT_PTR_NOT_NULL(strstr(str, sks));
	}
	if (desc) {
		const uint8_t *d;

		/* sg3_utils walks our descriptors and names each one */
		CU_ASSERT(sg_get_sense_descriptors_str(NULL, b, sl, (int)sizeof(str), str) > 0 ||
			  n == 8);
		if (n > 8) {
			CU_ASSERT_EQUAL(strstr(str, "Information") != NULL, e->info_valid);
			CU_ASSERT_EQUAL(strstr(str, "Command specific") != NULL, e->csi_valid);
			CU_ASSERT_EQUAL(strstr(str, "Sense key specific") != NULL, x.sks);
			CU_ASSERT_EQUAL(strstr(str, "Forwarded sense data") != NULL, e->fwd_valid);
			CU_ASSERT_PTR_NULL(strstr(str, ">> descriptor too short"));
		}
		d = sg_scsi_sense_desc_find(b, sl, 0x01);

		CU_ASSERT_EQUAL(d != NULL, e->csi_valid);
		if (d != NULL) {
			CU_ASSERT_EQUAL(d[1], 0x0A);
			CU_ASSERT_EQUAL(xcm_get_be64(d + 4), e->csi);
		}
		d = sg_scsi_sense_desc_find(b, sl, 0x02);
		CU_ASSERT_EQUAL(d != NULL, x.sks);
		if (d != NULL) {
			CU_ASSERT_EQUAL(d[1], 0x06);
			CU_ASSERT_EQUAL(d[4], x.sks0);
			CU_ASSERT_EQUAL(xcm_get_be16(d + 5), e->field);
		}
		d = sg_scsi_sense_desc_find(b, sl, 0x0C);
		CU_ASSERT_EQUAL(d != NULL, e->fwd_valid);
		if (d != NULL) {
			CU_ASSERT_EQUAL(d[1], 2 + e->fwd_len);
			CU_ASSERT_EQUAL(d[2], e->fwd_source & 0x0F); /* FSDT clear: it all fit */
			CU_ASSERT_EQUAL(d[3], e->fwd_status);
			CU_ASSERT_EQUAL(memcmp(d + 4, e->fwd_sense, e->fwd_len), 0);
		}
		CU_ASSERT_EQUAL((size_t)b[7] + 8, n);
	} else {
		CU_ASSERT_EQUAL(n, 18);
		CU_ASSERT_EQUAL(b[7], 10);
		CU_ASSERT_PTR_NULL(sg_scsi_sense_desc_find(b, sl, 0x0C));
		if (x.sks) {
			CU_ASSERT_EQUAL(b[15], x.sks0);
			CU_ASSERT_EQUAL(xcm_get_be16(b + 16), e->field);
		} else {
			CU_ASSERT_EQUAL(b[15] & 0x80, 0);
		}
	}

	/* the engine's own parser agrees on every field */
	UT_ASSERT_FATAL(xcm_sense_parse(xcm_span_make(b, n), &ps) == 0);
	CU_ASSERT_EQUAL(ps.desc, desc);
	CU_ASSERT_FALSE(ps.deferred);
	CU_ASSERT_EQUAL(ps.key, x.key);
	CU_ASSERT_EQUAL(ps.asc_ascq, (x.asc << 8) | x.ascq);
	CU_ASSERT_EQUAL(ps.info_valid, x.info_valid);
	if (x.info_valid) {
		CU_ASSERT_EQUAL(ps.info, e->info);
	}
	CU_ASSERT_EQUAL(ps.csi_valid, x.csi_present);
	CU_ASSERT_EQUAL(ps.csi, x.csi);
	CU_ASSERT_EQUAL(ps.sks_valid, x.sks);
	if (x.sks) {
		CU_ASSERT_EQUAL(ps.sks[0], x.sks0);
		CU_ASSERT_EQUAL(xcm_get_be16(ps.sks + 1), e->field);
	}
	CU_ASSERT_EQUAL(ps.fwd_valid, desc && e->fwd_valid);
	if (ps.fwd_valid) {
		CU_ASSERT_FALSE(ps.fwd_truncated);
		CU_ASSERT_EQUAL(ps.fwd_source, e->fwd_source & 0x0F);
		CU_ASSERT_EQUAL(ps.fwd_status, e->fwd_status);
		CU_ASSERT_EQUAL(ps.fwd_len, e->fwd_len);
		CU_ASSERT_EQUAL(memcmp(ps.fwd_sense, e->fwd_sense, ps.fwd_len), 0);
	}
}

/* The shapes every status is tried in. */
enum shape {
	SHAPE_PLAIN,
	SHAPE_SKS_BIT,      /* SKS with bit pointer, C/D or SD set, CSI, INFORMATION */
	SHAPE_SKS_NOBIT,    /* SKS without bit pointer, C/D and SD clear, 64-bit INFORMATION */
	SHAPE_FWD,          /* everything plus forwarded sense */
	SHAPE_COUNT
};

static void
make_err(struct xcm_err *e, enum xcm_status st, enum shape sh)
{
	xcm_err_set(e, st);
	if (sh == SHAPE_PLAIN) {
		return;
	}
	e->sks_valid = true;
	e->field = 0x100u * (unsigned)st + 3u;
	e->csi_valid = true;
	/* segment number in CSI bytes 2-3, with bits above 16 set too */
	e->csi = 0x10000u + (unsigned)st;
	e->info_valid = true;
	if (sh == SHAPE_SKS_NOBIT) {
		e->info = 0x123456789AULL;  /* does not fit fixed format */
		return;
	}
	e->in_cdb = true;
	e->sd = true;
	e->bit_valid = true;
	e->bit = (uint8_t)(st % 8);
	e->info = 0xDEADBEEFu;
	if (sh == SHAPE_FWD) {
		e->fwd_valid = true;
		e->fwd_status = XCM_SAM_CHECK_CONDITION;
		e->fwd_source = 2;
		e->fwd_len = sizeof(g_fwd);
		memcpy(e->fwd_sense, g_fwd, sizeof(g_fwd));
	}
}

static void
all_statuses(bool desc)
{
	struct xcm_err e;
	int st, sh;

	for (st = XCM_OK + 1; st < XCM_STATUS_COUNT; st++) {
		for (sh = 0; sh < SHAPE_COUNT; sh++) {
			make_err(&e, (enum xcm_status)st, (enum shape)sh);
			check_round_trip(&e, desc);
		}
	}
}

static void
sense_sgutils_all_statuses_fixed(void)
{
	all_statuses(false);
}

static void
sense_sgutils_all_statuses_desc(void)
{
	all_statuses(true);
}

static void
sense_fixed_layout_field_pointer(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];
	const uint8_t exp[18] = {
		0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0x00, 0, 0xCC, 0x00, 0x01,
	};

	xcm_err_set_field(&e, XCM_E_INVALID_FIELD_CDB, true, 1, 4);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(memcmp(b, exp, sizeof(exp)), 0);

	/* parameter-list field, no bit pointer: C/D clear, BPV clear */
	xcm_err_set_field(&e, XCM_E_INVALID_FIELD_PARAM, false, 0x1234, -1);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[12], 0x26);
	CU_ASSERT_EQUAL(b[15], 0x80);
	CU_ASSERT_EQUAL(b[16], 0x12);
	CU_ASSERT_EQUAL(b[17], 0x34);
}

static void
sense_fixed_layout_segment_pointer(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];
	const uint8_t exp[18] = {
		0x70, 0, 0x0A, 0, 0, 0, 0, 10, 0x00, 0x00, 0x00, 0x07,
		0x0D, 0x02, 0, 0xA0, 0x00, 0x04,
	};

	/* segment 7, field at byte 4 of that segment descriptor */
	xcm_err_set_segment(&e, XCM_E_CA_NOT_REACHABLE, 7, 4);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(memcmp(b, exp, sizeof(exp)), 0);
}

static void
sense_fixed_info_and_csi(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];

	xcm_err_set(&e, XCM_E_CA_UNDERRUN);
	e.info_valid = true;
	e.info = 0x01020304;
	e.csi_valid = true;
	e.csi = 0xA1B2C3D4;
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[0], 0xF0);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 3), 0x01020304u);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 8), 0xA1B2C3D4u);
	CU_ASSERT_EQUAL(b[15], 0);

	/* INFORMATION above 32 bits cannot be reported in fixed format */
	e.info = 0x100000000ULL;
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[0], 0x70);
	CU_ASSERT_EQUAL(xcm_get_be32(b + 3), 0);
}

static void
sense_desc_layout(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];
	const uint8_t exp[] = {
		0x72, 0x0A, 0x0D, 0x01, 0, 0, 0, 12 + 12 + 8 + 4 + 3,
		/* 00h information */
		0x00, 0x0A, 0x80, 0x00, 0, 0, 0, 1, 0, 0, 0, 2,
		/* 01h command-specific: segment 5 */
		0x01, 0x0A, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 5,
		/* 02h SKS segment pointer, SD, field 0x0010 */
		0x02, 0x06, 0x00, 0x00, 0xA0, 0x00, 0x10, 0x00,
		/* 0Ch forwarded sense: source 1, status 02h, 3 bytes */
		0x0C, 0x05, 0x01, 0x02, 0x70, 0x00, 0x03,
	};

	xcm_err_set_segment(&e, XCM_E_CA_DEVICE_FAILURE, 5, 0x10);
	e.info_valid = true;
	e.info = 0x100000002ULL;
	e.fwd_valid = true;
	e.fwd_source = 1;
	e.fwd_status = XCM_SAM_CHECK_CONDITION;
	e.fwd_len = 3;
	e.fwd_sense[0] = 0x70;
	e.fwd_sense[2] = 0x03;
	CU_ASSERT_EQUAL(xcm_sense_build(&e, true, b, sizeof(b)), sizeof(exp));
	CU_ASSERT_EQUAL(memcmp(b, exp, sizeof(exp)), 0);
}

static void
sense_desc_minimal(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];
	const uint8_t exp[8] = { 0x72, 0x05, 0x1A, 0x00, 0, 0, 0, 0 };

	xcm_err_set(&e, XCM_E_PARAM_LIST_LEN);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, true, b, sizeof(b)), 8);
	CU_ASSERT_EQUAL(memcmp(b, exp, sizeof(exp)), 0);
}

static void
sense_fixed_leaves_out_forwarded(void)
{
	struct xcm_err e, plain;
	uint8_t a[XCM_SENSE_MAX], b[XCM_SENSE_MAX];

	make_err(&e, XCM_E_CA_DEVICE_FAILURE, SHAPE_FWD);
	plain = e;
	plain.fwd_valid = false;
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, a, sizeof(a)), 18);
	CU_ASSERT_EQUAL(xcm_sense_build(&plain, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(memcmp(a, b, 18), 0);
}

static void
sense_fwd_truncated_to_cap(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX + 1];
	const uint8_t *d;
	struct xcm_sense ps;
	size_t n, i;

	/* 8 + 12 + 12 + 8 + 4 + 64 = 108 bytes wanted, 96 available */
	make_err(&e, XCM_E_CA_DEVICE_FAILURE, SHAPE_FWD);
	e.fwd_len = XCM_FWD_SENSE_MAX;
	for (i = 0; i < XCM_FWD_SENSE_MAX; i++) {
		e.fwd_sense[i] = (uint8_t)(0x40 + i);
	}
	b[XCM_SENSE_MAX] = CANARY;
	n = xcm_sense_build(&e, true, b, XCM_SENSE_MAX);
	CU_ASSERT_EQUAL(n, XCM_SENSE_MAX);
	CU_ASSERT_EQUAL(b[XCM_SENSE_MAX], CANARY);
	CU_ASSERT_EQUAL(b[7], XCM_SENSE_MAX - 8);
	d = sg_scsi_sense_desc_find(b, (int)n, 0x0C);
	UT_ASSERT_FATAL(d != NULL);
	CU_ASSERT_EQUAL(d - b, 40);
	CU_ASSERT_EQUAL(d[1], 2 + 52);
	CU_ASSERT_EQUAL(d[2], 0x80 | 2);  /* FSDT */
	CU_ASSERT_EQUAL(memcmp(d + 4, e.fwd_sense, 52), 0);
	UT_ASSERT_FATAL(xcm_sense_parse(xcm_span_make(b, n), &ps) == 0);
	CU_ASSERT_TRUE(ps.fwd_valid);
	CU_ASSERT_TRUE(ps.fwd_truncated);
	CU_ASSERT_EQUAL(ps.fwd_len, 52);
	CU_ASSERT_PTR_EQUAL(ps.fwd_sense, d + 4);
	CU_ASSERT_TRUE(ps.sks_valid);
	CU_ASSERT_TRUE(ps.csi_valid);
}

static void
sense_fwd_len_over_max_clamped(void)
{
	struct xcm_err e;
	uint8_t b[200];
	const uint8_t *d;
	size_t n;

	xcm_err_set(&e, XCM_E_CA_DEVICE_FAILURE);
	e.fwd_valid = true;
	e.fwd_len = 200;       /* more than struct xcm_err can hold */
	e.fwd_source = 0x1F;   /* only bits 3:0 are SENSE DATA SOURCE */
	n = xcm_sense_build(&e, true, b, sizeof(b));
	CU_ASSERT_EQUAL(n, 8 + 4 + XCM_FWD_SENSE_MAX);
	d = sg_scsi_sense_desc_find(b, (int)n, 0x0C);
	UT_ASSERT_FATAL(d != NULL);
	CU_ASSERT_EQUAL(d[1], 2 + XCM_FWD_SENSE_MAX);
	CU_ASSERT_EQUAL(d[2], 0x80 | 0x0F);
}

static void
sense_sks_field_over_16_bits_omitted(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];
	struct xcm_sense ps;
	size_t n;

	xcm_err_set_field(&e, XCM_E_INVALID_FIELD_PARAM, false, 0x10000, 2);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[15], 0);
	CU_ASSERT_EQUAL(b[16], 0);
	CU_ASSERT_EQUAL(b[17], 0);
	n = xcm_sense_build(&e, true, b, sizeof(b));
	CU_ASSERT_EQUAL(n, 8);
	CU_ASSERT_PTR_NULL(sg_scsi_sense_desc_find(b, (int)n, 0x02));
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, n), &ps), 0);
	CU_ASSERT_FALSE(ps.sks_valid);

	/* 0xFFFF is still reportable */
	xcm_err_set_field(&e, XCM_E_INVALID_FIELD_PARAM, false, 0xFFFF, -1);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[15], 0x80);
	CU_ASSERT_EQUAL(xcm_get_be16(b + 16), 0xFFFF);
}

static void
sense_no_sks_for_other_keys(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];

	/* HARDWARE ERROR has no field/segment pointer form */
	xcm_err_set_field(&e, XCM_E_INTERNAL, true, 5, 1);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[2], XCM_SK_HARDWARE_ERROR);
	CU_ASSERT_EQUAL(b[12], 0x44);
	CU_ASSERT_EQUAL(b[15], 0);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, true, b, sizeof(b)), 8);
}

static void
sense_ok_status_is_no_sense(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];

	xcm_err_set(&e, XCM_OK);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[2], XCM_SK_NO_SENSE);
	CU_ASSERT_EQUAL(b[12], 0);
	CU_ASSERT_EQUAL(b[13], 0);
	/* an out-of-range status is an internal error, never an out-of-bounds read */
	xcm_err_set(&e, (enum xcm_status)1000);
	CU_ASSERT_EQUAL(xcm_sense_build(&e, false, b, sizeof(b)), 18);
	CU_ASSERT_EQUAL(b[2], XCM_SK_HARDWARE_ERROR);
}

static void
sense_small_caps_never_overflow(void)
{
	static const size_t caps[] = { 0, 1, 8, 17, 18, 19, 40 };
	struct xcm_err e;
	uint8_t full[XCM_SENSE_MAX], b[XCM_SENSE_MAX + 1];
	size_t i, n, fn;
	int sh, desc;

	for (desc = 0; desc < 2; desc++) {
		for (sh = 0; sh < SHAPE_COUNT; sh++) {
			make_err(&e, XCM_E_CA_DEVICE_FAILURE, (enum shape)sh);
			fn = xcm_sense_build(&e, desc != 0, full, sizeof(full));
			for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
				memset(b, CANARY, sizeof(b));
				n = xcm_sense_build(&e, desc != 0, b, caps[i]);
				CU_ASSERT_EQUAL(n, caps[i] < fn ? caps[i] : fn);
				CU_ASSERT_TRUE(n <= caps[i]);
				CU_ASSERT_EQUAL(b[caps[i]], CANARY);
				if (n > 0) {
					CU_ASSERT_EQUAL(b[0], full[0]);
				}
				/* without forwarded sense, a short sense is a prefix of the full */
				if (!e.fwd_valid || !desc) {
					CU_ASSERT_EQUAL(memcmp(b, full, n), 0);
				}
			}
		}
	}
	/* cap 0 with no buffer at all */
	CU_ASSERT_EQUAL(xcm_sense_build(&e, true, NULL, 0), 0);
}

static void
sense_desc_fwd_dropped_when_cap_tiny(void)
{
	struct xcm_err e;
	uint8_t b[48];
	struct xcm_sense ps;
	size_t n;

	/* 8 + 12 + 12 + 8 = 40: no room for the forwarded bytes, FSDT says so */
	make_err(&e, XCM_E_CA_DEVICE_FAILURE, SHAPE_FWD);
	memset(b, CANARY, sizeof(b));
	n = xcm_sense_build(&e, true, b, 40);
	CU_ASSERT_EQUAL(n, 40);
	CU_ASSERT_EQUAL(b[40], CANARY);
	CU_ASSERT_EQUAL(b[7], 40 + 4 - 8);
	UT_ASSERT_FATAL(xcm_sense_parse(xcm_span_make(b, n), &ps) == 0);
	/* the 0Ch descriptor is past the buffer: not reported */
	CU_ASSERT_FALSE(ps.fwd_valid);
	CU_ASSERT_TRUE(ps.sks_valid);

	/* 44: the 0Ch head fits with no forwarded bytes, FSDT set */
	memset(b, CANARY, sizeof(b));
	n = xcm_sense_build(&e, true, b, 44);
	CU_ASSERT_EQUAL(n, 44);
	CU_ASSERT_EQUAL(b[44], CANARY);
	UT_ASSERT_FATAL(xcm_sense_parse(xcm_span_make(b, n), &ps) == 0);
	CU_ASSERT_TRUE(ps.fwd_valid);
	CU_ASSERT_TRUE(ps.fwd_truncated);
	CU_ASSERT_EQUAL(ps.fwd_len, 0);
	CU_ASSERT_EQUAL(ps.fwd_status, XCM_SAM_CHECK_CONDITION);
	CU_ASSERT_EQUAL(ps.fwd_source, 2);
}

static void
sense_parse_rejects_non_sense(void)
{
	static const uint8_t rcs[] = { 0x00, 0x01, 0x6F, 0x74, 0x7F, 0xFF };
	uint8_t b[18];
	struct xcm_sense ps;
	size_t i;

	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(NULL, 0), &ps), -EINVAL);
	memset(b, 0, sizeof(b));
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, 0), &ps), -EINVAL);
	for (i = 0; i < sizeof(rcs); i++) {
		b[0] = rcs[i];
		b[7] = 10;
		CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, sizeof(b)), &ps), -EINVAL);
	}
}

static void
sense_parse_short_sweep(void)
{
	struct xcm_err e;
	uint8_t full[XCM_SENSE_MAX];
	struct xcm_sense ps;
	size_t n, len;
	int desc;

	for (desc = 0; desc < 2; desc++) {
		make_err(&e, XCM_E_INVALID_FIELD_CDB, SHAPE_SKS_BIT);
		n = xcm_sense_build(&e, desc != 0, full, sizeof(full));
		for (len = 0; len < 8; len++) {
			CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(full, len), &ps), -EINVAL);
		}
		for (len = 8; len <= n; len++) {
			uint8_t *copy = malloc(len);   /* exact size: ASan sees any overread */

			UT_ASSERT_FATAL(copy != NULL);
			memcpy(copy, full, len);
			CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(copy, len), &ps), 0);
			CU_ASSERT_EQUAL(ps.key, XCM_SK_ILLEGAL_REQUEST);
			if (!desc) {
				/* fixed: fields appear as the buffer grows */
				CU_ASSERT_EQUAL(ps.csi_valid, len >= 12);
				CU_ASSERT_EQUAL(ps.asc_ascq != 0, len >= 13);
				CU_ASSERT_EQUAL(ps.sks_valid, len >= 18);
			} else {
				/* descriptors appear only when whole: 8+12, +12, +8 */
				CU_ASSERT_EQUAL(ps.asc_ascq, 0x2400);
				CU_ASSERT_EQUAL(ps.info_valid, len >= 20);
				CU_ASSERT_EQUAL(ps.csi_valid, len >= 32);
				CU_ASSERT_EQUAL(ps.sks_valid, len >= 40);
			}
			free(copy);
		}
	}
}

static void
sense_parse_fixed_honours_additional_length(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];
	struct xcm_sense ps;

	make_err(&e, XCM_E_INVALID_FIELD_CDB, SHAPE_SKS_BIT);
	xcm_sense_build(&e, false, b, sizeof(b));
	b[7] = 0;   /* only the 8-byte header is declared */
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, 18), &ps), 0);
	CU_ASSERT_EQUAL(ps.key, XCM_SK_ILLEGAL_REQUEST);
	CU_ASSERT_TRUE(ps.info_valid);
	CU_ASSERT_FALSE(ps.csi_valid);
	CU_ASSERT_EQUAL(ps.asc_ascq, 0);
	CU_ASSERT_FALSE(ps.sks_valid);
	b[7] = 6;   /* up to ASCQ */
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, 18), &ps), 0);
	CU_ASSERT_EQUAL(ps.asc_ascq, 0x2400);
	CU_ASSERT_FALSE(ps.sks_valid);
	b[7] = 0xFF;   /* more declared than present: the buffer bounds it */
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, 18), &ps), 0);
	CU_ASSERT_TRUE(ps.sks_valid);
	CU_ASSERT_EQUAL(xcm_get_be16(ps.sks + 1), e.field);
}

static void
sense_parse_desc_bounds_and_unknown(void)
{
	uint8_t b[64];
	struct xcm_sense ps;

	memset(b, 0, sizeof(b));
	b[0] = 0x72;
	b[1] = 0x0A;
	b[2] = 0x26;
	b[3] = 0x0A;
	/* unknown descriptor 05h (8 bytes), then 01h CSI, then 02h beyond ADD LEN */
	b[8] = 0x05;
	b[9] = 0x06;
	b[16] = 0x01;
	b[17] = 0x0A;
	xcm_put_be64(b + 20, 42);
	b[28] = 0x02;
	b[29] = 0x06;
	b[32] = 0x80;
	b[7] = 20;
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, sizeof(b)), &ps), 0);
	CU_ASSERT_TRUE(ps.desc);
	CU_ASSERT_EQUAL(ps.key, XCM_SK_COPY_ABORTED);
	CU_ASSERT_EQUAL(ps.asc_ascq, 0x260A);
	CU_ASSERT_TRUE(ps.csi_valid);
	CU_ASSERT_EQUAL(ps.csi, 42);
	CU_ASSERT_FALSE(ps.sks_valid);
	b[7] = 28;
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, sizeof(b)), &ps), 0);
	CU_ASSERT_TRUE(ps.sks_valid);
	/* a descriptor whose length runs past ADDITIONAL SENSE LENGTH is not decoded */
	b[7] = 27;
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, sizeof(b)), &ps), 0);
	CU_ASSERT_FALSE(ps.sks_valid);
	CU_ASSERT_TRUE(ps.csi_valid);
	/* a known descriptor shorter than its layout is ignored */
	b[17] = 0x02;
	b[7] = 12;
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, sizeof(b)), &ps), 0);
	CU_ASSERT_FALSE(ps.csi_valid);
	/* a forwarded-sense descriptor shorter than its 4-byte head is ignored */
	b[16] = 0x0C;
	b[17] = 0x01;
	b[7] = 11;
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, sizeof(b)), &ps), 0);
	CU_ASSERT_FALSE(ps.fwd_valid);
}

static void
sense_parse_deferred(void)
{
	struct xcm_err e;
	uint8_t b[XCM_SENSE_MAX];
	struct xcm_sense ps;
	size_t n;

	xcm_err_set(&e, XCM_E_CA_OVERRUN);
	n = xcm_sense_build(&e, false, b, sizeof(b));
	b[0] = 0x71;
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, n), &ps), 0);
	CU_ASSERT_TRUE(ps.deferred);
	CU_ASSERT_FALSE(ps.desc);
	CU_ASSERT_EQUAL(ps.asc_ascq, 0x0D05);
	n = xcm_sense_build(&e, true, b, sizeof(b));
	b[0] = 0x73;
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(b, n), &ps), 0);
	CU_ASSERT_TRUE(ps.deferred);
	CU_ASSERT_TRUE(ps.desc);
	CU_ASSERT_EQUAL(ps.key, XCM_SK_COPY_ABORTED);
}

static void
sense_failed_segment_carries_sense(void)
{
	struct xcm_err e;
	uint8_t s[XCM_SENSE_MAX], r[256];
	struct xcm_wbuf w = xcm_wbuf_make(r, sizeof(r));
	struct xcm_sense ps;
	size_t n;

	/* RECEIVE COPY FAILURE DETAILS returns the sense the XCOPY got; it decodes back */
	make_err(&e, XCM_E_CA_DEVICE_FAILURE, SHAPE_FWD);
	n = xcm_sense_build(&e, true, s, sizeof(s));
	xcm_rcr_encode_failed_segment(XCM_SAM_CHECK_CONDITION, s, n, &w);
	CU_ASSERT_EQUAL(w.len, 60 + n);
	CU_ASSERT_EQUAL(xcm_get_be16(r + 58), n);
	CU_ASSERT_EQUAL(xcm_sense_parse(xcm_span_make(r + 60, xcm_get_be16(r + 58)), &ps), 0);
	CU_ASSERT_EQUAL(ps.asc_ascq, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE);
	CU_ASSERT_TRUE(ps.fwd_valid);
	CU_ASSERT_EQUAL(sg_get_sense_key(r + 60, (int)n), XCM_SK_COPY_ABORTED);
}

static void
sense_plain_fixed_bytes(void)
{
	static const uint8_t want[18] = { 0x70, 0, 0x03, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x11, 0x00 };
	uint8_t b[32];
	size_t n;

	/* MEDIUM ERROR, UNRECOVERED READ ERROR: every other byte zero */
	memset(b, 0xEE, sizeof(b));
	n = xcm_sense_build_plain(XCM_SK_MEDIUM_ERROR, XCM_ASC_UNRECOVERED_READ_ERROR, b, sizeof(b));
	CU_ASSERT_EQUAL(n, 18);
	CU_ASSERT_EQUAL(memcmp(b, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(b[18], 0xEE);
	CU_ASSERT_EQUAL(sg_get_sense_key(b, (int)n), XCM_SK_MEDIUM_ERROR);
	/* cut at cap like an allocation length, nothing written past it */
	memset(b, 0xEE, sizeof(b));
	CU_ASSERT_EQUAL(xcm_sense_build_plain(XCM_SK_DATA_PROTECT, XCM_ASC_NO_SPACE, b, 8), 8);
	CU_ASSERT_EQUAL(b[2], XCM_SK_DATA_PROTECT);
	CU_ASSERT_EQUAL(b[8], 0xEE);
	CU_ASSERT_EQUAL(xcm_sense_build_plain(XCM_SK_MEDIUM_ERROR, 0, b, 0), 0);
}

static void
sense_sks_ptr_both_forms(void)
{
	struct xcm_sks_ptr f;
	struct xcm_sense ps;
	struct xcm_err e;
	uint8_t b[64];
	size_t n;
	int desc;

	for (desc = 0; desc <= 1; desc++) {
		memset(&e, 0, sizeof(e));
		xcm_err_set_field(&e, XCM_E_INVALID_FIELD_CDB, true, 2, 5);
		n = xcm_sense_build(&e, desc, b, sizeof(b));
		CU_ASSERT_EQUAL_FATAL(xcm_sense_parse(xcm_span_make(b, n), &ps), 0);
		CU_ASSERT_TRUE_FATAL(xcm_sense_sks_ptr(&ps, &f));
		CU_ASSERT_TRUE(f.in_cdb && !f.sd && f.bit_valid);
		CU_ASSERT_EQUAL(f.bit, 5);
		CU_ASSERT_EQUAL(f.field, 2);
		memset(&e, 0, sizeof(e));
		xcm_err_set_segment(&e, XCM_E_CA_UNREACHABLE, 3, 6);
		n = xcm_sense_build(&e, desc, b, sizeof(b));
		CU_ASSERT_EQUAL_FATAL(xcm_sense_parse(xcm_span_make(b, n), &ps), 0);
		CU_ASSERT_TRUE_FATAL(xcm_sense_sks_ptr(&ps, &f));
		CU_ASSERT_TRUE(f.sd && !f.in_cdb && !f.bit_valid);
		CU_ASSERT_EQUAL(f.field, 6);
		/* no SKS for other keys */
		memset(&e, 0, sizeof(e));
		xcm_err_set(&e, XCM_E_INTERNAL);
		n = xcm_sense_build(&e, desc, b, sizeof(b));
		CU_ASSERT_EQUAL_FATAL(xcm_sense_parse(xcm_span_make(b, n), &ps), 0);
		CU_ASSERT_FALSE(xcm_sense_sks_ptr(&ps, &f));
	}
}

static CU_TestInfo g_tests[] = {
	{ "sgutils_all_statuses_fixed", sense_sgutils_all_statuses_fixed },
	{ "sgutils_all_statuses_desc", sense_sgutils_all_statuses_desc },
	{ "fixed_layout_field_pointer", sense_fixed_layout_field_pointer },
	{ "fixed_layout_segment_pointer", sense_fixed_layout_segment_pointer },
	{ "fixed_info_and_csi", sense_fixed_info_and_csi },
	{ "desc_layout", sense_desc_layout },
	{ "desc_minimal", sense_desc_minimal },
	{ "fixed_leaves_out_forwarded", sense_fixed_leaves_out_forwarded },
	{ "fwd_truncated_to_cap", sense_fwd_truncated_to_cap },
	{ "fwd_len_over_max_clamped", sense_fwd_len_over_max_clamped },
	{ "sks_field_over_16_bits_omitted", sense_sks_field_over_16_bits_omitted },
	{ "no_sks_for_other_keys", sense_no_sks_for_other_keys },
	{ "ok_status_is_no_sense", sense_ok_status_is_no_sense },
	{ "small_caps_never_overflow", sense_small_caps_never_overflow },
	{ "desc_fwd_dropped_when_cap_tiny", sense_desc_fwd_dropped_when_cap_tiny },
	{ "parse_rejects_non_sense", sense_parse_rejects_non_sense },
	{ "parse_short_sweep", sense_parse_short_sweep },
	{ "parse_fixed_honours_additional_length", sense_parse_fixed_honours_additional_length },
	{ "parse_desc_bounds_and_unknown", sense_parse_desc_bounds_and_unknown },
	{ "parse_deferred", sense_parse_deferred },
	{ "failed_segment_carries_sense", sense_failed_segment_carries_sense },
	{ "plain_fixed_bytes", sense_plain_fixed_bytes },
	{ "sks_ptr_both_forms", sense_sks_ptr_both_forms },
	CU_TEST_INFO_NULL,
};
UT_SUITE(sense, g_tests)
