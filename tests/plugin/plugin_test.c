/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Plugin tests: registration, configuration, open errors, I/O callouts,
 * what goes to the core, VPD, EXTENDED COPY within a LU and its errors.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* ------------------------------------------------------------------------ */
/* tests                                                                      */
/* ------------------------------------------------------------------------ */

static void
test_registration(void)
{
	CHECK(g_handler != NULL);
	if (g_handler == NULL) {
		exit(1);
	}
	CHECK(strcmp(g_handler->subtype, expected_subtype()) == 0);   /* XCOPY_SUBTYPE */
	CHECK(g_handler->open != NULL && g_handler->close != NULL);
	CHECK(g_handler->handle_cmd != NULL);
	CHECK(g_handler->read != NULL && g_handler->write != NULL && g_handler->flush != NULL);
	CHECK(g_handler->unmap != NULL);
	CHECK(g_handler->nr_threads > 0);
	/* targetcli's help: its cfgstring= is what follows "xcopy/" */
	CHECK(g_handler->cfg_desc != NULL && strncmp(g_handler->cfg_desc, "/PATH[?clone=", 13) == 0);
}

void
expect_config(const char *cfg, bool ok, const char *needle)
{
	char *reason = NULL;
	bool r = g_handler->check_config(cfg, &reason);

	CHECK(r == ok);
	if (!ok) {
		CHECK(reason != NULL && strstr(reason, needle) != NULL);
		if (reason == NULL || strstr(reason, needle) == NULL) {
			fprintf(stderr, "  cfg '%s': reason '%s', want '%s'\n", cfg,
				reason != NULL ? reason : "(null)", needle);
		}
	}
	free(reason);
}

static void
test_check_config(void)
{
	char cfg[600];

	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img", g_tmp);
	expect_config(cfg, true, NULL);
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?clone=never&cfr=never&xcopy=core", g_tmp);
	expect_config(cfg, true, NULL);
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?copy_nice=0&writeback=late", g_tmp);
	expect_config(cfg, true, NULL);
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?copy_nice=19&writeback=early", g_tmp);
	expect_config(cfg, true, NULL);
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?copy_nice=20", g_tmp);
	expect_config(cfg, false, "copy_nice=20");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?copy_nice=-1", g_tmp);
	expect_config(cfg, false, "copy_nice=-1");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?writeback=never", g_tmp);
	expect_config(cfg, false, "writeback=never");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?clone=maybe", g_tmp);
	expect_config(cfg, false, "clone=maybe");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/a.img?speed=11", g_tmp);
	expect_config(cfg, false, "unknown option");
	snprintf(cfg, sizeof(cfg), "xcopy/%s/missing.img", g_tmp);
	expect_config(cfg, false, "missing.img");
	expect_config("xcopy/relative.img", false, "absolute");
	expect_config("xcopyx//tmp/a.img", false, "xcopy/");
	expect_config("file//tmp/a.img", false, "xcopy/");
	/* RBD form (store_rbd.c): refused before any cluster contact */
	expect_config("xcopy/rbd/pool", false, "no image name");
	expect_config("xcopy/rbd/pool/img?bs=1000", false, "bs=1000");
	expect_config("xcopy/rbd/pool/img@/nonexistent/ceph.conf", false,
		      "ceph config /nonexistent/ceph.conf: No such file");
}

