# shellcheck shell=bash
# tests/bench/guest_xtarget.sh: the xtarget phase of tests/bench/guest.sh
# (sourced by it; uses its helpers, tests/lab/lib.sh and tests/lab/target-lib.sh).
# A copy between targets (issue #36 item 7), the topology of lab tests 650 and
# 655, 1 GiB (BENCH_XT_SIZE) of pseudo-random data:
#   X  user:xcopy LU (file store: A.img on store xt, XFS without reflink),
#      iSCSI target benchxa, ACL: the requesting initiator (HOST)
#   P  LIO fileio LU (write-back, as targetcli makes it; B.img on the same
#      store), iSCSI target benchxb, ACL: HOST and the copy manager (CM);
#      the peer map (/etc/xcopy/peers.conf) names P for X's copy manager
# Each round (BENCH_XT_ROUNDS, default 2: offload, host, offload, host) copies
# X [0, SIZE) -> P [0, SIZE) with xcp as HOST over iSCSI (libiscsi: one
# session to each target):
#   offload  xcp --require-offload: one EXTENDED COPY naming both LUs, sent to
#            P's target first (LIO refuses: 0D/02, counted as failed), then to
#            X, whose copy manager logs in to P as CM and pushes the blocks
#   host     xcp --no-offload: READ 4 MiB from X, WRITE it to P, one pair at
#            a time (libxcopy's host copy: what dd bs=4M iflag=direct
#            oflag=direct does, through two iSCSI sessions)
# The destination range is punched and every cache dropped before each copy;
# after it, `sync` (timed apart) and cmp of the whole range with the source.
# Counters, read before and after (LIO's per-ACL scsi_auth_intr statistics of
# LUN 0, which outlive the sessions; whole MiB):
#   host_MiB / host_cmds  HOST's read + written MiB and commands on both targets
#   cm_MiB                CM's read + written MiB on P's target (its peer session)
#   gateway_B             X's gateway_bytes (the plugin's stats file: bytes its
#                         copy manager moved through the peer session, exact)
#   lo_B                  every byte on the guest's loopback (both kinds)
# BENCH_XT_CM_NOPIN (unset: LIO's default): the nopin_timeout (s, 0 = no
# NOP-In) of the copy manager's ACL on P's target, written before any login;
# xtarget.txt records the value in effect.
XT_HOST=iqn.2026-12.org.example:bench-xt-host
XT_CM=iqn.2026-12.org.example:bench-xt-cm
XT_IQN_A=iqn.2003-01.org.linux-iscsi.lab:benchxa
XT_IQN_B=iqn.2003-01.org.linux-iscsi.lab:benchxb
XT_SER_X=36000001-aaaa-bbbb-cccc-000000000000
XT_SER_P=36000002-aaaa-bbbb-cccc-000000000000
XT_MAP=/etc/xcopy/peers.conf

# xtb_acl IQN INITIATOR KEY: LIO's counter KEY (num_cmds, read_mbytes,
#   write_mbytes) of INITIATOR's ACL on LUN 0 of target IQN
xtb_acl() {
	local v
	read -r v <"$LAB_CFS/iscsi/$1/tpgt_1/acls/$2/lun_0/statistics/scsi_auth_intr/$3" && echo "$v"
}

# xtb_counters: "host_cmds host_MiB cm_MiB gateway_B lo_B" so far
xtb_counters() {
	local c=0 m=0 t
	for t in "$XT_IQN_A" "$XT_IQN_B"; do
		c=$((c + $(xtb_acl "$t" "$XT_HOST" num_cmds)))
		m=$((m + $(xtb_acl "$t" "$XT_HOST" read_mbytes) + $(xtb_acl "$t" "$XT_HOST" write_mbytes)))
	done
	echo "$c $m $(($(xtb_acl "$XT_IQN_B" "$XT_CM" read_mbytes) + $(xtb_acl "$XT_IQN_B" "$XT_CM" write_mbytes))) $(xt_stat xtx gateway_bytes) $(lo_bytes)"
}

