# shellcheck shell=bash
# tests/lab/target-lib.sh: helpers of the target (handler_xcopy.so) lab tests,
# on top of tests/lab/lib.sh. Source lib.sh first.

XT_STATS_DIR=${XCOPY_STATS_DIR:-/run/xcopy}

# xt_stats_refresh : the plugin's stats writer writes every changed LU's
#   file now (it does so at most every 500 ms on its own): the request file
#   STATSDIR/refresh, waited for until neither it nor refresh.busy is left
#   (scripts/xcopy-stat does the same). No-op without a live writer.
xt_stats_refresh() {
	local d=$XT_STATS_DIR pid i
	{ read -r pid <"$d/writer.pid" && [ -d "/proc/$pid" ]; } 2>/dev/null || return 0
	: >"$d/refresh" 2>/dev/null || return 0
	for ((i = 0; i < 250; i++)); do
		[ -e "$d/refresh" ] || [ -e "$d/refresh.busy" ] || return 0
		read -r -t 0.02 _ <> <(:) || true   # sleep without an exec
	done
	lab_msg "xt_stats_refresh: $d/refresh not served in 5 s"
}

# xt_stat LU KEY : a counter from the plugin's stats file (0 if absent), refreshed first.
xt_stat() {
	xt_stats_refresh
	# the value as written: mawk prints v + 0 past 2^31 as 2.14748e+09
	awk -v k="$2" '$1 == k { v = $2 } END { print (v == "" ? 0 : v) }' "$XT_STATS_DIR/$1.stats" 2>/dev/null ||
		echo 0
}

# xt_sessions_settle DEVICE : for an iscsi:// DEVICE, wait (up to 20 s) until
#   no demo-mode session of an earlier client is left on its target IQN, so
#   each suite starts on a quiet target. (Held copy results no longer depend
#   on it: the plugin discards them when a session arrives, not when one
#   leaves; docs/target-commands.md, "Held results and sessions".)
xt_sessions_settle() {
	local dev=$1 iqn f s i
	case $dev in iscsi://*) ;; *) return 0 ;; esac
	iqn=${dev#iscsi://*/}
	iqn=${iqn%/*}
	for ((i = 0; i < 200; i++)); do
		s=
		for f in /sys/kernel/config/target/iscsi/"$iqn"/tpgt_*/dynamic_sessions; do
			[ -r "$f" ] && { read -r -d '' s <"$f" || true; }
			[ -n "${s//[[:space:]]/}" ] && break
			s=
		done
		[ -z "$s" ] && return 0
		sleep 0.1
	done
	lab_msg "sessions still open on $iqn after 20 s: ${s//[[:space:]]/ }"
}

# xt__failed_tests LOG : "Suite.Test" of every failed test of a CUnit log.
xt__failed_tests() {
	sed -n 's/^.*Suite \(.*\), Test \(.*\) had failures:.*$/\1.\2/p' "$1" | sort -u
}
# xt__only_listed NAMES : NAMES (one a line) is not empty and all are in XT_RETRY_TESTS.
xt__only_listed() {
	local t
	[ -n "$1" ] && [ -n "${XT_RETRY_TESTS:-}" ] || return 1
	for t in $1; do
		case " $XT_RETRY_TESTS " in *" $t "*) ;; *) return 1 ;; esac
	done
}

# xt_run_suite OUTDIR TRANSPORT SUITE DEVICE : run iscsi-test-cu -d on one
#   suite, log to OUTDIR/TRANSPORT-SUITE.txt, append a line to
#   OUTDIR/summary.tsv, print "total ran passed failed secs" on stdout and
#   the names of failed tests on stderr. Returns 1 if no CUnit summary.
#   XT_SUITE_TIMEOUT (s, default 1200) bounds one run (the SCSI family on
#   user:xcopy needs more than 600 s on a heavily loaded 2-core host).
#   XT_RETRY_TESTS ("Suite.Test ...", default empty): known flakes; a run
#   whose failed tests are all listed there is run once more, loudly, and the
#   second run counts. Nothing is listed today.
xt_run_suite() {
	local out=$1 tr=$2 suite=$3 dev=$4 log t0 secs line rc=0
	log=$out/$tr-$suite.txt
	xt_sessions_settle "$dev"
	t0=$(date +%s.%N)
	timeout "${XT_SUITE_TIMEOUT:-1200}" iscsi-test-cu -d -n -t "$suite" "$dev" >"$log" 2>&1 || rc=$?
	if xt__only_listed "$(xt__failed_tests "$log")"; then
		lab_msg "RETRY: $suite via $tr: only known flakes failed ($(xt__failed_tests "$log" | tr '\n' ' ')), running the suite again"
		cp "$log" "$log.first"
		xt_sessions_settle "$dev"
		rc=0
		timeout "${XT_SUITE_TIMEOUT:-1200}" iscsi-test-cu -d -n -t "$suite" "$dev" >"$log" 2>&1 || rc=$?
	fi
	secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
	line=$(awk '$1 == "tests" && NF >= 6 { print $2, $3, $4, $5; exit }' "$log")
	[ -n "$line" ] || { lab_msg "iscsi-test-cu $suite via $tr: no CUnit summary (exit $rc), see $log"; return 1; }
	printf '%s\t%s\t%s\t%s\n' "$tr" "$suite" "${line// /$'\t'}" "$secs" >>"$out/summary.tsv"
	# CUnit lists failures as "  N. file:line  - assertion" under "Suite X, Test Y had failures"
	grep -aE 'Test: .*\.\.\.FAILED|had failures' "$log" | sed 's/^/    failed: /' >&2 || true
	echo "$line $secs"
}

