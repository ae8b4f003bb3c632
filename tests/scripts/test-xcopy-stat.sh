#!/bin/bash
# tests/scripts/test-xcopy-stat.sh [XCOPY_STAT]: scripts/xcopy-stat against
# stats files with known values (tests/scripts/xcopy-stat/*.stats: two
# well-formed LUs, one with a key this version does not know, the LU settings and a path
# needing label escaping, one of junk lines), both output formats compared
# byte for byte with the expected files; options, LU selection, exit codes.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
XS=${1:-$HERE/../../scripts/xcopy-stat}
FX=$HERE/xcopy-stat
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: xcopy-stat: $*"; }
# expect DESC WANT_RC WANT_FILE_OR_- CMD... : exit code and (if given) stdout
expect() {
	local desc=$1 want=$2 file=$3 rc=0
	shift 3
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		ko "$desc: exit $rc, expected $want ($(head -c 200 "$T/err"))"
	elif [ "$file" != - ] && ! diff -u "$file" "$T/out" >"$T/diff"; then
		ko "$desc: output differs"; cat "$T/diff"
	else
		ok
	fi
}

expect "table of every LU" 0 "$FX/table.expected" "$XS" -d "$FX"
expect "Prometheus text format" 0 "$FX/prom.expected" "$XS" -d "$FX" --prometheus
expect "-p = --prometheus, --dir=" 0 "$FX/prom.expected" "$XS" -p "--dir=$FX"
# the LU settings (b1 has them: not counter columns above, a table of their own, gauges)
expect "settings of every LU (-s)" 0 "$FX/settings.expected" "$XS" -d "$FX" -s
expect "--settings = -s" 0 "$FX/settings.expected" "$XS" --settings -d "$FX"
expect "settings of one LU" 0 - "$XS" -d "$FX" -s b1
read -r -a row < <(sed -n 2p "$T/out")
[ "${row[*]:0:7}" = "b1 128 512 64 128 64 hw_max_sectors,max_data_area_mb" ] && ok || ko "b1's settings: ${row[*]}"
expect "settings, Prometheus" 0 - "$XS" -d "$FX" -p b1
grep -qxF 'xcopy_hw_max_sectors{lu="b1",path="/srv/dir \"q\"\\b1.img"} 128' "$T/out" &&
	grep -qx '# TYPE xcopy_max_data_area_mb gauge' "$T/out" &&
	grep -q 'xcopy_capped{lu="b1",.*setting="max_data_area_mb"} 1$' "$T/out" && ok ||
	ko "b1's settings (prom): $(grep -e hw_max -e capped "$T/out")"
expect "XCOPY_STATS_DIR is the default folder" 0 "$FX/table.expected" env XCOPY_STATS_DIR="$FX" "$XS"
# one LU named: its row only (header + x0's row of the full table; the
# columns are those of the files read, so compare x0's values, not widths)
expect "one LU named" 0 - "$XS" -d "$FX" x0
read -r -a row < <(sed -n 2p "$T/out")
[ "${row[*]}" = "x0 12 10 2 40 1073741824 1073741824 0 0 0 1 3 0 30 /srv/x0.img" ] && ok ||
	ko "x0's row: ${row[*]}"
