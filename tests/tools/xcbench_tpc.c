/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcbench: raw LID4 third-party copy commands through SG_IO, for the lab:
 *
 *   xcbench lid4 DEV ID SRC_LBA DST_LBA BLOCKS   EXTENDED COPY (LID4) inside one LU
 *                                                (CSCD ID FFFFh, 4 MiB segments)
 *   xcbench lid1 DEV ID SRC_LBA DST_LBA BLOCKS   the same as a LID1 list (id <= 255)
 *   xcbench rcs4 DEV ID                          RECEIVE COPY STATUS (LID4)
 *   xcbench abort DEV ID                         COPY OPERATION ABORT
 *   xcbench cfr F1 OFF1 F2 OFF2 LEN              copy_file_range loop between two files
 *   xcbench pt|wut|winpat ...                    token commands (xcbench_odx.c)
 *                                                (the store's own copy: the bench's limit row)
 *
 * Each prints one line: "status S key K asc A csi C" (sense fields of a
 * CHECK CONDITION, else 0), and rcs4 also
 * "op_status O cmd_status S bytes N segs N sense_len N". Exit 0 when the
 * command returned a SCSI status (whatever it was), 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xcm/lid4.h"
#include "copy/xch_copy.h"

enum {
	SEG_BLOCKS = 8192,   /* 4 MiB of 512-byte blocks: the target's maximum segment length */
};

int xcbench_tpc(int argc, char **argv);
/* Send c to dev by SG_IO (UNIT ATTENTION retried), print its status line; 0 or 1. */
int xcbench_sg_run(const char *dev, struct xch_cmd *c);
int xcbench_odx(int argc, char **argv);

static uint64_t
num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0') {
		fprintf(stderr, "xcbench: bad number '%s'\n", s);
		exit(1);
	}
	return v;
}

int
xcbench_sg_run(const char *dev, struct xch_cmd *c)
{
	const struct xch_transport_ops *ops;
	struct xcm_sense s;
	int rc, tries;
	void *ctx;

	rc = xch_sg_open(dev, &ops, &ctx);
	if (rc != 0) {
		fprintf(stderr, "xcbench: %s: %s\n", dev, strerror(-rc));
		return 1;
	}
	c->timeout_s = 120;
	/* a UNIT ATTENTION (new nexus, LUN change) is reported once: send again, as initiators do */
	for (tries = 0; tries < 4; tries++) {
		rc = ops->exec(ctx, c);
		if (rc != 0 || c->status != XCM_SAM_CHECK_CONDITION ||
		    xcm_sense_parse(xcm_span_make(c->sense, c->sense_len), &s) != 0 ||
		    s.key != XCM_SK_UNIT_ATTENTION) {
			break;
		}
	}
	ops->close(ctx);
	if (rc != 0) {
		fprintf(stderr, "xcbench: %s: no status: %s\n", dev, strerror(-rc));
		return 1;
	}
	memset(&s, 0, sizeof(s));
	if (c->status == XCM_SAM_CHECK_CONDITION &&
	    xcm_sense_parse(xcm_span_make(c->sense, c->sense_len), &s) == 0) {
		printf("status %u key 0x%02x asc 0x%04x csi %" PRIu64 "\n", c->status, s.key,
		       s.asc_ascq, s.csi_valid ? s.csi : UINT64_MAX);
	} else {
		printf("status %u key 0 asc 0 csi 0\n", c->status);
	}
	return 0;
}

