#!/bin/bash
# targetcli end to end, as a LIO admin runs it (Debian's targetcli-fb and
# python3-rtslib-fb, tcmu-runner as tcmu-runner.service runs it, on a system
# D-Bus):
#   - the plugin is installed where `make install` puts it (tcmu-runner's
#     packaged handler folder, in the guest's overlay only); the lab's own
#     tcmu-runner is replaced by /usr/bin/tcmu-runner without options on a
#     system bus (dbus-daemon --system);
#   - `targetcli /backstores/user:xcopy create name=x0 size=1G cfgstring=...`
#     gives a working LU; a bad option and a missing backing file are refused
#     by targetcli with the plugin's reason (check_config over D-Bus) and
#     nothing is created;
#   - exported by targetcli through tcm_loop and through iSCSI with an ACL:
#     write/read, an EXTENDED COPY with sg_xcopy (tcm_loop) and one with xcp
#     (iSCSI, as the ACL'd initiator), data compared; another initiator is
#     refused;
#   - `targetcli saveconfig`; the saved file matches configs/targetcli/
#     saveconfig.json (LUs, wwns, cfgstrings, targets, LUNs, ACLs, portals);
#   - "new boot": `targetctl clear` (the ExecStop of rtslib-fb-targetctl),
#     tcmu-runner and the bus stopped, /run/xcopy removed, the page cache
#     dropped, LIO's kernel modules unloaded and loaded again; then the bus,
#     tcmu-runner, `targetctl restore` (the ExecStart): the same LUs (config,
#     serials), LUNs, ACLs and data are back, copies work, the ACL still holds.
# This is the teardown + restart variant of a reboot: tests/lab/run-tests runs
# every test in one boot and a test cannot carry state into a second one.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-230
OUT=$LAB_RESULTS/targetcli
MB=1048576
XCP=$LAB_BUILD/host/xcp
CFG=$LAB_REPO/configs/targetcli/saveconfig.json
SAVE=/etc/rtslib-fb-target/saveconfig.json    # Debian's rtslib default
HANDLER_DIR=/usr/lib/x86_64-linux-gnu/tcmu-runner
# the names of configs/targetcli/saveconfig.json
IQN=iqn.2003-01.org.linux-iscsi.lab:xcopy
INIT=iqn.2003-01.org.linux-iscsi.lab:admin
OTHER=iqn.2003-01.org.linux-iscsi.lab:stranger
LOOP=naa.5001405c0ffee001
# unit serials: LIO's NAA designator (what EXTENDED COPY names an LU by) holds
# only their first 25 hex digits, so they must differ there
X0_WWN=5c0ffee0-0230-4000-8000-000000000000
X1_WWN=5c0ffee1-0230-4000-8000-000000000000
URL=iscsi://127.0.0.1/$IQN
mkdir -p "$W" "$OUT"
rm -f "$OUT"/*

installed=0
leave() {
	set +e
	lab_teardown >/dev/null 2>&1
	lab_tcmu_stop
	lab_dbus_stop
	[ "$installed" = 1 ] && rm -f "$HANDLER_DIR/handler_xcopy.so"
	cp /var/log/tcmu-runner.log "$OUT/tcmu-runner.log" 2>/dev/null
	# give the next tests the lab's own tcmu-runner back
	lab_tcmu_start >/dev/null || lab_msg "lab: 230: could not restart the lab's tcmu-runner"
}
trap leave EXIT

# xcopy object on the bus = our handler registered (what targetcli lists)
xcopy_on_bus() {
	dbus-send --system --print-reply --dest=org.kernel.TCMUService1 /org/kernel/TCMUService1 \
		org.freedesktop.DBus.ObjectManager.GetManagedObjects 2>/dev/null |
		grep -q 'object path "/org/kernel/TCMUService1/xcopy"'
}
start_stack() {
	lab_dbus_start || return 1
	lab_tcmu_start --bus >/dev/null || return 1
	LAB_WAIT=30 lab_wait_for xcopy_on_bus
}
so_of() { local d; for d in "$LAB_CFS"/core/user_*/"$1"; do [ -d "$d" ] && { echo "$d"; return 0; }; done; return 1; }
# tcli ARGS... : one targetcli command, output in $OUT/tcli.log too
tcli() { targetcli "$@" 2>&1 | tee -a "$OUT/tcli.log"; return "${PIPESTATUS[0]}"; }

