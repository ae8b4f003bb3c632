/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* In-memory backend for the copy manager; see fake_backend.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"

struct fake_lu {
	struct fake_be *be;
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

struct fake_be {
	unsigned nlu;
	struct fake_lu lu[FAKE_MAX_LU];
	bool denied[FAKE_MAX_LU][FAKE_MAX_LU];   /* [self][other] */
	struct fake_fault fault;
	struct fake_counters cnt;
	uint64_t clock_ms;
	uint64_t per_call_ms;
	uint64_t per_mib_ms;
};

/* The engine sees struct xt_lu * only; it is one of our struct fake_lu. */
static struct fake_lu *
to_fake(struct xt_lu *lu)
{
	return (struct fake_lu *)(void *)lu;
}

static const struct fake_lu *
to_fake_c(const struct xt_lu *lu)
{
	return (const struct fake_lu *)(const void *)lu;
}

static struct xt_lu *
to_xcm(struct fake_lu *lu)
{
	return (struct xt_lu *)(void *)lu;
}

static void
die(const char *what)
{
	fprintf(stderr, "fake_backend: %s\n", what);
	abort();
}

struct fake_be *
fake_create(void)
{
	struct fake_be *be = calloc(1, sizeof(*be));

	if (be == NULL) {
		die("out of memory");
	}
	return be;
}

void
fake_destroy(struct fake_be *be)
{
	unsigned i;

	if (be == NULL) {
		return;
	}
	for (i = 0; i < be->nlu; i++) {
		free(be->lu[i].data);
	}
	free(be);
}

void
fake_lu_fill(struct xt_lu *xlu, uint32_t seed)
{
	struct fake_lu *lu = to_fake(xlu);
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

struct xt_lu *
fake_lu_add(struct fake_be *be, uint32_t block_size, uint64_t num_blocks, uint32_t seed)
{
	struct fake_lu *lu;

	if (be->nlu == FAKE_MAX_LU) {
		die("too many LUs");
	}
	if (block_size == 0 || num_blocks > SIZE_MAX / block_size) {
		die("LU size");
	}
	lu = &be->lu[be->nlu];
	memset(lu, 0, sizeof(*lu));
	lu->be = be;
	lu->idx = be->nlu;
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
	be->nlu++;
	fake_lu_fill(to_xcm(lu), seed);
	return to_xcm(lu);
}

void
fake_lu_set_desig(struct xt_lu *xlu, uint8_t code_set, uint8_t desig_type, const uint8_t *desig,
		uint8_t len)
{
	struct fake_lu *lu = to_fake(xlu);

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
fake_lu_cscd(const struct xt_lu *xlu, struct xcm_cscd *c)
{
	const struct fake_lu *lu = to_fake_c(xlu);

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
fake_lu_data(struct xt_lu *xlu, size_t *len)
{
	struct fake_lu *lu = to_fake(xlu);

	if (len != NULL) {
		*len = lu->size;
	}
	return lu->data;
}

uint64_t
fake_lu_sum(struct xt_lu *xlu, uint64_t off, uint64_t len)
{
	struct fake_lu *lu = to_fake(xlu);
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
fake_lu_sum_all(struct xt_lu *xlu)
{
	return fake_lu_sum(xlu, 0, UINT64_MAX);
}

void
fake_lu_set_resolve_err(struct xt_lu *xlu, int err)
{
	to_fake(xlu)->resolve_err = err;
}

void
fake_allow(struct fake_be *be, struct xt_lu *self, struct xt_lu *other, bool allowed)
{
	be->denied[to_fake(self)->idx][to_fake(other)->idx] = !allowed;
}

void
fake_set_fault(struct fake_be *be, const struct fake_fault *f)
{
	if (f == NULL) {
		memset(&be->fault, 0, sizeof(be->fault));
	} else {
		be->fault = *f;
	}
}

const struct fake_counters *
fake_counters(const struct fake_be *be)
{
	return &be->cnt;
}

void
fake_reset_counters(struct fake_be *be)
{
	memset(&be->cnt, 0, sizeof(be->cnt));
}

/* ---- struct xcm_backend_ops ---- */

static int
fake_resolve(void *ctx, struct xt_lu *self, const struct xcm_cscd *c, struct xt_lu **out)
{
	struct fake_be *be = ctx;
	struct fake_lu *lu;
	unsigned i;

	be->cnt.resolve_calls++;
	for (i = 0; i < be->nlu; i++) {
		lu = &be->lu[i];
		if (lu->code_set != c->code_set || lu->desig_type != c->desig_type ||
		    lu->desig_len != c->desig_len ||
		    memcmp(lu->desig, c->desig, lu->desig_len) != 0) {
			continue;
		}
		if (lu->resolve_err != 0) {
			return lu->resolve_err;
		}
		if (self != NULL && be->denied[to_fake(self)->idx][i]) {
			return -EACCES;
		}
		*out = to_xcm(lu);
		return 0;
	}
	return -ENOENT;
}

static uint32_t
fake_block_size(void *ctx, struct xt_lu *lu)
{
	return to_fake(lu)->bs;
}

static uint64_t
fake_num_blocks(void *ctx, struct xt_lu *lu)
{
	return to_fake(lu)->nblocks;
}

static bool
in_lu(const struct fake_lu *lu, uint64_t off, uint64_t len)
{
	return off <= lu->size && len <= lu->size - off;
}

static int
fake_copy(void *ctx, struct xt_lu *xsrc, uint64_t src_off, struct xt_lu *xdst, uint64_t dst_off,
	uint64_t len, struct xcm_io_err *ioerr)
{
	struct fake_be *be = ctx;
	struct fake_lu *src = to_fake(xsrc);
	struct fake_lu *dst = to_fake(xdst);
	uint64_t n = len;
	int err = 0;

	be->cnt.copy_calls++;
	if (len > be->cnt.max_copy_len) {
		be->cnt.max_copy_len = len;
	}
	be->clock_ms += be->per_call_ms + be->per_mib_ms * ((len + (1u << 20) - 1) >> 20);
	be->cnt.last_write_end_ms = be->clock_ms;
	if (!in_lu(src, src_off, len) || !in_lu(dst, dst_off, len)) {
		be->cnt.bad_ranges++;
		memset(ioerr, 0, sizeof(*ioerr));
		return -ERANGE;
	}
	if (be->fault.nth != 0 && --be->fault.nth == 0) {
		err = be->fault.err != 0 ? be->fault.err : -EIO;
		n = be->fault.after < len ? be->fault.after : len;
	}
	/* memmove: same-LU overlapping ranges come out as if read whole, then written */
	memmove(dst->data + dst_off, src->data + src_off, (size_t)n);
	be->cnt.bytes += n;
	if (err == 0) {
		return 0;
	}
	memset(ioerr, 0, sizeof(*ioerr));
	ioerr->at_dst = be->fault.at_dst;
	ioerr->done = n;
	ioerr->status = be->fault.status;
	ioerr->sense_len = be->fault.sense_len;
	memcpy(ioerr->sense, be->fault.sense, sizeof(ioerr->sense));
	return err;
}

static uint64_t
fake_now_ms(void *ctx)
{
	struct fake_be *be = ctx;

	be->cnt.clock_reads++;
	return be->clock_ms;
}

void
fake_clock_set(struct fake_be *be, uint64_t start_ms, uint64_t per_call_ms, uint64_t per_mib_ms)
{
	be->clock_ms = start_ms;
	be->per_call_ms = per_call_ms;
	be->per_mib_ms = per_mib_ms;
}

uint64_t
fake_clock(const struct fake_be *be)
{
	return be->clock_ms;
}

void
fake_clock_advance(struct fake_be *be, uint64_t ms)
{
	be->clock_ms += ms;
}

const struct xcm_backend_ops fake_ops = {
	.resolve = fake_resolve,
	.block_size = fake_block_size,
	.num_blocks = fake_num_blocks,
	.copy = fake_copy,
	.now_ms = fake_now_ms,
};
