/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Initiator side of EXTENDED COPY: parameter-list encoder (bytes at the spec
 * offsets, allocation-length behaviour), CSCD from a VPD 83h designator, the
 * CDB builders, and encoder -> parser round trips over random valid lists.
 */
#include <errno.h>
#include <string.h>

#include "ut.h"

#define BUF_MAX (XCM_PLIST_HDR_LEN + XCM_MAX_CSCD * XCM_CSCD_LEN + \
		 XCM_MAX_SEG * XCM_SEG_B2B_OFF_LEN + 64)

static struct xcm_list g_in;
static struct xcm_list g_out;
static uint8_t g_buf[BUF_MAX];
static uint8_t g_buf2[BUF_MAX];
static struct xcm_err g_err;

static const uint8_t g_naa[16] = { 0x60, 0x01, 0x40, 0x5D, 0xD2, 0x4E, 0x61, 0x87,
				   0xD7, 0x24, 0x2A, 0x99, 0x87, 0xAE, 0x10, 0xED };

/* One CSCD (NAA 6), one 02h segment CSCD 0 -> CSCD 0, as libiscsi's Simple test sends. */
static void
simple_list(void)
{
	struct xcm_cscd *c = &g_in.cscd[0];
	struct xcm_segment *s = &g_in.seg[0];

	memset(&g_in, 0, sizeof(g_in));
	g_in.list_id = 1;
	g_in.list_id_usage = XCM_LIST_ID_DISCARD;
	g_in.ncscd = 1;
	g_in.nseg = 1;
	c->type = XCM_CSCD_ID;
	c->code_set = XCM_CODE_SET_BINARY;
	c->desig_type = XCM_DESIG_NAA;
	c->desig_len = sizeof(g_naa);
	memcpy(c->desig, g_naa, sizeof(g_naa));
	c->block_len = 512;
	s->type = XCM_SEG_B2B;
	s->src = c;
	s->dst = c;
	s->count = 2048;
	s->dst_lba = 0x1F800;
}

static size_t
encode(const struct xcm_list *l, uint8_t *buf, size_t cap)
{
	struct xcm_wbuf w = xcm_wbuf_make(buf, cap);
	size_t n = xcm_list_encode(l, &w);

	CU_ASSERT_EQUAL(n, w.len);
	return n;
}

static enum xcm_status
parse(const uint8_t *buf, size_t len)
{
	uint8_t *p = malloc(len > 0 ? len : 1);
	enum xcm_status st;

	UT_ASSERT_FATAL(p != NULL);
	memcpy(p, buf, len);
	st = xcm_list_parse((uint32_t)len, xcm_span_make(p, len), &xcm_limits_default, &g_out,
			    &g_err);
	free(p);
	return st;
}

/* ---- bytes on the wire -------------------------------------------------- */

static void
encode_header_bytes(void)
{
	size_t n;

	simple_list();
	g_in.list_id = 0xC3;
	g_in.str = true;
	g_in.list_id_usage = XCM_LIST_ID_NONE;
	g_in.priority = 6;
	g_in.inline_len = 99; /* never sent: no inline data */
	n = encode(&g_in, g_buf, sizeof(g_buf));
	CU_ASSERT_EQUAL(n, 16 + 32 + 28);
	CU_ASSERT_EQUAL(g_buf[0], 0xC3);
	CU_ASSERT_EQUAL(g_buf[1], 0x20 | 0x18 | 6);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 2), 32);
	CU_ASSERT_EQUAL(xcm_get_be32(g_buf + 4), 0);
	CU_ASSERT_EQUAL(xcm_get_be32(g_buf + 8), 28);
	CU_ASSERT_EQUAL(xcm_get_be32(g_buf + 12), 0);
	/* empty list: a bare header */
	memset(&g_in, 0, sizeof(g_in));
	CU_ASSERT_EQUAL(encode(&g_in, g_buf, sizeof(g_buf)), 16);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 2), 0);
	CU_ASSERT_EQUAL(xcm_get_be32(g_buf + 8), 0);
}

