/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plugin tests: fault injection (target/fault/fault.c), SBC CDB checks, write cache. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "xcm/wire.h"

/* ------------------------------------------------------------------------ */
/* fault injection in the file backend (target/fault/fault.c)                       */
/* ------------------------------------------------------------------------ */

/* a.img -> b.img as three held segments: 1024, 3072, 512 blocks (1 + 2 + 1 backend writes) */
#define FT_SRC 0u
#define SER_D "dddd0000-1111-2222-3333-444455556666"
#define FT_DST 3000u
static const uint32_t g_ft_count[3] = { 1024, 3072, 512 };

static void
ft_list(uint8_t id)
{
	uint64_t s = FT_SRC, d = FT_DST;
	int i;

	list_one(SER_A, SER_B, 1, 0, 0, XCM_LIST_ID_HOLD, id);
	g_list->nseg = 3;
	for (i = 0; i < 3; i++) {
		g_list->seg[i] = g_list->seg[0];
		g_list->seg[i].count = g_ft_count[i];
		g_list->seg[i].src_lba = s;
		g_list->seg[i].dst_lba = d;
		s += g_ft_count[i];
		d += g_ft_count[i];
	}
}

struct ft_case {
	const char *spec;        /* control file text */
	const char *lu;          /* the LU it is armed on */
	bool good;               /* the copy must complete */
	bool at_dst;
	uint8_t fwd_key;         /* forwarded sense of the failed sub-I/O */
	uint16_t fwd_asc;
	uint64_t written;        /* bytes of the destination range written */
};

/* The sense of a failed ft_case copy, and FAILED SEGMENT DETAILS of its held list id. */
static void
ft_failed(const struct ft_case *c, uint8_t id, const uint8_t *sense)
{
	uint8_t cdb[16], buf[1024];
	struct xcm_sks_ptr ptr;
	struct xcm_sense ps, fs;

	/* COPY ABORTED 0D/01 naming segment 1 and its source or destination CSCD ID */
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE));
	CHECK(xcm_sense_parse(xcm_span_make(sense, 96), &ps) == 0);
	CHECK(ps.csi_valid && ps.csi == 1);
	/* segment pointer (SPC-4 4.5.2.4.5): SD = 1, byte 4 (source) or 6 (destination) */
	CHECK(xcm_sense_sks_ptr(&ps, &ptr) && ptr.sd && ptr.field == (c->at_dst ? 6 : 4));
	CHECK(ps.fwd_valid && ps.fwd_source == (c->at_dst ? 2 : 1) &&
	      ps.fwd_status == XCM_SAM_CHECK_CONDITION && ps.fwd_len >= 14);
	if (ps.fwd_valid && ps.fwd_len >= 14) {
		CHECK(xcm_sense_parse(xcm_span_make(ps.fwd_sense, ps.fwd_len), &fs) == 0 &&
		      fs.key == c->fwd_key && fs.asc_ascq == c->fwd_asc);
	}
	/* FAILED SEGMENT DETAILS of the held list: CHECK CONDITION + the same sense */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_FAILED_SEGMENT, id, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(buf[56] == XCM_SAM_CHECK_CONDITION);
	CHECK(xcm_get_be16(buf + 58) >= 8 &&
	      xcm_sense_parse(xcm_span_make(buf + 60, xcm_get_be16(buf + 58)), &ps) == 0 &&
	      ps.key == XCM_SK_COPY_ABORTED && ps.csi_valid && ps.csi == 1);
}

