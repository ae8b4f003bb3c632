/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcbench: raw token (ODX) commands through SG_IO, for the lab:
 *
 *   xcbench pt DEV ID TIMEOUT TOKFILE RANGES      POPULATE TOKEN, then RRTI; the token
 *                                                 into TOKFILE (RANGES: LBA:N[,LBA:N...])
 *   xcbench wut DEV ID TOKFILE OFFSET DEL RANGES  WRITE USING TOKEN (OFFSET INTO ROD,
 *                                                 DEL_TKN 0/1), then RRTI
 *   xcbench winpat SRC DST SLBA DLBA BLOCKS NRANGES GAP
 *       the Windows pattern: PT of NRANGES ranges of BLOCKS/NRANGES blocks on SRC, GAP
 *       blocks apart from SLBA, RRTI, then WUTs of at most 64 MiB to DST from DLBA on
 *       stepping BLOCK OFFSET INTO TOKEN (DEL_TKN on the last), RRTI after each
 *
 * pt and wut print the command's "status S key K asc A csi C" line, then
 * "rrti op_status O sa A blocks N segs N token T" (T: 1 when a 512-byte
 * token came back). winpat prints one line per command and a summary
 * "winpat ok O wuts N blocks B max_wut_ms M pt_ms P total_ms T" (P: PT + its
 * RRTI, T: from PT to the last RRTI). Exit 0 when every command
 * returned a SCSI status, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xcm/token.h"
#include "copy/xch_copy.h"

int xcbench_odx(int argc, char **argv);
int xcbench_sg_run(const char *dev, struct xch_cmd *c);

#define WUT_STEP_BYTES (64u << 20)   /* Windows: at most 64 MiB per WRITE USING TOKEN */

static uint64_t
num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0') {
		fprintf(stderr, "xcbench: bad number '%s'\n", s);
		exit(1);
	}
	return v;
}

/* "LBA:N,LBA:N" into l->range. */
static void
parse_ranges(const char *s, struct xcm_tok_list *l)
{
	char buf[4096], *tok, *save = NULL, *colon;

	snprintf(buf, sizeof(buf), "%s", s);
	l->nranges = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL && l->nranges < XCM_MAX_RANGES;
	     tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (colon == NULL) {
			fprintf(stderr, "xcbench: bad range '%s'\n", tok);
			exit(1);
		}
		*colon = '\0';
		l->range[l->nranges].lba = num(tok);
		l->range[l->nranges].count = (uint32_t)num(colon + 1);
		l->nranges++;
	}
}

/* PT or WUT of l with list id on dev; the status line printed. */
static int
send_tok(const char *dev, uint8_t sa, uint32_t id, const struct xcm_tok_list *l, uint8_t *st)
{
	uint8_t cdb[XCM_CDB16_LEN], buf[XCM_WUT_HDR_LEN + XCM_MAX_RANGES * XCM_RANGE_DESC_LEN];
	struct xcm_wbuf w = xcm_wbuf_make(buf, sizeof(buf));
	struct xch_cmd c;
	size_t n = xcm_tok_list_encode(sa, l, &w);
	int rc;

	if (sa == XCM_SA_POPULATE_TOKEN) {
		xcm_cdb_populate_token(cdb, id, (uint32_t)n);
	} else {
		xcm_cdb_write_using_token(cdb, id, (uint32_t)n);
	}
	memset(&c, 0, sizeof(c));
	c.cdb = cdb;
	c.cdb_len = sizeof(cdb);
	c.dir = XCH_DIR_OUT;
	c.buf = buf;
	c.len = n;
	rc = xcbench_sg_run(dev, &c);
	*st = c.status;
	return rc;
}

/* RRTI of id: prints the rrti line; 0, or 1 when it did not decode. */
static int
rrti(const char *dev, uint32_t id, struct xcm_rcs4 *st, uint64_t *blocks, uint8_t *tok,
     bool *has)
{
	uint8_t cdb[XCM_CDB16_LEN], buf[1024];
	struct xch_cmd c;

	xcm_cdb_rrti(cdb, id, sizeof(buf));
	memset(&c, 0, sizeof(c));
	memset(buf, 0, sizeof(buf));
	c.cdb = cdb;
	c.cdb_len = sizeof(cdb);
	c.dir = XCH_DIR_IN;
	c.buf = buf;
	c.len = sizeof(buf);
	if (xcbench_sg_run(dev, &c) != 0 || c.status != XCM_SAM_GOOD ||
	    xcm_rrti_decode(xcm_span_make(buf, sizeof(buf) - c.resid), st, blocks, has, tok) != 0) {
		printf("rrti op_status - sa - blocks - segs - token 0\n");
		return 1;
	}
	printf("rrti op_status 0x%02x sa 0x%02x blocks %" PRIu64 " segs %u token %d\n",
	       st->op_status, st->sa, *blocks, st->segs, *has ? 1 : 0);
	return 0;
}

static int
cmd_pt(char **argv)
{
	static struct xcm_tok_list l;
	uint8_t tok[XCM_ROD_TOKEN_LEN], st;
	uint32_t id = (uint32_t)num(argv[3]);
	struct xcm_rcs4 s;
	uint64_t blocks;
	bool has = false;
	FILE *f;

	memset(&l, 0, sizeof(l));
	l.inactivity_s = (uint32_t)num(argv[4]);
	parse_ranges(argv[6], &l);
	if (send_tok(argv[2], XCM_SA_POPULATE_TOKEN, id, &l, &st) != 0) {
		return 1;
	}
	if (rrti(argv[2], id, &s, &blocks, tok, &has) != 0 || !has) {
		return st == XCM_SAM_GOOD;   /* a failed PT has no token: not an error here */
	}
	f = fopen(argv[5], "wb");
	if (f == NULL || fwrite(tok, 1, sizeof(tok), f) != sizeof(tok) || fclose(f) != 0) {
		perror(argv[5]);
		return 1;
	}
	return 0;
}

