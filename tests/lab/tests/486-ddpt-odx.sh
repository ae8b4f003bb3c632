#!/bin/bash
# ODX with a third-party client: ddptctl (Debian package ddpt 0.97) against two
# user:xcopy LUs S and D behind one tcm_loop TPG on a reflink XFS store:
#  1. ddptctl --info: 3PC, the Third Party Copy VPD page (ROD token limits,
#     ROD types, supported commands) decoded;
#  2. a PT (xcbench), then ddptctl --poll: our RRTI decoded (completed without
#     errors), the ROD token ddptctl saved from it = the token; ddptctl --info
#     --rtf decodes the token (point in time);
#  3. a WUT with it, data compared, D's counters (xcopy-stat keys commands and
#     bytes) moved; ddptctl --poll --prefer_rcs: RECEIVE COPY STATUS (LID4)
#     decoded (completed without errors);
#  4. ddpt 0.97's own PT / WUT lists put the range descriptors one byte early
#     (a ddpt bug): ILLEGAL REQUEST 21/00, INFORMATION = the LBA read where
#     SBC-4 puts it; D unchanged;
#  5. the block device zero ROD token zeroes exactly its range;
#  6. the snapshot budget: PT of 4 GiB tokens on a sparse 5 GiB LU until the
#     per-LU snapshot bytes (64 GiB) are used: ILLEGAL REQUEST 55/0C.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-486
XCB=$LAB_BUILD/bench/xcbench
MB=1048576
mkdir -p "$W"
lab_check "ddpt and ddptctl installed" command -v ddpt ddptctl
X=$(lab_xfs_store "$W/xfs" 400M)
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
sense() { local l; l=$(head -1 <<<"$1"); echo "$(field key <<<"$l") $(field asc <<<"$l")"; }
range() { dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none | md5sum; }
zero() { cmp -s -n "$3" <(dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none) /dev/zero; }

"$XCB" fill "$X/s.img" 0 $((48 * MB)) 486 >/dev/null
truncate -s 64M "$X/s.img"
"$XCB" fill "$X/d.img" 0 $((64 * MB)) 9 >/dev/null
s=$(lab_user_create odx_s xcopy "$X/s.img" 64M)
d=$(lab_user_create odx_d xcopy "$X/d.img" 64M)
lab_loop_export "$s" "$d" >/dev/null
ssg=$(lab_sg "$s"); dsg=$(lab_sg "$d")
# the LUN additions left a UNIT ATTENTION (REPORTED LUNS DATA HAS CHANGED);
# ddptctl takes it as a READ CAPACITY failure: consume it first
for g in "$ssg" "$dsg" "$ssg" "$dsg"; do sg_turs "$g" >/dev/null 2>&1 || true; done

# --- 1. VPD --------------------------------------------------------------------
out=$(ddptctl --info "$ssg" 2>&1 || true)
lab_msg "$out"
lab_check "ddptctl --info: Block Device ROD Token Limits descriptor decoded" \
	grep -qi "ROD token limits\|Maximum token transfer size" <<<"$out"

# --- 2. ddptctl decodes our RRTI after a PT: the token it saves = ours ------
"$XCB" pt "$ssg" 0x4861 0 "$W/p.tok" 2048:4096 >/dev/null || true
lab_check "xcbench PT S[1M,3M) (list id 4861h): a token" test -s "$W/p.tok"
out=$(ddptctl -v --poll --list_id=0x4861 --rtf="$W/p2.tok" "$ssg" 2>&1 || true)
lab_msg "$out"
lab_check "ddptctl --poll (RRTI): PT completed without errors, transfer count 4096 blocks" \
	grep -q "completed without errors" <<<"$out"
lab_check "... transfer count of 4096" grep -q "transfer count of 4096 " <<<"$out"
lab_check "... the ROD token ddptctl took from our RRTI = the token (cmp)" cmp "$W/p.tok" "$W/p2.tok"
out=$(ddptctl --info --rtf="$W/p2.tok" 2>&1 || true)
lab_msg "$out"
lab_check "ddptctl --info --rtf decodes the token (ROD type point in time)" \
	grep -qi "point in time" <<<"$out"

