#!/bin/bash
# Copies between targets (issue #36, target/peer/) with CHAP, with clients
# nobody here wrote, and across a restart of the peer's target:
#   X  user:xcopy LU (tcm_loop: /dev/sgX), the copy manager
#   P  LIO fileio LU of iSCSI target T (127.0.0.1:3260) whose one ACL, the
#      copy manager's initiator name, requires CHAP (auth/userid, password;
#      attrib/authentication 1); P is also exported by a second tcm_loop
#      target (/dev/sgP) so local clients see both LUs and read VPD 83h.
# The peer map names P with chap_user= chap_secret=. Checked:
#   CHAP: with a wrong secret, and with no credentials, an EXTENDED COPY
#     (sg_raw-made list, as 650) to or from P: COPY ABORTED, COPY TARGET
#     DEVICE NOT REACHABLE (0D/02), X and P unchanged, T's refusal
#     (Authentication failure) in the runner's log, no session on T; with the
#     right secret a push X -> P and a pull P -> X; neither secret in any log.
#   sg_xcopy and ddpt (LID1) as requesting initiators, both directions, the
#     command sent to X (sg_xcopy --on_src / default --on_dst, ddpt
#     iflag=xcopy / oflag=xcopy); X's command counter grew by one each.
#   every copy compared with the backing files; at the end both LUs whole
#     equal a model (nothing outside the ranges changed); the data went over
#     the copy manager's session (LIO's counters of its ACL on T >= the MiB
#     copied, one session, the same LIO session id throughout: pooled) and
#     none over the tcm_loop ports of X or P (their counters stay 0).
#   T restarted (TPG disabled and enabled: its session closed under the
#     pooled one), then T deleted and made again with the same name, LUN,
#     ACL and CHAP: the next copy, within the pool's idle time (its pooled
#     session is dead), succeeds on a new session (after the TPG restart
#     another LIO session id; LIO numbers them per TPG, so a new T starts
#     at 1 again), data compared.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-657
MB=1048576
MAP=/etc/xcopy/peers.conf
LOG=$LAB_RUN_DIR/tcmu/tcmu-runner.log
CM=iqn.2026-12.org.example:xcopy657-cm
IQN_T=iqn.2003-01.org.linux-iscsi.lab:peer657
CHAP_USER=xcopy657
CHAP_SECRET=Zq7vW2pL9xK4mR8t
WRONG_SECRET=Zq7vW2pL9xK4mR8u
SER_X=65700001-aaaa-bbbb-cccc-000000000000
SER_P=65700002-aaaa-bbbb-cccc-000000000000
mkdir -p "$W" /etc/xcopy
trap 'rm -f "$MAP" "$MAP.new"' EXIT
lab_random "$W/x.img" $((32 * MB))
lab_random "$W/p.img" $((32 * MB))
cp "$W/x.img" "$W/x.orig"
cp "$W/p.img" "$W/p.orig"


# Regions (MiB): pushes X -> P at [0,4) sg_raw, [8,12) sg_xcopy, [20,24)
# ddpt, [28,30) after the TPG restart; pulls P -> X at [4,6) sg_raw,
# [16,20) sg_xcopy, [24,28) ddpt, [30,32) after the target was made again.
cp "$W/x.orig" "$W/x.want"
cp "$W/p.orig" "$W/p.want"
want() { # FROM TO MIB_AT MIBS
	dd if="$W/$1.orig" of="$W/$2.want" bs=1M skip="$3" seek="$3" count="$4" conv=notrunc status=none
}
want x p 0 4; want x p 8 4; want x p 20 4; want x p 28 2
want p x 4 2; want p x 16 4; want p x 24 4; want p x 30 2

x=$(lab_user_create pcx657 xcopy "$W/x.img" 32M "$SER_X")
p=$(lab_fileio_create pcp657 "$W/p.img" 32M "$SER_P")
TPG=$LAB_CFS/iscsi/$IQN_T/tpgt_1

# target_up / target_down : T with P as LUN 0, one ACL (CM) with CHAP enforced
target_up() {
	mkdir -p "$TPG/np/$LAB_PORTAL" "$TPG/lun/lun_0" || return 1
	ln -s "$p" "$TPG/lun/lun_0/${p##*/}" || return 1
	echo 0 >"$TPG/attrib/generate_node_acls"
	lab_iscsi_acl "$IQN_T" "$CM" || return 1
	printf '%s' "$CHAP_USER" >"$TPG/acls/$CM/auth/userid"
	printf '%s' "$CHAP_SECRET" >"$TPG/acls/$CM/auth/password"
	echo 1 >"$TPG/attrib/authentication"
	echo 1 >"$TPG/enable"
}
target_down() {
	echo 0 >"$TPG/enable"
	rm -f "$TPG/acls/$CM/lun_0/lun" "$TPG/lun/lun_0/${p##*/}"
	rmdir "$TPG/acls/$CM/lun_0" "$TPG/acls/$CM" "$TPG/lun/lun_0" "$TPG/np/$LAB_PORTAL" "$TPG" \
		"$LAB_CFS/iscsi/$IQN_T"
}
target_up
read -r _ sgx <<<"$(lab_loop_export "$x")"
read -r _ sgp <<<"$(lab_loop_export "$p")"
lab_check "X on $sgx, P on $sgp and on $IQN_T (CHAP)" test -c "$sgx" -a -c "$sgp" -a \
	"$(cat "$TPG/attrib/authentication")" = 1

