#!/bin/bash
# libxcopy / xcp on a file system over a SCSI LU behind tcm_loop: a file copy
# becomes EXTENDED COPY commands. Checked for LIO fileio (the kernel's copy
# manager) and for user:xcopy (this project's tcmu-runner plugin):
#   - the destination is byte-identical to the source (read back cold);
#   - xcp --explain first: the plan offloads every byte in EXTENDED COPY
#     commands, and nothing is written (destination still zeros); the copy
#     then sends exactly the commands and segments --explain --stats=json
#     planned; xcp runs on a pty: its progress line ends "100% ... offloaded";
#   - >= 99 % of the bytes were offloaded (xcp --stats=json, parsed by
#     python3: bytes, EXTENDED COPY command kind and count, fallbacks);
#   - a copy into a new file on this kernel (6.1: no FALLOC_FL_WRITE_ZEROES)
#     is done by the host with reason "allocation" and a note saying why and
#     what to do, and --require-offload refuses it (exit 3, JSON "refused")
#     (user:xcopy case); --no-offload: --stats text counts it;
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
	lab_random "$mnt/src" "${MB}M"
	# a written destination: its blocks exist, the copy manager overwrites them
	dd if=/dev/zero of="$mnt/dst" bs=1M count="$MB" conv=fsync status=none
	sync
	echo 3 >/proc/sys/vm/drop_caches
	copied=$((MB * 1024 * 1024))
	"$XCP" --explain "$mnt/src" "$mnt/dst" >"$W/$label.plan" 2>&1 || true
	head -8 "$W/$label.plan"
	grep -A1 '^commands:' "$W/$label.plan"
	tail -1 "$W/$label.plan"
	lab_check "$label: xcp --explain plans every byte offloaded, in EXTENDED COPY commands" \
		bash -c "grep -q '^commands: [1-9]' $W/$label.plan && grep -q '^total: .* offloaded, 0 B allocated then offloaded, 0 B by the host, 0 B zeroed' $W/$label.plan"
	"$XCP" --explain --stats=json "$mnt/src" "$mnt/dst" >"$W/$label.plan.json" 2>&1 || true
	lab_check "$label: ... and wrote nothing (destination still zeros)" \
		cmp -n $((MB * 1048576)) "$mnt/dst" /dev/zero
	sync
	echo 3 >/proc/sys/vm/drop_caches
	io_detail "$dev"
	before=$(io_sectors "$dev")
	# on a pty (script(1)): stderr is a terminal, so the progress line is drawn
	script -qec "$XCP --stats=json -v $mnt/src $mnt/dst >$W/$label.json" /dev/null \
		</dev/null >"$W/$label.err" 2>&1 || lab_fail "$label: xcp failed: $(tail -5 "$W/$label.err")"
	after=$(io_sectors "$dev")
	io_detail "$dev"
	cat "$W/$label.json"
	echo 3 >/proc/sys/vm/drop_caches
	lab_check "$label: destination identical to source" cmp "$mnt/src" "$mnt/dst"
	lab_check "$label: --stats=json: result copied, offloaded + host = $copied bytes, EXTENDED COPY commands counted, no failure" \
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["result"] == "copied" and d["exit_code"] == 0 and d["error"] is None, d
assert d["bytes_total"] == n and d["bytes_offloaded"] + d["bytes_host"] == n, d
k = d["offload_commands"]
assert len(k) == 1 and k[0]["kind"] == "extended-copy-lid1" and k[0]["opcode"] == 0x83, k
assert k[0]["bytes"] == d["bytes_offloaded"] and k[0]["commands"] >= 1 and k[0]["failed"] == 0, k
assert k[0]["segments"] >= k[0]["commands"], k
assert sum(f["bytes"] for f in d["fallbacks"] if f["reason"] != "hole") == d["bytes_host"], d
' "$W/$label.json" "$copied"
	lab_check "$label: the copy sent what --explain --stats=json planned (commands, segments, bytes)" \
		python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
k = d["offload_commands"][0]
assert p["bytes_offload"] == d["bytes_offloaded"] and p["bytes_host"] == 0, (p, d)
assert len(p["commands"]) == k["commands"] and p["nsegments"] == k["segments"], (p, k)
assert sum(len(c["segments"]) for c in p["commands"]) == p["nsegments"], p
' "$W/$label.plan.json" "$W/$label.json"
	lab_check "$label: progress on the terminal, refreshed in place, ends at 100% offloaded" \
		grep -qaP "\r$MB(\\.0)? MiB / $MB(\\.0)? MiB 100% .* ETA 0:00 offloaded\e\\[K" "$W/$label.err"
	off=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes_offloaded"])' "$W/$label.json")
	fb=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes_host"])' "$W/$label.json")
	host=$(((after - before) * 512))
	lab_check "$label: >= 99% offloaded ($off of $copied bytes, $fb by fallback)" \
		test "$((off * 100))" -ge "$((copied * 99))"
	lab_check "$label: host moved $host bytes (< 1% of $copied)" \
		test "$((host * 100))" -lt "$copied"
	# the same copy with offload forbidden moves the data through the host
	before=$(io_sectors "$dev")
	"$XCP" --no-offload --stats "$mnt/src" "$mnt/dst2" >"$W/$label.stats2" 2>&1 || true
	sync
	after=$(io_sectors "$dev")
	lab_check "$label: --no-offload copy is visible in diskstats ($(((after - before) * 512)) bytes)" \
		test "$(((after - before) * 512 * 100))" -ge "$((copied * 90))"
	lab_check "$label: ... and --stats (text) counts it: all $copied bytes by fallback, reason requested" \
		bash -c "grep -qx 'bytes by fallback: $copied' $W/$label.stats2 && grep -q '^fallback requested .* $copied bytes' $W/$label.stats2"
	if [ "$label" = user-xcopy ]; then
		"$XCP" --stats=json "$mnt/src" "$mnt/dst3" >"$W/$label.json3" 2>"$W/$label.err3" || true
		lab_check "$label: a new destination on Linux $(uname -r): host copy, reason allocation, counted in JSON" \
			python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["result"] == "copied" and d["bytes_host"] == n and d["bytes_offloaded"] == 0, d
assert [f["reason"] for f in d["fallbacks"]] == ["allocation"] and d["fallbacks"][0]["bytes"] == n, d
' "$W/$label.json3" "$copied"
		lab_check "$label: ... and a one-line note says why and what to do" \
			grep -q '^xcp: note: .* copied by the host (allocation): .*FALLOC_FL_WRITE_ZEROES needs Linux >= 6.17; write the destination first' "$W/$label.err3"
		cat "$W/$label.err3"
		lab_check "$label: ... data compared" cmp "$mnt/src" "$mnt/dst3"
		rc=0
		"$XCP" --require-offload --stats=json "$mnt/src" "$mnt/dst4" >"$W/$label.json4" 2>/dev/null || rc=$?
		lab_check "$label: the same with --require-offload: exit 3, JSON result refused, nothing by the host" \
			python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert sys.argv[2] == "3" and d["exit_code"] == 3 and d["result"] == "refused", d
assert d["bytes_host"] == 0 and d["bytes_offloaded"] == 0 and "--explain" in d["error"], d
' "$W/$label.json4" "$rc"
	fi
	umount "$mnt"
}

f0=$(lab_fileio_create f0 "$W/f0.img" 512M)
file_case lio-fileio "$f0" ext4
truncate -s 512M "$W/x0.img"
x0=$(lab_user_create x0 xcopy "$W/x0.img" 512M)
file_case user-xcopy "$x0" ext4
lab_summary
