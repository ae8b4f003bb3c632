/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EXTENDED COPY off the command thread (target/cm/async.c), driven the way
 * tcmu-runner 1.5.4 drives it: handle_cmd on the "command thread" (the test's
 * main thread) queues the job and returns NOT_HANDLED with the CDB turned into
 * SYNCHRONIZE CACHE(16); the flush callout, called here later or on another
 * thread as the runner's worker pool would, runs it and returns its status.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "xcm/lid4.h"

#define XT_TEST_JOBS 8   /* EXTENDED COPY commands one LU runs at once (docs/target-commands.md) */

/* One command that outlives a call: CDB copy, data-out, the runner's structs. */
struct pcmd {
	struct tcmu_device *d;
	struct tcmulib_cmd lc;
	struct tcmur_cmd rc;
	struct iovec iov;
	uint8_t cdb[16];
	uint8_t buf[4096];
	int sts;
	pthread_t th;
};

/* handle_cmd for g_list on d; returns its TCMU_STS code. */
static int
pc_submit(struct pcmd *p, struct tcmu_device *d)
{
	struct xcm_wbuf w;
	size_t n;

	memset(p, 0, sizeof(*p));
	p->d = d;
	w = xcm_wbuf_make(p->buf, sizeof(p->buf));
	n = xcm_list_encode(g_list, &w);
	xcm_cdb_xcopy(p->cdb, (uint32_t)n);
	p->iov.iov_base = p->buf;
	p->iov.iov_len = n;
	p->lc.cdb = p->cdb;
	p->lc.iovec = &p->iov;
	p->lc.iov_cnt = 1;
	p->lc.hm_private = &p->rc;
	p->rc.lib_cmd = &p->lc;
	p->sts = g_handler->handle_cmd(d, &p->rc);
	return p->sts;
}

/* The same for g_list as a LID4 list with identifier id. */
static int
pc_submit4(struct pcmd *p, struct tcmu_device *d, uint32_t id)
{
	struct xcm_wbuf w;
	size_t n;

	memset(p, 0, sizeof(*p));
	p->d = d;
	g_list->list_id4 = id;
	w = xcm_wbuf_make(p->buf, sizeof(p->buf));
	n = xcm_list_encode_lid4(g_list, &w);
	xcm_cdb_xcopy_lid4(p->cdb, (uint32_t)n);
	p->iov.iov_base = p->buf;
	p->iov.iov_len = n;
	p->lc.cdb = p->cdb;
	p->lc.iovec = &p->iov;
	p->lc.iov_cnt = 1;
	p->lc.hm_private = &p->rc;
	p->rc.lib_cmd = &p->lc;
	p->sts = g_handler->handle_cmd(d, &p->rc);
	return p->sts;
}

/* Handed over as the runner's core expects: NOT_HANDLED, SYNCHRONIZE CACHE(16), a token. */
static bool
pc_handed_over(const struct pcmd *p)
{
	static const uint8_t zero[15];

	return p->sts == TCMU_STS_NOT_HANDLED && p->cdb[0] == 0x91 &&
	       memcmp(p->cdb + 1, zero, sizeof(zero)) == 0 && p->rc.cmd_state != NULL;
}

static void *
pc_flush_main(void *arg)
{
	struct pcmd *p = arg;

	p->sts = g_handler->flush(p->d, &p->rc);
	return NULL;
}

static int
pc_flush(struct pcmd *p)
{
	pc_flush_main(p);
	return p->sts;
}

static void
pc_flush_start(struct pcmd *p)
{
	CHECK(pthread_create(&p->th, NULL, pc_flush_main, p) == 0);
}

static int
pc_flush_join(struct pcmd *p)
{
	pthread_join(p->th, NULL);
	return p->sts;
}

