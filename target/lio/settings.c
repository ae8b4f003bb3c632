/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The LU's TCMU settings that bound its ordinary READ/WRITE throughput, read
 * from configfs at open, judged against what the project creates its LUs
 * with (lio.h: XT_LU_*), and one warning per setting that caps it, naming
 * the value to set and the command that sets it. Both are settings of the
 * storage object's control file, taken only before enable (the kernel then
 * shows them read-only in attrib/ and as "HwMaxSectors" / "MaxDataAreaMB"
 * in info); hw_queue_depth is the kernel's own (128 for a user backstore).
 *
 * A command carries at most hw_max_sectors x hw_block_size bytes (the sd
 * disk's max_sectors_kb follows VPD B0, which tcmu-runner fills from it);
 * a command waits in the kernel while its data does not fit the data area
 * (max_data_area_mb) beside the commands already in flight.
 */
#include <limits.h>
#include <stdio.h>

#include "lio/lio.h"

#define MIB (1024u * 1024u)

/* bytes of the largest command s allows; 0 when unknown */
static uint64_t
cmd_bytes(const struct xt_lu_settings *s)
{
	return (uint64_t)s->hw_max_sectors * s->hw_block_size;
}

/* the data area s's queue depth needs, in MiB, at commands of at least XT_LU_CMD_BYTES */
static uint64_t
area_need_mb(const struct xt_lu_settings *s)
{
	uint64_t cmd = cmd_bytes(s) > XT_LU_CMD_BYTES ? cmd_bytes(s) : XT_LU_CMD_BYTES;

	return ((uint64_t)s->hw_queue_depth * cmd + MIB - 1) / MIB;
}

void
xt_lu_settings_judge(struct xt_lu_settings *s)
{
	s->caps = 0;
	if (s->hw_max_sectors != 0 && s->hw_block_size != 0 && cmd_bytes(s) < XT_LU_CMD_BYTES) {
		s->caps |= XT_CAP_MAX_SECTORS;
	}
	if (s->max_data_area_mb != 0 && s->hw_queue_depth != 0 && s->hw_max_sectors != 0 &&
	    s->hw_block_size != 0 && s->max_data_area_mb < area_need_mb(s)) {
		s->caps |= XT_CAP_DATA_AREA;
	}
}

/*
 * tcmu-runner 1.5.4 keeps 256 bytes of a log line, its prefix included: the
 * line stays near 200 (the same words in docs/target-setup.md, "LU settings").
 */
int
xt_lu_settings_advice(const struct xt_lu_settings *s, unsigned int cap, const char *lu, char *buf,
		      size_t n)
{
	uint64_t cmd = cmd_bytes(s), c = cmd > XT_LU_CMD_BYTES ? cmd : XT_LU_CMD_BYTES;

	if (cap == XT_CAP_MAX_SECTORS) {
		return snprintf(buf, n,
				"xcopy: LU %s: hw_max_sectors %u caps throughput: %llu KiB per "
				"command, %llu per 1 MiB I/O; set hw_max_sectors=%u at creation "
				"(targetcli create option, or control before enable)\n",
				lu, s->hw_max_sectors, (unsigned long long)(cmd / 1024),
				(unsigned long long)(cmd != 0 ? (XT_LU_CMD_BYTES + cmd - 1) / cmd : 0),
				XT_LU_CMD_BYTES / (s->hw_block_size != 0 ? s->hw_block_size : 512));
	}
	if (cap == XT_CAP_DATA_AREA) {
		return snprintf(buf, n,
				"xcopy: LU %s: max_data_area_mb %u caps throughput: room for %llu "
				"of %u queued commands of %llu KiB; set max_data_area_mb=%llu at "
				"creation (targetcli create control=..., or control before enable)\n",
				lu, s->max_data_area_mb,
				(unsigned long long)((uint64_t)s->max_data_area_mb * MIB / c),
				s->hw_queue_depth, (unsigned long long)(c / 1024),
				(unsigned long long)area_need_mb(s));
	}
	return snprintf(buf, n, "%s", "");
}

/* attrib/name as a uint32_t, 0 when unreadable or out of range */
static uint32_t
attrib_u32(const char *attrib, const char *name)
{
	long v = xt_lio_read_long(attrib, name, 0);

	return v > 0 && (unsigned long)v <= UINT32_MAX ? (uint32_t)v : 0;
}

void
xt_lio_settings(struct xt_lu *lu)
{
	struct xt_lu_settings *s = &lu->settings;
	char attrib[PATH_MAX], line[640];
	unsigned int cap;

	s->hw_max_sectors = s->hw_block_size = s->max_data_area_mb = s->hw_queue_depth = 0;
	if (lu->cfs_path[0] != '\0' &&
	    snprintf(attrib, sizeof(attrib), "%s/attrib", lu->cfs_path) < (int)sizeof(attrib)) {
		s->hw_max_sectors = attrib_u32(attrib, "hw_max_sectors");
		s->hw_block_size = attrib_u32(attrib, "hw_block_size");
		s->max_data_area_mb = attrib_u32(attrib, "max_data_area_mb");
		s->hw_queue_depth = attrib_u32(attrib, "hw_queue_depth");
	}
	xt_lu_settings_judge(s);
	for (cap = XT_CAP_MAX_SECTORS; cap <= XT_CAP_DATA_AREA; cap <<= 1) {
		if ((s->caps & cap) != 0 &&
		    xt_lu_settings_advice(s, cap, lu->name, line, sizeof(line)) > 0) {
			xt_lu_warn(lu, "%s", line);
		}
	}
}
