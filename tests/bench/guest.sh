#!/bin/bash
# tests/bench/guest.sh: the benchmark rows, run INSIDE the lab guest by
# tests/bench/run (one boot, so every row shares one kernel, one
# tcmu-runner and one load level). Writes to $LAB_RESULTS/bench/:
#   rows.csv      one line per copy (see HEADER below)
#   latency.csv   read latency on the LU receiving a 1 GiB copy
#   latency-trace-PATH.csv every probe read of that copy: due time from the
#                 copy's start, latency, service (the plots' input)
#   extents.txt   the 10,000-extent file: commands and planning time
#   clonescale.csv the same clone copy (same extents) over 1 GiB and 64 GiB
#   async.csv     store limit (the store's own copy_file_range),
#                 8 copies in flight vs one after another, read latency while a
#                 client sends 4 MiB EXTENDED COPY commands back to back
#   odx.csv       LID1 vs ODX (PT + 64 MiB WUTs) vs LIO, SG_IO
#                 through tcm_loop (tests/bench/guest_odx.sh)
#   rbd.csv       RBD LU to RBD LU by the plugin (copy-from) vs
#                 handler_rbd's core XCOPY vs dd (tests/bench/guest_rbd.sh;
#                 phase rbd, not in the default set)
#   io.csv        the LU as a disk: fio rows on user:xcopy, the null store
#                 (the TCMU floor), LIO fileio (write-back, write-through),
#                 iblock, the backing file itself (tests/bench/guest_io.sh)
#   rbdio.csv     the LU as a disk on RBD: the same fio rows on user:xcopy and
#                 handler_rbd LUs and on librbd itself, gateway CPU
#                 (tests/bench/guest_rbdio.sh; phase rbdio, not in the default set)
#   xtarget.csv   user:xcopy LU -> LIO fileio LU of another iSCSI target:
#                 EXTENDED COPY (the plugin's peer session) vs the host's
#                 copy through two sessions (tests/bench/guest_xtarget.sh;
#                 phase xtarget, not in the default set)
#   inflight.csv  one 1 GiB copy with 1 and 8 EXTENDED COPY
#                 commands in flight (XCOPY_INFLIGHT), SG_IO through tcm_loop
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
# shellcheck source=tests/bench/guest_odx.sh
. "$HERE/guest_odx.sh"
# shellcheck source=tests/bench/guest_rbd.sh
. "$HERE/guest_rbd.sh"
# shellcheck source=tests/bench/guest_io.sh
. "$HERE/guest_io.sh"
# shellcheck source=tests/bench/guest_rbdio.sh
. "$HERE/guest_rbdio.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../lab/target-lib.sh"
# shellcheck source=tests/bench/guest_xtarget.sh
. "$HERE/guest_xtarget.sh"
lab_require_guest

XCP=$LAB_BUILD/host/xcp
XCB=$LAB_BUILD/bench/xcbench
OUT=$LAB_RESULTS/bench
W=/tmp/bench
SIZES=${BENCH_SIZES:-64M 1G}
LAT_SIZE=${BENCH_LAT_SIZE:-}
EXTENTS=${BENCH_EXTENTS:-10000}
PROFILE=${BENCH_PROFILE:-1}
LAT_MS=${BENCH_LAT_MS:-20}   # probe period: >= 100 samples inside a few-second copy
STATS_DIR=${XCOPY_STATS_DIR:-/run/xcopy}
HEADER=size,scope,path,backstore,cfg,wall_s,sync_s,backend_read_B,backend_write_B,clone_B,cfr_B,rw_B,link_B,lun_data_MiB,xcopy_cmds,xcopy_segments,other_cmds,target_cmds,offloaded_B,fallback_B,verified

rm -rf "$OUT"
mkdir -p "$OUT" "$W"
echo "$HEADER" >"$OUT/rows.csv"
echo "path,backstore,size,copy_s,samples_before,p50_before_ms,p99_before_ms,max_before_ms,samples_during,p50_ms,p99_ms,max_ms,svc_samples,svc_p50_ms,svc_p99_ms,svc_max_ms" \
	>"$OUT/latency.csv"