static void
test_open_errors(void)
{
	struct tcmu_device d;
	const char *ro[] = { "/sys/kernel/uevent_seqnum", "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size" };
	size_t i;
	int rc;

	/* missing backing file */
	dev_setup(&d, 90, 90, "missing", "missing.img", "", SER_A);
	g_last_err[0] = '\0';
	rc = g_handler->open(&d, false);
	CHECK(rc == -ENOENT);
	CHECK(strstr(g_last_err, "missing.img") != NULL && strstr(g_last_err, "does not exist"));

	/* backing file smaller than the LU */
	make_backing("short.img", (uint64_t)NLBAS * BS - 1);
	dev_setup(&d, 91, 91, "short", "short.img", "", SER_A);
	g_last_err[0] = '\0';
	rc = g_handler->open(&d, false);
	CHECK(rc == -EINVAL);
	CHECK(strstr(g_last_err, "short.img") != NULL && strstr(g_last_err, "smaller than the LU"));

	/* bad option */
	dev_setup(&d, 92, 92, "badopt", "a.img", "?cfr=sometimes", SER_A);
	CHECK(g_handler->open(&d, false) == -EINVAL);
	CHECK(strstr(g_last_err, "cfr=sometimes") != NULL);

	/* unwritable: a 0444 file for users; root needs a read-only sysfs attribute */
	if (geteuid() != 0) {
		make_backing("ro.img", (uint64_t)NLBAS * BS);
		snprintf(d.cfgstring, sizeof(d.cfgstring), "xcopy/%s/ro.img", g_tmp);
		{
			char p[512];
			path_of(p, sizeof(p), "ro.img");
			chmod(p, 0444);
		}
	} else {
		for (i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
			int fd = open(ro[i], O_RDWR);
			if (fd < 0 && errno == EACCES) {
				break;
			}
			if (fd >= 0) {
				close(fd);
			}
		}
		if (i == sizeof(ro) / sizeof(ro[0])) {
			printf("SKIP unwritable-backing-file test (no read-only file for root)\n");
			return;
		}
		snprintf(d.cfgstring, sizeof(d.cfgstring), "xcopy/%s", ro[i]);
	}
	g_last_err[0] = '\0';
	rc = g_handler->open(&d, false);
	CHECK(rc == -EACCES);
	CHECK(strstr(g_last_err, "cannot be opened read-write") != NULL);
}

static void
test_io_callouts(void)
{
	uint8_t w[3000], r[3000];
	struct iovec iov[2];
	struct tcmur_cmd cmd;
	size_t i;

	memset(&cmd, 0, sizeof(cmd));
	for (i = 0; i < sizeof(w); i++) {
		w[i] = (uint8_t)(i * 13 + 1);
	}
	iov[0].iov_base = w;
	iov[0].iov_len = 1000;
	iov[1].iov_base = w + 1000;
	iov[1].iov_len = 2072;   /* 3072 = 6 blocks, only 3000 of w are meaningful */
	{
		uint8_t big[3072];
		memcpy(big, w, sizeof(w));
		memset(big + sizeof(w), 0x5A, sizeof(big) - sizeof(w));
		iov[0].iov_base = big;
		iov[1].iov_base = big + 1000;
		CHECK(g_handler->write(&g_a, &cmd, iov, 2, 3072, 4096 * 100) == TCMU_STS_OK);
		memset(r, 0, sizeof(r));
		iov[0].iov_base = r;
		iov[0].iov_len = sizeof(r);
		CHECK(g_handler->read(&g_a, &cmd, iov, 1, sizeof(r), 4096 * 100) == TCMU_STS_OK);
		CHECK(memcmp(r, big, sizeof(r)) == 0);
	}
	CHECK(g_handler->flush(&g_a, &cmd) == TCMU_STS_OK);
	/* UNMAP: reads back zeros */
	CHECK(g_handler->unmap(&g_a, &cmd, 4096 * 100, 4096) == TCMU_STS_OK);
	iov[0].iov_base = r;
	iov[0].iov_len = 4096 > sizeof(r) ? sizeof(r) : 4096;
	CHECK(g_handler->read(&g_a, &cmd, iov, 1, iov[0].iov_len, 4096 * 100) == TCMU_STS_OK);
	for (i = 0; i < iov[0].iov_len && r[i] == 0; i++) {
	}
	CHECK(i == iov[0].iov_len);
}

/*
 * WRITEs on several of the runner's workers at once, as the core hands
 * them out: every one lands whole; blocks written by several at once hold
 * bytes of those writes only (SCSI orders no two SIMPLE commands); a failed
 * write leaves the LU to the next (a write that never returns: SIGALRM ends
 * the run, a failure).
 */
#define CW_THREADS 8
#define CW_WRITES 32
#define CW_LEN 8192u
#define CW_SHARED ((uint64_t)3 << 20)   /* every thread writes here too */

