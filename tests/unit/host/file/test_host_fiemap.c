/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host: FIEMAP safety decisions, extent pairing into pieces, real FIEMAP on
 * a temporary file, sysfs partition resolution on a fake tree, and the
 * choice of the CSCD designator from a VPD 0x83 page.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fiemap.h>

#include "ut.h"
#include "file/xch_file.h"

static const struct {
	uint32_t flags;
	enum xch_src_class src;
	bool dst_ok;
} g_flag_table[] = {
	{ 0, XCH_SRC_DATA, true },
	{ FIEMAP_EXTENT_LAST, XCH_SRC_DATA, true },
	{ FIEMAP_EXTENT_MERGED, XCH_SRC_DATA, true },
	{ FIEMAP_EXTENT_UNKNOWN, XCH_SRC_UNSAFE, false },
	{ FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN, XCH_SRC_UNSAFE, false },
	{ FIEMAP_EXTENT_ENCODED, XCH_SRC_UNSAFE, false },
	{ FIEMAP_EXTENT_DATA_ENCRYPTED, XCH_SRC_UNSAFE, false },
	{ FIEMAP_EXTENT_NOT_ALIGNED, XCH_SRC_UNSAFE, false },
	{ FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED, XCH_SRC_UNSAFE, false },
	{ FIEMAP_EXTENT_DATA_TAIL, XCH_SRC_UNSAFE, false },
	{ FIEMAP_EXTENT_UNWRITTEN, XCH_SRC_HOLE, false },
	/* a shared source is fine to read; a shared destination is someone else's data */
	{ FIEMAP_EXTENT_SHARED, XCH_SRC_DATA, false },
	{ FIEMAP_EXTENT_SHARED | FIEMAP_EXTENT_LAST, XCH_SRC_DATA, false },
};

static void
host_fiemap_flag_safety_table(void)
{
	enum xcopy_fallback_reason why;
	size_t i;

	for (i = 0; i < sizeof(g_flag_table) / sizeof(g_flag_table[0]); i++) {
		CU_ASSERT_EQUAL(xch_src_extent_class(g_flag_table[i].flags, &why),
				g_flag_table[i].src);
		if (g_flag_table[i].src == XCH_SRC_UNSAFE) {
			CU_ASSERT_TRUE(why == XCOPY_FB_EXTENT_FLAGS || why == XCOPY_FB_UNALIGNED);
		}
		CU_ASSERT_EQUAL(xch_dst_extent_ok(g_flag_table[i].flags, &why),
				g_flag_table[i].dst_ok);
		if (!g_flag_table[i].dst_ok) {
			CU_ASSERT_NOT_EQUAL(why, XCOPY_FB_NONE);
		}
	}
}

/* Sum of piece lengths == len, pieces contiguous in both files. */
static void
ut_check_pieces(const struct xch_piece *p, size_t n, uint64_t off_in, uint64_t off_out,
		uint64_t len)
{
	uint64_t pos = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(p[i].src_off, off_in + pos);
		CU_ASSERT_EQUAL(p[i].dst_off, off_out + pos);
		CU_ASSERT_TRUE(p[i].len > 0);
		pos += p[i].len;
	}
	CU_ASSERT_EQUAL(pos, len);
}

static void
host_fiemap_pieces_pair_data_and_skip_holes(void)
{
	/* source: data [0,64K) at 1M, hole [64K,128K), data [128K,192K) at 5M */
	struct xch_fext src[] = {
		{ 0, 1 << 20, 65536, 0 },
		{ 131072, 5 << 20, 65536, FIEMAP_EXTENT_LAST },
	};
	/* destination: one written extent at 9M covering everything */
	struct xch_fext dst[] = { { 0, 9 << 20, 196608, FIEMAP_EXTENT_LAST } };
	struct xch_piece *p;
	size_t n;

	CU_ASSERT_EQUAL(xch_map_pieces(src, 2, dst, 1, 0, 0, 196608, 512, &p, &n), 0);
	UT_ASSERT_FATAL(n == 3);
	ut_check_pieces(p, n, 0, 0, 196608);
	CU_ASSERT_EQUAL(p[0].kind, XCH_PIECE_OFFLOAD);
	CU_ASSERT_EQUAL(p[0].src_phys, 1 << 20);
	CU_ASSERT_EQUAL(p[0].dst_phys, 9 << 20);
	CU_ASSERT_EQUAL(p[1].kind, XCH_PIECE_HOLE);
	CU_ASSERT_EQUAL(p[1].len, 65536);
	CU_ASSERT_EQUAL(p[2].kind, XCH_PIECE_OFFLOAD);
	CU_ASSERT_EQUAL(p[2].src_phys, 5 << 20);
	CU_ASSERT_EQUAL(p[2].dst_phys, (9 << 20) + 131072);
	free(p);
}

