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

struct xcm_lu; /* the backend's LU handle, opaque to the engine */

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
	int (*resolve)(void *ctx, struct xcm_lu *self, const struct xcm_cscd *cscd,
		       struct xcm_lu **out);
	uint32_t (*block_size)(void *ctx, struct xcm_lu *lu);
	uint64_t (*num_blocks)(void *ctx, struct xcm_lu *lu);
	/*
	 * Copy len bytes from src at byte offset src_off to dst at dst_off.
	 * Ranges are inside both LUs (checked by the engine); on the same LU they
	 * may overlap and must be copied as memmove would. 0, or -errno with
	 * *ioerr filled. May block; called on the command's thread.
	 */
	int (*copy)(void *ctx, struct xcm_lu *src, uint64_t src_off, struct xcm_lu *dst,
		    uint64_t dst_off, uint64_t len, struct xcm_io_err *ioerr);
};

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
				 const struct xcm_backend_ops *ops, void *ctx, struct xcm_lu *self,
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
