/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Big-endian field access and bounds-checked spans for SCSI wire formats.
 *
 * Every byte is widened before it is shifted, so UBSan stays quiet on any
 * input. Decoders carve one child span per fixed-size structure with
 * xcm_span_sub() (one bounds check per structure) and then read constant
 * offsets inside it. Encoders write through struct xcm_wbuf, which drops bytes
 * past its capacity but keeps counting, so one pass gives both the
 * allocation-length-truncated bytes and the full length.
 */
#ifndef XCM_WIRE_H
#define XCM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline uint16_t
xcm_get_be16(const uint8_t *p)
{
	return (uint16_t)(((uint16_t)p[0] << 8) | (uint16_t)p[1]);
}

static inline uint32_t
xcm_get_be24(const uint8_t *p)
{
	return ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | (uint32_t)p[2];
}

static inline uint32_t
xcm_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
	       (uint32_t)p[3];
}

static inline uint64_t
xcm_get_be64(const uint8_t *p)
{
	return ((uint64_t)xcm_get_be32(p) << 32) | (uint64_t)xcm_get_be32(p + 4);
}

static inline void
xcm_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
xcm_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void
xcm_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
xcm_put_be64(uint8_t *p, uint64_t v)
{
	xcm_put_be32(p, (uint32_t)(v >> 32));
	xcm_put_be32(p + 4, (uint32_t)v);
}

/* A read-only view of received bytes. */
struct xcm_span {
	const uint8_t *p;
	size_t len;
};

static inline struct xcm_span
xcm_span_make(const void *p, size_t len)
{
	struct xcm_span s = { (const uint8_t *)p, len };
	return s;
}

/* Child span [off, off + n) of parent; false (child untouched) if it does not fit. */
static inline bool
xcm_span_sub(struct xcm_span parent, size_t off, size_t n, struct xcm_span *child)
{
	if (off > parent.len || n > parent.len - off) {
		return false;
	}
	child->p = parent.p + off;
	child->len = n;
	return true;
}

/*
 * Output buffer with allocation-length semantics: bytes past cap are dropped,
 * len counts every byte that was put, so len is the full (untruncated) size.
 */
struct xcm_wbuf {
	uint8_t *p;
	size_t cap;
	size_t len;
};

static inline struct xcm_wbuf
xcm_wbuf_make(void *p, size_t cap)
{
	struct xcm_wbuf w = { (uint8_t *)p, cap, 0 };
	if (p != NULL && cap > 0) {
		memset(p, 0, cap);
	}
	return w;
}

/* Bytes actually stored (min of len and cap). */
static inline size_t
xcm_wbuf_stored(const struct xcm_wbuf *w)
{
	return w->len < w->cap ? w->len : w->cap;
}

/* Write n bytes at absolute offset off (dropping what falls past cap); does not move len. */
static inline void
xcm_wbuf_write_at(struct xcm_wbuf *w, size_t off, const void *src, size_t n)
{
	const uint8_t *s = (const uint8_t *)src;
	size_t i;

	for (i = 0; i < n && off + i < w->cap; i++) {
		w->p[off + i] = s[i];
	}
}

/* Append n bytes (NULL src appends zeros). */
static inline void
xcm_wbuf_put(struct xcm_wbuf *w, const void *src, size_t n)
{
	if (src != NULL) {
		xcm_wbuf_write_at(w, w->len, src, n);
	} else {
		size_t i;
		for (i = 0; i < n && w->len + i < w->cap; i++) {
			w->p[w->len + i] = 0;
		}
	}
	w->len += n;
}

static inline void
xcm_wbuf_put8(struct xcm_wbuf *w, uint8_t v)
{
	xcm_wbuf_put(w, &v, 1);
}

static inline void
xcm_wbuf_put16(struct xcm_wbuf *w, uint16_t v)
{
	uint8_t b[2];
	xcm_put_be16(b, v);
	xcm_wbuf_put(w, b, sizeof(b));
}

static inline void
xcm_wbuf_put32(struct xcm_wbuf *w, uint32_t v)
{
	uint8_t b[4];
	xcm_put_be32(b, v);
	xcm_wbuf_put(w, b, sizeof(b));
}

static inline void
xcm_wbuf_put64(struct xcm_wbuf *w, uint64_t v)
{
	uint8_t b[8];
	xcm_put_be64(b, v);
	xcm_wbuf_put(w, b, sizeof(b));
}

/* Patch a big-endian field at an absolute offset (e.g. a length known only at the end). */
static inline void
xcm_wbuf_patch16(struct xcm_wbuf *w, size_t off, uint16_t v)
{
	uint8_t b[2];
	xcm_put_be16(b, v);
	xcm_wbuf_write_at(w, off, b, sizeof(b));
}

static inline void
xcm_wbuf_patch32(struct xcm_wbuf *w, size_t off, uint32_t v)
{
	uint8_t b[4];
	xcm_put_be32(b, v);
	xcm_wbuf_write_at(w, off, b, sizeof(b));
}

#ifdef __cplusplus
}
#endif

#endif /* XCM_WIRE_H */