static void *
cw_main(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	uint8_t buf[CW_LEN];
	struct iovec iov[2] = { { buf, CW_LEN / 2 }, { buf + CW_LEN / 2, CW_LEN / 2 } };
	struct tcmur_cmd cmd;
	uintptr_t bad = 0;
	int i;

	memset(&cmd, 0, sizeof(cmd));
	for (i = 0; i < CW_WRITES; i++) {
		memset(buf, (int)(t * CW_WRITES + (uintptr_t)i + 1), sizeof(buf));
		bad += g_handler->write(&g_a, &cmd, iov, 2, CW_LEN,
					(off_t)((t * CW_WRITES + (uintptr_t)i) * CW_LEN)) != TCMU_STS_OK;
		memset(buf, (int)(0x80 + t), sizeof(buf));
		bad += g_handler->write(&g_a, &cmd, iov, 2, CW_LEN, (off_t)CW_SHARED) != TCMU_STS_OK;
	}
	return (void *)bad;
}

static void
test_io_concurrent(void)
{
	pthread_t th[CW_THREADS];
	uint8_t r[CW_LEN];
	struct iovec iov = { r, CW_LEN };
	struct tcmur_cmd cmd;
	uintptr_t t, w, foreign = 0, wrong = 0;
	void *bad;
	size_t i;

	memset(&cmd, 0, sizeof(cmd));
	alarm(120);
	for (t = 0; t < CW_THREADS; t++) {
		CHECK(pthread_create(&th[t], NULL, cw_main, (void *)t) == 0);
	}
	for (t = 0; t < CW_THREADS; t++) {
		CHECK(pthread_join(th[t], &bad) == 0 && bad == NULL);
	}
	for (w = 0; w < CW_THREADS * CW_WRITES; w++) {
		CHECK(g_handler->read(&g_a, &cmd, &iov, 1, CW_LEN, (off_t)(w * CW_LEN)) ==
		      TCMU_STS_OK);
		for (i = 0; i < CW_LEN; i++) {
			wrong += r[i] != (uint8_t)(w + 1);
		}
	}
	CHECK(wrong == 0);
	CHECK(g_handler->read(&g_a, &cmd, &iov, 1, CW_LEN, (off_t)CW_SHARED) == TCMU_STS_OK);
	for (i = 0; i < CW_LEN; i++) {
		foreign += r[i] < 0x80 || r[i] >= 0x80 + CW_THREADS;
	}
	CHECK(foreign == 0);
	/* a failed write (EFAULT: no buffer), then the next write on the LU completes */
	iov.iov_base = NULL;
	CHECK(g_handler->write(&g_a, &cmd, &iov, 1, CW_LEN, 0) == TCMU_STS_WR_ERR);
	memset(r, 0x3C, sizeof(r));
	iov.iov_base = r;
	CHECK(g_handler->write(&g_a, &cmd, &iov, 1, CW_LEN, 0) == TCMU_STS_OK);
	memset(r, 0, sizeof(r));
	CHECK(g_handler->read(&g_a, &cmd, &iov, 1, CW_LEN, 0) == TCMU_STS_OK);
	CHECK(r[0] == 0x3C && r[CW_LEN - 1] == 0x3C);
	alarm(0);
}

/*
 * The file store's O_DIRECT (store_file.c: file_io, dio=): dio=auto sends
 * aligned READs and WRITEs of XT_DIO_MIN bytes or more direct, smaller ones
 * through the page cache; dio=always every aligned READ and WRITE;
 * dio=never none. The two paths see each other's bytes. Counted by the LU's
 * io_direct_bytes / io_buffered_bytes.
 */
#define DIO_LEN (256u << 10)   /* >= XT_DIO_MIN */

static void
dio_fill(uint8_t *b, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		b[i] = (uint8_t)(i * 7 + seed);
	}
}

/* one READ or WRITE of len bytes at off from/to buf on d: TCMU_STS_OK? */
static bool
dio_rw(struct tcmu_device *d, bool wr, uint8_t *buf, size_t len, off_t off)
{
	struct iovec iov[2] = { { buf, len / 2 }, { buf + len / 2, len - len / 2 } };
	struct tcmur_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	return (wr ? g_handler->write(d, &cmd, iov, 2, len, off)
		   : g_handler->read(d, &cmd, iov, 2, len, off)) == TCMU_STS_OK;
}

