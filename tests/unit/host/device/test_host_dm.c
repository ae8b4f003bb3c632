/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device-mapper volumes from fake tables: which targets are plain remaps
 * (linear, striped, multipath) and the reasons the others are refused; maps
 * built over fake devices (gaps, short tables, unaligned or out-of-range
 * legs refused; striped and stacked volumes located block by block); copies
 * cut at piece and chunk boundaries with the caller's offsets; and the
 * multipath transport: identity checked on every path, a failed path's
 * command resent on the next one.
 */
#include <errno.h>
#include <string.h>

#include "ut.h"
#include "copy/xch_copy.h"

/* ---------------------------------------------------------------- parsing */

static void
dm_parse_linear_striped_multipath(void)
{
	struct xch_dm_target t;
	char why[160];

	CU_ASSERT_EQUAL(xch_dm_parse_target("0 204800 linear 8:16 2048\n", &t, why, sizeof(why)),
			0);
	CU_ASSERT_EQUAL(t.kind, XCH_DM_LINEAR);
	CU_ASSERT_EQUAL(t.len, 204800);
	CU_ASSERT_EQUAL(t.nleg, 1);
	CU_ASSERT_EQUAL(t.leg[0].major, 8);
	CU_ASSERT_EQUAL(t.leg[0].minor, 16);
	CU_ASSERT_EQUAL(t.leg[0].off, 2048);

	CU_ASSERT_EQUAL(xch_dm_parse_target("8192 65536 striped 2 128 8:16 2048 8:32 4096", &t, why,
					    sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.kind, XCH_DM_STRIPED);
	CU_ASSERT_EQUAL(t.start, 8192);
	CU_ASSERT_EQUAL(t.chunk, 128);
	CU_ASSERT_EQUAL(t.nleg, 2);
	CU_ASSERT_EQUAL(t.leg[1].minor, 32);
	CU_ASSERT_EQUAL(t.leg[1].off, 4096);

	/* what multipathd loads: features, an ALUA handler, two groups of one path each */
	CU_ASSERT_EQUAL(xch_dm_parse_target("0 2097152 multipath 1 queue_if_no_path 1 alua 2 1 "
					    "service-time 0 1 2 8:16 1 1 service-time 0 1 2 8:32 1 1",
					    &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.kind, XCH_DM_MULTIPATH);
	CU_ASSERT_EQUAL(t.nleg, 2);
	CU_ASSERT_EQUAL(t.leg[0].minor, 16);
	CU_ASSERT_EQUAL(t.leg[1].minor, 32);
	/* what dmsetup users write: no features, one round-robin group */
	CU_ASSERT_EQUAL(xch_dm_parse_target("0 131072 multipath 0 0 1 1 round-robin 0 2 1 "
					    "8:0 1000 8:48 1000", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.nleg, 2);
	CU_ASSERT_EQUAL(t.leg[1].minor, 48);
}

static void
dm_parse_refuses_other_targets_by_name(void)
{
	static const struct {
		const char *line, *name, *reason;
	} v[] = {
		{ "0 2048 snapshot 254:1 254:2 P 8", "'snapshot' target", "copy-on-write" },
		{ "0 2048 snapshot-origin 254:1", "'snapshot-origin' target", "copy-on-write" },
		{ "0 2048 thin 254:3 1", "'thin' target", "thin provisioning" },
		{ "0 2048 thin-pool 254:1 254:2 128 0 0", "'thin-pool' target", "thin" },
		{ "0 2048 crypt aes-xts-plain64 :64:logon:k 0 8:16 0", "'crypt' target",
		  "encryption" },
		{ "0 2048 raid raid1 3 0 region_size 1024 2 - 8:16 - 8:32", "'raid' target", "RAID" },
		{ "0 2048 mirror core 1 1024 2 8:16 0 8:32 0", "'mirror' target", "mirror" },
		{ "0 2048 cache 254:1 254:2 254:3 128 0 default 0", "'cache' target", "cache" },
		{ "0 2048 zero", "'zero' target", "no blocks" },
		{ "0 2048 error", "'error' target", "no blocks" },
		{ "0 2048 vdo V4 8:16", "'vdo' target", "unknown" },
	};
	struct xch_dm_target t;
	char why[160];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CU_ASSERT_EQUAL(xch_dm_parse_target(v[i].line, &t, why, sizeof(why)), -ENOTSUP);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, v[i].name));
		CU_ASSERT_PTR_NOT_NULL(strstr(why, v[i].reason));
	}
}

