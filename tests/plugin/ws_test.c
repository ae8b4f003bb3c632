/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * WRITE SAME with UNMAP = 1 run by the plugin on a worker (target/tcmu/
 * write_same.c), and durability before GOOD with the write cache off
 * (WCE = 0) for every write the plugin issues itself.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "xcm/wire.h"

static void
ws_cdb(uint8_t *cdb, uint8_t op, uint64_t lba, uint32_t n, bool unmap)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	cdb[1] = unmap ? 0x08 : 0x00;
	if (op == 0x93) {
		xcm_put_be64(cdb + 2, lba);
		xcm_put_be32(cdb + 10, n);
	} else {
		xcm_put_be32(cdb + 2, (uint32_t)lba);
		xcm_put_be16(cdb + 7, (uint16_t)n);
	}
}

int
ws_cmd(struct tcmu_device *d, uint8_t op, uint64_t lba, uint32_t n, bool unmap,
       const uint8_t *block, uint8_t *sense)
{
	uint8_t cdb[16], buf[BS];

	ws_cdb(cdb, op, lba, n, unmap);
	memcpy(buf, block, BS);
	return run_cmd(d, cdb, buf, sizeof(buf), sense);
}

/* The model: block written n times at lba of file name. */
static void
model_write(const char *name, uint64_t lba, uint32_t n, const uint8_t *block)
{
	int fd = backing_fd(name);
	uint32_t i;

	for (i = 0; i < n; i++) {
		CHECK(pwrite(fd, block, BS, (off_t)((lba + i) * BS)) == (ssize_t)BS);
	}
	close(fd);
}

/*
 * UNMAP = 1 with a block that is not zeros: every LBA of the range reads
 * back the block (the runner's core would have deallocated an aligned
 * range: zeros). Ranges over several 1 MiB chunks, unaligned at both ends.
 */
void
test_ws_pattern(void)
{
	uint8_t block[BS], last[BS], zero[BS];
	uint32_t i;

	for (i = 0; i < BS; i++) {
		block[i] = (uint8_t)(i * 13 + 1);
	}
	memset(last, 0, sizeof(last));
	last[BS - 1] = 0xFF;   /* zeros but one byte: written, not deallocated */
	memset(zero, 0, sizeof(zero));
	fill_pattern("a.img", 0, NLBAS * BS, 0x5A);
	snapshot("a.img", "a.model");
	CHECK(ws_cmd(&g_a, 0x93, 7, 5000, true, block, NULL) == TCMU_STS_OK);
	model_write("a.model", 7, 5000, block);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	CHECK(ws_cmd(&g_a, 0x41, 6000, 100, true, last, NULL) == TCMU_STS_OK);
	model_write("a.model", 6000, 100, last);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	/* the last block of the LU, and a zero block next to a written range */
	CHECK(ws_cmd(&g_a, 0x93, NLBAS - 1, 1, true, block, NULL) == TCMU_STS_OK);
	model_write("a.model", NLBAS - 1, 1, block);
	CHECK(ws_cmd(&g_a, 0x93, 6100, 10, true, zero, NULL) == TCMU_STS_OK);
	model_write("a.model", 6100, 10, zero);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	CHECK(stat_of("lu_a", "ws_commands") == 4);
	CHECK(stat_of("lu_a", "ws_written") == (5000 + 100 + 1) * (uint64_t)BS);
	CHECK(stat_of("lu_a", "ws_unmapped") == 10 * (uint64_t)BS);
	/* still the core's (it writes the block): UNMAP = 0, 0 blocks, past the end */
	CHECK(ws_cmd(&g_a, 0x93, 100, 8, false, block, NULL) == TCMU_STS_NOT_HANDLED);
	CHECK(ws_cmd(&g_a, 0x93, 100, 0, true, block, NULL) == TCMU_STS_NOT_HANDLED);
	CHECK(ws_cmd(&g_a, 0x93, NLBAS - 4, 5, true, block, NULL) == TCMU_STS_NOT_HANDLED);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
}

