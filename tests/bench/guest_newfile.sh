#!/bin/bash
# tests/bench/guest_newfile.sh: the newfile phase of `make bench`,
# run INSIDE a lab guest booted on trixie-backports' kernel (tests/bench/run
# boots it with -K bpo: a new file can be offloaded only where
# fallocate(FALLOC_FL_WRITE_ZEROES) exists, Linux >= 6.17).
#
# "cp 1 GiB to a new file" on a file system on a user:xcopy LU (tcm_loop,
# the LU's backing file on a reflink XFS store, so the offloaded copy is a
# clone in the store): plain cp, cp under LD_PRELOAD=libxcopy-preload.so and
# xcp, each into a new file, on ext4, on XFS without reflink and on XFS with
# reflink (mkfs.xfs's default; there cp clones inside the file system with
# FICLONE before it would call copy_file_range).
#
# Per copy (the source's caches dropped first; time = the command, then a
# `sync` of everything, reported apart):
#   lio_read_MiB, lio_write_MiB  the LU's own counters (configfs
#       statistics/scsi_lu/read_mbytes, write_mbytes): the data that crossed
#       the fabric, as LIO counts it (whole MiB)
#   sd_read_B, sd_write_B        /proc/diskstats of the sd disk: what the
#       block layer counted. FALLOC_FL_WRITE_ZEROES goes out as WRITE SAME(16)
#       with UNMAP, which diskstats counts as written sectors for the whole
#       range although each command carries one 512-byte block
#   lio_cmds                      SCSI commands the LU received
#   xcopy_cmds, clone_B           the plugin's stats file: EXTENDED COPY
#       commands and bytes cloned in the store
#   offloaded_B, fallback_B       what libxcopy says (xcp --stats=json, the
#       preload's log); empty for plain cp
#   verified                      cmp of source and copy after drop_caches
# Writes $LAB_RESULTS/bench/newfile.csv and newfile.txt (kernel, sysfs).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lab/lib.sh"
lab_require_guest

XCP=$LAB_BUILD/host/xcp
PRE=$LAB_BUILD/host/libxcopy-preload.so
XCB=$LAB_BUILD/bench/xcbench
OUT=$LAB_RESULTS/bench
W=/tmp/bench-newfile
S=$(lab_size_bytes "${BENCH_NEWFILE_SIZE:-1G}")
FSS=${BENCH_NEWFILE_FS:-ext4 xfs xfs-reflink}
STATS_DIR=${XCOPY_STATS_DIR:-/run/xcopy}
mkdir -p "$OUT" "$W"
echo "fs,method,size,secs,sync_s,lio_read_MiB,lio_write_MiB,lio_cmds,sd_read_B,sd_write_B,xcopy_cmds,clone_B,offloaded_B,fallback_B,fallback_reason,verified" \
	>"$OUT/newfile.csv"
T_START=${EPOCHREALTIME/./}
log() { printf '[%4ds] %s\n' $(((${EPOCHREALTIME/./} - T_START) / 1000000)) "$*" >&2; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
fresh() { sync; echo 3 >/proc/sys/vm/drop_caches; }
pstat() {   # LU KEY
	local k v
	[ -f "$STATS_DIR/$1.stats" ] || { echo 0; return; }
	while read -r k v; do [ "$k" = "$2" ] && { echo "$v"; return; }; done <"$STATS_DIR/$1.stats"
	echo 0
}
# LU counters: read MiB, write MiB, commands (LIO), EXTENDED COPY commands and
# clone bytes (plugin), sd sectors read and written (diskstats)
counters() {   # SO LU SD
	local d=$1/statistics/scsi_lu r w c
	read -r r <"$d/read_mbytes"
	read -r w <"$d/write_mbytes"
	read -r c <"$d/num_cmds"
	echo "$r $w $c $(pstat "$2" commands) $(pstat "$2" clone_bytes)" \
		"$(awk -v d="${3#/dev/}" '$3 == d { print $6, $10 }' /proc/diskstats)"
}
json() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null || true; }
# bytes offloaded / by fallback in a preload log (its total line at exit)
plog_total() {
	awk -v k="$2" '/ total: / { for (i = 1; i <= NF; i++) {
		if ($i == "offloaded," && k == "off") v = $(i - 2)
		if ($i == "by" && k == "fb") v = $(i - 1) } } END { print v + 0 }' "$1"
}

