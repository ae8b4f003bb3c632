#!/bin/bash
# EXTENDED COPY off the LU's command thread (target/cm/async.c):
#  1. a 16 MiB copy inside LU B, slowed by the delay fault, while xcbench probe reads
#     4 KiB O_DIRECT from B every 20 ms: >= 100 samples inside the copy, p99
#     below 30 ms on an idle host (2x the idle p99 before/after + 30 ms on a
#     loaded one, never 200 ms: a read behind the copy waits >= 250 ms), p50
#     below 100 ms; before, every read waited for the whole copy; data compared.
#  2. a held list (id 5) running: a second EXTENDED COPY with list id 5 gets
#     ILLEGAL REQUEST 00/16 OPERATION IN PROGRESS, COPY STATUS of id 5 says
#     "in progress" with a byte count, and after the copy GOOD + every byte.
#  3. 8 EXTENDED COPY commands from two iSCSI sessions (initiator names) at once
#     against one LU pair: all exit 0, several in flight at once in the plugin
#     (stats inflight_max), every range compared.
#  4. cmd_time_out = 5 s on an LU, one EXTENDED COPY slowed far past it: the
#     initiator has COPY ABORTED 2E/02 before 5 s, COPY STATUS counts exactly
#     the bytes written (whole 4 MiB chunks; CSI the first segment not
#     copied), and the destination is the same at status time and 10 s later.
# Figures (idle and in-copy p50/p99, copy times) are printed.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-460
XCP=$LAB_BUILD/host/xcp
XCB=$LAB_BUILD/bench/xcbench
MB=1048576
S1=iqn.1994-05.org.example:async460-s1
S2=iqn.1994-05.org.example:async460-s2
IQN=iqn.2003-01.org.linux-iscsi.lab:async460
LAT_MS=20
mkdir -p "$W"
lab_check "xcbench built ($XCB)" test -x "$XCB"
lab_random "$W/a.img" $((128 * MB))
lab_random "$W/b.img" $((128 * MB))
cp "$W/a.img" "$W/a.orig"
cp "$W/b.img" "$W/b.orig"
a=$(lab_user_create qa xcopy "$W/a.img" 128M)
b=$(lab_user_create qb xcopy "$W/b.img" 128M)
{ read -r sda sga; read -r sdb sgb; } <<<"$(lab_loop_export "$a" "$b")"
url=$(lab_iscsi_export "$IQN" "$a" "$b")
lab_check "two user:xcopy LUs: $sda $sgb (tcm_loop) and $url (iSCSI)" iscsi-inq "$url/1"
blk() { echo $(($1 * MB / 512)); }
# rmd5 FILE OFF LEN (bytes): md5 of a byte range (dd: no SIGPIPE under pipefail)
rmd5() { dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none | md5sum; }
# same MOD: byte-compare [OFF1, +LEN) of F1 and [OFF2, +LEN) of F2 (MiB)
same() { cmp -s <(tail -c +$(($2 * MB + 1)) "$1" | head -c $(($5 * MB))) \
	<(tail -c +$(($4 * MB + 1)) "$3" | head -c $(($5 * MB))); }

# --- 1. read latency on B during a long copy inside B ----------------------
"$XCB" probe "$sdb" $((64 * MB)) "$LAT_MS" "$W/stop-idle" 3 "$W/lat-idle.txt"
read -r n_idle p50_idle p99_idle _ <<<"$("$XCB" pct "$W/lat-idle.txt" 0 1e12)"
# every 1 MiB backend read/write of the copy sleeps 250 ms: 16 MiB ~ 8 s,
# mostly asleep (little CPU: a loaded host slows reads less)
echo delay:250 >"$XT_STATS_DIR/qb.fault"
"$XCB" probe "$sdb" $((64 * MB)) "$LAT_MS" "$W/stop" 120 "$W/lat-copy.txt" &
ppid=$!
sleep 0.5
t0=$EPOCHREALTIME
rc=0
"$XCP" --require-offload --stats --src-lba "$(blk 64)" --dst-lba 0 --blocks "$(blk 16)" \
	"$sdb" "$sdb" >"$W/long.out" 2>"$W/long.err" || rc=$?
