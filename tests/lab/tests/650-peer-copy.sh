#!/bin/bash
# Copies between targets (issue #36, target/peer/): an EXTENDED COPY (LID1)
# received by a user:xcopy LU X (tcm_loop) whose other CSCD names, by its NAA
# designator, a LIO fileio LU P of another iSCSI target (127.0.0.1:3260, its
# own target name, an ACL admitting only the copy manager's initiator name).
# The peer map (/etc/xcopy/peers.conf, root's 0600) names P; the plugin logs
# in and moves the blocks itself. The parameter list is made here (sg_raw:
# sg_xcopy needs both LUs local):
#   push X -> P and pull P -> X, 4 MiB and 2 MiB, bytes compared with the
#     backing files; P's fabric counters show the copy went over iSCSI
#   LID4 (83h/01h) push X -> P: GOOD, bytes compared, RECEIVE COPY STATUS
#     (LID4) completed, 1 MiB, 1 segment; with P write-protected for the copy
#     manager's ACL: COPY ABORTED 0D/01 (P's DATA PROTECT forwarded), RCS
#     (LID4) completed with errors, 0 bytes, the sense held
#   an iSCSI IPv6 CSCD (EAh) naming P by portal (::ffff:127.0.0.1, 3260) and
#     LUN 0: 08/04 while Q's entry shares them (logged), then push and pull,
#     bytes compared; another port 08/04
#   a designator neither here nor in the map: COPY ABORTED 08/04, no login
#   a map entry whose target's ACL refuses the initiator: COPY ABORTED 0D/02,
#     P2 unchanged
#   a world-readable map: refused whole (08/04), the reason in the log
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-650
MB=1048576
MAP=/etc/xcopy/peers.conf
CM=iqn.2026-12.org.example:xcopy650-cm
IQN_P=iqn.2003-01.org.linux-iscsi.lab:peer650
IQN_Q=iqn.2003-01.org.linux-iscsi.lab:peer650q
SER_X=65000001-aaaa-bbbb-cccc-000000000000
SER_P=65000002-aaaa-bbbb-cccc-000000000000
SER_Q=65000003-aaaa-bbbb-cccc-000000000000
SER_N=65000009-aaaa-bbbb-cccc-000000000000   # no LU has it
mkdir -p "$W" /etc/xcopy
trap 'rm -f "$MAP"' EXIT
lab_random "$W/x.img" $((8 * MB))
lab_random "$W/p.img" $((8 * MB))
lab_random "$W/q.img" $((8 * MB))
cp "$W/q.img" "$W/q.orig"


x=$(lab_user_create px xcopy "$W/x.img" 8M "$SER_X")
p=$(lab_fileio_create pp "$W/p.img" 8M "$SER_P")
q=$(lab_fileio_create pq "$W/q.img" 8M "$SER_Q")
lab_iscsi_export --acl "$CM" "$IQN_P" "$p" >/dev/null
lab_iscsi_export --acl iqn.2026-12.org.example:someone-else "$IQN_Q" "$q" >/dev/null
read -r _ sgx <<<"$(lab_loop_export "$x")"

umask 077
cat >"$MAP" <<MAP
# lab 650
naa.$(lab_naa "$SER_P") iscsi://127.0.0.1:3260/$IQN_P/0 initiator=$CM
naa.$(lab_naa "$SER_Q") iscsi://127.0.0.1/$IQN_Q/0 initiator=$CM
MAP
chmod 600 "$MAP"