/* RECEIVE COPY RESULTS COPY STATUS of list id on d: -1 if not GOOD. */
static int
copy_status(struct tcmu_device *d, uint8_t id, struct xcm_copy_status *cs)
{
	uint8_t cdb[16], buf[64];

	xcm_cdb_rcr(cdb, XCM_SA_RCR_COPY_STATUS, id, sizeof(buf));
	if (run_cmd(d, cdb, buf, sizeof(buf), NULL) != TCMU_STS_OK) {
		return -1;
	}
	return xcm_rcr_decode_copy_status(xcm_span_make(buf, sizeof(buf)), cs) == 0 ? 0 : -1;
}

static uint64_t
cs_bytes(const struct xcm_copy_status *cs)
{
	return (uint64_t)cs->transfer_count << (10 * cs->units);
}

/* Arm (or with "off", disarm) lu_a's fault; it is read at the next EXTENDED COPY. */
static void
fault_a(const char *spec)
{
	char text[64];

	snprintf(text, sizeof(text), "%s\n", spec);
	put_file("stats/lu_a.fault", text);
}

static void
test_handover_and_limit(void)
{
	struct pcmd *p = calloc(XT_TEST_JOBS + 2, sizeof(*p));
	int i;

	/* one copy: queued on the command thread, run by flush, data moved */
	fill_pattern("a.img", 0, 64 * BS, 0x31);
	list_one(SER_A, SER_A, 64, 0, 1024, XCM_LIST_ID_NONE, 0);
	pc_submit(&p[0], &g_a);
	CHECK(pc_handed_over(&p[0]));
	CHECK(pc_flush(&p[0]) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 1024 * BS, "a.img", 0, 64 * BS));

	/* XT_MAX_JOBS (8) in flight, the next one TASK SET FULL (NO_RESOURCE) */
	for (i = 0; i < XT_TEST_JOBS; i++) {
		list_one(SER_A, SER_A, 8, 0, 2048 + 8 * (uint64_t)i, XCM_LIST_ID_DISCARD,
			 (uint8_t)(100 + i));
		pc_submit(&p[i], &g_a);
		CHECK(pc_handed_over(&p[i]));
	}
	list_one(SER_A, SER_A, 8, 0, 3000, XCM_LIST_ID_DISCARD, 120);
	CHECK(pc_submit(&p[XT_TEST_JOBS], &g_a) == TCMU_STS_NO_RESOURCE);
	CHECK(p[XT_TEST_JOBS].rc.cmd_state == NULL && p[XT_TEST_JOBS].cdb[0] == XCM_OP_XCOPY);
	CHECK(stat_of("lu_a", "busy") == 1);
	CHECK(stat_of("lu_a", "inflight_max") == XT_TEST_JOBS);
	/* list id 120 was not taken by the refused command */
	{
		struct xcm_copy_status cs;
		CHECK(copy_status(&g_a, 120, &cs) == -1);
	}
	/* run them in another order than queued: each finds its own job */
	for (i = XT_TEST_JOBS - 1; i >= 0; i--) {
		CHECK(pc_flush(&p[i]) == TCMU_STS_OK);
		CHECK(same_bytes("a.img", (2048 + 8 * (uint64_t)i) * BS, "a.img", 0, 8 * BS));
	}
	/* room again */
	CHECK(pc_submit(&p[XT_TEST_JOBS + 1], &g_a) == TCMU_STS_NOT_HANDLED);
	CHECK(pc_flush(&p[XT_TEST_JOBS + 1]) == TCMU_STS_OK);
	/* a token that is not (or no longer) a job: BUSY-mapped TIMEOUT, nothing run */
	CHECK(pc_flush(&p[XT_TEST_JOBS + 1]) == TCMU_STS_TIMEOUT);
	free(p);
}

