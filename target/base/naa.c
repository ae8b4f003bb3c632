/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LU's NAA designator as tcmu-runner's core (VPD 0x83 as libtcmu 1.5.4 builds it) and LIO
 * (spc_gen_naa_6h_vendor_specific, default company id) derive it from the
 * unit serial, so a CSCD copied from our own VPD 0x83 page matches.
 */
#include <string.h>

#include "base/lu.h"

#define XT_COMPANY_ID 0x001405u   /* OpenFabrics, hard-coded by tcmu-runner */

void
xt_naa_from_serial(const char *serial, uint8_t naa[16])
{
	size_t off = 3;
	bool low = true;   /* the first digit goes into the low nibble of byte 3 */
	int v;

	memset(naa, 0, 16);
	/* NAA 6 (IEEE Registered Extended) | 24-bit company id, then vendor bits */
	naa[0] = (uint8_t)(0x60 | ((XT_COMPANY_ID >> 20) & 0x0f));
	naa[1] = (uint8_t)(XT_COMPANY_ID >> 12);
	naa[2] = (uint8_t)(XT_COMPANY_ID >> 4);
	naa[3] = (uint8_t)((XT_COMPANY_ID & 0x0f) << 4);
	for (; serial != NULL && *serial != '\0' && off < 16; serial++) {
		v = xos_hex_digit(*serial);
		if (v < 0) {
			continue;   /* '-' and other non-hex characters are skipped */
		}
		if (low) {
			naa[off++] |= (uint8_t)v;
			low = false;
		} else {
			naa[off] = (uint8_t)(v << 4);
			low = true;
		}
	}
}
