/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An in-memory backend for the copy manager (struct xcm_backend_ops), for
 * unit tests: a handful of LUs with their own block size, capacity, data and
 * VPD 0x83-style designator, an access matrix, fault injection and counters.
 *
 *   struct fake_be *be = fake_create();
 *   struct xt_lu *a = fake_lu_add(be, 512, 64, 1);   (data: pattern of seed 1)
 *   struct xcm_cscd c;
 *   fake_lu_cscd(a, &c);                               (an E4h CSCD naming a)
 *   xcm_list_execute(&l, &lim, &fake_ops, be, a, &res, &err);
 *   fake_destroy(be);
 *
 * The ctx argument of every op is the struct fake_be *. Nothing here is
 * thread-safe. Fatal misuse (too many LUs, allocation failure) aborts.
 */
#ifndef FAKE_BACKEND_H
#define FAKE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcm/exec.h"

#define FAKE_MAX_LU 8

struct fake_be;

extern const struct xcm_backend_ops fake_ops;

struct fake_be *fake_create(void);
void fake_destroy(struct fake_be *be);

/*
 * Add an LU of num_blocks blocks of block_size bytes, filled with a
 * deterministic pattern of seed, designated by a 16-byte NAA 6 binary
 * designator derived from seed (distinct seeds, distinct designators).
 */
struct xt_lu *fake_lu_add(struct fake_be *be, uint32_t block_size, uint64_t num_blocks,
			   uint32_t seed);

/* Replace the LU's designator (len <= XCM_DESIG_MAX). */
void fake_lu_set_desig(struct xt_lu *lu, uint8_t code_set, uint8_t desig_type,
		       const uint8_t *desig, uint8_t len);

/* Fill cscd with an identification (E4h) CSCD designating lu (block, DISK BLOCK LENGTH 0). */
void fake_lu_cscd(const struct xt_lu *lu, struct xcm_cscd *cscd);

/* The LU's bytes (size in *len if not NULL); tests may read and write them. */
uint8_t *fake_lu_data(struct xt_lu *lu, size_t *len);

/* Refill the whole LU with the pattern of seed. */
void fake_lu_fill(struct xt_lu *lu, uint32_t seed);

/* 64-bit FNV-1a of the LU's bytes [off, off + len) (clamped to the LU). */
uint64_t fake_lu_sum(struct xt_lu *lu, uint64_t off, uint64_t len);
/* ... and of the whole LU. */
uint64_t fake_lu_sum_all(struct xt_lu *lu);

/* Make resolve() of lu fail with err (-errno; 0 restores normal behaviour). */
void fake_lu_set_resolve_err(struct xt_lu *lu, int err);

/* Access matrix: may a command received on self reach other? Default: yes. */
void fake_allow(struct fake_be *be, struct xt_lu *self, struct xt_lu *other, bool allowed);

/*
 * Fail the nth copy() call from now on (1-based; 0 disables): after moving
 * min(after, len) bytes, return err (-EIO, -ENOSPC, ...) with ioerr->at_dst,
 * ioerr->done, and status + sense_len bytes of sense (sense_len 0: none,
 * the engine synthesises it). One shot: the fault clears when it fires.
 */
struct fake_fault {
	unsigned nth;
	int err;
	bool at_dst;
	uint64_t after;
	uint8_t status;
	uint8_t sense_len;
	uint8_t sense[XCM_FWD_SENSE_MAX];
};
void fake_set_fault(struct fake_be *be, const struct fake_fault *f);

/*
 * Fake clock behind fake_ops.now_ms: starts at start_ms; every copy() call
 * advances it by per_call_ms + per_mib_ms for each MiB (rounded up) it moves.
 */
void fake_clock_set(struct fake_be *be, uint64_t start_ms, uint64_t per_call_ms,
		    uint64_t per_mib_ms);
uint64_t fake_clock(const struct fake_be *be);
/* Advance the clock by ms (e.g. time spent queued before the command ran). */
void fake_clock_advance(struct fake_be *be, uint64_t ms);

struct fake_counters {
	unsigned resolve_calls;
	unsigned copy_calls;       /* including failed ones */
	uint64_t bytes;            /* bytes moved by copy(), including partial ones */
	unsigned bad_ranges;       /* copy() calls outside an LU: an engine defect */
	unsigned clock_reads;      /* now_ms() calls */
	uint64_t last_write_end_ms; /* fake-clock time at which the last copy() ended */
	uint64_t max_copy_len;     /* largest len of one copy() call */
};
const struct fake_counters *fake_counters(const struct fake_be *be);
void fake_reset_counters(struct fake_be *be);

#endif /* FAKE_BACKEND_H */
