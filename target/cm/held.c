/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Held results and sessions (docs/target-commands.md "Held results and sessions"):
 * before every RECEIVE COPY RESULTS / RECEIVE COPY STATUS is answered and
 * before every EXTENDED COPY runs, the LU's completed held results are
 * discarded when a session arrived at the LU since the last such command
 * (a set of session identities read from configfs, nexus.c, which says why
 * departures alone keep them), and aged out after XT_HELD_LIFETIME_MS.
 */
#include "cm/cm.h"
#include "lio/lio.h"

static uint64_t
store_clock(void *arg)
{
	return xos_now_ms();
}

void
xt_held_init(struct xt_lu *lu)
{
	xcm_store_set_clock(lu->cm->store, store_clock, NULL);
	lu->cm->nexus_known = false;
	xt_nexus_set_init(&lu->cm->nexus);
}

bool
xt_held_sessions(const struct xt_lu *lu, struct xt_nexus_set *s)
{
	xt_nexus_set_init(s);
	return lu->cfs_path[0] != '\0' && xt_nexus_sessions(xt_configfs_root(), lu->cfs_path, s) == 0;
}

void
xt_held_apply(struct xt_lu *lu, bool have, const struct xt_nexus_set *s)
{
	uint32_t gone = 0, aged;

	if (have) {
		if (lu->cm->nexus_known && xt_nexus_arrived(&lu->cm->nexus, s)) {
			gone = xcm_store_discard(lu->cm->store);
			if (gone > 0) {
				xt_lu_info(lu, "xcopy: held results of %u list(s) discarded: "
					   "a new session can reach the LU\n", gone);
			}
		}
		/* the current set: a session that left and comes back is an arrival */
		lu->cm->nexus = *s;
		lu->cm->nexus_known = true;
	}
	aged = xcm_store_expire(lu->cm->store, XT_HELD_LIFETIME_MS);
	if (aged > 0) {
		xt_lu_dbg(lu, "xcopy: held results of %u list(s) expired\n", aged);
	}
	if (gone + aged > 0) {
		XT_STAT_ADD(lu, held_discarded, gone);
		XT_STAT_ADD(lu, held_expired, aged);
	}
}