static void
encode_cscd_bytes(void)
{
	const uint8_t *d = g_buf + 16;
	struct xcm_cscd *c;
	size_t i;

	simple_list();
	c = &g_in.cscd[0];
	c->type = 0;             /* 0 means E4h */
	c->nul = true;
	c->rel_port = 0xBEEF;
	c->code_set = XCM_CODE_SET_UTF8;
	c->desig_type = XCM_DESIG_SCSI_NAME;
	c->desig_len = 5;
	c->pad = true;
	c->block_len = 0x123456;
	encode(&g_in, g_buf, sizeof(g_buf));
	CU_ASSERT_EQUAL(d[0], 0xE4);
	CU_ASSERT_EQUAL(d[1], 0x20);
	CU_ASSERT_EQUAL(xcm_get_be16(d + 2), 0xBEEF);
	CU_ASSERT_EQUAL(d[4], XCM_CODE_SET_UTF8);
	CU_ASSERT_EQUAL(d[5], XCM_DESIG_SCSI_NAME);
	CU_ASSERT_EQUAL(d[6], 0);
	CU_ASSERT_EQUAL(d[7], 5);
	CU_ASSERT_EQUAL(memcmp(d + 8, g_naa, 5), 0);
	for (i = 8 + 5; i < 28; i++) {
		CU_ASSERT_EQUAL(d[i], 0); /* zero padded to 20 bytes */
	}
	CU_ASSERT_EQUAL(d[28], 0x04);
	CU_ASSERT_EQUAL(xcm_get_be24(d + 29), 0x123456u);
	/* an explicit type and the LU ID TYPE / PDT bits go where the spec puts them */
	c->type = 0xE0;
	c->lu_id_type = 2;
	c->nul = false;
	c->pdt = 0x1F;
	c->assoc = 1;
	encode(&g_in, g_buf, sizeof(g_buf));
	CU_ASSERT_EQUAL(d[0], 0xE0);
	CU_ASSERT_EQUAL(d[1], 0x80 | 0x1F);
	CU_ASSERT_EQUAL(d[5], 0x10 | XCM_DESIG_SCSI_NAME);
}

static void
encode_segment_02_bytes(void)
{
	const uint8_t *s = g_buf + 16 + 32;

	simple_list();
	g_in.seg[0].dc = true;
	g_in.seg[0].cat = true;
	g_in.seg[0].fco = true;
	g_in.seg[0].count = 0xFFFF;
	g_in.seg[0].src_lba = 0x1122334455667788ULL;
	g_in.seg[0].dst = &g_in.self;
	CU_ASSERT_EQUAL(encode(&g_in, g_buf, sizeof(g_buf)), 76);
	CU_ASSERT_EQUAL(s[0], 0x02);
	CU_ASSERT_EQUAL(s[1], 0x07);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 2), 0x18);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 4), 0);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 6), 0xFFFF);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 8), 0);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 10), 0xFFFF);
	CU_ASSERT_EQUAL(xcm_get_be64(s + 12), 0x1122334455667788ULL);
	CU_ASSERT_EQUAL(xcm_get_be64(s + 20), 0x1F800);
}

