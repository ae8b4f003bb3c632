/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcm copy manager: executes a parsed EXTENDED COPY list against a backend,
 * and keeps per-LU held results for RECEIVE COPY RESULTS.
 *
 * The engine never touches the OS: LU lookup, the access rule and data
 * movement go through struct xcm_backend_ops (target/ implements it over
 * files and configfs; unit tests over memory).
 */
#ifndef XCM_EXEC_H
#define XCM_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "xcm/xcm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct xt_lu; /* the backend's LU handle, opaque to the engine */

/* What a failing backend operation reports; forwarded in COPY ABORTED sense. */
struct xcm_io_err {
	bool at_dst;            /* failed on the destination (else the source) */
	uint64_t done;          /* bytes completed before the failure */
	uint8_t status;         /* SCSI status of the failed sub-I/O (CHECK CONDITION) */
	uint8_t sense_len;      /* 0: the engine synthesises MEDIUM ERROR sense from the errno */
	uint8_t sense[XCM_FWD_SENSE_MAX];
};

struct xcm_backend_ops {
	/*
	 * Find the LU a CSCD designates, as seen from self (the LU that received
	 * the command). 0 with *out set; -ENOENT: no such LU; -EACCES: it exists
	 * but the access rule forbids reaching it from self.
	 */
	int (*resolve)(void *ctx, struct xt_lu *self, const struct xcm_cscd *cscd,
		       struct xt_lu **out);
	uint32_t (*block_size)(void *ctx, struct xt_lu *lu);
	uint64_t (*num_blocks)(void *ctx, struct xt_lu *lu);
	/*
	 * Copy len bytes from src at byte offset src_off to dst at dst_off.
	 * Ranges are inside both LUs (checked by the engine); on the same LU they
	 * may overlap and must be copied as memmove would. 0, or -errno with
	 * *ioerr filled. May block; called on the command's thread.
	 */
	int (*copy)(void *ctx, struct xt_lu *src, uint64_t src_off, struct xt_lu *dst,
		    uint64_t dst_off, uint64_t len, struct xcm_io_err *ioerr);
	/*
	 * Optional (NULL: no deadline is ever honoured): a monotonic clock in
	 * milliseconds, the time source of xcm_exec_opts.deadline_ms. Must not
	 * block; may be called from any thread that executes a list.
	 */
	uint64_t (*now_ms)(void *ctx);
	/*
	 * Optional: asked before each chunk. Anything but XCM_OK ends the list
	 * there with that (COPY ABORTED) status, CSI = the segment being
	 * processed, the result counting exactly what was written (e.g. COPY
	 * OPERATION ABORT, or the LU going away). Must not block.
	 */
	enum xcm_status (*stop)(void *ctx);
	/* Optional: after each chunk and segment, what the list has done so far. */
	void (*progress)(void *ctx, uint32_t segs_processed, uint64_t bytes);
	/*
	 * Optional, with copy_run (NULL or 0: segments are never merged): the
	 * most bytes one copy_run call may take between src and dst.
	 */
	uint64_t (*run_len)(void *ctx, struct xt_lu *src, struct xt_lu *dst);
	/*
	 * Optional: copy a run of consecutive segments that are contiguous on
	 * both sides (same two LUs, ranges not overlapping) in one call, all or
	 * nothing: 0 when every byte is copied; anything else and the engine
	 * copies the run again segment by segment through copy, so failures are
	 * reported exactly as serial execution reports them.
	 */
	int (*copy_run)(void *ctx, struct xt_lu *src, uint64_t src_off, struct xt_lu *dst,
			uint64_t dst_off, uint64_t len);
	/*
	 * Optional (NULL: a list with a C0h segment is refused before anything
	 * moves, ILLEGAL REQUEST 26/09): the vendor specific C0h segment
	 * (docs/remote-tokens.md). Write the bytes of the ROD token t->token,
	 * from t->offset blocks on, into t's ranges of dst (resolved from the
	 * segment's destination CSCD; every range lies inside it), honouring
	 * the command's deadline and stop requests itself. XCM_OK, *bytes = all
	 * of them; else what it returns ends the list, *bytes counting what was
	 * written: a token status (XCM_E_TOKEN_*, ILLEGAL REQUEST 23/xx),
	 * XCM_E_CA_DEVICE_FAILURE with *ioerr filled as copy() fills it, or
	 * another COPY ABORTED status (stop, deadline).
	 */
	enum xcm_status (*token_copy)(void *ctx, struct xt_lu *self, struct xt_lu *dst,
				      const struct xcm_tok_seg *t, uint64_t *bytes,
				      struct xcm_io_err *ioerr);
};

/*
 * Largest byte count one ops->copy() call moves by default: segments are
 * executed in chunks of at most this, and the deadline is checked before
 * each chunk. 8 MiB is about 0.1 s of copy_file_range on a slow store and
 * keeps FICLONERANGE calls few (a 256 MiB segment is 32 of them).
 */
#define XCM_EXEC_CHUNK_LEN (UINT64_C(8) << 20)

