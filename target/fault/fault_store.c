/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fault store: a store that wraps another (SPDK's error vbdev, in
 * small). store/store.c puts it around every LU's store while fault
 * injection is on (XCOPY_FAULT_CONTROL=1); otherwise it is never called.
 * It keeps the inner store's ops and capabilities, and:
 *   - parse/check: takes fault=KIND:N out of the cfgstring (fault.c parses
 *     it), the inner store parses the rest;
 *   - open/close: arms lu->cfg.fault, forgets the LU;
 *   - copy (two LUs of the inner store): the production copy (the inner
 *     store's op, on the engine's chunks, merged runs and parallel pieces as
 *     without a fault) for the bytes before the fault. The outcome is
 *     decided first, by counting the 1 MiB reads and writes the read/write
 *     loop would make for the range in its order, so the Nth call means what
 *     it always meant; a delay is slept before, cut short by the copy's stop
 *     request or deadline. A chunk's bytes before the fault then move by the
 *     inner copy with the copy's own policy (clone, copy_file_range or read
 *     and write, as in production); a merged run likewise, and it is
 *     declined, nothing counted, only when the fault would fire
 *     inside it: the engine then copies its segments one by one, as after
 *     any failed run, and the fault fires at its segment;
 *   - io of a copy (store_copy.c's gateway between a file and an RBD LU):
 *     each call counted, failed, shortened (the rest written by the next
 *     call) or delayed. The LU's own READ/WRITE pass through untouched.
 * A control file is read when a copy first touches the LU.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault/fault.h"
#include "xos.h"

#define WRAP_MAX 4

static pthread_mutex_t g_wrap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xt_store_ops g_wrap[WRAP_MAX];
static unsigned int g_nwrap;

static bool
is_wrapped(const struct xt_lu *lu)
{
	return lu->ops >= g_wrap && lu->ops < g_wrap + WRAP_MAX;
}

/* ---- cfgstring ------------------------------------------------------------ */

/*
 * cfgstring without its fault= options into *out (malloc'd), the last one
 * parsed into spec. 0, or -errno with a reason in why.
 */
static int
strip_fault(const char *cfgstring, char **out, struct xt_fault_spec *spec, char *why,
	    size_t whylen)
{
	const char *q = strchr(cfgstring, '?'), *p, *end;
	char val[64];
	size_t n = 0;
	char *s;
	int rc;

	memset(spec, 0, sizeof(*spec));
	s = malloc(strlen(cfgstring) + 1);
	if (s == NULL) {
		return -ENOMEM;
	}
	if (q == NULL) {
		strcpy(s, cfgstring);
		*out = s;
		return 0;
	}
	memcpy(s, cfgstring, (size_t)(q - cfgstring) + 1);
	n = (size_t)(q - cfgstring) + 1;
	for (p = q + 1; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = strchr(p, '&');
		if (end == NULL) {
			end = p + strlen(p);
		}
		if ((size_t)(end - p) > 6 && strncmp(p, "fault=", 6) == 0) {
			snprintf(val, sizeof(val), "%.*s", (int)(end - p - 6), p + 6);
			rc = xt_fault_parse(val, spec, why, whylen);
			if (rc != 0) {
				free(s);
				return rc;
			}
			continue;
		}
		if (n > 0 && s[n - 1] != '?') {
			s[n++] = '&';
		}
		memcpy(s + n, p, (size_t)(end - p));
		n += (size_t)(end - p);
	}
	s[n] = '\0';
	*out = s;
	return 0;
}

static const struct xt_store_ops *
inner_of_cfg(const char *cfgstring)
{
	/* the wrapper only has cfgstrings: the one inner store that parses them */
	unsigned int i, n = __atomic_load_n(&g_nwrap, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++) {
		if (g_wrap[i].inner->parse != NULL) {
			return g_wrap[i].inner;
		}
	}
	(void)cfgstring;
	return NULL;
}

static int
fw_parse(const char *cfgstring, struct xt_cfg *cfg, char *why, size_t whylen)
{
	const struct xt_store_ops *in = inner_of_cfg(cfgstring);
	struct xt_fault_spec spec;
	char *s;
	int rc;

	if (cfgstring == NULL) {
		return in->parse(cfgstring, cfg, why, whylen);
	}
	rc = strip_fault(cfgstring, &s, &spec, why, whylen);
	if (rc != 0) {
		return rc;
	}
	rc = in->parse(s, cfg, why, whylen);
	free(s);
	if (rc == 0) {
		cfg->fault = spec;
	}
	return rc;
}

static int
fw_check(const char *cfgstring, char *why, size_t whylen)
{
	const struct xt_store_ops *in = inner_of_cfg(cfgstring);
	struct xt_fault_spec spec;
	char *s;
	int rc;

	if (cfgstring == NULL) {
		return in->check(cfgstring, why, whylen);
	}
	rc = strip_fault(cfgstring, &s, &spec, why, whylen);
	if (rc == 0) {
		rc = in->check(s, why, whylen);
		free(s);
	}
	return rc;
}

/* ---- open, close ---------------------------------------------------------- */

static int
fw_open(struct xt_lu *lu, uint64_t *size)
{
	int rc = lu->ops->inner->open(lu, size);

	if (rc == 0) {
		xt_fault_lu_add(lu);
	}
	return rc;
}

static void
fw_close(struct xt_lu *lu)
{
	xt_fault_lu_remove(lu);
	if (lu->ops->inner->close != NULL) {
		lu->ops->inner->close(lu);
	}
}

/* ---- the copies' I/O ------------------------------------------------------ */

/* One delayed call's sleep (usleep: the plugin tests' gate), unless c is stopping. */
static void
pause_ms(const struct xt_copy *c, uint32_t ms)
{
	if (ms == 0 || (c->stop != NULL && atomic_load(c->stop) != 0) ||
	    (c->deadline_ms != 0 && xos_now_ms() >= c->deadline_ms)) {
		return;
	}
	usleep((useconds_t)ms * 1000);
}

static int
fw_io(struct xt_lu *lu, const struct xt_io *io)
{
	const struct xt_store_ops *in = lu->ops->inner;
	struct xt_io part = *io;
	struct iovec v;
	size_t off = 0, want;
	uint32_t delay;
	int rc;

	if (io->copy == NULL) {
		return in->io(lu, io);   /* the LU's own READ/WRITE: never faulted */
	}
	xt_fault_poll_once(lu, io->copy->id);
	if (!xt_fault_active(lu)) {
		return in->io(lu, io);
	}
	if (!io->wr || io->cnt != 1) {
		want = io->len;
		rc = xt_fault_gate(lu, io->wr, &want, &delay);
		pause_ms(io->copy, delay);
		return rc != 0 ? rc : in->io(lu, io);
	}
	/* a shortened write: the next call writes the rest (and is counted) */
	while (off < io->len) {
		want = io->len - off;
		rc = xt_fault_gate(lu, true, &want, &delay);
		pause_ms(io->copy, delay);
		if (rc == 0 && want == 0) {
			rc = -EIO;
		}
		if (rc == 0) {
			v.iov_base = (uint8_t *)io->iov[0].iov_base + off;
			v.iov_len = want;
			part.iov = &v;
			part.len = want;
			part.off = io->off + off;
			rc = in->io(lu, &part);
		}
		if (rc != 0) {
			return rc;
		}
		off += want;
	}
	return 0;
}

/* What the read/write loop would meet in r: where it fails, or the delays it sleeps. */
struct plan {
	int rc;
	bool at_dst;
	uint64_t units;        /* bytes of whole 1 MiB units before the failure */
	uint64_t part;         /* bytes of the failing unit written first (short) */
	uint64_t delay_ms;
};

static void
plan_range(const struct xt_copy *c, const struct xt_range *r, struct plan *pl)
{
	uint64_t pos, n;
	size_t want, off;
	uint32_t d;

	memset(pl, 0, sizeof(*pl));
	for (pos = 0; pos < r->len; pos += n) {
		n = r->len - pos < XT_BOUNCE_LEN ? r->len - pos : XT_BOUNCE_LEN;
		want = (size_t)n;
		pl->rc = xt_fault_gate(r->src, false, &want, &d);
		pause_ms(c, d);   /* each call's delay before it, as the loop sleeps */
		pl->delay_ms += d;
		if (pl->rc != 0) {
			pl->units = pos;
			return;
		}
		for (off = 0; off < n; off += want) {
			want = (size_t)n - off;
			pl->rc = xt_fault_gate(r->dst, true, &want, &d);
			pause_ms(c, d);
			pl->delay_ms += d;
			if (pl->rc == 0 && want == 0) {
				pl->rc = -EIO;
			}
			if (pl->rc != 0) {
				pl->at_dst = true;
				pl->units = pos;
				pl->part = off;
				return;
			}
		}
	}
	pl->units = r->len;
}

/* The inner copy of [at, +len) of r, by the copy's own policy. */
static int
inner_part(const struct xt_store_ops *in, struct xt_copy *c, const struct xt_range *r,
	   uint64_t at, uint64_t len)
{
	struct xt_range p = *r;

	if (len == 0) {
		return 0;
	}
	p.soff += at;
	p.doff += at;
	p.len = len;
	return in->copy(c, &p);
}

/* 1 MiB calls the read/write loop makes over len bytes. */
static uint32_t
units_of(uint64_t len)
{
	uint64_t n = (len + XT_BOUNCE_LEN - 1) / XT_BOUNCE_LEN;

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static int
fw_copy(struct xt_copy *c, const struct xt_range *r)
{
	const struct xt_store_ops *w = r->dst->ops->inner != NULL ? r->dst->ops : r->src->ops;
	const struct xt_store_ops *in = w->inner;
	bool back = r->src == r->dst && r->doff > r->soff && r->doff < r->soff + r->len;
	struct plan pl;
	int rc;

	if (is_wrapped(r->src)) {
		xt_fault_poll_once(r->src, c->id);
	}
	if (is_wrapped(r->dst) && r->dst != r->src) {
		xt_fault_poll_once(r->dst, c->id);
	}
	if (!xt_fault_active(r->src) && !xt_fault_active(r->dst)) {
		return in->copy(c, r);   /* nothing armed: the production copy, as it is */
	}
	if (c->merged) {
		if (xt_fault_fires_in(r->src, false, units_of(r->len)) ||
		    xt_fault_fires_in(r->dst, true, units_of(r->len))) {
			return -EOPNOTSUPP;   /* nothing counted: the engine copies the segments */
		}
		/* as in production; counted only if it copied (else the segments are) */
		rc = in->copy(c, r);
		if (rc == 0) {
			plan_range(c, r, &pl);   /* nothing fires in it: the delays, the counts */
		}
		return rc;
	}
	plan_range(c, r, &pl);
	/* the bytes before the fault by the production copy (clone, copy_file_range
	 * or read/write, as the policy says); backward (memmove up): the loop went
	 * from the end; a short part is not counted */
	rc = back ? inner_part(in, c, r, r->len - pl.units, pl.units)
		  : inner_part(in, c, r, 0, pl.units);
	if (rc == 0 && !back && pl.rc != 0) {
		rc = inner_part(in, c, r, pl.units, pl.part);
	}
	if (rc != 0) {
		return rc;   /* a real failure below the fault: the inner store's outcome */
	}
	c->done = pl.units + (back ? 0 : pl.part);
	c->at_dst = pl.rc != 0 && pl.at_dst;
	return pl.rc;
}

const struct xt_store_ops *
xt_store_faulty(const struct xt_store_ops *inner)
{
	struct xt_store_ops *w = NULL;
	unsigned int i;

	pthread_mutex_lock(&g_wrap_lock);
	for (i = 0; i < g_nwrap; i++) {
		if (g_wrap[i].inner == inner) {
			w = &g_wrap[i];
		}
	}
	if (w == NULL && g_nwrap < WRAP_MAX) {
		w = &g_wrap[g_nwrap];
		*w = *inner;
		w->inner = inner;
		w->parse = inner->parse != NULL ? fw_parse : NULL;
		w->check = inner->parse != NULL ? fw_check : inner->check;
		w->open = fw_open;
		w->close = fw_close;
		w->io = inner->io != NULL ? fw_io : NULL;
		w->copy = inner->copy != NULL ? fw_copy : NULL;
		__atomic_store_n(&g_nwrap, g_nwrap + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&g_wrap_lock);
	return w != NULL ? w : inner;
}
