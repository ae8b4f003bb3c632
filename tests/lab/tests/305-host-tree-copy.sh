#!/bin/bash
# xcp -r on ext4 over a user:xcopy LU behind tcm_loop: a directory with 3
# files (one sparse), a subdirectory and a symlink.
#   - into a destination tree whose files already exist and are written
#     (dd zeros, as 300 does for offloaded copies: on this 6.1 kernel a NEW
#     destination file cannot be allocated-and-zeroed, FALLOC_FL_WRITE_ZEROES
#     is 6.17): diff -r clean (read back cold), every data byte of every file
#     offloaded (--stats=json per file: bytes_offloaded = bytes - bytes_holes,
#     bytes_host 0; EXTENDED COPY commands counted), the sparse file stays
#     sparse (blocks <= its data + slack), link, modes and times kept;
#   - into a new directory: the same bytes, each file's fallback reason is
#     "allocation" in --stats=json and --stats text, the sparse file still sparse;
#   - entries in the way (a hard link to a file outside DST, a device node,
#     another user's file) are replaced by the copy, never written through;
#   - a copy failing half way (ulimit -f): the written destination gets its
#     old length back, a new file is removed, both reported failed.
set -euo pipefail
HERE=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lab/lib.sh
. "$HERE/../lib.sh"
lab_require_guest

W=/tmp/lab-305
XCP=$LAB_BUILD/host/xcp
mkdir -p "$W"
lab_check "xcp is built ($XCP)" test -x "$XCP"

truncate -s 512M "$W/x0.img"
x0=$(lab_user_create x0 xcopy "$W/x0.img" 512M)
read -r sd _ <<<"$(lab_loop_export "$x0")"
echo ',,L' | sfdisk -q "$sd" >/dev/null
lab_wait_for test -b "${sd}1"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "${sd}1"
M=$W/mnt
mkdir -p "$M"
mount "${sd}1" "$M"

S=$M/src
mkdir -p "$S/sub"
lab_random "$S/a" 8M
lab_random "$S/sub/b" 4M
# sparse: 4 MiB data, a 24 MiB hole, 64 KiB data
lab_random "$S/sparse" 4M
truncate -s 28M "$S/sparse"
head -c 64K /dev/urandom >>"$S/sparse"
ln -s sub/b "$S/link"
chmod 640 "$S/a"
touch -d '2021-02-03 04:05:06' "$S/a" "$S/sub"
data_sparse=$(((4 << 20) + (64 << 10)))

# the written destinations: same names and sizes, zeros
D=$M/dst
mkdir -p "$D/src/sub"
for f in a sub/b sparse; do
	dd if=/dev/zero of="$D/src/$f" bs=64K count=$(($(stat -c %s "$S/$f") >> 16)) conv=fsync status=none
done
sync
echo 3 >/proc/sys/vm/drop_caches

rc=0
"$XCP" -r --stats=json "$S" "$D" >"$W/tree.json" 2>"$W/tree.err" || rc=$?
cat "$W/tree.err"
python3 -m json.tool "$W/tree.json" | head -80
lab_check "xcp -r into written destinations: exit 0" test "$rc" -eq 0
echo 3 >/proc/sys/vm/drop_caches
lab_check "diff -r src dst/src: clean" diff -r "$S" "$D/src"
lab_check "... the symlink is a symlink to sub/b" test "$(readlink "$D/src/link")" = sub/b
lab_check "... mode and mtime of a file and the subdirectory kept" \
	test "$(stat -c '%a %Y' "$S/a" "$S/sub")" = "$(stat -c '%a %Y' "$D/src/a" "$D/src/sub")"
lab_check "--stats=json: 3 files, 2 directories, 1 symlink; every data byte of each file offloaded, none by the host" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); t = d["tree"]; e = {x["path"]: x for x in t["entries"]}
assert (t["files"], t["directories"], t["symlinks"], t["failed"]) == (3, 2, 1, 0), t
assert sorted(e) == ["a", "sparse", "sub/b"], e
for p, x in e.items():
    assert x["bytes_host"] == 0 and x["error"] is None, x
    assert x["bytes_offloaded"] == x["bytes"] - x["bytes_holes"] > 0, x
assert e["sparse"]["bytes_offloaded"] == int(sys.argv[2]), e["sparse"]
k = d["offload_commands"]
assert d["bytes_host"] == 0 and d["bytes_offloaded"] == sum(x["bytes_offloaded"] for x in e.values()), d
assert len(k) == 1 and k[0]["kind"] == "extended-copy-lid1" and k[0]["commands"] >= 3 and k[0]["failed"] == 0, k
print("offloaded", d["bytes_offloaded"], "bytes in", k[0]["commands"], "EXTENDED COPY commands")
' "$W/tree.json" "$data_sparse"
blocks=$(stat -c %b "$D/src/sparse")
lab_check "the sparse file stays sparse ($((blocks * 512)) bytes allocated for $data_sparse of data in $(stat -c %s "$S/sparse"))" \
	test "$((blocks * 512))" -le "$((data_sparse + (1 << 20)))"

