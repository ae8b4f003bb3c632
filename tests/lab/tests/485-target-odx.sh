#!/bin/bash
# ODX (POPULATE TOKEN / WRITE USING TOKEN / RRTI) on the real stack, raw SG_IO
# through tcm_loop (xcbench pt/wut/winpat, tests/tools/xcbench_odx.c):
#  1. the Windows pattern on a reflink XFS store: PT of 64 ranges (1.25 MiB
#     each, 0.25 MiB apart), RRTI (completed, PT's SA, blocks, 0 segments, a
#     token), WUTs of 64 MiB stepping BLOCK OFFSET INTO TOKEN (DEL_TKN on the
#     last), RRTI after each; the 80 MiB compared byte for byte with the 64
#     source ranges; the WUTs cloned their bytes; each WUT under 4 s;
#  2. point in time (reflink): PT, overwrite the source through the LU, WUT
#     writes the old data; the token's ROD type is 00800000h;
#  3. change vulnerable (tmpfs, no reflink): ROD type 00800001h; a WRITE into
#     the token's range before WUT: 23/08 TOKEN CANCELLED, destination unchanged;
#  4. expiry: a token with a 1 s inactivity timeout, unused for 2 s: 23/07;
#  5. forged: a random byte changed 23/05, the identifier changed 23/04, the
#     genuine token still works;
#  6. cross-LU: a token of T used by WUT on C, both in one tcm_loop TPG: GOOD,
#     data compared; C also exported by an iSCSI demo TPG without T (an
#     initiator there cannot see T): 23/00, C unchanged.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-485
XCB=$LAB_BUILD/bench/xcbench
MB=1048576
mkdir -p "$W"
lab_check "xcbench built ($XCB)" test -x "$XCB"
X=$(lab_xfs_store "$W/xfs" 600M)
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
sense() { local l; l=$(head -1 <<<"$1"); echo "$(field key <<<"$l") $(field asc <<<"$l")"; }
range() { dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none | md5sum; }
rodtype() { od -An -tx1 -N4 "$1" | tr -d ' \n'; }

# --- 1. the Windows pattern on a reflink store -------------------------------
"$XCB" fill "$X/r.img" 0 $((96 * MB)) 485 >/dev/null
truncate -s 176M "$X/r.img"
r=$(lab_user_create odx_r xcopy "$X/r.img" 176M)
read -r rsd rsg <<<"$(lab_loop_export "$r")"
c0=$(xt_stat odx_r clone_bytes)
out=$("$XCB" winpat "$rsg" "$rsg" 0 $((96 * MB / 512)) $((80 * MB / 512)) 64 512 || true)
lab_msg "$out"
sum=$(tail -1 <<<"$out")
lab_check "Windows pattern: PT of 64 ranges + RRTI, 2 WUTs of <= 64 MiB + RRTI, all as Windows checks" \
	test "$(field ok <<<"$sum") $(field wuts <<<"$sum")" = "1 2"
bad=0
for ((i = 0; i < 64; i++)); do
	"$XCB" verify "$X/r.img" $((i * 1536 * 1024)) "$X/r.img" $((96 * MB + i * 1280 * 1024)) \
		$((1280 * 1024)) >/dev/null 2>&1 || bad=$((bad + 1))
done
lab_check "the 80 MiB written = the 64 source ranges, byte for byte ($bad differ)" test "$bad" = 0
lab_check "the WUTs cloned their 80 MiB (reflink): $(($(xt_stat odx_r clone_bytes) - c0)) bytes" \
	test $(($(xt_stat odx_r clone_bytes) - c0)) -ge $((80 * MB))
lab_check "each WUT finished in < 4 s (Windows' offload write budget): $(field max_wut_ms <<<"$sum") ms" \
	test "$(field max_wut_ms <<<"$sum")" -lt 4000
echo "485 winpat $sum" >"$LAB_RESULTS/485-odx.txt"

# --- 2. point in time on the reflink store ---------------------------------
old=$(range "$X/r.img" 0 $MB)
out=$("$XCB" pt "$rsg" 0x10 0 "$W/pit.tok" 0:2048 || true)
lab_check "PT on the reflink store: GOOD, token (${out//$'\n'/; })" test -s "$W/pit.tok"
lab_check "... ROD type 00800000h (point in time, default)" test "$(rodtype "$W/pit.tok")" = 00800000
lab_random "$W/new" $MB
dd if="$W/new" of="$rsd" bs=1M count=1 oflag=direct conv=notrunc status=none
lab_check "the source was overwritten through the LU" test "$(range "$X/r.img" 0 $MB)" != "$old"
out=$("$XCB" wut "$rsg" 0x11 "$W/pit.tok" 0 1 $((100 * MB / 512)):2048 || true)
lab_check "WUT after the overwrite: GOOD (${out//$'\n'/; })" test "$(sense "$out")" = "0 0"
lab_check "... it wrote the data as of PT, not the new data" \
	test "$(range "$X/r.img" $((100 * MB)) $MB)" = "$old"

