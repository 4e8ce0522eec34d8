"""Benchmark: the cascade grid in the Rust core (``_core.cascade_grid_per_query``) vs a
vectorised NumPy grid, the same values checked.

    python benches/cascade_bench.py [--queries 200] [--docs 150] [--phase1 24] [--repeat 3]

The grid is CascadeSelection's on OHSUMED-LETOR2's shape: ``--phase1`` phase-1 rankers (the
prefixes of a path of ``--phase1 + 1`` features), for each the windows 10, 20, 50, 100 and
every longer prefix as phase 2: ``n1 (n1 + 1) / 2 * 4`` cascades (1200 at 24), measured by
NDCG@10 (exponential), on ``--queries`` queries of ``--docs`` documents. The NumPy grid sorts
each query's phase-1 columns at once (``argsort`` along the documents) and, for each
(phase 1, window), the phase-2 columns of every longer prefix at once, then takes the DCG of
the top 10 labels as a matrix product. Each timing is the median of ``--repeat`` runs of CPU
time; the ratio is NumPy's over the core's, at the machine's thread count and at one thread
(``RAYON_NUM_THREADS=1`` in a child process).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from rankselect import _core

SPEC = ("ndcg@10", "exponential", "stable")
WINDOWS = (10, 20, 50, 100)


def problem(n_q: int, docs: int, n1: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(docs // 2, docs * 3 // 2 + 1, n_q)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.uintp)
    m = int(offsets[-1])
    y = (rng.random(m) < 0.1).astype(float) + (rng.random(m) < 0.03)
    S1 = rng.normal(size=(n1, m))
    cands = [(a, n, b) for a in range(n1) for n in WINDOWS for b in range(a + 1, n1 + 1)]
    S2 = rng.normal(size=(len(cands), m))
    phase1 = np.array([a for a, _, _ in cands], dtype=np.uintp)
    windows = np.array([n for _, n, _ in cands], dtype=np.uintp)
    return y, offsets, S1, S2, phase1, windows


def numpy_grid(y, offsets, S1, S2, phase1, windows, k=10):
    """The same values, vectorised over the candidates of each (phase 1, window); ``S1``
    (m, n1) and ``S2`` (m, n2): documents x rankers, NumPy's best layout here."""
    n_q = len(offsets) - 1
    single = np.zeros((n_q, S1.shape[1]))
    cascade = np.zeros((n_q, S2.shape[1]))
    groups: dict = {}
    for c, (a, n) in enumerate(zip(phase1.tolist(), windows.tolist())):
        groups.setdefault((a, n), []).append(c)
    groups = {key: np.array(v) for key, v in groups.items()}
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    for q in range(n_q):
        lo, hi = int(offsets[q]), int(offsets[q + 1])
        yq = y[lo:hi]
        n = hi - lo
        kk = min(k, n)
        gain = 2.0 ** yq - 1.0
        ideal = np.sort(gain)[::-1][:kk] @ disc[:kk]
        order1 = np.argsort(-S1[lo:hi], axis=0, kind="stable")  # (n, n1)
        if ideal == 0:
            continue
        single[q] = (gain[order1[:kk]].T @ disc[:kk]) / ideal
        for (a, w), cols in groups.items():
            top = order1[:min(w, n), a]
            s2 = S2[lo + top][:, cols]  # (N, nb)
            perm = np.argsort(-s2, axis=0, kind="stable")
            ranked = np.concatenate([top[perm], np.broadcast_to(order1[min(w, n):, a, None],
                                                                (n - len(top), len(cols)))], axis=0)
            cascade[q, cols] = (gain[ranked[:kk]].T @ disc[:kk]) / ideal
    return single, cascade


def cpu(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--docs", type=int, default=150)
    ap.add_argument("--phase1", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--core-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args_p = problem(args.queries, args.docs, args.phase1)
    t_core, (s, c) = cpu(lambda: _core.cascade_grid_per_query(SPEC, *args_p), args.repeat)
    if args.core_only:
        print(t_core)
        return
    y, off, S1, S2, p1, w = args_p
    by_doc = (y, off, np.ascontiguousarray(S1.T), np.ascontiguousarray(S2.T), p1, w)
    t_np, (s_np, c_np) = cpu(lambda: numpy_grid(*by_doc), args.repeat)
    np.testing.assert_allclose(s, s_np, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c, c_np, rtol=1e-12, atol=1e-12)
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    one = subprocess.run([sys.executable, __file__, "--core-only", "--queries", str(args.queries), "--docs",
                          str(args.docs), "--phase1", str(args.phase1), "--repeat", str(args.repeat)],
                         env=env, capture_output=True, text=True, check=True)
    t_one = float(one.stdout.strip())
    m = int(args_p[1][-1])
    print(f"grid: {args.queries} queries, {m} documents, {args.phase1} phase-1 rankers, {c.shape[1]} cascades "
          f"(NDCG@10), same values")
    print(f"NumPy grid      {t_np:8.3f} s CPU")
    print(f"core, 1 thread  {t_one:8.3f} s CPU   ratio {t_np / t_one:6.1f}x")
    print(f"core, threads   {t_core:8.3f} s CPU   ratio {t_np / t_core:6.1f}x (CPU time of all threads)")


if __name__ == "__main__":
    main()
