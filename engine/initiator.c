/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Initiator-side SPC/SBC CDBs and response decoders (see xcm/initiator.h).
 * Layouts: SPC-4 6.6 (INQUIRY), 7.8.6 (Device Identification VPD), SBC-3
 * 5.16 (READ CAPACITY(16)), 6.6.4 (Block Limits VPD), 5.8 / 5.32 (READ(16),
 * WRITE(16)).
 */
#include <errno.h>
#include <string.h>

#include "xcm/initiator.h"

/* SPC-4 6.6.1: INQUIRY CDB */
enum {
	INQ_EVPD = 1,          /* byte 1 bit 0 */
	INQ_PAGE = 2,
	INQ_ALLOC = 3,         /* bytes 3-4 */
};

void
xcm_cdb_inquiry(uint8_t *cdb, bool evpd, uint8_t page, uint16_t alloc_len)
{
	memset(cdb, 0, XCM_CDB6_LEN);
	cdb[0] = XCM_OP_INQUIRY;
	cdb[INQ_EVPD] = evpd ? 1 : 0;
	cdb[INQ_PAGE] = evpd ? page : 0;
	xcm_put_be16(cdb + INQ_ALLOC, alloc_len);
}

/* SBC-3 5.16.1: SERVICE ACTION IN(16), allocation length in bytes 10-13 */
void
xcm_cdb_read_capacity16(uint8_t *cdb, uint32_t alloc_len)
{
	memset(cdb, 0, XCM_CDB16_LEN);
	cdb[0] = XCM_OP_SERVICE_ACTION_IN_16;
	cdb[1] = XCM_SA_READ_CAPACITY_16;
	xcm_put_be32(cdb + 10, alloc_len);
}

/* SBC-3 5.8 / 5.32: LBA in bytes 2-9, TRANSFER LENGTH in bytes 10-13 */
static void
cdb_rw16(uint8_t *cdb, uint8_t op, uint64_t lba, uint32_t nblocks)
{
	memset(cdb, 0, XCM_CDB16_LEN);
	cdb[0] = op;
	xcm_put_be64(cdb + 2, lba);
	xcm_put_be32(cdb + 10, nblocks);
}

void
xcm_cdb_read16(uint8_t *cdb, uint64_t lba, uint32_t nblocks)
{
	cdb_rw16(cdb, XCM_OP_READ_16, lba, nblocks);
}

void
xcm_cdb_write16(uint8_t *cdb, uint64_t lba, uint32_t nblocks)
{
	cdb_rw16(cdb, XCM_OP_WRITE_16, lba, nblocks);
}

int
xcm_cdb_rw16_decode(const uint8_t *cdb, size_t len, uint64_t *lba, uint32_t *nblocks)
{
	if (len < XCM_CDB16_LEN || (cdb[0] != XCM_OP_READ_16 && cdb[0] != XCM_OP_WRITE_16)) {
		return -EINVAL;
	}
	*lba = xcm_get_be64(cdb + 2);
	*nblocks = xcm_get_be32(cdb + 10);
	return 0;
}

static void
copy_ascii(char *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* keep printable ASCII only: the bytes are the device's */
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7F) ? (char)src[i] : ' ';
	}
	dst[n] = '\0';
}

