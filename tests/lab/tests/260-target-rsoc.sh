#!/bin/bash
# REPORT SUPPORTED OPERATION CODES (A3h/0Ch) from handler_xcopy.so on real
# LIO/TCMU: sg_opcodes' decoding of a user:xcopy LU behind tcm_loop must
# equal the plugin's command table (target/cmds/cmds.c, printed by xt-cmds, the
# same table handle_cmd dispatches by): the list (opcode, SA, CDB size),
# every command's CDB usage data (one-command form, sg_opcodes --mask), the
# timeouts descriptors (--rctd), one-command queries and a refused one; the
# same for an xcopy=core LU. Then libiscsi's ExtendedCopy, ReceiveCopyResults
# and ReportSupportedOpcodes suites over iSCSI and SG_IO: all pass, and not
# one check prints SKIPPED. Outputs: $LAB_RESULTS/target/rsoc/.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
# shellcheck source=tests/lab/target-lib.sh
. "$HERE/../target-lib.sh"
lab_require_guest

W=/tmp/lab-260
OUT=$LAB_RESULTS/target/rsoc
XT_CMDS=$LAB_BUILD/tests/xt-cmds
mkdir -p "$W" "$OUT"
rm -f "$OUT"/*.txt "$OUT"/*.list "$OUT/summary.tsv"
printf 'transport\tsuite\ttotal\tran\tpassed\tfailed\tseconds\n' >"$OUT/summary.tsv"
lab_check "xt-cmds is built ($XT_CMDS)" test -x "$XT_CMDS"

for i in 0 1 2 3 4; do truncate -s 64M "$W/x$i.img"; done
x0=$(lab_user_create x0 xcopy "$W/x0.img" 64M)
x1=$(lab_user_create x1 xcopy "$W/x1.img?xcopy=core" 64M)
read -r _ sg0 <<<"$(lab_loop_export "$x0")"
read -r _ sg1 <<<"$(lab_loop_export "$x1")"

# The LU's state as the plugin sees it: LIO emulates PR unless passed through.
state_flags() {   # SO [--core]
	local f=${2:-}
	[ "$(cat "$1/attrib/pgr_support" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$1/attrib/emulate_pr" 2>/dev/null)" = 1 ] || f="$f --no-pr"
	echo "$f"
}

# sg_opcodes' all-commands listing as "OP SA|- LEN" lines (hex, as xt-cmds
# prints). Without --rctd a row ends "RWCDLP,CDLP NAME", with it "- - NAME"
# (no timeouts specified): the column after the CDB size tells SA or not.
sg_list() {   # SG [--rctd]
	sg_opcodes -n "$@" | awk -v rctd="${2:+1}" '
		/^ [0-9a-f][0-9a-f] / {
			nosa = rctd ? ($3 == "-") : ($3 ~ /,/)
			if (nosa) { printf "%s - %s\n", $1, $2 }
			else { printf "%s %s %s\n", $1, $2, $3 }
		}'
}

# sg_opcodes --mask: "OP SA|- LEN USAGE..." from the one-command answer of every command
sg_masks() {   # SG
	sg_opcodes -n --mask "$1" | awk '
		/^ [0-9a-f][0-9a-f] / {
			if ($3 ~ /,/) { key = $1 " - " $2 } else { key = $1 " " $2 " " $3 }
		}
		/cdb usage:/ { sub(/^.*cdb usage: */, ""); sub(/ *$/, ""); print key " " $0 }'
}

compare() {   # DESC EXPECTED_FILE ACTUAL_FILE
	if [ -s "$2" ] && diff -u "$2" "$3" >"$3.diff" 2>&1; then
		lab_pass "$1 ($(wc -l <"$2") commands)"
	else
		lab_fail "$1 (see $3.diff)"
		sed 's/^/    | /' "$3.diff" | head -20
	fi
}

for lu in engine core; do
	if [ $lu = engine ]; then sg=$sg0 so=$x0 flags=$(state_flags "$x0"); else
		sg=$sg1 so=$x1 flags=$(state_flags "$x1" --core); fi
	# shellcheck disable=SC2086
	"$XT_CMDS" $flags >"$OUT/$lu-table.list"
	# shellcheck disable=SC2086
	"$XT_CMDS" $flags --usage >"$OUT/$lu-table-usage.list"
	sg_opcodes -n "$sg" >"$OUT/$lu-sg_opcodes.txt" 2>&1 || true
	sg_list "$sg" >"$OUT/$lu-sg_opcodes.list" 2>/dev/null || true
	compare "xcopy=$lu: sg_opcodes lists exactly the command table" \
		"$OUT/$lu-table.list" "$OUT/$lu-sg_opcodes.list"
	sg_masks "$sg" >"$OUT/$lu-sg_opcodes-mask.list" 2>/dev/null || true
	compare "xcopy=$lu: every command's CDB usage data (one-command form) equals the table" \
		"$OUT/$lu-table-usage.list" "$OUT/$lu-sg_opcodes-mask.list"
	sg_opcodes -n --rctd "$sg" >"$OUT/$lu-sg_opcodes-rctd.txt" 2>&1 || true
	sg_list "$sg" --rctd >"$OUT/$lu-sg_opcodes-rctd.list" 2>/dev/null || true
	compare "xcopy=$lu: --rctd lists the same commands with timeouts descriptors" \
		"$OUT/$lu-table.list" "$OUT/$lu-sg_opcodes-rctd.list"
	lab_msg "    $lu: $(wc -l <"$OUT/$lu-table.list") commands, state flags '${flags# }'"
done

