/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xt-rbd: drives the RBD store (target/store/rbd/rbd_*.c) from the lab.
 *
 *   xt-rbd parse CFG                 parsed cfgstring, or the refusal (exit 2)
 *   xt-rbd info CFG                  size, object size, prefix, serial, features
 *   xt-rbd copy SRC SOFF DST DOFF LEN
 *                                    copy LEN bytes; prints the counters:
 *                                    copyfrom_bytes copyfrom_objects
 *                                    hole_objects gateway_bytes touch_bytes
 *                                    fallbacks unsafe secs
 *
 * CFG is a cfgstring xcopy/rbd/POOL/IMAGE[@CONF][?opts]; offsets and lengths
 * are bytes with an optional K/M/G suffix. A copy within one image opens it
 * once (SRC and DST equal). Exit: 0, 1 on failure (reason on stderr), 2 usage.
 *
 * Time bounds of a copy, as the plugin sets them for a command: environment
 * XT_RBD_CMD_TIME_OUT=S (librados operation timeouts for an LU with that
 * cmd_time_out) and XT_RBD_DEADLINE_MS=N (the copy's deadline, N ms after
 * the images are open).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/rbd/rbd_image.h"

static int
usage(void)
{
	fprintf(stderr, "usage: xt-rbd parse CFG | info CFG | "
		"copy SRC_CFG SOFF DST_CFG DOFF LEN\n");
	return 2;
}

static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *s == '-') {
		return -1;
	}
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (*end != '\0' || (shift && v > (UINT64_MAX >> shift))) {
		return -1;
	}
	*out = (uint64_t)v << shift;
	return 0;
}

static int
open_cfg(const char *s, struct xt_rbd **r)
{
	struct xt_rbd_cfg cfg;
	char why[512];
	int rc;

	rc = xt_rbd_cfg_parse(s, &cfg, why, sizeof(why));
	if (rc == 0) {
		rc = xt_rbd_open(&cfg, r, why, sizeof(why));
	}
	if (rc != 0) {
		fprintf(stderr, "xt-rbd: %s: %s\n", s, why);
	}
	return rc;
}

static int
cmd_parse(const char *s)
{
	struct xt_rbd_cfg c;
	char why[512];

	if (xt_rbd_cfg_parse(s, &c, why, sizeof(why)) != 0) {
		fprintf(stderr, "xt-rbd: %s\n", why);
		return 2;
	}
	printf("pool=%s image=%s conf=%s id=%s bs=%u copyfrom=%s\n", c.pool, c.image,
	       c.conf, c.id, c.block_size, c.copy_from ? "auto" : "never");
	return 0;
}

static int
cmd_info(const char *s)
{
	struct xt_rbd *r;
	struct xt_rbd_geom g;

	if (open_cfg(s, &r) != 0) {
		return 1;
	}
	if (xt_rbd_geom(r, &g) != 0) {
		xt_rbd_close(r);
		return 1;
	}
	printf("size=%" PRIu64 " block_size=%u order=%u object_size=%" PRIu64
	       " prefix=%s serial=%s features=0x%" PRIx64 " flags=0x%" PRIx64
	       " data_pool=%" PRId64 " parent=%d snaps=%d\n", g.size, g.block_size,
	       g.order, g.object_size, g.prefix, g.serial, g.features, g.flags,
	       g.data_pool_id, g.has_parent, g.snap_count);
	xt_rbd_close(r);
	return 0;
}

/* XT_RBD_CMD_TIME_OUT, XT_RBD_DEADLINE_MS (see the top of this file) */
static void
bound(struct xt_rbd *src, struct xt_rbd *dst)
{
	const char *t = getenv("XT_RBD_CMD_TIME_OUT"), *d = getenv("XT_RBD_DEADLINE_MS");

	if (t != NULL && *t != '\0') {
		uint32_t s = (uint32_t)strtoul(t, NULL, 10);

		if (xt_rbd_op_timeout(src, s) != 0 || xt_rbd_op_timeout(dst, s) != 0) {
			fprintf(stderr, "xt-rbd: cannot set the operation timeouts\n");
		}
		fprintf(stderr, "xt-rbd: cmd_time_out %u s: operation timeout %u s\n", s,
			xt_rbd_op_timeout_for(s));
	}
	if (d != NULL && *d != '\0') {
		xt_rbd_deadline_set(xos_now_ms() + strtoull(d, NULL, 10));
	}
}

static int
cmd_copy(char **av)
{
	struct xt_rbd *src = NULL, *dst = NULL;
	struct xt_rbd_copy_stats st = { 0 };
	uint64_t soff, doff, len;
	struct timespec t0, t1;
	char why[512];
	int rc;

	if (parse_size(av[1], &soff) || parse_size(av[3], &doff) || parse_size(av[4], &len)) {
		return usage();
	}
	if (open_cfg(av[0], &src) != 0) {
		return 1;
	}
	if (strcmp(av[0], av[2]) == 0) {
		dst = src;
	} else if (open_cfg(av[2], &dst) != 0) {
		xt_rbd_close(src);
		return 1;
	}
	bound(src, dst);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	{
		const struct xt_rbd_range rr = { src, soff, dst, doff, len };

		rc = xt_rbd_copy(&rr, &st, why, sizeof(why));
	}
	if (rc == 0) {
		rc = xt_rbd_flush(dst);
		snprintf(why, sizeof(why), "flush: %s", strerror(-rc));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc != 0) {
		fprintf(stderr, "xt-rbd: copy: %s\n", why);
	}
	printf("copyfrom_bytes=%" PRIu64 " copyfrom_objects=%" PRIu64 " hole_objects=%"
	       PRIu64 " gateway_bytes=%" PRIu64 " touch_bytes=%" PRIu64 " fallbacks=%"
	       PRIu64 " unpins=%" PRIu64 " unpin_ms=%" PRIu64 " unsafe='%s' secs=%.3f\n",
	       st.copyfrom_bytes, st.copyfrom_objects, st.hole_objects, st.gateway_bytes,
	       st.touch_bytes, st.fallbacks, st.unpins, st.unpin_ms,
	       xt_rbd_unsafe_name(st.last_unsafe),
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (dst != src) {
		xt_rbd_close(dst);
	}
	xt_rbd_close(src);
	return rc == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "parse") == 0) {
		return cmd_parse(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "info") == 0) {
		return cmd_info(argv[2]);
	}
	if (argc == 7 && strcmp(argv[1], "copy") == 0) {
		return cmd_copy(argv + 2);
	}
	return usage();
}
