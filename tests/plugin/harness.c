/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dlopen harness's fixture: temporary files, fake sysfs/configfs, LUs, command helpers. */
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

/* ------------------------------------------------------------------------ */
/* fixture: files, fake sysfs/configfs                                        */
/* ------------------------------------------------------------------------ */

void
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
void
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

void
unlink_rel(const char *rel)
{
	char p[512];

	path_of(p, sizeof(p), rel);
	unlink(p);
}

void
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

int
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

void
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
void
dev_setup(struct tcmu_device *d, int uio, int hba, const char *name, const char *file,
	  const char *opts, const char *serial)
{
	char rel[256], text[700];

	memset(d, 0, sizeof(*d));
	/* the registered subtype: xcopy, or XCOPY_SUBTYPE's (subtype_test.c) */
	snprintf(d->cfgstring, sizeof(d->cfgstring), "%s/%s/%s%s", g_handler->subtype, g_tmp, file,
		 opts);
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

void
grow_lu(struct tcmu_device *d, const char *file, uint64_t bytes)
{
	g_handler->close(d);
	make_backing(file, bytes);
	d->num_lbas = bytes / BS;
	CHECK(g_handler->open(d, false) == 0);
}

int
run_cmd(struct tcmu_device *d, const uint8_t *cdb, void *buf, size_t len, uint8_t *sense)
{
	struct tcmulib_cmd lc;
	struct tcmur_cmd rc;
	struct iovec iov[2];
	uint8_t *cdb_copy;
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
	/*
	 * as libtcmu: the command's own copy of the CDB, exactly as long as the
	 * opcode group says (ASan sees a write past it: the runner keeps its
	 * tcmur_cmd right behind those bytes)
	 */
	static const uint8_t group_len[8] = { 6, 10, 10, 16, 16, 12, 16, 16 };
	cdb_copy = malloc(group_len[cdb[0] >> 5]);
	CHECK(cdb_copy != NULL);
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
	free(cdb_copy);
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

/* The sense key of sense data decoded by the engine; 0xFF when s is no sense data. */
uint8_t
sense_key(const uint8_t *s, size_t len)
{
	struct xcm_sense ps;

	return xcm_sense_parse(xcm_span_make(s, len), &ps) == 0 ? ps.key : 0xFF;
}

/* Decoded by the engine, fixed format, current; false (and a note) otherwise. */
static bool
parse_fixed(const uint8_t *s, size_t len, struct xcm_sense *ps)
{
	if (xcm_sense_parse(xcm_span_make(s, len), ps) != 0 || ps->desc || ps->deferred) {
		fprintf(stderr, "  sense: not fixed-format current sense (byte 0 %02x)\n", s[0]);
		return false;
	}
	return true;
}

bool
sense_fixed_current(const uint8_t *s, size_t len)
{
	struct xcm_sense ps;

	return parse_fixed(s, len, &ps);
}

bool
sense_csi_is(const uint8_t *s, size_t len, uint64_t csi)
{
	struct xcm_sense ps;

	return parse_fixed(s, len, &ps) && ps.csi_valid && ps.csi == csi;
}

bool
sense_ptr_is(const uint8_t *s, size_t len, uint8_t key, uint16_t asc_ascq, bool in_cdb,
	     int bit, uint16_t field)
{
	struct xcm_sks_ptr p;
	struct xcm_sense ps;
	bool ok;

	if (!parse_fixed(s, len, &ps) || !sense_is(s, key, asc_ascq)) {
		return false;
	}
	ok = xcm_sense_sks_ptr(&ps, &p) && p.in_cdb == in_cdb && p.bit_valid == (bit >= 0) &&
	     (bit < 0 || p.bit == bit) && p.field == field;
	if (!ok) {
		fprintf(stderr, "  sense pointer: sksv %d c/d %d bpv %d bit %u field %u "
			"(want c/d %d bit %d field %u)\n", ps.sks_valid && (ps.sks[0] & 0x80),
			p.in_cdb, p.bit_valid, p.bit, p.field, in_cdb, bit, field);
	}
	return ok;
}

/* Test-side NAA: 6 | 00-14-05 | serial nibbles from the low nibble of byte 3. */
void
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

void
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

/*
 * xcopy-stat's refresh request: STATSDIR/refresh made, then waited for until
 * neither it nor refresh.busy is left (the stats writer renamed it, wrote the
 * changed LUs' files and removed it). Real time (nanosleep), at most 10 s.
 */
bool
stats_refresh(void)
{
	const struct timespec ms10 = { 0, 10 * 1000000L };
	char req[512], busy[512];
	int fd, i;

	snprintf(req, sizeof(req), "%s/stats/refresh", g_tmp);
	snprintf(busy, sizeof(busy), "%s/stats/refresh.busy", g_tmp);
	fd = open(req, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		return false;
	}
	close(fd);
	for (i = 0; i < 1000; i++) {
		if (access(req, F_OK) != 0 && access(busy, F_OK) != 0) {
			return true;
		}
		nanosleep(&ms10, NULL);
	}
	return false;
}

uint64_t
stat_of(const char *lu, const char *key)
{
	char p[512], line[256], k[64];
	unsigned long long v;
	uint64_t r = UINT64_MAX;
	FILE *f;

	CHECK(stats_refresh());
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