static void
encode_segment_0a_bytes(void)
{
	const uint8_t *s;

	simple_list();
	g_in.ncscd = 3;
	g_in.cscd[1] = g_in.cscd[0];
	g_in.cscd[2] = g_in.cscd[0];
	g_in.nseg = 2;
	g_in.seg[1] = g_in.seg[0];
	g_in.seg[1].type = XCM_SEG_B2B_OFF;
	g_in.seg[1].src = &g_in.cscd[2];
	g_in.seg[1].dst = &g_in.cscd[1];
	g_in.seg[1].count = 0xA0B0C0D0u;
	g_in.seg[1].src_lba = 7;
	g_in.seg[1].dst_lba = 9;
	g_in.seg[1].src_off = 0x0102;
	g_in.seg[1].dst_off = 0xFFFE;
	g_in.seg[1].cat = true;
	CU_ASSERT_EQUAL(encode(&g_in, g_buf, sizeof(g_buf)), 16 + 96 + 28 + 32);
	CU_ASSERT_EQUAL(xcm_get_be32(g_buf + 8), 60);
	s = g_buf + 16 + 96 + 28;
	CU_ASSERT_EQUAL(s[0], 0x0A);
	CU_ASSERT_EQUAL(s[1], 0x01);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 2), 0x1C);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 4), 2);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 6), 1);
	CU_ASSERT_EQUAL(xcm_get_be32(s + 8), 0xA0B0C0D0u);
	CU_ASSERT_EQUAL(xcm_get_be64(s + 12), 7);
	CU_ASSERT_EQUAL(xcm_get_be64(s + 20), 9);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 28), 0x0102);
	CU_ASSERT_EQUAL(xcm_get_be16(s + 30), 0xFFFE);
}

static void
encode_foreign_cscd_pointer(void)
{
	static struct xcm_cscd stray;
	size_t n;

	/* a pointer that is not into this list (or past ncscd) becomes a reserved ID */
	simple_list();
	g_in.seg[0].src = &stray;
	g_in.seg[0].dst = &g_in.cscd[1]; /* inside the array, past ncscd */
	n = encode(&g_in, g_buf, sizeof(g_buf));
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 48 + 4), 0x0800);
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 48 + 6), 0x0800);
	CU_ASSERT_EQUAL(parse(g_buf, n), XCM_E_CA_UNREACHABLE);
	g_in.seg[0].src = NULL;
	n = encode(&g_in, g_buf, sizeof(g_buf));
	CU_ASSERT_EQUAL(xcm_get_be16(g_buf + 48 + 4), 0x0800);
}

static void
encode_capacities(void)
{
	size_t caps[] = { 0, 1, 0, 0 };
	uint8_t *p;
	size_t full, i, j;

	simple_list();
	full = encode(&g_in, g_buf, sizeof(g_buf));
	caps[2] = full;
	caps[3] = full + 40;
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct xcm_wbuf w;

		/* exact-size heap buffer (+ guard bytes we check stay untouched) */
		p = malloc(caps[i] + 8);
		UT_ASSERT_FATAL(p != NULL);
		memset(p, 0xEE, caps[i] + 8);
		w = xcm_wbuf_make(caps[i] > 0 ? p : NULL, caps[i]);
		CU_ASSERT_EQUAL(xcm_list_encode(&g_in, &w), full);
		CU_ASSERT_EQUAL(w.len, full);
		CU_ASSERT_EQUAL(xcm_wbuf_stored(&w), caps[i] < full ? caps[i] : full);
		CU_ASSERT_EQUAL(memcmp(p, g_buf, xcm_wbuf_stored(&w)), 0);
		for (j = caps[i]; j < caps[i] + 8; j++) {
			CU_ASSERT_EQUAL(p[j], 0xEE);
		}
		free(p);
	}
	/* appending to a buffer that already holds bytes returns the list's own length */
	{
		struct xcm_wbuf w = xcm_wbuf_make(g_buf2, sizeof(g_buf2));

		xcm_wbuf_put(&w, NULL, 5);
		CU_ASSERT_EQUAL(xcm_list_encode(&g_in, &w), full);
		CU_ASSERT_EQUAL(w.len, full + 5);
		CU_ASSERT_EQUAL(memcmp(g_buf2 + 5, g_buf, full), 0);
	}
}

/* ---- CSCD from a VPD 83h designator ------------------------------------- */

