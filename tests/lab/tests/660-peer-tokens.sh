#!/bin/bash
# Remote ROD tokens (#36 item 4, docs/remote-tokens.md): a token of one copy
# manager of this project redeemed by WRITE USING TOKEN at another, both
# ways, with the two copy managers of tests/lab/cm2-lib.sh (runner 1: the
# lab's, subtype xcopy; runner 2: XCOPY_SUBTYPE=cm2, its own process, token
# table, peer map). LUs:
#   X  runner 1, reflink XFS store (point-in-time tokens), iSCSI T1 (ACL: copy
#      manager 2, the host)         X2 runner 1, not in copy manager 2's map
#   Y  runner 2, plain file (change vulnerable tokens), iSCSI T2 (ACL: copy
#      manager 1, the host)         Y2 runner 2, not in copy manager 1's map
# The maps: copy manager 1 names Y, copy manager 2 names X. Requests go
# through tcm_loop (xcbench pt / wut, the Windows pattern) and through
# iSCSI (xcp --method=odx). Checked:
#   VPD 8Fh ROD Token Features REMOTE TOKENS: 6 on X and on Y
#   X -> Y: PT on X, X overwritten, WUT on Y: GOOD, Y holds X's bytes as at
#     the PT (point in time kept through the creator); the bytes went over
#     copy manager 1's session to T2 (its ACL's write counter), none over
#     Y's tcm_loop port; runner 2 logged the redemption by the creator
#   Y -> X: PT on Y, WUT on X: GOOD, X holds Y's bytes
#   refusals, each with its sense and the destination unchanged: a
#     cancelled token (Y written after the PT) 23/08 as the creator said;
#     a token used with DEL_TKN, then again: 23/09; a creator the map does not
#     name (X2's token at Y): 23/02; a destination the creator's map does not
#     name (X's token at Y2; copy manager 1 answers 08/04): 23/02
#   the Windows pattern (xcbench winpat: PT of 16 ranges on X, RRTI, WUT on Y
#     with DEL_TKN, RRTI, each checked as Windows does): compared range by range
#   ESXi's data mover pattern (RCR operating parameters, then LID1 EXTENDED
#     COPY of 4 MiB per command to the destination, E4h NAA CSCDs, LIST ID
#     USAGE 11b) from a LU of one copy manager to one of the other, both ways
#     (the destination's copy manager pulls through its map): compared
#   xcp --method=odx iscsi://T1 -> iscsi://T2: every byte by token, none by
#     the host (xcp's stats), identical; the host's ACL counters 0 MiB
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
W=/tmp/lab-660
CM2_DIR=$W/cm2
# shellcheck source=tests/lab/cm2-lib.sh
. "$HERE/../cm2-lib.sh"
lab_require_guest

MB=1048576
MAP1=/etc/xcopy/peers.conf
CMI1=iqn.2026-12.org.example:cm660-1
CMI2=iqn.2026-12.org.example:cm660-2
HOST=iqn.2026-12.org.example:host660
IQN_X=iqn.2003-01.org.linux-iscsi.lab:tok660x
IQN_Y=iqn.2003-01.org.linux-iscsi.lab:tok660y
SER_X=66000001-aaaa-bbbb-cccc-000000000000
SER_X2=66000002-aaaa-bbbb-cccc-000000000000
SER_Y=66000003-aaaa-bbbb-cccc-000000000000
SER_Y2=66000004-aaaa-bbbb-cccc-000000000000
XCB=$LAB_BUILD/bench/xcbench
XCP=$LAB_BUILD/host/xcp
mkdir -p "$W" /etc/xcopy
trap 'cm2_teardown; rm -f "$MAP1"' EXIT
t0=$SECONDS
lab_check "xcbench built ($XCB)" test -x "$XCB"

field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
sense() { local l; l=$(head -1 <<<"$1"); echo "$(field key <<<"$l") $(field asc <<<"$l")"; }
range() { dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none | md5sum; }
acl_mb() { # IQN INITIATOR read|write: MiB of that ACL's LUN 0 on the target
	local v
	read -r v <"$LAB_CFS/iscsi/$1/tpgt_1/acls/$2/lun_0/statistics/scsi_auth_intr/${3}_mbytes"
	echo "$v"
}
remote_tokens() { # SG: VPD 8Fh, ROD Token Features (0106h) byte 4, bits 3:0
	sg_vpd --page=0x8f --raw "$1" | python3 -c '
import sys
b = sys.stdin.buffer.read()
o, n = 4, min(len(b), 4 + int.from_bytes(b[2:4], "big"))
while o + 4 <= n:
    t, l = int.from_bytes(b[o:o + 2], "big"), int.from_bytes(b[o + 2:o + 4], "big")
    if t == 0x0106:
        print(b[o + 4] & 15)
        break
    o += 4 + l
else:
    print("none")'
}

