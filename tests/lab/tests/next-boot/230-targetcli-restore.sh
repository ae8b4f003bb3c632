#!/bin/bash
# Second half of lab test 230, in a NEW boot of the lab (asked for by 230 with
# lab_next_boot): fresh kernel, fresh LIO, no configuration, no plugin state.
# The admin's reboot as Debian's services do it: the bus, tcmu-runner
# (tcmu-runner.service), then `targetctl restore` (rtslib-fb-targetctl's
# ExecStart) of the file `targetcli saveconfig` wrote in the first boot, with
# the backing files where they were. Then: the same LUs (config, serials),
# LUNs, ACLs and data are back, copies work, the ACL still holds.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../../target-lib.sh"
# shellcheck source=tests/lab/targetcli-lib.sh
. "$HERE/../../targetcli-lib.sh"
lab_require_guest

trap 'tc_leave -boot2; rm -rf "${KEEP:?}"' EXIT
lab_check "the first boot kept its saved configuration and backing files ($KEEP)" \
	test -s "$KEEP/saveconfig.json" -a -s "$KEEP/x0.head" -a -s "$KEEP/x1.head" -a -s "$KEEP/saved.norm"
[ -s "$KEEP/saveconfig.json" ] || { lab_summary; exit 1; }

fresh() { # nothing of the first boot survived but the files
	! compgen -G "$LAB_CFS/core/user_*/*/enable" && ! compgen -G "$LAB_CFS/iscsi/iqn.*" &&
		! compgen -G "$LAB_CFS/loopback/naa.*" && [ ! -e "$XT_STATS_DIR/x0.stats" ] &&
		[ ! -e "$SAVE" ] && [ ! -e "$W" ]
}
lab_check "a new boot: no LU, target or stats file, no saved configuration in /etc" fresh
# the files the saved configuration names, where they were
mkdir -p "$W" "$(dirname "$SAVE")"
for x in x0 x1; do
	cp "$KEEP/$x.head" "$W/$x.img" && truncate -s 1G "$W/$x.img"
done
cp "$KEEP/pat" "$W/pat"
cp "$KEEP/saveconfig.json" "$SAVE"
tc_install
lab_tcmu_stop
lab_check "system D-Bus and tcmu-runner (service way) started" start_stack
lab_check "targetctl restore ($SAVE)" targetctl restore
norm "" >"$OUT/restored.norm" 2>&1 || true
lab_check "the restored configuration equals the one saved in the first boot (LUs, wwns, cfgstrings, LU settings, LUNs, ACLs, portals)" \
	diff -u "$KEEP/saved.norm" "$OUT/restored.norm"
so0=$(so_of x0) || so0=none
so1=$(so_of x1) || so1=none
lab_check "x0 and x1 enabled again with their unit serials" \
	bash -c "grep -qx 1 $so0/enable && grep -qx 1 $so1/enable &&
		grep -q $X0_WWN $so0/wwn/vpd_unit_serial && grep -q $X1_WWN $so1/wwn/vpd_unit_serial"
LAB_WAIT=20 lab_wait_for lab_sd "$so1" || true
lab_check "tcm_loop disks back; data compared (x0 written, both copies of the first boot)" check_data
lab_check "iSCSI ACL after restore: $INIT logs in" iscsi-inq -i "$INIT" "$URL/0"
lab_check_fails "iSCSI ACL after restore: $OTHER is refused" iscsi-inq -i "$OTHER" "$URL/0"
lab_check "after restore: EXTENDED COPY x0 -> x1 [24,28) MiB with xcp over iSCSI (--require-offload)" \
	env XCOPY_INITIATOR_IQN=$INIT "$XCP" --require-offload --src-lba 2048 --dst-lba 49152 \
	--blocks 8192 "$URL/0" "$URL/1"
lab_check "... data compared" cmp -i 0:$((24 * MB)) -n $((4 * MB)) "$W/pat" "$W/x1.img"
lab_check "... counted by this boot's plugin (a new stats file)" \
	test "$(($(xt_stat x0 commands_ok) + $(xt_stat x1 commands_ok)))" -ge 1
lab_summary
