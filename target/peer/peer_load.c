/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The peer map file (xt_env()->peers_path: XCOPY_PEERS, else
 * /etc/xcopy/peers.conf), read when a copy first asks for a LU that is not
 * here and again whenever the file's mtime, ctime, size or inode changed
 * (an edit, or a new file renamed over it). A file that is not root's own
 * with mode 600 or stricter, or that does not parse, is refused whole: no
 * peer is reachable until it is fixed, and the reason is logged once per
 * change. No file: no peers, nothing logged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/env.h"
#include "peer/peer.h"
#include "xcm/xcm.h"

static pthread_mutex_t g_map_mu = PTHREAD_MUTEX_INITIALIZER;
static struct xt_peer_map g_map;
static bool g_have;                 /* g_key describes the file g_map came from */
static uint64_t g_gen;              /* bumped at each (re)read: discovery starts over */
static struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	bool absent;
} g_key;

static bool
same_key(const struct stat *st)
{
	return g_have && !g_key.absent && g_key.dev == st->st_dev && g_key.ino == st->st_ino &&
	       g_key.size == st->st_size && g_key.mtime.tv_sec == st->st_mtim.tv_sec &&
	       g_key.mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       g_key.ctime.tv_sec == st->st_ctim.tv_sec && g_key.ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* Read the open map fd (fstat'ed as st) into g_map; the reason in why on failure. */
static int
load_fd(int fd, const struct stat *st, char *why, size_t whylen)
{
	struct xt_peer_map m;
	char *buf;
	ssize_t got;
	size_t at = 0;
	int rc;

	if ((rc = xt_peer_map_mode_ok(st, 0, why, whylen)) != 0) {
		return rc;
	}
	if (st->st_size > (off_t)XT_PEER_FILE_MAX) {
		snprintf(why, whylen, "larger than %u bytes", XT_PEER_FILE_MAX);
		return -EFBIG;
	}
	buf = malloc((size_t)st->st_size + 1);
	if (buf == NULL) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	while (at < (size_t)st->st_size + 1) {   /* one more: a file that grew is read whole next time */
		got = read(fd, buf + at, (size_t)st->st_size + 1 - at);
		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got <= 0) {
			break;
		}
		at += (size_t)got;
	}
	if (at != (size_t)st->st_size) {
		free(buf);
		snprintf(why, whylen, "changed while read");
		return -EAGAIN;
	}
	rc = xt_peer_map_parse(buf, at, &m, why, whylen);
	memset(buf, 0, at);   /* CHAP secrets */
	free(buf);
	if (rc == 0) {
		xt_peer_map_free(&g_map);
		g_map = m;
	}
	return rc;
}

/* g_map as the file now says (g_map_mu held); reasons logged on lu. */
static void
map_refresh(const struct xt_lu *lu)
{
	const char *path = xt_env()->peers_path;
	char why[320];
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (!(g_have && g_key.absent)) {
			if (errno != ENOENT) {
				xt_lu_err(lu, "peer map %s: %s: no peer reachable\n", path,
					  strerror(errno));
			}
			xt_peer_map_free(&g_map);
			memset(&g_key, 0, sizeof(g_key));
			g_key.absent = true;
			g_have = true;
			g_gen++;
		}
	} else if (fstat(fd, &st) != 0) {
		xt_peer_map_free(&g_map);
		g_have = false;
	} else if (!same_key(&st)) {
		xt_peer_map_free(&g_map);
		memset(&g_key, 0, sizeof(g_key));
		g_key.dev = st.st_dev;
		g_key.ino = st.st_ino;
		g_key.size = st.st_size;
		g_key.mtime = st.st_mtim;
		g_key.ctime = st.st_ctim;
		g_have = true;
		g_gen++;
		why[0] = '\0';
		if (load_fd(fd, &st, why, sizeof(why)) != 0) {
			xt_lu_err(lu, "peer map %s refused: %s: no peer reachable until it is fixed\n",
				  path, why);
			g_have = false;   /* "changed while read" and the like: read again next time */
			if (strncmp(why, "line ", 5) == 0 || strstr(why, "mode ") != NULL ||
			    strstr(why, "owned by") != NULL) {
				g_have = true;   /* refused as it is: logged once, until it changes */
			}
		} else {
			xt_lu_info(lu, "peer map %s: %zu peers, %zu portals to discover\n", path,
				   g_map.n, g_map.nportal);
		}
	}
	if (fd >= 0) {
		close(fd);
	}
}

