#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Render the lab's raw benchmark files into bench.md and bench.csv.

usage: render.py RAW_DIR OUT_DIR

RAW_DIR holds what tests/bench/guest.sh wrote (rows.csv, latency.csv,
extents.txt, guest.txt, profile-*.txt); OUT_DIR holds host.txt from
tests/bench/run. Ratios are "times faster than LIO fileio's XCOPY" for the
same size and scope, on copy + sync time.
"""
import csv
import glob
import math
import os
import shutil
import sys

from bench_csv import csv_rows
from render_io import io_lines
from render_newfile import newfile_lines
from render_odx import odx_lines
from render_rbd import rbd_lines
from render_rbdio import rbdio_lines
from render_xtarget import xtarget_lines

GOAL_REFLINK = 50.0
GOAL_NONREFLINK = 3.0
GOAL_LINK_PCT = 0.1
GOAL_P99_MS = 30.0          # goal: p99 READ latency during a copy
GOAL_PAR8 = 0.7             # 8 in flight vs one after another
GOAL_PAR8_STORE = 1.1       # or 8 in flight vs the store's own 8-way copy_file_range
GOAL_STORE_LIMIT = 1.2      # non-reflink copy vs the store's own copy_file_range

LABELS = {
    "clone": "user:xcopy, reflink XFS (clone)",
    "cfr": "user:xcopy default, XFS no reflink (auto: the direct read/write loop on a local fs)",
    "cfr-pc": "user:xcopy, copy_file_range (dio=never)",
    "rw": "user:xcopy, read/write forced (clone=never&cfr=never; O_DIRECT, dio=auto)",
    "rw-pc": "user:xcopy, read/write through the page cache (the same, dio=never)",
    "lio": "LIO fileio, in-kernel XCOPY",
    "core": "tcmu-runner core XCOPY over user:xcopy read/write",
    "host-dd": "host read/write copy (dd O_DIRECT, tcm_loop)",
    "host-no-offload": "host read/write copy (libxcopy no-offload, iSCSI)",
}
ORDER = ["clone", "cfr", "cfr-pc", "rw", "rw-pc", "lio", "core", "host-dd", "host-no-offload"]


def kv(path):
    d = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                if "=" in line and " " not in line.split("=", 1)[0]:
                    k, v = line.split("=", 1)
                else:
                    k, _, v = line.partition(" ")
                d[k] = v
    return d


def size_bytes(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1].upper()] if s[-1].upper() in mult else int(s)


def human(b):
    b = float(b)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(b) < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return str(b)


def inflight_lines(raw):
    """One 1 GiB copy with N = 1 and N = 8 EXTENDED COPY commands in flight."""
    p = os.path.join(raw, "inflight.csv")
    if not os.path.exists(p):
        return []
    with open(p) as f:
        rows = {r["n"]: r for r in csv.DictReader(f)}
    one, eight = rows.get("1"), rows.get("8")
    if not one or not eight:
        return []
    t1 = float(one["secs"]) + float(one["sync_s"] or 0)
    t8 = float(eight["secs"]) + float(eight["sync_s"] or 0)
    ratio = t8 / t1 if t1 > 0 else float("inf")
    return [f"- commands in flight, {human(int(one['size']))} A→B over SG_IO (tcm_loop), user:xcopy "
            f"copy_file_range: N = 8 {t8:.2f} s ({eight['xcopy_cmds']} commands, plugin's most jobs on B "
            f"{eight['jobs_max_B']}) vs N = 1 {t1:.2f} s ({one['xcopy_cmds']} commands) = {ratio:.2f}× "
            f"(copy + sync); verified {eight['verified']} / {one['verified']}"]


def total(r):
    return float(r["secs"]) + float(r["sync_s"] or 0)


def cpu_note(r):
    """Guest CPU over a row's copy window (/proc/stat, both vCPUs), if recorded."""
    if not r or not r.get("cpu_idle"):
        return ""
    return (f"guest CPU user {r['cpu_user']} % / sys {r['cpu_sys']} % / iowait "
            f"{r['cpu_iowait']} % / idle {r['cpu_idle']} %")


