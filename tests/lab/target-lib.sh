# shellcheck shell=bash
# tests/lab/target-lib.sh: helpers of the target (handler_xcopy.so) lab tests,
# on top of tests/lab/lib.sh. Source lib.sh first.

XT_STATS_DIR=${XCOPY_STATS_DIR:-/run/xcopy}

# xt_stat LU KEY : a counter from the plugin's stats file (0 if absent).
xt_stat() {
	awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }' "$XT_STATS_DIR/$1.stats" 2>/dev/null ||
		echo 0
}

# xt_sessions_settle DEVICE : for an iscsi:// DEVICE, wait (up to 20 s) until
#   no demo-mode session of an earlier client is left on its target IQN. The
#   plugin drops every held copy result when the LU's sessions change (see
#   target/README.md, "Held results"): a previous iscsi-test-cu session whose
#   logout is still in progress when the next suite's EXTENDED COPY arrives, and
#   gone by its RECEIVE COPY RESULTS, would discard the held result the suite
#   asks for (ReceiveCopyResults.CopyStatus got 24/00 at load 10-14).
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

# xt_run_suite OUTDIR TRANSPORT SUITE DEVICE : run iscsi-test-cu -d on one
#   suite, log to OUTDIR/TRANSPORT-SUITE.txt, append a line to
#   OUTDIR/summary.tsv, print "total ran passed failed secs" on stdout and
#   the names of failed tests on stderr. Returns 1 if no CUnit summary.
#   XT_SUITE_TIMEOUT (s, default 1200) bounds one run (the SCSI family on
#   user:xcopy needs more than 600 s on a heavily loaded 2-core host).
xt_run_suite() {
	local out=$1 tr=$2 suite=$3 dev=$4 log t0 secs line rc=0
	log=$out/$tr-$suite.txt
	xt_sessions_settle "$dev"
	t0=$(date +%s.%N)
	timeout "${XT_SUITE_TIMEOUT:-1200}" iscsi-test-cu -d -n -t "$suite" "$dev" >"$log" 2>&1 || rc=$?
	# Known flake (open, issue 10 follow-up): the plugin drops held results when
	# the LU's sessions change, and iscsi-test-cu's own probe session may still
	# be logging out when ReceiveCopyResults.CopyStatus sends its EXTENDED COPY
	# (gone by its RECEIVE COPY RESULTS: 24/00; the runner log says "held
	# results ... discarded"). That one suite is run a second time, loudly.
	if [ "$suite" = SCSI.ReceiveCopyResults ] && grep -aq 'Test CopyStatus had failures' "$log"; then
		lab_msg "RETRY: $suite via $tr: CopyStatus lost its held result to a session change (known flake), running the suite again"
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
