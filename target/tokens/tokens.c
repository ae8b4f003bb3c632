/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-LU ROD token table: bounded (XT_TOK_MAX tokens, XT_TOK_SNAP_BYTES_MAX
 * bytes of snapshots), tokens looked up by identifier and then compared in
 * full in constant time, the inactivity timeout (SBC-4 5.8.2) and the
 * maximum lifetime enforced by a process-wide expiry thread, change
 * vulnerable tokens cancelled by overlapping writes, and a ring of dead
 * tokens so that a later use says EXPIRED / CANCELLED / DELETED (SPC-4
 * Table 49, ASC 23h) rather than UNKNOWN. A token's snapshot is an
 * unlinked file: closing it frees the space, and a restart closes them all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "tokens/tokens.h"

struct tomb {
	uint8_t bytes[XCM_ROD_TOKEN_LEN];
	enum xcm_status why;              /* XCM_OK: empty slot */
};

struct xt_toktab {
	pthread_mutex_t lock;
	struct xt_lu *lu;
	struct xt_tok *head;
	atomic_uint n;                    /* live + reserved tokens (read unlocked by writes) */
	uint64_t snap_bytes;              /* live + reserved */
	struct tomb tomb[XT_TOK_TOMBS];
	unsigned int tomb_next;
	struct xt_toktab *next;           /* all tables (expiry thread) */
};

static pthread_mutex_t g_tabs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_tabs_cond = PTHREAD_COND_INITIALIZER;
static struct xt_toktab *g_tabs;
static pthread_t g_reaper;
static bool g_reaper_on, g_reaper_stop;
static atomic_uint_fast64_t g_next_id = 1;
static uint64_t g_epoch;
static pthread_once_t g_epoch_once = PTHREAD_ONCE_INIT;

static void
epoch_init(void)
{
	uint32_t e = 0;

	/* a random epoch: identifiers of an earlier process are unknown to this one */
	while (getrandom(&e, sizeof(e), 0) != (ssize_t)sizeof(e) || e == 0) {
		e = (uint32_t)getpid() ^ (uint32_t)xos_now_ms();
		if (e != 0) {
			break;
		}
	}
	g_epoch = (uint64_t)e << 32;
}

uint64_t
xt_tok_new_id(void)
{
	pthread_once(&g_epoch_once, epoch_init);
	return g_epoch | (atomic_fetch_add(&g_next_id, 1) & 0xFFFFFFFFu);
}

bool
xt_tok_ours(uint64_t id)
{
	pthread_once(&g_epoch_once, epoch_init);
	return (id & ~(uint64_t)0xFFFFFFFFu) == g_epoch;
}

/* Caller holds t->lock: unlink tok, remember why it died, free it (unless in use). */
static void
retire(struct xt_toktab *t, struct xt_tok *tok, enum xcm_status why)
{
	struct xt_tok **pp;
	struct tomb *tb = &t->tomb[t->tomb_next++ % XT_TOK_TOMBS];

	memcpy(tb->bytes, tok->bytes, sizeof(tb->bytes));
	tb->why = why;
	for (pp = &t->head; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == tok) {
			*pp = tok->next;
			break;
		}
	}
	atomic_fetch_sub(&t->n, 1);
	if (tok->snap_fd >= 0) {
		t->snap_bytes -= tok->total_bytes;
		close(tok->snap_fd);   /* unlinked: the space is freed now */
	}
	free(tok);
}

/* Caller holds t->lock: expire tokens unused past their timeout or past their lifetime. */
static void
expire_locked(struct xt_toktab *t, uint64_t now)
{
	struct xt_tok *tok, *next;
	uint64_t life = (uint64_t)xcm_tok_limits_default.max_lifetime_s * 1000;

	for (tok = t->head; tok != NULL; tok = next) {
		next = tok->next;
		if (tok->refs == 0 && now >= tok->last_use_ms &&
		    (now - tok->last_use_ms >= tok->timeout_ms || now - tok->created_ms >= life)) {
			retire(t, tok, XCM_E_TOKEN_EXPIRED);
		}
	}
}

