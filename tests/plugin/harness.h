/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the test files of the dlopen harness share (fixture and helpers: harness.c). */
#ifndef TESTS_PLUGIN_HARNESS_H
#define TESTS_PLUGIN_HARNESS_H

#include <stdbool.h>
#include <stdio.h>

#include "fake_tcmu.h"
#include "xcm/xcm.h"

extern int g_pass, g_fail;
extern char g_tmp[256];

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (cond) {                                                           \
			g_pass++;                                                     \
		} else {                                                              \
			g_fail++;                                                     \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                     \
	} while (0)

#define BS 512u
#define NLBAS 8192u   /* 4 MiB LUs */

#define SER_A "0123456789abcdef0123456789abcdef"
#define SER_B "6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
#define SER_C "aaaabbbb-cccc-dddd-eeee-ffff00001111"

extern struct tcmu_device g_a, g_b, g_c;
extern struct xcm_list *g_list;

void path_of(char *out, size_t n, const char *rel);
void link_to(const char *rel_link, const char *rel_target);
void unlink_rel(const char *rel);
void make_backing(const char *name, uint64_t size);
int backing_fd(const char *name);
/* copy of a backing file, to compare against after a failed command */
void snapshot(const char *name, const char *copy);
void dev_setup(struct tcmu_device *d, int uio, int hba, const char *name, const char *file,
	       const char *opts, const char *serial);
/*
 * Close d, make its backing file (zeros) and the LU bytes long, open it
 * again: a copy of several engine chunks (XT_PAR_PIECES x 1 MiB) in one LU.
 */
void grow_lu(struct tcmu_device *d, const char *file, uint64_t bytes);
void naa_of(const char *serial, uint8_t *d);
void cscd_for(struct xcm_cscd *c, const char *serial);
void mkdirs(const char *rel);
void put_file(const char *rel, const char *text);
void fill_pattern(const char *name, uint64_t off, uint64_t len, uint8_t seed);
bool same_bytes(const char *name, uint64_t off, const char *other, uint64_t ooff, uint64_t len);
/* handle_cmd, then (as the runner's core) flush when the CDB became SYNCHRONIZE CACHE */
int run_cmd(struct tcmu_device *d, const uint8_t *cdb, void *buf, size_t len, uint8_t *sense);
bool sense_is(const uint8_t *s, uint8_t key, uint16_t asc_ascq);
uint8_t sense_key(const uint8_t *s, size_t len);
void list_one(const char *src_ser, const char *dst_ser, uint32_t nblocks, uint64_t slba,
	      uint64_t dlba, uint8_t usage, uint8_t id);
int send_xcopy(struct tcmu_device *d, int plen_adj, int iov_adj, uint8_t *sense);
/* a counter of lu's stats file, read after a refresh (stats_refresh); UINT64_MAX: none */
uint64_t stat_of(const char *lu, const char *key);
/* ask the plugin's stats writer for a refresh and wait for it (false: not served in 10 s) */
bool stats_refresh(void);

/* fake configfs (harness.c): LUNs, ACL mappings, demo mode */
#define LOOP "cfs/loopback/naa.5001405aaaaaaaaa/tpgt_1"
#define ISCSI "cfs/iscsi/iqn.2003-01.org.test:t1/tpgt_1"
#define INIT1 "iqn.1994-05.com.example:init1"
#define INIT2 "iqn.1994-05.com.example:init2"
void cfs_reset(void);
void cfs_lun(const char *tpg, int lun, const char *so);
void cfs_acl_map(const char *tpg, const char *iqn, int mapped, int lun);
void cfs_demo(const char *tpg, bool demo);

/* One test: it runs on a fresh fixture (plugin_main.c): its own temporary directory, the
 * backing files a.img, b.img, c.img and the LUs g_a, g_b, g_c opened on them by the
 * plugin's open, the loopback TPG exporting lu_a and lu_b; closed and removed after. */
struct ptest {
	const char *name;
	void (*fn)(void);
};
/* the lists, each ended by { NULL, NULL } */
extern const struct ptest g_core_tests[];    /* plugin_test.c */
/* subtype_test.c: XCOPY_SUBTYPE; handler_init's warnings (kept by plugin_main.c) */
extern char g_init_warns[4096];
const char *expected_subtype(void);
void test_subtype(void);
extern const struct ptest g_async_tests[];   /* async_test.c */
extern const struct ptest g_odx_tests[];     /* odx_test.c */
extern const struct ptest g_peer_tests[];    /* peer_test.c */
extern const struct ptest g_peer_deleg_tests[];   /* peer_deleg_test.c */
extern const struct ptest g_peer_ip_tests[];      /* peer_ip_test.c */
extern const struct ptest g_peer_disc_tests[];    /* peer_disc_test.c */
extern const struct ptest g_peer_token_tests[];   /* peer_token_test.c */

/* sense decoded by the engine: fixed format, current (response code 70h)? */
bool sense_fixed_current(const uint8_t *s, size_t len);
/* fixed format, current, COMMAND-SPECIFIC INFORMATION == csi */
bool sense_csi_is(const uint8_t *s, size_t len, uint64_t csi);
/*
 * fixed format, current, key and ASC/ASCQ, and a field pointer (SPC-4 4.5.2.4.2):
 * C/D = in_cdb, BPV set with bit when bit >= 0 (clear when bit < 0), FIELD POINTER field
 */
bool sense_ptr_is(const uint8_t *s, size_t len, uint8_t key, uint16_t asc_ascq, bool in_cdb,
		  int bit, uint16_t field);

/* plugin_test.c: check_config of cfg accepts (ok) or refuses it with needle in the reason */
void expect_config(const char *cfg, bool ok, const char *needle);
/* access_test.c */
void test_access_rule(void);
void test_ambiguous_designator(void);
void test_rcr(void);
void test_held_scope(void);
void test_paths(void);
/* fault_test.c */
void test_sbc_checks(void);
void test_sbc_write_same(void);
void test_write_same_unmap(void);
void test_write_cache(void);
void test_faults(void);
void test_fault_delay(void);
void test_fault_cfgstring(void);
/* null_test.c */
void test_null_store(void);
/* settings_test.c */
void test_lu_settings(void);
/* rsoc_test.c */
void test_rsoc(void);
void test_rsoc_one(void);

/*
 * fake_time.c: the plugin's CLOCK_MONOTONIC and usleep (the delay fault),
 * interposed. The clock runs ahead by what the tests advanced it; the gate
 * lets `pass` delayed I/O calls through at once and holds the next one
 * until opened (then later calls sleep as asked, or with !sleep_after not).
 */
void plugin_clock_advance_ms(unsigned ms);
void plugin_gate_hold(unsigned pass);
bool plugin_gate_wait_held(void);   /* false: nothing arrived within 30 s */
void plugin_gate_open(bool sleep_after);
/* fake_sync.c: fdatasync calls of the process so far (the plugin's store flushes) */
unsigned long plugin_fdatasyncs(void);
/* ws_test.c */
int ws_cmd(struct tcmu_device *d, uint8_t op, uint64_t lba, uint32_t n, bool unmap,
	   const uint8_t *block, uint8_t *sense);
void test_ws_pattern(void);
void test_ws_deadline(void);
void test_ws_handoff(void);
void test_wce_durable(void);

#endif
