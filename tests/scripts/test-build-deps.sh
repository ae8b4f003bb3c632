#!/bin/bash
# shellcheck disable=SC2015 # ok never fails: "A && ok || bad" is if-then-else here
# tests/scripts/test-build-deps.sh MAKE [ARGS...]: plain make on a machine
# without a build dependency. Nothing is uninstalled: the missing package is
# simulated where the check looks (scripts/check-build-deps):
#   - pkg-config modules: PKG_CONFIG_LIBDIR = an empty folder (libiscsi-dev,
#     libdevmapper-dev), or a folder of links to every system .pc but cunit.pc;
#   - headers: CC="cc --sysroot=EMPTY" (libsgutils2-dev has no .pc);
#   - no pkg-config at all: PKG_CONFIG=a path that does not exist.
# Each time make must print exactly one line naming the missing packages (and
# only those) and `make deps`, exit non-zero, and compile nothing (no object
# in its BUILD folder). With everything present the check prints nothing and
# exits 0; its cost is measured. Every package of configs/build-deps.list must be
# in configs/packages.list, or `make deps` would not install it.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tests/scripts/test-build-deps.sh MAKE [ARGS...]" >&2; exit 2; }
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/xcopy-deps.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: build-deps: $*"; }
make=("$@")
mkdir -p "$T/empty"

# DESC "MISSING PKGS" "NOT-NAMED PKGS" GOAL ENV... : a make in a fresh BUILD
expect_one_line() {
	local desc=$1 want=$2 notwant=$3 goal=$4
	shift 4
	rm -rf "$T/b"
	local rc=0
	# shellcheck disable=SC2086 # GOAL is a list of words
	env "$@" "${make[@]}" BUILD="$T/b" $goal >"$T/out" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] && ok || bad "$desc: make exited 0"
	local n
	n=$(wc -l <"$T/out")
	[ "$n" -eq 1 ] && ok || { bad "$desc: $n lines, not one:"; sed 's/^/    /' "$T/out"; }
	local line
	line=$(head -1 "$T/out")
	# the package names: between "dependencies: " and " [reasons]"
	local names=${line#*missing build dependencies: } p
	names=${names%% \[*}
	names=${names%% (optional*}
	for p in $want; do
		[[ " $names " == *" $p "* ]] && ok || bad "$desc: $p not named: $line"
	done
	for p in $notwant; do
		[[ " $names " != *" $p "* ]] && ok || bad "$desc: $p named though present: $line"
	done
	# shellcheck disable=SC2016 # the backquotes are text
	[[ $line == *'run `make deps` to install them'* ]] && ok || bad "$desc: no make deps hint: $line"
	[ -z "$(find "$T/b" -name '*.o' -print -quit 2>/dev/null)" ] && ok || bad "$desc: objects compiled"
}

# everything present: silent, exit 0; the cost of one check
t0=$(date +%s%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do
	out=$("$TOP/scripts/check-build-deps" build test) && ok || bad "all present: check failed: $out"
done
t1=$(date +%s%N)
[ -z "$out" ] && ok || bad "all present: the check printed: $out"
echo "build-deps: one check (build + test classes, all present) takes $(( (t1 - t0) / 10000000 )) ms"

expect_one_line "pkg-config modules missing" "libiscsi-dev libdevmapper-dev" \
	"libsgutils2-dev libcunit1-dev gcc pkg-config" "" PKG_CONFIG_LIBDIR="$T/empty"
expect_one_line "pkg-config modules missing, make install" "libiscsi-dev libdevmapper-dev" \
	"libsgutils2-dev" "install DESTDIR=$T/d" PKG_CONFIG_LIBDIR="$T/empty"
[ ! -e "$T/d" ] && ok || bad "make install with missing packages wrote $T/d"
expect_one_line "header missing" "libsgutils2-dev" "libiscsi-dev libdevmapper-dev gcc" \
	"" CC="cc --sysroot=$T/empty"
expect_one_line "no pkg-config" "pkg-config" "libiscsi-dev libdevmapper-dev libsgutils2-dev" \
	"" PKG_CONFIG="$T/no-pkg-config"
expect_one_line "no compiler" "gcc" "libiscsi-dev libdevmapper-dev" "" CC="$T/no-cc"

# the unit tests also need CUnit: every system .pc but cunit.pc
mkdir -p "$T/nocunit"
IFS=: read -ra pcdirs <<<"$(pkg-config --variable pc_path pkg-config)"
for d in "${pcdirs[@]}"; do
	for f in "$d"/*.pc; do
		[ -e "$f" ] && [ "${f##*/}" != cunit.pc ] && ln -sf "$f" "$T/nocunit/" || true
	done
done
expect_one_line "CUnit missing, make unit-tests" "libcunit1-dev" "libiscsi-dev libdevmapper-dev" \
	unit-tests PKG_CONFIG_LIBDIR="$T/nocunit"
# ... which plain make does not need: it passes the check (and builds)
out=$(PKG_CONFIG_LIBDIR="$T/nocunit" "$TOP/scripts/check-build-deps" build) && ok ||
	bad "CUnit missing: plain make's check fails: $out"

# optional packages are named after the required ones, in the same line
out=$(PKG_CONFIG_LIBDIR="$T/empty" OPTIONAL_MISSING="librbd-dev libradospp-dev" \
	"$TOP/scripts/check-build-deps" build) && bad "optional: exit 0" || ok
[[ $out == *"(optional: librbd-dev libradospp-dev)"* ]] && ok || bad "optional not named: $out"

# goals that compile nothing do not check: make clean works without the packages
PKG_CONFIG_LIBDIR="$T/empty" "${make[@]}" BUILD="$T/b" clean >"$T/out" 2>&1 && ok ||
	bad "make clean fails without the packages: $(tail -1 "$T/out")"

# make deps installs every package the check can name
while read -r class pkg _; do
	case $class in '' | '#'*) continue ;; esac
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$TOP/configs/packages.list" | grep -xF "$pkg" >/dev/null && ok ||
		bad "$pkg (configs/build-deps.list) is not in configs/packages.list"
done <"$TOP/configs/build-deps.list"

echo "build-deps: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
