/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Held results scoped as close to the I_T nexus as TCMU allows
 * (target/README.md "Held results and sessions").
 *
 * SPC-4 keeps the results of an EXTENDED COPY for the I_T nexus that sent
 * it and discards them when that nexus is lost. The TCMU ring carries no
 * nexus, so the plugin cannot tell which session sent a command; what it can
 * see is the set of sessions that can reach the LU, in LIO's configfs. A
 * digest of that set is taken before every EXTENDED COPY and RECEIVE COPY
 * RESULTS; when it differs from the last one, the LU's completed held
 * results are discarded. Per TPG with a LUN linked to the LU:
 *   - the TPG's path, and its nexus file (tcm_loop, vhost, xen-scsiback:
 *     the one initiator port of the TPG);
 *   - iSCSI: the target's login and logout counters (fabric_statistics:
 *     every session that begins or ends on the target IQN, including demo
 *     mode sessions, which configfs does not list with an identity), the
 *     TPG's dynamic_sessions (initiator names of demo-mode sessions), and for
 *     each node ACL mapping the LU the "LIO Session ID" line of its info
 *     (session id, ISID and TSIH of the ACL's current session).
 * A completed record also ages out after a bounded lifetime, for what the
 * digest cannot see (fabrics without session information, a tcm_loop nexus
 * removed and re-created with the same name between two commands).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xcopy_target.h"

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)
#define NEXUS_FILE_MAX 65536      /* bytes of one configfs file looked at */

static void
fnv(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		*h = (*h ^ b[i]) * FNV_PRIME;
	}
}

static void
fnv_str(uint64_t *h, const char *s)
{
	fnv(h, s, strlen(s) + 1);
}

/*
 * Hash the file dir/name into h (its absence too). With prefix, only the
 * lines that start with it (counters and state lines around them change
 * with every command).
 */
static void
hash_file(uint64_t *h, const char *dir, const char *name, const char *prefix)
{
	char p[PATH_MAX], *buf, *line, *save = NULL;
	ssize_t n, got = 0;
	int fd;

	fnv_str(h, name);
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p) ||
	    (fd = open(p, O_RDONLY | O_CLOEXEC)) < 0) {
		fnv_str(h, "-absent-");
		return;
	}
	buf = malloc(NEXUS_FILE_MAX + 1);
	if (buf == NULL) {
		close(fd);
		fnv_str(h, "-nomem-");
		return;
	}
	while (got < NEXUS_FILE_MAX && (n = read(fd, buf + got, NEXUS_FILE_MAX - got)) > 0) {
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	if (prefix == NULL) {
		fnv(h, buf, (size_t)got);
	} else {
		for (line = strtok_r(buf, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, prefix, strlen(prefix)) == 0) {
				fnv_str(h, line);
			}
		}
	}
	free(buf);
}

/* The digest of one TPG that exports so (wwn: its fabric WWN directory). */
static uint64_t
tpg_digest(const char *wwn, const char *tpg, const char *so)
{
	char acls[PATH_MAX], acl[PATH_MAX];
	struct dirent *de;
	uint64_t h = FNV_OFFSET;
	DIR *d;

	fnv_str(&h, tpg);
	hash_file(&h, tpg, "nexus", NULL);
	hash_file(&h, tpg, "dynamic_sessions", NULL);
	hash_file(&h, wwn, "fabric_statistics/iscsi_login_stats/accepts", NULL);
	hash_file(&h, wwn, "fabric_statistics/iscsi_logout_stats/normal_logouts", NULL);
	hash_file(&h, wwn, "fabric_statistics/iscsi_logout_stats/abnormal_logouts", NULL);
	if (snprintf(acls, sizeof(acls), "%s/acls", tpg) >= (int)sizeof(acls) ||
	    (d = opendir(acls)) == NULL) {
		return h;
	}
	/* readdir order is not promised: combine the ACLs order-independently */
	while ((de = readdir(d)) != NULL) {
		uint64_t ha = FNV_OFFSET;

		if (de->d_name[0] == '.' ||
		    snprintf(acl, sizeof(acl), "%s/%s", acls, de->d_name) >= (int)sizeof(acl) ||
		    !xt_acl_maps(acl, so)) {
			continue;
		}
		fnv_str(&ha, de->d_name);
		hash_file(&ha, acl, "info", "LIO Session ID");
		h += ha * FNV_PRIME;
	}
	closedir(d);
	return h;
}