# --- 3. a WUT, then RECEIVE COPY STATUS (LID4) decoded by ddptctl --prefer_rcs --
dc=$(xt_stat odx_d commands); db=$(xt_stat odx_d bytes)
out=$("$XCB" wut "$dsg" 0x4862 "$W/p.tok" 0 0 $((16 * MB / 512)):4096 || true)
lab_check "WUT with that token: S[1M,3M) -> D[16M,18M)" test "$(sense "$out")" = "0 0"
lab_check "... D[16M,18M) = S[1M,3M)" \
	test "$(range "$X/d.img" $((16 * MB)) $((2 * MB)))" = "$(range "$X/s.img" $MB $((2 * MB)))"
lab_check "... D counted it: commands $dc -> $(xt_stat odx_d commands), bytes +$(($(xt_stat odx_d bytes) - db))" \
	test "$(xt_stat odx_d commands)" -gt "$dc" -a $(($(xt_stat odx_d bytes) - db)) -ge $((2 * MB))
out=$(ddptctl -v --poll --prefer_rcs --list_id=0x4862 "$dsg" 2>&1 || true)
lab_msg "$out"
lab_check "ddptctl --poll --prefer_rcs (RCS LID4): WUT completed without errors" \
	grep -q "completed without errors" <<<"$out"
# RCS (LID4) counts in bytes (TRANSFER COUNT UNITS 00h), RRTI in blocks (F1h)
lab_check "... transfer count of 2097152 (bytes)" grep -q "transfer count of 2097152 " <<<"$out"

# --- 4. ddpt 0.97's own PT / WUT lists ---------------------------------------
# ddpt 0.97 writes the range descriptors of its PT / WUT lists one byte early
# (at byte 15 / 535, SBC-4 puts them at 16 / 536): read where SBC-4 puts them,
# LBA 1024 (400h) + 2048 blocks becomes LBA 40000h + 80000h blocks, past the
# end: ILLEGAL REQUEST 21/00 with INFORMATION = that LBA, nothing written.
before=$(md5sum <"$X/d.img")
out=$(ddptctl -v --pt=1024,2048 --rtf="$W/b.rt" "$ssg" 2>&1 || true)
lab_msg "$out"
lab_check "ddptctl --pt=1024,2048 (ddpt 0.97 layout): 05 21/00 LBA OUT OF RANGE, INFORMATION 40000h" \
	grep -q "Info fld=0x40000" <<<"$out"
out=$(ddpt --odx if="$ssg" of="$dsg" bs=512 skip=0,2048 seek=0,2048 status=none 2>&1 || true)
lab_check "ddpt --odx full copy: refused the same way (${out//$'\n'/; })" grep -q "LBA out of range" <<<"$out"
lab_check "... D unchanged" test "$(md5sum <"$X/d.img")" = "$before"

# --- 5. the block device zero ROD token ----------------------------------------
# SBC-4: ROD type FFFF0001h, ROD TOKEN LENGTH 01F8h, the rest zero
printf '\xff\xff\x00\x01\x00\x00\x01\xf8' | dd of="$W/z.tok" bs=512 conv=sync status=none
out=$("$XCB" wut "$dsg" 0x4863 "$W/z.tok" 0 0 $((60 * MB / 512)):4096 || true)
lab_check "WUT with the block device zero ROD token (FFFF0001h): GOOD" test "$(sense "$out")" = "0 0"
lab_check "... D[60M,62M) is zero" zero "$X/d.img" $((60 * MB)) $((2 * MB))
lab_check_fails "... D[62M,63M) untouched (not zero)" zero "$X/d.img" $((62 * MB)) $MB

# --- 6. the snapshot budget: 55/0C -----------------------------------------------
truncate -s 5G "$X/big.img"
big=$(lab_user_create odx_big xcopy "$X/big.img" 5G)
lab_loop_export "$big" >/dev/null
bsg=$(lab_sg "$big")
# 600 s tokens (the maximum): none may expire while the loop runs under load
n=0
for ((i = 0; i < 17; i++)); do
	out=$("$XCB" pt "$bsg" $((0x4870 + i)) 600 "$W/big.tok" 0:$((4 * 1024 * MB / 512)) || true)
	[ "$(sense "$out")" = "0 0" ] || break
	n=$((n + 1))
done
lab_check "16 PTs of 4 GiB (64 GiB of snapshots) GOOD, the 17th: ILLEGAL REQUEST 55/0C ($n GOOD; ${out//$'\n'/; })" \
	test "$n $(sense "$out")" = "16 0x05 0x550c"
lab_check "tcmu-runner alive" pgrep -x tcmu-runner
lab_summary
