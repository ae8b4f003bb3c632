#!/bin/bash
# RBD LUs with a second gateway: a librbd client process in the guest
# (tests/lab/rbd-gateway.py) has the images open as a standby tcmu-runner
# gateway does (watching, no lock, no writes). docs/target-rbd.md, "Standby
# gateways", says why copy-from stays safe while the lock is ours:
#   1. with the standby present, sg_xcopy between two RBD LUs (64 MiB,
#      object-aligned) goes by RADOS copy-from (gateway bytes 0), data
#      compared with `rbd export`;
#   2. the standby takes the destination over in the middle of a copy (breaks
#      the exclusive lock: we are blocklisted; acquires it; writes a pattern
#      over the copy's range): the copy ends with an error before
#      cmd_time_out, and `rbd export` shows the new owner's pattern over the
#      whole range (nothing of ours landed after the takeover) and the old
#      data outside it.
# Sizes: 2's range is 48 MiB (the new owner rewrites all of it through
# librbd, the slow part under TCG; with the 96 MiB it was before, every CI run
# saw the copy fail after 8 MiB, so 40 MiB are still to go when the takeover
# lands), s0 64 MiB (1's copy), d0 96 MiB (old data around 2's range).
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
# shellcheck source=tests/lab/ceph.sh
. "$HERE/../ceph.sh"
lab_require_guest
W=/tmp/lab-630
GW=$HERE/../rbd-gateway.py
mkdir -p "$W"
export CEPH_DIR=$W/ceph CEPH_POOL=rbd CEPH_MEM=1G
M=$((1 << 20))
pids=()

cleanup() {
	touch "$W/stop"
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	# our blocklisted handle closes at once once the blocklist is gone
	timeout 20 ceph osd blocklist clear >/dev/null 2>&1 || true
	lab_teardown >/dev/null 2>&1 || true
	ceph_lab_done   # the shared cluster stays for the next test
	rm -rf "$W"
}
trap cleanup EXIT

ceph_lab_start "$W/ceph-start.log"
sed -n 's/^ceph: /    ceph: /p' "$W/ceph-start.log"
C="@$CEPH_CONF"
echo "    guest: $(awk '/^MemAvailable/ {print int($2/1024) " MiB available"}' /proc/meminfo), /tmp $(df -m --output=used /tmp | tail -1 | tr -d ' ') MiB used"

# rbdq SECS ARGS...: the rbd CLI, bounded (librbd has no timeout of its own by
# default); when it fails or hangs the cluster's state is shown and the test ends
rbdq() {
	local secs=$1
	shift
	timeout "$secs" rbd "$@" && return 0
	{
		lab_fail "rbd $* (bounded to $secs s) failed or hung"
		ceph_diag "$CEPH_DIR"
		lab_summary
	} >&2
	exit 1
}

# standby IMAGE TAG [OFF LEN BYTE]: a second gateway on rbd/IMAGE, open when this returns
standby() {
	local img=$1 tag=$2 i
	shift 2
	rm -f "$W/$tag.ready"
	"$GW" "$CEPH_CONF" rbd "$img" "$W/$tag.ready" "$W/$tag.go" "$W/$tag.done" "$@" \
		>"$W/$tag.log" 2>&1 &
	pids+=($!)
	for ((i = 0; i < 600; i++)); do
		[ -e "$W/$tag.ready" ] && return 0
		sleep 0.05
	done
	lab_fail "second gateway on rbd/$img did not open it"; cat "$W/$tag.log"
	return 1
}

# --- images: s0 64 MiB random, d0 96 MiB of old data
lab_random "$W/s0.bin" $((64 * M))
lab_random "$W/d0.bin" $((96 * M))
rbdq 180 import --no-progress "$W/s0.bin" rbd/s0 >/dev/null
rbdq 180 import --no-progress "$W/d0.bin" rbd/d0 >/dev/null
s0=$(lab_user_create s0 xcopy "rbd/rbd/s0$C" 64M)
d0=$(lab_user_create d0 xcopy "rbd/rbd/d0$C" 96M)
lab_loop_export "$s0" "$d0" >/dev/null
sgs=$(lab_sg "$s0"); sgd=$(lab_sg "$d0"); sdd=$(lab_sd "$d0"); sds=$(lab_sd "$s0")
# the active gateway is this LU: its writes took the images' exclusive locks
dd if="$W/s0.bin" of="$sds" bs=4k count=1 oflag=direct status=none
dd if="$W/d0.bin" of="$sdd" bs=4k count=1 oflag=direct status=none

# --- 1. a standby on both images: copy-from all the same
standby s0 sb-s0
standby d0 sb-d0
lab_check "the standby is a watcher of rbd/d0 beside us (rbd status: 2 watchers)" \
	sh -c "[ \$(rbd status rbd/d0 | grep -c 'watcher=') -ge 2 ]"
c0=$(xt_stat d0 copyfrom_bytes); g0=$(xt_stat d0 gateway_bytes)
lab_check "sg_xcopy s0 -> d0, 64 MiB at 0, with a standby gateway on both images" \
	timeout 60 sg_xcopy bs=512 bpt=8192 if="$sgs" of="$sgd" count=$((64 * M / 512))