static void
test_list_id_in_progress(void)
{
	struct xcm_copy_status cs;
	struct pcmd p, q;
	uint8_t sense[96];

	list_one(SER_A, SER_A, 16, 0, 4000, XCM_LIST_ID_HOLD, 7);
	pc_submit(&p, &g_a);
	CHECK(pc_handed_over(&p));
	/* queued, not started: the list id is in use already */
	CHECK(copy_status(&g_a, 7, &cs) == 0);
	CHECK(cs.cm_status == XCM_CM_STATUS_IN_PROGRESS && cs.hdd && cs.segs_processed == 0 &&
	      cs_bytes(&cs) == 0);
	list_one(SER_A, SER_A, 16, 0, 5000, XCM_LIST_ID_HOLD, 7);
	CHECK(pc_submit(&q, &g_a) == TCMU_STS_PASSTHROUGH_ERR);
	memcpy(sense, q.lc.sense_buf, sizeof(sense));
	/* SPC-4: ILLEGAL REQUEST, OPERATION IN PROGRESS (00/16), fixed format */
	CHECK(sense_fixed_current(sense, sizeof(sense)) &&
	      sense_is(sense, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_OPERATION_IN_PROGRESS));
	CHECK(q.cdb[0] == XCM_OP_XCOPY && q.rc.cmd_state == NULL);
	/* another id is fine meanwhile */
	list_one(SER_A, SER_A, 16, 0, 5000, XCM_LIST_ID_HOLD, 8);
	CHECK(pc_submit(&q, &g_a) == TCMU_STS_NOT_HANDLED);
	CHECK(pc_flush(&q) == TCMU_STS_OK);
	CHECK(pc_flush(&p) == TCMU_STS_OK);
	CHECK(copy_status(&g_a, 7, &cs) == 0);
	CHECK(cs.cm_status == XCM_CM_STATUS_GOOD && cs.segs_processed == 1 &&
	      cs_bytes(&cs) == 16 * BS);
	/* completed: the id can be used again */
	list_one(SER_A, SER_A, 16, 0, 4000, XCM_LIST_ID_HOLD, 7);
	CHECK(pc_submit(&p, &g_a) == TCMU_STS_NOT_HANDLED);
	CHECK(pc_flush(&p) == TCMU_STS_OK);
}

/* A copy slowed by the delay fault: COPY STATUS while it runs shows progress. */
static void
test_progress(void)
{
	struct xcm_copy_status cs, mid;
	struct pcmd p;
	int seen = 0;

	grow_lu(&g_a, "a.img", 16u << 20);
	fill_pattern("a.img", 0, 8u << 20, 0x5C);
	fault_a("delay:250");
	/*
	 * 8 MiB in the engine's 4 MiB chunks, as without a fault: each chunk's 4
	 * reads and 4 writes of 1 MiB are delayed before its bytes move; held at
	 * chunk 2's 5th delayed call (chunk 2 not copied yet)
	 */
	plugin_gate_hold(12);
	list_one(SER_A, SER_A, (8u << 20) / BS, 0, (8u << 20) / BS, XCM_LIST_ID_HOLD, 9);
	pc_submit(&p, &g_a);
	CHECK(pc_handed_over(&p));
	pc_flush_start(&p);
	memset(&mid, 0, sizeof(mid));
	CHECK(plugin_gate_wait_held());
	if (copy_status(&g_a, 9, &cs) == 0 && cs.cm_status == XCM_CM_STATUS_IN_PROGRESS &&
	    cs_bytes(&cs) > 0) {
		mid = cs;
		seen = 1;
	}
	plugin_gate_open(false);
	CHECK(pc_flush_join(&p) == TCMU_STS_OK);
	CHECK(seen == 1);
	/* exactly one of the two 4 MiB chunks was done, no segment yet */
	CHECK(cs_bytes(&mid) == (4u << 20) && mid.segs_processed == 0);
	CHECK(copy_status(&g_a, 9, &cs) == 0);
	CHECK(cs.cm_status == XCM_CM_STATUS_GOOD && cs.segs_processed == 1 &&
	      cs_bytes(&cs) == (8u << 20));
	CHECK(same_bytes("a.img", 8u << 20, "a.img", 0, 8u << 20));
	fault_a("off");
	list_one(SER_A, SER_A, 1, 0, 0, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, NULL) == TCMU_STS_OK);   /* reads the control file */
}

