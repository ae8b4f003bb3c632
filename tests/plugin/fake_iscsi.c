/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fake libiscsi for the dlopen harness: the part of libiscsi's API the
 * plugin's peer sessions use (target/peer/peer_iscsi.c), defined here and
 * exported by the harness (-rdynamic), so the plugin's references bind to
 * these before the real libiscsi.so it names. One remote target with one LU
 * held in memory (g_fi), and optionally a second one (LUN lun2): its name,
 * designators, geometry, the initiator and CHAP it accepts, the Nth
 * WRITE(16) failing with a chosen sense, a restart (g_fi.epoch: sessions
 * logged in before it are dead), a copy manager (EXTENDED COPY LID1, one
 * 02h segment between its LUs; or none: 3PC = 0, ILLEGAL REQUEST),
 * discovery (SendTargets names the target and others whose logins fail,
 * each with a TargetAddress nobody may use; REPORT LUNS), and counters of
 * what the plugin sent.
 */
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "fake_iscsi.h"

struct fake_iscsi g_fi;

static void data_in(struct scsi_task *t, const void *src, size_t n);

struct iscsi_context {
	char initiator[256];
	char target[256];
	char user[256];
	char secret[256];
	bool logged_in;
	bool discovery;
	unsigned int epoch;   /* g_fi.epoch at login: a later one means the connection is gone */
	unsigned int ua;      /* UNIT ATTENTIONs still pending on this session */
	const char *err;
};

void
fake_iscsi_reset(uint32_t block_size, uint64_t nblocks, const uint8_t desig[16])
{
	int live = g_fi.contexts;   /* sessions the plugin's pool still holds */

	free(g_fi.medium);
	free(g_fi.medium2);
	memset(&g_fi, 0, sizeof(g_fi));
	g_fi.contexts = live;
	g_fi.block_size = block_size;
	g_fi.nblocks = nblocks;
	g_fi.medium = calloc(nblocks, block_size);
	memcpy(g_fi.desig, desig, 16);
	strcpy(g_fi.target, "iqn.2026-12.org.test:peer");
	strcpy(g_fi.initiator, "iqn.2026-12.org.test:cm");
	g_fi.lun1 = 5;
}

void
fake_iscsi_add_lu2(uint16_t lun, const uint8_t desig[16])
{
	g_fi.has_lu2 = true;
	g_fi.lun2 = lun;
	memcpy(g_fi.desig2, desig, 16);
	g_fi.medium2 = calloc(g_fi.nblocks, g_fi.block_size);
}

struct iscsi_context *
iscsi_create_context(const char *initiator_name)
{
	struct iscsi_context *c = calloc(1, sizeof(*c));

	if (c != NULL) {
		strncpy(c->initiator, initiator_name, sizeof(c->initiator) - 1);
		g_fi.contexts++;
	}
	return c;
}

int
iscsi_destroy_context(struct iscsi_context *c)
{
	g_fi.contexts--;
	free(c);
	return 0;
}

int
iscsi_set_targetname(struct iscsi_context *c, const char *name)
{
	strncpy(c->target, name, sizeof(c->target) - 1);
	return 0;
}

int
iscsi_set_session_type(struct iscsi_context *c, enum iscsi_session_type t)
{
	c->discovery = t == ISCSI_SESSION_DISCOVERY;
	return t == ISCSI_SESSION_NORMAL || t == ISCSI_SESSION_DISCOVERY ? 0 : -1;
}

int
iscsi_set_header_digest(struct iscsi_context *c, enum iscsi_header_digest d)
{
	return 0;
}

int
iscsi_set_initiator_username_pwd(struct iscsi_context *c, const char *user, const char *passwd)
{
	strncpy(c->user, user, sizeof(c->user) - 1);
	strncpy(c->secret, passwd, sizeof(c->secret) - 1);
	return 0;
}

void
iscsi_set_noautoreconnect(struct iscsi_context *c, int state)
{
}

void
iscsi_set_tcp_syncnt(struct iscsi_context *c, int value)
{
}

int
iscsi_set_timeout(struct iscsi_context *c, int timeout)
{
	g_fi.last_timeout = timeout;
	return 0;
}

const char *
iscsi_get_error(struct iscsi_context *c)
{
	return c->err != NULL ? c->err : "";
}

