/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-LU counters as a small text file the lab (and an admin) can read:
 * STATSDIR/<name>.stats, STATSDIR = $XCOPY_STATS_DIR or /run/xcopy.
 * One "key value" pair per line (format in docs/target-setup.md).
 *
 * The command path only adds to the LU's counters (atomics, no lock, no
 * system call: XT_STAT_ADD). One writer thread owns the files: it serves a
 * refresh request (STATSDIR/refresh, made by xcopy-stat: renamed to
 * refresh.busy, every changed LU written, then removed) when inotify says a
 * file was made in STATSDIR (watched again at each open and each period:
 * the folder may be made anew), or at the latest within XT_STATS_TICK_MS,
 * and every XT_STATS_PERIOD_MS it writes the LUs whose counters changed.
 * Idle, it wakes twice a second (three system calls each). Open
 * and close write the LU's file themselves (it is kept after close). Each
 * write is atomic (temporary file + rename).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/env.h"
#include "base/lu.h"

const char *
xt_stats_dir(void)
{
	return xt_env()->stats_dir;
}

/* The writer's LUs and the files: under g_mu (open, close, the writer's tick). */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct xt_lu *g_head;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_t g_writer;
static bool g_writer_on, g_writer_stop;
static int g_ino = -1;           /* inotify: files made in STATSDIR */

static bool
stats_path(const struct xt_lu *lu, char *out, const char *suffix)
{
	int n = snprintf(out, PATH_MAX, "%s/%s.stats%s", xt_stats_dir(), lu->name, suffix);

	return n > 0 && n < PATH_MAX;
}

static bool
dir_path(char *out, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", xt_stats_dir(), name);

	return n > 0 && n < PATH_MAX;
}

#define XT_STATS_U64(X)                                                                 \
	X(commands) X(commands_ok) X(errors) X(segments) X(bytes) X(clone_bytes)       \
	X(cfr_bytes) X(rw_bytes) X(copyfrom_bytes) X(gateway_bytes) X(hole_objects)    \
	X(touch_bytes) X(fallbacks) X(store_copies) X(delegated_bytes) X(io_errors)    \
	X(denied) X(rcr) X(deadline_cuts) X(busy) X(inflight_max) X(held_discarded)    \
	X(held_expired) X(ws_commands) X(ws_written) X(ws_unmapped) X(ws_cuts)         \
	X(ws_busy) X(wt_syncs) X(io_direct_bytes) X(io_buffered_bytes) \
	X(rw_direct_bytes)

/* The LU's counters now, each read atomically. */
static void
stats_load(const struct xt_lu *lu, struct xt_stats *s)
{
	memset(s, 0, sizeof(*s));
#define XT_LOAD(f) s->f = __atomic_load_n(&lu->stats.f, __ATOMIC_RELAXED);
	XT_STATS_U64(XT_LOAD)
#undef XT_LOAD
	s->last_fallback = __atomic_load_n(&lu->stats.last_fallback, __ATOMIC_RELAXED);
}

void
xt_stat_max(uint64_t *field, uint64_t v)
{
	uint64_t cur = __atomic_load_n(field, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(field, &cur, v, true, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED)) {
	}
}

/*
 * The LU's settings that bound its throughput (lio/settings.c, at open):
 * each one configfs gave, and "caps": those that cap it, or "-".
 */
static void
stats_put_settings(FILE *f, const struct xt_lu_settings *st)
{
	if (st->hw_max_sectors != 0) {
		fprintf(f, "hw_max_sectors %u\n", st->hw_max_sectors);
	}
	if (st->hw_block_size != 0) {
		fprintf(f, "hw_block_size %u\n", st->hw_block_size);
	}
	if (st->max_data_area_mb != 0) {
		fprintf(f, "max_data_area_mb %u\n", st->max_data_area_mb);
	}
	if (st->hw_queue_depth != 0) {
		fprintf(f, "hw_queue_depth %u\n", st->hw_queue_depth);
	}
	fprintf(f, "caps %s%s%s\n", (st->caps & XT_CAP_MAX_SECTORS) != 0 ? "hw_max_sectors" : "",
		st->caps == (XT_CAP_MAX_SECTORS | XT_CAP_DATA_AREA) ? "," : "",
		(st->caps & XT_CAP_DATA_AREA) != 0 ? "max_data_area_mb" : st->caps == 0 ? "-" : "");
}

