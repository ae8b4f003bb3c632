/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dlopen harness for handler_xcopy.so: loads the built plugin the way
 * tcmu-runner does (RTLD_NOW | RTLD_LOCAL, dlsym handler_init), opens LUs on
 * temporary backing files, and drives handle_cmd with real CDBs and
 * parameter lists built by the engine's encoder. A fake configfs/sysfs tree
 * in the temporary directory (XCOPY_CONFIGFS_ROOT / XCOPY_SYSFS_ROOT) drives
 * the cross-LU access rule.
 *
 * usage: plugin_tests PATH/handler_xcopy.so [-v]
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

int g_pass, g_fail;
char g_tmp[256];

/* ------------------------------------------------------------------------ */
/* fixture: files, fake sysfs/configfs                                        */
/* ------------------------------------------------------------------------ */

static void
path_of(char *out, size_t n, const char *rel)
{
	snprintf(out, n, "%s/%s", g_tmp, rel);
}

void
mkdirs(const char *rel)
{
	char p[512], *s;

	path_of(p, sizeof(p), rel);
	for (s = p + strlen(g_tmp) + 1; *s != '\0'; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

void
put_file(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	path_of(p, sizeof(p), rel);
	f = fopen(p, "w");
	if (f == NULL) {
		perror(p);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

/* symlink REL_LINK -> g_tmp/REL_TARGET (absolute, as configfs resolves) */
static void
link_to(const char *rel_link, const char *rel_target)
{
	char l[512], t[512];

	path_of(l, sizeof(l), rel_link);
	path_of(t, sizeof(t), rel_target);
	unlink(l);
	if (symlink(t, l) != 0) {
		perror(l);
		exit(2);
	}
}

static void
unlink_rel(const char *rel)
{
	char p[512];

	path_of(p, sizeof(p), rel);
	unlink(p);
}

static void
make_backing(const char *name, uint64_t size)
{
	char p[512];
	int fd;

	path_of(p, sizeof(p), name);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		perror(p);
		exit(2);
	}
	close(fd);
}

static int
backing_fd(const char *name)
{
	char p[512];

	path_of(p, sizeof(p), name);
	return open(p, O_RDWR);
}

void
fill_pattern(const char *name, uint64_t off, uint64_t len, uint8_t seed)
{
	uint8_t *b = malloc(len);
	uint64_t i;
	int fd = backing_fd(name);

	for (i = 0; i < len; i++) {
		b[i] = (uint8_t)(seed + i * 7 + (i >> 9));
	}
	CHECK(pwrite(fd, b, len, (off_t)off) == (ssize_t)len);
	close(fd);
	free(b);
}

/* bytes [off, off+len) of file name equal those of file other at ooff? */
bool
same_bytes(const char *name, uint64_t off, const char *other, uint64_t ooff, uint64_t len)
{
	uint8_t *a = malloc(len), *b = malloc(len);
	int fa = backing_fd(name), fb = backing_fd(other);
	bool eq = pread(fa, a, len, (off_t)off) == (ssize_t)len &&
		  pread(fb, b, len, (off_t)ooff) == (ssize_t)len && memcmp(a, b, len) == 0;

	close(fa);
	close(fb);
	free(a);
	free(b);
	return eq;
}

static void
snapshot(const char *name, const char *copy)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "cp %s/%s %s/%s", g_tmp, name, g_tmp, copy);
	CHECK(system(cmd) == 0);
}

/* ------------------------------------------------------------------------ */
/* devices                                                                    */
/* ------------------------------------------------------------------------ */

struct tcmu_device g_a, g_b, g_c;

/* hba/name as in /sys/class/uio/uioN/name = tcm-user/<hba>/<name>/<cfg> */
static void
dev_setup(struct tcmu_device *d, int uio, int hba, const char *name, const char *file,
	  const char *opts, const char *serial)
{
	char rel[256], text[700];

	memset(d, 0, sizeof(*d));
	snprintf(d->cfgstring, sizeof(d->cfgstring), "xcopy/%s/%s%s", g_tmp, file, opts);
	snprintf(d->uio, sizeof(d->uio), "uio%d", uio);
	snprintf(d->serial, sizeof(d->serial), "%s", serial);
	d->block_size = BS;
	d->num_lbas = NLBAS;
	d->opt_unmap_gran = 100;   /* not a power of two; the runner's default is hw_max_sectors */
	snprintf(rel, sizeof(rel), "sys/class/uio/uio%d", uio);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "sys/class/uio/uio%d/name", uio);
	snprintf(text, sizeof(text), "tcm-user/%d/%s/%s\n", hba, name, d->cfgstring);
	put_file(rel, text);
	snprintf(rel, sizeof(rel), "cfs/core/user_%d/%s", hba, name);
	mkdirs(rel);
}