# --- two copy managers, four LUs -----------------------------------------------
cm2_start >/dev/null || true
LOG1=$(cm2_log xcopy)
LOG2=$(cm2_log cm2)
lab_check "two tcmu-runner processes" test "$(pidof tcmu-runner | wc -w)" = 2
X=$(lab_xfs_store "$W/xfs" 320M)
lab_random "$X/x.img" $((16 * MB))
for f in x2 y y2; do lab_random "$W/$f.img" $((16 * MB)); done
x=$(cm2_lu_create tkx xcopy "$X/x.img" 16M "$SER_X")
x2=$(cm2_lu_create tkx2 xcopy "$W/x2.img" 16M "$SER_X2")
y=$(cm2_lu_create tky cm2 "$W/y.img" 16M "$SER_Y")
y2=$(cm2_lu_create tky2 cm2 "$W/y2.img" 16M "$SER_Y2")
{ read -r sdx sgx; read -r _ sgx2; } <<<"$(lab_loop_export "$x" "$x2")"
{ read -r sdy sgy; read -r _ sgy2; } <<<"$(lab_loop_export "$y" "$y2")"
T1=$(cm2_iscsi_export "$IQN_X" "$x" "$CMI2" "$HOST")/0
T2=$(cm2_iscsi_export "$IQN_Y" "$y" "$CMI1" "$HOST")/0
umask 077
printf 'naa.%s iscsi://127.0.0.1:3260/%s/0 initiator=%s\n' "$(lab_naa "$SER_Y")" "$IQN_Y" "$CMI1" >"$MAP1"
printf 'naa.%s iscsi://127.0.0.1:3260/%s/0 initiator=%s\n' "$(lab_naa "$SER_X")" "$IQN_X" "$CMI2" >"$CM2_PEERS"
chmod 600 "$MAP1" "$CM2_PEERS"
umask 022
lab_check "X, X2 (runner 1) on $sgx, $sgx2; Y, Y2 (runner 2) on $sgy, $sgy2; X on $T1, Y on $T2" \
	test -c "$sgx" -a -c "$sgy" -a -c "$sgx2" -a -c "$sgy2"
lab_check "VPD 8Fh REMOTE TOKENS on X (runner 1): 6 ($(remote_tokens "$sgx"))" test "$(remote_tokens "$sgx")" = 6
lab_check "VPD 8Fh REMOTE TOKENS on Y (runner 2): 6 ($(remote_tokens "$sgy"))" test "$(remote_tokens "$sgy")" = 6

# --- X -> Y: copy manager 1's token redeemed at copy manager 2 ----------------------
old=$(range "$X/x.img" 0 $MB)
out=$("$XCB" pt "$sgx" 0x660 0 "$W/x.tok" 0:2048 || true)
lab_check "PT on X (runner 1, reflink): GOOD (${out//$'\n'/; })" test -s "$W/x.tok"
lab_random "$W/new" $MB
dd if="$W/new" of="$sdx" bs=1M count=1 oflag=direct conv=notrunc status=none
lab_check "X [0, 1 MiB) overwritten after the PT" test "$(range "$X/x.img" 0 $MB)" != "$old"
w0=$(acl_mb "$IQN_Y" "$CMI1" write)
p0=$(lab_port_mb "$y")
out=$("$XCB" wut "$sgy" 0x661 "$W/x.tok" 0 0 $((14 * MB / 512)):2048 || true)
lab_check "WUT on Y (runner 2) with X's token: GOOD (${out//$'\n'/; })" test "$(sense "$out")" = "0 0"
lab_check "... Y [14, 15 MiB) = X [0, 1 MiB) as at the PT (point in time kept)" \
	test "$(range "$W/y.img" $((14 * MB)) $MB)" = "$old"
