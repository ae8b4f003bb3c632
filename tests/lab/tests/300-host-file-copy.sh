#!/bin/bash
# libxcopy / xcp on a file system over a SCSI LU behind tcm_loop: a file copy
# becomes EXTENDED COPY commands. Checked for LIO fileio (the kernel's copy
# manager) and for user:xcopy (this project's tcmu-runner plugin):
#   - the destination is byte-identical to the source (read back cold);
#   - >= 99 % of the bytes were offloaded (xcp --stats);
#   - /proc/diskstats of the sd device shows < 1 % of the copied bytes read
#     or written by the host during the copy.
# The file system sits on a partition, so the partition start is exercised.
# LAB_HOST_FILE_MB (default 64) sets the file size.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

W=/tmp/lab-300
XCP=$LAB_BUILD/host/xcp
MB=${LAB_HOST_FILE_MB:-64}
mkdir -p "$W"
lab_check "xcp is built ($XCP)" test -x "$XCP"

# sectors read + written on DEV (sdX) so far
io_sectors() { awk -v d="$1" '$3 == d { print $6 + $10 }' /proc/diskstats; }
io_detail() { awk -v d="$1" '$3 == d { print "read", $6 * 512, "written", $10 * 512 }' /proc/diskstats; }

file_case() {   # LABEL SO FSTYPE
	local label=$1 so=$2 fs=$3 sd sg dev part mnt before after host copied off fb
	read -r sd sg <<<"$(lab_loop_export "$so")"
	dev=${sd#/dev/}
	echo ',,L' | sfdisk -q "$sd" >/dev/null
	part=${sd}1
	lab_wait_for test -b "$part"
	lab_check "$label: partition starts at sector $(cat "/sys/class/block/${dev}1/start")" \
		test -b "$part"
	case "$fs" in
	# no lazy inode-table init: it would write in the background during the copy
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$part" ;;
	xfs) mkfs.xfs -q -f "$part" ;;
	esac
	mnt=$W/mnt-$label
	mkdir -p "$mnt"
	mount "$part" "$mnt"
	head -c "${MB}M" /dev/urandom >"$mnt/src"
	# a written destination: its blocks exist, the copy manager overwrites them
	dd if=/dev/zero of="$mnt/dst" bs=1M count="$MB" conv=fsync status=none
	sync
	echo 3 >/proc/sys/vm/drop_caches
	io_detail "$dev"
	before=$(io_sectors "$dev")
	if ! "$XCP" --stats -v "$mnt/src" "$mnt/dst" >"$W/$label.stats" 2>"$W/$label.err"; then
		lab_fail "$label: xcp failed: $(tail -5 "$W/$label.err")"
	fi
	after=$(io_sectors "$dev")
	io_detail "$dev"
	cat "$W/$label.stats"
	echo 3 >/proc/sys/vm/drop_caches
	lab_check "$label: destination identical to source" cmp "$mnt/src" "$mnt/dst"
	off=$(awk '/^bytes offloaded:/ { print $3 }' "$W/$label.stats")
	fb=$(awk '/^bytes by fallback:/ { print $4 }' "$W/$label.stats")
	copied=$((MB * 1024 * 1024))
	host=$(((after - before) * 512))
	lab_check "$label: >= 99% offloaded ($off of $copied bytes, $fb by fallback)" \
		test "$((off * 100))" -ge "$((copied * 99))"
	lab_check "$label: host moved $host bytes (< 1% of $copied)" \
		test "$((host * 100))" -lt "$copied"
	# the same copy with offload forbidden moves the data through the host
	before=$(io_sectors "$dev")
	"$XCP" --no-offload "$mnt/src" "$mnt/dst2" >/dev/null 2>&1 || true
	sync
	after=$(io_sectors "$dev")
	lab_check "$label: --no-offload copy is visible in diskstats ($(((after - before) * 512)) bytes)" \
		test "$(((after - before) * 512 * 100))" -ge "$((copied * 90))"
	umount "$mnt"
}

f0=$(lab_fileio_create f0 "$W/f0.img" 512M)
file_case lio-fileio "$f0" ext4
truncate -s 512M "$W/x0.img"
x0=$(lab_user_create x0 xcopy "$W/x0.img" 512M)
file_case user-xcopy "$x0" ext4
lab_summary
