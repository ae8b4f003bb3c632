/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxcopy: copy files and block ranges with SCSI EXTENDED COPY (LID1)
 * offload, falling back per range to ordinary copies.
 *
 * Return domain of every int/ssize_t function: >= 0 on success, -errno on
 * failure; nothing is printed and nothing exits. Functions may block (they
 * send SCSI commands synchronously). Device handles are not thread-safe: use
 * one handle per thread, or serialise. xcopy_file_range() keeps a small,
 * mutex-protected cache of device handles (see xcopy_cache_flush()).
 *
 * Offsets are int64_t, the type under glibc's loff_t, so a loff_t * can be
 * passed as it is; the header needs no GNU extensions (-std=c11 works).
 *
 * Privileges: the kernel lets only CAP_SYS_RAWIO send EXTENDED COPY (83h) and
 * RECEIVE COPY RESULTS (84h) through SG_IO; without it offload is refused
 * with reason XCOPY_FB_PERMISSION and the copy falls back.
 */
#ifndef XCOPY_H
#define XCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defined where the method flags and per-method statistics below exist. */
#define XCOPY_HAVE_METHODS 1

/* Flags for xcopy_file_range() and xcopy_dev_copy(). */
enum {
	/* Never fall back: fail with -EOPNOTSUPP (device refuses or cannot
	 * offload) or -EXDEV (ranges not reachable by one copy manager). */
	XCOPY_REQUIRE_OFFLOAD = 1u << 0,
	/* Do not offload: plain copy only (copy_file_range, pread/pwrite,
	 * READ/WRITE). */
	XCOPY_NO_OFFLOAD = 1u << 1,
	/*
	 * Offload method (where XCOPY_HAVE_METHODS is defined). Neither flag:
	 * automatic, EXTENDED COPY (LID1) where the devices offer it, ROD
	 * tokens (POPULATE TOKEN + WRITE USING TOKEN, "ODX") where both offer
	 * tokens but not LID1 (or LID1 was refused for good). XCOPY_USE_LID1:
	 * EXTENDED COPY only. XCOPY_USE_TOKENS: tokens only. Ranges the method
	 * cannot do fall back as usual. Both: -EINVAL.
	 */
	XCOPY_USE_LID1 = 1u << 2,
	XCOPY_USE_TOKENS = 1u << 3,
	/*
	 * stats points to a struct xcopy_stats with the per-method fields;
	 * without this flag they are never written, so a program built against
	 * a header without them keeps its smaller struct intact.
	 */
	XCOPY_STATS_METHODS = 1u << 4,
};

/* Why a range was not offloaded (index into xcopy_stats.fallback*). */
enum xcopy_fallback_reason {
	XCOPY_FB_NONE = 0,
	XCOPY_FB_REQUESTED,       /* XCOPY_NO_OFFLOAD */
	XCOPY_FB_NOT_SCSI,        /* file not on a SCSI disk (dm, loop, nvme, tmpfs...) */
	XCOPY_FB_NO_3PC,          /* INQUIRY 3PC = 0 */
	XCOPY_FB_NO_DESIGNATOR,   /* no LU designator a CSCD can carry */
	XCOPY_FB_BLOCK_SIZE,      /* source and destination block sizes differ */
	XCOPY_FB_PERMISSION,      /* SG_IO refused 83h (needs CAP_SYS_RAWIO) */
	XCOPY_FB_INVALID_OPCODE,  /* 05 20/00: no EXTENDED COPY (sticky) */
	XCOPY_FB_INVALID_CDB,     /* 05 24/00 on 83h: LID1 unsupported (sticky) */
	XCOPY_FB_UNSUPP_DESC,     /* 05 26/07, 26/09: descriptor type unsupported (sticky) */
	XCOPY_FB_INVALID_PARAM,   /* 05 26/00, 1A/00, 26/06, 26/08: list refused */
	XCOPY_FB_UNREACHABLE,     /* 0A 08/04, 0D/02: copy target not reachable */
	XCOPY_FB_COPY_ABORTED,    /* other COPY ABORTED (device failure, under/overrun...) */
	XCOPY_FB_OTHER_SENSE,     /* any other CHECK CONDITION or status */
	XCOPY_FB_TRANSPORT,       /* no SCSI status came back */
	XCOPY_FB_UNALIGNED,       /* partial logical block at a range edge */
	XCOPY_FB_EXTENT_FLAGS,    /* FIEMAP: UNKNOWN, DELALLOC, ENCODED, INLINE, TAIL... */
	XCOPY_FB_DST_EXTENT,      /* destination extent SHARED, UNWRITTEN or unmapped */
	XCOPY_FB_ALLOC,           /* new destination: kernel lacks FALLOC_FL_WRITE_ZEROES (< 6.17) */
	XCOPY_FB_HOLE,            /* source hole / unwritten: destination zeroed */
	XCOPY_FB_MAPPING_MOVED,   /* extent moved during the copy: redone */
	XCOPY_FB_DIFFERENT_DEV,   /* files on devices no copy manager links */
	XCOPY_FB_NO_TOKENS,       /* XCOPY_USE_TOKENS and no ROD token support (VPD 0x8F) */
	XCOPY_FB_TOKEN,           /* 05 23/xx: ROD token refused, expired or deleted */
	XCOPY_FB_ALLOC_DISK,      /* new destination: the disk has no unmap write zeroes */
	XCOPY_FB_ALLOC_FS,        /* new destination: the file system refuses FALLOC_FL_WRITE_ZEROES */
	XCOPY_FB_FS_TYPE,         /* file system not known to map files onto its device (not ext4/XFS) */
	XCOPY_FB_REALTIME,        /* XFS realtime file: its extents are on the realtime device */
	XCOPY_FB_ENCRYPTED,       /* encrypted file (fscrypt): the blocks hold ciphertext */
	XCOPY_FB_JOURNAL_DATA,    /* ext4 journalled data: home blocks written after fdatasync */
	XCOPY_FB_LEASE,           /* no lease held the files' extents (or it broke): host copy */
	XCOPY_FB_REASON_COUNT,
	XCOPY_FB_REASON_MAX = 32  /* array size in struct xcopy_stats (ABI) */
};

