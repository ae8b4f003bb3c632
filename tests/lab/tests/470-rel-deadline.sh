#!/bin/bash
# The command deadline on the real stack: the destination LU's TCMU
# cmd_time_out is set to 5 s (configfs attrib, before export); the source LU's
# backend is slowed with the delay fault (every 1 MiB read sleeps 200 ms), so
# one EXTENDED COPY of 32 MiB (sg_xcopy, 65535 blocks, list id held) would
# take 6.4 s. The plugin must end it itself, between chunks (4 MiB, as
# without a fault), before the kernel's timeout: the initiator gets COPY
# ABORTED 2E/02 (COMMAND TIMEOUT DURING PROCESSING) in less than 5 s; COPY STATUS and the destination agree
# on exactly what was written (whole chunks, a prefix of the range); the
# destination does not change any more (checksum at status time and 10 s
# later). Then the same copy without the delay completes (GOOD, whole range).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-470
OUT=$LAB_RESULTS/rel/deadline
mkdir -p "$OUT"
trap 'rm -rf "$W"' EXIT   # images in guest RAM: freed when the driver removes the LUs
MB=1048576
CHUNK=$MB   # whole MiB at least: the plugin's chunks are 4 MiB, a fault armed or not
LEN=$((65535 * 512))
mkdir -p "$W"
lab_random "$W/s.img" $((64 * MB))
lab_random "$W/d.img" $((64 * MB))
cp "$W/s.img" "$W/s.orig"
cp "$W/d.img" "$W/d.orig"
s=$(lab_user_create ds470 xcopy "$W/s.img" 64M)
d=$(lab_user_create dd470 xcopy "$W/d.img" 64M)
echo 5 >"$d/attrib/cmd_time_out"
lab_check "cmd_time_out of the destination LU is 5 s" test "$(cat "$d/attrib/cmd_time_out")" = 5
{ read -r _ sgs; read -r _ sgd; } <<<"$(lab_loop_export "$s" "$d")"

same() { [ "$5" -eq 0 ] || cmp -s -i "$2:$4" -n "$5" "$1" "$3"; }
rcr_bytes() {
	local sg=$1
	shift
	sg_copy_results --hex "$@" "$sg" 2>/dev/null | awk '
		{ for (i = 2; i <= NF; i++) { if ($i !~ /^[0-9a-f][0-9a-f]$/) break; printf "%s ", $i } }'
}
# copy_status SG ID : COPY STATUS -> "segments bytes"
copy_status() {
	local -a b
	local mult
	read -r -a b <<<"$(rcr_bytes "$1" --status -l "$2" -x 12)"
	[ "${#b[@]}" -ge 12 ] || { echo "short(${#b[@]})"; return; }
	case ${b[7]} in 00) mult=1 ;; f1) mult=1024 ;; f2) mult=1048576 ;; *) mult=-1 ;; esac
	echo "$((16#${b[5]}${b[6]})) $((16#${b[8]}${b[9]}${b[10]}${b[11]} * mult))"
}
# fsd_sense SG ID : "STATUS KEY ASC ASCQ CSI" of the held list's FAILED SEGMENT DETAILS
#   (fixed-format sense from byte 60: key +2, CSI +8..11, ASC +12, ASCQ +13)
fsd_sense() {
	local -a b
	read -r -a b <<<"$(rcr_bytes "$1" --failed -l "$2")"
	[ "${#b[@]}" -ge 78 ] || { echo "short(${#b[@]})"; return; }
	echo "${b[56]} ${b[62]} ${b[72]} ${b[73]} $((16#${b[68]}${b[69]}${b[70]}${b[71]}))"
}

# --- 1. slowed past the deadline ------------------------------------------------
echo delay:200 >"$XT_STATS_DIR/ds470.fault"
rc=0
t0=$(date +%s%N)
sg_xcopy if="$sgs" of="$sgd" bs=512 bpt=65535 count=65535 list_id=21 id_usage=hold \
	verbose=2 >"$OUT/cut.log" 2>&1 || rc=$?
t1=$(date +%s%N)
sum1=$(md5sum <"$W/d.img")
lab_msg "    sg_xcopy (inquiries, READ CAPACITY, the EXTENDED COPY) returned after $(((t1 - t0) / 1000000)) ms (exit $rc)"
# Had the kernel's timer fired first, the initiator would have the kernel's
# failure (CHECK CONDITION without COPY ABORTED; the plugin's late status is
# dropped): COPY ABORTED (sg3_utils exit 10) proves the plugin was in time.
# Its ASC (2E/02) is checked through FAILED SEGMENT DETAILS below.
lab_check "the initiator got COPY ABORTED (sg_xcopy exit $rc = 10, 'Copy aborted')" \
	sh -c "[ $rc -eq 10 ] && grep -qi 'copy aborted' '$OUT/cut.log'"
ms=$(sed -n 's/.*dd470: xcopy: stopped at the command deadline.* \([0-9]*\) ms after arrival.*/\1/p' \
	"$LAB_RUN_DIR/tcmu/tcmu-runner.log" | tail -1)
lab_check "the plugin completed the command $ms ms after it arrived, before the 5 s timeout" \
	test "${ms:-99999}" -lt 5000
lab_check "no TCMU command timeout in the kernel log" \
	sh -c "! dmesg | grep -qiE 'tcmu.*(timed out|timeout)'"
st=$(copy_status "$sgd" 21)
read -r segs bytes <<<"$st"
lab_msg "    COPY STATUS: $segs segments, $bytes bytes"
lab_check "COPY STATUS: 0 segments, whole 1 MiB chunks, some but not all ($st)" \
	sh -c "[ '$segs' = 0 ] && [ $((bytes % CHUNK)) -eq 0 ] && [ $bytes -gt 0 ] && [ $bytes -lt $LEN ]"
# FAILED SEGMENT DETAILS is read-once (the record goes): after COPY STATUS
got=$(fsd_sense "$sgd" 21)
lab_check "FAILED SEGMENT DETAILS: CHECK CONDITION, COPY ABORTED 2E/02, CSI 0 (got $got)" \
	test "$got" = "02 0a 2e 02 0"
lab_check "destination = source for exactly the $bytes bytes reported" same "$W/d.img" 0 "$W/s.img" 0 "$bytes"
lab_check "the rest of the destination is unchanged" \
	same "$W/d.img" "$bytes" "$W/d.orig" "$bytes" $((64 * MB - bytes))
lab_check "deadline_cuts counted on dd470" test "$(xt_stat dd470 deadline_cuts)" -ge 1
sleep 10
lab_check "destination unchanged 10 s after the status (md5)" test "$(md5sum <"$W/d.img")" = "$sum1"
lab_check "source LU unchanged" cmp -s "$W/s.img" "$W/s.orig"

# --- 2. the same copy without the delay completes ---------------------------------
echo off >"$XT_STATS_DIR/ds470.fault"
rc=0
sg_xcopy if="$sgs" of="$sgd" bs=512 bpt=65535 count=65535 list_id=22 id_usage=hold \
	>"$W/ok.log" 2>&1 || rc=$?
lab_check "without the delay the same EXTENDED COPY completes (exit $rc)" test "$rc" -eq 0
lab_check "COPY STATUS of it: 1 segment, $LEN bytes" test "$(copy_status "$sgd" 22)" = "1 $LEN"
lab_check "destination = source for the whole range" same "$W/d.img" 0 "$W/s.img" 0 "$LEN"
lab_summary
