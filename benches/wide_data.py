"""Wide data (n features >> m rows, #35 item 8): RankRLS and greedy RankRLS time, peak RSS,
and the memory rule's estimate, each in a fresh child process (peak RSS per run).

    python benches/wide_data.py [--pythonpath DIR] [--rankrls 60x10000] [--greedy 60x12000] [--k 10]

``--pythonpath``: run the build whose ``rankselect`` package is in DIR (e.g. main's, for the
"before" figures). The anchor measured in the same run: NumPy's ``X @ X.T`` of the data (the
m x m product the dual form needs). Medians of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
import rankselect
kind, m, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)
X = rng.normal(size=(m, n))
qid = np.repeat(np.arange(m // 10), 10)
y = rng.integers(0, 3, size=m).astype(float)
est = None
if kind == "greedy":
    from rankselect import GreedyRankRLS
    with rankselect.config_context(max_memory=1):
        try:
            GreedyRankRLS(k, alpha=1.0).fit(X, y, qid=qid)
        except MemoryError as e:
            est = str(e)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    GreedyRankRLS(k, alpha=1.0).fit(X, y, qid=qid)
else:
    from rankselect import RankRLS
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    RankRLS(alpha=1.0).fit(X, y, qid=qid)
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
a = time.perf_counter(); X @ X.T; anchor = time.perf_counter() - a
print(json.dumps({"seconds": elapsed, "peak_rss_gb": peak / 2**20, "rss_growth_gb": (peak - base) / 2**20,
                  "anchor_s": anchor, "memory_rule": est}))
"""


def run(kind, m, n, k, pythonpath):
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(m), str(n), str(k)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pythonpath", default=None)
    p.add_argument("--rankrls", default="60x10000")
    p.add_argument("--greedy", default="60x12000")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    for kind, shape in (("rankrls", a.rankrls), ("greedy", a.greedy)):
        if shape in ("", "0", "none"):
            continue
        m, n = map(int, shape.split("x"))
        runs = [run(kind, m, n, a.k, a.pythonpath) for _ in range(a.repeat)]
        med = {key: statistics.median(r[key] for r in runs) for key in ("seconds", "peak_rss_gb", "anchor_s")}
        print(f"{kind} {m} x {n}: {med['seconds']:.3f} s median of {a.repeat} "
              f"(anchor X @ X.T {med['anchor_s'] * 1e3:.2f} ms), peak RSS {med['peak_rss_gb']:.2f} GiB")
        if runs[0]["memory_rule"]:
            print(f"  memory rule: {runs[0]['memory_rule']}")


if __name__ == "__main__":
    main()
