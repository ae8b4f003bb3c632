#!/bin/bash
# tests/scripts/test-xcp.sh [XCP]: xcp's user interface on this machine's
# files (host copies: nothing here is a SCSI LU; the offloaded case is lab
# test 300):
#   - progress on a TTY (a pty from script(1)): refreshed in place on stderr
#     (CR, the line, erase to end of line), ended by a newline, the final line
#     "6.00 MiB / 6.00 MiB 100% ... host"; --no-progress silences it; not a
#     TTY: nothing unless --progress, then plain lines;
#   - --stats=json parsed by python3: the numbers of the copy; text --stats;
#   - --dry-run writes and creates nothing; exit codes and one-line errors;
#   - a copy failing half way (a file size limit) leaves the destination as
#     it was: a new one removed, an existing one its old length back (-r too).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
XCP=$(realpath "${1:-$HERE/../../build/host/xcp}")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
check() { # DESC CMD...
	local d=$1; shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: xcp: $d"; fi
}
json() { # FILE PYTHON-ASSERTS (d = the object)
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); n = 6 * 1048576
'"$2" "$1"
}
# in_pty CMD : run CMD (a shell string) with stdin/stdout/stderr on a pty; the pty's output on stdout
in_pty() { script -qec "$1" /dev/null </dev/null || true; }

head -c $((6 * 1048576)) /dev/urandom >"$T/src"
cd "$T"

# --- a TTY -------------------------------------------------------------------------
in_pty "$XCP --no-offload --stats=json src d1 >d1.json" >tty.out
check "TTY: progress drawn in place (CR ... ESC[K) and ended with a newline" \
	python3 -c 'import re, sys
t = open(sys.argv[1], "rb").read()
assert re.fullmatch(rb"(\r[^\r\n]* MiB / 6\.00 MiB +[0-9]+% [^\r\n]*\x1b\[K)*"
                    rb"\r6\.00 MiB / 6\.00 MiB 100% [0-9.]+ [KMGT]?i?B/s ETA 0:00 host\x1b\[K\r?\n", t), t
' tty.out
check "TTY: stdout (the JSON) holds no progress" bash -c '! grep -qa "MiB /" d1.json'
check "TTY: JSON numbers: $((6 * 1048576)) bytes by the host, reason requested, no command" json d1.json '
assert d["result"] == "copied" and d["exit_code"] == 0 and d["error"] is None, d
assert d["bytes_total"] == n and d["bytes_host"] == n and d["bytes_offloaded"] == 0, d
assert d["offload_commands"] == [] and d["offloaded_percent"] == 0, d
assert [(f["reason"], f["ranges"], f["bytes"]) for f in d["fallbacks"]] == [("requested", 1, n)], d
assert d["source"] == "src" and d["destination"] == "d1" and d["seconds"] >= 0, d'
check "TTY: data copied" cmp src d1
in_pty "$XCP --no-progress src d2" >tty2.out
check "TTY + --no-progress: nothing on the terminal" test ! -s tty2.out

# --- not a TTY ----------------------------------------------------------------------
"$XCP" src d3 2>err3
check "not a TTY: no progress by default" bash -c '! grep -q "MiB /" err3'
"$XCP" --progress src d4 2>err4
check "not a TTY + --progress: plain lines, no control characters" \
	bash -c 'grep -q "^6.00 MiB / 6.00 MiB 100% .* ETA 0:00 " err4 && ! grep -qaP "[\r\e]" err4'
"$XCP" --stats src d5 >d5.txt
check "--stats (text) as before" bash -c "grep -qx 'bytes by fallback: $((6 * 1048576))' d5.txt && grep -qx 'bytes offloaded:   0' d5.txt"
"$XCP" --stats=json src d6 >d6.json
check "--stats=json without flags: offloaded + host = the file" json d6.json '
assert d["bytes_offloaded"] + d["bytes_host"] == n and d["result"] == "copied", d'
"$XCP" --method=odx --stats src d10 >d10.txt
check "--method=odx on a file not on SCSI: copied by the host, per-method lines" \
	bash -c "cmp -s src d10 && grep -qx 'bytes by token:    0' d10.txt && grep -q '^token commands:    0 populate' d10.txt"
mkdir dir
"$XCP" src dir/
check "DST a directory: SRC's base name in it (as cp)" cmp src dir/src

# --- dry run ------------------------------------------------------------------------
rc=0; "$XCP" --explain src newfile >plan.txt 2>&1 || rc=$?
check "--explain: exit 0, plan printed, destination not created" \
	bash -c "[ $rc -eq 0 ] && grep -q '^extents: ' plan.txt && grep -q 'nothing written' plan.txt && [ ! -e newfile ]"
"$XCP" -n --stats=json src newfile >plan.json
check "--explain --stats=json: the plan as JSON, every byte accounted for, nothing created" json plan.json '
b = d["bytes_offload"] + d["bytes_allocate_offload"] + d["bytes_host"] + d["bytes_zero"]
assert b == n and sum(e["length"] for e in d["extents"]) == n, d
assert d["nsegments"] == sum(len(c["segments"]) for c in d["commands"]), d
assert all(e["kind"] in ("offload", "host", "zero", "allocate+offload") for e in d["extents"]), d'
check "... newfile not created" test ! -e newfile
cp d1 old && touch -d @1000000000 old
"$XCP" -n src old >/dev/null
check "--dry-run: an existing destination is not touched" \
	bash -c "cmp -s d1 old && [ \"\$(stat -c %Y old)\" = 1000000000 ]"
if grep -q '^no offload: not-scsi' plan.txt; then
	rc=0; "$XCP" -n --require-offload src newfile >/dev/null 2>err || rc=$?
	check "--dry-run --require-offload, not on SCSI: exit 3 and why" \
		bash -c "[ $rc -eq 3 ] && grep -q '^xcp: offload refused (--require-offload)' err"
