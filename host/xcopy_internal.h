/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy internals: the transport seam, the device handle, the planner, the
 * sense -> fallback decision and the FIEMAP mapping. Everything here is
 * host-internal (xch_ prefix, hidden by the version script) and is what the
 * unit tests drive directly.
 */
#ifndef XCOPY_INTERNAL_H
#define XCOPY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "xcm/initiator.h"
#include "xcm/xcm.h"
#include "xcopy.h"
#include "base/xch_base.h"
#include "transport/xch_transport.h"

/* ------------------------------------------------------------------------ */
/* Device handle                                                              */
/* ------------------------------------------------------------------------ */

struct xcopy_dev {
	const struct xch_transport_ops *ops;
	void *tctx;
	struct xcopy_caps caps;
	char name[64];
	bool disabled;                         /* sticky: offload never again */
	enum xcopy_fallback_reason disabled_why;
	uint8_t next_list_id;                  /* for LIST ID USAGE 10b */
	uint8_t lid_busy[32];                  /* ids of commands outstanding (bitmap) */
	uint32_t max_copies;                   /* TOTAL CONCURRENT COPIES (0: not reported) */
	uint32_t max_id_copies;                /* MAXIMUM IDENTIFIED CONCURRENT COPIES (0: ditto) */
	int cache_fd;                          /* block device fd for DONTNEED, or -1 */
	unsigned cache_refs;                   /* file_dev.c: holders, under its lock */
	bool host_only;                        /* no transport: pread/pwrite on host_fd */
	int host_fd;                           /* the node itself (host-only), or -1 */
	dev_t rdev;                            /* the node opened (0: URL or test) */
	struct xch_dm_map *dm;                 /* device-mapper volume: its pieces */
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
 * Discovery (discover.c) and its commands (dev.c): one data-in command with
 * retries of transient conditions (*got = bytes received), a VPD page read
 * whole (up to 4096 bytes; *out freed by the caller), the whole discovery.
 */
int xch_cmd_in(struct xcopy_dev *d, const uint8_t *cdb, uint8_t cdb_len, void *buf, size_t len,
	       size_t *got);
int xch_read_vpd(struct xcopy_dev *d, uint8_t page, uint8_t **out, size_t *got);
int xch_discover(struct xcopy_dev *d);

/*
 * Wrap an open transport into a handle and run discovery. Takes ownership of
 * ctx (closed through ops->close on failure too). part_start / part_blocks:
 * the window this handle addresses (0/0: the whole LU).
 */
int xch_dev_attach(const struct xch_transport_ops *ops, void *ctx, const char *name,
		   uint64_t part_start_512, uint64_t part_size_512, struct xcopy_dev **out);

/*
 * Open a block device node (see devmap.c for which nodes may carry
 * commands) or a SCSI character node (sg, bsg). 0 or -errno.
 */
int xch_open_blockdev(const char *path, dev_t rdev, struct xcopy_dev **out);
int xch_open_blockdev_depth(const char *path, dev_t rdev, int depth, struct xcopy_dev **out);

/*
 * Device-mapper volumes (dm.c): map a volume whose table is a plain remap
 * (linear, striped, multipath) onto handles of the devices underneath (0, or
 * -errno with *why saying what refused it), copy through that map, free it.
 */
struct xch_dm_map;
int xch_dm_attach(struct xcopy_dev *d, unsigned major, unsigned minor, int depth, char *why,
		  size_t whylen);
int xch_dm_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst, uint64_t dst_lba,
		uint64_t nblocks, unsigned flags, struct xcopy_stats *st);
void xch_dm_free(struct xcopy_dev *d);
size_t xch_dm_pieces(const struct xcopy_dev *d);
/* Offload state of a mapped volume: every device underneath offloads. */
bool xch_dm_offload(const struct xcopy_dev *d);

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
typedef int (*xch_dm_open_fn)(void *arg, unsigned major, unsigned minor, int depth,
			      struct xcopy_dev **out);
int xch_dm_map_build(const char *table, uint32_t bs, uint64_t vol_blocks, int depth,
		     xch_dm_open_fn open, void *arg, struct xch_dm_map **out, char *why,
		     size_t whylen);