static void
dm_parse_rejects_malformed_lines(void)
{
	static const char *bad[] = {
		"",
		"0",
		"0 2048",
		"x 2048 linear 8:16 0",
		"0 0 linear 8:16 0",           /* empty target */
		"0 2048 linear 8:16",
		"0 2048 linear 8-16 0",
		"0 2048 linear 8:16 0 extra",
		"0 2048 linear 8:16 -5",
		"0 2048 linear 8:16x 0",
		"0 2048 striped 0 128",
		"0 2048 striped 2 0 8:16 0 8:32 0",
		"0 2048 striped 2 128 8:16 0",
		"0 2050 striped 2 128 8:16 0 8:32 0",   /* not divisible by the stripes */
		"0 2304 striped 2 256 8:16 0 8:32 0",   /* stripe width not whole chunks */
		"0 2048 multipath 0 0 1 1 round-robin 0 2 1 8:16 1000",
		"0 2048 multipath 5 a 0 1 1 rr 0 1 1 8:16 1",
		"0 2048 multipath 0 0 1 1 round-robin 0 0 0",  /* no path */
		"99999999999999999999999 2048 linear 8:16 0",
	};
	struct xch_dm_target t;
	char why[160];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = xch_dm_parse_target(bad[i], &t, why, sizeof(why));

		CU_ASSERT_EQUAL(rc, -EINVAL);
		if (rc != -EINVAL) {
			fprintf(stderr, "accepted: '%s' (%d)\n", bad[i], rc);
		}
		CU_ASSERT_TRUE(why[0] != '\0');
	}
	CU_ASSERT_EQUAL(xch_dm_parse_target("0 2048 striped 33 8 8:16 0", &t, why, sizeof(why)),
			-E2BIG);
}

/* ------------------------------------------------------------ fake devices */

struct fdevs {
	struct xcopy_dev *d[8];    /* by minor */
	int opened[8];
};

/* The fake devices' transport: no command reaches it (their copies fall back). */
static int
none_exec(void *ctx, struct xch_cmd *c)
{
	(void)ctx;
	(void)c;
	return -ENODEV;
}

/* Nothing to close (the transports of this suite keep no state of their own). */
static void
none_close(void *ctx)
{
	(void)ctx;
}

static const struct xch_transport_ops g_none_ops = { .name = "none", .exec = none_exec,
						    .close = none_close };

static struct xcopy_dev *
fdev_new(uint32_t bs, uint64_t start, uint64_t blocks, uint64_t lu_blocks, int id)
{
	struct xcopy_dev *d = xch_dev_new(&xch_kind_scsi, NULL, "fake");

	UT_ASSERT_FATAL(d != NULL);
	d->ops = &g_none_ops;
	d->caps.block_size = bs;
	d->caps.num_blocks = lu_blocks;
	d->caps.part_start = start;
	d->caps.part_blocks = blocks;
	d->caps.offload = true;
	d->rdev = (dev_t)(100 + id);
	snprintf(d->name, sizeof(d->name), "fake%d", id);
	return d;
}

/* The opener: hands out fake devices by minor (8:MINOR), each once. */
static int
fopen_dev(void *arg, unsigned major, unsigned minor, int depth, struct xcopy_dev **out)
{
	struct fdevs *f = arg;

	(void)depth;
	if (major != 8 || minor >= 8 || f->d[minor] == NULL || f->opened[minor]) {
		return -ENOENT;
	}
	f->opened[minor] = 1;
	*out = f->d[minor];
	return 0;
}

/* Fake devices not handed to a map are freed here. */
static void
fdevs_free(struct fdevs *f)
{
	size_t i;

	for (i = 0; i < 8; i++) {
		if (!f->opened[i]) {
			xcopy_dev_close(f->d[i]);
		}
	}
}