# lab_port_mb SO : MiB read + written through SO's tcm_loop ports (LIO's
#   scsi_tgt_port counters of every loopback LUN linked to SO)
lab_port_mb() {
	local l s r w n=0
	for l in "$LAB_CFS"/loopback/*/tpgt_*/lun/lun_*/*; do
		[ -L "$l" ] || continue
		[ "$(readlink -f "$l")" = "$(readlink -f "$1")" ] || continue
		s=${l%/*}/statistics/scsi_tgt_port
		read -r r <"$s/read_mbytes" && read -r w <"$s/write_mbytes" && n=$((n + r + w))
	done
	echo "$n"
}

# lab_xcopy_e4 SG OUT SRC_SERIAL DST_SERIAL BLOCKS SRC_LBA DST_LBA : one LID1
#   EXTENDED COPY to SG made by hand (sg_xcopy needs both LUs local): no list
#   identifier, two identification CSCDs (E4h, NAA of the serials, block 512)
#   and one 02h segment; the list in OUT.list, sg_raw's output in OUT
lab_xcopy_e4() {
	local sg=$1 out=$2 s d hex
	s=$(lab_naa "$3")
	d=$(lab_naa "$4")
	hex=$(
		printf '0018004000000000 0000001c00000000'
		for c in "$s" "$d"; do printf 'e4000000 01030010 %s 0000000000000200' "$c"; done
		printf '02000018 00000001 0000%04x %016x%016x' "$5" "$6" "$7"
	)
	hex=${hex// /}
	# shellcheck disable=SC2001 # every pair of digits becomes \xHH
	printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")" >"$out.list"
	sg_raw -s 108 -i "$out.list" "$sg" 83 00 00 00 00 00 00 00 00 00 00 00 00 6c 00 00 >"$out" 2>&1
}

# lab_xcopy_ea SG OUT SERIAL ADDR PORT LUN DIR BLOCKS SRC_LBA DST_LBA : one LID1
#   EXTENDED COPY to SG made by hand: no list identifier, an identification
#   CSCD (E4h, ID 0, NAA of SERIAL) and an iSCSI IPv6 CSCD (EAh, IDs 1-2:
#   ADDR as 32 hex digits, TCP PORT, LUN < 256; docs/cscd-descriptors.md),
#   one 02h segment: DIR push (ID 0 -> ID 1) or pull (ID 1 -> ID 0); the list
#   in OUT.list, sg_raw's output in OUT
lab_xcopy_ea() {
	local sg=$1 out=$2 s ids hex
	s=$(lab_naa "$3")
	ids=00000001
	[ "$7" = pull ] && ids=00010000
	hex=$(
		printf '0018006000000000 0000001c00000000'
		printf 'e4000000 01030010 %s 0000000000000200' "$s"
		printf 'ea000000 00%02x000000000000 %s 00000200' "$6" "$4"
		printf 'ff000000 %04x0006 %048d' "$5" 0
		printf '02000018 %s 0000%04x %016x%016x' "$ids" "$8" "$9" "${10}"
	)
	hex=${hex// /}
	# shellcheck disable=SC2001 # every pair of digits becomes \xHH
	printf '%b' "$(sed 's/../\\x&/g' <<<"$hex")" >"$out.list"
	sg_raw -s 140 -i "$out.list" "$sg" 83 00 00 00 00 00 00 00 00 00 00 00 00 8c 00 00 >"$out" 2>&1
}