/* How one execution is bounded. Zero-initialise for "no deadline, default chunks". */
struct xcm_exec_opts {
	/*
	 * ops->now_ms() value by which the command must have ended (0: none).
	 * Before each chunk the engine stops if now >= deadline_ms, or if the
	 * slowest chunk of this command so far would not finish before it;
	 * then the list ends with XCM_E_CA_DEADLINE (COPY ABORTED 2E/02), CSI =
	 * the segment being processed, and the result counts exactly what was
	 * written. Nothing is written after the engine returns.
	 */
	uint64_t deadline_ms;
	uint64_t chunk_len;     /* bytes per ops->copy() call; 0: XCM_EXEC_CHUNK_LEN */
};

/*
 * The deadline for a command that started at start_ms (ops->now_ms() time)
 * on an LU whose transport fails commands after timeout_s seconds (TCMU
 * cmd_time_out): start + timeout less a reserve of timeout / 5, at least
 * min(1 s, timeout / 2) and at most 5 s, for the completion to travel and
 * for the command's wait before it reached us. timeout_s 0 (no timeout): 0.
 */
uint64_t xcm_deadline_for_timeout(uint64_t start_ms, uint32_t timeout_s);

/*
 * True if work expected to take need_ms, started now, would end after
 * deadline_ms (or now >= deadline_ms). False when there is no deadline
 * (deadline_ms 0) or no clock (ops->now_ms NULL). For executors that run
 * their own chunks (e.g. an asynchronous copy manager).
 */
bool xcm_deadline_reached(const struct xcm_backend_ops *ops, void *ctx, uint64_t deadline_ms,
			  uint64_t need_ms);

struct xcm_exec_result {
	uint32_t segs_processed; /* segments completed */
	uint64_t bytes;          /* bytes written to destinations */
};

/*
 * Run a parsed list received on LU self. First resolves and checks every
 * segment (CSCDs, block sizes, ranges, limits) so that nothing moves when the
 * list cannot complete for a reason known up front; then copies segments in
 * order. Returns XCM_OK or the status with *err (CSI = failed segment,
 * forwarded sense for I/O failures).
 */
enum xcm_status xcm_list_execute(const struct xcm_list *l, const struct xcm_limits *lim,
				 const struct xcm_backend_ops *ops, void *ctx, struct xt_lu *self,
				 struct xcm_exec_result *res, struct xcm_err *err);

/* The same, bounded by opts (NULL: as xcm_list_execute: no deadline, default chunks). */
enum xcm_status xcm_list_execute_opts(const struct xcm_list *l, const struct xcm_limits *lim,
				      const struct xcm_backend_ops *ops, void *ctx,
				      struct xt_lu *self, const struct xcm_exec_opts *opts,
				      struct xcm_exec_result *res, struct xcm_err *err);

/*
 * Held results per LU (TCMU does not say which initiator sent a command, so
 * list identifiers are scoped to the LU). Not thread-safe: the caller
 * serialises commands of one LU.
 */
struct xcm_store;

struct xcm_store *xcm_store_create(void);
void xcm_store_destroy(struct xcm_store *s);

/*
 * Clock of record lifetimes (the same kind of clock as xcm_backend_ops.now_ms;
 * NULL: records never age). Completed records are stamped with it.
 */
void xcm_store_set_clock(struct xcm_store *s, uint64_t (*now_ms)(void *arg), void *arg);

/*
 * Forget every completed record, because the set of I_T nexuses that can
 * reach the LU changed (held results belong to a nexus; SPC-4 discards them
 * when it is lost). Records of lists still running are kept. Returns how
 * many records were dropped.
 */
uint32_t xcm_store_discard(struct xcm_store *s);

/*
 * Forget completed records older than max_age_ms by the store's clock: the
 * bounded lifetime for what xcm_store_discard cannot see. Returns how many
 * records were dropped; 0 without a clock.
 */
uint32_t xcm_store_expire(struct xcm_store *s, uint64_t max_age_ms);

/*
 * Before executing list l: duplicate in-use identifier -> XCM_E_OP_IN_PROGRESS;
 * a completed record with the same identifier is replaced.
 */
enum xcm_status xcm_store_begin(struct xcm_store *s, const struct xcm_list *l, struct xcm_err *err);

/* After executing: record the outcome (and its sense) unless LIST ID USAGE is 11b. */
void xcm_store_finish(struct xcm_store *s, const struct xcm_list *l, enum xcm_status st,
		      const struct xcm_exec_result *res, const uint8_t *sense, size_t sense_len);

/*
 * Answer RECEIVE COPY RESULTS (any LID1 service action) from the store into
 * w (whose cap is the allocation length). Unknown list id: INVALID FIELD IN
 * CDB pointing at byte 2.
 */
enum xcm_status xcm_store_rcr(struct xcm_store *s, const struct xcm_limits *lim,
			      const struct xcm_rcr_req *req, struct xcm_wbuf *w, struct xcm_err *err);

#ifdef __cplusplus
}
#endif

#endif /* XCM_EXEC_H */
