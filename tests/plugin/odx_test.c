/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ODX through the plugin: POPULATE TOKEN, RRTI, WRITE USING TOKEN (offset
 * into token, DEL_TKN, cross-LU with and without access), the zero token,
 * REPORT ALL ROD TOKENS, change vulnerable tokens cancelled by WRITE, UNMAP,
 * an EXTENDED COPY destination and a WUT destination, forged and altered
 * tokens, expiry, a full table, COPY OPERATION ABORT of a queued PT and of
 * a running WUT (RRTI and RECEIVE COPY STATUS (LID4) after it). LU A
 * (clone=auto) sits on the test machine's filesystem (no reflink here:
 * change vulnerable tokens); the reflink path, and 55/0C (snapshot bytes),
 * are proven in the lab (tests/lab/tests/485-target-odx.sh, 486-ddpt-odx.sh).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "xcm/token.h"

static struct xcm_tok_list g_tl;

static void
ranges(uint32_t n, const uint64_t *lba, const uint32_t *cnt)
{
	uint32_t i;

	g_tl.nranges = n;
	for (i = 0; i < n; i++) {
		g_tl.range[i].lba = lba[i];
		g_tl.range[i].count = cnt[i];
	}
}

/* PT or WUT of g_tl on d with list id; sense may be NULL. */
static int
tok_cmd(struct tcmu_device *d, uint8_t sa, uint32_t id, uint8_t *sense)
{
	uint8_t buf[2048], cdb[16];
	struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
	size_t n = xcm_tok_list_encode(sa, &g_tl, &w);

	if (sa == XCM_SA_POPULATE_TOKEN) {
		xcm_cdb_populate_token(cdb, id, (uint32_t)n);
	} else {
		xcm_cdb_write_using_token(cdb, id, (uint32_t)n);
	}
	return run_cmd(d, cdb, buf, n, sense);
}

/* RRTI of id on d: 0 and the decoded reply, or -1. */
static int
rrti(struct tcmu_device *d, uint32_t id, struct xcm_rcs4 *st, uint64_t *blocks, uint8_t *tok)
{
	uint8_t cdb[16], buf[1024];
	bool has = false;

	xcm_cdb_rrti(cdb, id, sizeof(buf));
	if (run_cmd(d, cdb, buf, sizeof(buf), NULL) != TCMU_STS_OK ||
	    xcm_rrti_decode(xcm_span_make(buf, sizeof(buf)), st, blocks, &has, tok) != 0) {
		return -1;
	}
	return has ? 1 : 0;
}

/* PT of ranges on d, then RRTI: the token into tok; true on success. */
static bool
populate(struct tcmu_device *d, uint32_t id, uint32_t timeout, uint8_t *tok)
{
	struct xcm_rcs4 st;
	uint64_t blocks;

	g_tl.inactivity_s = timeout;
	if (tok_cmd(d, XCM_SA_POPULATE_TOKEN, id, NULL) != TCMU_STS_OK) {
		return false;
	}
	return rrti(d, id, &st, &blocks, tok) == 1 && st.op_status == XCM_RCS4_DONE;
}

/* WUT of tok (offset, del) to the ranges in g_tl on d. */
static int
wut(struct tcmu_device *d, uint32_t id, const uint8_t *tok, uint64_t off, bool del,
    uint8_t *sense)
{
	memcpy(g_tl.token, tok, XCM_ROD_TOKEN_LEN);
	g_tl.offset = off;
	g_tl.del_tkn = del;
	return tok_cmd(d, XCM_SA_WRITE_USING_TOKEN, id, sense);
}

static bool
is_zero(const char *name, uint64_t off, size_t len)
{
	char p[512];
	uint8_t b[8 * BS];
	size_t i;
	FILE *f;
	bool z;

	snprintf(p, sizeof(p), "%s/%s", g_tmp, name);
	f = fopen(p, "rb");
	z = f != NULL && len <= sizeof(b) && fseek(f, (long)off, SEEK_SET) == 0 &&
	    fread(b, 1, len, f) == len;
	for (i = 0; z && i < len; i++) {
		z = b[i] == 0;
	}
	if (f != NULL) {
		fclose(f);
	}
	return z;
}

