#!/bin/bash
# tests/scripts/test-check-layers.sh: scripts/check-layers on small made-up
# trees, so a checker that passes everything fails here. Each case builds a
# top with host/layers.conf, sources and (for calls) objects compiled from
# them, and expects check-layers' exit status and the violation it names.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CHECK=$TOP/scripts/check-layers
T=$(mktemp -d "${TMPDIR:-/tmp}/xcopy-layers.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# a fresh top: host/{api,dev}/ where api may use dev, one source each
fresh() {
	rm -rf "$T/top" "$T/build"
	mkdir -p "$T/top/host/api" "$T/top/host/dev" "$T/top/engine" "$T/top/common" "$T/top/target"
	printf 'api: dev\ndev:\n' >"$T/top/host/layers.conf"
	printf 'int dev_get(void);\n' >"$T/top/host/dev/dev.h"
	printf '#include "dev.h"\nint dev_get(void) { return 1; }\n' >"$T/top/host/dev/dev.c"
	printf 'int api_get(void);\n' >"$T/top/host/api/api.h"
	printf '#include "dev/dev.h"\n#include "api.h"\nint api_get(void) { return dev_get(); }\n' \
		>"$T/top/host/api/api.c"
}
# compile every .c of the top into BUILD/obj/<path>.o
objects() {
	local c
	while read -r c; do
		mkdir -p "$T/build/obj/$(dirname "$c")"
		gcc -c -I"$T/top/host" -o "$T/build/obj/${c%.c}.o" "$T/top/$c"
	done < <(cd "$T/top" && find . -name '*.c' -printf '%P\n')
}
# DESC WANT-RC [PATTERN]: run the checker; its status must be WANT-RC and,
# if given, its output must match PATTERN
expect() {
	local desc=$1 want=$2 pat=${3:-} rc=0
	"$CHECK" --build "$T/build" "$T/top" >"$T/out" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail=$((fail + 1)); echo "FAIL: check-layers: $desc: exit $rc, want $want"; sed 's/^/    /' "$T/out"
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" "$T/out"; then
		fail=$((fail + 1)); echo "FAIL: check-layers: $desc: no /$pat/ in:"; sed 's/^/    /' "$T/out"
	else
		pass=$((pass + 1))
	fi
}

fresh; objects
expect "downward include and call" 0 "ok: 4 sources, 2 objects"

fresh
printf '#include "../api/api.h"\nint dev_get(void) { return 1; }\n' >"$T/top/host/dev/dev.c"
expect "upward include" 1 "host/dev/dev.c:1: includes host/api/api.h: host/dev may not use host/api"

fresh
printf 'int api_get(void);\nint dev_get(void) { return api_get(); }\n' >"$T/top/host/dev/dev.c"
objects
expect "upward call (no include)" 1 "host/dev/dev.c: uses api_get of host/api: host/dev may not use host/api"

fresh
printf 'int stray(void) { return 0; }\n' >"$T/top/host/stray.c"
expect "source outside a folder" 1 "host/stray.c: not in a folder"

fresh
printf 'api: dev\ndev: api\n' >"$T/top/host/layers.conf"
expect "cycle in the rules" 1 "cycle host/api -> host/dev -> host/api|cycle api -> dev -> api"

fresh
printf 'api: dev net\ndev:\n' >"$T/top/host/layers.conf"
expect "rule names an unlisted folder" 1 "uses net, which is not listed"

fresh
mkdir -p "$T/top/target/x"
printf 'int t(void);\n' >"$T/top/target/x/t.h"
printf '#include "../../target/x/t.h"\n' >>"$T/top/host/api/api.c"
expect "host includes target" 1 "host/api may not use target/"

fresh
printf '#include "../host/api/api.h"\n' >"$T/top/engine/e.c"
expect "engine includes host" 1 "engine/ may not use host/api"

fresh
printf 'long copy_file_range(void);\nlong copy_file_range(void) { return 0; }\n' >"$T/top/host/api/preload.c"
printf 'long copy_file_range(void);\nlong c(void) { return copy_file_range(); }\n' >"$T/top/common/c.c"
objects
expect "a libc function interposed above is not a call up" 0 "ok:"

echo "check-layers: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
