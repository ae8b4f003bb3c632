"""Reading the guest's raw bench files (shared by the render modules)."""
import csv
import os


def csv_rows(raw, name):
    """The rows of raw/name as dicts; [] when the phase did not run (no file, or a header only)."""
    p = os.path.join(raw, name)
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return list(csv.DictReader(f))
