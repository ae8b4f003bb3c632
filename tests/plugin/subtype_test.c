/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * XCOPY_SUBTYPE (target/base/env.c, read by handler_init): the handler
 * registers the subtype it names, check_config and open take cfgstrings
 * "SUBTYPE/..." (file and null stores) and refuse "xcopy/..." under
 * another subtype; a refused value keeps xcopy and is logged once at
 * init. make test-plugin runs the harness once more with XCOPY_SUBTYPE=cm2
 * and once with a refused value (XT_TEST_SUBTYPE: the subtype the run
 * expects, xcopy when unset); dev_setup's cfgstrings carry the registered
 * subtype, so io_callouts and xcopy_self run on it too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_tcmu.h"
#include "harness.h"

char g_init_warns[4096];   /* the warnings of handler_init (plugin_main.c) */

const char *
expected_subtype(void)
{
	const char *s = getenv("XT_TEST_SUBTYPE");

	return s != NULL && s[0] != '\0' ? s : "xcopy";
}

void
test_subtype(void)
{
	const char *want = expected_subtype(), *set = getenv("XCOPY_SUBTYPE");
	const char *other = strcmp(want, "xcopy") == 0 ? "cm2" : "xcopy";
	char cfg[600], needle[64];
	uint8_t w[4096], r[4096];
	struct tcmur_cmd cmd;
	struct iovec iov;
	struct tcmu_device d;
	int fd;

	CHECK(strcmp(g_handler->subtype, want) == 0);
	if (strcmp(g_handler->subtype, want) != 0) {
		fprintf(stderr, "  subtype '%s', want '%s'\n", g_handler->subtype, want);
	}
	/* a refused XCOPY_SUBTYPE is named in the log at init, an accepted one is not */
	snprintf(needle, sizeof(needle), "XCOPY_SUBTYPE '%s' refused", set != NULL ? set : "");
	CHECK((set != NULL && set[0] != '\0' && strcmp(set, want) != 0) ==
	      (strstr(g_init_warns, needle) != NULL));
	snprintf(cfg, sizeof(cfg), "%s/%s/a.img", want, g_tmp);
	expect_config(cfg, true, NULL);
	snprintf(cfg, sizeof(cfg), "%s/null/4M", want);
	expect_config(cfg, true, NULL);
	snprintf(needle, sizeof(needle), "does not start with '%s/'", want);
	snprintf(cfg, sizeof(cfg), "%s/%s/a.img", other, g_tmp);
	expect_config(cfg, false, needle);
	snprintf(cfg, sizeof(cfg), "%s/null/4M", other);
	expect_config(cfg, false, needle);
	snprintf(cfg, sizeof(cfg), "%sx/%s/a.img", want, g_tmp);   /* the subtype + more */
	expect_config(cfg, false, needle);

	/* a LU of the subtype opens and round-trips a block; "other/..." does not open */
	make_backing("s.img", (uint64_t)NLBAS * BS);
	dev_setup(&d, 3, 4, "lu_s", "s.img", "", "0000aaaa-1111-2222-3333-00000000050b");
	CHECK(strncmp(d.cfgstring, want, strlen(want)) == 0 && d.cfgstring[strlen(want)] == '/');
	CHECK(g_handler->open(&d, false) == 0);
	memset(&cmd, 0, sizeof(cmd));
	memset(w, 0x5b, sizeof(w));
	iov.iov_base = w;
	iov.iov_len = sizeof(w);
	CHECK(g_handler->write(&d, &cmd, &iov, 1, sizeof(w), 8192) == TCMU_STS_OK);
	memset(r, 0, sizeof(r));
	iov.iov_base = r;
	CHECK(g_handler->read(&d, &cmd, &iov, 1, sizeof(r), 8192) == TCMU_STS_OK);
	CHECK(memcmp(w, r, sizeof(r)) == 0);
	fd = backing_fd("s.img");
	memset(r, 0, sizeof(r));
	CHECK(pread(fd, r, sizeof(r), 8192) == (ssize_t)sizeof(r) && memcmp(w, r, sizeof(r)) == 0);
	close(fd);
	g_handler->close(&d);
	snprintf(d.cfgstring, sizeof(d.cfgstring), "%s/%s/s.img", other, g_tmp);
	CHECK(g_handler->open(&d, false) != 0);
}
