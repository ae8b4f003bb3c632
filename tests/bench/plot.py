#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""PNG plots of a bench run, from its CSV files alone (gnuplot, pngcairo).

usage: plot.py OUT_DIR

OUT_DIR is a `make bench` output directory ($(BUILD)/bench): bench.csv and
raw/ (the guest's CSV files, copied there by render.py). Writes OUT_DIR/plots/:
  latency.png     read latency over time on the LU receiving a 1 GiB copy
                  (raw/latency-trace-PATH.csv): user:xcopy beside LIO fileio
  copy-time.png   copy time (copy + sync) by method and size (bench.csv)
  host-bytes.png  bytes through the host: the initiator's link per method
                  (bench.csv) and, for cp to a new file, the fabric bytes
                  beside diskstats (raw/newfile.csv)
  newfile.png     cp to a new file: time by method and file system (raw/newfile.csv)
  io.png          the LU as a disk: each target's fio row / LIO fileio's (raw/io.csv)
A plot whose input is missing (its phase did not run) is left out. Run it
again on a saved directory to redraw without rerunning the bench
(`make bench-plots BENCH_OUT=DIR`).
"""
import csv
import os
import shutil
import subprocess
import sys

PATHS = [("clone", "user:xcopy clone (reflink XFS)"),
         ("cfr", "user:xcopy default (no reflink)"),
         ("rw", "user:xcopy read/write"),
         ("lio", "LIO fileio (kernel XCOPY)"),
         ("core", "tcmu-runner core XCOPY"),
         ("host-dd", "host dd O\\_DIRECT")]
LAT = [("cfr", "user:xcopy default (no reflink)", "#1f77b4"),
       ("lio", "LIO fileio, kernel XCOPY", "#d62728"),
       ("clone", "user:xcopy clone", "#2ca02c")]
NF_METHODS = [("cp", "plain cp"), ("preload", "cp + libxcopy-preload"), ("xcp", "xcp")]
NF_FS = [("ext4", "ext4"), ("xfs", "XFS reflink=0"), ("xfs-reflink", "XFS reflink=1")]
TERM = 'set terminal pngcairo size 960,540 font "DejaVu Sans,10" noenhanced'


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def q(s):
    return '"' + s.replace('"', "'") + '"'


def gnuplot(script, cwd):
    subprocess.run(["gnuplot"], input=script, text=True, cwd=cwd, check=True)


def size_key(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult.get(s[-1].upper(), 1) if s[-1].isalpha() else int(s)


def plot_latency(out, pdir, title):
    lat = {r["path"]: r for r in rows(os.path.join(out, "raw", "latency.csv"))}
    series = [(p, name, c) for p, name, c in LAT
              if os.path.exists(os.path.join(out, "raw", f"latency-trace-{p}.csv"))]
    if not series:
        return None
    plots, arrows = [], []
    for i, (p, name, c) in enumerate(series):
        r = lat.get(p, {})
        extra = ""
        if r:
            extra = f" (copy {float(r['copy_s']):.1f} s, p99 {r['p99_ms']} ms)"
            arrows.append(f"set arrow from {float(r['copy_s'])},graph 0 to {float(r['copy_s'])},graph 1 "
                          f"nohead dt 2 lc rgb '{c}'")
        plots.append(f"'../raw/latency-trace-{p}.csv' using 1:($2 > 0 ? $2 : 0.01) with points pt 7 ps 0.35 "
                     f"lc rgb '{c}' title {q(name + extra)}")
    script = "\n".join([
        TERM, "set output 'latency.png'", "set datafile separator ','",
        f"set title {q('4 KiB reads on the LU receiving a 1 GiB copy (open loop, one due every 20 ms)' + title)}",
        "set xlabel 'seconds since the copy started (dashed: copy ended)'",
        "set ylabel 'read latency, ms (log)'", "set logscale y", "set grid",
        "set key top left box opaque", *arrows,
        "plot " + ", \\\n     ".join(plots), ""])
    gnuplot(script, pdir)
    return "latency.png"


def plot_copy_time(out, pdir, title):
    bench = rows(os.path.join(out, "bench.csv"))
    if not bench:
        return None
    groups = sorted({(r["size"], r["scope"]) for r in bench},
                    key=lambda g: (size_key(g[0]), g[1] != "cross"))
    paths = [(p, n) for p, n in PATHS if any(r["path"] == p for r in bench)]
    t = {(r["size"], r["scope"], r["path"]): float(r["total_s"]) for r in bench}
    with open(os.path.join(pdir, "copy-time.dat"), "w") as f:
        f.write("group " + " ".join(q(n) for _, n in paths) + "\n")
        for s, sc in groups:
            vals = [t.get((s, sc, p)) for p, _ in paths]
            f.write(q(f"{s} {sc}-LU") + " " + " ".join(f"{v:.3f}" if v else "?" for v in vals) + "\n")
    plots = [f"'copy-time.dat' using {i + 2}{':xtic(1)' if i == 0 else ''}"
             for i in range(len(paths))]
    script = "\n".join([
        TERM, "set output 'copy-time.png'", "set datafile missing '?'",
        f"set title {q('Copy time (copy + sync of the store) by method and size' + title)}",
        "set ylabel 'seconds (log)'", "set logscale y", "set grid ytics",
        "set style data histograms", "set style histogram clustered gap 1",
        "set style fill solid 0.85 border -1", "set boxwidth 0.9", "set key top left",
        "set yrange [0.01:*]", "set key autotitle columnhead", f"set xrange [-0.6:{len(groups) - 0.4}]",
        "plot " + ", ".join(plots), ""])
    gnuplot(script, pdir)
    return "copy-time.png"


def plot_host_bytes(out, pdir, title):
    bench = rows(os.path.join(out, "bench.csv"))
    nf = rows(os.path.join(out, "raw", "newfile.csv"))
    if not bench and not nf:
        return None
    parts = []
    if bench:
        big = max({r["size"] for r in bench}, key=size_key)
        nl = 0
        with open(os.path.join(pdir, "host-link.dat"), "w") as f:
            f.write("path link_MiB\n")
            for p, n in PATHS:
                r = next((r for r in bench if r["path"] == p and r["size"] == big
                          and r["scope"] == ("within" if p == "core" else "cross")), None)
                if r:
                    f.write(f"{q(n + (' (within)' if p == 'core' else ''))} "
                            f"{max(int(r['link_B']), 1) / 1048576:.6f}\n")
                    nl += 1
        parts.append("\n".join([
            f"set title {q(f'{big} copy: bytes on the initiator link (iSCSI/tcm_loop)')}",
            "set ylabel 'MiB (log)'", "set logscale y", "set yrange [0.001:*]",
            f"set xrange [-0.6:{nl - 0.4}]",
            "set style data histograms", "set style histogram clustered gap 1",
            "set style fill solid 0.85 border -1", "set xtics rotate by -25", "set key off",
            "plot 'host-link.dat' using 2:xtic(1) skip 1 lc rgb '#1f77b4', "
            "'' using ($0):2:(sprintf('%.3g', $2)) skip 1 with labels offset 0,0.6 font ',8'",
            "unset logscale y", "set xtics norotate", "set yrange [*:*]", "set xrange [*:*]"]))
    if nf:
        nn = 0
        with open(os.path.join(pdir, "host-newfile.dat"), "w") as f:
            f.write("copy fabric diskstats\n")
            for fs, fsn in NF_FS:
                for m, mn in NF_METHODS:
                    r = next((r for r in nf if r["fs"] == fs and r["method"] == m), None)
                    if r:
                        fab = int(r["lio_read_MiB"] or 0) + int(r["lio_write_MiB"] or 0)
                        ds = (int(r["sd_read_B"] or 0) + int(r["sd_write_B"] or 0)) / 1048576
                        f.write(f"{q(fsn + ': ' + mn)} {fab} {ds:.1f}\n")
                        nn += 1
        size = int(nf[0]["size"]) >> 20
        parts.append("\n".join([
            f"set title {q(f'cp {size} MiB to a new file: fabric bytes (LIO counters) vs diskstats')}",
            "set ylabel 'MiB read + written'", "set style data histograms",
            "set style histogram clustered gap 1", "set style fill solid 0.85 border -1",
            "set xtics rotate by -30 font ',8'", "set key top right", "set key noautotitle",
            "set yrange [0:*]", "set offsets 0, 0, graph 0.12, 0", f"set xrange [-0.6:{nn - 0.4}]",
            "plot 'host-newfile.dat' using 2:xtic(1) skip 1 title 'crossed the fabric (LIO read+write MiB)' "
            "lc rgb '#1f77b4', '' using 3 skip 1 title 'diskstats (counts WRITE SAME+UNMAP ranges as written)' "
            "lc rgb '#bbbbbb', '' using ($0 - 0.17):2:(sprintf('%d', $2)) skip 1 with labels offset 0,0.6 "
            "font ',8' notitle"]))
    script = "\n".join([
        'set terminal pngcairo size 1200,540 font "DejaVu Sans,10" noenhanced',
        "set output 'host-bytes.png'", "set grid ytics",
        f"set multiplot layout 1,{len(parts)} title {q('Bytes through the host' + title)}",
        *parts, "unset multiplot", ""])
    gnuplot(script, pdir)
    return "host-bytes.png"


def plot_newfile(out, pdir, title):
    nf = rows(os.path.join(out, "raw", "newfile.csv"))
    if not nf:
        return None
    n = 0
    with open(os.path.join(pdir, "newfile.dat"), "w") as f:
        f.write("fs " + " ".join(q(n) for _, n in NF_METHODS) + "\n")
        for fs, fsn in NF_FS:
            vals = []
            for m, _ in NF_METHODS:
                r = next((r for r in nf if r["fs"] == fs and r["method"] == m), None)
                vals.append(f"{float(r['secs']) + float(r['sync_s'] or 0):.3f}" if r else "?")
            if any(v != "?" for v in vals):
                f.write(q(fsn) + " " + " ".join(vals) + "\n")
                n += 1
    size = int(nf[0]["size"]) >> 20
    script = "\n".join([
        TERM, "set output 'newfile.png'", "set datafile missing '?'",
        f"set title {q(f'cp {size} MiB to a new file on a user:xcopy LU: time (command + sync)' + title)}",
        "set ylabel 'seconds'", "set grid ytics", "set style data histograms",
        "set style histogram clustered gap 1", "set style fill solid 0.85 border -1",
        "set key top right", "set yrange [0:*]",
        "set offsets 0, 0, graph 0.08, 0", "set key autotitle columnhead",
        "plot 'newfile.dat' using 2:xtic(1), '' using 3, '' using 4, "
        "'' using ($0 - 0.25):2:(sprintf('%.2f', $2)) with labels offset 0,0.6 font ',8' notitle, "
        "'' using ($0):3:(sprintf('%.2f', $3)) with labels offset 0,0.6 font ',8' notitle, "
        "'' using ($0 + 0.25):4:(sprintf('%.2f', $4)) with labels offset 0,0.6 font ',8' notitle", ""])
    gnuplot(script, pdir)
    return "newfile.png"


IO_TARGETS = [("xcopy", "user:xcopy (file store)", "#1f77b4"),
              ("xcopy-kdef", "user:xcopy kernel defaults", "#c5b0d5"),
              ("xcopy-tuned", "user:xcopy tuned", "#aec7e8"),
              ("null", "TCMU floor (null store)", "#2ca02c"),
              ("null-kdef", "TCMU floor kernel defaults", "#dbdb8d"),
              ("null-tuned", "TCMU floor tuned", "#98df8a"),
              ("fileio-wt", "LIO fileio write-through", "#ff7f0e"),
              ("iblock", "LIO iblock (loop)", "#9467bd"),
              ("limit", "store limit (fio on the file)", "#7f7f7f")]


def io_value(r):
    """MB/s for 1 MiB rows, IOPS for 4 KiB rows (reads + writes)."""
    keys = ("r_mbs", "w_mbs") if r["bs"] == "1m" else ("r_iops", "w_iops")
    return sum(float(r[k]) for k in keys if r.get(k))


def plot_io(out, pdir, title):
    io = rows(os.path.join(out, "raw", "io.csv"))
    ref = {r["row"]: io_value(r) for r in io if r["target"] == "fileio"}
    if not io or not ref:
        return None
    names = list(dict.fromkeys(r["row"] for r in io))
    have = [(t, n, c) for t, n, c in IO_TARGETS if any(r["target"] == t for r in io)]
    val = {(r["target"], r["row"]): io_value(r) for r in io}
    with open(os.path.join(pdir, "io.dat"), "w") as f:
        f.write("row " + " ".join(q(n) for _, n, _ in have) + "\n")
        for n in names:
            vals = [val.get((t, n)) for t, _, _ in have]
            f.write(q(n) + " " + " ".join(f"{v / ref[n]:.4f}" if v and ref.get(n) else "?"
                                          for v in vals) + "\n")
    plots = [f"'io.dat' using {i + 2}{':xtic(1)' if i == 0 else ''} lc rgb '{c}'"
             for i, (_, _, c) in enumerate(have)]
    script = "\n".join([
        'set terminal pngcairo size 1200,560 font "DejaVu Sans,10" noenhanced',
        "set output 'io.png'", "set datafile missing '?'",
        f"set title {q('fio on each LU (tcm_loop, direct I/O): throughput / LIO fileio (buffered) = 1' + title)}",
        "set ylabel 'x LIO fileio (log)'", "set logscale y", "set grid ytics",
        "set style data histograms", "set style histogram clustered gap 1",
        "set style fill solid 0.85 border -1", "set boxwidth 0.9", "set key outside right top",
        "set xtics rotate by -30 font ',8'", "set key autotitle columnhead",
        f"set xrange [-0.6:{len(names) - 0.4}]",
        "set arrow from graph 0,first 1 to graph 1,first 1 nohead lc rgb '#d62728' lw 2",
        "plot " + ", ".join(plots), ""])
    gnuplot(script, pdir)
    return "io.png"


def main():
    out = sys.argv[1]
    if not shutil.which("gnuplot"):
        sys.exit("plot.py: gnuplot is missing (Debian package gnuplot-nox: make deps)")
    pdir = os.path.join(out, "plots")
    os.makedirs(pdir, exist_ok=True)
    for n in os.listdir(pdir):   # a plot whose input is gone must not stay from an older run
        if n.endswith(".png"):
            os.remove(os.path.join(pdir, n))
    host = {}
    p = os.path.join(out, "host.txt")
    if os.path.exists(p):
        with open(p) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition(" ")
                host[k] = v
    title = f" — {host['date']}, {host.get('commit', '?')}" if host.get("date") else ""
    made = [n for n in (plot_latency(out, pdir, title), plot_copy_time(out, pdir, title),
                        plot_host_bytes(out, pdir, title), plot_newfile(out, pdir, title),
                        plot_io(out, pdir, title)) if n]
    for n in os.listdir(pdir):
        if n.endswith(".dat"):
            os.remove(os.path.join(pdir, n))
    print("plots: " + ", ".join(os.path.join(pdir, n) for n in made))


if __name__ == "__main__":
    main()
