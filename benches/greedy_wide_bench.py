"""Greedy RankRLS on wide data (#38, n > m: no n x n state): time and peak memory of the core's
run against its memory rule, for features and for groups, each run in a fresh child process.

    python benches/greedy_wide_bench.py [--shape 60x12000] [--k 10] [--groups 200] [--repeat 3]

The child builds grouped data, warms the library up on a small problem, resets its peak RSS
(``/proc/self/clear_refs``), then runs ``_core.greedy_rankrls`` and reads ``VmHWM`` (the peak
resident set) from ``/proc/self/status``: the peak growth over the resident set before the run
is what the run allocated, compared with the rule's figure (the ``MemoryError`` text under
``max_memory=1``). The anchor measured in the same child: NumPy's ``Xc @ Xc.T`` (the m x m
product of the dual form). Medians (time, anchor) and the largest peak over ``--repeat``
interleaved runs (features, groups, features, ...).
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys

CHILD = r"""
import json, re, sys, time
import numpy as np
import rankselect as rs
from rankselect import _core
from rankselect.selection.greedy_rankrls import greedy_options, unit_arrays
m, n, k, n_groups = (int(v) for v in sys.argv[1:5])

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024

def run(X, y, off, k, groups, limit=None):
    with rs.config_context(max_memory=limit):
        opts = greedy_options(k, 1.0, "squared", None, "standard")
    return _core.greedy_rankrls(X, y, off, opts, None, groups=groups)

rng = np.random.default_rng(0)
X = np.ascontiguousarray(rng.normal(size=(m, n)))
y = rng.integers(0, 3, size=m).astype(float)
off = np.arange(0, m + 1, 10, dtype=np.uintp)
groups = unit_arrays([np.arange(g, n, n_groups) for g in range(n_groups)]) if n_groups else None
run(X[:40, :300].copy(), y[:40], off[:5], 2, None)  # warm-up: thread pool, workspaces
try:
    run(X, y, off, k, groups, limit=1)
    rule = None
except MemoryError as e:
    rule = str(e)
open("/proc/self/clear_refs", "w").write("5")  # reset the peak RSS
base = status("VmRSS")
t = time.perf_counter()
r = run(X, y, off, k, groups)
elapsed = time.perf_counter() - t
peak = status("VmHWM") - base
Xc = X - X.reshape(m // 10, 10, n).mean(axis=1).repeat(10, axis=0)
a = time.perf_counter(); Xc @ Xc.T; anchor = time.perf_counter() - a
print(json.dumps({"seconds": elapsed, "peak_bytes": peak, "anchor_s": anchor, "rule": rule,
                  "selected": [int(v) for v in r.selected]}))
"""


def mib(text):
    """The rule's figure from the MemoryError text ('needs 19.3 MiB')."""
    v, unit = re.search(r"needs ([0-9.]+) (B|KiB|MiB|GiB)", text).groups()
    return float(v) * {"B": 2**-20, "KiB": 2**-10, "MiB": 1.0, "GiB": 1024.0}[unit]


def child(m, n, k, groups):
    out = subprocess.run([sys.executable, "-c", CHILD, str(m), str(n), str(k), str(groups)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="60x12000")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--groups", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    m, n = map(int, a.shape.split("x"))
    kinds = [("features", 0)] + ([(f"{a.groups} groups", a.groups)] if a.groups else [])
    runs: dict = {name: [] for name, _ in kinds}
    for _ in range(a.repeat):
        for name, g in kinds:
            runs[name].append(child(m, n, a.k, g))
    for name, rs_ in runs.items():
        t = statistics.median(r["seconds"] for r in rs_)
        anchor = statistics.median(r["anchor_s"] for r in rs_)
        peak = max(r["peak_bytes"] for r in rs_) / 2**20
        rule = mib(rs_[0]["rule"])
        print(f"{name}: {m} x {n}, k = {a.k}: {t:.3f} s median of {a.repeat} "
              f"({t / anchor:.0f} x the anchor Xc @ Xc.T, {anchor * 1e3:.2f} ms); "
              f"peak growth {peak:.1f} MiB, rule {rule:.1f} MiB ({peak / rule:.2f} x the rule)")


if __name__ == "__main__":
    main()