void xch_dm_map_free(struct xch_dm_map *m);
/* The map's volume is a multipath device: path changes do not move blocks. */
bool xch_dm_map_is_multipath(const struct xch_dm_map *m);
/*
 * Where block lba of h lies, through every stacked map: the device with a
 * transport, its whole-LU LBA, and how many blocks from there stay
 * contiguous on it.
 */
void xch_dm_locate(struct xcopy_dev *h, uint64_t lba, struct xcopy_dev **dev, uint64_t *dev_lba,
		   uint64_t *run);
/* The tables of h and of every volume under it are still the ones read at open. */
bool xch_dm_tables_same(const struct xcopy_dev *h);
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
/* pread/pwrite of whole blocks on a host-only handle's node. 0 or -errno. */
int xch_host_rw(struct xcopy_dev *d, bool write, uint64_t lba, uint32_t nblocks, void *buf);

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
 * Pick the designation descriptor a CSCD should carry from page 0x83:
 * LU association, binary code set, length <= 20, NAA 6 then NAA 5 then other
 * NAA, then EUI-64, then T10. Returns the descriptor length (header + body)
 * copied to out, 0 when none fits, -EINVAL when the page is malformed.
 */
int xch_pick_designator(struct xcm_span page, uint8_t *out, size_t cap);

/* ------------------------------------------------------------------------ */
/* Planner                                                                    */
/* ------------------------------------------------------------------------ */

/* A run of blocks to copy: LBAs are whole-LU addresses. */
struct xch_pair {
	uint64_t src_lba;
	uint64_t dst_lba;
	uint64_t nblocks;
	uint64_t src_off;      /* caller's coordinates for fallback (file offsets, bytes) */
	uint64_t dst_off;
};

struct xch_seg {
	uint32_t pair;         /* index into the pairs */
	uint64_t skip;         /* blocks into the pair */
	uint32_t nblocks;      /* <= 65535 */
};

struct xch_cmdplan {
	uint32_t first;        /* first segment */
	uint32_t nseg;
};

struct xch_plan {
	struct xch_seg *seg;
	size_t nseg;
	struct xch_cmdplan *cmd;
	size_t ncmd;
};

/* Largest segment libxcopy sends to a target that takes several per command (dev.c). */
#define XCH_SEG_PREF_BYTES (4u << 20)

struct xch_plan_limits {
	uint32_t ncscd;            /* CSCD descriptors every list carries (1 or 2) */
	uint32_t max_seg;          /* segment descriptors per command */
	uint32_t max_desc_list_len;
	uint32_t max_seg_blocks;   /* min(65535, MAXIMUM SEGMENT LENGTH / block size), and
				    * XCH_SEG_PREF_BYTES when the target takes > 1 segment */
};

/* Effective limits for a copy between two handles (the smaller of each). */
void xch_plan_limits_get(const struct xcopy_dev *src, const struct xcopy_dev *dst, uint32_t ncscd,
			 struct xch_plan_limits *out);
/*
 * Split pairs into segments (at max_seg_blocks) and pack them into commands
 * (count and descriptor-list-length limits). 0, -EINVAL (limits leave no
 * room for a segment), -ENOMEM. Free with xch_plan_free.
 */
int xch_plan_build(const struct xch_pair *pairs, size_t n, const struct xch_plan_limits *lim,
		   struct xch_plan *out);
void xch_plan_free(struct xch_plan *p);

/* ------------------------------------------------------------------------ */
/* Sense -> what to do                                                        */
/* ------------------------------------------------------------------------ */

enum xch_action {
	XCH_ACT_DONE = 0,       /* GOOD */
	XCH_ACT_RETRY,          /* transient (UNIT ATTENTION, BUSY...): resend */
	XCH_ACT_NEW_LIST_ID,    /* OPERATION IN PROGRESS: resend with another id */
	XCH_ACT_SHRINK,         /* too many descriptors: resend one segment per command */
	XCH_ACT_OTHER_SIDE,     /* copy target not reachable from here: try the other LU */
	XCH_ACT_FALLBACK,       /* this range only */
	XCH_ACT_DISABLE,        /* definitive "not supported": no offload on this device */
};

struct xch_verdict {
	enum xch_action act;
	enum xcopy_fallback_reason reason;
	uint32_t segs_done;     /* segments known complete (COPY ABORTED with CSI) */
};

