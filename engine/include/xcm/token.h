/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcm token (ODX) codec: POPULATE TOKEN (83h/10h) and WRITE USING TOKEN
 * (83h/11h) CDB checks and parameter lists with their block device range
 * descriptors, RECEIVE ROD TOKEN INFORMATION (84h/07h) and REPORT ALL ROD
 * TOKENS (84h/08h) CDB checks and responses, the 512-byte ROD token. No OS
 * calls: the random part of a token comes from the caller. Same conventions
 * as xcm/xcm.h. Layouts: SBC-4 5.8 (POPULATE TOKEN), 5.55 (WRITE USING
 * TOKEN), SPC-4 6.19.4 (RRTI), 6.19.5 (REPORT ALL ROD TOKENS), 7.3.4.4 (ROD
 * token).
 */
#ifndef XCM_TOKEN_H
#define XCM_TOKEN_H

#include "xcm/lid4.h"
#include "xcm/xcm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	XCM_SA_POPULATE_TOKEN = 0x10,  /* THIRD-PARTY COPY OUT */
	XCM_SA_WRITE_USING_TOKEN = 0x11,
	XCM_SA_RRTI = 0x07,            /* THIRD-PARTY COPY IN: RECEIVE ROD TOKEN INFORMATION */
	XCM_SA_RART = 0x08,            /* THIRD-PARTY COPY IN: REPORT ALL ROD TOKENS */
	XCM_ROD_TOKEN_LEN_FIELD = 0x01F8, /* ROD TOKEN LENGTH of a 512-byte token (n - 7) */
	XCM_RANGE_DESC_LEN = 16,       /* block device range descriptor (SBC-4 5.8.3) */
	XCM_PT_HDR_LEN = 16,           /* POPULATE TOKEN list up to the range descriptors */
	XCM_WUT_HDR_LEN = 536,         /* WRITE USING TOKEN list up to the range descriptors */
	XCM_RRTI_TOKEN_DESC_LEN = 514, /* ROD TOKEN DESCRIPTORS LENGTH: 2 reserved + 512 */
	XCM_RART_ENTRY_LEN = 96,       /* ROD management token: the first 96 bytes of a token */
	XCM_TC_UNITS_BLOCKS = 0xF1,    /* TRANSFER COUNT UNITS: logical blocks (SPC-4 6.19.3) */
	XCM_RCS4_DONE_RESIDUAL = 0x04, /* completed without errors, with residual data */
	/* random part of a ROD token supplied by the caller: bytes 256-511 */
	XCM_ROD_RANDOM_OFF = 256,
	XCM_ROD_RANDOM_LEN = XCM_ROD_TOKEN_LEN - XCM_ROD_RANDOM_OFF,
};

/* ROD types (SPC-4 Table 115) */
#define XCM_ROD_TYPE_PIT_DEFAULT 0x00800000u     /* point in time copy, default */
#define XCM_ROD_TYPE_PIT_VULNERABLE 0x00800001u  /* point in time copy, change vulnerable */
#define XCM_ROD_TYPE_PIT_PERSISTENT 0x00800002u  /* point in time copy, persistent */
#define XCM_ROD_TYPE_PIT_ANY 0x0080FFFFu         /* point in time copy, any */
#define XCM_ROD_TYPE_ZERO 0xFFFF0001u            /* block device zero ROD token */

/* The token limits this copy manager enforces and reports (VPD 8Fh 0000h, 0106h). */
struct xcm_tok_limits {
	uint16_t max_ranges;           /* MAXIMUM RANGE DESCRIPTORS (<= XCM_MAX_RANGES) */
	uint32_t max_inactivity_s;     /* MAXIMUM INACTIVITY TIMEOUT */
	uint32_t default_inactivity_s; /* DEFAULT INACTIVITY TIMEOUT */
	uint64_t max_token_bytes;      /* bytes one token may represent (MAXIMUM TOKEN TRANSFER SIZE) */
	uint64_t optimal_bytes;        /* OPTIMAL TRANSFER COUNT, in bytes */
	uint32_t max_lifetime_s;       /* MAXIMUM TOKEN LIFETIME (enforced by the token table) */
	bool pit_persistent;           /* tokens are snapshots (reflink store) */
	/*
	 * VPD 8Fh ROD Token Features REMOTE TOKENS (SPC-4 7.7.7.6.2): 0 only
	 * this copy manager's tokens; XCM_REMOTE_TOKENS_OTHER_TARGETS: tokens
	 * of copy managers in other SCSI target devices are used too
	 * (docs/remote-tokens.md)
	 */
	uint8_t remote_tokens;
};
#define XCM_REMOTE_TOKENS_OTHER_TARGETS 6
extern const struct xcm_tok_limits xcm_tok_limits_default;


