#!/bin/bash
# libxcopy-preload.so under unmodified programs on ext4 over a user:xcopy LU
# (tcm_loop, tcmu-runner with this project's plugin):
#   - in place into a preallocated, written destination (Python's
#     os.copy_file_range, LAB_PRELOAD_MB MiB, default 64, 256 until
#     2026-12-07: the host moved 45056 bytes in every CI run, far under 1 %
#     of either): >= 99 % offloaded by the library's own count, < 1 % of the
#     bytes in the sd device's diskstats, data identical; then os.sendfile in
#     place, offloaded too;
#   - coreutils cp (9.1: copy_file_range) into a new file and onto an
#     existing written file (cp opens it O_TRUNC: its blocks are freed): on
#     the 6.1 kernel no written blocks can be allocated, so cp's copy falls
#     back, is identical, and the log says why (reason "allocation");
#   - xcp -j 8 on the LU's sg node: 64 MiB in >= 8 EXTENDED COPY commands,
#     several running at once in the plugin (its inflight_max), identical.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-370
PRE=$LAB_BUILD/host/libxcopy-preload.so
XCB=$LAB_BUILD/bench/xcbench
MB=${LAB_PRELOAD_MB:-64}
SMALL=16
mkdir -p "$W"
lab_check "libxcopy-preload.so and xcbench are built" test -f "$PRE" -a -x "$XCB"

step() { echo "[${SECONDS}s] $*"; }
io_sectors() { awk -v d="$1" '$3 == d { print $6 + $10 }' /proc/diskstats; }
preloaded() {   # LOG CMD...
	local log=$1
	shift
	LD_PRELOAD=$PRE LD_LIBRARY_PATH=$LAB_BUILD/host XCOPY_PRELOAD_LOG=$log "$@"
}
# bytes offloaded / by fallback over every call in a log
log_sum() { awk -v k="$2" '$0 ~ / bytes asked: / {
	for (i = 1; i <= NF; i++) { if ($i == "offloaded" && k == "off") s += $(i - 1)
		if ($i == "by" && $(i + 1) == "fallback," && k == "fb") s += $(i - 1) } }
	END { print s + 0 }' "$1"; }

# The files are written before the LU exists, through a loop device on its
# image (writing them through tcmu-runner under TCG is much slower);
# the copies then run on the LU, and the results are compared on the image.
img=$W/x0.img
truncate -s 768M "$img"
echo ',,L' | sfdisk -q "$img" >/dev/null
mnt=$W/mnt
mkdir -p "$mnt"
on_image() {   # MOUNT-OPTIONS: mount the image's partition at $mnt through a loop device
	LOOP=$(losetup -P -f --show "$img")
	lab_wait_for test -b "${LOOP}p1"
	mount -o "$1" "${LOOP}p1" "$mnt"
}
off_image() { umount "$mnt"; losetup -d "$LOOP"; }
on_image_fresh() {
	LOOP=$(losetup -P -f --show "$img")
	lab_wait_for test -b "${LOOP}p1"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "${LOOP}p1"
	mount "${LOOP}p1" "$mnt"
}
on_image_fresh
# pseudo-random, every MiB different (xorshift: /dev/urandom is slow under TCG)
"$XCB" fill "$mnt/src" 0 $((MB << 20)) 1
"$XCB" fill "$mnt/s2" 0 $((SMALL << 20)) 2
# written destinations: their blocks exist, the copy manager overwrites them
for f in dst:$MB d2:$SMALL d3:$SMALL; do
	dd if=/dev/zero of="$mnt/${f%:*}" bs=1M count="${f#*:}" conv=fsync status=none
done
off_image
step "files written on the image"