/* Does the test directory take O_DIRECT? Else say the test is skipped. */
static bool
direct_ok(const char *test)
{
	char p[512];
	int fd;

	path_of(p, sizeof(p), "a.img");
	fd = open(p, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		printf("SKIP %s: no O_DIRECT on %s\n", test, g_tmp);
		return false;
	}
	close(fd);
	return true;
}

static void
test_io_direct(void)
{
	uint64_t d0, b0;
	uint8_t *w = NULL, *r = NULL;
	struct tcmu_device nd;

	if (!direct_ok("io_direct")) {
		return;
	}
	CHECK(posix_memalign((void **)&w, 4096, DIO_LEN + 4096) == 0);
	CHECK(posix_memalign((void **)&r, 4096, DIO_LEN + 4096) == 0);
	/* dio=auto (lu_a): the large WRITE and READ direct, a 64 KiB WRITE buffered */
	d0 = stat_of("lu_a", "io_direct_bytes");
	b0 = stat_of("lu_a", "io_buffered_bytes");
	dio_fill(w, DIO_LEN, 3);
	CHECK(dio_rw(&g_a, true, w, DIO_LEN, 2 * DIO_LEN));
	CHECK(dio_rw(&g_a, false, r, DIO_LEN, 2 * DIO_LEN));
	CHECK(memcmp(r, w, DIO_LEN) == 0);
	CHECK(dio_rw(&g_a, true, w, 64u << 10, 3 * DIO_LEN));
	CHECK(stat_of("lu_a", "io_direct_bytes") - d0 == 2 * DIO_LEN);
	CHECK(stat_of("lu_a", "io_buffered_bytes") - b0 == (64u << 10));
	CHECK(pread(backing_fd("a.img"), r, DIO_LEN, 2 * DIO_LEN) == DIO_LEN);
	CHECK(memcmp(r, w, DIO_LEN) == 0);   /* the file holds the direct WRITE's bytes */
	/* dio=always: aligned READ and WRITE direct */
	dev_setup(&nd, 93, 93, "lu_dio", "a.img", "?dio=always", SER_A);
	CHECK(g_handler->open(&nd, false) == 0);
	dio_fill(w, DIO_LEN, 17);
	CHECK(dio_rw(&nd, true, w, DIO_LEN, 2 * DIO_LEN));
	memset(r, 0, DIO_LEN);
	CHECK(dio_rw(&nd, false, r, DIO_LEN, 2 * DIO_LEN));
	CHECK(memcmp(r, w, DIO_LEN) == 0);
	CHECK(stat_of("lu_dio", "io_direct_bytes") == 2 * DIO_LEN);
	CHECK(stat_of("lu_dio", "io_buffered_bytes") == 0);
	/* a buffer off alignment: a buffered WRITE; the direct READ after it sees it */
	dio_fill(w + 1, DIO_LEN, 11);
	CHECK(dio_rw(&nd, true, w + 1, DIO_LEN, 2 * DIO_LEN));
	memset(r, 0, DIO_LEN);
	CHECK(dio_rw(&nd, false, r, DIO_LEN, 2 * DIO_LEN));
	CHECK(memcmp(r, w + 1, DIO_LEN) == 0);
	/* a direct WRITE over cached pages; a buffered READ (odd buffer) sees it */
	dio_fill(w, DIO_LEN, 29);
	CHECK(dio_rw(&nd, true, w, DIO_LEN, 2 * DIO_LEN));
	CHECK(dio_rw(&nd, false, r + 1, DIO_LEN, 2 * DIO_LEN));
	CHECK(memcmp(r + 1, w, DIO_LEN) == 0);
	CHECK(stat_of("lu_dio", "io_direct_bytes") == 4 * DIO_LEN);
	CHECK(stat_of("lu_dio", "io_buffered_bytes") == 2 * DIO_LEN);
	g_handler->close(&nd);
	/* dio=never: the same aligned I/O, buffered */
	dev_setup(&nd, 94, 94, "lu_nodio", "a.img", "?dio=never", SER_A);
	CHECK(g_handler->open(&nd, false) == 0);
	CHECK(dio_rw(&nd, true, w, DIO_LEN, 3 * DIO_LEN));
	CHECK(dio_rw(&nd, false, r, DIO_LEN, 3 * DIO_LEN));
	CHECK(memcmp(r, w, DIO_LEN) == 0);
	CHECK(stat_of("lu_nodio", "io_direct_bytes") == 0);
	CHECK(stat_of("lu_nodio", "io_buffered_bytes") == 2 * DIO_LEN);
	g_handler->close(&nd);
	free(w);
	free(r);
}

