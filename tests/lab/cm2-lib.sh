# shellcheck shell=bash
# tests/lab/cm2-lib.sh: a second tcmu-runner in the lab guest, with a copy
# manager of its own (handler_xcopy.so under XCOPY_SUBTYPE=$CM2_SUBTYPE: its
# own process, ROD token table, peer map and stats folder), beside the
# lab's runner (subtype xcopy). Source lib.sh (and target-lib.sh) first.
#
#   cm2_start                      start it; sets $CM2_PID (call it directly,
#                                  not in $(...)) and prints it
#   cm2_lu_create NAME SUBTYPE FILE SIZE [SERIAL]
#                                  a user:SUBTYPE LU on FILE for either runner
#                                  (xcopy: the lab's, $CM2_SUBTYPE: the second);
#                                  prints its configfs path (SO)
#   cm2_lu_remove SO               unexport and remove it, wait for its runner
#                                  to close it
#   cm2_iscsi_export IQN SO INITIATOR...
#                                  SO as LUN 0 of a new iSCSI target IQN on
#                                  127.0.0.1:3260, an ACL per INITIATOR; prints
#                                  iscsi://127.0.0.1/IQN
#   cm2_teardown                   every target and backstore (lab_teardown),
#                                  then the second runner (cm2_stop); safe after
#                                  a failure and more than once (trap EXIT)
#   cm2_pid SUBTYPE / cm2_log SUBTYPE   the pid / log file of the runner of SUBTYPE
#
# Why it is done so (sources: tcmu-runner 1.5.4 main.c and libtcmu.c, Linux
# 6.1 drivers/target/target_core_user.c):
# - tcmu-runner takes an fcntl lock on /run/tcmu.lock and exits "already
#   running" when another runner holds it: the second one runs in its own
#   mount namespace with a tmpfs on /run (unshare -m), which also hides the
#   system bus socket, so it never owns org.kernel.TCMUService1; its LUs are
#   made here through configfs, not through targetcli.
# - It loads handler_xcopy.so only (a folder of its own with one symlink):
#   libtcmu gives a device to the first handler whose subtype begins with the
#   one the cfgstring names (find_handler), so no handler of one runner may
#   share a subtype with the other's.
# - The kernel multicasts every TCMU device's ADDED/REMOVED/RECONFIG netlink
#   event to every listener, and when the device waits for an answer
#   (nl_reply_supported > 0, taken at enable from what the last runner's
#   SET_FEATURES said: 1 for 1.5.4) the first answer decides. A runner with
#   no handler for the subtype answers ADDED with -ENOENT at once, before the
#   owner has opened the device, so the enable fails (ENOENT). Measured in
#   the lab (6 of 6 runner-1 LUs, lab_user_create with the second runner up):
#   and worse, the kernel then frees the ring the owner has already mapped,
#   and the owner dies in a kernel oops (NULL dereference in 6.1's
#   tcmu_vma_fault). Every TCMU LU made while both run, of either runner, gets
#   nl_reply_supported=-1 (control, before enable): the kernel does not wait,
#   and cm2_lu_create waits instead for the owner's "opened" log line (a LU
#   whose open fails is named there, and the helper fails after
#   CM2_WAIT s). Removal answers are 0 from both runners; cm2_lu_remove waits
#   until the owner has no descriptor of the uio device left. Expected noise,
#   harmless (the runners keep serving, lab 659): the kernel unregisters the
#   uio device before the owner handles REMOVED, so the owner logs "ppoll
#   received unexpected revent: 0x19" and "unexpected join retval", the other
#   runner "Could not remove device uioN: not found" (and "could not find
#   handler" at each add), and the kernel "tcmu nl cmd N/0 completion could
#   not find device" for each answer it no longer waits for.
# - At start a runner sets the module's block_netlink, resets pending netlink
#   commands and unblocks: start the second runner when no LU is being made.

CM2_SUBTYPE=${CM2_SUBTYPE:-cm2}
CM2_DIR=${CM2_DIR:-/tmp/lab-cm2}
CM2_PEERS=${CM2_PEERS:-$CM2_DIR/peers.conf}
CM2_STATS=${CM2_STATS:-$CM2_DIR/stats}
CM2_LOGDIR=$CM2_DIR/log
CM2_WAIT=${CM2_WAIT:-20}
CM2_PID=${CM2_PID:-}
CM2_NL_PARAM=/sys/module/target_core_user/parameters/block_netlink

cm2__err() { lab_err "cm2: $*"; }

