/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Initiator-side SPC/SBC commands other than the copy commands: CDB builders
 * and response decoders for discovery (standard INQUIRY, VPD 0x83 and 0xB0,
 * READ CAPACITY(16)) and for the host's READ(16)/WRITE(16) fallback.
 *
 * Kept in the engine because the engine is the one home of wire layouts; the
 * host library (host/) builds every CDB and decodes every response through
 * these functions and xcm.h. Decoders take hostile bytes: they bounds-check
 * once per structure and return -EINVAL on anything short or inconsistent.
 */
#ifndef XCM_INITIATOR_H
#define XCM_INITIATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcm/spc.h"
#include "xcm/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	XCM_CDB6_LEN = 6,
	XCM_STD_INQUIRY_MIN = 36,      /* standard INQUIRY data through PRODUCT REVISION */
	XCM_READ_CAP16_LEN = 32,       /* READ CAPACITY(16) parameter data */
	XCM_VPD_HDR_LEN = 4,
	XCM_DESIG_HDR_LEN = 4,         /* VPD 0x83 designation descriptor header */
	XCM_REPORT_LUNS_HDR = 8,       /* REPORT LUNS parameter data header */
};

/* INQUIRY (6 bytes); evpd false: standard data (page must be 0). */
void xcm_cdb_inquiry(uint8_t *cdb, bool evpd, uint8_t page, uint16_t alloc_len);
/* SERVICE ACTION IN(16) / READ CAPACITY(16) (16 bytes). */
void xcm_cdb_read_capacity16(uint8_t *cdb, uint32_t alloc_len);
/* READ(16) / WRITE(16) (16 bytes), no protection, no FUA. */
void xcm_cdb_read16(uint8_t *cdb, uint64_t lba, uint32_t nblocks);
void xcm_cdb_write16(uint8_t *cdb, uint64_t lba, uint32_t nblocks);
/* Decode a READ(16)/WRITE(16) CDB (for fakes and tracing). 0 or -EINVAL. */
int xcm_cdb_rw16_decode(const uint8_t *cdb, size_t len, uint64_t *lba, uint32_t *nblocks);

struct xcm_std_inquiry {
	uint8_t pdt_byte;      /* byte 0: qualifier + peripheral device type */
	uint8_t version;       /* byte 2 */
	bool tpc;              /* byte 5 bit 3: 3PC */
	char vendor[9];        /* bytes 8-15, NUL terminated, trailing blanks kept */
	char product[17];      /* bytes 16-31 */
	char revision[5];      /* bytes 32-35 */
};
/* 0, or -EINVAL when shorter than 36 bytes. */
int xcm_inquiry_std_decode(struct xcm_span s, struct xcm_std_inquiry *out);

/* One VPD 0x83 designation descriptor. */
struct xcm_designator {
	uint8_t proto;         /* byte 0 bits 7:4 */
	uint8_t code_set;      /* XCM_CODE_SET_* */
	bool piv;
	uint8_t assoc;         /* XCM_ASSOC_* (0 LU, 1 target port, 2 target device) */
	uint8_t type;          /* XCM_DESIG_* */
	uint8_t len;           /* DESIGNATOR LENGTH */
	const uint8_t *desc;   /* the whole descriptor (header + body), inside the page */
	size_t desc_len;       /* 4 + len */
	const uint8_t *body;   /* the designator bytes */
};
/*
 * Walk page 0x83: *off starts at 0 and is advanced past each descriptor.
 * Returns 1 with *out filled, 0 at the end of the page, -EINVAL when the
 * page is not 0x83, is truncated, or a descriptor runs past PAGE LENGTH or
 * the bytes received.
 */
int xcm_vpd_devid_next(struct xcm_span page, size_t *off, struct xcm_designator *out);

/* REPORT LUNS (12 bytes), SELECT REPORT 00h (the LUs of the I_T nexus). */
void xcm_cdb_report_luns(uint8_t *cdb, uint32_t alloc_len);
/*
 * Walk REPORT LUNS parameter data: *off starts at 0 and is advanced past
 * each entry. 1 with *lun for a single-level LUN of peripheral (00b, bus 0)
 * or flat space (01b) addressing, 0 at the end (LUN LIST LENGTH or the
 * bytes received, whichever is shorter; a partial entry ends it), -EINVAL
 * when the 8-byte header is not there. Other entries (well-known LUs,
 * other address methods, more levels) are skipped.
 */
int xcm_report_luns_next(struct xcm_span s, size_t *off, uint16_t *lun);

/* Block Limits VPD page (0xB0), the fields the host uses. */
struct xcm_block_limits {
	uint32_t max_xfer_len;     /* MAXIMUM TRANSFER LENGTH, blocks (0: not reported) */
	uint32_t opt_xfer_len;     /* OPTIMAL TRANSFER LENGTH, blocks */
	uint16_t opt_xfer_gran;    /* OPTIMAL TRANSFER LENGTH GRANULARITY, blocks */
};
/* 0, or -EINVAL when not page 0xB0 or shorter than 16 bytes. */
int xcm_vpd_b0_decode(struct xcm_span page, struct xcm_block_limits *out);

struct xcm_capacity {
	uint64_t last_lba;     /* RETURNED LOGICAL BLOCK ADDRESS */
	uint32_t block_len;    /* LOGICAL BLOCK LENGTH IN BYTES */
	uint8_t lbppbe;        /* LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT */
};
/* 0, or -EINVAL when shorter than 12 bytes or the block length is 0. */
int xcm_read_capacity16_decode(struct xcm_span s, struct xcm_capacity *out);

#ifdef __cplusplus
}
#endif

#endif /* XCM_INITIATOR_H */