int
run_cmd(struct tcmu_device *d, const uint8_t *cdb, void *buf, size_t len, uint8_t *sense)
{
	struct tcmulib_cmd lc;
	struct tcmur_cmd rc;
	struct iovec iov[2];
	uint8_t cdb_copy[16];
	size_t half = len / 2;
	int sts;

	/* two iovec elements, so flattening and scattering are exercised */
	iov[0].iov_base = buf;
	iov[0].iov_len = half;
	iov[1].iov_base = (uint8_t *)buf + half;
	iov[1].iov_len = len - half;
	memset(&lc, 0, sizeof(lc));
	memset(&rc, 0, sizeof(rc));
	memset(lc.sense_buf, 0xEE, sizeof(lc.sense_buf));
	/* as libtcmu: the command's own copy of the CDB (length from the opcode group) */
	static const uint8_t group_len[8] = { 6, 10, 10, 16, 16, 12, 16, 16 };
	memset(cdb_copy, 0, sizeof(cdb_copy));
	memcpy(cdb_copy, cdb, group_len[cdb[0] >> 5]);
	lc.cdb = cdb_copy;
	lc.iovec = iov;
	lc.iov_cnt = 2;
	lc.hm_private = &rc;
	rc.lib_cmd = &lc;
	sts = g_handler->handle_cmd(d, &rc);
	/*
	 * as tcmu-runner 1.5.4's core: a command left NOT_HANDLED whose CDB is
	 * now SYNCHRONIZE CACHE goes to the flush callout (on a worker), and the
	 * callout's return code completes it
	 */
	if (sts == TCMU_STS_NOT_HANDLED && (cdb_copy[0] == 0x35 || cdb_copy[0] == 0x91)) {
		sts = g_handler->flush(d, &rc);
	}
	if (sense != NULL) {
		memcpy(sense, lc.sense_buf, sizeof(lc.sense_buf));
	}
	return sts;
}

/* fixed sense: key, ASC, ASCQ */
bool
sense_is(const uint8_t *s, uint8_t key, uint16_t asc_ascq)
{
	struct xcm_sense ps;

	if (xcm_sense_parse(xcm_span_make(s, 96), &ps) != 0) {
		return false;
	}
	if (ps.key != key || ps.asc_ascq != asc_ascq) {
		fprintf(stderr, "  sense: key %02x asc/ascq %04x (want %02x %04x)\n", ps.key,
			ps.asc_ascq, key, asc_ascq);
		return false;
	}
	return true;
}

/* Test-side NAA: 6 | 00-14-05 | serial nibbles from the low nibble of byte 3. */
static void
naa_of(const char *serial, uint8_t *d)
{
	size_t off = 3;
	bool low = true;
	int v;

	memset(d, 0, 16);
	d[0] = 0x60;
	d[1] = 0x01;
	d[2] = 0x40;
	d[3] = 0x50;
	for (; *serial != '\0' && off < 16; serial++) {
		if (*serial >= '0' && *serial <= '9') {
			v = *serial - '0';
		} else if (*serial >= 'a' && *serial <= 'f') {
			v = *serial - 'a' + 10;
		} else {
			continue;
		}
		if (low) {
			d[off++] |= (uint8_t)v;
		} else {
			d[off] = (uint8_t)(v << 4);
		}
		low = !low;
	}
}

static void
cscd_for(struct xcm_cscd *c, const char *serial)
{
	uint8_t desig[20] = { XCM_CODE_SET_BINARY, XCM_DESIG_NAA, 0, 16 };

	naa_of(serial, desig + 4);
	CHECK(xcm_cscd_from_designator(c, desig, sizeof(desig), 0) == 0);
}