# cm2_log SUBTYPE : the log file of the runner serving SUBTYPE
cm2_log() {
	if [ "$1" = "$CM2_SUBTYPE" ]; then echo "$CM2_LOGDIR/tcmu-runner.log"; else echo "$LAB_RUN_DIR/tcmu/tcmu-runner.log"; fi
}

# cm2_pid SUBTYPE : the pid of the runner serving SUBTYPE (the lab's: the
#   tcmu-runner that is not the second one)
cm2_pid() {
	local p
	if [ "$1" = "$CM2_SUBTYPE" ]; then echo "$CM2_PID"; return; fi
	for p in $(pidof tcmu-runner); do
		[ "$p" = "$CM2_PID" ] || { echo "$p"; return; }
	done
}

cm2__unblocked() { local s; read -r s <"$CM2_NL_PARAM" && [ "$s" = unblocked ]; }

# cm2_start : the second runner (XCOPY_SUBTYPE=$CM2_SUBTYPE, XCOPY_PEERS=$CM2_PEERS,
#   XCOPY_STATS_DIR=$CM2_STATS, log in $CM2_DIR/log; the plugin $CM2_HANDLER,
#   default this build's), ready once its handler is registered and netlink
#   is unblocked again. Sets CM2_PID, prints it.
cm2_start() {
	local hdir=$CM2_DIR/handlers so=${CM2_HANDLER:-$LAB_BUILD/target/handlers/handler_xcopy.so} log
	[ -z "$CM2_PID" ] || ! kill -0 "$CM2_PID" 2>/dev/null || { echo "$CM2_PID"; return 0; }
	[ -f "$so" ] || cm2__err "no $so (make build-all)" || return 1
	mkdir -p "$hdir" "$CM2_STATS" "$CM2_LOGDIR" || return 1
	ln -sf "$so" "$hdir/handler_xcopy.so"
	log=$CM2_LOGDIR/tcmu-runner.log
	# the private /run: tcmu.lock, no system bus, the runner's own /run/xcopy
	# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
	XCOPY_SUBTYPE=$CM2_SUBTYPE XCOPY_PEERS=$CM2_PEERS XCOPY_STATS_DIR=$CM2_STATS \
		unshare -m --propagation private sh -c \
		'mount -t tmpfs -o mode=0755 tmpfs /run && exec tcmu-runner --handler-path "$1" -l "$2"' \
		cm2 "$hdir" "$CM2_LOGDIR" >>"$CM2_LOGDIR/stdout.log" 2>&1 &
	CM2_PID=$!
	LAB_WAIT=$CM2_WAIT lab_wait_for grep -q "Handler $CM2_SUBTYPE is registered" "$log" &&
		LAB_WAIT=$CM2_WAIT lab_wait_for cm2__unblocked ||
		cm2__err "runner $CM2_PID not ready (see $log, $CM2_LOGDIR/stdout.log)" || return 1
	kill -0 "$CM2_PID" 2>/dev/null || cm2__err "runner exited at start (see $log)" || return 1
	echo "$CM2_PID"
}

# cm2_stop : SIGTERM the second runner (by its pid), SIGKILL after 10 s.
cm2_stop() {
	[ -n "$CM2_PID" ] || return 0
	if kill -TERM "$CM2_PID" 2>/dev/null; then
		LAB_WAIT=10 lab_wait_for lab__gone "$CM2_PID" || { kill -KILL "$CM2_PID" 2>/dev/null; sleep 0.5; }
	fi
	CM2_PID=
}

# cm2__opened SUBTYPE NAME : lines of the runner's log saying LU NAME opened
cm2__opened() { grep -c "opened (.*, LU $2, " "$(cm2_log "$1")" 2>/dev/null || true; }
cm2__opened_more() { [ "$(cm2__opened "$1" "$2")" -gt "$3" ]; }