store=$W/store
img=$W/store.img
truncate -s $((3 * S + (1 << 30))) "$img"
sdev=$(losetup -f --show "$img")
mkfs.xfs -q -f -m reflink=1 "$sdev"
mkdir -p "$store"
mount -t xfs "$sdev" "$store"
mnt=$W/mnt
mkdir -p "$mnt"
{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	awk '/^MemTotal/ { printf "mem_kib %s\n", $2 }' /proc/meminfo
	echo "size $S"
	echo "cp $(cp --version | head -1)"
} >"$OUT/newfile.txt"

NLU=0
for fs in $FSS; do
	NLU=$((NLU + 1))
	lu=nf$NLU
	luimg=$store/$lu.img
	lusize=$((2 * S + (512 << 20)))
	truncate -s "$lusize" "$luimg"
	# the source is written through a loop device on the LU's image before
	# the LU exists: writing it through tcmu-runner under TCG takes minutes
	ldev=$(losetup -f --show "$luimg")
	case "$fs" in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$ldev" ;;
	xfs) mkfs.xfs -q -f -m reflink=0 "$ldev" ;;
	xfs-reflink) mkfs.xfs -q -f -m reflink=1 "$ldev" ;;
	esac
	mount "$ldev" "$mnt"
	log "$fs: writing the $S-byte source"
	"$XCB" fill "$mnt/src" 0 "$S" 1
	umount "$mnt"
	losetup -d "$ldev"
	so=$(lab_user_create "$lu" xcopy "$luimg" "$lusize")
	read -r sd _ <<<"$(lab_loop_export "$so")"
	mount "$sd" "$mnt"
	q=/sys/block/${sd#/dev/}/queue
	echo "$fs write_zeroes_unmap_max_hw_bytes $(cat "$q/write_zeroes_unmap_max_hw_bytes" 2>/dev/null || echo absent)" \
		>>"$OUT/newfile.txt"
	for m in cp preload xcp; do
		dst=$mnt/new-$m
		fresh
		read -r r0 w0 c0 x0 k0 sr0 sw0 <<<"$(counters "$so" "$lu" "$sd")"
		plog=$W/$fs-$m.log
		: >"$plog"
		log "$fs: $m"
		t0=$EPOCHREALTIME
		case "$m" in
		cp) cp "$mnt/src" "$dst" ;;
		preload) LD_PRELOAD=$PRE LD_LIBRARY_PATH=$LAB_BUILD/host XCOPY_PRELOAD_LOG=$plog \
			cp "$mnt/src" "$dst" ;;
		xcp) "$XCP" --stats=json --no-progress "$mnt/src" "$dst" >"$plog" 2>"$plog.err" ||
			log "xcp failed: $(tail -3 "$plog.err")" ;;
		esac
		t1=$EPOCHREALTIME
		sync
		t2=$EPOCHREALTIME
		read -r r1 w1 c1 x1 k1 sr1 sw1 <<<"$(counters "$so" "$lu" "$sd")"
		off='' fb='' why=''
		case "$m" in
		preload) cat "$plog" >&2
			off=$(plog_total "$plog" off); fb=$(plog_total "$plog" fb)
			why=$(awk '/fell back for/ { sub(/.*\): /, ""); sub(/:.*/, ""); print; exit }' "$plog") ;;
		xcp) off=$(json "$plog" bytes_offloaded); fb=$(json "$plog" bytes_host)
			why=$(python3 -c 'import json, sys; print(" ".join(f["reason"] for f in json.load(open(sys.argv[1])).get("fallbacks", [])))' "$plog" 2>/dev/null || true) ;;
		esac
		fresh
		if cmp -s "$mnt/src" "$dst"; then ok=yes; else ok=NO; fi
		echo "$fs,$m,$S,$(secs "$t0" "$t1"),$(secs "$t1" "$t2"),$((r1 - r0)),$((w1 - w0)),$((c1 - c0)),$(((sr1 - sr0) * 512)),$(((sw1 - sw0) * 512)),$((x1 - x0)),$((k1 - k0)),$off,$fb,$why,$ok" \
			>>"$OUT/newfile.csv"
		tail -1 "$OUT/newfile.csv" >&2
		rm -f "$dst"
		fstrim "$mnt" 2>/dev/null || true
	done
	umount "$mnt"
	lab_teardown >/dev/null
	rm -f "$luimg"
done
umount "$store"
losetup -d "$sdev"
rm -f "$img"
log "done"
