#!/bin/bash
# tests/bench/guest.sh: the benchmark rows, run INSIDE the lab guest by
# tests/bench/run (one boot, so every row shares one kernel, one
# tcmu-runner and one load level). Writes to $LAB_RESULTS/bench/:
#   rows.csv      one line per copy (see HEADER below)
#   latency.csv   read latency on the LU receiving a 1 GiB copy
#   extents.txt   the 10,000-extent file: commands and planning time
#   profile-*.txt perf profiles of the slowest paths (BENCH_PROFILE=1)
#   guest.txt     guest facts (kernel, CPUs, RAM)
#
# Every copy is issued by xcp (libxcopy) over iSCSI to 127.0.0.1, so the
# initiator link is the guest's loopback interface and its byte counter
# (/proc/net/dev "lo") is every byte that crossed it: data, PDU headers,
# TCP/IP headers, logins. Stores are XFS on loop devices over images in the
# guest's RAM; /proc/diskstats of the loop device is what the target's
# backend read and wrote. Times include a `sync` of the stores after the
# copy (reported apart), because the backends (user:xcopy, LIO fileio with
# write-back, as targetcli creates it) leave dirty pages behind.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lab/lib.sh"
lab_require_guest

XCP=$LAB_BUILD/host/xcp
XCB=$LAB_BUILD/bench/xcbench
OUT=$LAB_RESULTS/bench
W=/tmp/bench
SIZES=${BENCH_SIZES:-64M 1G}
LAT_SIZE=${BENCH_LAT_SIZE:-}
EXTENTS=${BENCH_EXTENTS:-10000}
PROFILE=${BENCH_PROFILE:-1}
STATS_DIR=${XCOPY_STATS_DIR:-/run/xcopy}
HEADER=size,scope,path,backstore,cfg,wall_s,sync_s,backend_read_B,backend_write_B,clone_B,cfr_B,rw_B,link_B,lun_data_MiB,xcopy_cmds,xcopy_segments,other_cmds,target_cmds,offloaded_B,fallback_B,verified

rm -rf "$OUT"
mkdir -p "$OUT" "$W"
echo "$HEADER" >"$OUT/rows.csv"
echo "path,backstore,size,copy_s,samples_before,p50_before_ms,p99_before_ms,max_before_ms,samples_during,p50_ms,p99_ms,max_ms" \
	>"$OUT/latency.csv"
: >"$OUT/extents.txt"
trap 'lab_teardown >/dev/null 2>&1 || true; drop_stores' EXIT

T_START=${EPOCHREALTIME/./}
log() {
	local t=${EPOCHREALTIME/./}
	printf '[%4ds] %s\n' $(((t - T_START) / 1000000)) "$*" >&2
}
say() { printf '== %s\n' "$*" >&2; }

{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	awk '/^MemTotal/ { printf "mem_kib %s\n", $2 }' /proc/meminfo
	awk -F': ' '/^model name/ { print "cpu " $2; exit }' /proc/cpuinfo
	echo "sizes $SIZES"
	tcmu-runner --version 2>/dev/null | head -1 | sed 's/^/tcmu_runner /' || true
} >"$OUT/guest.txt"

MAXB=0
for s in $SIZES; do
	sb=$(lab_size_bytes "$s")
	[ "$sb" -gt "$MAXB" ] && MAXB=$sb
done
LAT_SIZE=${LAT_SIZE:-$MAXB}
LAT_SIZE=$(lab_size_bytes "$LAT_SIZE")
[ "$LAT_SIZE" -gt "$MAXB" ] && MAXB=$LAT_SIZE
ASIZE=$((2 * MAXB))     # LU A: source at 0, within-LU destination at MAXB
BSIZE=$MAXB             # LU B: cross-LU destination at 0

