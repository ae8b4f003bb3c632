#!/bin/bash
# Two copy managers of this project in one guest (#36: a token of one copy
# manager redeemed at another needs two): the lab's tcmu-runner (user:xcopy)
# and a second one started by tests/lab/cm2-lib.sh (XCOPY_SUBTYPE=cm2, its own
# /run, peer map and stats folder), each with handler_xcopy.so, both serving
# at once:
#   two tcmu-runner processes, distinct pids and mount namespaces, the second
#     registered cm2 only; lab_user_create refuses while both run (an LU
#     awaiting netlink answers fails to enable, and its runner dies: see
#     cm2-lib.sh); each LU opened by its own runner only
#   READ/WRITE through tcm_loop on a LU of each (bytes compared with the
#     backing files); a local EXTENDED COPY by sg_xcopy on each (compared; the
#     command counted by the receiving LU's own runner's stats, none by the
#     other's)
#   copies between them through the peer maps (LID1 lists made by sg_raw):
#     copy manager 1 pushes X -> Y (runner 2's LU behind iSCSI target T2,
#     whose ACL admits copy manager 1's initiator), copy manager 2 pushes
#     Y -> X (X behind T1, ACL copy manager 2's initiator); compared
#   LAB_CM2_CYCLES (5) create / enable / export / READ / remove cycles of a
#     LU of each runner, alternating: every one opened by its runner,
#     served, closed by it; both runners alive after each; X and Y still
#     served after the loop. 5, not the 10 of before 2026-12-07 (~3 s a
#     cycle under TCG): the failure they guard against (the other runner
#     answering the enable, cm2-lib.sh) hit 6 of 6 LUs when it was there,
#     and all 9 CI runs with 10 had 10 + 10 good
#   recorded, not asserted: a ROD token of POPULATE TOKEN on X (runner 1)
#     given to WRITE USING TOKEN on Y (runner 2), status and sense printed
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
W=/tmp/lab-659
CM2_DIR=$W/cm2
# shellcheck source=tests/lab/cm2-lib.sh
. "$HERE/../cm2-lib.sh"
lab_require_guest

MB=1048576
MAP1=/etc/xcopy/peers.conf
CMI1=iqn.2026-12.org.example:cm659-1
CMI2=iqn.2026-12.org.example:cm659-2
IQN_X=iqn.2003-01.org.linux-iscsi.lab:cm659x
IQN_Y=iqn.2003-01.org.linux-iscsi.lab:cm659y
SER_X=65900001-aaaa-bbbb-cccc-000000000000
SER_X2=65900002-aaaa-bbbb-cccc-000000000000
SER_Y=65900003-aaaa-bbbb-cccc-000000000000
SER_Y2=65900004-aaaa-bbbb-cccc-000000000000
XCB=$LAB_BUILD/bench/xcbench
CYCLES=${LAB_CM2_CYCLES:-5}
mkdir -p "$W" /etc/xcopy
trap 'cm2_teardown; rm -f "$MAP1"' EXIT
t0=$SECONDS

same() { cmp -s -i "$2:$4" -n "$5" "$1" "$3"; }
alive() { kill -0 "$@" 2>/dev/null; }   # every pid given is alive
stat2() { XT_STATS_DIR=$CM2_STATS xt_stat "$@"; }
LOG1=$(cm2_log xcopy)

# --- two runners ---------------------------------------------------------------
pid1=$(cm2_pid xcopy)
cm2_start >/dev/null || true
pid2=$CM2_PID
LOG2=$(cm2_log cm2)
lab_msg "runner 1: pid $pid1 ($LOG1); runner 2: pid $pid2 ($LOG2)"
lab_check "runner 2 started: two tcmu-runner processes, distinct pids ($pid1, $pid2)" \
	test -n "$pid1" -a -n "$pid2" -a "$pid1" != "$pid2" -a "$(pidof tcmu-runner | wc -w)" = 2
lab_check "both alive" alive "$pid1" "$pid2"
lab_check "runner 2 is tcmu-runner" test "$(readlink "/proc/$pid2/exe")" = "$(readlink "/proc/$pid1/exe")"
lab_check "runner 2 has a mount namespace of its own (private /run)" \
	test "$(readlink "/proc/$pid2/ns/mnt")" != "$(readlink "/proc/$pid1/ns/mnt")"
lab_check "runner 2 registered subtype cm2, and no other" \
	test "$(grep -c 'Handler .* is registered' "$LOG2")" = 1 -a "$(grep -c 'Handler cm2 is registered' "$LOG2")" = 1

