/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tcmu-runner 1.5.4 handler ABI, as far as handler_xcopy.so uses it.
 *
 * Debian ships no tcmu-runner headers, so these declarations are written from
 * the layouts of struct tcmur_handler, struct tcmulib_cmd and struct
 * tcmur_cmd in the tcmu-runner v1.5.4 source (x86_64) and the symbols its
 * binary exports (nm -D). The layouts are pinned with _Static_assert: a drift from the
 * runner's structs would silently corrupt memory, so it must not compile.
 *
 * Symbol origin: tcmur_* come from the tcmu-runner executable, tcmu_* from
 * libtcmu.so.2 (loaded by the daemon); both are resolved at dlopen time, so
 * the plugin is linked without -z defs. tests/plugin/ defines fakes of all of
 * them.
 */
#ifndef TARGET_TCMU_ABI_H
#define TARGET_TCMU_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: defined only inside libtcmu. */
struct tcmu_device;

/* SENSE_BUFFERSIZE (== kernel TCMU_SENSE_BUFFERSIZE) */
#define TCMU_SENSE_BUFFERSIZE 96

/* TCMU_STS_*: handler return codes (libtcmu's tcmu_sts_to_scsi maps them to SCSI status + sense) */
enum {
	TCMU_STS_ASYNC_HANDLED = -2,
	TCMU_STS_NOT_HANDLED = -1,
	TCMU_STS_OK = 0,
	TCMU_STS_NO_RESOURCE = 1,
	TCMU_STS_PASSTHROUGH_ERR = 2,  /* CHECK CONDITION with lib_cmd->sense_buf as is */
	TCMU_STS_BUSY = 3,
	TCMU_STS_WR_ERR = 4,           /* MEDIUM ERROR 0C/00 */
	TCMU_STS_RD_ERR = 5,           /* MEDIUM ERROR 11/00 */
	TCMU_STS_MISCOMPARE = 6,
	TCMU_STS_INVALID_CMD = 7,      /* ILLEGAL REQUEST 20/00 */
	TCMU_STS_INVALID_CDB = 8,      /* ILLEGAL REQUEST 24/00 */
	TCMU_STS_INVALID_PARAM_LIST = 9,
	TCMU_STS_INVALID_PARAM_LIST_LEN = 10,
	TCMU_STS_TIMEOUT = 11,
	TCMU_STS_FENCED = 12,
	TCMU_STS_HW_ERR = 13,          /* HARDWARE ERROR 44/00 */
	TCMU_STS_RANGE = 14,           /* ILLEGAL REQUEST 21/00 */
};

/* libtcmu_common.h struct tcmulib_cmd: sizeof 136 */
struct tcmulib_cmd {
	uint16_t cmd_id;
	uint8_t *cdb;
	struct iovec *iovec;           /* data-out or data-in buffer */
	size_t iov_cnt;
	uint8_t sense_buf[TCMU_SENSE_BUFFERSIZE];
	void *hm_private;              /* the runner's struct tcmur_cmd */
};

/* ccan list_node */
struct tcmu_abi_list_node {
	struct tcmu_abi_list_node *next, *prev;
};

/* tcmu-runner.h struct tcmur_cmd: sizeof 96 */
struct tcmur_cmd {
	struct tcmulib_cmd *lib_cmd;
	struct iovec *iovec;
	size_t iov_cnt;
	void *iov_base_copy;
	void *cmd_state;
	size_t requested;
	struct tcmu_abi_list_node cmds_list_entry;
	struct timespec start_time;
	bool timed_out;
	void (*done)(struct tcmu_device *dev, struct tcmur_cmd *cmd, int ret);
};

enum tcmulib_cfg_type {
	TCMULIB_CFG_DEV_CFGSTR = 0,
	TCMULIB_CFG_DEV_SIZE = 1,
	TCMULIB_CFG_WRITE_CACHE = 2,
};

