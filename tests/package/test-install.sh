#!/bin/bash
# shellcheck disable=SC2015 # ok never fails: "A && ok || bad" is if-then-else here
# tests/package/test-install.sh: after one build, `make install` into two
# DESTDIRs with different PREFIXes (and a third with LIBDIR/INCLUDEDIR given
# apart from PREFIX) must
#   - compile and link nothing (the build is done; installing only copies),
#   - write a libxcopy.pc whose prefix, libdir and includedir are those of
#     that install, as pkg-config reads it from the staged tree
#     (PKG_CONFIG_LIBDIR = the staged pkgconfig dir, PKG_CONFIG_SYSROOT_DIR =
#     DESTDIR, as for a cross or staged build),
#   - give a program compiled with `pkg-config --cflags --libs libxcopy` the
#     staged header and library: it is built, linked to libxcopy.so.0 and run.
# Run by make test-install (a part of make test-unit) with the make
# command line to use: tests/package/test-install.sh MAKE ARGS...
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tests/package/test-install.sh MAKE [ARGS...]" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/xcopy-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: install: $*"; }
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=$(head -1 "$TOP/debian/changelog" | sed 's/.*(\([^)-]*\).*/\1/')
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || true)
libsub=lib${ma:+/$ma}
syspc=$(pkg-config --variable pc_path pkg-config)

cat >"$T/t.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <xcopy.h>
int
main(void)
{
	const char *n = xcopy_fallback_reason_name(XCOPY_FB_NONE);

	printf("%s\n", n != NULL ? n : "(null)");
	return n == NULL || strlen(n) == 0;
}
EOF

# NAME PREFIX LIBDIR INCLUDEDIR [extra make args]: install to $T/NAME and check it
run() {
	local name=$1 prefix=$2 libdir=$3 incdir=$4
	shift 4
	local d=$T/$name
	if ! "$@" install DESTDIR="$d" PREFIX="$prefix" >"$T/$name.log" 2>&1; then
		tail -20 "$T/$name.log"
		bad "$name: make install PREFIX=$prefix failed"
		return
	fi
	# the msg lines of a compile or link (V=0) or the commands (V=1)
	if grep -Eq '^  (CC|CC-SAN|LD|AR|CXX) |(gcc|cc|g\+\+) .* -c ' "$T/$name.log"; then
		bad "$name: make install rebuilt something:"
		grep -E '^  (CC|CC-SAN|LD|AR|CXX) ' "$T/$name.log" | head -5
	else
		ok
	fi
	local pc=$d$libdir/pkgconfig/libxcopy.pc
	[ -f "$pc" ] && ok || { bad "$name: no $pc"; return; }
	# libiscsi.pc (Requires.private) comes from the build machine's own path
	local path=$d$libdir/pkgconfig:$syspc
	pcq() { PKG_CONFIG_LIBDIR=$path PKG_CONFIG_PATH='' pkg-config "$@" libxcopy; }
	local got
	# the file as written: the paths of this install
	for var in prefix:"$prefix" libdir:"$libdir" includedir:"$incdir"; do
		got=$(pcq --variable="${var%%:*}")
		[ "$got" = "${var#*:}" ] && ok || bad "$name: ${var%%:*}=$got, expected ${var#*:}"
	done
	[ "$(pcq --modversion)" = "$version" ] && ok ||
		bad "$name: Version $(pcq --modversion), expected $version (debian/changelog)"
	# read from the staged tree (PKG_CONFIG_SYSROOT_DIR = DESTDIR): pkgconf puts
	# the sysroot before prefix and before every -I/-L
	spcq() { PKG_CONFIG_SYSROOT_DIR=$d pcq "$@"; }
	got=$(spcq --variable=prefix)
	[ "$got" = "$d$prefix" ] && ok || bad "$name: sysroot prefix=$got, expected $d$prefix"
	local cflags libs
	cflags=$(spcq --cflags)
	libs=$(spcq --libs | sed "s/ *$//")
	[[ "$cflags " == "-I$d$incdir "* ]] && ok || bad "$name: --cflags '$cflags', expected -I$d$incdir first"
	[ "$libs" = "-L$d$libdir -lxcopy" ] && ok || bad "$name: --libs '$libs', expected -L$d$libdir -lxcopy"
	# shellcheck disable=SC2086 # pkg-config output is a list of words
	if ! cc -Wall -Werror $cflags -MD -MF "$T/$name.d" -o "$T/$name.bin" "$T/t.c" $libs 2>"$T/$name.cc"; then
		sed 's/^/    /' "$T/$name.cc"
		bad "$name: a program does not build against the installed tree"
		return
	fi
	grep -qF "$d$incdir/xcopy.h" "$T/$name.d" && ok || bad "$name: xcopy.h not taken from $d$incdir"
	# grep reads to the end (no -q): an early exit would SIGPIPE the producer under pipefail
	readelf -d "$T/$name.bin" | grep 'NEEDED.*\[libxcopy\.so\.0\]' >/dev/null && ok ||
		bad "$name: the program is not linked to libxcopy.so.0"
	local out
	out=$(LD_LIBRARY_PATH=$d$libdir "$T/$name.bin") && ok || bad "$name: the program failed"
	# the library it ran with is the staged one
	LD_LIBRARY_PATH=$d$libdir ldd "$T/$name.bin" | grep -F "$d$libdir/libxcopy.so.0" >/dev/null && ok ||
		bad "$name: ld.so did not take libxcopy.so.0 from $d$libdir"
	[ -n "$out" ] && ok || bad "$name: the program printed nothing"
}

make=("$@")
# one build, then three installs of it
if ! "${make[@]}" build-all >"$T/build.log" 2>&1; then
	tail -20 "$T/build.log"
	echo "FAIL: install: the build failed"
	exit 1
fi
run usr /usr "/usr/$libsub" /usr/include "${make[@]}"
run opt /opt/xcopy "/opt/xcopy/$libsub" /opt/xcopy/include "${make[@]}"
run split /opt/x /opt/x/lib64 /opt/x/inc "${make[@]}" LIBDIR=/opt/x/lib64 INCLUDEDIR=/opt/x/inc

# paths a .pc cannot carry: refused with one line before anything is written
for p in relative/dir "/opt/with space"; do
	mkdir -p "$T/rel"
	if "${make[@]}" install DESTDIR="$T/rel/" PREFIX="$p" >"$T/rel.log" 2>&1; then
		bad "PREFIX='$p' was installed"
	else
		grep -q "PREFIX='$p': install paths must be absolute and without white space" "$T/rel.log" &&
			ok || bad "PREFIX='$p': no clear error: $(tail -1 "$T/rel.log")"
	fi
	[ -z "$(find "$T/rel" -mindepth 1 -print -quit)" ] && ok || bad "PREFIX='$p' wrote files"
	rm -rf "$T/rel"
done

# scripts/gen-pc takes the values literally ('&', '|', '\' are no sed syntax)
PC_PREFIX='/o&p|t\1' PC_LIBDIR=/l PC_INCLUDEDIR=/i PC_VERSION=9 \
	"$TOP/scripts/gen-pc" "$TOP/host/libxcopy.pc.in" "$T/lit.pc"
[ "$(sed -n 's/^prefix=//p' "$T/lit.pc")" = '/o&p|t\1' ] && ok || bad "gen-pc: prefix not literal: $(head -1 "$T/lit.pc")"

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
