/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/tokens/tokens.c: the per-LU ROD token table. A token is found by
 * its 512 bytes only while live; a dead one says why (EXPIRED, CANCELLED,
 * DELETED from the tombstones, UNKNOWN otherwise); reservation stops at
 * XT_TOK_MAX tokens / XT_TOK_SNAP_BYTES_MAX bytes; writes over a change
 * vulnerable token's ranges cancel it. Time is the frozen clock of
 * fake_clock.c (expiry runs inside each call that looks at the table), so
 * nothing sleeps.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fake_clock.h"
#include "target_stubs.h"
#include "tokens/tokens.h"
#include "ut.h"

#define T0 1000000u           /* frozen clock at the start of each test */
#define BL 512u
#define TMO 60000u            /* inactivity timeout of the tokens made here */
#define LIFE_MS ((uint64_t)xcm_tok_limits_default.max_lifetime_s * 1000u)

static struct xt_lu g_lu;
static struct xt_toktab *g_t;

static void
setup(void)
{
	ut_clock_freeze(T0);
	memset(&g_lu, 0, sizeof(g_lu));
	g_lu.host = &ut_lu_host;
	g_t = xt_tok_create(&g_lu);
	UT_ASSERT_FATAL(g_t != NULL);
	g_lu.tok = g_t;
}

static void
teardown(void)
{
	xt_tok_destroy(g_t);
	g_t = NULL;
	g_lu.tok = NULL;
}

static int
suite_fini(void)
{
	xt_tok_shutdown();
	ut_clock_real();
	return 0;
}

/* The bytes of token id (the table reads the identifier at byte 8). */
static void
tok_bytes(uint64_t id, uint8_t b[XCM_ROD_TOKEN_LEN])
{
	size_t i;

	for (i = 0; i < XCM_ROD_TOKEN_LEN; i++) {
		b[i] = (uint8_t)(i * 7 + id * 13);
	}
	xcm_put_be64(b + 8, id);
}

/*
 * Reserve and insert a token of one range [lba, lba + count) of BL blocks;
 * snap: a snapshot token (an fd the table closes), else change vulnerable.
 */
static struct xt_tok *
add(uint64_t id, uint32_t list_id, uint64_t lba, uint32_t count, bool snap)
{
	struct xt_tok *tok = calloc(1, sizeof(*tok));
	struct xcm_err err;

	UT_ASSERT_FATAL(tok != NULL);
	tok->id = id;
	tok_bytes(id, tok->bytes);
	tok->list_id = list_id;
	tok->snap_fd = snap ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
	tok->nranges = 1;
	tok->range[0].lba = lba;
	tok->range[0].count = count;
	tok->block_len = BL;
	tok->total_bytes = (uint64_t)count * BL;
	tok->timeout_ms = TMO;
	UT_ASSERT_FATAL(xt_tok_reserve(g_t, snap ? tok->total_bytes : 0, &err) == XCM_OK);
	xt_tok_insert(g_t, tok);
	return tok;
}

/* xt_tok_get of token id's bytes: the status, and err says the same. */
static enum xcm_status
get(uint64_t id, struct xt_tok **out)
{
	uint8_t b[XCM_ROD_TOKEN_LEN];
	struct xcm_err err;
	enum xcm_status st;

	tok_bytes(id, b);
	memset(&err, 0, sizeof(err));
	st = xt_tok_get(g_t, b, out, &err);
	CU_ASSERT_EQUAL(err.status, st);
	if (st != XCM_OK) {
		CU_ASSERT_PTR_NULL(*out);
	}
	return st;
}

/* get then put at once: the status of the get. */
static enum xcm_status
use(uint64_t id)
{
	struct xt_tok *tok;
	bool canc = true;
	enum xcm_status st = get(id, &tok);

	if (st == XCM_OK) {
		xt_tok_put(g_t, tok, false, &canc);
		CU_ASSERT_FALSE(canc);
	}
	return st;
}

static size_t
report(size_t cap)
{
	uint8_t out[8][XCM_ROD_TOKEN_LEN];

	return xt_tok_report(g_t, out, cap);
}

