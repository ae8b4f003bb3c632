# shellcheck shell=bash
# shellcheck disable=SC2154 # sg*, W, M, same_as: set by 610 before it sources this
# tests/lab/rbd-copy-lib.sh: the EXTENDED COPY checks of lab test 610 on
# user:xcopy LUs on RBD images. Sourced by 610 once its LUs are exported
# through one tcm_loop TPG: lu0 ($sg, model $W/model.bin), f0 (file LU, $fsg,
# $W/f0.img), a0/a1 (rbd/a0 sparse source $W/a0.bin, rbd/a1 with old data in
# a0's hole objects), b0 (rbd2/b0, old data $W/b0.old). sg_xcopy sends EXTENDED COPY to the destination LU,
# whose stats file counts it (xt_stat).

# rbd_export_is IMAGE FILE : IMAGE read through librbd (as rbd export; 610's
# rbd-cmp.py client, ceph.sh) equals FILE byte for byte
rbd_export_is() { ceph_same "$1" "$2"; }

# rbd_delta LU KEY BEFORE : counter now minus BEFORE
rbd_delta() { echo $(($(xt_stat "$1" "$2") - $3)); }

# rbd_xcopy NAME ARGS... : sg_xcopy, timed (blocks of 512 B, 16 MiB segments)
rbd_xcopy() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s.%N)
	sg_xcopy bs=512 bpt=32768 "$@" >"$W/xcopy.log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		lab_pass "$name ($(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}") s)"
	else
		lab_fail "$name: sg_xcopy exit $rc"
		sed 's/^/      /' "$W/xcopy.log"
	fi
	return $rc
}

rbd_copy_aligned() {
	local c0 g0 h0 last
	c0=$(xt_stat a1 copyfrom_bytes); g0=$(xt_stat a1 gateway_bytes); h0=$(xt_stat a1 hole_objects)
	rbd_xcopy "sg_xcopy RBD LU a0 -> RBD LU a1, 64 MiB object-aligned, sparse source" \
		if="$sga0" of="$sga1" count=$((64 * M / 512)) || true
	lab_check "  ... rbd export rbd/a1 equals the source (holes read zeros)" \
		rbd_export_is rbd/a1 "$W/a0.bin"
	lab_check "  ... 0 bytes through the gateway (gateway_bytes +$(rbd_delta a1 gateway_bytes "$g0"))" \
		test "$(rbd_delta a1 gateway_bytes "$g0")" -eq 0
	lab_check "  ... RADOS copy-from moved the 14 written objects (copyfrom_bytes +$(rbd_delta a1 copyfrom_bytes "$c0"))" \
		test "$(rbd_delta a1 copyfrom_bytes "$c0")" -eq $((56 * M))
	lab_check "  ... the 2 source holes zeroed on a1 (hole_objects +$(rbd_delta a1 hole_objects "$h0"))" \
		test "$(rbd_delta a1 hole_objects "$h0")" -eq 2
	last=$(awk '$1 == "last_fallback" { print substr($0, 15) }' "$XT_STATS_DIR/a1.stats")
	echo "    a1 stats: fallbacks $(xt_stat a1 fallbacks) (last: $last), touch_bytes $(xt_stat a1 touch_bytes)"
}