# --- stores: XFS on a loop device over a RAM image (not lab_xfs_store: they
# --- must survive lab_teardown between rows) -------------------------------
declare -A STORE_DEV STORE_IMG
mkstore() {   # NAME REFLINK(0|1) -> mounted at $W/NAME
	local name=$1 rl=$2 img dev
	img=$W/$name.xfs.img
	truncate -s $((2 * ASIZE + 2 * BSIZE + (512 << 20))) "$img"
	dev=$(losetup -f --show "$img")
	mkfs.xfs -q -f -m reflink="$rl" "$dev" >&2
	mkdir -p "$W/$name"
	mount -t xfs "$dev" "$W/$name"
	STORE_DEV[$name]=$dev
	STORE_IMG[$name]=$img
	truncate -s "$ASIZE" "$W/$name/A.img"
	truncate -s "$BSIZE" "$W/$name/B.img"
}
rmstore() {
	local name=$1
	umount "$W/$name" 2>/dev/null || true
	losetup -d "${STORE_DEV[$name]}" 2>/dev/null || true
	rm -f "${STORE_IMG[$name]}"
	unset "STORE_DEV[$name]" "STORE_IMG[$name]"
}
drop_stores() { local n; for n in "${!STORE_DEV[@]}"; do rmstore "$n"; done; }

# --- counters -----------------------------------------------------------------
loop_io() { awk -v d="${1#/dev/}" '$3 == d { print $6 * 512, $10 * 512 }' /proc/diskstats; }
lo_bytes() {
	local l f
	while IFS= read -r l; do
		case "$l" in *lo:*) read -ra f <<<"${l#*lo:}"; echo "${f[0]}"; return ;; esac
	done </proc/net/dev
}
# sum over the LUNs of every iSCSI TPG: commands, MiB in + out
lun_stats() {
	local c=0 m=0 d v
	for d in "$LAB_CFS"/iscsi/*/tpgt_*/lun/lun_*/statistics/scsi_tgt_port; do
		[ -d "$d" ] || continue
		read -r v <"$d/in_cmds"; c=$((c + v))
		read -r v <"$d/read_mbytes"; m=$((m + v))
		read -r v <"$d/write_mbytes"; m=$((m + v))
	done
	echo "$c $m"
}
pstat() {   # LU KEY
	local k v
	[ -f "$STATS_DIR/$1.stats" ] || { echo 0; return; }
	while read -r k v; do [ "$k" = "$2" ] && { echo "$v"; return; }; done <"$STATS_DIR/$1.stats"
	echo 0
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

fresh() {   # drop every cache so the copy reads its source from the store
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

bench_fileio_create() {   # NAME FILE SIZE_BYTES: write-back, as targetcli's default
	local so
	so=$LAB_CFS/core/fileio_$(lab__next_hba)/$1
	mkdir -p "$so"
	echo "fd_dev_name=$2,fd_dev_size=$3,fd_buffered_io=1" >"$so/control"
	lab__set_serial "$so"
	echo 1 >"$so/enable"
	echo "$so"
}

# make_lus KIND STORE CFG -> sets SO_A SO_B (names a<N>, b<N>)
NLU=0
make_lus() {
	local kind=$1 store=$2 cfg=$3
	NLU=$((NLU + 1))
	LU_A=a$NLU
	LU_B=b$NLU
	case "$kind" in
	user)
		SO_A=$(lab_user_create "$LU_A" xcopy "$W/$store/A.img$cfg" "$ASIZE")
		SO_B=$(lab_user_create "$LU_B" xcopy "$W/$store/B.img$cfg" "$BSIZE")
		;;
	fileio)
		SO_A=$(bench_fileio_create "$LU_A" "$W/$store/A.img" "$ASIZE")
		SO_B=$(bench_fileio_create "$LU_B" "$W/$store/B.img" "$BSIZE")
		;;
	esac
}

# verify SRCFILE SRCOFF DSTFILE DSTOFF LEN: 1 MiB out of every 16 (plus the last)
verify() { "$XCB" verify "$@" >/dev/null 2>&1 && echo yes || echo NO; }

