"""The RBD rows of bench.md: rbd.csv from tests/bench/guest_rbd.sh."""
from bench_csv import csv_rows

PATHS = {"plugin": "user:xcopy LU → user:xcopy LU, EXTENDED COPY (RADOS copy-from)",
         "core": "handler_rbd (user:rbd), tcmu-runner core XCOPY within one image",
         "host": "host read/write: dd O_DIRECT 4 MiB between the user:xcopy LUs"}
GIB = 1 << 30


def per_gib(value, size):
    """value (a CSV field) per GiB copied, or — when absent."""
    try:
        return f"{float(value) * GIB / size:.2f}"
    except (TypeError, ValueError, ZeroDivisionError):
        return "—"


def rbd_lines(raw):
    """A table: per OSD count, each copy's time, the gateway's CPU and bytes per GiB,
    ×core and ×host (their time / this)."""
    rows = csv_rows(raw, "rbd.csv")
    if not rows:
        return []
    md = ["", "RBD: one object-aligned copy on a Ceph cluster in the guest (1 monitor, "
          "memstore OSDs, 4 MiB objects), SG_IO through tcm_loop, once per OSD count. "
          "The goal is what the gateway is spared: gateway CPU s / GiB and gateway GiB / GiB "
          "(bytes through tcmu-runner per GiB copied) against handler_rbd's, and time as the "
          "OSDs grow from 1 to 3. ×core = handler_rbd's core XCOPY time / this time; "
          "×host = the dd time / this time. by EXTENDED COPY / host fallback = what libxcopy "
          "offloaded / copied itself after a refusal (a row with fallback bytes is not the "
          "copy manager's time). CPU s = user + system seconds of tcmu-runner / all ceph-osd "
          "during the copy.", "",
          "| OSDs | path | size | time s | MiB/s | copy-from B | gateway B | gateway GiB / GiB | "
          "gateway CPU s / GiB | OSD CPU s / GiB | by EXTENDED COPY B | host fallback B | "
          "×core | ×host | verified |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for osds in sorted({r.get("osds") or "1" for r in rows}, key=int):
        group = [r for r in rows if (r.get("osds") or "1") == osds]
        t = {r["path"]: float(r["secs"] or "nan") for r in group}
        for r in group:
            size = int(r["size"])
            secs = t[r["path"]]
            xc = f"{t['core'] / secs:.2f}×" if "core" in t and r["path"] != "core" and secs > 0 else "—"
            xh = f"{t['host'] / secs:.2f}×" if "host" in t and r["path"] != "host" and secs > 0 else "—"
            mibs = size / 1048576 / secs if secs > 0 else float("nan")
            # handler_rbd's core XCOPY and dd move every byte through the gateway
            gw_b = r["gateway_B"] if r["path"] == "plugin" else str(size)
            md.append(f"| {osds} | {PATHS.get(r['path'], r['path'])} | {size >> 20} MiB | "
                      f"{secs:.2f} | {mibs:.0f} | {r['copyfrom_B']} | {r['gateway_B']} | "
                      f"{per_gib(int(gw_b) / GIB, size)} | {per_gib(r.get('gw_cpu_s'), size)} | "
                      f"{per_gib(r.get('osd_cpu_s'), size)} | {r.get('offloaded_B') or '—'} | "
                      f"{r.get('fallback_B') or '—'} | {xc} | {xh} | {r['verified']} |")
    return md
