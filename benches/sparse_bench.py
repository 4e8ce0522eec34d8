"""Benchmarks of issue 6 (sparse RankSVM and FSMRank). Run with the release build:

    maturin develop --release && python benches/sparse_bench.py [--part all|svc|synthetic|path|fsm|cv]

- svc: L1 sparse RankSVM (FISTA, implicit pairs) vs scikit-learn LinearSVC(penalty='l1',
  loss='squared_hinge', dual=False) on explicit pair differences (both orientations, C/2),
  MQ2008 Fold1: time for each to reach the same objective (within 1e-6 relative of the
  best of the two), median of 3 repeats.
- synthetic: the same on a synthetic set with ~10^7 preference pairs (LinearSVC's explicit
  pair matrix is estimated and not built when it would not fit in memory).
- path: a warm-started path of 15 C values on MQ2008 Fold1, proximal Newton vs FISTA.
- fsm: FSMRank accelerated (Alg. 1) vs plain projected gradient vs projected subgradient
  descent: objective gap vs time on MQ2008 Fold1 (the paper's Fig. 5) -> benches/fsmrank_convergence.png
- cv: MQ2008 5-fold MAP / NDCG@10 (LETOR conventions) and sparsity ratio for l1, log, mcp, lp
  and FSMRank with the LETOR protocol (rankselect.protocol.run, default grids), C chosen by
  validation MAP, and the whole path (features and MAP per C) to compare penalties at equal C.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from rankselect import FSMRank, SparseRankSVM

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "MQ2008"


def load(fold, part):
    X, y, qid = load_svmlight_file(str(DATA / f"Fold{fold}" / f"{part}.txt"), query_id=True)
    return X.toarray(), y, qid


def pair_diffs(X, y, qid):
    out = []
    for q in np.unique(qid):
        idx = np.flatnonzero(qid == q)
        yi = y[idx]
        hi, lo = np.nonzero(yi[:, None] > yi[None, :])
        if hi.size:
            out.append(X[idx[hi]] - X[idx[lo]])
    return np.vstack(out)


def l1_obj(Z, w, C):
    r = np.maximum(0, 1 - Z @ w)
    return float(np.abs(w).sum() + C * r @ r)


def time_it(f, repeats=3):
    ts, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def _first_reaching(fit, objective, target, tols):
    """The loosest tolerance whose solution is within 1e-6 (relative) of ``target``: searched
    with single runs, then timed as the median of 3."""
    for tol in tols:
        est = fit(tol)
        if objective(est) <= target * (1 + 1e-6):
            t, est = time_it(lambda: fit(tol))
            return tol, t, objective(est)
    return None


def svc_compare(X, y, qid, C, label):
    from sklearn.svm import LinearSVC

    t_pairs, Z = time_it(lambda: pair_diffs(X, y, qid), 1)
    Xp = np.vstack([Z, -Z])
    yp = np.r_[np.ones(len(Z)), -np.ones(len(Z))]
    # the optimum: proximal Newton to KKT 1e-11 (checked against FISTA and LinearSVC in tests)
    ref = SparseRankSVM(C=C, tol=1e-11).fit(X, y, qid=qid)
    target = l1_obj(Z, ref.coef_, C)
    tols = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10]
    rows = []
    for solver in ("prox-newton", "fista"):
        r = _first_reaching(lambda tol: SparseRankSVM(C=C, tol=tol, max_iter=100_000, solver=solver).fit(X, y, qid=qid),
                            lambda e: l1_obj(Z, e.coef_, C), target, tols)
        rows.append((f"rankselect {solver}",) + (r or (None, float("nan"), float("nan"))))

    def svc_fit(tol):
        return LinearSVC(penalty="l1", loss="squared_hinge", dual=False, fit_intercept=False,
                         tol=tol, C=C / 2, max_iter=100_000).fit(Xp, yp)

    r = _first_reaching(svc_fit, lambda e: l1_obj(Z, e.coef_.ravel(), C), target, tols)
    rows.append(("LinearSVC explicit pairs",) + (r or (None, float("nan"), float("nan"))))
    print(f"\n### {label}: {len(X)} rows, {X.shape[1]} features, {len(Z)} pairs, C={C}")
    print(f"optimum {target:.10g}; pair construction (numpy, LinearSVC only): {t_pairs:.3f} s")
    print("| solver | loosest tol within 1e-6 of the optimum | median time (s) | objective |")
    print("|---|---|---|---|")
    for name, tol, t, obj in rows:
        print(f"| {name} | {tol if tol is None else f'{tol:g}'} | {t:.3f} | {obj:.10g} |")
    svc_t = rows[-1][2]
    for name, _tol, t, _ in rows[:-1]:
        print(f"ratio LinearSVC / {name} = {svc_t / t:.1f}x ({(svc_t + t_pairs) / t:.1f}x with pair construction)")
    sys.stdout.flush()


def synthetic(n_queries=1100, per_query=150, n=46, seed=0):
    rng = np.random.default_rng(seed)
    m = n_queries * per_query
    X = rng.uniform(size=(m, n))
    w = np.zeros(n)
    w[:8] = rng.normal(size=8)
    s = X @ w + 0.3 * rng.normal(size=m)
    y = np.digitize(s, np.quantile(s, [0.5, 0.75, 0.9, 0.97])).astype(float)
    qid = np.repeat(np.arange(n_queries), per_query)
    return X, y, qid


def part_synthetic():
    X, y, qid = synthetic()
    n_pairs = 0
    for q in range(qid.max() + 1):
        yq = y[qid == q]
        n_pairs += int((yq[:, None] > yq[None, :]).sum())
    gb = 2 * n_pairs * X.shape[1] * 8 / 1e9
    for C in (1e-4, 1e-2):
        print(f"\n### synthetic: {len(X)} rows, {X.shape[1]} features, {n_pairs} pairs, C={C}")
        for solver in ("prox-newton", "fista"):
            t, est = time_it(lambda: SparseRankSVM(C=C, tol=1e-6, max_iter=20_000, solver=solver).fit(X, y, qid=qid))
            print(f"rankselect {solver} (tol 1e-6): {t:.2f} s (median of 3), {est.n_iter_} iterations, "
                  f"{est.support_.sum()} features, objective {est.objective_:.10g}")
    print(f"LinearSVC would need the explicit pair matrix (both orientations): {gb:.1f} GB of float64 "
          f"-> not run on this machine")
    # The largest size LinearSVC fits in memory here with room to spare: 1/8 of the queries
    # (~10^6 pairs; the explicit matrix plus liblinear's own copy take ~2.5 GB).
    X, y, qid = synthetic(n_queries=137)
    svc_compare(X, y, qid, 1e-4, "synthetic, 137 queries x 150 documents")


def part_fsm():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, qid = load(1, "train")
    l1, l2 = 0.1, 0.01
    kw = dict(lambda1=l1, lambda2=l2)
    best = FSMRank(max_iter=20000, tol=1e-12, **kw).fit(X, y, qid=qid).objective_
    curves = {}
    for name, acc in [("FSMRank (Alg. 1, accelerated)", True), ("projected gradient (no momentum)", False)]:
        est = FSMRank(max_iter=400, tol=1e-12, **kw)
        t, est = time_it(lambda: est.fit(X, y, qid=qid, accelerate=acc), 1)
        h = est.objective_history_
        curves[name] = (np.linspace(0, t, len(h)), h)
    # projected subgradient descent on the same objective (numpy, explicit pairs), step a/sqrt(t)
    keep = ~np.all(X == X[:1], axis=0)
    fsm = FSMRank(**kw).fit(X, y, qid=qid)
    Z = pair_diffs(X[:, keep], y, qid)
    s = fsm.importance_[keep]
    A = fsm.similarity_[np.ix_(keep, keep)]
    A2 = np.block([[A, A], [A, A]])
    with np.errstate(divide="ignore"):
        s2 = np.r_[s, s]
        lin = np.where(s2 > 0, l2 / s2, 0.0)
    dd = keep.sum()
    P = len(Z)

    def psi_grad(w):
        u = w[:dd] - w[dd:]
        r = np.maximum(0, 1 - Z @ u)
        gu = -2 * Z.T @ r / P
        return 0.5 * l1 * w @ A2 @ w + lin @ w + r @ r / P, l1 * A2 @ w + lin + np.r_[gu, -gu]

    w = np.zeros(2 * dd)
    hs, ts = [], []
    t0 = time.perf_counter()
    for it in range(400):
        v, g = psi_grad(w)
        hs.append(v)
        ts.append(time.perf_counter() - t0)
        w = np.maximum(0, w - 0.05 / np.sqrt(it + 1) * g)
    curves["projected subgradient (numpy, explicit pairs)"] = (np.asarray(ts), np.asarray(hs))
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, (tt, h) in curves.items():
        ax.semilogy(tt, np.maximum(h - best, 1e-12), label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("objective - optimum")
    ax.set_title(f"FSMRank eq. (2) on MQ2008 Fold1\n(lambda1={l1}, lambda2={l2})", fontsize="medium")
    ax.legend(fontsize=7)
    fig.tight_layout()
    out = Path(__file__).with_name("fsmrank_convergence.png")
    fig.savefig(out, dpi=120)
    print(f"\n### FSMRank convergence (MQ2008 Fold1): optimum {best:.8g}; figure {out.name}")
    print("| method | iterations | time (s) | final gap |")
    print("|---|---|---|---|")
    for name, (tt, h) in curves.items():
        print(f"| {name} | {len(h) - 1} | {tt[-1]:.3f} | {h[-1] - best:.3g} |")


def part_path(repeats=3):
    """A warm-started C path (what the protocol computes per fold): 15 values from c_min to
    1000, MQ2008 Fold1 train, both solvers, median of ``repeats`` runs."""
    X, y, qid = load(1, "train")
    c0 = SparseRankSVM().c_min(X, y, qid)
    Cs = list(c0 * np.logspace(0, 3, 11)) + [1.0, 10.0, 100.0, 1000.0]
    print(f"\n### warm-started path, MQ2008 Fold1 train: {len(Cs)} values of C from c_min = {c0:.3g} to 1000")
    print("| solver | median time (s) | total iterations | features at each C |")
    print("|---|---|---|---|")
    out = {}
    for solver in ("prox-newton", "fista"):
        est = SparseRankSVM(tol=1e-6, max_iter=20_000, solver=solver)
        t, path = time_it(lambda: est.path(X, y, qid, Cs=Cs), repeats)
        out[solver] = (t, path)
        print(f"| {solver} | {t:.2f} | {int(path.n_iter.sum())} | {' '.join(map(str, path.n_selected))} |")
    rel = np.abs(out["prox-newton"][1].objectives - out["fista"][1].objectives) / out["fista"][1].objectives
    print(f"ratio fista / prox-newton = {out['fista'][0] / out['prox-newton'][0]:.0f}x; "
          f"largest relative objective difference along the path {rel.max():.1e}")
    sys.stdout.flush()


def part_cv(repeats=3):
    """MQ2008 5-fold with the LETOR protocol (rankselect.protocol.run): C chosen per fold by
    validation MAP, whole path per C, penalties compared at equal C."""
    from rankselect.protocol import run

    methods = ["sparse-ranksvm:penalty=l1", "sparse-ranksvm:penalty=log", "sparse-ranksvm:penalty=mcp",
               "sparse-ranksvm:penalty=lp,p=0.5", "fsmrank"]
    times = {m: [] for m in methods}
    res = {}
    for _ in range(repeats):
        for m in methods:
            t = time.perf_counter()
            res[m] = run(DATA, [m], progress=False)
            times[m].append(time.perf_counter() - t)
    print("\n### MQ2008 5-fold (test means; C or (lambda1, lambda2) chosen per fold by validation MAP)")
    print(f"Median of {repeats} runs of the whole 5-fold protocol per method.")
    print("| method | MAP | NDCG@10 | #features | sparsity ratio | chosen per fold | 5-fold time (s) |")
    print("|---|---|---|---|---|---|---|")
    for m in methods:
        a = res[m].averages()[m]
        chosen = [",".join(f"{v:g}" for v in f[m].params.values()) for f in res[m].folds]
        print(f"| {m} | {a['MAP']:.4f} | {a['NDCG@10']:.4f} | {a['n_features']:.1f} | {a['sparsity_ratio']:.2f} | "
              f"{'; '.join(chosen)} | {statistics.median(times[m]):.1f} |")
    sparse = methods[:4]
    Cs = [c["params"]["C"] for c in res[sparse[0]].folds[0][sparse[0]].curve]
    print("\nWhole path, mean over the 5 folds: features kept / validation MAP / test MAP at each C")
    print("| C | " + " | ".join(m.partition("=")[2] for m in sparse) + " |")
    print("|---|" + "---|" * len(sparse))
    for i, C in enumerate(Cs):
        cells = []
        for m in sparse:
            pts = [f[m].curve[i] for f in res[m].folds]
            assert all(p["params"]["C"] == C for p in pts)
            n_kept = np.mean([p['n_features'] for p in pts])
            cells.append(f"{n_kept:.1f} / {np.mean([p['vali']['MAP'] for p in pts]):.4f}"
                         f" / {np.mean([p['test']['MAP'] for p in pts]):.4f}")
        print(f"| {C:.3g} | " + " | ".join(cells) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="all", choices=["all", "svc", "synthetic", "path", "fsm", "cv"])
    a = ap.parse_args(argv)
    if a.part in ("all", "svc"):
        X, y, qid = load(1, "train")
        for C in [0.01, 1.0]:
            svc_compare(X, y, qid, C, "MQ2008 Fold1 train")
    if a.part in ("all", "synthetic"):
        part_synthetic()
    if a.part in ("all", "path"):
        part_path()
    if a.part in ("all", "fsm"):
        part_fsm()
    if a.part in ("all", "cv"):
        part_cv()


if __name__ == "__main__":
    sys.exit(main())
