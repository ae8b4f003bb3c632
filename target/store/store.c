/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which store is under a LU: the one its cfgstring names (file, RBD, null),
 * inside the fault store when fault injection is on (never the null store) (the one switch, base/env.c); durability
 * with WCE = 0; token snapshots; the stores' threads at exit.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "base/env.h"
#include "fault/fault.h"
#include "store/file/store_file.h"
#include "store/null/store_null.h"
#include "store/rbd/store_rbd.h"
#include "store/store.h"

const struct xt_store_ops *
xt_store_for(const char *cfgstring)
{
	/* past "SUBTYPE/" (XCOPY_SUBTYPE, default xcopy): rbd/..., null/... or the file's path */
	const char *body = xt_cfg_body(cfgstring);
	const struct xt_store_ops *s = body != NULL && strncmp(body, "rbd/", 4) == 0
					       ? &xt_store_rbd : &xt_store_file;

	/* no medium to fail: the null store is never wrapped by the fault store */
	if (body != NULL && strncmp(body, XT_NULL_PREFIX, strlen(XT_NULL_PREFIX)) == 0) {
		return &xt_store_null;
	}
	return xt_env()->fault_injection ? xt_store_faulty(s) : s;
}

int
xt_lu_durable(struct xt_lu *lu)
{
	int rc;

	if (xt_lu_write_cache(lu)) {
		return 0;   /* WCE = 1: the initiator sends SYNCHRONIZE CACHE */
	}
	rc = lu->ops->flush(lu);
	if (rc == 0) {
		XT_STAT_ADD(lu, wt_syncs, 1);
	}
	return rc;
}

int
xt_lu_snap_file(const struct xt_lu *lu, uint64_t size)
{
	return lu->ops->snap_file != NULL ? lu->ops->snap_file(lu, size) : -EOPNOTSUPP;
}

struct xt_lu *
xt_lu_snap_view(const struct xt_lu *lu, int fd)
{
	return lu->ops->snap_view != NULL ? lu->ops->snap_view(lu, fd) : NULL;
}

void
xt_store_shutdown(void)
{
	xt_par_shutdown();
}
