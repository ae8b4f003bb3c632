/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The iSCSI IPv6 CSCD descriptor (EAh, 64 bytes) in EXTENDED COPY lists
 * (engine/cscd_ip.c through xcm_list_parse / xcm_list_encode), and the SAM
 * LUN helpers. Layout: docs/cscd-descriptors.md. The list below is written
 * out byte for byte from that table, not by the encoder: the decoder is
 * checked against the layout, then the encoder against the same bytes.
 * Hostile inputs: truncated descriptors, a bad extension byte, lengths not
 * a whole descriptor, IDs naming the extension, slot capacity; the sense
 * bytes compared where the answer is COPY ABORTED.
 */
#include <errno.h>
#include <string.h>

#include "ut.h"
#include "xcm/lid4.h"

/* LID1: E4h at 16 (ID 0), EAh at 48 (IDs 1 and 2), one 02h segment at 112: ID 0 -> ID 1 */
static const uint8_t g_vec[] = {
	/* header: list 1, LIST ID USAGE 10b, CSCD list 96 bytes, segments 28, inline 0 */
	0x01, 0x10, 0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00,
	/* 16: E4h, block, NAA 6 binary, LU association, 16 bytes, 512-byte blocks */
	0xe4, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x10,
	0x60, 0x01, 0x40, 0x5f, 0xee, 0xd0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x09, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
	/* 48: EAh, block, relative port 0, LU IDENTIFIER LUN 5 (peripheral), 2001:db8::7 */
	0xea, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x07,
	/* 76: device type specific: PAD 0, DISK BLOCK LENGTH 512 */
	0x00, 0x00, 0x02, 0x00,
	/* 80: extension FFh, reserved, PORT 3260, INTERNET PROTOCOL NUMBER 6 (TCP), reserved */
	0xff, 0x00, 0x00, 0x00, 0x0c, 0xbc, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00,
	/* 112: 02h, DESCRIPTOR LENGTH 24, source ID 0, destination ID 1, 8 blocks, LBA 10h -> 20h */
	0x02, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x08,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x20,
};

enum {
	V_EA = 48,          /* the EAh in g_vec */
	V_SEG = 112,        /* the segment */
	V_LEN = sizeof(g_vec),
};
_Static_assert(sizeof(g_vec) == 140, "16 + 32 + 64 + 28");

#define BUF_MAX (XCM_PLIST_HDR_LEN + (XCM_MAX_CSCD + 2) * XCM_CSCD_LEN + 64)

static uint8_t g_buf[BUF_MAX];
static struct xcm_list g_in;
static struct xcm_list g_out;
static struct xcm_err g_err;

/* Parse the first len bytes of g_buf from an exact-size heap copy (ASan sees overreads). */
static enum xcm_status
parse_lim(size_t len, const struct xcm_limits *lim)
{
	uint8_t *p = malloc(len > 0 ? len : 1);
	enum xcm_status st;

	UT_ASSERT_FATAL(p != NULL);
	memcpy(p, g_buf, len);
	memset(&g_err, 0xA5, sizeof(g_err));
	st = xcm_list_parse((uint32_t)len, xcm_span_make(p, len), lim, &g_out, &g_err);
	free(p);
	CU_ASSERT_EQUAL(g_err.status, st);
	return st;
}

static enum xcm_status
parse(size_t len)
{
	return parse_lim(len, &xcm_limits_default);
}

static void
load_vec(void)
{
	memcpy(g_buf, g_vec, sizeof(g_vec));
}

/* The fixed-format sense of g_err equals want (18 bytes). */
static void
expect_sense(const uint8_t want[18])
{
	uint8_t sense[XCM_SENSE_MAX];
	size_t n;

	memset(sense, 0, sizeof(sense));
	n = xcm_sense_build(&g_err, false, sense, sizeof(sense));
	CU_ASSERT(n >= 18);
	if (memcmp(sense, want, 18) != 0) {
		fprintf(stderr, "\n  sense:");
		ut_hexdump(stderr, sense, 18);
		fprintf(stderr, "\n  want: ");
		ut_hexdump(stderr, want, 18);
		fprintf(stderr, "\n");
		CU_FAIL("sense bytes");
	}
}

