# shellcheck shell=bash
# tests/bench/guest_rbd.sh: the rbd phase of tests/bench/guest.sh
# (sourced by it, uses its helpers). A Ceph cluster in the guest
# (tests/lab/ceph.sh: 1 monitor, BENCH_RBD_OSDS memstore OSDs, default "1 3":
# the rows once per count, pool rbd, 4 MiB objects).
# rbd.csv: one object-aligned copy of RBD_SIZE (BENCH_RBD_SIZE, default 1G)
# of random data, each through tcm_loop's devices (SG_IO, one transport):
#   plugin  libxcopy's EXTENDED COPY (xcbench copy) from a user:xcopy LU on
#           image rbd/a to one on rbd/b: the plugin copies inside the cluster
#           (RADOS copy-from); its counters say what went by copy-from and
#           what through the gateway
#   core    the same command to a user:rbd LU (Debian's handler_rbd) on rbd/h,
#           within the image (0 -> RBD_SIZE): tcmu-runner's core XCOPY reads
#           and writes every byte through the gateway, and refuses copies
#           between LUs
#   host    dd O_DIRECT, 4 MiB blocks, between the user:xcopy LUs' /dev/sdX
#           (the initiator reads and writes every byte)
# Verified: `rbd export` of the destination range has the source's md5.
# CPU seconds (user + system) of the gateway (tcmu-runner) and of the OSDs
# (all of them) during each copy: where the work went, beside where the
# bytes went.
# The phase needs the guest RAM for the OSD: ~2 x RBD_SIZE in memstore (the
# core row's image is deleted before the others are made) + RBD_SIZE of
# source file in /tmp while importing.

rbd_md5() {   # IMAGE OFF LEN: md5 of LEN bytes at OFF of the image, as librbd reads them
	rbd export --no-progress "$1" - 2>/dev/null |
		tail -c +$(($2 + 1)) | head -c "$3" | md5sum | cut -d' ' -f1
}

# cpu_ticks PID: user + system clock ticks of a process so far (0: gone)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# osd_ticks: cpu_ticks summed over every OSD of the cluster
osd_ticks() {
	local p t=0
	for p in "$CEPH_DIR"/run/osd.*.pid; do
		[ -e "$p" ] && t=$((t + $(cpu_ticks "$(cat "$p")")))
	done
	echo "$t"
}

# rbdrow PATH SIZE SRC_SG DST_SG DOFF LU...: one copy, timed; stats of the LUs summed
rbdrow() {
	local path=$1 S=$2 sgs=$3 sgd=$4 doff=$5 img=$6 st t0 t1 k lu
	local -A p0 p1
	shift 6
	log "rbd: $path $S"
	for k in copyfrom_bytes gateway_bytes commands; do
		p0[$k]=0
		for lu in "$@"; do p0[$k]=$((p0[$k] + $(pstat "$lu" "$k"))); done
	done
	st=$W/rbd-$path.out
	local gw g0 o0 hz
	gw=$(pidof tcmu-runner | cut -d' ' -f1)
	hz=$(getconf CLK_TCK)
	g0=$(cpu_ticks "$gw"); o0=$(osd_ticks)
	if [ "$path" = host ]; then
		t0=$EPOCHREALTIME
		dd if="$sgs" of="$sgd" bs=4M count=$((S >> 22)) iflag=direct oflag=direct \
			status=none 2>"$st" || log "dd failed: $(cat "$st")"
		t1=$EPOCHREALTIME
	else
		"$XCB" copy "$sgs" 0 "$sgd" $((doff / 512)) $((S / 512)) >"$st" 2>&1 ||
			log "copy failed: $(tail -3 "$st")"
		t0=$(cval "$st" copy_t0)
		t1=$(cval "$st" copy_t1)
	fi
	g0=$(awk -v a="$g0" -v b="$(cpu_ticks "$gw")" -v h="$hz" 'BEGIN { printf "%.2f", (b - a) / h }')
	o0=$(awk -v a="$o0" -v b="$(osd_ticks)" -v h="$hz" 'BEGIN { printf "%.2f", (b - a) / h }')
	for k in copyfrom_bytes gateway_bytes commands; do
		p1[$k]=0
		for lu in "$@"; do p1[$k]=$((p1[$k] + $(pstat "$lu" "$k"))); done
	done
	# offloaded_B / fallback_B: what libxcopy sent as EXTENDED COPY / copied itself
	echo "$RBD_OSDS,$path,$S,$(secs "$t0" "$t1"),$((p1[copyfrom_bytes] - p0[copyfrom_bytes])),$((p1[gateway_bytes] - p0[gateway_bytes])),$(cval "$st" xcopy_cmds),$(cval "$st" offloaded_B),$(cval "$st" fallback_B),$([ "$(rbd_md5 "$img" "$doff" "$S")" = "$RBD_MD5" ] && echo yes || echo NO),$g0,$o0" \
		>>"$OUT/rbd.csv"
	tail -1 "$OUT/rbd.csv" >&2
}

