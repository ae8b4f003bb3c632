/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host/copy/: runs of LU blocks copied between device handles: the choice
 * of method (method.c), the one entry and the map method (copy_pairs.c),
 * the planner (plan.c), EXTENDED COPY LID1 (lid1_copy.c) and ROD tokens
 * (token_copy.c) with the sense decision (decide.c) and the commands in
 * flight (inflight.c), the host's fallback (rw_fallback.c) and
 * xcopy_dev_copy() (dev_copy.c). Host-internal (xch_ prefix, hidden by the
 * version script).
 */
#ifndef XCH_COPY_H
#define XCH_COPY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcopy.h"
#include "device/xch_device.h"

/* ------------------------------------------------------------------------ */
/* Planner                                                                    */
/* ------------------------------------------------------------------------ */

/* A run of blocks to copy: LBAs are whole-LU addresses. */
struct xch_pair {
	uint64_t src_lba;
	uint64_t dst_lba;
	uint64_t nblocks;
	uint64_t src_off;      /* caller's coordinates for fallback (file offsets, bytes) */
	uint64_t dst_off;
};

struct xch_seg {
	uint32_t pair;         /* index into the pairs */
	uint64_t skip;         /* blocks into the pair */
	uint32_t nblocks;      /* <= 65535 */
};

struct xch_cmdplan {
	uint32_t first;        /* first segment */
	uint32_t nseg;
};

struct xch_plan {
	struct xch_seg *seg;
	size_t nseg;
	struct xch_cmdplan *cmd;
	size_t ncmd;
};

struct xch_plan_limits {
	uint32_t ncscd;            /* CSCD descriptors every list carries (1 or 2) */
	uint32_t max_seg;          /* segment descriptors per command */
	uint32_t max_desc_list_len;
	uint32_t max_seg_blocks;   /* min(65535, MAXIMUM SEGMENT LENGTH / block size), and
				    * XCH_SEG_PREF_BYTES when the target takes > 1 segment */
};

/* Effective limits for a copy between two handles (the smaller of each). */
void xch_plan_limits_get(const struct xcopy_dev *src, const struct xcopy_dev *dst, uint32_t ncscd,
			 struct xch_plan_limits *out);
/*
 * Split pairs into segments (at max_seg_blocks) and pack them into commands
 * (count and descriptor-list-length limits). 0, -EINVAL (limits leave no
 * room for a segment), -ENOMEM. Free with xch_plan_free.
 */
int xch_plan_build(const struct xch_pair *pairs, size_t n, const struct xch_plan_limits *lim,
		   struct xch_plan *out);
void xch_plan_free(struct xch_plan *p);

/* ------------------------------------------------------------------------ */
/* Sense -> what to do                                                        */
/* ------------------------------------------------------------------------ */

enum xch_action {
	XCH_ACT_DONE = 0,       /* GOOD */
	XCH_ACT_RETRY,          /* transient (UNIT ATTENTION, BUSY...): resend */
	XCH_ACT_NEW_LIST_ID,    /* OPERATION IN PROGRESS: resend with another id */
	XCH_ACT_SHRINK,         /* too many descriptors: resend one segment per command */
	XCH_ACT_OTHER_SIDE,     /* copy target not reachable from here: try the other LU */
	XCH_ACT_FALLBACK,       /* this range only */
	XCH_ACT_DISABLE,        /* definitive "not supported": no offload on this device */
};

struct xch_verdict {
	enum xch_action act;
	enum xcopy_fallback_reason reason;
	uint32_t segs_done;     /* segments known complete (COPY ABORTED with CSI) */
};

/* Decide from the transport result of an EXTENDED COPY carrying nseg segments. */
void xch_decide(int exec_rc, const struct xch_cmd *c, uint32_t nseg, struct xch_verdict *v);

/* ------------------------------------------------------------------------ */
/* Copy engine shared by files and devices                                    */
/* ------------------------------------------------------------------------ */

/*
 * Copy pair[i] blocks [skip, skip + nblocks) some other way. 0 or -errno.
 * Called without the copy's lock: several in-flight workers of one copy
 * may call it at once.
 */
typedef int (*xch_fallback_fn)(void *arg, const struct xch_pair *p, uint64_t skip,
			       uint64_t nblocks, enum xcopy_fallback_reason why);

/*
 * The methods of a copy (method.c chooses one, in one place):
 *   MAP     a mapped volume on a side: cut at its pieces (copy_pairs.c)
 *   TOKENS  ROD tokens (token_copy.c)
 *   LID1    EXTENDED COPY LID1 (lid1_copy.c)
 *   HOST    nothing can be tried: every pair to the caller's fallback
 * xch_copy_method: the method for these handles and flags, and for HOST
 * the reason (*why, else XCOPY_FB_NONE).
 */
enum xch_method {
	XCH_METHOD_HOST = 0,
	XCH_METHOD_MAP,
	XCH_METHOD_TOKENS,
	XCH_METHOD_LID1,
};
enum xch_method xch_copy_method(const struct xcopy_dev *src, const struct xcopy_dev *dst,
				unsigned flags, enum xcopy_fallback_reason *why);
/*
 * The host method (rw_fallback.c): every pair (bs-byte blocks) to fb with
 * why, counted as fallback; with XCOPY_REQUIRE_OFFLOAD the error instead
 * (any pair not empty).
 */
