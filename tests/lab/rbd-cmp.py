#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compares RBD images with files, for the lab (tests 600, 610, 640): what
`rbd export IMAGE - | cmp - FILE` says, without starting the rbd CLI (and
connecting to the cluster) for every comparison, which costs seconds under
TCG. One librados connection for the whole test; each request opens the
image read-only (no lock taken, no watch kept), reads it through librbd
in 4 MiB pieces and closes it again.

usage: rbd-cmp.py CONF
Requests on stdin, one a line: "POOL/IMAGE[@SNAP] FILE"; one answer a line
on stdout: "same", or "differ: ..." (first differing MiB, or the sizes), or
"error: ..." (no such pool, image or snapshot, a read error).
"""
import sys

import rados
import rbd

PIECE = 4 << 20


def compare(cluster, ioctxs, spec, path):
    name, _, snap = spec.partition("@")
    pool, _, image = name.partition("/")
    if pool not in ioctxs:
        ioctxs[pool] = cluster.open_ioctx(pool)
    with rbd.Image(ioctxs[pool], image, snapshot=snap or None, read_only=True) as img, \
            open(path, "rb") as f:
        size = img.size()
        off = 0
        while off < size:
            n = min(PIECE, size - off)
            a = img.read(off, n)
            b = f.read(n)
            if a != b:
                i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
                if len(b) < n and b == a[:len(b)]:
                    return f"differ: {path} ends at byte {off + len(b)}, image is {size} bytes"
                return f"differ: first at byte {off + i}"
            off += n
        if f.read(1):
            return f"differ: {path} is longer than the image ({size} bytes)"
    return "same"


def main():
    cluster = rados.Rados(conffile=sys.argv[1])
    cluster.connect()
    ioctxs = {}
    for line in sys.stdin:
        spec, _, path = line.strip().partition(" ")
        try:
            ans = compare(cluster, ioctxs, spec, path)
        except (rados.Error, rbd.Error, OSError) as e:
            ans = f"error: {spec} {path}: {e}"
        print(ans, flush=True)
    for io in ioctxs.values():
        io.close()
    cluster.shutdown()


if __name__ == "__main__":
    main()
