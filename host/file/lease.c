/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Leases that hold a file's extent map for an offload (fcntl F_SETLEASE).
 *
 * While a write lease on the destination and a read lease on the source are
 * held, no other open for writing, truncate(2) or (for the write lease) open
 * for reading gets through: the kernel marks the lease "breaking" and makes
 * the other process wait up to /proc/sys/fs/lease-break-time seconds for the
 * holder to let go. So the blocks FIEMAP gave cannot be freed and reused
 * while commands addressing them run.
 *
 * No signal: taking a lease makes the process the descriptor's owner, and a
 * break sends it SIGIO (default action: terminate) or the F_SETSIG signal.
 * A library must not install handlers, so right after F_SETLEASE the owner
 * is cleared (F_SETOWN 0: the kernel then sends nothing) and breaks are
 * found by polling F_GETLEASE, which reports the type the lease is being
 * broken to. For the few instructions between F_SETLEASE and F_SETOWN the
 * descriptor's signal is SIGURG, which is ignored unless the program
 * handles it (sockets' out-of-band data; handlers must tolerate spurious
 * ones). The caller's owner and signal are put back when the lease goes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "base/xch_base.h"
#include "xch_file.h"

/* check-then-take: two calls sharing one open file never share a lease */
static pthread_mutex_t g_lease_mu = PTHREAD_MUTEX_INITIALIZER;

int
xch_lease_take(struct xch_lease *l, int fd, int type)
{
	int rc = 0;

	memset(l, 0, sizeof(*l));
	l->fd = fd;
	pthread_mutex_lock(&g_lease_mu);
	l->sig = fcntl(fd, F_GETSIG);
	if (l->sig < 0 || fcntl(fd, F_GETOWN_EX, &l->own) != 0) {
		rc = -errno;
	} else if (fcntl(fd, F_GETLEASE) != F_UNLCK) {
		/* the caller's own lease, or another call's on this open file */
		rc = -EBUSY;
	} else if (fcntl(fd, F_SETSIG, SIGURG) != 0) {
		rc = -errno;
	} else if (fcntl(fd, F_SETLEASE, type) != 0) {
		rc = -errno;
		(void)fcntl(fd, F_SETSIG, l->sig);
	} else {
		(void)fcntl(fd, F_SETOWN, 0);
		l->type = type;
		l->held = true;
	}
	pthread_mutex_unlock(&g_lease_mu);
	return rc;
}

bool
xch_lease_held(const struct xch_lease *l)
{
	return l->held && fcntl(l->fd, F_GETLEASE) == l->type;
}

void
xch_lease_drop(struct xch_lease *l)
{
	if (!l->held) {
		return;
	}
	pthread_mutex_lock(&g_lease_mu);
	(void)fcntl(l->fd, F_SETLEASE, F_UNLCK);
	(void)fcntl(l->fd, F_SETOWN_EX, &l->own);
	(void)fcntl(l->fd, F_SETSIG, l->sig);
	pthread_mutex_unlock(&g_lease_mu);
	l->held = false;
}

/*
 * Bytes offloaded between two looks at the leases: a break is seen within
 * one batch (its commands finish first; the breaker waits meanwhile, up to
 * /proc/sys/fs/lease-break-time, 45 s by default). 32 MiB: well under a
 * second on real copy managers, a few seconds in the TCG lab.
 */
uint64_t
xch_lease_batch_bytes(void)
{
	return 32ull << 20;
}
