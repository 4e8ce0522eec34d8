"""Pairwise squared hinge loss and RankSVM: rankselect vs explicit pairs and scikit-learn.

Run (release build):
    maturin develop --release && python benches/pairwise_bench.py [--repeat 5]

1. Loss + gradient at a fixed w: implicit pairs (rankselect, O(m log m)), explicit pairs in
   the Rust core (O(p), pairs precomputed), and NumPy on explicit pair differences
   (precomputed D = X[i] - X[j]), on MQ2008 Fold1 train and on a synthetic set of
   1,000-document queries (~10^8 pairs; the explicit versions run on a subset of the
   queries and are extrapolated linearly in the number of pairs when memory forbids).
2. RankSVM (truncated Newton, implicit pairs) vs LinearSVC (liblinear, primal Newton) on the
   explicit pair differences (both orientations, C/2: the same objective), MQ2008 Fold1:
   time for RankSVM to reach LinearSVC's objective.
Medians of --repeat runs; ratios are measured in the same run.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.svm import LinearSVC

import rankselect
from rankselect import _core
from rankselect.data import QueryGroups
from rankselect.models.pairwise import squared_hinge

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def median_time(f, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def load(path):
    try:
        data = rankselect.load_letor(path)  # type: ignore[attr-defined]
        return np.asarray(data.X, dtype=float), np.asarray(data.y, dtype=float), np.asarray(data.qid)
    except AttributeError:
        X, y, qid = load_svmlight_file(str(path), query_id=True)
        return X.toarray(), y, qid


def numpy_value_grad(D, w):
    margin = 1.0 - D @ w
    act = margin > 0
    ma = np.where(act, margin, 0.0)
    return float(ma @ ma), -2.0 * (D.T @ ma)


def explicit_inputs(X, y, qid):
    g = QueryGroups.from_qid(qid)
    Xg = np.ascontiguousarray(g.gather(X))
    off = g.offsets.astype(np.uintp)
    pairs = _core.preference_pairs(np.ascontiguousarray(g.gather(y)), off)
    return Xg, off, pairs.i, pairs.j, pairs.pair_offsets


def bench_loss(name, X, y, qid, w, repeat, explicit_subset=None, numpy_subset=None, out=None):
    p_total = rankselect.models.pairwise.count_pairs(y, qid)
    t_imp, (v_imp, _) = median_time(lambda: squared_hinge(X, y, qid, w), repeat)
    rows = [f"{name}: m={X.shape[0]}, n={X.shape[1]}, queries={len(np.unique(qid))}, pairs={p_total:.3g}",
            f"  implicit (rankselect)        {t_imp * 1e3:10.2f} ms"]

    def subset(mask):
        return X[mask], y[mask], qid[mask]

    # explicit pairs in the Rust core
    Xs, ys, qs = subset(explicit_subset) if explicit_subset is not None else (X, y, qid)
    p_sub = rankselect.models.pairwise.count_pairs(ys, qs)
    Xg, off, i, j, poff = explicit_inputs(Xs, ys, qs)
    t_exp, (v_exp, _) = median_time(
        lambda: _core.explicit_squared_hinge_value_grad(Xg, off, i, j, poff, w), repeat)
    scale = p_total / p_sub
    if explicit_subset is None:
        assert abs(v_exp - v_imp) <= 1e-8 * (1 + abs(v_imp)), (v_exp, v_imp)
    rows.append(f"  explicit pairs (Rust)        {t_exp * scale * 1e3:10.2f} ms"
                + (f"  (extrapolated from {p_sub:.3g} pairs)" if scale != 1 else "")
                + f"   ratio {t_exp * scale / t_imp:8.1f}x")
    Xg = i = j = poff = None  # free the pair lists before the next measurement
    # NumPy on explicit pair differences
    Xs, ys, qs = subset(numpy_subset) if numpy_subset is not None else (X, y, qid)
    p_np = rankselect.models.pairwise.count_pairs(ys, qs)
    pi, pj = rankselect.preference_pairs(ys, qs)
    D = Xs[pi] - Xs[pj]
    del pi, pj
    t_np, (v_np, _) = median_time(lambda: numpy_value_grad(D, w), repeat)
    if numpy_subset is None:
        assert abs(v_np - v_imp) <= 1e-8 * (1 + abs(v_imp)), (v_np, v_imp)
    scale = p_total / p_np
    rows.append(f"  NumPy on pair differences    {t_np * scale * 1e3:10.2f} ms"
                + (f"  (extrapolated from {p_np:.3g} pairs)" if scale != 1 else "")
                + f"   ratio {t_np * scale / t_imp:8.1f}x")
    D = None  # free the pair differences
    text = "\n".join(rows)
    print(text, flush=True)
    if out is not None:
        out.append(text)


def objective(X, y, qid, w, C):
    return 0.5 * w @ w + C * squared_hinge(X, y, qid, w)[0]


def bench_ranksvm(X, y, qid, C, repeat, out):
    pi, pj = rankselect.preference_pairs(y, qid)
    t0 = time.perf_counter()
    D = X[pi] - X[pj]
    Z = np.vstack([D, -D])
    t = np.concatenate([np.ones(len(D)), -np.ones(len(D))])
    t_build = time.perf_counter() - t0

    def svc():
        s = LinearSVC(penalty="l2", loss="squared_hinge", dual=False, fit_intercept=False,
                      C=C / 2, tol=1e-4, max_iter=10_000)
        return s.fit(Z, t).coef_.ravel()

    t_svc, w_svc = median_time(svc, repeat)
    f_svc = objective(X, y, qid, w_svc, C)
    # the loosest RankSVM tolerance whose objective is at least as good as LinearSVC's
    chosen = None
    for tol in [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-10]:
        m = rankselect.RankSVM(C=C, tol=tol).fit(X, y, qid=qid)
        if m.objective_ <= f_svc * (1 + 1e-12):
            chosen = tol
            break
    t_ours, model = median_time(lambda: rankselect.RankSVM(C=C, tol=chosen).fit(X, y, qid=qid), repeat)
    text = (f"RankSVM vs LinearSVC on explicit pairs, MQ2008 Fold1 train, C={C}, "
            f"pairs={len(pi)} (x2 orientations)\n"
            f"  LinearSVC(tol=1e-4): {t_svc:.3f} s (+ {t_build:.3f} s building pair differences), "
            f"objective {f_svc:.10g}\n"
            f"  RankSVM(tol={chosen:g}):  {t_ours:.3f} s, objective {model.objective_:.10g}, "
            f"{model.n_iter_} Newton steps, {model.n_cg_iter_} CG steps\n"
            f"  ratio (LinearSVC fit only / RankSVM): {t_svc / t_ours:.1f}x; "
            f"with pair building: {(t_svc + t_build) / t_ours:.1f}x")
    print(text, flush=True)
    out.append(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--synthetic-queries", type=int, default=250)
    args = ap.parse_args()
    out = []
    rng = np.random.default_rng(0)

    X, y, qid = load(DATA / "MQ2008" / "Fold1" / "train.txt")
    w = rng.normal(scale=0.5, size=X.shape[1])
    bench_loss("MQ2008 Fold1 train", X, y, qid, w, args.repeat, out=out)

    nq, docs, n = args.synthetic_queries, 1000, 46
    Xs = rng.random((nq * docs, n))
    ys = rng.integers(0, 5, size=nq * docs).astype(float)
    qs = np.repeat(np.arange(nq), docs)
    ws = rng.normal(scale=0.1, size=n)
    bench_loss(f"synthetic {nq} queries x {docs} documents", Xs, ys, qs, ws, args.repeat,
               explicit_subset=qs < 10, numpy_subset=qs < 2, out=out)
    del Xs, ys, qs

    for C in (1.0, 0.01):
        bench_ranksvm(X, y, qid, C, args.repeat, out)


if __name__ == "__main__":
    main()
