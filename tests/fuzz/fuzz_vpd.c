/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the Third-party Copy VPD page decoder (initiator side).
 *
 * Input: a VPD page 8Fh as a device might return it. Invariants, else
 * abort(): the decoder returns 0 or -EINVAL; a page it accepts has page code
 * 8Fh and a PAGE LENGTH inside the buffer, and no list it reports is longer
 * than the page.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "xcm/xcm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define die(what) fuzz_die("fuzz_vpd", (what))

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xcm_tpc_info t;
	int rc;

	rc = xcm_vpd_tpc_decode(xcm_span_make(data, size), &t);
	if (rc != 0 && rc != -EINVAL) {
		die("unexpected return");
	}
	if (rc != 0) {
		return 0;
	}
	if (size < 4 || data[1] != XCM_VPD_TPC || 4u + xcm_get_be16(data + 2) > size) {
		die("accepted a page that is not a whole 8Fh page");
	}
	if (t.n_descs > size || (size_t)t.n_cscd_ids * 2 > size) {
		die("a list longer than the page");
	}
	if (t.has_param_data && size < 4 + 32) {
		die("Parameter Data from a page too short for it");
	}
	if (t.has_bdrl && size < 4 + 36) {
		die("Block Device ROD Token Limits from a page too short for it");
	}
	return 0;
}
