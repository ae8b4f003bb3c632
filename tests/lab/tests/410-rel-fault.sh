#!/bin/bash
# Fault injection in handler_xcopy.so's file backend (target/fault/fault.c) on the
# real stack: two user:xcopy LUs on tmpfs behind one tcm_loop nexus.
#   1. target side, sg_xcopy with a held list id (2 MiB per EXTENDED COPY =
#      two 1 MiB backend writes): read:N / write:N / enospc:N / short:N end the
#      command in COPY ABORTED 0D/01 (THIRD PARTY DEVICE FAILURE); FAILED
#      SEGMENT DETAILS (sg_copy_results) returns CHECK CONDITION and that sense;
#      the destination equals the source up to the exact byte where the fault
#      hit (COPY STATUS transfer count), every other byte of both LUs is
#      unchanged (cmp against snapshots); shortok:N completes.
#   2. host side, xcp (libxcopy): a write fault on the destination LU; without
#      --require-offload the failed range is redone by READ/WRITE and the
#      destination is fully copied; with it xcp exits 3 and reports the exact
#      number of bytes offloaded, and those bytes (only) are copied.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-410
XCP=$LAB_BUILD/host/xcp
MB=1048576
mkdir -p "$W"
lab_random "$W/a.img" $((8 * MB))
lab_random "$W/b.img" $((8 * MB))
cp "$W/a.img" "$W/a.orig"
a=$(lab_user_create fa xcopy "$W/a.img" 8M)
b=$(lab_user_create fb xcopy "$W/b.img" 8M)
{ read -r sda sga; read -r sdb sgb; } <<<"$(lab_loop_export "$a" "$b")"
lab_check "two user:xcopy LUs on tmpfs ($sga, $sgb)" test -c "$sga" -a -c "$sgb"

# same FILE1 OFF1 FILE2 OFF2 LEN : LEN bytes equal (LEN may be 0); one process
same() { [ "$5" -eq 0 ] || cmp -s -i "$2:$4" -n "$5" "$1" "$3"; }

# rcr_bytes SG ARGS... : RECEIVE COPY RESULTS response as hex bytes, one line
rcr_bytes() {
	local sg=$1
	shift
	sg_copy_results --hex "$@" "$sg" 2>/dev/null | awk '
		{ for (i = 2; i <= NF; i++) { if ($i !~ /^[0-9a-f][0-9a-f]$/) break; printf "%s ", $i } }'
}