struct xcm_list *g_list;

/* One block->block segment list: src -> dst, nblocks, usage/list id. */
void
list_one(const char *src_ser, const char *dst_ser, uint32_t nblocks, uint64_t slba,
	 uint64_t dlba, uint8_t usage, uint8_t id)
{
	memset(g_list, 0, sizeof(*g_list));
	g_list->list_id = id;
	g_list->list_id_usage = usage;
	cscd_for(&g_list->cscd[0], src_ser);
	g_list->ncscd = 1;
	if (strcmp(src_ser, dst_ser) != 0) {
		cscd_for(&g_list->cscd[1], dst_ser);
		g_list->ncscd = 2;
	}
	g_list->nseg = 1;
	g_list->seg[0].type = XCM_SEG_B2B;
	g_list->seg[0].src = &g_list->cscd[0];
	g_list->seg[0].dst = &g_list->cscd[g_list->ncscd - 1];
	g_list->seg[0].count = nblocks;
	g_list->seg[0].src_lba = slba;
	g_list->seg[0].dst_lba = dlba;
}

/* Encode g_list and send it; plen_adj is added to the CDB length, iov_adj to the data. */
int
send_xcopy(struct tcmu_device *d, int plen_adj, int iov_adj, uint8_t *sense)
{
	uint8_t buf[4096], cdb[16];
	struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
	size_t n = xcm_list_encode(g_list, &w);

	CHECK(n <= sizeof(buf));
	xcm_cdb_xcopy(cdb, (uint32_t)((int)n + plen_adj));
	return run_cmd(d, cdb, buf, (size_t)((int)n + iov_adj), sense);
}

uint64_t
stat_of(const char *lu, const char *key)
{
	char p[512], line[256], k[64];
	unsigned long long v;
	uint64_t r = UINT64_MAX;
	FILE *f;

	snprintf(p, sizeof(p), "%s/stats/%s.stats", g_tmp, lu);
	f = fopen(p, "r");
	if (f == NULL) {
		return r;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%63s %llu", k, &v) == 2 && strcmp(k, key) == 0) {
			r = v;
		}
	}
	fclose(f);
	return r;
}

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
	CHECK(strcmp(g_handler->subtype, "xcopy") == 0);
	CHECK(g_handler->open != NULL && g_handler->close != NULL);
	CHECK(g_handler->handle_cmd != NULL);
	CHECK(g_handler->read != NULL && g_handler->write != NULL && g_handler->flush != NULL);
	CHECK(g_handler->unmap != NULL);
	CHECK(g_handler->nr_threads > 0);
	/* targetcli's help: its cfgstring= is what follows "xcopy/" */
	CHECK(g_handler->cfg_desc != NULL && strncmp(g_handler->cfg_desc, "/PATH[?clone=", 13) == 0);
}

static void
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
	CHECK(sense[0] == 0x70);   /* fixed format */
	CHECK((sense[15] & 0xC0) == 0xC0);   /* SKSV, C/D = 1 (field in the CDB) */
	/* unknown designator: COPY ABORTED, nothing written */
	snapshot("a.img", "a.orig");
	list_one("99999999-0000", "99999999-0000", 4, 0, 500, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense[2] == XCM_SK_COPY_ABORTED);
	/* destination beyond the LU: COPY ABORTED (libiscsi ValidSegDescr) */
	list_one(SER_A, SER_A, 2048, 0, NLBAS - 1, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK((sense[2] & 0x0F) == XCM_SK_COPY_ABORTED);
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
	CHECK(stat_of("lu_a", "errors") >= 4);
}

/* configfs layouts for the access rule */
void
cfs_reset(void)
{
	CHECK(system("true") == 0);
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf %s/cfs/loopback %s/cfs/iscsi", g_tmp, g_tmp);
		CHECK(system(cmd) == 0);
	}
}

