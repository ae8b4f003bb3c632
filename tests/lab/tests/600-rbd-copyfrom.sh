#!/bin/bash
# RBD foundations: a single-node Ceph (tests/lab/ceph.sh: 1 mon,
# 1 memstore OSD, no auth) booted in the guest, its ready time printed; the
# RBD store's copy (build/tests/xt-rbd, target/store/rbd/rbd_*.c) between images:
# whole objects by RADOS copy-from (gateway bytes 0), holes zeroed, head and
# tail through the gateway, unsafe cases falling back with their reason, all
# verified against a model, the image read through librbd as `rbd export`
# would (ceph_same, tests/lab/rbd-cmp.py); then the reference:
# tcmu-runner's own handler_rbd (Debian's, user:rbd) on an image, libiscsi's
# SCSI.ExtendedCopy + SCSI.ReceiveCopyResults over iSCSI (and the whole SCSI
# family with LAB_RBD_FULL=1), recorded in $LAB_RESULTS/reference/handler-rbd/.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
# shellcheck source=tests/lab/ceph.sh
. "$HERE/../ceph.sh"
lab_require_guest

W=/tmp/lab-600
XT=$LAB_BUILD/tests/xt-rbd
REF=$LAB_RESULTS/reference/handler-rbd
T0=$(date +%s.%N)
mkdir -p "$W" "$REF"
export CEPH_DIR=$W/ceph CEPH_POOL=rbd CEPH_MEM=2G

stamp() { awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $T0}"; }

cleanup() {
	lab_teardown >/dev/null 2>&1 || true  # handler_rbd closes its image first
	ceph_lab_done   # the shared cluster stays for the next test
	rm -rf "$W"
}
trap cleanup EXIT

ceph_lab_start "$W/ceph-start.log"
sed -n 's/^ceph: /    ceph: /p' "$W/ceph-start.log"
lab_check "single-node Ceph ready in ${CEPH_READY_SECS:-?} s (goal < 60 s under TCG)" \
	awk -v s="${CEPH_READY_SECS:-999}" 'BEGIN { exit !(s < 60) }'
C="@$CEPH_CONF"
M=$((1 << 20))

