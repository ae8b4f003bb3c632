#!/bin/bash
# The reference: libiscsi's iscsi-test-cu XCOPY suites (SCSI.ExtendedCopy,
# SCSI.ReceiveCopyResults) against LIO fileio (kernel XCOPY) over iSCSI and
# through tcm_loop's /dev/sgN (SG_IO), and with LAB_REFERENCE_FULL=1 the whole
# SCSI family over iSCSI (1-3 min under TCG; otherwise its row and per-test
# results are copied from the newest committed tests/lab/reference/*-lio-fileio). Results are RECORDED in
# $LAB_RESULTS/reference/lio-fileio/ (summary.tsv + one log per run) for later
# issues to compare against; only "the suite ran and reported" is asserted.
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
lab_require_guest

W=/tmp/lab-020
REF=$LAB_RESULTS/reference/lio-fileio
mkdir -p "$W" "$REF"
rm -f "$REF"/*.txt "$REF/summary.tsv"

so=$(lab_fileio_create ref0 "$W/ref0.img" 128M)
url=$(lab_iscsi_export iqn.2003-01.org.linux-iscsi.lab:reference "$so")
nodes=$(lab_loop_export "$so")
read -r _ sg <<<"$nodes"

{
	printf '# date\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf '# kernel\t%s\n' "$(uname -r) $(uname -v)"
	printf '# libiscsi-bin\t%s\n' "$(dpkg-query -W -f='${Version}' libiscsi-bin)"
	printf '# target\tLIO fileio 128 MiB, unit serial set (kernel XCOPY)\n'
	printf 'transport\tsuite\ttotal\tran\tpassed\tfailed\tskip_notes\tseconds\n'
} >"$REF/summary.tsv"

# lab_cunit_results LOG: one "Suite.Test<TAB>passed|FAILED" line per test of
# a verbose iscsi-test-cu log (other output may sit between a test's name and
# its outcome).
lab_cunit_results() {
	awk '
	/^Suite: / { suite = $2; next }
	/^  Test: / {
		name = suite "." $2
		rest = $0
		sub(/^  Test: [^ ]+ \.\.\./, "", rest)
		pending = 0
		if (rest ~ /^passed/) print name "\tpassed"
		else if (rest ~ /^FAILED/) print name "\tFAILED"
		else pending = 1
		next
	}
	pending && /^passed/ { print name "\tpassed"; pending = 0; next }
	pending && /^FAILED/ { print name "\tFAILED"; pending = 0; next }
	' "$1"
}

# run_suite TRANSPORT SUITE DEVICE
run_suite() {
	local tr=$1 suite=$2 dev=$3 log t0 rc=0 line skipped secs
	log=$REF/$tr-$suite.txt
	t0=$(date +%s.%N)
	# Verbose mode (the default) names every test with its outcome.
	timeout 300 iscsi-test-cu -d -t "$suite" "$dev" >"$log" 2>&1 || rc=$?
	secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
	line=$(awk '$1 == "tests" && NF >= 6 { print $2, $3, $4, $5; exit }' "$log")
	# "[SKIPPED] REPORT_SUPPORTED_OPCODES is not implemented" is a per-test
	# probe note, not a skipped test: not counted.
	skipped=$(grep '\[SKIPPED\]' "$log" | grep -vc 'REPORT_SUPPORTED_OPCODES' || true)
	if [ -z "$line" ]; then
		lab_fail "iscsi-test-cu $suite via $tr ran (exit $rc, no CUnit summary; see $log)"
		return 0
	fi
	read -r total ran passed failed <<<"$line"
	lab_cunit_results "$log" >"$REF/$tr-$suite.results"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tr" "$suite" "$total" "$ran" "$passed" \
		"$failed" "$skipped" "$secs" >>"$REF/summary.tsv"
	lab_pass "iscsi-test-cu $suite via $tr ran: $passed/$total passed, $failed failed, $skipped skip notes (${secs} s, recorded)"
}

run_suite iscsi SCSI.ExtendedCopy "$url/0"
run_suite iscsi SCSI.ReceiveCopyResults "$url/0"
run_suite sg SCSI.ExtendedCopy "$sg"
run_suite sg SCSI.ReceiveCopyResults "$sg"
if [ "${LAB_REFERENCE_FULL:-0}" = 1 ]; then
	run_suite iscsi SCSI "$url/0"
else
	committed=$(lab_lio_reference)
	if [ -n "$committed" ]; then
		printf '# iscsi SCSI row: copied from %s (LAB_REFERENCE_FULL=0)\n' \
			"tests/lab/reference/${committed##*/}" >>"$REF/summary.tsv"
		grep $'^iscsi\tSCSI\t' "$committed/summary.tsv" >>"$REF/summary.tsv" || true
		cp "$committed/iscsi-SCSI.results" "$REF/"
		echo "SCSI family not run (LAB_REFERENCE_FULL=0): reference copied from ${committed##*/}"
	fi
fi

echo "reference recorded in $REF:"
grep '^#' "$REF/summary.tsv" || true
grep -v '^#' "$REF/summary.tsv" | { column -t -s $'\t' 2>/dev/null || cat; }
lab_summary