/* A normal session's login: the target, initiator and CHAP it accepts. */
static int
normal_login(struct iscsi_context *c)
{
	g_fi.logins++;
	if (strcmp(c->target, g_fi.target) != 0 || strcmp(c->initiator, g_fi.initiator) != 0 ||
	    strcmp(c->user, g_fi.chap_user) != 0 || strcmp(c->secret, g_fi.chap_secret) != 0) {
		c->err = "Failed to log in to target. Status: Authorization failure(513)";
		return -1;
	}
	c->logged_in = true;
	c->epoch = g_fi.epoch;
	c->ua = g_fi.login_ua;
	return 0;
}

/*
 * As libiscsi 1.19's: connect, log in following a redirect to wherever the
 * target sends it, then TEST UNIT READY until no UNIT ATTENTION is left.
 */
int
iscsi_full_connect_sync(struct iscsi_context *c, const char *portal, int lun)
{
	int rc;

	strncpy(g_fi.portal, portal, sizeof(g_fi.portal) - 1);
	g_fi.foreign += strcmp(portal, "127.0.0.1:3262") != 0;
	g_fi.foreign += g_fi.redirect;
	rc = normal_login(c);
	if (rc == 0) {
		g_fi.turs += c->ua + 1;
		c->ua = 0;
	}
	return rc;
}

int
iscsi_connect_sync(struct iscsi_context *c, const char *portal)
{
	strncpy(g_fi.portal, portal, sizeof(g_fi.portal) - 1);
	if (strcmp(portal, "127.0.0.1:3262") != 0) {
		g_fi.foreign++;
		c->err = "connection refused";
		return -1;
	}
	return 0;
}

/* After iscsi_connect_sync: a discovery session (any initiator), or the target's login. */
int
iscsi_login_sync(struct iscsi_context *c)
{
	if (c->discovery) {
		if (g_fi.no_discovery) {
			c->err = "Failed to log in to target. Status: Target not found(515)";
			return -1;
		}
		c->logged_in = true;
		c->epoch = g_fi.epoch;
		return 0;
	}
	if (g_fi.redirect) {
		c->err = "Failed to log in to target. Status: Target moved temporarily(257)";
		return -1;
	}
	return normal_login(c);
}

static struct iscsi_discovery_address *
disc_entry(const char *name, struct iscsi_discovery_address *next)
{
	struct iscsi_discovery_address *a = calloc(1, sizeof(*a));
	struct iscsi_target_portal *tp = calloc(1, sizeof(*tp));

	a->target_name = strdup(name);
	a->portals = tp;
	tp->portal = strdup("10.99.0.1:3260,1");   /* never to be used */
	a->next = next;
	return a;
}

struct iscsi_discovery_address *
iscsi_discovery_sync(struct iscsi_context *c)
{
	struct iscsi_discovery_address *da = NULL;
	int i;

	if (!c->discovery || !c->logged_in) {
		c->err = "Trying to do discovery on non-discovery session.";
		return NULL;
	}
	g_fi.discoveries++;
	for (i = 1; i >= 0; i--) {
		if (g_fi.other[i][0] != '\0') {
			da = disc_entry(g_fi.other[i], da);
		}
	}
	return disc_entry(g_fi.target, da);
}

void
iscsi_free_discovery_data(struct iscsi_context *c, struct iscsi_discovery_address *da)
{
	struct iscsi_discovery_address *n;

	for (; da != NULL; da = n) {
		n = da->next;
		free((char *)da->portals->portal);
		free(da->portals);
		free((char *)da->target_name);
		free(da);
	}
}

/* REPORT LUNS: lun1, and lun2 if there is one (peripheral or flat addressing) */
static void
report_luns(struct scsi_task *t)
{
	uint8_t buf[24] = { 0 };
	uint16_t luns[2] = { g_fi.lun1, g_fi.lun2 };
	int i, n = g_fi.has_lu2 ? 2 : 1;

	g_fi.report_luns++;
	buf[3] = (uint8_t)(8 * n);
	for (i = 0; i < n; i++) {
		buf[8 + 8 * i] = luns[i] < 256 ? 0 : (uint8_t)(0x40 | luns[i] >> 8);
		buf[9 + 8 * i] = (uint8_t)luns[i];
	}
	data_in(t, buf, (size_t)(8 + 8 * n));
}

int
iscsi_logout_sync(struct iscsi_context *c)
{
	g_fi.logouts++;
	c->logged_in = false;
	return 0;
}

struct scsi_task *
scsi_create_task(int cdb_size, unsigned char *cdb, int xfer_dir, int expxferlen)
{
	struct scsi_task *t = calloc(1, sizeof(*t));

	if (t != NULL) {
		memcpy(t->cdb, cdb, (size_t)cdb_size);
		t->cdb_size = cdb_size;
		t->xfer_dir = xfer_dir;
		t->expxferlen = expxferlen;
	}
	return t;
}