def par8_lines(arow):
    """8 copies in flight vs one after another, and vs the store's own limits."""
    par, ser = arow("par8_parallel"), arow("par8_serial")
    if not par or not ser:
        return []
    tp, ts = total(par), total(ser)
    ratio = tp / ts if ts > 0 else float("inf")
    fl = arow("par8_inflight_max")
    lim, lim8 = arow("store_limit"), arow("store_limit8")
    out = [f"- 8 EXTENDED COPY streams of {human(int(par['size']) // 8)} A→B in flight at once: "
           f"{tp:.2f} s ({float(par['secs']):.2f} + {float(par['sync_s'] or 0):.2f} sync) vs "
           f"{ts:.2f} s ({float(ser['secs']):.2f} + {float(ser['sync_s'] or 0):.2f}) one after "
           f"another = {ratio:.2f}× serial; verified {par['verified']} / {ser['verified']}; "
           f"most jobs in flight on B/A: {fl['n'] if fl else '?'}"]
    bound = None
    if lim8:
        t8 = total(lim8)
        bound = tp / t8 if t8 > 0 else float("inf")
        out.append(f"  - store limit for 8 in flight: the store's own copy_file_range of the same 8 "
                   f"ranges, 8 processes at once: {t8:.2f} s ({float(lim8['secs']):.2f} + "
                   f"{float(lim8['sync_s'] or 0):.2f} sync); 8 in flight / it = **{bound:.2f}×** "
                   f"(copy only {float(par['secs']) / float(lim8['secs']):.2f}×)")
    if lim:
        tl = total(lim)
        out.append(f"  - serial / store limit (one call of {human(int(lim['size']))}): {ts:.2f} s / "
                   f"{tl:.2f} s = {ts / tl:.2f}×")
    for r, name in ((par, "8 in flight"), (ser, "one after another")):
        if r.get("xcopy_s"):
            out.append(f"  - {name}: EXTENDED COPY time (xcbench copy's own copy window, without "
                       f"process start, login and discovery) {float(r['xcopy_s']):.2f} s of "
                       f"{float(r['secs']):.2f} s")
    for r, name in ((par, "8 in flight"), (ser, "one after another"), (lim8, "store, 8 at once"),
                    (lim, "store, one call")):
        if cpu_note(r):
            out.append(f"  - {name}, copy window: {cpu_note(r)}")
    ok_ser = ratio <= GOAL_PAR8
    ok_store = bound is not None and bound <= GOAL_PAR8_STORE
    how = ("≤ 0.7× serial" if ok_ser else
           f"within {GOAL_PAR8_STORE:g}× of the store's 8-way copy" if ok_store else "neither")
    out.append(f"  - goal: ≤ {GOAL_PAR8:g}× serial, or within {GOAL_PAR8_STORE:g}× of the store's own "
               f"8-way copy (the store bound): {'**met**' if ok_ser or ok_store else '**not met**'} "
               f"({how})")
    return out