static void
cscd_from_designator_ok(void)
{
	uint8_t vpd[4 + 16];
	struct xcm_cscd c;
	size_t n;

	vpd[0] = 0x61;  /* PROTOCOL IDENTIFIER 6 (SAS), binary */
	vpd[1] = 0x83;  /* PIV, LU association, NAA */
	vpd[2] = 0;
	vpd[3] = 16;
	memcpy(vpd + 4, g_naa, 16);
	memset(&c, 0xFF, sizeof(c));
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, sizeof(vpd), 4096), 0);
	CU_ASSERT_EQUAL(c.type, XCM_CSCD_ID);
	CU_ASSERT_EQUAL(c.lu_id_type, 0);
	CU_ASSERT_FALSE(c.nul);
	CU_ASSERT_EQUAL(c.pdt, XCM_PDT_BLOCK);
	CU_ASSERT_EQUAL(c.rel_port, 0);
	CU_ASSERT_EQUAL(c.code_set, XCM_CODE_SET_BINARY);
	CU_ASSERT_EQUAL(c.assoc, XCM_ASSOC_LU);
	CU_ASSERT_EQUAL(c.desig_type, XCM_DESIG_NAA);
	CU_ASSERT_EQUAL(c.desig_len, 16);
	CU_ASSERT_EQUAL(memcmp(c.desig, g_naa, 16), 0);
	CU_ASSERT_EQUAL(c.desig[16], 0);
	CU_ASSERT_FALSE(c.pad);
	CU_ASSERT_EQUAL(c.block_len, 4096);

	/* on the wire, bytes 4-7+ are the VPD descriptor minus PROTOCOL IDENTIFIER and PIV */
	simple_list();
	g_in.cscd[0] = c;
	n = encode(&g_in, g_buf, sizeof(g_buf));
	CU_ASSERT_EQUAL(g_buf[16 + 4], 0x01);
	CU_ASSERT_EQUAL(g_buf[16 + 5], 0x03);
	CU_ASSERT_EQUAL(memcmp(g_buf + 16 + 6, vpd + 2, 2 + 16), 0);
	CU_ASSERT_EQUAL(parse(g_buf, n), XCM_OK);
	CU_ASSERT_EQUAL(g_out.cscd[0].block_len, 4096);

	/* the shortest and the longest designators that fit */
	vpd[3] = 1;
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, 5, 0), 0);
	CU_ASSERT_EQUAL(c.desig_len, 1);
	{
		uint8_t big[4 + 20] = { 0x02, 0x08, 0, 20 };

		memset(big + 4, 'a', 20);
		CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, big, sizeof(big), 512), 0);
		CU_ASSERT_EQUAL(c.desig_len, 20);
		CU_ASSERT_EQUAL(c.desig_type, XCM_DESIG_SCSI_NAME);
		CU_ASSERT_EQUAL(c.code_set, XCM_CODE_SET_ASCII);
	}
}

static void
cscd_from_designator_rejects(void)
{
	uint8_t vpd[4 + 24];
	struct xcm_cscd c;

	memset(vpd, 0, sizeof(vpd));
	vpd[0] = 0x01;
	vpd[1] = 0x03;
	vpd[3] = 16;
	memcpy(vpd + 4, g_naa, 16);
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, 20, 512), 0);
	/* association target port (01b) / target device (10b) */
	vpd[1] = 0x13;
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, 20, 512), -EINVAL);
	vpd[1] = 0x23;
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, 20, 512), -EINVAL);
	vpd[1] = 0x03;
	/* longer than an E4h can hold */
	vpd[3] = 21;
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, sizeof(vpd), 512), -EINVAL);
	/* empty designator */
	vpd[3] = 0;
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, sizeof(vpd), 512), -EINVAL);
	/* buffer shorter than the header or than DESIGNATOR LENGTH says */
	vpd[3] = 16;
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, 19, 512), -EINVAL);
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, vpd, 3, 512), -EINVAL);
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(&c, NULL, 20, 512), -EINVAL);
	CU_ASSERT_EQUAL(xcm_cscd_from_designator(NULL, vpd, 20, 512), -EINVAL);
}

/* ---- CDB builders ------------------------------------------------------- */