t1=$EPOCHREALTIME
echo off >"$XT_STATS_DIR/qb.fault"
touch "$W/stop"
wait "$ppid" || true
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
read -r n p50 p99 pmax <<<"$("$XCB" pct "$W/lat-copy.txt" "$(awk -v a="$t0" \
	'BEGIN { printf "%.6f", a + 0.2 }')" "$t1")"
# idle again right after the copy: the host's load around the copy, not only before it
"$XCB" probe "$sdb" $((64 * MB)) "$LAT_MS" "$W/stop-idle2" 3 "$W/lat-idle2.txt"
read -r n_idle2 p50_idle2 p99_idle2 _ <<<"$("$XCB" pct "$W/lat-idle2.txt" 0 1e12)"
lab_msg "READ latency on B, idle: $n_idle samples, p50 $p50_idle ms, p99 $p99_idle ms"
lab_msg "READ latency on B, idle after: $n_idle2 samples, p50 $p50_idle2 ms, p99 $p99_idle2 ms"
lab_msg "READ latency on B during the $secs s copy: $n samples, p50 $p50 ms, p99 $p99 ms, max $pmax ms"
echo "460 latency idle n=$n_idle p50=$p50_idle p99=$p99_idle copy secs=$secs n=$n p50=$p50 p99=$p99 max=$pmax" \
	>"$LAB_RESULTS/460-latency.txt"
lab_check "long copy inside B: xcp exit 0 (rc $rc)" test "$rc" -eq 0
lab_check "the copy took >= 3 s (it was slowed): $secs s" awk -v s="$secs" 'BEGIN { exit !(s >= 3) }'
lab_check ">= 100 read samples inside the copy ($n)" test "${n:-0}" -ge 100
# The build machines are shared: the bound is relative to the idle p99 measured
# just before and just after the copy (the larger): 30 ms on an idle host,
# twice the idle p99 + 30 ms on a loaded one, but always under 200 ms: a READ
# queued behind the copy waits for at least one of its delayed 250 ms backend
# calls (and then the p50 too), which no load figure excuses.
bound=$(awk -v i="${p99_idle:-0}" -v j="${p99_idle2:-0}" \
	'BEGIN { if (j > i) i = j; b = 2 * i + 30; print (b > 200 ? 200 : b) }')
[ "$bound" = 30 ] || lab_msg "note: idle p99 $p99_idle/$p99_idle2 ms (loaded host): bound $bound ms"
lab_check "p99 READ latency on B during the copy < $bound ms ($p99 ms)" \
	awk -v p="${p99:-1e9}" -v b="$bound" 'BEGIN { exit !(p < b) }'
lab_check "p50 READ latency on B during the copy < 100 ms ($p50 ms): reads do not queue behind it" \
	awk -v p="${p50:-1e9}" 'BEGIN { exit !(p < 100) }'
lab_check "no READ waited for the whole copy (max $pmax ms < half of $secs s)" \
	awk -v m="${pmax:-1e9}" -v s="$secs" 'BEGIN { exit !(m < s * 500) }'
lab_check "B[0,16M) = old B[64M,80M)" same "$W/b.img" 0 "$W/b.orig" 64 16

# --- 2. list id 5 running: OPERATION IN PROGRESS, COPY STATUS in progress ---
echo delay:400 >"$XT_STATS_DIR/qa.fault"
"$XCB" lid1 "$sga" 5 "$(blk 96)" "$(blk 64)" "$(blk 4)" >"$W/held.out" 2>&1 &
hpid=$!
for ((t = 0; t < 50; t++)); do
	[ ! -e "$XT_STATS_DIR/qa.fault" ] && break
	sleep 0.1
