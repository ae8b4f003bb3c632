# shellcheck shell=bash disable=SC2034 # the names are used by the scripts that source this
# Shared by lab test 230 (targetcli create/refuse/use/save, first boot) and
# tests/lab/tests/next-boot/230-targetcli-restore.sh (targetctl restore, second boot):
# the names of configs/targetcli/saveconfig.json, the stack as Debian runs it
# (tcmu-runner on a system D-Bus, the plugin in the packaged handler folder),
# and the checks both boots make. Source after lib.sh and target-lib.sh.

W=/tmp/lab-230
OUT=$LAB_RESULTS/targetcli
# what the first boot leaves for the second: saveconfig.json, the backing
# files' written head, the normalised saved configuration (read-write share)
KEEP=$OUT/next-boot
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
# the LU settings (docs/target-setup.md, "LU settings"), as targetcli takes them
TC_SETTINGS=(hw_max_sectors=2048 control=max_data_area_mb=128)

tc_installed=0
# tc_leave : the EXIT trap of both parts: the lab's own stack back
tc_leave() {
	set +e
	lab_teardown >/dev/null 2>&1
	lab_tcmu_stop
	lab_dbus_stop
	[ "$tc_installed" = 1 ] && rm -f "$HANDLER_DIR/handler_xcopy.so"
	cp /var/log/tcmu-runner.log "$OUT/tcmu-runner${1:-}.log" 2>/dev/null
	# give the next tests the lab's own tcmu-runner back
	lab_tcmu_start >/dev/null || lab_msg "lab: 230: could not restart the lab's tcmu-runner"
}

# = make install-target (the guest's overlay; the host's folder is untouched)
tc_install() {
	install -m 0644 "$LAB_BUILD/target/handlers/handler_xcopy.so" "$HANDLER_DIR/handler_xcopy.so" &&
		tc_installed=1
}

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
# norm [FILE] : FILE, or the running configuration (rtslib) when FILE is "" or absent.
norm() {
	python3 -W ignore - "$@" <<'PY'
import json, sys
if len(sys.argv) > 1 and sys.argv[1]:
    d = json.load(open(sys.argv[1]))
else:
    from rtslib_fb import RTSRoot
    d = RTSRoot().dump()
so = sorted(({k: o.get(k) for k in ("plugin", "name", "config", "size", "wwn", "hw_max_sectors",
                                     "control")}
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
PY
}

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