void
scsi_free_scsi_task(struct scsi_task *t)
{
	if (t != NULL) {
		free(t->datain.data);
		free(t);
	}
}

static uint64_t
be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0) {
		v = v << 8 | *p++;
	}
	return v;
}

static void
data_in(struct scsi_task *t, const void *src, size_t n)
{
	t->datain.data = malloc(n);
	memcpy(t->datain.data, src, n);
	t->datain.size = (int)n;
}

static void
check_condition(struct scsi_task *t, uint8_t key, uint16_t asc_ascq)
{
	t->status = SCSI_STATUS_CHECK_CONDITION;
	t->sense.key = (enum scsi_sense_key)key;
	t->sense.ascq = asc_ascq;
}

static bool
is_lu2(int lun)
{
	return g_fi.has_lu2 && lun == g_fi.lun2;
}

static uint8_t *
medium_of(int lun)
{
	return is_lu2(lun) ? g_fi.medium2 : g_fi.medium;
}

/* The medium of the LU whose designator is at p (16 bytes), NULL: none. */
static uint8_t *
medium_named(const uint8_t *p)
{
	if (memcmp(p, g_fi.desig, 16) == 0) {
		return g_fi.medium;
	}
	return g_fi.has_lu2 && memcmp(p, g_fi.desig2, 16) == 0 ? g_fi.medium2 : NULL;
}

/* EXTENDED COPY (LID1): recorded; two E4h CSCDs (NAA 16 bytes) and one 02h segment copied. */
static void
xcopy(int lun, struct scsi_task *t, const struct iscsi_data *d)
{
	const uint8_t *l = d != NULL ? d->data : NULL;
	uint64_t cl, slba, dlba, n;
	uint8_t *m[2];
	const uint8_t *sg;
	int i;

	g_fi.xcopies++;
	g_fi.xcopy_lun = lun;
	g_fi.xcopy_len = d != NULL ? (uint32_t)d->size : 0;
	if (l != NULL && d->size <= (int)sizeof(g_fi.xcopy_list)) {
		memcpy(g_fi.xcopy_list, l, (size_t)d->size);
	}
	if (g_fi.no_xcopy || g_fi.no_3pc) {
		check_condition(t, 0x05, 0x2000);
		return;
	}
	if (g_fi.fail_xcopy_nth != 0 && g_fi.xcopies == g_fi.fail_xcopy_nth) {
		check_condition(t, g_fi.fail_xcopy_key, g_fi.fail_xcopy_asc);
		return;
	}
	cl = l != NULL && d->size >= 16 ? be(l + 2, 2) : 0;
	if (l != NULL && d->size > 16 + 32 + 8 && cl == 32 && l[16 + 32] == 0xc0) {
		uint32_t r = g_fi.on_token != NULL ? g_fi.on_token(l, (uint32_t)d->size) : 0x52609;

		if (r != 0) {
			check_condition(t, (uint8_t)(r >> 16), (uint16_t)r);
		}
		return;
	}
	if (l == NULL || cl != 64 || be(l + 8, 4) != 28 || d->size != 16 + 64 + 28) {
		check_condition(t, 0x05, 0x2600);
		return;
	}
	for (i = 0; i < 2; i++) {
		m[i] = l[16 + 32 * i] == 0xe4 && l[16 + 32 * i + 7] == 16 ?
		       medium_named(l + 16 + 32 * i + 8) : NULL;
	}
	sg = l + 16 + cl;
	n = be(sg + 10, 2);
	slba = be(sg + 12, 8);
	dlba = be(sg + 20, 8);
	if (sg[0] != 0x02 || be(sg + 4, 2) > 1 || be(sg + 6, 2) > 1 || m[be(sg + 4, 2)] == NULL ||
	    m[be(sg + 6, 2)] == NULL) {
		check_condition(t, 0x0a, 0x0802);   /* COPY ABORTED, unreachable copy target */
		return;
	}
	if (slba + n > g_fi.nblocks || dlba + n > g_fi.nblocks) {
		check_condition(t, 0x0a, 0x0d01);
		return;
	}
	memmove(m[be(sg + 6, 2)] + dlba * g_fi.block_size, m[be(sg + 4, 2)] + slba * g_fi.block_size,
		n * g_fi.block_size);
	g_fi.xcopy_bytes += n * g_fi.block_size;
	if (g_fi.on_xcopy != NULL) {
		g_fi.on_xcopy();
	}
}

