/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcm: the third-party-copy codec of the copy manager.
 *
 * The one home of the wire formats: EXTENDED COPY (LID1) parameter lists
 * (decode + validate for the copy manager, encode for the initiator), RECEIVE
 * COPY RESULTS, the Third-party Copy VPD page and sense data. No transport and
 * no I/O here; execution against a backend lives in xcm/exec.h.
 *
 * Two error domains never share a return value: functions returning int use
 * 0 / -errno (resource and malformed-input failures on the initiator side);
 * functions returning enum xcm_status report a SCSI outcome, with its location
 * in struct xcm_err, which xcm_sense_build() turns into sense bytes.
 */
#ifndef XCM_XCM_H
#define XCM_XCM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcm/spc.h"
#include "xcm/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status: the SCSI outcome of a command; mapped to sense by one table.      */
/* ------------------------------------------------------------------------ */

enum xcm_status {
	XCM_OK = 0,
	/* ILLEGAL REQUEST: found before any data moved */
	XCM_E_INVALID_OPCODE,          /* 05 20/00 */
	XCM_E_INVALID_FIELD_CDB,       /* 05 24/00, SKS field pointer C/D=1 */
	XCM_E_PARAM_LIST_LEN,          /* 05 1A/00 */
	XCM_E_INVALID_FIELD_PARAM,     /* 05 26/00, SKS field pointer C/D=0 */
	XCM_E_TOO_MANY_CSCD,           /* 05 26/06 */
	XCM_E_UNSUPP_CSCD_TYPE,        /* 05 26/07 */
	XCM_E_TOO_MANY_SEG,            /* 05 26/08 */
	XCM_E_UNSUPP_SEG_TYPE,         /* 05 26/09 */
	XCM_E_INLINE_DATA_LEN,         /* 05 26/0B */
	XCM_E_OP_IN_PROGRESS,          /* 05 00/16: list identifier already in use */
	XCM_E_LBA_OUT_OF_RANGE,        /* 05 21/00 */
	XCM_E_INSUFFICIENT_RESOURCES,  /* 05 55/03 */
	XCM_E_TOKEN_OP,                /* 05 23/00: invalid token operation, cause not reportable */
	XCM_E_TOKEN_UNSUPPORTED,       /* 05 23/01: unsupported token type */
	XCM_E_TOKEN_UNKNOWN,           /* 05 23/04 */
	XCM_E_TOKEN_CORRUPT,           /* 05 23/05 */
	XCM_E_TOKEN_EXPIRED,           /* 05 23/07 */
	XCM_E_TOKEN_CANCELLED,         /* 05 23/08 */
	XCM_E_TOKEN_DELETED,           /* 05 23/09 */
	XCM_E_TOKEN_LENGTH,            /* 05 23/0A: invalid token length */
	XCM_E_TOKEN_REMOTE,            /* 05 23/02: remote token usage not supported */
	XCM_E_NO_ROD_RESOURCES,        /* 05 55/0C: insufficient resources to create ROD */
	XCM_E_NO_TOKEN_RESOURCES,      /* 05 55/0D: ... to create ROD token */
	/* COPY ABORTED: found while processing segments */
	XCM_E_CA_ABORTED,              /* 0A 00/00: stopped between chunks by COPY OPERATION ABORT */
	XCM_E_CA_UNREACHABLE,          /* 0A 08/04: CSCD cannot be resolved */
	XCM_E_CA_DEVICE_FAILURE,       /* 0A 0D/01: sub-I/O failed, sense forwarded */
	XCM_E_CA_NOT_REACHABLE,        /* 0A 0D/02: not reachable (access rule, range) */
	XCM_E_CA_INCORRECT_TYPE,       /* 0A 0D/03: block size / device type mismatch */
	XCM_E_CA_UNDERRUN,             /* 0A 0D/04 */
	XCM_E_CA_OVERRUN,              /* 0A 0D/05 */
	XCM_E_CA_INEXACT_SEGMENT,      /* 0A 26/0A */
	XCM_E_CA_INVALID_OP,           /* 0A 26/0C */
	XCM_E_CA_GRANULARITY,          /* 0A 26/0D */
	XCM_E_CA_FAST_COPY_NOT_POSSIBLE, /* 0A 26/16 */
	XCM_E_CA_INVALID_FIELD_PARAM,  /* 0A 26/00: CSCD extension byte, an ID naming an extension */
	XCM_E_CA_DEADLINE,             /* 0A 2E/02: stopped between chunks at the command's deadline */
	/* other */
	XCM_E_INTERNAL,                /* 04 44/00 */
	XCM_STATUS_COUNT
};