static void
one_range(uint64_t lba, uint32_t count)
{
	ranges(1, &lba, &count);
}

static void
test_pt_rrti_wut(void)
{
	static const uint64_t lba[2] = { 0, 32 };
	static const uint32_t cnt[2] = { 16, 16 };
	uint8_t tok[512], sense[96];
	struct xcm_rcs4 st;
	uint64_t blocks;

	fill_pattern("a.img", 0, 64 * BS, 0x31);
	ranges(2, lba, cnt);
	CHECK(tok_cmd(&g_a, XCM_SA_POPULATE_TOKEN, 0x100, NULL) == TCMU_STS_OK);
	/* what Windows asserts: PT status, blocks, 0 segments, a 512-byte token */
	CHECK(rrti(&g_a, 0x100, &st, &blocks, tok) == 1);
	CHECK(st.sa == 0x10 && st.op_status == XCM_RCS4_DONE && blocks == 32 && st.segs == 0);
	/* change vulnerable without reflink, point in time on a reflink store */
	CHECK(xcm_get_be32(tok) == XCM_ROD_TYPE_PIT_VULNERABLE ||
	      xcm_get_be32(tok) == XCM_ROD_TYPE_PIT_DEFAULT);
	one_range(1000, 32);
	CHECK(wut(&g_a, 0x101, tok, 0, false, NULL) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 1000 * BS, "a.img", 0, 16 * BS));
	CHECK(same_bytes("a.img", 1016 * BS, "a.img", 32 * BS, 16 * BS));
	CHECK(rrti(&g_a, 0x101, &st, &blocks, sense) == 0);
	CHECK(st.sa == 0x11 && st.op_status == XCM_RCS4_DONE && blocks == 32 && st.segs == 0);
	/* the same token again, from block 16 of it (BLOCK OFFSET INTO TOKEN) */
	CHECK(rrti(&g_a, 0x100, &st, &blocks, tok) == 1);
	one_range(2000, 16);
	CHECK(wut(&g_a, 0x102, tok, 16, false, NULL) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 2000 * BS, "a.img", 32 * BS, 16 * BS));
	/* an offset at or past the token's end: INVALID FIELD IN PARAMETER LIST, byte 8 */
	CHECK(wut(&g_a, 0x103, tok, 32, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_ptr_is(sense, sizeof(sense), XCM_SK_ILLEGAL_REQUEST, 0x2600, false, -1, 8));
	/* destination longer than the token: what it holds is written, RRTI says how much */
	one_range(3000, 64);
	CHECK(wut(&g_a, 0x104, tok, 0, false, NULL) == TCMU_STS_OK);
	CHECK(rrti(&g_a, 0x104, &st, &blocks, sense) == 0 && blocks == 32);
	/* RRTI of an unknown list id: INVALID FIELD IN CDB, byte 2 */
	CHECK(rrti(&g_a, 0xDEAD, &st, &blocks, sense) == -1);
	/* DEL_TKN: the token is gone after this WUT */
	one_range(4000, 8);
	CHECK(wut(&g_a, 0x105, tok, 0, true, NULL) == TCMU_STS_OK);
	CHECK(wut(&g_a, 0x106, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2309));
}

