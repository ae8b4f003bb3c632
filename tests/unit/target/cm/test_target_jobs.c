/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * target/cm/async.c: the LU's list of EXTENDED COPY jobs, driven as the
 * runner does (through tcmu/tcmu_cmd.c: xt_tcmu_submit on the command
 * thread, xt_tcmu_run from the flush callout) with hand-made struct
 * tcmur_cmd / tcmulib_cmd. The copy
 * itself is this file's xt_execute (backend.c is not linked): it counts its
 * calls and returns g_exec_st. Rules judged: a submitted list is queued
 * (CDB rewritten to SYNCHRONIZE CACHE(16), a token in cmd_state) and
 * reported IN PROGRESS until it runs; a list identifier in use answers
 * OPERATION IN PROGRESS; XT_MAX_JOBS in flight answer TASK SET FULL; a
 * queued job the runner never started is dropped only after its command
 * timeout plus grace; COPY OPERATION ABORT finds queued lists; close
 * forgets queued jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"
#include "xcm/token.h"
#include "target_stubs.h"
#include "ut.h"

#define SYNC_CACHE_16 0x91
#define GRACE_S 10              /* async.c ORPHAN_GRACE_S */

static struct xt_lu g_lu;
static char g_stats[1024];
static unsigned int g_exec_calls;
static enum xcm_status g_exec_st;
static void (*g_during)(struct xt_job *job);   /* called while the job runs */

/* The copy of a job (backend.c's in the plugin). */
enum xcm_status
xt_execute(struct xt_job *job, struct xcm_exec_result *res, struct xcm_err *err)
{
	g_exec_calls++;
	if (g_during != NULL) {
		g_during(job);
	}
	res->segs_processed = 0;
	res->bytes = 0;
	(void)job;
	xcm_err_set(err, g_exec_st);
	return g_exec_st;
}

/* One command as the runner hands it over. */
struct cmd {
	struct tcmur_cmd rc;
	struct tcmulib_cmd lc;
	uint8_t cdb[XCM_CDB16_LEN];
	uint8_t plist[16];
	struct iovec iov;
};

static int
suite_fini(void)
{
	g_stats[0] = '\0';
	return 0;
}

static void
setup(void)
{
	/* the run's stats folder (unit_main.c) */
	if (g_stats[0] == '\0') {
		snprintf(g_stats, sizeof(g_stats), "%s", getenv("XCOPY_STATS_DIR"));
	}
	memset(&g_lu, 0, sizeof(g_lu));
	g_lu.host = &ut_lu_host;
	snprintf(g_lu.name, sizeof(g_lu.name), "jobs");
	g_lu.cmd_time_out = 30;
	/* job list, LID1/LID4 stores, parameter list buffer, held clock; no ODX layer */
	UT_ASSERT_FATAL(xt_cm_init(&g_lu, NULL) == 0);
	g_exec_calls = 0;
	g_exec_st = XCM_OK;
	g_during = NULL;
}

static void
teardown(void)
{
	xt_async_close(&g_lu);
	xt_cm_free(&g_lu);
}

/* EXTENDED COPY (LID1) of an empty list with LIST IDENTIFIER id, held (00b). */
static void
xcopy_cmd(struct cmd *c, uint8_t id)
{
	memset(c, 0, sizeof(*c));
	c->cdb[0] = XCM_OP_XCOPY;
	c->cdb[1] = XCM_SA_XCOPY_LID1;
	xcm_put_be32(c->cdb + 10, sizeof(c->plist));
	c->plist[0] = id;
	c->plist[1] = XCM_LIST_ID_HOLD << 3;
	c->iov.iov_base = c->plist;
	c->iov.iov_len = sizeof(c->plist);
	c->lc.cdb = c->cdb;
	c->lc.iovec = &c->iov;
	c->lc.iov_cnt = 1;
	c->rc.lib_cmd = &c->lc;
}

static int
submit(struct cmd *c, uint8_t id)
{
	xcopy_cmd(c, id);
	return xt_tcmu_submit(&g_lu, &c->rc);
}

/* The ASC/ASCQ of the command's sense (fixed or descriptor format). */
static unsigned int
sense_asc(const struct cmd *c)
{
	const uint8_t *s = c->lc.sense_buf;

	return (s[0] & 0x7F) >= 0x72 ? (unsigned)(s[2] << 8 | s[3]) : (unsigned)(s[12] << 8 | s[13]);
}

static unsigned int
asc_of(enum xcm_status st)
{
	return xcm_status_info(st)->asc_ascq;
}

