/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* In-memory backend for the copy manager; see fake_backend.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"

struct fb_lu {
	struct fb *fb;
	unsigned idx;
	uint32_t bs;
	uint64_t nblocks;
	size_t size;
	uint8_t *data;
	uint8_t code_set;
	uint8_t desig_type;
	uint8_t desig_len;
	uint8_t desig[XCM_DESIG_MAX];
	int resolve_err;
};

struct fb {
	unsigned nlu;
	struct fb_lu lu[FB_MAX_LU];
	bool denied[FB_MAX_LU][FB_MAX_LU];   /* [self][other] */
	struct fb_fault fault;
	struct fb_counters cnt;
	uint64_t clock_ms;
	uint64_t per_call_ms;
	uint64_t per_mib_ms;
};

/* The engine sees struct xcm_lu * only; it is one of our struct fb_lu. */
static struct fb_lu *
to_fb(struct xcm_lu *lu)
{
	return (struct fb_lu *)(void *)lu;
}

static const struct fb_lu *
to_fb_c(const struct xcm_lu *lu)
{
	return (const struct fb_lu *)(const void *)lu;
}

static struct xcm_lu *
to_xcm(struct fb_lu *lu)
{
	return (struct xcm_lu *)(void *)lu;
}

static void
die(const char *what)
{
	fprintf(stderr, "fake_backend: %s\n", what);
	abort();
}

struct fb *
fb_create(void)
{
	struct fb *fb = calloc(1, sizeof(*fb));

	if (fb == NULL) {
		die("out of memory");
	}
	return fb;
}

void
fb_destroy(struct fb *fb)
{
	unsigned i;

	if (fb == NULL) {
		return;
	}
	for (i = 0; i < fb->nlu; i++) {
		free(fb->lu[i].data);
	}
	free(fb);
}

void
fb_lu_fill(struct xcm_lu *xlu, uint32_t seed)
{
	struct fb_lu *lu = to_fb(xlu);
	uint64_t x = 0x9E3779B97F4A7C15ULL * ((uint64_t)seed + 1);
	size_t i;

	/* xorshift64: no two seeds (or offsets) look alike */
	for (i = 0; i < lu->size; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		lu->data[i] = (uint8_t)(x >> 24);
	}
}

struct xcm_lu *
fb_lu_add(struct fb *fb, uint32_t block_size, uint64_t num_blocks, uint32_t seed)
{
	struct fb_lu *lu;

	if (fb->nlu == FB_MAX_LU) {
		die("too many LUs");
	}
	if (block_size == 0 || num_blocks > SIZE_MAX / block_size) {
		die("LU size");
	}
	lu = &fb->lu[fb->nlu];
	memset(lu, 0, sizeof(*lu));
	lu->fb = fb;
	lu->idx = fb->nlu;
	lu->bs = block_size;
	lu->nblocks = num_blocks;
	lu->size = (size_t)(num_blocks * block_size);
	lu->data = malloc(lu->size > 0 ? lu->size : 1);
	if (lu->data == NULL) {
		die("out of memory");
	}
	/* NAA 6 (IEEE registered extended), 16 bytes, as LIO reports in VPD 0x83 */
	lu->code_set = XCM_CODE_SET_BINARY;
	lu->desig_type = XCM_DESIG_NAA;
	lu->desig_len = 16;
	lu->desig[0] = 0x60;
	lu->desig[1] = 0x01;
	lu->desig[2] = 0x40;
	xcm_put_be32(lu->desig + 8, seed);
	xcm_put_be32(lu->desig + 12, ~seed);
	fb->nlu++;
	fb_lu_fill(to_xcm(lu), seed);
	return to_xcm(lu);
}

void
fb_lu_set_desig(struct xcm_lu *xlu, uint8_t code_set, uint8_t desig_type, const uint8_t *desig,
		uint8_t len)
{
	struct fb_lu *lu = to_fb(xlu);

	if (len > XCM_DESIG_MAX) {
		die("designator too long");
	}
	lu->code_set = code_set;
	lu->desig_type = desig_type;
	lu->desig_len = len;
	memset(lu->desig, 0, sizeof(lu->desig));
	memcpy(lu->desig, desig, len);
}

void
fb_lu_cscd(const struct xcm_lu *xlu, struct xcm_cscd *c)
{
	const struct fb_lu *lu = to_fb_c(xlu);

	memset(c, 0, sizeof(*c));
	c->type = XCM_CSCD_ID;
	c->pdt = XCM_PDT_BLOCK;
	c->code_set = lu->code_set;
	c->assoc = XCM_ASSOC_LU;
	c->desig_type = lu->desig_type;
	c->desig_len = lu->desig_len;
	memcpy(c->desig, lu->desig, lu->desig_len);
}

uint8_t *
fb_lu_data(struct xcm_lu *xlu, size_t *len)
{
	struct fb_lu *lu = to_fb(xlu);

	if (len != NULL) {
		*len = lu->size;
	}
	return lu->data;
}

