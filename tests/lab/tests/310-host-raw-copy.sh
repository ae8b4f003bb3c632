#!/bin/bash
# xcp on raw LUs: two user:xcopy LUs on a reflink XFS store, exported together
# through tcm_loop and through iSCSI. Checked, with data read back O_DIRECT:
#   - a copy inside one LU (/dev/sdX) with --require-offload;
#   - a copy from one LU to the other (/dev/sdX -> /dev/sdY), offloaded;
#   - the same between iscsi:// URLs (libiscsi transport), offloaded;
#   - --no-offload moves the same data by READ/WRITE (0 EXTENDED COPY).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

W=/tmp/lab-310
XCP=$LAB_BUILD/host/xcp
MB=${LAB_HOST_RAW_MB:-32}
IQN=iqn.2003-01.org.linux-iscsi.lab:host310
mkdir -p "$W"
store=$(lab_xfs_store "$W/store" 512M)
truncate -s 160M "$store/a.img" "$store/b.img"
a=$(lab_user_create ra xcopy "$store/a.img" 160M)
b=$(lab_user_create rb xcopy "$store/b.img" 160M)
{ read -r sda _; read -r sdb _; } <<<"$(lab_loop_export "$a" "$b")"
url=$(lab_iscsi_export "$IQN" "$a" "$b")
bs=$(cat "/sys/block/${sda#/dev/}/queue/logical_block_size")
n=$((MB * 1024 * 1024 / bs))
lab_check "two user:xcopy LUs via tcm_loop ($sda, $sdb, $bs-byte blocks) and iSCSI ($url)" \
	test -b "$sda" -a -b "$sdb"

lab_random "$W/data" "${MB}M"
dd if="$W/data" of="$sda" bs=1M oflag=direct status=none

# read back DEV from block LBA, MB MiB, bypassing the page cache
same_as_data() {   # DEV LBA
	cmp <(dd if="$1" bs=1M skip=$(($2 * bs)) count="$MB" iflag=direct,skip_bytes \
		status=none) "$W/data"
}
stat_of() { awk -v k="$2" '$0 ~ "^" k { print $NF; exit }' "$1"; }
offloaded() { awk '/^bytes offloaded:/ { print $3 }' "$1"; }

run_xcp() {   # LABEL ARGS...
	local label=$1
	shift
	if "$XCP" --stats -v "$@" >"$W/$label.stats" 2>"$W/$label.err"; then
		cat "$W/$label.stats"
		return 0
	fi
	echo "xcp exit $?: $(tail -5 "$W/$label.err")"
	return 1
}

lab_check "within one LU, --require-offload" \
	run_xcp in-lu --require-offload --src-lba 0 --dst-lba $((2 * n)) --blocks "$n" "$sda" "$sda"
lab_check "within one LU: data identical" same_as_data "$sda" $((2 * n))
lab_check "within one LU: all bytes offloaded" \
	test "$(offloaded "$W/in-lu.stats")" -eq $((n * bs))

lab_check "LU to LU" run_xcp lu-lu --src-lba 0 --dst-lba "$n" --blocks "$n" "$sda" "$sdb"
lab_check "LU to LU: data identical" same_as_data "$sdb" "$n"
lab_check "LU to LU: offloaded ($(offloaded "$W/lu-lu.stats") of $((n * bs)) bytes)" \
	test "$(offloaded "$W/lu-lu.stats")" -eq $((n * bs))

lab_check "iSCSI LU 0 to LU 1" \
	run_xcp iscsi --src-lba 0 --dst-lba $((2 * n)) --blocks "$n" "$url/0" "$url/1"
lab_check "iSCSI: data identical" same_as_data "$sdb" $((2 * n))
lab_check "iSCSI: offloaded ($(offloaded "$W/iscsi.stats") of $((n * bs)) bytes)" \
	test "$(offloaded "$W/iscsi.stats")" -eq $((n * bs))

lab_check "--no-offload LU to LU" \
	run_xcp host --no-offload --src-lba 0 --dst-lba $((3 * n)) --blocks "$n" "$sda" "$sdb"
lab_check "--no-offload: data identical" same_as_data "$sdb" $((3 * n))
lab_check "--no-offload: no EXTENDED COPY sent" \
	grep -q '^xcopy commands: *0 ' "$W/host.stats"
lab_summary
