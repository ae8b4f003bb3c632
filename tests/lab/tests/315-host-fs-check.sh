#!/bin/bash
# libxcopy offloads a file only where its FIEMAP extents are LBAs of the
# device under its file system (host/file/fscheck.c). On user:xcopy LUs
# behind tcm_loop, with LAB_FSCHECK_MB (default 16) MiB files:
#   - XFS with a realtime device (-r rtdev=, a second LU) and a directory
#     with the realtime-inherit flag: a realtime file is copied by the host,
#     reason "xfs-realtime" in xcp --stats and --explain, bytes compared, and
#     xfs_repair -n clean; a plain file on the same XFS is still offloaded;
#   - ext4 -O encrypt with an fscrypt v2 directory (tests/tools/xt_fscrypt.c):
#     an encrypted file is copied by the host, reason "encrypted", bytes
#     compared (read back cold, key still in), e2fsck -fn clean; a plain file
#     next to it is offloaded;
#   - ext4 journalled data, per file (chattr +j) and per mount (data=journal),
#     each copied right after writing the source: host copy, reason
#     "journal-data", bytes compared, again after a remount, e2fsck -fn clean;
#     and the unit suite host_fscheck run on that ext4 (its chattr +j case).
# LAB_FSCHECK_XCP: another xcp to run (old code: shows what these catch).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

W=/tmp/lab-315
XCP=${LAB_FSCHECK_XCP:-$LAB_BUILD/host/xcp}
FSCRYPT=$LAB_BUILD/tests/xt-fscrypt
MB=${LAB_FSCHECK_MB:-16}
N=$((MB * 1048576))
mkdir -p "$W"
lab_check "xcp and xt-fscrypt are built" test -x "$XCP" -a -x "$FSCRYPT"

cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# make_pair DIR: DIR/src random, DIR/dst written zeros (blocks the copy manager could overwrite)
make_pair() {
	lab_random "$1/src" "$N"
	dd if=/dev/zero of="$1/dst" bs=1M count="$MB" conv=fsync status=none
}

# copy_case LABEL DIR REASON: xcp --explain names REASON (or offloads when
# REASON is "offload"), xcp --stats copies: exit 0, all bytes by the host
# under REASON (or >= 99 % offloaded), destination identical read back cold.
copy_case() {
	local label=$1 dir=$2 reason=$3 rc=0 out
	out=$W/$label
	"$XCP" --explain "$dir/src" "$dir/dst" >"$out.plan" 2>&1 || true
	cold
	"$XCP" --stats "$dir/src" "$dir/dst" >"$out.stats" 2>&1 || rc=$?
	sed 's/^/    /' "$out.stats"
	lab_check "$label: xcp exits 0" test "$rc" = 0
	if [ "$reason" = offload ]; then
		lab_check "$label: --explain plans it offloaded" grep -q '^commands: [1-9]' "$out.plan"
		lab_check "$label: offloaded (control: the file system is not refused as a whole)" \
			bash -c "awk '/^bytes offloaded:/ { exit !(\$3 * 100 >= $N * 99) }' $out.stats"
	else
		lab_check "$label: --explain: no offload, $reason" \
			grep -q "^no offload: $reason" "$out.plan"
		lab_check "$label: --stats: $N bytes by the host, reason $reason, 0 offloaded" \
			bash -c "grep -qx 'bytes by fallback: $N' $out.stats &&
				grep -Eqx 'bytes offloaded: +0' $out.stats &&
				grep -Eq '^fallback $reason +1 ranges, $N bytes' $out.stats"
	fi
	cold
	lab_check "$label: destination identical to the source" cmp "$dir/src" "$dir/dst"
}

# XFS wants >= 300 MB on its data device
truncate -s 512M "$W/x0.img"
truncate -s 256M "$W/x1.img" "$W/x2.img"
x0=$(lab_user_create x0 xcopy "$W/x0.img" 512M)
x1=$(lab_user_create x1 xcopy "$W/x1.img" 256M)
x2=$(lab_user_create x2 xcopy "$W/x2.img" 256M)
luns=$(lab_loop_export "$x0" "$x1" "$x2")
echo "$luns"
mapfile -t L <<<"$luns"
read -r sd0 _ <<<"${L[0]}"
read -r sd1 _ <<<"${L[1]}"
read -r sd2 _ <<<"${L[2]}"

