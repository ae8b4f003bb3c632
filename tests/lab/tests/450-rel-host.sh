#!/bin/bash
# libxcopy's safety on a real file system: reflink XFS on a user:xcopy LU
# behind tcm_loop, files copied with xcp (xcopy_file_range).
#   - shared destination extents (cp --reflink): never written by EXTENDED
#     COPY: the file sharing them is unchanged, the destination is correct;
#   - unwritten destination extents (fallocate): never written by EXTENDED
#     COPY (the data would read back as zeros): the destination is correct;
#   - a written destination (control): offloaded;
#   - interrupted by a target error (injected write fault, target/fault/fault.c):
#     without --require-offload the destination is fully copied; with it
#     xcp exits 3, reports the exact bytes offloaded, and those bytes are
#     the source's.
# Every comparison reads the files back cold (drop_caches).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-450
XCP=$LAB_BUILD/host/xcp
MB=1048576
mkdir -p "$W"
truncate -s 320M "$W/h.img"
h=$(lab_user_create hx xcopy "$W/h.img" 320M)
read -r sd _ <<<"$(lab_loop_export "$h")"
mkfs.xfs -q -f -m reflink=1 "$sd"
M=$W/mnt
mkdir -p "$M"
mount "$sd" "$M"
lab_random "$M/src" $((8 * MB))
lab_random "$M/orig" $((8 * MB))
cp "$M/orig" "$W/orig.ref"
cp --reflink=always "$M/orig" "$M/shared"
fallocate -l $((8 * MB)) "$M/unwritten"
dd if=/dev/zero of="$M/written" bs=1M count=8 conv=fsync status=none
cp "$M/src" "$W/src.ref"
sync
lab_check "reflink XFS on user:xcopy ($sd): 'shared' shares extents with 'orig'" \
	sh -c "filefrag -v '$M/shared' | grep -q shared"
lab_check "'unwritten' has unwritten extents" sh -c "filefrag -v '$M/unwritten' | grep -q unwritten"

cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }
run_xcp() {   # LABEL ARGS... (exit status in $W/LABEL.rc)
	local label=$1 rc=0
	shift
	"$XCP" --stats "$@" >"$W/$label.out" 2>"$W/$label.err" || rc=$?
	echo "$rc" >"$W/$label.rc"
	sed 's/^/    /' "$W/$label.out"
}
stat_line() { grep -E "$2" "$W/$1.out" || true; }

run_xcp shared "$M/src" "$M/shared"
cold
lab_check "shared: xcp exit 0" test "$(cat "$W/shared.rc")" -eq 0
lab_check "shared: destination = source" cmp -s "$M/shared" "$W/src.ref"
lab_check "shared: the file sharing the extents is unchanged" cmp -s "$M/orig" "$W/orig.ref"
lab_check "shared: no EXTENDED COPY sent, every byte copied by the host ($(stat_line shared '^fallback' | tr -s ' '))" \
	eval "grep -qE '^xcopy commands: +0 ' '$W/shared.out' && grep -qE '^bytes by fallback: +8388608$' '$W/shared.out'"

run_xcp unwritten "$M/src" "$M/unwritten"
cold
lab_check "unwritten: xcp exit 0" test "$(cat "$W/unwritten.rc")" -eq 0
lab_check "unwritten: destination = source" cmp -s "$M/unwritten" "$W/src.ref"
lab_check "unwritten: no EXTENDED COPY under the unwritten extents (offloaded $(stat_line unwritten '^bytes offloaded'))" \
	grep -qE '^bytes offloaded: +0$' "$W/unwritten.out"

run_xcp written "$M/src" "$M/written"
cold
lab_check "written (control): destination = source" cmp -s "$M/written" "$W/src.ref"
lab_check "written (control): offloaded" grep -qE '^bytes offloaded: +8388608$' "$W/written.out"

# --- interrupted by a target error ---------------------------------------------
dd if=/dev/zero of="$M/d1" bs=1M count=8 conv=fsync status=none
dd if=/dev/zero of="$M/d2" bs=1M count=8 conv=fsync status=none
cold
echo write:2 >"$XT_STATS_DIR/hx.fault"
run_xcp fault "$M/src" "$M/d1"
cold
lab_check "write fault: xcp exit 0 ($(cat "$W/fault.rc"))" test "$(cat "$W/fault.rc")" -eq 0
lab_check "write fault: an EXTENDED COPY failed" grep -qE '^xcopy commands: .*\([1-9][0-9]* failed' "$W/fault.out"
lab_check "write fault: the range was redone by the host (fallback copy-aborted)" \
	grep -q '^fallback copy-aborted' "$W/fault.out"
lab_check "write fault: destination fully copied" cmp -s "$M/d1" "$W/src.ref"

# segments of 4 MiB = 4 backend writes: the 6th write fails segment 1
echo write:6 >"$XT_STATS_DIR/hx.fault"
run_xcp fault-req --require-offload "$M/src" "$M/d2"
cold
off=$(awk '/^bytes offloaded:/ { print $3 }' "$W/fault-req.out")
lab_check "write fault, --require-offload: exit 3 ($(cat "$W/fault-req.rc"))" \
	test "$(cat "$W/fault-req.rc")" -eq 3
lab_check "write fault, --require-offload: reports the completed segment, 4194304 bytes (got $off)" \
	test "$off" = 4194304
lab_check "write fault, --require-offload: those $off bytes are the source's" \
	cmp -s -n "${off:-1}" "$M/d2" "$W/src.ref"
umount "$M"
lab_summary