/* Decide from the transport result of an EXTENDED COPY carrying nseg segments. */
void xch_decide(int exec_rc, const struct xch_cmd *c, uint32_t nseg, struct xch_verdict *v);

/* ------------------------------------------------------------------------ */
/* Copy engine shared by files and devices                                    */
/* ------------------------------------------------------------------------ */

/* Copy pair[i] blocks [skip, skip + nblocks) some other way. 0 or -errno. */
typedef int (*xch_fallback_fn)(void *arg, const struct xch_pair *p, uint64_t skip,
			       uint64_t nblocks, enum xcopy_fallback_reason why);

/*
 * The ROD token path (token_copy.c): the pairs through POPULATE TOKEN,
 * RECEIVE ROD TOKEN INFORMATION and WRITE USING TOKEN (SBC-4 5.8, 5.55;
 * SPC-4 6.19.4), same contract as xch_copy_pairs. xch_use_tokens: whether
 * the call's flags and the handles choose this path.
 */
int xch_token_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst,
			 const struct xch_pair *pairs, size_t n, unsigned flags,
			 struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg);
bool xch_use_tokens(const struct xcopy_dev *src, const struct xcopy_dev *dst, unsigned flags);
/* A LIST IDENTIFIER for token commands: pid-based start, no reuse in-process. */
uint32_t xch_lid4_next(void);
/* Every XCOPY_* flag; the combinations xcopy_file_range() and xcopy_dev_copy() accept. */
#define XCH_FLAGS_ALL                                                                      \
	(XCOPY_REQUIRE_OFFLOAD | XCOPY_NO_OFFLOAD | XCOPY_USE_LID1 | XCOPY_USE_TOKENS |     \
	 XCOPY_STATS_METHODS)
int xch_flags_check(unsigned flags);

/*
 * Offload pairs from src to dst (whole-LU LBAs), calling fb for every range
 * the copy manager did not do. With XCOPY_REQUIRE_OFFLOAD returns
 * -EOPNOTSUPP / -EXDEV instead of calling fb. 0 or -errno.
 */
int xch_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
		   size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb, void *fbarg);
/*
 * xch_copy_pairs for pairs addressing mapped volumes (or one volume and a
 * plain handle): pairs cut at every piece boundary and sent to the devices
 * underneath, tables checked before and after (a change: every pair goes to
 * fb with XCOPY_FB_MAPPING_MOVED, what was offloaded uncounted).
 */
int xch_dm_copy_pairs(struct xcopy_dev *src, struct xcopy_dev *dst, const struct xch_pair *pairs,
		      size_t n, unsigned flags, struct xcopy_stats *st, xch_fallback_fn fb,
		      void *fbarg);

/* The reason an offload of src -> dst cannot even be tried, or XCOPY_FB_NONE. */
enum xcopy_fallback_reason xch_offload_blocker(const struct xcopy_dev *src,
					       const struct xcopy_dev *dst);

/* ------------------------------------------------------------------------ */
/* Commands in flight (inflight.c)                                            */
/* ------------------------------------------------------------------------ */

/* The caller's setting: xcopy_set_inflight(), else XCOPY_INFLIGHT, else 1. */
unsigned xch_inflight_wanted(void);
/* What one handle can carry at once (transport, the copy manager's limits). */
unsigned xch_inflight_cap(const struct xcopy_dev *d);
/* LIST ID USAGE 10b ids distinct among outstanding commands (caller locks). */
uint8_t xch_list_id_get(struct xcopy_dev *d);
void xch_list_id_put(struct xcopy_dev *d, uint8_t id);
/* fn(args[0]) here, fn(args[1..n-1]) in threads; joined. Returns threads run. */
unsigned xch_pool_run(void *(*fn)(void *), void **args, unsigned n);
/*
 * Test seam, NULL in the library: called with +n before a pool's n workers
 * start and with -1 as each one returns (or is never started), so a fake
 * target can tell when every worker of a copy is waiting on it.
 */
extern void (*xch_pool_watch)(int delta);

/* ------------------------------------------------------------------------ */
/* Files: FIEMAP and the extent pairing                                       */
/* ------------------------------------------------------------------------ */

