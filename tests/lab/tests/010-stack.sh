#!/bin/bash
# The lab's stack works: LIO fileio behind tcm_loop (sg_inq, VPD 0x83 NAA),
# iSCSI login in demo mode and with explicit ACLs, and user: LUs opened by
# tcmu-runner (Debian's zbc and qcow handlers).
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lab_require_guest

W=/tmp/lab-010
mkdir -p "$W"

# --- fileio behind tcm_loop -------------------------------------------------
so=$(lab_fileio_create f0 "$W/f0.img" 64M)
lab_check "fileio backstore f0 enabled" grep -qx 1 "$so/enable"
nodes=$(lab_loop_export "$so") || true
read -r sd sg <<<"${nodes:-x x}"
lab_check "tcm_loop LUN has a block node ($sd)" test -b "$sd"
lab_check "tcm_loop LUN has an sg node ($sg)" test -c "$sg"
lab_check "sg_inq $sg" sg_inq "$sg"
lab_check "sg_inq reports LIO-ORG" sh -c "sg_inq '$sg' | grep -q 'LIO-ORG'"
lab_check "VPD 0x83 has an NAA designator (unit serial set)" \
	sh -c "sg_vpd --page=di '$sg' | grep -qi 'NAA'"
lab_check "lab_sg finds the same sg node" test "$(lab_sg "$so")" = "$sg"
lab_check "write+read through $sd" sh -c \
	"printf 'lab-010' | dd of='$sd' bs=512 count=1 conv=sync,fsync status=none &&
	 dd if='$sd' bs=512 count=1 iflag=direct status=none | grep -q lab-010"

# --- iSCSI, demo mode ---------------------------------------------------------
IQN=iqn.2003-01.org.linux-iscsi.lab:t010
so2=$(lab_fileio_create f1 "$W/f1.img" 64M)
url=$(lab_iscsi_export "$IQN" "$so2") || true
lab_check "iSCSI portal listens on $LAB_PORTAL" test -d "$LAB_CFS/iscsi/$IQN/tpgt_1/np/$LAB_PORTAL"
lab_check "iscsi-inq $url/0 (demo mode)" iscsi-inq "$url/0"
lab_check "iscsi-ls sees $IQN" sh -c "iscsi-ls iscsi://127.0.0.1 | grep -q '$IQN'"

# --- iSCSI, explicit ACL --------------------------------------------------------
IQN2=iqn.2003-01.org.linux-iscsi.lab:t010acl
so3=$(lab_fileio_create f2 "$W/f2.img" 64M)
url2=$(lab_iscsi_export --acl "$LAB_LIBISCSI_IQN" "$IQN2" "$so3") || true
lab_check "iscsi-inq with the ACL'd initiator" iscsi-inq -i "$LAB_LIBISCSI_IQN" "$url2/0"
lab_check_fails "iscsi-inq with another initiator is refused" \
	iscsi-inq -i iqn.2003-01.org.example:intruder "$url2/0"

# --- user: LUs through tcmu-runner ----------------------------------------------
zso=$(lab_user_create z0 zbc "model-HA/zsize-16/conv-1@$W/zbc.img" 64M) || true
lab_check "user:zbc LU enabled (handler open succeeded)" test -n "$zso"
if [ -n "$zso" ]; then
	znodes=$(lab_loop_export "$zso") || true
	read -r zsd zsg <<<"${znodes:-x x}"
	lab_check "user:zbc LU has an sg node ($zsg)" test -c "$zsg"
	lab_check "sg_inq $zsg (user:zbc)" sg_inq "$zsg"
	lab_check "user:zbc backing file formatted by the handler" test -s "$W/zbc.img"
	lab_check "user:zbc block node ($zsd)" test -b "$zsd"
fi

qemu-img create -q -f qcow2 "$W/q0.qcow2" 64M
qso=$(lab_user_create q0 qcow "$W/q0.qcow2" 64M) || true
lab_check "user:qcow LU enabled (handler open succeeded)" test -n "$qso"
if [ -n "$qso" ]; then
	qurl=$(lab_iscsi_export iqn.2003-01.org.linux-iscsi.lab:t010qcow "$qso") || true
	lab_check "iscsi-inq on user:qcow over iSCSI" iscsi-inq "$qurl/0"
	lab_check "a UIO device serves user:qcow q0" sh -c "grep -q '/q0/qcow/' /sys/class/uio/uio*/name"
fi

# --- reflink XFS store --------------------------------------------------------
store=$(lab_xfs_store "$W/xfs" 512M) || true
lab_check "XFS store mounted at $W/xfs" mountpoint -q "$W/xfs"
if mountpoint -q "$W/xfs"; then
	lab_random "$store/a" 4M
	lab_check "cp --reflink=always on the store" cp --reflink=always "$store/a" "$store/b"
	lab_check "reflinked copy is identical" cmp "$store/a" "$store/b"
	fso=$(lab_fileio_create fx "$store/lu.img" 64M) || true
	lab_check "fileio LU on the XFS store" test -n "$fso"
fi

lab_summary
