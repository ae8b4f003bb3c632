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
	uint32_t drop_write_nth;       /* the Nth WRITE(16) loses the connection: no status,
					  every session dead (0: none) */
	bool drop_writes;              /* ... every WRITE(16) does */
	uint8_t fail_key;
	uint16_t fail_asc;
	unsigned int epoch;            /* bumped: the target restarted, every session is dead */
	/* a second LU of the same target (LUN lun2), when has_lu2: same geometry */
	bool has_lu2;
	uint16_t lun2;
	uint8_t desig2[16];
	uint8_t *medium2;
	/* its copy manager: EXTENDED COPY (LID1), one 02h segment between its LUs */
	bool no_3pc;                   /* standard INQUIRY 3PC = 0 */
	bool no_xcopy;                 /* EXTENDED COPY: ILLEGAL REQUEST 20/00 */
	uint32_t fail_xcopy_nth;       /* the Nth EXTENDED COPY ends in CHECK CONDITION */
	uint8_t fail_xcopy_key;
	uint16_t fail_xcopy_asc;
	void (*on_xcopy)(void);        /* called as each EXTENDED COPY completes (a test's hook) */
	void (*on_write)(void);        /* ... as each WRITE(16) has written the medium */
	/*
	 * a list with the vendor specific segment C0h (docs/remote-tokens.md):
	 * answered by this hook (0: GOOD, else key << 16 | ASC/ASCQ); without
	 * one, ILLEGAL REQUEST 26/09 as a copy manager not of this project
	 */
	uint32_t (*on_token)(const uint8_t *list, uint32_t len);
	/* discovery: SendTargets lists target (LUN lun1, and lun2) and the names in other[] */
	uint16_t lun1;                 /* the LUN REPORT LUNS gives the first LU (5) */
	char other[2][64];             /* more targets SendTargets lists: their logins fail */
	bool no_discovery;             /* the discovery login fails (the portal is down) */
	unsigned int discoveries;      /* SendTargets answered */
	unsigned int foreign;          /* connections to a portal other than 127.0.0.1:3262 */
	bool redirect;                 /* logins answered "target moved" to another portal:
					  libiscsi's full connect follows it (foreign++),
					  iscsi_login_sync fails */
	unsigned int login_ua;         /* commands after each login answered UNIT ATTENTION
					  29/00 (not INQUIRY, REPORT LUNS); TUR clears them */
	unsigned int turs;             /* TEST UNIT READY received */
	unsigned int report_luns;
	/* what the plugin did */
	char portal[300];
	unsigned int logins, logouts, inquiries, reads, writes, syncs;
	int contexts;                  /* created, not yet destroyed */
	int last_timeout;
	uint64_t read_bytes, write_bytes;
	unsigned int std_inquiries, xcopies;   /* EXTENDED COPY commands received */
	int xcopy_lun;                 /* ... the LUN the last one was sent to */
	uint8_t xcopy_list[2048];      /* ... its parameter list */
	uint32_t xcopy_len;
	uint64_t xcopy_bytes;          /* bytes its copy manager copied */
};

extern struct fake_iscsi g_fi;

void fake_iscsi_reset(uint32_t block_size, uint64_t nblocks, const uint8_t desig[16]);
/* A second LU (LUN lun) on the target, designator desig, zeros. */
void fake_iscsi_add_lu2(uint16_t lun, const uint8_t desig[16]);

#endif
