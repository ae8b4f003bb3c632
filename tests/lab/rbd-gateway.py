#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A second gateway of an RBD image, for the lab (tests 630): a librbd client
that has the image open as a standby tcmu-runner gateway does (it watches,
holds no lock, writes nothing) and, when FILE TRIGGER appears, takes the
image over as a gateway does on ALUA failover: it breaks the exclusive lock
(librbd blocklists the old owner), acquires it, writes PATTERN_BYTE over
[OFF, OFF+LEN) and flushes.

usage: rbd-gateway.py CONF POOL IMAGE READY TRIGGER DONE [OFF LEN PATTERN_BYTE]
READY is created once the image is open, DONE (holding the seconds from the
trigger to the lock being ours, then the number of owners whose lock it broke:
0 when the lock was free at that moment) once the takeover wrote everything. Without
OFF LEN the client stays a standby until killed.
"""
import os
import sys
import time

import rados
import rbd

MIB = 1 << 20


def main():
    conf, pool, name, ready, trigger, done = sys.argv[1:7]
    takeover = sys.argv[7:10]
    cluster = rados.Rados(conffile=conf)
    cluster.connect()
    ioctx = cluster.open_ioctx(pool)
    image = rbd.Image(ioctx, name)
    open(ready, "w").close()
    while not os.path.exists(trigger):
        time.sleep(0.02)
    if not takeover:
        return 0
    off, length, byte = int(takeover[0]), int(takeover[1]), int(takeover[2], 0)
    t0 = time.monotonic()
    broken = 0
    for owner in image.lock_get_owners():
        image.lock_break(owner["mode"], owner["owner"])
        broken += 1
    print(f"takeover: broke {broken} lock(s) at {time.monotonic() - t0:.2f} s", flush=True)
    image.lock_acquire(rbd.RBD_LOCK_MODE_EXCLUSIVE)
    took = time.monotonic() - t0
    print(f"takeover: lock ours at {took:.2f} s", flush=True)
    chunk = bytes([byte]) * (4 * MIB)
    at = 0
    while at < length:
        n = min(len(chunk), length - at)
        image.write(chunk[:n], off + at)
        at += n
        if at % (16 * MIB) == 0:
            print(f"takeover: {at // MIB} MiB written at {time.monotonic() - t0:.2f} s", flush=True)
    image.flush()
    print(f"takeover: flushed at {time.monotonic() - t0:.2f} s", flush=True)
    with open(done, "w") as f:
        f.write(f"{took:.2f}\n{broken}\n")
    image.close()
    ioctx.close()
    cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
