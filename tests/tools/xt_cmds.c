/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xt-cmds: print the command table of handler_xcopy.so (target/cmds/cmds.c) as a
 * user:xcopy LU in the given state reports it, for tests that compare
 * sg_opcodes' decoding with it. One line per command, ascending:
 *   OP SA LEN [USAGE...]      (hex opcode, hex SA or "-", decimal CDB length)
 * usage: xt-cmds [--core] [--alua] [--no-pr] [--usage] [--names]
 */
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"

int
main(int argc, char **argv)
{
	struct xt_lu_state s = { .engine = true, .alua = false, .pr = true };
	bool usage = false, names = false;
	const struct xt_cmd *t;
	size_t n, i, k, bad;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--core") == 0) {
			s.engine = false;
		} else if (strcmp(argv[a], "--alua") == 0) {
			s.alua = true;
		} else if (strcmp(argv[a], "--no-pr") == 0) {
			s.pr = false;
		} else if (strcmp(argv[a], "--usage") == 0) {
			usage = true;
		} else if (strcmp(argv[a], "--names") == 0) {
			names = true;
		} else {
			fprintf(stderr, "usage: %s [--core] [--alua] [--no-pr] [--usage] [--names]\n",
				argv[0]);
			return 2;
		}
	}
	if (xt_cmds_check(&bad) != 0) {
		fprintf(stderr, "xt-cmds: command table row %zu is malformed\n", bad);
		return 1;
	}
	t = xt_cmds(&n);
	for (i = 0; i < n; i++) {
		if (!xt_cmd_served(&t[i], &s)) {
			continue;
		}
		if (t[i].d.sa_valid) {
			printf("%02x %x %u", t[i].d.opcode, t[i].d.sa, t[i].d.cdb_len);
		} else {
			printf("%02x - %u", t[i].d.opcode, t[i].d.cdb_len);
		}
		for (k = 0; usage && k < t[i].d.cdb_len; k++) {
			printf(" %02x", t[i].d.usage[k]);
		}
		if (names) {
			printf("  %s", t[i].name);
		}
		printf("\n");
	}
	return 0;
}