static struct xcopy_dev *
volume(const char *table, uint32_t bs, uint64_t blocks, struct fdevs *f, int expect)
{
	struct xcopy_dev *v = fdev_new(bs, 0, blocks, blocks, 7);
	struct xch_dm_map *m = NULL;
	char why[160] = "";
	int rc;

	v->caps.offload = false;
	rc = xch_dm_map_build(table, bs, blocks, 0, fopen_dev, f, &m, why, sizeof(why));
	if (rc == 0) {
		xch_dm_use_map(v, m);
	}
	CU_ASSERT_EQUAL(rc, expect);
	if (rc != expect) {
		fprintf(stderr, "map '%s': %d (%s)\n", table, rc, why);
	}
	if (rc != 0) {
		xcopy_dev_close(v);
		return NULL;
	}
	return v;
}

/* Fresh fake devices (8:1 4 KiB blocks, 8:2 512-byte blocks) for a table that must fail. */
static void
refuse(const char *table, uint64_t blocks, int expect)
{
	struct fdevs f = { 0 };

	f.d[1] = fdev_new(4096, 0, 1024, 1024, 1);
	f.d[2] = fdev_new(512, 0, 8192, 8192, 2);
	CU_ASSERT_PTR_NULL(volume(table, 4096, blocks, &f, expect));
	fdevs_free(&f);
}

static void
dm_map_linear_pieces_and_refusals(void)
{
	struct fdevs f = { 0 };
	struct xcopy_dev *v, *dev;
	uint64_t lba, run;

	/* sdb: a partition at LU block 2048 (4 KiB blocks); sdc: a whole LU */
	f.d[1] = fdev_new(4096, 2048, 8192, 16384, 1);
	f.d[2] = fdev_new(4096, 0, 4096, 4096, 2);
	v = volume("0 16384 linear 8:1 8\n16384 8192 linear 8:2 0\n", 4096, 3072, &f, 0);
	UT_ASSERT_FATAL(v != NULL);
	CU_ASSERT_EQUAL(xch_dm_pieces(v), 2);
	xch_dev_locate(v, 0, &dev, &lba, &run);
	CU_ASSERT_PTR_EQUAL(dev, f.d[1]);
	CU_ASSERT_EQUAL(lba, 2048 + 1);         /* whole-LU: window start + offset */
	CU_ASSERT_EQUAL(run, 2048);
	xch_dev_locate(v, 2047, &dev, &lba, &run);
	CU_ASSERT_EQUAL(lba, 2048 + 1 + 2047);
	CU_ASSERT_EQUAL(run, 1);
	xch_dev_locate(v, 2048, &dev, &lba, &run);
	CU_ASSERT_PTR_EQUAL(dev, f.d[2]);
	CU_ASSERT_EQUAL(lba, 0);
	CU_ASSERT_EQUAL(run, 1024);
	CU_ASSERT_TRUE(xch_dev_offload(v));
	CU_ASSERT_TRUE(xch_dev_tables_same(v));
	xcopy_dev_close(v);

	/* a gap, a short table, unaligned starts and offsets, past the end, block sizes */
	refuse("8 16 linear 8:1 0\n", 2, -EINVAL);
	refuse("0 16 linear 8:1 0\n", 3, -ERANGE);
	refuse("0 16 linear 8:1 4\n", 2, -EINVAL);
	refuse("0 12 linear 8:1 0\n", 2, -EINVAL);
	refuse("0 16 linear 8:1 8184\n", 2, -ERANGE);
	refuse("0 16 linear 8:2 0\n", 2, -EINVAL);
	refuse("0 16 linear 8:5 0\n", 2, -ENOENT);
	refuse("0 16 zero\n", 2, -ENOTSUP);
	refuse("", 2, -ENOTSUP);
	/* a multipath target must be the whole volume, alone */
	refuse("0 8 linear 8:1 0\n8 8 multipath 0 0 1 1 rr 0 1 0 8:2\n", 2, -EINVAL);
}

