/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host/transport/: the seam under the device handles: one CDB with data in
 * or out, status, sense and residual, sent through SG_IO (transport_sg.c)
 * or a libiscsi session (transport_iscsi.c). Host-internal (xch_ prefix,
 * hidden by the version script).
 */
#ifndef XCH_TRANSPORT_H
#define XCH_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcm/xcm.h"

enum xch_dir {
	XCH_DIR_NONE = 0,
	XCH_DIR_IN,            /* from the device */
	XCH_DIR_OUT,           /* to the device */
};

struct xch_cmd {
	/* in */
	const uint8_t *cdb;
	uint8_t cdb_len;
	enum xch_dir dir;
	void *buf;
	size_t len;
	unsigned timeout_s;
	/* out (valid when exec returned 0) */
	uint8_t status;        /* SCSI status */
	uint8_t sense_len;
	uint8_t sense[XCM_SENSE_MAX];
	size_t resid;          /* bytes not transferred */
};

struct xch_transport_ops {
	const char *name;
	/*
	 * 0 once the device returned a SCSI status (cmd->status, sense and
	 * resid filled); -errno when no status came back (-EPERM: the kernel
	 * refused the opcode, -ETIMEDOUT, -EIO, -ENOTCONN).
	 */
	int (*exec)(void *ctx, struct xch_cmd *cmd);
	void (*close)(void *ctx);
	bool concurrent;       /* exec may run in several threads at once */
};

/*
 * Most EXTENDED COPY commands one copy keeps outstanding (sg: 16 per fd);
 * also the most sessions an iSCSI transport opens for them.
 */
#define XCH_INFLIGHT_MAX 16u

/* SG_IO through libsgutils2 on an open /dev/sdX or /dev/sgN path. */
int xch_sg_open(const char *path, const struct xch_transport_ops **ops, void **ctx);
/* libiscsi session for iscsi://host[:port]/iqn/lun. */
int xch_iscsi_open(const char *url, const struct xch_transport_ops **ops, void **ctx);

#endif /* XCH_TRANSPORT_H */
