#!/bin/bash
# Delegation (issue #36, target/peer/peer_deleg.c): an EXTENDED COPY (LID1)
# received by a user:xcopy LU X (tcm_loop) whose two CSCDs name LUs of one
# other iSCSI target (LIO, 127.0.0.1:3260, two fileio LUs P and P2 behind
# one target name, its ACL admitting the copy manager's initiator on both)
# is forwarded to that target: LIO's own copy manager copies P -> P2 inside
# the kernel (same ACL, same TPG: its rule), the plugin moves no block.
#   P -> P2, 16 MiB (two segments): GOOD, bytes compared; the copy manager's
#     session (LIO's ACL counters of its initiator, LUN 0 and 1) moved
#     < 1 MiB; delegated_bytes +16 MiB, gateway_bytes +0; logged
#   the same through a target whose source LU has emulate_3pc = 0 (INQUIRY
#     3PC = 0): GOOD through the plugin (gateway_bytes +4 MiB, the
#     session's counters moved the data), the reason logged
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-652
MB=1048576
MAP=/etc/xcopy/peers.conf
CM=iqn.2026-12.org.example:xcopy652-cm
IQN_P=iqn.2003-01.org.linux-iscsi.lab:peer652
IQN_N=iqn.2003-01.org.linux-iscsi.lab:peer652n
SER_X=65200001-aaaa-bbbb-cccc-000000000000
SER_P=65200002-aaaa-bbbb-cccc-000000000000
SER_P2=65200003-aaaa-bbbb-cccc-000000000000
SER_N=65200004-aaaa-bbbb-cccc-000000000000
SER_N2=65200005-aaaa-bbbb-cccc-000000000000
mkdir -p "$W" /etc/xcopy
trap 'rm -f "$MAP"' EXIT
for f in x p p2 n n2; do lab_random "$W/$f.img" $((32 * MB)); done


x=$(lab_user_create dx xcopy "$W/x.img" 32M "$SER_X")
p=$(lab_fileio_create dp "$W/p.img" 32M "$SER_P")
p2=$(lab_fileio_create dp2 "$W/p2.img" 32M "$SER_P2")
n=$(lab_fileio_create dn "$W/n.img" 32M "$SER_N")
n2=$(lab_fileio_create dn2 "$W/n2.img" 32M "$SER_N2")
echo 0 >"$n/attrib/emulate_3pc"
lab_iscsi_export --acl "$CM" "$IQN_P" "$p" "$p2" >/dev/null
lab_iscsi_export --acl "$CM" "$IQN_N" "$n" "$n2" >/dev/null
read -r _ sgx <<<"$(lab_loop_export "$x")"

umask 077
cat >"$MAP" <<MAP
# lab 652: two LUs of one target, twice
naa.$(lab_naa "$SER_P") iscsi://127.0.0.1:3260/$IQN_P/0 initiator=$CM
naa.$(lab_naa "$SER_P2") iscsi://127.0.0.1:3260/$IQN_P/1 initiator=$CM
naa.$(lab_naa "$SER_N") iscsi://127.0.0.1:3260/$IQN_N/0 initiator=$CM
naa.$(lab_naa "$SER_N2") iscsi://127.0.0.1:3260/$IQN_N/1 initiator=$CM
MAP
chmod 600 "$MAP"

# xcopy SRC_SERIAL DST_SERIAL BLOCKS SRC_LBA DST_LBA [BLOCKS SRC_LBA DST_LBA] :
#   one LID1 EXTENDED COPY to X, two E4h CSCDs, one or two 02h segments
xcopy() {
	local s d hex nseg=$(($# > 5 ? 2 : 1)) len
	s=$(lab_naa "$1")
	d=$(lab_naa "$2")
	shift 2
	len=$((16 + 64 + 28 * nseg))
	hex=$(
		printf '0018004000000000 000000%02x00000000' $((28 * nseg))
		for c in "$s" "$d"; do printf 'e4000000 01030010 %s 0000000000000200' "$c"; done
		while [ $# -ge 3 ]; do
			printf '02000018 00000001 0000%04x %016x%016x' "$1" "$2" "$3"
			shift 3
		done
	)
	hex=${hex// /}
	# shellcheck disable=SC2001 # every pair of digits becomes \xHH
	printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")" >"$W/list"
	sg_raw -s "$len" -i "$W/list" "$sgx" 83 00 00 00 00 00 00 00 00 00 00 00 00 \
		"$(printf '%02x' "$len")" 00 00 >"$W/out" 2>&1
}
same() { cmp -s -i "$2:$4" -n "$5" "$1" "$3"; }
# the copy manager's session on IQN: MiB in + out of its ACL's LUN 0 and 1
cm_mb() {
	local t=0 l d v
	for l in 0 1; do
		for d in read write; do
			read -r v <"$LAB_CFS/iscsi/$1/tpgt_1/acls/$CM/lun_$l/statistics/scsi_auth_intr/${d}_mbytes"
			t=$((t + v))
		done
	done
	echo "$t"
}
LOG=$LAB_RUN_DIR/tcmu/tcmu-runner.log

# --- delegated: P [0, 8M) -> P2 [16M, 24M), P [8M, 16M) -> P2 [4M, 12M) ------
s0=$(cm_mb "$IQN_P")
d0=$(xt_stat dx delegated_bytes)
g0=$(xt_stat dx gateway_bytes)
lab_check "P -> P2 (16 MiB, two segments) through X: GOOD" \
	xcopy "$SER_P" "$SER_P2" 16384 0 32768 16384 16384 8192
lab_check "P2 [16M, 24M) = P [0, 8M)" same "$W/p2.img" $((16 * MB)) "$W/p.img" 0 $((8 * MB))
lab_check "P2 [4M, 12M) = P [8M, 16M)" same "$W/p2.img" $((4 * MB)) "$W/p.img" $((8 * MB)) $((8 * MB))
s=$(($(cm_mb "$IQN_P") - s0))
lab_msg "copy manager's session on $IQN_P: $s MiB; delegated_bytes +$(($(xt_stat dx delegated_bytes) - d0))"
lab_check "the data did not cross the copy manager's session (ACL counters +$s MiB < 1)" \
	test "$s" -eq 0
lab_check "delegated_bytes +16 MiB" test $(($(xt_stat dx delegated_bytes) - d0)) -eq $((16 * MB))
lab_check "gateway_bytes +0" test $(($(xt_stat dx gateway_bytes) - g0)) -eq 0
lab_check "the delegation logged" grep -q "delegated to their target's copy manager" "$LOG"

# --- no copy manager there (emulate_3pc = 0 on N): moved by the plugin ---------
s0=$(cm_mb "$IQN_N")
g0=$(xt_stat dx gateway_bytes)
lab_check "N -> N2 (4 MiB), N without 3PC: GOOD" xcopy "$SER_N" "$SER_N2" 8192 0 8192
lab_check "N2 [4M, 8M) = N [0, 4M)" same "$W/n2.img" $((4 * MB)) "$W/n.img" 0 $((4 * MB))
s=$(($(cm_mb "$IQN_N") - s0))
lab_check "... through the copy manager's session ($s MiB >= 8: read + written)" test "$s" -ge 8
lab_check "... gateway_bytes +4 MiB" test $(($(xt_stat dx gateway_bytes) - g0)) -eq $((4 * MB))
lab_check "... the reason logged" grep -q "no copy manager (INQUIRY 3PC = 0)" "$LOG"
lab_check "tcmu-runner alive" pgrep -x tcmu-runner
lab_summary
