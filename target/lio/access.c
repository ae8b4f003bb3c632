/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cross-LU access rule (docs/target-setup.md "Security boundary").
 *
 * TCMU does not tell userspace which initiator sent a command, so a copy
 * received on LU A may touch LU B only when EVERY initiator that can reach A
 * can also reach B. This is judged from LIO's configfs tree, read at command
 * time (no caching, so a LUN unmapped a moment ago is honoured):
 *
 *   for every TPG T (any fabric) with a LUN linked to A:
 *     - if T is in demo mode (attrib/generate_node_acls = 1, or the fabric
 *       has no such attribute, e.g. tcm_loop), T must also export B;
 *     - every node ACL of T that maps a LUN of A must also map a LUN of B.
 *   A must be exported by at least one TPG.
 *
 * This is the CVE-2020-28374 rule of LIO (same node ACL) generalised to the
 * information TCMU has. Anything unreadable counts as "no".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/env.h"
#include "lio/lio.h"

const char *
xt_configfs_root(void)
{
	return xt_env()->configfs_root;
}

const char *
xt_sysfs_root(void)
{
	return xt_env()->sysfs_root;
}

static bool
path_join(char *out, const char *a, const char *b)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", a, b);

	return n > 0 && n < PATH_MAX;
}

static bool
is_dir(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The path symlink p points to, in out (PATH_MAX). configfs links are
 * relative ("../../..") between real directories, so the target is p's
 * directory with the link applied component by component: one readlink
 * instead of realpath's lstat/readlink per component (the walks below read
 * many links per command). An absolute link goes through realpath. False
 * if p is not a symlink or the result does not fit.
 */
static bool
link_target(const char *p, char *out)
{
	char l[PATH_MAX], *slash;
	const char *c, *e;
	size_t n, len;
	ssize_t ll = readlink(p, l, sizeof(l) - 1);

	if (ll <= 0) {
		return false;
	}
	l[ll] = '\0';
	if (l[0] == '/') {
		return realpath(p, out) != NULL;
	}
	len = strlen(p);
	if (len >= PATH_MAX) {
		return false;
	}
	memcpy(out, p, len + 1);
	for (c = NULL, e = l - 1; e != NULL; c = e + 1) {
		/* first the link's own name goes, then one component per ".." */
		if (c != NULL) {
			e = strchr(c, '/');
			n = e != NULL ? (size_t)(e - c) : strlen(c);
		}
		if (c == NULL || (n == 2 && c[0] == '.' && c[1] == '.')) {
			slash = strrchr(out, '/');
			if (slash == NULL || slash == out) {
				return false;
			}
			*slash = '\0';
			len = (size_t)(slash - out);
		} else if (n > 0 && !(n == 1 && c[0] == '.')) {
			if (len + 1 + n >= PATH_MAX) {
				return false;
			}
			out[len++] = '/';
			memcpy(out + len, c, n);
			len += n;
			out[len] = '\0';
		}
	}
	return true;
}

/* Does directory dir hold a symlink that resolves to real path target? */
static bool
dir_links_to(const char *dir, const char *target)
{
	char p[PATH_MAX], r[PATH_MAX];
	struct dirent *de;
	bool hit = false;
	DIR *d = opendir(dir);

	if (d == NULL) {
		return false;
	}
	while (!hit && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN) ||
		    !path_join(p, dir, de->d_name) || !link_target(p, r)) {
			continue;
		}
		hit = strcmp(r, target) == 0;
	}
	closedir(d);
	return hit;
}

/* Does a LUN of TPG tpg (lun/lun_*) export storage object so? */
bool
xt_tpg_exports(const char *tpg, const char *so)
{
	char luns[PATH_MAX], l[PATH_MAX];
	struct dirent *de;
	bool hit = false;
	DIR *d;

	if (!path_join(luns, tpg, "lun") || (d = opendir(luns)) == NULL) {
		return false;
	}
	while (!hit && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "lun_", 4) != 0 || !path_join(l, luns, de->d_name)) {
			continue;
		}
		hit = dir_links_to(l, so);
	}
	closedir(d);
	return hit;
}

/*
 * Does node ACL acl map a LUN that exports so? Mapped LUNs are
 * acls/<initiator>/lun_M/ holding a symlink to the TPG's lun/lun_N.
 */