static void
dm_map_striped_chunks_round_robin(void)
{
	struct fdevs f = { 0 };
	struct xcopy_dev *v, *dev;
	uint64_t lba, run, b;

	/* 3 stripes of 64 KiB chunks (128 sectors = 16 blocks of 4 KiB), 48 chunks */
	f.d[1] = fdev_new(4096, 0, 4096, 4096, 1);
	f.d[2] = fdev_new(4096, 100, 4096, 8192, 2);
	f.d[3] = fdev_new(4096, 0, 4096, 4096, 3);
	v = volume("0 6144 striped 3 128 8:1 0 8:2 64 8:3 800\n", 4096, 768, &f, 0);
	UT_ASSERT_FATAL(v != NULL);
	for (b = 0; b < 768; b += 5) {
		uint64_t c = b / 16, in = b % 16;
		struct xcopy_dev *want = f.d[1 + c % 3];
		uint64_t base = c % 3 == 0 ? 0 : c % 3 == 1 ? 100 + 8 : 100;

		xch_dev_locate(v, b, &dev, &lba, &run);
		CU_ASSERT_PTR_EQUAL(dev, want);
		CU_ASSERT_EQUAL(lba, base + (c / 3) * 16 + in);
		CU_ASSERT_EQUAL(run, 16 - in);
	}
	xcopy_dev_close(v);
	/* a stripe that runs past its device */
	memset(&f, 0, sizeof(f));
	f.d[1] = fdev_new(4096, 0, 64, 64, 1);
	f.d[2] = fdev_new(4096, 0, 64, 64, 2);
	CU_ASSERT_PTR_NULL(volume("0 1024 striped 2 128 8:1 0 8:2 8\n", 4096, 128, &f, -ERANGE));
	fdevs_free(&f);
}

static void
dm_map_stacked_volumes(void)
{
	struct fdevs f = { 0 }, g = { 0 };
	struct xcopy_dev *lower, *v, *dev;
	struct xch_dm_map *m = NULL;
	char why[160];
	uint64_t lba, run;

	/* lower: 2 pieces over sdb and sdc; v: a linear volume over lower at block 100 */
	f.d[1] = fdev_new(512, 0, 1000, 1000, 1);
	f.d[2] = fdev_new(512, 0, 1000, 1000, 2);
	lower = volume("0 600 linear 8:1 400\n600 1000 linear 8:2 0\n", 512, 1600, &f, 0);
	UT_ASSERT_FATAL(lower != NULL);
	g.d[4] = lower;
	v = fdev_new(512, 0, 800, 800, 8);
	CU_ASSERT_EQUAL(xch_dm_map_build("0 800 linear 8:4 100\n", 512, 800, 0, fopen_dev, &g,
					 &m, why, sizeof(why)), 0);
	UT_ASSERT_FATAL(m != NULL);
	xch_dm_use_map(v, m);
	xch_dev_locate(v, 0, &dev, &lba, &run);
	CU_ASSERT_PTR_EQUAL(dev, f.d[1]);
	CU_ASSERT_EQUAL(lba, 500);
	CU_ASSERT_EQUAL(run, 500);             /* cut where the lower volume's piece ends */
	xch_dev_locate(v, 500, &dev, &lba, &run);
	CU_ASSERT_PTR_EQUAL(dev, f.d[2]);
	CU_ASSERT_EQUAL(lba, 0);
	CU_ASSERT_EQUAL(run, 300);             /* cut where v ends */
	/* an unusable device deep down makes the whole stack not offload */
	f.d[2]->caps.offload = false;
	CU_ASSERT_FALSE(xch_dev_offload(v));
	xcopy_dev_close(v);
}

/* -------------------------------------------------- copies through the map */

struct rec {
	struct xch_pair p[32];
	size_t n;
};

static int
rec_fb(void *arg, const struct xch_pair *p, uint64_t skip, uint64_t nblocks,
       enum xcopy_fallback_reason why)
{
	struct rec *r = arg;

	(void)why;
	UT_ASSERT_FATAL(r->n < 32);
	r->p[r->n] = *p;
	r->p[r->n].src_lba += skip;
	r->p[r->n].dst_lba += skip;
	r->p[r->n].nblocks = nblocks;
	r->n++;
	return 0;
}