static void
ft_run(const struct ft_case *c, uint8_t id)
{
	const uint64_t total = (uint64_t)(1024 + 3072 + 512) * BS;
	struct xcm_copy_status cs;
	uint8_t sense[96], rsense[96], cdb[16], buf[1024];
	char ctl[64];
	int sts;

	fill_pattern("a.img", FT_SRC * BS, total, (uint8_t)(id * 13));
	fill_pattern("b.img", 0, (uint64_t)NLBAS * BS, (uint8_t)(id * 29 + 1));
	snapshot("a.img", "a.orig");
	snapshot("b.img", "b.orig");
	snprintf(ctl, sizeof(ctl), "stats/%s.fault", c->lu);
	put_file(ctl, c->spec);
	ft_list(id);
	sts = send_xcopy(&g_a, 0, 0, sense);
	/* the control file was consumed */
	path_of((char *)buf, sizeof(buf), ctl);
	CHECK(access((char *)buf, F_OK) != 0);
	/* COPY STATUS (before FAILED SEGMENT DETAILS, which is read-once): segments
	 * done and the exact byte count written */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, id, 12);
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 12, rsense) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_copy_status(xcm_span_make(buf, 12), &cs) == 0);
	CHECK(cs.cm_status == (c->good ? XCM_CM_STATUS_GOOD : XCM_CM_STATUS_ERROR));
	CHECK(cs.segs_processed == (c->good ? 3 : 1));
	CHECK(cs.units == XCM_TC_UNITS_BYTES && cs.transfer_count == c->written);
	if (c->good) {
		CHECK(sts == TCMU_STS_OK);
	} else {
		CHECK(sts == TCMU_STS_PASSTHROUGH_ERR);
		ft_failed(c, id, sense);
	}
	/* destination: the bytes written equal the source, every other byte is unchanged */
	CHECK(same_bytes("b.img", FT_DST * BS, "a.img", FT_SRC * BS, c->written));
	CHECK(same_bytes("b.img", FT_DST * BS + c->written, "b.orig", FT_DST * BS + c->written,
			 total - c->written));
	CHECK(same_bytes("b.img", 0, "b.orig", 0, FT_DST * BS));
	CHECK(same_bytes("b.img", FT_DST * BS + total, "b.orig", FT_DST * BS + total,
			 (uint64_t)NLBAS * BS - FT_DST * BS - total));
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
	if (g_verbose) {
		fprintf(stderr, "  fault %.*s on %s: sts %d, %llu bytes written\n",
			(int)strcspn(c->spec, "\n"), c->spec, c->lu, sts,
			(unsigned long long)cs.transfer_count);
	}
}

void
test_faults(void)
{
	const uint64_t seg0 = 1024 * BS, mib = 1u << 20;
	const struct ft_case cases[] = {
		/* reads from a.img: seg 0 (1), seg 1 first MiB (2), seg 1 rest (3) */
		{ "read:3\n", "lu_a", false, false, XCM_SK_MEDIUM_ERROR,
		  XCM_ASC_UNRECOVERED_READ_ERROR, seg0 + mib },
		{ "read:2\n", "lu_a", false, false, XCM_SK_MEDIUM_ERROR,
		  XCM_ASC_UNRECOVERED_READ_ERROR, seg0 },
		{ "write:3\n", "lu_b", false, true, XCM_SK_MEDIUM_ERROR, XCM_ASC_WRITE_ERROR,
		  seg0 + mib },
		{ "enospc:2\n", "lu_b", false, true, XCM_SK_DATA_PROTECT, XCM_ASC_NO_SPACE, seg0 },
		{ "enospc:3\n", "lu_b", false, true, XCM_SK_DATA_PROTECT, XCM_ASC_NO_SPACE,
		  seg0 + mib },
		/* the 3rd write (512 KiB) stops after 256 KiB, then the disk is full */
		{ "short:3\n", "lu_b", false, true, XCM_SK_DATA_PROTECT, XCM_ASC_NO_SPACE,
		  seg0 + mib + 256 * 1024 },
		/* a short first MiB of seg 1: the short-write loop completes it */
		{ "shortok:2\n", "lu_b", true, true, 0, 0, (uint64_t)(1024 + 3072 + 512) * BS },
		/* armed beyond this copy: nothing fires, the next copy would count on */
		{ "write:99\n", "lu_b", true, true, 0, 0, (uint64_t)(1024 + 3072 + 512) * BS },
	};
	uint64_t io0 = stat_of("lu_a", "io_errors");
	uint8_t sense[96];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ft_run(&cases[i], (uint8_t)(40 + i));
	}
	CHECK(stat_of("lu_a", "io_errors") == io0 + 6);
	/* write:99 still armed on B: disarm it; after that B is back to clone/cfr */
	put_file("stats/lu_b.fault", "off\n");
	list_one(SER_A, SER_B, 8, 0, 0, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
}