static int
cmd_xcopy(char **argv, bool lid4)
{
	static struct xcm_list l;
	uint64_t slba = num(argv[4]), dlba = num(argv[5]), left = num(argv[6]);
	uint8_t cdb[XCM_CDB16_LEN], buf[XCM_PLIST4_HDR_LEN + 64 * XCM_SEG_B2B_LEN];
	struct xcm_wbuf w;
	struct xch_cmd c;
	size_t n;

	memset(&l, 0, sizeof(l));
	l.lid4 = lid4;
	l.list_id4 = (uint32_t)num(argv[3]);
	l.list_id = (uint8_t)num(argv[3]);
	l.list_id_usage = XCM_LIST_ID_HOLD;
	l.self.pdt = XCM_PDT_BLOCK;
	while (left > 0 && l.nseg < 64) {
		struct xcm_segment *s = &l.seg[l.nseg++];
		uint32_t k = left < SEG_BLOCKS ? (uint32_t)left : SEG_BLOCKS;

		s->type = XCM_SEG_B2B;
		s->src = &l.self;   /* CSCD ID FFFFh: the LU that receives the command */
		s->dst = &l.self;
		s->count = k;
		s->src_lba = slba;
		s->dst_lba = dlba;
		slba += k;
		dlba += k;
		left -= k;
	}
	w = xcm_wbuf_make(buf, sizeof(buf));
	n = lid4 ? xcm_list_encode_lid4(&l, &w) : xcm_list_encode(&l, &w);
	if (n > sizeof(buf)) {
		return 1;
	}
	if (lid4) {
		xcm_cdb_xcopy_lid4(cdb, (uint32_t)n);
	} else {
		xcm_cdb_xcopy(cdb, (uint32_t)n);
	}
	memset(&c, 0, sizeof(c));
	c.cdb = cdb;
	c.cdb_len = sizeof(cdb);
	c.dir = XCH_DIR_OUT;
	c.buf = buf;
	c.len = n;
	return xcbench_sg_run(argv[2], &c);
}

static int
cmd_rcs4(char **argv)
{
	uint8_t cdb[XCM_CDB16_LEN], buf[256];
	struct xcm_rcs4 st;
	struct xch_cmd c;
	int rc;

	xcm_cdb_rcs4(cdb, (uint32_t)num(argv[3]), sizeof(buf));
	memset(&c, 0, sizeof(c));
	memset(buf, 0, sizeof(buf));
	c.cdb = cdb;
	c.cdb_len = sizeof(cdb);
	c.dir = XCH_DIR_IN;
	c.buf = buf;
	c.len = sizeof(buf);
	rc = xcbench_sg_run(argv[2], &c);
	if (rc == 0 && c.status == XCM_SAM_GOOD) {
		if (xcm_rcs4_decode(xcm_span_make(buf, sizeof(buf) - c.resid), &st) != 0) {
			fprintf(stderr, "xcbench rcs4: malformed response\n");
			return 1;
		}
		printf("op_status 0x%02x cmd_status %u bytes %" PRIu64 " segs %u sense_len %u\n",
		       st.op_status, st.cmd_status, st.bytes, st.segs, st.sense_len);
	}
	return rc;
}

static int
cmd_abort(char **argv)
{
	uint8_t cdb[XCM_CDB16_LEN];
	struct xch_cmd c;

	xcm_cdb_copy_op_abort(cdb, (uint32_t)num(argv[3]));
	memset(&c, 0, sizeof(c));
	c.cdb = cdb;
	c.cdb_len = sizeof(cdb);
	c.dir = XCH_DIR_NONE;
	return xcbench_sg_run(argv[2], &c);
}

/* cfr F1 OFF1 F2 OFF2 LEN [CHUNK]: copy_file_range calls of at most CHUNK bytes */
static int
cmd_cfr(int argc, char **argv)
{
	loff_t in = (loff_t)num(argv[3]), out = (loff_t)num(argv[5]);
	uint64_t left = num(argv[6]), chunk = argc > 7 ? num(argv[7]) : 0;
	int a = open(argv[2], O_RDONLY), b = open(argv[4], O_WRONLY);
	ssize_t n;

	if (a < 0 || b < 0) {
		perror("xcbench cfr: open");
		return 1;
	}
	while (left > 0) {
		n = copy_file_range(a, &in, b, &out, chunk > 0 && chunk < left ? chunk : left, 0);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			perror("xcbench cfr: copy_file_range");
			return 1;
		}
		left -= (uint64_t)n;
	}
	close(a);
	close(b);
	return 0;
}