: >"$OUT/extents.txt"
echo "row,path,size,secs,sync_s,n,samples,p50_ms,p99_ms,max_ms,verified,svc_p99_ms,cpu_user,cpu_sys,cpu_iowait,cpu_idle,xcopy_s" >"$OUT/async.csv"
echo "span,extents,copy_s,xcopy_cmds,segments,clone_B,fallback_B,verified" >"$OUT/clonescale.csv"
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
	echo "lat_ms $LAT_MS"
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
mkstore() {   # NAME REFLINK(0|1) [DEVICE] -> mounted at $W/NAME (on DEVICE, else a loop device over guest RAM)
	local name=$1 rl=$2 img='' dev=${3:-}
	if [ -z "$dev" ]; then
		img=$W/$name.xfs.img
		truncate -s $((2 * ASIZE + 2 * BSIZE + (512 << 20))) "$img"
		dev=$(losetup -f --show "$img")
	fi
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
	[ -z "${STORE_IMG[$name]}" ] || losetup -d "${STORE_DEV[$name]}" 2>/dev/null || true
	rm -f "${STORE_IMG[$name]}"
	unset "STORE_DEV[$name]" "STORE_IMG[$name]"
}
drop_stores() { local n; for n in "${!STORE_DEV[@]}"; do rmstore "$n"; done; }

