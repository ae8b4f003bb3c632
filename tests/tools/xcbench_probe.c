/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xcbench probe DEV SPAN INTERVAL_MS STOPFILE MAXSEC OUT [READERS]
 *
 * Open-loop read load: one 4 KiB O_DIRECT read at a random offset of DEV is
 * due every INTERVAL_MS (CLOCK_REALTIME schedule), whatever happened to the
 * earlier ones, and its latency counts from when it was due (no coordinated
 * omission). READERS threads (default 8) take due reads in order, so up to
 * READERS reads are in flight at once, as a guest's disk has: one slow read
 * delays the reads queued behind it only when every reader is busy, and then
 * their wait counts too.
 *
 * OUT: one line per read, "due_epoch_s latency_us service_us", where service
 * is from the moment a reader sent it to its completion (the device's own
 * time; latency - service = time waiting for a free reader).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { PROBE_LEN = 4096, MAX_READERS = 32 };

struct sample {
	double due;
	double lat_us;
	double svc_us;
};

struct probe {
	int fd;
	uint64_t blocks;
	uint64_t rnd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	long released;   /* reads 0 .. released-1 are due */
	long taken;      /* reads 0 .. taken-1 have a reader */
	bool quit;
	struct sample *s;
	long cap;
	int err;
};

int xcbench_probe(int argc, char **argv);

static double
rt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t
next_rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void *
reader(void *arg)
{
	struct probe *p = arg;
	void *buf;
	long k;
	off_t off;
	double t0, t1;

	if (posix_memalign(&buf, 4096, PROBE_LEN) != 0) {
		return NULL;
	}
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->taken == p->released && !p->quit) {
			pthread_cond_wait(&p->cond, &p->lock);
		}
		if (p->taken == p->released) {
			break;
		}
		k = p->taken++;
		off = (off_t)(next_rnd(&p->rnd) % p->blocks) * PROBE_LEN;
		pthread_mutex_unlock(&p->lock);
		t0 = rt_now();
		if (pread(p->fd, buf, PROBE_LEN, off) != PROBE_LEN) {
			p->err = errno != 0 ? errno : EIO;
		}
		t1 = rt_now();
		pthread_mutex_lock(&p->lock);
		p->s[k].lat_us = (t1 - p->s[k].due) * 1e6;
		p->s[k].svc_us = (t1 - t0) * 1e6;
	}
	pthread_mutex_unlock(&p->lock);
	free(buf);
	return NULL;
}

int
xcbench_probe(int argc, char **argv)
{
	struct probe p;
	pthread_t th[MAX_READERS];
	double interval, maxsec, t0, due;
	struct timespec ts;
	int nr = argc > 8 ? atoi(argv[8]) : 8, started = 0, i;
	FILE *out;
	long k, n = 0;

	if (argc < 8 || nr < 1 || nr > MAX_READERS) {
		fprintf(stderr, "usage: xcbench probe DEV SPAN INTERVAL_MS STOPFILE MAXSEC OUT [READERS]\n");
		return 1;
	}
	memset(&p, 0, sizeof(p));
	interval = strtod(argv[4], NULL) / 1000.0;
	maxsec = strtod(argv[6], NULL);
	p.blocks = strtoull(argv[3], NULL, 0) / PROBE_LEN;
	p.rnd = 88172645463325252ULL;
	p.cap = interval > 0 ? (long)(maxsec / interval) + 2 : 0;
	p.fd = open(argv[2], O_RDONLY | O_DIRECT);
	out = fopen(argv[7], "w");
	p.s = calloc(p.cap > 0 ? (size_t)p.cap : 1, sizeof(*p.s));
	if (p.fd < 0 || out == NULL || p.blocks == 0 || p.cap <= 0 || p.s == NULL) {
		perror("probe");
		return 1;
	}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (i = 0; i < nr; i++) {
		started += pthread_create(&th[started], NULL, reader, &p) == 0;
	}
	t0 = rt_now();
	for (k = 0; k < p.cap && p.err == 0; k++) {
		due = t0 + (double)k * interval;
		if (due - t0 > maxsec || access(argv[5], F_OK) == 0) {
			break;
		}
		ts.tv_sec = (time_t)due;
		ts.tv_nsec = (long)((due - (double)ts.tv_sec) * 1e9);
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR) {
		}
		pthread_mutex_lock(&p.lock);
		p.s[k].due = due;
		p.released = k + 1;
		pthread_cond_signal(&p.cond);
		pthread_mutex_unlock(&p.lock);
	}
	pthread_mutex_lock(&p.lock);
	p.quit = true;
	pthread_cond_broadcast(&p.cond);
	pthread_mutex_unlock(&p.lock);
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
	}
	n = p.released;
	for (k = 0; k < n; k++) {
		fprintf(out, "%.6f %.0f %.0f\n", p.s[k].due, p.s[k].lat_us, p.s[k].svc_us);
	}
	fclose(out);
	close(p.fd);
	free(p.s);
	if (p.err != 0 || started == 0) {
		fprintf(stderr, "probe: %s\n", started == 0 ? "no reader thread" : strerror(p.err));
		return 1;
	}
	return 0;
}
