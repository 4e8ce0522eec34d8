"""Memory by the data, not by the host (issue 46): peak resident set and peak address space of a
RankRLS fit (an alpha path of 21 values) and a greedy RankRLS fit (k = 10), on small, medium and
MQ2008-size data, against the data's own size (``X.nbytes``), each in a fresh child process.

    python benches/memory_bench.py [--threads 2] [--repeat 3] [--mq2008 PATH]

The child imports rankselect, builds the data, then records ``VmRSS`` / ``VmSize`` and resets the
peak RSS (``/proc/self/clear_refs``); after the fit it reads ``VmHWM`` (peak RSS) and ``VmPeak``
(peak address space): the growth over the values before the fit is what the fit took. Its
``VmPeak`` growth includes the rayon threads' stacks, glibc's per-thread arenas (reserved, not
touched) and faer's per-thread matrix-product workspace (4 MiB each since issue 46; 2 x the
host's L3 each before). The largest growth over ``--repeat`` runs is reported. MQ2008-size data is
MQ2008 Fold1's training file when ``--mq2008`` (or ``../shared/data``) has it, else random data of
its shape (9,630 x 46, 471 queries).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys
import numpy as np
import rankselect as rs
kind, m, n, q, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024

if path:
    X, y, qid = rs.load_letor(path)
else:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(m, n)); y = rng.integers(0, 3, m).astype(float); qid = np.repeat(np.arange(q), -(-m // q))[:m]
rss0, vm0 = status("VmRSS"), status("VmSize")
open("/proc/self/clear_refs", "w").write("5")
if kind == "rankrls":
    rs.RankRLS(alpha=2.0 ** np.arange(-10, 11)).fit(X, y, qid=qid)
else:
    rs.GreedyRankRLS(n_features_to_select=min(10, X.shape[1])).fit(X, y, qid=qid)
print(json.dumps({"data": int(X.nbytes), "rss": status("VmHWM") - rss0, "vm": status("VmPeak") - vm0,
                  "shape": list(X.shape)}))
"""


def run(kind: str, shape: tuple[int, int, int], path: str, threads: int) -> dict:
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-c", CHILD, kind, *map(str, shape), path], capture_output=True,
                         text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def mib(b: float) -> str:
    return f"{b / 2**20:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    default = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "MQ2008" / "Fold1" / "train.txt"
    ap.add_argument("--mq2008", default=str(default))
    args = ap.parse_args()
    mq = args.mq2008 if Path(args.mq2008).exists() else ""
    sizes = [("small", (60, 5, 6), ""), ("medium", (2000, 46, 100), ""), ("MQ2008-size", (9630, 46, 471), mq)]
    print(f"threads {args.threads}, largest growth over {args.repeat} runs (MiB)\n")
    print("| data | fit | X (MiB) | peak RSS growth | peak RSS / X | peak address-space growth |")
    print("|---|---|---|---|---|---|")
    for name, shape, path in sizes:
        for kind in ("rankrls", "greedy"):
            rows = [run(kind, shape, path, args.threads) for _ in range(args.repeat)]
            data = rows[0]["data"]
            rss = max(r["rss"] for r in rows)
            vm = max(r["vm"] for r in rows)
            label = f"{name} {rows[0]['shape'][0]} x {rows[0]['shape'][1]}" + (" (file)" if path else "")
            print(f"| {label} | {kind} | {mib(data)} | {mib(rss)} | {rss / data:.1f} | {mib(vm)} |")


if __name__ == "__main__":
    main()