/*
 * sparse FILE SPAN N LEN: N extents of LEN pseudo-random bytes, extent i at
 * i * (SPAN / N), holes between (the clone scale row: the same extent count
 * over 1 GiB and 64 GiB). sparsecmp F1 OFF1 F2 OFF2 SPAN N LEN: the N extents
 * and the middle of every hole compare equal (exit 2 if not).
 */
static int
cmd_sparse(char **argv, bool cmp)
{
	int a = cmp ? 6 : 3;   /* index of SPAN */
	uint64_t span = num(argv[a]), n = num(argv[a + 1]), len = num(argv[a + 2]);
	uint64_t stride = n > 0 ? span / n : 0, i, k, x;
	uint64_t o1 = cmp ? num(argv[3]) : 0, o2 = cmp ? num(argv[5]) : 0;
	int f1 = open(argv[2], cmp ? O_RDONLY : O_WRONLY), f2 = cmp ? open(argv[4], O_RDONLY) : -1;
	uint64_t *b1 = malloc(len + 8), *b2 = malloc(len + 8);

	if (f1 < 0 || (cmp && f2 < 0) || b1 == NULL || b2 == NULL || n == 0 || len > stride) {
		perror("xcbench sparse");
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint64_t at = i * stride;

		if (!cmp) {
			x = (i + 1) * 0x9E3779B97F4A7C15ULL;
			for (k = 0; k < len / 8; k++) {
				x ^= x >> 12;
				x ^= x << 25;
				x ^= x >> 27;
				b1[k] = x * 0x2545F4914F6CDD1DULL;
			}
			if (pwrite(f1, b1, len, (off_t)at) != (ssize_t)len) {
				perror("xcbench sparse: pwrite");
				return 1;
			}
			continue;
		}
		/* the extent, then 4 KiB from the middle of the hole after it */
		for (k = 0; k < 2; k++) {
			uint64_t o = k == 0 ? at : at + len + (stride - len) / 2;
			size_t m = k == 0 ? len : 4096;

			if (k == 1 && stride - len < 8192) {
				break;
			}
			if (pread(f1, b1, m, (off_t)(o1 + o)) != (ssize_t)m ||
			    pread(f2, b2, m, (off_t)(o2 + o)) != (ssize_t)m || memcmp(b1, b2, m) != 0) {
				printf("differ at +%llu\n", (unsigned long long)o);
				return 2;
			}
		}
	}
	if (!cmp && fsync(f1) != 0) {
		perror("xcbench sparse: fsync");
		return 1;
	}
	close(f1);
	if (f2 >= 0) {
		close(f2);
	}
	free(b1);
	free(b2);
	return 0;
}

/* argv[1] is lid4, lid1, rcs4, abort, cfr, sparse or sparsecmp; -1 if none. */
int
xcbench_tpc(int argc, char **argv)
{
	if (strcmp(argv[1], "lid4") == 0 && argc == 7) {
		return cmd_xcopy(argv, true);
	}
	if (strcmp(argv[1], "lid1") == 0 && argc == 7) {
		return cmd_xcopy(argv, false);
	}
	if (strcmp(argv[1], "rcs4") == 0 && argc == 4) {
		return cmd_rcs4(argv);
	}
	if (strcmp(argv[1], "abort") == 0 && argc == 4) {
		return cmd_abort(argv);
	}
	if (strcmp(argv[1], "cfr") == 0 && (argc == 7 || argc == 8)) {
		return cmd_cfr(argc, argv);
	}
	if (strcmp(argv[1], "sparse") == 0 && argc == 6) {
		return cmd_sparse(argv, false);
	}
	if (strcmp(argv[1], "sparsecmp") == 0 && argc == 9) {
		return cmd_sparse(argv, true);
	}
	return xcbench_odx(argc, argv);   /* pt, wut, winpat (xcbench_odx.c) */
}
