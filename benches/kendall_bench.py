"""Kendall similarity benchmark: rankselect.kendall_similarity vs a loop of
scipy.stats.kendalltau over queries and feature pairs (what a user would write).

Run with the release build:

    maturin develop --release && python benches/kendall_bench.py [--quick]

Sections:
1. MQ2008 Fold1 train (46 features): the full tau-b matrix, rankselect vs the full scipy loop.
2. Synthetic 136 features x 240,000 rows (2,000 queries x 120 documents): rankselect's
   time for the full matrix vs the scipy loop extrapolated from a random subset of
   (query, feature pair) calls.
3. Crossover of the two exact schemes (bitset vs Knight's merge sort) by query length.

Times are medians of repeated runs; ratios are computed from times measured in the same run.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import scipy.stats

from rankselect import kendall_similarity

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def scipy_loop(X, qid, pairs=None, queries=None):
    """tau-b matrix by scipy.stats.kendalltau per query and feature pair (NaN -> 0)."""
    n = X.shape[1]
    if pairs is None:
        pairs = [(a, b) for a in range(n) for b in range(a, n)]
    uq = np.unique(qid)
    groups = [np.flatnonzero(qid == q) for q in uq]
    groups = [g for g in groups if len(g) >= 2]
    if queries is not None:
        groups = [groups[i] for i in queries]
    out = np.zeros((n, n))
    for rows in groups:
        Q = X[rows]
        for a, b in pairs:
            t = scipy.stats.kendalltau(Q[:, a], Q[:, b]).statistic
            if t == t:
                out[a, b] += t
    out /= len(groups)
    return out + np.triu(out, 1).T


def load_mq2008():
    from rankselect import load_letor

    d = load_letor(DATA / "MQ2008" / "Fold1" / "train.txt")
    return d.X, d.qid


def bench_mq2008(repeat, n_pairs=0):
    """n_pairs = 0: the full scipy loop; else scipy on that many random feature pairs over
    all queries, extrapolated to all pairs."""
    X, qid = load_mq2008()
    n = X.shape[1]
    ours = {}
    for variant in ("tau_b", "geng"):
        ours[variant] = median_time(lambda: kendall_similarity(X, qid, variant=variant), repeat)
    all_pairs = [(a, b) for a in range(n) for b in range(a, n)]
    pairs = all_pairs
    if n_pairs:
        pick = np.random.default_rng(0).choice(len(all_pairs), size=n_pairs, replace=False)
        pairs = [all_pairs[i] for i in pick]
    t0 = time.perf_counter()
    ref = scipy_loop(X, qid, pairs)
    t_scipy = (time.perf_counter() - t0) * len(all_pairs) / len(pairs)
    got = kendall_similarity(X, qid, variant="tau_b")
    mask = np.zeros((n, n), dtype=bool)
    for a, b in pairs:
        mask[a, b] = mask[b, a] = True
    err = float(np.abs(got - ref)[mask].max())
    n_q = len(np.unique(qid))
    how = "full loop" if not n_pairs else f"extrapolated from {len(pairs)} of {len(all_pairs)} pairs"
    print(f"MQ2008 Fold1 train: {X.shape[0]} rows, {X.shape[1]} features, {n_q} queries")
    print(f"  rankselect tau_b  {ours['tau_b'] * 1e3:9.2f} ms   geng {ours['geng'] * 1e3:9.2f} ms")
    print(f"  scipy loop        {t_scipy:9.2f} s ({how})   ratio {t_scipy / ours['tau_b']:.0f}x   "
          f"max |diff| {err:.1e}")
    return dict(rows=X.shape[0], t_ours=ours, t_scipy=t_scipy, ratio=t_scipy / ours["tau_b"])


def synthetic(n_queries=2000, n_docs=120, n_features=136, seed=0):
    rng = np.random.default_rng(seed)
    m = n_queries * n_docs
    latent = rng.normal(size=(m, 8))
    mix = rng.normal(size=(8, n_features))
    X = latent @ mix + rng.normal(size=(m, n_features))
    # LETOR-like ties: a third of the features take few distinct values.
    X[:, ::3] = np.round(X[:, ::3])
    qid = np.repeat(np.arange(n_queries), n_docs)
    return X, qid


def bench_synthetic(repeat, n_subset_pairs=100, n_subset_queries=20):
    X, qid = synthetic()
    n = X.shape[1]
    t_ours = median_time(lambda: kendall_similarity(X, qid, variant="tau_b"), repeat)
    rng = np.random.default_rng(1)
    all_pairs = [(a, b) for a in range(n) for b in range(a, n)]
    pick = rng.choice(len(all_pairs), size=n_subset_pairs, replace=False)
    pairs = [all_pairs[i] for i in pick]
    queries = rng.choice(2000, size=n_subset_queries, replace=False)
    t_sub = median_time(lambda: scipy_loop(X, qid, pairs, queries), max(1, repeat // 2))
    calls_sub = n_subset_pairs * n_subset_queries
    calls_full = len(all_pairs) * 2000
    t_scipy = t_sub * calls_full / calls_sub
    print(f"Synthetic: {X.shape[0]} rows, {n} features, 2000 queries x 120 docs")
    print(f"  rankselect tau_b  {t_ours:9.2f} s")
    print(f"  scipy loop        {t_scipy:9.0f} s (extrapolated from {calls_sub} of {calls_full} calls, "
          f"{t_sub / calls_sub * 1e6:.1f} us/call)   ratio {t_scipy / t_ours:.0f}x")
    return dict(t_ours=t_ours, t_scipy=t_scipy, ratio=t_scipy / t_ours)


def bench_crossover(repeat, n_features=46, lengths=(16, 64, 256, 1024, 2048), rows=1 << 14):
    print(f"Crossover ({n_features} features, ~{rows} rows per length): ns per (feature pair, query)")
    print(f"  {'n_q':>6} {'bitset':>12} {'merge':>12} {'merge/bitset':>13}")
    rng = np.random.default_rng(2)
    n_pairs = n_features * (n_features + 1) // 2
    out = []
    for L in lengths:
        nq = max(2, rows // L)
        X = rng.normal(size=(nq * L, n_features))
        X[:, ::3] = np.round(X[:, ::3])
        qid = np.repeat(np.arange(nq), L)
        t_b = median_time(lambda: kendall_similarity(X, qid, "tau_b", algorithm="bitset"), repeat)
        t_m = median_time(lambda: kendall_similarity(X, qid, "tau_b", algorithm="merge"), repeat)
        per = 1e9 / (n_pairs * nq)
        print(f"  {L:>6} {t_b * per:>12.0f} {t_m * per:>12.0f} {t_m / t_b:>13.2f}")
        out.append((L, t_b * per, t_m * per))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--skip", nargs="*", default=[], choices=["mq2008", "synthetic", "crossover"])
    ap.add_argument("--mq2008-pairs", type=int, default=40,
                    help="scipy on this many random feature pairs, extrapolated (0: the full loop)")
    args = ap.parse_args()
    repeat = 2 if args.quick else 5
    if "mq2008" not in args.skip and (DATA / "MQ2008").exists():
        bench_mq2008(repeat, args.mq2008_pairs)
    if "synthetic" not in args.skip:
        bench_synthetic(repeat)
    if "crossover" not in args.skip:
        bench_crossover(2 if args.quick else 3)


if __name__ == "__main__":
    main()
