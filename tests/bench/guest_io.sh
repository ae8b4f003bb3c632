# shellcheck shell=bash
# tests/bench/guest_io.sh: the io phase of tests/bench/guest.sh (sourced by
# it; uses its helpers: mkstore, rmstore, bench_fileio_create, cpu_snap,
# log). The LU as a disk: fio with direct I/O on each LU's tcm_loop
# /dev/sdX, the same rows for every target, one target at a time, each on
# its own backing file of BENCH_IO_SIZE bytes (pseudo-random data, written
# first) on one XFS store (reflink=0) in guest RAM:
#   xcopy      user:xcopy, the file store (the LU settings lab_user_create
#              gives: hw_max_sectors=2048, max_data_area_mb=128)
#   null       user:xcopy on the null store (xcopy/null/SIZE): no medium, the
#              TCMU floor (the ring, the runner, the plugin's dispatch)
#   fileio     LIO fileio, fd_buffered_io=1 (targetcli's write-back default)
#   fileio-wt  LIO fileio, fd_buffered_io=0 (write-through: O_DSYNC)
#   iblock     LIO iblock on a loop device over the same kind of file
#   limit      no LU: fio on the backing file itself in the guest (O_DIRECT
#              on XFS): the store's own limit
# BENCH_IO_TARGETS adds or drops targets; also xcopy-tuned and null-tuned
# (hw_max_sectors=8192, max_data_area_mb=256), xcopy-kdef and null-kdef (the
# kernel's defaults: hw_max_sectors=128, max_data_area_mb=1024), and
# xcopy-buffered (the file store with dio=never: READ and WRITE through the
# page cache, as before O_DIRECT) and xcopy-dio (dio=always: every aligned
# READ and WRITE O_DIRECT). Writes:
#   io.csv     one line per target and row (fio's JSON through fio_csv.py)
#   io-lus.txt each target's LU and disk settings (configfs attrib, sd queue)
#   io/*.json  fio's own output
IO_SIZE=$(lab_size_bytes "${BENCH_IO_SIZE:-256M}")
IO_SECS=${BENCH_IO_SECS:-5}
IO_RAMP=${BENCH_IO_RAMP:-1}
IO_ROUNDS=${BENCH_IO_ROUNDS:-1}   # > 1: all targets at once, taking turns row by row (io_rounds)
IO_TARGETS=${BENCH_IO_TARGETS:-xcopy null fileio fileio-wt iblock limit}
IO_TUNED="hw_max_sectors=8192,max_data_area_mb=256"
IO_KDEF="hw_max_sectors=128,max_data_area_mb=1024"
IO_PY=/usr/bin/python3   # Debian's (the caller's PATH may name a python of its own)
[ -x "$IO_PY" ] || IO_PY=python3
IO_HEADER=target,row,rw,bs,qd,secs,r_iops,r_mbs,r_p50_us,r_p99_us,r_p999_us,w_iops,w_mbs,w_p50_us,w_p99_us,w_p999_us,errors,cpu_busy_pct,cpu_window_s,clk_tck,cpu_busy_ticks
# row: name rw bs qd (rw as fio's --rw; randrw is 70 % reads)
IO_ROWS="seq-read-1m-qd1:read:1m:1 seq-read-1m-qd8:read:1m:8 seq-read-1m-qd32:read:1m:32
	rand-read-4k-qd1:randread:4k:1 rand-read-4k-qd32:randread:4k:32
	seq-write-1m-qd1:write:1m:1 seq-write-1m-qd8:write:1m:8 seq-write-1m-qd32:write:1m:32
	rand-write-4k-qd1:randwrite:4k:1 rand-write-4k-qd32:randwrite:4k:32
	mix70-4k-qd32:randrw:4k:32"

# io_fileio NAME FILE BUFFERED(0|1): LIO fileio on FILE, IO_SIZE bytes
io_fileio() {
	local so
	so=$LAB_CFS/core/fileio_$(lab__next_hba)/$1
	mkdir -p "$so"
	# write-through: no fd_buffered_io at all (LIO takes only =1; without it O_DSYNC)
	if [ "$3" = 1 ]; then
		echo "fd_dev_name=$2,fd_dev_size=$IO_SIZE,fd_buffered_io=1" >"$so/control"
	else
		echo "fd_dev_name=$2,fd_dev_size=$IO_SIZE" >"$so/control"
	fi
	lab__set_serial "$so"
	echo 1 >"$so/enable"
	echo "$so"
}

# io_iblock NAME DEV: LIO iblock on the block device DEV
io_iblock() {
	local so
	so=$LAB_CFS/core/iblock_$(lab__next_hba)/$1
	mkdir -p "$so"
	echo "udev_path=$2" >"$so/control"
	lab__set_serial "$so"
	echo 1 >"$so/enable"
	echo "$so"
}

