#!/bin/bash
# RBD failure bounds: a copy between two RBD images while a Ceph
# daemon fails under it must end in time, and never write outside its
# destination range. The single-node cluster of tests/lab/ceph.sh (1 mon,
# 1 memstore OSD). Each copy: 16 MiB of a random source image into the
# middle (8 MiB..24 MiB) of a fresh 32 MiB random destination image, with the
# bounds of an LU whose cmd_time_out is 10 s (librados operation timeout 1 s,
# deadline 8 s):
#  through the plugin: sg_xcopy between two user:xcopy LUs on the images
#  (cmd_time_out 10 s in configfs), a daemon failed 0.3 s after sg_xcopy
#  started: the OSD hangs (SIGSTOP, then SIGCONT); the monitor is killed
#  (then restarted): sg_xcopy gets COPY ABORTED (exit 10) or GOOD in < 10 s,
#  never the kernel's timeout;
#  the RBD store alone (build/tests/xt-rbd with those bounds), a daemon
#  failed 0.1 s into the copy:
#  1. the OSD hangs (SIGSTOP; RADOS copy-from path), then resumes (SIGCONT),
#  2. the same through the gateway path (copyfrom=never: librbd read/write),
#  3. the monitor killed: 1-3 with LAB_RBD_FULL=1 only (make test's time);
#  4. the OSD is killed (SIGKILL), last: a memstore OSD loses its objects
#     with its process, so this case checks the time bound only; the
#     "outside unchanged" proof is the other cases, where the data survives.
# Then an ordinary READ on an LU that has just copied, through a 4 s OSD
# stall: GOOD (a copy's short operation timeouts are its own; ordinary I/O
# has cmd_time_out).
# Each: the copy ends (fails, or completes) in < 10 s; after the daemon is
# back, `rbd export` of the destination equals the old image outside the
# range (and the whole model when the copy completed).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/ceph.sh
. "$HERE/../ceph.sh"
lab_require_guest

W=/tmp/lab-620
XT=$LAB_BUILD/tests/xt-rbd
T0=$(date +%s.%N)
mkdir -p "$W"
export CEPH_DIR=$W/ceph CEPH_POOL=rbd CEPH_MEM=1G
M=$((1 << 20))
TMO=10             # the LU's cmd_time_out the copies are bounded for
DEADLINE_MS=8000   # the engine's deadline for it (cmd_time_out - 2 s reserve)
stamp() { awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $T0}"; }