# --- XFS realtime ------------------------------------------------------------
m=$W/xfs
mkdir -p "$m"
mkfs.xfs -q -f -r rtdev="$sd1" "$sd0"
mount -o rtdev="$sd1" "$sd0" "$m"
mkdir "$m/rt" "$m/plain"
xfs_io -c 'chattr +t' "$m/rt"
make_pair "$m/rt"
make_pair "$m/plain"
lab_check "xfs: the source is a realtime file (xfs_io lsattr: r)" \
	bash -c "xfs_io -r -c lsattr $m/rt/src | grep -q '^-*r'"
copy_case xfs-realtime "$m/rt" xfs-realtime
copy_case xfs-plain "$m/plain" offload
"$XCP" --explain "$m/plain/src" "$m/rt" >"$W/xfs-newfile.plan" 2>&1 || true
lab_check "xfs: --explain into the realtime directory (a new file): no offload, xfs-realtime" \
	grep -q '^no offload: xfs-realtime' "$W/xfs-newfile.plan"
umount "$m"
lab_check "xfs: xfs_repair -n clean" xfs_repair -n -r "$sd1" "$sd0"

# --- ext4 encrypted ----------------------------------------------------------
m=$W/enc
mkdir -p "$m"
mkfs.ext4 -q -F -O encrypt -E lazy_itable_init=0,lazy_journal_init=0 "$sd2"
mount "$sd2" "$m"
mkdir "$m/enc" "$m/plain"
if "$FSCRYPT" "$m/enc" >"$W/fscrypt.out" 2>&1; then
	make_pair "$m/enc"
	make_pair "$m/plain"
	lab_check "ext4: the source is encrypted (lsattr: E)" \
		bash -c "lsattr $m/enc/src | grep -q '^[^ ]*E'"
	copy_case ext4-encrypted "$m/enc" encrypted
	copy_case ext4-plain "$m/plain" offload
else
	lab_fail "ext4: xt-fscrypt: $(cat "$W/fscrypt.out")"
fi
umount "$m"
lab_check "ext4 encrypt: e2fsck -fn clean" e2fsck -fn "$sd2"

# --- ext4 journalled data: chattr +j, then data=journal ----------------------
m=$W/jd
mkdir -p "$m"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$sd2"
mount "$sd2" "$m"
mkdir "$m/j"
make_pair "$m/j"
chattr +j "$m/j/src" "$m/j/dst"
# rewritten right before the copy: the new bytes are in the journal
lab_random "$m/j/src" "$N"
lab_check "ext4: chattr +j set (lsattr: j)" bash -c "lsattr $m/j/src | grep -q '^[^ ]*j'"
copy_case ext4-chattr-j "$m/j" journal-data
# the unit suite on this ext4 as root (chattr +j needs CAP_SYS_RESOURCE, which
# the build machines' containers lack): its journal-data case runs, not skips
UT=$LAB_BUILD/tests/unit_tests
if [ -x "$UT" ]; then
	mkdir "$m/ut"
	TMPDIR=$m/ut ASAN_OPTIONS=detect_leaks=0 "$UT" -t host_fscheck >"$W/ut.out" 2>&1 || true
	tail -1 "$W/ut.out"
	lab_check "unit suite host_fscheck on ext4 in the guest: all run, none failed or skipped" \
		grep -q 'tests run, 0 asserts failed, 0 tests failed, 0 skipped' "$W/ut.out"
	rm -rf "$m/ut"
fi
umount "$m"
mount -o data=journal "$sd2" "$m"
lab_check "ext4 chattr +j: identical after a remount" cmp "$m/j/src" "$m/j/dst"
mkdir "$m/dj"
make_pair "$m/dj"
lab_random "$m/dj/src" "$N"
copy_case ext4-data-journal "$m/dj" journal-data
umount "$m"
mount "$sd2" "$m"
lab_check "ext4 data=journal: identical after a remount" cmp "$m/dj/src" "$m/dj/dst"
umount "$m"
lab_check "ext4 journalled data: e2fsck -fn clean" e2fsck -fn "$sd2"
lab_summary