# io_facts TARGET SO DEV [FILE]: the settings that cap a LU's throughput, one
# line in $OUT/FILE (default io-lus.txt)
io_facts() {
	local t=$1 so=$2 dev=$3 a line="$1"
	for a in hw_max_sectors max_sectors hw_queue_depth queue_depth max_data_area_mb cmd_ring_size_mb \
		data_pages_per_blk qfull_time_out nl_reply_supported emulate_write_cache hw_block_size; do
		[ -n "$so" ] && [ -r "$so/attrib/$a" ] && line+=" $a=$(cat "$so/attrib/$a")"
	done
	[ -n "$so" ] && line+=" control=$(tr -d '\n' <"$so/info" 2>/dev/null | tr -s ' ' | cut -c1-160 | tr ' ' '_')"
	dev=${dev#/dev/}
	if [ -e "/sys/block/$dev/queue" ]; then
		line+=" sd_max_sectors_kb=$(cat "/sys/block/$dev/queue/max_sectors_kb")"
		line+=" sd_nr_requests=$(cat "/sys/block/$dev/queue/nr_requests")"
		[ -r "/sys/block/$dev/device/queue_depth" ] &&
			line+=" sd_queue_depth=$(cat "/sys/block/$dev/device/queue_depth")"
		line+=" sd_scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$dev/queue/scheduler")"
		line+=" sd_write_cache=$(tr ' ' '_' <"/sys/block/$dev/queue/write_cache")"
	fi
	echo "$line" >>"$OUT/${4:-io-lus.txt}"
}

# io_row TARGET FILE ROW [CSV [TICKS]]: one fio run on FILE (a disk or the
# backing file; rbd:POOL/IMAGE: fio's rbd engine, librbd in fio's own process,
# $CEPH_CONF); guest CPU over the middle of the run (after the ramp, while fio
# measures). Appended to $OUT/CSV (default io.csv); TICKS (phase rbdio): a
# command given fio's pid that prints counters (clock ticks, space-separated),
# read at both ends of the window: their differences are extra columns.
io_row() {
	local t=$1 f=$2 spec=$3 csv=${4:-io.csv} ticks=${5:-} name rw bs qd js c0 c1 t0 t1 pid win
	local k0='' k1='' extra='' eng=(--filename="$2" --direct=1 --ioengine=libaio)
	IFS=: read -r name rw bs qd <<<"$spec"
	js=$OUT/io/$t-$name.json
	case "$f" in
	rbd:*/*)
		f=${f#rbd:}
		eng=(--ioengine=rbd --clientname=admin --pool="${f%%/*}" --rbdname="${f#*/}" --thread)
		;;
	esac
	sync
	fio --name="$name" "${eng[@]}" --rw="$rw" --rwmixread=70 \
		--bs="$bs" --iodepth="$qd" --size="$IO_SIZE" --time_based --runtime="$IO_SECS" \
		--ramp_time="$IO_RAMP" --lat_percentiles=1 --percentile_list=50:99:99.9 \
		--randrepeat=0 --output-format=json --output="$js" >/dev/null 2>"$js.err" &
	pid=$!
	sleep "$IO_RAMP.3"
	c0=$(cpu_snap)
	[ -z "$ticks" ] || k0=$("$ticks" "$pid")
	t0=$EPOCHREALTIME
	win=$(awk -v s="$IO_SECS" 'BEGIN { w = s - 0.6; printf "%.1f", (w < 0.5 ? 0.5 : w) }')
	sleep "$win"
	c1=$(cpu_snap)
	[ -z "$ticks" ] || k1=$("$ticks" "$pid")
	t1=$EPOCHREALTIME
	[ -z "$ticks" ] || extra=$(awk -v a="$k0" -v b="$k1" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) printf ",%d", y[i] - x[i] }')
	wait "$pid" || log "fio $t $name failed: $(tail -2 "$js.err")"
	echo "$t,$name,$rw,$bs,$qd,$IO_SECS,$("$IO_PY" "$HERE/fio_csv.py" "$js"),$(awk -v a="$c0" -v b="$c1" \
		-v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 'BEGIN {
			split(a, x, " "); split(b, y, " ")
			busy = (y[1] - x[1]) + (y[2] - x[2]); all = busy + (y[3] - x[3]) + (y[4] - x[4])
			printf "%.1f,%.3f", (all > 0 ? 100 * busy / all : 0), w }'),$(getconf CLK_TCK),$(awk -v a="$c0" -v b="$c1" \
		'BEGIN { split(a, x, " "); split(b, y, " "); print (y[1] - x[1]) + (y[2] - x[2]) }')$extra" \
		>>"$OUT/$csv"
	tail -1 "$OUT/$csv" >&2
}

