/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fake runner/libtcmu the plugin harness provides (fake_tcmu.c). */
#ifndef TESTS_PLUGIN_FAKE_TCMU_H
#define TESTS_PLUGIN_FAKE_TCMU_H

#include "tcmu/tcmu_abi.h"

/* The harness owns the device object; the plugin sees it as opaque. */
struct tcmu_device {
	char cfgstring[512];
	char uio[32];
	char serial[64];
	uint32_t block_size;
	uint64_t num_lbas;
	unsigned int opt_unmap_gran;
	unsigned int unmap_gran_align;
	bool write_cache;            /* tcmu_dev_set_write_cache_enabled */
	bool wwn_hold;               /* tcmu_cfgfs_dev_get_wwn blocks (fake_wwn_*) */
	void *hm_priv;
};

/*
 * A slow configfs: tcmu_cfgfs_dev_get_wwn of a device with wwn_hold set
 * blocks until fake_wwn_release; fake_wwn_wait_held: a call is blocked now
 * (false: none within 10 s).
 */
bool fake_wwn_wait_held(void);
void fake_wwn_release(struct tcmu_device *dev);

extern struct tcmur_handler *g_handler;   /* set by tcmur_register_handler */
extern char g_last_err[1024];             /* last tcmu_err_message text */
extern char g_warns[4096];                /* tcmu_warn_message texts since fake_warn_reset */
extern int g_warn_count;                  /* ... and how many */
void fake_warn_reset(void);
extern int g_verbose;

#endif