struct tcmulib_cfg_info {
	enum tcmulib_cfg_type type;
	union {
		uint64_t dev_size;
		char *dev_cfgstring;
		bool write_cache;
	} data;
};

/* tcmu-runner.h struct tcmur_handler: sizeof 200 */
struct tcmur_handler {
	const char *name;
	const char *subtype;
	const char *cfg_desc;
	void *opaque;
	bool (*check_config)(const char *cfgstring, char **reason);
	int (*reconfig)(struct tcmu_device *dev, struct tcmulib_cfg_info *cfg);
	int (*open)(struct tcmu_device *dev, bool reopen);
	void (*close)(struct tcmu_device *dev);
	int nr_threads;
	int (*handle_cmd)(struct tcmu_device *dev, struct tcmur_cmd *cmd);
	int (*read)(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		    size_t iov_cnt, size_t len, off_t off);
	int (*write)(struct tcmu_device *dev, struct tcmur_cmd *cmd, struct iovec *iov,
		     size_t iov_cnt, size_t len, off_t off);
	int (*flush)(struct tcmu_device *dev, struct tcmur_cmd *cmd);
	int (*unmap)(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len);
	int (*writesame)(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off,
			 uint64_t len, struct iovec *iov, size_t iov_cnt);
	int (*caw)(struct tcmu_device *dev, struct tcmur_cmd *cmd, uint64_t off, uint64_t len,
		   struct iovec *iov, size_t iov_cnt);
	int (*report_event)(struct tcmu_device *dev);
	int (*lock)(struct tcmu_device *dev, uint16_t tag);
	int (*unlock)(struct tcmu_device *dev);
	int (*get_lock_tag)(struct tcmu_device *dev, uint16_t *tag);
	int (*get_lock_state)(struct tcmu_device *dev);
	bool _is_dbus_handler;
	bool (*update_logdir)(void);
	int (*init)(void);
	void (*destroy)(void);
};

#if defined(__x86_64__)
_Static_assert(sizeof(struct tcmulib_cmd) == 136, "tcmulib_cmd size (1.5.4, x86_64)");
_Static_assert(offsetof(struct tcmulib_cmd, cdb) == 8, "tcmulib_cmd.cdb");
_Static_assert(offsetof(struct tcmulib_cmd, iovec) == 16, "tcmulib_cmd.iovec");
_Static_assert(offsetof(struct tcmulib_cmd, iov_cnt) == 24, "tcmulib_cmd.iov_cnt");
_Static_assert(offsetof(struct tcmulib_cmd, sense_buf) == 32, "tcmulib_cmd.sense_buf");
_Static_assert(offsetof(struct tcmulib_cmd, hm_private) == 128, "tcmulib_cmd.hm_private");
_Static_assert(sizeof(struct tcmur_cmd) == 96, "tcmur_cmd size (1.5.4, x86_64)");
_Static_assert(offsetof(struct tcmur_cmd, cmds_list_entry) == 48, "tcmur_cmd.list");
_Static_assert(offsetof(struct tcmur_cmd, start_time) == 64, "tcmur_cmd.start_time");
_Static_assert(offsetof(struct tcmur_cmd, timed_out) == 80, "tcmur_cmd.timed_out");
_Static_assert(offsetof(struct tcmur_cmd, done) == 88, "tcmur_cmd.done");
_Static_assert(sizeof(struct tcmulib_cfg_info) == 16, "tcmulib_cfg_info size");
_Static_assert(offsetof(struct tcmulib_cfg_info, data) == 8, "tcmulib_cfg_info.data");
_Static_assert(sizeof(struct tcmur_handler) == 200, "tcmur_handler size (1.5.4, x86_64)");
_Static_assert(offsetof(struct tcmur_handler, check_config) == 32, "check_config");
_Static_assert(offsetof(struct tcmur_handler, reconfig) == 40, "reconfig");
_Static_assert(offsetof(struct tcmur_handler, open) == 48, "open");
_Static_assert(offsetof(struct tcmur_handler, close) == 56, "close");
_Static_assert(offsetof(struct tcmur_handler, nr_threads) == 64, "nr_threads");
_Static_assert(offsetof(struct tcmur_handler, handle_cmd) == 72, "handle_cmd");
_Static_assert(offsetof(struct tcmur_handler, read) == 80, "read");
_Static_assert(offsetof(struct tcmur_handler, write) == 88, "write");
_Static_assert(offsetof(struct tcmur_handler, flush) == 96, "flush");
_Static_assert(offsetof(struct tcmur_handler, unmap) == 104, "unmap");
_Static_assert(offsetof(struct tcmur_handler, writesame) == 112, "writesame");
_Static_assert(offsetof(struct tcmur_handler, caw) == 120, "caw");
_Static_assert(offsetof(struct tcmur_handler, report_event) == 128, "report_event");
_Static_assert(offsetof(struct tcmur_handler, lock) == 136, "lock");
_Static_assert(offsetof(struct tcmur_handler, get_lock_state) == 160, "get_lock_state");
_Static_assert(offsetof(struct tcmur_handler, _is_dbus_handler) == 168, "_is_dbus_handler");
_Static_assert(offsetof(struct tcmur_handler, update_logdir) == 176, "update_logdir");
_Static_assert(offsetof(struct tcmur_handler, init) == 184, "init");
_Static_assert(offsetof(struct tcmur_handler, destroy) == 192, "destroy");
#else
#error "tcmu_abi.h: layouts are verified for x86_64 only"
#endif