static void
dm_copy_pairs_cut_at_pieces_with_offsets(void)
{
	struct fdevs f = { 0 };
	struct xcopy_dev *v, *plain;
	struct xch_pair p = { .src_lba = 10, .dst_lba = 1000, .nblocks = 2000,
			      .src_off = 1 << 20, .dst_off = 5 << 20 };
	struct xcopy_stats st = { 0 };
	struct rec r = { 0 };

	/* devices that never offload: every run reaches the fallback as it was cut */
	f.d[1] = fdev_new(512, 0, 1000, 1000, 1);
	f.d[2] = fdev_new(512, 0, 4000, 4000, 2);
	f.d[1]->disabled = f.d[2]->disabled = true;
	f.d[1]->disabled_why = f.d[2]->disabled_why = XCOPY_FB_NO_3PC;
	v = volume("0 1000 linear 8:1 0\n1000 3000 linear 8:2 1000\n", 512, 4000, &f, 0);
	UT_ASSERT_FATAL(v != NULL);
	plain = fdev_new(512, 2000, 8000, 10000, 3);
	plain->disabled = true;
	plain->disabled_why = XCOPY_FB_NO_3PC;
	CU_ASSERT_EQUAL(xch_dm_copy_pairs(v, plain, &p, 1, 0, &st, rec_fb, &r), -ERANGE);
	p.dst_lba = 2000 + 3000;
	CU_ASSERT_EQUAL(xch_dm_copy_pairs(v, plain, &p, 1, 0, &st, rec_fb, &r), 0);
	UT_ASSERT_FATAL(r.n == 2);
	/* grouped by device pair: the order between groups is not the caller's */
	if (r.p[0].src_off > r.p[1].src_off) {
		struct xch_pair t = r.p[0];

		r.p[0] = r.p[1];
		r.p[1] = t;
	}
	CU_ASSERT_EQUAL(r.p[0].src_lba, 10);
	CU_ASSERT_EQUAL(r.p[0].dst_lba, 5000);
	CU_ASSERT_EQUAL(r.p[0].nblocks, 990);
	CU_ASSERT_EQUAL(r.p[0].src_off, 1 << 20);
	CU_ASSERT_EQUAL(r.p[1].src_lba, 1000);  /* sdc block 1000 = volume block 1000 */
	CU_ASSERT_EQUAL(r.p[1].dst_lba, 5990);
	CU_ASSERT_EQUAL(r.p[1].nblocks, 1010);
	CU_ASSERT_EQUAL(r.p[1].src_off, (1 << 20) + 990 * 512);
	CU_ASSERT_EQUAL(r.p[1].dst_off, (5 << 20) + 990 * 512);
	CU_ASSERT_EQUAL(st.bytes_offloaded, 0);
	/* required offload on devices that never offload */
	CU_ASSERT_NOT_EQUAL(xch_dm_copy_pairs(v, plain, &p, 1, XCOPY_REQUIRE_OFFLOAD, &st, rec_fb,
					      &r), 0);
	CU_ASSERT_EQUAL(r.n, 2);
	xcopy_dev_close(plain);
	xcopy_dev_close(v);
}

/*
 * The one entry of every copy (xch_copy_pairs) takes a mapped volume itself:
 * the pairs are cut at its pieces there, as file and device copies both
 * need (no caller picks the map copy on its own).
 */
static void
dm_copy_entry_cuts_a_volume(void)
{
	struct fdevs f = { 0 };
	struct xcopy_dev *v, *plain;
	struct xch_pair p = { .src_lba = 10, .dst_lba = 5000, .nblocks = 2000,
			      .src_off = 1 << 20, .dst_off = 5 << 20 };
	struct xcopy_stats st = { 0 };
	struct rec r = { 0 };
	uint64_t total = 0;
	size_t i;

	f.d[1] = fdev_new(512, 0, 1000, 1000, 1);
	f.d[2] = fdev_new(512, 0, 4000, 4000, 2);
	f.d[1]->disabled = f.d[2]->disabled = true;
	f.d[1]->disabled_why = f.d[2]->disabled_why = XCOPY_FB_NO_3PC;
	v = volume("0 1000 linear 8:1 0\n1000 3000 linear 8:2 1000\n", 512, 4000, &f, 0);
	UT_ASSERT_FATAL(v != NULL);
	plain = fdev_new(512, 2000, 8000, 10000, 3);
	plain->disabled = true;
	plain->disabled_why = XCOPY_FB_NO_3PC;
	CU_ASSERT_EQUAL(xch_copy_pairs(v, plain, &p, 1, 0, &st, rec_fb, &r), 0);
	/* one run per piece of the volume, on the devices underneath */
	CU_ASSERT_EQUAL(r.n, 2);
	for (i = 0; i < r.n; i++) {
		CU_ASSERT_TRUE(r.p[i].src_lba == 10 || r.p[i].src_lba == 1000);
		total += r.p[i].nblocks;
	}
	CU_ASSERT_EQUAL(total, 2000);
	CU_ASSERT_EQUAL(st.fallback_bytes[XCOPY_FB_NO_3PC], 2000 * 512);
	xcopy_dev_close(plain);
	xcopy_dev_close(v);
}