/* The one status -> sense mapping (engine/sense.c). */
struct xcm_status_info {
	uint8_t scsi_status;   /* XCM_SAM_* */
	uint8_t key;           /* XCM_SK_* */
	uint16_t asc_ascq;     /* XCM_ASC_* */
	const char *name;
};
const struct xcm_status_info *xcm_status_info(enum xcm_status st);

/*
 * Where an error was found and what goes with it. Zero-initialise, then set
 * what applies. xcm_err_set_*() helpers fill the common shapes.
 */
struct xcm_err {
	enum xcm_status status;
	/* SENSE KEY SPECIFIC: field pointer (ILLEGAL REQUEST) or segment pointer (COPY ABORTED) */
	bool sks_valid;
	bool in_cdb;           /* C/D: field is in the CDB (else in the parameter list) */
	bool sd;               /* segment pointer: field relative to the segment in CSI */
	bool bit_valid;        /* BPV */
	uint8_t bit;           /* BIT POINTER 0..7 */
	uint32_t field;        /* byte offset; > 0xFFFF cannot be reported (SKSV cleared) */
	/* COMMAND-SPECIFIC INFORMATION: index of the segment being processed */
	bool csi_valid;
	uint32_t csi;
	/* INFORMATION */
	bool info_valid;
	uint64_t info;
	/* Forwarded sense of the failed sub-I/O (descriptor 0Ch), if any */
	bool fwd_valid;
	uint8_t fwd_status;    /* SCSI status the copy source/destination returned */
	uint8_t fwd_source;    /* SENSE DATA SOURCE: 1 source, 2 destination (SPC-4 numbering) */
	uint8_t fwd_len;
	uint8_t fwd_sense[XCM_FWD_SENSE_MAX];
};

/* Sets status, clears the rest. */
void xcm_err_set(struct xcm_err *e, enum xcm_status st);
/* Sets status and an SKS field pointer (bit < 0: no bit pointer). */
void xcm_err_set_field(struct xcm_err *e, enum xcm_status st, bool in_cdb, uint32_t field, int bit);
/*
 * ILLEGAL REQUEST, INVALID FIELD IN CDB pointing at the SERVICE ACTION field
 * (byte 1, bit 4): a service action of a supported operation code that this
 * device server does not serve (SPC-4 4.5.2.1, sense key specific field pointer).
 */
void xcm_err_set_sa_unsupported(struct xcm_err *e);
/* Sets a COPY ABORTED status for segment index seg (CSI), optional segment pointer (field < 0: none). */
void xcm_err_set_segment(struct xcm_err *e, enum xcm_status st, uint32_t seg, int field);

/* ------------------------------------------------------------------------ */
/* Limits: the one table the parser enforces and RCR / VPD 0x8F report.       */
/* ------------------------------------------------------------------------ */

#define XCM_MAX_CSCD 64      /* compile-time capacity of struct xcm_list */
#define XCM_MAX_SEG 1024