x0=$(lab_user_create x0 xcopy "$img" 768M)
read -r sd sg <<<"$(lab_loop_export "$x0")"
dev=${sd#/dev/}
lab_wait_for test -b "${sd}1"
mount "${sd}1" "$mnt"
step "LU exported and mounted"

# 1. in place into a written destination
echo 3 >/proc/sys/vm/drop_caches
before=$(io_sectors "$dev")
t0=$(date +%s.%N)
preloaded "$W/inplace.log" python3 -c 'import os, sys
s = os.open(sys.argv[1], os.O_RDONLY)
d = os.open(sys.argv[2], os.O_WRONLY)
n = 0
while True:
    k = os.copy_file_range(s, d, 1 << 30)
    if k == 0:
        break
    n += k
print(n)' "$mnt/src" "$mnt/dst" >"$W/inplace.out"
t1=$(date +%s.%N)
after=$(io_sectors "$dev")
cat "$W/inplace.log"
echo 3 >/proc/sys/vm/drop_caches
copied=$((MB * 1024 * 1024))
off=$(log_sum "$W/inplace.log" off)
host=$(((after - before) * 512))
lab_check "copy_file_range in place: python copied $(cat "$W/inplace.out") of $copied bytes" \
	test "$(cat "$W/inplace.out")" -eq "$copied"
lab_check "copy_file_range in place: >= 99% offloaded ($off of $copied bytes, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)" \
	test "$((off * 100))" -ge "$((copied * 99))"
lab_check "copy_file_range in place: host moved $host bytes (< 1% of $copied)" \
	test "$((host * 100))" -lt "$copied"

step "copy_file_range in place done"

# 2. sendfile in place (the source's offset given, the destination's position used)
preloaded "$W/sendfile.log" python3 -c 'import os, sys
s = os.open(sys.argv[1], os.O_RDONLY)
d = os.open(sys.argv[2], os.O_WRONLY)
off = 0
while True:
    k = os.sendfile(d, s, off, 1 << 30)
    if k == 0:
        break
    off += k
print(off, os.lseek(d, 0, os.SEEK_CUR), os.lseek(s, 0, os.SEEK_CUR))' "$mnt/s2" "$mnt/d2" \
	>"$W/sendfile.out"
cat "$W/sendfile.log"
echo 3 >/proc/sys/vm/drop_caches
small=$((SMALL * 1024 * 1024))
lab_check "sendfile in place: sent, destination position, source position = $(cat "$W/sendfile.out")" \
	test "$(cat "$W/sendfile.out")" = "$small $small 0"
off=$(log_sum "$W/sendfile.log" off)
lab_check "sendfile in place: >= 99% offloaded ($off of $small bytes)" \
	test "$((off * 100))" -ge "$((small * 99))"

step "sendfile done"

# 3. cp into a new file and onto a written one: falls back, says why
preloaded 1 cp "$mnt/s2" "$mnt/new" 2>"$W/cp-new.err"
preloaded 1 cp "$mnt/s2" "$mnt/d3" 2>"$W/cp-old.err"
cat "$W/cp-new.err" "$W/cp-old.err"
echo 3 >/proc/sys/vm/drop_caches
for c in new old; do
	lab_check "cp ($c): the library took cp's copy_file_range" \
		grep -q "bytes asked: $small copied" "$W/cp-$c.err"
	lab_check "cp ($c): fell back for $small bytes and says why (allocation)" \
		grep -q "fell back for $small bytes .*: allocation: the kernel cannot allocate written" \
		"$W/cp-$c.err"
done
umount "$mnt"
step "cp done"
# the data as the LU's medium holds it (the image, read-only)
on_image ro,noload
lab_check "copy_file_range in place: identical on the medium" cmp "$mnt/src" "$mnt/dst"
lab_check "sendfile in place: identical on the medium" cmp "$mnt/s2" "$mnt/d2"
lab_check "cp to a new file: identical on the medium" cmp "$mnt/s2" "$mnt/new"
lab_check "cp onto a written file: identical on the medium" cmp "$mnt/s2" "$mnt/d3"
off_image
step "compared"

# 4. commands in flight through SG_IO: xcp -j 8, 64 MiB from LBA 0 to 640 MiB
# of the LU (the file system is done with), spread over 8 commands
jobs0=$(xt_stat x0 inflight_max)
rc=0
"$LAB_BUILD/host/xcp" -j 8 --stats --src-lba 0 --dst-lba $((640 << 11)) --blocks $((64 << 11)) \
	"$sg" "$sg" >"$W/j8.stats" 2>"$W/j8.err" || rc=$?
lab_check "xcp -j 8: raw copy on $sg, exit $rc $(head -c 200 "$W/j8.err")" test "$rc" -eq 0
cat "$W/j8.stats"
off=$(awk '/^bytes offloaded:/ { print $3 }' "$W/j8.stats")
cmds=$(awk '/^xcopy commands:/ { print $3 }' "$W/j8.stats")
lab_check "xcp -j 8: $off bytes offloaded (of $((64 << 20))) in $cmds (>= 8) EXTENDED COPY commands" \
	test "$off" = $((64 << 20)) -a "${cmds:-0}" -ge 8
lab_check "xcp -j 8: the plugin ran several at once (inflight_max $jobs0 -> $(xt_stat x0 inflight_max))" \
	test "$(xt_stat x0 inflight_max)" -ge 2
lab_check "xcp -j 8: identical on the medium" cmp -i 0:$((640 << 20)) -n $((64 << 20)) "$img" "$img"
step "in flight done"

# 5. the same over iSCSI: one session per command in flight (own ISIDs)
url=$(lab_iscsi_export "iqn.2003-01.org.linux-iscsi.lab:t370" "$x0")
rc=0
"$LAB_BUILD/host/xcp" -j 4 --stats --src-lba $((64 << 11)) --dst-lba $((704 << 11)) \
	--blocks $((32 << 11)) "$url/0" "$url/0" >"$W/j4.stats" 2>"$W/j4.err" || rc=$?
cat "$W/j4.stats"
cmds=$(awk '/^xcopy commands:/ { print $3 }' "$W/j4.stats")
off=$(awk '/^bytes offloaded:/ { print $3 }' "$W/j4.stats")
lab_check "xcp -j 4 over iSCSI: exit $rc, $off bytes offloaded in $cmds (>= 4) commands $(head -c 200 "$W/j4.err")" \
	test "$rc" -eq 0 -a "$off" = $((32 << 20)) -a "${cmds:-0}" -ge 4
lab_check "xcp -j 4 over iSCSI: identical on the medium" \
	cmp -i $((64 << 20)):$((704 << 20)) -n $((32 << 20)) "$img" "$img"
step "iSCSI in flight done"
# the 768 MiB image lives in guest RAM: free it for the tests after this one
# (the driver removes the LU, which closes it)
rm -f "$img"
lab_summary