int
xt_peer_lookup(const struct xt_lu *lu, const uint8_t *desig, size_t len, struct xt_peer *out)
{
	const struct xt_peer *p;
	int rc = -ENOENT;

	pthread_mutex_lock(&g_map_mu);
	map_refresh(lu);
	p = xt_peer_map_find(&g_map, desig, len);
	if (p != NULL) {
		*out = *p;
		rc = 0;
	}
	pthread_mutex_unlock(&g_map_mu);
	return rc;
}

int
xt_peer_lookup_portal(const struct xt_lu *lu, const uint8_t addr[16], uint16_t port,
		      uint16_t lun, struct xt_peer *out)
{
	const struct xt_peer *p;
	char a[INET6_ADDRSTRLEN];
	size_t n;
	int rc = -ENOENT;

	pthread_mutex_lock(&g_map_mu);
	map_refresh(lu);
	p = xt_peer_map_find_portal(&g_map, addr, port, lun, &n);
	if (p != NULL) {
		*out = *p;
		rc = 0;
	} else if (n > 1) {
		if (inet_ntop(AF_INET6, addr, a, sizeof(a)) == NULL) {
			snprintf(a, sizeof(a), "?");
		}
		xt_lu_warn(lu, "xcopy: %zu peer map entries at [%s]:%u LUN %u: "
			   "the IPv6 CSCD names none of them\n", n, a, port, lun);
	}
	pthread_mutex_unlock(&g_map_mu);
	return rc;
}

int
xt_peer_cscd_desig(const struct xt_lu *lu, const struct xcm_cscd *c, uint8_t buf[16],
		   size_t *len)
{
	struct xt_peer p;
	uint16_t lun;
	int rc;

	if (c->type == XCM_CSCD_IPV6) {
		/* LU IDENTIFIER: a single-level LUN, as the map's URLs hold (0..16383) */
		if (xcm_lun_single_level(c->lu_id, &lun) != 0) {
			return -ENOENT;
		}
		rc = xt_peer_lookup_portal(lu, c->ip, c->port, lun, &p);
		if (rc == 0) {
			memcpy(buf, p.desig, p.desig_len);
			*len = p.desig_len;
		}
		memset(&p, 0, sizeof(p));   /* CHAP secret */
		return rc;
	}
	if (c->type != XCM_CSCD_ID || c->assoc != XCM_ASSOC_LU || c->desig_type != XCM_DESIG_NAA ||
	    c->code_set != XCM_CODE_SET_BINARY || (c->desig_len != 8 && c->desig_len != 16)) {
		return -ENOENT;
	}
	memcpy(buf, c->desig, c->desig_len);
	*len = c->desig_len;
	return 0;
}

size_t
xt_peer_portals(const struct xt_lu *lu, struct xt_peer *v, size_t max, uint64_t *gen)
{
	size_t n;

	pthread_mutex_lock(&g_map_mu);
	map_refresh(lu);
	n = g_map.nportal < max ? g_map.nportal : max;
	if (n > 0) {
		memcpy(v, g_map.portal, n * sizeof(*v));
	}
	*gen = g_gen;
	pthread_mutex_unlock(&g_map_mu);
	return n;
}

bool
xt_peer_map_any(const struct xt_lu *lu)
{
	bool any;

	pthread_mutex_lock(&g_map_mu);
	map_refresh(lu);
	any = g_map.n > 0 || g_map.nportal > 0;
	pthread_mutex_unlock(&g_map_mu);
	return any;
}

void
xt_peer_map_reset(void)
{
	pthread_mutex_lock(&g_map_mu);
	xt_peer_map_free(&g_map);
	memset(&g_key, 0, sizeof(g_key));
	g_have = false;
	g_gen++;
	pthread_mutex_unlock(&g_map_mu);
}