# xcopy SRC_SERIAL DST_SERIAL BLOCKS SRC_LBA DST_LBA : one LID1 EXTENDED COPY to
#   X (lab_xcopy_e4), sg_raw's output in $W/out
xcopy() { lab_xcopy_e4 "$sgx" "$W/out" "$@"; }
same() { cmp -s -i "$2:$4" -n "$5" "$1" "$3"; }
# xcopy4 ID SRC_SERIAL DST_SERIAL BLOCKS SRC_LBA DST_LBA : the same as LID4
#   (83h SA 01h, 48-byte header, LIST ID USAGE 00b: results held under ID)
xcopy4() {
	local s d hex id=$1 n=$4 sl=$5 dl=$6
	s=$(lab_naa "$2")
	d=$(lab_naa "$3")
	hex=$(
		printf '01%030d %08d%08x %036d 0040001c0000' 0 0 "$id" 0
		for c in "$s" "$d"; do printf 'e4000000 01030010 %s 0000000000000200' "$c"; done
		printf '02000018 00000001 0000%04x %016x%016x' "$n" "$sl" "$dl"
	)
	hex=${hex// /}
	# shellcheck disable=SC2001 # every pair of digits becomes \xHH
	printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")" >"$W/list4"
	sg_raw -s 140 -i "$W/list4" "$sgx" 83 01 00 00 00 00 00 00 00 00 00 00 00 8c 00 00 >"$W/out" 2>&1
}
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
XCB=$LAB_BUILD/bench/xcbench

fab0=$(lab_fabric_mb "$p")
# push: X [0, 4 MiB) -> P [1 MiB, 5 MiB)
lab_check "push X -> P: GOOD" xcopy "$SER_X" "$SER_P" 8192 0 2048
lab_check "push: P's blocks are X's" same "$W/p.img" $((1 * MB)) "$W/x.img" 0 $((4 * MB))
# pull: P [6 MiB, 8 MiB) -> X [5 MiB, 7 MiB)
lab_check "pull P -> X: GOOD" xcopy "$SER_P" "$SER_X" 4096 12288 10240
lab_check "pull: X's blocks are P's" same "$W/x.img" $((5 * MB)) "$W/p.img" $((6 * MB)) $((2 * MB))
fab=$(($(lab_fabric_mb "$p") - fab0))
lab_check "P's iSCSI LU moved the 6 MiB ($fab MiB)" test "$fab" -ge 6
lab_check "the plugin logged the peer" grep -q "copy with peer LU peer:$IQN_P/0" \
	"$LAB_RUN_DIR/tcmu/tcmu-runner.log"

# LID4: push X [0, 1 MiB) -> P [5 MiB, 6 MiB), results held
lab_check "LID4 push X -> P: GOOD" xcopy4 $((0x65000004)) "$SER_X" "$SER_P" 2048 0 10240
lab_check "LID4 push: P's blocks are X's" same "$W/p.img" $((5 * MB)) "$W/x.img" 0 $((1 * MB))
st=$("$XCB" rcs4 "$sgx" 0x65000004 | tail -1)
lab_msg "RCS(LID4) 0x65000004: $st"
lab_check "RCS(LID4): completed (01h), 1048576 bytes, 1 segment" \
	test "$(field op_status <<<"$st") $(field bytes <<<"$st") $(field segs <<<"$st")" = "0x01 1048576 1"
# P write-protected for the copy manager: its WRITE fails, DATA PROTECT forwarded
WP=$LAB_CFS/iscsi/$IQN_P/tpgt_1/acls/$CM/lun_0/write_protect
cp "$W/p.img" "$W/p.orig"
echo 1 >"$WP"
lab_check_fails "LID4 push to a write-protected P: refused" \
	xcopy4 $((0x65000005)) "$SER_X" "$SER_P" 2048 2048 10240
echo 0 >"$WP"
lab_msg "$(cat "$W/out")"
lab_check "... COPY ABORTED, third party device failure (0D/01)" \
	grep -qi "third party device failure" "$W/out"
lab_check "... P unchanged" cmp -s "$W/p.img" "$W/p.orig"
st=$("$XCB" rcs4 "$sgx" 0x65000005 | tail -1)
lab_msg "RCS(LID4) 0x65000005: $st"
lab_check "RCS(LID4): completed with errors (02h), CHECK CONDITION, 0 bytes, sense held" \
	test "$(field op_status <<<"$st") $(field cmd_status <<<"$st") $(field bytes <<<"$st")" = \
	"0x02 2 0" -a "$(field sense_len <<<"$st")" -ge 18

# iSCSI IPv6 CSCD (EAh): P named by portal (::ffff:127.0.0.1 port 3260) and LUN 0
V4=00000000000000000000ffff7f000001
xea() { lab_xcopy_ea "$sgx" "$W/out" "$SER_X" "$@"; }
# the map has P and Q at 127.0.0.1:3260 LUN 0: the CSCD names neither
lab_check_fails "EAh at a portal and LUN two map entries share: refused" xea "$V4" 3260 0 push 8 0 0
lab_check "... COPY ABORTED, unreachable copy target (08/04)" grep -qi "unreachable copy target" "$W/out"
lab_check "... logged" grep -q "2 peer map entries at \[::ffff:127.0.0.1\]:3260 LUN 0" \
	"$LAB_RUN_DIR/tcmu/tcmu-runner.log"
cp "$MAP" "$W/map.both"
grep -v "$IQN_Q" "$W/map.both" >"$MAP"
# push X [0, 1 MiB) -> P [7 MiB, 8 MiB); pull P [0, 1 MiB) -> X [7 MiB, 8 MiB)
lab_check "EAh push X -> P by portal: GOOD" xea "$V4" 3260 0 push 2048 0 14336
lab_check "EAh push: P's blocks are X's" same "$W/p.img" $((7 * MB)) "$W/x.img" 0 $((1 * MB))
lab_check "EAh pull P -> X by portal: GOOD" xea "$V4" 3260 0 pull 2048 0 14336
lab_check "EAh pull: X's blocks are P's" same "$W/x.img" $((7 * MB)) "$W/p.img" 0 $((1 * MB))
lab_check_fails "EAh at another port: refused" xea "$V4" 3261 0 push 8 0 0
lab_check "... 08/04" grep -qi "unreachable copy target" "$W/out"
cp "$W/map.both" "$MAP"

# a designator no LU has and the map does not name
cp "$W/x.img" "$W/x.orig"
lab_check_fails "not in the map: refused" xcopy "$SER_X" "$SER_N" 8 0 0
lab_check "not in the map: COPY ABORTED, unreachable copy target (08/04)" \
	grep -qi "unreachable copy target" "$W/out"
# the map names Q, but Q's target admits another initiator only
lab_check_fails "ACL refuses the copy manager: refused" xcopy "$SER_X" "$SER_Q" 8 0 0
lab_check "ACL refusal: COPY ABORTED, copy target device not reachable (0D/02)" \
	grep -qi "copy target device not reachable" "$W/out"
lab_check "ACL refusal: Q unchanged" cmp -s "$W/q.img" "$W/q.orig"
lab_check "ACL refusal logged" grep -q "peer LU not reachable: login to $IQN_Q" \
	"$LAB_RUN_DIR/tcmu/tcmu-runner.log"
# a world-readable map is refused whole
chmod 644 "$MAP"
lab_check_fails "world-readable map: refused" xcopy "$SER_X" "$SER_P" 8 0 0
lab_check "world-readable map: 08/04" grep -qi "unreachable copy target" "$W/out"
lab_check "world-readable map: reason logged" grep -q "peer map $MAP refused: mode 0644" \
	"$LAB_RUN_DIR/tcmu/tcmu-runner.log"
lab_check "X unchanged by the refusals" cmp -s "$W/x.img" "$W/x.orig"
lab_summary