rbdphase() {
	local n
	say "RBD: user:xcopy vs handler_rbd, ${BENCH_RBD_SIZE:-1G} per copy, OSDs: ${BENCH_RBD_OSDS:-1 3}"
	echo "osds,path,size,secs,copyfrom_B,gateway_B,xcopy_cmds,offloaded_B,fallback_B,verified,gw_cpu_s,osd_cpu_s" >"$OUT/rbd.csv"
	# shellcheck source=tests/lab/ceph.sh
	. "$HERE/../lab/ceph.sh"
	for n in ${BENCH_RBD_OSDS:-1 3}; do
		rbd_cluster_rows "$n"
	done
}

# rbd_cluster_rows N: the three rows on a fresh cluster of N OSDs
rbd_cluster_rows() {
	local S src so sa sb g
	S=$(lab_size_bytes "${BENCH_RBD_SIZE:-1G}")
	RBD_OSDS=$1
	# memstore per OSD: its share of 2 x S (source and destination) and room
	export CEPH_DIR=$W/ceph CEPH_POOL=rbd CEPH_OSDS=$1 CEPH_MEM=$((2 * S / $1 + (512 << 20)))
	if ! ceph_start "$CEPH_DIR" 2>"$W/ceph-start.log"; then
		log "rbd: Ceph ($1 OSDs) did not start: $(tail -3 "$W/ceph-start.log")"
		return 0
	fi
	sed -n 's/^ceph: /rbd: ceph: /p' "$W/ceph-start.log" | while read -r l; do log "$l"; done
	src=$W/rbd-src.bin
	head -c "$S" /dev/urandom >"$src"
	RBD_MD5=$(md5sum <"$src" | cut -d' ' -f1)
	# handler_rbd: the source in the first half of one image, copied to the second
	rbd import --no-progress "$src" rbd/h >/dev/null
	rbd resize --no-progress --size "$((2 * S >> 20))M" rbd/h >/dev/null 2>&1
	if so=$(lab_user_create hrbd rbd "rbd/h;conf=$CEPH_CONF" $((2 * S))); then
		read -r _ g <<<"$(lab_loop_export "$so")"
		sg_turs "$g" >/dev/null 2>&1 || true
		rbdrow core "$S" "$g" "$g" "$S" rbd/h hrbd
	else
		log "rbd: handler_rbd LU did not open"
	fi
	lab_teardown >/dev/null
	rbd rm --no-progress rbd/h >/dev/null 2>&1
	# user:xcopy: rbd/a -> rbd/b, then dd between the same two LUs
	rbd import --no-progress "$src" rbd/a >/dev/null
	rm -f "$src"
	rbd create --size "$((S >> 20))M" rbd/b
	sa=$(lab_user_create ra xcopy "rbd/rbd/a@$CEPH_CONF" "$S")
	sb=$(lab_user_create rb xcopy "rbd/rbd/b@$CEPH_CONF" "$S")
	{ read -r SD_A SG_A; read -r SD_B SG_B; } <<<"$(lab_loop_export "$sa" "$sb")"
	for g in "$SG_A" "$SG_B" "$SG_A" "$SG_B"; do sg_turs "$g" >/dev/null 2>&1 || true; done
	rbdrow plugin "$S" "$SG_A" "$SG_B" 0 rbd/b ra rb
	blkdiscard "$SD_B" 2>/dev/null || log "rbd: blkdiscard $SD_B failed"
	rbdrow host "$S" "$SD_A" "$SD_B" 0 rbd/b ra rb
	lab_teardown >/dev/null
	ceph_stop "$CEPH_DIR"
}
