# shellcheck shell=bash
# tests/lab/lib.sh: scenario helpers for scripts that run INSIDE the lab
# guest (tests/lab/run -- SCRIPT). Source it:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"      # from tests/lab/tests/
#
# Storage objects (backstores) are named by their configfs directory, e.g.
# /sys/kernel/config/target/core/fileio_1/f0; every *_create helper prints
# that path on stdout. Helpers print diagnostics on stderr and return
# non-zero on failure. See tests/lab/README.md for the list.

# Under TCG every exec costs ~0.1 s: the helpers prefer shell builtins.
LAB_LIB_DIR=${BASH_SOURCE[0]%/*}
[ "$LAB_LIB_DIR" != "${BASH_SOURCE[0]}" ] || LAB_LIB_DIR=.
LAB_LIB_DIR=$(cd "$LAB_LIB_DIR" && pwd)
LAB_REPO=${LAB_REPO:-${LAB_LIB_DIR%/tests/lab}}
LAB_CFS=/sys/kernel/config/target
LAB_STATE=/run/lab
# libiscsi's test tool logs in as this initiator (and ...-2 for 2nd sessions).
# shellcheck disable=SC2034 # for the scripts that source this file
LAB_LIBISCSI_IQN=iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test
# shellcheck disable=SC2034
LAB_LIBISCSI_IQN2=iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-test-2
LAB_PORTAL=127.0.0.1:3260
LAB_TESTS_PASSED=${LAB_TESTS_PASSED:-0}
LAB_TESTS_FAILED=${LAB_TESTS_FAILED:-0}

lab_msg() { printf '%s\n' "$*" >&2; }
lab_err() { printf 'lab: error: %s\n' "$*" >&2; return 1; }

lab_require_guest() {
	if [ "${LAB_IN_GUEST:-}" != 1 ] || [ ! -d "$LAB_CFS" ]; then
		lab_err "not in the lab guest (run it with tests/lab/run -- $0)"
	fi
}

# lab_wait_for COND_CMD... : retry a command for up to $LAB_WAIT (10) s.
lab_wait_for() {
	local i n=$((${LAB_WAIT:-10} * 10))
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

lab_uuid() { local u; read -r u </proc/sys/kernel/random/uuid; echo "$u"; }

# lab_random FILE SIZE: FILE (new, or truncated) holds SIZE (64M, 4096...)
# pseudo-random bytes, every 8 bytes different within a MiB and every file
# seeded anew (xcbench fill: xorshift64*, ~20x /dev/urandom under TCG, where
# urandom runs at ~26 MiB/s). Not for secrets: for data a copy must move.
LAB_RANDOM_SEED=${LAB_RANDOM_SEED:-$((RANDOM << 15 | RANDOM))}
lab_random() {
	local n
	n=$(lab_size_bytes "$2")
	LAB_RANDOM_SEED=$((LAB_RANDOM_SEED + 1))
	if [ -x "${LAB_BUILD:-}/bench/xcbench" ]; then
		: >"$1" && "$LAB_BUILD/bench/xcbench" fill "$1" 0 "$n" "$LAB_RANDOM_SEED"
	else
		head -c "$n" /dev/urandom >"$1"
	fi
}

# lab_size_bytes 64M|1G|4096 -> bytes
lab_size_bytes() {
	local s=$1
	case "$s" in
	*[kK]) echo $((${s%?} * 1024)) ;;
	*[mM]) echo $((${s%?} * 1024 * 1024)) ;;
	*[gG]) echo $((${s%?} * 1024 * 1024 * 1024)) ;;
	*) echo $((s)) ;;
	esac
}

# Lowest HBA index not used by any backstore type (as rtslib does).
lab__next_hba() {
	local i=1
	while compgen -G "$LAB_CFS/core/*_$i" >/dev/null; do i=$((i + 1)); done
	echo "$i"
}

# lab_naa SERIAL : the NAA 6 designator (32 hex digits) LIO and tcmu-runner
#   derive from a LU's unit serial (IEEE company 00-14-05, serial hex digits)
lab_naa() { local h; h=$(tr -dc '0-9a-f' <<<"$1"); printf '6001405%s\n' "${h:0:25}"; }

# lab__set_serial SO [SERIAL]: unit serial (gives the NAA designator in VPD
# 0x83 that XCOPY CSCD matching needs). Must precede any LUN export.
lab__set_serial() {
	local so=$1 serial=${2:-}
	[ -n "$serial" ] || read -r serial </proc/sys/kernel/random/uuid
	echo "$serial" >"$so/wwn/vpd_unit_serial" || lab_err "cannot set vpd_unit_serial of $so"
}

# lab_fileio_create NAME FILE SIZE [SERIAL]
#   fileio backstore on FILE (created/extended to SIZE), unit serial set
#   before enable as targetcli does. Prints the configfs path.
lab_fileio_create() {
	local name=$1 file=$2 size serial=${4:-} so
	size=$(lab_size_bytes "$3")
	[ -d "${file%/*}" ] || mkdir -p "${file%/*}"
	[ -e "$file" ] || truncate -s "$size" "$file" || return 1
	so=$LAB_CFS/core/fileio_$(lab__next_hba)/$name
	mkdir -p "$so" || return 1
	echo "fd_dev_name=$file,fd_dev_size=$size" >"$so/control" || return 1
	lab__set_serial "$so" "$serial" || return 1
	echo 1 >"$so/enable" || lab_err "cannot enable fileio $name" || return 1
	echo "$so"
}

# The LU settings every user LU the project creates gets (docs/target-setup.md,
# "LU settings"): 1 MiB commands (hw_max_sectors 2048 of 512 bytes: sd's
# max_sectors_kb 1024 instead of the kernel default's 64) and a data area
# that holds TCMU's queue depth (hw_queue_depth 128) of them (128 MiB,
# instead of 1024 MiB). Written to control before enable; EXTRA_CONTROL
# (after it) overrides, e.g. "hw_max_sectors=128,max_data_area_mb=1024" for
# the kernel's defaults.
LAB_USER_CONTROL=${LAB_USER_CONTROL-hw_max_sectors=2048,max_data_area_mb=128}

# lab_user_create NAME SUBTYPE CFGSTRING SIZE [SERIAL] [EXTRA_CONTROL]
#   TCMU backstore user:SUBTYPE (control dev_config=SUBTYPE/CFGSTRING, then
#   $LAB_USER_CONTROL), opened by tcmu-runner's handler for SUBTYPE; enable
#   fails if the handler's open fails. CFGSTRING must not contain ','.
#   Refused while a second runner runs (cm2-lib.sh: use cm2_lu_create).
#   EXTRA_CONTROL: e.g. "hw_max_sectors=1024". Prints the configfs path.
lab_user_create() {
	local name=$1 subtype=$2 cfg=$3 size serial=${5:-} extra=${6:-} so
	size=$(lab_size_bytes "$4")
	case "$cfg" in *,*) lab_err "cfgstring '$cfg' contains ','"; return 1 ;; esac
	[ -n "${LAB_TCMU_PID:-}" ] && ! kill -0 "$LAB_TCMU_PID" 2>/dev/null &&
		lab_msg "lab: warning: tcmu-runner ($LAB_TCMU_PID) is not running"
	# a second runner (tests/lab/cm2-lib.sh) answers this LU's netlink event too:
	# the enable would fail and the owner die (6.1 tcmu_vma_fault oops)
	if [ -n "${CM2_PID:-}" ] && kill -0 "$CM2_PID" 2>/dev/null; then
		lab_err "a second tcmu-runner ($CM2_PID) runs: make $name with cm2_lu_create"
		return 1
	fi
	so=$LAB_CFS/core/user_$(lab__next_hba)/$name
	mkdir -p "$so" || return 1
	echo "dev_config=$subtype/$cfg,dev_size=$size" >"$so/control" || return 1
	[ -z "$LAB_USER_CONTROL" ] || echo "$LAB_USER_CONTROL" >"$so/control" || return 1
	[ -z "$extra" ] || echo "$extra" >"$so/control" || return 1
	lab__set_serial "$so" "$serial" || return 1
	echo 1 >"$so/enable" ||
		lab_err "cannot enable user:$subtype $name (handler open failed? see tcmu-runner.log)" || return 1
	echo "$so"
}

# lab_fabric_mb SO : MiB that crossed the fabric for backstore SO so far (LIO's
#   statistics/scsi_lu read_mbytes + write_mbytes: data-in and data-out bytes,
#   so a WRITE SAME counts one block, not its range as diskstats does).
lab_fabric_mb() {
	local r w
	read -r r <"$1/statistics/scsi_lu/read_mbytes" && read -r w <"$1/statistics/scsi_lu/write_mbytes" &&
		echo $((r + w))
}

# --- tcm_loop: local SCSI host -> /dev/sdX, /dev/sgN --------------------------

lab__naa() { printf 'naa.50014%011x\n' "$(( (RANDOM << 30 | RANDOM << 15 | RANDOM) & 0xffffffffff ))"; }

# shellcheck disable=SC2120 # WWN is optional
# lab_loop_create [WWN] : a tcm_loop target (own SCSI host) with tpgt_1 and
#   a nexus. Prints the tpg path (…/loopback/naa.X/tpgt_1).
lab_loop_create() {
	local wwn=${1:-$(lab__naa)} tpg
	tpg=$LAB_CFS/loopback/$wwn/tpgt_1
	mkdir -p "$tpg" || return 1
	lab__naa >"$tpg/nexus" || lab_err "cannot create the tcm_loop nexus" || return 1
	echo "$tpg"
}

# lab_loop_add_lun TPG SO [LUN] : export SO as LUN (default: next free) and
#   wait for its disk; prints "/dev/sdX /dev/sgN".
lab_loop_add_lun() {
	local tpg=$1 so=$2 lun=${3:-} addr h t dev
	if [ -z "$lun" ]; then
		lun=0
		while [ -e "$tpg/lun/lun_$lun" ]; do lun=$((lun + 1)); done
	fi
	mkdir -p "$tpg/lun/lun_$lun" || return 1
	ln -s "$so" "$tpg/lun/lun_$lun/${so##*/}" || return 1
	read -r addr <"$tpg/address" # "host:channel:target"
	h=${addr%%:*}
	t=${addr##*:}
	dev=/sys/bus/scsi/devices/$h:0:$t:$lun
	lab_wait_for lab__loop_nodes "$dev" ||
		lab_err "no /dev/sdX or /dev/sgN for $h:0:$t:$lun after ${LAB_WAIT:-10}s" || return 1
	lab__loop_nodes "$dev"
}
lab__loop_nodes() {
	local dev=$1 b g sd sg
	b=("$dev"/block/*)
	g=("$dev"/scsi_generic/*)
	sd=${b[0]##*/}
	sg=${g[0]##*/}
	if [ -b "/dev/$sd" ] && [ -c "/dev/$sg" ]; then
		echo "/dev/$sd /dev/$sg"
	else
		return 1
	fi
}

# lab_loop_export SO... : one new tcm_loop target, the SOs as LUN 0, 1, …
#   (same I_T nexus, so they can name each other in an XCOPY). Prints one
#   "/dev/sdX /dev/sgN" line per SO.
lab_loop_export() {
	local tpg so
	# shellcheck disable=SC2119
	tpg=$(lab_loop_create) || return 1
	for so in "$@"; do lab_loop_add_lun "$tpg" "$so" || return 1; done
}

# lab_sg SO / lab_sd SO : first /dev/sgN (/dev/sdX) through which SO is
#   exported by tcm_loop.
lab__loop_lun_of() {
	local so=$1 l lun tpg addr
	for l in "$LAB_CFS"/loopback/*/tpgt_*/lun/lun_*/*; do
		[ -L "$l" ] || continue
		[ "$(readlink -f "$l")" = "$(readlink -f "$so")" ] || continue
		lun=${l%/*}
		tpg=${lun%/lun/*}
		lun=${lun##*/}
		read -r addr <"$tpg/address"
		lab__loop_nodes "/sys/bus/scsi/devices/${addr%%:*}:0:${addr##*:}:${lun#lun_}" && return 0
	done
	return 1
}
lab_sg() { local n; n=$(lab__loop_lun_of "$1") || return 1; echo "${n#* }"; }
lab_sd() { local n; n=$(lab__loop_lun_of "$1") || return 1; echo "${n%% *}"; }

