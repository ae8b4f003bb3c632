#!/bin/bash
# xcp on device-mapper (LVM) volumes and on partitions of user:xcopy LUs.
# SG_IO on a dm-linear node (and on a partition) reaches the whole disk
# underneath, so the library must never send a command through a node it
# cannot map exactly. Checked, with data read back O_DIRECT:
#   - with XCOPY_DM=off, LV -> LV (each LV on its own LU, a neighbour LV after
#     the destination): exactly the LV is copied, on the host, reason
#     printed; everything on the destination disk outside the LV unchanged
#     (LVM label, metadata, the neighbour LV); --require-offload exits 3 and
#     writes nothing;
#   - by default, linear LVs (one spanning both LUs) are mapped onto the LUs
#     and offloaded (< 1 % of the bytes through the sd devices), neighbours
#     intact; a non-linear dm target is refused by name;
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
lab_random "$W/l1.data" 16M
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

lab_check "LV -> LV (XCOPY_DM=off): xcp exits 0" bash -c \
	"XCOPY_DM=off '$XCP' --stats /dev/vg320/l1 /dev/vg320/l2 >'$W/lv.stats' 2>'$W/lv.err'"
cat "$W/lv.stats" "$W/lv.err" | sed 's/^/    /'
lab_check "LV -> LV: exactly 16 MiB copied, on the host" \
	test "$(stat_of "$W/lv.stats" 'bytes by fallback:')" = 16777216
lab_check "LV -> LV: nothing offloaded, no EXTENDED COPY" \
	grep -q '^xcopy commands: *0 ' "$W/lv.stats"
lab_check "LV -> LV: the reason is printed (device-mapper, XCOPY_DM=off, not-scsi)" \
	bash -c "grep -q 'device-mapper.*XCOPY_DM=off' '$W/lv.err' && grep -q 'not-scsi' '$W/lv.stats'"
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
XCOPY_DM=off "$XCP" --stats --require-offload /dev/vg320/l1 /dev/vg320/l3 \
	>"$W/req.stats" 2>"$W/req.err" || rc=$?
lab_check "LV -> LV --require-offload: exit 3 (got $rc)" test "$rc" -eq 3
lab_check "LV -> LV --require-offload: the destination LV unchanged" \
	test "$(sum_all /dev/vg320/l3)" = "$l3_before"
lab_check "LV -> LV --require-offload: no bytes moved" \
	test "$(stat_of "$W/req.stats" 'bytes offloaded:')/$(stat_of "$W/req.stats" 'bytes by fallback:')" = 0/0

# --- linear volumes mapped onto the LUs (the default) -------------------------------
# ls spans both LUs: fill sda so that its last extent is the only one free there
read -r pe_count pe_alloc <<<"$(lvm pvs --noheadings -o pv_pe_count,pv_pe_alloc_count "$sda")"
pe_size=$(lvm vgs --noheadings --units b --nosuffix -o vg_extent_size vg320 | tr -d ' ')
ls_pe=$((12 * 1024 * 1024 / pe_size))
lab_check "LVM: filler on $sda, ls on the last extent of $sda and on $sdb, lt on $sdb" bash -c "
	lvm lvcreate -q -y -l $((pe_count - pe_alloc - 1)) -n filler vg320 $sda &&
	lvm lvcreate -q -y -l 1 -n ls vg320 $sda && lvm lvextend -q -l +$((ls_pe - 1)) vg320/ls $sdb &&
	lvm lvcreate -q -y -L 12M -n lt vg320 $sdb" 2>"$W/lvm.err"
lab_check "ls spans both LUs: $(dmsetup table vg320-ls | wc -l) linear targets" \
	bash -c "dmsetup table vg320-ls; lvm lvs -o lv_name,devices vg320; test \$(dmsetup table vg320-ls | grep -c linear) -eq 2"
dd if="$W/l1.data" of=/dev/vg320/ls bs=1M count=12 oflag=direct status=none
pattern l2-before 16M | dd of=/dev/vg320/l2 bs=1M oflag=direct iflag=fullblock status=none
head_before=$(sum_range "$sdb" 0 "$l2_start")
tail_before=$(sum_range "$sdb" $((l2_start + l2_len)) $((sdb_sectors - l2_start - l2_len)))
sd_io() {   # sectors read from sda + written to sdb so far
	local a b
	read -r _ _ a _ <"/sys/block/${sda#/dev/}/stat"
	read -r _ _ _ _ _ _ b _ <"/sys/block/${sdb#/dev/}/stat"
	echo $((a + b))
}
io0=$(sd_io)
lab_check "linear LV -> LV: xcp exits 0" bash -c \
	"'$XCP' --stats /dev/vg320/l1 /dev/vg320/l2 >'$W/dm.stats' 2>'$W/dm.err'"
io1=$(sd_io)
sed 's/^/    /' "$W/dm.stats"
lab_check "linear LV -> LV: all 16 MiB offloaded" \
	test "$(stat_of "$W/dm.stats" 'bytes offloaded:')" = 16777216
lab_check "linear LV -> LV: host I/O on the sd devices $(( (io1 - io0) * 512 )) bytes (< 1 % of 16 MiB)" \
	test $(( (io1 - io0) * 512 * 100 )) -lt 16777216
lab_check "linear LV -> LV: data identical" \
	cmp <(dd if=/dev/vg320/l2 bs=1M iflag=direct status=none) "$W/l1.data"
lab_check "linear LV -> LV: $sdb outside l2 unchanged" test \
	"$(sum_range "$sdb" 0 "$l2_start")/$(sum_range "$sdb" $((l2_start + l2_len)) $((sdb_sectors - l2_start - l2_len)))" = "$head_before/$tail_before"
lab_check "LV spanning both LUs -> LV: xcp --require-offload exits 0" bash -c \
	"'$XCP' --stats --require-offload /dev/vg320/ls /dev/vg320/lt >'$W/span.stats' 2>&1"
lab_check "spanning LV: all 12 MiB offloaded in $(awk '/^xcopy commands:/ {print $3}' "$W/span.stats") command(s)" \
	test "$(stat_of "$W/span.stats" 'bytes offloaded:')" = 12582912
lab_check "spanning LV: data identical" \
	cmp <(dd if=/dev/vg320/lt bs=1M iflag=direct status=none) <(head -c 12M "$W/l1.data")
lab_check "spanning LV: neighbour LV n2 holds its pattern" \
	cmp <(dd if=/dev/vg320/n2 bs=1M iflag=direct status=none) <(pattern n2-neighbour 8M)
# a device-mapper target that is not a linear remap: refused, host copy
dmsetup create --noudevsync --noudevrules z320 --table "0 $((l2_len / 2)) zero"
dmsetup mknodes z320 2>/dev/null || true
lab_check "dm 'zero' target /dev/mapper/z320" test -b /dev/mapper/z320
rc=0
"$XCP" --stats --require-offload /dev/mapper/z320 /dev/vg320/lt \
	>"$W/zero.stats" 2>"$W/zero.err" || rc=$?
lab_check "a 'zero' target with --require-offload: exit 3 (got $rc: $(tail -1 "$W/zero.err")), reason named" \
	bash -c "test $rc -eq 3 && grep -q \"'zero' target\" '$W/zero.err'"
lab_check "'zero' target: destination unchanged" \
	cmp <(dd if=/dev/vg320/lt bs=1M iflag=direct status=none) <(head -c 12M "$W/l1.data")
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
lab_random "$W/p.data" 12M
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
