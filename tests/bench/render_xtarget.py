"""The xtarget rows of bench.md: xtarget.csv from tests/bench/guest_xtarget.sh
(a user:xcopy LU copied to a LIO fileio LU of another iSCSI target)."""
import os

from bench_csv import csv_rows

PATHS = {"offload": "EXTENDED COPY (xcp --require-offload): X's copy manager pushes through its peer session",
         "host": "host copy (xcp --no-offload): 4 MiB READ from X, WRITE to P, through two sessions"}
MIB = 1 << 20


def total(r):
    """xcp's wall time + the sync after it, or NaN."""
    try:
        return float(r["wall_s"]) + float(r["sync_s"] or 0)
    except (TypeError, ValueError):
        return float("nan")


def host_pct(r):
    """The requesting initiator's MiB on both targets as % of the copy: '< x %' when 0 (whole MiB)."""
    size = int(r["size"])
    mib = int(r["host_MiB"] or 0)
    if mib == 0:
        return f"< {100 * MIB / size:.2g} %"
    return f"{100 * mib * MIB / size:.1f} %"


def link_bound(r):
    """Loopback bytes beyond the copy manager's peer data, as % of the copy: an upper bound on
    the requesting initiator's bytes (it holds the peer session's PDU and TCP/IP headers too)."""
    try:
        return f"{100 * (int(r['lo_B']) - int(r['gateway_B'] or 0)) / int(r['size']):.2f} %"
    except (TypeError, ValueError, ZeroDivisionError):
        return "—"


def nopin(raw):
    """The NOP-In period LIO used on the copy manager's session (xtarget.txt), as a sentence."""
    try:
        with open(os.path.join(raw, "xtarget.txt")) as f:
            v = dict(line.split(None, 1) for line in f if line.strip()).get("cm_nopin_timeout", "").strip()
    except OSError:
        return ""
    if not v:
        return ""
    return (" LIO's NOP-In on the copy manager's session: " +
            ("off (nopin_timeout 0, BENCH_XT_CM_NOPIN=0)." if v == "0" else f"every {v} s."))


def xtarget_lines(raw):
    """A table of every copy, then the ratios of each round and over the rounds."""
    rows = csv_rows(raw, "xtarget.csv")
    if not rows:
        return []
    md = ["", "Copy between targets (issue #36): X (user:xcopy, file store, XFS without reflink) → "
          "P (LIO fileio, write-back) behind another iSCSI target, both LUs reached by the requesting "
          "initiator over iSCSI (xcp, libiscsi: one session to each target). Rounds of offload then "
          "host copy, the destination punched and caches dropped before each. time = xcp (login, "
          "discovery, copy) + `sync` after it. host MiB / cmds = the requesting initiator's "
          "read + written MiB and commands on both targets (LIO's per-ACL counters, whole MiB); "
          "peer MiB = the copy manager's session on P's target (same counters); gateway = the bytes "
          "X's copy manager moved through it (plugin stats); link − peer data = every byte on the guest's "
          "loopback (both sessions of the requesting initiator and the peer session, headers included) "
          "less the gateway bytes, as % of the copy: an upper bound on the requesting initiator's "
          "bytes (the MiB counters read whole MiB only); XCOPY = EXTENDED COPY commands (refused: "
          "LIO's 0D/02 on P's target, tried first)." + nopin(raw), "",
          "| round | path | size | time s | sync s | MiB/s | host MiB (cmds) | host / copy | link − peer data | "
          "peer MiB | gateway MiB | XCOPY (refused) | offloaded / by host MiB | verified |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        size = int(r["size"])
        t = total(r)
        mibs = size / MIB / t if t > 0 else float("nan")
        md.append(f"| {r['round']} | {PATHS.get(r['path'], r['path'])} | {size // MIB} MiB | {t:.2f} | "
                  f"{float(r['sync_s'] or 0):.2f} | {mibs:.0f} | {r['host_MiB']} ({r['host_cmds']}) | "
                  f"{host_pct(r)} | {link_bound(r)} | {r['cm_MiB']} | {int(r['gateway_B'] or 0) / MIB:.0f} | "
                  f"{r['xcopy_cmds'] or '—'} ({r['xcopy_failed'] or 0}) | "
                  f"{int(r['offloaded_B'] or 0) // MIB} / {int(r['host_B'] or 0) // MIB} | {r['verified']} |")
    ratios = []
    for rnd in sorted({r["round"] for r in rows}, key=int):
        t = {r["path"]: total(r) for r in rows if r["round"] == rnd and r["verified"] == "yes"}
        if t.get("offload", 0) > 0 and t.get("host", 0) > 0:
            ratios.append((rnd, t["offload"] / t["host"]))
    md.append("")
    bad = [f"round {r['round']} {r['path']}" for r in rows if r["verified"] != "yes"]
    if bad:
        md.append(f"- **not verified** (the copy failed or differs; no ratio for its round): {', '.join(bad)} "
                  "(xcp's stderr: raw xtarget-ROUND-PATH.err.txt; the plugin's reason: tcmu-runner.log)")
    if ratios:
        md.append("- offload time / host time: "
                  + ", ".join(f"round {rnd}: {x:.2f}" for rnd, x in ratios)
                  + (f" (mean {sum(x for _, x in ratios) / len(ratios):.2f})" if len(ratios) > 1 else ""))
    for path in ("offload", "host"):
        pr = [r for r in rows if r["path"] == path]
        if pr:
            md.append(f"- bytes through the requesting initiator, {path}: "
                      + ", ".join(f"round {r['round']}: {r['host_MiB']} MiB = {host_pct(r)} of the copy "
                                  f"(link − peer data {link_bound(r)})" for r in pr))
    return md