rbd_copy_unaligned() {
	local c0 g0 f0
	cp "$W/a0.bin" "$W/a1.model"
	# incongruent offsets (0 -> 512 B): no whole object lines up, all through librbd
	g0=$(xt_stat a1 gateway_bytes); f0=$(xt_stat a1 fallbacks)
	rbd_xcopy "sg_xcopy a0 -> a1, 20 MiB from LBA 0 to LBA 1 (offsets not object-aligned alike)" \
		if="$sga0" of="$sga1" seek=1 count=$((20 * M / 512)) || true
	dd if="$W/a0.bin" of="$W/a1.model" bs=512 seek=1 count=$((20 * M / 512)) conv=notrunc status=none
	lab_check "  ... through the gateway (gateway_bytes +$(rbd_delta a1 gateway_bytes "$g0")), fallback counted with its reason" \
		sh -c "[ $(rbd_delta a1 gateway_bytes "$g0") -eq $((20 * M)) ] && [ $(rbd_delta a1 fallbacks "$f0") -ge 1 ] &&
			grep -qx 'last_fallback offsets not object-aligned alike' '$XT_STATS_DIR/a1.stats'"
	# congruent but unaligned (20 MiB + 512 B -> 4 MiB + 512 B): head and tail
	# through librbd, the 3 whole objects between (a0's 6-8) by copy-from
	c0=$(xt_stat a1 copyfrom_bytes); g0=$(xt_stat a1 gateway_bytes)
	rbd_xcopy "sg_xcopy a0 -> a1, 16 MiB, offsets 512 B past object boundaries on both sides" \
		if="$sga0" of="$sga1" skip=$((20 * M / 512 + 1)) seek=$((4 * M / 512 + 1)) count=$((16 * M / 512)) || true
	dd if="$W/a0.bin" of="$W/a1.model" bs=512 skip=$((20 * M / 512 + 1)) seek=$((4 * M / 512 + 1)) \
		count=$((16 * M / 512)) conv=notrunc status=none
	lab_check "  ... rbd/a1 equals the model of both copies, outside their ranges too" \
		rbd_export_is rbd/a1 "$W/a1.model"
	lab_check "  ... 3 whole objects by copy-from, head + tail (4 MiB) through the gateway (copyfrom +$(rbd_delta a1 copyfrom_bytes "$c0"), gateway +$(rbd_delta a1 gateway_bytes "$g0"))" \
		sh -c "[ $(rbd_delta a1 copyfrom_bytes "$c0") -eq $((12 * M)) ] && [ $(rbd_delta a1 gateway_bytes "$g0") -eq $((4 * M)) ]"
	rm -f "$W/a1.model"
}

# libxcopy (xcp) sends 4 MiB segments, 16 for 64 MiB in one command: the
# plugin merges contiguous segments into one store copy (copy-from keeps 8
# objects in flight across them), not 16 one-object calls.
rbd_copy_merged() {
	local x=$LAB_BUILD/host/xcp c0 s0 k0 g0
	c0=$(xt_stat a1 commands); s0=$(xt_stat a1 segments)
	k0=$(xt_stat a1 store_copies); g0=$(xt_stat a1 gateway_bytes)
	lab_check "xcp --require-offload a0 -> a1, 64 MiB (libxcopy: 4 MiB segments)" \
		"$x" --require-offload -q --src-lba 0 --dst-lba 0 --blocks $((64 * M / 512)) "$sga0" "$sga1"
	lab_check "  ... rbd export rbd/a1 equals the source again" rbd_export_is rbd/a1 "$W/a0.bin"
	lab_check "  ... 1 command of 16 segments, 1 store copy (commands +$(rbd_delta a1 commands "$c0"), segments +$(rbd_delta a1 segments "$s0"), store_copies +$(rbd_delta a1 store_copies "$k0"))" \
		sh -c "[ $(rbd_delta a1 commands "$c0") -eq 1 ] && [ $(rbd_delta a1 segments "$s0") -eq 16 ] &&
			[ $(rbd_delta a1 store_copies "$k0") -eq 1 ] && [ $(rbd_delta a1 gateway_bytes "$g0") -eq 0 ]"
}

