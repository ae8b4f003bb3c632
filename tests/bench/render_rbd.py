"""The RBD rows of bench.md: rbd.csv from tests/bench/guest_rbd.sh."""
from bench_csv import csv_rows

PATHS = {"plugin": "user:xcopy LU → user:xcopy LU, EXTENDED COPY (RADOS copy-from)",
         "core": "handler_rbd (user:rbd), tcmu-runner core XCOPY within one image",
         "host": "host read/write: dd O_DIRECT 4 MiB between the user:xcopy LUs"}


def rbd_lines(raw):
    """A table: each copy's time, MiB/s, counters, ×core and ×host (their time / this)."""
    rows = csv_rows(raw, "rbd.csv")
    if not rows:
        return []
    t = {r["path"]: float(r["secs"] or "nan") for r in rows}
    md = ["", "RBD: one object-aligned copy on a single-node Ceph in the guest "
          "(1 memstore OSD, 4 MiB objects), SG_IO through tcm_loop. ×core = handler_rbd's "
          "core XCOPY time / this time; ×host = the dd time / this time. copy-from / gateway = "
          "the plugin's counters (bytes); by EXTENDED COPY / host fallback = what libxcopy offloaded / "
          "copied itself after a refusal or failure (a row with fallback bytes is not the copy "
          "manager's time). gateway / OSD CPU s = user + system seconds of tcmu-runner / "
          "ceph-osd during the copy.", "",
          "| path | size | time s | MiB/s | copy-from B | gateway B | by EXTENDED COPY B | host fallback B | gateway CPU s | OSD CPU s | ×core | ×host | verified |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        size = int(r["size"])
        secs = t[r["path"]]
        xc = f"{t['core'] / secs:.2f}×" if "core" in t and r["path"] != "core" and secs > 0 else "—"
        xh = f"{t['host'] / secs:.2f}×" if "host" in t and r["path"] != "host" and secs > 0 else "—"
        mibs = size / 1048576 / secs if secs > 0 else float("nan")
        md.append(f"| {PATHS.get(r['path'], r['path'])} | {size >> 20} MiB | {secs:.2f} | "
                  f"{mibs:.0f} | {r['copyfrom_B']} | {r['gateway_B']} | {r.get('offloaded_B') or '—'} | "
                  f"{r.get('fallback_B') or '—'} | {r.get('gw_cpu_s') or '—'} | "
                  f"{r.get('osd_cpu_s') or '—'} | {xc} | {xh} | "
                  f"{r['verified']} |")
    return md
