"""The rbdio rows of bench.md: rbdio.csv from tests/bench/guest_rbdio.sh (the LU as a disk on RBD)."""
from bench_csv import csv_rows
from render_io import GIB, fnum, lat, metric, ratio

TARGETS = [("xcopy-rbd", "user:xcopy (RBD store)"),
           ("handler-rbd", "handler_rbd"),
           ("handler-rbd-nocache", "handler_rbd, conf with rbd cache off"),
           ("librbd", "librbd (fio rbd engine)"),
           ("librbd-cache", "librbd, client defaults")]
# the RBD goals: these rows, against handler_rbd and librbd
GOAL_ROWS = ("seq-read-1m-qd1", "seq-read-1m-qd8", "seq-read-1m-qd32", "seq-write-1m-qd1",
             "seq-write-1m-qd8", "seq-write-1m-qd32", "rand-read-4k-qd32", "rand-write-4k-qd32")
GOAL_HANDLER, GOAL_LIBRBD = 1.5, 0.7


def per_gib(r, col):
    """CPU seconds of the ticks column col per GiB moved over the measured window, or NaN."""
    try:
        moved = (fnum(r["r_mbs"]) if r["r_mbs"] else 0) + (fnum(r["w_mbs"]) if r["w_mbs"] else 0)
        gib = moved * 1e6 * float(r["cpu_window_s"]) / GIB
        return float(r[col]) / float(r["clk_tck"]) / gib if gib > 0 else float("nan")
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return float("nan")


def f1(v):
    return f"{v:.1f}" if v == v else "—"


def rbdio_lines(raw, guest):
    """Throughput with ×handler_rbd and ×librbd, gateway CPU and latency, the goals."""
    rows = csv_rows(raw, "rbdio.csv")
    if not rows:
        return []
    by = {(r["target"], r["row"]): r for r in rows}
    names = list(dict.fromkeys(r["row"] for r in rows))
    have = [(t, s) for t, s in TARGETS if any(r["target"] == t for r in rows)]
    val = {k: metric(r)[0] for k, r in by.items()}
    nan = float("nan")
    md = ["", f"The LU as a disk on RBD (phase rbdio, kernel {guest.get('kernel', '?')}, Ceph "
          f"{guest.get('rbdio_ceph', '?')}): a Ceph cluster in the guest (1 monitor, 1 memstore OSD, "
          f"pool rbd, 4 MiB objects), one {int(guest.get('rbdio_size', 0)) >> 20} MiB image per "
          "target, written whole first; fio with direct I/O (libaio) on each LU's tcm_loop disk, and "
          "fio's rbd engine (librbd in fio's process) for librbd; the io phase's rows and seconds. "
          "1 MiB rows in MB/s, 4 KiB rows in IOPS. ×handler_rbd / ×librbd = user:xcopy / that. "
          "librbd's cache is off for the plugin, handler_rbd (tcmu-runner sets rbd_cache=false "
          "itself) and the librbd row; librbd-cache, when run, has the client defaults (rbd cache "
          f"{guest.get('rbdio_rbd_cache_default', '?')}).", "",
          "| row | " + " | ".join(s for _, s in have) + " | ×handler_rbd | ×librbd |",
          "|---|" + "---:|" * (len(have) + 2)]
    for n in names:
        cells = [f"{val[(t, n)]:,.0f}" if (t, n) in val else "—" for t, _ in have]
        x = val.get(("xcopy-rbd", n), nan)
        unit = "MB/s" if "-1m-" in n else "IOPS"
        md.append(f"| {n} ({unit}) | " + " | ".join(cells) + f" | {ratio(x, val.get(('handler-rbd', n), nan))}"
                  f" | {ratio(x, val.get(('librbd', n), nan))} |")
    md += ["", "Gateway CPU (user + system seconds per GiB moved, over the measured window: "
           "tcmu-runner for the LUs, fio's own process for librbd), the OSD's, and latency "
           "(ms p50 / p99 / p99.9 of reads; writes):", "",
           "| row | target | gateway CPU s / GiB | OSD CPU s / GiB | read ms | write ms |",
           "|---|---|---:|---:|---:|---:|"]
    for n in names:
        for t, s in have:
            r = by.get((t, n))
            if r:
                err = f" (fio error {r['errors']})" if r.get("errors") not in ("", "0", None) else ""
                md.append(f"| {n} | {s}{err} | {f1(per_gib(r, 'gw_ticks'))} | {f1(per_gib(r, 'osd_ticks'))} | "
                          f"{lat(r, 'r')} | {lat(r, 'w')} |")
    md += ["", f"Goals (issue #35, RBD): seq 1 MiB and 4 KiB qd32 rows ≥ {GOAL_HANDLER:g}× handler_rbd "
           f"and ≥ {GOAL_LIBRBD:g}× librbd directly:", ""]
    for n in GOAL_ROWS:
        x = val.get(("xcopy-rbd", n))
        if x is None:
            continue
        h, lb = val.get(("handler-rbd", n), nan), val.get(("librbd", n), nan)
        vh = "met" if h == h and h > 0 and x / h >= GOAL_HANDLER else "not met"
        vl = "met" if lb == lb and lb > 0 and x / lb >= GOAL_LIBRBD else "not met"
        md.append(f"- {n}: {ratio(x, h)} handler_rbd (**{vh}**), {ratio(x, lb)} librbd (**{vl}**)")
    return md
