#!/bin/bash
# targetcli end to end, as a LIO admin runs it (Debian's targetcli-fb and
# python3-rtslib-fb, tcmu-runner as tcmu-runner.service runs it, on a system
# D-Bus):
#   - the plugin is installed where `make install` puts it (tcmu-runner's
#     packaged handler folder, in the guest's overlay only); the lab's own
#     tcmu-runner is replaced by /usr/bin/tcmu-runner without options on a
#     system bus (dbus-daemon --system);
#   - `targetcli /backstores/user:xcopy create name=x0 size=1G cfgstring=...
#     hw_max_sectors=2048 control=max_data_area_mb=128` (the LU settings of
#     docs/target-setup.md) gives a working LU with those settings, which the
#     plugin finds capping nothing (xcopy-stat -s); a bad option and a missing backing file are refused
#     by targetcli with the plugin's reason (check_config over D-Bus) and
#     nothing is created;
#   - exported by targetcli through tcm_loop and through iSCSI with an ACL:
#     write/read, an EXTENDED COPY with sg_xcopy (tcm_loop) and one with xcp
#     (iSCSI, as the ACL'd initiator), data compared; another initiator is
#     refused;
#   - `targetcli saveconfig`; the saved file matches configs/targetcli/
#     saveconfig.json (LUs, wwns, cfgstrings, LU settings, targets, LUNs,
#     ACLs, portals);
#   - a new boot: the saved file, the backing files and the pattern go to the
#     read-write results share, and tests/lab/tests/next-boot/230-targetcli-restore.sh
#     runs in a second boot of the lab (lab_next_boot): `targetctl restore`
#     there brings the same LUs, ACLs and data back (see that script).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

