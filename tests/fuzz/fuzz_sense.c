/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for sense data: parser (initiator side) and builder.
 *
 * The input is first parsed as sense data: the parser returns 0 or -EINVAL
 * and a forwarded-sense pointer stays inside the input. Then the same bytes
 * fill a struct xcm_err field by field and a cap in 0..96; the built sense
 * must fit the cap without touching the byte after it, and, when at least
 * the 8-byte header was built, parse back with the status table's key and
 * ASC/ASCQ (ASC/ASCQ when present: fixed format needs 14 bytes). Any
 * violation aborts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "xcm/xcm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CANARY 0xA5

#define die(what) fuzz_die("fuzz_sense", (what))

/* Reads the input as a stream of bytes; zeros once it runs out. */
struct reader {
	const uint8_t *p;
	size_t len, off;
};

static uint8_t
rd8(struct reader *r)
{
	return r->off < r->len ? r->p[r->off++] : 0;
}

static uint32_t
rd32(struct reader *r)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		v = (v << 8) | rd8(r);
	}
	return v;
}

static void
check_parse(const uint8_t *data, size_t size)
{
	struct xcm_sense ps;
	int rc;

	rc = xcm_sense_parse(xcm_span_make(data, size), &ps);
	if (rc != 0 && rc != -EINVAL) {
		die("parse: unexpected return");
	}
	if (rc == 0 && ps.fwd_valid &&
	    (ps.fwd_sense < data || ps.fwd_sense + ps.fwd_len > data + size)) {
		die("parse: forwarded sense outside the input");
	}
}

static void
check_build(const uint8_t *data, size_t size)
{
	struct reader r = { data, size, 0 };
	const struct xcm_status_info *si;
	struct xcm_err e;
	struct xcm_sense ps;
	uint8_t buf[XCM_SENSE_MAX + 1];
	uint8_t flags;
	size_t cap, n;
	bool desc;

	memset(&e, 0, sizeof(e));
	flags = rd8(&r);
	desc = (flags & 0x01) != 0;
	e.sks_valid = (flags & 0x02) != 0;
	e.in_cdb = (flags & 0x04) != 0;
	e.sd = (flags & 0x08) != 0;
	e.bit_valid = (flags & 0x10) != 0;
	e.csi_valid = (flags & 0x20) != 0;
	e.info_valid = (flags & 0x40) != 0;
	e.fwd_valid = (flags & 0x80) != 0;
	e.status = (enum xcm_status)(rd8(&r) % XCM_STATUS_COUNT);
	cap = rd8(&r) % (XCM_SENSE_MAX + 1);
	e.bit = rd8(&r);
	e.field = rd32(&r);
	e.csi = rd32(&r);
	e.info = ((uint64_t)rd32(&r) << 32) | rd32(&r);
	e.fwd_status = rd8(&r);
	e.fwd_source = rd8(&r);
	e.fwd_len = rd8(&r);
	for (n = 0; n < sizeof(e.fwd_sense); n++) {
		e.fwd_sense[n] = rd8(&r);
	}

	memset(buf, CANARY, sizeof(buf));
	n = xcm_sense_build(&e, desc, buf, cap);
	if (n > cap || buf[cap] != CANARY) {
		die("build: wrote past the cap");
	}
	if (n < 8) {
		return;
	}
	si = xcm_status_info(e.status);
	if (xcm_sense_parse(xcm_span_make(buf, n), &ps) != 0) {
		die("build: own sense does not parse");
	}
	if (ps.desc != desc || ps.key != si->key) {
		die("build: format or key differs");
	}
	if ((desc || n >= 14) && ps.asc_ascq != si->asc_ascq) {
		die("build: ASC/ASCQ differs");
	}
	if (ps.fwd_valid && (!desc || !e.fwd_valid || ps.fwd_status != e.fwd_status ||
			     memcmp(ps.fwd_sense, e.fwd_sense, ps.fwd_len) != 0)) {
		die("build: forwarded sense differs");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_parse(data, size);
	check_build(data, size);
	return 0;
}
