#!/bin/bash
# xcp between LUs of different targets (issue #36, host side): one EXTENDED
# COPY naming both LUs, sent to the target that can reach the other.
#   X  user:xcopy LU, iSCSI target A (and tcm_loop T1: /dev/sdX)
#   P  LIO fileio LU, iSCSI target B (and tcm_loop T2: /dev/sdP); B admits the
#      requesting initiator and the copy manager's, and the peer map names P
#   Q  LIO fileio LU, iSCSI target C, not in the peer map
# LIO reaches only LUs of the requesting session's ACL (COPY ABORTED 0D/02),
# so xcp's command to P is refused and the next goes to X, whose copy
# manager pushes to (or pulls from) P itself. Checked:
#   iscsi://A -> iscsi://B and back, /dev/sdX -> /dev/sdP and back: every
#     byte offloaded, data compared with cmp, the command that worked sent to
#     X (xcp -v names it);
#   the requesting initiator's bytes (LIO's counters of its ACL on A and B)
#     <= 0.1 % of the iSCSI copies: the counters show whole MiB of an exact
#     byte count, so after the copies each is padded by a host copy (xcp
#     --no-offload, same initiator) of 1 MiB less its share of the 0.1 %
#     budget and must still read 0;
#   X -> Q (not in the map): copied by the host (reason unreachable); with
#     --require-offload: exit 3 naming the reason, Q unchanged;
#   P's emulate_3pc off (INQUIRY 3PC=0: no copy manager there): X's copy
#     manager still pushes, no command goes to P (--require-offload).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

W=/tmp/lab-655
XCP=${LAB_XT_XCP:-$LAB_BUILD/host/xcp}   # LAB_XT_XCP: another build's xcp
MiB=1048576
MB=${LAB_XT_MB:-32}       # MiB per copy
BS=512
N=$((MB * MiB / BS))      # blocks per copy
MAP=/etc/xcopy/peers.conf
HOST=iqn.2026-12.org.example:xcp655-host
CM=iqn.2026-12.org.example:xcopy655-cm
IQN_A=iqn.2003-01.org.linux-iscsi.lab:xt655a
IQN_B=iqn.2003-01.org.linux-iscsi.lab:xt655b
IQN_C=iqn.2003-01.org.linux-iscsi.lab:xt655c
SER_X=65500001-aaaa-bbbb-cccc-000000000000
SER_P=65500002-aaaa-bbbb-cccc-000000000000
SER_Q=65500003-aaaa-bbbb-cccc-000000000000
mkdir -p "$W" /etc/xcopy
trap 'rm -f "$MAP"' EXIT
export XCOPY_INITIATOR_IQN=$HOST

# Regions of MB MiB in every LU: 0 push iSCSI, 1 pull iSCSI, 2 push sd,
# 3 pull sd, 4 the counters' padding, 5 and 6 the copies to Q, 7 the push to
# P without 3PC. Sources are random (the guest's /dev/urandom is slow: two MB
# chunks), the rest zeros.
SIZE=$((8 * MB))M
head -c $((MB * MiB)) /dev/urandom >"$W/r1"
head -c $((MB * MiB)) /dev/urandom >"$W/r2"
for f in x p q; do truncate -s "$SIZE" "$W/$f.img"; done
put() { dd if="$W/$1" of="$W/$2.img" bs=1M seek=$(($3 * MB)) conv=notrunc status=none; }
put r1 x 0; put r2 x 2; put r1 x 5; put r2 x 6; put r2 x 7
put r2 p 1; put r1 p 3
cp --sparse=always "$W/q.img" "$W/q.orig"


x=$(lab_user_create xtx xcopy "$W/x.img" "$SIZE" "$SER_X")
p=$(lab_fileio_create xtp "$W/p.img" "$SIZE" "$SER_P")
q=$(lab_fileio_create xtq "$W/q.img" "$SIZE" "$SER_Q")
A=$(lab_iscsi_export --acl "$HOST" "$IQN_A" "$x")/0
B=$(lab_iscsi_export --acl "$HOST" --acl "$CM" "$IQN_B" "$p")/0
C=$(lab_iscsi_export --acl "$HOST" "$IQN_C" "$q")/0
read -r sdx _ <<<"$(lab_loop_export "$x")"
read -r sdp _ <<<"$(lab_loop_export "$p")"

