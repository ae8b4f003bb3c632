/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What peer_lu.c (a remote LU) and peer_deleg.c (delegation of a copy
 * between two LUs of one peer target) share; not for other folders.
 */
#ifndef TARGET_PEER_PRIV_H
#define TARGET_PEER_PRIV_H

#include "peer/peer.h"

struct xt_peer_lu {
	struct xt_lu lu;
	struct xt_lu *self;             /* the LU that received the copy: logs go there */
	struct xt_peer peer;
	struct xt_psess *sess;
	uint32_t block_size;
	uint64_t num_lbas;
	bool broken;                    /* the session timed out or lost its connection */
	bool no_relogin;                /* opening, or checking a new session: no relogin */
	unsigned int relogins;          /* new sessions after a lost connection, this command */
	int tpc;                        /* standard INQUIRY 3PC: 0 not asked, 1 set, -1 clear */
	bool no_cm;                     /* its target refused a delegated copy: gateway from now */
	bool deleg_told;                /* a delegated copy from it logged (once per command) */
	bool have_sense;
	uint8_t status;
	uint8_t sense[18];
	uint8_t sense_len;
};

static inline struct xt_peer_lu *
plu(const struct xt_lu *lu)
{
	return (struct xt_peer_lu *)lu->priv;
}

/* Seconds a command may take: bound_s, less if the deadline is nearer (0: past). */
int xt_peer_timeout_for(uint64_t deadline_ms, int bound_s);
/* One command on the peer's LU; status and sense kept on CHECK CONDITION. 0, or -errno. */
int xt_peer_run(struct xt_peer_lu *p, struct xt_pcmd *c, uint64_t deadline_ms, char *why,
		size_t whylen);

#endif /* TARGET_PEER_PRIV_H */