void
cfs_lun(const char *tpg, int lun, const char *so)
{
	char rel[300], tgt[300];

	snprintf(rel, sizeof(rel), "%s/lun/lun_%d", tpg, lun);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "%s/lun/lun_%d/%s", tpg, lun, strrchr(so, '/') + 1);
	snprintf(tgt, sizeof(tgt), "cfs/core/%s", so);
	link_to(rel, tgt);
}

void
cfs_acl_map(const char *tpg, const char *iqn, int mapped, int lun)
{
	char rel[400], tgt[300];

	snprintf(rel, sizeof(rel), "%s/acls/%s/lun_%d", tpg, iqn, mapped);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "%s/acls/%s/lun_%d/3fa2b1c0d9", tpg, iqn, mapped);
	snprintf(tgt, sizeof(tgt), "%s/lun/lun_%d", tpg, lun);
	link_to(rel, tgt);
}

void
cfs_demo(const char *tpg, bool demo)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "%s/attrib", tpg);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "%s/attrib/generate_node_acls", tpg);
	put_file(rel, demo ? "1\n" : "0\n");
}


/* copy 8 blocks A:200 -> B:300; expect allowed (data moved) or 0D/02 (nothing moved) */
static void
expect_cross(bool allowed, const char *what)
{
	uint8_t sense[96];
	int sts;

	fill_pattern("a.img", 200 * BS, 8 * BS, (uint8_t)(rand() & 0xFF));
	fill_pattern("b.img", 300 * BS, 8 * BS, 0x00);
	snapshot("b.img", "b.orig");
	list_one(SER_A, SER_B, 8, 200, 300, XCM_LIST_ID_NONE, 0);
	sts = send_xcopy(&g_a, 0, 0, sense);
	if (allowed) {
		CHECK(sts == TCMU_STS_OK);
		CHECK(same_bytes("b.img", 300 * BS, "a.img", 200 * BS, 8 * BS));
	} else {
		CHECK(sts == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_COPY_TARGET_NOT_REACHABLE));
		CHECK(same_bytes("b.img", 0, "b.orig", 0, (uint64_t)NLBAS * BS));
	}
	if ((allowed && sts != TCMU_STS_OK) || (!allowed && sts == TCMU_STS_OK)) {
		fprintf(stderr, "  access case: %s\n", what);
	}
}

static void
test_access_rule(void)
{
	uint64_t denied0;

	/* A exported nowhere: no initiator can be judged, refuse */
	cfs_reset();
	expect_cross(false, "A not exported");
	/* tcm_loop (no generate_node_acls attribute = demo) exporting A and B */
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
	expect_cross(true, "loopback exports both");
	/* ... plus an iSCSI demo-mode TPG exporting only A: refuse */
	cfs_lun(ISCSI, 0, "user_1/lu_a");
	cfs_demo(ISCSI, true);
	denied0 = stat_of("lu_a", "denied");
	expect_cross(false, "iscsi demo exports A only");
	CHECK(stat_of("lu_a", "denied") == denied0 + 1);
	/* iSCSI with ACLs: init1 maps A only -> refuse */
	cfs_demo(ISCSI, false);
	cfs_acl_map(ISCSI, INIT1, 0, 0);
	expect_cross(false, "acl maps A only");
	/* B exported in the TPG and mapped for init1 -> allow */
	cfs_lun(ISCSI, 1, "user_2/lu_b");
	cfs_acl_map(ISCSI, INIT1, 1, 1);
	expect_cross(true, "acl maps A and B");
	/* init2 maps A only -> refuse (every initiator must reach B) */
	cfs_acl_map(ISCSI, INIT2, 0, 0);
	expect_cross(false, "second acl maps A only");
	/* demo mode with both exported, but init2's explicit ACL lacks B: still refuse */
	cfs_demo(ISCSI, true);
	expect_cross(false, "demo mode, explicit acl lacks B");
	cfs_acl_map(ISCSI, INIT2, 1, 1);
	expect_cross(true, "demo mode, every acl maps both");
	/* a mapping removed at run time is honoured at once */
	unlink_rel(ISCSI "/lun/lun_1/lu_b");
	expect_cross(false, "B unlinked from the TPG");
	cfs_reset();
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
}

