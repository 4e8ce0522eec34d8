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
"""
from __future__ import annotations

import argparse
import resource
import statistics
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
    print(f"  brute-force LQO reference (extrapolated from per-size cost): {t_brute:.1f} s  ratio {t_brute / t_ours:.0f}x")
    print(f"  sklearn SFS(Ridge, GroupKFold(5)): {t_sfs:.2f} s  ratio {t_sfs / t_ours:.0f}x  selected set {sorted(j + 1 for j in sfs_sel)}")


def scale(args):
    m_q, docs, n, k = args.scale_m // 120, 120, 136, args.scale_k
    m = m_q * docs
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, n))
    qid = np.repeat(np.arange(m_q), docs)
    w_true = np.zeros(n)
    w_true[:10] = rng.normal(size=10)
    y = np.clip(np.round(X @ w_true / 3 + 1 + rng.normal(size=m) * 0.5), 0, 4)
    bw = copy_bandwidth()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    steps = []
    last = [time.perf_counter()]

    t0 = time.perf_counter()
    from rankselect import _core
    from rankselect.groups import QueryGroups

    g = QueryGroups.from_qid(qid)
    offsets = g.offsets.astype(np.int64)

    def progress(step, feature, value):
        now = time.perf_counter()
        steps.append(now - last[0])
        last[0] = now

    last[0] = time.perf_counter()
    sel, errs, path = _core.greedy_rankrls(X, y, offsets, k, 1.0, "squared", None, progress)
    total = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    # Bytes a step must move: scan reads X, C, U (3 m n); update reads C, U, writes C, U (4 m n).
    step_bytes = 7 * m * n * 8
    bound = step_bytes / bw
    med = statistics.median(steps[1:]) if len(steps) > 1 else steps[0]
    print(f"scale: m={m} ({m_q} queries x {docs}) n={n} k={k}")
    print(f"  total {total:.1f} s, first step (incl. set-up) {steps[0]:.2f} s, median step {med:.2f} s")
    print(f"  copy bandwidth {bw / 1e9:.2f} GB/s (read+write); bound per step {bound:.2f} s; ratio {med / bound:.2f}x")
    print(f"  peak RSS {peak / 1e9:.2f} GB (input X {X.nbytes / 1e9:.2f} GB, before fit {rss0 / 1e9:.2f} GB); "
          f"3 m n 8 = {3 * m * n * 8 / 1e9:.2f} GB; peak - before = {(peak - rss0) / 1e9:.2f} GB")
    if args.drift:
        direct = RankRLS(alpha=1.0).fit(X[:, sel], y, qid=qid).coef_
        w = np.asarray(path)[-1][sel]
        print(f"  drift at k={k}: ||w_greedy - w_direct|| / ||w_direct|| = {np.linalg.norm(w - direct) / np.linalg.norm(direct):.2e}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--scale-m", type=int, default=720_000)
    p.add_argument("--scale-k", type=int, default=30)
    p.add_argument("--skip-scale", action="store_true")
    p.add_argument("--skip-mq2008", action="store_true")
    p.add_argument("--drift", action="store_true", help="also compare the last model with a direct solve")
    args = p.parse_args()
    if not args.skip_mq2008:
        mq2008(args)
    if not args.skip_scale:
        scale(args)


if __name__ == "__main__":
    sys.exit(main())