lab_check "... runner 2 had the token's creator redeem it" grep -q "redeemed by the token's creator" "$LOG2"
lab_check "... the bytes went over copy manager 1's session to T2 ($w0 -> $(acl_mb "$IQN_Y" "$CMI1" write) MiB)" \
	test "$(acl_mb "$IQN_Y" "$CMI1" write)" -ge $((w0 + 1))
lab_check "... none over Y's tcm_loop port ($p0 -> $(lab_port_mb "$y") MiB)" test "$(lab_port_mb "$y")" = "$p0"

# --- Y -> X: copy manager 2's token redeemed at copy manager 1 ----------------------
out=$("$XCB" pt "$sgy" 0x662 0 "$W/y.tok" $((8 * MB / 512)):2048 || true)
lab_check "PT on Y (runner 2): GOOD (${out//$'\n'/; })" test -s "$W/y.tok"
out=$("$XCB" wut "$sgx" 0x663 "$W/y.tok" 0 0 $((14 * MB / 512)):2048 || true)
lab_check "WUT on X (runner 1) with Y's token: GOOD (${out//$'\n'/; })" test "$(sense "$out")" = "0 0"
lab_check "... X [14, 15 MiB) = Y [8, 9 MiB)" \
	test "$(range "$X/x.img" $((14 * MB)) $MB)" = "$(range "$W/y.img" $((8 * MB)) $MB)"
lab_check "... runner 1 had the token's creator redeem it" grep -q "redeemed by the token's creator" "$LOG1"

# --- refusals ------------------------------------------------------------------------
refused() { # LABEL WANT(key asc) DEV IMG LBA: WUT's sense, the destination MiB unchanged
	local before
	before=$(range "$4" $(($5 * 512)) $MB)
	out=$("$XCB" wut "$3" "$6" "$7" 0 0 "$5":2048 || true)
	[ "$(sense "$out")" = "$2" ] || { echo "sense $(sense "$out"), want $2: $out"; return 1; }
	[ "$(range "$4" $(($5 * 512)) $MB)" = "$before" ] || { echo "destination changed"; return 1; }
}
out=$("$XCB" pt "$sgy" 0x664 0 "$W/c.tok" $((4 * MB / 512)):2048 || true)
dd if="$W/new" of="$sdy" bs=4k count=1 seek=$((4 * MB / 4096)) oflag=direct conv=notrunc status=none
lab_check "a change vulnerable token of Y, Y written after: WUT on X: 23/08 TOKEN CANCELLED, from the creator" \
	refused cancelled "0x05 0x2308" "$sgx" "$X/x.img" $((12 * MB / 512)) 0x665 "$W/c.tok"
out=$("$XCB" pt "$sgx" 0x666 0 "$W/d.tok" $((2 * MB / 512)):2048 || true)
out=$("$XCB" wut "$sgy" 0x667 "$W/d.tok" 0 1 $((12 * MB / 512)):2048 || true)
lab_check "WUT on Y with DEL_TKN: GOOD (${out//$'\n'/; })" test "$(sense "$out")" = "0 0"
lab_check "... the token used again: 23/09 TOKEN DELETED, from the creator" \
	refused deleted "0x05 0x2309" "$sgy" "$W/y.img" $((10 * MB / 512)) 0x668 "$W/d.tok"
out=$("$XCB" pt "$sgx2" 0x669 0 "$W/x2.tok" 0:2048 || true)
lab_check "X2's token (its creator not in copy manager 2's map) at Y: 23/02 REMOTE TOKEN USAGE NOT SUPPORTED" \
	refused unmapped "0x05 0x2302" "$sgy" "$W/y.img" $((6 * MB / 512)) 0x66a "$W/x2.tok"
out=$("$XCB" pt "$sgx" 0x66b 0 "$W/e.tok" 0:2048 || true)
lab_check "X's token at Y2 (not in copy manager 1's map: it answers 08/04): 23/02" \
	refused unreachable "0x05 0x2302" "$sgy2" "$W/y2.img" 0 0x66c "$W/e.tok"
lab_check "... copy manager 1 refused to reach Y2" grep -q "cannot reach this LU to redeem" "$LOG2"