/* Write lu's file from s (caller holds g_mu). */
static bool
stats_put(const struct xt_lu *lu, const struct xt_stats *s)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;

	if (!stats_path(lu, path, "") || !stats_path(lu, tmp, ".tmp")) {
		return false;
	}
	if (mkdir(xt_stats_dir(), 0755) != 0 && errno != EEXIST) {
		return false;
	}
	f = fopen(tmp, "we");
	if (f == NULL) {
		return false;
	}
	fprintf(f,
		"name %s\npath %s\ncommands %llu\ncommands_ok %llu\nerrors %llu\nsegments %llu\n"
		"bytes %llu\nclone_bytes %llu\ncfr_bytes %llu\nrw_bytes %llu\nio_errors %llu\n"
		"denied %llu\nrcr %llu\ndeadline_cuts %llu\ncmd_time_out %u\nbusy %llu\n"
		"inflight_max %llu\nheld_discarded %llu\nheld_expired %llu\n"
		"copyfrom_bytes %llu\ngateway_bytes %llu\nhole_objects %llu\ntouch_bytes %llu\n"
		"fallbacks %llu\nlast_fallback %s\nstore_copies %llu\nws_commands %llu\n"
		"ws_written %llu\nws_unmapped %llu\nws_cuts %llu\nws_busy %llu\nwt_syncs %llu\n"
		"io_direct_bytes %llu\nio_buffered_bytes %llu\ndelegated_bytes %llu\n"
		"rw_direct_bytes %llu\n",
		lu->name, lu->cfg.path, (unsigned long long)s->commands,
		(unsigned long long)s->commands_ok, (unsigned long long)s->errors,
		(unsigned long long)s->segments, (unsigned long long)s->bytes,
		(unsigned long long)s->clone_bytes, (unsigned long long)s->cfr_bytes,
		(unsigned long long)s->rw_bytes, (unsigned long long)s->io_errors,
		(unsigned long long)s->denied, (unsigned long long)s->rcr,
		(unsigned long long)s->deadline_cuts, xt_lu_cmd_time_out(lu),
		(unsigned long long)s->busy, (unsigned long long)s->inflight_max,
		(unsigned long long)s->held_discarded, (unsigned long long)s->held_expired,
		(unsigned long long)s->copyfrom_bytes, (unsigned long long)s->gateway_bytes,
		(unsigned long long)s->hole_objects, (unsigned long long)s->touch_bytes,
		(unsigned long long)s->fallbacks,
		s->last_fallback != NULL && s->last_fallback[0] != '\0' ? s->last_fallback : "-",
		(unsigned long long)s->store_copies, (unsigned long long)s->ws_commands,
		(unsigned long long)s->ws_written, (unsigned long long)s->ws_unmapped,
		(unsigned long long)s->ws_cuts, (unsigned long long)s->ws_busy,
		(unsigned long long)s->wt_syncs, (unsigned long long)s->io_direct_bytes,
		(unsigned long long)s->io_buffered_bytes, (unsigned long long)s->delegated_bytes,
		(unsigned long long)s->rw_direct_bytes);
	stats_put_settings(f, &lu->settings);
	if (fclose(f) != 0) {
		unlink(tmp);
		return false;
	}
	if (rename(tmp, path) != 0) {
		unlink(tmp);
		return false;
	}
	return true;
}

/* Write lu's file if its counters (or cmd_time_out) changed since the last write; g_mu held. */
static void
stats_flush(struct xt_lu *lu, bool always)
{
	struct xt_stats s;
	uint32_t cto = xt_lu_cmd_time_out(lu);

	stats_load(lu, &s);
	if (!always && cto == lu->stats_cto_written &&
	    memcmp(&s, &lu->stats_written, sizeof(s)) == 0) {
		return;
	}
	if (stats_put(lu, &s)) {
		lu->stats_written = s;
		lu->stats_cto_written = cto;
	}
}

