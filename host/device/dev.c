/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device handles, whatever their kind: every kind-dependent step goes
 * through the handle's kind table (xch_device.h: SCSI over a transport in
 * scsi.c, multipath in mpath.c, device-mapper maps in dm.c, host-only nodes
 * in devmap.c), so this file calls no other file of device/. Here: the
 * command path (xch_dev_exec, data-in commands with retries, VPD pages),
 * block reads and writes (READ/WRITE(16) for the kinds that take commands,
 * pread/pwrite on the node for the others), the LU identity, the window
 * check, close. Discovery is in discover.c, opening in devmap.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xch_base.h"
#include "xch_device.h"
#include "xos.h"

enum {
	DISC_TIMEOUT_S = 30,
	RW_TIMEOUT_S = 60,
	DISC_RETRIES = 3,
	VPD_MAX = 4096,
	RW_CHUNK_BYTES = 512 * 1024,
};

int
xch_dev_exec(struct xcopy_dev *d, struct xch_cmd *c, struct xcopy_stats *st)
{
	if (st != NULL && c->cdb_len > 0 && c->cdb[0] != XCM_OP_XCOPY) {
		st->other_cmds++;
	}
	c->status = 0;
	c->sense_len = 0;
	c->resid = 0;
	return d->kind->exec(d, c);
}

int
xch_no_exec(struct xcopy_dev *d, struct xch_cmd *c)
{
	(void)d;
	(void)c;
	return -ENODEV;
}

static bool
transient(const struct xch_cmd *c)
{
	struct xcm_sense s;

	if (c->status == XCM_SAM_BUSY || c->status == XCM_SAM_TASK_SET_FULL) {
		return true;
	}
	if (c->status != XCM_SAM_CHECK_CONDITION ||
	    xcm_sense_parse(xcm_span_make(c->sense, c->sense_len), &s) != 0) {
		return false;
	}
	return s.key == XCM_SK_UNIT_ATTENTION || s.key == XCM_SK_ABORTED_COMMAND;
}

/* One data-in command with retries of transient conditions; *got = bytes received. */
int
xch_cmd_in(struct xcopy_dev *d, const uint8_t *cdb, uint8_t cdb_len, void *buf, size_t len,
       size_t *got)
{
	struct xch_cmd c;
	int rc = -EIO, i;

	for (i = 0; i < DISC_RETRIES; i++) {
		memset(&c, 0, sizeof(c));
		c.cdb = cdb;
		c.cdb_len = cdb_len;
		c.dir = XCH_DIR_IN;
		c.buf = buf;
		c.len = len;
		c.timeout_s = DISC_TIMEOUT_S;
		memset(buf, 0, len);
		rc = xch_dev_exec(d, &c, NULL);
		if (rc < 0) {
			return rc;
		}
		if (c.status == XCM_SAM_GOOD) {
			*got = c.resid <= len ? len - c.resid : 0;
			return 0;
		}
		if (!transient(&c)) {
			return -EIO;
		}
	}
	return -EIO;
}

int
xch_read_vpd(struct xcopy_dev *d, uint8_t page, uint8_t **out, size_t *got)
{
	uint8_t cdb[XCM_CDB6_LEN];
	uint8_t *buf = malloc(VPD_MAX);
	size_t want = 255;
	int rc;

	*out = NULL;
	if (buf == NULL) {
		return -ENOMEM;
	}
	for (;;) {
		xcm_cdb_inquiry(cdb, true, page, (uint16_t)want);
		rc = xch_cmd_in(d, cdb, sizeof(cdb), buf, want, got);
		if (rc != 0) {
			break;
		}
		if (*got < XCM_VPD_HDR_LEN || buf[1] != page) {
			rc = -EIO;
			break;
		}
		/* re-read with the full PAGE LENGTH once, capped */
		size_t full = XCM_VPD_HDR_LEN + (size_t)xcm_get_be16(buf + 2);
		if (full <= want || want == VPD_MAX) {
			if (*got > full) {
				*got = full;
			}
			*out = buf;
			return 0;
		}
		want = full < VPD_MAX ? full : VPD_MAX;
	}
	free(buf);
	return rc;
}

static int
rw_chunk_blocks(const struct xcopy_dev *d)
{
	uint32_t n = RW_CHUNK_BYTES / d->caps.block_size;

	if (d->caps.max_xfer_blocks != 0 && d->caps.max_xfer_blocks < n) {
		n = d->caps.max_xfer_blocks;
	}
	return n == 0 ? 1 : (int)n;
}