static void
test_forged(void)
{
	uint8_t tok[512], bad[512], sense[96];

	one_range(0, 8);
	CHECK(populate(&g_a, 0x200, 0, tok));
	one_range(5000, 8);
	/* one random byte changed: TOKEN CORRUPT */
	memcpy(bad, tok, 512);
	bad[400] ^= 0x01;
	CHECK(wut(&g_a, 0x201, bad, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2305));
	/* another identifier: TOKEN UNKNOWN */
	memcpy(bad, tok, 512);
	bad[15] ^= 0x40;
	CHECK(wut(&g_a, 0x202, bad, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2304));
	/* ROD TOKEN LENGTH altered: INVALID TOKEN LENGTH */
	memcpy(bad, tok, 512);
	bad[7] = 0xF0;
	CHECK(wut(&g_a, 0x203, bad, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x230A));
	/* a ROD type never made here (access upon reference): UNSUPPORTED TOKEN TYPE */
	memcpy(bad, tok, 512);
	xcm_put_be32(bad, 0x00010000u);
	CHECK(wut(&g_a, 0x204, bad, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2301));
	/* all zero: TOKEN UNKNOWN (a creator no LU has) or corrupt; never GOOD */
	memset(bad, 0, 512);
	xcm_put_be32(bad, XCM_ROD_TYPE_PIT_DEFAULT);
	xcm_put_be16(bad + 6, 0x01F8);
	CHECK(wut(&g_a, 0x205, bad, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2305));
	/* the genuine token still works */
	CHECK(wut(&g_a, 0x206, tok, 0, true, NULL) == TCMU_STS_OK);
}

/* Copy [off, off + len) of a.img into save.img at the same offset. */
static void
save_a(uint64_t off, size_t len)
{
	char pa[512], ps[512];
	uint8_t b[16 * BS];
	FILE *fa, *fs;

	snprintf(pa, sizeof(pa), "%s/a.img", g_tmp);
	snprintf(ps, sizeof(ps), "%s/save.img", g_tmp);
	fa = fopen(pa, "rb");
	fs = fopen(ps, "r+b");
	if (fs == NULL) {
		fs = fopen(ps, "w+b");
	}
	CHECK(fa != NULL && fs != NULL && len <= sizeof(b));
	if (fa != NULL && fs != NULL) {
		CHECK(fseek(fa, (long)off, SEEK_SET) == 0 && fread(b, 1, len, fa) == len);
		CHECK(fseek(fs, (long)off, SEEK_SET) == 0 && fwrite(b, 1, len, fs) == len);
	}
	if (fa != NULL) {
		fclose(fa);
	}
	if (fs != NULL) {
		fclose(fs);
	}
}

/*
 * On a reflink store (TMPDIR on XFS with reflink): PT, overwrite the source,
 * WUT writes the data as it was at PT time.
 */
static void
test_point_in_time(void)
{
	uint8_t tok[512], blk[BS];
	struct tcmur_cmd rc;
	struct iovec iov = { blk, BS };

	memset(&rc, 0, sizeof(rc));
	memset(blk, 0x5A, sizeof(blk));
	fill_pattern("a.img", 100 * BS, 8 * BS, 0x66);
	save_a(100 * BS, 8 * BS);
	one_range(100, 8);
	CHECK(populate(&g_a, 0x300, 0, tok));
	CHECK(xcm_get_be32(tok) == XCM_ROD_TYPE_PIT_DEFAULT);
	CHECK(g_handler->write(&g_a, &rc, &iov, 1, BS, 104 * BS) == TCMU_STS_OK);
	CHECK(g_handler->unmap(&g_a, &rc, 100 * BS, BS) == TCMU_STS_OK);
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x301, tok, 0, true, NULL) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 6000 * BS, "save.img", 100 * BS, 8 * BS));
	CHECK(!same_bytes("a.img", 6000 * BS, "a.img", 100 * BS, 8 * BS));
}

