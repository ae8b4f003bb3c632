/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * host/device/: the device handle (struct xcopy_dev) over a transport, its
 * discovery, the nodes it may be opened on (sysfs, partitions), and the
 * device-mapper volumes and multipath LUs mapped onto handles underneath.
 * Host-internal (xch_ prefix, hidden by the version script).
 */
#ifndef XCH_DEVICE_H
#define XCH_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "xcm/initiator.h"
#include "xcm/xcm.h"
#include "xcopy.h"
#include "transport/xch_transport.h"

/* ------------------------------------------------------------------------ */
/* Device handle                                                              */
/* ------------------------------------------------------------------------ */

struct xch_dev_kind;

/* Longest key xch_same_lu compares (a designation descriptor, or a node). */
#define XCH_LU_KEY_MAX 24

struct xcopy_dev {
	const struct xch_dev_kind *kind;       /* what the handle is (below): every kind's step */
	void *kctx;                            /* the kind's own: transport context, paths, map */
	const struct xch_transport_ops *ops;   /* SCSI kind: its transport (else NULL) */
	struct xcopy_caps caps;
	char name[64];
	bool disabled;                         /* sticky: offload never again */
	enum xcopy_fallback_reason disabled_why;
	uint8_t next_list_id;                  /* for LIST ID USAGE 10b */
	uint8_t lid_busy[32];                  /* ids of commands outstanding (bitmap) */
	uint8_t unreached[XCH_LU_KEY_MAX];     /* the LU this copy manager last could not */
	size_t unreached_len;                  /* reach (xch_dev_route_*; 0: none) */
	uint32_t max_copies;                   /* TOTAL CONCURRENT COPIES (0: not reported) */
	uint32_t max_id_copies;                /* MAXIMUM IDENTIFIED CONCURRENT COPIES (0: ditto) */
	int cache_fd;                          /* block device fd for DONTNEED, or -1 */
	unsigned cache_refs;                   /* file_dev.c: holders, under its lock */
	int host_fd;                           /* the node itself, or -1 */
	dev_t rdev;                            /* the node opened (0: URL or test) */
	struct xch_tok_caps {                  /* ROD tokens (VPD 0x8F, SPC-4 7.8.17.x) */
		bool offered;                  /* 0000h limits + PT/WUT and RRTI listed */
		bool lid1;                     /* 0001h lists EXTENDED COPY (LID1) */
		uint16_t max_ranges;           /* MAXIMUM RANGE DESCRIPTORS */
		uint64_t max_token_blocks;     /* MAXIMUM TOKEN TRANSFER SIZE (0: none) */
		uint64_t optimal_blocks;       /* OPTIMAL TRANSFER COUNT (0: none) */
		uint32_t default_inactivity_s; /* DEFAULT INACTIVITY TIMEOUT */
		bool disabled;                 /* sticky: no token commands again */
		enum xcopy_fallback_reason disabled_why;
	} tok;
};

/*
 * Handle kinds: one table each, so that no code asks what a handle is. A
 * kind says how a copy reaches its blocks (reach: the one fact the choice
 * of copy method reads, copy/method.c) and does every step that differs:
 *   scsi       an LU through a transport (scsi.c)
 *   multipath  an LU through several transports, one at a time (mpath.c)
 *   dm         a device-mapper volume mapped onto handles underneath (dm.c)
 *   host       a node the host reads and writes, nothing else (devmap.c)
 */
enum xch_reach {
	XCH_REACH_CMDS = 0,     /* SCSI commands to the LU: EXTENDED COPY, tokens */
	XCH_REACH_MAP,          /* through the handles a map puts under it */
	XCH_REACH_HOST,         /* the host's pread/pwrite of the node only */
};

