/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which store is under a LU: the one its cfgstring names. */
#include <string.h>

#include "store/file/store_file.h"
#include "store/rbd/store_rbd.h"
#include "store/store.h"

const struct xt_store_ops *
xt_store_for(const char *cfgstring)
{
	return cfgstring != NULL && strncmp(cfgstring, "xcopy/rbd/", 10) == 0 ? &xt_store_rbd
									      : &xt_store_file;
}