# row SIZE SCOPE(cross|within) PATH KIND STORE CFG [XCP_OPTS...]
row() {
	local size=$1 scope=$2 path=$3 kind=$4 store=$5 cfg=$6
	shift 6
	local S n dlun doff dfile url st t0 t1 t2 r0 w0 r1 w1 l0 l1 c0 m0 c1 m1 ok
	local clone=0 cfr=0 rw=0 lu
	S=$(lab_size_bytes "$size")
	n=$((S / 512))
	if [ "$scope" = cross ]; then
		dlun=1 doff=0 dfile=$W/$store/B.img
	else
		dlun=0 doff=$MAXB dfile=$W/$store/A.img
	fi
	log "$path $scope $size"
	# every row starts from an unallocated destination range
	fallocate -p -o "$doff" -l "$S" "$dfile"
	make_lus "$kind" "$store" "$cfg"
	url=$(lab_iscsi_export "iqn.2003-01.org.linux-iscsi.lab:bench$NLU" "$SO_A" "$SO_B")
	fresh
	read -r r0 w0 <<<"$(loop_io "${STORE_DEV[$store]}")"
	l0=$(lo_bytes)
	read -r c0 m0 <<<"$(lun_stats)"
	st=$W/xcp-$NLU.stats
	t0=$EPOCHREALTIME
	if ! "$XCP" --stats "$@" --src-lba 0 --dst-lba $((doff / 512)) --blocks "$n" \
		"$url/0" "$url/$dlun" >"$st" 2>"$W/xcp-$NLU.err"; then
		log "xcp failed: $(tail -3 "$W/xcp-$NLU.err")"
	fi
	t1=$EPOCHREALTIME
	sync
	t2=$EPOCHREALTIME
	read -r r1 w1 <<<"$(loop_io "${STORE_DEV[$store]}")"
	l1=$(lo_bytes)
	read -r c1 m1 <<<"$(lun_stats)"
	if [ "$kind" = user ]; then
		for lu in "$LU_A" "$LU_B"; do
			clone=$((clone + $(pstat "$lu" clone_bytes)))
			cfr=$((cfr + $(pstat "$lu" cfr_bytes)))
			rw=$((rw + $(pstat "$lu" rw_bytes)))
		done
	fi
	ok=$(verify "$W/$store/A.img" 0 "$dfile" "$doff" "$S")
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' \
		"$size" "$scope" "$path" "$kind" "${cfg#\?}" "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" \
		$((r1 - r0)) $((w1 - w0)) "$clone" "$cfr" "$rw" $((l1 - l0)) $((m1 - m0)) \
		"$(awk '/^xcopy commands:/ { print $3 }' "$st")" \
		"$(awk '/^xcopy commands:/ { gsub(/[(,]/, ""); print $(NF - 1) }' "$st")" \
		"$(awk '/^other commands:/ { print $3 }' "$st")" $((c1 - c0)) \
		"$(awk '/^bytes offloaded:/ { print $3 }' "$st")" \
		"$(awk '/^bytes by fallback:/ { print $4 }' "$st")" "$ok" >>"$OUT/rows.csv"
	tail -1 "$OUT/rows.csv" >&2
	lab_teardown >/dev/null
}

# lat PATH KIND STORE CFG: 1 GiB (LAT_SIZE) copy A -> B over iSCSI while
# xcbench probe reads 4 KiB O_DIRECT every 10 ms from B (the LU that
# receives the EXTENDED COPY) through tcm_loop.
lat() {
	local path=$1 kind=$2 store=$3 cfg=$4 S n url sdb ta tb pid perfpid=
	local bef dur
	S=$LAT_SIZE
	n=$((S / 512))
	log "latency: $path"
	fallocate -p -o 0 -l "$S" "$W/$store/B.img"
	make_lus "$kind" "$store" "$cfg"
	url=$(lab_iscsi_export "iqn.2003-01.org.linux-iscsi.lab:lat$NLU" "$SO_A" "$SO_B")
	{ read -r _ _; read -r sdb _; } <<<"$(lab_loop_export "$SO_A" "$SO_B")"
	fresh
	rm -f "$W/stop"
	"$XCB" probe "$sdb" "$S" 10 "$W/stop" 600 "$W/lat-$NLU.txt" &
	pid=$!
	sleep 3
	if [ "$PROFILE" = 1 ] && [ "${5:-}" = profile ]; then
		perf record -a -g -F 250 -o "$W/perf-$path.data" >/dev/null 2>"$W/perf-$path.err" &
		perfpid=$!
		sleep 1
	fi
	ta=$EPOCHREALTIME
	"$XCP" --stats --src-lba 0 --dst-lba 0 --blocks "$n" "$url/0" "$url/1" \
		>"$W/lat-xcp-$NLU.stats" 2>&1 || log "xcp failed: $(tail -3 "$W/lat-xcp-$NLU.stats")"
	tb=$EPOCHREALTIME
	if [ -n "$perfpid" ]; then
		kill -INT "$perfpid"
		wait "$perfpid" || true
	fi
	sleep 1
	touch "$W/stop"
	wait "$pid" || log "probe failed"
	bef=$("$XCB" pct "$W/lat-$NLU.txt" 0 "$ta")
	dur=$("$XCB" pct "$W/lat-$NLU.txt" "$ta" "$tb")
	echo "$path,$kind,$S,$(secs "$ta" "$tb"),${bef// /,},${dur// /,}" >>"$OUT/latency.csv"
	tail -1 "$OUT/latency.csv" >&2
	if [ -n "$perfpid" ]; then
		perf report -i "$W/perf-$path.data" --stdio --no-children --sort comm,dso,sym \
			--percent-limit 1.5 -g none 2>/dev/null | grep -v '^$' | head -60 \
			>"$OUT/profile-$path.txt" || true
		perf report -i "$W/perf-$path.data" --stdio --no-children --comm tcmu-runner \
			--sort sym -g caller,0.5,callee --percent-limit 3 2>/dev/null | grep -v '^$' |
			head -120 >>"$OUT/profile-$path.txt" || true
	fi
	sync
	lab_teardown >/dev/null
}

# extents STORE: a file of $EXTENTS 4 KiB extents on XFS on a user:xcopy LU
extents() {
	local store=$1 so sd mnt t0 t1 ext
	log "extents: $EXTENTS"
	truncate -s 1G "$W/$store/F.img"
	so=$(lab_user_create fx xcopy "$W/$store/F.img" 1G)
	read -r sd _ <<<"$(lab_loop_export "$so")"
	mkfs.xfs -q -f "$sd"
	mnt=$W/fmnt
	mkdir -p "$mnt"
	mount "$sd" "$mnt"
	ext=$("$XCB" frag "$mnt/src" "$EXTENTS")
	sync
	t0=$EPOCHREALTIME
	"$XCP" --stats "$mnt/src" "$mnt/dst" >"$W/ext.stats" 2>&1 || log "xcp failed: $(tail -3 "$W/ext.stats")"
	t1=$EPOCHREALTIME
	{
		echo "extents_requested=$EXTENTS"
		echo "extents_fiemap=$ext"
		echo "copy_s=$(secs "$t0" "$t1")"
		awk '/^xcopy commands:/ { gsub(/[(,]/, ""); print "xcopy_cmds=" $3; print "segments=" $(NF - 1) }
		     /^bytes offloaded:/ { print "offloaded_B=" $3 }
		     /^bytes by fallback:/ { print "fallback_B=" $4 }
		     /^other commands:/ { print "other_cmds=" $3 }' "$W/ext.stats"
		cmp -s "$mnt/src" "$mnt/dst" && echo "verified=yes" || echo "verified=NO"
		"$XCB" plan "$sd" "$mnt/src" "$mnt/dst" | tr ' ' '\n' | sed 's/^/plan_/'
	} >>"$OUT/extents.txt"
	cat "$OUT/extents.txt" >&2
	umount "$mnt"
	lab_teardown >/dev/null
	rm -f "$W/$store/F.img"
}

fill_source() {   # STORE
	log "fill: $MAXB bytes of source data in $1"
	"$XCB" fill "$W/$1/A.img" 0 "$MAXB" 1
}

# ============================================================================
# BENCH_PHASES (development): any of "rows lat ext" (default all)
want() { [[ " ${BENCH_PHASES:-rows lat ext} " == *" $1 "* ]]; }

say "reflink XFS store: user:xcopy clone path"
mkstore rl 1
fill_source rl
if want rows; then
	for s in $SIZES; do
		row "$s" cross clone user rl ""
		row "$s" within clone user rl ""
	done
fi
want lat && lat clone user rl ""
rmstore rl

say "XFS store without reflink"
mkstore nr 0
fill_source nr
if want rows; then
	for s in $SIZES; do
		row "$s" cross lio fileio nr ""
		row "$s" within lio fileio nr ""
		row "$s" cross cfr user nr ""
		row "$s" within cfr user nr ""
		row "$s" cross rw user nr "?clone=never&cfr=never"
		row "$s" within rw user nr "?clone=never&cfr=never"
		row "$s" within core user nr "?xcopy=core"
		row "$s" cross host fileio nr "" no-offload
	done
fi
if want lat; then
	lat lio fileio nr "" profile
	lat cfr user nr "" profile
	lat rw user nr "?clone=never&cfr=never"
fi
want ext && extents nr
rmstore nr
log "done"
