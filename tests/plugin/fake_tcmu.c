/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fakes of the tcmu-runner / libtcmu symbols handler_xcopy.so uses. The test
 * binary is linked with -rdynamic, so the dlopen'ed plugin binds to these as
 * it binds to the daemon's and libtcmu's in production.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_tcmu.h"

struct tcmur_handler *g_handler;
char g_last_err[1024];
int g_verbose;

int
tcmur_register_handler(struct tcmur_handler *h)
{
	if (g_handler != NULL && strcmp(g_handler->subtype, h->subtype) == 0) {
		return -1;
	}
	if (h->init != NULL && h->init() != 0) {
		return -1;
	}
	g_handler = h;
	return 0;
}

void *
tcmur_dev_get_private(struct tcmu_device *dev)
{
	return dev->hm_priv;
}

void
tcmur_dev_set_private(struct tcmu_device *dev, void *priv)
{
	dev->hm_priv = priv;
}

const char *
tcmu_dev_get_cfgstring(struct tcmu_device *dev)
{
	return dev->cfgstring;
}

const char *
tcmu_dev_get_uio_name(struct tcmu_device *dev)
{
	return dev->uio;
}

uint32_t
tcmu_dev_get_block_size(struct tcmu_device *dev)
{
	return dev->block_size;
}

uint64_t
tcmu_dev_get_num_lbas(struct tcmu_device *dev)
{
	return dev->num_lbas;
}

static pthread_mutex_t g_wwn_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wwn_cv = PTHREAD_COND_INITIALIZER;
static unsigned g_wwn_held;

char *
tcmu_cfgfs_dev_get_wwn(struct tcmu_device *dev)
{
	pthread_mutex_lock(&g_wwn_mu);
	if (dev->wwn_hold) {
		g_wwn_held++;
		pthread_cond_broadcast(&g_wwn_cv);
		while (dev->wwn_hold) {
			pthread_cond_wait(&g_wwn_cv, &g_wwn_mu);
		}
		g_wwn_held--;
	}
	pthread_mutex_unlock(&g_wwn_mu);
	return dev->serial[0] != '\0' ? strdup(dev->serial) : NULL;
}

bool
fake_wwn_wait_held(void)
{
	struct timespec until;
	bool held;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&g_wwn_mu);
	while (g_wwn_held == 0 && pthread_cond_timedwait(&g_wwn_cv, &g_wwn_mu, &until) == 0) {
	}
	held = g_wwn_held > 0;
	pthread_mutex_unlock(&g_wwn_mu);
	return held;
}

void
fake_wwn_release(struct tcmu_device *dev)
{
	pthread_mutex_lock(&g_wwn_mu);
	dev->wwn_hold = false;
	pthread_cond_broadcast(&g_wwn_cv);
	pthread_mutex_unlock(&g_wwn_mu);
}

unsigned int
tcmu_dev_get_opt_unmap_gran(struct tcmu_device *dev)
{
	return dev->opt_unmap_gran;
}

void
tcmu_dev_set_opt_unmap_gran(struct tcmu_device *dev, unsigned int len, bool split)
{
	dev->opt_unmap_gran = len;
}

void
tcmu_dev_set_unmap_gran_align(struct tcmu_device *dev, unsigned int len)
{
	dev->unmap_gran_align = len;
}

void
tcmu_dev_set_write_cache_enabled(struct tcmu_device *dev, bool enabled)
{
	dev->write_cache = enabled;
}

bool
tcmu_dev_get_write_cache_enabled(struct tcmu_device *dev)
{
	return dev->write_cache;
}

char g_warns[4096];
int g_warn_count;

void
fake_warn_reset(void)
{
	g_warns[0] = '\0';
	g_warn_count = 0;
}

static void
log_msg(const char *lvl, struct tcmu_device *dev, const char *fn, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (lvl[0] == 'E') {
		snprintf(g_last_err, sizeof(g_last_err), "%s", buf);
	}
	if (lvl[0] == 'W') {
		/* the warnings since the last fake_warn_reset, one after the other */
		size_t used = strlen(g_warns);

		snprintf(g_warns + used, sizeof(g_warns) - used, "%s", buf);
		g_warn_count++;
	}
	if (g_verbose) {
		fprintf(stderr, "  [%s %s %s] %s", lvl, dev != NULL ? dev->uio : "-", fn, buf);
	}
}

#define FAKE_LOG(NAME, LVL)                                                          \
	void NAME(struct tcmu_device *dev, const char *funcname, int linenr,          \
		  const char *fmt, ...)                                                \
	{                                                                            \
		va_list ap;                                                          \
		va_start(ap, fmt);                                                   \
		log_msg(LVL, dev, funcname, fmt, ap);                                \
		va_end(ap);                                                          \
	}

FAKE_LOG(tcmu_crit_message, "CRIT")
FAKE_LOG(tcmu_err_message, "ERR")
FAKE_LOG(tcmu_warn_message, "WARN")
FAKE_LOG(tcmu_info_message, "INFO")
FAKE_LOG(tcmu_dbg_message, "DBG")