/* close while copies run or wait: the running one stops between chunks, nothing hangs. */
static void
test_close(void)
{
	struct pcmd run, q1, q2;
	uint8_t sense[96];

	grow_lu(&g_a, "a.img", 16u << 20);
	fault_a("delay:100");
	list_one(SER_A, SER_A, (8u << 20) / BS, 0, (8u << 20) / BS, XCM_LIST_ID_NONE, 0);
	pc_submit(&run, &g_a);
	CHECK(pc_handed_over(&run));
	plugin_gate_hold(0);
	pc_flush_start(&run);
	/* inside the first of two 4 MiB chunks (8 delayed 1 MiB calls each, 800 ms) */
	CHECK(plugin_gate_wait_held());
	/* two more queued, never started (the runner joins its workers before close) */
	list_one(SER_A, SER_A, 8, 0, 7000, XCM_LIST_ID_HOLD, 30);
	pc_submit(&q1, &g_a);
	list_one(SER_A, SER_A, 8, 0, 7100, XCM_LIST_ID_NONE, 0);
	pc_submit(&q2, &g_a);
	CHECK(pc_handed_over(&q1) && pc_handed_over(&q2));
	/* chunk 1's other 7 calls still sleep 100 ms: close comes in the middle of the copy */
	plugin_gate_open(true);
	g_handler->close(&g_a);
	CHECK(pc_flush_join(&run) == TCMU_STS_PASSTHROUGH_ERR);
	memcpy(sense, run.lc.sense_buf, sizeof(sense));
	/* the LU went away mid-copy: COPY ABORTED, COPY TARGET DEVICE NOT REACHABLE */
	CHECK(sense_is(sense, XCM_SK_COPY_ABORTED, 0x0D02));
	CHECK(g_handler->open(&g_a, false) == 0);
	/* stale tokens of the old LU find nothing */
	CHECK(pc_flush(&q1) == TCMU_STS_TIMEOUT);
	CHECK(pc_flush(&q2) == TCMU_STS_TIMEOUT);
	/* the reopened LU has no fault armed and a fresh store */
	{
		struct xcm_copy_status cs;
		CHECK(copy_status(&g_a, 30, &cs) == -1);
	}
	list_one(SER_A, SER_A, 8, 0, 7000, XCM_LIST_ID_HOLD, 30);
	CHECK(send_xcopy(&g_a, 0, 0, NULL) == TCMU_STS_OK);
	{
		char p[512];
		snprintf(p, sizeof(p), "%s/stats/lu_a.fault", g_tmp);
		unlink(p);
	}
}

struct closer {
	struct tcmu_device *d;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done;
};

static void *
closer_main(void *arg)
{
	struct closer *c = arg;

	g_handler->close(c->d);
	pthread_mutex_lock(&c->mu);
	c->done = true;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Did the close end within ms (real time)? */
static bool
closer_done_within(struct closer *c, unsigned ms)
{
	struct timespec until;
	bool done;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&c->mu);
	while (!c->done && pthread_cond_timedwait(&c->cv, &c->mu, &until) == 0) {
	}
	done = c->done;
	pthread_mutex_unlock(&c->mu);
	return done;
}

/*
 * Closing an LU that takes no part in a running copy does not wait for it:
 * the copy holds references on its own LUs only. A -> B is held inside its
 * first chunk while C closes (the close returns at once; 2 s is the bound
 * of a close that waits on the copy, which then fails the check and is let
 * go by the gate).
 */
static void
test_close_other_lu(void)
{
	struct closer c = { .d = &g_c, .mu = PTHREAD_MUTEX_INITIALIZER,
			    .cv = PTHREAD_COND_INITIALIZER };
	struct pcmd run;
	pthread_t th;

	fill_pattern("a.img", 0, (1u << 20), 0x5c);
	fault_a("delay:100");
	list_one(SER_A, SER_B, (1u << 20) / BS, 0, 0, XCM_LIST_ID_NONE, 0);
	pc_submit(&run, &g_b);
	CHECK(pc_handed_over(&run));
	plugin_gate_hold(0);
	pc_flush_start(&run);
	CHECK(plugin_gate_wait_held());   /* the copy is inside its first chunk */
	CHECK(pthread_create(&th, NULL, closer_main, &c) == 0);
	CHECK(closer_done_within(&c, 2000));
	plugin_gate_open(false);
	CHECK(pc_flush_join(&run) == TCMU_STS_OK);
	pthread_join(th, NULL);
	CHECK(same_bytes("a.img", 0, "b.img", 0, 1u << 20));
	CHECK(g_handler->open(&g_c, false) == 0);   /* the fixture closes it again */
	fault_a("off");
	list_one(SER_A, SER_A, 1, 0, 0, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, NULL) == TCMU_STS_OK);   /* reads the control file */
}