done
sleep 1
dup=$("$XCB" lid1 "$sga" 5 0 "$(blk 120)" 8 2>&1 || true)
sg_copy_results --status --list_id=5 "$sga" >"$W/status-running.txt" 2>&1 || true
rc=0
wait "$hpid" || rc=$?
echo off >"$XT_STATS_DIR/qa.fault"
held=$(cat "$W/held.out")
sg_copy_results --status --list_id=5 "$sga" >"$W/status-done.txt" 2>&1 || true
lab_msg "held list 5: $held; a second list 5 meanwhile: $dup"
sed 's/^/    running: /' "$W/status-running.txt"
sed 's/^/    done: /' "$W/status-done.txt"
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
lab_check "the held copy (list id 5) completed: GOOD (rc $rc)" test "$(field status <<<"$held")" = 0
lab_check "a second list id 5 while it runs: ILLEGAL REQUEST, OPERATION IN PROGRESS (00/16)" \
	test "$(field key <<<"$dup") $(field asc <<<"$dup")" = "0x05 0x0016"
lab_check "COPY STATUS of the running list: in progress" \
	grep -qi "in progress" "$W/status-running.txt"
lab_check "COPY STATUS after it: no longer in progress, 1 segment, 4194304 bytes" \
	bash -c "! grep -qi 'in progress' '$W/status-done.txt' &&
		grep -q 'Segments processed: 1$' '$W/status-done.txt' &&
		grep -q 'Transfer count: 4194304$' '$W/status-done.txt'"
lab_check "A[64M,68M) = A[96M,100M) (held copy)" same "$W/a.img" 64 "$W/a.orig" 96 4
lab_check "A[120M,+4K) unchanged (the refused list moved nothing)" same "$W/a.img" 120 "$W/a.orig" 120 4

# --- 3. eight copies in flight from two iSCSI sessions ----------------------
echo delay:300 >"$XT_STATS_DIR/qa.fault"
job() {
	local i=$1 init=$2
	XCOPY_INITIATOR_IQN=$init timeout -k 5 150 "$XCP" --require-offload --stats \
		--src-lba "$(blk $((i * 8)))" --dst-lba "$(blk $((64 + i * 8)))" --blocks "$(blk 8)" \
		"$url/0" "$url/1" >"$W/j$i.out" 2>"$W/j$i.err"
	echo $? >"$W/j$i.rc"
}
t0=$EPOCHREALTIME
pids=()
for i in 0 1 2 3 4 5 6 7; do
	if ((i % 2 == 0)); then job "$i" "$S1" & else job "$i" "$S2" & fi
	pids+=($!)
done
wait "${pids[@]}" || true
t1=$EPOCHREALTIME
echo off >"$XT_STATS_DIR/qa.fault"
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
ok=0
for i in 0 1 2 3 4 5 6 7; do
	[ "$(cat "$W/j$i.rc" 2>/dev/null)" = 0 ] && ok=$((ok + 1))
done
fl=$(($(xt_stat qa inflight_max) > $(xt_stat qb inflight_max) ? $(xt_stat qa inflight_max) :
	$(xt_stat qb inflight_max)))
