/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file store: LUs backed by a file (xcopy//PATH), the cfgstring
 * parser, copies between two backing files (clone, copy_file_range,
 * read/write; parallel pieces) and their write-behind.
 */
#ifndef TARGET_STORE_FILE_H
#define TARGET_STORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/lu.h"

/* ------------------------------------------------------------------------ */
/* cfgstring: xcopy/PATH[?opt=val[&opt=val...]]  (cfg.c)                    */
/* ------------------------------------------------------------------------ */

/*
 * Parse a full cfgstring ("xcopy/PATH?..."). 0, or -EINVAL with a reason in
 * why (always NUL-terminated).
 */
int xt_cfg_parse(const char *cfgstring, struct xt_cfg *out, char *why, size_t whylen);

/* ------------------------------------------------------------------------ */
/* The backing-file store (store_file.c, file_copy.c, parallel.c)           */
/* ------------------------------------------------------------------------ */

extern const struct xt_store_ops xt_store_file;

/* A file LU's store state (lu->priv, store_file.c): the backing file. */
struct xt_file {
	int fd;                           /* -1: not open */
	int dfd;                          /* the same file O_DIRECT (READ/WRITE), -1: none */
	uint32_t dio_mem;                 /* O_DIRECT alignment of buffers ... */
	uint32_t dio_off;                 /* ... and of offsets and lengths (bytes) */
	dev_t st_dev;                     /* device and inode (block device: its rdev): */
	ino_t st_ino;                     /* ... same-file and same-fs checks */
	uint32_t fs_block;                /* clone alignment of the file's filesystem */
	bool cfr_first;                   /* copy_file_range before direct read/write (file_copy.c) */
};

static inline struct xt_file *
xt_file(const struct xt_lu *lu)
{
	return lu->priv;
}

/* Is len bytes enough for lu's dio= to send it O_DIRECT (auto: XT_DIO_MIN or more)? */
static inline bool
xt_dio_len_ok(const struct xt_lu *lu, uint64_t len)
{
	return lu->cfg.dio != XT_DIO_AUTO || len >= XT_DIO_MIN;
}

/*
 * Copy r between two open backing files (may be the same file and overlap:
 * memmove semantics) by c's policy (clone, cfr), counted in c->acct.
 * bounce: XT_BOUNCE_LEN bytes. 0 or -errno with c->at_dst and c->done
 * describing the failure.
 */
int xt_file_copy(struct xt_copy *c, const struct xt_range *r, uint8_t *bounce);

/*
 * parallel.c, the file store's copy op: xt_file_copy of r cut into
 * XT_CHUNK pieces copied at once (non-overlapping ranges), one of c's
 * bounce buffers per piece (allocated on first use); otherwise serial.
 * Same result and counts as serial execution (see parallel.c for what a
 * failure leaves).
 */
int xt_par_copy(struct xt_copy *c, const struct xt_range *r);
/*
 * file_copy.c, write-behind: after the chunk r reached r->dst's page cache,
 * start its writeback and wait for the writeback of c's chunk before it, so
 * one job keeps at most two chunks of dirty or in-flight pages (no dirty
 * throttling, no writeback storm after the copy). xt_wb_init first.
 */
void xt_wb_init(struct xt_copy *c);
void xt_wb_chunk(struct xt_copy *c, const struct xt_range *r);
/*
 * file_copy.c: the calling thread's nice value becomes nice (if higher than now);
 * returns the value to give xt_nice_restore, or INT_MIN when unchanged.
 */
int xt_nice_lower(int nice);
void xt_nice_restore(int old);

/* Pieces copied at once: min(XT_PAR_PIECES, CPUs - 1), 1 on <= 2 CPUs. */
unsigned int xt_par_pieces(void);
/* Stop and join the helper pool (handler destroy: the daemon exits, or dlclose). */
void xt_par_shutdown(void);

#endif /* TARGET_STORE_FILE_H */