/*
 * The read/write copy loop O_DIRECT on both sides (file_copy.c rw_copy):
 * lu_b copies by read/write only (clone=never&cfr=never); with dio=auto a
 * copy of XT_DIO_MIN bytes or more goes direct, a smaller one and any
 * copy of a dio=never LU through the page cache. Counted by rw_direct_bytes;
 * the page cache stays coherent: dirty source pages are read, cached
 * destination pages see the copy.
 */
/*
 * One EXTENDED COPY of n blocks, src LBA slba to dst LBA dlba, sent to d
 * (LU name): GOOD? *direct, *rw: its rw_direct_bytes and rw_bytes.
 */
static bool
copy_counted(struct tcmu_device *d, const char *name, const char *src, const char *dst,
	     uint32_t n, uint64_t slba, uint64_t dlba, uint64_t *direct, uint64_t *rw)
{
	uint64_t d0 = stat_of(name, "rw_direct_bytes"), r0 = stat_of(name, "rw_bytes");
	uint8_t sense[96];   /* TCMU_SENSE_BUFFERSIZE: send_xcopy fills that much */
	bool ok;

	list_one(src, dst, n, slba, dlba, XCM_LIST_ID_NONE, 0);
	ok = send_xcopy(d, 0, 0, sense) == TCMU_STS_OK;
	*direct = stat_of(name, "rw_direct_bytes") - d0;
	*rw = stat_of(name, "rw_bytes") - r0;
	return ok;
}

static void
test_copy_direct(void)
{
	uint8_t buf[4096];
	struct tcmu_device nd;
	uint64_t dio, rw;

	if (!direct_ok("copy_direct")) {
		return;
	}
	/* 2 MiB a -> b: direct */
	fill_pattern("a.img", 0, 4096 * BS, 0x21);
	CHECK(copy_counted(&g_b, "lu_b", SER_A, SER_B, 4096, 0, 2048, &dio, &rw));
	CHECK(same_bytes("a.img", 0, "b.img", 2048 * BS, 4096 * BS));
	CHECK(dio == 4096 * BS);
	CHECK(rw == 4096 * BS);
	/* dirty source pages (written through the page cache, not synced) and
	 * cached destination pages: the direct copy reads the first, the
	 * destination's readers see its bytes */
	fill_pattern("a.img", 64 * BS, 512 * BS, 0x5A);
	CHECK(pread(backing_fd("b.img"), buf, sizeof(buf), 2048 * BS + 64 * BS) == sizeof(buf));
	CHECK(copy_counted(&g_b, "lu_b", SER_A, SER_B, 1024, 0, 2048, &dio, &rw));
	CHECK(same_bytes("a.img", 0, "b.img", 2048 * BS, 1024 * BS));
	CHECK(dio == 1024 * BS);
	/* overlapping in one file, dst > src (backward), direct: memmove */
	snapshot("b.img", "b.orig");
	CHECK(copy_counted(&g_b, "lu_b", SER_B, SER_B, 4096, 2048, 2048 + 64, &dio, &rw));
	CHECK(same_bytes("b.img", (2048 + 64) * BS, "b.orig", 2048 * BS, 4096 * BS));
	CHECK(same_bytes("b.img", 0, "b.orig", 0, (2048 + 64) * BS));
	CHECK(dio == 4096 * BS);
	/* below XT_DIO_MIN: through the page cache */
	fill_pattern("a.img", 0, 16 * BS, 0x33);
	CHECK(copy_counted(&g_b, "lu_b", SER_A, SER_B, 16, 0, 7, &dio, &rw));
	CHECK(same_bytes("a.img", 0, "b.img", 7 * BS, 16 * BS));
	CHECK(dio == 0);
	CHECK(rw == 16 * BS);
	/* lu_b again with dio=never: 2 MiB through the page cache */
	g_handler->close(&g_b);
	dev_setup(&nd, 1, 2, "lu_b", "b.img", "?clone=never&cfr=never&dio=never", SER_B);
	CHECK(g_handler->open(&nd, false) == 0);
	fill_pattern("a.img", 0, 4096 * BS, 0x47);
	CHECK(copy_counted(&nd, "lu_b", SER_A, SER_B, 4096, 0, 0, &dio, &rw));
	CHECK(same_bytes("a.img", 0, "b.img", 0, 4096 * BS));
	CHECK(rw == 4096 * BS);
	CHECK(dio == 0);
	g_handler->close(&nd);
	CHECK(g_handler->open(&g_b, false) == 0);
}

