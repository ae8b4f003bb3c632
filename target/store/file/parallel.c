/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Parallel pieces inside one chunk of a copy: the engine hands the backend
 * chunks of XT_PAR_PIECES x XT_CHUNK bytes; a chunk whose source and
 * destination ranges do not overlap is cut into XT_CHUNK pieces that the
 * calling worker and a small process-wide helper pool copy at once.
 * Overlapping ranges of one file are copied serially (memmove semantics).
 *
 * Same outcome as serial execution when every piece succeeds. When one
 * fails, the chunk reports the first failing piece (lowest offset) and
 * counts the bytes before it as done, exactly as the serial loop would; the
 * pieces after it that also ran may have written their (correct) bytes into
 * the destination range, which the serial loop would not have touched yet.
 *
 * The caller always works on its own batch too, so a batch finishes even
 * when every helper is busy with other jobs' pieces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/file/store_file.h"

/* One piece: its range, buffer, and its own copy state (policy, outcome, counts). */
struct piece {
	struct xt_range r;
	uint8_t *bounce;
	struct xt_copy c;
	int rc;
};

struct batch {
	int nice;                    /* the job's copy_nice, for the helpers */
	struct piece p[XT_PAR_PIECES];
	unsigned int n;
	unsigned int next;           /* first piece nobody took */
	unsigned int left;           /* pieces not finished */
	pthread_cond_t done;
	struct batch *qnext;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_work = PTHREAD_COND_INITIALIZER;
static struct batch *g_queue;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static unsigned int g_helpers;
static pthread_t g_threads[XT_PAR_PIECES];
static bool g_quit;

static void
run_piece(struct piece *p)
{
	p->rc = xt_file_copy(&p->c, &p->r, p->bounce);
}

/* Caller holds g_lock: take the next piece of b, or NULL (and dequeue b). */
static struct piece *
take(struct batch *b)
{
	struct batch **pp;

	if (b->next < b->n) {
		return &b->p[b->next++];
	}
	for (pp = &g_queue; *pp != NULL; pp = &(*pp)->qnext) {
		if (*pp == b) {
			*pp = b->qnext;
			break;
		}
	}
	return NULL;
}

static void *
helper_main(void *arg)
{
	struct piece *p;
	struct batch *b;
	int old;

	(void)arg;
	pthread_mutex_lock(&g_lock);
	for (;;) {
		while (g_queue == NULL && !g_quit) {
			pthread_cond_wait(&g_work, &g_lock);
		}
		if (g_quit) {
			break;
		}
		b = g_queue;
		p = take(b);
		if (p == NULL) {
			continue;
		}
		pthread_mutex_unlock(&g_lock);
		old = xt_nice_lower(b->nice);
		run_piece(p);
		xt_nice_restore(old);
		pthread_mutex_lock(&g_lock);
		if (--b->left == 0) {
			pthread_cond_signal(&b->done);
		}
	}
	pthread_mutex_unlock(&g_lock);
	return NULL;
}

/*
 * Pieces at once: XT_PAR_PIECES, but never more copying threads than CPUs - 1,
 * so one CPU stays free for tcmu-runner's command and I/O threads (measured
 * in the lab on 2 vCPUs: four in-kernel copy_file_range threads starved the
 * READs of the LU for seconds). 1 (serial) on a 2-CPU machine.
 */
unsigned int
xt_par_pieces(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n <= 2) {
		return 1;
	}
	return n - 1 < XT_PAR_PIECES ? (unsigned int)(n - 1) : XT_PAR_PIECES;
}

static void
pool_start(void)
{
	unsigned int i, pieces = xt_par_pieces();

	for (i = 0; i + 1 < pieces; i++) {
		if (pthread_create(&g_threads[g_helpers], NULL, helper_main, NULL) == 0) {
			pthread_setname_np(g_threads[g_helpers], "xcopy-par");
			g_helpers++;
		}
	}
}

void
xt_par_shutdown(void)
{
	unsigned int i, n;

	pthread_mutex_lock(&g_lock);
	g_quit = true;
	n = g_helpers;
	g_helpers = 0;
	pthread_cond_broadcast(&g_work);
	pthread_mutex_unlock(&g_lock);
	for (i = 0; i < n; i++) {
		pthread_join(g_threads[i], NULL);
	}
}