/* RECEIVE COPY RESULTS COPY STATUS of list id: its copy manager status, -1: unknown id. */
static int
copy_status(uint8_t id)
{
	struct xcm_rcr_req req = { XCM_SA_RCR_COPY_STATUS, id, 64 };
	uint8_t b[64];
	struct xcm_wbuf w = xcm_wbuf_make(b, sizeof(b));
	struct xcm_err err;

	if (xt_async_rcr(&g_lu, &req, &w, &err) != XCM_OK) {
		CU_ASSERT_EQUAL(err.status, XCM_E_INVALID_FIELD_CDB);
		return -1;
	}
	return b[4] & 0x7F;
}

static int
run(struct cmd *c)
{
	int sts = -100;

	CU_ASSERT_TRUE(xt_tcmu_run(&g_lu, &c->rc, &sts));
	return sts;
}

static void
jobs_queue_then_run(void)
{
	struct cmd c, sync;
	int sts = -100;

	setup();
	CU_ASSERT_EQUAL(submit(&c, 7), TCMU_STS_NOT_HANDLED);
	CU_ASSERT_EQUAL(c.cdb[0], SYNC_CACHE_16);      /* the core queues it as a flush */
	CU_ASSERT_NOT_EQUAL((uintptr_t)c.rc.cmd_state, 0);
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, 1);
	CU_ASSERT_EQUAL(g_lu.stats.inflight_max, 1);
	CU_ASSERT_EQUAL(copy_status(7), XCM_CM_STATUS_IN_PROGRESS);
	CU_ASSERT_EQUAL(g_exec_calls, 0);
	/* a real SYNCHRONIZE CACHE (no token) is not ours */
	memset(&sync, 0, sizeof(sync));
	CU_ASSERT_FALSE(xt_tcmu_run(&g_lu, &sync.rc, &sts));
	CU_ASSERT_EQUAL(run(&c), TCMU_STS_OK);
	CU_ASSERT_EQUAL(g_exec_calls, 1);
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, 0);
	CU_ASSERT_PTR_NULL(g_lu.cm->as.jobs);
	CU_ASSERT_EQUAL(copy_status(7), XCM_CM_STATUS_GOOD);
	CU_ASSERT_EQUAL(g_lu.stats.commands_ok, 1);
	/* the same flush again: its job is gone */
	CU_ASSERT_EQUAL(run(&c), TCMU_STS_TIMEOUT);
	CU_ASSERT_EQUAL(g_exec_calls, 1);
	teardown();
}

static void
jobs_failed_copy_recorded(void)
{
	struct cmd c;

	setup();
	g_exec_st = XCM_E_CA_ABORTED;
	CU_ASSERT_EQUAL(submit(&c, 3), TCMU_STS_NOT_HANDLED);
	CU_ASSERT_EQUAL(run(&c), TCMU_STS_PASSTHROUGH_ERR);
	CU_ASSERT_EQUAL(sense_asc(&c), asc_of(XCM_E_CA_ABORTED));
	CU_ASSERT_EQUAL(copy_status(3), XCM_CM_STATUS_ERROR);
	CU_ASSERT_EQUAL(g_lu.stats.errors, 1);
	teardown();
}

static void
jobs_list_id_in_use(void)
{
	struct cmd a, b, d;

	setup();
	CU_ASSERT_EQUAL(submit(&a, 7), TCMU_STS_NOT_HANDLED);
	CU_ASSERT_EQUAL(submit(&b, 7), TCMU_STS_PASSTHROUGH_ERR);
	CU_ASSERT_EQUAL(sense_asc(&b), asc_of(XCM_E_OP_IN_PROGRESS));
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, 1);
	CU_ASSERT_EQUAL(submit(&d, 8), TCMU_STS_NOT_HANDLED);   /* another id */
	CU_ASSERT_EQUAL(run(&a), TCMU_STS_OK);
	/* done: the identifier may be used again */
	CU_ASSERT_EQUAL(submit(&b, 7), TCMU_STS_NOT_HANDLED);
	CU_ASSERT_EQUAL(run(&b), TCMU_STS_OK);
	CU_ASSERT_EQUAL(run(&d), TCMU_STS_OK);
	CU_ASSERT_EQUAL(g_exec_calls, 3);
	teardown();
}

