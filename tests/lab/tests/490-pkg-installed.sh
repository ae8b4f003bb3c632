#!/bin/bash
# The Debian packages, installed: dpkg -i of the .debs that make package
# built (build/deb) into the guest's overlay root, tcmu-runner restarted
# with its packaged handler folder (no --handler-path), and the demo copy
# run with the installed /usr/bin/xcp only. Asserted: the packages install,
# tcmu-runner loads handler_xcopy.so from /usr/lib/<multiarch>/tcmu-runner,
# the demo's copies are offloaded and verified. The runner is put back as
# the lab started it afterwards.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

DEBS=$LAB_BUILD/deb
LOGD=$LAB_RUN_DIR/tcmu-pkg
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
mkdir -p "$LOGD"

restore_runner() {
	local p
	for p in $(pidof tcmu-runner); do kill "$p" 2>/dev/null || true; done
	lab_wait_for bash -c '! pidof tcmu-runner >/dev/null'
	tcmu-runner --handler-path "$(cat "$LAB_RUN_DIR/handler-path")" -l "$LAB_RUN_DIR/tcmu" \
		>>"$LAB_RUN_DIR/tcmu/stdout.log" 2>&1 &
	lab_wait_for bash -c "pidof tcmu-runner >/dev/null"
	sleep 1
}

lab_check "packages built by make package are there ($(ls "$DEBS" 2>/dev/null | grep -c '\.deb$') .debs)" \
	bash -c "ls '$DEBS'/libxcopy0_*.deb '$DEBS'/xcp_*.deb '$DEBS'/tcmu-runner-handler-xcopy_*.deb"
# --no-triggers: man-db's trigger would re-index every manual page over 9p
# under TCG for minutes; ldconfig (libc-bin's trigger) is run by hand
lab_check "dpkg -i libxcopy0 xcp tcmu-runner-handler-xcopy" bash -c "
	DEBIAN_FRONTEND=noninteractive timeout 120 dpkg -i --no-triggers $DEBS/libxcopy0_*.deb \
	$DEBS/xcp_*.deb $DEBS/tcmu-runner-handler-xcopy_*.deb && ldconfig"
lab_check "installed: /usr/bin/xcp runs, $(/usr/bin/xcp --version 2>&1 | head -1)" \
	/usr/bin/xcp --version
lab_check "installed: handler in tcmu-runner's own folder" \
	test -f "/usr/lib/$multiarch/tcmu-runner/handler_xcopy.so"

# tcmu-runner as the Debian service starts it: no --handler-path
lab_teardown
for p in $(pidof tcmu-runner); do kill "$p" 2>/dev/null || true; done
lab_wait_for bash -c '! pidof tcmu-runner >/dev/null'
tcmu-runner -l "$LOGD" >"$LOGD/stdout.log" 2>&1 &
trap 'restore_runner' EXIT
lab_check "tcmu-runner (packaged handler folder) registers handler xcopy" \
	lab_wait_for grep -q 'Handler xcopy is registered' "$LOGD/tcmu-runner.log"
pid=$(pidof tcmu-runner)
rc=0
LAB_TCMU_PID=$pid DEMO_XCP=/usr/bin/xcp DEMO_MB=16 DEMO_RAW_MB=8 \
	bash "$LAB_REPO/tests/demo/run" >"$LOGD/demo.log" 2>&1 || rc=$?
sed 's/^/    /' "$LOGD/demo.log" | grep -E 'OK:|FAILED:|offloaded|==' || true
lab_check "the demo with the installed xcp and plugin: exit 0 (got $rc)" test "$rc" -eq 0
lab_check "the runner served it with /usr/lib/$multiarch/tcmu-runner/handler_xcopy.so" \
	grep -q "/usr/lib/$multiarch/tcmu-runner/handler_xcopy.so" "/proc/$pid/maps"
lab_check "the demo used /usr/bin/xcp, not the build tree's" \
	bash -c "! grep -q '$LAB_BUILD/host/xcp' '$LOGD/demo.log'"
lab_summary
