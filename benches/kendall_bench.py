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
4. ``--threads 1,2,4,8,16``: thread scaling against a vectorised NumPy anchor in the same
   run (one child process per thread count: RAYON_NUM_THREADS = t and NumPy's BLAS limited
   to t threads with threadpoolctl). The anchor (:func:`numpy_tau_b`) builds the sign
   tensor of every query (pairs x features, float32: exact, the counts stay below 2^24)
   and gets C - D and the untied counts from one BLAS product S^T S per query, queries of
   equal length batched. Data: MQ2008 Fold1 train when ../shared is there, else an
   MQ2008-shaped synthetic set (471 queries of 5-121 documents, 46 features, many ties),
   and the synthetic 136 features x 240,000 rows (2,000 queries x 120). Runs from an
   installed wheel without ../shared or a Rust toolchain:

       python benches/kendall_bench.py --threads 1,2,4,8,16

Times are medians of repeated runs; ratios are computed from times measured in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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


def numpy_tau_b(X, qid, dtype=np.float32, max_bytes=256 << 20):
    """Vectorised NumPy Kendall tau-b matrix averaged over queries with >= 2 documents (0
    where a feature is constant in a query), the anchor of the ``--threads`` table.

    Per query the sign tensor ``S`` (``n0`` pairs x features, ``sign(x_j - x_i)``) gives
    ``(S^T S)_ab = C - D`` and ``(S^T S)_aa`` = pairs untied in ``a``, so tau-b is
    ``(S^T S)_ab / sqrt((S^T S)_aa (S^T S)_bb)``: one BLAS product per query, queries of
    equal length stacked into one batched ``matmul``."""
    X = np.asarray(X)
    n = X.shape[1]
    order = np.argsort(qid, kind="stable")
    q = np.asarray(qid)[order]
    Xs = X[order].astype(dtype)
    starts = np.r_[0, np.flatnonzero(np.diff(q)) + 1]
    lens = np.diff(np.r_[starts, len(q)])
    total = np.zeros((n, n))
    count = 0
    for L in np.unique(lens):
        if L < 2:
            continue
        st = starts[lens == L]
        i, j = np.triu_indices(L, 1)
        step = max(1, max_bytes // (len(i) * n * np.dtype(dtype).itemsize))
        for b in range(0, len(st), step):
            Q = Xs[st[b:b + step, None] + np.arange(L)]          # (B, L, n)
            S = np.sign(Q[:, j] - Q[:, i])                        # (B, n0, n)
            G = np.matmul(S.transpose(0, 2, 1), S).astype(np.float64)
            d = np.sqrt(np.einsum("bii->bi", G))
            den = d[:, :, None] * d[:, None, :]
            total += np.where(den > 0, G / np.where(den > 0, den, 1.0), 0.0).sum(0)
            count += len(st[b:b + step])
    return total / count


def mq2008_like(seed=3):
    """MQ2008-shaped synthetic data: 471 queries of 5-121 documents (mean ~20), 46
    features, most of them sparse or with few distinct values (many ties)."""
    rng = np.random.default_rng(seed)
    lens = np.clip(rng.geometric(1 / 16, size=471) + 4, 5, 121)
    qid = np.repeat(np.arange(len(lens)), lens)
    m = len(qid)
    X = rng.random((m, 46))
    X[:, :20] = np.where(rng.random((m, 20)) < 0.6, 0.0, X[:, :20])
    X[:, 20:35] = np.round(X[:, 20:35] * 5) / 5
    return X, qid


def threads_child(args):
    from threadpoolctl import threadpool_limits

    t = int(os.environ["RAYON_NUM_THREADS"])
    sets = []
    if (DATA / "MQ2008").exists() and not args.synthetic_only:
        X, qid = load_mq2008()
        sets.append(("MQ2008 Fold1 train", X, qid))
    else:
        X, qid = mq2008_like()
        sets.append(("MQ2008-like synthetic", X, qid))
    X, qid = synthetic()
    sets.append(("136 features x 240,000 rows", X, qid))
    out = []
    with threadpool_limits(t):
        for name, X, qid in sets:
            ours = median_time(lambda: kendall_similarity(X, qid, variant="tau_b"), args.repeat)
            big = X.shape[0] > 100_000
            ref = numpy_tau_b(X, qid)
            t_np = median_time(lambda: numpy_tau_b(X, qid), 1 if big else args.repeat)
            diff = float(np.abs(kendall_similarity(X, qid, variant="tau_b") - ref).max())
            out.append({"data": f"{name} ({X.shape[0]:,} x {X.shape[1]}, {len(np.unique(qid))} queries)",
                        "threads": t, "ours": ours, "numpy": t_np, "diff": diff})
    print(json.dumps(out))


def threads_table(args):
    rows = []
    for t in [int(v) for v in args.threads.split(",")]:
        env = dict(os.environ, RAYON_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t))
        cmd = [sys.executable, __file__, "--child", "--repeat", str(args.repeat)]
        if args.synthetic_only:
            cmd.append("--synthetic-only")
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        rows.extend(json.loads(res.stdout.strip().splitlines()[-1]))
    print("Kendall tau-b matrix: rankselect vs vectorised NumPy (sign tensors, BLAS limited to the same threads)")
    print()
    print("| data | threads | rankselect (ms) | NumPy (ms) | NumPy / rankselect | rankselect speed-up | max abs diff |")
    print("|---|---|---|---|---|---|---|")
    first = {}
    for r in rows:
        first.setdefault(r["data"], r["ours"])
        print(f"| {r['data']} | {r['threads']} | {r['ours'] * 1e3:.1f} | {r['numpy'] * 1e3:.0f} | "
              f"{r['numpy'] / r['ours']:.1f}x | {first[r['data']] / r['ours']:.2f} | {r['diff']:.1e} |")


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
    ap.add_argument("--threads", default=None, help="thread scaling table vs NumPy, e.g. 1,2,4,8,16")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--synthetic-only", action="store_true", help="MQ2008-like synthetic data even if MQ2008 is there")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return threads_child(args)
    if args.threads:
        return threads_table(args)
    repeat = 2 if args.quick else 5
    if "mq2008" not in args.skip and (DATA / "MQ2008").exists():
        bench_mq2008(repeat, args.mq2008_pairs)
    if "synthetic" not in args.skip:
        bench_synthetic(repeat)
    if "crossover" not in args.skip:
        bench_crossover(2 if args.quick else 3)


if __name__ == "__main__":
    main()