static void
jobs_task_set_full(void)
{
	static struct cmd c[XT_MAX_JOBS + 1];
	unsigned int i;

	setup();
	for (i = 0; i < XT_MAX_JOBS; i++) {
		CU_ASSERT_EQUAL(submit(&c[i], (uint8_t)(10 + i)), TCMU_STS_NOT_HANDLED);
	}
	CU_ASSERT_EQUAL(submit(&c[XT_MAX_JOBS], 99), TCMU_STS_NO_RESOURCE);
	CU_ASSERT_EQUAL(g_lu.stats.busy, 1);
	CU_ASSERT_EQUAL(g_lu.stats.inflight_max, XT_MAX_JOBS);
	CU_ASSERT_EQUAL(copy_status(99), -1);            /* nothing recorded */
	CU_ASSERT_EQUAL(run(&c[0]), TCMU_STS_OK);
	CU_ASSERT_EQUAL(submit(&c[XT_MAX_JOBS], 99), TCMU_STS_NOT_HANDLED);
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, XT_MAX_JOBS);
	teardown();                                      /* close forgets the queued ones */
	CU_ASSERT_EQUAL(g_exec_calls, 1);
}

/* Make the queued job of c look submitted age_s seconds ago. */
static void
age(struct cmd *c, int64_t age_s)
{
	struct xt_job *job;

	for (job = g_lu.cm->as.jobs; job != NULL; job = job->next) {
		if (job->token == (uint64_t)(uintptr_t)c->rc.cmd_state) {
			job->t0.tv_sec -= age_s;
			return;
		}
	}
	CU_FAIL("job not queued");
}

static void
jobs_orphans_reaped(void)
{
	struct cmd a, b, d;

	setup();
	CU_ASSERT_EQUAL(submit(&a, 1), TCMU_STS_NOT_HANDLED);
	CU_ASSERT_EQUAL(submit(&b, 2), TCMU_STS_NOT_HANDLED);
	/* b: 1 s short of its timeout plus grace (the next submit comes within 1 s) */
	age(&a, 30 + GRACE_S + 1);
	age(&b, 30 + GRACE_S - 1);
	CU_ASSERT_EQUAL(submit(&d, 3), TCMU_STS_NOT_HANDLED);   /* a submit reaps */
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, 2);
	CU_ASSERT_EQUAL(copy_status(1), XCM_CM_STATUS_ERROR);   /* recorded as failed */
	CU_ASSERT_EQUAL(copy_status(2), XCM_CM_STATUS_IN_PROGRESS);
	CU_ASSERT_EQUAL(run(&a), TCMU_STS_TIMEOUT);             /* the runner comes late */
	CU_ASSERT_EQUAL(run(&b), TCMU_STS_OK);
	CU_ASSERT_EQUAL(run(&d), TCMU_STS_OK);
	CU_ASSERT_EQUAL(g_exec_calls, 2);
	teardown();
}

static struct cmd g_late;

/* While job runs: it looks a day old, and another command arrives. */
static void
old_and_busy(struct xt_job *job)
{
	job->t0.tv_sec -= 86400;
	CU_ASSERT_EQUAL(submit(&g_late, 2), TCMU_STS_NOT_HANDLED);
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, 2);                      /* not reaped */
	CU_ASSERT_EQUAL(copy_status(1), XCM_CM_STATUS_IN_PROGRESS);
}

static void
jobs_running_never_orphan(void)
{
	struct cmd a;

	setup();
	CU_ASSERT_EQUAL(submit(&a, 1), TCMU_STS_NOT_HANDLED);
	g_during = old_and_busy;
	CU_ASSERT_EQUAL(run(&a), TCMU_STS_OK);
	g_during = NULL;
	CU_ASSERT_EQUAL(g_exec_calls, 1);
	CU_ASSERT_EQUAL(copy_status(1), XCM_CM_STATUS_GOOD);
	CU_ASSERT_EQUAL(run(&g_late), TCMU_STS_OK);
	teardown();
}

static void
jobs_copy_op_abort(void)
{
	struct cmd a, ab;
	struct xt_job *job;

	setup();
	CU_ASSERT_EQUAL(submit(&a, 5), TCMU_STS_NOT_HANDLED);
	job = g_lu.cm->as.jobs;
	UT_ASSERT_FATAL(job != NULL);
	memset(&ab, 0, sizeof(ab));
	ab.cdb[0] = XCM_OP_XCOPY;
	ab.cdb[1] = XCM_SA_COPY_OP_ABORT;
	xcm_put_be32(ab.cdb + 2, 6);                             /* never seen */
	ab.lc.cdb = ab.cdb;
	ab.rc.lib_cmd = &ab.lc;
	CU_ASSERT_EQUAL(xt_tcmu_submit(&g_lu, &ab.rc), TCMU_STS_PASSTHROUGH_ERR);
	CU_ASSERT_EQUAL(sense_asc(&ab), asc_of(XCM_E_INVALID_FIELD_CDB));
	CU_ASSERT_EQUAL(atomic_load(&job->stop), XT_STOP_NONE);
	xcm_put_be32(ab.cdb + 2, 5);
	CU_ASSERT_EQUAL(xt_tcmu_submit(&g_lu, &ab.rc), TCMU_STS_OK);
	CU_ASSERT_EQUAL(atomic_load(&job->stop), XT_STOP_ABORT);
	teardown();
}