/*
 * Two open LUs whose unit serials agree in the first 25 hex digits have the
 * same NAA designator: a CSCD naming it is ambiguous and must reach neither
 * (COPY ABORTED 08/04, nothing written), not the first one found.
 */
#define SER_B_TWIN "6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4e"   /* SER_B, last digit changed */
static void
test_ambiguous_designator(void)
{
	struct tcmu_device e;
	uint8_t sense[96];

	make_backing("e.img", (uint64_t)NLBAS * BS);
	fill_pattern("e.img", 0, (uint64_t)NLBAS * BS, 0x3C);
	dev_setup(&e, 4, 5, "lu_e", "e.img", "", SER_B_TWIN);
	CHECK(g_handler->open(&e, false) == 0);
	cfs_lun(LOOP, 2, "user_5/lu_e");   /* exported with A and B: the access rule allows */
	snapshot("e.img", "e.orig");
	snapshot("b.img", "b.orig");
	list_one(SER_A, SER_B, 8, 200, 300, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_UNREACHABLE_COPY_TARGET));
	CHECK(same_bytes("b.img", 0, "b.orig", 0, (uint64_t)NLBAS * BS));
	CHECK(same_bytes("e.img", 0, "e.orig", 0, (uint64_t)NLBAS * BS));
	/* the twin named as the source is just as ambiguous */
	snapshot("a.img", "a.orig");
	list_one(SER_B, SER_A, 8, 300, 200, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_UNREACHABLE_COPY_TARGET));
	CHECK(same_bytes("a.img", 0, "a.orig", 0, (uint64_t)NLBAS * BS));
	g_handler->close(&e);
	unlink_rel(LOOP "/lun/lun_2/lu_e");
	expect_cross(true, "E closed: B is unique again");
}

static void
test_rcr(void)
{
	uint8_t cdb[16], buf[1024], sense[96];
	struct xcm_copy_status cs;
	struct xcm_op_params op;

	/* OPERATING PARAMETERS report the engine's limits */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), sense) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_op_params(xcm_span_make(buf, sizeof(buf)), &op) == 0);
	CHECK(op.max_cscd == xcm_limits_default.max_cscd && op.max_seg == xcm_limits_default.max_seg);
	CHECK(op.max_desc_list_len == xcm_limits_default.max_desc_list_len);
	CHECK(op.snlid == xcm_limits_default.snlid);
	/* COPY STATUS of an unknown list id: ILLEGAL REQUEST 24/00 */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 5, 12);
	CHECK(run_cmd(&g_a, cdb, buf, 12, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_FIELD_IN_CDB));
	/* a held copy (usage 00b, id 5) then COPY STATUS: GOOD, 1 segment, bytes */
	list_one(SER_A, SER_B, 4, 10, 20, XCM_LIST_ID_HOLD, 5);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, 5, 12);
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, 12, sense) == TCMU_STS_OK);
	CHECK(xcm_rcr_decode_copy_status(xcm_span_make(buf, 12), &cs) == 0);
	CHECK(cs.cm_status == XCM_CM_STATUS_GOOD && cs.segs_processed == 1);
	CHECK(cs.units == XCM_TC_UNITS_BYTES && cs.transfer_count == 4 * BS);
	/* list ids are per LU: B does not know id 5 */
	CHECK(run_cmd(&g_b, cdb, buf, 12, sense) == TCMU_STS_PASSTHROUGH_ERR);
	/* a failed held copy (id 7) then FAILED SEGMENT DETAILS carries its sense */
	list_one(SER_A, SER_A, 2048, 0, NLBAS - 1, XCM_LIST_ID_HOLD, 7);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
	xcm_cdb_rcr(cdb, XCM_SA_RCR_FAILED_SEGMENT, 7, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(xcm_get_be32(buf) >= 56 + 8);
	CHECK(buf[56] == XCM_SAM_CHECK_CONDITION);
	CHECK(xcm_get_be16(buf + 58) >= 8 && (buf[60 + 2] & 0x0F) == XCM_SK_COPY_ABORTED);
	CHECK(stat_of("lu_a", "rcr") >= 3);
}

