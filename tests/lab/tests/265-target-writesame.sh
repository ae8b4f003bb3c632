#!/bin/bash
# WRITE SAME on user:xcopy LUs (target/tcmu/write_same.c) and durability with
# the write cache off (attrib/emulate_write_cache = 0), on an XFS store over a
# loop device (the store's own sector counters are the witness, no strace):
#   1. sg_write_same --16 --unmap with a block of ff bytes (LBA 0, 1024 blocks,
#      the issue's command), WRITE SAME(10) with UNMAP and a random block at an
#      unaligned range, WRITE SAME(16) without UNMAP (the core's path): the LU
#      reads back the model (the block in every LBA, the data around it kept);
#      with a zero block the range reads zeros and the file is punched. LIO
#      fileio (emulate_tpws = 1) gets the same ff command: what it reads back is
#      printed and recorded in BUILD/lab/265-writesame.txt, not judged.
#   2. with the periodic writeback off (vm.dirty_writeback_centisecs = 0), on
#      an LU with WCE = 0: WRITE SAME with UNMAP (pattern, 8 MiB) and EXTENDED
#      COPY (8 MiB, sg_xcopy and ddpt -x; clone=never&cfr=never: XFS's copy_file_range would share
#      the extents, writing no data; writeback=late: no write-behind; dio=auto:
#      the O_DIRECT read/write loop, counted) have written at least their bytes to the loop
#      device when GOOD arrives, and the pattern is on the medium (read from
#      the loop device's image at the file's physical extents); WRITE SAME
#      deallocation and UNMAP have written something (the log); on the WCE = 1
#      LU (dio=never) the same pattern command and copy leave the device
#      (nearly) untouched.
#   3. LUs on a block device (a loop device): with dio=auto nothing goes
#      O_DIRECT (io_direct_bytes), with dio=always the 1 MiB I/O does; 4 MiB
#      written read back from the LU and, after SYNCHRONIZE CACHE, from the
#      device itself.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-265
MB=1048576
OUT=$LAB_RESULTS/265-writesame.txt
mkdir -p "$W"
: >"$OUT"
st=$(lab_xfs_store "$W/xfs" 640M)
read -r _ loopdev img < <(awk -F'\t' -v d="$st" '$1 == d' "$LAB_STATE/stores/list" | tail -1)
lab_check "XFS store $st on $loopdev" test -b "$loopdev"

head -c 512 /dev/zero | tr '\0' '\377' >"$W/ff"
head -c 512 /dev/urandom >"$W/rnd"
head -c 512 /dev/urandom >"$W/rnd2"
# rep BLOCKFILE N OUT : the block N times
rep() { python3 -c 'import sys; open(sys.argv[3], "wb").write(open(sys.argv[1], "rb").read(512) * int(sys.argv[2]))' "$@"; }
# model_put MODEL BLOCKFILE LBA N : the block N times at LBA of the model
model_put() { rep "$2" "$4" "$W/rep"; dd if="$W/rep" of="$1" bs=512 seek="$3" conv=notrunc status=none; }
# lu_is SD MODEL MIB : the LU's first MIB MiB read O_DIRECT equal the model's
lu_is() { cmp <(dd if="$1" bs=1M count="$3" iflag=direct status=none) <(head -c $(($3 * MB)) "$2"); }
# sectors written to the store's loop device so far
wsec() { local s; read -r -a s <"/sys/block/${loopdev#/dev/}/stat"; echo "${s[6]}"; }