# io_setup TARGET: its backing file and LU (none for limit), exported;
# IO_DEV[TARGET]: the disk fio runs on, IO_LOOP[TARGET]: iblock's loop device
declare -gA IO_DEV=() IO_LOOP=()
io_setup() {
	local t=$1 file=$W/io/$1.img so='' dev='' loopdev='' extra=''
	log "io: $t"
	case "$t" in
	null | null-tuned | null-kdef) ;;
	*)
		truncate -s "$IO_SIZE" "$file"
		"$XCB" fill "$file" 0 "$IO_SIZE" 7 >/dev/null
		sync
		;;
	esac
	case "$t" in *-tuned) extra=$IO_TUNED ;; *-kdef) extra=$IO_KDEF ;; esac
	case "$t" in
	xcopy | xcopy-tuned | xcopy-kdef) so=$(lab_user_create "io${t//-/}" xcopy "$file" "$IO_SIZE" "" "$extra") ;;
	xcopy-buffered) so=$(lab_user_create "io${t//-/}" xcopy "$file?dio=never" "$IO_SIZE" "" "$extra") ;;
	xcopy-dio) so=$(lab_user_create "io${t//-/}" xcopy "$file?dio=always" "$IO_SIZE" "" "$extra") ;;
	null | null-tuned | null-kdef) so=$(lab_user_create "io${t//-/}" xcopy "null/$IO_SIZE" "$IO_SIZE" "" "$extra") ;;
	fileio) so=$(io_fileio "io${t//-/}" "$file" 1) ;;
	fileio-wt) so=$(io_fileio "io${t//-/}" "$file" 0) ;;
	iblock)
		loopdev=$(losetup -f --show "$file")
		so=$(io_iblock "io${t//-/}" "$loopdev")
		;;
	limit) dev=$file ;;
	*) log "io: unknown target $t"; return 1 ;;
	esac
	if [ -n "$so" ]; then
		read -r dev _ <<<"$(lab_loop_export "$so")"
		# the new LUN's UNIT ATTENTION, before fio's first I/O
		sg_turs "$dev" >/dev/null 2>&1 || true
		sg_turs "$dev" >/dev/null 2>&1 || true
	fi
	io_facts "$t" "$so" "$dev"
	IO_DEV[$t]=$dev
	IO_LOOP[$t]=$loopdev
}

# io_gone: every target's LU, loop device and backing file gone
io_gone() {
	local t
	lab_teardown >/dev/null
	for t in "${!IO_LOOP[@]}"; do [ -z "${IO_LOOP[$t]}" ] || losetup -d "${IO_LOOP[$t]}"; done
	rm -f "$W"/io/*.img
	IO_DEV=() IO_LOOP=()
	fresh
}

# io_target TARGET: its LU, every row, then gone
io_target() {
	local spec
	io_setup "$1" || return 0
	for spec in $IO_ROWS; do io_row "$1" "${IO_DEV[$1]}" "$spec"; done
	io_gone
}

# io_rounds N: every target set up at once, then N rounds in which the
# targets take turns row by row (a row's figures measured close together in
# time on every target; render_io.py takes each row's median round)
io_rounds() {
	local n=$1 i spec t
	for t in $IO_TARGETS; do io_setup "$t" || true; done
	for ((i = 1; i <= n; i++)); do
		log "io: round $i of $n"
		for spec in $IO_ROWS; do
			for t in $IO_TARGETS; do
				[ -z "${IO_DEV[$t]:-}" ] || io_row "$t" "${IO_DEV[$t]}" "$spec"
			done
		done
	done
	io_gone
}

iophase() {
	local t
	mkdir -p "$OUT/io"
	echo "$IO_HEADER" >"$OUT/io.csv"
	: >"$OUT/io-lus.txt"
	{
		echo "io_size $IO_SIZE"
		echo "io_secs $IO_SECS"
		echo "io_ramp $IO_RAMP"
		echo "io_rounds $IO_ROUNDS"
		echo "fio $(fio --version)"
		echo "tcmu_global_max_data_area_mb $(cat /sys/module/target_core_user/parameters/global_max_data_area_mb 2>/dev/null)"
	} >>"$OUT/guest.txt"
	if [ "${BENCH_IO_DISK:-0}" = 1 ]; then
		# the raw virtio-blk disk of tests/lab/run --disk: QEMU's threads
		# move the medium's bytes, not the guest's vCPUs as a loop device
		# over guest RAM does
		local disk
		disk=$(lab_disk) || return 1
		mkstore io 0 "$disk"
		echo "io_store on a virtio-blk disk ($disk)" >>"$OUT/guest.txt"
	else
		mkstore io 0   # mounted at $W/io
	fi
	if [ "$IO_ROUNDS" -gt 1 ]; then
		io_rounds "$IO_ROUNDS"
	else
		for t in $IO_TARGETS; do io_target "$t"; done
	fi
	rmstore io
}
