"""The newfile rows of bench.md: newfile.csv from tests/bench/guest_newfile.sh."""
from bench_csv import csv_rows

FS = {"ext4": "ext4", "xfs": "XFS (reflink=0)", "xfs-reflink": "XFS (reflink=1, mkfs default)"}
METHODS = {"cp": "plain `cp`", "preload": "`cp` under libxcopy-preload.so", "xcp": "`xcp`"}


def mib(b):
    return f"{int(b) / 1048576:.1f}"


def newfile_lines(raw, kernel=""):
    """A table per file system: time, fabric bytes (LIO) and diskstats, offload, ratios to plain cp."""
    rows = csv_rows(raw, "newfile.csv")
    if not rows:
        return []
    size = int(rows[0]["size"])
    md = ["", f"Copy of {size >> 20} MiB to a new file on a file system on a user:xcopy LU "
          f"(tcm_loop; backing file on a reflink XFS store), guest kernel {kernel or '?'} "
          "(FALLOC_FL_WRITE_ZEROES needs Linux ≥ 6.17). Time = the command + `sync`; "
          "×cp = plain cp's time / this time. **Fabric MiB** = what crossed the fabric, from LIO's "
          "own counters of the LU (configfs `statistics/scsi_lu/read_mbytes` + `write_mbytes`, whole "
          "MiB). **diskstats** = the sd disk's read + written bytes: it counts the WRITE SAME(16) "
          "with UNMAP that FALLOC_FL_WRITE_ZEROES sends as written sectors for the whole range, "
          "although each command carries one 512-byte block, so it shows the file's size for an "
          "offloaded copy. Verified = cmp of the two files after drop_caches.", "",
          "| file system | method | time s (cmd+sync) | ×cp | fabric MiB read + written (% of file) "
          "| diskstats MiB read + written | LU commands | EXTENDED COPY | offloaded | verified |",
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    cp = {}
    for r in rows:
        r["total"] = float(r["secs"] or "nan") + float(r["sync_s"] or 0)
        if r["method"] == "cp":
            cp[r["fs"]] = r["total"]
    for r in rows:
        fab = int(r["lio_read_MiB"] or 0) + int(r["lio_write_MiB"] or 0)
        pct = 100.0 * fab * 1048576 / size
        ref = cp.get(r["fs"])
        x = "—" if r["method"] == "cp" or not ref else f"{ref / r['total']:.1f}×"
        off = "—" if r["offloaded_B"] == "" else f"{mib(r['offloaded_B'])} MiB"
        if r["fallback_B"] not in ("", "0"):
            off += f" (+{mib(r['fallback_B'])} MiB by the host: {r['fallback_reason'] or '?'})"
        elif r["method"] == "preload" and r["offloaded_B"] == "0":
            off = "— (cp cloned with FICLONE: no copy_file_range call)"
        fab_s = f"{r['lio_read_MiB']} + {r['lio_write_MiB']} ({pct:.1f} %)" if fab else \
            f"{r['lio_read_MiB']} + {r['lio_write_MiB']} (< 1 MiB)"
        md.append(f"| {FS.get(r['fs'], r['fs'])} | {METHODS.get(r['method'], r['method'])} "
                  f"| {r['total']:.2f} ({float(r['secs']):.2f}+{float(r['sync_s'] or 0):.2f}) | {x} "
                  f"| {fab_s} | {mib(r['sd_read_B'])} + {mib(r['sd_write_B'])} | {r['lio_cmds']} "
                  f"| {r['xcopy_cmds']} ({mib(r['clone_B'])} MiB cloned) | {off} | {r['verified']} |")
    return md