# --- counters -----------------------------------------------------------------
loop_io() { awk -v d="${1#/dev/}" '$3 == d { printf "%.0f %.0f\n", $6 * 512, $10 * 512 }' /proc/diskstats; }
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
cval() { awk -F= -v k="$2" '$1 == k { print $2 }' "$1"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

fresh() {   # drop every cache so the copy reads its source from the store
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

bench_fileio_create() {   # NAME FILE SIZE_BYTES [SERIAL]: write-back, as targetcli's default
	local so
	so=$LAB_CFS/core/fileio_$(lab__next_hba)/$1
	mkdir -p "$so"
	echo "fd_dev_name=$2,fd_dev_size=$3,fd_buffered_io=1" >"$so/control"
	lab__set_serial "$so" "${4:-}"
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

# setup KIND STORE CFG: LUs A and B (see make_lus), exported together over
# iSCSI (URL) and tcm_loop (SD_A, SD_B); the rows of one path share them.
setup() {
	make_lus "$@"
	URL=$(lab_iscsi_export "iqn.2003-01.org.linux-iscsi.lab:bench$NLU" "$SO_A" "$SO_B")
	{ read -r SD_A _; read -r SD_B _; } <<<"$(lab_loop_export "$SO_A" "$SO_B")"
}

sd_io() {   # bytes read + written on the tcm_loop disks of A and B
	awk -v a="${SD_A#/dev/}" -v b="${SD_B#/dev/}" \
		'$3 == a || $3 == b { t += ($6 + $10) * 512 } END { printf "%.0f\n", t }' /proc/diskstats
}

# row SIZE SCOPE(cross|within) PATH KIND STORE CFG [no-offload|dd]: one copy
# of SIZE from A at 0 to B at 0 (cross) or to A at MAXB (within), on the LUs
# of the last setup. no-offload: xcopy_dev_copy with XCOPY_NO_OFFLOAD over
# iSCSI; dd: dd O_DIRECT between the tcm_loop disks (link = their diskstats).
row() {
	local size=$1 scope=$2 path=$3 kind=$4 store=$5 cfg=$6 how=${7:-}
	local S n dlun doff dfile st t0 t1 t2 tsync r0 w0 r1 w1 l0 l1 c0 m0 c1 m1 ok lu
	local -A p0 p1
	local k dsd
	S=$(lab_size_bytes "$size")
	n=$((S / 512))
	if [ "$scope" = cross ]; then
		dlun=1 doff=0 dfile=$W/$store/B.img dsd=$SD_B
	else
		dlun=0 doff=$MAXB dfile=$W/$store/A.img dsd=$SD_A
	fi
	log "$path $scope $size"
	# every row starts from an unallocated destination range
	fallocate -p -o "$doff" -l "$S" "$dfile"
	fresh
	for k in clone_bytes cfr_bytes rw_bytes; do
		p0[$k]=0
		for lu in "$LU_A" "$LU_B"; do p0[$k]=$((p0[$k] + $(pstat "$lu" "$k"))); done
	done
	read -r r0 w0 <<<"$(loop_io "${STORE_DEV[$store]}")"
	if [ "$how" = dd ]; then l0=$(sd_io); else l0=$(lo_bytes); fi
	read -r c0 m0 <<<"$(lun_stats)"
	st=$W/copy-$NLU-$size-$scope.stats
	t0=$EPOCHREALTIME
	if [ "$how" = dd ]; then
		dd if="$SD_A" of="$dsd" bs=4M count=$((S >> 22)) seek=$((doff >> 22)) \
			iflag=direct oflag=direct status=none 2>"$st.err" || log "dd failed: $(cat "$st.err")"
		t1=$EPOCHREALTIME
		printf 'xcopy_cmds=0\nsegments=0\nother_cmds=%d\noffloaded_B=0\nfallback_B=%d\n' \
			$((2 * (S >> 22))) "$S" >"$st"
	else
		# xcbench copy logs in and discovers first; t1 = t0 + both + the copy
		"$XCB" copy "$URL/0" 0 "$URL/$dlun" $((doff / 512)) "$n" ${how:+"$how"} >"$st" \
			2>"$st.err" || log "copy failed: $(tail -3 "$st.err")"
		t0=$(cval "$st" copy_t0)
		t1=$(cval "$st" copy_t1)
	fi
	tsync=$EPOCHREALTIME
	sync
	t2=$EPOCHREALTIME
	read -r r1 w1 <<<"$(loop_io "${STORE_DEV[$store]}")"
	if [ "$how" = dd ]; then l1=$(sd_io); else l1=$(lo_bytes); fi
	read -r c1 m1 <<<"$(lun_stats)"
	for k in clone_bytes cfr_bytes rw_bytes; do
		p1[$k]=0
		for lu in "$LU_A" "$LU_B"; do p1[$k]=$((p1[$k] + $(pstat "$lu" "$k"))); done
	done
	[ "$kind" = user ] || { p0[clone_bytes]=0 p0[cfr_bytes]=0 p0[rw_bytes]=0 p1=([clone_bytes]=0 [cfr_bytes]=0 [rw_bytes]=0); }
	ok=$(verify "$W/$store/A.img" 0 "$dfile" "$doff" "$S")
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' \
		"$size" "$scope" "$path${how:+-$how}" "$kind" "${cfg#\?}" "$(secs "$t0" "$t1")" \
		"$(secs "$tsync" "$t2")" $((r1 - r0)) $((w1 - w0)) \
		$((p1[clone_bytes] - p0[clone_bytes])) $((p1[cfr_bytes] - p0[cfr_bytes])) \
		$((p1[rw_bytes] - p0[rw_bytes])) $((l1 - l0)) $((m1 - m0)) \
		"$(cval "$st" xcopy_cmds)" "$(cval "$st" segments)" "$(cval "$st" other_cmds)" \
		$((c1 - c0)) "$(cval "$st" offloaded_B)" "$(cval "$st" fallback_B)" "$ok" \
		>>"$OUT/rows.csv"
	tail -1 "$OUT/rows.csv" >&2
}

# path PATH KIND STORE CFG [HOW]: every size and scope of one path
path() {
	local p=$1 kind=$2 store=$3 cfg=$4 how=${5:-} s
	setup "$kind" "$store" "$cfg"
	for s in $SIZES; do
		row "$s" cross "$p" "$kind" "$store" "$cfg" "$how"
		[ "$p" = host ] || row "$s" within "$p" "$kind" "$store" "$cfg" "$how"
	done
	lab_teardown >/dev/null
}
# core: within one LU only (tcmu-runner refuses cross-LU copies)
path_core() {
	local s
	setup user "$1" "?xcopy=core"
	for s in $SIZES; do row "$s" within core user "$1" "?xcopy=core"; done
	lab_teardown >/dev/null
}

# lat PATH KIND STORE CFG [profile]: 1 GiB (LAT_SIZE) copy A -> B over iSCSI
# while xcbench probe reads 4 KiB O_DIRECT every LAT_MS ms from B (the LU that
# receives the EXTENDED COPY) through tcm_loop, open loop with up to 8 reads
# in flight (latency from when each read was due; svc = from when it was sent).
lat() {
	local path=$1 kind=$2 store=$3 cfg=$4 S n url sdb ta tb pid st t_probe
	local bef dur svc
	S=$LAT_SIZE
	n=$((S / 512))
	log "latency: $path"
	fallocate -p -o 0 -l "$S" "$W/$store/B.img"
	make_lus "$kind" "$store" "$cfg"
	url=$(lab_iscsi_export "iqn.2003-01.org.linux-iscsi.lab:lat$NLU" "$SO_A" "$SO_B")
	{ read -r _ _; read -r sdb _; } <<<"$(lab_loop_export "$SO_A" "$SO_B")"
	fresh
	rm -f "$W/stop"
	"$XCB" probe "$sdb" "$S" "$LAT_MS" "$W/stop" 900 "$W/lat-$NLU.txt" &
	pid=$!
	t_probe=$EPOCHREALTIME
	sleep 4
	log "probe running"
	st=$W/lat-copy-$NLU.stats
	if [ "$PROFILE" = 1 ] && [ "${5:-}" = profile ]; then
		# perf starts the copy only once it records: the profile is the copy's
		timeout 900 perf record -a -F 100 -o "$W/perf-$path.data" -- \
			"$XCB" copy "$url/0" 0 "$url/1" 0 "$n" >"$st" 2>"$OUT/perf-$path.err" ||
			log "copy failed: $(tail -3 "$OUT/perf-$path.err")"
	else
		"$XCB" copy "$url/0" 0 "$url/1" 0 "$n" >"$st" 2>&1 || log "copy failed: $(tail -3 "$st")"
	fi
	ta=$(cval "$st" copy_t0)
	tb=$(cval "$st" copy_t1)
	log "copy done, stopping the probe"
	sleep 1
	touch "$W/stop"
	wait "$pid" || log "probe failed"
	# idle: the 3 s before the copy tool (and perf) started
	bef=$("$XCB" pct "$W/lat-$NLU.txt" "$(awk -v t="$t_probe" 'BEGIN { printf "%.6f", t + 1 }')" \
		"$(awk -v t="$t_probe" 'BEGIN { printf "%.6f", t + 4 }')")
	dur=$("$XCB" pct "$W/lat-$NLU.txt" "$ta" "$tb")
	svc=$("$XCB" pct "$W/lat-$NLU.txt" "$ta" "$tb" svc)
	echo "$path,$kind,$S,$(secs "$ta" "$tb"),${bef// /,},${dur// /,},${svc// /,}" >>"$OUT/latency.csv"
	tail -1 "$OUT/latency.csv" >&2
	# every read of the probe, time from the copy's start (the plots' input)
	awk -v a="$ta" 'BEGIN { print "t_s,latency_ms,service_ms" }
		NF >= 3 { printf "%.3f,%.3f,%.3f\n", $1 - a, $2 / 1000, $3 / 1000 }' \
		"$W/lat-$NLU.txt" >"$OUT/latency-trace-$path.csv"
	if [ -f "$W/perf-$path.data" ]; then
		perf report -i "$W/perf-$path.data" --stdio --sort comm,dso,sym --percent-limit 1 \
			2>/dev/null | grep -v '^$' | head -70 >"$OUT/profile-$path.txt" || true
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
	# a written destination: libxcopy allocates a new one with
	# FALLOC_FL_WRITE_ZEROES, which this 6.1 kernel lacks (it would fall back)
	"$XCB" fill "$mnt/dst" 0 $((EXTENTS * 4096)) 9
	sync
	t0=$EPOCHREALTIME
	"$XCP" --stats -v "$mnt/src" "$mnt/dst" >"$W/ext.stats" 2>"$OUT/extents-xcp.log" ||
		log "xcp failed: $(tail -3 "$OUT/extents-xcp.log")"
	cp "$W/ext.stats" "$OUT/extents-xcp.stats"
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

# --- async rows (async.csv) ---------------------------------------------------
# cpu_snap: the guest's /proc/stat "cpu" line (the sum over both vCPUs) as
# ticks of user+nice, system+irq+softirq, iowait, idle+steal
cpu_snap() { awk '$1 == "cpu" { print $2 + $3, $4 + $7 + $8, $6, $5 + $9 }' /proc/stat; }
# cpu_pct SNAP0 SNAP1: user,sys,iowait,idle in % of all vCPU time between them
cpu_pct() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, " "); split(b, y, " "); t = 0
		for (i = 1; i <= 4; i++) { d[i] = y[i] - x[i]; t += d[i] }
		for (i = 1; i <= 4; i++) printf "%s%.1f", (i > 1 ? "," : ""), (t > 0 ? 100 * d[i] / t : 0)
	}'
}
# storelimit STORE [CHUNK]: the store's own copy_file_range of LAT_SIZE bytes
# A -> B, in one call (store_limit) or in calls of CHUNK bytes (the chunk the
# target's copy_file_range path uses: store_limit_chunk)
storelimit() {
	local store=$1 chunk=${2:-} S=$LAT_SIZE t0 t1 t2 c0 c1
	log "store limit: copy_file_range of $S bytes in $store${chunk:+, $chunk-byte calls}"
	fallocate -p -o 0 -l "$S" "$W/$store/B.img"
	fresh
	c0=$(cpu_snap)
	t0=$EPOCHREALTIME
	"$XCB" cfr "$W/$store/A.img" 0 "$W/$store/B.img" 0 "$S" $chunk || log "cfr failed"
	t1=$EPOCHREALTIME
	c1=$(cpu_snap)
	sync
	t2=$EPOCHREALTIME
	echo "store_limit${chunk:+_chunk},$store-cfr,$S,$(secs "$t0" "$t1"),$(secs "$t1" "$t2"),${chunk:-1},,,,,$(verify "$W/$store/A.img" 0 "$W/$store/B.img" 0 "$S"),,$(cpu_pct "$c0" "$c1")," \
		>>"$OUT/async.csv"
	tail -1 "$OUT/async.csv" >&2
}

# storelimit8 STORE: the store's own copy_file_range of the 8 ranges par8
# copies (LAT_SIZE/8 each, A -> B at the same offset), 8 processes at once,
# one call each: the store's limit for 8 copies in flight
storelimit8() {
	local store=$1 S=$LAT_SIZE part i t0 t1 t2 c0 c1 pids=()
	part=$((S / 8))
	log "store limit, 8 at once: 8 copy_file_range of $part bytes in $store"
	fallocate -p -o 0 -l "$S" "$W/$store/B.img"
	fresh
	c0=$(cpu_snap)
	t0=$EPOCHREALTIME
	for i in 0 1 2 3 4 5 6 7; do
		"$XCB" cfr "$W/$store/A.img" $((i * part)) "$W/$store/B.img" $((i * part)) "$part" &
		pids+=($!)
	done
	wait "${pids[@]}" || log "a cfr failed"
	t1=$EPOCHREALTIME
	c1=$(cpu_snap)
	sync
	t2=$EPOCHREALTIME
	echo "store_limit8,$store-cfr,$S,$(secs "$t0" "$t1"),$(secs "$t1" "$t2"),8,,,,,$(verify "$W/$store/A.img" 0 "$W/$store/B.img" 0 "$S"),,$(cpu_pct "$c0" "$c1")," \
		>>"$OUT/async.csv"
	tail -1 "$OUT/async.csv" >&2
}

# cfrrow STORE: one user:xcopy copy_file_range copy of LAT_SIZE A -> B (no
# probe), a rows.csv row the render compares with the store limit
cfrrow() {
	local lbl=$((LAT_SIZE >> 20))M
	[ $((LAT_SIZE % (1 << 30))) -eq 0 ] && lbl=$((LAT_SIZE >> 30))G
	setup user "$1" ""
	row "$lbl" cross cfr user "$1" ""
	lab_teardown >/dev/null
}

# par8_xcopy_s MODE: the EXTENDED COPY time of the 8 copies (xcbench copy's
# copy_t0..copy_t1, without process start, iSCSI login and discovery): the
# sum for serial, first start to last end for parallel
par8_xcopy_s() {
	local i
	for i in 0 1 2 3 4 5 6 7; do
		printf '%s %s\n' "$(cval "$W/par8-$i.stats" copy_t0)" "$(cval "$W/par8-$i.stats" copy_t1)"
	done | awk -v m="$1" '$1 == "" || $2 == "" { bad = 1 }
		{ s += $2 - $1; if (NR == 1 || $1 < a) a = $1; if ($2 > b) b = $2 }
		END { if (bad) print ""; else printf "%.3f", m == "serial" ? s : b - a }'
}

# par8_once MODE PATH STORE: the 8 copies of par8, in flight at once
# (parallel) or one after another (serial); one async.csv row
par8_once() {
	local mode=$1 path=$2 store=$3 S=$LAT_SIZE part i t0 t1 t2 c0 c1 pids=() ok
	part=$((S / 8))
	log "8 copies $mode: $path"
	fallocate -p -o 0 -l "$S" "$W/$store/B.img"
	fresh
	c0=$(cpu_snap)
	t0=$EPOCHREALTIME
	for i in 0 1 2 3 4 5 6 7; do
		if [ "$mode" = parallel ]; then
			"$XCB" copy "$URL/0" $((i * part / 512)) "$URL/1" $((i * part / 512)) \
				$((part / 512)) >"$W/par8-$i.stats" 2>&1 &
			pids+=($!)
		else
			"$XCB" copy "$URL/0" $((i * part / 512)) "$URL/1" $((i * part / 512)) \
				$((part / 512)) >"$W/par8-$i.stats" 2>&1 || log "copy $i failed"
		fi
	done
	[ "$mode" = serial ] || wait "${pids[@]}" || log "a parallel copy failed"
	t1=$EPOCHREALTIME
	c1=$(cpu_snap)
	sync
	t2=$EPOCHREALTIME
	ok=$(verify "$W/$store/A.img" 0 "$W/$store/B.img" 0 "$S")
	echo "par8_$mode,$path,$S,$(secs "$t0" "$t1"),$(secs "$t1" "$t2"),8,,,,,$ok,,$(cpu_pct "$c0" "$c1"),$(par8_xcopy_s "$mode")" \
		>>"$OUT/async.csv"
	tail -1 "$OUT/async.csv" >&2
}

# par8 PATH KIND STORE CFG: 8 copies of LAT_SIZE/8 A -> B over iSCSI, all in
# flight at once (8 processes, 8 sessions), then the same 8 one after another
par8() {
	local path=$1 kind=$2 store=$3 cfg=$4 mode
	setup "$kind" "$store" "$cfg"
	for mode in parallel serial; do par8_once "$mode" "$path" "$store"; done
	echo "par8_inflight_max,$path,,,,$(pstat "$LU_B" inflight_max)/$(pstat "$LU_A" inflight_max),,,,,,,,,,," \
		>>"$OUT/async.csv"
	lab_teardown >/dev/null
}

# lat4m PATH KIND STORE CFG: read latency on B while sg_xcopy sends LAT_SIZE
# as 4 MiB EXTENDED COPY commands back to back (A -> B through tcm_loop)
lat4m() {
	local path=$1 kind=$2 store=$3 cfg=$4 S=$LAT_SIZE sga sgb sdb pid t_probe ta tb bef dur svc
	log "latency, 4 MiB commands: $path"
	fallocate -p -o 0 -l "$S" "$W/$store/B.img"
	make_lus "$kind" "$store" "$cfg"
	{ read -r _ sga; read -r sdb sgb; } <<<"$(lab_loop_export "$SO_A" "$SO_B")"
	fresh
	rm -f "$W/stop"
	"$XCB" probe "$sdb" "$S" "$LAT_MS" "$W/stop" 900 "$W/lat4m-$NLU.txt" &
	pid=$!
	t_probe=$EPOCHREALTIME
	sleep 4
	ta=$EPOCHREALTIME
	sg_xcopy --on_dst if="$sga" of="$sgb" bs=512 bpt=8192 count=$((S / 512)) \
		>"$W/lat4m.log" 2>&1 || log "sg_xcopy failed: $(tail -2 "$W/lat4m.log")"
	tb=$EPOCHREALTIME
	sleep 1
	touch "$W/stop"
	wait "$pid" || log "probe failed"
	bef=$("$XCB" pct "$W/lat4m-$NLU.txt" "$(awk -v t="$t_probe" 'BEGIN { printf "%.6f", t + 1 }')" \
		"$(awk -v t="$t_probe" 'BEGIN { printf "%.6f", t + 4 }')")
	dur=$("$XCB" pct "$W/lat4m-$NLU.txt" "$ta" "$tb")
	sync
	echo "lat4m_idle,$path,$S,,,$((S >> 22)),${bef// /,}," >>"$OUT/async.csv"
	read -r _ _ svc _ <<<"$("$XCB" pct "$W/lat4m-$NLU.txt" "$ta" "$tb" svc)"
	echo "lat4m,$path,$S,$(secs "$ta" "$tb"),,$((S >> 22)),${dur// /,},$(verify "$W/$store/A.img" 0 "$W/$store/B.img" 0 "$S"),$svc" \
		>>"$OUT/async.csv"
	tail -2 "$OUT/async.csv" >&2
	lab_teardown >/dev/null
}

# --- commands in flight (inflight.csv) ---------------------------------------
# inflight PATH KIND STORE CFG: one xcopy_dev_copy of BENCH_INFLIGHT_SIZE (1G)
# from A to B through tcm_loop (SG_IO on the sg nodes: iSCSI handles carry one
# command at a time), XCOPY_INFLIGHT=1 then 8; the most jobs the plugin had
# running on B after each.
inflight() {
	local path=$1 kind=$2 store=$3 cfg=$4 S n sga sgb st ts
	S=$(lab_size_bytes "${BENCH_INFLIGHT_SIZE:-1G}")
	echo "n,path,size,secs,sync_s,xcopy_cmds,segments,offloaded_B,fallback_B,jobs_max_B,verified" \
		>"$OUT/inflight.csv"
	make_lus "$kind" "$store" "$cfg"
	{ read -r _ sga; read -r _ sgb; } <<<"$(lab_loop_export "$SO_A" "$SO_B")"
	for n in 1 8; do
		log "in flight: $n, $path, $S bytes"
		fallocate -p -o 0 -l "$S" "$W/$store/B.img"
		fresh
		st=$W/inflight-$n.stats
		XCOPY_INFLIGHT=$n "$XCB" copy "$sga" 0 "$sgb" 0 $((S / 512)) >"$st" 2>"$st.err" ||
			log "copy failed: $(tail -3 "$st.err")"
		ts=$EPOCHREALTIME
		sync
		echo "$n,$path,$S,$(secs "$(cval "$st" copy_t0)" "$(cval "$st" copy_t1)"),$(secs "$ts" "$EPOCHREALTIME"),$(cval "$st" xcopy_cmds),$(cval "$st" segments),$(cval "$st" offloaded_B),$(cval "$st" fallback_B),$(pstat "$LU_B" inflight_max),$(verify "$W/$store/A.img" 0 "$W/$store/B.img" 0 "$S")" \
			>>"$OUT/inflight.csv"
		tail -1 "$OUT/inflight.csv" >&2
	done
	lab_teardown >/dev/null
}

# clonescale: the same clone copy over 1 GiB and over 64 GiB. On a reflink XFS
# store, LU C<size> (2 x size, sparse backing file) holds CLONE_EXTENTS
# extents of 64 KiB spread evenly over [0, size) and nothing else; the copy
# [0, size) -> [size, 2 x size) inside the LU is one xcbench copy over iSCSI.
# Both copies move the same extents and the same bytes; only the span (and
# so the holes, LBAs and segments) grows 64 times.
CLONE_EXTENTS=${BENCH_CLONE_EXTENTS:-1024}
clonescale() {
	local img dev s S so url t0 t1 st n0 ok
	log "clone scale: $CLONE_EXTENTS extents over 1 GiB and 64 GiB"
	img=$W/cs.xfs.img
	truncate -s 140G "$img"
	dev=$(losetup -f --show "$img")
	mkfs.xfs -q -f -m reflink=1 "$dev" >&2
	mkdir -p "$W/cs"
	mount -t xfs "$dev" "$W/cs"
	for s in 1G 64G; do
		S=$(lab_size_bytes "$s")
		truncate -s $((2 * S)) "$W/cs/C$s.img"
		"$XCB" sparse "$W/cs/C$s.img" "$S" "$CLONE_EXTENTS" 65536
		so=$(lab_user_create "c$s" xcopy "$W/cs/C$s.img" $((2 * S)))
		url=$(lab_iscsi_export "iqn.2003-01.org.linux-iscsi.lab:cs$s" "$so")
		fresh
		st=$W/cs-$s.stats
		n0=$(pstat "c$s" clone_bytes)
		"$XCB" copy "$url/0" 0 "$url/0" $((S / 512)) $((S / 512)) >"$st" 2>&1 ||
			log "clone scale copy failed: $(tail -3 "$st")"
		t0=$(cval "$st" copy_t0)
		t1=$(cval "$st" copy_t1)
		if "$XCB" sparsecmp "$W/cs/C$s.img" 0 "$W/cs/C$s.img" "$S" "$S" "$CLONE_EXTENTS" 65536 \
			>/dev/null 2>&1; then ok=yes; else ok=NO; fi
		echo "$S,$CLONE_EXTENTS,$(secs "$t0" "$t1"),$(cval "$st" xcopy_cmds),$(cval "$st" segments),$(($(pstat "c$s" clone_bytes) - n0)),$(cval "$st" fallback_B),$ok" \
			>>"$OUT/clonescale.csv"
		tail -1 "$OUT/clonescale.csv" >&2
		lab_teardown >/dev/null
		rm -f "$W/cs/C$s.img"
	done
	umount "$W/cs"
	losetup -d "$dev"
	rm -f "$img"
}

fill_source() {   # STORE
	log "fill: $MAXB bytes of source data in $1"
	"$XCB" fill "$W/$1/A.img" 0 "$MAXB" 1
}

# warm_store STORE: write the destination ranges (B at 0, A at MAXB) once, so
# that the store image's RAM pages under them exist before the first row: the
# first write to a fresh image allocates and zeroes them (tmpfs), which made
# whichever row came first slow (store limit 15.7-21.2 s vs 7.8 s in 4 MiB
# calls right after it, 2.4 s sync). Rows punch their range first; XFS
# allocates the freed blocks again.
warm_store() {
	log "warm: $MAXB bytes at each destination range of $1"
	dd if=/dev/zero of="$W/$1/B.img" bs=4M count=$((MAXB >> 22)) conv=notrunc status=none
	dd if=/dev/zero of="$W/$1/A.img" bs=4M count=$((MAXB >> 22)) seek=$((MAXB >> 22)) \
		conv=notrunc status=none
	sync
}

# ============================================================================
# BENCH_PHASES (development): any of "io rows lat ext async inflight clone odx rbd rbdio
# xtarget" (default all but rbd, rbdio and xtarget),
# or lat4m: only the 4 MiB-commands latency rows of async (user:xcopy, then LIO)
# (commas work too: BENCH_RUN_OPTS="--env BENCH_PHASES=lat,async")
want() { local p=" ${BENCH_PHASES:-io rows lat ext async inflight clone odx} "; p=${p//,/ }; [[ "$p" == *" $1 "* ]]; }

# first, on its own store: nothing else in guest RAM meanwhile
want io && iophase
if [ "${BENCH_PHASES:-}" = io ]; then
	log "done"
	exit 0
fi

if want rows || want lat || want odx; then
	say "reflink XFS store: user:xcopy clone path"
	mkstore rl 1
	fill_source rl
	want rows && path clone user rl ""
	want lat && lat clone user rl ""
	want odx && odxphase rl user
	rmstore rl
fi
want clone && clonescale
# no XFS store in guest RAM meanwhile: the OSD keeps the images there
want rbd && rbdphase
want rbdio && rbdiophase
want xtarget && xtphase
# the rest runs on the store without reflink: not made when no phase wants it
if ! { want rows || want lat || want async || want lat4m || want inflight || want odx || want ext; }; then
	log "done"
	exit 0
fi

say "XFS store without reflink"
mkstore nr 0
fill_source nr
warm_store nr
if want rows; then
	path lio fileio nr ""
	path cfr user nr ""
	path cfr-pc user nr "?dio=never"
	path rw user nr "?clone=never&cfr=never"
	path rw-pc user nr "?clone=never&cfr=never&dio=never"
	path host fileio nr "" dd
fi
if want lat; then
	lat lio fileio nr ""
	lat cfr user nr "" profile
fi
if want async; then
	storelimit nr
	want rows || cfrrow nr
	storelimit nr 4194304
	storelimit8 nr
	par8 cfr user nr ""
	lat4m cfr user nr ""
	lat4m lio fileio nr ""
fi
if want lat4m && ! want async; then
	lat4m cfr user nr ""
	lat4m lio fileio nr ""
fi
want inflight && inflight cfr user nr ""
want odx && odxphase nr user fileio
want ext && extents nr
# last: tcmu-runner's core XCOPY has killed the daemon (double free) in a
# 1 GiB run; nothing may depend on tcmu-runner after it
if want rows; then
	path_core nr || true
	if ! kill -0 "$LAB_TCMU_PID" 2>/dev/null; then
		echo "tcmu_runner_died_in_core_xcopy yes" >>"$OUT/guest.txt"
		tail -3 "$LAB_RUN_DIR/tcmu/stdout.log" | sed 's/^/tcmu_stdout /' >>"$OUT/guest.txt" || true
		log "tcmu-runner died during the core XCOPY rows"
	fi
fi
rmstore nr
log "done"