# rbd_model FILE OFF LEN SRCFILE SOFF: model of a copy, bytes
rbd_model() {
	dd if="$4" of="$1" bs=4096 iflag=skip_bytes,count_bytes oflag=seek_bytes \
		skip="$5" seek="$2" count="$3" conv=notrunc status=none
}
# same_as IMAGE FILE: IMAGE read through librbd (as rbd export) equals FILE
ceph_cmp_start
same_as() { ceph_same "$1" "$2"; }
# xcopy SRC SOFF DST DOFF LEN: run xt-rbd copy, its counters in ${X[key]}
declare -A X
xcopy() {
	local line kv
	X=()
	line=$("$XT" copy "xcopy/rbd/$1$C" "$2" "xcopy/rbd/$3$C" "$4" "$5" 2>"$W/xt.err") || {
		cat "$W/xt.err" >&2; return 1; }
	for kv in $line; do X[${kv%%=*}]=${kv#*=}; done
	X[unsafe]=${line#*unsafe=\'}
	X[unsafe]=${X[unsafe]%%\'*}
	echo "    xt-rbd copy $1 $2 -> $3 $4 ($5): $line"
}
# copy DESC SRC SOFF DST DOFF LEN: xcopy as a check (in this shell: X stays)
copy() {
	local desc=$1
	shift
	if xcopy "$@"; then lab_pass "$desc"; else lab_fail "$desc"; fi
}
expect() {  # expect DESC KEY VALUE
	if [ "${X[$2]:-}" = "$3" ]; then lab_pass "$1: $2 = $3"; else lab_fail "$1: $2 = ${X[$2]:-?}, want $3"; fi
}

# --- source: 64 MiB random, objects 5 and 6 zero (rbd import leaves them out)
lab_random "$W/src.bin" 64M
dd if=/dev/zero of="$W/src.bin" bs=4M seek=5 count=2 conv=notrunc status=none
lab_random "$W/old.bin" 64M
rbd import --no-progress "$W/src.bin" rbd/src >/dev/null
rbd import --no-progress "$W/old.bin" rbd/dst >/dev/null   # every object written
lab_check "source image has 14 of 16 objects (2 holes)" \
	test "$(rados -p rbd ls | grep -c "^$(rbd info rbd/src | sed -n 's/.*block_name_prefix: //p')\.")" = 14
echo "    setup done at $(stamp) s"

# 1. default features (exclusive-lock, object-map, fast-diff), 64 MiB aligned
t=$(date +%s.%N)
copy "copy 64 MiB src -> dst (object-map on both)" rbd/src 0 rbd/dst 0 64M
expect "64 MiB object-aligned" copyfrom_bytes $((56 * M))
expect "64 MiB object-aligned" hole_objects 2
expect "64 MiB object-aligned" gateway_bytes 0
expect "64 MiB object-aligned" fallbacks 0
lab_check "rbd export dst == source (holes read as zeros, old data gone)" same_as rbd/dst "$W/src.bin"
lab_check "object map of dst consistent (rbd object-map check)" rbd object-map check rbd/dst
# fast-diff answers from the object map: the 14 copied objects are in it
lab_check "rbd diff --whole-object dst lists the 14 copied objects" \
	test "$(rbd diff --whole-object rbd/dst | grep -c data)" = 14
# the reason for the marker writes: an object written behind librbd's back
# (rados put) is missing from the object map, so fast-diff does not see it
rbd create --size 8M rbd/raw
head -c 4096 /dev/urandom >"$W/4k.bin"
lab_check "control: an object put by rados into an object-map image is invisible to fast-diff" sh -c \
	"rados -p rbd put \"\$(rbd info rbd/raw | sed -n 's/.*block_name_prefix: //p').0000000000000000\" '$W/4k.bin' &&
	 test \"\$(rbd diff --whole-object rbd/raw | grep -c data)\" = 0"
rbd rm --no-progress rbd/raw >/dev/null 2>&1
echo "    64 MiB copy-from case: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t}") s"

# 2. unaligned head and tail around whole objects, same alignment: 4M+512 -> 20M+512, 12 MiB
cp "$W/src.bin" "$W/model.bin"
rbd_model "$W/model.bin" $((20 * M + 512)) $((12 * M)) "$W/src.bin" $((4 * M + 512))
copy "copy 12 MiB at +512 (head, 2 objects, tail)" rbd/src $((4 * M + 512)) rbd/dst $((20 * M + 512)) 12M
expect "head/objects/tail" copyfrom_bytes $((8 * M))
expect "head/objects/tail" gateway_bytes $((4 * M))
lab_check "rbd export dst == model (outside the range unchanged)" same_as rbd/dst "$W/model.bin"

# 3. different alignment: all through the gateway, reason named
rbd_model "$W/model.bin" $((2 * M)) $((6 * M)) "$W/src.bin" $((1 * M))
copy "copy 6 MiB 1M -> 2M" rbd/src $((1 * M)) rbd/dst $((2 * M)) 6M
expect "misaligned" gateway_bytes $((6 * M))
expect "misaligned" unsafe "offsets not object-aligned alike"
lab_check "rbd export dst == model" same_as rbd/dst "$W/model.bin"

# 4. overlapping ranges of one image (moving up by 2 objects)
cp "$W/model.bin" "$W/m2.bin"
rbd_model "$W/model.bin" $((8 * M)) $((40 * M)) "$W/m2.bin" 0
rm -f "$W/m2.bin"
copy "copy 40 MiB dst 0 -> dst 8M (overlapping)" rbd/dst 0 rbd/dst $((8 * M)) 40M
expect "overlap" gateway_bytes 0
lab_check "rbd export dst == model" same_as rbd/dst "$W/model.bin"
rbd rm --no-progress rbd/dst >/dev/null 2>&1

# 5. another pool; no object map; other object size; snapshot on the destination
ceph osd pool create rbd2 8 8 >/dev/null 2>&1 && rbd pool init rbd2
rbd create --size 64M --image-feature layering rbd2/plain
copy "copy 64 MiB to pool rbd2, features=layering" rbd/src 0 rbd2/plain 0 64M
expect "cross-pool" copyfrom_bytes $((56 * M))
expect "cross-pool" touch_bytes 0
lab_check "rbd export rbd2/plain == source" same_as rbd2/plain "$W/src.bin"
rbd rm --no-progress rbd2/plain >/dev/null 2>&1
# the two fallbacks below go through the gateway and are checked with whole
# exports: 16 and 32 MiB images (64 MiB until 2026-12-07: the reason and the
# data checks are the same at any size, each MiB costs librbd I/O under TCG)
head -c $((16 * M)) "$W/src.bin" >"$W/src16.bin"
rbd create --size 16M --object-size 1M rbd/small
copy "copy 16 MiB to an image of 1 MiB objects" rbd/src 0 rbd/small 0 16M
expect "object sizes" unsafe "different object sizes"
expect "object sizes" gateway_bytes $((16 * M))
lab_check "rbd export small == source" same_as rbd/small "$W/src16.bin"
rbd rm --no-progress rbd/small >/dev/null 2>&1
rm -f "$W/src16.bin"
head -c $((32 * M)) "$W/old.bin" >"$W/old32.bin"
rbd import --no-progress "$W/old32.bin" rbd/snapd >/dev/null
rbd snap create rbd/snapd@before >/dev/null 2>&1
copy "copy 16 MiB to an image with a snapshot" rbd/src 0 rbd/snapd 0 16M
expect "snapshot" unsafe "destination has snapshots"
cp "$W/old32.bin" "$W/model.bin"
rbd_model "$W/model.bin" 0 $((16 * M)) "$W/src.bin" 0
lab_check "rbd export snapd == model" same_as rbd/snapd "$W/model.bin"
lab_check "rbd export snapd@before == old data (snapshot intact)" same_as rbd/snapd@before "$W/old32.bin"
rbd snap purge rbd/snapd >/dev/null 2>&1
rbd rm --no-progress rbd/snapd >/dev/null 2>&1
rm -f "$W/model.bin" "$W/old.bin" "$W/old32.bin"

# 6. refusals
lab_check_fails "a range past the image end is refused" "$XT" copy "xcopy/rbd/rbd/src$C" 0 "xcopy/rbd/rbd/src$C" 4M 64M
lab_check "a missing image is named" sh -c "'$XT' info 'xcopy/rbd/rbd/nosuch$C' 2>&1 | grep -q 'no such image'"
lab_check "a missing pool is named" sh -c "'$XT' info 'xcopy/rbd/nopool/x$C' 2>&1 | grep -q 'no such pool'"
echo "    copy cases done at $(stamp) s"

# --- the reference: tcmu-runner's handler_rbd (user:rbd) on an image --------
rbd create --size 128M rbd/base
rm -f "$REF"/*.txt "$REF/summary.tsv"
{
	printf '# date\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf '# boot\t%s\n' "$(cat /proc/sys/kernel/random/boot_id)"   # 610 compares in the same boot
	printf '# tcmu-runner\t%s\n' "$(dpkg-query -W -f='${Version}' tcmu-runner)"
	printf '# ceph\t%s\n' "$(dpkg-query -W -f='${Version}' ceph-osd)"
	printf '# target\tuser:rbd (Debian handler_rbd.so) on rbd/base 128 MiB, 1 memstore OSD\n'
	printf 'transport\tsuite\ttotal\tran\tpassed\tfailed\tseconds\n'
} >"$REF/summary.tsv"
if so=$(lab_user_create base rbd "rbd/base;conf=$CEPH_CONF" 128M); then
	lab_pass "handler_rbd LU on rbd/base opened"
	url=$(lab_iscsi_export iqn.2003-01.org.linux-iscsi.lab:rbd600 "$so")
	suites="SCSI.ExtendedCopy SCSI.ReceiveCopyResults"
	[ "${LAB_RBD_FULL:-0}" = 1 ] && suites="$suites SCSI"
	for s in $suites; do
		if r=$(xt_run_suite "$REF" iscsi "$s" "$url/0" 2>"$W/failed.txt"); then
			read -r total _ passed failed secs <<<"$r"
			lab_pass "handler_rbd $s over iSCSI ran: $passed/$total passed, $failed failed ($secs s, recorded)"
			sed 's/^/  /' "$W/failed.txt"
		else
			lab_fail "handler_rbd $s over iSCSI ran"
		fi
	done
	# an image another client (tcmu-runner) has open: never copied behind its back
	copy "copy 8 MiB into the image handler_rbd has open" rbd/src 0 rbd/base 0 8M
	case "${X[unsafe]:-}" in
	"image open by another client" | "exclusive lock held elsewhere")
		lab_pass "falls back: ${X[unsafe]}" ;;
	*) lab_fail "falls back when another client has the image open (unsafe='${X[unsafe]:-}')" ;;
	esac
	expect "foreign client" copyfrom_bytes 0
else
	lab_fail "handler_rbd LU on rbd/base opened (see tcmu-runner.log)"
fi
grep -v '^#' "$REF/summary.tsv" | { column -t -s $'\t' 2>/dev/null || cat; }
echo "    600 done at $(stamp) s"
lab_summary