def main():
    raw, out = sys.argv[1], sys.argv[2]
    host = kv(os.path.join(out, "host.txt"))
    guest = kv(os.path.join(raw, "guest.txt"))
    nfguest = kv(os.path.join(raw, "newfile.txt"))
    if not guest:   # only the newfile boot ran
        guest = nfguest
    rows = csv_rows(raw, "rows.csv")
    for r in rows:
        r["total_s"] = float(r["wall_s"]) + float(r["sync_s"])
        r["bytes"] = size_bytes(r["size"])
    lio = {(r["size"], r["scope"]): r["total_s"] for r in rows if r["path"] == "lio"}
    for r in rows:
        ref = lio.get((r["size"], r["scope"]))
        r["x_lio"] = ref / r["total_s"] if ref and r["total_s"] > 0 else float("nan")
        r["link_pct"] = 100.0 * int(r["link_B"]) / r["bytes"]
        r["mib_s"] = r["bytes"] / 1048576 / r["total_s"] if r["total_s"] > 0 else 0

    sizes = sorted({r["size"] for r in rows}, key=size_bytes)
    rows.sort(key=lambda r: (size_bytes(r["size"]), r["scope"] != "cross",
                             ORDER.index(r["path"]) if r["path"] in ORDER else 99))

    # ---- CSV ----------------------------------------------------------------
    cols = ["size", "scope", "path", "backstore", "cfg", "wall_s", "sync_s", "total_s",
            "x_lio", "backend_read_B", "backend_write_B", "clone_B", "cfr_B", "rw_B",
            "link_B", "link_pct", "lun_data_MiB", "xcopy_cmds", "xcopy_segments",
            "other_cmds", "target_cmds", "offloaded_B", "fallback_B", "verified"]
    with open(os.path.join(out, "bench.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([f"{r[c]:.3f}" if isinstance(r[c], float) else r[c] for c in cols])

    # ---- Markdown -----------------------------------------------------------
    md = []
    md.append(f"Run {host.get('date', '?')} on {host.get('host_cpu', '?')} "
              f"({host.get('host_cpus', '?')} CPUs, {host.get('host_mem_gib', '?')} GiB, "
              f"host kernel {host.get('host_kernel', '?')}); lab guest: QEMU TCG, "
              f"{guest.get('cpus', '?')} vCPUs, {host.get('guest_mem', '?')} RAM, kernel "
              f"{guest.get('kernel', '?')}. Load average before/after: "
              f"{host.get('load_before', '?')} / {host.get('load_after', '?')} "
              f"(other lab VMs share the host). Commit {host.get('commit', '?')}; "
              f"whole run {host.get('total_s', '?')} s. Reproduce: `{host.get('command', 'make bench')}`.")
    if nfguest and nfguest.get("kernel") != guest.get("kernel"):
        md[-1] += (f" Phase newfile: a second boot on kernel {nfguest.get('kernel', '?')} "
                   f"({host.get('newfile_s', '?')} s; load average before it "
                   f"{host.get('load_before_newfile', '?')}).")
    if rows:
        md.append("")
        md.append("Time = copy command(s) + `sync` of the store; ×LIO = LIO fileio time / this time "
                  "(same size and scope). Backend = loop device of the store (/proc/diskstats). "
                  "Link = every byte on the initiator's iSCSI link (loopback interface: data, "
                  "PDU and TCP/IP headers, logins). Cmds = EXTENDED COPY commands / all commands "
                  "the target's LUNs received (LIO `in_cmds`, includes login and discovery).")
        md.append("")
        md.append("| size | scope | path | time s (copy+sync) | MiB/s | ×LIO | backend read | backend written "
                  "| link bytes (% of copy) | XCOPY / all cmds | verified |")
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in rows:
            x = "—" if r["path"] == "lio" or math.isnan(r["x_lio"]) else f"{r['x_lio']:.1f}×"
            md.append(
                f"| {r['size']} | {r['scope']} | {LABELS.get(r['path'], r['path'])} "
                f"| {r['total_s']:.2f} ({float(r['wall_s']):.2f}+{float(r['sync_s']):.2f}) "
                f"| {r['mib_s']:.0f} | {x} | {human(r['backend_read_B'])} "
                f"| {human(r['backend_write_B'])} | {human(r['link_B'])} ({r['link_pct']:.3f} %) "
                f"| {r['xcopy_cmds']} / {r['target_cmds']} | {r['verified']} |")
        md.append("")
        md.append("The core XCOPY row is within one LU only: tcmu-runner 1.5.4 refuses cross-LU copies "
                  "(CVE-2021-3139 fix) and takes one segment of at most 16 MiB per command with LIST ID "
                  "USAGE 11b; libxcopy reads those limits from RECEIVE COPY RESULTS and sends one "
                  "16 MiB command after another.")
    md.extend(newfile_lines(raw, nfguest.get("kernel", "")))
    md.extend(io_lines(raw, guest))

    # ---- latency --------------------------------------------------------------
    lat = []
    p = os.path.join(raw, "latency.csv")
    if os.path.exists(p):
        with open(p) as f:
            lat = list(csv.DictReader(f))
    if lat:
        md.append("")
        md.append("Read latency on the LU receiving a copy (4 KiB O_DIRECT reads via tcm_loop, "
                  f"one due every {guest.get('lat_ms', '50')} ms, open loop with up to 8 in flight, "
                  "latency from when it was due; service = from when it was sent; "
                  "idle = the 3 s before the copy):")
        md.append("")
        md.append("| path | copy | copy s | idle p50 / p99 ms | during copy: samples | p50 ms | p99 ms "
                  "| max ms | service p50 / p99 ms |")
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in lat:
            md.append(f"| {LABELS.get(r['path'], r['path'])} | {human(r['size'])} A→B "
                      f"| {float(r['copy_s']):.2f} | {r['p50_before_ms']} / {r['p99_before_ms']} "
                      f"| {r['samples_during']} | {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} "
                      f"| {r.get('svc_p50_ms') or '?'} / {r.get('svc_p99_ms') or '?'} |")

    # ---- extents ---------------------------------------------------------------
    ext = kv(os.path.join(raw, "extents.txt"))
    if ext:
        n = int(ext.get("extents_fiemap", ext.get("extents_requested", "0")) or 0)
        maxseg = int(ext.get("plan_max_seg", "0") or 0)
        md.append("")
        md.append(f"A file of {n} extents (XFS on a user:xcopy LU, 4 KiB extents): libxcopy sent "
                  f"{ext.get('xcopy_cmds', '?')} EXTENDED COPY commands ({ext.get('segments', '?')} "
                  f"segments, up to {maxseg} per command) where one command per extent (sg_xcopy, "
                  f"ddpt) needs {n}; planning (FIEMAP of both files, pairing, packing) took "
                  f"{ext.get('plan_plan_ms', '?')} ms; the whole copy {ext.get('copy_s', '?')} s, "
                  f"verified: {ext.get('verified', '?')}.")

    # ---- goals -----------------------------------------------------------------
    big = sizes[-1] if sizes else None

    def get(path, scope, size):
        for r in rows:
            if r["path"] == path and r["scope"] == scope and r["size"] == size:
                return r
        return None

    md.append("")
    md.append("Goals:")
    md.append("")
    if big:
        for path, goal, name in (("clone", GOAL_REFLINK, "reflink copy"),
                                 ("cfr", GOAL_NONREFLINK, "non-reflink copy (copy_file_range)"),
                                 ("rw", GOAL_NONREFLINK, "non-reflink copy (read/write forced)")):
            for scope in ("cross", "within"):
                r = get(path, scope, big)
                if r and not math.isnan(r["x_lio"]):
                    ok = r["x_lio"] >= goal
                    md.append(f"- {name} of {big}, {scope}-LU, ≥ {goal:g}× LIO: "
                              f"{'**met**' if ok else '**not met**'} ({r['x_lio']:.1f}×)")
        off = [r for r in rows if not r["path"].startswith("host") and int(r["xcopy_cmds"] or 0) > 0]
        if off:
            worst = max(off, key=lambda r: r["link_pct"])
            ok = worst["link_pct"] <= GOAL_LINK_PCT
            md.append(f"- initiator-link bytes ≤ {GOAL_LINK_PCT} % of the bytes copied, every offloaded row: "
                      f"{'**met**' if ok else '**not met**'} (worst {worst['link_pct']:.4f} %: "
                      f"{worst['size']} {worst['scope']} {worst['path']}, {worst['link_B']} bytes)")
    if ext:
        n = int(ext.get("extents_fiemap", "0") or 0)
        maxseg = int(ext.get("plan_max_seg", "0") or 0)
        cmds = int(ext.get("xcopy_cmds", "0") or 0)
        if maxseg:
            bound = math.ceil(n / maxseg)
            md.append(f"- commands for the {n}-extent file ≤ ⌈{n} / {maxseg}⌉ = {bound}: "
                      f"{'**met**' if cmds <= bound else '**not met**'} ({cmds})")
    for r in lat:
        ok = float(r["p99_ms"]) <= GOAL_P99_MS
        md.append(f"- p99 read latency ≤ {GOAL_P99_MS:g} ms during the copy, "
                  f"{LABELS.get(r['path'], r['path'])}: {'**met**' if ok else '**not met**'} "
                  f"({r['p99_ms']} ms, max {r['max_ms']} ms)")

    # ---- store limit, 8 in flight, 4 MiB commands ---------------------------------
    arows = []
    p = os.path.join(raw, "async.csv")
    if os.path.exists(p):
        with open(p) as f:
            arows = list(csv.DictReader(f))

    def arow(kind, path=None):
        for r in arows:
            if r["row"] == kind and (path is None or r["path"] == path):
                return r
        return None

    lim = arow("store_limit")
    if lim:
        # without the rows phase: the 1 GiB cfr latency copy (A -> B, copy only)
        for r in lat:
            if r["path"] == "cfr" and int(r["size"]) == int(lim["size"]):
                t = float(r["copy_s"])
                t_l = float(lim["secs"])
                md.append(f"- user:xcopy copy_file_range {human(r['size'])} A→B (the latency copy, "
                          f"copy only): {t:.2f} s = {t / t_l:.2f}× the store's own copy_file_range "
                          f"({t_l:.2f} s, copy only) (goal ≤ {GOAL_STORE_LIMIT:g}×: "
                          f"{'**met**' if t / t_l <= GOAL_STORE_LIMIT else '**not met**'})")
        limc = arow("store_limit_chunk")
        if limc:
            md.append(f"- the store's own copy_file_range of {human(limc['size'])} in calls of "
                      f"{human(limc['n'])} (the target's chunk): {float(limc['secs']):.2f} s "
                      f"(+{float(limc['sync_s'] or 0):.2f} s sync) vs {float(lim['secs']):.2f} s "
                      f"(+{float(lim['sync_s'] or 0):.2f} s) in one call")
        t_lim = float(lim["secs"]) + float(lim["sync_s"] or 0)
        md.append(f"- store limit: the store's own copy_file_range of {human(lim['size'])} "
                  f"(XFS, no reflink, in the guest) took {t_lim:.2f} s (copy + sync)")
        for scope in ("cross", "within"):
            r = get("cfr", scope, big) if big else None
            if r and size_bytes(big) == int(lim["size"]):
                t = float(r["wall_s"]) + float(r["sync_s"])
                ratio = t / t_lim if t_lim > 0 else float("inf")
                md.append(f"  - user:xcopy copy_file_range {big} {scope}-LU: {t:.2f} s = "
                          f"{ratio:.2f}× the store limit (goal ≤ {GOAL_STORE_LIMIT:g}×: "
                          f"{'**met**' if ratio <= GOAL_STORE_LIMIT else '**not met**'})")
    md.extend(par8_lines(arow))
    for path in ("cfr", "lio"):
        r = arow("lat4m", path)
        idle = arow("lat4m_idle", path)
        if r:
            ok = float(r["p99_ms"] or 1e9) <= GOAL_P99_MS
            md.append(f"- p99 read latency ≤ {GOAL_P99_MS:g} ms while a client sends "
                      f"{human(r['size'])} as {r['n']} back-to-back 4 MiB EXTENDED COPY commands, "
                      f"{LABELS.get(path, path)}: {'**met**' if ok else '**not met**'} "
                      f"({r['samples']} samples in {r['secs']} s: p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
                      f"max {r['max_ms']} ms; service p99 {r.get('svc_p99_ms') or '?'} ms; "
                      f"idle p50 {idle['p50_ms'] if idle else '?'} / p99 "
                      f"{idle['p99_ms'] if idle else '?'} ms; verified {r['verified']})")

    # ---- commands in flight (its own file, its own lines) --------------------------
    md.extend(inflight_lines(raw))
    md.extend(odx_lines(raw))
    md.extend(rbd_lines(raw))
    md.extend(rbdio_lines(raw, guest))
    md.extend(xtarget_lines(raw))

    cs = []
    p = os.path.join(raw, "clonescale.csv")
    if os.path.exists(p):
        with open(p) as f:
            cs = list(csv.DictReader(f))
    if len(cs) >= 2:
        a, b = cs[0], cs[-1]
        ta, tb = float(a["copy_s"] or "nan"), float(b["copy_s"] or "nan")
        md.append(f"- clone scale (reflink XFS, {a['extents']} extents of 64 KiB spread over the "
                  f"span, copied inside one user:xcopy LU by libxcopy over iSCSI): "
                  + "; ".join(f"{human(r['span'])}: {float(r['copy_s'] or 'nan'):.2f} s, "
                              f"{r['xcopy_cmds']} commands / {r['segments']} segments, "
                              f"{human(r['clone_B'])} cloned, fallback {human(r['fallback_B'] or 0)}, "
                              f"verified {r['verified']}" for r in cs)
                  + f" — {int(b['span']) // int(a['span'])}× the span costs {tb / ta:.1f}× the time")

    if guest.get("tcmu_runner_died_in_core_xcopy"):
        md.append("")
        md.append("**tcmu-runner died during the core XCOPY rows** (its stderr: `"
                  + guest.get("tcmu_stdout", "?").strip() + "`); a core row that is not "
                  "verified stopped there.")
    prof = os.path.join(raw, "profile-cfr.txt")
    if os.path.exists(prof):
        with open(prof) as f:
            lines = [l.rstrip() for l in f if l.strip() and not l.startswith("#")]
        if lines:
            md.append("")
            md.append("Profile of the user:xcopy copy_file_range latency copy "
                      "(`perf record -a`, software clock, top entries: overhead, command, object, symbol):")
            md.append("")
            md.append("```")
            md.extend(lines[:15])
            md.append("```")

    # a "Goals:" header no goal line follows (only phases without copy goals ran)
    for i, line in enumerate(md):
        if line == "Goals:" and (i + 2 >= len(md) or md[i + 2] == ""):
            del md[i - 1:i + 2]
            break
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    # the guest's raw CSV files beside bench.csv: plot.py renders from OUT alone
    shutil.rmtree(os.path.join(out, "raw"), ignore_errors=True)   # not an older run's
    os.makedirs(os.path.join(out, "raw"))
    for p in glob.glob(os.path.join(raw, "*.csv")) + glob.glob(os.path.join(raw, "*.txt")):
        shutil.copy(p, os.path.join(out, "raw"))


if __name__ == "__main__":
    main()
