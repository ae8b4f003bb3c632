/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the RECEIVE COPY RESULTS decoders (initiator side).
 *
 * Input: an RCR response as a copy manager might return it. It goes to both
 * decoders (OPERATING PARAMETERS and COPY STATUS) and, when long enough, its
 * first 16 bytes to the CDB check. Invariants, else abort(): the decoded
 * code list never exceeds the bytes present; a COPY STATUS that decodes
 * re-encodes to the same bytes 4-11; the CDB check accepts only supported
 * service actions.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "xcm/xcm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define die(what) fuzz_die("fuzz_rcr", (what))

static void
check_cdb(const uint8_t *data, size_t size)
{
	struct xcm_rcr_req req;
	struct xcm_err err;
	const uint8_t *sas;
	size_t n, i;
	bool found = false;

	if (xcm_rcr_cdb_check(data, size, &req, &err) != XCM_OK) {
		if (err.status == XCM_OK) {
			die("CDB error without a status");
		}
		return;
	}
	sas = xcm_supported_rcr_sas(&n);
	for (i = 0; i < n; i++) {
		found = found || sas[i] == req.sa;
	}
	if (!found || req.alloc_len != xcm_get_be32(data + 10)) {
		die("CDB accepted with an unsupported SA or wrong length");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xcm_span s = xcm_span_make(data, size);
	struct xcm_op_params op;
	struct xcm_copy_status cs;
	uint8_t enc[12];
	struct xcm_wbuf w;
	int rc;

	rc = xcm_rcr_decode_op_params(s, &op);
	if (rc != 0 && rc != -EINVAL) {
		die("op params: unexpected return");
	}
	if (rc == 0 && (size < 44 || op.n_impl > size - 44)) {
		die("op params: more codes than bytes");
	}

	rc = xcm_rcr_decode_copy_status(s, &cs);
	if (rc != 0 && rc != -EINVAL) {
		die("copy status: unexpected return");
	}
	if (rc == 0) {
		w = xcm_wbuf_make(enc, sizeof(enc));
		xcm_rcr_encode_copy_status(&cs, &w);
		if (w.len != sizeof(enc) || memcmp(enc + 4, data + 4, 8) != 0) {
			die("copy status: re-encode differs");
		}
	}

	if (size >= XCM_CDB16_LEN) {
		check_cdb(data, size);
	}
	return 0;
}
