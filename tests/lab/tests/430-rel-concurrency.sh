#!/bin/bash
# Two iSCSI sessions (two initiator names) issue EXTENDED COPY and WRITE to
# the same two user:xcopy LUs (A = LUN 0, B = LUN 1, demo-mode TPG) at once:
#   s1: EXTENDED COPY A[0,16M) -> B[0,16M), three times (xcp --require-offload)
#   s2: WRITEs A[48M,52M) -> B[8M,12M) (xcp --no-offload: READ/WRITE(16)),
#       overlapping s1's destination
#   s2: EXTENDED COPY B[40M,48M) -> B[24M,32M) (inside B, not overlapping)
#   s1: WRITEs A[32M,36M) -> B[36M,40M) (not overlapping)
# Asserted: every process ends by itself (no hang, 120 s bound) with exit 0,
# tcmu-runner stays up; B[8M,12M) holds, block by block, either the copy's
# or the WRITEs' data; every other written range holds exactly its data;
# every byte nobody wrote (rest of B, all of A) is unchanged.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-430
XCP=$LAB_BUILD/host/xcp
MB=1048576
S1=iqn.1994-05.org.example:rel430-s1
S2=iqn.1994-05.org.example:rel430-s2
IQN=iqn.2003-01.org.linux-iscsi.lab:rel430
mkdir -p "$W"
lab_random "$W/a.img" $((64 * MB))
lab_random "$W/b.img" $((64 * MB))
cp "$W/a.img" "$W/a.orig"
cp "$W/b.img" "$W/b.orig"
a=$(lab_user_create ca xcopy "$W/a.img" 64M)
b=$(lab_user_create cb xcopy "$W/b.img" 64M)
url=$(lab_iscsi_export "$IQN" "$a" "$b")
lab_check "two user:xcopy LUs behind $url (demo mode)" iscsi-inq "$url/1"

# job NAME INITIATOR XCP-ARGS... : one xcp process (its own iSCSI sessions), bounded
job() {
	local name=$1 init=$2
	shift 2
	XCOPY_INITIATOR_IQN=$init timeout -k 5 120 "$XCP" --stats "$@" \
		>"$W/$name.out" 2>"$W/$name.err"
	echo $? >"$W/$name.rc"
}
blk() { echo $(($1 * MB / 512)); }   # MiB -> 512-byte blocks

( for r in 1 2 3; do
	job "s1-xcopy-$r" "$S1" --require-offload --src-lba 0 --dst-lba 0 --blocks "$(blk 16)" \
		"$url/0" "$url/1"
done ) &
p1=$!
job s2-write-overlap "$S2" --no-offload --src-lba "$(blk 48)" --dst-lba "$(blk 8)" \
	--blocks "$(blk 4)" "$url/0" "$url/1" &
p2=$!
job s2-xcopy-in-b "$S2" --require-offload --src-lba "$(blk 40)" --dst-lba "$(blk 24)" \
	--blocks "$(blk 8)" "$url/1" "$url/1" &
p3=$!
job s1-write "$S1" --no-offload --src-lba "$(blk 32)" --dst-lba "$(blk 36)" \
	--blocks "$(blk 4)" "$url/0" "$url/1" &
p4=$!
wait "$p1" "$p2" "$p3" "$p4" || true

for n in s1-xcopy-1 s1-xcopy-2 s1-xcopy-3 s2-write-overlap s2-xcopy-in-b s1-write; do
	rc=$(cat "$W/$n.rc" 2>/dev/null || echo none)
	lab_check "$n: exit 0, not timed out (rc $rc)" test "$rc" = 0 ||
		sed 's/^/    | /' "$W/$n.err" | tail -3
done
lab_check "s1 EXTENDED COPY offloaded every byte" \
	grep -q '^bytes offloaded: *16777216$' "$W/s1-xcopy-3.out"
lab_check "s2-write sent no EXTENDED COPY" grep -q '^xcopy commands: *0 ' "$W/s2-write-overlap.out"
lab_check "tcmu-runner alive" pgrep -x tcmu-runner
lab_check "kernel reported no hung task" bash -c "! dmesg | grep -qE 'blocked for more than|hung_task'"

# expected B, from the snapshots: written ranges replaced
python3 - "$W" <<'EOF' >"$W/verify.txt" 2>&1 && v=0 || v=1
import sys
w = sys.argv[1]
MB = 1 << 20
a = open(w + "/a.orig", "rb").read()
b0 = open(w + "/b.orig", "rb").read()
b = open(w + "/b.img", "rb").read()
ok = True
def region(name, lo, hi, want):
    global ok
    good = b[lo:hi] == want
    ok &= good
    print("%-44s %s" % (name, "ok" if good else "DIFFERS"))
region("B[0,8M) = A[0,8M) (xcopy)", 0, 8 * MB, a[0:8 * MB])
region("B[12M,16M) = A[12M,16M) (xcopy)", 12 * MB, 16 * MB, a[12 * MB:16 * MB])
region("B[16M,24M) unchanged", 16 * MB, 24 * MB, b0[16 * MB:24 * MB])
region("B[24M,32M) = old B[40M,48M) (xcopy in B)", 24 * MB, 32 * MB, b0[40 * MB:48 * MB])
region("B[32M,36M) unchanged", 32 * MB, 36 * MB, b0[32 * MB:36 * MB])
region("B[36M,40M) = A[32M,36M) (WRITE)", 36 * MB, 40 * MB, a[32 * MB:36 * MB])
region("B[40M,64M) unchanged", 40 * MB, 64 * MB, b0[40 * MB:64 * MB])
cp = wr = bad = 0
for off in range(8 * MB, 12 * MB, 512):
    blk = b[off:off + 512]
    if blk == a[off:off + 512]:
        cp += 1
    elif blk == a[off + 40 * MB:off + 40 * MB + 512]:
        wr += 1
    else:
        bad += 1
print("B[8M,12M) blocks: %d from the copy, %d from the WRITEs, %d neither" % (cp, wr, bad))
ok &= bad == 0
a_now = open(w + "/a.img", "rb").read()
print("A unchanged", "ok" if a_now == a else "DIFFERS")
ok &= a_now == a
sys.exit(0 if ok else 1)
EOF
sed 's/^/    /' "$W/verify.txt"
lab_check "data: every range as expected, B[8M,12M) block-wise copy-or-WRITE, the rest unchanged" \
	test "$v" -eq 0
lab_summary
