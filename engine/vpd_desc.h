/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Third-party Copy VPD page (8Fh) descriptor framing shared by vpd.c and
 * vpd_rod.c (SPC-4 7.8.17.1: THIRD-PARTY COPY DESCRIPTOR TYPE, 2 bytes;
 * THIRD-PARTY COPY DESCRIPTOR LENGTH, 2 bytes, the bytes that follow;
 * variable descriptors padded to a multiple of 4). Private to engine/.
 */
#ifndef XCM_VPD_DESC_H
#define XCM_VPD_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "xcm/xcm.h"

/* Starts a descriptor of this type; returns its offset for xcm_vpd_desc_end(). */
size_t xcm_vpd_desc_begin(struct xcm_wbuf *w, uint16_t type);
/* Pads the descriptor begun at off to a multiple of 4 and patches its DESCRIPTOR LENGTH. */
void xcm_vpd_desc_end(struct xcm_wbuf *w, size_t off);

#endif