/* -------------------------------------------------------------- multipath */

struct fpath {
	uint8_t naa_last;          /* the LU's designator's last byte */
	int fail_after;            /* commands answered before the path fails (-1: never) */
	int fail_rc;               /* -errno, or 0: LOGICAL UNIT NOT SUPPORTED */
	int ncmd;
};

static void
fp_sense(struct xch_cmd *c, uint8_t key, uint8_t asc, uint8_t ascq)
{
	memset(c->sense, 0, 18);
	c->sense[0] = 0x70;
	c->sense[2] = key;
	c->sense[7] = 10;
	c->sense[12] = asc;
	c->sense[13] = ascq;
	c->sense_len = 18;
	c->status = XCM_SAM_CHECK_CONDITION;
}

static void
fp_in(struct xch_cmd *c, const uint8_t *p, size_t n)
{
	memcpy(c->buf, p, n < c->len ? n : c->len);
	c->resid = n < c->len ? c->len - n : 0;
	c->status = XCM_SAM_GOOD;
}

static int
fp_exec(void *ctx, struct xch_cmd *c)
{
	struct fpath *p = ctx;
	uint8_t b[64] = { 0 };

	if (p->fail_after >= 0 && p->ncmd >= p->fail_after) {
		if (p->fail_rc != 0) {
			return p->fail_rc;
		}
		fp_sense(c, XCM_SK_ILLEGAL_REQUEST, 0x25, 0x00);
		return 0;
	}
	p->ncmd++;
	if (c->cdb[0] == 0x12 && !(c->cdb[1] & 1)) {
		b[3] = 2;
		b[4] = 31;
		memcpy(b + 8, "FAKE    MPATH           0001", 28);
		fp_in(c, b, 36);
	} else if (c->cdb[0] == 0x12 && c->cdb[2] == 0x83) {
		/* one NAA 6 LU designator, binary code set */
		b[1] = 0x83;
		b[3] = 20;
		b[4] = 0x01;
		b[5] = 0x03;
		b[7] = 16;
		b[8] = 0x60;
		b[9] = 0x01;
		b[23] = p->naa_last;
		fp_in(c, b, 24);
	} else if (c->cdb[0] == 0x9e && (c->cdb[1] & 0x1f) == 0x10) {
		xcm_put_be64(b, 4095);
		xcm_put_be32(b + 8, 512);
		fp_in(c, b, 32);
	} else if (c->cdb[0] == 0x28 || c->cdb[0] == 0x88) {
		memset(c->buf, p->naa_last, c->len);
		c->status = XCM_SAM_GOOD;
	} else {
		fp_sense(c, XCM_SK_ILLEGAL_REQUEST, 0x20, 0x00);
	}
	return 0;
}

static const struct xch_transport_ops g_fp_ops = { .name = "fake-path", .exec = fp_exec,
						  .close = none_close };

static struct xcopy_dev *
fp_open(struct fpath *p)
{
	struct xcopy_dev *d = NULL;

	CU_ASSERT_EQUAL(xch_dev_attach(&g_fp_ops, p, "path", 0, 0, &d), 0);
	UT_ASSERT_FATAL(d != NULL);
	return d;
}