/* bytes the LU's copies moved, by any path (clone, copy_file_range, read/write) */
static uint64_t
moved_bytes(const char *lu)
{
	return stat_of(lu, "clone_bytes") + stat_of(lu, "cfr_bytes") + stat_of(lu, "rw_bytes");
}

/* delay:MS slows every backend call down until off; the bytes still move by the
 * production path (the same policy as without a fault) */
void
test_fault_delay(void)
{
	uint8_t sense[96];

	fill_pattern("a.img", 0, 512 * BS, 0x2D);
	{
		uint64_t m0 = moved_bytes("lu_a"), cl0 = stat_of("lu_a", "clone_bytes");
		uint64_t cf0 = stat_of("lu_a", "cfr_bytes") + stat_of("lu_a", "rw_direct_bytes");
		struct timespec t0, t1;

		put_file("stats/lu_b.fault", "delay:20\n");
		list_one(SER_A, SER_B, 256, 100, 200, XCM_LIST_ID_NONE, 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		CHECK((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 20);
		CHECK(moved_bytes("lu_a") == m0 + 256 * BS);
		/* the delayed copy took the path an unarmed copy takes here (the
		 * test's files are on one file system: clone, the direct read/write
		 * loop or copy_file_range) */
		CHECK(stat_of("lu_a", "clone_bytes") + stat_of("lu_a", "cfr_bytes") +
		      stat_of("lu_a", "rw_direct_bytes") == cl0 + cf0 + 256 * BS);
		CHECK(same_bytes("b.img", 200 * BS, "a.img", 100 * BS, 256 * BS));
		put_file("stats/lu_b.fault", "off\n");
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
		CHECK(moved_bytes("lu_a") == m0 + 512 * BS);
	}
	/* a bad control file is ignored (logged) and consumed */
	put_file("stats/lu_b.fault", "write:0\n");
	g_last_err[0] = '\0';
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(strstr(g_last_err, "write:0") != NULL);
}

/* cfgstring: fault=KIND:N checked by check_config, armed at open */
void
test_fault_cfgstring(void)
{
	uint8_t sense[96];
	char cfg[600];

	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?fault=read:1&clone=never", g_tmp);
	expect_config(cfg, true, NULL);
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?fault=write:0", g_tmp);
	expect_config(cfg, false, "fault=write:0");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?fault=torn:1", g_tmp);
	expect_config(cfg, false, "fault=torn:1");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?fault=read", g_tmp);
	expect_config(cfg, false, "fault=read");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?fault=read:4294967296", g_tmp);
	expect_config(cfg, false, "fault=read:4294967296");
	{
		struct tcmu_device d;

		make_backing("d.img", (uint64_t)NLBAS * BS);
		fill_pattern("d.img", 0, 64 * BS, 0x5A);
		dev_setup(&d, 3, 4, "lu_d", "d.img", "?fault=read:1", SER_D);
		CHECK(g_handler->open(&d, false) == 0);
		/* the first read of d.img fails: COPY ABORTED, source side, nothing written */
		list_one(SER_D, SER_D, 64, 0, 1000, XCM_LIST_ID_NONE, 0);
		snapshot("d.img", "d.orig");
		CHECK(send_xcopy(&d, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE));
		CHECK(same_bytes("d.img", 0, "d.orig", 0, (uint64_t)NLBAS * BS));
		/* one shot: the same copy now succeeds */
		CHECK(send_xcopy(&d, 0, 0, sense) == TCMU_STS_OK);
		CHECK(same_bytes("d.img", 1000 * BS, "d.orig", 0, 64 * BS));
		g_handler->close(&d);
	}
}

/* ------------------------------------------------------------------------ */
/* block command field checks (target/tcmu/sbc_check.c) and the write cache       */
/* ------------------------------------------------------------------------ */

/*
 * cdb[0] = op, cdb[1] = b1 on a CDB of len bytes. Returns the handler's
 * status; sense gets the sense buffer.
 */
static int
sbc_cmd(struct tcmu_device *d, uint8_t op, uint8_t b1, size_t len, uint8_t *sense)
{
	uint8_t cdb[16], buf[1024];

	memset(cdb, 0, sizeof(cdb));
	memset(buf, 0, sizeof(buf));
	cdb[0] = op;
	cdb[1] = b1;
	if (len == 16) {
		cdb[13] = 1;   /* one block (READ/WRITE(16), WRITE SAME(16), CAW) */
	} else {
		cdb[len == 12 ? 9 : 8] = 1;
	}
	return run_cmd(d, cdb, buf, BS, sense);
}

/* Fixed sense 70h, ILLEGAL REQUEST 24/00, SKSV | C/D | BPV, bit, field byte 1. */
static bool
is_invalid_cdb_bit(const uint8_t *s, uint8_t bit)
{
	static const uint8_t want[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0,
					  0x24, 0x00, 0, 0xC8, 0x00, 0x01 };
	uint8_t w[18];

	memcpy(w, want, sizeof(w));
	w[15] |= bit;
	if (memcmp(s, w, sizeof(w)) != 0) {
		fprintf(stderr, "  sense %02x %02x .. %02x/%02x sks %02x %02x %02x (want bit %u)\n",
			s[0], s[2], s[12], s[13], s[15], s[16], s[17], bit);
		return false;
	}
	return true;
}

void
test_sbc_checks(void)
{
	/* opcode, CDB length, FUA checked */
	static const struct {
		uint8_t op;
		uint8_t len;
		bool fua;
	} rw[] = {
		{ 0x28, 10, true }, { 0xA8, 12, true }, { 0x88, 16, true },   /* READ */
		{ 0x2A, 10, true }, { 0xAA, 12, true }, { 0x8A, 16, true },   /* WRITE */
		{ 0x89, 16, true },                                          /* COMPARE AND WRITE */
		{ 0x2E, 10, false }, { 0x8E, 16, false },                    /* WRITE AND VERIFY */
		{ 0x41, 10, false }, { 0x93, 16, false },                    /* WRITE SAME */
	};
	struct tcmu_device *lus[] = { &g_a, &g_c };   /* engine and xcopy=core LUs alike */
	uint8_t sense[96];
	size_t i, j;
	uint8_t p;

	for (j = 0; j < 2; j++) {
		for (i = 0; i < sizeof(rw) / sizeof(rw[0]); i++) {
			/* every RDPROTECT / WRPROTECT value 1..7: pointer at the field's MSB */
			for (p = 1; p < 8; p++) {
				CHECK(sbc_cmd(lus[j], rw[i].op, (uint8_t)(p << 5), rw[i].len, sense) ==
				      TCMU_STS_PASSTHROUGH_ERR);
				CHECK(is_invalid_cdb_bit(sense, 7));
			}
			/* protect is reported before DPO / ANCHOR */
			CHECK(sbc_cmd(lus[j], rw[i].op, 0x20 | 0x10, rw[i].len, sense) ==
			      TCMU_STS_PASSTHROUGH_ERR);
			CHECK(is_invalid_cdb_bit(sense, 7));
			if (rw[i].op == 0x41 || rw[i].op == 0x93) {
				continue;
			}
			/* DPO, then FUA (DPOFUA = 0 in MODE SENSE) */
			CHECK(sbc_cmd(lus[j], rw[i].op, 0x10, rw[i].len, sense) ==
			      TCMU_STS_PASSTHROUGH_ERR);
			CHECK(is_invalid_cdb_bit(sense, 4));
			CHECK(sbc_cmd(lus[j], rw[i].op, 0x18, rw[i].len, sense) ==
			      TCMU_STS_PASSTHROUGH_ERR);
			CHECK(is_invalid_cdb_bit(sense, 4));
			if (rw[i].fua) {
				CHECK(sbc_cmd(lus[j], rw[i].op, 0x08, rw[i].len, sense) ==
				      TCMU_STS_PASSTHROUGH_ERR);
				CHECK(is_invalid_cdb_bit(sense, 3));
			} else {
				/* WRITE AND VERIFY byte 1 bit 3 is not FUA */
				CHECK(sbc_cmd(lus[j], rw[i].op, 0x08, rw[i].len, sense) ==
				      TCMU_STS_NOT_HANDLED);
			}
			/* clean CDB, and FUA_NV (bit 1, may be ignored): the core's */
			CHECK(sbc_cmd(lus[j], rw[i].op, 0x00, rw[i].len, sense) ==
			      TCMU_STS_NOT_HANDLED);
			CHECK(sbc_cmd(lus[j], rw[i].op, 0x02, rw[i].len, sense) ==
			      TCMU_STS_NOT_HANDLED);
		}
	}
}

/* WRITE SAME: ANCHOR with or without UNMAP, PBDATA, LBDATA; NDOB in (16) only */
void
test_sbc_write_same(void)
{
	uint8_t sense[96];
	size_t i;

	for (i = 0; i < 2; i++) {
		uint8_t op = i == 0 ? 0x41 : 0x93, len = i == 0 ? 10 : 16;

		CHECK(sbc_cmd(&g_a, op, 0x10, len, sense) == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(is_invalid_cdb_bit(sense, 4));
		CHECK(sbc_cmd(&g_a, op, 0x18, len, sense) == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(is_invalid_cdb_bit(sense, 4));
		CHECK(sbc_cmd(&g_a, op, 0x04, len, sense) == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(is_invalid_cdb_bit(sense, 2));
		CHECK(sbc_cmd(&g_a, op, 0x02, len, sense) == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(is_invalid_cdb_bit(sense, 1));
		/* UNMAP with a zero block: the plugin deallocates (test_write_same_unmap) */
		CHECK(sbc_cmd(&g_a, op, 0x08, len, sense) == TCMU_STS_OK);
		CHECK(sbc_cmd(&g_a, op, 0x00, len, sense) == TCMU_STS_NOT_HANDLED);
	}
	CHECK(sbc_cmd(&g_a, 0x93, 0x01, 16, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(is_invalid_cdb_bit(sense, 0));
	CHECK(sbc_cmd(&g_a, 0x41, 0x01, 10, sense) == TCMU_STS_NOT_HANDLED);
	/*
	 * Commands the core does not execute keep INVALID COMMAND OPERATION CODE
	 * (now from the command table, as the core would answer): VERIFY(10/16)
	 * VRPROTECT, WRITE AND VERIFY(12); READ(6) has no such fields.
	 */
	CHECK(sbc_cmd(&g_a, 0x2F, 0xF0, 10, sense) == TCMU_STS_INVALID_CMD);
	CHECK(sbc_cmd(&g_a, 0x8F, 0xF0, 16, sense) == TCMU_STS_INVALID_CMD);
	CHECK(sbc_cmd(&g_a, 0xAE, 0xF0, 12, sense) == TCMU_STS_INVALID_CMD);
	CHECK(sbc_cmd(&g_a, 0x08, 0xFF, 6, sense) == TCMU_STS_NOT_HANDLED);
}

/* WRITE SAME(16 or 10) of n blocks at lba, UNMAP bit as given, data block filled with fill. */
static int
write_same(uint8_t op, uint64_t lba, uint32_t n, bool unmap, uint8_t fill)
{
	uint8_t cdb[16], buf[BS], sense[96];

	memset(cdb, 0, sizeof(cdb));
	memset(buf, fill, sizeof(buf));
	cdb[0] = op;
	cdb[1] = unmap ? 0x08 : 0x00;
	if (op == 0x93) {
		xcm_put_be64(cdb + 2, lba);
		xcm_put_be32(cdb + 10, n);
	} else {
		xcm_put_be32(cdb + 2, (uint32_t)lba);
		xcm_put_be16(cdb + 7, (uint16_t)n);
	}
	return run_cmd(&g_a, cdb, buf, sizeof(buf), sense);
}

static uint64_t
blocks_of(const char *name)
{
	struct stat st;
	int fd = backing_fd(name);

	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	close(fd);
	return (uint64_t)st.st_blocks;
}

/*
 * WRITE SAME with UNMAP and a zero block (what sd sends for write zeroes):
 * the plugin punches the whole range, unaligned edges included, and nothing
 * around it changes; UNMAP = 0 and the core's errors are left to the core,
 * the file untouched.
 */
void
test_write_same_unmap(void)
{
	uint64_t before;
	int zfd;

	fill_pattern("a.img", 0, NLBAS * BS, 0x5A);
	snapshot("a.img", "a.model");
	before = blocks_of("a.img");
	CHECK(write_same(0x93, 3, 1001, true, 0x00) == TCMU_STS_OK);
	CHECK(blocks_of("a.img") < before);
	/* the model: zeros where the command said, the pattern around them */
	zfd = backing_fd("a.model");
	CHECK(zfd >= 0 && fallocate(zfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 3 * BS,
				    1001 * BS) == 0);
	close(zfd);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	CHECK(write_same(0x41, 5000, 77, true, 0x00) == TCMU_STS_OK);
	CHECK(!same_bytes("a.img", 5000 * BS, "a.model", 5000 * BS, 77 * BS));
	snapshot("a.img", "a.model");
	/* left to the core: UNMAP = 0, 0 blocks, past the end (a block not zeros: test_ws_pattern) */
	CHECK(write_same(0x93, 100, 8, false, 0x00) == TCMU_STS_NOT_HANDLED);
	CHECK(write_same(0x93, 100, 8, false, 0x01) == TCMU_STS_NOT_HANDLED);
	CHECK(write_same(0x93, 100, 0, true, 0x00) == TCMU_STS_NOT_HANDLED);
	CHECK(write_same(0x93, NLBAS - 4, 5, true, 0x00) == TCMU_STS_NOT_HANDLED);
	CHECK(write_same(0x93, (uint64_t)1 << 63, 1, true, 0x00) == TCMU_STS_NOT_HANDLED);
	CHECK(write_same(0x41, NLBAS, 1, true, 0x00) == TCMU_STS_NOT_HANDLED);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	/* the last block exactly: still the plugin's */
	CHECK(write_same(0x93, NLBAS - 1, 1, true, 0x00) == TCMU_STS_OK);
}

/* WCE = 1 from open; emulate_write_cache = 0 (reconfig) turns it off, writes stay good. */
void
test_write_cache(void)
{
	struct tcmulib_cfg_info cfg;
	uint8_t w[BS], r[BS];
	struct iovec iov = { w, sizeof(w) };
	struct tcmur_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	CHECK(g_a.write_cache && g_b.write_cache && g_c.write_cache);
	memset(&cfg, 0, sizeof(cfg));
	cfg.type = TCMULIB_CFG_WRITE_CACHE;
	cfg.data.write_cache = false;
	CHECK(g_handler->reconfig(&g_a, &cfg) == 0);
	CHECK(!g_a.write_cache);
	memset(w, 0x6B, sizeof(w));
	CHECK(g_handler->write(&g_a, &cmd, &iov, 1, sizeof(w), 4096 * 200) == TCMU_STS_OK);
	iov.iov_base = r;
	CHECK(g_handler->read(&g_a, &cmd, &iov, 1, sizeof(r), 4096 * 200) == TCMU_STS_OK);
	CHECK(memcmp(r, w, sizeof(r)) == 0);
	cfg.data.write_cache = true;
	CHECK(g_handler->reconfig(&g_a, &cfg) == 0);
	CHECK(g_a.write_cache);
}
