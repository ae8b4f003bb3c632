#!/bin/bash
# Real LID1 clients against user:xcopy, each copy compared byte for byte with
# the same copy on LIO fileio (kernel XCOPY, the reference) and with a model
# built by dd from the same starting bytes (the whole destination LU, so
# nothing outside the range may change either):
#   1. ddpt -x (Debian ddpt 0.97): 16 MiB, skip/seek
#      non-zero. ddpt splits a copy at RECEIVE COPY RESULTS' MAXIMUM SEGMENT
#      LENGTH and at 65535 blocks; with 256 MiB reported (as LIO does) this is
#      one EXTENDED COPY on both targets, executed by the engine in 8 MiB
#      chunks. Then 65535 blocks (ddpt's own per-command cap, 4 chunks).
#   2. ddpt -x longer than one command (100000 blocks: 65535 + 34465). ddpt
#      0.97 sends every later command with the first command's LBAs (its
#      a_xcopy_lid1_cmd() takes the skip/seek of the whole copy), so the
#      second command re-copies the start of the range: no target can copy
#      that correctly. Asserted: user:xcopy writes exactly the bytes LIO
#      fileio writes, which are exactly what those two commands ask for.
#   3. sg_xcopy (sg3_utils) over 150000 blocks (3 commands of at most 65535
#      blocks, LBAs advanced per command) and with bpt=8192 (19 commands):
#      destination = source on both targets.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-240
OUT=$LAB_RESULTS/target/clients
MB=1048576
SIZE=96M
mkdir -p "$W" "$OUT"
# the images live in guest RAM: gone with the LUs once the driver tears them down
trap 'rm -rf "$W"' EXIT
lab_random "$W/src.pat" $((96 * MB))
lab_random "$W/dst.pat" $((96 * MB))
for f in xs fs; do cp "$W/src.pat" "$W/$f.img"; done
for f in xd fd; do cp "$W/dst.pat" "$W/$f.img"; done
xs=$(lab_user_create xs240 xcopy "$W/xs.img" "$SIZE")
xd=$(lab_user_create xd240 xcopy "$W/xd.img" "$SIZE")
fs=$(lab_fileio_create fs240 "$W/fs.img" "$SIZE")
fd=$(lab_fileio_create fd240 "$W/fd.img" "$SIZE")
{ read -r _ sgxs; read -r _ sgxd; } <<<"$(lab_loop_export "$xs" "$xd")"
{ read -r _ sgfs; read -r _ sgfd; } <<<"$(lab_loop_export "$fs" "$fd")"
lab_check "user:xcopy pair ($sgxs -> $sgxd) and LIO fileio pair ($sgfs -> $sgfd)" \
	test -c "$sgxs" -a -c "$sgxd" -a -c "$sgfs" -a -c "$sgfd"
lab_check "user:xcopy reports MAXIMUM SEGMENT LENGTH 256 MiB (RCR operating parameters)" \
	sh -c "sg_copy_results --params '$sgxd' | grep -qiE 'maximum segment length: *268435456'"