/* Cut r into pieces of XT_CHUNK, the last one taking the rest; c's policy for each. */
static void
batch_fill(struct batch *b, const struct xt_copy *c, const struct xt_range *r,
	   unsigned int nbounce)
{
	uint64_t off = 0, len = r->len;
	unsigned int i;

	for (i = 0; off < len && i < XT_PAR_PIECES && i < nbounce; i++) {
		b->p[i].r = *r;
		b->p[i].r.soff = r->soff + off;
		b->p[i].r.doff = r->doff + off;
		b->p[i].r.len = len - off < XT_CHUNK || i + 1 == nbounce || i + 1 == XT_PAR_PIECES
					? len - off : XT_CHUNK;
		b->p[i].bounce = c->bounce[i];
		b->p[i].c.clone = c->clone;
		b->p[i].c.cfr = c->cfr;
		off += b->p[i].r.len;
	}
	b->n = i;
	b->left = b->n;
}

/* Offer b to the helpers and run its pieces here too, until all have ended. */
static void
batch_run(struct batch *b)
{
	struct piece *p;

	pthread_mutex_lock(&g_lock);
	if (g_helpers > 0 && !g_quit) {
		b->qnext = g_queue;
		g_queue = b;
		pthread_cond_broadcast(&g_work);
	}
	/* work on our own batch until nothing is left to take */
	while ((p = take(b)) != NULL) {
		pthread_mutex_unlock(&g_lock);
		run_piece(p);
		pthread_mutex_lock(&g_lock);
		b->left--;
	}
	while (b->left > 0) {
		pthread_cond_wait(&b->done, &g_lock);
	}
	pthread_mutex_unlock(&g_lock);
}

/* As the serial loop: the first failing piece decides, earlier bytes count. */
static int
batch_result(const struct batch *b, struct xt_copy *c)
{
	struct xt_copy_acct *acct = &c->acct;
	unsigned int i;

	c->done = 0;
	c->at_dst = false;
	for (i = 0; i < b->n; i++) {
		acct->clone_bytes += b->p[i].c.acct.clone_bytes;
		acct->cfr_bytes += b->p[i].c.acct.cfr_bytes;
		acct->rw_bytes += b->p[i].c.acct.rw_bytes;
		acct->rw_direct_bytes += b->p[i].c.acct.rw_direct_bytes;
	}
	for (i = 0; i < b->n; i++) {
		if (b->p[i].rc != 0) {
			c->done += b->p[i].c.done;
			c->at_dst = b->p[i].c.at_dst;
			return b->p[i].rc;
		}
		c->done += b->p[i].r.len;
	}
	return 0;
}

/* Bounce buffers of c usable for r: allocated on first use, at most what the pool runs. */
static unsigned int
bounce_ready(struct xt_copy *c, const struct xt_range *r)
{
	unsigned int nb = 1, max = xt_par_pieces();

	while (r->len > XT_CHUNK && nb < max && nb < XT_PAR_PIECES &&
	       (c->bounce[nb] != NULL || (c->bounce[nb] = xt_bounce_new()) != NULL)) {
		nb++;
	}
	return nb;
}

int
xt_par_copy(struct xt_copy *c, const struct xt_range *r)
{
	const struct xt_lu *src = r->src, *dst = r->dst;
	uint64_t src_off = r->soff, dst_off = r->doff, len = r->len;
	bool same = xt_file(src)->st_dev == xt_file(dst)->st_dev &&
		    xt_file(src)->st_ino == xt_file(dst)->st_ino;
	bool overlap = same && src_off < dst_off + len && dst_off < src_off + len;
	unsigned int nbounce;
	struct batch b;

	/* a merged run is clone or nothing: one call, as the engine planned it */
	if (c->merged || overlap || len <= XT_CHUNK || (nbounce = bounce_ready(c, r)) < 2) {
		return xt_file_copy(c, r, c->bounce[0]);
	}
	pthread_once(&g_once, pool_start);
	memset(&b, 0, sizeof(b));
	b.nice = dst->cfg.copy_nice;
	pthread_cond_init(&b.done, NULL);
	batch_fill(&b, c, r, nbounce);
	batch_run(&b);
	pthread_cond_destroy(&b.done);
	return batch_result(&b, c);
}
