#!/bin/bash
# Teardown while EXTENDED COPY jobs run on tcmu-runner's workers (target/cm/async.c):
#  1. the LU is unexported and its storage object removed while a slowed copy
#     runs (~8 s): the removal returns within cmd_time_out (30 s),
#     the copy's initiator gets a status, tcmu-runner stays up, the LU's
#     backing file does not change after the removal (checksum then and 5 s
#     later), and another LU of the same runner still copies;
#  2. tcmu-runner gets SIGTERM while a copy runs: it exits by itself within
#     cmd_time_out + 10 s, without a crash (no core, exit status < 128), and
#     the backing file does not change after it exited. It is started again
#     for the tests that follow.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-480
MB=1048576
mkdir -p "$W"
blk() { echo $(($1 * MB / 512)); }
sum() { md5sum <"$1" | cut -d' ' -f1; }
runner_pid() { pgrep -x tcmu-runner | head -1; }

# --- 1. remove an LU under a running copy ------------------------------------
lab_random "$W/r.img" $((32 * MB))
lab_random "$W/o.img" $((32 * MB))
cp "$W/o.img" "$W/o.orig"
r=$(lab_user_create tr xcopy "$W/r.img" 32M)
o=$(lab_user_create to xcopy "$W/o.img" 32M)
tpg=$(lab_loop_create)
read -r _ sgr <<<"$(lab_loop_add_lun "$tpg" "$r" 0)"
read -r _ sgo <<<"$(lab_loop_add_lun "$tpg" "$o" 1)"
echo delay:1000 >"$XT_STATS_DIR/tr.fault"
sg_xcopy if="$sgr" of="$sgr" skip=0 seek="$(blk 16)" count="$(blk 4)" bpt="$(blk 4)" \
	>"$W/rm-copy.out" 2>&1 &
cpid=$!
for ((t = 0; t < 50; t++)); do
	[ ! -e "$XT_STATS_DIR/tr.fault" ] && break
	sleep 0.1
done
sleep 1
t0=$EPOCHREALTIME
rmrc=0
# unexport (the kernel waits for the outstanding command), then remove the
# storage object (the runner closes the LU); the SO may stay busy a moment
for l in "$tpg"/lun/lun_0/*; do
	[ -L "$l" ] && { rm -f "$l" 2>>"$W/rm.err" || rmrc=$?; }
done
rmdir "$tpg/lun/lun_0" 2>>"$W/rm.err" || rmrc=$?
for ((t = 0; t < 300; t++)); do
	rmdir "$r" 2>>"$W/rm.err" && break
	sleep 0.1
done
[ -e "$r" ] && rmrc=1
t1=$EPOCHREALTIME
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
sum_then=$(sum "$W/r.img")
crc=0
timeout 30 bash -c "wait $cpid" 2>/dev/null || true
wait "$cpid" 2>/dev/null || crc=$?
lab_msg "LU removed in $secs s (rc $rmrc) under a copy; sg_xcopy: $(tail -1 "$W/rm-copy.out")"
[ -s "$W/rm.err" ] && sed 's/^/    rm: /' "$W/rm.err" | sort | uniq -c | head -3
lab_check "removing the LU under a copy returns (rc $rmrc) within cmd_time_out ($secs s)" \
	awk -v r="$rmrc" -v s="$secs" 'BEGIN { exit !(r == 0 && s < 30) }'
lab_check "the storage object is gone" test ! -e "$r"
lab_check "tcmu-runner still runs" pgrep -x tcmu-runner
sleep 5
lab_check "the removed LU's backing file did not change after the removal" \
	test "$sum_then" = "$(sum "$W/r.img")"
lab_check "the other LU still copies (4 MiB inside it)" \
	sg_xcopy if="$sgo" of="$sgo" skip=0 seek="$(blk 8)" count="$(blk 4)" bpt="$(blk 4)"
lab_check "... and its data is right" bash -c \
	"cmp -s <(tail -c +$((8 * MB + 1)) '$W/o.img' | head -c $((4 * MB))) <(head -c $((4 * MB)) '$W/o.orig')"

# --- 2. SIGTERM to tcmu-runner under a running copy -------------------------
echo delay:1000 >"$XT_STATS_DIR/to.fault"
sg_xcopy if="$sgo" of="$sgo" skip=0 seek="$(blk 20)" count="$(blk 4)" bpt="$(blk 4)" \
	>"$W/term-copy.out" 2>&1 &
cpid=$!
for ((t = 0; t < 50; t++)); do
	[ ! -e "$XT_STATS_DIR/to.fault" ] && break
	sleep 0.1
done
sleep 0.5
pid=$(runner_pid)
t0=$EPOCHREALTIME
kill -TERM "$pid"
gone=0
for ((t = 0; t < 400; t++)); do
	kill -0 "$pid" 2>/dev/null || { gone=1; break; }
	sleep 0.1
done
t1=$EPOCHREALTIME
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
sum_then=$(sum "$W/o.img")
lab_msg "tcmu-runner $pid after SIGTERM: exited $gone after $secs s"
lab_check "tcmu-runner exits by itself after SIGTERM under a copy (within 40 s: $secs s)" \
	test "$gone" -eq 1
lab_check "... without a crash (no segfault in the kernel log, no abort in the runner's output)" bash -c \
	"! dmesg | grep -qE 'tcmu-runner.*(segfault|general protection)|traps: tcmu' &&
	 ! grep -qiE 'segmentation fault|double free|corrupted|Aborted' '$LAB_RUN_DIR/tcmu/stdout.log'"
sleep 5
lab_check "the LU's backing file did not change after the runner exited" \
	test "$sum_then" = "$(sum "$W/o.img")"
# back to a running daemon for the tests that follow
handlers=$(cat "$LAB_RUN_DIR/handler-path")
tcmu-runner --handler-path "$handlers" -l "$LAB_RUN_DIR/tcmu" >>"$LAB_RUN_DIR/tcmu/stdout.log" 2>&1 &
echo "$!" >"$LAB_RUN_DIR/tcmu/restarted.pid"
lab_check "tcmu-runner started again" lab_wait_for pgrep -x tcmu-runner
LAB_WAIT=30 lab_check "the LU comes back (INQUIRY answers on $sgo)" lab_wait_for sg_inq "$sgo"
kill "$cpid" 2>/dev/null || true
wait "$cpid" 2>/dev/null || true
lab_summary
