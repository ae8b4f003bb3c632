/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin's clock and sleeps, under the tests' control. The harness is
 * linked with -rdynamic, so the clock_gettime and usleep defined here come
 * first in the process's global scope: the plugin binds to them when it is
 * dlopened (its copy of libc's names resolves to the executable's), and
 * nothing in the plugin changes for the tests.
 *
 *   CLOCK_MONOTONIC runs plugin_clock_advance_ms() ahead of the real one,
 *   so a token's inactivity timeout passes without waiting for it.
 *
 *   usleep (the delay fault's sleep, target/fault/fault.c) normally sleeps. After
 *   plugin_gate_hold(n) the next n calls return at once and the one after
 *   blocks until plugin_gate_open(): a copy stopped at a known I/O call,
 *   which plugin_gate_wait_held() waits for.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static long long g_ahead_ns;   /* atomic */

static pthread_mutex_t g_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cond = PTHREAD_COND_INITIALIZER;
static bool g_gate_armed;      /* calls past g_gate_pass block */
static unsigned g_gate_pass;
static unsigned g_gate_held;   /* calls blocked now */
static bool g_sleep_real = true;

int
clock_gettime(clockid_t id, struct timespec *ts)
{
	long long ahead;
	int rc = (int)syscall(SYS_clock_gettime, id, ts);

	if (rc != 0 || id != CLOCK_MONOTONIC) {
		return rc;
	}
	ahead = __atomic_load_n(&g_ahead_ns, __ATOMIC_ACQUIRE);
	ts->tv_sec += (time_t)(ahead / 1000000000);
	ts->tv_nsec += (long)(ahead % 1000000000);
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
	return 0;
}

void
plugin_clock_advance_ms(unsigned ms)
{
	__atomic_add_fetch(&g_ahead_ns, (long long)ms * 1000000, __ATOMIC_ACQ_REL);
}

int
usleep(useconds_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	bool real;

	pthread_mutex_lock(&g_gate_lock);
	if (g_gate_armed && g_gate_pass > 0) {
		g_gate_pass--;
		pthread_mutex_unlock(&g_gate_lock);
		return 0;
	}
	if (g_gate_armed) {
		g_gate_held++;
		pthread_cond_broadcast(&g_gate_cond);
		while (g_gate_armed) {
			pthread_cond_wait(&g_gate_cond, &g_gate_lock);
		}
		g_gate_held--;
		pthread_mutex_unlock(&g_gate_lock);
		return 0;
	}
	real = g_sleep_real;
	pthread_mutex_unlock(&g_gate_lock);
	return real ? nanosleep(&ts, NULL) : 0;
}

void
plugin_gate_hold(unsigned pass)
{
	pthread_mutex_lock(&g_gate_lock);
	g_gate_armed = true;
	g_gate_pass = pass;
	pthread_mutex_unlock(&g_gate_lock);
}

bool
plugin_gate_wait_held(void)
{
	struct timespec until;
	bool held;

	/* a safety net only: a copy that never reaches the gate fails the test */
	(void)syscall(SYS_clock_gettime, CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&g_gate_lock);
	while (g_gate_held == 0 &&
	       pthread_cond_timedwait(&g_gate_cond, &g_gate_lock, &until) != ETIMEDOUT) {
	}
	held = g_gate_held > 0;
	pthread_mutex_unlock(&g_gate_lock);
	if (!held) {
		fprintf(stderr, "  no plugin call reached the gate\n");
	}
	return held;
}

void
plugin_gate_open(bool sleep_after)
{
	pthread_mutex_lock(&g_gate_lock);
	g_gate_armed = false;
	g_gate_pass = 0;
	g_sleep_real = sleep_after;
	pthread_cond_broadcast(&g_gate_cond);
	pthread_mutex_unlock(&g_gate_lock);
}