bool
xt_acl_maps(const char *acl, const char *so)
{
	char ml[PATH_MAX], p[PATH_MAX], r[PATH_MAX];
	struct dirent *de, *de2;
	bool hit = false;
	DIR *d, *d2;

	if ((d = opendir(acl)) == NULL) {
		return false;
	}
	while (!hit && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "lun_", 4) != 0 || !path_join(ml, acl, de->d_name) ||
		    (d2 = opendir(ml)) == NULL) {
			continue;
		}
		while (!hit && (de2 = readdir(d2)) != NULL) {
			if (de2->d_name[0] == '.' || !path_join(p, ml, de2->d_name) ||
			    !link_target(p, r)) {
				continue;
			}
			hit = dir_links_to(r, so);
		}
		closedir(d2);
	}
	closedir(d);
	return hit;
}

/* generate_node_acls: 1 or absent (fabric without ACLs, e.g. tcm_loop) = demo mode */
static bool
tpg_demo_mode(const char *tpg)
{
	char p[PATH_MAX], buf[16] = "";
	ssize_t n;
	int fd;

	if (!path_join(p, tpg, "attrib/generate_node_acls")) {
		return true;
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return true;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n <= 0 || atoi(buf) != 0;
}

/* Check one TPG; *exports_a set when it exports A. 0 or -EACCES. */
static int
tpg_check(const char *tpg, const char *a, const char *b, bool *exports_a, char *why,
	  size_t whylen)
{
	char acls[PATH_MAX], acl[PATH_MAX];
	struct dirent *de;
	int rc = 0;
	DIR *d;

	if (!xt_tpg_exports(tpg, a)) {
		return 0;
	}
	*exports_a = true;
	if (tpg_demo_mode(tpg) && !xt_tpg_exports(tpg, b)) {
		snprintf(why, whylen, "%s lets any initiator reach the source LU but does not export %s",
			 tpg, b);
		return -EACCES;
	}
	if (!path_join(acls, tpg, "acls") || (d = opendir(acls)) == NULL) {
		return 0;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || !path_join(acl, acls, de->d_name) || !is_dir(acl)) {
			continue;
		}
		if (xt_acl_maps(acl, a) && !xt_acl_maps(acl, b)) {
			snprintf(why, whylen, "initiator %s of %s maps the LU but not %s",
				 de->d_name, tpg, b);
			rc = -EACCES;
		}
	}
	closedir(d);
	return rc;
}