struct xcm_limits {
	uint16_t max_cscd;             /* MAXIMUM CSCD DESCRIPTOR COUNT (<= XCM_MAX_CSCD) */
	uint16_t max_seg;              /* MAXIMUM SEGMENT DESCRIPTOR COUNT (<= XCM_MAX_SEG) */
	uint32_t max_desc_list_len;    /* MAXIMUM DESCRIPTOR LIST LENGTH (CSCD + segment bytes) */
	uint32_t max_seg_len;          /* MAXIMUM SEGMENT LENGTH (bytes one segment may move) */
	uint32_t max_inline_len;       /* MAXIMUM INLINE DATA LENGTH (0: none) */
	uint32_t held_data_limit;      /* HELD DATA LIMIT (0: none) */
	uint16_t total_concurrent;     /* TOTAL CONCURRENT COPIES */
	uint8_t max_concurrent;        /* MAXIMUM (identified) CONCURRENT COPIES */
	uint8_t data_seg_gran;         /* DATA SEGMENT GRANULARITY, log2 bytes */
	uint8_t inline_gran;           /* INLINE DATA GRANULARITY, log2 bytes */
	uint8_t held_gran;             /* HELD DATA GRANULARITY, log2 bytes */
	bool snlid;                    /* LIST ID USAGE 11b supported */
};

extern const struct xcm_limits xcm_limits_default;

/* Largest PARAMETER LIST LENGTH worth reading: header + descriptor lists + inline. */
uint32_t xcm_limits_max_param_len(const struct xcm_limits *lim);

/* Descriptor type codes implemented (segment and CSCD codes, ascending). */
const uint8_t *xcm_supported_desc_codes(size_t *n);

/* Service actions claimed for 83h / 84h (ascending). */
const uint8_t *xcm_supported_xcopy_sas(size_t *n);
const uint8_t *xcm_supported_rcr_sas(size_t *n);

/* ------------------------------------------------------------------------ */
/* EXTENDED COPY (LID1) parameter list                                        */
/* ------------------------------------------------------------------------ */

/*
 * One 32-byte slot of the CSCD descriptor list, as CSCD descriptor IDs count
 * them (SPC-4 6.4.5.2: an ID may name an extension): a decoded identification
 * (E4h) or iSCSI IPv6 (EAh) CSCD, the extension slot that follows an EAh
 * (type XCM_CSCD_EXT, no fields), or the implicit "self" one (type 0).
 */
struct xcm_cscd {
	uint8_t type;          /* XCM_CSCD_ID, XCM_CSCD_IPV6, XCM_CSCD_EXT; 0: FFFFh "this LU" */
	uint8_t lu_id_type;    /* byte 1 bits 7:6 */
	bool nul;              /* byte 1 bit 5 */
	uint8_t pdt;           /* byte 1 bits 4:0 */
	uint16_t rel_port;     /* RELATIVE INITIATOR PORT IDENTIFIER */
	uint8_t code_set;      /* XCM_CODE_SET_* */
	uint8_t assoc;         /* XCM_ASSOC_* */
	uint8_t desig_type;    /* XCM_DESIG_* */
	uint8_t desig_len;     /* <= XCM_DESIG_MAX */
	uint8_t desig[XCM_DESIG_MAX];
	bool pad;              /* device type specific byte 28 bit 2 */
	uint32_t block_len;    /* DISK BLOCK LENGTH (0: the LU's own) */
	uint32_t offset;       /* offset of the descriptor in the parameter list (for sense) */
	/* EAh only (E4h fields above: zero) */
	uint8_t lu_id[8];      /* LU IDENTIFIER: a SAM LUN (xcm_lun_single_level) */
	uint8_t ip[16];        /* IPV6 ADDRESS, network order */
	uint16_t port;         /* PORT NUMBER (TCP), 1..65535 */
	uint16_t ipn;          /* INTERNET PROTOCOL NUMBER: 0006h (TCP) */
};

/*
 * The LUN of an 8-byte SAM LUN field holding a single-level LUN: peripheral
 * device addressing with bus 0 (LUN 0..255) or flat space addressing
 * (0..16383), the remaining six bytes zero. 0, or -EINVAL for anything else
 * (other methods, bus numbers, hierarchical LUNs).
 */
