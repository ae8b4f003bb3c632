/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LU's settings that bound its throughput (target/lio/settings.c), as
 * the plugin's open reads them from the fake configfs (ROOT/core/user_1/
 * lu_a/attrib/): one warning per setting that caps throughput, naming the
 * setting and the value that lifts the cap, none for the project's
 * settings (hw_max_sectors 2048, max_data_area_mb 128) or an unreadable
 * configfs; the stats file shows the settings and the caps.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define ATTRIB "cfs/core/user_1/lu_a/attrib"

/* lu_a's attrib files, then lu_a closed and opened again (the warnings of that open only) */
static void
reopen_with(const char *max_sectors, const char *block, const char *area_mb, const char *qd)
{
	mkdirs(ATTRIB);
	put_file(ATTRIB "/hw_max_sectors", max_sectors);
	put_file(ATTRIB "/hw_block_size", block);
	put_file(ATTRIB "/max_data_area_mb", area_mb);
	put_file(ATTRIB "/hw_queue_depth", qd);
	g_handler->close(&g_a);
	fake_warn_reset();
	CHECK(g_handler->open(&g_a, false) == 0);
}

/* the value of lu_a's stats line key (not a number: caps), "" if none */
static void
stat_text(const char *key, char *out, size_t n)
{
	char p[512], line[256], k[64], v[128];
	FILE *f;

	out[0] = '\0';
	CHECK(stats_refresh());
	snprintf(p, sizeof(p), "%s/stats/lu_a.stats", g_tmp);
	f = fopen(p, "r");
	if (f == NULL) {
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%63s %127s", k, v) == 2 && strcmp(k, key) == 0) {
			snprintf(out, n, "%s", v);
		}
	}
	fclose(f);
}

static bool
warned(const char *needle)
{
	if (strstr(g_warns, needle) != NULL) {
		return true;
	}
	fprintf(stderr, "  no warning with \"%s\" in: %s\n", needle, g_warns);
	return false;
}

void
test_lu_settings(void)
{
	char caps[128];

	/* no attrib files (configfs unreadable): nothing known, nothing capped */
	g_handler->close(&g_a);
	fake_warn_reset();
	CHECK(g_handler->open(&g_a, false) == 0);
	CHECK(g_warn_count == 0);
	CHECK(stat_of("lu_a", "hw_max_sectors") == UINT64_MAX);
	stat_text("caps", caps, sizeof(caps));
	CHECK(strcmp(caps, "-") == 0);

	/* the project's settings: no warning */
	reopen_with("2048\n", "512\n", "128\n", "128\n");
	CHECK(g_warn_count == 0);
	CHECK(stat_of("lu_a", "hw_max_sectors") == 2048);
	CHECK(stat_of("lu_a", "hw_block_size") == 512);
	CHECK(stat_of("lu_a", "max_data_area_mb") == 128);
	CHECK(stat_of("lu_a", "hw_queue_depth") == 128);
	stat_text("caps", caps, sizeof(caps));
	CHECK(strcmp(caps, "-") == 0);

	/* the kernel's default hw_max_sectors: one warning, the setting and its fix named */
	reopen_with("128\n", "512\n", "1024\n", "128\n");
	CHECK(g_warn_count == 1);
	CHECK(warned("LU lu_a: hw_max_sectors 128 caps throughput"));
	CHECK(warned("64 KiB per command, 16 per 1 MiB I/O"));
	CHECK(warned("set hw_max_sectors=2048 at creation"));
	stat_text("caps", caps, sizeof(caps));
	CHECK(strcmp(caps, "hw_max_sectors") == 0);
	CHECK(stat_of("lu_a", "hw_max_sectors") == 128);

	/* 4 MiB commands in 256 MiB: 64 of the 128 fit, 512 MiB lifts it */
	reopen_with("8192\n", "512\n", "256\n", "128\n");
	CHECK(g_warn_count == 1);
	CHECK(warned("LU lu_a: max_data_area_mb 256 caps throughput"));
	CHECK(warned("room for 64 of 128 queued commands of 4096 KiB"));
	CHECK(warned("set max_data_area_mb=512 at creation"));
	stat_text("caps", caps, sizeof(caps));
	CHECK(strcmp(caps, "max_data_area_mb") == 0);

	/* both: two warnings; the data area judged at the 1 MiB commands asked for */
	reopen_with("128\n", "512\n", "64\n", "128\n");
	CHECK(g_warn_count == 2);
	CHECK(warned("hw_max_sectors 128 caps"));
	CHECK(warned("room for 64 of 128 queued commands of 1024 KiB; set max_data_area_mb=128"));
	stat_text("caps", caps, sizeof(caps));
	CHECK(strcmp(caps, "hw_max_sectors,max_data_area_mb") == 0);

	/* 4096-byte blocks: 256 of them are 1 MiB; 128 are not (256 named) */
	reopen_with("256\n", "4096\n", "128\n", "128\n");
	CHECK(g_warn_count == 0);
	reopen_with("128\n", "4096\n", "128\n", "128\n");
	CHECK(g_warn_count == 1);
	CHECK(warned("512 KiB per command, 2 per 1 MiB I/O; set hw_max_sectors=256"));

	/* a larger LU: no cap with room for every command */
	reopen_with("8192\n", "512\n", "512\n", "128\n");
	CHECK(g_warn_count == 0);
	/* back to no attrib files for the fixture's teardown */
	unlink_rel(ATTRIB "/hw_max_sectors");
	unlink_rel(ATTRIB "/hw_block_size");
	unlink_rel(ATTRIB "/max_data_area_mb");
	unlink_rel(ATTRIB "/hw_queue_depth");
}