/*
 * POPULATE TOKEN on a LU whose copy manager has no ODX layer (xt_cm_init
 * with NULL, as here): ILLEGAL REQUEST, INVALID FIELD IN CDB at the service
 * action, nothing queued (the layer is per LU now, not a process-wide table
 * that may be unset).
 */
static void
jobs_no_odx_refused(void)
{
	static uint8_t plist[32];
	struct cmd c;

	setup();
	xcopy_cmd(&c, 1);
	c.cdb[1] = XCM_SA_POPULATE_TOKEN;
	xcm_put_be32(c.cdb + 6, 9);                              /* list identifier */
	xcm_put_be32(c.cdb + 10, sizeof(plist));
	xcm_put_be16(plist, sizeof(plist) - 2);                  /* data length */
	xcm_put_be16(plist + 14, 16);                            /* one range descriptor */
	xcm_put_be32(plist + 16 + 12, 1);                        /* of one block */
	c.iov.iov_base = plist;
	c.iov.iov_len = sizeof(plist);
	CU_ASSERT_EQUAL(xt_tcmu_submit(&g_lu, &c.rc), TCMU_STS_PASSTHROUGH_ERR);
	CU_ASSERT_EQUAL(sense_asc(&c), asc_of(XCM_E_INVALID_FIELD_CDB));
	CU_ASSERT_EQUAL(c.lc.sense_buf[15], 0xC8 | 4);          /* SKSV, C/D, BPV, bit 4 */
	CU_ASSERT_EQUAL(xcm_get_be16(c.lc.sense_buf + 16), 1);  /* CDB byte 1 */
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, 0);
	CU_ASSERT_EQUAL(g_exec_calls, 0);
	teardown();
}

/*
 * A data-out shorter than the PARAMETER LIST LENGTH the CDB announces
 * (async_parse.c, xt_job_parse): PARAMETER LIST LENGTH ERROR before a job
 * exists, answered on the command thread, nothing run, counted as an error.
 */
static void
jobs_parse_short_transfer(void)
{
	struct xcm_tpc_out_req req;
	struct xt_job *job = NULL;
	struct xcm_err err;
	struct xt_scsi s;
	struct cmd c;

	setup();
	xcopy_cmd(&c, 9);
	c.iov.iov_len = 8;   /* the CDB announces sizeof(c.plist) */
	memset(&err, 0, sizeof(err));
	xt_tcmu_scsi(&c.lc, &s);
	UT_ASSERT_FATAL(xcm_tpc_out_cdb_check(c.cdb, XCM_CDB16_LEN, &req, &err) == XCM_OK);
	CU_ASSERT_EQUAL(xt_job_parse(&g_lu, &s, &req, &job, &err), XCM_E_PARAM_LIST_LEN);
	CU_ASSERT_PTR_NULL(job);
	CU_ASSERT_EQUAL(err.status, XCM_E_PARAM_LIST_LEN);
	CU_ASSERT_EQUAL(xt_tcmu_submit(&g_lu, &c.rc), TCMU_STS_PASSTHROUGH_ERR);
	CU_ASSERT_EQUAL(sense_asc(&c), asc_of(XCM_E_PARAM_LIST_LEN));
	CU_ASSERT_EQUAL(g_lu.cm->as.njobs, 0);
	CU_ASSERT_EQUAL(g_exec_calls, 0);
	CU_ASSERT_EQUAL(g_lu.stats.commands, 1);
	CU_ASSERT_EQUAL(g_lu.stats.errors, 1);
	teardown();
}

static CU_TestInfo tests[] = {
	{ "queue_then_run", jobs_queue_then_run },
	{ "failed_copy_recorded", jobs_failed_copy_recorded },
	{ "list_id_in_use", jobs_list_id_in_use },
	{ "task_set_full", jobs_task_set_full },
	{ "orphans_reaped", jobs_orphans_reaped },
	{ "running_never_orphan", jobs_running_never_orphan },
	{ "copy_op_abort", jobs_copy_op_abort },
	{ "no_odx_refused", jobs_no_odx_refused },
	{ "parse_short_transfer", jobs_parse_short_transfer },
	CU_TEST_INFO_NULL,
};

UT_SUITE_FULL(target_jobs, tests, NULL, suite_fini)