lab_check_fails "lab_user_create refuses while runner 2 runs (its enable would kill runner 1)" \
	lab_user_create cmbad xcopy "$W/bad.img" 4M
lab_check "... and made no backstore" test -z "$(compgen -G "$LAB_CFS/core/user_*/cmbad")"

# --- LUs of each ------------------------------------------------------------------
for f in x x2 y y2; do lab_random "$W/$f.img" $((16 * MB)); done
x=$(cm2_lu_create cmx xcopy "$W/x.img" 16M "$SER_X")
x2=$(cm2_lu_create cmx2 xcopy "$W/x2.img" 16M "$SER_X2")
y=$(cm2_lu_create cmy cm2 "$W/y.img" 16M "$SER_Y")
y2=$(cm2_lu_create cmy2 cm2 "$W/y2.img" 16M "$SER_Y2")
lab_check "X opened by runner 1 only" test "$(cm2__opened xcopy cmx)$(cm2__opened cm2 cmx)" = 10
lab_check "Y opened by runner 2 only" test "$(cm2__opened cm2 cmy)$(cm2__opened xcopy cmy)" = 10
{ read -r sdx sgx; read -r _ sgx2; } <<<"$(lab_loop_export "$x" "$x2")"
{ read -r sdy sgy; read -r _ sgy2; } <<<"$(lab_loop_export "$y" "$y2")"

# READ / WRITE: 1 MiB written at 2 MiB through each LU, read back, and the LU read at 5 MiB
lab_random "$W/w1" $MB
lab_random "$W/w2" $MB
rw() { # SD WFILE IMG
	dd if="$2" of="$1" bs=1M seek=2 count=1 oflag=direct conv=notrunc status=none &&
		same "$3" $((2 * MB)) "$2" 0 $MB &&
		dd if="$1" of="$W/r" bs=1M skip=5 count=1 iflag=direct status=none &&
		same "$3" $((5 * MB)) "$W/r" 0 $MB
}
lab_check "WRITE and READ through X (runner 1) = x.img" rw "$sdx" "$W/w1" "$W/x.img"
lab_check "WRITE and READ through Y (runner 2) = y.img" rw "$sdy" "$W/w2" "$W/y.img"

# local EXTENDED COPY (sg_xcopy, sent to the destination): X [0,4) -> X2 [8,12), Y [4,8) -> Y2 [0,4)
c1=$(xt_stat cmx2 commands_ok)
lab_check "sg_xcopy X -> X2 (runner 1's copy manager)" \
	sg_xcopy if="$sgx" of="$sgx2" bs=512 skip=0 seek=16384 count=8192
lab_check "... X2's blocks are X's" same "$W/x2.img" $((8 * MB)) "$W/x.img" 0 $((4 * MB))
lab_check "... counted by runner 1 ($(xt_stat cmx2 commands_ok) commands on cmx2)" \
	test "$(xt_stat cmx2 commands_ok)" -gt "$c1"
c2=$(stat2 cmy2 commands_ok)
lab_check "sg_xcopy Y -> Y2 (runner 2's copy manager)" \
	sg_xcopy if="$sgy" of="$sgy2" bs=512 skip=8192 seek=0 count=8192
lab_check "... Y2's blocks are Y's" same "$W/y2.img" 0 "$W/y.img" $((4 * MB)) $((4 * MB))
lab_check "... counted by runner 2 ($(stat2 cmy2 commands_ok) commands on cmy2), runner 1 has no such LU" \
	test "$(stat2 cmy2 commands_ok)" -gt "$c2" -a ! -e "$XT_STATS_DIR/cmy2.stats"

# --- copies between the two copy managers (peer maps) ---------------------------
cm2_iscsi_export "$IQN_X" "$x" "$CMI2" >/dev/null
cm2_iscsi_export "$IQN_Y" "$y" "$CMI1" >/dev/null
umask 077
printf 'naa.%s iscsi://127.0.0.1:3260/%s/0 initiator=%s\n' "$(lab_naa "$SER_Y")" "$IQN_Y" "$CMI1" >"$MAP1"
printf 'naa.%s iscsi://127.0.0.1:3260/%s/0 initiator=%s\n' "$(lab_naa "$SER_X")" "$IQN_X" "$CMI2" >"$CM2_PEERS"
chmod 600 "$MAP1" "$CM2_PEERS"
umask 022
# copy manager 1: X [0,2) -> Y [10,12); copy manager 2: Y [8,10) -> X [12,14)
lab_check "copy manager 1 pushes X -> Y (runner 2's LU, iSCSI T2): GOOD" \
	lab_xcopy_e4 "$sgx" "$W/out1" "$SER_X" "$SER_Y" 4096 0 20480
