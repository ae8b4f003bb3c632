/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp formatting: sizes, times, fallback hints and a small JSON writer
 * (RFC 8259: strings escaped, numbers finite). No I/O but the FILE given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xcp.h"

void
xcp_fmt_bytes(char *buf, size_t cap, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, cap, "%u B", (unsigned)bytes);
		return;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	/* three significant digits; 1023.9 shows as 1024 rather than rounding up a unit */
	snprintf(buf, cap, v < 10.0 ? "%.2f %s" : v < 100.0 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

double
xcp_eta(uint64_t left, double rate)
{
	if (!(rate > 0.0) || !isfinite(rate)) {
		return -1.0;
	}
	return (double)left / rate;
}

void
xcp_fmt_eta(char *buf, size_t cap, double seconds)
{
	unsigned long long s;

	/* unknown, or more than 100 days: no estimate worth showing */
	if (!(seconds >= 0.0) || seconds > 100.0 * 86400.0) {
		snprintf(buf, cap, "--:--");
		return;
	}
	s = (unsigned long long)(seconds + 0.5);
	if (s >= 3600) {
		snprintf(buf, cap, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	} else {
		snprintf(buf, cap, "%llu:%02llu", s / 60, s % 60);
	}
}

const char *
xcp_reason_hint(enum xcopy_fallback_reason r)
{
	switch (r) {
	case XCOPY_FB_NOT_SCSI:
		return "not on a SCSI disk (device-mapper, loop, NVMe, tmpfs...): only SCSI LUs "
		       "take EXTENDED COPY; put the files on a SCSI LU of a target with a copy manager";
	case XCOPY_FB_NO_3PC:
		return "the LU does not report a copy manager (INQUIRY 3PC=0): enable EXTENDED COPY "
		       "on the target (e.g. backstore user:xcopy)";
	case XCOPY_FB_NO_DESIGNATOR:
		return "the LU has no NAA/EUI-64/T10 designator a copy can name: give the LU a "
		       "unit serial / WWN on the target";
	case XCOPY_FB_BLOCK_SIZE:
		return "source and destination LUs have different block sizes: use LUs of one "
		       "block size";
	case XCOPY_FB_PERMISSION:
		return "the kernel lets only CAP_SYS_RAWIO send EXTENDED COPY through SG_IO: run "
		       "xcp as root";
	case XCOPY_FB_INVALID_OPCODE:
	case XCOPY_FB_INVALID_CDB:
	case XCOPY_FB_UNSUPP_DESC:
		return "the target refused EXTENDED COPY (LID1, block-to-block): its copy manager "
		       "lacks it; nothing to do on the host";
	case XCOPY_FB_INVALID_PARAM:
		return "the target refused the parameter list (or cannot copy between two LUs): "
		       "see xcp -vv and the target's limits (sg_vpd -p 0x8f)";
	case XCOPY_FB_UNREACHABLE:
	case XCOPY_FB_DIFFERENT_DEV:
		return "neither LU's copy manager can reach the other LU: put both on one target "
		       "(one copy manager), or name the other LU in the peer map of a user:xcopy "
		       "target (xcopy-peers(5))";
	case XCOPY_FB_ALLOC:
		return "the destination could not be allocated written: FALLOC_FL_WRITE_ZEROES "
		       "needs Linux >= 6.17; write the destination first (e.g. dd from /dev/zero, "
		       "then xcp into it) or use a newer kernel";
	case XCOPY_FB_ALLOC_DISK:
		return "the destination could not be allocated written: the disk under it has no "
		       "unmap write zeroes (its queue/write_zeroes_unmap_max_hw_bytes is 0: the LU "
		       "needs LBPRZ and WRITE SAME with UNMAP), so FALLOC_FL_WRITE_ZEROES is refused; "
		       "write the destination first (e.g. dd from /dev/zero, then xcp into it)";
	case XCOPY_FB_ALLOC_FS:
		return "the destination could not be allocated written: this file system refuses "
		       "FALLOC_FL_WRITE_ZEROES (ext4 and XFS take it on Linux >= 6.17); write the "
		       "destination first (e.g. dd from /dev/zero, then xcp into it)";
	case XCOPY_FB_DST_EXTENT:
		return "destination blocks shared (reflinked) or unwritten: write or unshare them "
		       "first (e.g. dd from /dev/zero)";
	case XCOPY_FB_TRANSPORT:
		return "no SCSI status came back (transport error or timeout): check the path to "
		       "the target (dmesg, iSCSI session)";
	case XCOPY_FB_NO_TOKENS:
		return "the target reports no ROD tokens (VPD 0x8F: no Block Device ROD Token "
		       "Limits or no POPULATE TOKEN/RRTI): use --method=xcopy or auto";
	case XCOPY_FB_FS_TYPE:
		return "the file system is not one whose file extents are known to be blocks of "
		       "its own device (ext4, XFS): nothing to do but use ext4 or XFS";
	case XCOPY_FB_REALTIME:
		return "an XFS realtime file (xfs_io lsattr: r; its directory: t): its extents are "
		       "on the realtime device; copy files outside the realtime directory";
	case XCOPY_FB_ENCRYPTED:
		return "an encrypted file (fscrypt): its blocks hold ciphertext under the file's "
		       "own key; only the host can copy it";
	case XCOPY_FB_JOURNAL_DATA:
		return "ext4 journals this file's data (data=journal, chattr +j): its blocks are "
		       "written after the journal; mount data=ordered or chattr -j to offload";
	case XCOPY_FB_TOKEN:
		return "the target refused, expired or deleted the ROD token (05 23/xx): see xcp -vv; "
		       "a longer inactivity timeout or --method=xcopy may help";
	case XCOPY_FB_LEASE:
		return "no lease held the files' extents (another process has the source or the "
		       "destination open, or opened or truncated it during the copy): copied by "
		       "the host; close the other users and copy again to offload";
	default:
		return NULL;
	}
}

void
xcp_redact(char *buf, size_t cap, const char *name)
{
	const char *at, *pct, *slash;

	/* iscsi://user%password@host/...: the password never reaches a message */
	at = strncmp(name, "iscsi://", 8) == 0 ? strchr(name + 8, '@') : NULL;
	pct = at ? memchr(name + 8, '%', (size_t)(at - (name + 8))) : NULL;
	slash = at ? strchr(name + 8, '/') : NULL;
	if (pct == NULL || (slash != NULL && slash < at)) {
		snprintf(buf, cap, "%s", name);
		return;
	}
	snprintf(buf, cap, "%.*s%%***%s", (int)(pct - name), name, at);
}

/* --- JSON -------------------------------------------------------------------- */

static void
json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p != '\0'; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			/* RFC 8259 7: control characters must be escaped */
			if (*p < 0x20) {
				fprintf(f, "\\u%04x", *p);
			} else {
				fputc(*p, f);
			}
		}
	}
	fputc('"', f);
}