/*
 * Statistics: functions add to them (the caller zeroes the struct once), so
 * one struct can accumulate a whole job. NULL is allowed everywhere.
 */
struct xcopy_stats {
	uint64_t bytes_offloaded;     /* moved by the copy manager */
	uint64_t bytes_fallback;      /* moved by the host (read/write, copy_file_range) */
	uint64_t bytes_zeroed;        /* destination zeroed for source holes */
	uint64_t xcopy_cmds;          /* EXTENDED COPY commands sent */
	uint64_t xcopy_failed;        /* ... of which did not return GOOD */
	uint64_t segments;            /* segment descriptors sent */
	uint64_t other_cmds;          /* discovery, READ/WRITE fallback commands */
	uint64_t fallback_ranges[XCOPY_FB_REASON_MAX]; /* ranges per reason */
	uint64_t fallback_bytes[XCOPY_FB_REASON_MAX];  /* bytes per reason */
	/* Written only when the call's flags have XCOPY_STATS_METHODS: */
	uint64_t bytes_lid1;          /* of bytes_offloaded: by EXTENDED COPY (LID1) */
	uint64_t bytes_token;         /* of bytes_offloaded: by WRITE USING TOKEN */
	uint64_t populate_cmds;       /* POPULATE TOKEN commands sent */
	uint64_t rrti_cmds;           /* RECEIVE ROD TOKEN INFORMATION commands sent */
	uint64_t wut_cmds;            /* WRITE USING TOKEN commands sent */
	uint64_t token_failed;        /* ... of the three, not GOOD */
};

/* Name of a reason ("unreachable", ...); never NULL. */
const char *xcopy_fallback_reason_name(enum xcopy_fallback_reason r);

/*
 * Copy len bytes from fd_in to fd_out like copy_file_range(2): off_in /
 * off_out NULL means use and advance the file position, otherwise the
 * pointed-to offset is used and advanced and the file position is left
 * alone. Stops at the end of the source (returns fewer bytes, 0 at EOF).
 * The destination is extended as needed.
 *
 * Ranges of both files that lie on one SCSI LU (or two LUs of one copy
 * manager) are copied with EXTENDED COPY from their FIEMAP extents; all other
 * ranges fall back (copy_file_range, then pread/pwrite). flags: XCOPY_*.
 * The offload runs under a write lease on fd_out and a read lease on fd_in
 * (F_SETLEASE): without them, or when one breaks (another open or
 * truncate), the host copies the range (reason XCOPY_FB_LEASE). A failed
 * call cuts fd_out back to its size before the call. The caller must keep
 * other writers away from both ranges meanwhile.
 *
 * Returns bytes copied (== min(len, bytes to source EOF)) or -errno: -EINVAL
 * (bad flags, not regular files, same file overlapping ranges), -EBADF
 * (fd_in not readable, fd_out not writable or O_APPEND, as copy_file_range),
 * -EIO, -EOPNOTSUPP / -EXDEV (XCOPY_REQUIRE_OFFLOAD and offload refused: the
 * destination range may then be partially written). stats may be NULL.
 */
ssize_t xcopy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len,
			 unsigned flags, struct xcopy_stats *stats);

/* Close the device handles cached by xcopy_file_range(). */
void xcopy_cache_flush(void);

/* ------------------------------------------------------------------------ */
/* Device level                                                              */
/* ------------------------------------------------------------------------ */

struct xcopy_dev;