# One-command queries, decoded by sg_opcodes.
lab_check "sg_opcodes -o 0x83 -s 0: EXTENDED COPY(LID1) supported, usage data 83 00 ... ff ff ff ff" \
	sh -c "sg_opcodes -n -o 0x83 -s 0 '$sg0' | tee '$OUT/one-83-00.txt' |
		grep -q 'supported \[conforming' &&
		grep -qi 'Usage data: 83 00 00 00 00 00 00 00 00 00 ff ff ff ff 00 00' '$OUT/one-83-00.txt'"
lab_check "sg_opcodes -o 0x84 -s 4 --rctd: FAILED SEGMENT DETAILS supported, timeouts decoded" \
	sh -c "sg_opcodes -n -R -o 0x84 -s 4 '$sg0' | tee '$OUT/one-84-04.txt' |
		grep -q 'supported \[conforming' && grep -qi 'timeout' '$OUT/one-84-04.txt'"
lab_check "sg_opcodes -o 0x28: READ(10) supported, DPO/FUA/RDPROTECT not in the usage data" \
	sh -c "sg_opcodes -n -o 0x28 '$sg0' | tee '$OUT/one-28.txt' |
		grep -qi 'Usage data: 28 00 ff ff ff ff 00 ff ff 00'"
lab_check "sg_opcodes -o 0x2f: VERIFY(10) reported NOT supported" \
	sh -c "sg_opcodes -n -o 0x2f '$sg0' | tee '$OUT/one-2f.txt' | grep -q 'NOT supported'"
lab_check "sg_opcodes -o 0xa3 -s 0xc on the xcopy=core LU: RSOC is the plugin's there too" \
	sh -c "sg_opcodes -n -o 0xa3 -s 0xc '$sg1' | tee '$OUT/one-core-a3-0c.txt' |
		grep -q 'supported \[conforming'"
# Refused requests, sent raw and decoded by sg_raw: ILLEGAL REQUEST, INVALID
# FIELD IN CDB, field pointer CDB byte 2 bit 2 (REPORTING OPTIONS).
refused() {   # SLUG DESC CDB... : sg_raw fails and decodes exactly that sense
	local f=$OUT/refused-$1.txt desc=$2
	shift 2
	lab_check_fails "$desc: refused" sg_raw -r 64 "$sg0" "$@"
	sg_raw -v -r 64 "$sg0" "$@" >"$f" 2>&1 || true
	lab_check "$desc: Illegal Request, Invalid field in cdb, byte 2 bit 2 (70 .. 05 .. 24 00 .. ca 00 02)" \
		sh -c "grep -qi 'Sense key: Illegal Request' '$f' &&
			grep -qi 'Additional sense: Invalid field in cdb' '$f' &&
			grep -qi 'Error in Command: byte 2 bit 2' '$f' &&
			grep -q '70 00 05 00 00 00 00 0a  00 00 00 00 24 00 00 ca' '$f' &&
			grep -q '^ *00 02 *\$' '$f'"
}
refused 001b-84 "001b for 84h (it has service actions)" a3 0c 01 84 00 00 00 00 00 40 00 00
refused 010b-28 "010b for 28h (it has none)" a3 0c 02 28 00 00 00 00 00 40 00 00
refused 100b "reserved reporting option 100b" a3 0c 04 00 00 00 00 00 00 40 00 00
lab_check "sg_opcodes -o 0x84 is refused as an illegal request" \
	sh -c "! sg_opcodes -n -o 0x84 '$sg0' >'$OUT/one-84-nosa.txt' 2>&1 &&
		grep -qi 'illegal request' '$OUT/one-84-nosa.txt'"

# libiscsi: one fresh LU per suite and transport (list ids are per LU, see 210)
x2=$(lab_user_create x2 xcopy "$W/x2.img" 64M)
x3=$(lab_user_create x3 xcopy "$W/x3.img" 64M)
x4=$(lab_user_create x4 xcopy "$W/x4.img" 64M)
url=$(lab_iscsi_export iqn.2003-01.org.linux-iscsi.lab:rsoc260 "$x2" "$x3")
read -r _ sg4 <<<"$(lab_loop_export "$x4")"

check_suite() {   # TRANSPORT SUITE DEVICE WANT
	local r total passed failed secs log=$OUT/$1-$2.txt skips
	if ! r=$(xt_run_suite "$OUT" "$1" "$2" "$3"); then
		lab_fail "iscsi-test-cu $2 via $1 produced no summary"
		return 0
	fi
	read -r total _ passed failed secs <<<"$r"
	skips=$(grep -ac 'SKIPPED' "$log" || true)
	if [ "$passed" -eq "$4" ] && [ "$failed" -eq 0 ] && [ "$skips" -eq 0 ]; then
		lab_pass "iscsi-test-cu $2 via $1: $passed/$total passed, 0 SKIPPED (${secs} s)"
	else
		lab_fail "iscsi-test-cu $2 via $1: $passed/$total passed, $failed failed, $skips SKIPPED, want $4 and 0 (see $log)"
		grep -a 'SKIPPED' "$log" | sort | uniq -c | sed 's/^/    | /' | head -5
	fi
}
check_suite iscsi SCSI.ExtendedCopy "$url/0" 6
check_suite iscsi SCSI.ReceiveCopyResults "$url/1" 2
check_suite iscsi SCSI.ReportSupportedOpcodes "$url/0" 4
check_suite sg SCSI.ReceiveCopyResults "$sg4" 2
check_suite sg SCSI.ExtendedCopy "$sg4" 6
check_suite sg SCSI.ReportSupportedOpcodes "$sg4" 4
column -t -s $'\t' "$OUT/summary.tsv" 2>/dev/null || cat "$OUT/summary.tsv"
lab_summary
