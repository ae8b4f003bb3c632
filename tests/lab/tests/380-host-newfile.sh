#!/bin/bash
# A copy into a NEW file, on ext4 and XFS over a user:xcopy LU (tcm_loop,
# tcmu-runner with this project's plugin). Runs on both lab kernels:
#
# Linux >= 6.17 (make test runs it on trixie-backports' kernel, LAB_KERNEL=bpo):
#   - the kernel's sd sees unmap write zeroes on the LU: provisioning_mode
#     unmap, zeroing_mode writesame_16_unmap, queue/write_zeroes_unmap_max_hw_bytes
#     > 0 (READ CAPACITY(16) LBPME/LBPRZ, VPD B2h LBPWS, B0h limits);
#   - sg_write_same --16 --unmap of an unaligned range of a raw LU reads back
#     zeros, the backing file is punched there and the blocks around it keep
#     their data (compared with a model);
#   - xcp SRC NEW and LD_PRELOAD=libxcopy-preload.so cp SRC NEW (unmodified
#     coreutils cp: O_TRUNC, then copy_file_range): every byte offloaded, data
#     identical after drop_caches, the bytes that crossed the fabric (LIO's
#     statistics/scsi_lu read_mbytes + write_mbytes during the copy) <= 1 % of
#     the file, fsck clean; a sparse source keeps its holes;
#   - on an LU without unmap write zeroes (LIO fileio, no emulate_tpws) the
#     same copy falls back with reason allocation-disk, and --require-offload
#     exits 3 naming it.
# Linux < 6.17 (the default 6.1 lab): the copy falls back with reason
#   allocation, and --require-offload exits 3 naming the missing
#   FALLOC_FL_WRITE_ZEROES (Linux >= 6.17).
# LAB_NEWFILE_MB (default 128) sets the file size. The fabric check is
# whole MiB (LIO's counters): <= 1 % of 128 MiB allows 1 MiB; a run
# moved 0 MiB in each of the four copies (bpo kernel, 2026-12-06).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

W=/tmp/lab-380
XCP=$LAB_BUILD/host/xcp
PRE=$LAB_BUILD/host/libxcopy-preload.so
MB=${LAB_NEWFILE_MB:-128}
BYTES=$((MB * 1048576))
mkdir -p "$W"
lab_check "xcp and libxcopy-preload.so are built" test -x "$XCP" -a -f "$PRE"

kv=$(uname -r)
new_kernel=0
case "$kv" in
[0-5].* | 6.[0-9].* | 6.1[0-6].*) ;;
*) new_kernel=1 ;;
esac
echo "kernel $kv: FALLOC_FL_WRITE_ZEROES $([ "$new_kernel" = 1 ] && echo expected || echo absent)"

json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $1" "$2"; }
cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }
preloaded() { LD_PRELOAD=$PRE LD_LIBRARY_PATH=$LAB_BUILD/host XCOPY_PRELOAD_LOG=1 "$@"; }

# one partition over the whole LU
partition() { echo ',,L' | sfdisk -q "$1" >/dev/null && lab_wait_for test -b "${1}1"; }

# mkfs + mount the LU's first partition: prints the mount point
make_fs() {   # SD FS
	local part=${1}1 mnt=$W/mnt-$2
	case "$2" in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$part" ;;
	# no reflink: cp would clone the file (FICLONE) and copy nothing
	xfs) mkfs.xfs -q -f -m reflink=0 "$part" ;;
	esac
	mkdir -p "$mnt"
	mount "$part" "$mnt"
	echo "$mnt"
}
fsck_clean() {   # SD FS
	case "$2" in
	ext4) e2fsck -fn "${1}1" ;;
	xfs) xfs_repair -n "${1}1" ;;
	esac
}