uint64_t
fb_lu_sum(struct xcm_lu *xlu, uint64_t off, uint64_t len)
{
	struct fb_lu *lu = to_fb(xlu);
	uint64_t h = 0xcbf29ce484222325ULL;
	uint64_t i;

	if (off > lu->size) {
		off = lu->size;
	}
	if (len > lu->size - off) {
		len = lu->size - off;
	}
	for (i = off; i < off + len; i++) {
		h ^= lu->data[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t
fb_lu_sum_all(struct xcm_lu *xlu)
{
	return fb_lu_sum(xlu, 0, UINT64_MAX);
}

void
fb_lu_set_resolve_err(struct xcm_lu *xlu, int err)
{
	to_fb(xlu)->resolve_err = err;
}

void
fb_allow(struct fb *fb, struct xcm_lu *self, struct xcm_lu *other, bool allowed)
{
	fb->denied[to_fb(self)->idx][to_fb(other)->idx] = !allowed;
}

void
fb_set_fault(struct fb *fb, const struct fb_fault *f)
{
	if (f == NULL) {
		memset(&fb->fault, 0, sizeof(fb->fault));
	} else {
		fb->fault = *f;
	}
}

const struct fb_counters *
fb_counters(const struct fb *fb)
{
	return &fb->cnt;
}

void
fb_reset_counters(struct fb *fb)
{
	memset(&fb->cnt, 0, sizeof(fb->cnt));
}

/* ---- struct xcm_backend_ops ---- */

static int
fb_resolve(void *ctx, struct xcm_lu *self, const struct xcm_cscd *c, struct xcm_lu **out)
{
	struct fb *fb = ctx;
	struct fb_lu *lu;
	unsigned i;

	fb->cnt.resolve_calls++;
	for (i = 0; i < fb->nlu; i++) {
		lu = &fb->lu[i];
		if (lu->code_set != c->code_set || lu->desig_type != c->desig_type ||
		    lu->desig_len != c->desig_len ||
		    memcmp(lu->desig, c->desig, lu->desig_len) != 0) {
			continue;
		}
		if (lu->resolve_err != 0) {
			return lu->resolve_err;
		}
		if (self != NULL && fb->denied[to_fb(self)->idx][i]) {
			return -EACCES;
		}
		*out = to_xcm(lu);
		return 0;
	}
	return -ENOENT;
}

static uint32_t
fb_block_size(void *ctx, struct xcm_lu *lu)
{
	return to_fb(lu)->bs;
}

static uint64_t
fb_num_blocks(void *ctx, struct xcm_lu *lu)
{
	return to_fb(lu)->nblocks;
}

static bool
in_lu(const struct fb_lu *lu, uint64_t off, uint64_t len)
{
	return off <= lu->size && len <= lu->size - off;
}

static int
fb_copy(void *ctx, struct xcm_lu *xsrc, uint64_t src_off, struct xcm_lu *xdst, uint64_t dst_off,
	uint64_t len, struct xcm_io_err *ioerr)
{
	struct fb *fb = ctx;
	struct fb_lu *src = to_fb(xsrc);
	struct fb_lu *dst = to_fb(xdst);
	uint64_t n = len;
	int err = 0;

	fb->cnt.copy_calls++;
	if (len > fb->cnt.max_copy_len) {
		fb->cnt.max_copy_len = len;
	}
	fb->clock_ms += fb->per_call_ms + fb->per_mib_ms * ((len + (1u << 20) - 1) >> 20);
	fb->cnt.last_write_end_ms = fb->clock_ms;
	if (!in_lu(src, src_off, len) || !in_lu(dst, dst_off, len)) {
		fb->cnt.bad_ranges++;
		memset(ioerr, 0, sizeof(*ioerr));
		return -ERANGE;
	}
	if (fb->fault.nth != 0 && --fb->fault.nth == 0) {
		err = fb->fault.err != 0 ? fb->fault.err : -EIO;
		n = fb->fault.after < len ? fb->fault.after : len;
	}
	/* memmove: same-LU overlapping ranges come out as if read whole, then written */
	memmove(dst->data + dst_off, src->data + src_off, (size_t)n);
	fb->cnt.bytes += n;
	if (err == 0) {
		return 0;
	}
	memset(ioerr, 0, sizeof(*ioerr));
	ioerr->at_dst = fb->fault.at_dst;
	ioerr->done = n;
	ioerr->status = fb->fault.status;
	ioerr->sense_len = fb->fault.sense_len;
	memcpy(ioerr->sense, fb->fault.sense, sizeof(ioerr->sense));
	return err;
}

static uint64_t
fb_now_ms(void *ctx)
{
	struct fb *fb = ctx;

	fb->cnt.clock_reads++;
	return fb->clock_ms;
}

void
fb_clock_set(struct fb *fb, uint64_t start_ms, uint64_t per_call_ms, uint64_t per_mib_ms)
{
	fb->clock_ms = start_ms;
	fb->per_call_ms = per_call_ms;
	fb->per_mib_ms = per_mib_ms;
}

uint64_t
fb_clock(const struct fb *fb)
{
	return fb->clock_ms;
}

void
fb_clock_advance(struct fb *fb, uint64_t ms)
{
	fb->clock_ms += ms;
}

const struct xcm_backend_ops fb_ops = {
	.resolve = fb_resolve,
	.block_size = fb_block_size,
	.num_blocks = fb_num_blocks,
	.copy = fb_copy,
	.now_ms = fb_now_ms,
};