# map [SECRET] : the peer map names P, with CHAP user and SECRET if given
map() {
	local chap=
	[ $# -eq 0 ] || chap=" chap_user=$CHAP_USER chap_secret=$1"
	(
		umask 077
		printf '# lab 657\nnaa.%s iscsi://127.0.0.1:3260/%s/0 initiator=%s%s\n' \
			"$(lab_naa "$SER_P")" "$IQN_T" "$CM" "$chap" >"$MAP.new"
	)
	chmod 600 "$MAP.new" && mv "$MAP.new" "$MAP"
}

# xcopy SRC_SERIAL DST_SERIAL MIBS SRC_MIB DST_MIB : one LID1 EXTENDED COPY
#   to X (lab_xcopy_e4), sg_raw's output in $W/out
xcopy() { lab_xcopy_e4 "$sgx" "$W/out" "$1" "$2" $(($3 * 2048)) $(($4 * 2048)) $(($5 * 2048)); }
# unreachable : sg_raw saw COPY ABORTED, COPY TARGET DEVICE NOT REACHABLE (0D/02)
unreachable() {
	if ! grep -qi "sense key: copy aborted" "$W/out" ||
		! grep -qi "additional sense: copy target device not reachable" "$W/out"; then
		cat "$W/out"
		return 1
	fi
}
# same FILE_A FILE_B MIB_AT MIBS : the region's bytes are equal
same() { cmp -n $(($4 * MB)) -i $(($3 * MB)):$(($3 * MB)) "$1" "$2"; }
# client NAME TOOL ARGS... : TOOL bs=512 ARGS, its output in $W/NAME.log;
#   X's EXTENDED COPY count before it in $W/NAME.c0
client() {
	local name=$1
	shift
	xt_stat pcx657 commands >"$W/$name.c0"
	"$@" bs=512 >"$W/$name.log" 2>&1 || { cat "$W/$name.log"; return 1; }
}
on_x() { test $(($(xt_stat pcx657 commands) - $(cat "$W/$1.c0"))) -eq 1; }
# acl_mb : MiB read + written by P for the copy manager's ACL on T
acl_mb() {
	local d=$TPG/acls/$CM/lun_0/statistics/scsi_auth_intr r w
	read -r r <"$d/read_mbytes" && read -r w <"$d/write_mbytes" && echo $((r + w))
}
# sid : LIO session id of the copy manager's session on T (empty: none)
sid() { sed -n 's/.*LIO Session ID: *\([0-9]*\).*/\1/p' "$TPG/acls/$CM/info"; }
no_session() { grep -q "No active iSCSI Session" "$TPG/acls/$CM/info"; }

# --- CHAP -----------------------------------------------------------------------
map "$WRONG_SECRET"
lab_check_fails "wrong CHAP secret, push X -> P: refused" xcopy "$SER_X" "$SER_P" 1 0 0
lab_check "wrong CHAP secret, push: COPY ABORTED 0D/02" unreachable
lab_check_fails "wrong CHAP secret, pull P -> X: refused" xcopy "$SER_P" "$SER_X" 1 0 0
lab_check "wrong CHAP secret, pull: COPY ABORTED 0D/02" unreachable
lab_check "wrong CHAP secret: the target's refusal logged" \
	grep -q "peer LU not reachable: login to $IQN_T at 127.0.0.1:3260 as $CM: .*Authentication failure" "$LOG"
map
lab_check_fails "no CHAP credentials, push X -> P: refused" xcopy "$SER_X" "$SER_P" 1 0 0
lab_check "no CHAP credentials: COPY ABORTED 0D/02" unreachable
lab_check "refusals: P unchanged" cmp "$W/p.img" "$W/p.orig"
lab_check "refusals: X unchanged" cmp "$W/x.img" "$W/x.orig"
lab_check "refusals: no session of the copy manager on T" no_session

map "$CHAP_SECRET"
acl0=$(acl_mb)
lab_check "CHAP push X [0,4) -> P: GOOD" xcopy "$SER_X" "$SER_P" 4 0 0
lab_check "CHAP push: P's blocks are X's" same "$W/p.img" "$W/x.orig" 0 4
sid1=$(sid)
lab_check "CHAP push: the copy manager has a session on T (LIO session id '$sid1')" test -n "$sid1"
lab_check "CHAP pull P [4,6) -> X: GOOD" xcopy "$SER_P" "$SER_X" 2 4 4
lab_check "CHAP pull: X's blocks are P's" same "$W/x.img" "$W/p.orig" 4 2
lab_check "CHAP: the copy manager's ACL on T moved the 6 MiB ($(($(acl_mb) - acl0)) MiB)" \
	test $(($(acl_mb) - acl0)) -ge 6
lab_check "neither CHAP secret is in tcmu-runner's log" \
	sh -c "! grep -rqF -e '$CHAP_SECRET' -e '$WRONG_SECRET' '$LAB_RUN_DIR/tcmu'"

# --- clients nobody here wrote -----------------------------------------------------
acl0=$(acl_mb)
lab_check "sg_xcopy --on_src push X [8,12) -> P" \
	client sgx-push sg_xcopy if="$sgx" of="$sgp" skip=16384 seek=16384 count=8192 --on_src
lab_check "sg_xcopy push: P's blocks are X's" same "$W/p.img" "$W/x.orig" 8 4
lab_check "sg_xcopy push: one EXTENDED COPY, to X" on_x sgx-push
lab_check "sg_xcopy pull P [16,20) -> X (default --on_dst)" \
	client sgx-pull sg_xcopy if="$sgp" of="$sgx" skip=32768 seek=32768 count=8192
lab_check "sg_xcopy pull: X's blocks are P's" same "$W/x.img" "$W/p.orig" 16 4
lab_check "sg_xcopy pull: one EXTENDED COPY, to X" on_x sgx-pull
lab_check "ddpt iflag=xcopy push X [20,24) -> P" \
	client ddpt-push ddpt if="$sgx" iflag=xcopy of="$sgp" skip=40960 seek=40960 count=8192
lab_check "ddpt push: P's blocks are X's" same "$W/p.img" "$W/x.orig" 20 4
lab_check "ddpt push: one EXTENDED COPY, to X" on_x ddpt-push
lab_check "ddpt oflag=xcopy pull P [24,28) -> X" \
	client ddpt-pull ddpt if="$sgp" of="$sgx" oflag=xcopy skip=49152 seek=49152 count=8192
t_last=$SECONDS   # the pooled session's last use
lab_check "ddpt pull: X's blocks are P's" same "$W/x.img" "$W/p.orig" 24 4
lab_check "ddpt pull: one EXTENDED COPY, to X" on_x ddpt-pull
acl=$(($(acl_mb) - acl0))
lab_check "clients: the copy manager's ACL on T moved the 16 MiB ($acl MiB)" test "$acl" -ge 16
lab_check "clients: one pooled session, LIO session id still $sid1 (now '$(sid)')" test "$(sid)" = "$sid1"
lab_check "clients: the plugin logged the peer" grep -q "copy with peer LU peer:$IQN_T/0" "$LOG"

# --- the peer's target restarted -------------------------------------------------------
# pooled LEFT : the pooled session is younger than the pool's idle limit (60
#   s) with LEFT s to spare, so the next copy meets it dead, not reaped
pooled() { test $((SECONDS - t_last)) -le $((60 - $1)); }
echo 0 >"$TPG/enable"
lab_check "TPG disabled: the copy manager's session on T is gone" lab_wait_for no_session
echo 1 >"$TPG/enable"
lab_check "the dead session is still pooled (idle $((SECONDS - t_last)) s of 60)" pooled 20
lab_check "sg_xcopy push X [28,30) -> P after the TPG restart" \
	client re-push sg_xcopy if="$sgx" of="$sgp" skip=57344 seek=57344 count=4096 --on_src
t_last=$SECONDS
lab_check "after the TPG restart: P's blocks are X's" same "$W/p.img" "$W/x.orig" 28 2
sid2=$(sid)
lab_check "after the TPG restart: a new session (LIO session id '$sid2', was $sid1)" \
	test -n "$sid2" -a "$sid2" != "$sid1"
target_down
lab_check "T deleted" test ! -e "$LAB_CFS/iscsi/$IQN_T"
lab_check "T made again (same name, LUN, ACL, CHAP)" target_up
lab_check "the dead session is still pooled (idle $((SECONDS - t_last)) s of 60)" pooled 20
lab_check "sg_xcopy pull P [30,32) -> X after T was made again" \
	client re-pull sg_xcopy if="$sgp" of="$sgx" skip=61440 seek=61440 count=4096
lab_check "after T was made again: X's blocks are P's" same "$W/x.img" "$W/p.orig" 30 2
lab_check "after T was made again: the copy manager has a session on the new T (LIO session id '$(sid)')" \
	test -n "$(sid)"
lab_check "after T was made again: the 2 MiB went over the copy manager's session ($(acl_mb) MiB)" \
	test "$(acl_mb)" -ge 2

# --- the whole LUs, and the requesting paths ---------------------------------------------
lab_check "X whole = its model (pulled ranges from P, nothing else changed)" cmp "$W/x.img" "$W/x.want"
lab_check "P whole = its model (pushed ranges from X, nothing else changed)" cmp "$W/p.img" "$W/p.want"
lab_check "no data through X's tcm_loop port ($(lab_port_mb "$x") MiB)" test "$(lab_port_mb "$x")" -eq 0
lab_check "no data through P's tcm_loop port ($(lab_port_mb "$p") MiB)" test "$(lab_port_mb "$p")" -eq 0
lab_summary