static void
cdb_xcopy_bytes(void)
{
	uint8_t cdb[16];
	uint8_t zero[16] = { 0 };
	uint32_t plen = 0;

	memset(cdb, 0xFF, sizeof(cdb));
	xcm_cdb_xcopy(cdb, 0x0A0B0C0Du);
	CU_ASSERT_EQUAL(cdb[0], 0x83);
	CU_ASSERT_EQUAL(cdb[1], 0x00);
	CU_ASSERT_EQUAL(memcmp(cdb + 2, zero, 8), 0);
	CU_ASSERT_EQUAL(xcm_get_be32(cdb + 10), 0x0A0B0C0Du);
	CU_ASSERT_EQUAL(cdb[14], 0);
	CU_ASSERT_EQUAL(cdb[15], 0);
	CU_ASSERT_EQUAL(xcm_xcopy_cdb_check(cdb, sizeof(cdb), &plen, &g_err), XCM_OK);
	CU_ASSERT_EQUAL(plen, 0x0A0B0C0Du);
}

static void
cdb_rcr_bytes(void)
{
	uint8_t cdb[16];
	uint8_t zero[16] = { 0 };

	memset(cdb, 0xFF, sizeof(cdb));
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 0x42, 12);
	CU_ASSERT_EQUAL(cdb[0], 0x84);
	CU_ASSERT_EQUAL(cdb[1], 0x00);
	CU_ASSERT_EQUAL(cdb[2], 0x42);
	CU_ASSERT_EQUAL(memcmp(cdb + 3, zero, 7), 0);
	CU_ASSERT_EQUAL(xcm_get_be32(cdb + 10), 12);
	CU_ASSERT_EQUAL(cdb[14], 0);
	CU_ASSERT_EQUAL(cdb[15], 0);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_FAILED_SEGMENT, 0x42, 0x10000);
	CU_ASSERT_EQUAL(cdb[1], 0x04);
	CU_ASSERT_EQUAL(cdb[2], 0x42);
	CU_ASSERT_EQUAL(xcm_get_be32(cdb + 10), 0x10000);
	/* OPERATING PARAMETERS: byte 2 reserved whatever list id is passed (LIO rejects it) */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0x42, 54);
	CU_ASSERT_EQUAL(cdb[1], 0x03);
	CU_ASSERT_EQUAL(cdb[2], 0);
	CU_ASSERT_EQUAL(xcm_get_be32(cdb + 10), 54);
}

/* ---- round trips -------------------------------------------------------- */

static uint32_t
rnd(uint64_t *st, uint32_t n)
{
	return (uint32_t)(ut_rand(st) % n);
}

static const struct xcm_cscd *
rnd_cscd(uint64_t *st, const struct xcm_list *l)
{
	uint32_t k = rnd(st, l->ncscd + 1);

	return k == l->ncscd ? &l->self : &l->cscd[k];
}