static void
test_not_handled(void)
{
	uint8_t cdb[16] = { 0 }, buf[256];

	cdb[0] = 0x12;   /* standard INQUIRY: the core's, on a zeroed buffer (no stale bytes) */
	cdb[4] = 96;
	memset(buf, 0xCC, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 96, NULL) == TCMU_STS_NOT_HANDLED);
	CHECK(buf[0] == 0 && buf[47] == 0 && buf[95] == 0 && buf[96] == 0xCC);
	memset(buf, 0xCC, sizeof(buf));
	CHECK(run_cmd(&g_c, cdb, buf, 96, NULL) == TCMU_STS_NOT_HANDLED);   /* xcopy=core too */
	CHECK(buf[0] == 0 && buf[95] == 0);
	cdb[1] = 1;      /* VPD 0x83: the core's */
	cdb[2] = 0x83;
	CHECK(run_cmd(&g_a, cdb, buf, 96, NULL) == TCMU_STS_NOT_HANDLED);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x88;   /* READ(16) */
	cdb[13] = 1;
	CHECK(run_cmd(&g_a, cdb, buf, 512 > sizeof(buf) ? sizeof(buf) : 512, NULL) ==
	      TCMU_STS_NOT_HANDLED);
	/* xcopy=core: 83h/84h/VPD go to the core too */
	xcm_cdb_xcopy(cdb, 0);
	CHECK(run_cmd(&g_c, cdb, buf, 0, NULL) == TCMU_STS_NOT_HANDLED);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0, 128);
	CHECK(run_cmd(&g_c, cdb, buf, 128, NULL) == TCMU_STS_NOT_HANDLED);
}

static void
test_vpd(void)
{
	static const uint8_t want00[] = { 0x00, 0x00, 0x00, 0x07, 0x00, 0x80, 0x83, 0x8F,
					  0xB0, 0xB1, 0xB2 };
	uint8_t cdb[6] = { 0x12, 0x01, 0x00, 0x00, 0xFF, 0x00 }, buf[255];
	struct xcm_tpc_info ti;
	size_t i;

	memset(buf, 0xCC, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(memcmp(buf, want00, sizeof(want00)) == 0);
	for (i = sizeof(want00); i < sizeof(buf) && buf[i] == 0; i++) {
	}
	CHECK(i == sizeof(buf));   /* rest of the buffer zeroed, no stale bytes */
	/* allocation length 6: truncated, the rest zero */
	cdb[4] = 6;
	memset(buf, 0xCC, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 6, NULL) == TCMU_STS_OK);
	CHECK(memcmp(buf, want00, 6) == 0 && buf[6] == 0xCC);
	/* VPD 8Fh decodes and reports the engine's limits */
	cdb[2] = 0x8F;
	cdb[4] = 0xFF;
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(buf[1] == 0x8F);
	memset(&ti, 0, sizeof(ti));
	CHECK(xcm_vpd_tpc_decode(xcm_span_make(buf, 4 + xcm_get_be16(buf + 2)), &ti) == 0);
	CHECK(ti.has_param_data && ti.max_cscd == xcm_limits_default.max_cscd &&
	      ti.max_seg == xcm_limits_default.max_seg);
	CHECK(ti.has_supported_cmds && ti.xcopy_lid1 && ti.rcr_op_params);
}