umask 077
cat >"$MAP" <<MAP
# lab 655: the copy manager of X reaches P through target B
naa.$(lab_naa "$SER_P") iscsi://127.0.0.1:3260/$IQN_B/0 initiator=$CM
MAP
chmod 600 "$MAP"
lab_check "X on $A and $sdx, P on $B and $sdp, Q on $C" test -b "$sdx" -a -b "$sdp"

# the requesting initiator's counters: bytes >> 20 of its ACL's LUN 0 on a target
acl_stat() { # IQN read|write
	local v
	read -r v <"$LAB_CFS/iscsi/$1/tpgt_1/acls/$HOST/lun_0/statistics/scsi_auth_intr/${2}_mbytes"
	echo "$v"
}
jget() { jq -r "$2" "$W/$1.json"; }

# xc LABEL SRC_REGION DST_REGION SRC DST [OPTIONS]: xcp -v --stats=json; exit in $W/LABEL.rc
xc() {
	local label=$1 sr=$2 dr=$3 src=$4 dst=$5 rc=0
	shift 5
	"$XCP" -v --no-progress --stats=json --src-lba $((sr * N)) --dst-lba $((dr * N)) \
		--blocks "$N" "$@" "$src" "$dst" >"$W/$label.json" 2>"$W/$label.err" || rc=$?
	echo "$rc" >"$W/$label.rc"
	[ "$rc" -eq 0 ] || { echo "xcp exit $rc"; cat "$W/$label.err"; return 1; }
}
# same FILE_A FILE_B REGION: the region's bytes are equal
same() { cmp -n $((MB * MiB)) -i $(($3 * MB * MiB)):$(($3 * MB * MiB)) "$1" "$2"; }
all_offloaded() {
	if [ "$(jget "$1" .bytes_offloaded)" -ne $((MB * MiB)) ] || [ "$(jget "$1" .bytes_host)" -ne 0 ]; then
		cat "$W/$1.json"
		return 1
	fi
}
# by_source LABEL LU: xcp -v says the source LU's copy manager did the copy
by_source() { grep -qF "EXTENDED COPY through the source $2 (" "$W/$1.err" || { cat "$W/$1.err"; return 1; }; }

lab_check "iSCSI push X -> P (A to B)" xc ipush 0 0 "$A" "$B"
lab_check "iSCSI push: P's region is X's (cmp)" same "$W/x.img" "$W/p.img" 0
lab_check "iSCSI push: every byte offloaded" all_offloaded ipush
lab_check "iSCSI push: P's target refused (0D/02), X's copy manager pushed" by_source ipush "$A"
lab_check "iSCSI pull P -> X (B to A)" xc ipull 1 1 "$B" "$A"
lab_check "iSCSI pull: X's region is P's (cmp)" same "$W/x.img" "$W/p.img" 1
lab_check "iSCSI pull: every byte offloaded" all_offloaded ipull
lab_check "iSCSI pull: the destination's target did it, nothing refused" \
	test "$(jget ipull '.offload_commands[0].failed')" -eq 0
lab_check "the plugin logged the peer" grep -q "copy with peer LU peer:$IQN_B/0" \
	"$LAB_RUN_DIR/tcmu/tcmu-runner.log"

# The requesting initiator's bytes: budget 0.1 % of the two copies, a quarter
# per counter (A and B, read and write). Padding each LU with a host copy of
# K blocks (K * 512 >= 1 MiB - quarter; it reads and writes K blocks plus its
# own discovery) leaves a counter at 0 only if the copies sent < quarter.
quarter=$((2 * MB * MiB / 1000 / 4))
K=$(((MiB - quarter + BS - 1) / BS))
counters() { echo "$(acl_stat "$IQN_A" read) $(acl_stat "$IQN_A" write) $(acl_stat "$IQN_B" read) $(acl_stat "$IQN_B" write)"; }
c_copies=$(counters)
lab_check "initiator's MiB counters after the copies (A r/w, B r/w: $c_copies) all 0" \
	test "$c_copies" = "0 0 0 0"