cleanup() {
	local p
	lab_teardown >/dev/null 2>&1 || true   # the runner closes its images first
	for p in "$CEPH_DIR"/run/*.pid; do   # a stopped daemon would not hear SIGTERM
		if [ -e "$p" ]; then kill -CONT "$(cat "$p")" 2>/dev/null || true; fi
	done
	# the OSD was killed (a memstore OSD loses every object with its process):
	# the boot's shared cluster ends with this test, the next one starts anew
	ceph_stop "$CEPH_DIR"
	rm -rf "$W"
}
trap cleanup EXIT

ceph_lab_start "$W/ceph-start.log"
sed -n 's/^ceph: /    ceph: /p' "$W/ceph-start.log"
C="@$CEPH_CONF"
pid_of() { cat "$CEPH_DIR/run/$1.pid"; }

lab_random "$W/src.bin" 16M
lab_random "$W/old.bin" 32M
rbd import --no-progress "$W/src.bin" rbd/src >/dev/null
cp "$W/old.bin" "$W/model.bin"   # the destination after a complete copy
dd if="$W/src.bin" of="$W/model.bin" bs=1M seek=8 conv=notrunc status=none
rm -f "$W/src.bin"
echo "    images ready at $(stamp) s"

# ready: a RADOS write and an rbd command answer (the daemons are back)
ready() {
	local i
	for ((i = 0; i < 60; i++)); do
		printf ready | timeout 5 rados -p rbd put .ready - 2>/dev/null &&
			timeout 10 rbd info rbd/src >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}
# outside_same IMAGE: rbd export equals old.bin outside 8M..24M; prints "complete" when
# the range equals the model too
outside_same() {
	rbd export --no-progress "$1" "$W/out.bin" >/dev/null 2>&1 || return 1
	if ! cmp -n $((8 * M)) "$W/out.bin" "$W/old.bin" ||
		! cmp -i $((24 * M)) "$W/out.bin" "$W/old.bin"; then
		rm -f "$W/out.bin"
		return 1
	fi
	cmp -s "$W/out.bin" "$W/model.bin" && echo complete
	rm -f "$W/out.bin"
	return 0
}

# fail_copy N DESC CFGOPT SIGNAL DAEMON REVIVE: the copy to a fresh rbd/dN in the
# background, DAEMON signalled 0.1 s after the copy started, REVIVE (a command) run once
# the copy has returned; RC = xt-rbd's exit, SECS = the copy's own time (from its bounds
# being set to its return: the span a command of the LU has)
fail_copy() {
	local n=$1 opt=$3 sig=$4 daemon=$5 revive=$6 pid i
	# a fresh image: a client that died holding an image's exclusive lock
	# keeps it until its watch expires, and the next copy would fall back
	rbd import --no-progress "$W/old.bin" "rbd/d$n" >/dev/null
	: >"$W/xt$n.err"
	: >"$W/xt$n.out"
	XT_RBD_CMD_TIME_OUT=$TMO XT_RBD_DEADLINE_MS=$DEADLINE_MS \
		"$XT" copy "xcopy/rbd/rbd/src$C$opt" 0 "xcopy/rbd/rbd/d$n$C$opt" $((8 * M)) 16M \
		>"$W/xt$n.out" 2>"$W/xt$n.err" &
	pid=$!
	# the copy starts once xt-rbd has opened both images and set its bounds
	for ((i = 0; i < 300; i++)); do
		grep -q 'operation timeout' "$W/xt$n.err" && break
		sleep 0.1
	done
	sleep 0.1
	kill -"$sig" "$(pid_of "$daemon")"
	# the counters line: the copy returned (closing the images may take longer)
	for ((i = 0; i < 300; i++)); do
		grep -q 'secs=' "$W/xt$n.out" && break
		sleep 0.1
	done
	$revive
	for ((i = 0; i < 300; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && { echo "    xt-rbd did not exit: killed"; kill -9 "$pid"; }
	RC=0
	wait "$pid" || RC=$?
	SECS=$(sed -n 's/.*secs=\([0-9.]*\).*/\1/p' "$W/xt$n.out")
	SECS=${SECS:-999}
	echo "    case $n ($2), at $(stamp) s: xt-rbd exit $RC, copy returned after ${SECS} s: $(tr '\n' ' ' <"$W/xt$n.err")"
	echo "      $(cat "$W/xt$n.out")"
}
in_time() { awk -v s="$SECS" -v t="$TMO" 'BEGIN { exit !(s < t) }'; }
osd_cont() { kill -CONT "$(pid_of osd.0)"; }
mon_start() { ceph-mon -i a -c "$CEPH_CONF"; }

# --- through the plugin: sg_xcopy from a user:xcopy LU on rbd/src to one on a
# --- fresh rbd/pN (cmd_time_out 10 s, set before export), a daemon failed 0.3 s
# --- after sg_xcopy started (its inquiries, then the EXTENDED COPY)
lab_teardown >/dev/null 2>&1 || true
log=$LAB_RUN_DIR/tcmu/tcmu-runner.log
[ -f "$log" ] || log=/var/log/tcmu-runner.log
# plugin_copy N DESC SIGNAL DAEMON REVIVE: RC = sg_xcopy's exit, SECS = its whole run
plugin_copy() {
	local n=$1 sig=$3 daemon=$4 revive=$5 s d sgs sgd pid t0 t1
	lab_teardown >/dev/null 2>&1 || true   # one LU per image: another would be a watcher
	rbd import --no-progress "$W/old.bin" "rbd/p$n" >/dev/null
	s=$(lab_user_create "s620$n" xcopy "rbd/rbd/src$C" 16M)
	d=$(lab_user_create "p620$n" xcopy "rbd/rbd/p$n$C" 32M)
	echo $TMO >"$d/attrib/cmd_time_out"
	{ read -r _ sgs; read -r _ sgd; } <<<"$(lab_loop_export "$s" "$d")"
	sg_turs "$sgs" >/dev/null 2>&1 || true
	sg_turs "$sgd" >/dev/null 2>&1 || true
	t0=$(date +%s.%N)
	sg_xcopy bs=512 bpt=32768 if="$sgs" of="$sgd" seek=$((8 * M / 512)) count=$((16 * M / 512)) \
		>"$W/px$n.log" 2>&1 &
	pid=$!
	sleep 0.3
	kill -"$sig" "$(pid_of "$daemon")"
	RC=0
	wait "$pid" || RC=$?
	t1=$(date +%s.%N)
	SECS=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
	$revive
	echo "    plugin case $n ($2), at $(stamp) s: sg_xcopy exit $RC after $SECS s; runner: $(grep "p620$n" "$log" | grep -i 'rbd copy\|deadline' | tail -1 | cut -c1-220)"
	grep -i 'copy aborted\|sense' "$W/px$n.log" | head -3 | sed 's/^/      /' || true
}
aborted_or_done() {   # RC LOG: COPY ABORTED (sg3_utils exit 10) or GOOD
	[ "$1" = 0 ] || { [ "$1" = 10 ] && grep -qi 'copy aborted' "$2"; }
}