struct xch_dev_kind {
	const char *name;
	enum xch_reach reach;
	/* One command (xch_dev_exec): 0 with a SCSI status, -errno; -ENODEV: none taken. */
	int (*exec)(struct xcopy_dev *d, struct xch_cmd *c);
	/* Whole blocks at whole-LU lba (window checked by the caller). 0 or -errno. */
	int (*rw)(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf,
		  struct xcopy_stats *st);
	/* exec may run in several threads at once. */
	bool (*concurrent)(const struct xcopy_dev *d);
	/* Every LU under the handle offloads (the handle's caps.offload). */
	bool (*offload)(const struct xcopy_dev *d);
	/* The tables the handle was mapped with are still the live ones. */
	bool (*tables_same)(const struct xcopy_dev *d);
	/* Where block lba lies: the handle taking commands, its lba, blocks left there. */
	void (*locate)(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev,
		       uint64_t *dev_lba, uint64_t *run);
	/* After a copy wrote [lba, lba + n): durable through the node, page cache dropped. */
	int (*written)(struct xcopy_dev *d, uint64_t lba, uint64_t n);
	/* The LU's identity for xch_same_lu: bytes written to out (0: none). */
	size_t (*lu_key)(const struct xcopy_dev *d, uint8_t *out, size_t cap);
	/* The kind's own state let go (the fds are closed by xcopy_dev_close). */
	void (*close)(struct xcopy_dev *d);
};

extern const struct xch_dev_kind xch_kind_scsi;

/* A handle of a kind, nothing discovered (fds -1). NULL when out of memory. */
struct xcopy_dev *xch_dev_new(const struct xch_dev_kind *kind, void *kctx, const char *name);
/*
 * The kind-dependent steps for any handle (dev.c), and the steps kinds
 * share: no command (-ENODEV); READ/WRITE(16) through exec; pread/pwrite
 * of host_fd; the handle itself holds its blocks; the live table is always
 * the one; the page cache of cache_fd dropped; host_fd synced and its page
 * cache dropped; the designator or the node as the LU's identity.
 */
void xch_dev_locate(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev, uint64_t *dev_lba,
		    uint64_t *run);
bool xch_dev_offload(const struct xcopy_dev *d);
bool xch_dev_tables_same(const struct xcopy_dev *d);
int xch_dev_written(struct xcopy_dev *d, uint64_t lba, uint64_t n);
int xch_no_exec(struct xcopy_dev *d, struct xch_cmd *c);
int xch_cmd_rw(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf,
	       struct xcopy_stats *st);
int xch_host_rw(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf,
		struct xcopy_stats *st);
void xch_locate_self(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev,
		     uint64_t *dev_lba, uint64_t *run);
bool xch_same_always(const struct xcopy_dev *d);
int xch_written_cache(struct xcopy_dev *d, uint64_t lba, uint64_t n);
int xch_written_node(struct xcopy_dev *d, uint64_t lba, uint64_t n);
size_t xch_key_desig(const struct xcopy_dev *d, uint8_t *out, size_t cap);
size_t xch_key_node(const struct xcopy_dev *d, uint8_t *out, size_t cap);

/*
 * Discovery (discover.c) and its commands (dev.c): one data-in command with
 * retries of transient conditions (*got = bytes received), a VPD page read
 * whole (up to 4096 bytes; *out freed by the caller), the whole discovery.
 */
int xch_cmd_in(struct xcopy_dev *d, const uint8_t *cdb, uint8_t cdb_len, void *buf, size_t len,
	       size_t *got);
int xch_read_vpd(struct xcopy_dev *d, uint8_t page, uint8_t **out, size_t *got);
int xch_discover(struct xcopy_dev *d);

/*
 * Wrap an open transport into a SCSI handle and run discovery (scsi.c).
 * Takes ownership of ctx (closed through ops->close on failure too).
 * part_start / part_blocks: the window this handle addresses (0/0: the
 * whole LU). xch_dev_attach_kind: the same for another kind that takes
 * commands (ctx its kctx, closed by kind->close on failure).
 */
int xch_dev_attach(const struct xch_transport_ops *ops, void *ctx, const char *name,
		   uint64_t part_start_512, uint64_t part_size_512, struct xcopy_dev **out);
int xch_dev_attach_kind(const struct xch_dev_kind *kind, const struct xch_transport_ops *ops,
			void *ctx, const char *name, uint64_t part_start_512,
			uint64_t part_size_512, struct xcopy_dev **out);

/*
 * Open a block device node (see devmap.c for which nodes may carry
 * commands) or a SCSI character node (sg, bsg). 0 or -errno.
 */