static void
dm_mpath_failed_path_resends_on_the_next(void)
{
	struct fpath a = { .naa_last = 0x42, .fail_after = -1 };
	struct fpath b = { .naa_last = 0x42, .fail_after = -1 };
	struct xcopy_dev *paths[2], *mp = NULL;
	uint8_t buf[4 * 512];
	char why[160] = "";
	int before;

	paths[0] = fp_open(&a);
	paths[1] = fp_open(&b);
	CU_ASSERT_EQUAL(xch_mpath_attach(paths, 2, "mp", &mp, why, sizeof(why)), 0);
	UT_ASSERT_FATAL(mp != NULL);
	CU_ASSERT_EQUAL(mp->caps.num_blocks, 4096);
	CU_ASSERT_EQUAL(mp->caps.desig_len, 20);
	CU_ASSERT_EQUAL(xch_mpath_live_paths(mp), 2);
	/* path a works: reads go there */
	before = b.ncmd;
	CU_ASSERT_EQUAL(xch_dev_read(mp, 0, 4, buf, NULL), 0);
	CU_ASSERT_EQUAL(b.ncmd, before);
	/* a is gone (no SCSI status): the read is resent on b after b's identity is checked */
	a.fail_after = a.ncmd;
	a.fail_rc = -ENXIO;
	CU_ASSERT_EQUAL(xch_dev_read(mp, 8, 4, buf, NULL), 0);
	CU_ASSERT_EQUAL(b.ncmd, before + 2);   /* VPD 83h, then the READ */
	CU_ASSERT_EQUAL(xch_mpath_live_paths(mp), 1);
	/* b now says LOGICAL UNIT NOT SUPPORTED: no path left */
	b.fail_after = b.ncmd;
	b.fail_rc = 0;
	CU_ASSERT_NOT_EQUAL(xch_dev_read(mp, 8, 4, buf, NULL), 0);
	CU_ASSERT_EQUAL(xch_mpath_live_paths(mp), 0);
	xcopy_dev_close(mp);
	CU_ASSERT_EQUAL(xch_mpath_live_paths(NULL), 0);
}

static void
dm_mpath_identity_checked_on_every_path(void)
{
	struct fpath a = { .naa_last = 0x42, .fail_after = -1 };
	struct fpath b = { .naa_last = 0x43, .fail_after = -1 };
	struct fpath c = { .naa_last = 0x42, .fail_after = -1 };
	struct xcopy_dev *paths[3], *mp = NULL;
	uint8_t buf[512];
	char why[160] = "";

	/* two LUs are not one multipath device */
	paths[0] = fp_open(&a);
	paths[1] = fp_open(&b);
	CU_ASSERT_EQUAL(xch_mpath_attach(paths, 2, "mp", &mp, why, sizeof(why)), -EXDEV);
	CU_ASSERT_PTR_NULL(mp);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "different LUs"));
	/* a path whose LU changed after open is not used when it would take over */
	paths[0] = fp_open(&a);
	paths[1] = fp_open(&c);
	CU_ASSERT_EQUAL(xch_mpath_attach(paths, 2, "mp", &mp, why, sizeof(why)), 0);
	UT_ASSERT_FATAL(mp != NULL);
	c.naa_last = 0x77;
	a.fail_after = a.ncmd;
	a.fail_rc = -EIO;
	CU_ASSERT_NOT_EQUAL(xch_dev_read(mp, 0, 1, buf, NULL), 0);
	CU_ASSERT_EQUAL(xch_mpath_live_paths(mp), 0);
	xcopy_dev_close(mp);
}

static CU_TestInfo g_tests[] = {
	{ "parse_linear_striped_multipath", dm_parse_linear_striped_multipath },
	{ "parse_refuses_other_targets_by_name", dm_parse_refuses_other_targets_by_name },
	{ "parse_rejects_malformed_lines", dm_parse_rejects_malformed_lines },
	{ "map_linear_pieces_and_refusals", dm_map_linear_pieces_and_refusals },
	{ "map_striped_chunks_round_robin", dm_map_striped_chunks_round_robin },
	{ "map_stacked_volumes", dm_map_stacked_volumes },
	{ "copy_pairs_cut_at_pieces_with_offsets", dm_copy_pairs_cut_at_pieces_with_offsets },
	{ "copy_entry_cuts_a_volume", dm_copy_entry_cuts_a_volume },
	{ "mpath_failed_path_resends_on_the_next", dm_mpath_failed_path_resends_on_the_next },
	{ "mpath_identity_checked_on_every_path", dm_mpath_identity_checked_on_every_path },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_dm, g_tests)
