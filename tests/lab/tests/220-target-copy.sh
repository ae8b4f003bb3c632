#!/bin/bash
# handler_xcopy.so moving real data between two user:xcopy LUs, issued by
# sg3_utils' sg_xcopy through tcm_loop (SG_IO):
#   1. a 64 MiB (LAB_XCOPY_BIG) copy on a reflink XFS store: cmp-verified, the
#      clone counter covers every byte (16 EXTENDED COPY commands of 4 MiB:
#      the checks are the same at any size; 1 GiB cost 2 min of urandom and
#      cmp under TCG, and 1.3 GiB of the guest's tmpfs; 256 MiB was the
#      default until 2026-12-07);
#   2. on tmpfs (no reflink): copy_file_range moves the bytes (64 MiB,
#      LAB_XCOPY_SMALL);
#   3. the cross-LU access rule on the real configfs: LUs exported by two
#      different tcm_loop TPGs may not copy to each other (COPY ABORTED,
#      nothing written) until each TPG exports both.
# Timings go to $LAB_RESULTS/target/copy/summary.tsv.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

OUT=$LAB_RESULTS/target/copy
mkdir -p "$OUT"
printf 'case\tbytes\tseconds\tMiB_per_s\tclone_bytes\tcfr_bytes\trw_bytes\n' >"$OUT/summary.tsv"

# xcopy_case NAME SRC_SO DST_SO BYTES : sg_xcopy the whole LU, time it, record.
xcopy_case() {
	local name=$1 s=$2 d=$3 bytes=$4 sgs sgd t0 secs rc=0 sn dn
	sgs=$(lab_sg "$s") && sgd=$(lab_sg "$d") || { lab_fail "$name: no sg nodes"; return 1; }
	sn=$(basename "$s"); dn=$(basename "$d")
	t0=$(date +%s.%N)
	# 8192 blocks of 512 = 4 MiB per EXTENDED COPY (the advertised MAXIMUM SEGMENT LENGTH)
	sg_xcopy if="$sgs" of="$sgd" bs=512 bpt=8192 count=$((bytes / 512)) >"$OUT/$name.log" 2>&1 || rc=$?
	secs=$(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$bytes" "$secs" \
		"$(awk "BEGIN{printf \"%.0f\", $bytes / 1048576 / ($secs > 0 ? $secs : 1)}")" \
		"$(($(xt_stat "$sn" clone_bytes) + $(xt_stat "$dn" clone_bytes)))" \
		"$(($(xt_stat "$sn" cfr_bytes) + $(xt_stat "$dn" cfr_bytes)))" \
		"$(($(xt_stat "$sn" rw_bytes) + $(xt_stat "$dn" rw_bytes)))" >>"$OUT/summary.tsv"
	if [ "$rc" -eq 0 ]; then
		lab_pass "$name: sg_xcopy of $((bytes >> 20)) MiB in ${secs} s"
	else
		lab_fail "$name: sg_xcopy exit $rc (see $OUT/$name.log)"
		sed 's/^/    | /' "$OUT/$name.log" | tail -5
		# what the runner and the kernel said meanwhile (a command past cmd_time_out: NOT READY 08/00)
		tail -n 12 "$LAB_RUN_DIR/tcmu/tcmu-runner.log" | sed 's/^/    runner| /'
		dmesg | tail -n 12 | sed 's/^/    dmesg| /'
		grep -E '^(MemAvailable|Shmem):' /proc/meminfo | sed 's/^/    meminfo| /'
	fi
	return "$rc"
}

# --- 1. reflink XFS: FICLONERANGE -------------------------------------------
big=$(lab_size_bytes "${LAB_XCOPY_BIG:-64M}")
X=/mnt/lab-220-xfs
lab_xfs_store "$X" "$(((big >> 20) + 320))M" >/dev/null
lab_random "$X/src.img" "$big"
truncate -s "$big" "$X/dst.img"
xs=$(lab_user_create xs xcopy "$X/src.img" "$big")
xd=$(lab_user_create xd xcopy "$X/dst.img?clone=always" "$big")
lab_loop_export "$xs" "$xd" >/dev/null
if xcopy_case xfs-reflink "$xs" "$xd" "$big"; then
	lab_check "xfs-reflink: destination equals source (cmp of the backing files)" \
		cmp "$X/src.img" "$X/dst.img"
	sdd=$(lab_sd "$xd")
	lab_check "xfs-reflink: first 64 MiB read back through $sdd equal the source" bash -c \
		"cmp <(dd if='$sdd' bs=1M count=64 iflag=direct status=none) <(head -c 64M '$X/src.img')"
	clone=$(($(xt_stat xs clone_bytes) + $(xt_stat xd clone_bytes)))
	lab_check "xfs-reflink: clone counter $clone >= $big bytes" test "$clone" -ge "$big"
	lab_check "xfs-reflink: nothing went through copy_file_range or read/write" \
		test "$(($(xt_stat xd cfr_bytes) + $(xt_stat xd rw_bytes)))" -eq 0
	lab_check "xfs-reflink: destination shares extents with the source (filefrag -v shows shared)" \
		sh -c "filefrag -v '$X/dst.img' | grep -q shared"
fi

# --- 2. tmpfs: copy_file_range ------------------------------------------------
small=$(lab_size_bytes "${LAB_XCOPY_SMALL:-64M}")
T=/tmp/lab-220
mkdir -p "$T"
lab_random "$T/src.img" "$small"
truncate -s "$small" "$T/dst.img"
ts=$(lab_user_create ts xcopy "$T/src.img" "$small")
td=$(lab_user_create td xcopy "$T/dst.img" "$small")
tpg1=$(lab_loop_create)
tpg2=$(lab_loop_create)
lab_loop_add_lun "$tpg1" "$ts" >/dev/null
lab_loop_add_lun "$tpg2" "$td" >/dev/null

# --- 3. access rule first: ts and td live in different TPGs -------------------
sgs=$(lab_sg "$ts"); sgd=$(lab_sg "$td")
cp --sparse=always "$T/dst.img" "$T/dst.before"
lab_check_fails "access rule: copy between LUs of different tcm_loop TPGs is refused" \
	sg_xcopy if="$sgs" of="$sgd" bs=512 bpt=8192 count=8192
lab_check "access rule: refusal logged by the plugin" \
	grep -q "refused: .*does not export" "$LAB_RUN_DIR/tcmu/tcmu-runner.log"
lab_check "access rule: nothing was written" cmp "$T/dst.img" "$T/dst.before"
lab_check "access rule: denied counter" test "$(xt_stat td denied)" -ge 1
lab_loop_add_lun "$tpg2" "$ts" >/dev/null   # td's TPG now exports both
lab_check_fails "access rule: still refused while ts's TPG does not export td" \
	sg_xcopy --on_src if="$sgs" of="$sgd" bs=512 bpt=8192 count=8192
lab_loop_add_lun "$tpg1" "$td" >/dev/null   # and ts's TPG too

if xcopy_case tmpfs-cfr "$ts" "$td" "$small"; then
	lab_check "tmpfs-cfr: destination equals source" cmp "$T/src.img" "$T/dst.img"
	lab_check "tmpfs-cfr: copy_file_range moved >= $small bytes" \
		test "$(xt_stat td cfr_bytes)" -ge "$small"
	lab_check "tmpfs-cfr: no clone, no read/write fallback" \
		test "$(($(xt_stat td clone_bytes) + $(xt_stat td rw_bytes)))" -eq 0
fi
column -t -s $'\t' "$OUT/summary.tsv" 2>/dev/null || cat "$OUT/summary.tsv"
lab_summary