/* THIRD-PARTY COPY OUT CDB of POPULATE TOKEN / WRITE USING TOKEN. */
struct xcm_tok_out_req {
	uint8_t sa;                    /* XCM_SA_POPULATE_TOKEN or XCM_SA_WRITE_USING_TOKEN */
	uint32_t list_id;              /* LIST IDENTIFIER, bytes 6-9 */
	uint32_t plen;                 /* PARAMETER LIST LENGTH, bytes 10-13 */
};

/*
 * Validate a 16-byte PT or WUT CDB: reserved bytes 2-5 and byte 14 bits 7:6
 * zero (INVALID FIELD IN CDB at the byte); PARAMETER LIST LENGTH at least
 * the fixed part plus one range descriptor and at most the fixed part plus
 * lim->max_ranges descriptors (INVALID FIELD IN CDB, field pointer 10).
 */
enum xcm_status xcm_tok_out_cdb_check(const uint8_t *cdb, size_t cdb_len,
				      const struct xcm_tok_limits *lim,
				      struct xcm_tok_out_req *req, struct xcm_err *err);

/* A decoded POPULATE TOKEN or WRITE USING TOKEN parameter list. */
struct xcm_tok_list {
	bool immed;
	bool rtv;                      /* PT: ROD TYPE valid */
	bool del_tkn;                  /* WUT: delete the token when done */
	uint32_t inactivity_s;         /* PT: requested, 0 replaced by the default */
	uint32_t rod_type;             /* PT: requested (rtv) or XCM_ROD_TYPE_PIT_DEFAULT */
	uint64_t offset;               /* WUT: OFFSET INTO ROD, logical blocks */
	uint8_t token[XCM_ROD_TOKEN_LEN]; /* WUT: the ROD token, as received */
	uint32_t nranges;
	uint64_t total_blocks;         /* sum of NUMBER OF LOGICAL BLOCKS */
	struct xcm_range range[XCM_MAX_RANGES];
};

/*
 * Decode and validate a PT (sa 10h) or WUT (sa 11h) parameter list of plen
 * bytes (data: the bytes received). num_blocks / block_len: the LU the
 * ranges address (PT: the source, WUT: the destination). Checks, in order:
 * fewer bytes than plen or DATA LENGTH + 2 > plen: PARAMETER LIST LENGTH
 * ERROR; reserved bits and IMMED=1 (unsupported): INVALID FIELD IN PARAMETER
 * LIST at the byte/bit; PT inactivity timeout above the maximum (field 4),
 * an unsupported ROD type with RTV (field 8); a range descriptor length
 * that is 0, not a multiple of 16 or past the list: INVALID FIELD (14 PT,
 * 534 WUT); more than lim->max_ranges: TOO MANY SEGMENT DESCRIPTORS; a
 * range past the end of the LU: LBA OUT OF RANGE, INFORMATION = its LBA;
 * overlapping ranges: INVALID FIELD IN PARAMETER LIST at the second one; PT
 * total above lim->max_token_bytes: INVALID FIELD (field 14).
 */
enum xcm_status xcm_tok_list_parse(uint8_t sa, uint32_t plen, struct xcm_span data,
				   const struct xcm_tok_limits *lim, uint64_t num_blocks,
				   uint32_t block_len, struct xcm_tok_list *out,
				   struct xcm_err *err);
/* Initiator side: encode a PT or WUT list (sa), returns the full length. */
size_t xcm_tok_list_encode(uint8_t sa, const struct xcm_tok_list *l, struct xcm_wbuf *w);

/* RRTI (84h/07h) and REPORT ALL ROD TOKENS (84h/08h) CDB. */
struct xcm_tok_in_req {
	uint8_t sa;
	uint32_t list_id;              /* RRTI: bytes 2-5 */
	uint32_t alloc_len;            /* bytes 10-13 */
};
/* Reserved bytes (RRTI 6-9; RART 2-9) and byte 14 must be zero: INVALID FIELD IN CDB. */
enum xcm_status xcm_tok_in_cdb_check(const uint8_t *cdb, size_t cdb_len,
				     struct xcm_tok_in_req *req, struct xcm_err *err);

