"""Why ``select --method sparse-ranksvm --solver fista -k K`` was slow (issue 40): the C path
of ``-k`` (30 warm-started solves, ``ratio=1e4``) with each solver, their iterations, and the
cost of one loss-and-gradient evaluation against NumPy's two products ``X w`` and ``X^T s``
(the data-movement anchor, measured in the same run).

    python benches/fista_path.py [--data ../shared/data/MQ2008/Fold1/train.txt] [--repeat 2]

The profile of the FISTA path (``perf record -F 499 -g python ...``, then ``perf report
--no-children --sort symbol``) is in benches/RESULTS.md.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import rankselect as rs
from rankselect import _core
from rankselect.data.grouping import GroupedData

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "MQ2008" / "Fold1" / "train.txt"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    d = rs.load_letor(args.data)
    print(f"# {args.data}: {d.X.shape[0]} rows, {d.X.shape[1]} features")
    times: dict[str, list[float]] = {"prox-newton": [], "fista": []}
    iters: dict[str, int] = {}
    for _ in range(args.repeat):  # interleaved
        for solver in times:
            t = time.perf_counter()
            path = rs.SparseRankSVM(solver=solver).path(d.X, d.y, d.qid, n_Cs=30, ratio=1e4)
            times[solver].append(time.perf_counter() - t)
            iters[solver] = int(path.n_iter.sum())
    g = GroupedData.from_arrays(d.X, d.y, d.qid)
    w = np.random.default_rng(0).normal(size=d.X.shape[1]) * 0.01
    per_eval, anchor = [], []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(100):
            _core.squared_hinge_value_grad(g.X, g.y, g.offsets, w)
        per_eval.append((time.perf_counter() - t) / 100)
        t = time.perf_counter()
        for _ in range(100):
            g.X.T @ (g.X @ w)
        anchor.append((time.perf_counter() - t) / 100)
    print("| solver | path time (s, min) | iterations (30 solves) |")
    print("|---|---|---|")
    for solver, ts in times.items():
        print(f"| {solver} | {min(ts):.2f} | {iters[solver]} |")
    e, a = min(per_eval), min(anchor)
    print(f"one loss-and-gradient evaluation: {e * 1e3:.3f} ms; NumPy X w and X^T s: {a * 1e3:.3f} ms "
          f"(ratio {e / a:.2f}); FISTA's path time / evaluation: {min(times['fista']) / e:.0f} evaluations")


if __name__ == "__main__":
    main()
