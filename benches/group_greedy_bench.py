"""Group greedy RankRLS (issue 33) against a forward selection over groups that refits
RankRLS for every candidate group, at MQ2008 size (Fold1 train, the LETOR 4.0 layouts).

The refitting baseline is as cheap as a refit can be: for a candidate set ``S`` (d
columns) it forms ``A = Xc_S^T Xc_S + alpha I`` and ``b = Xc_S^T yc`` once, and the exact LQO
error (eq. 7) from one d x d solve per held-out query, ``w_{-q} = (A - Xq^T Xq)^{-1}
(b - Xq^T yq)`` (query-centring is per query, so deleting a query leaves the others' rows
unchanged). Both give the same group order and criteria (checked at 1e-8 relative). A second
anchor refits with the library's own exact LQO, ``rankselect.RankRLS().path(X[:, S], ...)``
(the alpha path at one alpha) for every candidate set: what a user without group greedy would
write.

    PYTHONPATH=python python benches/group_greedy_bench.py --rounds 3 [--data /work/shared/data]

Prints one line per layout: medians [minima] of ``--rounds`` interleaved runs, and their
ratios (anchors = the refits); then the median CPU time of the process (every thread's, so
group greedy's two threads count twice) of group greedy and of the ``RankRLS.path`` refits,
which other processes on a shared machine move less than the wall clock. ``k`` is every
group that can change the model (LETOR's stream layout: 5 of 6, the sixth holds features
constant within every query). BLAS runs on one thread (threadpoolctl): the refit's d x d
systems (d <= 46) gain nothing from more, and BLAS threads that spin after a refit would take
the cores from the group greedy run that follows it.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import rankselect as rs


def _centred(X, y, qid):
    Xc, yc = np.array(X, dtype=float), np.array(y, dtype=float)
    bounds = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
    for s, e in zip(bounds[:-1], bounds[1:]):
        Xc[s:e] -= Xc[s:e].mean(axis=0)
        yc[s:e] -= yc[s:e].mean()
    return Xc, yc, bounds


def refit_lqo(Xc, yc, bounds, cols, alpha):
    """Exact LQO squared error of RankRLS on ``cols``, refitted for every held-out query."""
    Xs = Xc[:, cols]
    A = Xs.T @ Xs + alpha * np.eye(len(cols))
    b = Xs.T @ yc
    err = 0.0
    for s, e in zip(bounds[:-1], bounds[1:]):
        Xq, yq = Xs[s:e], yc[s:e]
        w = np.linalg.solve(A - Xq.T @ Xq, b - Xq.T @ yq)
        r = yq - Xq @ w
        r -= r.mean()
        err += float(r @ r)
    return err


def refit_forward(X, y, qid, groups, k, alpha):
    Xc, yc, bounds = _centred(X, y, qid)
    members = groups.member_lists()
    # a group constant within every query (e.g. LETOR's IDF) cannot change the model: as in
    # GreedyRankRLS (and tests/_rankrls_reference.greedy), never a candidate
    informative = [bool(np.abs(Xc[:, m]).max() > 0) for m in members]
    chosen, cols, errs = [], [], []
    for _ in range(k):
        cand = [g for g in range(groups.n_groups) if g not in chosen and informative[g]]
        values = [refit_lqo(Xc, yc, bounds, cols + members[g].tolist(), alpha) for g in cand]
        g = cand[int(np.argmin(values))]
        chosen.append(g)
        cols += members[g].tolist()
        errs.append(min(values))
    return chosen, np.array(errs)


def path_forward(X, y, qid, groups, k, alpha):
    """Forward selection over groups scoring every candidate set by ``RankRLS.path`` (one
    alpha): the library's exact LQO error, refitted per candidate."""
    members = groups.member_lists()
    Xc, _, _ = _centred(X, y, qid)
    informative = [bool(np.abs(Xc[:, m]).max() > 0) for m in members]
    chosen, cols, errs = [], [], []
    for _ in range(k):
        cand = [g for g in range(groups.n_groups) if g not in chosen and informative[g]]
        values = [float(rs.RankRLS().path(X[:, cols + members[g].tolist()], y, qid, alphas=[alpha]).lqo_errors[0])
                  for g in cand]
        g = cand[int(np.argmin(values))]
        chosen.append(g)
        cols += members[g].tolist()
        errs.append(min(values))
    return chosen, np.array(errs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--alpha", type=float, default=1.0)
    args = ap.parse_args()
    d = rs.load_letor(Path(args.data) / "MQ2008" / "Fold1" / "train.txt")
    order = np.argsort(d.qid, kind="stable")
    X, y, qid = np.asarray(d.X)[order], np.asarray(d.y)[order], np.asarray(d.qid)[order]
    print(f"MQ2008 Fold1 train: {X.shape[0]} rows, {X.shape[1]} features, {len(np.unique(qid))} queries")
    for by, k in (("stream", 5), ("measure", 8)):
        groups = rs.data.datasets.feature_layout("letor4", by=by)
        t_fast, t_ref, t_path = [], [], []
        c_fast, c_path = [], []  # CPU seconds of the process (every thread): less moved by other processes
        for _ in range(args.rounds):
            t0, c0 = time.perf_counter(), time.process_time()
            sel = rs.GreedyRankRLS(n_features_to_select=k, alpha=args.alpha, feature_groups=groups).fit(X, y, qid=qid)
            t_fast.append(time.perf_counter() - t0)
            c_fast.append(time.process_time() - c0)
            t0 = time.perf_counter()
            chosen, errs = refit_forward(X, y, qid, groups, k, args.alpha)
            t_ref.append(time.perf_counter() - t0)
            t0, c0 = time.perf_counter(), time.process_time()
            chosen_p, errs_p = path_forward(X, y, qid, groups, k, args.alpha)
            t_path.append(time.perf_counter() - t0)
            c_path.append(time.process_time() - c0)
        same = [groups.group_id(g) for g in sel.selected_groups_] == chosen == chosen_p
        close = bool(np.allclose(sel.lqo_scores_, errs, rtol=1e-8) and np.allclose(sel.lqo_scores_, errs_p, rtol=1e-8))
        f, r, p = (float(np.median(t)) for t in (t_fast, t_ref, t_path))
        fm, rm, pm = min(t_fast), min(t_ref), min(t_path)
        print(f"letor4:{by} ({groups.n_groups} groups, k={k}): group greedy {f * 1e3:.1f} ms [{fm * 1e3:.1f}], "
              f"refitting {r * 1e3:.1f} ms [{rm * 1e3:.1f}] = {r / f:.1f}x [{rm / fm:.1f}x], "
              f"RankRLS.path refits {p * 1e3:.1f} ms [{pm * 1e3:.1f}] = {p / f:.1f}x [{pm / fm:.1f}x]; "
              f"same order {same}, criteria 1e-8 {close}")
        cf, cp = float(np.median(c_fast)), float(np.median(c_path))
        print(f"  CPU time (all threads), medians: group greedy {cf * 1e3:.1f} ms, RankRLS.path refits "
              f"{cp * 1e3:.1f} ms = {cp / cf:.1f}x")


if __name__ == "__main__":
    with threadpool_limits(limits=1, user_api="blas"):
        main()
