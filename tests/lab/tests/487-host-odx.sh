#!/bin/bash
# xcp --method=odx: libxcopy's ROD token path (POPULATE TOKEN + RECEIVE ROD
# TOKEN INFORMATION + WRITE USING TOKEN) against two user:xcopy LUs on a
# reflink XFS store, exported together through tcm_loop and iSCSI:
#   - a raw LBA range LU -> LU through SG_IO and through iscsi://, data read
#     back O_DIRECT and compared; xcp --stats: every byte by token, 1 PT,
#     2 RRTI (the token, the WUT's transfer count), 1 WUT, no EXTENDED COPY;
#     the target's counters (83h commands per LU): 1 on the source LU (the
#     PT), 1 on the destination LU (the WUT), which wrote the bytes;
#   - a file copy on ext4 on a third user:xcopy LU, by token, cmp;
#   - against LIO fileio (no ROD tokens in VPD 8Fh): --method=auto uses
#     EXTENDED COPY (LID1), --method=odx falls back (reason no-tokens), both
#     identical.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-487
XCP=$LAB_BUILD/host/xcp
MB=16
IQN=iqn.2003-01.org.linux-iscsi.lab:host487
mkdir -p "$W"
store=$(lab_xfs_store "$W/store" 320M)
truncate -s 48M "$store/a.img" "$store/b.img"
lu_a=$(lab_user_create oa xcopy "$store/a.img" 48M)
lu_b=$(lab_user_create ob xcopy "$store/b.img" 48M)
{ read -r sda _; read -r sdb _; } <<<"$(lab_loop_export "$lu_a" "$lu_b")"
url=$(lab_iscsi_export "$IQN" "$lu_a" "$lu_b")
bs=$(cat "/sys/block/${sda#/dev/}/queue/logical_block_size")
n=$((MB * 1024 * 1024 / bs))
lab_check "two user:xcopy LUs via tcm_loop ($sda, $sdb) and iSCSI ($url)" test -b "$sda" -a -b "$sdb"

lab_random "$W/data" "${MB}M"
dd if="$W/data" of="$sda" bs=1M oflag=direct status=none

same_as_data() {   # DEV LBA
	cmp <(dd if="$1" bs=1M skip=$(($2 * bs)) count="$MB" iflag=direct,skip_bytes \
		status=none) "$W/data"
}
line() { awk -v k="$2" 'index($0, k) == 1 { sub(/^[^:]*: */, ""); print; exit }' "$1"; }
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
token_case() {   # LABEL DST_LBA SRC DST
	local label=$1 lba=$2 bytes0 cmds0 src0
	bytes0=$(xt_stat ob bytes)
	cmds0=$(xt_stat ob commands)
	src0=$(xt_stat oa commands)
	lab_check "$label: xcp --method=odx" \
		run_xcp "$label" --method=odx --src-lba 0 --dst-lba "$lba" --blocks "$n" "$3" "$4"
	lab_check "$label: data identical" same_as_data "$sdb" "$lba"
	lab_check "$label: $(line "$W/$label.stats" "bytes by token") bytes by token of $((n * bs))" \
		test "$(line "$W/$label.stats" "bytes by token")" = $((n * bs))
	lab_check "$label: token commands '$(line "$W/$label.stats" "token commands")'" \
		test "$(line "$W/$label.stats" "token commands")" = \
		"1 populate, 2 rrti, 1 write-using-token (0 failed)"
	lab_check "$label: no EXTENDED COPY sent" grep -q '^xcopy commands: *0 ' "$W/$label.stats"
	# the target counts every 83h command it answers: PT on oa, WUT on ob
	lab_check "$label: target: oa answered $(($(xt_stat oa commands) - src0)) (the PT), ob $(($(xt_stat ob commands) - cmds0)) (the WUT) and wrote $(($(xt_stat ob bytes) - bytes0)) bytes" \
		test "$(($(xt_stat oa commands) - src0)) $(($(xt_stat ob commands) - cmds0)) $(($(xt_stat ob bytes) - bytes0))" = \
		"1 1 $((n * bs))"
}
token_case sg-io "$n" "$sda" "$sdb"
token_case iscsi $((2 * n)) "$url/0" "$url/1"

# --- a file on ext4 over a third user:xcopy LU --------------------------------
truncate -s 64M "$store/f.img"
f=$(lab_user_create of xcopy "$store/f.img" 64M)
read -r sdf _ <<<"$(lab_loop_export "$f")"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$sdf"
mkdir -p "$W/mnt"
mount "$sdf" "$W/mnt"
lab_random "$W/mnt/src" 8M
dd if=/dev/zero of="$W/mnt/dst" bs=1M count=8 conv=fsync status=none
sync
lab_check "file: xcp --method=odx" run_xcp file --method=odx "$W/mnt/src" "$W/mnt/dst"
echo 3 >/proc/sys/vm/drop_caches
lab_check "file: identical (read back cold)" cmp "$W/mnt/src" "$W/mnt/dst"
lab_check "file: $(line "$W/file.stats" "bytes by token") of 8388608 bytes by token" \
	test "$(line "$W/file.stats" "bytes by token")" -ge $((8 * 1024 * 1024 * 99 / 100))
umount "$W/mnt"

# --- LIO fileio: no tokens ------------------------------------------------------
fa=$(lab_fileio_create fa "$W/fa.img" 40M)
fb=$(lab_fileio_create fb "$W/fb.img" 40M)
{ read -r sfa _; read -r sfb _; } <<<"$(lab_loop_export "$fa" "$fb")"
dd if="$W/data" of="$sfa" bs=1M oflag=direct status=none
lab_check "fileio, --method=auto" run_xcp auto --src-lba 0 --dst-lba 0 --blocks "$n" "$sfa" "$sfb"
lab_check "fileio auto: identical" same_as_data "$sfb" 0
lab_check "fileio auto: by EXTENDED COPY ($(line "$W/auto.stats" "bytes by xcopy")), no token" \
	test "$(line "$W/auto.stats" "bytes by xcopy") $(line "$W/auto.stats" "bytes by token")" = \
	"$((n * bs)) 0"
lab_check "fileio, --method=odx" \
	run_xcp odx --method=odx --src-lba 0 --dst-lba "$n" --blocks "$n" "$sfa" "$sfb"
lab_check "fileio odx: identical" same_as_data "$sfb" "$n"
lab_check "fileio odx: host copy, reason no-tokens, no command" \
	bash -c "grep -q '^fallback no-tokens .* $((n * bs)) bytes' '$W/odx.stats' &&
		grep -q '^token commands: *0 populate' '$W/odx.stats'"
rm -f "$W/fa.img" "$W/fb.img" "$W/data"
lab_summary