int
xch_cmd_rw(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf,
	   struct xcopy_stats *st)
{
	uint8_t cdb[XCM_CDB16_LEN];
	uint32_t chunk = (uint32_t)rw_chunk_blocks(d);
	uint32_t done = 0;
	struct xch_cmd c;
	int rc, tries = 0;

	while (done < nblocks) {
		uint32_t n = nblocks - done < chunk ? nblocks - done : chunk;

		if (write) {
			xcm_cdb_write16(cdb, lba + done, n);
		} else {
			xcm_cdb_read16(cdb, lba + done, n);
		}
		memset(&c, 0, sizeof(c));
		c.cdb = cdb;
		c.cdb_len = sizeof(cdb);
		c.dir = write ? XCH_DIR_OUT : XCH_DIR_IN;
		c.buf = (uint8_t *)buf + (size_t)done * d->caps.block_size;
		c.len = (size_t)n * d->caps.block_size;
		c.timeout_s = RW_TIMEOUT_S;
		rc = xch_dev_exec(d, &c, st);
		if (rc < 0) {
			return rc;
		}
		if (c.status != XCM_SAM_GOOD || c.resid != 0) {
			if (transient(&c) && ++tries < DISC_RETRIES) {
				continue;
			}
			XCH_ERR("%s: %s(16) lba %llu x %u failed, status 0x%02x", d->name,
				write ? "WRITE" : "READ", (unsigned long long)(lba + done), n,
				c.status);
			return -EIO;
		}
		tries = 0;
		done += n;
	}
	return 0;
}

int
xch_host_rw(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf,
	    struct xcopy_stats *st)
{
	size_t len = (size_t)nblocks * d->caps.block_size;
	uint64_t off = lba * d->caps.block_size;

	(void)st;
	return write ? xos_pwrite_full(d->host_fd, buf, len, off)
		     : xos_pread_full(d->host_fd, buf, len, off);
}

int
xch_dev_range_check(const struct xcopy_dev *d, uint64_t lba, uint64_t n)
{
	const struct xcopy_caps *c = &d->caps;

	/* subtraction form: no overflow */
	if (lba < c->part_start || lba - c->part_start > c->part_blocks ||
	    n > c->part_blocks - (lba - c->part_start)) {
		XCH_ERR("%s: range %llu+%llu outside the device's blocks %llu+%llu: refused",
			d->name, (unsigned long long)lba, (unsigned long long)n,
			(unsigned long long)c->part_start, (unsigned long long)c->part_blocks);
		return -ERANGE;
	}
	return 0;
}

int
xch_dev_read(struct xcopy_dev *d, uint64_t lba, uint32_t nblocks, void *buf,
	     struct xcopy_stats *st)
{
	int rc = xch_dev_range_check(d, lba, nblocks);

	return rc != 0 ? rc : d->kind->rw(d, false, lba, nblocks, buf, st);
}

int
xch_dev_write(struct xcopy_dev *d, uint64_t lba, uint32_t nblocks, const void *buf,
	      struct xcopy_stats *st)
{
	int rc = xch_dev_range_check(d, lba, nblocks);

	return rc != 0 ? rc : d->kind->rw(d, true, lba, nblocks, (void *)(uintptr_t)buf, st);
}

/*
 * Same LU: the kinds that take commands name their LU by its designator
 * (VPD 83h), the others by their node; the two never match each other (a
 * node key starts with a byte no designation descriptor starts with).
 */
bool
xch_same_lu(const struct xcopy_dev *a, const struct xcopy_dev *b)
{
	uint8_t ka[XCH_LU_KEY_MAX], kb[XCH_LU_KEY_MAX];
	size_t na, nb;

	if (a == b) {
		return true;
	}
	na = a->kind->lu_key(a, ka, sizeof(ka));
	nb = b->kind->lu_key(b, kb, sizeof(kb));
	return na != 0 && na == nb && memcmp(ka, kb, na) == 0;
}

/* Every handle's route memory: set and read rarely (once per copy call, per refusal). */
static pthread_mutex_t g_route_mu = PTHREAD_MUTEX_INITIALIZER;