static void
tok_found_by_bytes(void)
{
	uint8_t b[XCM_ROD_TOKEN_LEN];
	struct xt_tok *tok, *got;
	struct xcm_err err;
	bool canc = true;

	setup();
	tok = add(5, 1, 0, 8, false);
	CU_ASSERT_EQUAL(get(5, &got), XCM_OK);
	CU_ASSERT_PTR_EQUAL(got, tok);
	CU_ASSERT_EQUAL(tok->refs, 1);
	xt_tok_put(g_t, got, false, &canc);
	CU_ASSERT_FALSE(canc);
	CU_ASSERT_EQUAL(tok->refs, 0);
	/* the live identifier with one byte of the random part altered: CORRUPT */
	tok_bytes(5, b);
	b[400] ^= 1;
	CU_ASSERT_EQUAL(xt_tok_get(g_t, b, &got, &err), XCM_E_TOKEN_CORRUPT);
	CU_ASSERT_PTR_NULL(got);
	CU_ASSERT_EQUAL(err.status, XCM_E_TOKEN_CORRUPT);
	/* an identifier never made: UNKNOWN */
	CU_ASSERT_EQUAL(get(6, &got), XCM_E_TOKEN_UNKNOWN);
	/* the table is unchanged: still found */
	CU_ASSERT_EQUAL(use(5), XCM_OK);
	teardown();
}

static void
tok_new_ids_distinct(void)
{
	uint64_t a = xt_tok_new_id(), b = xt_tok_new_id();

	CU_ASSERT_NOT_EQUAL(a, b);
	CU_ASSERT_EQUAL(a >> 32, b >> 32);       /* one epoch per process */
	CU_ASSERT_NOT_EQUAL(a >> 32, 0);
	CU_ASSERT_EQUAL((uint32_t)b, (uint32_t)a + 1);
}

static void
tok_inactivity_expires(void)
{
	struct xt_tok *got;

	setup();
	add(1, 1, 0, 8, false);
	ut_clock_advance(TMO - 1);
	CU_ASSERT_EQUAL(use(1), XCM_OK);         /* the use restarts the timeout */
	ut_clock_advance(TMO - 1);
	CU_ASSERT_EQUAL(report(8), 1);
	ut_clock_advance(1);                     /* TMO since the last use */
	CU_ASSERT_EQUAL(get(1, &got), XCM_E_TOKEN_EXPIRED);
	CU_ASSERT_EQUAL(report(8), 0);
	/* the tombstone keeps saying so */
	ut_clock_advance(10 * TMO);
	CU_ASSERT_EQUAL(get(1, &got), XCM_E_TOKEN_EXPIRED);
	teardown();
}

static void
tok_in_use_not_expired(void)
{
	struct xt_tok *tok, *got;
	bool canc;

	setup();
	tok = add(1, 1, 0, 8, false);
	CU_ASSERT_EQUAL(get(1, &got), XCM_OK);
	ut_clock_advance(3 * TMO);               /* a long WRITE USING TOKEN */
	CU_ASSERT_EQUAL(report(8), 1);
	xt_tok_put(g_t, tok, false, &canc);      /* the timeout restarts at the put */
	ut_clock_advance(TMO - 1);
	CU_ASSERT_EQUAL(use(1), XCM_OK);
	ut_clock_advance(TMO);
	CU_ASSERT_EQUAL(use(1), XCM_E_TOKEN_EXPIRED);
	teardown();
}

static void
tok_lifetime_expires(void)
{
	uint64_t t;

	setup();
	add(1, 1, 0, 8, false);
	/* used every half timeout: only the maximum lifetime ends it */
	for (t = TMO / 2; t < LIFE_MS; t += TMO / 2) {
		ut_clock_advance(TMO / 2);
		if (use(1) != XCM_OK) {
			break;
		}
	}
	CU_ASSERT_EQUAL(t, LIFE_MS);
	ut_clock_advance(TMO / 2 - 1);           /* 1 ms short of the lifetime */
	CU_ASSERT_EQUAL(use(1), XCM_OK);
	ut_clock_advance(1);
	CU_ASSERT_EQUAL(use(1), XCM_E_TOKEN_EXPIRED);
	teardown();
}

static void
tok_put_del_removes(void)
{
	struct xt_tok *a, *b;
	bool canc = true;

	setup();
	add(1, 1, 0, 8, false);
	add(2, 2, 8, 8, false);
	CU_ASSERT_EQUAL(get(1, &a), XCM_OK);
	xt_tok_put(g_t, a, true, &canc);
	CU_ASSERT_FALSE(canc);
	CU_ASSERT_EQUAL(get(1, &a), XCM_E_TOKEN_DELETED);
	CU_ASSERT_EQUAL(report(8), 1);
	/* deleted by one user while another uses it: DELETED at once, gone at the last put */
	CU_ASSERT_EQUAL(get(2, &a), XCM_OK);
	CU_ASSERT_EQUAL(get(2, &b), XCM_OK);
	xt_tok_put(g_t, a, true, &canc);
	CU_ASSERT_EQUAL(get(2, &a), XCM_E_TOKEN_DELETED);
	CU_ASSERT_EQUAL(report(8), 0);
	xt_tok_put(g_t, b, false, &canc);
	CU_ASSERT_FALSE(canc);
	CU_ASSERT_EQUAL(get(2, &a), XCM_E_TOKEN_DELETED);
	teardown();
}