static void
host_fiemap_pieces_split_at_destination_extents(void)
{
	struct xch_fext src[] = { { 0, 1 << 20, 1 << 20, FIEMAP_EXTENT_LAST } };
	/* dst: written, shared, unwritten, a gap, then written */
	struct xch_fext dst[] = {
		{ 0, 100 << 20, 262144, 0 },
		{ 262144, 200 << 20, 262144, FIEMAP_EXTENT_SHARED },
		{ 524288, 300 << 20, 131072, FIEMAP_EXTENT_UNWRITTEN },
		{ 786432, 400 << 20, 262144, FIEMAP_EXTENT_LAST },
	};
	struct xch_piece *p;
	size_t n;

	CU_ASSERT_EQUAL(xch_map_pieces(src, 1, dst, 4, 0, 0, 1 << 20, 4096, &p, &n), 0);
	ut_check_pieces(p, n, 0, 0, 1 << 20);
	UT_ASSERT_FATAL(n == 3);
	CU_ASSERT_EQUAL(p[0].kind, XCH_PIECE_OFFLOAD);
	CU_ASSERT_EQUAL(p[0].len, 262144);
	/* shared, unwritten and the gap all need the destination fixed: merged */
	CU_ASSERT_EQUAL(p[1].kind, XCH_PIECE_FALLBACK);
	CU_ASSERT_EQUAL(p[1].why, XCOPY_FB_DST_EXTENT);
	CU_ASSERT_EQUAL(p[1].len, 524288);
	CU_ASSERT_EQUAL(p[2].kind, XCH_PIECE_OFFLOAD);
	CU_ASSERT_EQUAL(p[2].len, 262144);
	CU_ASSERT_EQUAL(p[2].src_phys, (1 << 20) + 786432);
	CU_ASSERT_EQUAL(p[2].dst_phys, 400 << 20);
	free(p);
}

static void
host_fiemap_pieces_trim_to_blocks_and_tail(void)
{
	/* a 10000-byte file: the last 4096-byte LU block is partial */
	struct xch_fext src[] = { { 0, 1 << 20, 12288, FIEMAP_EXTENT_LAST } };
	struct xch_fext dst[] = { { 0, 2 << 20, 12288, FIEMAP_EXTENT_LAST } };
	struct xch_piece *p;
	size_t n;

	CU_ASSERT_EQUAL(xch_map_pieces(src, 1, dst, 1, 0, 0, 10000, 4096, &p, &n), 0);
	UT_ASSERT_FATAL(n == 2);
	CU_ASSERT_EQUAL(p[0].kind, XCH_PIECE_OFFLOAD);
	CU_ASSERT_EQUAL(p[0].len, 8192);
	CU_ASSERT_EQUAL(p[1].kind, XCH_PIECE_FALLBACK);
	CU_ASSERT_EQUAL(p[1].why, XCOPY_FB_UNALIGNED);
	CU_ASSERT_EQUAL(p[1].len, 10000 - 8192);
	free(p);
	/* different alignment on the two sides: never offloadable */
	dst[0].physical = (2 << 20) + 512;
	CU_ASSERT_EQUAL(xch_map_pieces(src, 1, dst, 1, 0, 0, 8192, 4096, &p, &n), 0);
	UT_ASSERT_FATAL(n == 1);
	CU_ASSERT_EQUAL(p[0].kind, XCH_PIECE_FALLBACK);
	CU_ASSERT_EQUAL(p[0].why, XCOPY_FB_UNALIGNED);
	free(p);
	/* same misalignment on both sides: head and tail fall back, middle offloads */
	src[0].physical = (1 << 20) + 512;
	CU_ASSERT_EQUAL(xch_map_pieces(src, 1, dst, 1, 0, 0, 12288, 4096, &p, &n), 0);
	UT_ASSERT_FATAL(n == 3);
	CU_ASSERT_EQUAL(p[0].len, 3584);
	CU_ASSERT_EQUAL(p[1].kind, XCH_PIECE_OFFLOAD);
	CU_ASSERT_EQUAL(p[1].src_phys % 4096, 0);
	CU_ASSERT_EQUAL(p[1].len, 8192);
	CU_ASSERT_EQUAL(p[2].len, 512);
	free(p);
}

