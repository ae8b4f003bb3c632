/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What peer_test.c and peer_deleg_test.c share: the fake remote LU, the map, lists. */
#ifndef TESTS_PLUGIN_PEER_TEST_H
#define TESTS_PLUGIN_PEER_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define R_BLOCKS 8192u
#define PEER_TARGET "iscsi://127.0.0.1:3262/iqn.2026-12.org.test:peer"
#define PEER_INIT "initiator=iqn.2026-12.org.test:cm"
#define PEER_LINE "naa.6001405feed00102030405060708090a " PEER_TARGET "/5 " PEER_INIT

/* the remote LU's designator (NAA 6) */
extern const uint8_t g_rd[16];

/* the map file with text and mode, root's own */
void put_map(const char *text, mode_t mode);
/* the remote LU fresh (a pattern), earlier idle sessions logged out, the map naming it */
bool peer_up(void);
/* g_list: one segment, n blocks from (src, slba) to (dst, dlba), NAA CSCDs; id != 0: held */
void list_peer(const uint8_t *src, const uint8_t *dst, uint32_t n, uint64_t slba, uint64_t dlba,
	       uint8_t id);
/* the remote LU's bytes at roff equal file's at off */
bool remote_is(uint64_t roff, const char *file, uint64_t off, uint64_t len);

#endif