struct opener {
	struct tcmu_device *d;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done;
	int rc;
};

static void *
opener_main(void *arg)
{
	struct opener *o = arg;
	int rc = g_handler->open(o->d, false);

	pthread_mutex_lock(&o->mu);
	o->rc = rc;
	o->done = true;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

static void *
xcopy_main(void *arg)
{
	return (void *)(intptr_t)send_xcopy(arg, 0, 0, NULL);
}

/*
 * No configfs read under the registry lock: while an EXTENDED COPY's
 * snapshot waits on a slow read of lu_c's unit serial (fake_wwn_*), another
 * LU opens (xt_registry_add takes the lock) within 2 s; the copy then ends
 * GOOD with its bytes. The old code read every LU's serial under g_reg_mu:
 * the open waited for the read.
 */
static void
test_registry_unlocked_reads(void)
{
	static struct tcmu_device d;
	struct opener o = { .d = &d, .mu = PTHREAD_MUTEX_INITIALIZER,
			    .cv = PTHREAD_COND_INITIALIZER };
	struct timespec until;
	pthread_t cp, op;
	void *sts;
	bool opened;

	make_backing("d.img", (uint64_t)NLBAS * BS);
	dev_setup(&d, 3, 4, "lu_d", "d.img", "", "dddddddd-0000-1111-2222-333333333333");
	fill_pattern("a.img", 0, 8 * BS, 0x3c);
	list_one(SER_A, SER_B, 8, 0, 0, XCM_LIST_ID_NONE, 0);
	g_c.wwn_hold = true;
	CHECK(pthread_create(&cp, NULL, xcopy_main, &g_a) == 0);
	CHECK(fake_wwn_wait_held());   /* the copy's snapshot reads lu_c's serial */
	CHECK(pthread_create(&op, NULL, opener_main, &o) == 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	pthread_mutex_lock(&o.mu);
	while (!o.done && pthread_cond_timedwait(&o.cv, &o.mu, &until) == 0) {
	}
	opened = o.done && o.rc == 0;
	pthread_mutex_unlock(&o.mu);
	CHECK(opened);
	fake_wwn_release(&g_c);
	pthread_join(cp, &sts);
	pthread_join(op, NULL);
	CHECK((intptr_t)sts == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 0, "b.img", 0, 8 * BS));
	if (o.rc == 0) {
		g_handler->close(&d);
	}
}

static void
test_limits_and_runner(void)
{
	uint8_t cdb[16], buf[128];

	/* OPERATING PARAMETERS: TOTAL CONCURRENT COPIES and MAXIMUM CONCURRENT COPIES */
	xcm_cdb_rcr(cdb, XCM_SA_RCR_OP_PARAMS, 0, sizeof(buf));
	CHECK(run_cmd(&g_a, cdb, buf, sizeof(buf), NULL) == TCMU_STS_OK);
	CHECK(xcm_get_be16(buf + 34) == XT_TEST_JOBS && buf[36] == XT_TEST_JOBS);

	/*
	 * open checks that the process is tcmu-runner 1.5.4 (its version string in
	 * /proc/self/exe): this harness carries it (plugin_main.c), so g_a opened;
	 * the scan itself: unit suite target_env.
	 */
}

/* RECEIVE COPY STATUS (LID4) of id: the TCMU status; *st decoded when GOOD. */
static int
rcs4(struct tcmu_device *d, uint32_t id, struct xcm_rcs4 *st, uint8_t *sense)
{
	uint8_t cdb[16], buf[256];
	int sts;

	xcm_cdb_rcs4(cdb, id, sizeof(buf));
	sts = run_cmd(d, cdb, buf, sizeof(buf), sense);
	if (sts == TCMU_STS_OK) {
		CHECK(xcm_rcs4_decode(xcm_span_make(buf, sizeof(buf)), st) == 0);
	}
	return sts;
}

static int
copy_abort(struct tcmu_device *d, uint32_t id, uint8_t *sense)
{
	uint8_t cdb[16], buf[16];

	xcm_cdb_copy_op_abort(cdb, id);
	return run_cmd(d, cdb, buf, 0, sense);
}

static void
test_lid4(void)
{
	struct xcm_rcs4 st;
	struct pcmd p, q;
	uint8_t sense[96];

	/* a LID4 list runs like a LID1 one; its status under a 4-byte id */
	fill_pattern("a.img", 0, 64 * BS, 0x44);
	list_one(SER_A, SER_A, 64, 0, 2000, XCM_LIST_ID_HOLD, 0);
	g_list->lid4 = true;
	pc_submit4(&p, &g_a, 0x12345678u);
	CHECK(pc_handed_over(&p));
	CHECK(rcs4(&g_a, 0x12345678u, &st, NULL) == TCMU_STS_OK);
	CHECK(st.op_status == XCM_RCS4_IN_PROGRESS && st.sa == 0x01 && st.bytes == 0);
	/* same id while queued: OPERATION IN PROGRESS */
	CHECK(pc_submit4(&q, &g_a, 0x12345678u) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(q.lc.sense_buf, XCM_SK_ILLEGAL_REQUEST, XCM_ASC_OPERATION_IN_PROGRESS));
	/* the LID1 id space is separate: COPY STATUS of 0x78 knows nothing */
	CHECK(pc_flush(&p) == TCMU_STS_OK);
	CHECK(same_bytes("a.img", 2000 * BS, "a.img", 0, 64 * BS));
	CHECK(rcs4(&g_a, 0x12345678u, &st, NULL) == TCMU_STS_OK);
	CHECK(st.op_status == XCM_RCS4_DONE && st.cmd_status == 0 && st.segs == 1 &&
	      st.bytes == 64 * BS && st.sense_len == 0 && st.est_delay_ms == 0xFFFFFFFEu);
	/* unknown id: ILLEGAL REQUEST, INVALID FIELD IN CDB, field pointer byte 2 */
	CHECK(rcs4(&g_a, 0x0BADu, &st, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_ptr_is(sense, sizeof(sense), XCM_SK_ILLEGAL_REQUEST, 0x2400, true, -1, 2));
	CHECK(copy_abort(&g_a, 0x0BADu, sense) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_ptr_is(sense, sizeof(sense), XCM_SK_ILLEGAL_REQUEST, 0x2400, true, -1, 2));
	/* abort of a completed list: nothing to do, GOOD, its status unchanged */
	CHECK(copy_abort(&g_a, 0x12345678u, NULL) == TCMU_STS_OK);
	CHECK(rcs4(&g_a, 0x12345678u, &st, NULL) == TCMU_STS_OK && st.op_status == XCM_RCS4_DONE);
}

/* LID4 abort while queued: the job ends before its first chunk, nothing written */
static void
test_lid4_abort_queued(void)
{
	struct xcm_rcs4 st;
	struct pcmd p;

	fill_pattern("a.img", 0, 64 * BS, 0x44);
	fill_pattern("a.img", 3000 * BS, 64 * BS, 0x99);
	list_one(SER_A, SER_A, 64, 0, 3000, XCM_LIST_ID_DISCARD, 0);
	g_list->lid4 = true;
	pc_submit4(&p, &g_a, 77);
	CHECK(pc_handed_over(&p));
	CHECK(copy_abort(&g_a, 77, NULL) == TCMU_STS_OK);
	CHECK(pc_flush(&p) == TCMU_STS_PASSTHROUGH_ERR);
	/* COPY ABORTED, no additional sense code, CSI = segment 0 */
	CHECK(sense_is(p.lc.sense_buf, XCM_SK_COPY_ABORTED, 0x0000));
	CHECK(sense_csi_is(p.lc.sense_buf, sizeof(p.lc.sense_buf), 0));
	CHECK(rcs4(&g_a, 77, &st, NULL) == TCMU_STS_OK);
	CHECK(st.op_status == XCM_RCS4_TERMINATED && st.cmd_status == XCM_SAM_CHECK_CONDITION &&
	      st.bytes == 0 && st.segs == 0 && st.sense_len >= 18 &&
	      sense_key(st.sense, st.sense_len) == XCM_SK_COPY_ABORTED);
	CHECK(!same_bytes("a.img", 3000 * BS, "a.img", 0, 64 * BS));   /* untouched */
}

/* LID4 abort while running: stops before the next chunk (4 MiB), exact count */
static void
test_lid4_abort_running(void)
{
	struct xcm_rcs4 st;
	struct pcmd p;

	grow_lu(&g_a, "a.img", 16u << 20);
	fill_pattern("a.img", 0, 8u << 20, 0x21);
	fill_pattern("a.img", 8u << 20, 8u << 20, 0x7E);
	fault_a("delay:300");
	/* A[0,8M) -> A[8M,16M): two 4 MiB chunks, each 4 delayed reads and writes of 1 MiB */
	list_one(SER_A, SER_A, (8u << 20) / BS, 0, (8u << 20) / BS, XCM_LIST_ID_HOLD, 0);
	g_list->lid4 = true;
	pc_submit4(&p, &g_a, 0xA5A5A5A5u);
	CHECK(pc_handed_over(&p));
	plugin_gate_hold(0);
	pc_flush_start(&p);
	CHECK(plugin_gate_wait_held());   /* inside the first chunk: its read */
	CHECK(copy_abort(&g_a, 0xA5A5A5A5u, NULL) == TCMU_STS_OK);
	CHECK(rcs4(&g_a, 0xA5A5A5A5u, &st, NULL) == TCMU_STS_OK &&
	      st.op_status == XCM_RCS4_IN_PROGRESS);
	plugin_gate_open(false);   /* chunk 1 ends, then the abort is seen */
	CHECK(pc_flush_join(&p) == TCMU_STS_PASSTHROUGH_ERR);
	CHECK(sense_is(p.lc.sense_buf, XCM_SK_COPY_ABORTED, 0x0000));
	CHECK(rcs4(&g_a, 0xA5A5A5A5u, &st, NULL) == TCMU_STS_OK);
	CHECK(st.op_status == XCM_RCS4_TERMINATED && st.bytes == (4u << 20) && st.segs == 0);
	/* exactly the first chunk was written; the second not */
	CHECK(same_bytes("a.img", 8u << 20, "a.img", 0, 4u << 20));
	CHECK(!same_bytes("a.img", 12u << 20, "a.img", 4u << 20, 4096));
	fault_a("off");
	list_one(SER_A, SER_A, 1, 0, 0, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_a, 0, 0, NULL) == TCMU_STS_OK);
	g_list->lid4 = false;
}

/* What TCMU cannot do is refused before anything moves: IMMED, byte 15 bit 0. */
static void
test_lid4_immed(void)
{
	uint8_t buf[512], cdb[16], sense[96];
	struct xcm_rcs4 st;
	struct xcm_wbuf w;
	size_t n;

	list_one(SER_A, SER_A, 8, 0, 100, XCM_LIST_ID_HOLD, 0);
	g_list->list_id4 = 5;
	w = xcm_wbuf_make(buf, sizeof(buf));
	n = xcm_list_encode_lid4(g_list, &w);
	buf[15] = 0x01;
	xcm_cdb_xcopy_lid4(cdb, (uint32_t)n);
	CHECK(run_cmd(&g_a, cdb, buf, n, sense) == TCMU_STS_PASSTHROUGH_ERR);
	/* INVALID FIELD IN PARAMETER LIST, pointer to byte 15 bit 0 of the list */
	CHECK(sense_ptr_is(sense, sizeof(sense), XCM_SK_ILLEGAL_REQUEST, 0x2600, false, 0, 15));
	CHECK(rcs4(&g_a, 5, &st, NULL) == TCMU_STS_PASSTHROUGH_ERR);   /* not begun */
}

/* Threads of this process named name (the parallel pool's helpers). */
static int
threads_named(const char *name)
{
	char p[300], comm[64];
	struct dirent *e;
	int n = 0;
	FILE *f;
	DIR *d = opendir("/proc/self/task");

	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(p, sizeof(p), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(p, "r");
		if (f == NULL) {
			continue;
		}
		if (fgets(comm, sizeof(comm), f) != NULL && strncmp(comm, name, strlen(name)) == 0) {
			n++;
		}
		fclose(f);
	}
	if (d != NULL) {
		closedir(d);
	}
	return n;
}

/* A chunk of non-overlapping ranges goes to the parallel pool; data as serial. */
static void
test_parallel(void)
{
	uint64_t rw0 = stat_of("lu_b", "rw_bytes");

	/* lu_b: clone=never, cfr=never -> read/write through one bounce buffer per piece */
	fill_pattern("b.img", 0, 2u << 20, 0x3C);
	fill_pattern("b.img", 2u << 20, 2u << 20, 0xC3);
	list_one(SER_B, SER_B, (2u << 20) / BS, 0, (2u << 20) / BS, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_b, 0, 0, NULL) == TCMU_STS_OK);
	CHECK(same_bytes("b.img", 2u << 20, "b.img", 0, 2u << 20));
	CHECK(stat_of("lu_b", "rw_bytes") - rw0 == (2u << 20));
	/* the pool: min(4, CPUs - 1) pieces at once, 1 (no helper) on <= 2 CPUs */
	{
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		int pieces = n <= 2 ? 1 : (n - 1 < 4 ? (int)n - 1 : 4);

		CHECK(threads_named("xcopy-par") == pieces - 1);
	}
	/* overlapping ranges of one file stay serial and memmove-correct */
	fill_pattern("b.img", 0, 3u << 20, 0x5A);
	list_one(SER_B, SER_B, (2u << 20) / BS, 0, (1u << 20) / BS, XCM_LIST_ID_NONE, 0);
	CHECK(send_xcopy(&g_b, 0, 0, NULL) == TCMU_STS_OK);
	{
		uint8_t *want = malloc(2u << 20);
		char p[512];
		FILE *f;

		snprintf(p, sizeof(p), "%s/b.img", g_tmp);
		f = fopen(p, "rb");
		CHECK(f != NULL && want != NULL);
		if (f != NULL && want != NULL) {
			/* B[1M,3M) must be what B[0,2M) was: the fill pattern of seed 0x5A */
			uint8_t *got = malloc(2u << 20);
			uint64_t i;
			bool ok = got != NULL && fseek(f, 1u << 20, SEEK_SET) == 0 &&
				  fread(got, 1, 2u << 20, f) == (2u << 20);

			for (i = 0; ok && i < (2u << 20); i++) {
				ok = got[i] == (uint8_t)(0x5A + i * 7 + (i >> 9));
			}
			CHECK(ok);
			free(got);
		}
		if (f != NULL) {
			fclose(f);
		}
		free(want);
	}
}

const struct ptest g_async_tests[] = {
	{ "async.handover_and_limit", test_handover_and_limit },
	{ "async.list_id_in_progress", test_list_id_in_progress },
	{ "async.progress", test_progress },
	{ "async.close", test_close },
	{ "async.close_other_lu", test_close_other_lu },
	{ "async.registry_unlocked_reads", test_registry_unlocked_reads },
	{ "async.limits_and_runner", test_limits_and_runner },
	{ "async.lid4", test_lid4 },
	{ "async.lid4_abort_queued", test_lid4_abort_queued },
	{ "async.lid4_abort_running", test_lid4_abort_running },
	{ "async.lid4_immed", test_lid4_immed },
	{ "async.parallel", test_parallel },
	{ NULL, NULL },
};
