#!/bin/bash
# The cross-LU access rule (docs/target-setup.md, target/lio/access.c) as a matrix on
# the real configfs. X, Y: user:xcopy LUs; Q: a user:qcow LU (another
# tcmu-runner handler); F: a LIO fileio LU (the kernel's). Each case tries
# one EXTENDED COPY and compares the destination with a snapshot: every copy
# the rule forbids must be refused (COPY ABORTED / xcp exit 3) and change
# nothing; the allowed ones must copy exactly.
#   tcm_loop: X and Y in two TPGs (refused both ways); a TPG exporting X and
#     Y next to one exporting Y alone (the copy received on X is allowed, the
#     one received on Y is refused: Y's other TPG does not export X)
#   iSCSI demo mode: X, Y in one TPG (allowed)
#   iSCSI explicit ACLs: I1 maps X and Y, I2 maps only X: a copy received on
#     Y is allowed (whoever can send to Y also reaches X), one received on X
#     is refused (TCMU cannot tell I1 from I2); I2 cannot open Y; copies
#     inside X allowed; with I3 mapping only Y as well, every copy X<->Y is
#     refused and changes nothing; with I2 and I3 gone, allowed again
#   two handlers: X -> Q (user:qcow) in one demo-mode TPG: refused both ways
#     (tcmu-runner's core refuses cross-LU; Q is not a LU of this plugin), the
#     qcow2 image unchanged; F (LIO fileio) -> X: the plugin refuses the
#     command it receives (the rest is LIO's own rule)
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-440
XCP=$LAB_BUILD/host/xcp
MB=1048576
I1=iqn.1994-05.org.example:rel440-i1
I2=iqn.1994-05.org.example:rel440-i2
I3=iqn.1994-05.org.example:rel440-i3
mkdir -p "$W"
lab_random "$W/x.img" $((8 * MB))
lab_random "$W/y.img" $((8 * MB))
lab_random "$W/f.img" $((8 * MB))
x=$(lab_user_create ax xcopy "$W/x.img" 8M)
y=$(lab_user_create ay xcopy "$W/y.img" 8M)
f=$(lab_fileio_create af "$W/f.img" 8M)
q=
if [ -e "$(cat "$LAB_RUN_DIR/handler-path")/handler_qcow.so" ]; then
	qemu-img create -q -f qcow2 "$W/q.qcow2" 8M
	q=$(lab_user_create aq qcow "$W/q.qcow2" 8M) || q=
fi

# refused DESC DSTFILE CMD... : CMD fails and DSTFILE is byte-identical after it
refused() {
	local desc=$1 dst=$2 rc=0
	shift 2
	cp "$dst" "$W/snap"
	"$@" >"$W/last.log" 2>&1 || rc=$?
	lab_check "$desc: refused (exit $rc)" test "$rc" -ne 0
	lab_check "$desc: destination unchanged" cmp -s "$dst" "$W/snap"
}
# allowed DESC CMD... : CMD succeeds (data checked by the caller)
allowed() {
	local desc=$1
	shift
	lab_check "$desc: allowed" "$@"
}
# region equality: same FILE1 OFF1 FILE2 OFF2 LEN
same() { cmp -s -i "$2:$4" -n "$5" "$1" "$3"; }