int
xt_nexus_digest(const char *root, const char *so_path, uint64_t *out)
{
	char so[PATH_MAX], fab[PATH_MAX], wwn[PATH_MAX], tpg[PATH_MAX], rroot[PATH_MAX];
	struct dirent *f, *w, *t;
	DIR *df, *dw, *dt;
	uint64_t sum = 0, ntpg = 0;

	/* the real root: xt_tpg_exports compares link targets with so as text */
	if (realpath(so_path, so) == NULL || realpath(root, rroot) == NULL) {
		return -errno;
	}
	root = rroot;
	if ((df = opendir(root)) == NULL) {
		return -errno;
	}
	while ((f = readdir(df)) != NULL) {
		if (f->d_name[0] == '.' || strcmp(f->d_name, "core") == 0 ||
		    snprintf(fab, sizeof(fab), "%s/%s", root, f->d_name) >= (int)sizeof(fab) ||
		    (dw = opendir(fab)) == NULL) {
			continue;
		}
		while ((w = readdir(dw)) != NULL) {
			if (w->d_name[0] == '.' ||
			    snprintf(wwn, sizeof(wwn), "%s/%s", fab, w->d_name) >= (int)sizeof(wwn) ||
			    (dt = opendir(wwn)) == NULL) {
				continue;
			}
			while ((t = readdir(dt)) != NULL) {
				if (strncmp(t->d_name, "tpgt_", 5) != 0 ||
				    snprintf(tpg, sizeof(tpg), "%s/%s", wwn, t->d_name) >=
					    (int)sizeof(tpg) ||
				    !xt_tpg_exports(tpg, so)) {
					continue;
				}
				/* order-independent: the sum of mixed per-TPG digests */
				sum += tpg_digest(wwn, tpg, so) * FNV_PRIME + 1;
				ntpg++;
			}
			closedir(dt);
		}
		closedir(dw);
	}
	closedir(df);
	*out = sum ^ (ntpg << 56);
	return 0;
}

static uint64_t
store_clock(void *arg)
{
	return xt_now_ms();
}

void
xt_held_init(struct xcm_lu *lu)
{
	xcm_store_set_clock(lu->store, store_clock, NULL);
	lu->nexus_known = false;
}

bool
xt_held_digest(const struct xcm_lu *lu, uint64_t *d)
{
	return lu->cfs_path[0] != '\0' && xt_nexus_digest(xt_configfs_root(), lu->cfs_path, d) == 0;
}

void
xt_held_apply(struct xcm_lu *lu, bool have, uint64_t d)
{
	uint32_t gone = 0, aged;

	if (have) {
		if (lu->nexus_known && d != lu->nexus_digest) {
			gone = xcm_store_discard(lu->store);
			if (gone > 0) {
				tcmu_dev_info(lu->dev, "xcopy: held results of %u list(s) discarded: "
					      "the sessions that can reach the LU changed\n", gone);
			}
		}
		lu->nexus_digest = d;
		lu->nexus_known = true;
	}
	aged = xcm_store_expire(lu->store, XT_HELD_LIFETIME_MS);
	if (aged > 0) {
		tcmu_dev_dbg(lu->dev, "xcopy: held results of %u list(s) expired\n", aged);
	}
	if (gone + aged > 0) {
		pthread_mutex_lock(&lu->stats_lock);
		lu->stats.held_discarded += gone;
		lu->stats.held_expired += aged;
		pthread_mutex_unlock(&lu->stats_lock);
	}
}