truncate -s 64M "$st/x0.img" "$st/x1.img"
# ws0 dio=never: its copies through the page cache, which WCE = 1 may keep
# (with dio=auto the read/write copy goes O_DIRECT: on the medium at GOOD)
x0=$(lab_user_create ws0 xcopy "$st/x0.img?clone=never&cfr=never&writeback=late&dio=never" 64M)
x1=$(lab_user_create ws1 xcopy "$st/x1.img?clone=never&cfr=never&writeback=late" 64M)
echo 0 >"$x1/attrib/emulate_write_cache"
f0=$(lab_fileio_create wsf "$st/f0.img" 64M)
echo 1 >"$f0/attrib/emulate_tpws" || echo "LIO fileio: emulate_tpws = 1 refused"
{ read -r sd0 sg0; read -r sd1 sg1; read -r sdf _; } <<<"$(lab_loop_export "$x0" "$x1" "$f0")"
cache() { cat /sys/block/"${1#/dev/}"/device/scsi_disk/*/cache_type; }
lab_check "ws0 $sd0 reports a write-back cache (WCE = 1): $(cache "$sd0")" test "$(cache "$sd0")" = "write back"
lab_check "ws1 $sd1 reports write through (WCE = 0): $(cache "$sd1")" test "$(cache "$sd1")" = "write through"

# --- 1. the data sent reads back -------------------------------------------
lab_random "$W/m0" $((16 * MB))
dd if="$W/m0" of="$sd0" bs=1M oflag=direct status=none
lab_check "sg_write_same --16 --unmap --in=<512 bytes of ff> --num=1024 is GOOD" \
	sg_write_same --16 --unmap --in="$W/ff" --lba=0 --num=1024 "$sd0"
model_put "$W/m0" "$W/ff" 0 1024
lab_check "... user:xcopy reads back ff in LBA 0-1023, the data after it" lu_is "$sd0" "$W/m0" 16
lab_check "WRITE SAME(10) --unmap, a random block, LBA 3 + 20001 blocks: GOOD" \
	sg_write_same --10 --unmap --in="$W/rnd" --lba=3 --num=20001 "$sd0"
model_put "$W/m0" "$W/rnd" 3 20001
lab_check "... reads back the block in every LBA, the data around it" lu_is "$sd0" "$W/m0" 16
lab_check "WRITE SAME(16) without UNMAP (the core's path), LBA 25000 + 777: GOOD" \
	sg_write_same --16 --in="$W/rnd2" --lba=25000 --num=777 "$sd0"
model_put "$W/m0" "$W/rnd2" 25000 777
lab_check "... reads back the block" lu_is "$sd0" "$W/m0" 16
lab_check "plugin counted 1024 + 20001 blocks written by WRITE SAME with UNMAP ($(xt_stat ws0 ws_written) bytes)" \
	test "$(xt_stat ws0 ws_written)" -eq $(((1024 + 20001) * 512))
sync
b0=$(stat -c %b "$st/x0.img")
lab_check "sg_write_same --16 --unmap, zero block, LBA 8192 + 8192: GOOD" \
	sg_write_same --16 --unmap --lba=8192 --num=8192 "$sd0"
dd if=/dev/zero of="$W/m0" bs=512 seek=8192 count=8192 conv=notrunc status=none
lab_check "... reads back zeros there, the rest kept" lu_is "$sd0" "$W/m0" 16
lab_check "... and the backing file was punched ($b0 -> $(stat -c %b "$st/x0.img") blocks)" \
	test "$(stat -c %b "$st/x0.img")" -lt "$b0"

# ff_result SD : what SD reads back in LBA 0-1023 after the ff command
ff_result() {
	local sd=$1
	if ! sg_write_same --16 --unmap --in="$W/ff" --lba=0 --num=1024 "$sd" >"$W/f.err" 2>&1; then
		echo "refused: $(tr '\n' ' ' <"$W/f.err")"
		return 0
	fi
	dd if="$sd" bs=512 count=1024 iflag=direct status=none >"$W/f.read"
	if cmp -s "$W/f.read" "$W/f.want"; then echo "GOOD, reads back ff (the data sent)"
	elif cmp -s "$W/f.read" <(head -c $((1024 * 512)) /dev/zero); then echo "GOOD, reads back zeros (data lost)"
	else echo "GOOD, reads back neither ff nor zeros"; fi
}
# LIO fileio beside user:xcopy: the same command on written blocks, recorded
rep "$W/ff" 1024 "$W/f.want"
lab_random "$W/mf" $((MB))
dd if="$W/mf" of="$sdf" bs=1M oflag=direct status=none
dd if="$W/mf" of="$sd0" bs=1M oflag=direct status=none
echo "LIO fileio ($(uname -r)), sg_write_same --16 --unmap --in=ff --num=1024: $(ff_result "$sdf")" | tee -a "$OUT"
echo "user:xcopy, the same command: $(ff_result "$sd0")" | tee -a "$OUT"
dd if="$W/m0" of="$sd0" bs=1M count=1 oflag=direct status=none

# --- 2. WCE = 0: on the medium before GOOD ------------------------------------
wb0=$(cat /proc/sys/vm/dirty_writeback_centisecs)
ex0=$(cat /proc/sys/vm/dirty_expire_centisecs)
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
echo 360000 >/proc/sys/vm/dirty_expire_centisecs
restore() { echo "$wb0" >/proc/sys/vm/dirty_writeback_centisecs; echo "$ex0" >/proc/sys/vm/dirty_expire_centisecs; }
trap restore EXIT
dd if=/dev/urandom of="$sd1" bs=1M count=32 oflag=direct status=none
sync
# measure LABEL CMD... : run CMD (must be GOOD); the sectors the store wrote meanwhile in $d
measure() {
	local label=$1 s0
	shift
	sync   # what earlier commands left dirty is not counted
	s0=$(wsec)
	"$@" >"$W/cmd.out" 2>&1 || { lab_fail "$label: command failed: $(tail -2 "$W/cmd.out")"; d=-1; return 0; }
	d=$(($(wsec) - s0))
	echo "$label: $d sectors written to $loopdev before GOOD" | tee -a "$OUT"
}
# on_medium FILE OFF LEN MODEL : bytes [OFF, +LEN) of FILE as the loop device's image holds them
on_medium() {
	python3 - "$@" "$img" <<'PY'
import re, subprocess, sys
f, off, ln, model, img = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
ext = []
for l in subprocess.run(["filefrag", "-e", "-b512", f], capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"\s*\d+:\s*(\d+)\.\.\s*(\d+):\s*(\d+)\.\.", l)
    if m:
        ext.append((int(m[1]) * 512, (int(m[2]) + 1) * 512, int(m[3]) * 512))
want = open(model, "rb").read()[:ln]
got = bytearray()
with open(img, "rb") as d:
    pos = off
    while pos < off + ln:
        e = next((e for e in ext if e[0] <= pos < e[1]), None)
        if e is None:
            sys.exit("offset %d not allocated on the medium" % pos)
        n = min(e[1], off + ln) - pos
        d.seek(e[2] + pos - e[0])
        got += d.read(n)
        pos += n
sys.exit(0 if bytes(got) == want else "the medium holds other bytes at %d" % off)
PY
}
rep "$W/rnd" 16384 "$W/p8"
measure "WCE = 0, WRITE SAME --unmap pattern 8 MiB" sg_write_same --16 --unmap --in="$W/rnd" --lba=0 --num=16384 "$sd1"
lab_check "WCE = 0: WRITE SAME pattern wrote >= 16384 sectors to the store before GOOD ($d)" test "$d" -ge 16384
lab_check "... and the medium (the loop device's image) holds the pattern" on_medium "$st/x1.img" 0 $((8 * MB)) "$W/p8"
measure "WCE = 1, WRITE SAME --unmap pattern 8 MiB" sg_write_same --16 --unmap --in="$W/rnd" --lba=0 --num=16384 "$sd0"
lab_check "WCE = 1: the same command left it to SYNCHRONIZE CACHE (< 1024 sectors: $d)" test "$d" -lt 1024
measure "WCE = 0, EXTENDED COPY 8 MiB inside the LU" sg_xcopy if="$sg1" of="$sg1" bs=512 bpt=16384 skip=0 seek=32768 count=16384
lab_check "WCE = 0: EXTENDED COPY wrote >= 16384 sectors before GOOD ($d)" test "$d" -ge 16384
lab_check "... the copy reads back" cmp <(dd if="$sd1" bs=1M skip=16 count=8 iflag=direct status=none) "$W/p8"
rd=$(xt_stat ws1 rw_direct_bytes)
lab_check "... through the O_DIRECT read/write loop (rw_direct_bytes $rd >= 8 MiB)" test "$rd" -ge $((8 * MB))
# the same path driven by another client (ddpt splits at RCR's segment limits)
measure "WCE = 0, ddpt -x 8 MiB inside the LU" ddpt -x if="$sg1" of="$sg1" bs=512 skip=0 seek=16384 count=16384
lab_check "WCE = 0: ddpt's EXTENDED COPY wrote >= 16384 sectors before GOOD ($d)" test "$d" -ge 16384
lab_check "... it reads back" cmp <(dd if="$sd1" bs=1M skip=8 count=8 iflag=direct status=none) "$W/p8"
lab_check "... through the O_DIRECT loop too (rw_direct_bytes +$(($(xt_stat ws1 rw_direct_bytes) - rd)))" \
	test $(($(xt_stat ws1 rw_direct_bytes) - rd)) -ge $((8 * MB))
measure "WCE = 1, EXTENDED COPY 8 MiB inside the LU" sg_xcopy if="$sg0" of="$sg0" bs=512 bpt=16384 skip=0 seek=32768 count=16384
lab_check "WCE = 1: the copy left it to SYNCHRONIZE CACHE (< 1024 sectors: $d)" test "$d" -lt 1024
sync
measure "WCE = 0, WRITE SAME --unmap zero block 8 MiB" sg_write_same --16 --unmap --lba=49152 --num=16384 "$sd1"
lab_check "WCE = 0: the deallocation was committed before GOOD ($d sectors)" test "$d" -gt 0
sync
measure "WCE = 0, UNMAP 4 MiB (allocated: the copy's destination)" sg_unmap --lba=32768 --num=8192 "$sd1"
lab_check "WCE = 0: UNMAP was committed before GOOD ($d sectors)" test "$d" -gt 0
lab_check "ws1 counted its flushes (wt_syncs $(xt_stat ws1 wt_syncs))" test "$(xt_stat ws1 wt_syncs)" -ge 4
restore
trap - EXIT

# --- 3. a LU on a block device: dio=auto stays off O_DIRECT -------------------
# a raw block device does not serialize a buffered partial-page write against
# a direct write beside it (XFS and ext4 do): with dio=auto the store sends no
# I/O of a block-device LU direct; dio=always still may (docs/target-setup.md)
bd0=$(lab_blockdev 16M)
bd1=$(lab_blockdev 16M)
b0=$(lab_user_create bdauto xcopy "$bd0" 16M)
b1=$(lab_user_create bdalways xcopy "$bd1?dio=always" 16M)
{ read -r sdb0 _; read -r sdb1 _; } <<<"$(lab_loop_export "$b0" "$b1")"
lab_random "$W/m4" $((4 * MB))
# bd_case NAME SD BDEV : 4 MiB of 1 MiB WRITEs read back from the LU and, after
#   SYNCHRONIZE CACHE, from the device; the LU's io_direct_bytes added in $bd_direct
bd_case() {
	local d0
	d0=$(xt_stat "$1" io_direct_bytes)
	dd if="$W/m4" of="$2" bs=1M oflag=direct status=none
	if cmp -s <(dd if="$2" bs=1M count=4 iflag=direct status=none) "$W/m4" &&
		sg_sync "$2" >/dev/null 2>&1 &&
		cmp -s <(dd if="$3" bs=1M count=4 iflag=direct status=none) "$W/m4"; then
		echo "$1: read back, and from $3 after SYNCHRONIZE CACHE" >>"$OUT"
	else
		lab_fail "$1 on $3: 4 MiB of 1 MiB WRITEs do not read back (from the LU or the device)"
	fi
	bd_direct=$(($(xt_stat "$1" io_direct_bytes) - d0))
}
bd_case bdauto "$sdb0" "$bd0"
lab_check "block device, dio=auto: no byte went O_DIRECT (io_direct_bytes +$bd_direct)" test "$bd_direct" -eq 0
bd_case bdalways "$sdb1" "$bd1"
lab_check "block device, dio=always: the 1 MiB WRITEs and READs went O_DIRECT (+$bd_direct >= 8 MiB)" \
	test "$bd_direct" -ge $((8 * MB))
lab_summary