struct scsi_task *
iscsi_scsi_command_sync(struct iscsi_context *c, int lun, struct scsi_task *t,
			struct iscsi_data *d)
{
	uint8_t buf[64];
	uint8_t *medium = medium_of(lun);
	uint64_t lba, n;

	if (!c->logged_in || c->epoch != g_fi.epoch) {
		c->err = NULL;   /* libiscsi 1.19 has no text for a connection reset by the peer */
		return NULL;
	}
	t->status = SCSI_STATUS_GOOD;
	if (t->cdb[0] == 0x00) {
		g_fi.turs++;
	}
	if (c->ua > 0 && t->cdb[0] != 0x12 && t->cdb[0] != 0xa0) {
		c->ua--;
		check_condition(t, 0x06, 0x2900);
		return t;
	}
	switch (t->cdb[0]) {
	case 0x00:   /* TEST UNIT READY */
		break;
	case 0x12:   /* INQUIRY, VPD 83h: one NAA designator, LU association */
		if ((t->cdb[1] & 1) == 0) {   /* standard: 3PC in byte 5 */
			g_fi.std_inquiries++;
			memset(buf, 0, 36);
			buf[2] = 0x06;
			buf[4] = 31;
			buf[5] = g_fi.no_3pc ? 0 : 0x08;
			data_in(t, buf, 36);
			break;
		}
		g_fi.inquiries++;
		memset(buf, 0, sizeof(buf));
		buf[1] = 0x83;
		buf[3] = 20;
		buf[4] = 0x01;
		buf[5] = 0x03;
		buf[7] = 16;
		memcpy(buf + 8, g_fi.report_desig ? g_fi.report_desig :
				is_lu2(lun) ? g_fi.desig2 : g_fi.desig, 16);
		data_in(t, buf, 24);
		break;
	case 0x9e:   /* READ CAPACITY(16) */
		memset(buf, 0, 32);
		for (n = 0; n < 8; n++) {
			buf[n] = (uint8_t)((g_fi.nblocks - 1) >> (56 - 8 * n));
		}
		buf[8] = (uint8_t)(g_fi.block_size >> 24);
		buf[9] = (uint8_t)(g_fi.block_size >> 16);
		buf[10] = (uint8_t)(g_fi.block_size >> 8);
		buf[11] = (uint8_t)g_fi.block_size;
		data_in(t, buf, 32);
		break;
	case 0x88:   /* READ(16) */
	case 0x8a:   /* WRITE(16) */
		lba = be(t->cdb + 2, 8);
		n = be(t->cdb + 10, 4);
		if (lba + n > g_fi.nblocks) {
			check_condition(t, 0x05, 0x2100);
			break;
		}
		if (t->cdb[0] == 0x88) {
			g_fi.reads++;
			g_fi.read_bytes += n * g_fi.block_size;
			data_in(t, medium + lba * g_fi.block_size, n * g_fi.block_size);
			break;
		}
		g_fi.writes++;
		if (g_fi.drop_writes || (g_fi.drop_write_nth != 0 &&
					 g_fi.writes == g_fi.drop_write_nth)) {
			g_fi.epoch++;    /* libiscsi failed the connection under it */
			c->err = "iscsi_write_to_socket: outqueue[0]->cmdsn < expcmdsn";
			return NULL;
		}
		if (g_fi.fail_write_nth != 0 && g_fi.writes == g_fi.fail_write_nth) {
			check_condition(t, g_fi.fail_key, g_fi.fail_asc);
			break;
		}
		if (d == NULL || d->size != n * g_fi.block_size) {
			check_condition(t, 0x05, 0x2400);
			break;
		}
		memcpy(medium + lba * g_fi.block_size, d->data, d->size);
		g_fi.write_bytes += d->size;
		if (g_fi.on_write != NULL) {
			g_fi.on_write();
		}
		break;
	case 0xa0:   /* REPORT LUNS */
		report_luns(t);
		break;
	case 0x91:   /* SYNCHRONIZE CACHE(16) */
		g_fi.syncs++;
		break;
	case 0x83:   /* EXTENDED COPY (LID1) */
		if ((t->cdb[1] & 0x1f) != 0) {
			check_condition(t, 0x05, 0x2400);
			break;
		}
		xcopy(lun, t, d);
		break;
	default:
		check_condition(t, 0x05, 0x2000);
		break;
	}
	return t;
}
