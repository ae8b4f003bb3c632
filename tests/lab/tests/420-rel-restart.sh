#!/bin/bash
# tcmu-runner killed (SIGKILL) in the middle of a copy and started again with
# the same arguments:
#   - xcp copies 48 MiB between two user:xcopy LUs (tcm_loop, SG_IO) through
#     the read/write path, slowed by the plugin's delay fault (fault.c) so
#     the EXTENDED COPY is being executed when the daemon dies;
#   - meanwhile a writer issues acknowledged O_DIRECT|O_DSYNC WRITEs of
#     numbered 64 KiB records to another region of the destination LU;
#   - tcmu-runner is killed while both run, then restarted.
# Asserted: the LUs come back (tcmu-runner reopens them; INQUIRY answers),
# xcp finishes with exit 0 (libxcopy retried or fell back), the destination
# equals the source, every WRITE that was acknowledged is on the disk, the
# region nobody wrote is unchanged, and an offloaded copy works afterwards.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-420
XCP=$LAB_BUILD/host/xcp
MB=1048576
REC=65536
NREC=${LAB_RESTART_RECORDS:-96}   # 6 MiB of records at [56 MiB, 62 MiB)
mkdir -p "$W"
lab_random "$W/a.img" $((64 * MB))
lab_random "$W/b.img" $((64 * MB))
cp "$W/b.img" "$W/b.orig"
a=$(lab_user_create ka xcopy "$W/a.img?cfr=never" 64M)
b=$(lab_user_create kb xcopy "$W/b.img?cfr=never" 64M)
{ read -r sda _; read -r sdb _; } <<<"$(lab_loop_export "$a" "$b")"
lab_check "two user:xcopy LUs ($sda, $sdb), tcmu-runner pid $LAB_TCMU_PID" kill -0 "$LAB_TCMU_PID"

# records: 64 KiB, each 1024 copies of a 64-byte line holding its number
awk -v n="$NREC" 'BEGIN { for (i = 0; i < n; i++) { l = sprintf("%063d\n", i)
	for (j = 0; j < 1024; j++) printf "%s", l } }' >"$W/recs"
writer() {
	local i
	for ((i = 0; i < NREC; i++)); do
		if dd if="$W/recs" of="$sdb" bs=$REC skip="$i" seek=$((56 * MB / REC + i)) count=1 \
			oflag=direct,dsync conv=notrunc status=none 2>>"$W/writer.err"; then
			echo "$i" >>"$W/acked"
		fi
	done
}
: >"$W/acked"

rc_x=0
# every backend write of kb's copies sleeps 100 ms (fault.c delay): the 48
# one-MiB writes of the copy take ~5 s, so the kill lands inside the command
echo delay:100 >"$XT_STATS_DIR/kb.fault"
"$XCP" --stats --src-lba 0 --dst-lba 0 --blocks $((48 * MB / 512)) "$sda" "$sdb" \
	>"$W/xcp.out" 2>"$W/xcp.err" &
xpid=$!
writer &
wpid=$!
# kill once the copy is under way: the delay armed (control file consumed)
# and 1.5 s more, at most ~10 s in
for ((t = 0; t < 100; t++)); do
	[ ! -e "$XT_STATS_DIR/kb.fault" ] && break
	kill -0 "$xpid" 2>/dev/null || break
	sleep 0.1
done
sleep 1.5
mid_copy=0
kill -0 "$xpid" 2>/dev/null && mid_copy=1
segs_before=$(xt_stat kb segments)
acked_before=$(wc -l <"$W/acked")
kill -9 "$LAB_TCMU_PID"
lab_msg "killed tcmu-runner $LAB_TCMU_PID (xcp running: $mid_copy, segments done: $segs_before, records acked: $acked_before)"
lab_check "tcmu-runner killed while xcp was copying" test "$mid_copy" -eq 1
sleep 1
handlers=$(cat "$LAB_RUN_DIR/handler-path")
tcmu-runner --handler-path "$handlers" -l "$LAB_RUN_DIR/tcmu" >>"$LAB_RUN_DIR/tcmu/stdout.log" 2>&1 &
newpid=$!
echo "$newpid" >"$LAB_RUN_DIR/tcmu/restarted.pid"
lab_check "tcmu-runner restarted (pid $newpid)" lab_wait_for kill -0 "$newpid"
LAB_WAIT=30 lab_check "the LUs come back: INQUIRY answers on $sdb" lab_wait_for sg_inq "$sdb"

xdone=0
for ((t = 0; t < 900; t++)); do
	kill -0 "$xpid" 2>/dev/null || { xdone=1; break; }
	sleep 0.1
done
[ "$xdone" = 1 ] || kill -9 "$xpid" 2>/dev/null || true
wait "$xpid" || rc_x=$?
lab_check "xcp finished by itself (no hang)" test "$xdone" -eq 1
lab_check "xcp exit 0 after the restart (rc $rc_x): $(tr '\n' ' ' <"$W/xcp.out" | cut -c1-160)" \
	test "$rc_x" -eq 0
for ((t = 0; t < 600; t++)); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$wpid" 2>/dev/null && kill -9 "$wpid"
wait "$wpid" || true
lab_check "destination [0, 48 MiB) equals the source" cmp -s -n $((48 * MB)) "$W/a.img" "$W/b.img"
lab_check "destination [48, 56 MiB) (nobody wrote it) unchanged" \
	cmp -s -i $((48 * MB)):$((48 * MB)) -n $((8 * MB)) "$W/b.img" "$W/b.orig"
lab_check "destination [62, 64 MiB) unchanged" \
	cmp -s -i $((62 * MB)):$((62 * MB)) -n $((2 * MB)) "$W/b.img" "$W/b.orig"
# every acknowledged record is on the disk (the backing file), byte for byte
check_acked() {
	local i bad=0 n
	n=$(wc -l <"$W/acked")
	[ "$n" -gt 0 ] || { echo "no record acknowledged"; return 1; }
	if [ "$n" -eq "$NREC" ]; then
		cmp -i 0:$((56 * MB)) -n $((NREC * REC)) "$W/recs" "$W/b.img"
		return
	fi
	while read -r i; do
		cmp -s -i $((i * REC)):$((56 * MB + i * REC)) -n $REC "$W/recs" "$W/b.img" ||
			{ bad=$((bad + 1)); echo "record $i lost"; }
	done <"$W/acked"
	echo "$n acknowledged records checked, $bad lost"
	[ "$bad" -eq 0 ]
}
lab_check "no acknowledged WRITE lost ($(wc -l <"$W/acked") of $NREC acknowledged; $(wc -l <"$W/writer.err") writer errors)" \
	check_acked

# after the restart: an offloaded copy still works, and the plugin counts it
lab_check "after the restart: offloaded copy (--require-offload)" \
	"$XCP" --require-offload --src-lba $((48 * MB / 512)) --dst-lba $((48 * MB / 512)) \
	--blocks 2048 "$sda" "$sdb"
lab_check "after the restart: that copy is correct" \
	cmp -s -i $((48 * MB)):$((48 * MB)) -n $MB "$W/a.img" "$W/b.img"
lab_check "after the restart: the new tcmu-runner served it (stats reopened)" \
	test "$(xt_stat kb commands_ok)" -ge 1
lab_summary