# fsd_sense SG ID : FAILED SEGMENT DETAILS of the held list ->
#   "STATUS KEY ASC ASCQ / SOURCE FWD_KEY FWD_ASC FWD_ASCQ" (hex; forwarded
#   sense descriptor 0Ch of descriptor-format sense, SPC-4 4.5.2.x)
fsd_sense() {
	local -a b
	local d end fwd="none"
	read -r -a b <<<"$(rcr_bytes "$1" --failed -l "$2")"
	[ "${#b[@]}" -ge 68 ] || { echo "short(${#b[@]})"; return; }
	# byte 56 status, 58-59 sense length, sense from 60 (72h: key in byte 1)
	case ${b[60]} in
	72 | 73)
		end=$((68 + 16#${b[67]}))
		for ((d = 68; d + 1 < end && d + 1 < ${#b[@]}; d += 2 + 16#${b[d + 1]})); do
			[ "${b[d]}" = 0c ] || continue
			# 0Ch: byte 2 source, 3 status, sense from 4 (fixed 70h: key +2, ASC +12)
			fwd="$((16#${b[d + 2]} & 15)) ${b[d + 6]} ${b[d + 16]} ${b[d + 17]}"
		done
		echo "${b[56]} ${b[61]} ${b[62]} ${b[63]} / $fwd"
		;;
	*) echo "${b[56]} ${b[62]} ${b[72]} ${b[73]} / $fwd" ;;
	esac
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

# fault_case ID LU SPEC FORWARDED WRITTEN
#   copy a:[512 KiB, 6.5 MiB) -> b:[1 MiB, 7 MiB) as 3 EXTENDED COPY of 2 MiB
#   (2 backend calls of 1 MiB each; list id ID, held) with SPEC armed on LU.
#   FORWARDED: "SOURCE KEY ASC ASCQ" of the failed sub-I/O ("" = completes);
#   WRITTEN: bytes of the destination range written before the fault.
fault_case() {
	local id=$1 lu=$2 spec=$3 want=$4 written=$5 rc=0 got st
	cp "$W/b.img" "$W/b.orig"
	echo "$spec" >"$XT_STATS_DIR/$lu.fault"
	sg_xcopy if="$sga" of="$sgb" bs=512 bpt=4096 skip=1024 seek=2048 count=12288 \
		list_id="$id" id_usage=hold >"$W/case-$id.log" 2>&1 || rc=$?
	lab_check "$spec on $lu: control file consumed" test ! -e "$XT_STATS_DIR/$lu.fault"
	if [ -z "$want" ]; then
		lab_check "$spec on $lu: sg_xcopy completes (exit $rc)" test "$rc" -eq 0
	else
		lab_check "$spec on $lu: sg_xcopy fails (exit $rc), COPY ABORTED" \
			grep -qi "copy aborted" "$W/case-$id.log"
		st=$(copy_status "$sgb" "$id")
		# COPY STATUS of the failed command (1 segment): 0 processed, bytes written in it
		lab_check "$spec on $lu: COPY STATUS: 0 segments, $((written % (2 * MB))) bytes (got $st)" \
			test "$st" = "0 $((written % (2 * MB)))"
		got=$(fsd_sense "$sgb" "$id")
		lab_check "$spec on $lu: FAILED SEGMENT DETAILS: CHECK CONDITION, COPY ABORTED 0D/01, forwarded $want (got $got)" \
			test "$got" = "02 0a 0d 01 / $want"
	fi
	lab_check "$spec on $lu: destination = source for the $written bytes written" \
		same "$W/b.img" $((1 * MB)) "$W/a.img" $((MB / 2)) "$written"
	lab_check "$spec on $lu: the rest of the destination LU unchanged" \
		eval "same '$W/b.img' $((MB + written)) '$W/b.orig' $((MB + written)) $((7 * MB - written)) &&
			same '$W/b.img' 0 '$W/b.orig' 0 $MB"
	lab_check "$spec on $lu: source LU unchanged" cmp -s "$W/a.img" "$W/a.orig"
}

# the fault hits the Nth 1 MiB backend call: command k (0-based) makes calls 2k+1, 2k+2
fault_case 11 fa read:3 "1 03 11 00" $((2 * MB))
fault_case 12 fb write:4 "2 03 0c 00" $((3 * MB))
fault_case 13 fb enospc:1 "2 07 27 07" 0
fault_case 14 fb short:6 "2 07 27 07" $((5 * MB + MB / 2))
fault_case 15 fb shortok:2 "" $((6 * MB))
lab_check "io_errors counted on fb" test "$(xt_stat fb io_errors)" -ge 3

# --- 2. libxcopy (xcp) meets a target error -----------------------------------
# xcp_stat FILE KEY: a number from xcp --stats
xcp_stat() { awk -v k="$2" 'index($0, k) == 1 { print $(NF); exit }' "$1"; }
cp "$W/b.img" "$W/b.orig"
echo write:3 >"$XT_STATS_DIR/fb.fault"
rc=0
"$XCP" --stats --src-lba 0 --dst-lba 2048 --blocks 12288 "$sda" "$sdb" >"$W/xcp1.out" 2>"$W/xcp1.err" || rc=$?
lab_check "xcp with a write fault on the destination: exit 0 (rc $rc)" test "$rc" -eq 0
lab_check "xcp: one EXTENDED COPY failed and was redone by the host" \
	grep -qE '^xcopy commands: .*\(1 failed' "$W/xcp1.out"
lab_check "xcp: destination fully copied (read back O_DIRECT)" \
	cmp -s -n $((6 * MB)) <(dd if="$sdb" bs=1M skip=1 count=6 iflag=direct status=none) "$W/a.img"
lab_check "xcp: rest of the destination LU unchanged" \
	eval "same '$W/b.img' 0 '$W/b.orig' 0 $MB && same '$W/b.img' $((7 * MB)) '$W/b.orig' $((7 * MB)) $MB"

lab_random "$W/fill" $((8 * MB))
dd if="$W/fill" of="$sdb" bs=1M oflag=direct status=none
cp "$W/b.img" "$W/b.orig"
echo write:5 >"$XT_STATS_DIR/fb.fault"
rc=0
"$XCP" --stats --require-offload --src-lba 0 --dst-lba 2048 --blocks 12288 "$sda" "$sdb" \
	>"$W/xcp2.out" 2>"$W/xcp2.err" || rc=$?
off=$(awk '/^bytes offloaded:/ { print $3 }' "$W/xcp2.out")
lab_check "xcp --require-offload with a write fault: exit 3 (rc $rc)" test "$rc" -eq 3
# segments of 4 MiB (4 backend writes): the 5th write is the first of segment 1
lab_check "xcp --require-offload: reports exactly the completed segment, 4194304 bytes (got $off)" \
	test "$off" = 4194304
lab_check "xcp --require-offload: the $off bytes reported are copied" \
	same "$W/b.img" $MB "$W/a.img" 0 "${off:-0}"
lab_check "xcp --require-offload: destination outside the range unchanged" \
	eval "same '$W/b.img' 0 '$W/b.orig' 0 $MB && same '$W/b.img' $((7 * MB)) '$W/b.orig' $((7 * MB)) $MB"
lab_summary