/* Separator, indentation and "key": before a value at the current depth. */
static void
json_member(struct xcp_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth]) {
			fputc(',', j->f);
		}
		fputc('\n', j->f);
		fprintf(j->f, "%*s", 2 * j->depth, "");
		j->first[j->depth] = false;
	}
	if (key != NULL) {
		json_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void
json_open(struct xcp_json *j, const char *key, char c)
{
	json_member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0]))) {
		j->depth++;
		j->first[j->depth] = true;
	}
}

static void
json_close(struct xcp_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0) {
		j->depth--;
	}
	if (!empty) {
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	}
	fputc(c, j->f);
}

void
xcp_json_start(struct xcp_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

void xcp_json_obj(struct xcp_json *j, const char *key) { json_open(j, key, '{'); }
void xcp_json_arr(struct xcp_json *j, const char *key) { json_open(j, key, '['); }
void xcp_json_end_obj(struct xcp_json *j) { json_close(j, '}'); }
void xcp_json_end_arr(struct xcp_json *j) { json_close(j, ']'); }

void
xcp_json_str(struct xcp_json *j, const char *key, const char *v)
{
	json_member(j, key);
	if (v == NULL) {
		fputs("null", j->f);
	} else {
		json_string(j->f, v);
	}
}

void
xcp_json_u64(struct xcp_json *j, const char *key, uint64_t v)
{
	json_member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void
xcp_json_int(struct xcp_json *j, const char *key, long long v)
{
	json_member(j, key);
	fprintf(j->f, "%lld", v);
}

void
xcp_json_dbl(struct xcp_json *j, const char *key, double v)
{
	json_member(j, key);
	/* JSON has no NaN or infinity */
	if (isfinite(v)) {
		fprintf(j->f, "%.6g", v);
	} else {
		fputs("null", j->f);
	}
}

void
xcp_json_bool(struct xcp_json *j, const char *key, bool v)
{
	json_member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void
xcp_json_finish(struct xcp_json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