static void
ip6_decoded_from_bytes(void)
{
	static const uint8_t addr[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x07 };
	static const uint8_t lun5[8] = { 0x00, 0x05 };
	const struct xcm_cscd *c;

	load_vec();
	CU_ASSERT_EQUAL_FATAL(parse(V_LEN), XCM_OK);
	/* three slots: E4h, EAh, its extension */
	CU_ASSERT_EQUAL(g_out.ncscd, 3);
	CU_ASSERT_EQUAL(g_out.cscd[0].type, XCM_CSCD_ID);
	c = &g_out.cscd[1];
	CU_ASSERT_EQUAL(c->type, XCM_CSCD_IPV6);
	CU_ASSERT_EQUAL(c->pdt, XCM_PDT_BLOCK);
	CU_ASSERT_FALSE(c->nul);
	CU_ASSERT_EQUAL(memcmp(c->lu_id, lun5, 8), 0);
	CU_ASSERT_EQUAL(memcmp(c->ip, addr, 16), 0);
	CU_ASSERT_EQUAL(c->port, 3260);
	CU_ASSERT_EQUAL(c->ipn, 6);
	CU_ASSERT_EQUAL(c->block_len, 512);
	CU_ASSERT_EQUAL(c->offset, V_EA);
	CU_ASSERT_EQUAL(c->desig_len, 0);
	CU_ASSERT_EQUAL(g_out.cscd[2].type, XCM_CSCD_EXT);
	CU_ASSERT_EQUAL(g_out.cscd[2].offset, V_EA + 32);
	CU_ASSERT_EQUAL(g_out.nseg, 1);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].src, &g_out.cscd[0]);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].dst, &g_out.cscd[1]);
	CU_ASSERT_EQUAL(g_out.seg[0].offset, V_SEG);
	/* reserved bytes are ignored: 33-35 and 40-63 of the extension, 28 bits 7:3 */
	g_buf[V_EA + 33] = 0x5a;
	g_buf[V_EA + 63] = 0xa5;
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_OK);
}

/* The encoder writes the EAh and its extension slot as the decoder reads them. */
static void
ip6_encoded_bytes(void)
{
	uint8_t out[BUF_MAX];
	struct xcm_wbuf w = xcm_wbuf_make(out, sizeof(out));
	uint8_t d[20] = { XCM_CODE_SET_BINARY, XCM_DESIG_NAA, 0, 16 };

	memset(&g_in, 0, sizeof(g_in));
	g_in.list_id = 1;
	g_in.list_id_usage = XCM_LIST_ID_DISCARD;
	memcpy(d + 4, g_vec + 24, 16);
	CU_ASSERT_EQUAL_FATAL(xcm_cscd_from_designator(&g_in.cscd[0], d, sizeof(d), 512), 0);
	g_in.cscd[1].type = XCM_CSCD_IPV6;
	g_in.cscd[1].pdt = XCM_PDT_BLOCK;
	xcm_lun_encode(5, g_in.cscd[1].lu_id);
	memcpy(g_in.cscd[1].ip, g_vec + V_EA + 12, 16);
	g_in.cscd[1].port = 3260;
	g_in.cscd[1].ipn = 6;
	g_in.cscd[1].block_len = 512;
	g_in.cscd[2].type = XCM_CSCD_EXT;
	g_in.ncscd = 3;
	g_in.nseg = 1;
	g_in.seg[0].type = XCM_SEG_B2B;
	g_in.seg[0].src = &g_in.cscd[0];
	g_in.seg[0].dst = &g_in.cscd[1];
	g_in.seg[0].count = 8;
	g_in.seg[0].src_lba = 0x10;
	g_in.seg[0].dst_lba = 0x20;
	CU_ASSERT_EQUAL_FATAL(xcm_list_encode(&g_in, &w), V_LEN);
	CU_ASSERT_EQUAL(memcmp(out, g_vec, V_LEN), 0);
	/* LID4: the same CSCD bytes after its 48-byte header, and they parse */
	w = xcm_wbuf_make(out, sizeof(out));
	g_in.list_id_usage = XCM_LIST_ID_NONE;
	g_in.list_id = 0;
	CU_ASSERT_EQUAL_FATAL(xcm_list_encode_lid4(&g_in, &w), V_LEN - 16 + 48);
	CU_ASSERT_EQUAL(memcmp(out + 48, g_vec + 16, 96), 0);
	CU_ASSERT_EQUAL(xcm_list_parse_lid4((uint32_t)w.len, xcm_span_make(out, w.len),
					    &xcm_limits_default, &g_out, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(g_out.cscd[1].port, 3260);
	CU_ASSERT_EQUAL(g_out.cscd[1].offset, 48 + 32);
}

/*
 * SPC-4 6.4.5.2: an ID naming the extension (ID 2 here) is COPY ABORTED,
 * INVALID FIELD IN PARAMETER LIST: fixed sense, COPY ABORTED, CSI 0 (the
 * segment), 26/00, SKSV + SD, field 6 (the destination ID in the segment).
 */
static void
ip6_id_naming_extension(void)
{
	static const uint8_t want[18] = { 0x70, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x0a,
					  0x00, 0x00, 0x00, 0x00, 0x26, 0x00, 0x00, 0xa0,
					  0x00, 0x06 };

	load_vec();
	g_buf[V_SEG + 7] = 2;
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_E_CA_INVALID_FIELD_PARAM);
	CU_ASSERT_TRUE(g_err.sd && g_err.csi_valid && g_err.csi == 0 && g_err.field == 6);
	expect_sense(want);
	/* the source naming it: field 4 */
	load_vec();
	g_buf[V_SEG + 5] = 2;
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_E_CA_INVALID_FIELD_PARAM);
	CU_ASSERT_EQUAL(g_err.field, 4);
	/* ID 3, past the list (three slots): 08/04 as before */
	load_vec();
	g_buf[V_SEG + 7] = 3;
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_E_CA_UNREACHABLE);
	CU_ASSERT_EQUAL(g_err.field, 6);
}

