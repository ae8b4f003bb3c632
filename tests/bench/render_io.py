"""The io rows of bench.md: io.csv from tests/bench/guest_io.sh (the LU as a disk)."""
from bench_csv import csv_rows

TARGETS = [("xcopy", "user:xcopy (file store; hw_max_sectors=2048, max_data_area_mb=128)"),
           ("xcopy-kdef", "user:xcopy, the kernel's defaults (hw_max_sectors=128, max_data_area_mb=1024)"),
           ("xcopy-tuned", "user:xcopy, hw_max_sectors=8192, max_data_area_mb=256"),
           ("xcopy-dio", "user:xcopy, dio=always"),
           ("xcopy-buffered", "user:xcopy, dio=never (READ and WRITE through the page cache)"),
           ("null", "TCMU floor: user:xcopy on the null store"),
           ("null-kdef", "TCMU floor, the kernel's defaults"),
           ("null-tuned", "TCMU floor, hw_max_sectors=8192, max_data_area_mb=256"),
           ("fileio", "LIO fileio, fd_buffered_io=1 (targetcli's default)"),
           ("fileio-wt", "LIO fileio, fd_buffered_io=0 (write-through)"),
           ("iblock", "LIO iblock on a loop device"),
           ("limit", "store limit: fio O_DIRECT on the backing file")]
SHORT = {"xcopy": "user:xcopy", "xcopy-kdef": "user:xcopy kernel defaults",
         "xcopy-tuned": "user:xcopy tuned", "xcopy-dio": "user:xcopy dio=always",
         "xcopy-buffered": "user:xcopy dio=never", "null": "TCMU floor (null)",
         "null-kdef": "floor kernel defaults", "null-tuned": "floor tuned", "fileio": "LIO fileio",
         "fileio-wt": "fileio write-through",
         "iblock": "iblock (loop)", "limit": "store limit"}
GIB = 1 << 30