/* Exported by the tcmu-runner executable (main-syms.txt). 0 = registered. */
int tcmur_register_handler(struct tcmur_handler *handler);
void *tcmur_dev_get_private(struct tcmu_device *dev);
void tcmur_dev_set_private(struct tcmu_device *dev, void *priv);

/* Exported by libtcmu.so.2. */
const char *tcmu_dev_get_cfgstring(struct tcmu_device *dev);   /* "subtype/...", not owned */
const char *tcmu_dev_get_uio_name(struct tcmu_device *dev);    /* "uioN" */
uint32_t tcmu_dev_get_block_size(struct tcmu_device *dev);
uint64_t tcmu_dev_get_num_lbas(struct tcmu_device *dev);
char *tcmu_cfgfs_dev_get_wwn(struct tcmu_device *dev);         /* malloc'd serial or NULL */
unsigned int tcmu_dev_get_opt_unmap_gran(struct tcmu_device *dev);
void tcmu_dev_set_opt_unmap_gran(struct tcmu_device *dev, unsigned int len, bool split);
void tcmu_dev_set_unmap_gran_align(struct tcmu_device *dev, unsigned int len);
/* MODE SENSE caching page WCE as the core reports it (runner default: false) */
void tcmu_dev_set_write_cache_enabled(struct tcmu_device *dev, bool enabled);
bool tcmu_dev_get_write_cache_enabled(struct tcmu_device *dev);

void tcmu_crit_message(struct tcmu_device *dev, const char *funcname, int linenr,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tcmu_err_message(struct tcmu_device *dev, const char *funcname, int linenr,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tcmu_warn_message(struct tcmu_device *dev, const char *funcname, int linenr,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tcmu_info_message(struct tcmu_device *dev, const char *funcname, int linenr,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tcmu_dbg_message(struct tcmu_device *dev, const char *funcname, int linenr,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define tcmu_dev_err(dev, ...) tcmu_err_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_warn(dev, ...) tcmu_warn_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_info(dev, ...) tcmu_info_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_dev_dbg(dev, ...) tcmu_dbg_message(dev, __func__, __LINE__, __VA_ARGS__)
#define tcmu_err(...) tcmu_err_message(NULL, __func__, __LINE__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* TARGET_TCMU_ABI_H */