/*
 * SPC-4 7.6.3.9: byte 32 not FFh is COPY ABORTED, INVALID FIELD IN PARAMETER
 * LIST, reported after the ILLEGAL REQUEST checks; no segment is involved:
 * no CSI, SD = 0, field 80 (byte 32 of the EAh in the parameter list).
 */
static void
ip6_bad_extension_byte(void)
{
	static const uint8_t want[18] = { 0x70, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x0a,
					  0x00, 0x00, 0x00, 0x00, 0x26, 0x00, 0x00, 0x80,
					  0x00, 0x50 };
	static const uint8_t bad[] = { 0x00, 0xe4, 0xea, 0xfe };
	size_t i;

	for (i = 0; i < sizeof(bad); i++) {
		load_vec();
		g_buf[V_EA + 32] = bad[i];
		CU_ASSERT_EQUAL(parse(V_LEN), XCM_E_CA_INVALID_FIELD_PARAM);
		CU_ASSERT_FALSE(g_err.sd || g_err.csi_valid);
		expect_sense(want);
	}
	/* then the extension's fields are not read: an IPN of 0 is not what is reported */
	load_vec();
	g_buf[V_EA + 32] = 0;
	g_buf[V_EA + 39] = 0;
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_E_CA_INVALID_FIELD_PARAM);
	/* an ILLEGAL REQUEST found later in the list comes first (LIST ID USAGE 01b) */
	load_vec();
	g_buf[V_EA + 32] = 0;
	g_buf[1] = 0x08;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, 1);
	/* and it comes before an unresolved ID of a segment */
	load_vec();
	g_buf[V_EA + 32] = 0;
	g_buf[V_SEG + 7] = 9;   /* past the list */
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_E_CA_INVALID_FIELD_PARAM);
	CU_ASSERT_EQUAL(g_err.field, V_EA + 32);
}

/* The list ends inside the 64 bytes: INVALID FIELD IN PARAMETER LIST at CSCD LIST LENGTH. */
static void
ip6_truncated(void)
{
	uint16_t cut;
	size_t len;

	for (cut = 32; cut < 64; cut += 4) {
		/* the CSCD list holds the E4h and cut bytes of the EAh; the segment follows */
		load_vec();
		xcm_put_be16(g_buf + 2, (uint16_t)(32 + cut));
		memmove(g_buf + 16 + 32 + cut, g_vec + V_SEG, 28);
		UT_EXPECT_ERR(parse(16 + 32 + cut + 28), &g_err, XCM_E_INVALID_FIELD_PARAM, 2);
	}
	/* 33 bytes: one more than a slot, the second slot's type byte present and FFh */
	load_vec();
	xcm_put_be16(g_buf + 2, 32 + 33);
	memmove(g_buf + 16 + 32 + 33, g_vec + V_SEG, 28);
	UT_EXPECT_ERR(parse(16 + 32 + 33 + 28), &g_err, XCM_E_INVALID_FIELD_PARAM, 2);
	/* every cut of the whole list (length 0 is no list: GOOD) is refused, nothing read past it */
	for (len = 1; len < V_LEN; len++) {
		load_vec();
		CU_ASSERT_NOT_EQUAL(parse(len), XCM_OK);
	}
}

/* A CSCD list that is not whole descriptors after the EAh: an E4h cut short. */
static void
ip6_length_not_multiple(void)
{
	size_t len = 16 + 96;

	load_vec();
	memset(g_buf + len, 0, 8);
	g_buf[len] = XCM_CSCD_ID;
	xcm_put_be16(g_buf + 2, 96 + 8);
	xcm_put_be32(g_buf + 8, 0);
	UT_EXPECT_ERR(parse(len + 8), &g_err, XCM_E_INVALID_FIELD_PARAM, 2);
	/* an extension with no CSCD before it is no descriptor: 26/07 at its type byte */
	load_vec();
	g_buf[16] = XCM_CSCD_EXT;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_UNSUPP_CSCD_TYPE, 16);
}

