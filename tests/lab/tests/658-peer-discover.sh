#!/bin/bash
# Discovery (issue #36 item 1, target/peer/peer_disc.c): the peer map names
# only a portal, "discover iscsi://127.0.0.1:3260 initiator=CM chap_user=…
# chap_secret=…". Behind it: target T (one ACL, CM, CHAP enforced) with a
# LIO fileio LU R at LUN 0 and the fileio LU P at LUN 1; target U (an ACL
# for another initiator only) with Q. A user:xcopy LU X (tcm_loop) receives
# hand-made LID1 lists (sg_raw) naming P, Q or nobody by NAA designator:
#   push X -> P, pull P -> X: GOOD, bytes compared with the backing files
#     (P found by SendTargets, a login to T at the map's portal, REPORT LUNS
#     and VPD 83h), the scan logged
#   a designator no LU behind the portal has: COPY ABORTED 08/04, as an
#     unknown designator gets without discovery
#   Q, whose target refuses CM: 08/04 as well, X unchanged
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-658
MB=1048576
MAP=/etc/xcopy/peers.conf
LOG=$LAB_RUN_DIR/tcmu/tcmu-runner.log
CM=iqn.2026-12.org.example:xcopy658-cm
IQN_T=iqn.2003-01.org.linux-iscsi.lab:peer658
IQN_U=iqn.2003-01.org.linux-iscsi.lab:peer658u
CHAP_USER=xcopy658
CHAP_SECRET=Hv3kP9sW2qLm7xTz
SER_X=65800001-aaaa-bbbb-cccc-000000000000
SER_R=65800002-aaaa-bbbb-cccc-000000000000
SER_P=65800003-aaaa-bbbb-cccc-000000000000
SER_Q=65800004-aaaa-bbbb-cccc-000000000000
SER_N=65800009-aaaa-bbbb-cccc-000000000000   # no LU has it
mkdir -p "$W" /etc/xcopy
trap 'rm -f "$MAP"' EXIT
for f in x r p q; do lab_random "$W/$f.img" $((8 * MB)); done

x=$(lab_user_create dx xcopy "$W/x.img" 8M "$SER_X")
r=$(lab_fileio_create dr "$W/r.img" 8M "$SER_R")
p=$(lab_fileio_create dp "$W/p.img" 8M "$SER_P")
q=$(lab_fileio_create dq "$W/q.img" 8M "$SER_Q")
lab_iscsi_export --acl "$CM" "$IQN_T" "$r" "$p" >/dev/null
TPG=$LAB_CFS/iscsi/$IQN_T/tpgt_1
printf '%s' "$CHAP_USER" >"$TPG/acls/$CM/auth/userid"
printf '%s' "$CHAP_SECRET" >"$TPG/acls/$CM/auth/password"
echo 1 >"$TPG/attrib/authentication"
lab_iscsi_export --acl iqn.2026-12.org.example:someone-else "$IQN_U" "$q" >/dev/null
read -r _ sgx <<<"$(lab_loop_export "$x")"

umask 077
cat >"$MAP" <<MAP
# lab 658: a portal, no LU named
discover iscsi://127.0.0.1:3260 initiator=$CM chap_user=$CHAP_USER chap_secret=$CHAP_SECRET
MAP
chmod 600 "$MAP"

xcopy() { lab_xcopy_e4 "$sgx" "$W/out" "$@"; }
same() { cmp -s -i "$2:$4" -n "$5" "$1" "$3"; }

# push: X [0, 4 MiB) -> P [1 MiB, 5 MiB); pull: P [6 MiB, 8 MiB) -> X [5 MiB, 7 MiB)
lab_check "push X -> P (found by discovery): GOOD" xcopy "$SER_X" "$SER_P" 8192 0 2048
lab_msg "$(grep "peer discovery at 127.0.0.1:3260" "$LOG" | tail -1)"
lab_check "push: P's blocks are X's" same "$W/p.img" $((1 * MB)) "$W/x.img" 0 $((4 * MB))
lab_check "pull P -> X: GOOD" xcopy "$SER_P" "$SER_X" 4096 12288 10240
lab_check "pull: X's blocks are P's" same "$W/x.img" $((5 * MB)) "$W/p.img" $((6 * MB)) $((2 * MB))
lab_check "the copy went to P as LUN 1 of T" grep -q "copy with peer LU peer:$IQN_T/1" "$LOG"
lab_check "the scan logged: R and P found (2 LU designators)" \
	grep -q "peer discovery at 127.0.0.1:3260 as $CM: [0-9]* targets, 2 LU designators" "$LOG"

cp "$W/x.img" "$W/x.orig"
lab_check_fails "a designator not behind the portal: refused" xcopy "$SER_X" "$SER_N" 8 0 0
lab_msg "$(cat "$W/out")"
lab_check "... COPY ABORTED, unreachable copy target (08/04)" \
	grep -qi "unreachable copy target" "$W/out"
lab_check_fails "Q, behind the portal but its target refuses CM: refused" \
	xcopy "$SER_X" "$SER_Q" 8 0 0
lab_check "... COPY ABORTED, unreachable copy target (08/04)" \
	grep -qi "unreachable copy target" "$W/out"
lab_check "X unchanged by the refusals" cmp -s "$W/x.img" "$W/x.orig"
lab_summary
