/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What plugin_test.c shares with the other test files of the dlopen harness. */
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

void mkdirs(const char *rel);
void put_file(const char *rel, const char *text);
void fill_pattern(const char *name, uint64_t off, uint64_t len, uint8_t seed);
bool same_bytes(const char *name, uint64_t off, const char *other, uint64_t ooff, uint64_t len);
/* handle_cmd, then (as the runner's core) flush when the CDB became SYNCHRONIZE CACHE */
int run_cmd(struct tcmu_device *d, const uint8_t *cdb, void *buf, size_t len, uint8_t *sense);
bool sense_is(const uint8_t *s, uint8_t key, uint16_t asc_ascq);
void list_one(const char *src_ser, const char *dst_ser, uint32_t nblocks, uint64_t slba,
	      uint64_t dlba, uint8_t usage, uint8_t id);
int send_xcopy(struct tcmu_device *d, int plen_adj, int iov_adj, uint8_t *sense);
uint64_t stat_of(const char *lu, const char *key);

/* fake configfs (plugin_test.c): LUNs, ACL mappings, demo mode */
#define LOOP "cfs/loopback/naa.5001405aaaaaaaaa/tpgt_1"
#define ISCSI "cfs/iscsi/iqn.2003-01.org.test:t1/tpgt_1"
#define INIT1 "iqn.1994-05.com.example:init1"
#define INIT2 "iqn.1994-05.com.example:init2"
void cfs_reset(void);
void cfs_lun(const char *tpg, int lun, const char *so);
void cfs_acl_map(const char *tpg, const char *iqn, int mapped, int lun);
void cfs_demo(const char *tpg, bool demo);

/* odx_test.c */
void test_odx(void);
/* async_test.c */
void test_async(void);
/* rsoc_test.c */
void test_rsoc(void);

#endif