static int
cmd_wut(char **argv)
{
	static struct xcm_tok_list l;
	uint32_t id = (uint32_t)num(argv[3]);
	uint8_t tok[XCM_ROD_TOKEN_LEN], st;
	struct xcm_rcs4 s;
	uint64_t blocks;
	bool has;
	FILE *f = fopen(argv[4], "rb");

	memset(&l, 0, sizeof(l));
	if (f == NULL || fread(l.token, 1, sizeof(l.token), f) != sizeof(l.token)) {
		perror(argv[4]);
		return 1;
	}
	fclose(f);
	l.offset = num(argv[5]);
	l.del_tkn = num(argv[6]) != 0;
	parse_ranges(argv[7], &l);
	if (send_tok(argv[2], XCM_SA_WRITE_USING_TOKEN, id, &l, &st) != 0) {
		return 1;
	}
	rrti(argv[2], id, &s, &blocks, tok, &has);
	return 0;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The WUT loop of the Windows pattern; *ok cleared on any deviation. */
static int
winpat_wuts(const char *dst, uint32_t id, struct xcm_tok_list *l, uint64_t dlba,
	    uint64_t total, bool *ok, unsigned *nwut, uint64_t *max_ms)
{
	const uint64_t step = WUT_STEP_BYTES / 512;
	uint8_t tok[XCM_ROD_TOKEN_LEN], st;
	uint64_t done = 0, blocks, t0, ms;
	struct xcm_rcs4 s;
	bool has;

	while (done < total) {
		uint64_t n = total - done < step ? total - done : step;

		l->nranges = 1;
		l->range[0].lba = dlba + done;
		l->range[0].count = (uint32_t)n;
		l->offset = done;                   /* BLOCK OFFSET INTO TOKEN */
		l->del_tkn = done + n == total;     /* the last one deletes the token */
		t0 = now_ms();
		if (send_tok(dst, XCM_SA_WRITE_USING_TOKEN, ++id, l, &st) != 0) {
			return 1;
		}
		ms = now_ms() - t0;
		*max_ms = ms > *max_ms ? ms : *max_ms;
		(*nwut)++;
		if (st != XCM_SAM_GOOD || rrti(dst, id, &s, &blocks, tok, &has) != 0 ||
		    s.op_status != XCM_RCS4_DONE || s.sa != XCM_SA_WRITE_USING_TOKEN || blocks != n ||
		    s.segs != 0) {
			*ok = false;
			return 0;
		}
		done += n;
	}
	return 0;
}

static int
cmd_winpat(char **argv)
{
	static struct xcm_tok_list l;
	uint64_t slba = num(argv[4]), dlba = num(argv[5]), total = num(argv[6]);
	uint32_t nr = (uint32_t)num(argv[7]), gap = (uint32_t)num(argv[8]), i, id = 0x5000;
	uint64_t per = nr != 0 ? total / nr : 0, blocks = 0, max_ms = 0, t0, t_pt;
	uint8_t tok[XCM_ROD_TOKEN_LEN], st;
	struct xcm_rcs4 s;
	unsigned nwut = 0;
	bool has = false, ok = true;

	if (nr == 0 || nr > XCM_MAX_RANGES || per * nr != total || per > UINT32_MAX) {
		fprintf(stderr, "xcbench winpat: BLOCKS must split into 1..64 equal ranges\n");
		return 1;
	}
	memset(&l, 0, sizeof(l));
	l.nranges = nr;
	for (i = 0; i < nr; i++) {
		l.range[i].lba = slba + i * (per + gap);
		l.range[i].count = (uint32_t)per;
	}
	t0 = now_ms();
	if (send_tok(argv[2], XCM_SA_POPULATE_TOKEN, id, &l, &st) != 0 ||
	    rrti(argv[2], id, &s, &blocks, tok, &has) != 0) {
		return 1;
	}
	/* what Windows checks after PT: completed, PT's SA, blocks, 0 segments, a token */
	ok = st == XCM_SAM_GOOD && has && s.op_status == XCM_RCS4_DONE &&
	     s.sa == XCM_SA_POPULATE_TOKEN && blocks == total && s.segs == 0;
	t_pt = now_ms() - t0;
	memset(&l, 0, sizeof(l));
	memcpy(l.token, tok, sizeof(tok));
	if (ok && winpat_wuts(argv[3], id, &l, dlba, total, &ok, &nwut, &max_ms) != 0) {
		return 1;
	}
	printf("winpat ok %d wuts %u blocks %" PRIu64 " max_wut_ms %" PRIu64 " pt_ms %" PRIu64
	       " total_ms %" PRIu64 "\n", ok ? 1 : 0, nwut, total, max_ms, t_pt, now_ms() - t0);
	return 0;
}

/* argv[1] is pt, wut or winpat; -1 if it is none of them. */
int
xcbench_odx(int argc, char **argv)
{
	if (strcmp(argv[1], "pt") == 0 && argc == 7) {
		return cmd_pt(argv);
	}
	if (strcmp(argv[1], "wut") == 0 && argc == 8) {
		return cmd_wut(argv);
	}
	if (strcmp(argv[1], "winpat") == 0 && argc == 9) {
		return cmd_winpat(argv);
	}
	return -1;
}
