/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The iSCSI IPv6 CSCD descriptor (EAh, 64 bytes) and the SAM LUN its LU
 * IDENTIFIER holds: decode + validate for the copy manager (param.c walks
 * the list and calls xcm_cscd_ip6_parse), encode for the initiator
 * (encode.c). Layout and sources: docs/cscd-descriptors.md (SPC-4 7.6.3.9
 * table 496, 6.4.5.1-6.4.5.2). The IPv4 (E5h), alias (E6h) and IP copy
 * service (EBh) CSCDs are not decoded: param.c refuses them (26/07).
 */
#include <errno.h>
#include <string.h>

#include "param_layout.h"
#include "xcm/xcm.h"

static enum xcm_status
fail_field(struct xcm_err *err, uint32_t field, int bit)
{
	xcm_err_set_field(err, XCM_E_INVALID_FIELD_PARAM, false, field, bit);
	return XCM_E_INVALID_FIELD_PARAM;
}

/* RFC 4291 2.4: not the unspecified address (::), not multicast (ff00::/8). */
static bool
ip6_unicast(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return a[0] != 0xFF && memcmp(a, zero, sizeof(zero)) != 0;
}

enum xcm_status
xcm_cscd_ip6_parse(struct xcm_span d, uint32_t off, struct xcm_cscd *c, bool *ext_ok,
		   struct xcm_err *err)
{
	uint8_t flags = d.p[XCM_E4_FLAGS];
	uint8_t luid = flags >> XCM_E4_LUID_SHIFT;
	uint8_t pdt = flags & XCM_E4_PDT_MASK;

	/*
	 * byte 1 bits 7:6: SPC-4 6.4.5.1, support for LU ID TYPE other than 00b
	 * (the LU IDENTIFIER holds a LUN) is optional; an unsupported one is
	 * INVALID FIELD IN PARAMETER LIST. 01b proxy token is not supported.
	 */
	if (luid != 0) {
		return fail_field(err, off + XCM_E4_FLAGS, 7);
	}
	/* byte 1 bits 4:0: block devices only, as for E4h */
	if (pdt != XCM_PDT_BLOCK) {
		return fail_field(err, off + XCM_E4_FLAGS, 4);
	}
	/* bytes 12-27: "shall contain a unicast IPv6 address" (SPC-4 7.6.3.9) */
	if (!ip6_unicast(d.p + XCM_EA_ADDR)) {
		return fail_field(err, off + XCM_EA_ADDR, -1);
	}
	/* byte 1 bit 5 (obsolete NUL): recorded; the executor aborts 08/04 as for E4h */
	xcm_cscd_common_get(d.p, off, XCM_CSCD_IPV6, c);
	memcpy(c->lu_id, d.p + XCM_EA_LU_ID, sizeof(c->lu_id));
	memcpy(c->ip, d.p + XCM_EA_ADDR, sizeof(c->ip));
	/*
	 * byte 32: EXTENSION DESCRIPTOR TYPE CODE FFh, else COPY ABORTED, INVALID
	 * FIELD IN PARAMETER LIST (SPC-4 7.6.3.9), which the caller reports once
	 * the list passed its ILLEGAL REQUEST checks. Bytes 32-63 are then no
	 * extension: their fields are not read.
	 */
	*ext_ok = d.p[XCM_EA_EXT_TYPE] == XCM_CSCD_EXT;
	if (!*ext_ok) {
		return XCM_OK;
	}
	c->port = xcm_get_be16(d.p + XCM_EA_PORT);
	c->ipn = xcm_get_be16(d.p + XCM_EA_IPN);
	/* bytes 38-39: iSCSI is carried by TCP (protocol number 6); nothing else can be reached */
	if (c->ipn != XCM_EA_IPN_TCP) {
		return fail_field(err, off + XCM_EA_IPN, -1);
	}
	/* bytes 36-37: a TCP port, 1..65535 */
	if (c->port == 0) {
		return fail_field(err, off + XCM_EA_PORT, -1);
	}
	return XCM_OK;
}

void
xcm_cscd_ip6_put(const struct xcm_cscd *c, int slot, uint8_t b[XCM_CSCD_LEN])
{
	if (slot != 0) {
		memset(b, 0, XCM_CSCD_LEN);
		b[XCM_EA_EXT_TYPE - XCM_CSCD_LEN] = XCM_CSCD_EXT;
		xcm_put_be16(b + XCM_EA_PORT - XCM_CSCD_LEN, c->port);
		xcm_put_be16(b + XCM_EA_IPN - XCM_CSCD_LEN, c->ipn);
		return;
	}
	xcm_cscd_common_put(c, XCM_CSCD_IPV6, b);
	memcpy(b + XCM_EA_LU_ID, c->lu_id, sizeof(c->lu_id));
	memcpy(b + XCM_EA_ADDR, c->ip, sizeof(c->ip));
}

/* SAM-5 LUN: byte 0 bits 7:6 ADDRESS METHOD, 00b peripheral device, 01b flat space */
enum {
	LUN_METHOD_SHIFT = 6,
	LUN_PERIPHERAL = 0,
	LUN_FLAT = 1,
	LUN_FIELD_MASK = 0x3F,         /* bus identifier (peripheral) / LUN bits 13:8 (flat) */
	LUN_FLAT_MAX = 0x3FFF,
};

int
xcm_lun_single_level(const uint8_t lun[8], uint16_t *out)
{
	static const uint8_t zero[6];
	uint8_t method = lun[0] >> LUN_METHOD_SHIFT;

	/* bytes 2-7: the second to fourth levels, all zero for a single-level LUN */
	if (memcmp(lun + 2, zero, sizeof(zero)) != 0) {
		return -EINVAL;
	}
	if (method == LUN_PERIPHERAL && (lun[0] & LUN_FIELD_MASK) == 0) {
		*out = lun[1];
		return 0;
	}
	if (method == LUN_FLAT) {
		*out = (uint16_t)(((lun[0] & LUN_FIELD_MASK) << 8) | lun[1]);
		return 0;
	}
	return -EINVAL;
}

void
xcm_lun_encode(uint16_t lun, uint8_t out[8])
{
	memset(out, 0, 8);
	lun &= LUN_FLAT_MAX;
	if (lun > 0xFF) {
		out[0] = (uint8_t)((LUN_FLAT << LUN_METHOD_SHIFT) | (lun >> 8));
	}
	out[1] = (uint8_t)(lun & 0xFF);
}