dd if="$W/s0.bin" of="$W/d0.bin" bs=1M count=64 conv=notrunc status=none
lab_check "  ... by RADOS copy-from: copyfrom_bytes +$(($(xt_stat d0 copyfrom_bytes) - c0)), gateway_bytes +$(($(xt_stat d0 gateway_bytes) - g0))" \
	sh -c "[ $(($(xt_stat d0 copyfrom_bytes) - c0)) -eq $((64 * M)) ] && [ $(($(xt_stat d0 gateway_bytes) - g0)) -eq 0 ]"
lab_check "  ... rbd export rbd/d0 equals the model" \
	sh -c "timeout 120 rbd export --no-progress rbd/d0 - 2>/dev/null | cmp - '$W/d0.bin'"
touch "$W/sb-s0.go" "$W/sb-d0.go"   # both standbys leave
wait "${pids[@]}" 2>/dev/null || true
pids=()

# --- 2. the standby takes d0 over in the middle of a 48 MiB copy to 32 MiB
OFF=$((32 * M)); LEN=$((48 * M))
standby d0 tk "$OFF" "$LEN" 0x5a
tmo=$(cat "$d0/attrib/cmd_time_out")
c0=$(xt_stat d0 copyfrom_bytes)
t0=$(date +%s.%N)
rc=0
sg_xcopy bs=512 bpt=8192 if="$sgs" of="$sgd" count=$((LEN / 512)) seek=$((OFF / 512)) \
	>"$W/xcopy.log" 2>&1 &
xpid=$!
# the takeover starts once copy-from has moved something (an event, not a time)
for ((i = 0; i < 2000; i++)); do
	[ "$(xt_stat d0 copyfrom_bytes)" -gt "$c0" ] && break
	kill -0 "$xpid" 2>/dev/null || break
	sleep 0.01
done
touch "$W/tk.go"
wait "$xpid" || rc=$?
secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
moved=$(($(xt_stat d0 copyfrom_bytes) - c0))
# the new owner writes LEN through librbd after taking the lock: under TCG
# on a loaded host 96 MiB alone once took over a minute; wait up to 240 s
for ((i = 0; i < 4800; i++)); do [ -e "$W/tk.done" ] && break; sleep 0.05; done
lab_check "takeover: the second gateway took our lock and wrote its pattern ($(head -1 "$W/tk.done" 2>/dev/null || echo -) s to the lock)" \
	test -e "$W/tk.done"
if [ ! -e "$W/tk.done" ]; then   # where it stands: its own log, the image's locks and watchers
	sed 's/^/      gateway: /' "$W/tk.log"
	timeout 20 rbd lock ls rbd/d0 2>&1 | sed 's/^/      /' || true
	timeout 20 rbd status rbd/d0 2>&1 | sed 's/^/      /' || true
	echo "      sg_xcopy ended after $secs s (exit $rc)"
fi
broken=$(sed -n 2p "$W/tk.done" 2>/dev/null)
lab_check "takeover: the copy ended with an error (sg_xcopy exit $rc) after $((moved >> 20)) of $((LEN >> 20)) MiB by copy-from" \
	sh -c "[ $rc -ne 0 ] && [ $moved -lt $LEN ]"
lab_check "takeover: ... in ${secs} s < cmd_time_out ${tmo} s" awk "BEGIN{exit !($secs < $tmo)}"
sed 's/^/      /' "$W/xcopy.log" | tail -3
# The store holds the destination's lock only for each call (target/store/rbd):
# a takeover between two calls finds it free, breaks nothing, and our next
# call cannot get it back (the copy fails above); inside a call it breaks
# our lock and librbd blocklists us.
if [ "${broken:-1}" != 0 ]; then
	# the listing is retried for up to 10 s, each call bounded: once (stop 41's
	# CI run, a loaded host) a single unbounded listing came back empty
	bl=""
	for ((i = 0; i < 20; i++)); do
		bl=$(timeout 10 ceph osd blocklist ls 2>"$W/bl.err") || true
		[ -n "$bl" ] && break
		sleep 0.5
	done
	lab_check "takeover: it broke our lock ($broken owner): blocklist shows the old owner fenced" \
		test -n "$bl"
	if [ -z "$bl" ]; then
		echo "      ceph osd blocklist ls: $(tr '\n' ' ' <"$W/bl.err")"
		sed 's/^/      gateway: /' "$W/tk.log" | tail -5
	fi
else
	echo "    takeover: the lock was free at that moment (between two calls): nothing to fence"
fi
head -c "$LEN" /dev/zero | tr '\0' '\132' | dd of="$W/d0.bin" bs=1M seek=32 conv=notrunc status=none
lab_check "takeover: rbd export rbd/d0 = the new owner's pattern over the range, old data outside" \
	sh -c "timeout 120 rbd export --no-progress rbd/d0 - 2>/dev/null | cmp - '$W/d0.bin'"
lab_summary
