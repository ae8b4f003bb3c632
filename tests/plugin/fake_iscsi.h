/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The harness's fake libiscsi (fake_iscsi.c): one remote LU in memory, and what it saw. */
#ifndef TESTS_PLUGIN_FAKE_ISCSI_H
#define TESTS_PLUGIN_FAKE_ISCSI_H

#include <stdbool.h>
#include <stdint.h>

struct fake_iscsi {
	/* the remote target and LU */
	char target[256];
	char initiator[256];           /* the only initiator it lets in */
	char chap_user[256];           /* "" : no CHAP */
	char chap_secret[256];
	uint8_t desig[16];             /* NAA 6 */
	const uint8_t *report_desig;   /* non-NULL: VPD 83h reports this instead */
	uint32_t block_size;
	uint64_t nblocks;
	uint8_t *medium;
	uint32_t fail_write_nth;       /* the Nth WRITE(16) ends in CHECK CONDITION (0: none) */
	uint8_t fail_key;
	uint16_t fail_asc;
	unsigned int epoch;            /* bumped: the target restarted, every session is dead */
	/* what the plugin did */
	char portal[300];
	unsigned int logins, logouts, inquiries, reads, writes, syncs;
	int contexts;                  /* created, not yet destroyed */
	int last_timeout;
	uint64_t read_bytes, write_bytes;
};

extern struct fake_iscsi g_fi;

void fake_iscsi_reset(uint32_t block_size, uint64_t nblocks, const uint8_t desig[16]);

#endif