# The LU under sd as the kernel's sd sees it (what FALLOC_FL_WRITE_ZEROES needs).
sd_limits_case() {   # SD
	local b=${1#/dev/} sdisk
	sdisk=$(echo /sys/block/"$b"/device/scsi_disk/*)
	grep -H . /sys/block/"$b"/queue/write_zeroes_{unmap_max_hw_bytes,max_bytes} \
		"$sdisk"/{provisioning_mode,zeroing_mode,max_write_same_blocks} || true
	lab_check "sd: provisioning_mode unmap, zeroing_mode writesame_16_unmap" \
		bash -c "[ \"\$(cat $sdisk/provisioning_mode)\" = unmap ] && [ \"\$(cat $sdisk/zeroing_mode)\" = writesame_16_unmap ]"
	lab_check "sd: queue/write_zeroes_unmap_max_hw_bytes > 0" \
		test "$(cat /sys/block/"$b"/queue/write_zeroes_unmap_max_hw_bytes)" -gt 0
	lab_check "READ CAPACITY(16): LBPME = 1, LBPRZ = 1" bash -c "sg_readcap -l $1 | grep -q 'lbpme=1, lbprz=1'"
	lab_check "VPD B2h: LBPWS = 1, LBPRZ = 1" \
		bash -c "sg_vpd -p lbpv $1 | grep -q 'LBPWS): 1' && sg_vpd -p lbpv $1 | grep -q 'LBPRZ): 1'"
}

# WRITE SAME(16) with UNMAP on a raw LU: zeros read back, the file punched, the rest kept.
write_same_case() {   # SD IMG
	local sd=$1 img=$2 lba=3 num=20001 before after
	lab_random "$W/model" 16M
	dd if="$W/model" of="$sd" bs=1M oflag=direct status=none
	before=$(stat -c %b "$img")
	lab_check "sg_write_same --16 --unmap (LBA $lba, $num blocks, zero data) is GOOD" \
		sg_write_same --16 --unmap --lba=$lba --num=$num "$sd"
	after=$(stat -c %b "$img")
	dd if=/dev/zero of="$W/model" bs=512 seek=$lba count=$num conv=notrunc status=none
	lab_check "... the LU reads the model back (zeros in the range, data around it)" \
		bash -c "dd if=$sd bs=1M count=16 iflag=direct status=none | cmp - $W/model"
	lab_check "... and the backing file was punched ($before -> $after 512-byte blocks)" \
		test "$after" -lt "$before"
}

# One new-file copy by COPIER (xcp or cp): data, offload, fabric bytes, fsck.
newfile_copy() {   # LABEL SO MNT COPIER DST
	local label=$1 so=$2 mnt=$3 how=$4 dst=$3/$5 f0 f1 moved
	cold
	f0=$(lab_fabric_mb "$so")
	case "$how" in
	xcp) "$XCP" --stats=json "$mnt/src" "$dst" >"$W/$label.json" 2>"$W/$label.err" ||
		lab_fail "$label: xcp failed: $(tail -3 "$W/$label.err")" ;;
	cp) preloaded cp "$mnt/src" "$dst" 2>"$W/$label.err" ||
		lab_fail "$label: cp failed: $(tail -3 "$W/$label.err")" ;;
	esac
	sync
	f1=$(lab_fabric_mb "$so")
	moved=$((f1 - f0))
	cat "$W/$label.err"
	case "$how" in
	xcp) lab_check "$label: every byte offloaded by EXTENDED COPY ($MB MiB)" \
		json 'assert d["bytes_offloaded"] == d["bytes_total"] > 0 and d["bytes_host"] == 0, d' "$W/$label.json" ;;
	cp) lab_check "$label: cp's copy_file_range offloaded whole" \
		grep -q "$BYTES copied, $BYTES offloaded in .* 0 by fallback" "$W/$label.err" ;;
	esac
	lab_check "$label: $moved MiB crossed the fabric during the copy (<= 1 % of $MB MiB)" \
		test $((moved * 100)) -le "$MB"
	cold
	lab_check "$label: destination identical to the source (read cold)" cmp "$mnt/src" "$dst"
}

# ext4 and XFS on a user:xcopy LU of this kernel: new-file copies offloaded.
offload_cases() {   # SO
	local so=$1 sd sg fs mnt
	read -r sd sg <<<"$(lab_loop_export "$so")"
	sd_limits_case "$sd"
	write_same_case "$sd" "$W/x0.img"
	partition "$sd"
	for fs in ext4 xfs; do
		mnt=$(make_fs "$sd" $fs)
		lab_random "$mnt/src" "${MB}M"
		newfile_copy "$fs: xcp SRC NEW" "$so" "$mnt" xcp new
		newfile_copy "$fs: LD_PRELOAD cp SRC NEW" "$so" "$mnt" cp new-cp
		# a sparse source: 4 MiB of data, a 12 MiB hole, 4 MiB of data, a 4 MiB hole at the end
		lab_random "$mnt/sparse" 4M
		head -c 4M /dev/urandom | dd of="$mnt/sparse" bs=1M seek=16 conv=notrunc status=none
		truncate -s 24M "$mnt/sparse"
		cold
		"$XCP" --stats=json "$mnt/sparse" "$mnt/sparse-new" >"$W/$fs-sparse.json" 2>&1 ||
			lab_fail "$fs: sparse xcp failed"
		cold
		lab_check "$fs: sparse source: identical copy, its 8 MiB of data offloaded" \
			bash -c "cmp $mnt/sparse $mnt/sparse-new && python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d[\"bytes_offloaded\"] == 8 << 20, d' $W/$fs-sparse.json"
		lab_check "$fs: ... and the copy stays sparse ($(stat -c %b "$mnt/sparse") vs $(stat -c %b "$mnt/sparse-new") blocks)" \
			test "$(stat -c %b "$mnt/sparse-new")" -le $(($(stat -c %b "$mnt/sparse") + 64))
		umount "$mnt"
		lab_check "$fs: fsck clean after the copies" fsck_clean "$sd" $fs
	done
}

# SO exported, partitioned, ext4 on it with a 16 MiB file src: prints "SD MNT"
small_fs() {   # SO
	local sd sg mnt
	read -r sd sg <<<"$(lab_loop_export "$1")"
	partition "$sd"
	mnt=$(make_fs "$sd" ext4)
	lab_random "$mnt/src" 16M
	echo "$sd $mnt"
}

# An LU whose disk has no unmap write zeroes: the fallback names the disk.
no_wz_disk_case() {   # SO
	local sd mnt rc=0
	read -r sd mnt <<<"$(small_fs "$1")"
	lab_check "LIO fileio: queue/write_zeroes_unmap_max_hw_bytes is 0" \
		test "$(cat /sys/block/"${sd#/dev/}"/queue/write_zeroes_unmap_max_hw_bytes)" -eq 0
	"$XCP" --stats=json "$mnt/src" "$mnt/new" >"$W/nowz.json" 2>"$W/nowz.err" || true
	cat "$W/nowz.err"
	lab_check "no unmap write zeroes: host copy, reason allocation-disk, a note naming the sysfs file" \
		bash -c "python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert [f[\"reason\"] for f in d[\"fallbacks\"]] == [\"allocation-disk\"] and d[\"bytes_host\"] == 16 << 20, d' $W/nowz.json && grep -q 'allocation-disk.*write_zeroes_unmap_max_hw_bytes is 0' $W/nowz.err"
	"$XCP" --require-offload "$mnt/src" "$mnt/new2" 2>"$W/nowz.err2" || rc=$?
	cat "$W/nowz.err2"
	lab_check "... --require-offload: exit 3, the error names allocation-disk" \
		bash -c "[ $rc = 3 ] && grep -q 'offload refused.*(allocation-disk: ' $W/nowz.err2"
	umount "$mnt"
}

# Before 6.17: the fallback names the kernel.
old_kernel_case() {   # SO
	local sd mnt rc=0
	read -r sd mnt <<<"$(small_fs "$1")"
	"$XCP" --stats=json "$mnt/src" "$mnt/new" >"$W/old.json" 2>"$W/old.err" || true
	cat "$W/old.err"
	lab_check "Linux $kv: a new destination is copied by the host, reason allocation" \
		json 'assert [f["reason"] for f in d["fallbacks"]] == ["allocation"] and d["bytes_host"] == 16 << 20, d' "$W/old.json"
	lab_check "... data identical" cmp "$mnt/src" "$mnt/new"
	"$XCP" --require-offload "$mnt/src" "$mnt/new2" 2>"$W/old.err2" || rc=$?
	cat "$W/old.err2"
	lab_check "... --require-offload: exit 3, the error names the missing kernel feature" \
		bash -c "[ $rc = 3 ] && grep -q 'offload refused.*(allocation: .*FALLOC_FL_WRITE_ZEROES needs Linux >= 6.17' $W/old.err2"
	umount "$mnt"
}

truncate -s 1G "$W/x0.img"
x0=$(lab_user_create x0 xcopy "$W/x0.img" 1G)
if [ "$new_kernel" = 1 ]; then
	offload_cases "$x0"
	f0=$(lab_fileio_create f0 "$W/f0.img" 128M)
	no_wz_disk_case "$f0"
else
	old_kernel_case "$x0"
fi
lab_summary