busy=$(($(xt_stat qa busy) + $(xt_stat qb busy)))
lab_msg "8 copies from 2 sessions: $ok ok in $secs s; most in flight at once: $fl; TASK SET FULL: $busy"
echo "460 parallel ok=$ok secs=$secs inflight_max=$fl busy=$busy" >>"$LAB_RESULTS/460-latency.txt"
lab_check "8 copies from two sessions: all exit 0 ($ok)" test "$ok" -eq 8
lab_check "several EXTENDED COPY jobs in flight at once in the plugin ($fl)" test "$fl" -ge 3
lab_check "B[64M,128M) = A[0,64M) (8 copies)" same "$W/b.img" 64 "$W/a.orig" 0 64
lab_check "A unchanged outside the held copy" same "$W/a.img" 0 "$W/a.orig" 0 64
# --- 4. the deadline: cmd_time_out 5 s, a copy slowed past it ----------------
lab_random "$W/t.img" $((32 * MB))
cp "$W/t.img" "$W/t.orig"
t=$(lab_user_create qt xcopy "$W/t.img" 32M)
echo 5 >"$t/attrib/cmd_time_out"   # only while not exported
read -r _ sgt <<<"$(lab_loop_export "$t")"
lab_check "qt: cmd_time_out 5 s" test "$(cat "$t/attrib/cmd_time_out")" = 5
# 12 MiB as three 4 MiB segments (xcbench's, the target's longest), each one
# 4 MiB engine chunk as without a fault; every 1 MiB read and write 400 ms:
# 3.2 s a chunk, 9.6 s unbounded
echo delay:400 >"$XT_STATS_DIR/qt.fault"
t0=$EPOCHREALTIME
rc=0
"$XCB" lid1 "$sgt" 9 0 "$(blk 16)" "$(blk 12)" >"$W/deadline.out" 2>&1 || rc=$?
t1=$EPOCHREALTIME
sum_then=$(rmd5 "$W/t.img" $((16 * MB)) $((12 * MB)))
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
sg_copy_results --status --list_id=9 "$sgt" >"$W/deadline-status.txt" 2>&1 || true
sleep 10
echo off >"$XT_STATS_DIR/qt.fault"
sum_later=$(rmd5 "$W/t.img" $((16 * MB)) $((12 * MB)))
n=$(awk '/Transfer count:/ { print $3 }' "$W/deadline-status.txt")
lab_msg "deadline: status after $secs s (rc $rc), $n bytes written, deadline_cuts $(xt_stat qt deadline_cuts)"
sed 's/^/    /' "$W/deadline.out"
echo "460 deadline secs=$secs rc=$rc bytes=${n:-?}" >>"$LAB_RESULTS/460-latency.txt"
dl=$(cat "$W/deadline.out")
lab_check "the slowed copy ended in CHECK CONDITION ($dl)" test "$(field status <<<"$dl")" = 2
lab_check "... with a status before cmd_time_out (5 s): $secs s" \
	awk -v s="$secs" 'BEGIN { exit !(s < 5) }'
# the cut is between chunks: CSI is the first segment not copied
cut_seg=$((${n:-0} / (4 * MB)))
lab_check "... COPY ABORTED, COMMAND TIMEOUT DURING PROCESSING (2E/02), CSI segment $cut_seg" \
	test "$(field key <<<"$dl") $(field asc <<<"$dl") $(field csi <<<"$dl")" = "0x0a 0x2e02 $cut_seg"
lab_check "the plugin counted the cut (deadline_cuts 1)" test "$(xt_stat qt deadline_cuts)" -eq 1
lab_check "COPY STATUS counts whole chunks written (${n:-?} bytes, a multiple of 4 MiB, < 12 MiB)" \
	awk -v n="${n:--1}" 'BEGIN { exit !(n >= 0 && n < 12582912 && n % 4194304 == 0) }'
nb=${n:-0}
lab_check "those bytes are the source's, the rest of the destination unchanged" bash -c \
	"test \"\$(dd if='$W/t.img' bs=1M iflag=skip_bytes,count_bytes skip=$((16 * MB)) count=$nb status=none | md5sum)\" = \
	      \"\$(dd if='$W/t.orig' bs=1M iflag=count_bytes count=$nb status=none | md5sum)\" &&
	 test \"\$(dd if='$W/t.img' bs=1M iflag=skip_bytes,count_bytes skip=$((16 * MB + nb)) count=$((12 * MB - nb)) status=none | md5sum)\" = \
	      \"\$(dd if='$W/t.orig' bs=1M iflag=skip_bytes,count_bytes skip=$((16 * MB + nb)) count=$((12 * MB - nb)) status=none | md5sum)\""
lab_check "the destination did not change after the status (checksum then and 10 s later)" \
	test "$sum_then" = "$sum_later"
lab_check "tcmu-runner alive" pgrep -x tcmu-runner
lab_summary