/* A write of any kind into a change vulnerable token's ranges cancels it. */
static void
test_cancel(void)
{
	uint8_t tok[512], sense[96], blk[BS];
	struct tcmur_cmd rc;
	struct iovec iov = { blk, BS };

	memset(&rc, 0, sizeof(rc));
	memset(blk, 0x5A, sizeof(blk));
	/* WRITE (the core's write callout; WRITE SAME and COMPARE AND WRITE use it too) */
	one_range(100, 8);
	CHECK(populate(&g_a, 0x300, 0, tok));
	if (xcm_get_be32(tok) == XCM_ROD_TYPE_PIT_DEFAULT) {
		one_range(6000, 8);
		CHECK(wut(&g_a, 0x3FF, tok, 0, true, NULL) == TCMU_STS_OK);
		test_point_in_time();
		return;
	}
	CHECK(g_handler->write(&g_a, &rc, &iov, 1, BS, 104 * BS) == TCMU_STS_OK);
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x301, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2308));
	/* a write next to the ranges does not */
	one_range(100, 8);
	CHECK(populate(&g_a, 0x302, 0, tok));
	CHECK(g_handler->write(&g_a, &rc, &iov, 1, BS, 108 * BS) == TCMU_STS_OK);
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x303, tok, 0, true, NULL) == TCMU_STS_OK);
	/* UNMAP */
	one_range(100, 8);
	CHECK(populate(&g_a, 0x304, 0, tok));
	CHECK(g_handler->unmap(&g_a, &rc, 100 * BS, BS) == TCMU_STS_OK);
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x305, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2308));
	/* an EXTENDED COPY destination */
	one_range(100, 8);
	CHECK(populate(&g_a, 0x306, 0, tok));
	list_one(SER_A, SER_A, 2, 7000, 99, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, NULL) == TCMU_STS_OK);
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x307, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2308));
	/* a WRITE USING TOKEN destination (another token's ranges) */
	one_range(100, 8);
	CHECK(populate(&g_a, 0x308, 0, tok));
	{
		uint8_t t2[512];

		one_range(200, 8);
		CHECK(populate(&g_a, 0x309, 0, t2));
		one_range(102, 4);
		CHECK(wut(&g_a, 0x30A, t2, 0, true, NULL) == TCMU_STS_OK);
	}
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x30B, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2308));
}

static void
test_cross_lu(void)
{
	uint8_t tok[512], sense[96];

	fill_pattern("a.img", 300 * BS, 16 * BS, 0x77);
	one_range(300, 16);
	CHECK(populate(&g_a, 0x400, 0, tok));
	/* loopback exports A and B (the fixture's configfs): allowed */
	one_range(500, 16);
	CHECK(wut(&g_b, 0x401, tok, 0, false, NULL) == TCMU_STS_OK);
	CHECK(same_bytes("b.img", 500 * BS, "a.img", 300 * BS, 16 * BS));
	/* an iSCSI demo TPG exports only B: an initiator that cannot see A is refused */
	cfs_lun(ISCSI, 0, "user_2/lu_b");
	cfs_demo(ISCSI, true);
	fill_pattern("b.img", 600 * BS, 16 * BS, 0x12);
	one_range(600, 16);
	CHECK(wut(&g_b, 0x402, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2300));
	CHECK(!same_bytes("b.img", 600 * BS, "a.img", 300 * BS, 16 * BS));
	cfs_reset();
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
	/* B's own RRTI does not know A's PT list */
	{
		struct xcm_rcs4 st;
		uint64_t blocks;

		CHECK(rrti(&g_b, 0x400, &st, &blocks, sense) == -1);
	}
	CHECK(wut(&g_b, 0x403, tok, 0, true, NULL) == TCMU_STS_OK);
}