static void
test_xcopy_self(void)
{
	uint8_t sense[96];

	/* NAA derivation pinned by a hand-computed vector */
	{
		static const uint8_t want[16] = { 0x60, 0x01, 0x40, 0x50, 0x12, 0x34, 0x56, 0x78,
						  0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78 };
		uint8_t got[16];
		naa_of(SER_A, got);
		CHECK(memcmp(got, want, 16) == 0);
	}
	fill_pattern("a.img", 0, 64 * BS, 0x11);
	list_one(SER_A, SER_A, 16, 0, 1000, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 0, "a.img", 1000 * BS, 16 * BS));
	CHECK(stat_of("lu_a", "commands_ok") == 1);
	CHECK(stat_of("lu_a", "bytes") == 16 * BS);

	/* overlapping, dst > src, same LU: memmove semantics */
	snapshot("a.img", "a.orig");
	list_one(SER_A, SER_A, 32, 0, 8, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 8 * BS, "a.orig", 0, 32 * BS));
	/* overlapping, dst < src */
	snapshot("a.img", "a.orig");
	list_one(SER_A, SER_A, 32, 8, 0, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 0, "a.orig", 8 * BS, 32 * BS));
	/* overlap can only be done by read/write (never cfr/clone) */
	CHECK(stat_of("lu_a", "rw_bytes") >= 64 * BS);

	/* PARAMETER LIST LENGTH 0: GOOD, nothing moves */
	{
		uint8_t cdb[16];
		xcm_cdb_xcopy(cdb, 0);
		CHECK(run_cmd(&g_a, cdb, sense, 0, sense) == TCMU_STS_OK);
	}
}

static void
test_xcopy_errors(void)
{
	uint8_t sense[96], cdb[16];

	/* data-out shorter than the CDB's PARAMETER LIST LENGTH: 1A/00 */
	list_one(SER_A, SER_A, 1, 0, 10, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, -5, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_PARAM_LIST_LEN));
	/* CDB length one short of the list (libiscsi ParamHdr): 1A/00 */
	CHECK(send_xcopy(&g_a, -1, -1, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_PARAM_LIST_LEN));
	/* POPULATE TOKEN (service action 10h, not supported): INVALID FIELD IN CDB */
	xcm_cdb_xcopy(cdb, 0);
	cdb[1] = 0x10;
	CHECK(run_cmd(&g_a, cdb, sense, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_FIELD_IN_CDB));
	{
		struct xcm_sks_ptr ptr;
		struct xcm_sense ps;

		CHECK(xcm_sense_parse(xcm_span_make(sense, sizeof(sense)), &ps) == 0);
		CHECK(!ps.desc);   /* fixed format */
		/* SKSV, C/D = 1 (field in the CDB) */
		CHECK(xcm_sense_sks_ptr(&ps, &ptr) && ptr.in_cdb);
	}
	/* unknown designator: COPY ABORTED, nothing written */
	snapshot("a.img", "a.orig");
	list_one("99999999-0000", "99999999-0000", 4, 0, 500, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_key(sense, sizeof(sense)) == XCM_SK_COPY_ABORTED);
	/* destination beyond the LU: COPY ABORTED (libiscsi ValidSegDescr) */
	list_one(SER_A, SER_A, 2048, 0, NLBAS - 1, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_key(sense, sizeof(sense)) == XCM_SK_COPY_ABORTED);
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
	CHECK(stat_of("lu_a", "errors") >= 4);
}


/* After close, B is gone from the registry: A's copy to B is unreachable. */
static void
test_closed_lu_unreachable(void)
{
	uint8_t sense[96];

	g_handler->close(&g_b);
	list_one(SER_A, SER_B, 1, 0, 0, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_key(sense, sizeof(sense)) == XCM_SK_COPY_ABORTED);
	CHECK(g_handler->open(&g_b, false) == 0);   /* for the fixture's teardown */
}

