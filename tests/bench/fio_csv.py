#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One fio JSON result (--output-format=json, one job) as CSV fields for io.csv
(tests/bench/guest_io.sh runs it in the guest).

usage: fio_csv.py FILE.json
prints: r_iops,r_mbs,r_p50_us,r_p99_us,r_p999_us,w_iops,w_mbs,w_p50_us,w_p99_us,w_p999_us,errors
MB/s = 10^6 bytes/s; latencies are fio's total latency (lat_ns, --lat_percentiles=1),
else its completion latency (clat_ns); empty fields for a direction the job did not do.
"""
import json
import sys


def pct(lat, p):
    v = (lat.get("percentile") or {}).get(p)
    return f"{v / 1000:.1f}" if v else ""


def side(d):
    if not d or not d.get("total_ios"):
        return ["", "", "", "", ""]
    lat = d.get("lat_ns") if (d.get("lat_ns") or {}).get("percentile") else d.get("clat_ns", {})
    return [f"{d['iops']:.1f}", f"{d['bw_bytes'] / 1e6:.1f}",
            pct(lat, "50.000000"), pct(lat, "99.000000"), pct(lat, "99.900000")]


def main():
    try:
        with open(sys.argv[1]) as f:
            text = f.read()
        # fio may print notes before the JSON object
        job = json.loads(text[text.index("{"):])["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(",,,,,,,,,," + f"unreadable: {type(e).__name__}")
        return
    print(",".join(side(job.get("read")) + side(job.get("write")) + [str(job.get("error", 0))]))


if __name__ == "__main__":
    main()