static void *
reaper(void *arg)
{
	struct timespec ts;
	struct xt_toktab *t;

	(void)arg;
	pthread_mutex_lock(&g_tabs_lock);
	while (!g_reaper_stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&g_tabs_cond, &g_tabs_lock, &ts);
		for (t = g_tabs; t != NULL; t = t->next) {
			pthread_mutex_lock(&t->lock);
			expire_locked(t, xos_now_ms());
			pthread_mutex_unlock(&t->lock);
		}
	}
	pthread_mutex_unlock(&g_tabs_lock);
	return NULL;
}

struct xt_toktab *
xt_tok_create(struct xt_lu *lu)
{
	struct xt_toktab *t = calloc(1, sizeof(*t));
	pthread_condattr_t ca;

	if (t == NULL) {
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->lu = lu;
	pthread_mutex_lock(&g_tabs_lock);
	t->next = g_tabs;
	g_tabs = t;
	if (!g_reaper_on) {
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_destroy(&g_tabs_cond);
		pthread_cond_init(&g_tabs_cond, &ca);
		pthread_condattr_destroy(&ca);
		g_reaper_stop = false;
		g_reaper_on = pthread_create(&g_reaper, NULL, reaper, NULL) == 0;
	}
	pthread_mutex_unlock(&g_tabs_lock);
	return t;
}

void
xt_tok_destroy(struct xt_toktab *t)
{
	struct xt_toktab **pp;

	if (t == NULL) {
		return;
	}
	pthread_mutex_lock(&g_tabs_lock);
	for (pp = &g_tabs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	pthread_mutex_unlock(&g_tabs_lock);
	/* the LU's jobs have ended (xt_async_close): nothing holds a reference */
	pthread_mutex_lock(&t->lock);
	while (t->head != NULL) {
		retire(t, t->head, XCM_E_TOKEN_UNKNOWN);
	}
	pthread_mutex_unlock(&t->lock);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

void
xt_tok_shutdown(void)
{
	pthread_mutex_lock(&g_tabs_lock);
	if (!g_reaper_on) {
		pthread_mutex_unlock(&g_tabs_lock);
		return;
	}
	g_reaper_stop = true;
	pthread_cond_broadcast(&g_tabs_cond);
	pthread_mutex_unlock(&g_tabs_lock);
	pthread_join(g_reaper, NULL);
	g_reaper_on = false;
}

enum xcm_status
xt_tok_reserve(struct xt_toktab *t, uint64_t snap_bytes, struct xcm_err *err)
{
	enum xcm_status st = XCM_OK;

	pthread_mutex_lock(&t->lock);
	expire_locked(t, xos_now_ms());
	if (atomic_load(&t->n) >= XT_TOK_MAX) {
		st = XCM_E_NO_TOKEN_RESOURCES;
	} else if (snap_bytes > XT_TOK_SNAP_BYTES_MAX - t->snap_bytes) {
		st = XCM_E_NO_ROD_RESOURCES;
	} else {
		atomic_fetch_add(&t->n, 1);
		t->snap_bytes += snap_bytes;
	}
	pthread_mutex_unlock(&t->lock);
	xcm_err_set(err, st);
	return st;
}

void
xt_tok_unreserve(struct xt_toktab *t, uint64_t snap_bytes)
{
	pthread_mutex_lock(&t->lock);
	atomic_fetch_sub(&t->n, 1);
	t->snap_bytes -= snap_bytes;
	pthread_mutex_unlock(&t->lock);
}

void
xt_tok_insert(struct xt_toktab *t, struct xt_tok *tok)
{
	pthread_mutex_lock(&t->lock);
	tok->created_ms = tok->last_use_ms = xos_now_ms();
	tok->next = t->head;
	t->head = tok;
	pthread_mutex_unlock(&t->lock);
}

/* Caller holds t->lock: why a token that is not live died, or UNKNOWN. */
static enum xcm_status
dead_reason(const struct xt_toktab *t, const uint8_t *bytes)
{
	enum xcm_status why = XCM_E_TOKEN_UNKNOWN;
	unsigned int i;

	for (i = 0; i < XT_TOK_TOMBS; i++) {
		if (t->tomb[i].why != XCM_OK && xcm_rod_token_equal(t->tomb[i].bytes, bytes)) {
			why = t->tomb[i].why;
		}
	}
	return why;
}

enum xcm_status
xt_tok_get(struct xt_toktab *t, const uint8_t *bytes, struct xt_tok **out, struct xcm_err *err)
{
	uint64_t id = xcm_get_be64(bytes + 8), now = xos_now_ms();
	enum xcm_status st = XCM_OK;
	struct xt_tok *tok;

	*out = NULL;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	for (tok = t->head; tok != NULL && tok->id != id; tok = tok->next) {
	}
	if (tok == NULL) {
		st = dead_reason(t, bytes);
	} else if (!xcm_rod_token_equal(tok->bytes, bytes)) {
		st = XCM_E_TOKEN_CORRUPT;    /* a live identifier with altered bytes */
	} else if (tok->cancelled) {
		st = XCM_E_TOKEN_CANCELLED;
	} else if (tok->deleted) {
		st = XCM_E_TOKEN_DELETED;
	} else {
		tok->refs++;
		tok->last_use_ms = now;
		*out = tok;
	}
	pthread_mutex_unlock(&t->lock);
	xcm_err_set(err, st);
	return st;
}

void
xt_tok_put(struct xt_toktab *t, struct xt_tok *tok, bool del, bool *cancelled)
{
	pthread_mutex_lock(&t->lock);
	*cancelled = tok->cancelled;
	tok->refs--;
	tok->last_use_ms = xos_now_ms();   /* the inactivity timeout restarts after use */
	tok->deleted = tok->deleted || del;
	if (tok->refs == 0 && (tok->deleted || tok->cancelled)) {
		retire(t, tok, tok->cancelled ? XCM_E_TOKEN_CANCELLED : XCM_E_TOKEN_DELETED);
	}
	pthread_mutex_unlock(&t->lock);
}

static bool
tok_overlaps(const struct xt_tok *tok, uint64_t off, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < tok->nranges; i++) {
		uint64_t a = tok->range[i].lba * tok->block_len;
		uint64_t b = a + (uint64_t)tok->range[i].count * tok->block_len;

		if (off < b && a < off + len) {
			return true;
		}
	}
	return false;
}

void
xt_tok_note_write(struct xt_lu *lu, uint64_t off, uint64_t len)
{
	struct xt_toktab *t = lu->tok;
	struct xt_tok *tok, *next;

	if (t == NULL || atomic_load(&t->n) == 0 || len == 0) {
		return;
	}
	pthread_mutex_lock(&t->lock);
	for (tok = t->head; tok != NULL; tok = next) {
		next = tok->next;
		/* SBC-4 5.8: a change vulnerable token is invalid once its data changes */
		if (tok->snap_fd >= 0 || tok->cancelled || !tok_overlaps(tok, off, len)) {
			continue;
		}
		tok->cancelled = true;
		if (tok->refs == 0) {
			retire(t, tok, XCM_E_TOKEN_CANCELLED);
		}
	}
	pthread_mutex_unlock(&t->lock);
}

bool
xt_tok_of_list(struct xt_toktab *t, uint32_t list_id, uint8_t out[XCM_ROD_TOKEN_LEN])
{
	struct xt_tok *tok, *found = NULL;

	pthread_mutex_lock(&t->lock);
	for (tok = t->head; tok != NULL; tok = tok->next) {
		if (tok->list_id == list_id && !tok->cancelled && !tok->deleted &&
		    (found == NULL || tok->created_ms >= found->created_ms)) {
			found = tok;
		}
	}
	if (found != NULL) {
		memcpy(out, found->bytes, XCM_ROD_TOKEN_LEN);
	}
	pthread_mutex_unlock(&t->lock);
	return found != NULL;
}

size_t
xt_tok_report(struct xt_toktab *t, uint8_t (*out)[XCM_ROD_TOKEN_LEN], size_t cap)
{
	struct xt_tok *tok;
	size_t n = 0;

	pthread_mutex_lock(&t->lock);
	expire_locked(t, xos_now_ms());
	for (tok = t->head; tok != NULL && n < cap; tok = tok->next) {
		if (!tok->cancelled && !tok->deleted) {
			memcpy(out[n++], tok->bytes, XCM_ROD_TOKEN_LEN);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}