# shellcheck source=tests/lab/targetcli-lib.sh
. "$HERE/../targetcli-lib.sh"
mkdir -p "$W" "$OUT"
rm -rf "${OUT:?}"/*
trap tc_leave EXIT

# --- the stack as Debian runs it ------------------------------------------------
tc_install
lab_tcmu_stop
lab_check "system D-Bus, /usr/bin/tcmu-runner on it owns org.kernel.TCMUService1 and offers user:xcopy" \
	start_stack

truncate -s 1G "$W/x0.img" "$W/x1.img"
lab_random "$W/pat" $((4 * MB))

# --- create, refuse --------------------------------------------------------------
lab_check "targetcli /backstores/user:xcopy create name=x0 size=1G cfgstring=$W/x0.img?clone=auto ${TC_SETTINGS[*]}" \
	tcli /backstores/user:xcopy create name=x0 size=1G "cfgstring=$W/x0.img?clone=auto" wwn=$X0_WWN "${TC_SETTINGS[@]}"
so0=$(so_of x0) || so0=none
lab_check "x0 is a user:xcopy SO, enabled, opened by the plugin (stats file)" \
	bash -c "grep -qx 1 $so0/enable && grep -q 'xcopy/$W/x0.img' $so0/info && grep -qx 'name x0' $XT_STATS_DIR/x0.stats"

rc=0
out=$(tcli /backstores/user:xcopy create name=bad size=1G "cfgstring=$W/x0.img?clone=sometimes") || rc=$?
lab_check "a bad option is refused by targetcli (exit $rc) with the plugin's reason: $(tail -1 <<<"$out")" \
	bash -c '[ "$1" -ne 0 ] && grep -qF "cfgstring invalid: clone=sometimes: expected auto, always or never" <<<"$2"' \
	_ "$rc" "$out"
lab_check_fails "... and nothing was created" so_of bad

# the rest in one targetcli session (each targetcli start costs seconds here)
out=$(tcli <<EOF
/backstores/user:xcopy create name=x1 size=1G cfgstring=$W/x1.img?clone=auto wwn=$X1_WWN ${TC_SETTINGS[*]}
/backstores/user:xcopy create name=bad2 size=1G cfgstring=$W/missing.img
/loopback create $LOOP
/loopback/$LOOP/luns create /backstores/user:xcopy/x0
/loopback/$LOOP/luns create /backstores/user:xcopy/x1
/iscsi create $IQN
/iscsi/$IQN/tpg1/luns create /backstores/user:xcopy/x0
/iscsi/$IQN/tpg1/luns create /backstores/user:xcopy/x1
/iscsi/$IQN/tpg1/acls create $INIT
EOF
) || true
lab_check "a missing backing file is refused by targetcli with the plugin's reason" \
	grep -qF "cfgstring invalid: backing file $W/missing.img: No such file or directory (create it first" <<<"$out"
lab_check_fails "... and nothing was created" so_of bad2
so1=$(so_of x1) || so1=none
lab_check "x1 created; tcm_loop $LOOP and iSCSI $IQN with both LUNs and an ACL for $INIT" \
	test -d "$so1" -a -e "$LAB_CFS/loopback/$LOOP/tpgt_1/lun/lun_1" -a -e "$LAB_CFS/iscsi/$IQN/tpgt_1/lun/lun_1" \
	-a -d "$LAB_CFS/iscsi/$IQN/tpgt_1/acls/$INIT/lun_1"
settings_landed() { # configfs has them; the plugin read them and finds nothing capping
	local so lu s
	for so in "$so0" "$so1"; do
		[ "$(cat "$so/attrib/hw_max_sectors")/$(cat "$so/attrib/max_data_area_mb")" = 2048/128 ] || return 1
	done
	s=$("$LAB_REPO/scripts/xcopy-stat" -s x0 x1) || return 1
	echo "$s"
	for lu in x0 x1; do
		grep -Eq "^$lu +2048 +512 +128 +128 +1024 +- " <<<"$s" || return 1
	done
}
lab_check "x0, x1: hw_max_sectors 2048, max_data_area_mb 128 in configfs; xcopy-stat -s: nothing caps them" \
	settings_landed

# --- use it ----------------------------------------------------------------------
sd0=$(lab_sd "$so0") || sd0=none
sg0=$(lab_sg "$so0") || sg0=none
sg1=$(lab_sg "$so1") || sg1=none
lab_check "write 4 MiB to x0 through tcm_loop ($sd0)" \
	dd if="$W/pat" of="$sd0" bs=1M seek=1 oflag=direct conv=notrunc,fsync status=none
lab_check "read it back (O_DIRECT) and from the backing file" \
	bash -c "cmp -n $((4 * MB)) $W/pat <(dd if=$sd0 bs=1M skip=1 count=4 iflag=direct status=none) &&
		cmp -i 0:$MB -n $((4 * MB)) $W/pat $W/x0.img"
lab_check "EXTENDED COPY x0 -> x1 with sg_xcopy through tcm_loop ($sg0 -> $sg1)" \
	sg_xcopy if="$sg0" of="$sg1" bs=512 skip=2048 seek=16384 count=8192
lab_check "EXTENDED COPY x0 -> x1 with xcp over iSCSI as $INIT (--require-offload)" \
	env XCOPY_INITIATOR_IQN=$INIT "$XCP" --require-offload --src-lba 2048 --dst-lba 32768 \
	--blocks 8192 "$URL/0" "$URL/1"
lab_check "data compared: x0 [1,5) MiB = x1 [8,12) = x1 [16,20) = the pattern" check_data
ok_before=$(($(xt_stat x0 commands_ok) + $(xt_stat x1 commands_ok)))
lab_check "the plugin answered both EXTENDED COPYs ($ok_before GOOD in its stats)" test "$ok_before" -ge 2
xstat_agrees() { # the admin's view (scripts/xcopy-stat) = the stats files
	local t p
	t=$("$LAB_REPO/scripts/xcopy-stat" x0 x1) && p=$("$LAB_REPO/scripts/xcopy-stat" -p x0 x1) || return 1
	printf '%s\n%s\n' "$t" "$p"
	grep -qx "xcopy_commands_ok_total{lu=\"x1\",path=\"$W/x1.img\"} $(xt_stat x1 commands_ok)" <<<"$p" &&
		grep -qx "xcopy_bytes_total{lu=\"x1\",path=\"$W/x1.img\"} $(xt_stat x1 bytes)" <<<"$p" &&
		grep -q "^x0 .* $W/x0.img\$" <<<"$t" && grep -q "^x1 .* $W/x1.img\$" <<<"$t"
}
lab_check "xcopy-stat prints both LUs' counters (table and Prometheus) as in the stats files" xstat_agrees
lab_check "iSCSI ACL: $INIT logs in" iscsi-inq -i "$INIT" "$URL/0"
lab_check_fails "iSCSI ACL: $OTHER is refused" iscsi-inq -i "$OTHER" "$URL/0"

# --- save ------------------------------------------------------------------------
rm -f "$SAVE"
lab_check "targetcli saveconfig" tcli saveconfig
cp "$SAVE" "$OUT/saveconfig.json" 2>/dev/null || true
norm "$SAVE" >"$OUT/saved.norm" 2>&1 || true
norm "$CFG" >"$OUT/configs.norm" 2>&1 || true
lab_check "the saved configuration is configs/targetcli/saveconfig.json (LUs, wwns, cfgstrings, LU settings, LUNs, ACLs, portals)" \
	diff -u "$OUT/configs.norm" "$OUT/saved.norm"
lab_check "... and names 2 user:xcopy LUs, tcm_loop and iSCSI targets, 1 ACL with 2 mapped LUNs" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
so=[o for o in d["storage_objects"] if o["plugin"]=="user" and o["config"].startswith("xcopy/")]
acl=[a for t in d["targets"] for p in t["tpgs"] for a in p["node_acls"]]
assert len(so)==2 and {t["fabric"] for t in d["targets"]}=={"iscsi","loopback"}, d
assert len(acl)==1 and len(acl[0]["mapped_luns"])==2, acl' "$SAVE"

# --- for the next boot ---------------------------------------------------------------
# the backing files: 1 GiB each, sparse; their first 20 MiB hold every byte
# written (the 9p share has no SEEK_DATA: whole sparse files would cost minutes)
keep() {
	mkdir -p "$KEEP" &&
		cp "$SAVE" "$W/pat" "$OUT/saved.norm" "$KEEP/" &&
		head -c $((20 * MB)) "$W/x0.img" >"$KEEP/x0.head" &&
		head -c $((20 * MB)) "$W/x1.img" >"$KEEP/x1.head" &&
		no_data_after $((20 * MB)) "$W/x0.img" "$W/x1.img"
}
# no_data_after OFFSET FILE... : SEEK_DATA finds nothing from OFFSET on (tmpfs)
no_data_after() {
	python3 -c 'import os, sys
for p in sys.argv[2:]:
    fd = os.open(p, os.O_RDONLY)
    try:
        off = os.lseek(fd, int(sys.argv[1]), os.SEEK_DATA)
        sys.exit("%s: data at %d" % (p, off))
    except OSError as e:
        if e.errno != 6: raise   # ENXIO: no data after the offset
' "$@"
}
lab_check "saved configuration, pattern and backing files kept for a second boot ($KEEP)" keep
lab_check "a second boot of the lab asked for (targetctl restore there)" \
	lab_next_boot "$(cd "$HERE" && pwd)/next-boot/230-targetcli-restore.sh"
lab_summary
