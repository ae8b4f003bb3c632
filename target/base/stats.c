/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-LU counters as a small text file the lab (and an admin) can read:
 * STATSDIR/<name>.stats, STATSDIR = $XCOPY_STATS_DIR or /run/xcopy.
 * One "key value" pair per line (format in target/README.md). Written at open
 * and after every EXTENDED COPY and RECEIVE COPY RESULTS, atomically
 * (temporary file + rename).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/env.h"
#include "base/lu.h"

const char *
xt_stats_dir(void)
{
	return xt_env()->stats_dir;
}

static bool
stats_path(const struct xcm_lu *lu, char *out, const char *suffix)
{
	int n = snprintf(out, PATH_MAX, "%s/%s.stats%s", xt_stats_dir(), lu->name, suffix);

	return n > 0 && n < PATH_MAX;
}

/* Writers of one LU run on several threads; they share the temporary file name. */
static pthread_mutex_t g_write_lock = PTHREAD_MUTEX_INITIALIZER;

static void stats_write_locked(struct xcm_lu *lu);

void
xt_stats_write(struct xcm_lu *lu)
{
	pthread_mutex_lock(&g_write_lock);
	stats_write_locked(lu);
	pthread_mutex_unlock(&g_write_lock);
}

static void
stats_write_locked(struct xcm_lu *lu)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	struct xt_stats s;
	FILE *f;

	pthread_mutex_lock(&lu->stats_lock);
	s = lu->stats;
	pthread_mutex_unlock(&lu->stats_lock);
	if (!stats_path(lu, path, "") || !stats_path(lu, tmp, ".tmp")) {
		return;
	}
	if (mkdir(xt_stats_dir(), 0755) != 0 && errno != EEXIST) {
		return;
	}
	f = fopen(tmp, "we");
	if (f == NULL) {
		return;
	}
	fprintf(f,
		"name %s\npath %s\ncommands %llu\ncommands_ok %llu\nerrors %llu\nsegments %llu\n"
		"bytes %llu\nclone_bytes %llu\ncfr_bytes %llu\nrw_bytes %llu\nio_errors %llu\n"
		"denied %llu\nrcr %llu\ndeadline_cuts %llu\ncmd_time_out %u\nbusy %llu\n"
		"inflight_max %llu\nheld_discarded %llu\nheld_expired %llu\n"
		"copyfrom_bytes %llu\ngateway_bytes %llu\nhole_objects %llu\ntouch_bytes %llu\n"
		"fallbacks %llu\nlast_fallback %s\nstore_copies %llu\n",
		lu->name, lu->cfg.path, (unsigned long long)s.commands,
		(unsigned long long)s.commands_ok, (unsigned long long)s.errors,
		(unsigned long long)s.segments, (unsigned long long)s.bytes,
		(unsigned long long)s.clone_bytes, (unsigned long long)s.cfr_bytes,
		(unsigned long long)s.rw_bytes, (unsigned long long)s.io_errors,
		(unsigned long long)s.denied, (unsigned long long)s.rcr,
		(unsigned long long)s.deadline_cuts, lu->cmd_time_out,
		(unsigned long long)s.busy, (unsigned long long)s.inflight_max,
		(unsigned long long)s.held_discarded, (unsigned long long)s.held_expired,
		(unsigned long long)s.copyfrom_bytes, (unsigned long long)s.gateway_bytes,
		(unsigned long long)s.hole_objects, (unsigned long long)s.touch_bytes,
		(unsigned long long)s.fallbacks, s.last_fallback[0] != '\0' ? s.last_fallback : "-",
		(unsigned long long)s.store_copies);
	if (fclose(f) != 0) {
		unlink(tmp);
		return;
	}
	if (rename(tmp, path) != 0) {
		unlink(tmp);
	}
}
