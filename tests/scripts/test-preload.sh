#!/bin/bash
# tests/scripts/test-preload.sh [PRELOAD_SO]: libxcopy-preload.so on this
# machine's files (no SCSI LU here; the offloaded case is lab test 370):
#   - one Python script of copy_file_range / sendfile calls (bad flags, bad
#     open modes, O_APPEND, a directory, overlapping ranges of one file, file
#     positions and offsets, copies up to and past EOF) prints the same
#     results, errno and file positions with and without the library;
#   - coreutils cp under it makes an identical copy, and the log says the
#     library took the call and why it fell back (not-scsi), once: later
#     calls between the same devices go straight to the real function;
#   - XCOPY_PRELOAD_DISABLE=1: nothing taken.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SO=$(realpath "${1:-$HERE/../../build/host/libxcopy-preload.so}")
LIBDIR=$(dirname "$SO")
T=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
pass=0 fail=0
check() { # DESC CMD...
	local d=$1; shift
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: preload: $d"; fi
}
pre() { LD_PRELOAD=$SO LD_LIBRARY_PATH=$LIBDIR "$@"; }

head -c $((3 * 1048576 + 777)) /dev/urandom >"$T/src"
cat >"$T/cases.py" <<'PY'
import ctypes, errno, os, sys
d = sys.argv[1]
src = os.path.join(d, "src")
size = os.path.getsize(src)

def res(name, f):
    try:
        r = f()
    except OSError as e:
        r = "errno " + errno.errorcode[e.errno]
    print(name, r)

def fresh(name, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC):
    return os.open(os.path.join(d, name), flags, 0o644)

s = os.open(src, os.O_RDONLY)
# os.copy_file_range passes flags 0: the C function itself, through ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.copy_file_range.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                 ctypes.c_size_t, ctypes.c_uint]
libc.copy_file_range.restype = ctypes.c_ssize_t
def cfr_flags():
    if libc.copy_file_range(s, None, fresh("a"), None, 10, 1) < 0:
        raise OSError(ctypes.get_errno(), "copy_file_range")
res("flags", cfr_flags)
res("src write-only", lambda: os.copy_file_range(fresh("b"), fresh("c"), 10))
res("dst read-only", lambda: os.copy_file_range(s, os.open(src, os.O_RDONLY), 10))
res("dst append", lambda: os.copy_file_range(s, fresh("e", os.O_WRONLY | os.O_CREAT | os.O_APPEND), 10))
res("dst directory", lambda: os.copy_file_range(s, os.open(d, os.O_RDONLY | os.O_DIRECTORY), 10))
rw = os.open(os.path.join(d, "same"), os.O_RDWR | os.O_CREAT, 0o644)
os.write(rw, b"x" * 8192)
res("same file overlap", lambda: os.copy_file_range(rw, rw, 4096, 0, 100))
res("len 0", lambda: os.copy_file_range(s, fresh("f"), 0))
res("negative offset", lambda: os.copy_file_range(s, fresh("g"), 10, -5, 0))
# file positions: none given moves both; offsets given move neither
o = fresh("pos")
os.lseek(s, 1000, os.SEEK_SET)
res("positions", lambda: (os.copy_file_range(s, o, 5000), os.lseek(s, 0, os.SEEK_CUR),
                          os.lseek(o, 0, os.SEEK_CUR)))
res("offsets", lambda: (os.copy_file_range(s, o, 4096, 8192, 20000), os.lseek(s, 0, os.SEEK_CUR),
                        os.lseek(o, 0, os.SEEK_CUR)))
res("past eof", lambda: os.copy_file_range(s, o, 4096, size + 10, 0))
res("to eof", lambda: os.copy_file_range(s, o, 1 << 30, size - 300, 0))
w = fresh("whole")
os.lseek(s, 0, os.SEEK_SET)
n = 0
while True:
    k = os.copy_file_range(s, w, 1 << 20)
    if k == 0:
        break
    n += k
print("whole", n, open(src, "rb").read() == open(os.path.join(d, "whole"), "rb").read())
sf = fresh("sf")
res("sendfile", lambda: (os.sendfile(sf, s, 100, 1 << 30), os.lseek(s, 0, os.SEEK_CUR),
                         os.lseek(sf, 0, os.SEEK_CUR)))
res("sendfile bad dst", lambda: os.sendfile(s, s, 0, 10))
PY
python3 "$T/cases.py" "$T" >"$T/real.out" 2>&1 || { cat "$T/real.out"; exit 1; }
rm -f "$T"/[a-g] "$T"/{same,pos,whole,sf}
XCOPY_PRELOAD_MIN=0 XCOPY_PRELOAD_LOG=$T/py.log pre python3 "$T/cases.py" "$T" >"$T/pre.out" 2>&1
check "the same results, errno and positions as the real calls ($(wc -l <"$T/real.out") cases)" \
	diff -u "$T/real.out" "$T/pre.out"
check "the copy of the whole file is identical" grep -qx "whole $((3 * 1048576 + 777)) True" "$T/pre.out"
# taken: the overlapping copy (libxcopy refuses it: the real call answers) and
# the first good copy (not-scsi: remembered, later calls go straight through)
check "only two calls taken: bad flags, modes and types are not, nor later ones" \
	test "$(grep -c 'bytes asked' "$T/py.log")" -eq 2
check "libxcopy's refusal goes to the real call" grep -q "libxcopy failed (Invalid argument)" "$T/py.log"
check "the taken call says why it fell back" grep -q "fell back for .*: not-scsi: " "$T/py.log"
check "a summary at exit (log file)" grep -q "total: 2 calls taken" "$T/py.log"

# the default XCOPY_PRELOAD_MIN (1 MiB): the small copies go straight to the real call
rm -f "$T"/[a-g] "$T"/{same,pos,whole,sf}
XCOPY_PRELOAD_LOG=$T/py-min.log pre python3 "$T/cases.py" "$T" >"$T/pre-min.out" 2>&1
check "default minimum: the same results" diff -u "$T/real.out" "$T/pre-min.out"
check "default minimum: copies under 1 MiB not taken, the 1 MiB chunks are" \
	bash -c "! grep -q 'libxcopy failed' '$T/py-min.log' && grep -q 'bytes asked: 1048576 copied' '$T/py-min.log'"
pre env XCOPY_PRELOAD_LOG=1 cp "$T/src" "$T/cp" 2>"$T/cp.err"
check "cp: identical copy" cmp "$T/src" "$T/cp"
check "cp: the library took cp's copy_file_range" grep -q "bytes asked: $((3 * 1048576 + 777)) copied" "$T/cp.err"
check "cp: and says why it fell back" grep -q "not-scsi: file system not on a SCSI disk" "$T/cp.err"
pre env XCOPY_PRELOAD_LOG=1 XCOPY_PRELOAD_DISABLE=1 cp "$T/src" "$T/cp2" 2>"$T/cp2.err"
check "XCOPY_PRELOAD_DISABLE: identical copy, nothing taken" \
	bash -c "cmp '$T/src' '$T/cp2' && ! grep -q 'bytes asked' '$T/cp2.err'"
echo "preload script tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