/* What a ROD token says (SPC-4 7.3.4.4). */
struct xcm_rod_token {
	uint32_t rod_type;
	uint64_t id;                   /* COPY MANAGER ROD TOKEN IDENTIFIER */
	uint8_t creator_desig[XCM_DESIG_MAX]; /* the creator LU's designator (NAA, binary) */
	uint8_t creator_desig_len;
	uint64_t bytes;                /* NUMBER OF BYTES REPRESENTED */
	uint32_t block_len;            /* LOGICAL BLOCK LENGTH of the creator LU */
	uint8_t random[XCM_ROD_RANDOM_LEN];
};

/*
 * Encode a token into out[512]: ROD TYPE, ROD TOKEN LENGTH 01F8h, identifier,
 * creator LU as an E4h CSCD descriptor (bytes 16-47), bytes represented,
 * block length (READ CAPACITY(16) layout at 96), the creator's designation
 * descriptor as target device descriptor (128), the random part (256-511).
 */
void xcm_rod_token_encode(const struct xcm_rod_token *t, uint8_t out[XCM_ROD_TOKEN_LEN]);
/*
 * Decode a token. XCM_OK, or ILLEGAL REQUEST INVALID TOKEN OPERATION:
 * INVALID TOKEN LENGTH (23/0A) if ROD TOKEN LENGTH is not 01F8h, TOKEN
 * CORRUPT (23/05) if the creator descriptor is malformed. The zero token
 * decodes with rod_type XCM_ROD_TYPE_ZERO and nothing else.
 */
enum xcm_status xcm_rod_token_decode(const uint8_t in[XCM_ROD_TOKEN_LEN],
				     struct xcm_rod_token *t, struct xcm_err *err);
/* The block device zero ROD token (SBC-4, ROD type FFFF0001h). */
void xcm_rod_token_zero(uint8_t out[XCM_ROD_TOKEN_LEN]);
/* Constant-time comparison of two tokens: true if equal. */
bool xcm_rod_token_equal(const uint8_t *a, const uint8_t *b);

/*
 * RECEIVE ROD TOKEN INFORMATION response: the RECEIVE COPY STATUS (LID4)
 * header with TRANSFER COUNT in logical blocks (units F1h), SEGMENTS
 * PROCESSED 0, then ROD TOKEN DESCRIPTORS LENGTH (514, or 0 without a
 * token), 2 reserved bytes and the token. st->bytes is ignored.
 */
void xcm_rrti_encode(const struct xcm_rcs4 *st, uint64_t blocks, const uint8_t *token,
		     struct xcm_wbuf *w);
/* Initiator side: 0 or -EINVAL. *has_token, token[512] when a token is present. */
int xcm_rrti_decode(struct xcm_span s, struct xcm_rcs4 *st, uint64_t *blocks, bool *has_token,
		    uint8_t token[XCM_ROD_TOKEN_LEN]);

/* REPORT ALL ROD TOKENS response: n tokens (first 96 bytes of each). */
void xcm_rart_encode(const uint8_t *const *tokens, size_t n, struct xcm_wbuf *w);

/*
 * Third-party Copy VPD page (8Fh) with the descriptors ODX clients read:
 * 0000h Block Device ROD Token Limits first, then those of
 * xcm_vpd_tpc_encode, then 0106h ROD Token Features and 0108h Supported
 * ROD Token and ROD Types. tl NULL: the page without them. block_len: the
 * LU's logical block length (the limits are reported in blocks).
 */
void xcm_vpd_tpc_encode_tok(const struct xcm_limits *lim, const struct xcm_tok_limits *tl,
			    uint32_t block_len, uint8_t pdt_byte, struct xcm_wbuf *w);
/* vpd_rod.c, for vpd.c: the descriptors themselves, and the 0000h decoder */
void xcm_vpd_tpc_put_bdrl(const struct xcm_tok_limits *tl, uint32_t block_len,
			  struct xcm_wbuf *w);
void xcm_vpd_tpc_put_rod(const struct xcm_tok_limits *tl, struct xcm_wbuf *w);
int xcm_vpd_tpc_dec_bdrl(struct xcm_span d, struct xcm_tpc_info *out);

/* CDB builders (16 bytes) */
void xcm_cdb_populate_token(uint8_t *cdb, uint32_t list_id, uint32_t plen);
void xcm_cdb_write_using_token(uint8_t *cdb, uint32_t list_id, uint32_t plen);
void xcm_cdb_rrti(uint8_t *cdb, uint32_t list_id, uint32_t alloc_len);

#ifdef __cplusplus
}
#endif

#endif /* XCM_TOKEN_H */
