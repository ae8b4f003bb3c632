/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The null store (target/store/null/) opened by the plugin's open through
 * the runner's callouts: xcopy/null/SIZE accepted by check_config, the LU no
 * larger than SIZE, READ returns zeros, WRITE discards, no write cache.
 */
#include <string.h>

#include "harness.h"

void
test_null_store(void)
{
	static uint8_t w[8192], r[8192];
	struct tcmur_cmd cmd;
	struct tcmulib_cfg_info cfg;
	struct iovec iov[2];
	struct tcmu_device d;
	size_t i;

	expect_config("xcopy/null/4M", true, NULL);
	expect_config("xcopy/null/4M?clone=never", false, "no options");
	expect_config("xcopy/null/", false, "null store");
	expect_config("xcopy/null/1000", false, "multiple of 512");
	/* a store smaller than the LU (NLBAS x BS = 4 MiB) is refused at open */
	dev_setup(&d, 3, 4, "lu_n", "unused", "", "0000aaaa-1111-2222-3333-000000000f0f");
	snprintf(d.cfgstring, sizeof(d.cfgstring), "xcopy/null/2M");
	g_last_err[0] = '\0';
	CHECK(g_handler->open(&d, false) != 0);
	CHECK(strstr(g_last_err, "xcopy/null/4194304") != NULL);
	snprintf(d.cfgstring, sizeof(d.cfgstring), "xcopy/null/4M");
	CHECK(g_handler->open(&d, false) == 0);
	CHECK(!d.write_cache);   /* no medium, no cache: WCE = 0 */
	memset(&cmd, 0, sizeof(cmd));
	for (i = 0; i < sizeof(w); i++) {
		w[i] = (uint8_t)(i * 7 + 3);
	}
	iov[0].iov_base = w;
	iov[0].iov_len = 3072;
	iov[1].iov_base = w + 3072;
	iov[1].iov_len = sizeof(w) - 3072;
	CHECK(g_handler->write(&d, &cmd, iov, 2, sizeof(w), 4096 * 10) == TCMU_STS_OK);
	CHECK(w[0] == 3 && w[sizeof(w) - 1] == (uint8_t)((sizeof(w) - 1) * 7 + 3));
	memset(r, 0xEE, sizeof(r));
	iov[0].iov_base = r;
	iov[0].iov_len = 1536;
	iov[1].iov_base = r + 1536;
	iov[1].iov_len = sizeof(r) - 1536;
	CHECK(g_handler->read(&d, &cmd, iov, 2, sizeof(r), 4096 * 10) == TCMU_STS_OK);
	for (i = 0; i < sizeof(r) && r[i] == 0; i++) {
	}
	CHECK(i == sizeof(r));   /* what was written is gone: zeros */
	/* the last block reads; past the end is an error, the buffer untouched */
	memset(r, 0xEE, sizeof(r));
	iov[0].iov_base = r;
	iov[0].iov_len = BS;
	CHECK(g_handler->read(&d, &cmd, iov, 1, BS, (off_t)NLBAS * BS - BS) == TCMU_STS_OK);
	CHECK(r[0] == 0 && r[BS - 1] == 0 && r[BS] == 0xEE);
	memset(r, 0xEE, BS);
	CHECK(g_handler->read(&d, &cmd, iov, 1, BS, (off_t)NLBAS * BS) == TCMU_STS_RD_ERR);
	CHECK(r[0] == 0xEE);
	CHECK(g_handler->write(&d, &cmd, iov, 1, BS, (off_t)NLBAS * BS) == TCMU_STS_WR_ERR);
	CHECK(g_handler->flush(&d, &cmd) == TCMU_STS_OK);
	CHECK(g_handler->unmap(&d, &cmd, 0, (uint64_t)NLBAS * BS) == TCMU_STS_OK);
	/* the LU cannot grow past the store's SIZE */
	memset(&cfg, 0, sizeof(cfg));
	cfg.type = TCMULIB_CFG_DEV_SIZE;
	cfg.data.dev_size = (uint64_t)NLBAS * BS;
	CHECK(g_handler->reconfig(&d, &cfg) == 0);
	cfg.data.dev_size = (uint64_t)NLBAS * BS + BS;
	CHECK(g_handler->reconfig(&d, &cfg) != 0);
	g_handler->close(&d);
}