# --- the Windows pattern across targets: PT of 16 ranges on X, WUT on Y -------------------
out=$("$XCB" winpat "$sgx" "$sgy" 0 $((8 * MB / 512)) 8192 16 128 || true)
sum=$(tail -1 <<<"$out")
lab_msg "$sum"
lab_check "Windows pattern X -> Y: PT of 16 ranges + RRTI on X, WUT (DEL_TKN) + RRTI on Y, all as Windows checks" \
	test "$(field ok <<<"$sum") $(field wuts <<<"$sum")" = "1 1"
bad=0
for ((i = 0; i < 16; i++)); do
	cmp -s -n $((256 * 1024)) -i $((i * 320 * 1024)):$((8 * MB + i * 256 * 1024)) "$X/x.img" "$W/y.img" ||
		bad=$((bad + 1))
done
lab_check "... Y [8, 12 MiB) = the 16 source ranges of X, byte for byte ($bad differ)" test "$bad" = 0

# --- ESXi's data mover pattern across targets (vSphere 8 "Extended XCOPY") ---------------
# As public material describes it: RECEIVE COPY RESULTS (operating parameters),
# then LID1 EXTENDED COPY to the destination, LIST ID USAGE 11b, E4h NAA CSCDs,
# one 02h segment of 4 MiB (DataMover.MaxHWTransferSize) per command.
esx_clone() { # DST_SG OUT SRC_SERIAL DST_SERIAL SRC_LBA DST_LBA BLOCKS
	local done=0 n
	sg_raw -r 1024 "$1" 84 03 00 00 00 00 00 00 00 00 00 00 04 00 00 00 >"$2.rcr" 2>&1 || return 1
	while [ "$done" -lt "$7" ]; do
		n=$(($7 - done < 8192 ? $7 - done : 8192))
		lab_xcopy_e4 "$1" "$2.$done" "$3" "$4" "$n" $(($5 + done)) $(($6 + done)) ||
			{ cat "$2.$done"; return 1; }
		done=$((done + n))
	done
}
lab_check "ESXi pattern to Y2 (runner 2) from X (runner 1): 2 commands of 4 MiB, GOOD" \
	esx_clone "$sgy2" "$W/esx1" "$SER_X" "$SER_Y2" 8192 8192 16384
lab_check "... Y2 [4, 12 MiB) = X [4, 12 MiB)" \
	cmp -s -n $((8 * MB)) -i $((4 * MB)):$((4 * MB)) "$X/x.img" "$W/y2.img"
lab_check "ESXi pattern to X2 (runner 1) from Y (runner 2): GOOD" \
	esx_clone "$sgx2" "$W/esx2" "$SER_Y" "$SER_X2" 0 8192 16384
lab_check "... X2 [4, 12 MiB) = Y [0, 8 MiB)" \
	cmp -s -n $((8 * MB)) -i 0:$((4 * MB)) "$W/y.img" "$W/x2.img"

# --- the host library across targets: xcp --method=odx --------------------------------
export XCOPY_INITIATOR_IQN=$HOST
n=$((2 * MB / 512))
rc=0
"$XCP" -v --no-progress --stats=json --method=odx --src-lba 0 --dst-lba $((2 * MB / 512)) \
	--blocks "$n" "$T1" "$T2" >"$W/xcp.json" 2>"$W/xcp.err" || rc=$?
lab_check "xcp --method=odx $T1 -> $T2: exit 0 ($rc; $(tail -2 "$W/xcp.err" | tr '\n' ' '))" test "$rc" = 0
lab_check "... Y [2, 4 MiB) = X [0, 2 MiB)" \
	test "$(range "$W/y.img" $((2 * MB)) $((2 * MB)))" = "$(range "$X/x.img" 0 $((2 * MB)))"
lab_check "... every byte by token, none by the host ($(jq -c '{bytes_offloaded, bytes_host}' "$W/xcp.json"))" \
	test "$(jq -r '.bytes_offloaded' "$W/xcp.json") $(jq -r '.bytes_host' "$W/xcp.json")" = "$((2 * MB)) 0"
lab_check "... the host's ACL counters on T1 and T2: 0 MiB read and written" \
	test "$(acl_mb "$IQN_X" "$HOST" read)$(acl_mb "$IQN_X" "$HOST" write)$(acl_mb "$IQN_Y" "$HOST" read)$(acl_mb "$IQN_Y" "$HOST" write)" = 0000
lab_msg "660: $((SECONDS - t0)) s"
lab_summary