/* handle_cmd, then (the worker, later) the flush callout; *cdb_after: the CDB the core saw. */
static int
ws_split(uint8_t op, uint64_t lba, uint32_t n, const uint8_t *block, unsigned advance_ms,
	 uint8_t *cdb_after, uint8_t *sense)
{
	struct tcmulib_cmd lc;
	struct tcmur_cmd rc;
	uint8_t full[16], buf[BS];
	struct iovec iov = { buf, sizeof(buf) };
	size_t len = op == 0x93 ? 16 : 10;
	/* libtcmu's copy is as long as the CDB (ASan: nothing may write past it) */
	uint8_t *cdb = malloc(len);
	int sts;

	CHECK(cdb != NULL);
	ws_cdb(full, op, lba, n, true);
	memcpy(cdb, full, len);
	memcpy(buf, block, BS);
	memset(&lc, 0, sizeof(lc));
	memset(&rc, 0, sizeof(rc));
	lc.cdb = cdb;
	lc.iovec = &iov;
	lc.iov_cnt = 1;
	lc.hm_private = &rc;
	rc.lib_cmd = &lc;
	sts = g_handler->handle_cmd(&g_a, &rc);
	*cdb_after = cdb[0];
	/* SYNCHRONIZE CACHE of the CDB's own length: (16) for (16), (10) for (10) */
	if (sts == TCMU_STS_NOT_HANDLED && cdb[0] == (len == 16 ? 0x91 : 0x35)) {
		CHECK(rc.cmd_state != NULL);
		plugin_clock_advance_ms(advance_ms);
		sts = g_handler->flush(&g_a, &rc);
		memcpy(sense, lc.sense_buf, sizeof(lc.sense_buf));
	}
	free(cdb);
	return sts;
}

/*
 * A WRITE SAME whose worker starts after its deadline (cmd_time_out 5 s:
 * 4 s) writes nothing and ends with ABORTED COMMAND, 2E/02.
 */
void
test_ws_deadline(void)
{
	uint8_t block[BS], sense[96], op;

	memset(block, 0xA7, sizeof(block));
	mkdirs("cfs/core/user_1/lu_a/attrib");
	put_file("cfs/core/user_1/lu_a/attrib/cmd_time_out", "5\n");
	fill_pattern("a.img", 0, NLBAS * BS, 0x21);
	snapshot("a.img", "a.model");
	CHECK(ws_split(0x93, 0, NLBAS, block, 4500, &op, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ABORTED_COMMAND, 0x2E02));
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	CHECK(stat_of("lu_a", "ws_cuts") == 1);
	/* inside its deadline: all of it */
	CHECK(ws_split(0x93, 0, NLBAS, block, 1000, &op, sense) == TCMU_STS_OK);
	model_write("a.model", 0, NLBAS, block);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
}

/*
 * The command thread only queues the job: the CDB the core goes on with is
 * SYNCHRONIZE CACHE(16) (its ALUA and recovery checks apply as to a WRITE
 * SAME), and the range is untouched until the worker's flush callout runs.
 */
void
test_ws_handoff(void)
{
	uint8_t block[BS], sense[96], op;
	struct tcmulib_cmd lc;
	struct tcmur_cmd rc;
	uint8_t cdb[16];
	struct iovec iov = { block, sizeof(block) };

	memset(block, 0x3C, sizeof(block));
	fill_pattern("a.img", 0, NLBAS * BS, 0x11);
	snapshot("a.img", "a.model");
	ws_cdb(cdb, 0x93, 10, 20, true);
	memset(&lc, 0, sizeof(lc));
	memset(&rc, 0, sizeof(rc));
	lc.cdb = cdb;
	lc.iovec = &iov;
	lc.iov_cnt = 1;
	lc.hm_private = &rc;
	rc.lib_cmd = &lc;
	CHECK(g_handler->handle_cmd(&g_a, &rc) == TCMU_STS_NOT_HANDLED);
	CHECK(cdb[0] == 0x91 && rc.cmd_state != NULL);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	CHECK(g_handler->flush(&g_a, &rc) == TCMU_STS_OK);
	model_write("a.model", 10, 20, block);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
	/* WRITE SAME(10): SYNCHRONIZE CACHE(10), the 10 bytes of its CDB only */
	CHECK(ws_split(0x41, 40, 2, block, 0, &op, sense) == TCMU_STS_OK && op == 0x35);
	model_write("a.model", 40, 2, block);
	CHECK(same_bytes("a.img", 0, "a.model", 0, NLBAS * BS));
}