int xcm_lun_single_level(const uint8_t lun[8], uint16_t *out);
/* The 8-byte SAM LUN of lun (0..16383): peripheral below 256, else flat space. */
void xcm_lun_encode(uint16_t lun, uint8_t out[8]);

enum {
	XCM_ROD_TOKEN_LEN = 512,
	XCM_MAX_RANGES = 64,           /* range descriptors per PT/WUT/C0h (capacity; Windows sends <= 64) */
};

/* A block device range descriptor (SBC-4 5.8.3). */
struct xcm_range {
	uint64_t lba;
	uint32_t count;
};

/*
 * The vendor specific segment C0h (docs/remote-tokens.md): the bytes of a
 * ROD token, from OFFSET INTO ROD on, into ranges of the destination CSCD.
 * Its bytes 8 on are those of a WRITE USING TOKEN parameter list; one per
 * list, kept in struct xcm_list.
 */
struct xcm_tok_seg {
	bool del_tkn;                  /* byte 1 bit 1: delete the token when done */
	uint32_t budget_ms;            /* bytes 528-531 TIME BUDGET: ms the sender waits, 0: none */
	uint64_t offset;               /* OFFSET INTO ROD, blocks of the destination */
	uint8_t token[XCM_ROD_TOKEN_LEN];
	uint32_t nranges;
	uint64_t total_blocks;
	struct xcm_range range[XCM_MAX_RANGES];
};

struct xcm_segment {
	uint8_t type;          /* XCM_SEG_B2B, XCM_SEG_B2B_OFF or XCM_SEG_TOKEN (src NULL: the token) */
	bool fco, dc, cat;
	const struct xcm_cscd *src;   /* -> xcm_list.cscd[i] or &xcm_list.self */
	const struct xcm_cscd *dst;
	uint32_t count;        /* 02h: BLOCK DEVICE NUMBER OF BLOCKS; 0Ah: NUMBER OF BYTES */
	uint64_t src_lba;
	uint64_t dst_lba;
	uint16_t src_off;      /* 0Ah byte offsets */
	uint16_t dst_off;
	uint32_t offset;       /* offset of the descriptor in the parameter list */
};

struct xcm_list {
	uint8_t list_id;       /* LID1 */
	bool lid4;             /* parsed from a LID4 (EXTENDED COPY SA 01h) list */
	uint32_t list_id4;     /* LID4 LIST IDENTIFIER */
	uint8_t tpc_sa;        /* 83h service action kept in the LID4 store (0: 01h; 10h PT, 11h WUT) */
	uint8_t list_id_usage; /* XCM_LIST_ID_* */
	uint8_t priority;
	bool str;
	uint32_t ncscd;
	uint32_t nseg;
	uint32_t inline_len;
	struct xcm_cscd self;  /* target of CSCD ID FFFFh */
	struct xcm_cscd cscd[XCM_MAX_CSCD];
	struct xcm_segment seg[XCM_MAX_SEG];
	struct xcm_tok_seg tok;  /* the C0h segment's body, if the list has one */
};

/*
 * Validate the EXTENDED COPY CDB (16 bytes). On XCM_OK *plen is the
 * PARAMETER LIST LENGTH. LID4 and other service actions: INVALID FIELD IN CDB.
 */
enum xcm_status xcm_xcopy_cdb_check(const uint8_t *cdb, size_t cdb_len, uint32_t *plen,
				    struct xcm_err *err);

/*
 * Decode and validate a LID1 parameter list.
 * plen: the CDB's PARAMETER LIST LENGTH; data: the bytes received, of which
 * the first min(plen, xcm_limits_max_param_len(lim)) are looked at.
 * plen == 0 returns XCM_OK with an empty list (nothing to do).
 * On error, *err has the status and location; *out is unspecified.
 * Order of checks: the numbered list at the top of engine/param.c.
 */
enum xcm_status xcm_list_parse(uint32_t plen, struct xcm_span data, const struct xcm_limits *lim,
			       struct xcm_list *out, struct xcm_err *err);