# a new destination: the host copies each file, reason allocation, per file
rc=0
"$XCP" -r --stats=json "$S" "$M/new" >"$W/new.json" 2>"$W/new.err" || rc=$?
"$XCP" -r --stats "$S" "$M/new2" >"$W/new2.txt" 2>/dev/null || true
cat "$W/new.err" "$W/new2.txt"
echo 3 >/proc/sys/vm/drop_caches
lab_check "xcp -r into a new directory: exit 0, diff -r clean" \
	bash -c "[ $rc -eq 0 ] && diff -r '$S' '$M/new'"
lab_check "... each file's fallback reason in --stats=json: allocation, all its data" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); e = {x["path"]: x for x in d["tree"]["entries"]}
assert sorted(e) == ["a", "sparse", "sub/b"], e
for x in e.values():
    data = x["bytes"] - x["bytes_holes"]
    assert x["bytes_offloaded"] == 0 and x["bytes_host"] == data, x
    assert [(f["reason"], f["bytes"]) for f in x["fallbacks"]] == [("allocation", data)], x
' "$W/new.json"
lab_check "... and in --stats text" \
	grep -qx "file sub/b: 4194304 bytes, 0 offloaded, 4194304 host, 0 holes; fallback allocation 4194304" "$W/new2.txt"
blocks=$(stat -c %b "$M/new/sparse")
lab_check "... the sparse file stays sparse there too ($((blocks * 512)) bytes allocated)" \
	test "$((blocks * 512))" -le "$((data_sparse + (1 << 20)))"

# entries in the way (issue #33): a hard link to a file outside DST, a device
# node, another user's file. None is written through: each becomes the copy
# (a temporary renamed over it), the linked file keeps its bytes and mode.
D3=$M/dst3
mkdir -p "$D3/src/sub"
head -c 8M /dev/zero >"$M/victim"
chmod 604 "$M/victim"
cp "$M/victim" "$W/victim.before"
ln "$M/victim" "$D3/src/a"
mknod "$D3/src/sub/b" c 1 3
dd if=/dev/zero of="$D3/src/sparse" bs=64K count=$(($(stat -c %s "$S/sparse") >> 16)) status=none
chown 12345:12345 "$D3/src/sparse"
rc=0
"$XCP" -r "$S" "$D3" 2>"$W/d3.err" || rc=$?
cat "$W/d3.err"
echo 3 >/proc/sys/vm/drop_caches
lab_check "entries in the way: exit 0, diff -r clean" bash -c "[ $rc -eq 0 ] && diff -r '$S' '$D3/src'"
lab_check "... the hard-linked file outside DST: bytes, mode and link count as before" \
	bash -c "cmp '$W/victim.before' '$M/victim' && [ \"\$(stat -c '%a %h' '$M/victim')\" = '604 1' ]"
lab_check "... each name is a regular file of root's with one link, no temporary left" \
	bash -c "for f in a sub/b sparse; do [ \"\$(stat -c '%F %u %h' '$D3/src/'\$f)\" = 'regular file 0 1' ] || exit 1; done
		! find '$D3' -name '.*.xcp-*' | grep -q ."

# a copy failing half way (a 1 MiB file size limit, SIGXFSZ ignored): a written
# destination shorter than its source (its first 64 KiB can be offloaded) gets
# its old length back; the new files are removed; all reported as failed
D4=$M/dst4
mkdir -p "$D4/src/sub"
dd if=/dev/zero of="$D4/src/a" bs=64K count=1 conv=fsync status=none
rc=0
(trap '' XFSZ; ulimit -f 1024; exec "$XCP" -r --stats=json "$S" "$D4") >"$W/d4.json" 2>"$W/d4.err" || rc=$?
cat "$W/d4.err"
lab_check "a copy failing half way (EFBIG): exit 2; the 3 files reported failed" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); e = {x["path"]: x for x in d["tree"]["entries"]}
assert d["exit_code"] == 2 and d["tree"]["failed"] == 3, d
assert sorted(e) == ["a", "sparse", "sub/b"], e
assert all("File too large" in x["error"] for x in e.values()), e
' "$W/d4.json"
lab_check "... the written destination has its old length (65536), the new ones are gone, no temporary" \
	bash -c "[ \$(stat -c %s '$D4/src/a') -eq 65536 ] && [ ! -e '$D4/src/sparse' ] && [ ! -e '$D4/src/sub/b' ] &&
		! find '$D4' -name '.*.xcp-*' | grep -q ."
umount "$M"
lab_summary