/* COPY STATUS of list id on A: true when answered (GOOD), false when unknown (24/00) */
static bool
held_known(uint8_t id)
{
	uint8_t cdb[16], buf[16], sense[96];
	int sts;

	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, id, 12);
	sts = run_cmd(&g_a, cdb, buf, 12, sense);
	if (sts != TCMU_STS_OK) {
		CHECK(sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_INVALID_FIELD_IN_CDB));
	}
	return sts == TCMU_STS_OK;
}

static void
held_copy(uint8_t id)
{
	uint8_t sense[96];

	list_one(SER_A, SER_A, 2, 40, 60, XCM_LIST_ID_HOLD, id);   /* within A: no access rule */
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
}

#define ISCSI_WWN "cfs/iscsi/iqn.2003-01.org.test:t1"
#define SID_LINE(n) "InitiatorName: " INIT1 "\nLIO Session ID: " #n "   ISID: 0x80 12 34 56 78 9a  TSIH: " #n "\n"

/* Held results are discarded when configfs shows other sessions for the LU. */
static void
test_held_scope(void)
{
	uint64_t d0 = stat_of("lu_a", "held_discarded");

	/* tcm_loop: the nexus (initiator port) of a TPG exporting A */
	put_file(LOOP "/nexus", "naa.5001405bbbbbbbbb\n");
	held_copy(9);
	CHECK(held_known(9));
	CHECK(held_known(9));                     /* nothing changed: still there */
	put_file(LOOP "/nexus", "naa.5001405ccccccccc\n");
	CHECK(!held_known(9));                    /* another nexus: discarded */
	CHECK(stat_of("lu_a", "held_discarded") == d0 + 1);
	held_copy(9);                             /* the id is usable again at once */
	CHECK(held_known(9));

	/* iSCSI with an ACL mapping A: its session id; other lines may change */
	cfs_lun(ISCSI, 0, "user_1/lu_a");
	cfs_acl_map(ISCSI, INIT1, 0, 0);
	put_file(ISCSI "/acls/" INIT1 "/info", SID_LINE(1) " 0x00000010   0x00000011\n");
	held_copy(10);
	put_file(ISCSI "/acls/" INIT1 "/info", SID_LINE(1) " 0x00000020   0x00000021\n");
	CHECK(held_known(10));                    /* same session, new CmdSN: kept */
	put_file(ISCSI "/acls/" INIT1 "/info", SID_LINE(2) " 0x00000001   0x00000002\n");
	CHECK(!held_known(10));                   /* a new session of init1 */

	/* iSCSI demo mode: the target's login / logout counters */
	mkdirs(ISCSI_WWN "/fabric_statistics/iscsi_login_stats");
	put_file(ISCSI_WWN "/fabric_statistics/iscsi_login_stats/accepts", "3\n");
	held_copy(11);
	CHECK(held_known(11));
	put_file(ISCSI_WWN "/fabric_statistics/iscsi_login_stats/accepts", "4\n");
	CHECK(!held_known(11));
	held_copy(11);
	mkdirs(ISCSI_WWN "/fabric_statistics/iscsi_logout_stats");
	put_file(ISCSI_WWN "/fabric_statistics/iscsi_logout_stats/normal_logouts", "1\n");
	CHECK(!held_known(11));
	/* a TPG that stops exporting A changes the set too */
	held_copy(12);
	unlink_rel(ISCSI "/lun/lun_0/lu_a");
	CHECK(!held_known(12));
	CHECK(stat_of("lu_a", "held_discarded") >= d0 + 5);
	cfs_reset();
	cfs_lun(LOOP, 0, "user_1/lu_a");
	cfs_lun(LOOP, 1, "user_2/lu_b");
}