# cm2_lu_create NAME SUBTYPE FILE SIZE [SERIAL] : a TCMU LU user:SUBTYPE on FILE
#   (made sparse at SIZE if missing), $LAB_USER_CONTROL settings,
#   nl_reply_supported=-1, unit serial (uuid or SERIAL), enabled; returns once
#   its runner logged it opened. Prints the configfs path.
cm2_lu_create() {
	local name=$1 sub=$2 file=$3 size serial=${5:-} so n0
	size=$(lab_size_bytes "$4")
	[ -e "$file" ] || truncate -s "$size" "$file" || return 1
	n0=$(cm2__opened "$sub" "$name")
	so=$LAB_CFS/core/user_$(lab__next_hba)/$name
	mkdir -p "$so" || return 1
	echo "dev_config=$sub/$file,dev_size=$size" >"$so/control" || return 1
	[ -z "$LAB_USER_CONTROL" ] || echo "$LAB_USER_CONTROL" >"$so/control" || return 1
	echo "nl_reply_supported=-1" >"$so/control" || return 1
	lab__set_serial "$so" "$serial" || return 1
	echo 1 >"$so/enable" || cm2__err "cannot enable user:$sub $name" || return 1
	LAB_WAIT=$CM2_WAIT lab_wait_for cm2__opened_more "$sub" "$name" "$n0" ||
		cm2__err "user:$sub $name not opened by its runner in $CM2_WAIT s (see $(cm2_log "$sub"))" || return 1
	echo "$so"
}

# cm2__uio SO : "uioN SUBTYPE" of the TCMU LU SO (/sys/class/uio/uioN/name is
#   tcm-user/HBA/NAME/SUBTYPE/CFGSTRING)
cm2__uio() {
	local f name hba n rest
	name=${1##*/}
	hba=${1%/*}
	hba=${hba##*/user_}
	for f in /sys/class/uio/uio*/name; do
		read -r n <"$f" 2>/dev/null || continue
		case "$n" in "tcm-user/$hba/$name/"*)
			rest=${n#"tcm-user/$hba/$name/"}
			f=${f%/name}
			echo "${f##*/} ${rest%%/*}"
			return 0 ;;
		esac
	done
	return 1
}
# cm2__holds PID UIO : PID has a descriptor of /dev/UIO (or of its deleted node)
cm2__holds() {
	[ -n "$(find "/proc/$1/fd" \( -lname "/dev/$2" -o -lname "/dev/$2 (deleted)" \) -print -quit 2>/dev/null)" ]
}
cm2__released() { ! cm2__holds "$1" "$2"; }

# cm2_lu_remove SO : SO's LUNs (tcm_loop, iSCSI, ACL mappings) unlinked, SO
#   removed; waits until its runner holds no descriptor of its uio device.
cm2_lu_remove() {
	local so=$1 uio='' sub='' pid='' l real
	[ -d "$so" ] || return 0
	read -r uio sub <<<"$(cm2__uio "$so")" || true
	[ -z "$sub" ] || pid=$(cm2_pid "$sub")
	real=$(readlink -f "$so")
	for l in "$LAB_CFS"/iscsi/*/tpgt_*/lun/lun_*/* "$LAB_CFS"/loopback/*/tpgt_*/lun/lun_*/*; do
		if [ -L "$l" ] && [ "$(readlink -f "$l")" = "$real" ]; then
			cm2__unmap_acls "${l%/*}"
			rm -f "$l" && rmdir "${l%/*}" || return 1
		fi
	done
	rmdir "$so" || cm2__err "cannot remove $so" || return 1
	[ -n "$uio" ] && [ -n "$pid" ] || return 0
	LAB_WAIT=$CM2_WAIT lab_wait_for cm2__released "$pid" "$uio" ||
		cm2__err "runner $pid still holds /dev/$uio of ${so##*/} after $CM2_WAIT s" || return 1
}
# cm2__unmap_acls LUN_DIR : remove the ACL mapped LUNs pointing at LUN_DIR
cm2__unmap_acls() {
	local lun=$1 tpg m
	tpg=${lun%/lun/*}
	for m in "$tpg"/acls/*/lun_*/lun; do
		if [ -L "$m" ] && [ "$(readlink -f "$m")" = "$(readlink -f "$lun")" ]; then
			rm -f "$m" && rmdir "${m%/lun}"
		fi
	done
	return 0
}

# cm2_iscsi_export IQN SO INITIATOR... : SO as LUN 0 of a new iSCSI target IQN
#   (127.0.0.1:3260, no authentication), only the INITIATORs admitted (one ACL
#   each). Prints iscsi://127.0.0.1/IQN.
cm2_iscsi_export() {
	local iqn=$1 so=$2 a acl=()
	shift 2
	[ $# -gt 0 ] || cm2__err "cm2_iscsi_export $iqn: no initiator named" || return 1
	for a in "$@"; do acl+=(--acl "$a"); done
	lab_iscsi_export "${acl[@]}" "$iqn" "$so"
}

# cm2_teardown : every iSCSI/tcm_loop target and backstore (both runners'),
#   then the second runner. For trap EXIT: never fails.
cm2_teardown() {
	lab_teardown >/dev/null 2>&1 || lab_teardown || true
	cm2_stop
	return 0
}
