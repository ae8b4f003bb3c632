#!/bin/bash
# xcp on device-mapper (LVM) volumes and on partitions of user:xcopy LUs.
# SG_IO on a dm-linear node (and on a partition) reaches the whole disk
# underneath, so the library must never send a command through a node it
# cannot map exactly. Checked, with data read back O_DIRECT:
#   - LV -> LV (each LV on its own LU, a neighbour LV after the destination):
#     exactly the LV is copied, on the host, reason printed; everything on
#     the destination disk outside the LV unchanged (LVM label, metadata,
#     the neighbour LV);
#   - --require-offload on LVs exits 3 and writes nothing;
#   - partition -> partition on another LU and inside one LU: offloaded,
#     neighbour partitions unchanged; a range past the partition's end is
#     refused (exit 2) without writing.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

W=/tmp/lab-320
XCP=$LAB_BUILD/host/xcp
mkdir -p "$W/lvm"
# LVM without udev (the guest runs none): lvm makes its own nodes and links
cat >"$W/lvm/lvm.conf" <<'CONF'
devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 filter = [ "a|^/dev/sd|", "r|.*|" ] }
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
global { use_lvmetad = 0 }
CONF
export LVM_SYSTEM_DIR=$W/lvm LVM_SUPPRESS_FD_WARNINGS=1
modprobe dm_mod 2>/dev/null || true
# pattern TEXT BYTES: TEXT repeated (yes dies of SIGPIPE: not a failure here)
pattern() { (set +o pipefail; yes "$1" | head -c "$2"); }
cleanup() {
	vgchange -an vg320 >/dev/null 2>&1 || true
	dmsetup remove_all >/dev/null 2>&1 || true
}
trap cleanup EXIT

mkdir -p "$W/s"
truncate -s 64M "$W/s/a.img" "$W/s/b.img" "$W/s/c.img" "$W/s/d.img"
a=$(lab_user_create la xcopy "$W/s/a.img" 64M)
b=$(lab_user_create lb xcopy "$W/s/b.img" 64M)
c=$(lab_user_create lc xcopy "$W/s/c.img" 64M)
d=$(lab_user_create ld xcopy "$W/s/d.img" 64M)
{ read -r sda _; read -r sdb _; read -r sdc _; read -r sdd _; } <<<"$(lab_loop_export "$a" "$b" "$c" "$d")"
lab_check "four user:xcopy LUs via tcm_loop ($sda $sdb $sdc $sdd)" test -b "$sdd"

# --- LVM -----------------------------------------------------------------------
lab_check "LVM: PVs, VG, l1 on $sda, l2 + neighbour n2 + l3 on $sdb" bash -c "
	lvm pvcreate -q $sda $sdb && lvm vgcreate -q vg320 $sda $sdb &&
	lvm lvcreate -q -y -L 16M -n l1 vg320 $sda && lvm lvcreate -q -y -L 16M -n l2 vg320 $sdb &&
	lvm lvcreate -q -y -L 8M -n n2 vg320 $sdb && lvm lvcreate -q -y -L 8M -n l3 vg320 $sdb &&
	test -b /dev/vg320/l1 -a -b /dev/vg320/l2 -a -b /dev/vg320/n2" 2>"$W/lvm.err"
head -c 16M /dev/urandom >"$W/l1.data"
dd if="$W/l1.data" of=/dev/vg320/l1 bs=1M oflag=direct status=none
# l2, n2, l3: a pattern each, so any stray write shows
pattern l2-before 16M | dd of=/dev/vg320/l2 bs=1M oflag=direct iflag=fullblock status=none
pattern n2-neighbour 8M | dd of=/dev/vg320/n2 bs=1M oflag=direct iflag=fullblock status=none
pattern l3-untouched 8M | dd of=/dev/vg320/l3 bs=1M oflag=direct iflag=fullblock status=none
# where l2 lies on sdb (dm-linear: "0 SECTORS linear MAJ:MIN START")
read -r _ l2_len _ _ l2_start <<<"$(dmsetup table vg320-l2)"
sum_range() {   # DEV FIRST_SECTOR SECTORS
	dd if="$1" bs=1M skip=$(($2 * 512)) count=$(($3 * 512)) iflag=direct,skip_bytes,count_bytes \
		status=none | sha256sum | cut -c1-64
}
sdb_sectors=$(( $(blockdev --getsize64 "$sdb") / 512 ))
head_before=$(sum_range "$sdb" 0 "$l2_start")
tail_before=$(sum_range "$sdb" $((l2_start + l2_len)) $((sdb_sectors - l2_start - l2_len)))
stat_of() { awk -v k="$2" 'index($0, k) == 1 { print $NF; exit }' "$1"; }
sum_all() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -c1-64; }
l3_before=$(sum_all /dev/vg320/l3)
sda_before=$(sum_all "$sda")

lab_check "LV -> LV: xcp exits 0" bash -c \
	"'$XCP' --stats /dev/vg320/l1 /dev/vg320/l2 >'$W/lv.stats' 2>'$W/lv.err'"
cat "$W/lv.stats" "$W/lv.err" | sed 's/^/    /'
lab_check "LV -> LV: exactly 16 MiB copied, on the host" \
	test "$(stat_of "$W/lv.stats" 'bytes by fallback:')" = 16777216