static void
test_paths(void)
{
	uint8_t sense[96];
	uint64_t rw0, cfr0;

	/* A -> B with A's policy (auto): clone or copy_file_range */
	cfr0 = stat_of("lu_a", "cfr_bytes");
	rw0 = stat_of("lu_a", "rw_bytes");
	fill_pattern("a.img", 2048 * BS, 1024 * BS, 0x42);
	list_one(SER_A, SER_B, 1024, 2048, 4096, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(same_bytes("b.img", 4096 * BS, "a.img", 2048 * BS, 1024 * BS));
	/* clone (if the fs reflinks), else copy_file_range, never the bounce buffer */
	CHECK(stat_of("lu_a", "clone_bytes") + stat_of("lu_a", "cfr_bytes") - cfr0 >= 1024 * BS);
	CHECK(stat_of("lu_a", "rw_bytes") == rw0);
	/* B opened with clone=never&cfr=never: the read/write loop */
	rw0 = stat_of("lu_b", "rw_bytes");
	fill_pattern("b.img", 0, 256 * BS, 0x77);
	list_one(SER_B, SER_A, 256, 0, 7000, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_b, 0, 0, sense) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 7000 * BS, "b.img", 0, 256 * BS));
	CHECK(stat_of("lu_b", "rw_bytes") == rw0 + 256 * BS);
	CHECK(stat_of("lu_b", "cfr_bytes") == 0 && stat_of("lu_b", "clone_bytes") == 0);
}

/* ------------------------------------------------------------------------ */
/* fault injection in the file backend (target/fault.c)                       */
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