static void
tok_write_cancels_overlap_only(void)
{
	struct xt_tok *got;

	setup();
	add(1, 1, 100, 10, false);               /* bytes [51200, 56320) */
	add(2, 2, 100, 10, true);                /* the same ranges, a snapshot */
	xt_tok_note_write(&g_lu, 50688, 512);    /* ends where the range begins */
	xt_tok_note_write(&g_lu, 56320, 4096);   /* begins where it ends */
	xt_tok_note_write(&g_lu, 51200, 0);      /* nothing written */
	CU_ASSERT_EQUAL(use(1), XCM_OK);
	xt_tok_note_write(&g_lu, 56319, 1);      /* the last byte */
	CU_ASSERT_EQUAL(get(1, &got), XCM_E_TOKEN_CANCELLED);
	CU_ASSERT_EQUAL(use(2), XCM_OK);         /* the snapshot still holds the old data */
	CU_ASSERT_EQUAL(report(8), 1);
	teardown();
}

static void
tok_write_while_in_use(void)
{
	struct xt_tok *tok, *got;
	bool canc = false;

	setup();
	add(1, 1, 0, 16, false);
	CU_ASSERT_EQUAL(get(1, &tok), XCM_OK);
	xt_tok_note_write(&g_lu, 4096, 4096);
	CU_ASSERT_EQUAL(get(1, &got), XCM_E_TOKEN_CANCELLED);
	xt_tok_put(g_t, tok, false, &canc);
	CU_ASSERT_TRUE(canc);                    /* the WUT learns its data changed */
	CU_ASSERT_EQUAL(get(1, &got), XCM_E_TOKEN_CANCELLED);
	CU_ASSERT_EQUAL(report(8), 0);
	teardown();
}

static void
tok_reserve_token_limit(void)
{
	struct xcm_err err;
	unsigned int i;

	setup();
	for (i = 0; i < XT_TOK_MAX - 1; i++) {
		add(100 + i, i, i, 1, false);
	}
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_OK);   /* the last place */
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_E_NO_TOKEN_RESOURCES);
	CU_ASSERT_EQUAL(err.status, XCM_E_NO_TOKEN_RESOURCES);
	xt_tok_unreserve(g_t, 0);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_OK);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_E_NO_TOKEN_RESOURCES);
	/* a cancelled token gives its place back */
	xt_tok_note_write(&g_lu, 0, BL);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_OK);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_E_NO_TOKEN_RESOURCES);
	/* expired ones too: the reservation expires them first */
	ut_clock_advance(TMO);
	CU_ASSERT_EQUAL(report(8), 0);
	for (i = 0; i < XT_TOK_MAX - 2; i++) {
		CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_OK);
	}
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_E_NO_TOKEN_RESOURCES);
	teardown();
}

static void
tok_reserve_snapshot_bytes(void)
{
	struct xt_tok *tok;
	struct xcm_err err;
	bool canc;

	setup();
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, XT_TOK_SNAP_BYTES_MAX + 1, &err), XCM_E_NO_ROD_RESOURCES);
	CU_ASSERT_EQUAL(err.status, XCM_E_NO_ROD_RESOURCES);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, XT_TOK_SNAP_BYTES_MAX - 4096, &err), XCM_OK);
	add(1, 1, 0, 8, true);                   /* 4096 bytes: the table is full */
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 1, &err), XCM_E_NO_ROD_RESOURCES);
	CU_ASSERT_EQUAL(err.status, XCM_E_NO_ROD_RESOURCES);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 0, &err), XCM_OK);     /* a token without snapshot */
	xt_tok_unreserve(g_t, 0);
	/* deleting the snapshot token gives its 4096 bytes back, not one more */
	CU_ASSERT_EQUAL(get(1, &tok), XCM_OK);
	xt_tok_put(g_t, tok, true, &canc);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 4096, &err), XCM_OK);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, 1, &err), XCM_E_NO_ROD_RESOURCES);
	xt_tok_unreserve(g_t, XT_TOK_SNAP_BYTES_MAX);
	CU_ASSERT_EQUAL(xt_tok_reserve(g_t, XT_TOK_SNAP_BYTES_MAX, &err), XCM_OK);
	teardown();
}