rbd_copy_cross_pool() {
	local c0 g0
	c0=$(xt_stat b0 copyfrom_bytes); g0=$(xt_stat b0 gateway_bytes)
	rbd_xcopy "sg_xcopy RBD LU a0 (pool rbd) -> RBD LU b0 (pool rbd2), 32 MiB at 16 MiB" \
		if="$sga0" of="$sgb0" seek=$((16 * M / 512)) count=$((32 * M / 512)) || true
	dd if="$W/a0.bin" of="$W/b0.old" bs=1M seek=16 count=32 conv=notrunc status=none
	lab_check "  ... rbd export rbd2/b0 equals the model, outside the range too" \
		rbd_export_is rbd2/b0 "$W/b0.old"
	lab_check "  ... by copy-from (copyfrom_bytes +$(rbd_delta b0 copyfrom_bytes "$c0"), gateway_bytes +$(rbd_delta b0 gateway_bytes "$g0"))" \
		sh -c "[ $(rbd_delta b0 gateway_bytes "$g0") -eq 0 ] && [ $(rbd_delta b0 copyfrom_bytes "$c0") -gt 0 ]"
	# two commands at once from one source image (a0 -> a1 and a0 -> b0): each
	# copy holds its two images (per-image copy locks, address order). a1
	# equals a0 before: its first half gets a0's second half.
	local p1 p2 rc1=0 rc2=0
	sg_xcopy bs=512 bpt=32768 if="$sga0" of="$sga1" skip=$((32 * M / 512)) count=$((32 * M / 512)) \
		>"$W/x1.log" 2>&1 & p1=$!
	sg_xcopy bs=512 bpt=32768 if="$sga0" of="$sgb0" skip=$((16 * M / 512)) count=$((48 * M / 512)) \
		>"$W/x2.log" 2>&1 & p2=$!
	wait $p1 || rc1=$?
	wait $p2 || rc2=$?
	cp "$W/a0.bin" "$W/a1.model"
	dd if="$W/a0.bin" of="$W/a1.model" bs=1M skip=32 count=32 conv=notrunc status=none
	dd if="$W/a0.bin" of="$W/b0.old" bs=1M skip=16 count=48 conv=notrunc status=none
	lab_check "two sg_xcopy at once from rbd/a0 (to a1 32 MiB, to b0 48 MiB): both GOOD (exit $rc1, $rc2)" \
		test "$rc1$rc2" = 00
	lab_check "  ... rbd/a1 equals its model" rbd_export_is rbd/a1 "$W/a1.model"
	lab_check "  ... rbd2/b0 equals its model" rbd_export_is rbd2/b0 "$W/b0.old"
	rm -f "$W/a1.model"
	rm -f "$W/b0.old"
}

rbd_copy_file_rbd() {
	local g0
	g0=$(xt_stat lu0 gateway_bytes)
	rbd_xcopy "sg_xcopy file LU f0 -> RBD LU lu0, 8 MiB at 4 MiB" \
		if="$fsg" of="$sg" seek=$((4 * M / 512)) count=$((8 * M / 512)) || true
	dd if="$W/f0.img" of="$W/model.bin" bs=1M seek=4 count=8 conv=notrunc status=none
	lab_check "  ... rbd/lu0 equals the model (gateway_bytes +$(rbd_delta lu0 gateway_bytes "$g0"))" \
		same_as "$W/model.bin"
	cp "$W/f0.img" "$W/f0.model"
	g0=$(xt_stat f0 gateway_bytes)
	rbd_xcopy "sg_xcopy RBD LU lu0 -> file LU f0, 8 MiB at 8 MiB" \
		if="$sg" of="$fsg" seek=$((8 * M / 512)) count=$((8 * M / 512)) || true
	dd if="$W/model.bin" of="$W/f0.model" bs=1M seek=8 count=8 conv=notrunc status=none
	lab_check "  ... f0's backing file equals the model (gateway_bytes +$(rbd_delta f0 gateway_bytes "$g0"))" \
		cmp "$W/f0.img" "$W/f0.model"
	rm -f "$W/f0.model"
}