static void
ft_run(const struct ft_case *c, uint8_t id)
{
	const uint64_t total = (uint64_t)(1024 + 3072 + 512) * BS;
	struct xcm_copy_status cs;
	struct xcm_sense ps;
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
		/* COPY ABORTED 0D/01 naming segment 1 and its source or destination CSCD ID */
		CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, XCM_ASC_THIRD_PARTY_DEVICE_FAILURE));
		CHECK(xcm_sense_parse(xcm_span_make(sense, 96), &ps) == 0);
		CHECK(ps.csi_valid && ps.csi == 1);
		CHECK(ps.sks_valid && (ps.sks[0] & 0x20) != 0 &&
		      xcm_get_be16(ps.sks + 1) == (c->at_dst ? 6 : 4));
		CHECK(ps.fwd_valid && ps.fwd_source == (c->at_dst ? 2 : 1) &&
		      ps.fwd_status == XCM_SAM_CHECK_CONDITION && ps.fwd_len >= 14);
		if (ps.fwd_valid && ps.fwd_len >= 14) {
			CHECK((ps.fwd_sense[2] & 0x0F) == c->fwd_key &&
			      xcm_get_be16(ps.fwd_sense + 12) == c->fwd_asc);
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

static void
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
	char cfg[600];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ft_run(&cases[i], (uint8_t)(40 + i));
	}
	CHECK(stat_of("lu_a", "io_errors") == io0 + 6);
	/* write:99 still armed on B: disarm it; after that B is back to clone/cfr */
	put_file("stats/lu_b.fault", "off\n");
	list_one(SER_A, SER_B, 8, 0, 0, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	/* delay:MS slows every backend call down (and forces pread/pwrite) until off */
	{
		uint64_t rw0 = stat_of("lu_a", "rw_bytes");
		struct timespec t0, t1;

		put_file("stats/lu_b.fault", "delay:20\n");
		list_one(SER_A, SER_B, 256, 100, 200, XCM_LIST_ID_NONE, 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		CHECK((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 20);
		CHECK(stat_of("lu_a", "rw_bytes") == rw0 + 256 * BS);
		CHECK(same_bytes("b.img", 200 * BS, "a.img", 100 * BS, 256 * BS));
		put_file("stats/lu_b.fault", "off\n");
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
		CHECK(stat_of("lu_a", "rw_bytes") == rw0 + 256 * BS);
	}
	/* a bad control file is ignored (logged) and consumed */
	put_file("stats/lu_b.fault", "write:0\n");
	CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_OK);
	CHECK(strstr(g_last_err, "write:0") != NULL);

	/* cfgstring: fault=KIND:N checked by check_config, armed at open */
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
/* block command field checks (target/sbc_check.c) and the write cache       */
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

static void
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
	/* WRITE SAME: ANCHOR with or without UNMAP, PBDATA, LBDATA; NDOB in (16) only */
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
		CHECK(sbc_cmd(&g_a, op, 0x08, len, sense) == TCMU_STS_NOT_HANDLED);   /* UNMAP */
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

/* WCE = 1 from open; emulate_write_cache = 0 (reconfig) turns it off, writes stay good. */
static void
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

int
main(int argc, char **argv)
{
	int (*init)(void);
	char env[300];
	void *h;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH/handler_xcopy.so [-v]\n", argv[0]);
		return 2;
	}
	g_verbose = argc > 2 && strcmp(argv[2], "-v") == 0;
	snprintf(g_tmp, sizeof(g_tmp), "%s/xcopy-plugin.XXXXXX",
		 getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(g_tmp) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(env, sizeof(env), "%s/cfs", g_tmp);
	setenv("XCOPY_CONFIGFS_ROOT", env, 1);
	snprintf(env, sizeof(env), "%s/sys", g_tmp);
	setenv("XCOPY_SYSFS_ROOT", env, 1);
	snprintf(env, sizeof(env), "%s/stats", g_tmp);
	setenv("XCOPY_STATS_DIR", env, 1);
	/* the fault control files are read only with this (target/fault.c) */
	setenv("XCOPY_FAULT_CONTROL", "1", 1);
	/* this harness is no tcmu-runner: claim the version open checks for */
	setenv("XCOPY_RUNNER_VERSION", "1.5.4", 1);

	/* as tcmu-runner: dlopen RTLD_NOW|RTLD_LOCAL, dlsym handler_init, call it */
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&init = dlsym(h, "handler_init");
	CHECK(init != NULL);
	CHECK(dlsym(h, "xt_execute") == NULL && dlsym(h, "xcm_list_parse") == NULL);
	if (init == NULL || init() != 0) {
		fprintf(stderr, "handler_init failed\n");
		return 1;
	}
	test_registration();
	make_backing("a.img", (uint64_t)NLBAS * BS);
	make_backing("b.img", (uint64_t)NLBAS * BS + 4096);   /* larger than the LU: fine */
	make_backing("c.img", (uint64_t)NLBAS * BS);
	test_check_config();
	test_open_errors();
	g_list = calloc(1, sizeof(*g_list));
	dev_setup(&g_a, 0, 1, "lu_a", "a.img", "", SER_A);
	dev_setup(&g_b, 1, 2, "lu_b", "b.img", "?clone=never&cfr=never", SER_B);
	dev_setup(&g_c, 2, 3, "lu_c", "c.img", "?xcopy=core", SER_C);
	CHECK(g_handler->open(&g_a, false) == 0);
	CHECK(g_handler->open(&g_b, false) == 0);
	CHECK(g_handler->open(&g_c, false) == 0);
	CHECK(stat_of("lu_a", "commands") == 0);   /* stats file exists from open */
	/* UNMAP alignment set (the runner divides by it), equal to the granularity, 2^n */
	CHECK(g_a.unmap_gran_align == 64 && g_a.opt_unmap_gran == 64);

	test_io_callouts();
	test_not_handled();
	test_vpd();
	test_xcopy_self();
	test_xcopy_errors();
	test_access_rule();
	test_ambiguous_designator();
	test_rcr();
	test_held_scope();
	test_paths();
	test_sbc_checks();
	test_write_cache();
	test_faults();
	test_async();
	test_rsoc();
	test_odx();

	g_handler->close(&g_c);
	g_handler->close(&g_b);
	g_handler->close(&g_a);
	/* after close, B is gone from the registry: A's copy to B is unreachable */
	CHECK(g_handler->open(&g_a, false) == 0);
	{
		uint8_t sense[96];
		list_one(SER_A, SER_B, 1, 0, 0, XCM_LIST_ID_NONE, 0);
		CHECK(send_xcopy(&g_a, 0, 0, sense) == TCMU_STS_PASSTHROUGH_ERR);
		CHECK(sense[2] == XCM_SK_COPY_ABORTED);
	}
	g_handler->close(&g_a);
	if (g_handler->destroy != NULL) {
		g_handler->destroy();
	}
	free(g_list);
	dlclose(h);
	{
		char cmd[400];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", g_tmp);
		if (g_fail == 0 && system(cmd) != 0) {
			fprintf(stderr, "cannot remove %s\n", g_tmp);
		}
	}
	printf("plugin tests (%s): %d checks passed, %d failed\n", argv[1], g_pass, g_fail);
	return g_fail == 0 ? 0 : 1;
}
