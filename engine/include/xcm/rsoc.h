/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * REPORT SUPPORTED OPERATION CODES (MAINTENANCE IN A3h, service action 0Ch,
 * SPC-4 6.35): the CDB check and the parameter-data encoder.
 *
 * The caller owns the list of commands its logical unit serves (one struct
 * xcm_opcode_desc per operation code, or per operation code + service action)
 * and passes it in ascending (opcode, service action) order; the engine only
 * knows the wire format. No allocation, no I/O; safe from any thread.
 */
#ifndef XCM_RSOC_H
#define XCM_RSOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcm/xcm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	XCM_OP_MAINTENANCE_IN = 0xA3,
	XCM_OP_MAINTENANCE_OUT = 0xA4,
	XCM_SA_REPORT_TARGET_PGS = 0x0A,      /* MAINTENANCE IN / OUT (SET TARGET PGS) */
	XCM_SA_REPORT_SUPPORTED_OPCODES = 0x0C,
	XCM_RSOC_CDB_LEN = 12,
	XCM_RSOC_USAGE_MAX = 16,              /* longest CDB this encoder describes */
	XCM_RSOC_CMD_DESC_LEN = 8,            /* SPC-4 table 284, without timeouts */
	XCM_RSOC_TIMEOUTS_LEN = 12,           /* SPC-4 table 286, DESCRIPTOR LENGTH 0Ah + 2 */
	XCM_RSOC_ONE_HDR_LEN = 4,             /* SPC-4 table 285, bytes 0-3 */
};

/* REPORTING OPTIONS (CDB byte 2 bits 2:0), SPC-4 table 283 */
enum {
	XCM_RSOC_ALL = 0,          /* 000b: every command, all_commands format */
	XCM_RSOC_OPCODE = 1,       /* 001b: one operation code without service actions */
	XCM_RSOC_OPCODE_SA = 2,    /* 010b: one operation code + service action */
	XCM_RSOC_OPCODE_ANY = 3,   /* 011b: one operation code, with or without service action */
};

/* SUPPORT field of the one_command format (SPC-4 table 287) */
enum {
	XCM_RSOC_SUPPORT_NOT_AVAILABLE = 0,
	XCM_RSOC_SUPPORT_NONE = 1,        /* 001b: not supported */
	XCM_RSOC_SUPPORT_STANDARD = 3,    /* 011b: supported, as the standard says */
};

/* One command a logical unit serves. */
struct xcm_opcode_desc {
	uint8_t opcode;
	bool sa_valid;                    /* SERVACTV: the opcode has service actions */
	uint16_t sa;                      /* 0 unless sa_valid */
	uint8_t cdb_len;                  /* CDB LENGTH, 1..XCM_RSOC_USAGE_MAX */
	/*
	 * CDB USAGE DATA (SPC-4 6.35.3): byte 0 the opcode, the service action
	 * in its own place, then a one for every CDB bit the device server
	 * acts on and zeros for bits it ignores or only accepts as zero.
	 */
	uint8_t usage[XCM_RSOC_USAGE_MAX];
	uint32_t nominal_timeout;         /* seconds, 0: not specified */
	uint32_t recommended_timeout;     /* seconds, 0: not specified */
};

/* A decoded REPORT SUPPORTED OPERATION CODES CDB. */
struct xcm_rsoc_req {
	bool rctd;                        /* return command timeouts descriptors */
	uint8_t options;                  /* XCM_RSOC_* reporting option */
	uint8_t opcode;                   /* REQUESTED OPERATION CODE */
	uint16_t sa;                      /* REQUESTED SERVICE ACTION */
	uint32_t alloc_len;               /* ALLOCATION LENGTH (0: nothing is transferred) */
};

/*
 * Validate a 12-byte REPORT SUPPORTED OPERATION CODES CDB. XCM_OK with *req
 * filled; a reserved REPORTING OPTIONS value (100b..111b): INVALID FIELD IN
 * CDB, field pointer byte 2 bit 2. Reserved bits are not checked.
 */
enum xcm_status xcm_rsoc_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_rsoc_req *req,
				   struct xcm_err *err);

/*
 * Encode the parameter data for req over cmds[0..n) (ascending opcode, then
 * service action). Writes at most w->cap bytes (the allocation length);
 * w->len becomes the full length. A one-command request for an opcode the
 * list lacks gets SUPPORT 001b; 001b for an opcode that has service actions
 * and 010b for one that has none end in INVALID FIELD IN CDB (field pointer
 * byte 2 bit 2, the REPORTING OPTIONS field), as SPC-4 table 283 says.
 */
enum xcm_status xcm_rsoc_encode(const struct xcm_rsoc_req *req,
				const struct xcm_opcode_desc *const *cmds, size_t n,
				struct xcm_wbuf *w, struct xcm_err *err);

/*
 * 0 if d is a well-formed descriptor (usage[0] == opcode, a service action
 * in byte 1 bits 4:0 when sa_valid, 1 <= cdb_len <= XCM_RSOC_USAGE_MAX, no
 * usage bits past cdb_len); -EINVAL otherwise.
 */
int xcm_opcode_desc_check(const struct xcm_opcode_desc *d);

/* Build a 12-byte REPORT SUPPORTED OPERATION CODES CDB (initiator side, tests). */
void xcm_cdb_rsoc(uint8_t *cdb, bool rctd, uint8_t options, uint8_t opcode, uint16_t sa,
		  uint32_t alloc_len);

#ifdef __cplusplus
}
#endif

#endif /* XCM_RSOC_H */