static void
writer_tick(bool period)
{
	char req[PATH_MAX], busy[PATH_MAX];
	bool asked;
	struct xt_lu *lu;

	/* a request made before this rename is served by the writes below */
	asked = dir_path(req, "refresh") && dir_path(busy, "refresh.busy") &&
		rename(req, busy) == 0;
	if (asked || period) {
		pthread_mutex_lock(&g_mu);
		for (lu = g_head; lu != NULL; lu = lu->stats_next) {
			stats_flush(lu, false);
		}
		pthread_mutex_unlock(&g_mu);
	}
	if (asked) {
		unlink(busy);   /* the asker reads the files once refresh and refresh.busy are gone */
	}
}

/* CLOCK_BOOTTIME in ms: the writer's own clock (the plugin tests move CLOCK_MONOTONIC) */
static uint64_t
boot_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wake the writer when a file is made in STATSDIR (a request, or a write of ours). */
static void
watch_dir(void)
{
	if (g_ino >= 0) {
		(void)inotify_add_watch(g_ino, xt_stats_dir(), IN_CREATE);
	}
}

static void *
writer_main(void *arg)
{
	uint64_t next = boot_ms() + XT_STATS_PERIOD_MS, now;
	char ev[4096] __attribute__((aligned(8)));
	struct pollfd p = { .fd = g_ino, .events = POLLIN };

	(void)arg;
	while (!__atomic_load_n(&g_writer_stop, __ATOMIC_ACQUIRE)) {
		if (poll(&p, g_ino >= 0 ? 1 : 0, XT_STATS_TICK_MS) > 0) {
			while (read(g_ino, ev, sizeof(ev)) > 0) {
			}
		}
		now = boot_ms();
		writer_tick(now >= next);
		if (now >= next) {
			next = now + XT_STATS_PERIOD_MS;
			watch_dir();   /* the folder may have been made anew */
		}
	}
	return NULL;
}

static void
writer_start(void)
{
	g_ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (pthread_create(&g_writer, NULL, writer_main, NULL) == 0) {
		pthread_setname_np(g_writer, "xcopy-stats");
		g_writer_on = true;
	}
}

/* The plugin unloaded (dlclose: the tests; tcmu-runner keeps it): the writer ends first. */
__attribute__((destructor)) static void
writer_stop(void)
{
	if (g_writer_on) {
		__atomic_store_n(&g_writer_stop, true, __ATOMIC_RELEASE);
		pthread_join(g_writer, NULL);
		g_writer_on = false;
	}
	if (g_ino >= 0) {
		close(g_ino);
		g_ino = -1;
	}
}

/* STATSDIR/writer.pid: xcopy-stat asks for a refresh only when this process lives. */
static void
writer_pid_put(void)
{
	char p[PATH_MAX];
	FILE *f;

	if (!dir_path(p, "writer.pid")) {
		return;
	}
	f = fopen(p, "we");
	if (f != NULL) {
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
}

void
xt_stats_open(struct xt_lu *lu)
{
	pthread_once(&g_once, writer_start);
	pthread_mutex_lock(&g_mu);
	stats_flush(lu, true);   /* makes STATSDIR */
	writer_pid_put();
	watch_dir();
	lu->stats_next = g_head;
	g_head = lu;
	pthread_mutex_unlock(&g_mu);
}

void
xt_stats_close(struct xt_lu *lu)
{
	struct xt_lu **pp;

	pthread_mutex_lock(&g_mu);
	for (pp = &g_head; *pp != NULL; pp = &(*pp)->stats_next) {
		if (*pp == lu) {
			*pp = lu->stats_next;
			stats_flush(lu, false);   /* the last counters stay in the file */
			break;
		}
	}
	lu->stats_next = NULL;
	pthread_mutex_unlock(&g_mu);
}