static void
host_fiemap_pieces_offsets_unsafe_and_merging(void)
{
	/* three physically contiguous source extents (ext4 splits at 128 MiB) */
	struct xch_fext src[] = {
		{ 0, 1 << 20, 65536, 0 },
		{ 65536, (1 << 20) + 65536, 65536, 0 },
		{ 131072, 8 << 20, 65536, FIEMAP_EXTENT_DELALLOC },
		{ 196608, 9 << 20, 65536, FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_LAST },
	};
	struct xch_fext dst[] = { { 0, 50 << 20, 1 << 20, FIEMAP_EXTENT_LAST } };
	struct xch_piece *p;
	size_t n;

	/* copy from source offset 4096 to destination offset 8192 */
	CU_ASSERT_EQUAL(xch_map_pieces(src, 4, dst, 1, 4096, 8192, 262144 - 4096, 4096, &p, &n),
			0);
	ut_check_pieces(p, n, 4096, 8192, 262144 - 4096);
	UT_ASSERT_FATAL(n == 3);
	CU_ASSERT_EQUAL(p[0].kind, XCH_PIECE_OFFLOAD);    /* merged across the extent split */
	CU_ASSERT_EQUAL(p[0].len, 131072 - 4096);
	CU_ASSERT_EQUAL(p[0].src_phys, (1 << 20) + 4096);
	CU_ASSERT_EQUAL(p[0].dst_phys, (50 << 20) + 8192);
	CU_ASSERT_EQUAL(p[1].kind, XCH_PIECE_FALLBACK);   /* delalloc */
	CU_ASSERT_EQUAL(p[1].why, XCOPY_FB_EXTENT_FLAGS);
	CU_ASSERT_EQUAL(p[2].kind, XCH_PIECE_HOLE);       /* unwritten reads as zeros */
	free(p);
	/* pre-pass without destination extents: every data piece needs a destination */
	CU_ASSERT_EQUAL(xch_map_pieces(src, 2, NULL, 0, 0, 0, 131072, 4096, &p, &n), 0);
	UT_ASSERT_FATAL(n == 1);
	CU_ASSERT_EQUAL(p[0].kind, XCH_PIECE_FALLBACK);
	CU_ASSERT_EQUAL(p[0].why, XCOPY_FB_DST_EXTENT);
	free(p);
	/* beyond the last extent: a hole */
	CU_ASSERT_EQUAL(xch_map_pieces(src, 1, dst, 1, 0, 0, 100000, 4096, &p, &n), 0);
	UT_ASSERT_FATAL(n == 2);
	CU_ASSERT_EQUAL(p[1].kind, XCH_PIECE_HOLE);
	CU_ASSERT_EQUAL(p[1].len, 100000 - 65536);
	free(p);
}

static void
host_fiemap_real_file_extents(void)
{
	char path[4096];
	struct xch_fext *e = NULL;
	uint8_t buf[65536];
	size_t n = 0, i;
	uint64_t covered = 0;
	int fd, rc;

	ut_tmpdir("fiemap", path, sizeof(path) - 8);
	strcat(path, "/f");
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	UT_ASSERT_FATAL(fd >= 0);
	unlink(path);
	*strrchr(path, '/') = '\0';
	ut_rm_tree(path);
	memset(buf, 0xA5, sizeof(buf));
	CU_ASSERT_EQUAL(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	/* a hole, then more data */
	CU_ASSERT_EQUAL(pwrite(fd, buf, sizeof(buf), 1 << 20), (ssize_t)sizeof(buf));
	rc = xch_fiemap(fd, 0, (1 << 20) + sizeof(buf), &e, &n);
	if (rc == -EOPNOTSUPP || rc == -ENOTTY) {
		/* the library falls back there (host_file tests cover it); say so */
		UT_SKIP("FIEMAP not supported by the file system of $TMPDIR");
		close(fd);
		return;
	}
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_TRUE(n >= 1);
	for (i = 0; i < n; i++) {
		if (i > 0) {
			CU_ASSERT_TRUE(e[i].logical >= e[i - 1].logical + e[i - 1].length);
		}
		covered += e[i].length;
	}
	/* after FIEMAP_FLAG_SYNC nothing is delayed; both written ranges are mapped */
	for (i = 0; i < n; i++) {
		CU_ASSERT_FALSE(e[i].flags & FIEMAP_EXTENT_DELALLOC);
	}
	CU_ASSERT_TRUE(covered >= 2 * sizeof(buf));
	CU_ASSERT_EQUAL(e[0].logical, 0);
	free(e);
	close(fd);
}

static int
ut_write(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f == NULL) {
		return -1;
	}
	fputs(text, f);
	fclose(f);
	return 0;
}