/*
 * Encode a parameter list (initiator side). Segment src/dst pointers must
 * point into l->cscd[0..ncscd) or at &l->self. Each cscd[] entry is one
 * 32-byte slot: an EAh entry writes bytes 0-31, the XCM_CSCD_EXT entry that
 * must follow it bytes 32-63 (from the EAh's fields), as the decoder returns
 * them. Returns the full length; bytes past w->cap are dropped.
 */
size_t xcm_list_encode(const struct xcm_list *l, struct xcm_wbuf *w);

/* Fill a CSCD from a VPD 0x83 designation descriptor (4-byte header + body). 0 or -EINVAL. */
int xcm_cscd_from_designator(struct xcm_cscd *c, const uint8_t *desig, size_t len,
			     uint32_t block_len);

/* CDB builders (16 bytes) */
void xcm_cdb_xcopy(uint8_t *cdb, uint32_t plen);
void xcm_cdb_rcr(uint8_t *cdb, uint8_t sa, uint8_t list_id, uint32_t alloc_len);

/* ------------------------------------------------------------------------ */
/* RECEIVE COPY RESULTS (LID1)                                                */
/* ------------------------------------------------------------------------ */

struct xcm_rcr_req {
	uint8_t sa;
	uint8_t list_id;
	uint32_t alloc_len;
};

/* Validate a RECEIVE COPY RESULTS CDB; unsupported SA: INVALID FIELD IN CDB (byte 1). */
enum xcm_status xcm_rcr_cdb_check(const uint8_t *cdb, size_t cdb_len, struct xcm_rcr_req *req,
				  struct xcm_err *err);

struct xcm_copy_status {
	uint8_t cm_status;        /* XCM_CM_STATUS_* */
	bool hdd;
	uint16_t segs_processed;
	uint8_t units;            /* XCM_TC_UNITS_* */
	uint32_t transfer_count;
};

/* Express a byte count in the smallest unit whose count fits in 32 bits. */
void xcm_copy_status_set_bytes(struct xcm_copy_status *st, uint64_t bytes);

struct xcm_op_params {
	bool snlid;
	uint16_t max_cscd;
	uint16_t max_seg;
	uint32_t max_desc_list_len;
	uint32_t max_seg_len;
	uint32_t max_inline_len;
	uint32_t held_data_limit;
	uint32_t max_stream_xfer;
	uint16_t total_concurrent;
	uint8_t max_concurrent;
	uint8_t data_seg_gran;
	uint8_t inline_gran;
	uint8_t held_gran;
	uint8_t n_impl;
	uint8_t impl[255];
};

/* Encoders: write at most w->cap bytes (the allocation length); w->len = full length. */
void xcm_rcr_encode_op_params(const struct xcm_limits *lim, struct xcm_wbuf *w);
void xcm_rcr_encode_copy_status(const struct xcm_copy_status *st, struct xcm_wbuf *w);
/* sense NULL / sense_len 0: nothing to report (AVAILABLE DATA 0). */
void xcm_rcr_encode_failed_segment(uint8_t scsi_status, const uint8_t *sense, size_t sense_len,
				   struct xcm_wbuf *w);
void xcm_rcr_encode_receive_data(const uint8_t *held, size_t len, struct xcm_wbuf *w);

/* Decoders (initiator side): 0, or -EINVAL when too short / inconsistent. */
int xcm_rcr_decode_op_params(struct xcm_span s, struct xcm_op_params *out);
int xcm_rcr_decode_copy_status(struct xcm_span s, struct xcm_copy_status *out);

/* ------------------------------------------------------------------------ */
/* Third-party Copy VPD page (0x8F)                                           */
/* ------------------------------------------------------------------------ */