/* A random list that satisfies every rule of the parser under the default limits. */
static void
random_list(uint64_t *st, struct xcm_list *l, bool max)
{
	static const uint8_t dtypes[] = { 0, 1, 2, 3, 7, 8, 0xA };
	uint32_t i, j;

	memset(l, 0, sizeof(*l));
	l->list_id_usage = (uint8_t[]){ XCM_LIST_ID_HOLD, XCM_LIST_ID_DISCARD,
					 XCM_LIST_ID_NONE }[rnd(st, 3)];
	l->list_id = l->list_id_usage == XCM_LIST_ID_NONE ? 0 : (uint8_t)ut_rand(st);
	l->priority = (uint8_t)rnd(st, 8);
	l->str = rnd(st, 2);
	if (max) {
		l->ncscd = XCM_MAX_CSCD;
		l->nseg = XCM_MAX_SEG;
	} else {
		l->ncscd = rnd(st, 4) == 0 ? rnd(st, XCM_MAX_CSCD + 1) : rnd(st, 5);
		l->nseg = rnd(st, 8) == 0 ? rnd(st, XCM_MAX_SEG + 1) : rnd(st, 17);
	}
	for (i = 0; i < l->ncscd; i++) {
		struct xcm_cscd *c = &l->cscd[i];

		c->type = XCM_CSCD_ID;
		c->nul = rnd(st, 8) == 0;
		c->rel_port = (uint16_t)ut_rand(st);
		c->code_set = (uint8_t)(1 + rnd(st, 3));
		c->desig_type = dtypes[rnd(st, sizeof(dtypes))];
		c->desig_len = (uint8_t)(1 + rnd(st, XCM_DESIG_MAX));
		for (j = 0; j < c->desig_len; j++) {
			c->desig[j] = (uint8_t)ut_rand(st);
		}
		c->pad = rnd(st, 2);
		c->block_len = rnd(st, 2) ? (uint32_t)512 << rnd(st, 4) : rnd(st, 1u << 24);
		c->offset = XCM_PLIST_HDR_LEN + i * XCM_CSCD_LEN;
	}
	for (i = 0; i < l->nseg; i++) {
		struct xcm_segment *s = &l->seg[i];

		s->type = rnd(st, 2) ? XCM_SEG_B2B : XCM_SEG_B2B_OFF;
		s->fco = rnd(st, 2);
		s->cat = rnd(st, 2);
		s->src = rnd_cscd(st, l);
		s->dst = rnd_cscd(st, l);
		s->src_lba = ut_rand(st);
		s->dst_lba = ut_rand(st) >> rnd(st, 64);
		if (s->type == XCM_SEG_B2B) {
			s->dc = rnd(st, 2);
			s->count = (uint16_t)ut_rand(st);
		} else {
			s->count = (uint32_t)ut_rand(st);
			s->src_off = (uint16_t)ut_rand(st);
			s->dst_off = (uint16_t)ut_rand(st);
		}
	}
}

static long
index_of(const struct xcm_list *l, const struct xcm_cscd *c)
{
	uint32_t i;

	if (c == &l->self) {
		return -1;
	}
	for (i = 0; i < l->ncscd; i++) {
		if (c == &l->cscd[i]) {
			return (long)i;
		}
	}
	return -2;
}

/* Every field of in against its decode out; returns the number of mismatches. */
static unsigned
compare_lists(const struct xcm_list *in, const struct xcm_list *out)
{
	unsigned bad = 0;
	uint32_t i, off;

#define SAME(a, b) do { if ((a) != (b)) { bad++; } } while (0)
	SAME(in->list_id, out->list_id);
	SAME(in->list_id_usage, out->list_id_usage);
	SAME(in->priority, out->priority);
	SAME(in->str, out->str);
	SAME(in->ncscd, out->ncscd);
	SAME(in->nseg, out->nseg);
	SAME(0u, out->inline_len);
	if (in->ncscd != out->ncscd || in->nseg != out->nseg) {
		return bad;
	}
	for (i = 0; i < in->ncscd; i++) {
		const struct xcm_cscd *a = &in->cscd[i], *b = &out->cscd[i];

		SAME(a->type, b->type);
		SAME(a->lu_id_type, b->lu_id_type);
		SAME(a->nul, b->nul);
		SAME(a->pdt, b->pdt);
		SAME(a->rel_port, b->rel_port);
		SAME(a->code_set, b->code_set);
		SAME(a->assoc, b->assoc);
		SAME(a->desig_type, b->desig_type);
		SAME(a->desig_len, b->desig_len);
		bad += memcmp(a->desig, b->desig, sizeof(a->desig)) != 0;
		SAME(a->pad, b->pad);
		SAME(a->block_len, b->block_len);
		SAME(XCM_PLIST_HDR_LEN + i * XCM_CSCD_LEN, b->offset);
	}
	off = XCM_PLIST_HDR_LEN + in->ncscd * XCM_CSCD_LEN;
	for (i = 0; i < in->nseg; i++) {
		const struct xcm_segment *a = &in->seg[i], *b = &out->seg[i];

		SAME(a->type, b->type);
		SAME(a->fco, b->fco);
		SAME(a->dc, b->dc);
		SAME(a->cat, b->cat);
		SAME(index_of(in, a->src), index_of(out, b->src));
		SAME(index_of(in, a->dst), index_of(out, b->dst));
		SAME(a->count, b->count);
		SAME(a->src_lba, b->src_lba);
		SAME(a->dst_lba, b->dst_lba);
		SAME(a->src_off, b->src_off);
		SAME(a->dst_off, b->dst_off);
		SAME(off, b->offset);
		off += a->type == XCM_SEG_B2B_OFF ? XCM_SEG_B2B_OFF_LEN : XCM_SEG_B2B_LEN;
	}
	SAME(out->self.type, 0);
	SAME(out->self.block_len, 0u);
#undef SAME
	return bad;
}