/* What discovery found (cached per device at open). */
struct xcopy_caps {
	bool tpc;                 /* standard INQUIRY 3PC bit */
	bool has_op_params;       /* RECEIVE COPY RESULTS OPERATING PARAMETERS answered */
	bool has_vpd_tpc;         /* Third-party Copy VPD page (0x8F) present */
	bool snlid;               /* LIST ID USAGE 11b allowed */
	bool offload;             /* the library will try EXTENDED COPY on this device */
	uint16_t max_cscd;        /* limits enforced by the planner (the smaller */
	uint16_t max_seg;         /*   of RCR and VPD 0x8F, or conservative */
	uint32_t max_desc_list_len; /* defaults 2 / 1 / 1024 when neither answers) */
	uint32_t max_seg_len;     /* bytes per segment; 0: not reported */
	uint32_t max_seg_blocks;  /* blocks per 02h segment (<= 65535) */
	uint32_t block_size;      /* logical block length */
	uint64_t num_blocks;      /* of the LU */
	uint32_t max_xfer_blocks; /* VPD 0xB0 MAXIMUM TRANSFER LENGTH (0: none) */
	uint64_t part_start;      /* first LU block of the opened partition (0: whole LU) */
	uint64_t part_blocks;     /* blocks addressable through this handle */
	uint8_t desig[24];        /* chosen VPD 0x83 designation descriptor (header + body) */
	uint8_t desig_len;        /* 0: none usable */
	char vendor[9];
	char product[17];
};

/*
 * Open a device: /dev/sdX, a partition (/dev/sdX1: addresses are relative to
 * the partition, commands go to the whole disk), /dev/sgN, or
 * iscsi://[user[%pass]@]host[:port]/target-iqn/lun. Runs discovery (INQUIRY,
 * VPD 0x83/0x8F/0xB0, RECEIVE COPY RESULTS OPERATING PARAMETERS, READ
 * CAPACITY(16)); a device without 3PC still opens (copies fall back).
 * Returns 0 with *out owned by the caller (release with xcopy_dev_close),
 * or -errno (-ENOENT, -EACCES, -ENODEV not a disk, -EIO, -ECONNREFUSED...).
 */
int xcopy_dev_open(const char *path_or_url, struct xcopy_dev **out);

/* Discovery results; the pointer lives as long as dev. */
const struct xcopy_caps *xcopy_dev_caps(const struct xcopy_dev *dev);

/*
 * Copy nblocks logical blocks from src (starting at src_lba, relative to
 * the handle's partition) to dst at dst_lba, within one LU or between two
 * LUs, of one target or of two (the EXTENDED COPY goes to the destination
 * LU, or the source LU when the destination's copy manager cannot reach the
 * source). Block sizes must match. Ranges must lie inside the
 * handles (-EINVAL otherwise); overlapping ranges on one LU are refused
 * (-EINVAL). Falls back per range to READ(16)/WRITE(16) unless flags has
 * XCOPY_REQUIRE_OFFLOAD. Returns 0 or -errno.
 */
int xcopy_dev_copy(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst,
		   uint64_t dst_lba, uint64_t nblocks, unsigned flags, struct xcopy_stats *stats);

/* Close and free; NULL is a no-op. */
void xcopy_dev_close(struct xcopy_dev *dev);

/* ------------------------------------------------------------------------ */
/* Plans: what a copy would do, without doing it (xcopy_file_plan(3))        */
/* ------------------------------------------------------------------------ */

enum xcopy_plan_kind {
	XCOPY_PLAN_OFFLOAD = 0,   /* by EXTENDED COPY: see the segments naming it */
	XCOPY_PLAN_HOST,          /* copied by the host; why says why */
	XCOPY_PLAN_ZERO,          /* source hole: the destination is zeroed */
	XCOPY_PLAN_ALLOCATE,      /* destination allocated written first
				   * (FALLOC_FL_WRITE_ZEROES), then offloaded: its
				   * LBAs exist only then, so no segments here */
};

/* A range of the copy and how it would go. */
struct xcopy_plan_extent {
	enum xcopy_plan_kind kind;
	enum xcopy_fallback_reason why; /* HOST, ZERO, ALLOCATE: the statistics' reason */
	uint64_t src_off;         /* bytes: file offsets, or from the device handles' start */
	uint64_t dst_off;
	uint64_t len;
	uint64_t src_lba;         /* OFFLOAD: whole-LU logical block addresses */
	uint64_t dst_lba;
};

/* One block-to-block (02h) segment descriptor. */
struct xcopy_plan_segment {
	size_t extent;            /* index into extents */
	uint64_t src_lba;         /* whole-LU */
	uint64_t dst_lba;
	uint32_t nblocks;
};

/* One EXTENDED COPY command: consecutive segments. */
struct xcopy_plan_command {
	size_t first_segment;
	size_t nsegments;
	uint64_t bytes;
};