# --- iSCSI target on 127.0.0.1:3260 ------------------------------------------

# lab_iscsi_export [--acl INITIATOR_IQN]... IQN SO... : iSCSI target IQN,
#   tpgt_1, portal 127.0.0.1:3260, the SOs as LUN 0, 1, …, no auth.
#   Without --acl: demo mode (any initiator, writable). With --acl: only the
#   named initiators, each mapped to every LUN. Prints iscsi://127.0.0.1/IQN
#   (append /LUN for a LUN's URL).
lab_iscsi_export() {
	local acls=() iqn tpg so i=0 a
	while [ "${1:-}" = --acl ]; do acls+=("$2"); shift 2; done
	iqn=$1; shift
	tpg=$LAB_CFS/iscsi/$iqn/tpgt_1
	mkdir -p "$tpg/np/$LAB_PORTAL" || lab_err "cannot create iSCSI portal $LAB_PORTAL" || return 1
	for so in "$@"; do
		mkdir -p "$tpg/lun/lun_$i" && ln -s "$so" "$tpg/lun/lun_$i/${so##*/}" || return 1
		i=$((i + 1))
	done
	echo 0 >"$tpg/attrib/authentication"
	if [ ${#acls[@]} -eq 0 ]; then
		echo 1 >"$tpg/attrib/generate_node_acls"
		echo 1 >"$tpg/attrib/cache_dynamic_acls"
		echo 0 >"$tpg/attrib/demo_mode_write_protect"
	else
		echo 0 >"$tpg/attrib/generate_node_acls"
		for a in "${acls[@]}"; do lab_iscsi_acl "$iqn" "$a" || return 1; done
	fi
	echo 1 >"$tpg/enable" || return 1
	echo "iscsi://127.0.0.1/$iqn"
}

# lab_iscsi_acl IQN INITIATOR_IQN : allow INITIATOR on every LUN of IQN.
lab_iscsi_acl() {
	local tpg=$LAB_CFS/iscsi/$1/tpgt_1 init=$2 l n
	mkdir -p "$tpg/acls/$init" || return 1
	for l in "$tpg"/lun/lun_*; do
		[ -d "$l" ] || continue
		n=${l##*/}
		[ -e "$tpg/acls/$init/$n" ] && continue
		mkdir "$tpg/acls/$init/$n" && ln -s "$l" "$tpg/acls/$init/$n/lun" || return 1
	done
}

# --- recorded references -------------------------------------------------------

# lab_lio_reference : the newest recorded LIO fileio reference folder that has
#   the whole SCSI family (tests/lab/reference/*-lio-fileio/iscsi-SCSI.results);
#   prints nothing when there is none.
lab_lio_reference() {
	local d ref=
	for d in "$LAB_REPO"/tests/lab/reference/*-lio-fileio; do
		[ -f "$d/iscsi-SCSI.results" ] && ref=$d
	done
	echo "$ref"
}

# --- reflink-capable XFS store -----------------------------------------------

# lab__loop SIZE : a loop device over a new image of SIZE in the guest's
#   tmpfs; sets LAB__DEV and LAB__IMG (the caller lists them for teardown).
lab__loop() {
	mkdir -p "$LAB_STATE/stores" || return 1
	LAB__IMG=$(mktemp /tmp/lab-loop.XXXXXX.img) || return 1
	truncate -s "$(lab_size_bytes "$1")" "$LAB__IMG" || return 1
	LAB__DEV=$(losetup -f --show "$LAB__IMG") || lab_err "losetup failed" || return 1
}

# lab_xfs_store DIR [SIZE] : XFS (-m reflink=1) on a loop device over an
#   image in the guest's tmpfs, mounted at DIR. Prints DIR.
lab_xfs_store() {
	local dir=$1
	mkdir -p "$dir" && lab__loop "${2:-512M}" || return 1
	mkfs.xfs -q -f -m reflink=1 "$LAB__DEV" >&2 || lab_err "mkfs.xfs failed" || return 1
	mount -t xfs "$LAB__DEV" "$dir" || lab_err "mount $LAB__DEV $dir failed" || return 1
	printf '%s\t%s\t%s\n' "$dir" "$LAB__DEV" "$LAB__IMG" >>"$LAB_STATE/stores/list"
	echo "$dir"
}

# lab_blockdev SIZE : a loop device over an image of SIZE in the guest's
#   tmpfs (no filesystem: "-" in the stores list), detached and removed at
#   teardown. Prints the device.
lab_blockdev() {
	lab__loop "$1" || return 1
	printf '%s\t%s\t%s\n' - "$LAB__DEV" "$LAB__IMG" >>"$LAB_STATE/stores/list"
	echo "$LAB__DEV"
}

# lab_disk : the raw virtio-blk disk tests/lab/run --disk gave the guest
#   (serial "labdisk"; QEMU's I/O threads move its bytes on the host, not the
#   guest's vCPUs). Prints its /dev path; fails when the run has none.
lab_disk() {
	local i f
	modprobe virtio_blk 2>/dev/null || true
	for i in $(seq 50); do
		for f in /sys/block/vd*/serial; do
			if [ -r "$f" ] && [ "$(cat "$f")" = labdisk ]; then
				f=${f%/serial}
				echo "/dev/${f##*/}"
				return 0
			fi
		done
		sleep 0.2
	done
	lab_err "no lab disk (tests/lab/run --disk SIZE)"
}

# --- system D-Bus and tcmu-runner restarts -------------------------------------

# lab_dbus_start : a system bus (dbus-daemon --system, Debian's system.conf and
#   /etc/dbus-1/system.d policies, tcmu-runner's among them) unless one runs.
#   Its pid is in $LAB_STATE/dbus.pid.
lab_dbus_start() {
	local pid
	if [ -s "$LAB_STATE/dbus.pid" ] && read -r pid <"$LAB_STATE/dbus.pid" && kill -0 "$pid" 2>/dev/null; then
		return 0
	fi
	mkdir -p /run/dbus "$LAB_STATE" || return 1
	rm -f /run/dbus/system_bus_socket
	dbus-daemon --system --nofork --nopidfile >>"${LAB_RUN_DIR:-/tmp}/dbus-daemon.log" 2>&1 &
	echo $! >"$LAB_STATE/dbus.pid"
	lab_wait_for test -S /run/dbus/system_bus_socket || lab_err "dbus-daemon --system did not start"
}
lab_dbus_stop() {
	local pid
	[ -s "$LAB_STATE/dbus.pid" ] && read -r pid <"$LAB_STATE/dbus.pid" || return 0
	kill -TERM "$pid" 2>/dev/null && lab_wait_for lab__gone "$pid"
	rm -f "$LAB_STATE/dbus.pid" /run/dbus/system_bus_socket
}
lab__gone() { ! kill -0 "$1" 2>/dev/null; }

# lab_tcmu_stop : SIGTERM the running tcmu-runner (pidof), wait until it is gone.
lab_tcmu_stop() {
	local pid
	for pid in $(pidof tcmu-runner); do
		kill -TERM "$pid" 2>/dev/null
		LAB_WAIT=${LAB_WAIT:-10} lab_wait_for lab__gone "$pid" || { kill -KILL "$pid"; sleep 0.5; }
	done
	return 0
}

# lab_tcmu_start [--bus] : start tcmu-runner and wait until it is ready; print its pid.
#   Default: as the lab runs it (--handler-path of this boot, log in
#   $LAB_RUN_DIR/tcmu). --bus: as Debian's tcmu-runner.service runs it
#   (/usr/bin/tcmu-runner with no option, its handlers from the packaged
#   folder, log /var/log/tcmu-runner.log) on the system bus, ready once it owns
#   org.kernel.TCMUService1. run-tests re-reads the pid (pidof) before each test.
lab_tcmu_start() {
	local pid log n0
	if [ "${1:-}" = --bus ]; then
		log=/var/log/tcmu-runner.log
		/usr/bin/tcmu-runner >>"${LAB_RUN_DIR:-/tmp}/tcmu-runner-bus.out" 2>&1 &
		pid=$!
		LAB_WAIT=30 lab_wait_for lab__tcmu_on_bus || lab_err "tcmu-runner $pid does not own org.kernel.TCMUService1" || return 1
	else
		log=$LAB_RUN_DIR/tcmu/tcmu-runner.log
		n0=$(grep -c 'is registered' "$log" 2>/dev/null) || n0=0
		tcmu-runner --handler-path "$(cat "$LAB_RUN_DIR/handler-path")" -l "$LAB_RUN_DIR/tcmu" \
			>>"$LAB_RUN_DIR/tcmu/stdout.log" 2>&1 &
		pid=$!
		LAB_WAIT=30 lab_wait_for lab__log_grew "$log" 'is registered' "$n0" ||
			lab_err "tcmu-runner $pid registered no handler (see $log)" || return 1
	fi
	kill -0 "$pid" 2>/dev/null || lab_err "tcmu-runner exited at start (see $log)" || return 1
	echo "$pid"
}
lab__log_grew() { local n; n=$(grep -c "$2" "$1" 2>/dev/null) && [ "$n" -gt "$3" ]; }
lab__tcmu_on_bus() {
	dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner string:org.kernel.TCMUService1 2>/dev/null | grep -q 'boolean true'
}

# --- a second boot -----------------------------------------------------------------

# lab_next_boot SCRIPT : run SCRIPT (a lab test) in a new boot of the lab, after
#   this boot's tests (tests/lab/run boots again; run-tests runs it with the
#   others asked for). State for it goes to $LAB_RESULTS (the read-write share):
#   everything else is gone with this boot.
lab_next_boot() {
	local f=$LAB_RUN_DIR/next-boot
	[ -s "$f" ] || printf '%s\n' "$LAB_REPO/tests/lab/run-tests" >"$f"
	printf '%s\n' "$1" >>"$f"
}

# --- teardown -------------------------------------------------------------------

lab__rm_links() { local l; for l in "$@"; do [ -L "$l" ] && rm -f "$l"; done; return 0; }
lab__rmdirs() { local d; for d in "$@"; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done; return 0; }

# lab_teardown : remove every iSCSI and tcm_loop target, every backstore and
#   every store made by lab_xfs_store. Safe to call more than once.
lab_teardown() {
	local t tpg d rc=0
	for t in "$LAB_CFS"/iscsi/*/; do
		[ -d "$t" ] || continue
		case "$t" in */discovery_auth/) continue ;; esac
		for tpg in "$t"tpgt_*; do
			[ -d "$tpg" ] || continue
			echo 0 >"$tpg/enable" 2>/dev/null
			lab__rm_links "$tpg"/acls/*/lun_*/*
			lab__rmdirs "$tpg"/acls/*/lun_* "$tpg"/acls/*
			lab__rm_links "$tpg"/lun/lun_*/*
			lab__rmdirs "$tpg"/lun/lun_* "$tpg"/np/* "$tpg"
		done
		rmdir "$t" 2>/dev/null || { lab_msg "lab: teardown: cannot remove $t"; rc=1; }
	done
	for t in "$LAB_CFS"/loopback/naa.* "$LAB_CFS"/loopback/iqn.* "$LAB_CFS"/loopback/fc.*; do
		[ -d "$t" ] || continue
		for tpg in "$t"/tpgt_*; do
			lab__rm_links "$tpg"/lun/lun_*/*
			lab__rmdirs "$tpg"/lun/lun_*
			echo NULL >"$tpg/nexus" 2>/dev/null
			lab__rmdirs "$tpg"
		done
		rmdir "$t" 2>/dev/null || { lab_msg "lab: teardown: cannot remove $t"; rc=1; }
	done
	for d in "$LAB_CFS"/core/*_*/*/; do
		[ -d "$d" ] || continue
		[ -e "$d/enable" ] || continue
		rmdir "$d" 2>/dev/null || { lab_msg "lab: teardown: cannot remove $d"; rc=1; }
	done
	lab__rmdirs "$LAB_CFS"/core/*_*
	if [ -f "$LAB_STATE/stores/list" ]; then
		while IFS=$'\t' read -r d dev img; do
			[ "$d" = - ] || umount "$d" 2>/dev/null || { lab_msg "lab: teardown: cannot unmount $d"; rc=1; }
			losetup -d "$dev" 2>/dev/null
			rm -f "$img"
		done <"$LAB_STATE/stores/list"
		rm -f "$LAB_STATE/stores/list"
	fi
	return $rc
}

# --- test reporting -------------------------------------------------------------

lab_pass() { LAB_TESTS_PASSED=$((LAB_TESTS_PASSED + 1)); printf 'PASS: %s\n' "$*"; }
lab_fail() { LAB_TESTS_FAILED=$((LAB_TESTS_FAILED + 1)); printf 'FAIL: %s\n' "$*"; }

# lab_check DESCRIPTION CMD... : run CMD, PASS if it exits 0. CMD's output
#   is shown (indented) only when the check fails, or always with LAB_VERBOSE=1.
lab_check() {
	local desc=$1 rc=0 out
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -eq 0 ]; then lab_pass "$desc"; else lab_fail "$desc (exit $rc: $*)"; fi
	if [ -n "$out" ] && { [ "$rc" -ne 0 ] || [ "${LAB_VERBOSE:-0}" = 1 ]; }; then
		printf '%s\n' "$out" | sed 's/^/    | /'
	fi
	return 0
}

# lab_check_fails DESCRIPTION CMD... : PASS if CMD exits non-zero.
lab_check_fails() {
	local desc=$1 rc=0 out
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ]; then lab_pass "$desc"; else lab_fail "$desc (succeeded: $*)"; fi
	if [ -n "$out" ] && { [ "$rc" -eq 0 ] || [ "${LAB_VERBOSE:-0}" = 1 ]; }; then
		printf '%s\n' "$out" | sed 's/^/    | /'
	fi
	return 0
}

# lab_summary : print the counts; returns 1 if anything failed.
lab_summary() {
	printf 'SUMMARY: %d passed, %d failed\n' "$LAB_TESTS_PASSED" "$LAB_TESTS_FAILED"
	[ "$LAB_TESTS_FAILED" -eq 0 ]
}
