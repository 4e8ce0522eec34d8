"""Greedy RankRLS benchmarks (release build: `maturin develop --release`).

    python benches/greedy_rls_bench.py [--repeat 3] [--scale-m 720000] [--scale-k 30] [--skip-scale]

1. MQ2008 Fold1 train (query-centred), k = 10, alpha = 1: rankselect.GreedyRankRLS vs
   (a) the brute-force LQO reference (delete each query, re-centre, solve; cost of one
   candidate set measured for every size s <= k and extrapolated to the whole greedy run),
   (b) scikit-learn SequentialFeatureSelector(Ridge(fit_intercept=False), cv=GroupKFold(5),
   direction="forward", scoring="neg_mean_squared_error") on the query-centred data.
2. Scale: synthetic m = Q x 120 docs, n = 136, k: time per step, peak RSS vs 3 m n 8 bytes,
   and time per step vs the memory-bandwidth bound (bytes a step must move / copy bandwidth).
3. Drift: ||w_greedy - w_direct|| / ||w_direct|| at the last step of a large run.
4. Thread scaling (``--threads 1,2,4,8,16``; needs neither ../shared nor a Rust toolchain,
   runs from an installed wheel): synthetic m x n (default 720,000 x 136, 120 docs per
   query), one child process per thread count (RAYON_NUM_THREADS = BLAS threads = t), each
   measuring in the same run the median greedy step and a STREAM-like copy bandwidth with t
   threads (NumPy ``copyto`` of a 1 GiB array split over t Python threads, best of 5; bytes
   moved = read + write). The bound is 6 m n doubles at that bandwidth; a fused step moves
   about 4 m n (C and U read and written once).

       python benches/greedy_rls_bench.py --threads 1,2,4,8,16 [--scale-m 720000] [--scale-k 8]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from rankselect import GreedyRankRLS, RankRLS

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "MQ2008" / "Fold1" / "train.txt"


def load(path):
    try:
        from rankselect.data import load_letor

        d = load_letor(path)
        return np.asarray(d.X), np.asarray(d.y), np.asarray(d.qid)
    except ImportError:
        from sklearn.datasets import load_svmlight_file

        X, y, qid = load_svmlight_file(str(path), query_id=True, n_features=46)
        return np.asarray(X.todense()), y, qid


def center(v, qid):
    v = np.array(v, dtype=float, copy=True)
    _, inv = np.unique(qid, return_inverse=True)
    cnt = np.bincount(inv)
    if v.ndim == 1:
        v -= (np.bincount(inv, v) / cnt)[inv]
    else:
        for j in range(v.shape[1]):
            v[:, j] -= (np.bincount(inv, v[:, j]) / cnt)[inv]
    return v


def brute_lqo(X, y, qid, alpha):
    err = 0.0
    for q in np.unique(qid):
        out = qid == q
        keep = ~out
        Xc, yc = center(X[keep], qid[keep]), center(y[keep], qid[keep])
        w = np.linalg.solve(Xc.T @ Xc + alpha * np.eye(X.shape[1]), Xc.T @ yc)
        r = center(y[out] - X[out] @ w, qid[out])
        err += float(r @ r)
    return err


def timed(f, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def copy_bandwidth():
    a = np.ones(2**27 // 8 * 8)  # 1 GiB
    b = np.empty_like(a)
    t, _ = timed(lambda: np.copyto(b, a), 5)
    return 2 * a.nbytes / t  # bytes read + written per second


def mq2008(args):
    X, y, qid = load(DATA)
    k, alpha = 10, 1.0
    n = X.shape[1]
    t_ours, model = timed(lambda: GreedyRankRLS(n_features_to_select=k, alpha=alpha).fit(X, y, qid=qid), args.repeat)
    sel = list(model.selected_features_)
    # Brute force: one LQO evaluation per candidate set; size s has n - s + 1 candidates.
    per_size = []
    for s in range(1, k + 1):
        feats = sel[:s]
        t, _ = timed(lambda: brute_lqo(X[:, feats], y, qid, alpha), 1)
        per_size.append(t)
    t_brute = sum((n - s) * per_size[s] for s in range(k))
    # scikit-learn SequentialFeatureSelector on query-centred data.
    from sklearn.feature_selection import SequentialFeatureSelector
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GroupKFold

    Xc, yc = center(X, qid), center(y, qid)
    splits = list(GroupKFold(n_splits=5).split(Xc, yc, groups=qid))
    sfs = SequentialFeatureSelector(Ridge(alpha=alpha, fit_intercept=False), n_features_to_select=k,
                                    direction="forward", scoring="neg_mean_squared_error", cv=splits)
    t_sfs, _ = timed(lambda: sfs.fit(Xc, yc), max(1, args.repeat // 2))
    sfs_sel = list(np.flatnonzero(sfs.get_support()))
    print(f"MQ2008 Fold1 train m={len(y)} n={n} queries={len(np.unique(qid))} k={k} alpha={alpha}")
    print(f"  rankselect GreedyRankRLS (exact LQO): {t_ours:.4f} s  selected(1-based) {[j + 1 for j in sel]}")
    print(f"  brute-force LQO reference (extrapolated from per-size cost): {t_brute:.1f} s  "
          f"ratio {t_brute / t_ours:.0f}x")
    print(f"  sklearn SFS(Ridge, GroupKFold(5)): {t_sfs:.2f} s  ratio {t_sfs / t_ours:.0f}x  "
          f"selected set {sorted(j + 1 for j in sfs_sel)}")


def scale(args):
    m_q, docs, n, k = args.scale_m // 120, 120, 136, args.scale_k
    m = m_q * docs
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, n))
    qid = np.repeat(np.arange(m_q), docs)
    w_true = np.zeros(n)
    w_true[:10] = rng.normal(size=10)
    y = np.clip(np.round(X @ w_true / 3 + 1 + rng.normal(size=m) * 0.5), 0, 4)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    steps = []
    last = [time.perf_counter()]

    t0 = time.perf_counter()
    from rankselect import _core
    from rankselect.data import QueryGroups

    g = QueryGroups.from_qid(qid)
    offsets = g.offsets.astype(np.uintp)

    def progress(step, feature, value):
        now = time.perf_counter()
        steps.append(now - last[0])
        last[0] = now

    last[0] = time.perf_counter()
    r = _core.greedy_rankrls(X, y, offsets, _core.GreedyOptions(k, 1.0), progress)
    sel, path = r.selected, r.coef_path
    total = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    bw = copy_bandwidth()  # after the fit, so its buffers do not count in the peak
    # Bytes a fused step moves: C and U read and written once (4 m n).
    step_bytes = 4 * m * n * 8
    bound = step_bytes / bw
    med = statistics.median(steps[1:]) if len(steps) > 1 else steps[0]
    print(f"scale: m={m} ({m_q} queries x {docs}) n={n} k={k}")
    print(f"  total {total:.1f} s, first step (incl. set-up) {steps[0]:.2f} s, median step {med:.2f} s")
    print(f"  copy bandwidth {bw / 1e9:.2f} GB/s (read+write); bound per step {bound:.2f} s; ratio {med / bound:.2f}x")
    print(f"  peak RSS {peak / 1e9:.2f} GB (input X {X.nbytes / 1e9:.2f} GB, before fit {rss0 / 1e9:.2f} GB); "
          f"2 m n 8 = {2 * m * n * 8 / 1e9:.2f} GB; peak - before = {(peak - rss0) / 1e9:.2f} GB")
    if args.drift:
        direct = RankRLS(alpha=1.0).fit(X[:, sel], y, qid=qid).coef_
        w = np.asarray(path)[-1][sel]
        drift = np.linalg.norm(w - direct) / np.linalg.norm(direct)
        print(f"  drift at k={k}: ||w_greedy - w_direct|| / ||w_direct|| = {drift:.2e}")


def copy_bandwidth_threads(threads, nbytes=1 << 30, repeat=5):
    """STREAM-like copy bandwidth (bytes read + written per second) with `threads` threads,
    each copying its slice of a `nbytes` array with NumPy (which releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    src = np.ones(nbytes // 8)
    dst = np.zeros_like(src)
    cuts = np.linspace(0, src.size, threads + 1).astype(int)
    best = float("inf")
    with ThreadPoolExecutor(threads) as ex:
        for _ in range(repeat):
            t0 = time.perf_counter()
            list(ex.map(lambda i: np.copyto(dst[cuts[i]:cuts[i + 1]], src[cuts[i]:cuts[i + 1]]), range(threads)))
            best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best


def synthetic(m, n, docs=120, seed=0):
    """Grouped synthetic LETOR-like data: m rows in queries of `docs`, n features, 10 informative."""
    rng = np.random.default_rng(seed)
    q = -(-m // docs)
    qid = np.repeat(np.arange(q), docs)[:m]
    X = rng.normal(size=(m, n))
    w = np.zeros(n)
    w[:10] = rng.normal(size=10)
    y = np.clip(np.round(X @ w / 3 + 1 + rng.normal(size=m) * 0.5), 0, 4)
    return X, y, qid


def scaling_child(args):
    """One thread count (set by the parent through the environment): prints one JSON line."""
    from rankselect import _core

    t = int(os.environ["RAYON_NUM_THREADS"])
    m, n, k = args.scale_m, args.scale_n, args.scale_k
    X, y, qid = synthetic(m, n)
    offsets = np.r_[0, np.flatnonzero(np.diff(qid)) + 1, m].astype(np.uintp)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    stamps = []
    t0 = time.perf_counter()
    _core.greedy_rankrls(X, y, offsets, _core.GreedyOptions(k, 1.0), lambda *a: stamps.append(time.perf_counter()))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    steps = np.diff(np.r_[t0, stamps])
    bw = copy_bandwidth_threads(t)  # after the fit, so its buffers do not count in the peak
    print(json.dumps({"threads": t, "first": steps[0], "step": float(np.median(steps[1:])),
                      "bw": bw, "grow": peak - rss0, "m": m, "n": n}))


def scaling(args):
    threads = [int(t) for t in args.threads.split(",")]
    rows = []
    for t in threads:
        env = dict(os.environ, RAYON_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t),
                   OPENBLAS_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t))
        cmd = [sys.executable, __file__, "--child", "--scale-m", str(args.scale_m),
               "--scale-n", str(args.scale_n), "--scale-k", str(args.scale_k)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
    m, n = args.scale_m, args.scale_n
    print(f"greedy RankRLS step, m = {m:,}, n = {n}, k = {args.scale_k} (median step after the first); "
          f"bound = 6 m n doubles at the copy bandwidth of the same thread count")
    print()
    print("| threads | step (s) | copy bw (GB/s) | bound 6mn (s) | step / bound | speed-up | "
          "moved at 4mn (GB/s) | first step incl. set-up (s) | RSS growth (GB) | 2mn8 (GB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    base = rows[0]["step"]
    for r in rows:
        bound = 6 * m * n * 8 / r["bw"]
        print(f"| {r['threads']} | {r['step']:.3f} | {r['bw'] / 1e9:.1f} | {bound:.3f} | {r['step'] / bound:.2f}x | "
              f"{base / r['step']:.2f} | {4 * m * n * 8 / r['step'] / 1e9:.1f} | {r['first']:.2f} | "
              f"{r['grow'] / 1e9:.2f} | {2 * m * n * 8 / 1e9:.2f} |")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", default=None, help="thread scaling table, e.g. 1,2,4,8,16 (only that section)")
    p.add_argument("--scale-n", type=int, default=136)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--scale-m", type=int, default=720_000)
    p.add_argument("--scale-k", type=int, default=30)
    p.add_argument("--skip-scale", action="store_true")
    p.add_argument("--skip-mq2008", action="store_true")
    p.add_argument("--drift", action="store_true", help="also compare the last model with a direct solve")
    args = p.parse_args()
    if args.child:
        return scaling_child(args)
    if args.threads:
        return scaling(args)
    if not args.skip_mq2008:
        mq2008(args)
    if not args.skip_scale:
        scale(args)


if __name__ == "__main__":
    sys.exit(main())
