/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy's seams to the system, replaced at link time: the unit binary is
 * linked with -Wl,--wrap=xch_fsdev_find, --wrap=xch_fsdev_open,
 * --wrap=xch_fs_probe and --wrap=xch_lease_batch_bytes (tests/tests.mk), so
 * the calls of libxcopy's other objects come to fake_host.c; they go
 * through to the real function until a suite sets a fake, and again after
 * it sets NULL (0). Nothing of this is in libxcopy.
 */
#ifndef UT_FAKE_HOST_H
#define UT_FAKE_HOST_H

#include <stdint.h>
#include <sys/types.h>

#include "file/xch_file.h"
#include "file/xch_fscheck.h"

/* The device under every file system: what open returns, no sysfs (NULL: sysfs). */
void ut_host_fake_fsdev(int (*open)(dev_t fsdev, struct xcopy_dev **out));
/* Every file's file system as probe says (NULL: xch_fs_probe). */
void ut_host_fake_fs_probe(int (*probe)(int fd, struct xch_fsinfo *fi));
/* Bytes offloaded between two looks at the leases (0: the library's). */
void ut_host_lease_batch(uint64_t bytes);

#endif
