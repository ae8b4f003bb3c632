#!/bin/bash
# handler_xcopy.so (user:xcopy) against libiscsi's conformance tool:
# SCSI.ExtendedCopy and SCSI.ReceiveCopyResults over iSCSI and over tcm_loop
# (/dev/sgN, SG_IO) must pass 8 of 8; the whole SCSI family is run over iSCSI
# and its pass count recorded next to LIO fileio's (020) in
# $LAB_RESULTS/target/user-xcopy/summary.tsv. LAB_TARGET_FULL=0 skips the
# full family.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-210
OUT=$LAB_RESULTS/target/user-xcopy
mkdir -p "$W" "$OUT"
rm -f "$OUT"/*.txt "$OUT/summary.tsv"
printf 'transport\tsuite\ttotal\tran\tpassed\tfailed\tseconds\n' >"$OUT/summary.tsv"

# One fresh LU per suite and transport: list identifiers are scoped to an
# I_T nexus (SPC-4), but TCMU hides the nexus, so the plugin scopes them to
# the LU and cannot drop them when a session ends. CopyStatus's first check
# (no copy held for list id 1) needs an LU that ExtendedCopy did not use.
for i in 0 1 2 3 4; do truncate -s 128M "$W/x$i.img"; done
# the cfgstring option separator ('?', '&') must reach the handler intact
x0=$(lab_user_create x0 xcopy "$W/x0.img?clone=auto&cfr=auto" 128M)
lab_check "user:xcopy LU enabled with options in the cfgstring" test -n "$x0"
lab_check "tcmu-runner log shows the options parsed" \
	grep -q "x0.img opened .*clone=auto cfr=auto xcopy=engine" "$LAB_RUN_DIR/tcmu/tcmu-runner.log"
x1=$(lab_user_create x1 xcopy "$W/x1.img" 128M)
x2=$(lab_user_create x2 xcopy "$W/x2.img" 128M)
x3=$(lab_user_create x3 xcopy "$W/x3.img" 128M)
url=$(lab_iscsi_export iqn.2003-01.org.linux-iscsi.lab:xcopy210 "$x0" "$x1")
{ read -r _ sg2; read -r _ sg3; } <<<"$(lab_loop_export "$x2" "$x3")"
lab_check "VPD 0x00 lists 0x8f" sh -c "sg_vpd --page=sv '$sg2' | grep -qi 'third party copy'"
lab_check "VPD 0x8f decodes (sg_vpd -p tpc)" sh -c "sg_vpd --page=tpc '$sg2' | grep -qi 'segment descriptor'"

check_suite() {   # TRANSPORT SUITE DEVICE WANT
	local r total ran passed failed secs
	if ! r=$(xt_run_suite "$OUT" "$1" "$2" "$3"); then
		lab_fail "iscsi-test-cu $2 via $1 produced no summary"
		return 0
	fi
	read -r total ran passed failed secs <<<"$r"
	if [ "$passed" -eq "$4" ] && [ "$failed" -eq 0 ]; then
		lab_pass "iscsi-test-cu $2 via $1: $passed/$total passed (${secs} s)"
	else
		lab_fail "iscsi-test-cu $2 via $1: $passed/$total passed, $failed failed, want $4 (see $OUT)"
	fi
}
check_suite iscsi SCSI.ExtendedCopy "$url/0" 6
check_suite iscsi SCSI.ReceiveCopyResults "$url/1" 2
check_suite sg SCSI.ExtendedCopy "$sg2" 6
check_suite sg SCSI.ReceiveCopyResults "$sg3" 2

if [ "${LAB_TARGET_FULL:-1}" = 1 ]; then
	x4=$(lab_user_create x4 xcopy "$W/x4.img" 128M)
	url4=$(lab_iscsi_export iqn.2003-01.org.linux-iscsi.lab:xcopy210f "$x4")
	if r=$(xt_run_suite "$OUT" iscsi SCSI "$url4/0"); then
		read -r total ran passed failed secs <<<"$r"
		ref=$(awk -F'\t' '$1 == "iscsi" && $2 == "SCSI" { print $5 "/" $3 }' \
			"$LAB_RESULTS/reference/lio-fileio/summary.tsv" 2>/dev/null || true)
		lab_pass "SCSI family vs user:xcopy: $passed/$total passed, $failed failed (${secs} s; LIO fileio: ${ref:-not run})"
	else
		lab_fail "SCSI family vs user:xcopy produced no summary"
	fi
fi
column -t -s $'\t' "$OUT/summary.tsv" 2>/dev/null || cat "$OUT/summary.tsv"
lab_summary