struct xcopy_plan {
	char src_dev[64];         /* the devices the commands would use ("": none) */
	char dst_dev[64];
	uint32_t block_size;
	bool same_lu;             /* one CSCD descriptor (source and destination on one LU) */
	enum xcopy_fallback_reason blocker; /* why nothing is offloaded, or XCOPY_FB_NONE */
	uint32_t max_segments;    /* per command, as planned (target limits) */
	uint32_t max_desc_list_len;
	uint32_t max_segment_blocks;
	struct xcopy_plan_extent *extents;
	size_t nextents;
	struct xcopy_plan_segment *segments;
	size_t nsegments;
	struct xcopy_plan_command *commands;
	size_t ncommands;
};

/*
 * Plan xcopy_file_range(fd_in, &off_in, fd_out, &off_out, len, flags)
 * without writing anything: the extents (FIEMAP of both files), the segments
 * and the commands, within the target's limits. fd_out may be a directory
 * (a destination not created yet: planned as empty, on that file system).
 * Discovery commands (INQUIRY...) are sent; no data moves. A plan is a
 * prediction: the copy decides again from what the target answers. 0 with
 * *out (free with xcopy_plan_free), or -errno.
 */
int xcopy_file_plan(int fd_in, int64_t off_in, int fd_out, int64_t off_out, size_t len,
		    unsigned flags, struct xcopy_plan **out);

/* The same for xcopy_dev_copy(). Device-mapper volumes (and files on them): -EOPNOTSUPP. */
int xcopy_dev_plan(struct xcopy_dev *src, uint64_t src_lba, struct xcopy_dev *dst,
		   uint64_t dst_lba, uint64_t nblocks, unsigned flags, struct xcopy_plan **out);

/* Free a plan; NULL is a no-op. */
void xcopy_plan_free(struct xcopy_plan *plan);

/* ------------------------------------------------------------------------ */
/* Logging                                                                   */
/* ------------------------------------------------------------------------ */

enum xcopy_log_level {
	XCOPY_LOG_ERROR = 0,
	XCOPY_LOG_WARN,
	XCOPY_LOG_INFO,
	XCOPY_LOG_DEBUG,
};

typedef void (*xcopy_log_fn)(enum xcopy_log_level level, const char *msg, void *arg);

/*
 * Install a log callback receiving messages at or below max_level (NULL:
 * silence, the default). Process-wide; set it before copying.
 */
void xcopy_set_log(xcopy_log_fn fn, enum xcopy_log_level max_level, void *arg);

/*
 * Progress callback: called as bytes of a copy are done (after each EXTENDED
 * COPY command, each host copy chunk, each zeroed range) with the bytes done
 * so far and the total of the current xcopy_file_range() / xcopy_dev_copy()
 * call. The callback is process-wide (set it before copying); done/total
 * are per call. With several commands in flight it may be called from the
 * library's own threads, one report of a call at a time, done never
 * decreasing within a call; reports of concurrent calls in other threads
 * may run at the same time (see xcopy_set_progress(3)).
 */
typedef void (*xcopy_progress_fn)(uint64_t done, uint64_t total, void *arg);
void xcopy_set_progress(xcopy_progress_fn fn, void *arg);

/*
 * EXTENDED COPY commands one copy keeps outstanding (1..16; 0 restores the
 * default: the XCOPY_INFLIGHT environment variable, else 1). Each copy uses
 * fewer when the target reports fewer concurrent copies (RECEIVE COPY
 * RESULTS OPERATING PARAMETERS, VPD 0x8F) or the transport carries one
 * command at a time (iscsi:// handles log in a session per command in
 * flight). Process-wide.
 */
void xcopy_set_inflight(unsigned n);

/* How the bytes of a progress report were moved. */
enum xcopy_method {
	XCOPY_METHOD_OFFLOAD = 0, /* by the copy manager (EXTENDED COPY) */
	XCOPY_METHOD_HOST,        /* by the host: copy_file_range, read/write, READ/WRITE */
	XCOPY_METHOD_ZERO,        /* destination zeroed for a source hole */
};

/*
 * One progress report (see xcopy_set_progress_ex(3)). Owned by the library,
 * valid during the callback only; fields may be appended in later versions.
 */
struct xcopy_progress {
	uint64_t done;            /* bytes of the current call done so far */
	uint64_t total;           /* bytes the current call copies */
	uint64_t bytes;           /* bytes this report adds to done */
	enum xcopy_method method; /* how those bytes were moved */
};

typedef void (*xcopy_progress_ex_fn)(const struct xcopy_progress *p, void *arg);

/*
 * Like xcopy_set_progress(), with how each report's bytes moved. Both
 * callbacks may be set; NULL removes this one. Process-wide.
 */
void xcopy_set_progress_ex(xcopy_progress_ex_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* XCOPY_H */
