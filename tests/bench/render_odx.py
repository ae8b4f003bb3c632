"""The ODX rows of bench.md: odx.csv from tests/bench/guest_odx.sh."""
from bench_csv import csv_rows

STORES = {"rl": "reflink XFS", "nr": "XFS without reflink"}
PATHS = {"lid1": "EXTENDED COPY (LID1), user:xcopy",
         "odx": "ODX: PT + RRTI + WUTs of 64 MiB + RRTI, user:xcopy",
         "lio": "EXTENDED COPY (LID1), LIO fileio (no ODX in LIO)"}


def odx_lines(raw):
    """A table: each copy's time, ×LID1 (the LID1 time / this) and ×LIO."""
    rows = csv_rows(raw, "odx.csv")
    if not rows:
        return []
    t = {}
    for r in rows:
        r["total"] = float(r["secs"] or "nan") + float(r["sync_s"] or 0)
        t[(r["path"], r["store"], r["size"])] = r["total"]
    md = ["", "ODX beside LID1: one copy A→B of each size, SG_IO through tcm_loop "
          "(the same transport for every row). Time = copy commands + `sync` of the store; "
          "×LID1 = the user:xcopy LID1 time on the same store / this time; ×LIO = LIO fileio's "
          "LID1 time on the store without reflink / this time.", "",
          "| size | store | path | time s | MiB/s | ×LID1 | ×LIO | verified |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        size = int(r["size"])
        lid1 = t.get(("lid1", r["store"], r["size"]))
        lio = t.get(("lio", "nr", r["size"]))
        x1 = f"{lid1 / r['total']:.2f}×" if lid1 and r["path"] == "odx" else "—"
        xl = f"{lio / r['total']:.2f}×" if lio and r["path"] != "lio" else "—"
        mibs = size / 1048576 / r["total"] if r["total"] > 0 else float("nan")
        md.append(f"| {size >> 20} MiB | {STORES.get(r['store'], r['store'])} | "
                  f"{PATHS.get(r['path'], r['path'])} | {r['total']:.2f} | {mibs:.0f} | {x1} | {xl} | "
                  f"{r['verified']} |")
    return md
