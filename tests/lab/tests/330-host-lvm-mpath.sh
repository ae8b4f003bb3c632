#!/bin/bash
# libxcopy where users keep their data: LVM logical volumes and dm-multipath
# devices over user:xcopy LUs (tcm_loop), mapped by default.
#   - a file on ext4 on an LV spanning two LUs: xcp offloads >= 99 % of the
#     bytes, < 1 % of them pass through the sd devices (/proc/diskstats),
#     data identical;
#   - a striped LV (2 stripes) -> a linear LV with --require-offload: the
#     stripe chunks are mapped onto both LUs, all bytes offloaded, identical;
#   - two tcm_loop targets export the same three LUs (two paths each, one
#     VPD 83h NAA per LU); multipath-tools' `multipath` groups them by that
#     identity and creates the maps (the guest runs no udevd: the paths get
#     the udev database entries scsi_id would give them); a copy from one multipath device
#     to a linear volume over the two others (two EXTENDED COPY commands) is
#     slowed (delay fault) and the first path of every LU is taken offline
#     while the first command runs: the second command fails on its path
#     and is resent on the next, the copy completes, every byte offloaded,
#     data identical.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-330
XCP=$LAB_BUILD/host/xcp
MB=1048576
mkdir -p "$W/lvm" "$W/s" "$W/mnt"
cat >"$W/lvm/lvm.conf" <<'CONF'
devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 filter = [ "a|^/dev/sd|", "r|.*|" ] }
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
global { use_lvmetad = 0 }
CONF
export LVM_SYSTEM_DIR=$W/lvm LVM_SUPPRESS_FD_WARNINGS=1
modprobe dm_mod 2>/dev/null || true
modprobe dm_multipath 2>/dev/null || true
modprobe dm_round_robin 2>/dev/null || true
cleanup() {
	umount "$W/mnt" 2>/dev/null || true
	lvm vgchange -an vg330 >/dev/null 2>&1 || true
	dmsetup remove_all >/dev/null 2>&1 || true
	rm -rf /run/udev/data /etc/multipath.conf /etc/multipath
	echo off >"$XT_STATS_DIR/mc330.fault" 2>/dev/null || true
}
[ -d "$XT_STATS_DIR" ] || mkdir -p "$XT_STATS_DIR"
trap cleanup EXIT
stat_of() { awk -v k="$2" 'index($0, k) == 1 { print $NF; exit }' "$1"; }
sd_sectors() {  # sectors read + written on the sd devices given
	local d t=0
	for d in "$@"; do
		t=$((t + $(awk -v n="${d#/dev/}" '$3 == n { print $6 + $10 }' /proc/diskstats)))
	done
	echo "$t"
}

# --- LVM: a file on an LV spanning both LUs ------------------------------------------
truncate -s 96M "$W/s/a.img" "$W/s/b.img"
a=$(lab_user_create la330 xcopy "$W/s/a.img" 96M)
b=$(lab_user_create lb330 xcopy "$W/s/b.img" 96M)
{ read -r sda _; read -r sdb _; } <<<"$(lab_loop_export "$a" "$b")"
lab_check "LVM: VG on $sda + $sdb, striped st, LV fs (112 MiB, both LUs), linear ln" bash -c "
	lvm pvcreate -q $sda $sdb && lvm vgcreate -q vg330 $sda $sdb &&
	lvm lvcreate -q -y -i 2 -I 256k -L 16M -n st vg330 &&
	lvm lvcreate -q -y -L 112M -n fs vg330 &&
	lvm lvcreate -q -y -L 16M -n ln vg330 && test -b /dev/vg330/ln >'$W/lvm.log' 2>&1" ||
	sed 's/^/    /' "$W/lvm.log"
lab_check "LV fs spans both LUs: $(dmsetup table vg330-fs | wc -l) linear targets" \
	test "$(dmsetup table vg330-fs | grep -c linear)" -eq 2
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/vg330/fs
mount /dev/vg330/fs "$W/mnt"
lab_random "$W/mnt/src" $((40 * MB))
dd if=/dev/zero of="$W/mnt/dst" bs=1M count=40 conv=fsync status=none
sync
echo 3 >/proc/sys/vm/drop_caches
io0=$(sd_sectors "$sda" "$sdb")
rc=0
"$XCP" --stats "$W/mnt/src" "$W/mnt/dst" >"$W/file.stats" 2>"$W/file.err" || rc=$?
io1=$(sd_sectors "$sda" "$sdb")
sed 's/^/    /' "$W/file.stats"
lab_check "file on an LV: xcp exits 0 (got $rc: $(tail -1 "$W/file.err"))" test "$rc" -eq 0
off=$(stat_of "$W/file.stats" 'bytes offloaded:')
lab_check "file on an LV: >= 99 % offloaded ($off of $((40 * MB)) bytes)" \
	test "$((off * 100))" -ge "$((40 * MB * 99))"