plugin_copy 1 "OSD stopped" STOP osd.0 osd_cont
lab_check "plugin, OSD stopped mid-copy: sg_xcopy returned in $SECS s < cmd_time_out $TMO s" in_time
lab_check "  ... with COPY ABORTED (exit $RC = 10) or GOOD, not the kernel's timeout" \
	aborted_or_done "$RC" "$W/px1.log"
lab_check "OSD resumed: the cluster answers again" ready
lab_check "  ... rbd/p1 outside the destination range unchanged (rbd export + cmp)" outside_same rbd/p1

plugin_copy 2 "monitor killed" KILL mon.a mon_start
lab_check "plugin, monitor killed mid-copy: sg_xcopy returned in $SECS s < $TMO s" in_time
lab_check "  ... with COPY ABORTED (exit $RC = 10) or GOOD" aborted_or_done "$RC" "$W/px2.log"
lab_check "monitor restarted: the cluster answers again" ready
out=$(outside_same rbd/p2) && ok=0 || ok=1
lab_check "  ... rbd/p2 outside the destination range unchanged${out:+, the range copied whole}" \
	test "$ok" = 0
if [ "$RC" = 0 ]; then
	lab_check "  ... GOOD: the range equals the source" test "$out" = complete
fi

# --- an ordinary READ through an OSD stall longer than a copy's operation
# --- timeout (1 s at cmd_time_out 10 s) but shorter than cmd_time_out, on an
# --- LU that has just copied: GOOD, the data read equal to what was copied
read_stall() {
	local s d sgs sdd sgd pid t0
	lab_teardown >/dev/null 2>&1 || true
	rbd import --no-progress "$W/old.bin" rbd/r0 >/dev/null
	s=$(lab_user_create s620r xcopy "rbd/rbd/src$C" 16M)
	d=$(lab_user_create r620 xcopy "rbd/rbd/r0$C" 32M)
	echo $TMO >"$d/attrib/cmd_time_out"
	{ read -r _ sgs; read -r sdd sgd; } <<<"$(lab_loop_export "$s" "$d")"
	sg_turs "$sgs" >/dev/null 2>&1 || true
	sg_turs "$sgd" >/dev/null 2>&1 || true
	# the copy only sets the LU up (its short operation timeouts are what the READ
	# must not inherit). Just after the monitor came back, the runner's client may
	# still be hunting for it and a 1 s operation time out: COPY ABORTED is then
	# right, so up to 3 tries, each failure with the runner's reason
	local try
	for ((try = 1; try <= 3; try++)); do
		RC=0
		sg_xcopy bs=512 bpt=32768 if="$sgs" of="$sgd" seek=$((8 * M / 512)) count=$((16 * M / 512)) \
			>"$W/rx.log" 2>&1 || RC=$?
		[ "$RC" = 0 ] && break
		echo "    setup copy try $try: sg_xcopy exit $RC; runner: $(grep r620 "$log" | grep -i 'rbd copy\|deadline\|timed out' | tail -1 | cut -c1-220)"
		sleep 2
	done
	lab_check "sg_xcopy 16 MiB rbd/src -> rbd/r0 (cmd_time_out $TMO s): GOOD (exit $RC, try $((try > 3 ? 3 : try)))" test "$RC" = 0
	kill -STOP "$(pid_of osd.0)"
	t0=$(date +%s.%N)
	dd if="$sdd" of="$W/rd.bin" bs=1M skip=8 count=16 iflag=direct status=none 2>"$W/rd.err" &
	pid=$!
	sleep 4
	osd_cont
	RC=0
	wait "$pid" || RC=$?
	SECS=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
	echo "    READ through a 4 s OSD stall: dd exit $RC after $SECS s $(head -c 200 "$W/rd.err")"
	lab_check "READ of 16 MiB during a 4 s OSD stall: GOOD in $SECS s < $TMO s (not a 1 s operation timeout)" \
		sh -c "[ $RC -eq 0 ] && awk -v s=$SECS -v t=$TMO 'BEGIN { exit !(s < t) }'"
	lab_check "  ... the data read equals the copied source" \
		cmp "$W/rd.bin" <(tail -c +$((8 * M + 1)) "$W/model.bin" | head -c $((16 * M)))
	rm -f "$W/rd.bin"
}
read_stall