# ROD tokens on RBD LUs (docs/target-rbd.md, "RBD: ROD tokens"): change
# vulnerable, POPULATE TOKEN guarded by the image's exclusive lock; WRITE USING
# TOKEN between RBD LUs by copy-from, to a file LU through the gateway; a WRITE
# in the token's range cancels it; an image another client has open gets none.
rbd_tok_sense() {   # the "status S key K asc A" line of xcbench: "K A"
	local l
	l=$(head -1 <<<"$1")
	echo "$(sed -n 's/.* key \([^ ]*\).*/\1/p' <<<"$l") $(sed -n 's/.* asc \([^ ]*\).*/\1/p' <<<"$l")"
}
rbd_copy_tokens() {
	local xcb=$LAB_BUILD/bench/xcbench x=$LAB_BUILD/host/xcp c0 g0 out w
	lab_check "VPD 8Fh of the RBD LU lists ROD token descriptors" \
		sh -c "sg_vpd --page=0x8f '$sga0' | grep -q 'ROD Token Limits'"
	# a1 equals a0 but its first 32 MiB (rbd_copy_cross_pool): ODX puts a0's first 16 MiB back
	cp "$W/a0.bin" "$W/a1.model"
	dd if="$W/a0.bin" of="$W/a1.model" bs=1M skip=32 count=32 conv=notrunc status=none
	dd if="$W/a0.bin" of="$W/a1.model" bs=1M count=16 conv=notrunc status=none
	c0=$(xt_stat a1 copyfrom_bytes); g0=$(xt_stat a1 gateway_bytes)
	lab_check "xcp --method=odx a0 -> a1, 16 MiB (POPULATE TOKEN + WRITE USING TOKEN)" \
		"$x" --method=odx --require-offload -q --src-lba 0 --dst-lba 0 --blocks $((16 * M / 512)) "$sga0" "$sga1"
	lab_check "  ... rbd/a1 equals its model" rbd_export_is rbd/a1 "$W/a1.model"
	lab_check "  ... by copy-from, 0 gateway bytes (copyfrom +$(rbd_delta a1 copyfrom_bytes "$c0"), gateway +$(rbd_delta a1 gateway_bytes "$g0"))" \
		sh -c "[ $(rbd_delta a1 copyfrom_bytes "$c0") -ge $((8 * M)) ] && [ $(rbd_delta a1 gateway_bytes "$g0") -eq 0 ]"
	cp "$W/f0.img" "$W/f0.model"
	dd if="$W/a0.bin" of="$W/f0.model" bs=1M skip=40 seek=2 count=4 conv=notrunc status=none
	lab_check "xcp --method=odx RBD LU a0 -> file LU f0, 4 MiB" \
		"$x" --method=odx --require-offload -q --src-lba $((40 * M / 512)) --dst-lba $((2 * M / 512)) \
		--blocks $((4 * M / 512)) "$sga0" "$fsg"
	lab_check "  ... f0's backing file equals its model" cmp "$W/f0.img" "$W/f0.model"
	rm -f "$W/f0.model"
	# a WRITE inside the token's range, then WUT: TOKEN CANCELLED, a1 unchanged
	out=$("$xcb" pt "$sga0" 0x61 0 "$W/rbd.tok" $((48 * M / 512)):2048 2>&1 || true)
	lab_check "PT on the RBD LU: change vulnerable token (ROD type 00800001h; ${out%%$'\n'*})" \
		test "$(od -An -tx1 -N4 "$W/rbd.tok" 2>/dev/null | tr -d ' \n')" = 00800001
	w=$(mktemp); head -c 512 /dev/urandom >"$w"
	sg_raw -s 512 -i "$w" "$sga0" 2a 00 00 $(printf '%02x %02x %02x' $(((48 * M / 512 + 7) >> 16 & 255)) \
		$(((48 * M / 512 + 7) >> 8 & 255)) $(((48 * M / 512 + 7) & 255))) 00 00 01 00 >/dev/null 2>&1 || true
	rm -f "$w"
	out=$("$xcb" wut "$sga1" 0x62 "$W/rbd.tok" 0 0 $((60 * M / 512)):2048 2>&1 || true)
	lab_check "a WRITE in the range, then WUT: ILLEGAL REQUEST 23/08 TOKEN CANCELLED ($(rbd_tok_sense "$out"))" \
		test "$(rbd_tok_sense "$out")" = "0x05 0x2308"
	lab_check "  ... rbd/a1 unchanged" rbd_export_is rbd/a1 "$W/a1.model"
	# the block device zero ROD token (FFFF0001h, length 01F8h): librbd write-zeroes
	printf '\xff\xff\x00\x01\x00\x00\x01\xf8' | dd of="$W/zero.tok" bs=512 conv=sync status=none
	out=$("$xcb" wut "$sga1" 0x64 "$W/zero.tok" 0 0 $((40 * M / 512)):4096 2>&1 || true)
	dd if=/dev/zero of="$W/a1.model" bs=1M seek=40 count=2 conv=notrunc status=none
	lab_check "WUT with the zero ROD token on rbd/a1 [40M,42M): GOOD ($(rbd_tok_sense "$out"))" \
		test "$(rbd_tok_sense "$out")" = "0 0"
	lab_check "  ... rbd/a1 equals its model: that range zero, the rest unchanged" \
		rbd_export_is rbd/a1 "$W/a1.model"
	rm -f "$W/a1.model" "$W/zero.tok"
	# another client with the image open (rbd watch): tokens follow the copy-from
	# rule (docs/target-rbd.md, "Standby gateways"): b0's LU owns its image's lock
	# (pinned by the copies to it): a token; c0's LU never took its lock: no
	# token, 55/0D (rbd watch runs until its stdin has a line)
	rbd create --size 16M rbd2/c0
	c0=$(lab_user_create c0 xcopy "rbd/rbd2/c0$C" 16M)
	lab_loop_export "$c0" >/dev/null
	sgc0=$(lab_sg "$c0")
	rbd watch rbd2/b0 < <(sleep 60) >/dev/null 2>&1 &
	w=$!
	rbd watch rbd2/c0 < <(sleep 60) >/dev/null 2>&1 &
	w2=$!
	lab_check "  rbd status lists the other client's watch on rbd2/b0 and rbd2/c0" \
		lab_wait_for sh -c "rbd status rbd2/b0 | grep -q 'watcher=' && rbd status rbd2/c0 | grep -q 'watcher='"
	out=$("$xcb" pt "$sgb0" 0x63 0 "$W/rbd2.tok" 0:2048 2>&1 || true)
	lab_check "PT on b0 (lock ours) while another client has the image open: a token ($(rbd_tok_sense "$out"))" \
		test "$(rbd_tok_sense "$out")" = "0 0"
	out=$("$xcb" pt "$sgc0" 0x65 0 "$W/rbd3.tok" 0:2048 2>&1 || true)
	kill "$w" "$w2" 2>/dev/null || true
	wait "$w" "$w2" 2>/dev/null || true
	lab_check "PT on c0 (lock not ours) while another client has it open: ILLEGAL REQUEST 55/0D, no token ($(rbd_tok_sense "$out"))" \
		test "$(rbd_tok_sense "$out")" = "0x05 0x550d"
	w=$LAB_RUN_DIR/tcmu/tcmu-runner.log
	[ -f "$w" ] || w=/var/log/tcmu-runner.log
	lab_check "  ... the runner log names the reason" \
		grep -q "no token: image rbd2/c0 is open by another client and the exclusive lock is not ours" "$w"
	rm -f "$W/rbd.tok" "$W/rbd2.tok" "$W/rbd3.tok"
}

rbd_copy_checks() {
	rbd_copy_aligned
	rbd_copy_unaligned
	rbd_copy_merged
	rbd_copy_cross_pool
	rbd_copy_file_rbd
	rbd_copy_tokens
}