int xch_open_blockdev(const char *path, dev_t rdev, struct xcopy_dev **out);
int xch_open_blockdev_depth(const char *path, dev_t rdev, int depth, struct xcopy_dev **out);

/*
 * Open a device-mapper volume and map it (devmap.c): -ENODEV when its table
 * is not a plain remap of SCSI disks (the reason logged), no host-only
 * handle instead.
 */
int xch_open_volume(const char *path, dev_t rdev, struct xcopy_dev **out);

/*
 * Device-mapper volumes (dm.c): map a volume whose table is a plain remap
 * (linear, striped, multipath) onto handles of the devices underneath,
 * opened by open (0, or -errno with *why saying what refused it; d becomes
 * of the dm kind); copy/copy_pairs.c copies through such maps. xch_dm_use_map: d
 * takes m (a map built from text) and becomes of the dm kind.
 */
struct xch_dm_map;
typedef int (*xch_dm_open_fn)(void *arg, unsigned major, unsigned minor, int depth,
			      struct xcopy_dev **out);
int xch_dm_attach(struct xcopy_dev *d, unsigned major, unsigned minor, int depth,
		  xch_dm_open_fn open, char *why, size_t whylen);
void xch_dm_use_map(struct xcopy_dev *d, struct xch_dm_map *m);
/* Pieces of the map of a dm handle. */
size_t xch_dm_pieces(const struct xcopy_dev *d);

/* One table line ("START LEN TYPE ARGS", sectors, MAJ:MIN devices) parsed (dm_table.c). */
#define XCH_DM_MAX_LEGS 32
enum xch_dm_kind {
	XCH_DM_LINEAR = 0,
	XCH_DM_STRIPED,
	XCH_DM_MULTIPATH,
};
struct xch_dm_leg_spec {
	unsigned major, minor;
	uint64_t off;          /* sectors (linear, striped); 0 for multipath paths */
};
struct xch_dm_target {
	uint64_t start, len;   /* sectors of the volume */
	enum xch_dm_kind kind;
	char type[32];
	uint64_t chunk;        /* striped: sectors per chunk */
	uint32_t nleg;         /* devices (stripes, paths) */
	struct xch_dm_leg_spec leg[XCH_DM_MAX_LEGS];
};
/* 0; -ENOTSUP (a target that is not a plain remap: *why names it), -EINVAL, -E2BIG, -ENOMEM. */
int xch_dm_parse_target(const char *line, struct xch_dm_target *t, char *why, size_t whylen);

/*
 * Build a volume's map from its table text (one target per line) with an
 * injectable opener of the devices underneath (the unit tests pass fakes).
 * bs and vol_blocks: the volume's block size and size in blocks.
 */
int xch_dm_map_build(const char *table, uint32_t bs, uint64_t vol_blocks, int depth,
		     xch_dm_open_fn open, void *arg, struct xch_dm_map **out, char *why,
		     size_t whylen);
void xch_dm_map_free(struct xch_dm_map *m);
/* The map's volume is a multipath device: path changes do not move blocks. */
bool xch_dm_map_is_multipath(const struct xch_dm_map *m);
/*
 * dm-multipath (mpath.c): one handle reaching an LU through several paths
 * (whole-disk handles with a transport, owned on success). Every path must
 * carry the same designator (VPD 83h), block size and capacity; commands go
 * to one path, and one that fails on the path (no SCSI status, a transport
 * or host error, LOGICAL UNIT NOT SUPPORTED) is resent on the next path
 * whose VPD 83h designator still matches. 0 or -errno with *why.
 */
int xch_mpath_attach(struct xcopy_dev **paths, size_t n, const char *name, struct xcopy_dev **out,
		     char *why, size_t whylen);
/* Paths of a multipath handle still in use (0 when d is not one). */
size_t xch_mpath_live_paths(const struct xcopy_dev *d);
/* Re-read VPD 83h through d and pick the designator (xch_pick_designator): length, 0, -errno. */
int xch_dev_read_designator(struct xcopy_dev *d, uint8_t *out, size_t cap);
int xch_open_chardev(const char *path, dev_t rdev, struct xcopy_dev **out);