def fnum(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def metric(r):
    """(value, unit): MB/s for 1 MiB rows, IOPS for 4 KiB rows (reads + writes)."""
    if r["bs"] == "1m":
        return sum(x for x in (fnum(r["r_mbs"]), fnum(r["w_mbs"])) if x == x), "MB/s"
    return sum(x for x in (fnum(r["r_iops"]), fnum(r["w_iops"])) if x == x), "IOPS"


def p99(r, side=None):
    """p99 ms of the row's reads (its writes for a write row), NaN if none."""
    side = side or ("r" if r["r_p99_us"] else "w")
    return fnum(r[f"{side}_p99_us"]) / 1000


def lat(r, side):
    if not r[f"{side}_p50_us"]:
        return "—"
    return " / ".join(f"{fnum(r[f'{side}_{p}_us']) / 1000:.2f}" for p in ("p50", "p99", "p999"))


def cpu_per_gib(r):
    """guest CPU seconds (all vCPUs, user + system) per GiB moved, over the measured window."""
    try:
        busy_s = float(r["cpu_busy_ticks"]) / float(r["clk_tck"])
        moved = (fnum(r["r_mbs"]) if r["r_mbs"] else 0) + (fnum(r["w_mbs"]) if r["w_mbs"] else 0)
        gib = moved * 1e6 * float(r["cpu_window_s"]) / GIB
        return f"{busy_s / gib:.2f}" if gib > 0 else "—"
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return "—"


def ratio(a, b):
    return f"{a / b:.2f}×" if a == a and b == b and b > 0 else "—"


def io_lines(raw, guest):
    """Two tables (throughput with ratios; latency and CPU per target) and the goals."""
    rows = csv_rows(raw, "io.csv")
    if not rows:
        return []
    # BENCH_IO_ROUNDS > 1: a (target, row) once per round, in round order;
    # each figure is the round of median throughput (its latency and CPU too)
    groups = {}
    for r in rows:
        groups.setdefault((r["target"], r["row"]), []).append(r)
    by = {k: sorted(v, key=lambda r: metric(r)[0])[len(v) // 2] for k, v in groups.items()}
    rounds = max(len(v) for v in groups.values())
    names = list(dict.fromkeys(r["row"] for r in rows))
    have = [t for t, _ in TARGETS if any(r["target"] == t for r in rows)]
    how = ("one target at a time" if rounds == 1 else
           f"{rounds} rounds, the targets taking turns row by row; each figure is the round of "
           "median throughput, its latency and CPU that round's")
    md = ["", f"The LU as a disk (phase io, kernel {guest.get('kernel', '?')}): fio "
          f"{guest.get('fio', '')} with direct I/O (libaio) on each LU's tcm_loop disk, "
          f"{int(guest.get('io_size', 0)) >> 20} MiB region, {guest.get('io_secs', '?')} s per row after "
          f"a {guest.get('io_ramp', '?')} s ramp; every target on its own backing file (pseudo-random "
          f"data) on one XFS store {guest.get('io_store', 'in guest RAM')}, {how}. 1 MiB rows in MB/s (10^6 B/s), "
          "4 KiB rows in IOPS (reads + writes; mix = 70 % reads). ×fileio = this / LIO fileio's; "
          "×floor = user:xcopy / the TCMU floor (the same LU on the null store: READ returns zeros, "
          "WRITE discards).", "",
          "| row | " + " | ".join(SHORT[t] for t in have) + " | user:xcopy ×fileio | user:xcopy ×floor "
          "| floor ×fileio |" + (" user:xcopy ×floor, each round |" if rounds > 1 else ""),
          "|---|" + "---:|" * (len(have) + 3) + ("---|" if rounds > 1 else "")]
    for n in names:
        cells = []
        for t in have:
            r = by.get((t, n))
            cells.append(f"{metric(r)[0]:,.0f}" if r else "—")
        x, f, nl = by.get(("xcopy", n)), by.get(("fileio", n)), by.get(("null", n))
        mx = metric(x)[0] if x else float("nan")
        mf = metric(f)[0] if f else float("nan")
        mn = metric(nl)[0] if nl else float("nan")
        unit = "MB/s" if n.endswith(tuple(f"1m-qd{q}" for q in (1, 8, 32))) else "IOPS"
        each = ""
        if rounds > 1:
            xs, ns = groups.get(("xcopy", n), []), groups.get(("null", n), [])
            each = " " + ", ".join(ratio(metric(a)[0], metric(b)[0]) for a, b in zip(xs, ns)) + " |"
        md.append(f"| {n} ({unit}) | " + " | ".join(cells) + f" | {ratio(mx, mf)} | {ratio(mx, mn)} | "
                  f"{ratio(mn, mf)} |" + each)
    md += ["", "Latency (fio's total latency, ms: p50 / p99 / p99.9, reads; writes) and guest CPU "
           "(both vCPUs' user + system time over the measured window, % busy and seconds per GiB "
           "moved):", "",
           "| row | target | read p50 / p99 / p99.9 ms | write p50 / p99 / p99.9 ms | CPU busy % | CPU s / GiB |",
           "|---|---|---:|---:|---:|---:|"]
    for n in names:
        for t in have:
            r = by.get((t, n))
            if r:
                err = f" (fio error {r['errors']})" if r.get("errors") not in ("", "0", None) else ""
                md.append(f"| {n} | {SHORT[t]}{err} | {lat(r, 'r')} | {lat(r, 'w')} | "
                          f"{r['cpu_busy_pct']} | {cpu_per_gib(r)} |")
    md += ["", "Goals (issue #35, the LU as a disk):", ""]
    worst = None
    for n in names:
        x, nl = by.get(("xcopy", n)), by.get(("null", n))
        if x and nl and metric(nl)[0] > 0:
            q = metric(x)[0] / metric(nl)[0]
            if worst is None or q < worst[0]:
                worst = (q, n)
    if worst:
        md.append(f"- every user:xcopy row ≥ 0.9× the TCMU floor's: "
                  f"{'**met**' if worst[0] >= 0.9 else '**not met**'} (lowest {worst[0]:.2f}× in {worst[1]})")
    for n, goal in (("rand-read-4k-qd32", 0.8), ("rand-write-4k-qd32", 0.8),
                    ("seq-read-1m-qd8", 0.5), ("seq-write-1m-qd8", 0.5)):
        x, f, nl = by.get(("xcopy", n)), by.get(("fileio", n)), by.get(("null", n))
        if x and f and metric(f)[0] > 0:
            q = metric(x)[0] / metric(f)[0]
            fl = f"; the floor itself {metric(nl)[0] / metric(f)[0]:.2f}×" if nl else ""
            md.append(f"- {n} ≥ {goal:g}× LIO fileio: {'**met**' if q >= goal else '**not met**'} "
                      f"({q:.2f}×{fl})")
    x, f = by.get(("xcopy", "rand-read-4k-qd1")), by.get(("fileio", "rand-read-4k-qd1"))
    if x and f and p99(f) > 0:
        q = p99(x) / p99(f)
        md.append(f"- rand-read-4k-qd1 p99 ≤ 3× LIO fileio's: {'**met**' if q <= 3 else '**not met**'} "
                  f"({p99(x):.2f} ms vs {p99(f):.2f} ms: {q:.1f}×)")
    lus = [l.strip() for l in open_lines(raw, "io-lus.txt")]
    if lus:
        md += ["", "Each target's LU and disk (configfs attrib, the sd queue):", "", "```"] + lus + ["```"]
    return md


def open_lines(raw, name):
    import os
    p = os.path.join(raw, name)
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return [l for l in f if l.strip()]