# --- 3. change vulnerable tokens (tmpfs) --------------------------------------
"$XCB" fill "$W/t.img" 0 $((16 * MB)) 7 >/dev/null
"$XCB" fill "$W/c.img" 0 $((16 * MB)) 8 >/dev/null
t=$(lab_user_create odx_t xcopy "$W/t.img" 16M)
c=$(lab_user_create odx_c xcopy "$W/c.img" 16M)
lab_loop_export "$t" "$c" >/dev/null
tsd=$(lab_sd "$t"); tsg=$(lab_sg "$t"); csg=$(lab_sg "$c")
"$XCB" pt "$tsg" 0x20 0 "$W/v.tok" 0:2048 >/dev/null || true
lab_check "PT without reflink: ROD type 00800001h (change vulnerable)" \
	test "$(rodtype "$W/v.tok")" = 00800001
dd if="$W/new" of="$tsd" bs=4096 seek=16 count=1 oflag=direct conv=notrunc status=none
before=$(range "$W/t.img" $((8 * MB)) $MB)
out=$("$XCB" wut "$tsg" 0x21 "$W/v.tok" 0 0 $((8 * MB / 512)):2048 || true)
lab_check "a WRITE inside the token's range, then WUT: ILLEGAL REQUEST 23/08 TOKEN CANCELLED" \
	test "$(sense "$out")" = "0x05 0x2308"
lab_check "... destination unchanged" test "$(range "$W/t.img" $((8 * MB)) $MB)" = "$before"

# --- 4. expiry --------------------------------------------------------------
"$XCB" pt "$tsg" 0x30 1 "$W/e.tok" 4096:64 >/dev/null || true
sleep 2
out=$("$XCB" wut "$tsg" 0x31 "$W/e.tok" 0 0 $((9 * MB / 512)):64 || true)
lab_check "a 1 s token unused for 2 s: ILLEGAL REQUEST 23/07 TOKEN EXPIRED" \
	test "$(sense "$out")" = "0x05 0x2307"

# --- 5. forged tokens -------------------------------------------------------
"$XCB" pt "$tsg" 0x40 0 "$W/g.tok" 6144:64 >/dev/null || true
cp "$W/g.tok" "$W/f1.tok"
printf '\x5a' | dd of="$W/f1.tok" bs=1 seek=300 conv=notrunc status=none
out=$("$XCB" wut "$tsg" 0x41 "$W/f1.tok" 0 0 $((10 * MB / 512)):64 || true)
lab_check "a random byte of the token changed: 23/05 TOKEN CORRUPT" test "$(sense "$out")" = "0x05 0x2305"
cp "$W/g.tok" "$W/f2.tok"
printf '\xa5' | dd of="$W/f2.tok" bs=1 seek=15 conv=notrunc status=none
out=$("$XCB" wut "$tsg" 0x42 "$W/f2.tok" 0 0 $((10 * MB / 512)):64 || true)
lab_check "its identifier changed: 23/04 TOKEN UNKNOWN" test "$(sense "$out")" = "0x05 0x2304"
out=$("$XCB" wut "$tsg" 0x43 "$W/g.tok" 0 0 $((10 * MB / 512)):64 || true)
lab_check "the genuine token still works: GOOD" test "$(sense "$out")" = "0 0"
lab_check "... data compared" test "$(range "$W/t.img" $((10 * MB)) 32768)" = \
	"$(range "$W/t.img" $((3 * MB)) 32768)"

# --- 6. cross-LU -------------------------------------------------------------
"$XCB" pt "$tsg" 0x50 0 "$W/x.tok" 8192:2048 >/dev/null || true
out=$("$XCB" wut "$csg" 0x51 "$W/x.tok" 0 0 0:2048 || true)
lab_check "T's token used on C, one tcm_loop TPG exports both: GOOD" test "$(sense "$out")" = "0 0"
lab_check "... C[0,1M) = T[4M,5M)" test "$(range "$W/c.img" 0 $MB)" = "$(range "$W/t.img" $((4 * MB)) $MB)"
lab_iscsi_export iqn.2003-01.org.test:odx485 "$c" >/dev/null
before=$(range "$W/c.img" $((2 * MB)) $MB)
out=$("$XCB" wut "$csg" 0x52 "$W/x.tok" 0 0 $((2 * MB / 512)):2048 || true)
lab_check "C also in an iSCSI TPG without T: refused, ILLEGAL REQUEST 23/00" \
	test "$(sense "$out")" = "0x05 0x2300"
lab_check "... C unchanged" test "$(range "$W/c.img" $((2 * MB)) $MB)" = "$before"
lab_check "tcmu-runner alive" pgrep -x tcmu-runner
lab_summary
