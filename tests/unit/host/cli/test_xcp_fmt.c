/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcp's pure parts (host/cli/xcp_fmt.c): sizes, ETA, fallback hints and the
 * JSON writer (compared byte for byte); libxcopy's kernel-release check.
 */
#include <stdlib.h>
#include <string.h>

#include "xcp.h"
#include "ut.h"
#include "file/xch_file.h"

static void
xcp_fmt_bytes_units(void)
{
	char b[32];

	xcp_fmt_bytes(b, sizeof(b), 0);
	CU_ASSERT_STRING_EQUAL(b, "0 B");
	xcp_fmt_bytes(b, sizeof(b), 1023);
	CU_ASSERT_STRING_EQUAL(b, "1023 B");
	xcp_fmt_bytes(b, sizeof(b), 1536);
	CU_ASSERT_STRING_EQUAL(b, "1.50 KiB");
	xcp_fmt_bytes(b, sizeof(b), 64ull << 20);
	CU_ASSERT_STRING_EQUAL(b, "64.0 MiB");
	xcp_fmt_bytes(b, sizeof(b), 300ull << 30);
	CU_ASSERT_STRING_EQUAL(b, "300 GiB");
	xcp_fmt_bytes(b, sizeof(b), UINT64_MAX);
	CU_ASSERT_STRING_EQUAL(b, "16.0 EiB");
	/* a short buffer is cut, never overrun */
	xcp_fmt_bytes(b, 4, 64ull << 20);
	CU_ASSERT_STRING_EQUAL(b, "64.");
}

static void
xcp_fmt_eta_and_rate(void)
{
	char b[16];

	CU_ASSERT_DOUBLE_EQUAL(xcp_eta(100, 50.0), 2.0, 1e-9);
	CU_ASSERT_TRUE(xcp_eta(100, 0.0) < 0);
	xcp_fmt_eta(b, sizeof(b), 0.0);
	CU_ASSERT_STRING_EQUAL(b, "0:00");
	xcp_fmt_eta(b, sizeof(b), 4.6);
	CU_ASSERT_STRING_EQUAL(b, "0:05");
	xcp_fmt_eta(b, sizeof(b), 754.0);
	CU_ASSERT_STRING_EQUAL(b, "12:34");
	xcp_fmt_eta(b, sizeof(b), 3723.0);
	CU_ASSERT_STRING_EQUAL(b, "1:02:03");
	xcp_fmt_eta(b, sizeof(b), -1.0);
	CU_ASSERT_STRING_EQUAL(b, "--:--");
	xcp_fmt_eta(b, sizeof(b), 1e12);
	CU_ASSERT_STRING_EQUAL(b, "--:--");
	xcp_fmt_eta(b, sizeof(b), xcp_eta(1000, 0.0));
	CU_ASSERT_STRING_EQUAL(b, "--:--");
}

static void
xcp_progress_line_fields(void)
{
	struct xcp_progress p;
	char line[160];

	xcp_progress_init(&p, true, true, 100ull << 20);
	p.done = 25ull << 20;
	p.last = XCOPY_METHOD_OFFLOAD;
	/* 25 MiB in 5 s: 5 MiB/s, 75 MiB left: 15 s */
	xcp_progress_line(&p, p.t0 + 5.0, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "25.0 MiB / 100 MiB  25% 5.00 MiB/s ETA 0:15 offloaded");
	p.done = p.total;
	p.last = XCOPY_METHOD_HOST;
	xcp_progress_line(&p, p.t0 + 10.0, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "100 MiB / 100 MiB 100% 10.0 MiB/s ETA 0:00 host");
}

static char *
json_of(void (*fn)(struct xcp_json *j))
{
	struct xcp_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	UT_ASSERT_FATAL(f != NULL);
	xcp_json_start(&j, f);
	fn(&j);
	xcp_json_finish(&j);
	fclose(f);
	return buf;
}

static void
json_doc(struct xcp_json *j)
{
	xcp_json_obj(j, NULL);
	xcp_json_int(j, "version", 1);
	xcp_json_str(j, "path", "a\"b\\c\n\x01");
	xcp_json_str(j, "error", NULL);
	xcp_json_u64(j, "big", UINT64_MAX);
	xcp_json_dbl(j, "pct", 99.5);
	xcp_json_dbl(j, "nan", 0.0 / 0.0);
	xcp_json_bool(j, "ok", true);
	xcp_json_arr(j, "empty");
	xcp_json_end_arr(j);
	xcp_json_arr(j, "list");
	xcp_json_obj(j, NULL);
	xcp_json_str(j, "reason", "allocation");
	xcp_json_end_obj(j);
	xcp_json_end_arr(j);
	xcp_json_end_obj(j);
}

