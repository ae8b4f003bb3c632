/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-LU table of ROD tokens (tokens.c): tokens a POPULATE TOKEN made,
 * their snapshots, expiry, and the writes that cancel them. Private to
 * target/.
 */
#ifndef TARGET_TOKENS_H
#define TARGET_TOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcm/token.h"
#include "base/lu.h"

/* Per LU: live tokens and the bytes their snapshots hold (a full table: 55/0D, 55/0C). */
#define XT_TOK_MAX 64
#define XT_TOK_SNAP_BYTES_MAX (64ull << 30)
/* Dead tokens remembered to say EXPIRED / CANCELLED / DELETED rather than UNKNOWN. */
#define XT_TOK_TOMBS 64

/* One ROD token this LU made (tokens.c). */
struct xt_tok {
	uint64_t id;                      /* COPY MANAGER ROD TOKEN IDENTIFIER */
	uint8_t bytes[XCM_ROD_TOKEN_LEN];
	uint32_t list_id;                 /* the POPULATE TOKEN that made it (RRTI) */
	int snap_fd;                      /* point-in-time image of the ranges, -1: none */
	uint32_t nranges;
	struct xcm_range range[XCM_MAX_RANGES];
	uint32_t block_len;
	uint64_t total_bytes;
	uint64_t timeout_ms;              /* inactivity timeout */
	uint64_t created_ms, last_use_ms;
	unsigned int refs;                /* WRITE USING TOKEN commands using it now */
	bool cancelled;                   /* a write overlapped its ranges (no snapshot) */
	bool deleted;                     /* DEL_TKN while in use: goes when refs drop to 0 */
	struct xt_tok *next;
};

struct xt_toktab;

/* The LU's table (at open) and its end (at close: snapshots freed). */
struct xt_toktab *xt_tok_create(struct xt_lu *lu);
void xt_tok_destroy(struct xt_toktab *t);
/* Stop the expiry thread (handler destroy). */
void xt_tok_shutdown(void);
/* A new token identifier: a random per-process epoch and a counter (none survive a restart). */
uint64_t xt_tok_new_id(void);
/* Was id made by this process (its epoch), even if the token is gone since? */
bool xt_tok_ours(uint64_t id);
/* Room for one more token holding snap_bytes of snapshot? XCM_OK (reserved) or 55/0D, 55/0C. */
enum xcm_status xt_tok_reserve(struct xt_toktab *t, uint64_t snap_bytes, struct xcm_err *err);
void xt_tok_unreserve(struct xt_toktab *t, uint64_t snap_bytes);
/* Insert a reserved token (the table owns it and its snapshot from now on). */
void xt_tok_insert(struct xt_toktab *t, struct xt_tok *tok);
/*
 * The token whose 512 bytes are `bytes`, referenced (xt_tok_put after use);
 * else TOKEN UNKNOWN / CORRUPT (altered) / EXPIRED / CANCELLED / DELETED.
 */
enum xcm_status xt_tok_get(struct xt_toktab *t, const uint8_t *bytes, struct xt_tok **out,
			   struct xcm_err *err);
/* End of use: *cancelled if a write hit it meanwhile; del: DEL_TKN. */
void xt_tok_put(struct xt_toktab *t, struct xt_tok *tok, bool del, bool *cancelled);
/* A write to [off, off + len) bytes of lu: cancel the change-vulnerable tokens it overlaps. */
void xt_tok_note_write(struct xt_lu *lu, uint64_t off, uint64_t len);
/* RRTI of a POPULATE TOKEN: the token it made, if still live. */
bool xt_tok_of_list(struct xt_toktab *t, uint32_t list_id, uint8_t out[XCM_ROD_TOKEN_LEN]);
/* REPORT ALL ROD TOKENS: up to cap live tokens' bytes into out; the count. */
size_t xt_tok_report(struct xt_toktab *t, uint8_t (*out)[XCM_ROD_TOKEN_LEN], size_t cap);

#endif /* TARGET_TOKENS_H */
