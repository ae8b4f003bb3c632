/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the host-side response decoders of engine/initiator.c:
 * standard INQUIRY data, the VPD 0x83 designation-descriptor walker, the
 * Block Limits VPD page (B0h), READ CAPACITY(16) data, the REPORT LUNS
 * walker and the READ(16) / WRITE(16) CDB decoder.
 *
 * Every decoder reads the same input as the response a device might return.
 * Invariants, else abort(): each decoder returns only its documented values;
 * it accepts exactly the inputs its contract accepts (length, page code,
 * block length); decoded strings are NUL-terminated printable ASCII; the
 * 0x83 walk ends, advances at each step, and every descriptor it reports lies
 * inside both the page (4 + PAGE LENGTH) and the bytes received; the REPORT
 * LUNS walk ends, each LUN from a whole single-level 00b/01b entry inside
 * LUN LIST LENGTH and the input, below 16384.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "xcm/initiator.h"
#include "xcm/xcm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define die(what) fuzz_die("fuzz_initiator", (what))

static void
check_ascii(const char *s, size_t n)
{
	size_t i;

	if (s[n] != '\0') {
		die("inquiry: string not NUL terminated");
	}
	for (i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] >= 0x7F) {
			die("inquiry: non-printable byte kept");
		}
	}
}

static void
check_inquiry(const uint8_t *data, size_t size)
{
	struct xcm_std_inquiry q;
	int rc;

	rc = xcm_inquiry_std_decode(xcm_span_make(data, size), &q);
	if (rc != 0 && rc != -EINVAL) {
		die("inquiry: unexpected return");
	}
	if ((rc == 0) != (size >= XCM_STD_INQUIRY_MIN)) {
		die("inquiry: accepted a short buffer or refused a long one");
	}
	if (rc != 0) {
		return;
	}
	if (q.pdt_byte != data[0] || q.version != data[2] || q.tpc != ((data[5] & 0x08) != 0)) {
		die("inquiry: header fields differ from the bytes");
	}
	check_ascii(q.vendor, 8);
	check_ascii(q.product, 16);
	check_ascii(q.revision, 4);
}

static void
check_devid(const uint8_t *data, size_t size)
{
	struct xcm_designator d;
	size_t off = 0, prev, end;
	unsigned int steps = 0;
	int rc;

	end = size >= 4 ? 4 + (size_t)xcm_get_be16(data + 2) : 0;
	for (;;) {
		prev = off;
		rc = xcm_vpd_devid_next(xcm_span_make(data, size), &off, &d);
		if (rc != 1 && rc != 0 && rc != -EINVAL) {
			die("devid: unexpected return");
		}
		if (rc != 1) {
			if (rc == 0 && (size < 4 || data[1] != XCM_VPD_DEVICE_ID || end > size)) {
				die("devid: walked a page that is not a whole 0x83 page");
			}
			break;
		}
		if (size < 4 || data[1] != XCM_VPD_DEVICE_ID || end > size) {
			die("devid: descriptor from a page that is not a whole 0x83 page");
		}
		if (off <= prev || off != prev + d.desc_len || d.desc_len != 4u + d.len) {
			die("devid: offset did not advance by the descriptor length");
		}
		if (d.desc != data + 4 + prev || d.body != d.desc + 4) {
			die("devid: descriptor not where the walk stood");
		}
		if (d.desc + d.desc_len > data + end) {
			die("devid: descriptor runs past PAGE LENGTH or the input");
		}
		if (d.assoc > 3 || d.type > 15 || d.code_set > 15 || d.proto > 15) {
			die("devid: field wider than its bits");
		}
		if (++steps > size) {
			die("devid: walk does not end");
		}
	}
}

static void
check_b0(const uint8_t *data, size_t size)
{
	struct xcm_block_limits bl;
	int rc;

	rc = xcm_vpd_b0_decode(xcm_span_make(data, size), &bl);
	if (rc != 0 && rc != -EINVAL) {
		die("b0: unexpected return");
	}
	if ((rc == 0) != (size >= 16 && data[1] == XCM_VPD_BLOCK_LIMITS)) {
		die("b0: acceptance differs from the contract");
	}
	if (rc == 0 && (bl.max_xfer_len != xcm_get_be32(data + 8) ||
			bl.opt_xfer_len != xcm_get_be32(data + 12) ||
			bl.opt_xfer_gran != xcm_get_be16(data + 6))) {
		die("b0: fields differ from the bytes");
	}
}

static void
check_capacity(const uint8_t *data, size_t size)
{
	struct xcm_capacity c;
	int rc;

	rc = xcm_read_capacity16_decode(xcm_span_make(data, size), &c);
	if (rc != 0 && rc != -EINVAL) {
		die("rc16: unexpected return");
	}
	if ((rc == 0) != (size >= 12 && xcm_get_be32(data + 8) != 0)) {
		die("rc16: acceptance differs from the contract");
	}
	if (rc == 0 && (c.last_lba != xcm_get_be64(data) || c.block_len == 0 || c.lbppbe > 15)) {
		die("rc16: fields differ from the bytes");
	}
}

static void
check_report_luns(const uint8_t *data, size_t size)
{
	size_t off = 0, prev, end;
	uint16_t lun;
	int rc;

	end = size >= 8 ? 8 + (size_t)xcm_get_be32(data) : 0;
	if (end > size) {
		end = size;
	}
	for (;;) {
		const uint8_t *e;

		prev = off;
		rc = xcm_report_luns_next(xcm_span_make(data, size), &off, &lun);
		if (rc != 1 && rc != 0 && rc != -EINVAL) {
			die("report luns: unexpected return");
		}
		if ((rc == -EINVAL) != (size < 8)) {
			die("report luns: header refused or a short one accepted");
		}
		if (rc != 1) {
			break;
		}
		if (off <= prev || off % 8 != 0 || 8 + off > end) {
			die("report luns: entry not inside the list");
		}
		e = data + off;   /* the entry reported: the last 8 bytes walked */
		if (xcm_get_be16(e + 2) != 0 || xcm_get_be32(e + 4) != 0 || e[0] >= 0x80 ||
		    (e[0] >> 6 == 0 && e[0] != 0) || lun > 16383 ||
		    lun != (uint16_t)((e[0] & 0x3f) << 8 | e[1])) {
			die("report luns: LUN not of its entry");
		}
	}
}

static void
check_rw16(const uint8_t *data, size_t size)
{
	uint64_t lba;
	uint32_t n;
	uint8_t cdb[XCM_CDB16_LEN];
	int rc;

	rc = xcm_cdb_rw16_decode(data, size, &lba, &n);
	if (rc != 0 && rc != -EINVAL) {
		die("rw16: unexpected return");
	}
	if (rc != 0) {
		return;
	}
	/* what decodes re-encodes to the same LBA and count */
	if (data[0] == XCM_OP_READ_16) {
		xcm_cdb_read16(cdb, lba, n);
	} else {
		xcm_cdb_write16(cdb, lba, n);
	}
	if (cdb[0] != data[0] || memcmp(cdb + 2, data + 2, 12) != 0) {
		die("rw16: re-encoded CDB differs");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_inquiry(data, size);
	check_devid(data, size);
	check_b0(data, size);
	check_capacity(data, size);
	check_report_luns(data, size);
	check_rw16(data, size);
	return 0;
}