void
xch_dev_route_set(struct xcopy_dev *d, const struct xcopy_dev *other, bool unreachable)
{
	uint8_t k[XCH_LU_KEY_MAX];
	size_t n = other->kind->lu_key(other, k, sizeof(k));

	if (n == 0) {
		return;
	}
	pthread_mutex_lock(&g_route_mu);
	if (unreachable) {
		memcpy(d->unreached, k, n);
		d->unreached_len = n;
	} else if (d->unreached_len == n && memcmp(d->unreached, k, n) == 0) {
		d->unreached_len = 0;
	}
	pthread_mutex_unlock(&g_route_mu);
}

bool
xch_dev_route_unreached(const struct xcopy_dev *d, const struct xcopy_dev *other)
{
	uint8_t k[XCH_LU_KEY_MAX];
	size_t n = other->kind->lu_key(other, k, sizeof(k));
	bool r;

	pthread_mutex_lock(&g_route_mu);
	r = n != 0 && d->unreached_len == n && memcmp(d->unreached, k, n) == 0;
	pthread_mutex_unlock(&g_route_mu);
	return r;
}

size_t
xch_key_desig(const struct xcopy_dev *d, uint8_t *out, size_t cap)
{
	size_t n = d->caps.desig_len <= cap ? d->caps.desig_len : 0;

	memcpy(out, d->caps.desig, n);
	return n;
}

size_t
xch_key_node(const struct xcopy_dev *d, uint8_t *out, size_t cap)
{
	if (d->rdev == 0 || cap < 1 + sizeof(d->rdev)) {
		return 0;
	}
	out[0] = 0xFF;  /* code set Fh (reserved): no designation descriptor starts so */
	memcpy(out + 1, &d->rdev, sizeof(d->rdev));
	return 1 + sizeof(d->rdev);
}

void
xch_locate_self(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev, uint64_t *dev_lba,
		uint64_t *run)
{
	const struct xcopy_caps *c = &h->caps;

	*dev = h;
	*dev_lba = lba;
	*run = lba >= c->part_start && lba - c->part_start <= c->part_blocks
		       ? c->part_blocks - (lba - c->part_start)
		       : 0;
}

void
xch_dev_locate(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev, uint64_t *dev_lba,
	       uint64_t *run)
{
	h->kind->locate(h, lba, dev, dev_lba, run);
}

bool
xch_dev_offload(const struct xcopy_dev *d)
{
	return d->kind->offload(d);
}

bool
xch_dev_tables_same(const struct xcopy_dev *d)
{
	return d->kind->tables_same(d);
}

bool
xch_same_always(const struct xcopy_dev *d)
{
	(void)d;
	return true;
}

int
xch_dev_written(struct xcopy_dev *d, uint64_t lba, uint64_t n)
{
	return d->kind->written(d, lba, n);
}

int
xch_written_cache(struct xcopy_dev *d, uint64_t lba, uint64_t n)
{
	uint64_t bs = d->caps.block_size;

	if (d->cache_fd >= 0) {
		(void)posix_fadvise(d->cache_fd, (off_t)(lba * bs), (off_t)(n * bs),
				    POSIX_FADV_DONTNEED);
	}
	return 0;
}

int
xch_written_node(struct xcopy_dev *d, uint64_t lba, uint64_t n)
{
	uint64_t bs = d->caps.block_size;
	int rc = 0;

	if (d->host_fd < 0) {
		return 0;
	}
	if (fdatasync(d->host_fd) != 0) {
		rc = -errno;
	}
	(void)posix_fadvise(d->host_fd, (off_t)(lba * bs), (off_t)(n * bs), POSIX_FADV_DONTNEED);
	return rc;
}

struct xcopy_dev *
xch_dev_new(const struct xch_dev_kind *kind, void *kctx, const char *name)
{
	struct xcopy_dev *d = calloc(1, sizeof(*d));

	if (d == NULL) {
		return NULL;
	}
	d->kind = kind;
	d->kctx = kctx;
	d->cache_fd = -1;
	d->host_fd = -1;
	d->next_list_id = 1;
	snprintf(d->name, sizeof(d->name), "%s", name);
	return d;
}

const struct xcopy_caps *
xcopy_dev_caps(const struct xcopy_dev *dev)
{
	return &dev->caps;
}

void
xcopy_dev_close(struct xcopy_dev *dev)
{
	if (dev == NULL) {
		return;
	}
	dev->kind->close(dev);
	if (dev->cache_fd >= 0) {
		close(dev->cache_fd);
	}
	if (dev->host_fd >= 0) {
		close(dev->host_fd);
	}
	free(dev);
}