int xch_fallback_all(const struct xch_pair *pairs, size_t n, uint32_t bs, unsigned flags,
		     struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg,
		     enum xcopy_fallback_reason why);

/*
 * The ROD token method (token_copy.c): the pairs through POPULATE TOKEN,
 * RECEIVE ROD TOKEN INFORMATION and WRITE USING TOKEN (SBC-4 5.8, 5.55;
 * SPC-4 6.19.4), same contract as xch_copy_pairs. xch_use_tokens: whether
 * the call's flags and the handles ask for tokens; xch_tok_blocker: why no
 * token may be tried between these handles (XCOPY_FB_NONE: none).
 */
int xch_token_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst,
			 const struct xch_pair *pairs, size_t n, unsigned flags,
			 struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg);
/*
 * The checks the choice rests on (method.c): whether tokens, or offload,
 * were turned off on a handle (sticky, atomically read: *why the reason).
 */
bool xch_use_tokens(const struct xcopy_dev *src, const struct xcopy_dev *dst, unsigned flags);
enum xcopy_fallback_reason xch_tok_blocker(const struct xcopy_dev *src, const struct xcopy_dev *dst,
					   unsigned flags);
bool xch_tok_off(const struct xcopy_dev *d, enum xcopy_fallback_reason *why);
bool xch_dev_off(const struct xcopy_dev *d, enum xcopy_fallback_reason *why);
/* A LIST IDENTIFIER for token commands: pid-based start, no reuse in-process. */
uint32_t xch_lid4_next(void);
/* Every XCOPY_* flag; the combinations xcopy_file_range() and xcopy_dev_copy() accept. */
#define XCH_FLAGS_ALL                                                                      \
	(XCOPY_REQUIRE_OFFLOAD | XCOPY_NO_OFFLOAD | XCOPY_USE_LID1 | XCOPY_USE_TOKENS |     \
	 XCOPY_STATS_METHODS)
int xch_flags_check(unsigned flags);

/*
 * Copy pairs from src to dst (whole-LU LBAs) by the method xch_copy_method
 * chooses (copy_pairs.c), calling fb for every range the copy manager did not
 * do. With XCOPY_REQUIRE_OFFLOAD returns -EOPNOTSUPP / -EXDEV instead of
 * calling fb. 0 or -errno (-ERANGE: a pair leaves a handle's window).
 * xch_lid1_copy_pairs: the LID1 method itself (lid1_copy.c).
 */
int xch_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
		   size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg);
int xch_lid1_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
			size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb,
			void *fbarg);
/*
 * The host's READ/WRITE fallback of device copies (rw_fallback.c): pairs
 * addressed by LBA (p->src_lba), or with by_off by byte address in each
 * handle's LBA space (p->src_off, device-mapper pieces). Each call has its
 * own buffer; the counters go into st under mu.
 */
struct xch_rw_fb {
	struct xcopy_dev *src, *dst;
	struct xcopy_stats *st;
	pthread_mutex_t mu;
	uint32_t chunk;        /* blocks per READ/WRITE pair */
	bool by_off;
};
void xch_rw_fb_init(struct xch_rw_fb *f, struct xcopy_dev *src, struct xcopy_dev *dst,
		    struct xcopy_stats *st, bool by_off);
void xch_rw_fb_fini(struct xch_rw_fb *f);
int xch_rw_fallback(void *arg, const struct xch_pair *p, uint64_t skip, uint64_t nblocks,
		    enum xcopy_fallback_reason why);
/*
 * The map method (copy_pairs.c), for pairs addressing mapped volumes (or one
 * volume and a plain handle): pairs cut at every piece boundary and sent to
 * the devices underneath through xch_copy_pairs, tables checked before and
 * after (a change: every pair goes to fb with XCOPY_FB_MAPPING_MOVED, what
 * was offloaded uncounted).
 */
int xch_dm_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
		      size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb,
		      void *fbarg);

/*
 * The reason an offload of src -> dst cannot even be tried, or XCOPY_FB_NONE:
 * for two LUs (maybe of different targets) only when neither LU's copy
 * manager can take an EXTENDED COPY naming both (method.c).
 * xch_cm_usable: whether d's copy manager may be sent a list of ncscd CSCDs
 * (offload not off, CSCD limit); *why the reason when not.
 */
enum xcopy_fallback_reason xch_offload_blocker(const struct xcopy_dev *src,
					       const struct xcopy_dev *dst);
bool xch_cm_usable(const struct xcopy_dev *d, uint32_t ncscd, enum xcopy_fallback_reason *why);

/* ------------------------------------------------------------------------ */
/* Commands in flight (inflight.c)                                            */
/* ------------------------------------------------------------------------ */

/* The caller's setting: xcopy_set_inflight(), else XCOPY_INFLIGHT, else 1. */
unsigned xch_inflight_wanted(void);
/* What one handle can carry at once (transport, the copy manager's limits). */
unsigned xch_inflight_cap(const struct xcopy_dev *d);
/* LIST ID USAGE 10b ids distinct among outstanding commands (caller locks). */
uint8_t xch_list_id_get(struct xcopy_dev *d);
void xch_list_id_put(struct xcopy_dev *d, uint8_t id);
/*
 * fn(args[0]) here, fn(args[1..n-1]) in threads (n capped at
 * XCH_INFLIGHT_MAX, at least 1); joined. Returns how many ran.
 */
unsigned xch_pool_run(void *(*fn)(void *), void **args, unsigned n);

#endif /* XCH_COPY_H */
