/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection in the file backend, for reliability tests only.
 *
 * A fault is armed on one LU, from its cfgstring (`?fault=KIND:N`, armed at
 * open) or at run time from a control file STATSDIR/<LU>.fault holding
 * `KIND:N` (or `off`), read and removed when the next copy first touches the
 * LU (fault_store.c). Both only when the runner's environment has
 * XCOPY_FAULT_CONTROL=1 (the lab sets it): only then are LUs' stores
 * wrapped by the fault store, and a production runner makes no call and no
 * system call for fault injection. It applies to the copies' I/O on the
 * LU's store, not to the READ/WRITE commands that tcmu-runner's core
 * serves. N counts the calls of that kind (reads from, or writes to, this
 * LU's store; one call moves at most 1 MiB, as the read/write loops do)
 * from the moment the fault was armed; the Nth one fails, once:
 *
 *   read:N     the Nth pread fails with EIO (nothing read)
 *   write:N    the Nth pwrite fails with EIO (nothing written)
 *   enospc:N   the Nth pwrite fails with ENOSPC (nothing written)
 *   short:N    the Nth pwrite writes only the first half of its bytes
 *              (rounded down to 512) and the next pwrite fails with ENOSPC:
 *              what a filling disk does
 *   shortok:N  the Nth pwrite writes only the first half; the copy must go
 *              on and finish (tests the short-write loop)
 *   delay:MS   every pread and pwrite sleeps MS milliseconds first, until
 *              disarmed (`off`): keeps a copy in flight, e.g. to kill the
 *              daemon in the middle of one
 *
 * The calls are counted as the read/write loop makes them over each range
 * the engine hands the store (a chunk of a segment, at most the store's
 * chunk, or a merged run of segments), 1 MiB each from the range's start;
 * the copy itself runs production's algorithm (fault_store.c). State lives here, in a small
 * table keyed by the LU (the registry adds and removes entries), so an LU
 * without a fault pays one relaxed atomic load per I/O call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "fault/fault.h"

#define XT_FAULT_SLOTS 64

struct fault_slot {
	const struct xt_lu *lu;
	struct xt_fault_spec spec;
	uint32_t reads;          /* calls counted since armed */
	uint32_t writes;
	bool fired;
	bool enospc_next;        /* short: the write after the short one fails */
};

static pthread_mutex_t g_fault_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fault_slot g_slots[XT_FAULT_SLOTS];
static int g_armed;   /* slots with an armed, unfired fault (atomic) */

/* The copy that last polled each LU's control file (xt_fault_poll_once). */
#define XT_FAULT_POLLED 256
static struct {
	const struct xt_lu *lu;
	uint64_t copy_id;
} g_polled[XT_FAULT_POLLED];

static const char *const g_kind_names[] = {
	[XT_FAULT_NONE] = "off",
	[XT_FAULT_READ] = "read",
	[XT_FAULT_WRITE] = "write",
	[XT_FAULT_ENOSPC] = "enospc",
	[XT_FAULT_SHORT] = "short",
	[XT_FAULT_SHORTOK] = "shortok",
	[XT_FAULT_DELAY] = "delay",
};

const char *
xt_fault_kind_name(enum xt_fault_kind k)
{
	return (unsigned)k < sizeof(g_kind_names) / sizeof(g_kind_names[0]) ? g_kind_names[k] : "?";
}

int
xt_fault_parse(const char *val, struct xt_fault_spec *out, char *why, size_t whylen)
{
	const char *colon;
	char *end;
	unsigned long n;
	size_t klen;
	unsigned k;

	memset(out, 0, sizeof(*out));
	if (strcmp(val, "off") == 0) {
		return 0;
	}
	colon = strchr(val, ':');
	klen = colon != NULL ? (size_t)(colon - val) : 0;
	for (k = XT_FAULT_READ; colon != NULL && k <= XT_FAULT_DELAY; k++) {
		if (strlen(g_kind_names[k]) == klen && strncmp(val, g_kind_names[k], klen) == 0) {
			break;
		}
	}
	if (colon == NULL || k > XT_FAULT_DELAY) {
		snprintf(why, whylen, "fault=%s: expected KIND:N with KIND read, write, enospc, "
			 "short, shortok or delay, or off", val);
		return -EINVAL;
	}
	errno = 0;
	n = strtoul(colon + 1, &end, 10);
	if (colon[1] < '1' || colon[1] > '9' || *end != '\0' || errno != 0 || n > UINT32_MAX) {
		snprintf(why, whylen, "fault=%s: N must be a decimal count >= 1", val);
		return -EINVAL;
	}
	out->kind = (enum xt_fault_kind)k;
	out->nth = (uint32_t)n;
	return 0;
}

/* Caller holds g_fault_lock. */
static struct fault_slot *
slot_of(const struct xt_lu *lu)
{
	size_t i;

	for (i = 0; i < XT_FAULT_SLOTS; i++) {
		if (g_slots[i].lu == lu) {
			return &g_slots[i];
		}
	}
	return NULL;
}

static bool
slot_armed(const struct fault_slot *s)
{
	return s->spec.kind != XT_FAULT_NONE && (!s->fired || s->enospc_next);
}

/* Caller holds g_fault_lock: (re)arm s with spec, counters from zero. */
static void
slot_arm(struct fault_slot *s, const struct xt_fault_spec *spec)
{
	if (slot_armed(s)) {
		__atomic_sub_fetch(&g_armed, 1, __ATOMIC_RELAXED);
	}
	s->spec = *spec;
	s->reads = 0;
	s->writes = 0;
	s->fired = false;
	s->enospc_next = false;
	if (slot_armed(s)) {
		__atomic_add_fetch(&g_armed, 1, __ATOMIC_RELAXED);
	}
}

void
xt_fault_lu_add(const struct xt_lu *lu)
{
	struct fault_slot *s;

	if (lu->cfg.fault.kind == XT_FAULT_NONE) {
		return;
	}
	pthread_mutex_lock(&g_fault_lock);
	s = slot_of(lu);
	if (s == NULL) {
		s = slot_of(NULL);
	}
	if (s != NULL) {
		s->lu = lu;
		slot_arm(s, &lu->cfg.fault);
	}
	pthread_mutex_unlock(&g_fault_lock);
	if (s == NULL) {
		xt_lu_err(lu,
			  "xcopy: fault=%s:%u not armed: more than %d LUs with faults\n",
			  xt_fault_kind_name(lu->cfg.fault.kind), lu->cfg.fault.nth,
			  XT_FAULT_SLOTS);
	} else {
		xt_lu_warn(lu, "xcopy: fault injection armed on %s: %s:%u\n", lu->name,
			   xt_fault_kind_name(lu->cfg.fault.kind), lu->cfg.fault.nth);
	}
}

void
xt_fault_lu_remove(const struct xt_lu *lu)
{
	struct fault_slot *s;
	size_t i;

	pthread_mutex_lock(&g_fault_lock);
	s = slot_of(lu);
	if (s != NULL) {
		if (slot_armed(s)) {
			__atomic_sub_fetch(&g_armed, 1, __ATOMIC_RELAXED);
		}
		memset(s, 0, sizeof(*s));
	}
	for (i = 0; i < XT_FAULT_POLLED; i++) {
		if (g_polled[i].lu == lu) {
			g_polled[i].lu = NULL;
		}
	}
	pthread_mutex_unlock(&g_fault_lock);
}

void
xt_fault_poll_once(const struct xt_lu *lu, uint64_t copy_id)
{
	size_t i, free_at = XT_FAULT_POLLED;
	bool seen = false;

	if (!xt_env()->fault_injection) {
		return;
	}
	pthread_mutex_lock(&g_fault_lock);
	for (i = 0; i < XT_FAULT_POLLED; i++) {
		if (g_polled[i].lu == lu) {
			seen = g_polled[i].copy_id == copy_id;
			g_polled[i].copy_id = copy_id;
			break;
		}
		if (g_polled[i].lu == NULL && free_at == XT_FAULT_POLLED) {
			free_at = i;
		}
	}
	if (i == XT_FAULT_POLLED && free_at < XT_FAULT_POLLED) {
		g_polled[free_at].lu = lu;   /* full: poll at every call (no entry) */
		g_polled[free_at].copy_id = copy_id;
	}
	pthread_mutex_unlock(&g_fault_lock);
	if (!seen) {
		xt_fault_poll(lu);
	}
}

void
xt_fault_poll(const struct xt_lu *lu)
{
	struct xt_fault_spec spec;
	struct fault_slot *s;
	char path[PATH_MAX], text[64], why[160];
	const char *dir = xt_stats_dir();
	ssize_t n;
	int fd, len;

	if (!xt_env()->fault_injection) {
		return;
	}
	len = snprintf(path, sizeof(path), "%s/%s.fault", dir, lu->name);
	if (len <= 0 || len >= (int)sizeof(path)) {
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return;   /* the common case: no control file */
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	unlink(path);
	if (n < 0) {
		return;
	}
	text[n] = '\0';
	text[strcspn(text, " \t\r\n")] = '\0';
	if (xt_fault_parse(text, &spec, why, sizeof(why)) != 0) {
		xt_lu_err(lu, "xcopy: %s ignored: %s\n", path, why);
		return;
	}
	pthread_mutex_lock(&g_fault_lock);
	s = slot_of(lu);
	if (s == NULL && spec.kind != XT_FAULT_NONE) {
		s = slot_of(NULL);
	}
	if (s != NULL) {
		s->lu = lu;
		slot_arm(s, &spec);
	}
	pthread_mutex_unlock(&g_fault_lock);
	xt_lu_warn(lu, "xcopy: fault injection on %s from %s: %s:%u\n", lu->name, path,
		   xt_fault_kind_name(spec.kind), spec.nth);
}

bool
xt_fault_active(const struct xt_lu *lu)
{
	struct fault_slot *s;
	bool on;

	if (__atomic_load_n(&g_armed, __ATOMIC_RELAXED) == 0) {
		return false;
	}
	pthread_mutex_lock(&g_fault_lock);
	s = slot_of(lu);
	on = s != NULL && slot_armed(s);
	pthread_mutex_unlock(&g_fault_lock);
	return on;
}

bool
xt_fault_fires_in(const struct xt_lu *lu, bool write, uint32_t calls)
{
	struct fault_slot *s;
	bool fires = false;

	if (__atomic_load_n(&g_armed, __ATOMIC_RELAXED) == 0 || calls == 0) {
		return false;
	}
	pthread_mutex_lock(&g_fault_lock);
	s = slot_of(lu);
	if (s != NULL && slot_armed(s) && s->spec.kind != XT_FAULT_DELAY) {
		if (write) {
			fires = s->enospc_next ||
				(s->spec.kind != XT_FAULT_READ && s->writes + (uint64_t)calls >= s->spec.nth);
		} else {
			fires = s->spec.kind == XT_FAULT_READ && s->reads + (uint64_t)calls >= s->spec.nth;
		}
	}
	pthread_mutex_unlock(&g_fault_lock);
	return fires;
}

/* The Nth write of a write/enospc/short/shortok fault (under g_fault_lock). */
static int
hit_write(struct fault_slot *s, size_t *len)
{
	if (s->enospc_next) {
		/* short:N: the write after the short one finds the disk full */
		s->enospc_next = false;
		return -ENOSPC;
	}
	if (s->spec.kind == XT_FAULT_READ || ++s->writes != s->spec.nth) {
		return 0;
	}
	s->fired = true;
	switch (s->spec.kind) {
	case XT_FAULT_WRITE:
		return -EIO;
	case XT_FAULT_ENOSPC:
		return -ENOSPC;
	default:
		/* short, shortok: half the bytes, block-aligned, never 0 */
		*len = *len / 2 / 512 * 512;
		if (*len == 0) {
			*len = 1;
		}
		s->enospc_next = s->spec.kind == XT_FAULT_SHORT;
		return 0;
	}
}

/* The Nth read of a read fault (under g_fault_lock). */
static int
hit_read(struct fault_slot *s)
{
	if (s->spec.kind != XT_FAULT_READ || ++s->reads != s->spec.nth) {
		return 0;
	}
	s->fired = true;
	return -EIO;
}

int
xt_fault_gate(const struct xt_lu *lu, bool write, size_t *len, uint32_t *delay_ms)
{
	struct xt_fault_spec fired = { XT_FAULT_NONE, 0 };
	struct fault_slot *s;
	bool was_fired;
	int rc;

	*delay_ms = 0;
	if (__atomic_load_n(&g_armed, __ATOMIC_RELAXED) == 0) {
		return 0;
	}
	pthread_mutex_lock(&g_fault_lock);
	s = slot_of(lu);
	if (s == NULL || !slot_armed(s)) {
		pthread_mutex_unlock(&g_fault_lock);
		return 0;
	}
	if (s->spec.kind == XT_FAULT_DELAY) {
		*delay_ms = s->spec.nth > 60000 ? 60000 : s->spec.nth;
		pthread_mutex_unlock(&g_fault_lock);
		return 0;
	}
	was_fired = s->fired;
	rc = write ? hit_write(s, len) : hit_read(s);
	if (s->fired && !was_fired) {
		fired = s->spec;
	}
	/* the one place an armed slot is counted out: it fired and has nothing left */
	if (!slot_armed(s)) {
		__atomic_sub_fetch(&g_armed, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&g_fault_lock);
	if (fired.kind != XT_FAULT_NONE) {
		xt_lu_warn(lu, "xcopy: injected fault %s:%u on %s (%s of %zu bytes)\n",
			   xt_fault_kind_name(fired.kind), fired.nth, lu->name,
			   rc != 0 ? strerror(-rc) : "short write", *len);
	} else if (rc != 0) {
		xt_lu_warn(lu,
			   "xcopy: injected fault short on %s: %s after the short write\n",
			   lu->name, strerror(-rc));
	}
	return rc;
}