struct xch_fext {
	uint64_t logical;
	uint64_t physical;
	uint64_t length;
	uint32_t flags;        /* FIEMAP_EXTENT_* */
};

/* All extents of fd overlapping [start, start + len), sorted. 0 or -errno. */
int xch_fiemap(int fd, uint64_t start, uint64_t len, struct xch_fext **out, size_t *n);

enum xch_src_class {
	XCH_SRC_DATA = 0,      /* copy by offload */
	XCH_SRC_HOLE,          /* reads as zeros: zero the destination */
	XCH_SRC_UNSAFE,        /* copy by fallback */
};
/* Classify a source extent from its FIEMAP flags (*why set for UNSAFE). */
enum xch_src_class xch_src_extent_class(uint32_t flags, enum xcopy_fallback_reason *why);
/* May the copy manager write under a destination extent with these flags? */
bool xch_dst_extent_ok(uint32_t flags, enum xcopy_fallback_reason *why);

/*
 * The device handles under files (file_dev.c's cache): the handle for a
 * file system's device, referenced for the caller until xch_file_dev_put(),
 * and its partition's byte offset. 0 or -errno, which
 * xch_file_dev_reason() turns into the fallback reason. The cache's lock is
 * held only inside these calls. xch_file_dev_open_hook: tests open the
 * device themselves (NULL: sysfs).
 */
int xch_file_dev(dev_t fsdev, struct xcopy_dev **out, uint64_t *part_off);
void xch_file_dev_put(struct xcopy_dev *dev);
extern int (*xch_file_dev_open_hook)(dev_t fsdev, struct xcopy_dev **out, uint64_t *part_off);
enum xcopy_fallback_reason xch_file_dev_reason(int rc);

/*
 * Host copies of xcopy_file_range() (file_host.c): copy_file_range(2) then
 * pread/pwrite, counted as fallback bytes; destination bytes that must read
 * as zeros (punched or zeroed; written zeros unless XCOPY_REQUIRE_OFFLOAD).
 */
int xch_host_copy(int fd_in, uint64_t so, int fd_out, uint64_t dof, uint64_t len,
		  struct xcopy_stats *st);
int xch_zero_dst(int fd_out, uint64_t off, uint64_t len, unsigned flags, struct xcopy_stats *st);

/* Release >= major.minor ("6.17.0-1-amd64"): 1, 0, or -1 when unreadable (plan_api.c). */
int xch_kernel_at_least(const char *release, int major, int minor);

enum xch_piece_kind {
	XCH_PIECE_OFFLOAD = 0,
	XCH_PIECE_HOLE,
	XCH_PIECE_FALLBACK,
};

struct xch_piece {
	enum xch_piece_kind kind;
	enum xcopy_fallback_reason why;  /* FALLBACK / HOLE */
	uint64_t src_off;      /* file offsets */
	uint64_t dst_off;
	uint64_t len;
	uint64_t src_phys;     /* byte addresses on the file systems' devices (OFFLOAD) */
	uint64_t dst_phys;
};

/*
 * Cut [off_in, off_in + len) into pieces from both files' extents. dst may
 * be NULL/0 (pre-pass: every data piece then needs a destination, reported
 * as FALLBACK with XCOPY_FB_DST_EXTENT). bs: the LU block size; offload
 * pieces are trimmed to whole blocks (edges become FALLBACK UNALIGNED) and
 * contiguous ones merged. 0 or -ENOMEM; *out freed by the caller.
 */
int xch_map_pieces(const struct xch_fext *src, size_t ns, const struct xch_fext *dst, size_t nd,
		   uint64_t off_in, uint64_t off_out, uint64_t len, uint32_t bs,
		   struct xch_piece **out, size_t *n);

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
 * Why FALLOC_FL_WRITE_ZEROES cannot give a destination written blocks:
 * XCOPY_FB_ALLOC (kernel < 6.17), _ALLOC_DISK (blk NULL or without unmap
 * write zeroes) or _ALLOC_FS (kernel and disk can: the file system cannot).
 */
enum xcopy_fallback_reason xch_alloc_reason(const char *release, const struct xch_blk *blk);
/* The same for the file system on dev (uname, /sys). */
enum xcopy_fallback_reason xch_alloc_reason_dev(dev_t dev);

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

#endif /* XCOPY_INTERNAL_H */