lab_check "file on an LV: $(((io1 - io0) * 512)) bytes through $sda + $sdb (< 1 %)" \
	test "$(((io1 - io0) * 512 * 100))" -lt "$((40 * MB))"
echo 3 >/proc/sys/vm/drop_caches
lab_check "file on an LV: data identical" cmp "$W/mnt/src" "$W/mnt/dst"
umount "$W/mnt"

# --- a striped LV -> a linear LV ------------------------------------------------------
lab_check "LV st is striped over both LUs ($(dmsetup table vg330-st))" \
	bash -c "dmsetup table vg330-st | grep -q ' striped 2 512 '"
lab_random "$W/st.data" $((16 * MB))
dd if="$W/st.data" of=/dev/vg330/st bs=1M oflag=direct status=none
rc=0
"$XCP" --stats --require-offload /dev/vg330/st /dev/vg330/ln >"$W/st.stats" 2>&1 || rc=$?
lab_check "striped LV -> LV, --require-offload: exit 0 (got $rc)" test "$rc" -eq 0
lab_check "striped LV -> LV: all 16 MiB offloaded in $(awk '/^xcopy commands:/ { print $3 }' "$W/st.stats") command(s)" \
	test "$(stat_of "$W/st.stats" 'bytes offloaded:')" = $((16 * MB))
lab_check "striped LV -> LV: data identical" \
	cmp <(dd if=/dev/vg330/ln bs=1M iflag=direct status=none) "$W/st.data"
lvm vgchange -q -an vg330 >/dev/null 2>&1

# --- dm-multipath: two paths to each of three LUs, one dropped mid-copy --------------------
# Source: LU c (32 MiB) through multipath mpc; destination: a linear volume
# over multipath mpd (16 MiB) then mpe (16 MiB), so the copy takes two
# EXTENDED COPY commands, one per pair of LUs: the first path of every LU
# goes offline while the first command runs.
lab_random "$W/s/c.img" $((32 * MB))
truncate -s 16M "$W/s/d.img" "$W/s/e.img"
c=$(lab_user_create mc330 xcopy "$W/s/c.img" 32M)
d=$(lab_user_create md330 xcopy "$W/s/d.img" 16M)
e=$(lab_user_create me330 xcopy "$W/s/e.img" 16M)
{ read -r c1 _; read -r d1 _; read -r e1 _; } <<<"$(lab_loop_export "$c" "$d" "$e")"
{ read -r c2 _; read -r d2 _; read -r e2 _; } <<<"$(lab_loop_export "$c" "$d" "$e")"
wwid() { cat "/sys/block/${1#/dev/}/device/wwid"; }
lab_check "paths: $c1 + $c2, $d1 + $d2, $e1 + $e2: one VPD 83h NAA per LU ($(wwid "$c1"))" \
	test -n "$(wwid "$c1")" -a "$(wwid "$c1")" = "$(wwid "$c2")" -a \
	"$(wwid "$d1")" = "$(wwid "$d2")" -a "$(wwid "$e1")" = "$(wwid "$e2")" -a \
	"$(wwid "$c1")" != "$(wwid "$d1")"
devno() { cat "/sys/block/${1#/dev/}/dev"; }
# The guest runs no udevd: give each path the udev database entry udev's
# scsi_id would (ID_SERIAL = 3 + the VPD 83h NAA), so that multipath-tools
# finds the paths, groups them by that identity and creates the maps itself.
mkdir -p /run/udev/data
for p in "$c1" "$c2" "$d1" "$d2" "$e1" "$e2"; do
	w=$(wwid "$p")
	printf 'I:1\nE:ID_SERIAL=3%s\nE:ID_WWN=0x%s\nE:DEVTYPE=disk\nE:ID_BUS=scsi\n' \
		"${w#naa.}" "${w#naa.}" >"/run/udev/data/b$(devno "$p")"