# the runner closes its images (releasing their locks) while the OSD is alive:
# a client gone with a lock or a watch would make the next copies fall back
lab_teardown >/dev/null 2>&1 || true

# --- 1. OSD hangs under a copy-from copy (LAB_RBD_FULL=1: the plugin case covers it)
if [ "${LAB_RBD_FULL:-0}" = 1 ]; then
	fail_copy 1 "OSD stopped, copy-from" "" STOP osd.0 osd_cont
	lab_check "OSD stopped mid-copy (copy-from): the copy ended in ${SECS} s < cmd_time_out $TMO s" in_time
	lab_check "  ... with an error (exit $RC = 1), the reason a timeout" \
		sh -c "[ $RC -eq 1 ] && grep -qi 'timed out' '$W/xt1.err'"
	lab_check "OSD resumed: the cluster answers again" ready
	lab_check "  ... rbd/d1 outside the destination range unchanged (rbd export + cmp)" outside_same rbd/d1
fi

# --- 2. OSD hangs under a gateway copy (librbd read + write) ---------------
if [ "${LAB_RBD_FULL:-0}" = 1 ]; then
	fail_copy 2 "OSD stopped, gateway" "?copyfrom=never" STOP osd.0 osd_cont
	lab_check "OSD stopped mid-copy (gateway read/write): the copy ended in ${SECS} s < $TMO s" in_time
	lab_check "  ... with an error (exit $RC = 1), the reason a timeout" \
		sh -c "[ $RC -eq 1 ] && grep -qi 'timed out' '$W/xt2.err'"
	lab_check "OSD resumed: the cluster answers again" ready
	lab_check "  ... rbd/d2 outside the destination range unchanged (rbd export + cmp)" outside_same rbd/d2
fi

# --- 3. the monitor dies: data I/O does not need it (the copy completes, or
# --- fails on an operation timeout of its own under load: both in time)
if [ "${LAB_RBD_FULL:-0}" = 1 ]; then
	fail_copy 3 "monitor killed" "" KILL mon.a mon_start
	lab_check "monitor killed mid-copy: the copy ended (exit $RC) in ${SECS} s < $TMO s" in_time
	lab_check "monitor restarted: the cluster answers again" ready
	out=$(outside_same rbd/d3) && ok=0 || ok=1
	lab_check "  ... rbd/d3 outside the destination range unchanged${out:+, the range copied whole}" \
		test "$ok" = 0
	if [ "$RC" = 0 ]; then
		lab_check "  ... the copy said it completed: the range equals the source" test "$out" = complete
	fi
fi

# --- 4. the OSD dies (memstore: its objects die with it) ----------------------
fail_copy 4 "OSD killed" "" KILL osd.0 true
lab_check "OSD killed mid-copy: the copy ended in ${SECS} s < $TMO s" in_time
lab_check "  ... with an error (exit $RC = 1)" test "$RC" = 1
rm -f "$W/old.bin" "$W/model.bin"
echo "    620 done at $(stamp) s"
lab_summary
