#!/bin/bash
# tests/lab/ceph.sh: a single-node Ceph cluster for the lab (Debian's
# ceph-mon + ceph-osd, no ceph-mgr), loopback only.
#
#   tests/lab/ceph.sh start [DIR]   boot one monitor + one OSD, create pool
#                                   $CEPH_POOL (default "rbd"), print the
#                                   boot-to-ready time; conf is DIR/ceph.conf
#   tests/lab/ceph.sh stop [DIR]    stop both daemons, remove DIR
#   . tests/lab/ceph.sh             (sourced) defines ceph_start / ceph_stop
#                                   (and ceph_lab_start / ceph_lab_done for
#                                   lab tests: one cluster shared by them)
#
# Choices:
# - OSD objectstore: memstore. It keeps objects in the OSD's RAM and has no
#   on-disk format, so `ceph-osd --mkfs` takes well under a second, where
#   bluestore's mkfs on a loop file writes its metadata and RocksDB and takes
#   tens of seconds under TCG (and needs osd_memory_target >= ~900 MiB). The
#   data lives in guest RAM either way (the guest's /tmp is RAM), so memstore
#   costs no more memory than a bluestore file would. memstore_device_bytes
#   (CEPH_MEM, default 512 MiB) is the capacity the OSD reports.
# - Authentication: none (auth_{cluster,service,client}_required = none). The
#   cluster listens on 127.0.0.1 only, inside a throw-away VM; cephx would add
#   key generation and distribution to every client without testing anything
#   of ours. librados clients need no keyring (`keyring = /dev/null`).
# - Admin sockets: the daemons' only (run/NAME.asok). Set in [global], every
#   client (the plugin, each CLI) tried to bind the one client.admin.asok
#   and all but the first logged 'File exists'.
# - No ceph-mgr: pools, images and RADOS I/O do not need it (only PG
#   statistics and `ceph -s` health do). Readiness is therefore probed with a
#   real RADOS write (`rados put`) instead of `ceph pg stat`.
# - Pool size 1 (objects on one OSD each), crush failure domain "osd": with
#   CEPH_OSDS > 1 the objects of an image spread over the OSDs (their PGs).
#
# Environment: CEPH_DIR (default /tmp/ceph), CEPH_POOL (rbd), CEPH_MEM (512M, per OSD),
# CEPH_OSDS (1: OSDs in the one guest, each a memstore of CEPH_MEM),
# CEPH_TIMEOUT (s, default 120) bounds the wait for readiness.

ceph__dir() { echo "${1:-${CEPH_DIR:-/tmp/ceph}}"; }

ceph__conf() {
	local d=$1 fsid=$2
	cat <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:3300
mon initial members = a
public network = 127.0.0.0/8
ms bind ipv4 = true
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
keyring = /dev/null
run dir = $d/run
log file = $d/log/\$name.log
pid file = $d/run/\$name.pid
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 1
[mon]
mon data = $d/mon.\$id
admin socket = $d/run/\$name.asok
[osd]
osd data = $d/osd.\$id
admin socket = $d/run/\$name.asok
osd objectstore = memstore
memstore device bytes = $(lab_size_bytes_ "${CEPH_MEM:-512M}")
osd memory target = 268435456
osd op num shards = 1
osd op num threads per shard = 2
osd max write size = 256
osd journal size = 0
# a deleted pool's objects go at once (the shared lab cluster resets its pools
# between tests; memstore counts as a disk, whose default is a 5 s sleep per batch)
osd delete sleep = 0
osd delete sleep hdd = 0
osd delete sleep ssd = 0
osd delete sleep hybrid = 0
EOF
}

lab_size_bytes_() {
	local s=$1
	case "$s" in
	*[mM]) echo $((${s%?} * 1024 * 1024)) ;;
	*[gG]) echo $((${s%?} * 1024 * 1024 * 1024)) ;;
	*) echo $((s)) ;;
	esac
}