/* Field checks of the EAh: ILLEGAL REQUEST, INVALID FIELD IN PARAMETER LIST, pointed at. */
static void
ip6_fields_checked(void)
{
	/* LU ID TYPE 01b (proxy token): byte 49 bit 7 */
	load_vec();
	g_buf[V_EA + 1] = 0x40;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_EA + 1);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 7);
	/* PERIPHERAL DEVICE TYPE 01h: bit 4 */
	load_vec();
	g_buf[V_EA + 1] = 0x01;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_EA + 1);
	CU_ASSERT_TRUE(g_err.bit_valid && g_err.bit == 4);
	/* a multicast address (ff02::1), then the unspecified one (::) */
	load_vec();
	g_buf[V_EA + 12] = 0xff;
	g_buf[V_EA + 13] = 0x02;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_EA + 12);
	load_vec();
	memset(g_buf + V_EA + 12, 0, 16);
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_EA + 12);
	/* INTERNET PROTOCOL NUMBER 17 (UDP): iSCSI needs TCP */
	load_vec();
	g_buf[V_EA + 39] = 17;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_EA + 38);
	/* PORT NUMBER 0 */
	load_vec();
	g_buf[V_EA + 36] = 0;
	g_buf[V_EA + 37] = 0;
	UT_EXPECT_ERR(parse(V_LEN), &g_err, XCM_E_INVALID_FIELD_PARAM, V_EA + 36);
	/* NUL (obsolete bit 5) is recorded, as for E4h: the executor aborts 08/04 */
	load_vec();
	g_buf[V_EA + 1] = 0x20;
	CU_ASSERT_EQUAL(parse(V_LEN), XCM_OK);
	CU_ASSERT_TRUE(g_out.cscd[1].nul);
}

/* IDs count 32-byte slots: the CSCD after an EAh is ID n + 2. */
static void
ip6_id_after_extension(void)
{
	size_t len = 16 + 128 + 28;

	load_vec();
	/* a second E4h at 112 (ID 3), the segment moved after it, from ID 3 to ID 1 */
	memcpy(g_buf + 112, g_vec + 16, 32);
	g_buf[112 + 9] = 0x77;
	memcpy(g_buf + 144, g_vec + V_SEG, 28);
	xcm_put_be16(g_buf + 2, 128);
	g_buf[144 + 5] = 3;
	CU_ASSERT_EQUAL_FATAL(parse(len), XCM_OK);
	CU_ASSERT_EQUAL(g_out.ncscd, 4);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].src, &g_out.cscd[3]);
	CU_ASSERT_EQUAL(g_out.cscd[3].offset, 112);
	CU_ASSERT_EQUAL(g_out.cscd[3].desig[1], 0x77);
	CU_ASSERT_PTR_EQUAL(g_out.seg[0].dst, &g_out.cscd[1]);
}

/* A 64-byte CSCD takes two of the slots MAXIMUM CSCD DESCRIPTOR COUNT allows. */
static void
ip6_slot_capacity(void)
{
	struct xcm_limits lim = xcm_limits_default;
	size_t off, i;

	/* 32 EAh: 64 slots, the limit; parses */
	memcpy(g_buf, g_vec, 16);
	xcm_put_be32(g_buf + 8, 0);
	for (i = 0, off = 16; i < XCM_MAX_CSCD / 2; i++, off += 64) {
		memcpy(g_buf + off, g_vec + V_EA, 64);
	}
	xcm_put_be16(g_buf + 2, (uint16_t)(off - 16));
	CU_ASSERT_EQUAL_FATAL(parse(off), XCM_OK);
	CU_ASSERT_EQUAL(g_out.ncscd, XCM_MAX_CSCD);
	CU_ASSERT_EQUAL(g_out.cscd[XCM_MAX_CSCD - 1].type, XCM_CSCD_EXT);
	/* a 33rd: over MAXIMUM CSCD DESCRIPTOR COUNT x 32 bytes: 26/06 at CSCD LIST LENGTH */
	memcpy(g_buf + off, g_vec + V_EA, 64);
	xcm_put_be16(g_buf + 2, (uint16_t)(off + 64 - 16));
	UT_EXPECT_ERR(parse(off + 64), &g_err, XCM_E_TOO_MANY_CSCD, 2);
	/*
	 * a limits table above the capacity: 63 E4h then an EAh needing slots 63
	 * and 64; the walk refuses it rather than overflow struct xcm_list
	 */
	lim.max_cscd = XCM_MAX_CSCD + 10;
	for (i = 0, off = 16; i < XCM_MAX_CSCD - 1; i++, off += 32) {
		memcpy(g_buf + off, g_vec + 16, 32);
	}
	memcpy(g_buf + off, g_vec + V_EA, 64);
	off += 64;
	xcm_put_be16(g_buf + 2, (uint16_t)(off - 16));
	UT_EXPECT_ERR(parse_lim(off, &lim), &g_err, XCM_E_TOO_MANY_CSCD, 2);
}

