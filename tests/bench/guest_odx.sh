# shellcheck shell=bash
# tests/bench/guest_odx.sh: the odx phase of tests/bench/guest.sh (sourced by
# it; uses its helpers). odx.csv: one copy of each BENCH_SIZES from LU A at 0
# to LU B at 0, SG_IO through tcm_loop (the same transport for every row):
#   lid1  libxcopy's EXTENDED COPY (LID1) (xcbench copy), user:xcopy LUs
#   odx   POPULATE TOKEN of one range, RRTI, WRITE USING TOKEN of at most
#         64 MiB each (BLOCK OFFSET INTO TOKEN stepping, DEL_TKN on the last),
#         RRTI after each: what Windows sends (xcbench winpat), user:xcopy LUs
#   lio   libxcopy's EXTENDED COPY to LIO fileio LUs (LIO has no ODX)
# on the reflink store (rl: clones) and the store without reflink (nr).
# Time = the copy commands; sync_s = the store's sync after it.
odxrow() {   # PATH STORE SIZE
	local path=$1 store=$2 s=$3 S n st t0 t1 ts
	S=$(lab_size_bytes "$s")
	n=$((S / 512))
	log "odx: $path $store $s"
	fallocate -p -o 0 -l "$S" "$W/$store/B.img"
	fresh
	st=$W/odx-$path-$store-$s.out
	if [ "$path" = odx ]; then
		# timed by xcbench from PT to the last RRTI (LID1: xcbench copy's own timer)
		"$XCB" winpat "$SG_A" "$SG_B" 0 0 "$n" 1 0 >"$st" 2>&1 ||
			log "winpat failed: $(tail -2 "$st")"
		t0=0
		t1=$(awk '$1 == "winpat" { for (i = 2; i < NF; i++) if ($i == "total_ms") print $(i + 1) / 1000 }' "$st")
		log "odx: $(grep '^winpat' "$st")"
	else
		"$XCB" copy "$SG_A" 0 "$SG_B" 0 "$n" >"$st" 2>&1 || log "copy failed: $(tail -3 "$st")"
		t0=$(cval "$st" copy_t0)
		t1=$(cval "$st" copy_t1)
	fi
	ts=$EPOCHREALTIME
	sync
	echo "$path,$store,$S,$(secs "$t0" "$t1"),$(secs "$ts" "$EPOCHREALTIME"),$(verify "$W/$store/A.img" 0 "$W/$store/B.img" 0 "$S")" \
		>>"$OUT/odx.csv"
	tail -1 "$OUT/odx.csv" >&2
}

odxphase() {   # STORE KIND...: A and B of each KIND on STORE, every size
	local store=$1 kind s g
	shift
	[ -s "$OUT/odx.csv" ] || echo "path,store,size,secs,sync_s,verified" >"$OUT/odx.csv"
	for kind in "$@"; do
		make_lus "$kind" "$store" ""
		# shellcheck disable=SC2153 # SO_A, SO_B: set by make_lus
		{ read -r _ SG_A; read -r _ SG_B; } <<<"$(lab_loop_export "$SO_A" "$SO_B")"
		# the new LUNs' UNIT ATTENTION (REPORTED LUNS DATA HAS CHANGED)
		for g in "$SG_A" "$SG_B" "$SG_A" "$SG_B"; do sg_turs "$g" >/dev/null 2>&1 || true; done
		for s in $SIZES; do
			if [ "$kind" = fileio ]; then
				odxrow lio "$store" "$s"
			else
				odxrow lid1 "$store" "$s"
				odxrow odx "$store" "$s"
			fi
		done
		lab_teardown >/dev/null
	done
}