static void
host_fiemap_sysfs_partition_to_disk(void)
{
	char root[256];
	char p[512], q[2048];
	struct xch_blk b;

	ut_tmpdir("sysfs", root, sizeof(root));
	snprintf(p, sizeof(p), "%s/block/sdb/sdb1", root);
	snprintf(q, sizeof(q), "mkdir -p %s %s/dev/block %s/block/sdb/device/scsi_device %s/block/vda "
		 "%s/block/sdb/queue", p, root, root, root, root);
	UT_ASSERT_FATAL(system(q) == 0);
	snprintf(p, sizeof(p), "%s/block/sdb", root);
	ut_write(p, "dev", "8:16\n");
	ut_write(p, "size", "2097152\n");
	ut_write(p, "queue/write_zeroes_unmap_max_bytes", "4294966784\n");
	snprintf(p, sizeof(p), "%s/block/sdb/sdb1", root);
	ut_write(p, "dev", "8:17\n");
	ut_write(p, "partition", "1\n");
	ut_write(p, "start", "2048\n");
	ut_write(p, "size", "1000000\n");
	snprintf(p, sizeof(p), "%s/block/vda", root);
	ut_write(p, "dev", "254:0\n");
	ut_write(p, "size", "100\n");
	snprintf(p, sizeof(p), "%s/dev/block/8:17", root);
	UT_ASSERT_FATAL(symlink("../../block/sdb/sdb1", p) == 0);
	snprintf(p, sizeof(p), "%s/dev/block/8:16", root);
	UT_ASSERT_FATAL(symlink("../../block/sdb", p) == 0);
	snprintf(p, sizeof(p), "%s/dev/block/254:0", root);
	UT_ASSERT_FATAL(symlink("../../block/vda", p) == 0);

	CU_ASSERT_EQUAL(xch_sysfs_resolve(root, 8, 17, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.disk, "sdb");
	CU_ASSERT_EQUAL(b.disk_major, 8);
	CU_ASSERT_EQUAL(b.disk_minor, 16);
	CU_ASSERT_EQUAL(b.start, 2048);
	CU_ASSERT_EQUAL(b.size, 1000000);
	CU_ASSERT_TRUE(b.is_scsi);
	/* a partition's unmap write zeroes limit is its disk's queue's */
	CU_ASSERT_EQUAL(b.wz_unmap, 4294966784ULL);
	CU_ASSERT_EQUAL(xch_alloc_reason("6.19.14+deb13-amd64", &b), XCOPY_FB_ALLOC_FS);
	CU_ASSERT_EQUAL(xch_alloc_reason("6.1.0-57-amd64", &b), XCOPY_FB_ALLOC);
	CU_ASSERT_EQUAL(xch_sysfs_resolve(root, 8, 16, &b), 0);
	CU_ASSERT_EQUAL(b.start, 0);
	CU_ASSERT_EQUAL(b.size, 2097152);
	CU_ASSERT_EQUAL(xch_sysfs_resolve(root, 254, 0, &b), 0);
	CU_ASSERT_FALSE(b.is_scsi); /* virtio-blk: no SCSI device behind it */
	/* no queue/write_zeroes_unmap_max_bytes (before 6.17, or no such limit): none */
	CU_ASSERT_EQUAL(b.wz_unmap, 0);
	CU_ASSERT_EQUAL(xch_alloc_reason("7.3.4+deb13-amd64", &b), XCOPY_FB_ALLOC_DISK);
	CU_ASSERT_EQUAL(xch_alloc_reason("7.3.4+deb13-amd64", NULL), XCOPY_FB_ALLOC_DISK);
	CU_ASSERT_EQUAL(xch_alloc_reason(NULL, &b), XCOPY_FB_ALLOC);
	CU_ASSERT_EQUAL(xch_sysfs_resolve(root, 9, 9, &b), -ENOENT);
	snprintf(q, sizeof(q), "rm -rf %s", root);
	CU_ASSERT_EQUAL(system(q), 0);
}

/* A designation descriptor appended to a VPD 0x83 page under construction. */
static size_t
ut_desig(uint8_t *page, size_t n, uint8_t code_set, uint8_t assoc, uint8_t type,
	 const uint8_t *body, uint8_t len)
{
	page[n] = code_set;
	page[n + 1] = (uint8_t)((assoc << 4) | type);
	page[n + 2] = 0;
	page[n + 3] = len;
	memcpy(page + n + 4, body, len);
	return n + 4 + len;
}

static void
host_fiemap_designator_choice(void)
{
	static const uint8_t naa6[16] = { 0x60, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const uint8_t naa5[8] = { 0x50, 1, 2, 3, 4, 5, 6, 7 };
	static const uint8_t t10[8] = { 'V', 'E', 'N', 'D', 'O', 'R', ' ', ' ' };
	static const uint8_t name[24] = { 'i', 'q', 'n', '.' };
	uint8_t page[256], out[24];
	size_t n = 4;
	int rc;

	memset(page, 0, sizeof(page));
	page[1] = XCM_VPD_DEVICE_ID;
	n = ut_desig(page, n, XCM_CODE_SET_ASCII, 0, XCM_DESIG_T10, t10, 8);
	n = ut_desig(page, n, XCM_CODE_SET_UTF8, 0, XCM_DESIG_SCSI_NAME, name, 24); /* too long */
	n = ut_desig(page, n, XCM_CODE_SET_BINARY, 0, XCM_DESIG_NAA, naa5, 8);
	n = ut_desig(page, n, XCM_CODE_SET_BINARY, 1, XCM_DESIG_NAA, naa6, 16); /* port */
	xcm_put_be16(page + 2, (uint16_t)(n - 4));
	rc = xch_pick_designator(xcm_span_make(page, n), out, sizeof(out));
	CU_ASSERT_EQUAL(rc, 12);
	CU_ASSERT_EQUAL(out[4], 0x50); /* NAA 5 beats T10; the port's NAA 6 is not the LU */
	n = ut_desig(page, n, XCM_CODE_SET_BINARY, 0, XCM_DESIG_NAA, naa6, 16);
	xcm_put_be16(page + 2, (uint16_t)(n - 4));
	rc = xch_pick_designator(xcm_span_make(page, n), out, sizeof(out));
	CU_ASSERT_EQUAL(rc, 20);
	CU_ASSERT_EQUAL(memcmp(out + 4, naa6, 16), 0);
	/* truncated page: malformed, not a crash */
	CU_ASSERT_EQUAL(xch_pick_designator(xcm_span_make(page, n - 3), out, sizeof(out)), -EINVAL);
	/* only the long name: nothing usable */
	n = ut_desig(page, 4, XCM_CODE_SET_UTF8, 0, XCM_DESIG_SCSI_NAME, name, 24);
	xcm_put_be16(page + 2, (uint16_t)(n - 4));
	CU_ASSERT_EQUAL(xch_pick_designator(xcm_span_make(page, n), out, sizeof(out)), 0);
}

static CU_TestInfo g_tests[] = {
	{ "flag_safety_table", host_fiemap_flag_safety_table },
	{ "pieces_pair_data_and_skip_holes", host_fiemap_pieces_pair_data_and_skip_holes },
	{ "pieces_split_at_destination_extents", host_fiemap_pieces_split_at_destination_extents },
	{ "pieces_trim_to_blocks_and_tail", host_fiemap_pieces_trim_to_blocks_and_tail },
	{ "pieces_offsets_unsafe_and_merging", host_fiemap_pieces_offsets_unsafe_and_merging },
	{ "real_file_extents", host_fiemap_real_file_extents },
	{ "sysfs_partition_to_disk", host_fiemap_sysfs_partition_to_disk },
	{ "designator_choice", host_fiemap_designator_choice },
	CU_TEST_INFO_NULL,
};
UT_SUITE(host_fiemap, g_tests)