static void
tok_of_list(void)
{
	uint8_t b[XCM_ROD_TOKEN_LEN], want[XCM_ROD_TOKEN_LEN];

	setup();
	add(1, 7, 0, 8, false);
	add(2, 9, 8, 8, false);
	CU_ASSERT_TRUE(xt_tok_of_list(g_t, 9, b));
	tok_bytes(2, want);
	CU_ASSERT_EQUAL(memcmp(b, want, sizeof(b)), 0);
	CU_ASSERT_TRUE(xt_tok_of_list(g_t, 7, b));
	tok_bytes(1, want);
	CU_ASSERT_EQUAL(memcmp(b, want, sizeof(b)), 0);
	CU_ASSERT_FALSE(xt_tok_of_list(g_t, 8, b));
	/* the same list id again (a later POPULATE TOKEN): the newer token */
	ut_clock_advance(10);
	add(3, 7, 16, 8, false);
	CU_ASSERT_TRUE(xt_tok_of_list(g_t, 7, b));
	tok_bytes(3, want);
	CU_ASSERT_EQUAL(memcmp(b, want, sizeof(b)), 0);
	/* cancelled: the older one of the list again, then none */
	xt_tok_note_write(&g_lu, 16 * BL, BL);
	CU_ASSERT_TRUE(xt_tok_of_list(g_t, 7, b));
	tok_bytes(1, want);
	CU_ASSERT_EQUAL(memcmp(b, want, sizeof(b)), 0);
	xt_tok_note_write(&g_lu, 0, BL);
	CU_ASSERT_FALSE(xt_tok_of_list(g_t, 7, b));
	teardown();
}

static void
tok_report_live_up_to_cap(void)
{
	uint8_t out[8][XCM_ROD_TOKEN_LEN], want[XCM_ROD_TOKEN_LEN];
	unsigned int seen = 0;
	uint64_t id;
	size_t i, n;

	setup();
	CU_ASSERT_EQUAL(report(8), 0);
	add(1, 1, 0, 8, false);
	add(2, 2, 8, 8, false);
	add(3, 3, 16, 8, false);
	CU_ASSERT_EQUAL(report(2), 2);
	CU_ASSERT_EQUAL(report(0), 0);
	n = xt_tok_report(g_t, out, 8);
	CU_ASSERT_EQUAL(n, 3);
	for (i = 0; i < n; i++) {
		id = xcm_get_be64(out[i] + 8);
		tok_bytes(id, want);
		CU_ASSERT_EQUAL(memcmp(out[i], want, sizeof(want)), 0);
		if (id >= 1 && id <= 3) {
			seen |= 1u << id;
		}
	}
	CU_ASSERT_EQUAL(seen, 0xEu);
	xt_tok_note_write(&g_lu, 8 * BL, BL);    /* cancels token 2 */
	n = xt_tok_report(g_t, out, 8);
	CU_ASSERT_EQUAL(n, 2);
	for (i = 0; i < n; i++) {
		CU_ASSERT_NOT_EQUAL(xcm_get_be64(out[i] + 8), 2);
	}
	ut_clock_advance(TMO);
	CU_ASSERT_EQUAL(report(8), 0);
	teardown();
}

static CU_TestInfo tests[] = {
	{ "found_by_bytes", tok_found_by_bytes },
	{ "new_ids_distinct", tok_new_ids_distinct },
	{ "inactivity_expires", tok_inactivity_expires },
	{ "in_use_not_expired", tok_in_use_not_expired },
	{ "lifetime_expires", tok_lifetime_expires },
	{ "put_del_removes", tok_put_del_removes },
	{ "write_cancels_overlap_only", tok_write_cancels_overlap_only },
	{ "write_while_in_use", tok_write_while_in_use },
	{ "reserve_token_limit", tok_reserve_token_limit },
	{ "reserve_snapshot_bytes", tok_reserve_snapshot_bytes },
	{ "of_list", tok_of_list },
	{ "report_live_up_to_cap", tok_report_live_up_to_cap },
	CU_TEST_INFO_NULL,
};

UT_SUITE_FULL(target_tokens, tests, NULL, suite_fini)