static void
test_zero_rart_limits(void)
{
	uint8_t tok[512], sense[96], cdb[16], buf[8192];
	uint32_t i, ok = 0;

	/* the block device zero ROD token zeroes the ranges */
	fill_pattern("a.img", 7000 * BS, 8 * BS, 0x44);
	xcm_rod_token_zero(tok);
	one_range(7000, 8);
	CHECK(wut(&g_a, 0x500, tok, 0, false, NULL) == TCMU_STS_OK);
	CHECK(is_zero("a.img", 7000 * BS, 8 * BS));
	/* inactivity timeout above the maximum: field 4 */
	one_range(0, 8);
	g_tl.inactivity_s = 601;
	CHECK(tok_cmd(&g_a, XCM_SA_POPULATE_TOKEN, 0x501, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_ptr_is(sense, sizeof(sense), XCM_SK_ILLEGAL_REQUEST, 0x2600, false, -1, 4));
	/* a full table: 55/0D; 3 s tokens free their slots when they expire */
	for (i = 0; i < 70; i++) {
		g_tl.inactivity_s = 3;
		if (tok_cmd(&g_a, XCM_SA_POPULATE_TOKEN, 0x600 + i, sense) != TCMU_STS_OK) {
			break;
		}
		ok++;
	}
	CHECK(ok == 64);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x550D));
	/* REPORT ALL ROD TOKENS: every live token, 96 bytes each */
	xcm_cdb_rrti(cdb, 0, sizeof(buf));
	cdb[1] = XCM_SA_RART;
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(xcm_get_be32(buf) == 4 + 64 * 96);
	plugin_clock_advance_ms(3300);
	g_tl.inactivity_s = 1;
	CHECK(populate(&g_a, 0x700, 1, tok));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(xcm_get_be32(buf) == 4 + 96 && memcmp(buf + 8, tok, 96) == 0);
	/* expiry: unused for its 1 s inactivity timeout -> TOKEN EXPIRED */
	plugin_clock_advance_ms(1600);
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x701, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2307));
}

struct bg {
	struct tcmu_device *d;
	struct tcmulib_cmd lc;
	struct tcmur_cmd rc;
	struct iovec iov;
	uint8_t cdb[16], buf[2048];
	int sts;
};

static void *
bg_flush(void *arg)
{
	struct bg *b = arg;

	b->sts = g_handler->flush(b->d, &b->rc);
	return NULL;
}

/* handle_cmd of g_tl as sa on d (not yet flushed). */
static int
bg_submit(struct bg *b, struct tcmu_device *d, uint8_t sa, uint32_t id)
{
	struct xcm_wbuf w;
	size_t n;

	memset(b, 0, sizeof(*b));
	b->d = d;
	w = xcm_wbuf_make(b->buf, sizeof(b->buf));
	n = xcm_tok_list_encode(sa, &g_tl, &w);
	if (sa == XCM_SA_POPULATE_TOKEN) {
		xcm_cdb_populate_token(b->cdb, id, (uint32_t)n);
	} else {
		xcm_cdb_write_using_token(b->cdb, id, (uint32_t)n);
	}
	b->iov.iov_base = b->buf;
	b->iov.iov_len = n;
	b->lc.cdb = b->cdb;
	b->lc.iovec = &b->iov;
	b->lc.iov_cnt = 1;
	b->lc.hm_private = &b->rc;
	b->rc.lib_cmd = &b->lc;
	return g_handler->handle_cmd(d, &b->rc);
}

static int
abort_list(struct tcmu_device *d, uint32_t id)
{
	uint8_t cdb[16], none[1];

	xcm_cdb_copy_op_abort(cdb, id);
	return run_cmd(d, cdb, none, 0, NULL);
}

/* RECEIVE COPY STATUS (LID4) of list id on d: the raw response into buf[64]. */
static int
rcs4_raw(struct tcmu_device *d, uint32_t id, uint8_t *buf)
{
	uint8_t cdb[16];

	memset(buf, 0, 64);
	xcm_cdb_rcs4(cdb, id, 64);
	return run_cmd(d, cdb, buf, 64, NULL) == TCMU_STS_OK ? 0 : -1;
}

/* A queued PT aborted: TERMINATED, no token. */
static void
test_abort_queued(void)
{
	uint8_t tok[512];
	struct xcm_rcs4 st;
	uint64_t blocks;
	struct bg b;

	one_range(0, 8);
	g_tl.inactivity_s = 0;
	CHECK(bg_submit(&b, &g_a, XCM_SA_POPULATE_TOKEN, 0x800) == TCMU_STS_NOT_HANDLED);
	CHECK(abort_list(&g_a, 0x800) == TCMU_STS_OK);
	CHECK(bg_flush(&b) == NULL && b.sts == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(b.lc.sense_buf, XCM_SK_COPY_ABORTED, 0x0000));
	CHECK(rrti(&g_a, 0x800, &st, &blocks, tok) == 0 && st.op_status == XCM_RCS4_TERMINATED);
}