lab_check "LV -> LV: nothing offloaded, no EXTENDED COPY" \
	grep -q '^xcopy commands: *0 ' "$W/lv.stats"
lab_check "LV -> LV: the reason is printed (device-mapper, not-scsi)" \
	bash -c "grep -q 'device-mapper' '$W/lv.err' && grep -q 'not-scsi' '$W/lv.stats'"
lab_check "LV -> LV: data identical" \
	cmp <(dd if=/dev/vg320/l2 bs=1M iflag=direct status=none) "$W/l1.data"
lab_check "LV -> LV: $sdb before l2 (LVM label, metadata) unchanged" \
	test "$(sum_range "$sdb" 0 "$l2_start")" = "$head_before"
lab_check "LV -> LV: $sdb after l2 (neighbour LVs n2, l3) unchanged" \
	test "$(sum_range "$sdb" $((l2_start + l2_len)) $((sdb_sectors - l2_start - l2_len)))" = "$tail_before"
lab_check "LV -> LV: neighbour LV n2 holds its pattern" \
	cmp <(dd if=/dev/vg320/n2 bs=1M iflag=direct status=none) \
	<(pattern n2-neighbour 8M)
lab_check "LV -> LV: the source disk is unchanged" \
	test "$(sum_all "$sda")" = "$sda_before"

rc=0
"$XCP" --stats --require-offload /dev/vg320/l1 /dev/vg320/l3 \
	>"$W/req.stats" 2>"$W/req.err" || rc=$?
lab_check "LV -> LV --require-offload: exit 3 (got $rc)" test "$rc" -eq 3
lab_check "LV -> LV --require-offload: the destination LV unchanged" \
	test "$(sum_all /dev/vg320/l3)" = "$l3_before"
lab_check "LV -> LV --require-offload: no bytes moved" \
	test "$(stat_of "$W/req.stats" 'bytes offloaded:')/$(stat_of "$W/req.stats" 'bytes by fallback:')" = 0/0
cleanup
lab_check "LVM deactivated" bash -c "! ls /dev/mapper/vg320-* >/dev/null 2>&1"

# --- partitions -------------------------------------------------------------------
bs=$(cat "/sys/block/${sdc#/dev/}/queue/logical_block_size")
for dev in "$sdc" "$sdd"; do
	printf ',12M\n,12M\n,8M\n' | sfdisk -q "$dev" >/dev/null 2>"$W/sfdisk.err" ||
		{ cat "$W/sfdisk.err"; exit 1; }
done
lab_wait_for test -b "${sdd}3"
lab_check "partitions ${sdc}1..3 and ${sdd}1..3" test -b "${sdc}3" -a -b "${sdd}3"
head -c 12M /dev/urandom >"$W/p.data"
dd if="$W/p.data" of="${sdc}1" bs=1M oflag=direct status=none
for p in "${sdd}1" "${sdd}3" "${sdc}3"; do
	pattern "neighbour ${p}" "$(blockdev --getsize64 "$p")" |
		dd of="$p" bs=1M oflag=direct iflag=fullblock status=none
done
neighbours_ok() {
	local p
	for p in "${sdd}1" "${sdd}3" "${sdc}3"; do
		cmp <(dd if="$p" bs=1M iflag=direct status=none) \
			<(pattern "neighbour ${p}" "$(blockdev --getsize64 "$p")") || return 1
	done
}
offloaded() { awk '/^bytes offloaded:/ { print $3 }' "$1"; }
pblocks=$((12 * 1024 * 1024 / bs))

lab_check "partition -> partition across LUs (${sdc}1 -> ${sdd}2), --require-offload" \
	bash -c "'$XCP' --stats --require-offload --blocks $pblocks ${sdc}1 ${sdd}2 >'$W/p1.stats'"
lab_check "across LUs: data identical" \
	cmp <(dd if="${sdd}2" bs=1M iflag=direct status=none) "$W/p.data"
lab_check "across LUs: all $((12 * 1024 * 1024)) bytes offloaded" \
	test "$(offloaded "$W/p1.stats")" -eq $((12 * 1024 * 1024))
lab_check "across LUs: neighbour partitions unchanged" neighbours_ok
lab_check "partition -> partition inside one LU (${sdc}1 -> ${sdc}2), --require-offload" \
	bash -c "'$XCP' --stats --require-offload ${sdc}1 ${sdc}2 >'$W/p2.stats'"
lab_check "inside one LU: data identical" \
	cmp <(dd if="${sdc}2" bs=1M iflag=direct status=none) "$W/p.data"
lab_check "inside one LU: all bytes offloaded" \
	test "$(offloaded "$W/p2.stats")" -eq $((12 * 1024 * 1024))
lab_check "inside one LU: neighbour partitions unchanged" neighbours_ok
rc=0
"$XCP" --stats --dst-lba $((pblocks - 8)) --blocks 16 "${sdc}1" "${sdd}2" >"$W/p3.stats" 2>&1 || rc=$?
lab_check "a range past the destination partition's end: exit 2 (got $rc)" test "$rc" -eq 2
lab_check "past the end: neighbour partitions unchanged" neighbours_ok
lab_check "past the end: destination partition unchanged" \
	cmp <(dd if="${sdd}2" bs=1M iflag=direct status=none) "$W/p.data"
rm -f "$W"/s/*.img  # freed when the LUs close
lab_summary