/* The test list (plugin_main.c runs it): every test on a fresh fixture. */
/*
 * The stats file is written off the command path by one writer, at most
 * every XT_STATS_PERIOD_MS (500 ms) for a LU whose counters changed, or on
 * a refresh request: 40 EXTENDED COPY and 40 RECEIVE COPY RESULTS on lu_a
 * replace lu_a.stats (rename: IN_MOVED_TO, counted by inotify; with
 * IN_MOVED_FROM watched too, as inotify merges an event equal to the one
 * queued last) at most
 * 2 + elapsed / 500 ms times (the old code: once per command, 80), and the
 * refresh after them shows every command counted.
 */
static void
test_stats_writer(void)
{
	enum { N = 40 };
	char dir[512], ev[8192] __attribute__((aligned(8)));
	uint8_t cdb[16], buf[128], sense[96];
	uint64_t c0 = stat_of("lu_a", "commands"), r0 = stat_of("lu_a", "rcr");
	struct timespec t0, t1;
	unsigned int writes = 0, i;
	long elapsed_ms;
	ssize_t n;
	int fd;

	snprintf(dir, sizeof(dir), "%s/stats", g_tmp);
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	CHECK(fd >= 0 && inotify_add_watch(fd, dir, IN_MOVED_FROM | IN_MOVED_TO) >= 0);
	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	for (i = 0; i < N; i++) {
		list_one(SER_A, SER_A, 1, 0, 100, XCM_LIST_ID_NONE, 0);
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
		xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0, sizeof(buf));
		CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), sense) == TCMU_STS_OK);
	}
	clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
	elapsed_ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	while ((n = read(fd, ev, sizeof(ev))) > 0) {
		for (char *p = ev; p < ev + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			writes += (e->mask & IN_MOVED_TO) && e->len > 0 &&
				  strcmp(e->name, "lu_a.stats") == 0;
			p += sizeof(*e) + e->len;
		}
	}
	close(fd);
	printf("    stats: %u commands on lu_a in %ld ms: lu_a.stats written %u times\n", 2 * N,
	       elapsed_ms, writes);
	CHECK(writes <= 2 + (unsigned long)elapsed_ms / 500);
	CHECK(writes < N);
	CHECK(stat_of("lu_a", "commands") == c0 + N);
	CHECK(stat_of("lu_a", "rcr") == r0 + N);
}

const struct ptest g_core_tests[] = {
	{ "registration", test_registration },
	{ "check_config", test_check_config },
	{ "open_errors", test_open_errors },
	{ "io_callouts", test_io_callouts },
	{ "io_concurrent", test_io_concurrent },
	{ "io_direct", test_io_direct },
	{ "copy_direct", test_copy_direct },
	{ "not_handled", test_not_handled },
	{ "vpd", test_vpd },
	{ "xcopy_self", test_xcopy_self },
	{ "xcopy_errors", test_xcopy_errors },
	{ "access_rule", test_access_rule },
	{ "ambiguous_designator", test_ambiguous_designator },
	{ "rcr", test_rcr },
	{ "stats_writer", test_stats_writer },
	{ "held_scope", test_held_scope },
	{ "paths", test_paths },
	{ "sbc_checks", test_sbc_checks },
	{ "sbc_write_same", test_sbc_write_same },
	{ "write_same_unmap", test_write_same_unmap },
	{ "write_cache", test_write_cache },
	{ "ws_pattern", test_ws_pattern },
	{ "ws_deadline", test_ws_deadline },
	{ "ws_handoff", test_ws_handoff },
	{ "wce_durable", test_wce_durable },
	{ "faults", test_faults },
	{ "fault_delay", test_fault_delay },
	{ "fault_cfgstring", test_fault_cfgstring },
	{ "null_store", test_null_store },
	{ "lu_settings", test_lu_settings },
	{ "rsoc", test_rsoc },
	{ "rsoc_one", test_rsoc_one },
	{ "closed_lu_unreachable", test_closed_lu_unreachable },
	{ "subtype", test_subtype },
	{ NULL, NULL },
};
