#!/bin/bash
# Held copy results scoped to the sessions that can reach an LU (the plugin
# discards a LU's completed held results when configfs shows a session that
# was not there at the LU's previous EXTENDED COPY / RECEIVE COPY RESULTS,
# and keeps them when sessions only left; docs/target-commands.md "Held results and
# sessions"):
#   1. libiscsi's SCSI.ExtendedCopy, then SCSI.ReceiveCopyResults, on the SAME
#      user:xcopy LU, each iscsi-test-cu run its own iSCSI session (demo mode):
#      all 8 pass (ReceiveCopyResults.CopyStatus expects list id 1, held by
#      the ExtendedCopy run, to be unknown in the new session, and its own
#      list 1 to be known although its probe session logged out meanwhile);
#   2. the same with an explicit node ACL for libiscsi's initiator name
#      (sessions told apart by LIO session id);
#   3. within one tcm_loop nexus (no session change) held results survive a
#      later command: sg_xcopy with a held list id, then COPY STATUS works;
#   4. a second tcm_loop nexus to that LU: its arrival discards the list, its
#      departure (LUN unlinked, nexus dropped) keeps the next one.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-250
trap 'rm -rf "$W"' EXIT   # images in guest RAM: freed when the driver removes the LUs
OUT=$LAB_RESULTS/target/sessions
mkdir -p "$W" "$OUT"
rm -f "$OUT"/*.txt "$OUT/summary.tsv"
printf 'transport\tsuite\ttotal\tran\tpassed\tfailed\tseconds\n' >"$OUT/summary.tsv"
for i in 0 1 2 3; do truncate -s 128M "$W/s$i.img"; done
s0=$(lab_user_create s250a xcopy "$W/s0.img" 128M)
s1=$(lab_user_create s250b xcopy "$W/s1.img" 128M)
s2=$(lab_user_create s250c xcopy "$W/s2.img" 128M)
s3=$(lab_user_create s250d xcopy "$W/s3.img" 128M)
url=$(lab_iscsi_export iqn.2003-01.org.linux-iscsi.lab:sess250 "$s0" "$s1")
urla=$(lab_iscsi_export --acl "$LAB_LIBISCSI_IQN" --acl "$LAB_LIBISCSI_IQN2" \
	iqn.2003-01.org.linux-iscsi.lab:sess250acl "$s2")

suite() {   # NAME SUITE URL WANT
	local r total ran passed failed secs
	if ! r=$(xt_run_suite "$OUT" "$1" "$2" "$3"); then
		lab_fail "iscsi-test-cu $2 ($1) produced no summary"
		return 0
	fi
	read -r total ran passed failed secs <<<"$r"
	if [ "$passed" -eq "$4" ] && [ "$failed" -eq 0 ]; then
		lab_pass "iscsi-test-cu $2 ($1): $passed/$total passed (${secs} s)"
	else
		lab_fail "iscsi-test-cu $2 ($1): $passed/$total passed, $failed failed, want $4 (see $OUT)"
	fi
}

# --- 1. demo mode: ExtendedCopy then ReceiveCopyResults on LU 0, new sessions ---
suite demo SCSI.ExtendedCopy "$url/0" 6
suite demo SCSI.ReceiveCopyResults "$url/0" 2
lab_check "demo: held results of the earlier sessions were discarded (held_discarded $(xt_stat s250a held_discarded))" \
	test "$(xt_stat s250a held_discarded)" -ge 1
lab_check "demo: discards logged by the plugin" \
	grep -q "s250a: xcopy: held results of .* discarded: a new session can reach the LU" \
	"$LAB_RUN_DIR/tcmu/tcmu-runner.log"
# and once more: a second pair of runs on the same LU
suite demo-again SCSI.ExtendedCopy "$url/0" 6
suite demo-again SCSI.ReceiveCopyResults "$url/0" 2

# --- 2. explicit ACLs -----------------------------------------------------------
suite acl SCSI.ExtendedCopy "$urla/0" 6
suite acl SCSI.ReceiveCopyResults "$urla/0" 2

# --- 3. one nexus (tcm_loop): held results stay for it ---------------------------
{ read -r _ sgd; } <<<"$(lab_loop_export "$s3")"
lab_check "tcm_loop: sg_xcopy within the LU with list id 9 held" \
	sg_xcopy if="$sgd" of="$sgd" bs=512 skip=0 seek=8192 count=2048 list_id=9 id_usage=hold
lab_check "tcm_loop: an ordinary command later, COPY STATUS of list 9 still answered" \
	sh -c "sg_inq '$sgd' >/dev/null && sg_copy_results --status -l 9 '$sgd' >/dev/null"
lab_check "tcm_loop: nothing discarded on an unchanged nexus" test "$(xt_stat s250d held_discarded)" -eq 0

# --- 4. a second nexus arrives, then leaves ---------------------------------------
tpg2=$(lab_loop_create)
lab_check "tcm_loop: a second nexus exports the LU" lab_loop_add_lun "$tpg2" "$s3"
# exit 5: ILLEGAL REQUEST (24/00, the list id is unknown)
lab_check "tcm_loop: after it arrived, COPY STATUS of list 9 is ILLEGAL REQUEST (discarded)" \
	sh -c "sg_copy_results --status -l 9 '$sgd'; test \$? -eq 5"
lab_check "tcm_loop: sg_xcopy with list id 10 held" \
	sg_xcopy if="$sgd" of="$sgd" bs=512 skip=0 seek=16384 count=2048 list_id=10 id_usage=hold
lab__rm_links "$tpg2"/lun/lun_*/*
lab__rmdirs "$tpg2"/lun/lun_*
lab_check "tcm_loop: the second nexus dropped" sh -c "echo NULL >'$tpg2/nexus'"
lab_check "tcm_loop: after it left, COPY STATUS of list 10 still answered" \
	sg_copy_results --status -l 10 "$sgd"
lab_check "tcm_loop: one discard (the arrival), none for the departure" \
	test "$(xt_stat s250d held_discarded)" -eq 1
rmdir "$tpg2" "${tpg2%/*}" 2>/dev/null || true
column -t -s $'\t' "$OUT/summary.tsv" 2>/dev/null || cat "$OUT/summary.tsv"
lab_summary
