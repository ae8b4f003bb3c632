/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Commands in flight: how many EXTENDED COPY commands one copy may have
 * outstanding at once (the caller's setting capped by what the copy manager
 * reports and what the transport can carry), the list identifiers those
 * commands use, and the threads that send them.
 *
 * Mechanism: one thread per command in flight, all on the same handles. A
 * transport says whether its exec may run in several threads at once (SG_IO:
 * yes, a pass-through object per call; iSCSI: yes, a session per command in
 * flight, since one libiscsi context is not thread-safe).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/xch_base.h"
#include "xch_copy.h"

static unsigned g_inflight;      /* 0: XCOPY_INFLIGHT from the environment, else 1 */

void
xcopy_set_inflight(unsigned n)
{
	__atomic_store_n(&g_inflight, n > XCH_INFLIGHT_MAX ? XCH_INFLIGHT_MAX : n,
			 __ATOMIC_RELAXED);
}

unsigned
xch_inflight_wanted(void)
{
	unsigned n = __atomic_load_n(&g_inflight, __ATOMIC_RELAXED);
	const char *e;
	char *end;
	unsigned long v;

	if (n != 0) {
		return n;
	}
	e = getenv("XCOPY_INFLIGHT");
	if (e == NULL || *e == '\0') {
		return 1;
	}
	errno = 0;
	v = strtoul(e, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0) {
		return 1;
	}
	return v > XCH_INFLIGHT_MAX ? XCH_INFLIGHT_MAX : (unsigned)v;
}

/*
 * Commands this handle may carry at once: 1 unless its transport takes
 * concurrent commands; never more than the copy manager's TOTAL CONCURRENT
 * COPIES, and with LIST ID USAGE 10b (no SNLID) never more than its
 * MAXIMUM IDENTIFIED CONCURRENT COPIES (SPC-4 6.18.4, 7.8.17.2 General Copy
 * Operations descriptor).
 */
unsigned
xch_inflight_cap(const struct xcopy_dev *d)
{
	unsigned n = XCH_INFLIGHT_MAX;

	if (!d->kind->concurrent(d)) {
		return 1;
	}
	if (d->max_copies != 0 && d->max_copies < n) {
		n = d->max_copies;
	}
	if (!d->caps.snlid && d->max_id_copies != 0 && d->max_id_copies < n) {
		n = d->max_id_copies;
	}
	return n;
}

/*
 * SPC-4 6.4.3.2 (LIST ID USAGE 10b): the LIST IDENTIFIER must differ from
 * that of every other copy this I_T nexus has running on the copy manager,
 * so an id stays taken while its command is outstanding. The handle may be
 * shared by several calls at once (file_dev.c's cache): the id counter and
 * the busy bitmap are updated atomically, no lock. Returns the id.
 */
uint8_t
xch_list_id_get(struct xcopy_dev *d)
{
	unsigned k;

	for (k = 0; k < 256; k++) {
		uint8_t id = __atomic_fetch_add(&d->next_list_id, 1, __ATOMIC_RELAXED);
		uint8_t bit = (uint8_t)(1u << (id % 8));

		if (!(__atomic_fetch_or(&d->lid_busy[id / 8], bit, __ATOMIC_ACQ_REL) & bit)) {
			return id;
		}
	}
	/* every id taken (commands lost in transport errors): reuse the next one */
	return __atomic_fetch_add(&d->next_list_id, 1, __ATOMIC_RELAXED);
}

void
xch_list_id_put(struct xcopy_dev *d, uint8_t id)
{
	(void)__atomic_fetch_and(&d->lid_busy[id / 8], (uint8_t)~(1u << (id % 8)),
				 __ATOMIC_ACQ_REL);
}

/* A pool thread: reports its progress into the call it works for. */
struct pool_arg {
	void *(*fn)(void *);
	void *arg;
	struct xch_progress *prog;
};

static void *
pool_thread(void *arg)
{
	struct pool_arg *pa = arg;

	xch_progress_adopt(pa->prog);
	return pa->fn(pa->arg);
}

/*
 * Run fn(args[i]) for i < n, fn(args[0]) in the calling thread and the others
 * in their own threads; returns when all have returned. A thread that cannot
 * be created is not needed: the ones running take its share (fn pulls work
 * from a shared queue). Returns how many ran.
 */
unsigned
xch_pool_run(void *(*fn)(void *), void **args, unsigned n)
{
	struct pool_arg pa[XCH_INFLIGHT_MAX];
	pthread_t tid[XCH_INFLIGHT_MAX];
	unsigned started = 0, i;

	if (n > XCH_INFLIGHT_MAX) {
		n = XCH_INFLIGHT_MAX;
	}
	if (n == 0) {
		n = 1;
	}
	for (i = 1; i < n; i++) {
		pa[i].fn = fn;
		pa[i].arg = args[i];
		pa[i].prog = xch_progress_current();
		if (pthread_create(&tid[started], NULL, pool_thread, &pa[i]) != 0) {
			XCH_DBG("in flight: %u threads (pthread_create failed)", started + 1);
			break;
		}
		started++;
	}
	(void)fn(args[0]);
	for (i = 0; i < started; i++) {
		(void)pthread_join(tid[i], NULL);
	}
	return started + 1;
}