lab_check "... Y's blocks are X's" same "$W/y.img" $((10 * MB)) "$W/x.img" 0 $((2 * MB))
lab_check "... runner 1 logged the peer" grep -q "copy with peer LU peer:$IQN_Y/0" "$LOG1"
lab_check "copy manager 2 pushes Y -> X (runner 1's LU, iSCSI T1): GOOD" \
	lab_xcopy_e4 "$sgy" "$W/out2" "$SER_Y" "$SER_X" 4096 16384 24576
lab_check "... X's blocks are Y's" same "$W/x.img" $((12 * MB)) "$W/y.img" $((8 * MB)) $((2 * MB))
lab_check "... runner 2 logged the peer" grep -q "copy with peer LU peer:$IQN_X/0" "$LOG2"

# --- recorded: a token of runner 1 given to runner 2 ------------------------------
if [ -x "$XCB" ]; then
	cp "$W/y.img" "$W/y.before"
	pt=$("$XCB" pt "$sgx" 0x659 0 "$W/x.tok" 0:2048 2>&1 || true)
	wut=$("$XCB" wut "$sgy" 0x65a "$W/x.tok" 0 0 $((14 * MB / 512)):2048 2>&1 || true)
	if cmp -s "$W/y.img" "$W/y.before"; then ych="Y unchanged"; else ych="Y CHANGED"; fi
	wutl=$("$XCB" wut "$sgx2" 0x65b "$W/x.tok" 0 0 $((14 * MB / 512)):2048 2>&1 || true)
	echo "RECORD: POPULATE TOKEN on X (runner 1): ${pt//$'\n'/; }"
	echo "RECORD: WRITE USING TOKEN on Y (runner 2) with X's token: ${wut//$'\n'/; } ($ych)"
	echo "RECORD: the same token on X2 (runner 1, same nexus as X): ${wutl//$'\n'/; }"
	printf '659 pt %s\n659 wut-cm2 %s (%s)\n659 wut-cm1 %s\n' "${pt//$'\n'/; }" "${wut//$'\n'/; }" \
		"$ych" "${wutl//$'\n'/; }" >"$LAB_RESULTS/659-token.txt"
else
	echo "RECORD: no $XCB: token not tried"
fi

# --- create / remove cycles on each side --------------------------------------------
lab_random "$W/c1.img" $((4 * MB))
lab_random "$W/c2.img" $((4 * MB))
tpg1=$(lab_loop_create)
tpg2=$(lab_loop_create)
cycle() { # SUBTYPE NAME IMG TPG
	local so sd
	so=$(cm2_lu_create "$2" "$1" "$3" 4M) || return 1
	read -r sd _ <<<"$(lab_loop_add_lun "$4" "$so" 0)" || return 1
	dd if="$sd" of="$W/cr" bs=64k count=16 iflag=direct status=none || return 1
	same "$3" 0 "$W/cr" 0 $MB || { lab_msg "cycle $2: READ differs from $3"; return 1; }
	cm2_lu_remove "$so" || return 1
	alive "$pid1" "$pid2" || { lab_msg "cycle $2: a runner died"; return 1; }
}
ok1=0 ok2=0 tc=$SECONDS
for ((i = 1; i <= CYCLES; i++)); do
	cycle xcopy "cyc1_$i" "$W/c1.img" "$tpg1" && ok1=$((ok1 + 1))
	cycle cm2 "cyc2_$i" "$W/c2.img" "$tpg2" && ok2=$((ok2 + 1))
done
lab_msg "cycles: $ok1 + $ok2 of $CYCLES + $CYCLES in $((SECONDS - tc)) s"
lab_check "$CYCLES create/enable/READ/remove cycles of a runner 1 LU: $ok1 succeeded" test "$ok1" = "$CYCLES"
lab_check "$CYCLES create/enable/READ/remove cycles of a runner 2 LU: $ok2 succeeded" test "$ok2" = "$CYCLES"
lab_check "both runners still the same processes, alive" alive "$pid1" "$pid2"
lab_check "... and no third one" test "$(pidof tcmu-runner | wc -w)" = 2
lab_check "X still served after the cycles (READ = x.img)" rw "$sdx" "$W/w2" "$W/x.img"
lab_check "Y still served after the cycles (READ = y.img)" rw "$sdy" "$W/w1" "$W/y.img"
lab_check "no runner logged a failed open of its own LU" \
	test "$(grep -c 'handler open failed' "$LOG1" "$LOG2" | awk -F: '{ s += $2 } END { print s }')" = 0
lab_msg "659: $((SECONDS - t0)) s"
lab_summary
