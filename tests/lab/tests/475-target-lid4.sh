#!/bin/bash
# LID4 on the real stack (xcbench lid4/rcs4/abort: raw SG_IO through tcm_loop):
#  1. EXTENDED COPY (LID4) of 4 MiB inside an LU: GOOD, data compared, RECEIVE
#     COPY STATUS (LID4): completed (01h), 4194304 bytes, 1 segment.
#  2. a 24 MiB LID4 copy slowed by the delay fault (6 chunks of 4 MiB, 0.8 s
#     each): while it runs RCS(LID4) says in progress (11h), the same list id
#     again gets OPERATION IN PROGRESS; COPY OPERATION ABORT (GOOD) stops it
#     before its next chunk: the
#     copy ends COPY ABORTED 00/00, RCS(LID4) says terminated (60h) with the
#     exact bytes, exactly those bytes were written and nothing after, also
#     5 s later. An unknown id: ILLEGAL REQUEST 24/00 for both commands.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-475
XCB=$LAB_BUILD/bench/xcbench
MB=1048576
mkdir -p "$W"
lab_check "xcbench built ($XCB)" test -x "$XCB"
lab_random "$W/l.img" $((64 * MB))
cp "$W/l.img" "$W/l.orig"
so=$(lab_user_create l4 xcopy "$W/l.img" 64M)
read -r _ sg <<<"$(lab_loop_export "$so")"
blk() { echo $(($1 * MB / 512)); }
# range FILE OFF LEN (bytes) -> md5
range() { dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none | md5sum; }
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

# --- 1. a LID4 copy that completes ------------------------------------------
out=$("$XCB" lid4 "$sg" 0x01020304 0 "$(blk 32)" "$(blk 4)")
lab_check "LID4 copy of 4 MiB: GOOD ($out)" test "$(field status <<<"$out")" = 0
st=$("$XCB" rcs4 "$sg" 0x01020304 | tail -1)
lab_msg "RCS(LID4) 0x01020304: $st"
lab_check "RCS(LID4): completed without errors, 4194304 bytes, 1 segment" \
	test "$(field op_status <<<"$st") $(field bytes <<<"$st") $(field segs <<<"$st")" = \
	"0x01 4194304 1"
lab_check "LU[32M,36M) = LU[0,4M)" \
	test "$(range "$W/l.img" $((32 * MB)) $((4 * MB)))" = "$(range "$W/l.orig" 0 $((4 * MB)))"

# --- 2. abort a running LID4 copy --------------------------------------------
echo delay:100 >"$XT_STATS_DIR/l4.fault"
"$XCB" lid4 "$sg" 0xA0B0C0D0 "$(blk 8)" "$(blk 36)" "$(blk 24)" >"$W/long.out" 2>&1 &
lpid=$!
for ((t = 0; t < 50; t++)); do
	[ ! -e "$XT_STATS_DIR/l4.fault" ] && break
	sleep 0.1
done
sleep 1.5
run=$("$XCB" rcs4 "$sg" 0xA0B0C0D0 | tail -1)
dup=$("$XCB" lid4 "$sg" 0xA0B0C0D0 0 "$(blk 60)" 8)
t_abort=$EPOCHREALTIME
ab=$("$XCB" abort "$sg" 0xA0B0C0D0)
rc=0
wait "$lpid" || rc=$?
t_end=$EPOCHREALTIME
echo off >"$XT_STATS_DIR/l4.fault"
long=$(cat "$W/long.out")
fin=$("$XCB" rcs4 "$sg" 0xA0B0C0D0 | tail -1)
n=$(field bytes <<<"$fin")
sum_then=$(range "$W/l.img" $((36 * MB)) $((24 * MB)))
lab_msg "running: $run"
lab_msg "duplicate id: $dup"
lab_msg "abort: $ab; the copy ended $(awk -v a="$t_abort" -v b="$t_end" 'BEGIN { printf "%.2f", b - a }') s later: $long"
lab_msg "after: $fin"
echo "475 abort after_s=$(awk -v a="$t_abort" -v b="$t_end" 'BEGIN { printf "%.2f", b - a }') bytes=${n:-?}" \
	>"$LAB_RESULTS/475-lid4.txt"
lab_check "RCS(LID4) while running: in progress (11h), bytes > 0" \
	awk -v s="$(field op_status <<<"$run")" -v b="$(field bytes <<<"$run")" \
	'BEGIN { exit !(s == "0x11" && b > 0) }'
lab_check "the same id while it runs: ILLEGAL REQUEST, OPERATION IN PROGRESS (00/16)" \
	test "$(field key <<<"$dup") $(field asc <<<"$dup")" = "0x05 0x0016"
lab_check "COPY OPERATION ABORT: GOOD" test "$(field status <<<"$ab")" = 0
lab_check "the aborted copy: CHECK CONDITION, COPY ABORTED, 00/00 (xcbench rc $rc)" \
	test "$(field status <<<"$long") $(field key <<<"$long") $(field asc <<<"$long")" = \
	"2 0x0a 0x0000"
lab_check "... it ended soon after the abort (< 3 s: a 0.8 s chunk + slack)" \
	awk -v a="$t_abort" -v b="$t_end" 'BEGIN { exit !(b - a < 3) }'
lab_check "RCS(LID4) after: terminated (60h), CHECK CONDITION, sense kept" \
	test "$(field op_status <<<"$fin") $(field cmd_status <<<"$fin")" = "0x60 2" -a \
	"$(field sense_len <<<"$fin")" -ge 18
lab_check "... exact bytes: whole MiB (4 MiB chunks), more than 0, less than 24 MiB (${n:-?})" \
	awk -v n="${n:--1}" 'BEGIN { exit !(n > 0 && n < 24 * 1048576 && n % 1048576 == 0) }'
nb=${n:-0}
lab_check "exactly those bytes were copied, the rest of the destination unchanged" \
	test "$(range "$W/l.img" $((36 * MB)) "$nb") $(range "$W/l.img" $((36 * MB + nb)) $((24 * MB - nb)))" = \
	"$(range "$W/l.orig" $((8 * MB)) "$nb") $(range "$W/l.orig" $((36 * MB + nb)) $((24 * MB - nb)))"
sleep 5
lab_check "nothing written after the abort (checksum then and 5 s later)" \
	test "$sum_then" = "$(range "$W/l.img" $((36 * MB)) $((24 * MB)))"
un=$("$XCB" rcs4 "$sg" 0x0BAD)
lab_check "RCS(LID4) of an unknown id: ILLEGAL REQUEST 24/00 ($un)" \
	test "$(field key <<<"$un") $(field asc <<<"$un")" = "0x05 0x2400"
un=$("$XCB" abort "$sg" 0x0BAD)
lab_check "COPY OPERATION ABORT of an unknown id: ILLEGAL REQUEST 24/00 ($un)" \
	test "$(field key <<<"$un") $(field asc <<<"$un")" = "0x05 0x2400"
lab_check "tcmu-runner alive" pgrep -x tcmu-runner
lab_summary