static void
round_trip_random_lists(void)
{
	uint64_t st = 0x9E3779B97F4A7C15ULL;
	unsigned iter, fails = 0;

	for (iter = 0; iter < 1200; iter++) {
		size_t n;
		enum xcm_status s;
		unsigned bad;

		random_list(&st, &g_in, false);
		n = encode(&g_in, g_buf, sizeof(g_buf));
		UT_ASSERT_FATAL(n <= sizeof(g_buf));
		s = parse(g_buf, n);
		bad = s == XCM_OK ? compare_lists(&g_in, &g_out) : 1;
		if (bad != 0 && fails++ < 3) {
			fprintf(stderr, "\nround trip %u: %s, %u mismatches (ncscd %u nseg %u)\n",
				iter, xcm_status_info(s)->name, bad, g_in.ncscd, g_in.nseg);
		}
		/* re-encoding the decode gives the same bytes */
		if (s == XCM_OK) {
			CU_ASSERT_EQUAL(encode(&g_out, g_buf2, sizeof(g_buf2)), n);
			CU_ASSERT_EQUAL(memcmp(g_buf, g_buf2, n), 0);
		}
	}
	CU_ASSERT_EQUAL(fails, 0);
}

static void
round_trip_maximum_lists(void)
{
	uint64_t st = 42;
	int k;

	for (k = 0; k < 4; k++) {
		size_t n;

		random_list(&st, &g_in, true);
		n = encode(&g_in, g_buf, sizeof(g_buf));
		CU_ASSERT(n - XCM_PLIST_HDR_LEN <= xcm_limits_default.max_desc_list_len);
		CU_ASSERT_EQUAL_FATAL(parse(g_buf, n), XCM_OK);
		CU_ASSERT_EQUAL(g_out.ncscd, XCM_MAX_CSCD);
		CU_ASSERT_EQUAL(g_out.nseg, XCM_MAX_SEG);
		CU_ASSERT_EQUAL(compare_lists(&g_in, &g_out), 0);
	}
}

static CU_TestInfo g_tests[] = {
	{ "encode_header_bytes", encode_header_bytes },
	{ "encode_cscd_bytes", encode_cscd_bytes },
	{ "encode_segment_02_bytes", encode_segment_02_bytes },
	{ "encode_segment_0a_bytes", encode_segment_0a_bytes },
	{ "encode_foreign_cscd_pointer", encode_foreign_cscd_pointer },
	{ "encode_capacities", encode_capacities },
	{ "cscd_from_designator_ok", cscd_from_designator_ok },
	{ "cscd_from_designator_rejects", cscd_from_designator_rejects },
	{ "cdb_xcopy_bytes", cdb_xcopy_bytes },
	{ "cdb_rcr_bytes", cdb_rcr_bytes },
	{ "round_trip_random_lists", round_trip_random_lists },
	{ "round_trip_maximum_lists", round_trip_maximum_lists },
	CU_TEST_INFO_NULL,
};
UT_SUITE(encode, g_tests)
