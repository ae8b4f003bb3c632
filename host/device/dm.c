/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device-mapper volumes (LVM logical volumes, dm-multipath devices) whose
 * table is a plain remap of blocks: "linear" (a run of another device),
 * "striped" (chunks dealt round-robin over several devices) and "multipath"
 * (one LU reached through several paths, mpath.c). The devices underneath
 * are SCSI disks, partitions of them, or such volumes again (resolved
 * recursively). A copy is cut at every piece (and stripe chunk) boundary of
 * both sides and each run is copied between the devices underneath, where
 * EXTENDED COPY can be sent (copy/copy_pairs.c). Anything else (snapshot, thin,
 * crypt, raid, cache, zero, error...; a suspended volume; a table that
 * changed) is refused with the reason and the volume opens host-only. The
 * table is read through libdevmapper (DM_DEVICE_TABLE) when the volume is
 * opened and compared again before and after every copy. A mapped volume's
 * handle is of the dm kind (below): no command goes through its node, its
 * blocks are located on the handles underneath, the host reads and writes
 * the node itself. The devices underneath are opened by the caller's
 * opener (devmap.c, or the unit tests' fakes).
 */
#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/xch_base.h"
#include "xch_device.h"

enum {
	DM_MAX_DEPTH = 8,       /* volumes stacked on volumes */
	DM_MAX_PIECES = 4096,
	DM_TABLE_MAX = 1 << 20, /* bytes of table text kept for the change check */
	SECTOR = 512,
};

struct xch_dm_leg {
	struct xcopy_dev *dev;  /* the device underneath (owned) */
	uint64_t lba;           /* first block on dev, relative to dev's window */
};

struct xch_dm_piece {
	uint64_t start;         /* first block of the volume */
	uint64_t blocks;
	uint64_t chunk;         /* striped: blocks per chunk; 0: one leg */
	uint32_t nleg;
	struct xch_dm_leg leg[XCH_DM_MAX_LEGS];
};

struct xch_dm_map {
	unsigned major, minor;
	size_t n;
	struct xch_dm_piece *p;
	char *table;            /* the table as read at open */
	bool multipath;         /* one multipath target: paths may change, blocks do not */
};

static void
dm_quiet(int level, const char *file, int line, int dm_errno, const char *f, ...)
{
	(void)level;
	(void)file;
	(void)line;
	(void)dm_errno;
	(void)f;
}

/* Appends "START LEN TYPE PARAMS\n" to *buf (grown by doubling up to DM_TABLE_MAX). */
static int
tbl_append(char **buf, size_t *used, size_t *cap, uint64_t start, uint64_t len,
	   const char *type, const char *params)
{
	int n;

	for (;;) {
		n = snprintf(*buf == NULL ? NULL : *buf + *used, *cap - *used,
			     "%" PRIu64 " %" PRIu64 " %s %s\n", start, len, type,
			     params != NULL ? params : "");
		if (n < 0) {
			return -EIO;
		}
		if ((size_t)n < *cap - *used) {
			*used += (size_t)n;
			return 0;
		}
		if (*cap >= DM_TABLE_MAX) {
			return -E2BIG;
		}
		char *nb = realloc(*buf, *cap == 0 ? 4096 : *cap * 2);
		if (nb == NULL) {
			return -ENOMEM;
		}
		*buf = nb;
		*cap = *cap == 0 ? 4096 : *cap * 2;
	}
}

/*
 * The live table of MAJ:MIN as text ("START LEN TYPE PARAMS\n" per target).
 * 0, -ENXIO (no such volume), -EBUSY (suspended), -ENOMEM, -EIO.
 */
static int
dm_table_text(unsigned major, unsigned minor, char **out)
{
	struct dm_task *t;
	struct dm_info info;
	uint64_t start, len;
	char *type, *params, *buf = NULL;
	size_t used = 0, cap = 0;
	void *next = NULL;
	int rc = 0;

	*out = NULL;
	dm_log_with_errno_init(dm_quiet);
	t = dm_task_create(DM_DEVICE_TABLE);
	if (t == NULL) {
		return -ENOMEM;
	}
	if (!dm_task_set_major(t, (int)major) || !dm_task_set_minor(t, (int)minor) ||
	    !dm_task_run(t) || !dm_task_get_info(t, &info)) {
		rc = -EIO;
		goto out;
	}
	if (!info.exists) {
		rc = -ENXIO;
		goto out;
	}
	if (info.suspended) {
		rc = -EBUSY;
		goto out;
	}
	do {
		next = dm_get_next_target(t, next, &start, &len, &type, &params);
		if (type == NULL) {
			break;
		}
		rc = tbl_append(&buf, &used, &cap, start, len, type, params);
		if (rc != 0) {
			goto out;
		}
	} while (next != NULL);
	if (buf == NULL) {
		rc = -ENOTSUP; /* no table loaded */
	}
out:
	dm_task_destroy(t);
	if (rc != 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

void
xch_dm_map_free(struct xch_dm_map *m)
{
	size_t i;
	uint32_t k;

	if (m == NULL) {
		return;
	}
	for (i = 0; i < m->n; i++) {
		for (k = 0; k < m->p[i].nleg; k++) {
			xcopy_dev_close(m->p[i].leg[k].dev);
		}
	}
	free(m->p);
	free(m->table);
	free(m);
}

bool
xch_dm_map_is_multipath(const struct xch_dm_map *m)
{
	return m != NULL && m->multipath;
}

size_t
xch_dm_pieces(const struct xcopy_dev *d)
{
	const struct xch_dm_map *m = d->kctx;

	return m->n;
}

/* Every device under the volume offloads. */
static bool
dm_offload(const struct xcopy_dev *d)
{
	const struct xch_dm_map *m = d->kctx;
	size_t i;
	uint32_t k;

	for (i = 0; i < m->n; i++) {
		for (k = 0; k < m->p[i].nleg; k++) {
			if (!xch_dev_offload(m->p[i].leg[k].dev)) {
				return false;
			}
		}
	}
	return true;
}

static void
dm_close(struct xcopy_dev *d)
{
	xch_dm_map_free(d->kctx);
	d->kctx = NULL;
}

struct builder {
	uint32_t bs;
	uint32_t spb;           /* sectors per block */
	int depth;
	xch_dm_open_fn open;
	void *arg;
	char *why;
	size_t whylen;
};

/* Open the device of one leg and check that [lba, lba + blocks) lies on it. */
static int
open_leg(struct builder *b, const struct xch_dm_leg_spec *s, uint64_t blocks, struct xch_dm_leg *l)
{
	int rc;

	if (s->off % b->spb != 0) {
		snprintf(b->why, b->whylen, "an offset on %u:%u not on %u-byte blocks", s->major,
			 s->minor, b->bs);
		return -EINVAL;
	}
	rc = b->open(b->arg, s->major, s->minor, b->depth + 1, &l->dev);
	if (rc != 0) {
		snprintf(b->why, b->whylen, "device %u:%u under it cannot be opened (%s)", s->major,
			 s->minor, strerror(-rc));
		return rc;
	}
	if (l->dev->caps.block_size != b->bs) {
		snprintf(b->why, b->whylen, "device %u:%u has %u-byte blocks, the volume %u",
			 s->major, s->minor, l->dev->caps.block_size, b->bs);
		return -EINVAL;
	}
	if (l->dev->kind->reach == XCH_REACH_HOST) {
		snprintf(b->why, b->whylen, "device %u:%u under it is neither a SCSI disk, a "
			 "partition of one nor a mapped volume", s->major, s->minor);
		return -ENOTSUP;
	}
	l->lba = s->off / b->spb;
	if (l->lba > l->dev->caps.part_blocks || blocks > l->dev->caps.part_blocks - l->lba) {
		snprintf(b->why, b->whylen, "the target runs past the end of %u:%u", s->major,
			 s->minor);
		return -ERANGE;
	}
	return 0;
}

/* The paths of a multipath target: whole SCSI disks, one handle over all. */
static int
open_paths(struct builder *b, const struct xch_dm_target *t, uint64_t blocks,
	   struct xch_dm_piece *p)
{
	struct xcopy_dev *paths[XCH_DM_MAX_LEGS];
	char name[64];
	size_t n = 0;
	uint32_t k;
	int rc;

	for (k = 0; k < t->nleg; k++) {
		struct xcopy_dev *d = NULL;

		rc = b->open(b->arg, t->leg[k].major, t->leg[k].minor, b->depth + 1, &d);
		if (rc != 0 || d->kind->reach != XCH_REACH_CMDS || d->caps.part_start != 0 ||
		    d->caps.part_blocks != d->caps.num_blocks) {
			XCH_WARN("multipath path %u:%u: not usable as a whole SCSI disk (%s): skipped",
				 t->leg[k].major, t->leg[k].minor, rc != 0 ? strerror(-rc) : "kind");
			xcopy_dev_close(d);
			continue;
		}
		paths[n++] = d;
	}
	if (n == 0) {
		snprintf(b->why, b->whylen, "a 'multipath' target with no usable path");
		return -ENODEV;
	}
	snprintf(name, sizeof(name), "multipath(%u:%u+%zu)", t->leg[0].major, t->leg[0].minor,
		 n - 1);
	rc = xch_mpath_attach(paths, n, name, &p->leg[0].dev, b->why, b->whylen);
	if (rc != 0) {
		return rc;
	}
	p->nleg = 1;
	if (p->leg[0].dev->caps.block_size != b->bs || p->leg[0].dev->caps.num_blocks != blocks) {
		snprintf(b->why, b->whylen, "the multipath LU (%" PRIu64 " x %u) is not the "
			 "volume (%" PRIu64 " x %u)", p->leg[0].dev->caps.num_blocks,
			 p->leg[0].dev->caps.block_size, blocks, b->bs);
		return -ERANGE;
	}
	return 0;
}

static int
piece_from_target(struct builder *b, const struct xch_dm_target *t, uint64_t vol_blocks,
		  struct xch_dm_piece *p)
{
	uint64_t width;
	uint32_t k;
	int rc;

	if (t->start % b->spb != 0 || t->len % b->spb != 0 || t->chunk % b->spb != 0) {
		snprintf(b->why, b->whylen, "a '%s' target not on %u-byte blocks", t->type, b->bs);
		return -EINVAL;
	}
	p->start = t->start / b->spb;
	p->blocks = t->len / b->spb;
	if (t->kind == XCH_DM_MULTIPATH) {
		if (p->start != 0 || p->blocks != vol_blocks) {
			snprintf(b->why, b->whylen, "a 'multipath' target that is not the whole volume");
			return -EINVAL;
		}
		return open_paths(b, t, p->blocks, p);
	}
	p->chunk = t->kind == XCH_DM_STRIPED ? t->chunk / b->spb : 0;
	width = p->blocks / t->nleg;
	for (k = 0; k < t->nleg; k++) {
		rc = open_leg(b, &t->leg[k], width, &p->leg[k]);
		if (p->leg[k].dev != NULL) {
			p->nleg = k + 1;
		}
		if (rc != 0) {
			return rc;
		}
	}
	return 0;
}

static int
grow(struct xch_dm_map *m, size_t *cap, char *why, size_t whylen)
{
	struct xch_dm_piece *np;

	if (m->n < *cap) {
		return 0;
	}
	if (*cap >= DM_MAX_PIECES) {
		snprintf(why, whylen, "more than %d targets", DM_MAX_PIECES);
		return -E2BIG;
	}
	*cap = *cap == 0 ? 4 : *cap * 2;
	np = realloc(m->p, *cap * sizeof(*np));
	if (np == NULL) {
		return -ENOMEM;
	}
	m->p = np;
	return 0;
}

static int
build_pieces(struct xch_dm_map *m, struct builder *b, uint64_t vol_blocks)
{
	struct xch_dm_target *t = malloc(sizeof(*t));
	const char *line;
	uint64_t next = 0;
	size_t cap = 0;
	int rc = t == NULL ? -ENOMEM : 0;

	for (line = m->table; rc == 0 && *line != '\0'; line = strchr(line, '\n') + 1) {
		rc = grow(m, &cap, b->why, b->whylen);
		if (rc == 0) {
			rc = xch_dm_parse_target(line, t, b->why, b->whylen);
		}
		if (rc == 0 && t->kind == XCH_DM_MULTIPATH && m->n > 0) {
			snprintf(b->why, b->whylen, "a 'multipath' target next to others");
			rc = -EINVAL;
		}
		if (rc != 0) {
			break;
		}
		memset(&m->p[m->n], 0, sizeof(m->p[m->n]));
		m->multipath = t->kind == XCH_DM_MULTIPATH;
		rc = piece_from_target(b, t, vol_blocks, &m->p[m->n]);
		m->n++;
		/* targets tile the volume from sector 0, in order, without gaps */
		if (rc == 0 && m->p[m->n - 1].start != next) {
			snprintf(b->why, b->whylen, "targets leave a gap at block %" PRIu64, next);
			rc = -EINVAL;
		}
		next += m->p[m->n - 1].blocks;
	}
	if (rc == 0 && next != vol_blocks) {
		snprintf(b->why, b->whylen, "the table covers %" PRIu64 " of %" PRIu64 " blocks",
			 next, vol_blocks);
		rc = -ERANGE;
	}
	free(t);
	return rc;
}

int
xch_dm_map_build(const char *table, uint32_t bs, uint64_t vol_blocks, int depth,
		 xch_dm_open_fn open, void *arg, struct xch_dm_map **out, char *why,
		 size_t whylen)
{
	struct builder b = { .bs = bs, .spb = bs / SECTOR, .depth = depth, .open = open,
			     .arg = arg, .why = why, .whylen = whylen };
	struct xch_dm_map *m;
	int rc;

	*out = NULL;
	if (b.spb == 0 || bs % SECTOR != 0) {
		snprintf(why, whylen, "%u-byte blocks", bs);
		return -EINVAL;
	}
	if (depth >= DM_MAX_DEPTH) {
		snprintf(why, whylen, "volumes stacked more than %d deep", DM_MAX_DEPTH);
		return -ELOOP;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL || (m->table = strdup(table)) == NULL) {
		free(m);
		return -ENOMEM;
	}
	rc = m->table[0] == '\0' ? -ENOTSUP : build_pieces(m, &b, vol_blocks);
	if (rc != 0) {
		if (m->table[0] == '\0') {
			snprintf(why, whylen, "the volume has no table");
		}
		xch_dm_map_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int
xch_dm_attach(struct xcopy_dev *d, unsigned major, unsigned minor, int depth,
	      xch_dm_open_fn open, char *why, size_t whylen)
{
	struct xch_dm_map *m = NULL;
	char *table = NULL;
	int rc;

	rc = dm_table_text(major, minor, &table);
	if (rc != 0) {
		snprintf(why, whylen, "%s", rc == -EBUSY ? "the volume is suspended"
					    : rc == -ENOTSUP ? "the volume has no table"
							     : "its table cannot be read");
		return rc == -EIO ? -ENOTSUP : rc;
	}
	rc = xch_dm_map_build(table, d->caps.block_size, d->caps.num_blocks, depth, open, NULL, &m,
			      why, whylen);
	free(table);
	if (rc != 0) {
		return rc;
	}
	m->major = major;
	m->minor = minor;
	xch_dm_use_map(d, m);
	return 0;
}

/* The live table of a volume is the one read at open. */
static bool
table_same(const struct xch_dm_map *m)
{
	char *now = NULL;
	bool same;

	if (m->major == 0 && m->minor == 0) {
		return true; /* built from text (unit tests): nothing live to compare */
	}
	same = dm_table_text(m->major, m->minor, &now) == 0 && strcmp(now, m->table) == 0;
	free(now);
	return same;
}

/* The tables of h and of every volume under it are still the ones read at open. */
static bool
dm_tables_same(const struct xcopy_dev *h)
{
	const struct xch_dm_map *m = h->kctx;
	size_t i;
	uint32_t k;

	/* a multipath table changes with its paths; the LU behind it does not */
	if (!m->multipath && !table_same(m)) {
		return false;
	}
	for (i = 0; i < m->n; i++) {
		for (k = 0; k < m->p[i].nleg; k++) {
			if (!xch_dev_tables_same(m->p[i].leg[k].dev)) {
				return false;
			}
		}
	}
	return true;
}

static const struct xch_dm_piece *
find_piece(const struct xch_dm_map *m, uint64_t lba)
{
	size_t lo = 0, hi = m->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->p[mid].start <= lba) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return &m->p[lo];
}

/*
 * Where block lba of the volume lies: on the device of its piece (and
 * stripe), located again there (a volume under a volume), cut where the
 * piece or chunk ends.
 */
static void
dm_locate(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev, uint64_t *dev_lba,
	  uint64_t *run)
{
	const struct xch_dm_piece *p = find_piece(h->kctx, lba);
	uint64_t o = lba - p->start, left = p->blocks - o;
	const struct xch_dm_leg *l = &p->leg[0];

	if (p->chunk != 0) {
		/* dm-striped: chunk c of the piece is chunk c / n of leg c % n */
		uint64_t c = o / p->chunk, in = o % p->chunk;

		l = &p->leg[c % p->nleg];
		o = (c / p->nleg) * p->chunk + in;
		left = p->chunk - in;
	}
	/* a leg's lba is relative to its device's window */
	xch_dev_locate(l->dev, l->dev->caps.part_start + l->lba + o, dev, dev_lba, run);
	*run = left < *run ? left : *run;
}

static bool
dm_concurrent(const struct xcopy_dev *d)
{
	(void)d;
	return false;
}

static const struct xch_dev_kind g_dm_kind = {
	.name = "dm",
	.reach = XCH_REACH_MAP,
	.exec = xch_no_exec,
	.rw = xch_host_rw,
	.concurrent = dm_concurrent,
	.offload = dm_offload,
	.tables_same = dm_tables_same,
	.locate = dm_locate,
	.written = xch_written_node,
	.lu_key = xch_key_node,
	.close = dm_close,
};

void
xch_dm_use_map(struct xcopy_dev *d, struct xch_dm_map *m)
{
	d->kind->close(d);
	d->kind = &g_dm_kind;
	d->kctx = m;
}