/* VPD 8Fh Supported Descriptors and RCR OPERATING PARAMETERS: E4h and EAh, not E5h/E6h/EBh. */
static void
ip6_advertised(void)
{
	uint8_t page[512];
	struct xcm_wbuf w = xcm_wbuf_make(page, sizeof(page));
	struct xcm_tpc_info info;
	bool e4 = false, ea = false, other = false;
	unsigned int i;

	xcm_vpd_tpc_encode(&xcm_limits_default, 0x00, &w);
	CU_ASSERT_EQUAL_FATAL(xcm_vpd_tpc_decode(xcm_span_make(page, w.len), &info), 0);
	CU_ASSERT_TRUE(info.has_supported_descs);
	for (i = 0; i < info.n_descs; i++) {
		e4 |= info.descs[i] == XCM_CSCD_ID;
		ea |= info.descs[i] == XCM_CSCD_IPV6;
		other |= info.descs[i] >= 0xE0 && info.descs[i] != XCM_CSCD_ID &&
			 info.descs[i] != XCM_CSCD_IPV6;
	}
	CU_ASSERT_TRUE(e4 && ea && !other);
}

static void
lun_single_level(void)
{
	static const struct {
		uint8_t b[8];
		int rc;
		uint16_t lun;
	} v[] = {
		{ { 0x00, 0x00 }, 0, 0 },
		{ { 0x00, 0x05 }, 0, 5 },
		{ { 0x00, 0xff }, 0, 255 },
		{ { 0x40, 0x05 }, 0, 5 },          /* flat space */
		{ { 0x41, 0x00 }, 0, 256 },
		{ { 0x7f, 0xff }, 0, 16383 },
		{ { 0x01, 0x05 }, -EINVAL, 0 },    /* peripheral, bus 1 */
		{ { 0x80, 0x05 }, -EINVAL, 0 },    /* logical unit addressing */
		{ { 0xc0, 0x05 }, -EINVAL, 0 },    /* extended */
		{ { 0x00, 0x05, 0x00, 0x01 }, -EINVAL, 0 },   /* a second level */
		{ { 0x00, 0x05, 0, 0, 0, 0, 0, 0x01 }, -EINVAL, 0 },
	};
	uint8_t b[8];
	uint16_t lun;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		lun = 0xFFFF;
		CU_ASSERT_EQUAL(xcm_lun_single_level(v[i].b, &lun), v[i].rc);
		if (v[i].rc == 0) {
			CU_ASSERT_EQUAL(lun, v[i].lun);
		}
	}
	xcm_lun_encode(5, b);
	CU_ASSERT_EQUAL(memcmp(b, "\x00\x05\0\0\0\0\0\0", 8), 0);
	xcm_lun_encode(300, b);
	CU_ASSERT_EQUAL(memcmp(b, "\x41\x2c\0\0\0\0\0\0", 8), 0);
	for (i = 0; i <= 16383; i += 97) {
		xcm_lun_encode((uint16_t)i, b);
		CU_ASSERT_EQUAL(xcm_lun_single_level(b, &lun), 0);
		CU_ASSERT_EQUAL(lun, i);
	}
}

static CU_TestInfo g_tests[] = {
	{ "ip6_decoded_from_bytes", ip6_decoded_from_bytes },
	{ "ip6_encoded_bytes", ip6_encoded_bytes },
	{ "ip6_id_naming_extension", ip6_id_naming_extension },
	{ "ip6_bad_extension_byte", ip6_bad_extension_byte },
	{ "ip6_truncated", ip6_truncated },
	{ "ip6_length_not_multiple", ip6_length_not_multiple },
	{ "ip6_fields_checked", ip6_fields_checked },
	{ "ip6_id_after_extension", ip6_id_after_extension },
	{ "ip6_slot_capacity", ip6_slot_capacity },
	{ "ip6_advertised", ip6_advertised },
	{ "lun_single_level", lun_single_level },
	CU_TEST_INFO_NULL,
};
UT_SUITE(param_ip, g_tests)