# The part of a saveconfig.json that must survive save/restore (LIO's
# attribute defaults, LUN aliases and tcm_loop's random nexus are left out).
cat >"$W/norm.py" <<'EOF'
import json, sys
if len(sys.argv) > 1:
    d = json.load(open(sys.argv[1]))
else:
    from rtslib_fb import RTSRoot
    d = RTSRoot().dump()
so = sorted(({k: o.get(k) for k in ("plugin", "name", "config", "size", "wwn")}
             for o in d.get("storage_objects", [])), key=lambda o: (o["plugin"], o["name"]))
tg = []
for t in sorted(d.get("targets", []), key=lambda t: (t["fabric"], t["wwn"])):
    tpgs = []
    for p in sorted(t.get("tpgs", []), key=lambda p: p["tag"]):
        a = p.get("attributes", {})
        tpgs.append({"tag": p["tag"], "enable": p.get("enable"),
                     "authentication": a.get("authentication"),
                     "generate_node_acls": a.get("generate_node_acls"),
                     "luns": sorted([l["index"], l["storage_object"]] for l in p.get("luns", [])),
                     "acls": sorted([n["node_wwn"], sorted([m["index"], m["tpg_lun"], m["write_protect"]]
                                                           for m in n.get("mapped_luns", []))]
                                    for n in p.get("node_acls", [])),
                     "portals": sorted([q["ip_address"], q["port"]] for q in p.get("portals", []))})
    tg.append({"fabric": t["fabric"], "wwn": t["wwn"], "tpgs": tpgs})
json.dump({"storage_objects": so, "targets": tg}, sys.stdout, indent=1, sort_keys=True)
print()
EOF
norm() { python3 -W ignore "$W/norm.py" "$@"; }

# --- the stack as Debian runs it ------------------------------------------------
# = make install-target (the guest's overlay; the host's folder is untouched)
install -m 0644 "$LAB_BUILD/target/handlers/handler_xcopy.so" "$HANDLER_DIR/handler_xcopy.so"
installed=1
lab_tcmu_stop
lab_check "system D-Bus, /usr/bin/tcmu-runner on it owns org.kernel.TCMUService1 and offers user:xcopy" \
	start_stack

truncate -s 1G "$W/x0.img" "$W/x1.img"
head -c $((4 * MB)) /dev/urandom >"$W/pat"

# --- create, refuse --------------------------------------------------------------
lab_check "targetcli /backstores/user:xcopy create name=x0 size=1G cfgstring=$W/x0.img?clone=auto" \
	tcli /backstores/user:xcopy create name=x0 size=1G "cfgstring=$W/x0.img?clone=auto" wwn=$X0_WWN
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
/backstores/user:xcopy create name=x1 size=1G cfgstring=$W/x1.img?clone=auto wwn=$X1_WWN
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

# --- use it ----------------------------------------------------------------------
# data [1, 5) MiB of x0 written through tcm_loop; EXTENDED COPY to x1 [8, 12)
# MiB by sg_xcopy (tcm_loop) and to x1 [16, 20) MiB by xcp over iSCSI
check_data() {
	local sd0 sd1 bad=0
	sd0=$(lab_sd "$(so_of x0)") || { echo "x0: no tcm_loop disk"; return 1; }
	sd1=$(lab_sd "$(so_of x1)") || { echo "x1: no tcm_loop disk"; return 1; }
	cmp_at() { # WHAT DEV MIB
		local fl=()
		[ -b "$2" ] && fl=(iflag=direct)
		cmp -n $((4 * MB)) "$W/pat" <(dd if="$2" bs=1M skip="$3" count=4 "${fl[@]}" status=none) ||
			{ echo "$1 ($2 at $3 MiB) differs from the pattern"; bad=1; }
	}
	cmp_at x0 "$sd0" 1
	cmp_at "x1 (sg_xcopy)" "$sd1" 8
	cmp_at "x1 (xcp)" "$sd1" 16
	cmp_at "x0.img" "$W/x0.img" 1
	cmp_at "x1.img (sg_xcopy)" "$W/x1.img" 8
	cmp_at "x1.img (xcp)" "$W/x1.img" 16
	[ "$bad" = 0 ]
}
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
lab_check "the saved configuration is configs/targetcli/saveconfig.json (LUs, wwns, cfgstrings, LUNs, ACLs, portals)" \
	diff -u "$OUT/configs.norm" "$OUT/saved.norm"