/* SPC-4 6.6.2: standard INQUIRY data */
int
xcm_inquiry_std_decode(struct xcm_span s, struct xcm_std_inquiry *out)
{
	struct xcm_span d;

	if (!xcm_span_sub(s, 0, XCM_STD_INQUIRY_MIN, &d)) {
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->pdt_byte = d.p[0];
	out->version = d.p[2];
	/* SPC-4 6.6.2: byte 5 bit 3 3PC, third-party copy commands supported */
	out->tpc = (d.p[5] & 0x08) != 0;
	copy_ascii(out->vendor, d.p + 8, 8);
	copy_ascii(out->product, d.p + 16, 16);
	copy_ascii(out->revision, d.p + 32, 4);
	return 0;
}

/* SPC-4 7.8.6: Device Identification VPD page, descriptors from byte 4 */
int
xcm_vpd_devid_next(struct xcm_span page, size_t *off, struct xcm_designator *out)
{
	struct xcm_span hdr, body, dh, dd;
	size_t pos;

	if (!xcm_span_sub(page, 0, XCM_VPD_HDR_LEN, &hdr) || hdr.p[1] != XCM_VPD_DEVICE_ID) {
		return -EINVAL;
	}
	/* PAGE LENGTH bounds the walk; the bytes received bound it too */
	if (!xcm_span_sub(page, XCM_VPD_HDR_LEN, xcm_get_be16(hdr.p + 2), &body)) {
		return -EINVAL;
	}
	pos = *off;
	if (pos >= body.len) {
		return 0;
	}
	if (!xcm_span_sub(body, pos, XCM_DESIG_HDR_LEN, &dh)) {
		return -EINVAL;
	}
	if (!xcm_span_sub(body, pos + XCM_DESIG_HDR_LEN, dh.p[3], &dd)) {
		return -EINVAL;
	}
	out->proto = dh.p[0] >> 4;
	out->code_set = dh.p[0] & 0x0F;
	out->piv = (dh.p[1] & 0x80) != 0;
	out->assoc = (dh.p[1] >> 4) & 0x03;
	out->type = dh.p[1] & 0x0F;
	out->len = dh.p[3];
	out->desc = dh.p;
	out->desc_len = XCM_DESIG_HDR_LEN + (size_t)dh.p[3];
	out->body = dd.p;
	*off = pos + out->desc_len;
	return 1;
}

/* SPC-4 6.33: REPORT LUNS, ALLOCATION LENGTH in bytes 6-9 */
void
xcm_cdb_report_luns(uint8_t *cdb, uint32_t alloc_len)
{
	memset(cdb, 0, XCM_CDB12_LEN);
	cdb[0] = XCM_OP_REPORT_LUNS;
	xcm_put_be32(cdb + 6, alloc_len);
}

/* SPC-4 6.33.2 (LUN LIST LENGTH, then 8-byte LUNs), SAM-5 4.7 (the LUN's first level) */
int
xcm_report_luns_next(struct xcm_span s, size_t *off, uint16_t *lun)
{
	struct xcm_span hdr, e;
	size_t end;

	if (!xcm_span_sub(s, 0, XCM_REPORT_LUNS_HDR, &hdr)) {
		return -EINVAL;
	}
	end = XCM_REPORT_LUNS_HDR + (size_t)xcm_get_be32(hdr.p);
	if (end > s.len) {
		end = s.len;
	}
	for (;;) {
		size_t pos = XCM_REPORT_LUNS_HDR + *off;

		if (pos + 8 > end || !xcm_span_sub(s, pos, 8, &e)) {
			return 0;
		}
		*off += 8;
		/* one level only: bytes 2-7 zero */
		if (xcm_get_be16(e.p + 2) != 0 || xcm_get_be32(e.p + 4) != 0) {
			continue;
		}
		if ((e.p[0] >> 6) == 0 && e.p[0] == 0) {   /* peripheral, bus 0 */
			*lun = e.p[1];
			return 1;
		}
		if ((e.p[0] >> 6) == 1) {                  /* flat space */
			*lun = (uint16_t)((e.p[0] & 0x3f) << 8 | e.p[1]);
			return 1;
		}
	}
}

/* SBC-3 6.6.4: Block Limits VPD page */
int
xcm_vpd_b0_decode(struct xcm_span page, struct xcm_block_limits *out)
{
	struct xcm_span d;

	if (!xcm_span_sub(page, 0, 16, &d) || d.p[1] != XCM_VPD_BLOCK_LIMITS) {
		return -EINVAL;
	}
	out->opt_xfer_gran = xcm_get_be16(d.p + 6);
	out->max_xfer_len = xcm_get_be32(d.p + 8);
	out->opt_xfer_len = xcm_get_be32(d.p + 12);
	return 0;
}

/* SBC-3 5.16.2: READ CAPACITY(16) parameter data */
int
xcm_read_capacity16_decode(struct xcm_span s, struct xcm_capacity *out)
{
	struct xcm_span d;

	if (!xcm_span_sub(s, 0, 12, &d)) {
		return -EINVAL;
	}
	out->last_lba = xcm_get_be64(d.p);
	out->block_len = xcm_get_be32(d.p + 8);
	out->lbppbe = 0;
	if (s.len > 13) {
		out->lbppbe = s.p[13] & 0x0F;
	}
	if (out->block_len == 0) {
		return -EINVAL;
	}
	return 0;
}