# xtb_row ROUND offload|host: one copy X -> P, one line of xtarget.csv
xtb_row() {
	local round=$1 how=$2 st opt t0 t1 ts te ok j
	local -a c0 c1
	log "xtarget: round $round, $how, $XT_S bytes"
	fallocate -p -o 0 -l "$XT_S" "$W/xt/B.img"
	fresh
	read -ra c0 <<<"$(xtb_counters)"
	st=$OUT/xtarget-$round-$how   # xcp's JSON and stderr kept beside the CSV
	opt=--require-offload
	[ "$how" = host ] && opt=--no-offload
	t0=$EPOCHREALTIME
	XCOPY_INITIATOR_IQN=$XT_HOST "$XCP" -q --no-progress --stats=json "$opt" --blocks $((XT_S / 512)) \
		"$XT_URL_A" "$XT_URL_B" >"$st.json" 2>"$st.err.txt" || log "xtarget: xcp $opt failed: $(tail -3 "$st.err.txt")"
	t1=$EPOCHREALTIME
	ts=$EPOCHREALTIME
	sync
	te=$EPOCHREALTIME
	read -ra c1 <<<"$(xtb_counters)"
	cmp -s -n "$XT_S" "$W/xt/A.img" "$W/xt/B.img" && ok=yes || ok=NO
	j=$(jq -r '[.seconds, .bytes_offloaded, .bytes_host, (.offload_commands[0].commands // 0),
		(.offload_commands[0].failed // 0)] | map(tostring) | join(",")' "$st.json" 2>/dev/null) || j=",,,,"
	echo "$round,$how,$XT_S,$(secs "$t0" "$t1"),$(secs "$ts" "$te"),$j,$((c1[0] - c0[0])),$((c1[1] - c0[1])),$((c1[2] - c0[2])),$((c1[3] - c0[3])),$((c1[4] - c0[4])),$ok" \
		>>"$OUT/xtarget.csv"
	tail -1 "$OUT/xtarget.csv" >&2
}

xtphase() {
	local x p r rounds=${BENCH_XT_ROUNDS:-2}
	XT_S=$(lab_size_bytes "${BENCH_XT_SIZE:-1G}")
	say "xtarget: user:xcopy LU -> LIO fileio LU of another iSCSI target, $XT_S bytes, $rounds rounds"
	echo "round,path,size,wall_s,sync_s,xcp_s,offloaded_B,host_B,xcopy_cmds,xcopy_failed,host_cmds,host_MiB,cm_MiB,gateway_B,lo_B,verified" \
		>"$OUT/xtarget.csv"
	ASIZE=$XT_S BSIZE=$XT_S mkstore xt 0
	log "xtarget: fill $XT_S bytes of source, write the destination once"
	"$XCB" fill "$W/xt/A.img" 0 "$XT_S" 1
	dd if=/dev/zero of="$W/xt/B.img" bs=4M count=$((XT_S >> 22)) conv=notrunc status=none
	x=$(lab_user_create xtx xcopy "$W/xt/A.img" "$XT_S" "$XT_SER_X")
	p=$(bench_fileio_create xtp "$W/xt/B.img" "$XT_S" "$XT_SER_P")
	XT_URL_A=$(lab_iscsi_export --acl "$XT_HOST" "$XT_IQN_A" "$x")/0
	XT_URL_B=$(lab_iscsi_export --acl "$XT_HOST" --acl "$XT_CM" "$XT_IQN_B" "$p")/0
	if [ -n "${BENCH_XT_CM_NOPIN:-}" ]; then
		echo "$BENCH_XT_CM_NOPIN" >"$LAB_CFS/iscsi/$XT_IQN_B/tpgt_1/acls/$XT_CM/attrib/nopin_timeout"
	fi
	echo "cm_nopin_timeout $(cat "$LAB_CFS/iscsi/$XT_IQN_B/tpgt_1/acls/$XT_CM/attrib/nopin_timeout")" >"$OUT/xtarget.txt"
	mkdir -p "${XT_MAP%/*}"
	(
		umask 077
		printf '# bench xtarget\nnaa.%s iscsi://127.0.0.1:3260/%s/0 initiator=%s\n' \
			"$(lab_naa "$XT_SER_P")" "$XT_IQN_B" "$XT_CM" >"$XT_MAP"
	)
	for ((r = 1; r <= rounds; r++)); do
		xtb_row "$r" offload
		xtb_row "$r" host
	done
	rm -f "$XT_MAP"
	lab_teardown >/dev/null
	rmstore xt
}