fi

# --- errors and exit codes ------------------------------------------------------------
rc=0; "$XCP" --stats=json missing d7 >d7.json 2>err7 || rc=$?
check "missing source: exit 4, one line naming it" \
	bash -c "[ $rc -eq 4 ] && [ \$(wc -l <err7) -eq 1 ] && grep -qx 'xcp: cannot open missing: No such file or directory' err7"
check "... and the JSON says so" json d7.json '
assert d["result"] == "open-failed" and d["exit_code"] == 4 and "missing" in d["error"], d'
rc=0; "$XCP" dir d8 2>err8 || rc=$?
check "a directory as SRC: exit 4, says to use -r" bash -c "[ $rc -eq 4 ] && grep -q 'copy trees with xcp -r' err8"
# a copy failing half way (a file size limit: EFBIG after 64 KiB, SIGXFSZ ignored) leaves
# the destination as it was: a new one removed, an existing one its old length back
fsz() { (trap '' XFSZ; ulimit -f 64; exec "$@"); }
rc=0; fsz "$XCP" src d11 2>err11 || rc=$?
check "a copy failing half way (EFBIG): exit 2, the new destination removed" \
	bash -c "[ $rc -eq 2 ] && [ ! -e d11 ] && grep -q '^xcp: copy failed: File too large' err11"
head -c 1000 /dev/zero >d12
rc=0; fsz "$XCP" src d12 2>/dev/null || rc=$?
check "... an existing destination gets its old length back" \
	bash -c "[ $rc -eq 2 ] && [ \$(stat -c %s d12) -eq 1000 ]"

# --- -r: a tree (the library's side: tests/unit/host/cli/test_xcp_tree.c; offloaded: lab 300) ---
mkdir -p tree/sub && cp src tree/f && printf x >tree/sub/g && ln -sf sub/g tree/l
truncate -s 20M tree/hole && printf y >>tree/hole
rc=0; "$XCP" -r --stats=json tree copy >tree.json 2>tree.err || rc=$?
check "-r: exit 0, diff -r clean, nothing on stderr" 	bash -c "[ $rc -eq 0 ] && diff -r tree copy && [ ! -s tree.err ] && [ \"\$(readlink copy/l)\" = sub/g ]"
check "-r --stats=json: tree counts, per-file bytes and reasons, totals add up" json tree.json '
t = d["tree"]; e = {x["path"]: x for x in t["entries"]}
assert (t["files"], t["directories"], t["symlinks"], t["failed"]) == (3, 2, 1, 0), t
assert sorted(e) == ["f", "hole", "sub/g"], e
assert e["f"]["bytes"] == n and e["f"]["bytes_host"] + e["f"]["bytes_offloaded"] == n, e
assert e["hole"]["bytes_holes"] >= 20 * 1048576 - 4096 and e["hole"]["fallbacks"][0]["reason"], e
assert d["bytes_total"] == n + 1 + 20 * 1048576 + 1, d
assert d["bytes_offloaded"] + d["bytes_host"] + t["bytes_holes"] == d["bytes_total"], d'
check "-r: the sparse file stays sparse" bash -c "[ \$(stat -c %b copy/hole) -le \$(( \$(stat -c %b tree/hole) + 128 )) ]"
"$XCP" -r --stats tree copy >tree.txt 2>&1
check "-r --stats (text): one line per file with its fallback reason" \
	bash -c "grep -q '^tree: *3 files, 2 directories, 1 symlinks' tree.txt && grep -Eq '^file sub/g: 1 bytes, 0 offloaded, 1 host, 0 holes; fallback [a-z-]+ 1$' tree.txt"
rc=0; fsz "$XCP" -r --stats=json tree copy2 >tree2.json 2>/dev/null || rc=$?
check "-r, files failing half way (EFBIG): exit 2, reported as failed, not in the copy" \
	bash -c "[ $rc -eq 2 ] && [ ! -e copy2/f ] && [ ! -e copy2/hole ] && cmp -s tree/sub/g copy2/sub/g && \
		[ -z \"\$(ls -A copy2 | grep '^\\.')\" ]"
check "... --stats=json: f and hole failed, sub/g copied" json tree2.json '
e = {x["path"]: x for x in d["tree"]["entries"]}
assert d["tree"]["failed"] == 2 and d["exit_code"] == 2, d
assert "File too large" in e["f"]["error"] and "File too large" in e["hole"]["error"], e
assert e["sub/g"]["error"] is None, e'
rc=0; "$XCP" -r tree tree/sub 2>err9 || rc=$?
check "-r into itself: exit 1, one line" bash -c "[ $rc -eq 1 ] && [ \$(wc -l <err9) -eq 1 ] && grep -q 'into itself' err9 && [ ! -e tree/sub/tree ]"
for bad in "-r --offset 1 tree d9" "-r -n tree d9" "-r tree /dev/null"; do
	rc=0
	# shellcheck disable=SC2086 # the words are the arguments
	"$XCP" $bad >/dev/null 2>&1 || rc=$?
	check "usage error 'xcp $bad': exit 1" test "$rc" -eq 1
done
for bad in "--stats=xml src d9" "--bogus src d9" "--require-offload --no-offload src d9" "src" \
	"--blocks 1 src d9" "--length x src d9" "--method=lid4 src d9"; do
	rc=0
	# shellcheck disable=SC2086 # the words are the arguments
	"$XCP" $bad >/dev/null 2>&1 || rc=$?
	check "usage error 'xcp $bad': exit 1" test "$rc" -eq 1
done
check "-V prints the version" bash -c "'$XCP' -V | grep -q '^xcp [0-9]'"

echo "xcp CLI: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