pad() { "$XCP" -q --no-offload --src-lba $((4 * N)) --dst-lba $((4 * N + K)) --blocks "$K" "$1" "$1"; }
lab_check "padding A with $K blocks read and written by the host" pad "$A"
lab_check "padding B with $K blocks read and written by the host" pad "$B"
c_pad=$(counters)
lab_check "initiator's bytes <= 0.1 % of $((2 * MB)) MiB: each counter < $quarter B (after padding: $c_pad)" \
	test "$c_pad" = "0 0 0 0"

# the same between /dev/sdX nodes of two tcm_loop targets
lab_check "/dev/sd push X -> P ($sdx to $sdp)" xc spush 2 2 "$sdx" "$sdp"
lab_check "/dev/sd push: P's region is X's (cmp)" same "$W/x.img" "$W/p.img" 2
lab_check "/dev/sd push: every byte offloaded" all_offloaded spush
lab_check "/dev/sd push: sent through X" by_source spush "$sdx"
lab_check "/dev/sd pull P -> X ($sdp to $sdx)" xc spull 3 3 "$sdp" "$sdx"
lab_check "/dev/sd pull: X's region is P's (cmp)" same "$W/x.img" "$W/p.img" 3
lab_check "/dev/sd pull: every byte offloaded" all_offloaded spull

# Q is in no peer map: neither copy manager reaches the other LU
lab_check "X -> Q (not in the map): copied" xc toq 5 5 "$A" "$C"
lab_check "X -> Q: Q's region is X's (cmp)" same "$W/x.img" "$W/q.img" 5
lab_check "X -> Q: every byte by the host, reason unreachable" \
	test "$(jget toq .bytes_host)" -eq $((MB * MiB)) -a \
	"$(jget toq '.fallbacks[0].reason')" = unreachable
lab_check "X -> Q: 2 commands refused (Q's target, then X's)" \
	test "$(jget toq '.offload_commands[0].failed')" -eq 2
lab_check_fails "X -> Q --require-offload: refused" xc req 6 6 "$A" "$C" --require-offload
lab_check "--require-offload: exit 3" test "$(cat "$W/req.rc")" -eq 3
lab_check "--require-offload: the reason named" \
	grep -q "offload refused (--require-offload): the ranges are not reachable by one copy manager (unreachable:" "$W/req.err"
lab_check "--require-offload: Q's region unchanged" same "$W/q.orig" "$W/q.img" 6
# a destination without a copy manager: the source's does it, nothing sent to P
echo 0 >"$p/attrib/emulate_3pc"
lab_check "P without 3PC: push X -> P --require-offload" xc no3pc 7 7 "$A" "$B" --require-offload
lab_check "P without 3PC: P's region is X's (cmp)" same "$W/x.img" "$W/p.img" 7
lab_check "P without 3PC: every byte offloaded, no command refused (none sent to P)" \
	test "$(jget no3pc '.offload_commands[0].failed')" -eq 0 -a "$(jget no3pc .bytes_offloaded)" -eq $((MB * MiB))
lab_check "P without 3PC: through X" by_source no3pc "$A"
for l in ipush ipull spush spull toq no3pc; do
	printf '%s: %s\n' "$l" "$(jq -r '"\(.bytes_offloaded) B offloaded, \(.bytes_host) B by the host, \(.seconds) s, EXTENDED COPY \(.offload_commands[0].commands) (\(.offload_commands[0].failed) refused)"' "$W/$l.json")"
done | tee "$LAB_RESULTS/655-figures.txt"
echo "initiator's MiB counters (A r/w, B r/w): after the copies $c_copies, after padding $c_pad" |
	tee -a "$LAB_RESULTS/655-figures.txt"
lab_summary