# ceph_start [DIR]: prints "ceph: cluster ready in N s" on stderr; exports
# CEPH_CONF (librados/librbd and the CLIs read it).
ceph_start() {
	local d t0 fsid osd_uuid i k n=${CEPH_OSDS:-1} secs ok
	d=$(ceph__dir "${1:-}")
	t0=$(date +%s.%N)
	mkdir -p "$d/run" "$d/log" "$d/mon.a"
	read -r fsid </proc/sys/kernel/random/uuid
	ceph__conf "$d" "$fsid" >"$d/ceph.conf"
	export CEPH_CONF=$d/ceph.conf
	monmaptool --create --clobber --fsid "$fsid" --addv a '[v2:127.0.0.1:3300]' \
		"$d/monmap" >/dev/null || return 1
	ceph-mon --mkfs -i a --monmap "$d/monmap" -c "$CEPH_CONF" || return 1
	ceph-mon -i a -c "$CEPH_CONF" || return 1
	# each OSD's id is allocated by the monitor (osd new: 0, 1, ...), then its store made
	for ((k = 0; k < n; k++)); do
		mkdir -p "$d/osd.$k"
		read -r osd_uuid </proc/sys/kernel/random/uuid
		ceph -c "$CEPH_CONF" --connect-timeout 30 osd new "$osd_uuid" >/dev/null || return 1
		ceph-osd -i "$k" -c "$CEPH_CONF" --mkfs --osd-uuid "$osd_uuid" 2>"$d/log/osd-mkfs.err" ||
			{ cat "$d/log/osd-mkfs.err" >&2; return 1; }
		ceph-osd -i "$k" -c "$CEPH_CONF" || return 1
	done
	if [ "$n" = 1 ]; then
		# the pool and a first write in one client (each ceph CLI call is a
		# Python start: seconds under TCG)
		ceph__pools_new "$d" || return 1
		secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
		printf 'ceph: cluster ready in %s s (1 mon, 1 memstore osd, pool %s)\n' "$secs" "${CEPH_POOL:-rbd}" >&2
		return 0
	fi
	ceph -c "$CEPH_CONF" osd pool create "${CEPH_POOL:-rbd}" 8 8 >/dev/null 2>&1 || return 1
	ceph -c "$CEPH_CONF" osd pool application enable "${CEPH_POOL:-rbd}" rbd >/dev/null 2>&1 || return 1
	# ready = RADOS writes to the pool succeed (16 objects: every one of its 8 PGs, likely)
	for ((i = 0; i < ${CEPH_TIMEOUT:-120}; i++)); do
		ok=1
		for ((k = 0; k < (n > 1 ? 16 : 1); k++)); do
			printf ready | timeout 5 rados -c "$CEPH_CONF" -p "${CEPH_POOL:-rbd}" put ".ready$k" - \
				2>/dev/null || { ok=0; break; }
		done
		if [ "$ok" = 1 ]; then
			secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
			printf 'ceph: cluster ready in %s s (1 mon, %s memstore osd, pool %s)\n' \
				"$secs" "$n" "${CEPH_POOL:-rbd}" >&2
			return 0
		fi
		sleep 1
	done
	echo "ceph: not ready after ${CEPH_TIMEOUT:-120} s; logs in $d/log" >&2
	tail -n 20 "$d"/log/*.log >&2 || true
	return 1
}

# ceph_stop [DIR]: SIGTERM the two daemons (their pid files), wait up to 10 s,
# SIGKILL what is left, remove DIR (memstore data goes with the OSD).
ceph_stop() {
	local d p pids=() i
	d=$(ceph__dir "${1:-}")
	for p in "$d"/run/*.pid; do
		[ -e "$p" ] || continue
		read -r i <"$p" && [ -n "$i" ] && pids+=("$i")
	done
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do
		local alive=0
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$d"
}

# ceph_diag [DIR]: what a hung or failed Ceph step needs to be understood:
# which daemons are alive, guest memory, OOM kills, each daemon log's tail.
ceph_diag() {
	local d p n
	d=$(ceph__dir "${1:-}")
	for p in "$d"/run/*.pid; do
		[ -e "$p" ] || continue
		n=$(basename "$p" .pid)
		if kill -0 "$(cat "$p")" 2>/dev/null; then echo "    ceph| $n alive"; else echo "    ceph| $n GONE"; fi
	done
	grep -E '^(MemAvailable|Shmem):' /proc/meminfo | sed 's/^/    ceph| /'
	dmesg 2>/dev/null | grep -iE 'oom|killed process' | tail -5 | sed 's/^/    ceph| dmesg: /'
	for p in "$d"/log/*.log; do
		[ -e "$p" ] || continue
		tail -n 8 "$p" | sed "s#^#    ceph| $(basename "$p"): #"
	done
}

# One cluster for the lab tests of a boot. Starting one costs 25-40 s under
# TCG; the RBD tests (600-640) run one after the other in one boot, so the
# first one starts it in LAB_CEPH_DIR (default /tmp/ceph-lab: outside the
# /tmp/lab-* work folders run-tests clears) and each later one gets it back
# as new: every pool deleted, pool $CEPH_POOL created again, the blocklist
# cleared (ceph_reset: seconds). A test that needs a cluster of its own says
# why and calls ceph_start itself; one that breaks the shared cluster (620
# kills the OSD: memstore loses its objects) stops it, and the next test
# starts a new one. LAB_CEPH_SHARED=0: every test starts its own, as before.
# run-tests stops the shared cluster after the last test that sources this.

# ceph_reset DIR: the running cluster of DIR as new; fails (bounded, 120 s at
# most) when a daemon is gone or does not answer.
ceph_reset() {
	local d=$1 p
	for p in "$d"/run/mon.a.pid "$d"/run/osd.0.pid; do
		if ! { [ -e "$p" ] && kill -0 "$(cat "$p")" 2>/dev/null; }; then
			echo "ceph: $(basename "$p" .pid) is not running" >&2
			return 1
		fi
	done
	ceph__pools_new "$d"
}

# ceph__pools_new DIR: one librados client (Debian's python3-rados) deletes
# every pool, creates $CEPH_POOL (8 PGs, application rbd), clears the
# blocklist and waits until a write to the pool succeeds (CEPH_TIMEOUT, 120 s).
ceph__pools_new() {
	timeout "${CEPH_TIMEOUT:-120}" /usr/bin/python3 - "$1/ceph.conf" "${CEPH_POOL:-rbd}" <<'PY' >&2
import json, sys, time
import rados
conf, pool = sys.argv[1:3]
c = rados.Rados(conffile=conf, conf={"rados_mon_op_timeout": "15", "rados_osd_op_timeout": "15"})
c.connect(timeout=15)
def cmd(**kw):
    ret, _, err = c.mon_command(json.dumps(kw), b"", timeout=15)
    if ret != 0:
        sys.exit("ceph: %s: %s (%d)" % (kw["prefix"], err, ret))
for p in c.list_pools():
    cmd(prefix="osd pool delete", pool=p, pool2=p, yes_i_really_really_mean_it=True)
cmd(prefix="osd pool create", pool=pool, pg_num=8, pgp_num=8)
cmd(prefix="osd pool application enable", pool=pool, app="rbd")
cmd(prefix="osd blocklist clear")
for i in range(1000):  # ready = a RADOS write to the new pool succeeds (timeout bounds it)
    try:
        c.wait_for_latest_osdmap()
        io = c.open_ioctx(pool)
        io.write_full(".ready0", b"ready")
        io.close()
        break
    except rados.Error:
        time.sleep(0.5)
else:
    sys.exit("ceph: pool %s not writable" % pool)
c.shutdown()
PY
}

# ceph_lab_start LOG (lab tests, after lib.sh): the boot's shared cluster
# (started, or reset for this test), or with LAB_CEPH_SHARED=0 a cluster in
# $CEPH_DIR; exports CEPH_DIR, CEPH_CONF and CEPH_READY_SECS (the time its
# start took); messages in LOG. When it fails, LOG is shown, the test fails
# and exits.
ceph_lab_start() {
	local log=$1 d t0 secs
	: >"$log"
	if [ "${LAB_CEPH_SHARED:-1}" = 1 ]; then
		d=${LAB_CEPH_DIR:-/tmp/ceph-lab}
		export CEPH_DIR=$d CEPH_MEM=${LAB_CEPH_MEM:-2G}
		if [ -e "$d/ceph.conf" ]; then
			t0=$(date +%s.%N)
			export CEPH_CONF=$d/ceph.conf
			if ceph_reset "$d" 2>"$log"; then
				CEPH_READY_SECS=$(cat "$d/ready-secs")
				secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
				printf 'ceph: the shared cluster (started in %s s by %s) reset in %s s: pools deleted, pool %s new\n' \
					"$CEPH_READY_SECS" "$(cat "$d/started-by")" "$secs" "${CEPH_POOL:-rbd}" >>"$log"
				export CEPH_READY_SECS
				return 0
			fi
			echo "ceph: the shared cluster cannot be reset: a new one" >>"$log"
			ceph_diag "$d" >>"$log" 2>&1 || true
			ceph_stop "$d"
		fi
	else
		d=$CEPH_DIR
	fi
	if ! ceph_start "$d" 2>>"$log"; then
		cat "$log"
		lab_fail "single-node Ceph started"
		lab_summary
		exit 1
	fi
	CEPH_READY_SECS=$(sed -n 's/^ceph: cluster ready in \([0-9.]*\) s.*/\1/p' "$log" | tail -1)
	export CEPH_READY_SECS
	echo "$CEPH_READY_SECS" >"$d/ready-secs"
	basename "$0" .sh >"$d/started-by"
}