lab_check "... and names 2 user:xcopy LUs, tcm_loop and iSCSI targets, 1 ACL with 2 mapped LUNs" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
so=[o for o in d["storage_objects"] if o["plugin"]=="user" and o["config"].startswith("xcopy/")]
acl=[a for t in d["targets"] for p in t["tpgs"] for a in p["node_acls"]]
assert len(so)==2 and {t["fabric"] for t in d["targets"]}=={"iscsi","loopback"}, d
assert len(acl)==1 and len(acl[0]["mapped_luns"])==2, acl' "$SAVE"

# --- "new boot" ------------------------------------------------------------------
lab_check "targetctl clear" targetctl clear
lab_check "... leaves no backstore or target in configfs" \
	bash -c "! compgen -G '$LAB_CFS/core/user_*/*/enable' && ! compgen -G '$LAB_CFS/loopback/naa.*' && ! compgen -G '$LAB_CFS/iscsi/iqn.*'"
lab_tcmu_stop
lab_dbus_stop
rm -rf "$XT_STATS_DIR"
sync
echo 3 >/proc/sys/vm/drop_caches
reload_lio() {
	local m fabrics=(tcm_loop iscsi_target_mod) backends=(target_core_user target_core_file target_core_iblock)
	rmdir "$LAB_CFS/loopback" "$LAB_CFS/iscsi" 2>/dev/null || true
	modprobe -r "${fabrics[@]}" target_core_pscsi "${backends[@]}" target_core_mod || {
		modprobe -a target_core_mod "${backends[@]}" "${fabrics[@]}"; return 1; }
	lsmod | grep -q '^target_core_mod ' && { echo "target_core_mod still loaded"; return 1; }
	modprobe -a target_core_mod "${backends[@]}" "${fabrics[@]}" || return 1
	for m in target_core_mod target_core_user tcm_loop iscsi_target_mod; do
		lsmod | grep -q "^$m " || { echo "$m not loaded again"; return 1; }
	done
	# as the lab's boot does (persistent reservations need an existing dbroot)
	echo /etc/target >"$LAB_CFS/dbroot"
}
lab_check "LIO's kernel modules unloaded and loaded again (fresh kernel state)" reload_lio
lab_check "system D-Bus and tcmu-runner (service way) started again" start_stack
lab_check "targetctl restore ($SAVE)" targetctl restore
norm >"$OUT/restored.norm" 2>&1 || true
lab_check "the restored configuration equals the saved one (LUs, wwns, cfgstrings, LUNs, ACLs, portals)" \
	diff -u "$OUT/saved.norm" "$OUT/restored.norm"
so0=$(so_of x0) || so0=none
so1=$(so_of x1) || so1=none
lab_check "x0 and x1 enabled again with their unit serials" \
	bash -c "grep -qx 1 $so0/enable && grep -qx 1 $so1/enable &&
		grep -q $X0_WWN $so0/wwn/vpd_unit_serial && grep -q $X1_WWN $so1/wwn/vpd_unit_serial"
LAB_WAIT=20 lab_wait_for lab_sd "$so1" || true
lab_check "tcm_loop disks back; data compared (x0 written, both copies)" check_data
lab_check "iSCSI ACL after restore: $INIT logs in" iscsi-inq -i "$INIT" "$URL/0"
lab_check_fails "iSCSI ACL after restore: $OTHER is refused" iscsi-inq -i "$OTHER" "$URL/0"
lab_check "after restore: EXTENDED COPY x0 -> x1 [24,28) MiB with xcp over iSCSI (--require-offload)" \
	env XCOPY_INITIATOR_IQN=$INIT "$XCP" --require-offload --src-lba 2048 --dst-lba 49152 \
	--blocks 8192 "$URL/0" "$URL/1"
lab_check "... data compared" cmp -i 0:$((24 * MB)) -n $((4 * MB)) "$W/pat" "$W/x1.img"
lab_check "... counted by the new tcmu-runner's plugin (stats file recreated)" \
	test "$(($(xt_stat x0 commands_ok) + $(xt_stat x1 commands_ok)))" -ge 1
lab_summary