# model NAME BLOCKS SKIP SEEK [BLOCKS SKIP SEEK]... : $W/want = dst.pat
#   with each (BLOCKS at SKIP of src.pat -> SEEK) applied in order
model() {
	shift   # NAME: for the reader
	cp "$W/dst.pat" "$W/want"
	while [ $# -ge 3 ]; do
		dd if="$W/src.pat" of="$W/want" bs=512 count="$1" skip="$2" seek="$3" \
			conv=notrunc status=none
		shift 3
	done
}

# reset : both destinations back to dst.pat (the LUs see it: same page cache)
reset() {
	dd if="$W/dst.pat" of="$W/xd.img" bs=1M conv=notrunc status=none
	dd if="$W/dst.pat" of="$W/fd.img" bs=1M conv=notrunc status=none
}

# run_both NAME TOOL ARGS... : run TOOL if=SRC of=DST ARGS on both pairs;
#   logs in $OUT/NAME-{user,fileio}.log; the number of EXTENDED COPY commands
#   user:xcopy answered goes to $W/NAME.cmds
run_both() {
	local name=$1 tool=$2 c0 rc
	shift 2
	reset
	c0=$(xt_stat xd240 commands)
	rc=0
	"$tool" if="$sgxs" of="$sgxd" "$@" >"$OUT/$name-user.log" 2>&1 || rc=$?
	lab_check "$name: $tool on user:xcopy exits 0 (rc $rc)" test "$rc" -eq 0
	echo $(($(xt_stat xd240 commands) - c0)) >"$W/$name.cmds"
	rc=0
	"$tool" if="$sgfs" of="$sgfd" "$@" >"$OUT/$name-fileio.log" 2>&1 || rc=$?
	lab_check "$name: $tool on LIO fileio exits 0 (rc $rc)" test "$rc" -eq 0
}

# verify NAME WHAT : both destinations equal the model, and each other
verify() {
	lab_check "$1: user:xcopy destination = $2 (whole LU, cmp)" cmp "$W/xd.img" "$W/want"
	lab_check "$1: LIO fileio destination = $2 (whole LU, cmp)" cmp "$W/fd.img" "$W/want"
	lab_check "$1: user:xcopy and LIO fileio wrote the same bytes" cmp "$W/xd.img" "$W/fd.img"
}

# --- 1. ddpt -x, one command per copy -------------------------------------------
run_both ddpt-16m ddpt -x bs=512 skip=32768 seek=65536 count=32768
model ddpt-16m 32768 32768 65536
verify ddpt-16m "source [16 MiB, 32 MiB) at 32 MiB"
lab_check "ddpt-16m: one EXTENDED COPY on user:xcopy (got $(cat "$W/ddpt-16m.cmds"))" \
	test "$(cat "$W/ddpt-16m.cmds")" -eq 1
lab_check "ddpt-16m: ddpt reports 1 xcopy command on both" sh -c \
	"grep -qiE '\\b1 xcopy command' '$OUT/ddpt-16m-user.log' && grep -qiE '\\b1 xcopy command' '$OUT/ddpt-16m-fileio.log'"

run_both ddpt-cap ddpt -x bs=512 skip=1000 seek=3001 count=65535
model ddpt-cap 65535 1000 3001
verify ddpt-cap "source blocks [1000, 66535) at block 3001"
lab_check "ddpt-cap: one EXTENDED COPY on user:xcopy (got $(cat "$W/ddpt-cap.cmds"))" \
	test "$(cat "$W/ddpt-cap.cmds")" -eq 1

# --- 2. ddpt -x over two commands: the client's LBA bug, identical on both -------
run_both ddpt-split ddpt -x bs=512 skip=7 seek=100011 count=100000
# what ddpt 0.97 sends: 65535 blocks 7 -> 100011, then 34465 blocks 7 -> 100011
model ddpt-split 65535 7 100011 34465 7 100011
verify ddpt-split "the two commands ddpt sent (second one with the first one's LBAs)"
lab_check "ddpt-split: two EXTENDED COPY commands on user:xcopy (got $(cat "$W/ddpt-split.cmds"))" \
	test "$(cat "$W/ddpt-split.cmds")" -eq 2

# --- 3. sg_xcopy, several commands, LBAs advanced per command --------------------
run_both sgx-3cmd sg_xcopy bs=512 skip=5 seek=30003 count=150000
model sgx-3cmd 150000 5 30003
verify sgx-3cmd "source blocks [5, 150005) at block 30003"
lab_check "sgx-3cmd: three EXTENDED COPY commands on user:xcopy (got $(cat "$W/sgx-3cmd.cmds"))" \
	test "$(cat "$W/sgx-3cmd.cmds")" -eq 3

run_both sgx-bpt sg_xcopy bs=512 bpt=8192 skip=77 seek=12345 count=150000
model sgx-bpt 150000 77 12345
verify sgx-bpt "source blocks [77, 150077) at block 12345"
lab_check "sgx-bpt: 19 EXTENDED COPY commands on user:xcopy (got $(cat "$W/sgx-bpt.cmds"))" \
	test "$(cat "$W/sgx-bpt.cmds")" -eq 19
lab_summary
