/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A scripted fake target for libxcopy's unit tests, built on the engine
 * itself: it decodes every EXTENDED COPY the host sends with
 * xcm_xcopy_cdb_check + xcm_list_parse under the limits it reported
 * (xcm_rcr_encode_op_params / xcm_vpd_tpc_encode), executes the segments on
 * memory LUs, and answers with sense from xcm_sense_build. Scripts inject
 * failures into chosen commands. With `tok` it also answers POPULATE TOKEN,
 * RECEIVE ROD TOKEN INFORMATION and WRITE USING TOKEN through the engine's
 * token codec (fake_tokens.c).
 *
 * Commands may arrive from several threads: the fake serialises them, except
 * that an EXTENDED COPY waits (lock released) until `gather` of them are
 * outstanding, or with until_idle until every worker thread libxcopy runs
 * is inside the fake (no other command can come; __wrap_xch_pool_run
 * counts the workers), so tests see what the host keeps in flight without waiting out a timeout:
 * the most outstanding at once and list identifiers reused while
 * outstanding. gather_ms only ends a wait the host would otherwise hang.
 */
#ifndef FAKE_TARGET_H
#define FAKE_TARGET_H

#include <pthread.h>

#include "xcm/token.h"
#include "copy/xch_copy.h"

enum {
	FK_LUS = 2,
	FK_BS = 512,
	FK_BLOCKS = 4096,
	FK_SCRIPT = 8,
	FK_WUT_LOG = 64,
	FK_TOKENS = 4,
};

struct fk_lu {
	uint8_t naa[16];
	uint8_t *data;
};

struct fk {
	struct fk_lu lu[FK_LUS];
	struct xcm_limits lim;
	bool tpc;
	bool vpd8f;
	bool cross_ok[FK_LUS];     /* may a command received on LU i reach the other LU */
	bool cross_err_set[FK_LUS];  /* ... if not, the sense it answers (else 0D/02 + CSI) */
	struct xcm_err cross_err[FK_LUS];
	bool no_tpc[FK_LUS];       /* LU i: INQUIRY 3PC=0, EXTENDED COPY refused (05 20/00) */
	struct {
		int nth;               /* 0-based index of the XCOPY to fail */
		struct xcm_err err;
	} script[FK_SCRIPT];
	int nscript;
	bool always_fail;
	struct xcm_err always;
	int nxcopy, nrw, nother;
	int xcopy_on[FK_LUS];      /* XCOPYs received per LU */
	struct xcm_list *last;     /* the last list executed */
	uint32_t max_nseg_seen;
	/* in flight */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int gather;                /* hold each XCOPY until this many are outstanding */
	bool until_idle;           /* ... or until every running pool worker is held */
	unsigned gather_ms;        /* ... or this long (default 2000: a safety net) */
	int live;                  /* libxcopy pool workers running (__wrap_xch_pool_run) */
	int cur, max_cur;          /* XCOPYs outstanding now / at most */
	unsigned gen;              /* groups of `gather` completed */
	int lid_busy[256];         /* outstanding XCOPYs per LIST ID (usage 10b) */
	int dup_ids;               /* a 10b LIST ID sent while outstanding */
	uint64_t fail_src_lba1;    /* fail the XCOPY whose first segment reads here (+1) */
	int rw_wait_xcopies;       /* XCOPYs are held until a READ comes, which waits */
				   /* ... until this many more XCOPYs came */
	bool rw_started;           /* that READ came */
	int rw_saw_xcopies;        /* ... how many came while it waited (gather_ms at most) */
	struct xcm_err fail_err;
	void (*on_xcopy)(void *arg); /* called as each EXTENDED COPY arrives (lock held) */
	void *on_xcopy_arg;
	/* ROD tokens (fake_tokens.c), decoded and encoded by the engine */
	bool tok;                  /* VPD 8Fh with token limits; PT, RRTI, WUT answered */
	bool no_lid1;              /* VPD 8Fh without LID1 and 83h/00h refused (05 24/00) */
	struct xcm_tok_limits toklim;
	int npt, nrrti, nwut, ndel; /* commands received; tokens deleted by DEL_TKN */
	struct {
		uint8_t sa;            /* 10h PT, 07h RRTI, 11h WUT */
		int nth;               /* 0-based index among that service action's commands */
		struct xcm_err err;
	} tokfail[FK_SCRIPT];
	int ntokfail;
	uint64_t wut_cap;          /* a WUT transfers at most this many blocks (0: all) */
	uint32_t wut_lid[FK_WUT_LOG];  /* LIST IDENTIFIER of each WUT (for RRTI) */
	uint64_t wut_done[FK_WUT_LOG]; /* blocks it transferred */
	uint64_t wut_off[FK_WUT_LOG];  /* OFFSET INTO ROD of each WUT */
	uint64_t wut_blocks[FK_WUT_LOG];
	bool wut_del[FK_WUT_LOG];
	struct fk_token {
		bool live;
		uint32_t list_id;
		int lu;
		uint8_t rod[XCM_ROD_TOKEN_LEN];
		uint32_t n;
		struct xcm_range r[XCM_MAX_RANGES];
		uint64_t total;
	} token[FK_TOKENS];
	uint64_t next_tok_id;
};

/* Token commands of the fake (true: c was one and is answered). */
bool fk_tok_cmd(struct fk *f, int lu, struct xch_cmd *c);
/* VPD 8Fh with the token descriptors (f->tok), without LID1 (f->no_lid1). */
void fk_tok_vpd(struct fk *f, struct xch_cmd *c);

struct fk *fk_new(void);
void fk_free(struct fk *f);
extern const struct xch_transport_ops fk_ops;        /* concurrent */
extern const struct xch_transport_ops fk_ops_serial; /* one command at a time */
struct xcopy_dev *ut_open(struct fk *f, int lu, uint64_t start_512, uint64_t size_512);
struct xcopy_dev *ut_open_ops(struct fk *f, int lu, const struct xch_transport_ops *ops);
/* Expected content: block src_block of LU src_lu as fk_new() wrote it. */
bool ut_block_is(const struct fk *f, int lu, uint64_t lba, int src_lu, uint64_t src_block);
bool ut_range_is(const struct fk *f, int lu, uint64_t lba, int src_lu, uint64_t src_lba,
		 uint64_t n);

#endif