# --- tcm_loop -----------------------------------------------------------------
t1=$(lab_loop_create)
t2=$(lab_loop_create)
read -r _ sgx <<<"$(lab_loop_add_lun "$t1" "$x")"
read -r _ sgy <<<"$(lab_loop_add_lun "$t2" "$y")"
d0=$(xt_stat ay denied)
# 1 MiB X:[0,1M) -> Y:[2M,3M)
xc() { sg_xcopy if="$sgx" of="$sgy" bs=512 count=2048 seek=4096 "$@"; }
refused "loop, X and Y in two TPGs, sent to Y" "$W/y.img" xc
refused "loop, X and Y in two TPGs, sent to X (initiator of TPG 1 sees only X)" "$W/y.img" xc --on_src
lab_check "refusals counted (denied)" test $(($(xt_stat ay denied) + $(xt_stat ax denied))) -gt "$d0"
lab_check "refusal reason logged" grep -q "refused: .*does not export" "$LAB_RUN_DIR/tcmu/tcmu-runner.log"
lab_loop_add_lun "$t1" "$y" >/dev/null   # TPG 1 exports X and Y, TPG 2 only Y
refused "loop, TPG 1 has X+Y, TPG 2 only Y: sent to Y (Y's TPG 2 lacks X)" "$W/y.img" xc
allowed "loop, TPG 1 has X+Y, TPG 2 only Y: sent to X (every TPG of X has Y)" xc --on_src
lab_check "loop: the allowed copy is exact" same "$W/y.img" $((2 * MB)) "$W/x.img" 0 "$MB"
# drop the tcm_loop targets (keep the backstores) before the iSCSI cases
for tpg in "$t1" "$t2"; do
	lab__rm_links "$tpg"/lun/lun_*/*
	lab__rmdirs "$tpg"/lun/lun_*
	echo NULL >"$tpg/nexus" 2>/dev/null || true
	rmdir "$tpg" "${tpg%/tpgt_1}"
done

# --- iSCSI --------------------------------------------------------------------
IQN_D=iqn.2003-01.org.linux-iscsi.lab:rel440-demo
IQN_A=iqn.2003-01.org.linux-iscsi.lab:rel440-acl
ud=$(lab_iscsi_export "$IQN_D" "$x" "$y")
# 1 MiB X:[1M,2M) -> Y:[4M,5M), offload required (exit 3 = refused)
ix() { XCOPY_INITIATOR_IQN=$1 "$XCP" --require-offload --src-lba 2048 --dst-lba 8192 \
	--blocks 2048 "$2/0" "$2/1"; }
allowed "iSCSI demo mode, X and Y in one TPG" ix "$I1" "$ud"
lab_check "iSCSI demo: copy exact" same "$W/y.img" $((4 * MB)) "$W/x.img" "$MB" "$MB"
lab_iscsi_unexport() {
	local iqn=$1 tpg=$LAB_CFS/iscsi/$1/tpgt_1 l
	echo 0 >"$tpg/enable"
	for l in "$tpg"/acls/*/lun_*/*; do [ -L "$l" ] && rm -f "$l"; done
	rmdir "$tpg"/acls/*/lun_* "$tpg"/acls/* 2>/dev/null || true
	for l in "$tpg"/lun/lun_*/*; do [ -L "$l" ] && rm -f "$l"; done
	rmdir "$tpg"/lun/lun_* "$tpg"/np/* 2>/dev/null || true
	rmdir "$tpg" "$LAB_CFS/iscsi/$iqn"
}
lab_iscsi_unexport "$IQN_D"
ua=$(lab_iscsi_export --acl "$I1" "$IQN_A" "$x" "$y")
tpg=$LAB_CFS/iscsi/$IQN_A/tpgt_1
# acl_only INITIATOR LUN : an ACL mapping only that LUN; acl_drop INITIATOR
acl_only() { mkdir -p "$tpg/acls/$1/lun_0" && ln -s "$tpg/lun/lun_$2" "$tpg/acls/$1/lun_0/lun"; }
acl_drop() { rm -f "$tpg/acls/$1/lun_0/lun"; rmdir "$tpg/acls/$1/lun_0" "$tpg/acls/$1"; }
# ix2 INITIATOR SRC_LUN SRC_LBA DST_LBA DST_LUN : 1 MiB, offload required
ix2() { XCOPY_INITIATOR_IQN=$1 "$XCP" --require-offload --src-lba "$3" --dst-lba "$4" \
	--blocks 2048 "$ua/$2" "$ua/$5"; }
acl_only "$I2" 0   # I2 sees only X
# xcp sends the copy to the destination LU first (push), then to the source (pull)
allowed "iSCSI ACLs (I1: X+Y, I2: X only): I1 copies X -> Y, received on Y (every ACL of Y maps X)" \
	ix2 "$I1" 0 2048 8192 1
lab_check "iSCSI ACLs: X -> Y exact" same "$W/y.img" $((4 * MB)) "$W/x.img" "$MB" "$MB"
dx=$(xt_stat ax denied)
allowed "iSCSI ACLs: I1 copies Y -> X: refused on X (I2 could send it), done by pull on Y" \
	ix2 "$I1" 1 0 12288 0
lab_check "iSCSI ACLs: Y -> X exact" same "$W/x.img" $((6 * MB)) "$W/y.img" 0 "$MB"
lab_check "iSCSI ACLs: the command received on X was denied" test "$(xt_stat ax denied)" -gt "$dx"
lab_check "iSCSI ACLs: refusal reason names I2's ACL" \
	grep -q "refused: initiator $I2 of .* maps the LU but not" "$LAB_RUN_DIR/tcmu/tcmu-runner.log"
lab_check_fails "iSCSI ACLs: I2 cannot open Y" \
	env XCOPY_INITIATOR_IQN="$I2" "$XCP" --src-lba 0 --dst-lba 0 --blocks 1 "$ua/0" "$ua/1"
allowed "iSCSI ACLs: I2 copies inside X" ix2 "$I2" 0 0 12288 0
lab_check "iSCSI ACLs: inside X exact" same "$W/x.img" $((6 * MB)) "$W/x.img" 0 "$MB"
acl_only "$I3" 1   # and I3 sees only Y: no LU may reach the other
refused "iSCSI ACLs (+ I3: Y only): I1 copies X -> Y" "$W/y.img" ix2 "$I1" 0 4096 8192 1
refused "iSCSI ACLs (+ I3: Y only): I1 copies Y -> X" "$W/x.img" ix2 "$I1" 1 4096 12288 0
lab_check "iSCSI ACLs: I1's refused copy exits 3 (offload refused)" \
	bash -c "XCOPY_INITIATOR_IQN=$I1 '$XCP' --require-offload --src-lba 0 --dst-lba 0 \
		--blocks 8 '$ua/0' '$ua/1'; test \$? -eq 3"
acl_drop "$I2"
acl_drop "$I3"
allowed "iSCSI ACLs, I2's and I3's ACLs removed: I1 copies Y -> X" ix2 "$I1" 1 4096 12288 0
lab_check "iSCSI ACLs: copy exact" same "$W/x.img" $((6 * MB)) "$W/y.img" $((2 * MB)) "$MB"
lab_iscsi_unexport "$IQN_A"

# --- another handler, the kernel's fileio -------------------------------------
IQN_H=iqn.2003-01.org.linux-iscsi.lab:rel440-handlers
if [ -n "$q" ]; then
	uh=$(lab_iscsi_export "$IQN_H" "$x" "$q" "$f")
	cp "$W/q.qcow2" "$W/q.before"
	rc=0
	XCOPY_INITIATOR_IQN=$I1 "$XCP" --require-offload --src-lba 0 --dst-lba 0 --blocks 2048 \
		"$uh/0" "$uh/1" >"$W/xq.log" 2>&1 || rc=$?
	lab_check "two handlers: X (user:xcopy) -> Q (user:qcow) offload refused (exit $rc)" \
		test "$rc" -eq 3
	lab_check "two handlers: the qcow2 image unchanged" cmp -s "$W/q.qcow2" "$W/q.before"
	# F is LIO's own (kernel) LU: the plugin never reaches it. xcp's push to X
	# naming F is refused by the plugin; its pull is LIO's kernel copy manager
	# on F, which allows LUs of one session (its own rule, CVE-2020-28374).
	e0=$(xt_stat ax errors)
	rc=0
	XCOPY_INITIATOR_IQN=$I1 "$XCP" --stats --src-lba 0 --dst-lba 0 --blocks 2048 \
		"$uh/2" "$uh/0" >"$W/xf.log" 2>&1 || rc=$?
	lab_check "F (LIO fileio) -> X: the command received on X is refused by the plugin" \
		test "$(xt_stat ax errors)" -gt "$e0"
	lab_check "F -> X: xcp still completes (exit $rc; LIO's copy manager or host fallback)" \
		test "$rc" -eq 0
	lab_check "F -> X: exact" same "$W/x.img" 0 "$W/f.img" 0 "$MB"
	lab_iscsi_unexport "$IQN_H"
else
	lab_fail "no user:qcow handler (run the lab with --debian-handlers, as make test-lab does)"
fi
lab_summary