int
xt_access_check(const char *root, const char *dev_a, const char *dev_b, char *why,
		size_t whylen)
{
	char a[PATH_MAX], b[PATH_MAX], fab[PATH_MAX], wwn[PATH_MAX], tpg[PATH_MAX];
	char rroot[PATH_MAX];
	struct dirent *f, *w, *t;
	DIR *df, *dw, *dt;
	bool exports_a = false;
	int rc = 0;

	if (whylen > 0) {
		why[0] = '\0';
	}
	if (realpath(dev_a, a) == NULL || realpath(dev_b, b) == NULL) {
		rc = -errno;
		snprintf(why, whylen, "cannot resolve %s or %s in configfs", dev_a, dev_b);
		return rc;
	}
	if (strcmp(a, b) == 0) {
		return 0;
	}
	/* the walk's paths from the real root: link_target's results compare with a and b */
	if (realpath(root, rroot) == NULL || (df = opendir(rroot)) == NULL) {
		rc = -errno;
		snprintf(why, whylen, "cannot read %s", root);
		return rc;
	}
	root = rroot;
	while (rc == 0 && (f = readdir(df)) != NULL) {
		if (f->d_name[0] == '.' || strcmp(f->d_name, "core") == 0 ||
		    !path_join(fab, root, f->d_name) || (dw = opendir(fab)) == NULL) {
			continue;
		}
		while (rc == 0 && (w = readdir(dw)) != NULL) {
			if (w->d_name[0] == '.' || !path_join(wwn, fab, w->d_name) ||
			    (dt = opendir(wwn)) == NULL) {
				continue;
			}
			while (rc == 0 && (t = readdir(dt)) != NULL) {
				if (strncmp(t->d_name, "tpgt_", 5) != 0 ||
				    !path_join(tpg, wwn, t->d_name) || !is_dir(tpg)) {
					continue;
				}
				rc = tpg_check(tpg, a, b, &exports_a, why, whylen);
			}
			closedir(dt);
		}
		closedir(dw);
	}
	closedir(df);
	if (rc == 0 && !exports_a) {
		snprintf(why, whylen, "%s is not exported by any TPG", dev_a);
		rc = -EACCES;
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Conditions of the command table (cmds/cmds.h, asked by tcmu/)            */
/* ------------------------------------------------------------------------ */

long
xt_lio_read_long(const char *dir, const char *name, long def)
{
	char p[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (!path_join(p, dir, name)) {
		return def;
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return def;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return def;
	}
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * tcmu-runner 1.5.4 answers RTPG / STPG only when the LU has an ALUA target
 * port group other than default_tg_pt_gp with a member port (alua.c
 * tcmu_get_alua_grps + tcmu_get_enabled_port); otherwise INVALID COMMAND
 * OPERATION CODE.
 */
static bool
lu_has_alua_group(const char *so)
{
	char dir[PATH_MAX], p[PATH_MAX], buf[8];
	struct dirent *de;
	bool hit = false;
	DIR *d;
	int fd;

	if (!path_join(dir, so, "alua") || (d = opendir(dir)) == NULL) {
		return false;
	}
	while (!hit && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "default_tg_pt_gp") == 0 ||
		    !path_join(p, dir, de->d_name) || !is_dir(p) ||
		    strlen(p) + sizeof("/members") > sizeof(p)) {
			continue;
		}
		strcat(p, "/members");
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			hit = read(fd, buf, sizeof(buf)) > 0;
			close(fd);
		}
	}
	closedir(d);
	return hit;
}

bool
xt_lio_alua(const struct xt_lu *lu)
{
	return lu->cfs_path[0] != '\0' && lu_has_alua_group(lu->cfs_path);
}

bool
xt_lio_pr(const struct xt_lu *lu)
{
	char attrib[PATH_MAX];

	/*
	 * LIO emulates PR IN/OUT and RESERVE/RELEASE for TCMU unless PR is
	 * passed through (attrib/pgr_support 0) or disabled (emulate_pr 0).
	 */
	return lu->cfs_path[0] != '\0' && path_join(attrib, lu->cfs_path, "attrib") &&
	       xt_lio_read_long(attrib, "pgr_support", 0) == 1 &&
	       xt_lio_read_long(attrib, "emulate_pr", 0) == 1;
}

uint32_t
xt_cmd_time_out(struct xt_lu *lu)
{
	char p[PATH_MAX + 32], buf[32];
	unsigned long v;
	char *end;
	ssize_t n;
	int fd;

	__atomic_store_n(&lu->cmd_time_out_read_ms, xos_now_ms(), __ATOMIC_RELAXED);
	if (lu->cfs_path[0] == '\0' ||
	    snprintf(p, sizeof(p), "%s/attrib/cmd_time_out", lu->cfs_path) >= (int)sizeof(p)) {
		return xt_lu_cmd_time_out(lu);
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return xt_lu_cmd_time_out(lu);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		return xt_lu_cmd_time_out(lu);
	}
	buf[n] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') || v > UINT32_MAX) {
		return xt_lu_cmd_time_out(lu);
	}
	if (__atomic_exchange_n(&lu->cmd_time_out, (uint32_t)v, __ATOMIC_RELAXED) != (uint32_t)v) {
		__atomic_add_fetch(&lu->cmd_time_out_gen, 1, __ATOMIC_RELEASE);
	}
	return (uint32_t)v;
}

uint32_t
xt_cmd_time_out_follow(struct xt_lu *lu)
{
	uint64_t last = __atomic_load_n(&lu->cmd_time_out_read_ms, __ATOMIC_RELAXED);
	uint64_t now = xos_now_ms();

	/* one worker claims the re-read (the others keep the value they have) */
	if (now - last >= XT_CMD_TIME_OUT_RECHECK_MS &&
	    __atomic_compare_exchange_n(&lu->cmd_time_out_read_ms, &last, now, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		return xt_cmd_time_out(lu);
	}
	return xt_lu_cmd_time_out(lu);
}
