/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table of commands a user:xcopy LU serves (cmds.c): handle_cmd
 * dispatches by it and REPORT SUPPORTED OPERATION CODES reports it, so what
 * the LU claims and what it does cannot drift apart. Self-contained (engine
 * headers only) so the unit tests and the xt-cmds dump tool link it alone.
 */
#ifndef TARGET_CMDS_H
#define TARGET_CMDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xcm/rsoc.h"

/* Who executes a command. */
enum xt_exec {
	XT_X_CORE,      /* tcmu-runner 1.5.4's core (through our read/write/flush/unmap callouts) */
	XT_X_KERNEL,    /* LIO emulates it for TCMU devices; it never reaches the handler */
	XT_X_XCOPY,     /* plugin: EXTENDED COPY through the engine */
	XT_X_RCR,       /* plugin: RECEIVE COPY RESULTS through the engine */
	XT_X_INQUIRY,   /* plugin: VPD 00h and 8Fh; the core the rest */
	XT_X_RSOC,      /* plugin: REPORT SUPPORTED OPERATION CODES */
	XT_X_WSAME,     /* plugin: WRITE SAME with UNMAP = 1 (write_same.c); UNMAP = 0: the core */
};

/* When the LU serves a command (a row's `when`, any combination). */
enum {
	XT_W_ENGINE = 1u << 0,   /* cfgstring xcopy=engine (the default) */
	XT_W_CORE = 1u << 1,     /* cfgstring xcopy=core */
	XT_W_ALUA = 1u << 2,     /* only with an ALUA target port group the core can use */
	XT_W_PR = 1u << 3,       /* only while LIO emulates PR / RESERVE (pgr_support = 1) */
};
#define XT_W_MODES (XT_W_ENGINE | XT_W_CORE)

struct xt_cmd {
	enum xt_exec exec;
	unsigned int when;
	const char *name;
	struct xcm_opcode_desc d;
};

/* What a row's `when` is matched against. */
struct xt_lu_state {
	bool engine;    /* xcopy=engine (else xcopy=core) */
	bool alua;      /* a target port group other than default_tg_pt_gp has members */
	bool pr;        /* attrib/pgr_support = 1 and attrib/emulate_pr = 1 */
};

/* The table, ascending by (opcode, service action); *n rows. */
const struct xt_cmd *xt_cmds(size_t *n);

/* Does the LU in state s serve row c? */
bool xt_cmd_served(const struct xt_cmd *c, const struct xt_lu_state *s);

/*
 * The row that dispatches cdb on an LU in mode s->engine (ALUA/PR conditions
 * are not looked at: those rows go to the core or the kernel, which decide).
 * NULL if none; then *same_op (if not NULL) is a row of the same opcode with
 * another service action, or NULL if the opcode is not served at all.
 */
const struct xt_cmd *xt_cmd_lookup(const struct xt_lu_state *s, const uint8_t *cdb,
				   const struct xt_cmd **same_op);

/* Descriptors of the rows served in state s, ascending; returns the count (<= cap). */
size_t xt_cmd_list(const struct xt_lu_state *s, const struct xcm_opcode_desc **list, size_t cap);

/*
 * REPORT SUPPORTED OPERATION CODES for an LU in state s: check cdb (12
 * bytes), encode into buf[0..cap) truncated to the allocation length.
 * XCM_OK with *stored = bytes written, or an error status in *err.
 */
enum xcm_status xt_rsoc(const struct xt_lu_state *s, const uint8_t *cdb, uint8_t *buf, size_t cap,
			size_t *stored, struct xcm_err *err);

/* 0 if every row is well formed, sorted and unique; else -EINVAL and the bad row in *bad. */
int xt_cmds_check(size_t *bad);

#endif /* TARGET_CMDS_H */