expect "one LU, Prometheus" 0 - "$XS" -d "$FX" -p x0
grep -qx 'xcopy_bytes_total{lu="x0",path="/srv/x0.img"} 1073741824' "$T/out" && ok || ko "x0 bytes metric"
grep -q 'lu="b1"' "$T/out" && ko "b1 printed though only x0 was asked" || ok
[ "$(grep -c '^xcopy_' "$T/out")" -eq 13 ] && ok || ko "x0: $(grep -c '^xcopy_' "$T/out") samples, expected 13"
expect "an LU without stats: exit 1, the others printed" 1 - "$XS" -d "$FX" x0 nope
grep -q '^x0 ' "$T/out" && grep -q 'no stats for LU nope' "$T/err" && ok || ko "x0 nope: $(cat "$T/err")"
mkdir "$T/empty"
expect "no LU: table says so on stderr, exit 0" 0 - "$XS" -d "$T/empty"
[ ! -s "$T/out" ] && grep -q 'no LU stats' "$T/err" && ok || ko "empty folder (table)"
expect "no LU: Prometheus prints nothing, exit 0" 0 - "$XS" -d "$T/empty" -p
[ ! -s "$T/out" ] && ok || ko "empty folder (prom)"
expect "a folder that does not exist: exit 1" 1 - "$XS" -d "$T/none"
expect "unknown option: exit 2" 2 - "$XS" --bogus
expect "-d without a folder: exit 2" 2 - "$XS" -d
expect "--help: exit 0" 0 - "$XS" --help
grep -q '^usage: xcopy-stat' "$T/out" && ok || ko "--help text"
# files that are not <LU>.stats are ignored; a file named x.stats without a
# name line is that LU
cp "$FX"/*.stats "$T/"
echo "commands 5" >"$T/noname.stats"
echo "commands 99" >"$T/other.txt"
expect "non-.stats files ignored, LU name from the file name" 0 - "$XS" -d "$T"
grep -q '^noname  *5 ' "$T/out" && ! grep -q 99 "$T/out" && ok || ko "noname/other: $(cat "$T/out")"
# the RBD and async keys: counters with help, inflight_max a gauge
printf 'name r0\npath rbd:rbd/r0\ncommands 2\nstore_copies 3\ninflight_max 2\nlast_fallback different object sizes\n' \
	>"$T/r0.stats"
expect "RBD keys, Prometheus" 0 - "$XS" -d "$T" -p r0
grep -qx '# TYPE xcopy_store_copies_total counter' "$T/out" &&
	grep -qx 'xcopy_store_copies_total{lu="r0",path="rbd:rbd/r0"} 3' "$T/out" &&
	grep -qx '# TYPE xcopy_inflight_max gauge' "$T/out" &&
	grep -q '^# HELP xcopy_store_copies_total RBD to RBD copy calls' "$T/out" && ok ||
	ko "RBD keys: $(grep store_copies\\\|inflight "$T/out")"
# delegated_bytes (peer/peer_deleg.c): a counter with its help
printf 'name d0\npath /x/d0.img\ncommands 1\ndelegated_bytes 16777216\n' >"$T/d0.stats"
expect "delegated_bytes, Prometheus" 0 - "$XS" -d "$T" -p d0
grep -qx 'xcopy_delegated_bytes_total{lu="d0",path="/x/d0.img"} 16777216' "$T/out" &&
	grep -q "^# HELP xcopy_delegated_bytes_total bytes copied by a peer target's copy manager" "$T/out" &&
	ok || ko "delegated_bytes: $(grep delegated "$T/out")"

# refresh: with a live writer (DIR/writer.pid) xcopy-stat asks it for fresh
# files (DIR/refresh) and reads them once served; a stand-in writer here
# serves the request as the plugin's does (rename to refresh.busy, write,
# remove). Without a writer.pid (the folders above) it asks nothing.
mkdir "$T/w"
printf 'name w0\npath /srv/w0.img\ncommands 1\n' >"$T/w/w0.stats"
(
	for _ in $(seq 500); do
		if mv "$T/w/refresh" "$T/w/refresh.busy" 2>/dev/null; then
			printf 'name w0\npath /srv/w0.img\ncommands 7\n' >"$T/w/w0.stats"
			rm -f "$T/w/refresh.busy"
			exit 0
		fi
		sleep 0.01
	done
) &
echo $! >"$T/w/writer.pid"
expect "a live writer: its refreshed file read" 0 - "$XS" -d "$T/w" w0
read -r -a row < <(sed -n 2p "$T/out")
[ "${row[1]}" = 7 ] && [ ! -e "$T/w/refresh" ] && ok || ko "refresh: w0's row ${row[*]}"
wait
expect "a writer gone: no request, the file as it is" 0 - "$XS" -d "$T/w" w0
[ ! -e "$T/w/refresh" ] && ok || ko "refresh asked of a writer that is gone"
[ ! -e "$FX/refresh" ] && ok || ko "refresh asked in a folder without writer.pid"

echo "xcopy-stat: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