struct xcm_tpc_info {
	/* Supported Commands (0001h) */
	bool has_supported_cmds;
	bool xcopy_lid1;
	bool rcr_copy_status;
	bool rcr_receive_data;
	bool rcr_op_params;
	bool rcr_failed_segment;
	/* Parameter Data (0004h) */
	bool has_param_data;
	uint16_t max_cscd;
	uint16_t max_seg;
	uint32_t max_desc_list_len;
	uint32_t max_inline_len;
	/* Supported Descriptors (0008h) */
	bool has_supported_descs;
	uint8_t n_descs;
	uint8_t descs[255];
	/* Supported CSCD Descriptor IDs (000Ch) */
	bool has_cscd_ids;
	uint16_t n_cscd_ids;
	uint16_t cscd_ids[32];    /* first 32 kept */
	/* General Copy Operations (8001h) */
	bool has_general_copy_ops;
	uint32_t total_concurrent;
	uint32_t max_identified_concurrent;
	uint32_t max_seg_len;
	uint8_t data_seg_gran;
	uint8_t inline_gran;
	/* Block Device ROD Token Limits (0000h), and the token commands in 0001h */
	bool has_bdrl;
	uint16_t max_ranges;
	uint32_t max_inactivity_s;
	uint32_t default_inactivity_s;
	uint64_t max_token_blocks;
	uint64_t optimal_blocks;
	bool populate_token;           /* 83h/10h and 83h/11h listed */
	bool rrti;                     /* 84h/07h listed */
};

/* pdt_byte: INQUIRY byte 0 (qualifier + peripheral device type). */
void xcm_vpd_tpc_encode(const struct xcm_limits *lim, uint8_t pdt_byte, struct xcm_wbuf *w);
/* 0, or -EINVAL if the page is not 0x8F or is malformed (descriptors past the page). */
int xcm_vpd_tpc_decode(struct xcm_span page, struct xcm_tpc_info *out);

/* ------------------------------------------------------------------------ */
/* Sense data                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * Build sense data for err: descriptor format 72h when desc is true, else
 * fixed format 70h (which cannot carry forwarded sense: it is left out).
 * Returns the number of bytes written (<= cap).
 */
size_t xcm_sense_build(const struct xcm_err *err, bool desc, uint8_t *buf, size_t cap);

/*
 * Current fixed-format (70h) sense carrying only key and ASC/ASCQ, cut at
 * cap; returns the bytes written (18 when cap allows).
 */
size_t xcm_sense_build_plain(uint8_t key, uint16_t asc_ascq, uint8_t *buf, size_t cap);

/* Decoded sense (fixed or descriptor format). */
struct xcm_sense {
	bool desc;             /* descriptor format */
	bool deferred;
	uint8_t key;
	uint16_t asc_ascq;
	bool info_valid;
	uint64_t info;
	bool csi_valid;
	uint64_t csi;
	bool sks_valid;
	uint8_t sks[3];        /* raw SENSE KEY SPECIFIC bytes (SKSV in sks[0] bit 7) */
	bool fwd_valid;
	bool fwd_truncated;
	uint8_t fwd_source;
	uint8_t fwd_status;
	uint8_t fwd_len;
	const uint8_t *fwd_sense; /* points into the decoded buffer */
};

/* 0, or -EINVAL if not sense data (response code not 70h-73h, too short). */
int xcm_sense_parse(struct xcm_span s, struct xcm_sense *out);

/*
 * The SENSE KEY SPECIFIC bytes of a decoded sense as a field pointer
 * (ILLEGAL REQUEST: C/D = in_cdb) or segment pointer (COPY ABORTED: SD).
 * false when SKSV is clear or the key has neither form.
 */
struct xcm_sks_ptr {
	bool in_cdb;           /* ILLEGAL REQUEST: C/D */
	bool sd;               /* COPY ABORTED: SD */
	bool bit_valid;        /* BPV */
	uint8_t bit;
	uint16_t field;
};
bool xcm_sense_sks_ptr(const struct xcm_sense *s, struct xcm_sks_ptr *out);

#ifdef __cplusplus
}
#endif

#endif /* XCM_XCM_H */