/* Send one command; counts it in stats->other_cmds unless it is 83h. */
int xch_dev_exec(struct xcopy_dev *d, struct xch_cmd *c, struct xcopy_stats *st);

/* Block read/write through the transport, chunked by the device's limits. */
int xch_dev_read(struct xcopy_dev *d, uint64_t lba, uint32_t nblocks, void *buf,
		 struct xcopy_stats *st);
int xch_dev_write(struct xcopy_dev *d, uint64_t lba, uint32_t nblocks, const void *buf,
		  struct xcopy_stats *st);

/* Same LU: both handles carry the same chosen designator. */
bool xch_same_lu(const struct xcopy_dev *a, const struct xcopy_dev *b);

/*
 * What a copy learnt about the copy manager behind d and the LU of other
 * (copies between targets, copy/lid1_copy.c): xch_dev_route_set with
 * unreachable true when d's copy manager refused to reach other's LU and
 * other's did the copy, false when d's did it; xch_dev_route_unreached: the
 * last word was "cannot reach", so a command for a copy between the two goes
 * to other first. One LU remembered per handle; thread-safe.
 */
void xch_dev_route_set(struct xcopy_dev *d, const struct xcopy_dev *other, bool unreachable);
bool xch_dev_route_unreached(const struct xcopy_dev *d, const struct xcopy_dev *other);

/*
 * Pick the designation descriptor a CSCD should carry from page 0x83:
 * LU association, binary code set, length <= 20, NAA 6 then NAA 5 then other
 * NAA, then EUI-64, then T10. Returns the descriptor length (header + body)
 * copied to out, 0 when none fits, -EINVAL when the page is malformed.
 */
int xch_pick_designator(struct xcm_span page, uint8_t *out, size_t cap);

/* Largest segment libxcopy sends to a target that takes several per command (discover.c). */
#define XCH_SEG_PREF_BYTES (4u << 20)

/* ------------------------------------------------------------------------ */
/* sysfs: block device -> whole disk + partition window                       */
/* ------------------------------------------------------------------------ */

struct xch_blk {
	char name[64];          /* kernel name of the device itself ("sdb1", "dm-0") */
	char disk[64];          /* kernel name of the whole disk ("sdb", "dm-0") */
	unsigned disk_major, disk_minor;
	bool is_partition;      /* the device is a partition of disk */
	uint64_t start;         /* partition start, 512-byte sectors (0: whole disk) */
	uint64_t size;          /* partition or disk size, 512-byte sectors */
	bool is_scsi;           /* the disk has a SCSI device behind it */
	bool is_dm;             /* the disk is a device-mapper device */
	uint64_t wz_unmap;      /* queue/write_zeroes_unmap_max_bytes (Linux 6.17; 0: none) */
};
int xch_sysfs_resolve(const char *sysroot, unsigned major, unsigned minor, struct xch_blk *out);
/* A character device node with a SCSI device behind it (sg, bsg): 1, 0, -errno. */
int xch_sysfs_char_is_scsi(const char *sysroot, unsigned major, unsigned minor);
/*
 * The window of LU blocks a block device node addresses, or why there is
 * none. Only two kinds of node map to LBAs in a way the library knows: a
 * whole SCSI disk (identity) and a partition of one (start and length from
 * sysfs). Everything else (device-mapper, md, loop, nbd, zram...) is
 * refused: SG_IO on such a node reaches the whole disk under it, so no LBA
 * sent through it would mean what the caller named. dev_bytes is the node's
 * own size (BLKGETSIZE64) and must equal the window: 0, -ENOTBLK (not a
 * SCSI disk or partition), -ERANGE (sizes disagree or the window leaves the
 * LU), -EINVAL (window not on logical-block boundaries).
 */
struct xch_window {
	uint64_t start;         /* first LU block */
	uint64_t blocks;
};
int xch_blk_window(const struct xch_blk *b, uint32_t block_size, uint64_t lu_blocks,
		   uint64_t dev_bytes, struct xch_window *out);
/* lba .. lba + n lies inside the handle's window: 0 or -ERANGE. */
int xch_dev_range_check(const struct xcopy_dev *d, uint64_t lba, uint64_t n);

#endif /* XCH_DEVICE_H */