done
printf 'defaults {\n\tfind_multipaths no\n\tuser_friendly_names no\n}\n' >/etc/multipath.conf
timeout 60 multipath -v2 >"$W/multipath.log" 2>&1 || true
grep -a 'addmap\|create:' "$W/multipath.log" | sed 's/^/    multipath -v2: /' || true
dmsetup mknodes 2>/dev/null || true
mpname() { local w; w=$(wwid "$1"); echo "3${w#naa.}"; }
mpc=$(mpname "$c1") mpd=$(mpname "$d1") mpe=$(mpname "$e1")
paths_of() { dmsetup table "$1" 2>/dev/null | grep -o ' [0-9]*:[0-9]*' | tr -d ' ' | tr '\n' ' '; }
lab_check "multipath-tools grouped the paths by VPD 83h: $mpc = $(paths_of "$mpc"), $mpd = $(paths_of "$mpd"), $mpe = $(paths_of "$mpe")" \
	test "$(paths_of "$mpc" | wc -w)" -eq 2 -a "$(paths_of "$mpd" | wc -w)" -eq 2 -a \
	"$(paths_of "$mpe" | wc -w)" -eq 2 -a -b "/dev/mapper/$mpc"
dmno() { dmsetup info -c --noheadings -o major,minor "$1" | tr -d ' '; }
dmsetup create --noudevsync --noudevrules dst330 --table "0 32768 linear $(dmno "$mpd") 0
32768 32768 linear $(dmno "$mpe") 0"
dmsetup mknodes dst330 2>/dev/null || true
lab_check "dst330: a linear volume over $mpd then $mpe" test -b /dev/mapper/dst330
# the path each multipath handle uses first: the first one in its table
first_sd() { local n; n=$(readlink -f "/sys/dev/block/$(paths_of "$1" | cut -d' ' -f1)"); echo "/dev/${n##*/}"; }
other_sd() { local n; n=$(readlink -f "/sys/dev/block/$(paths_of "$1" | cut -d' ' -f2)"); echo "/dev/${n##*/}"; }
dropped="$(first_sd "$mpc") $(first_sd "$mpd") $(first_sd "$mpe")"
read2d=$(other_sd "$mpd") read2e=$(other_sd "$mpe")
echo delay:250 >"$XT_STATS_DIR/mc330.fault"
"$XCP" --stats -v "/dev/mapper/$mpc" /dev/mapper/dst330 >"$W/mp.stats" 2>"$W/mp.err" &
pid=$!
t0=$(date +%s%N)
# the plugin takes the fault file when an EXTENDED COPY starts: the first command runs
LAB_WAIT=60 lab_wait_for test ! -e "$XT_STATS_DIR/mc330.fault" || true
t1=$(date +%s%N)
sleep 0.2
running=no
kill -0 "$pid" 2>/dev/null && running=yes
for p in $dropped; do echo offline >"/sys/block/${p#/dev/}/device/state"; done
t2=$(date +%s%N)
for p in $dropped; do echo "    $p: $(cat "/sys/block/${p#/dev/}/device/state")"; done
rc=0
wait "$pid" || rc=$?
t3=$(date +%s%N)
echo "    first command started $(((t1 - t0) / 1000000)) ms after xcp, paths offline at $(((t2 - t0) / 1000000)) ms, xcp done at $(((t3 - t0) / 1000000)) ms"
echo off >"$XT_STATS_DIR/mc330.fault"
sed 's/^/    /' "$W/mp.stats"
sed 's/^/    /' "$W/mp.err"
lab_check "the copy was running when $dropped went offline" test "$running" = yes
lab_check "multipath copy with a path dropped: exit 0 (got $rc: $(tail -1 "$W/mp.err"))" \
	test "$rc" -eq 0
lab_check "multipath: an EXTENDED COPY failed on the dropped path and was resent on the next" \
	grep -q 'multipath: path .* failed .* 83h command' "$W/mp.err"
lab_check "multipath: all 32 MiB offloaded ($(stat_of "$W/mp.stats" 'bytes offloaded:')) in $(awk '/^xcopy commands:/ { print $3 }' "$W/mp.stats") commands" \
	test "$(stat_of "$W/mp.stats" 'bytes offloaded:')" = $((32 * MB))
lab_check "multipath: data identical (read through the second paths)" \
	cmp <(cat <(dd if="$read2d" bs=1M iflag=direct status=none) \
		<(dd if="$read2e" bs=1M iflag=direct status=none)) "$W/s/c.img"
cleanup
rm -f "$W"/s/*.img
lab_summary