static void
test_abort(void)
{
	uint8_t tok[512], rcs[64];
	struct xcm_rcs4 st;
	uint64_t blocks;
	pthread_t th;
	struct bg b;

	/*
	 * a running 8 MiB WUT (two 4 MiB chunks, 300 ms per 1 MiB read and write)
	 * aborted in its first chunk
	 */
	grow_lu(&g_a, "a.img", 16u << 20);
	fill_pattern("a.img", 0, 8u << 20, 0x19);
	one_range(0, (8u << 20) / BS);
	CHECK(populate(&g_a, 0x801, 0, tok));
	put_file("stats/lu_a.fault", "delay:300\n");
	one_range((8u << 20) / BS, (8u << 20) / BS);
	memcpy(g_tl.token, tok, 512);
	g_tl.offset = 0;
	g_tl.del_tkn = false;
	CHECK(bg_submit(&b, &g_a, XCM_SA_WRITE_USING_TOKEN, 0x802) == TCMU_STS_NOT_HANDLED);
	/* the WUT held at its first delayed call: chunk 1's read */
	plugin_gate_hold(0);
	CHECK(pthread_create(&th, NULL, bg_flush, &b) == 0);
	CHECK(plugin_gate_wait_held());
	CHECK(rrti(&g_a, 0x802, &st, &blocks, NULL) == 0 && st.op_status == XCM_RCS4_IN_PROGRESS);
	CHECK(abort_list(&g_a, 0x802) == TCMU_STS_OK);
	plugin_gate_open(false);   /* chunk 1 ends, then the abort is seen */
	pthread_join(th, NULL);
	CHECK(b.sts == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(b.lc.sense_buf, XCM_SK_COPY_ABORTED, 0x0000));
	CHECK(rrti(&g_a, 0x802, &st, &blocks, NULL) == 0);
	if (st.op_status != XCM_RCS4_TERMINATED || blocks != (4u << 20) / BS) {
		fprintf(stderr, "  WUT abort: status %02x, %llu blocks\n", st.op_status,
			(unsigned long long)blocks);
	}
	CHECK(st.op_status == XCM_RCS4_TERMINATED && blocks == (4u << 20) / BS);
	/* SPC-4 6.18.3: the WUT's status (CHECK CONDITION) and its sense: COPY ABORTED */
	CHECK(st.sa == XCM_SA_WRITE_USING_TOKEN && st.cmd_status == 0x02 && st.sense_len >= 14 &&
	      sense_key(st.sense, st.sense_len) == XCM_SK_COPY_ABORTED);
	/*
	 * RECEIVE COPY STATUS (LID4) says the same: TERMINATED, CHECK CONDITION,
	 * COPY ABORTED, the bytes written (its TRANSFER COUNT UNITS: 00h, bytes)
	 */
	CHECK(rcs4_raw(&g_a, 0x802, rcs) == 0);
	CHECK((rcs[4] & 0x1F) == XCM_SA_WRITE_USING_TOKEN && (rcs[5] & 0x7F) == XCM_RCS4_TERMINATED &&
	      rcs[12] == 0x02 && rcs[15] == XCM_TC_UNITS_BYTES && xcm_get_be64(rcs + 16) == 4u << 20 &&
	      sense_key(rcs + 32, 64 - 32) == XCM_SK_COPY_ABORTED);
	if ((rcs[5] & 0x7F) != XCM_RCS4_TERMINATED || xcm_get_be64(rcs + 16) != 4u << 20) {
		fprintf(stderr, "  WUT abort RCS4: sa %02x status %02x cmd %02x units %02x count %llu\n",
			rcs[4], rcs[5], rcs[12], rcs[15], (unsigned long long)xcm_get_be64(rcs + 16));
	}
	put_file("stats/lu_a.fault", "off\n");
	CHECK(same_bytes("a.img", 8u << 20, "a.img", 0, 4u << 20));
	CHECK(!same_bytes("a.img", 12u << 20, "a.img", 4u << 20, 4096));
}