static void
xcp_json_writer_exact(void)
{
	char *s = json_of(json_doc);

	CU_ASSERT_STRING_EQUAL(s, "{\n"
				  "  \"version\": 1,\n"
				  "  \"path\": \"a\\\"b\\\\c\\n\\u0001\",\n"
				  "  \"error\": null,\n"
				  "  \"big\": 18446744073709551615,\n"
				  "  \"pct\": 99.5,\n"
				  "  \"nan\": null,\n"
				  "  \"ok\": true,\n"
				  "  \"empty\": [],\n"
				  "  \"list\": [\n"
				  "    {\n"
				  "      \"reason\": \"allocation\"\n"
				  "    }\n"
				  "  ]\n"
				  "}\n");
	free(s);
}

static void
xcp_stats_json_numbers(void)
{
	struct xcopy_stats st;
	struct xcp_result r = { "s", "d", 0, NULL, 1.5, 3000, NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	UT_ASSERT_FATAL(f != NULL);
	memset(&st, 0, sizeof(st));
	st.bytes_offloaded = 2048;
	st.bytes_fallback = 952;
	st.xcopy_cmds = 2;
	st.segments = 3;
	st.fallback_ranges[XCOPY_FB_ALLOC] = 1;
	st.fallback_bytes[XCOPY_FB_ALLOC] = 952;
	xcp_stats_json(f, &st, &r);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"bytes_offloaded\": 2048,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"bytes_host\": 952,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"kind\": \"extended-copy-lid1\","));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"commands\": 2,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"reason\": \"allocation\","));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"result\": \"copied\","));
	free(buf);
}

static void
xcp_hints_and_kernel_release(void)
{
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_ALLOC), "Linux >= 6.17"));
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_PERMISSION), "CAP_SYS_RAWIO"));
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_LEASE), "open"));
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_ALLOC), "Linux >= 6.17"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(xcp_reason_hint(XCOPY_FB_ALLOC_DISK), "write_zeroes_unmap_max_hw_bytes is 0"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(xcp_reason_hint(XCOPY_FB_ALLOC_FS), "file system refuses FALLOC_FL_WRITE_ZEROES"));
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_FS_TYPE), "ext4, XFS"));
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_REALTIME), "realtime device"));
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_ENCRYPTED), "ciphertext"));
	CU_ASSERT_PTR_NOT_NULL(strstr(xcp_reason_hint(XCOPY_FB_JOURNAL_DATA), "chattr -j"));
	CU_ASSERT_PTR_NULL(xcp_reason_hint(XCOPY_FB_HOLE));
	CU_ASSERT_PTR_NULL(xcp_reason_hint(XCOPY_FB_REQUESTED));
	CU_ASSERT_EQUAL(xch_kernel_at_least("6.17.0-1-amd64", 6, 17), 1);
	CU_ASSERT_EQUAL(xch_kernel_at_least("6.18.5", 6, 17), 1);
	CU_ASSERT_EQUAL(xch_kernel_at_least("7.0", 6, 17), 1);
	CU_ASSERT_EQUAL(xch_kernel_at_least("6.1.0-57-amd64", 6, 17), 0);
	CU_ASSERT_EQUAL(xch_kernel_at_least("5.19", 6, 17), 0);
	CU_ASSERT_EQUAL(xch_kernel_at_least("garbage", 6, 17), -1);
	CU_ASSERT_EQUAL(xch_kernel_at_least(NULL, 6, 17), -1);
}

static void
xcp_redact_password(void)
{
	char b[128];

	xcp_redact(b, sizeof(b), "iscsi://admin%s3cret@10.0.0.1:3260/iqn.x:t/0");
	CU_ASSERT_STRING_EQUAL(b, "iscsi://admin%***@10.0.0.1:3260/iqn.x:t/0");
	xcp_redact(b, sizeof(b), "iscsi://admin@10.0.0.1/iqn.x:t/0");
	CU_ASSERT_STRING_EQUAL(b, "iscsi://admin@10.0.0.1/iqn.x:t/0");
	/* '%' and '@' after the host are not credentials */
	xcp_redact(b, sizeof(b), "iscsi://10.0.0.1/iqn.x:a%b@c/0");
	CU_ASSERT_STRING_EQUAL(b, "iscsi://10.0.0.1/iqn.x:a%b@c/0");
	xcp_redact(b, sizeof(b), "/mnt/a%b@c");
	CU_ASSERT_STRING_EQUAL(b, "/mnt/a%b@c");
}

static CU_TestInfo g_tests[] = {
	{ "redact_password", xcp_redact_password },
	{ "fmt_bytes_units", xcp_fmt_bytes_units },
	{ "fmt_eta_and_rate", xcp_fmt_eta_and_rate },
	{ "progress_line_fields", xcp_progress_line_fields },
	{ "json_writer_exact", xcp_json_writer_exact },
	{ "stats_json_numbers", xcp_stats_json_numbers },
	{ "hints_and_kernel_release", xcp_hints_and_kernel_release },
	CU_TEST_INFO_NULL,
};
UT_SUITE(xcp_fmt, g_tests)