# ceph_cmp_start (lab tests, after ceph_lab_start; not in a subshell): one
# librbd client for the test's ceph_same calls (tests/lab/rbd-cmp.py, a
# coprocess that ends with the test). The rbd CLI starts and connects to the
# cluster for every `rbd export`, seconds under TCG each.
CEPH_SH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ceph_cmp_start() {
	CEPH_CMP_ERR=$(mktemp)
	coproc CEPH_CMP { exec python3 -u "$CEPH_SH_DIR/rbd-cmp.py" "$CEPH_CONF" 2>"$CEPH_CMP_ERR"; }
}
# ceph_same POOL/IMAGE[@SNAP] FILE: the image (snapshot) equals FILE byte for
# byte, as `rbd export IMAGE - | cmp - FILE` would say (librbd reads the
# image, read-only). Exit 0 if so; otherwise 1 and the difference on stderr.
# CEPH_CMP_TIMEOUT (s, default 300) bounds one comparison; past it the client
# is stopped and every later comparison fails. CEPH_CMP_TIMES=FILE: each
# comparison's seconds and image are appended to FILE (--env, for the record).
ceph_same() {
	local ans='' t0=$EPOCHREALTIME
	if [ -z "${CEPH_CMP_PID:-}" ] || [ -z "${CEPH_CMP[1]:-}" ]; then
		echo "ceph_same: no rbd-cmp.py client (ceph_cmp_start)" >&2
		return 1
	fi
	if ! printf '%s %s\n' "$1" "$2" >&"${CEPH_CMP[1]}" ||
		! IFS= read -r -t "${CEPH_CMP_TIMEOUT:-300}" ans <&"${CEPH_CMP[0]}"; then
		echo "ceph_same $1 $2: no answer from rbd-cmp.py${ans:+ ($ans)}" >&2
		cat "$CEPH_CMP_ERR" >&2
		kill "$CEPH_CMP_PID" 2>/dev/null
		return 1
	fi
	[ -z "${CEPH_CMP_TIMES:-}" ] || echo "$(awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $t0}") $1" >>"$CEPH_CMP_TIMES"
	[ "$ans" = same ] && return 0
	echo "ceph_same $1 $2: $ans" >&2
	return 1
}

# ceph_lab_done (a lab test's cleanup, after lab_teardown): stops the test's
# own cluster; the shared one stays for the next test.
ceph_lab_done() {
	[ "${LAB_CEPH_SHARED:-1}" = 1 ] || ceph_stop "$CEPH_DIR"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-}" in
	start) ceph_start "${2:-}" ;;
	stop) ceph_stop "${2:-}" ;;
	*) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
	esac
fi