/* Tokens do not outlive their LU (nor the process: a random epoch in the identifier). */
static void
test_close(void)
{
	uint8_t tok[512], sense[96];

	one_range(0, 8);
	CHECK(populate(&g_a, 0x900, 0, tok));
	g_handler->close(&g_a);
	CHECK(g_handler->open(&g_a, false) == 0);
	one_range(6000, 8);
	CHECK(wut(&g_a, 0x901, tok, 0, false, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, 0x2304));
}

/*
 * WCE = 0 on the WUT's LU: what it wrote (a token's data, the zero token's
 * zeros) is flushed (fdatasync) before GOOD; POPULATE TOKEN writes no
 * destination. WCE = 1: no flush.
 */
static void
test_wut_durable(void)
{
	struct tcmulib_cfg_info cfg;
	uint8_t tok[512], zt[512];
	unsigned long n;
	int pass;

	xcm_rod_token_zero(zt);
	fill_pattern("a.img", 0, 64 * BS, 0x52);
	for (pass = 0; pass < 2; pass++) {
		unsigned long want = pass == 0 ? 1 : 0;

		memset(&cfg, 0, sizeof(cfg));
		cfg.type = TCMULIB_CFG_WRITE_CACHE;
		cfg.data.write_cache = pass == 1;
		CHECK(g_handler->reconfig(&g_a, &cfg) == 0);
		one_range(0, 16);
		n = plugin_fdatasyncs();
		CHECK(populate(&g_a, 0x910 + (uint32_t)pass * 4, 60, tok));
		CHECK(plugin_fdatasyncs() == n);
		one_range(1000, 16);
		CHECK(wut(&g_a, 0x911 + (uint32_t)pass * 4, tok, 0, false, NULL) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() - n == want);
		CHECK(same_bytes("a.img", 1000 * BS, "a.img", 0, 16 * BS));
		n = plugin_fdatasyncs();
		one_range(2000, 8);
		CHECK(wut(&g_a, 0x912 + (uint32_t)pass * 4, zt, 0, false, NULL) == TCMU_STS_OK);
		CHECK(plugin_fdatasyncs() - n == want);
		CHECK(is_zero("a.img", 2000 * BS, 8 * BS));
	}
}

/* Each test starts from an empty token list (g_tl). */
#define ODX_TEST(f)                                \
	static void f##_fresh(void)               \
	{                                          \
		memset(&g_tl, 0, sizeof(g_tl));    \
		f();                               \
	}
ODX_TEST(test_pt_rrti_wut)
ODX_TEST(test_forged)
ODX_TEST(test_cancel)
ODX_TEST(test_cross_lu)
ODX_TEST(test_zero_rart_limits)
ODX_TEST(test_abort_queued)
ODX_TEST(test_abort)
ODX_TEST(test_close)
ODX_TEST(test_wut_durable)

const struct ptest g_odx_tests[] = {
	{ "odx.pt_rrti_wut", test_pt_rrti_wut_fresh },
	{ "odx.forged", test_forged_fresh },
	{ "odx.cancel", test_cancel_fresh },
	{ "odx.cross_lu", test_cross_lu_fresh },
	{ "odx.zero_rart_limits", test_zero_rart_limits_fresh },
	{ "odx.abort_queued", test_abort_queued_fresh },
	{ "odx.abort", test_abort_fresh },
	{ "odx.close", test_close_fresh },
	{ "odx.wut_durable", test_wut_durable_fresh },
	{ NULL, NULL },
};
