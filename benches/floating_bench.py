"""Cost of a removal step vs an addition step in floating greedy RankRLS.

Both are one pass over the caches C and U (a removal is the addition's rank-one step with
the opposite sign). The floating run calls ``progress`` after every addition; the time
between two calls covers that addition's pass plus the passes of the removals before it
(``floating_steps_`` says how many). Intervals with no removal give the addition step's
time; the others give (interval - addition) / removals per removal. The plain greedy's
per-step time is shown beside (its passes skip the selected features' columns, a floating
pass keeps them current).

    python benches/floating_bench.py [--rows 200000] [--features 80] [--k 30]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import rankselect


def problem(rows, n, seed=0):
    # triplets (a = b + c + noise, b, c) with y driven by b + c: a enters first and is dropped
    # once b and c are in, so removals happen
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(rows // 50), 50)
    g = n // 3
    b, c = rng.normal(size=(qid.size, g)), rng.normal(size=(qid.size, g))
    a = b + c + 0.4 * rng.normal(size=b.shape)
    X = np.hstack([a, b, c])
    w = rng.uniform(0.5, 1.5, size=g)
    y = np.clip(np.floor((b + c) @ w / np.sqrt(g) + 0.5 * rng.normal(size=qid.size)) + 2, 0, 4)
    return X, y, qid


def timed(model, X, y, qid):
    stamps = []
    model.set_params(verbose=False)
    model._progress = lambda: (lambda step, feature, value: stamps.append(time.perf_counter()))  # type: ignore
    t0 = time.perf_counter()
    model.fit(X, y, qid=qid)
    return t0, np.array(stamps)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--features", type=int, default=80)
    ap.add_argument("--k", type=int, default=30)
    args = ap.parse_args()
    X, y, qid = problem(args.rows, args.features)
    _, g = timed(rankselect.GreedyRankRLS(args.k, alpha=1.0), X, y, qid)
    fl = rankselect.GreedyRankRLS(args.k, alpha=1.0, floating=True)
    _, f = timed(fl, X, y, qid)
    # events between consecutive additions: the removals after addition i come before i + 1
    added = [a for _, a, _ in fl.floating_steps_]
    removals_before = []
    count = 0
    for a in added[1:] + [True]:
        if a:
            removals_before.append(count)
            count = 0
        else:
            count += 1
    intervals = np.diff(f)
    r = np.array(removals_before[:len(intervals)])
    add_t = np.median(intervals[r == 0])
    per_removal = (intervals[r > 0] - add_t) / r[r > 0]
    print(f"{args.rows} rows x {args.features} features, k = {args.k}; {int(np.sum(r))} removals")
    print(f"plain greedy, per addition step (median):    {np.median(np.diff(g)) * 1e3:8.2f} ms")
    print(f"floating, per addition step (median):         {add_t * 1e3:8.2f} ms")
    if per_removal.size:
        print(f"floating, per removal step (median of {per_removal.size}): {np.median(per_removal) * 1e3:8.2f} ms")
        print(f"removal / addition: {np.median(per_removal) / add_t:.2f}")


if __name__ == "__main__":
    main()