static void
set_wce(struct tcmu_device *d, bool on)
{
	struct tcmulib_cfg_info cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.type = TCMULIB_CFG_WRITE_CACHE;
	cfg.data.write_cache = on;
	CHECK(g_handler->reconfig(d, &cfg) == 0);
	CHECK(d->write_cache == on);
}

/*
 * WCE = 0: WRITE, deallocation (UNMAP, WRITE SAME with UNMAP), WRITE SAME's
 * pattern and EXTENDED COPY destinations are flushed (fdatasync) before
 * GOOD; the destination's WCE decides. WCE = 1 (the file store's default at
 * open): no flush (SYNCHRONIZE CACHE does it: one fdatasync).
 */
void
test_wce_durable(void)
{
	uint8_t block[BS], zero[BS], sense[96], rd[BS];
	struct iovec iov = { block, BS };
	struct tcmur_cmd cmd;
	unsigned long n;
	int pass;

	memset(block, 0x6D, sizeof(block));
	memset(zero, 0, sizeof(zero));
	memset(&cmd, 0, sizeof(cmd));
	fill_pattern("a.img", 0, NLBAS * BS, 0x30);
	fill_pattern("b.img", 0, NLBAS * BS, 0x31);
	CHECK(g_a.write_cache);   /* the file store opens with WCE = 1: a WRITE is not flushed */
	for (pass = 0; pass < 2; pass++) {
		bool wce = pass == 1;
		unsigned long want = wce ? 0 : 1;

		set_wce(&g_a, wce);
		set_wce(&g_b, true);
		/* WRITE: the block on the file, flushed with WCE = 0 only */
		iov.iov_base = block;
		n = plugin_fdatasyncs();
		CHECK(g_handler->write(&g_a, &cmd, &iov, 1, BS, 100 * BS) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() - n == want);
		iov.iov_base = rd;
		CHECK(g_handler->read(&g_a, &cmd, &iov, 1, BS, 100 * BS) == TCMU_STS_OK);
		CHECK(memcmp(rd, block, BS) == 0);
		n = plugin_fdatasyncs();
		CHECK(g_handler->flush(&g_a, &cmd) == TCMU_STS_OK);   /* SYNCHRONIZE CACHE */
		CHECK(plugin_fdatasyncs() - n == 1);
		n = plugin_fdatasyncs();
		CHECK(g_handler->unmap(&g_a, &cmd, 64 * BS, 64 * BS) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() - n == want);
		n = plugin_fdatasyncs();
		CHECK(ws_cmd(&g_a, 0x93, 256, 64, true, zero, NULL) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() - n == want);
		n = plugin_fdatasyncs();
		CHECK(ws_cmd(&g_a, 0x93, 512, 64, true, block, NULL) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() - n == want);
		/* EXTENDED COPY received on B into A: A's WCE */
		n = plugin_fdatasyncs();
		list_one(SER_B, SER_A, 64, 0, 1024, XCM_LIST_ID_NONE, 0);
		CHECK(send_xcopy(&g_b, 0, 0, sense) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() - n == want);
		CHECK(same_bytes("a.img", 1024 * BS, "b.img", 0, 64 * BS));
		/* into B (WCE = 1) from A, received on A: none, whatever A's WCE */
		n = plugin_fdatasyncs();
		list_one(SER_A, SER_B, 64, 2048, 2048, XCM_LIST_ID_NONE, 0);
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() == n);
	}
	CHECK(stat_of("lu_a", "wt_syncs") >= 4);
}
