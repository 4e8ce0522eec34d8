"""Ranker-in-the-loop selection against CatBoost's ``select_features`` and the fast linear
selectors, for a LightGBM ranker downstream (issue 25's benchmark).

For every data set and fold (LETOR's Fold1..5: train / vali / test), every method selects
features on ``train`` (those that validate use ``vali``); then one downstream
``LGBMRanker`` per (method, k) is trained on the selected training columns, early-stopped
on ``vali`` (NDCG@10), and scored on ``test``: per-query NDCG@10 and AP (standard
conventions). Methods and how each gets its k-subsets:

- ``all``: every feature (the baseline without selection);
- ``lgbm-gain``: one LGBMRanker (the selection configuration, early-stopped on vali), top k
  by total gain;
- ``sklearn-rfe``: ``sklearn.feature_selection.RFE(LGBMRanker(importance_type="gain"),
  step=1)``, one run per k. RFE knows nothing of queries: the rows are sorted by query and
  the query sizes go through RFE's fit parameters to ``LGBMRanker.fit(group=...)`` (RFE
  slices columns only, so the sizes stay valid); no validation set, no early stopping;
- ``catboost``: ``CatBoostRanker.select_features`` (RecursiveByLossFunctionChange,
  ``eval_set`` = vali, ``steps`` = 5, ``train_final_model=False``), one run per k;
- ``greedy-rankrls`` (alpha 1), ``gas`` (MAP importance, c = 0.1), ``sparse-path``
  (SparseRankSVM L1 path, features in order of entry): one run, prefixes give every k;
- ``rfe``: :class:`rankselect.RecursiveElimination` (LGBMRanker, permutation importance
  on vali, step 1) from all features, one run down to the smallest k: its path gives
  every k, the wall time at k is the path's time to reach k;
- ``rfe-seeded``: the same from the top 20 features of greedy RankRLS (its time included);
- ``forward-seeded``: :class:`rankselect.ForwardSelection` over the top 20 of greedy
  RankRLS, up to 15 features (its time included).

Results are cached per (data set, fold, method) as JSON under ``--cache`` (resumable: a
cached unit is not run again). ``--deadline HH:MM`` (UTC) starts no new unit after that
time. ``--report`` writes the tables (benches/RESULTS.md section, docs page) and figure
from whatever is cached.

Usage::

    nice -n 19 python benches/ranker_loop_bench.py --data ../shared/data --folds 1 2 3 4 5
    python benches/ranker_loop_bench.py --report
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

import numpy as np

import rankselect as rs
from rankselect import metrics

ROOT = Path(__file__).resolve().parents[1]
SETS = {"MQ2008": "MQ2008", "OHSUMED": "OHSUMED-LETOR2"}
KS = (5, 10, 15)
FSA = (0.05, 0.10, 0.20, 0.30, 0.40, 0.50, 0.75)
PATH_METHODS = ("all", "lgbm-gain", "greedy-rankrls", "gas", "sparse-path", "rfe")  # give every FSA size
METHODS = ("all", "lgbm-gain", "greedy-rankrls", "gas", "sparse-path", "catboost", "rfe-seeded", "sklearn-rfe",
           "rfe", "forward-seeded")
SEED = 0
N_SEED = 20  # candidates of the seeded ranker-in-the-loop methods


def selection_ranker(**kw):
    import lightgbm

    return lightgbm.LGBMRanker(n_estimators=100, learning_rate=0.1, num_leaves=31, n_jobs=1, verbose=-1,
                               random_state=SEED, **kw)


def grouped(d):
    order = np.argsort(d.qid, kind="stable")
    X, y, q = d.X[order], d.y[order], d.qid[order]
    _, first, sizes = np.unique(q, return_index=True, return_counts=True)
    return X, y, q, sizes[np.argsort(first)]


def fsa_sizes(n):
    return sorted({max(1, int(round(f * n))) for f in FSA})


# ----------------------------------------------------------------------------- methods
# each returns {k: (features, seconds)}


def m_all(tr, va, ks, n):
    return {n: (list(range(n)), 0.0)}


def m_lgbm_gain(tr, va, ks, n):
    t = time.perf_counter()
    X, y, q, s = grouped(tr)
    Xv, yv, qv, sv = grouped(va)
    import lightgbm

    est = selection_ranker().fit(X, y, group=s, eval_X=(Xv,), eval_y=(yv,), eval_group=[sv], eval_at=[10],
                                 callbacks=[lightgbm.early_stopping(10, verbose=False)])
    gain = est.booster_.feature_importance("gain")
    order = np.lexsort((np.arange(n), -gain))
    sec = time.perf_counter() - t
    return {k: ([int(j) for j in order[:k]], sec) for k in ks}


def m_sklearn_rfe(tr, va, ks, n):
    from sklearn.feature_selection import RFE

    X, y, q, s = grouped(tr)
    out = {}
    for k in ks:
        t = time.perf_counter()
        rfe = RFE(selection_ranker(importance_type="gain"), n_features_to_select=k, step=1).fit(X, y, group=s)
        out[k] = ([int(j) for j in np.flatnonzero(rfe.support_)], time.perf_counter() - t)
    return out


def m_catboost(tr, va, ks, n):
    from catboost import CatBoostRanker, EFeaturesSelectionAlgorithm, Pool

    X, y, q, _ = grouped(tr)
    Xv, yv, qv, _ = grouped(va)
    out = {}
    for k in ks:
        t = time.perf_counter()
        model = CatBoostRanker(iterations=200, random_seed=SEED, thread_count=1, verbose=False,
                               allow_writing_files=False)
        summary = model.select_features(
            Pool(X, y, group_id=q), eval_set=Pool(Xv, yv, group_id=qv), features_for_select=list(range(n)),
            num_features_to_select=k, steps=5, algorithm=EFeaturesSelectionAlgorithm.RecursiveByLossFunctionChange,
            train_final_model=False, logging_level="Silent")
        out[k] = ([int(j) for j in summary["selected_features"]], time.perf_counter() - t)
    return out


def m_greedy(tr, va, ks, n):
    t = time.perf_counter()
    est = rs.GreedyRankRLS(n_features_to_select=max(ks), alpha=1.0).fit(tr.X, tr.y, tr.qid)
    sec = time.perf_counter() - t
    sel = [int(j) for j in est.selected_features_]
    return {k: (sel[:k], sec) for k in ks if k <= len(sel)}


def m_gas(tr, va, ks, n):
    t = time.perf_counter()
    est = rs.GAS(n_features_to_select=max(ks), c=0.1).fit(tr.X, tr.y, tr.qid)
    sec = time.perf_counter() - t
    sel = [int(j) for j in est.selected_features_]
    return {k: (sel[:k], sec) for k in ks if k <= len(sel)}


def m_sparse(tr, va, ks, n):
    t = time.perf_counter()
    path = rs.sparse_path(tr.X, tr.y, tr.qid, n_Cs=30, ratio=1e4)
    entry = np.full(n, np.inf)
    for i, w in enumerate(path.coefs):
        nz = (w != 0) & ~np.isfinite(entry)
        entry[nz] = i
    last = np.abs(path.coefs[-1])
    order = [int(j) for j in np.lexsort((np.arange(n), -last, entry)) if np.isfinite(entry[j])]
    sec = time.perf_counter() - t
    return {k: (order[:k], sec) for k in ks if k <= len(order)}


def _rfe(tr, va, ks, n, seeded):
    t = time.perf_counter()
    sel = rs.RecursiveElimination(selection_ranker(), n_features_to_select=min(ks), step=1, importance="permutation",
                                  n_repeats=3, validation=(va.X, va.y, va.qid), early_stopping_rounds=10,
                                  candidates=rs.GreedyRankRLS(alpha=1.0) if seeded else None,
                                  n_candidates=N_SEED if seeded else None, random_state=SEED)
    sel.fit(tr.X, tr.y, tr.qid)
    offset = time.perf_counter() - t - sel.path_.wall_time[-1]  # the seed's time
    p = sel.path_
    return {int(k): ([int(j) for j in p.features[i]], float(p.wall_time[i] + offset))
            for i, k in enumerate(p.n_features) if int(k) in ks}


def m_rfe(tr, va, ks, n):
    return _rfe(tr, va, ks, n, seeded=False)


def m_rfe_seeded(tr, va, ks, n):
    return _rfe(tr, va, [k for k in ks if k <= N_SEED], n, seeded=True)


def m_forward(tr, va, ks, n):
    t = time.perf_counter()
    ks = [k for k in ks if k <= N_SEED]
    sel = rs.ForwardSelection(selection_ranker(), n_features_to_select=max(ks), validation=(va.X, va.y, va.qid),
                              early_stopping_rounds=10, candidates=rs.GreedyRankRLS(alpha=1.0), n_candidates=N_SEED,
                              random_state=SEED).fit(tr.X, tr.y, tr.qid)
    offset = time.perf_counter() - t - sel.path_.wall_time[-1]
    p = sel.path_
    return {int(k): ([int(j) for j in p.features[i]], float(p.wall_time[i] + offset))
            for i, k in enumerate(p.n_features) if int(k) in ks}


RUN = {"all": m_all, "lgbm-gain": m_lgbm_gain, "sklearn-rfe": m_sklearn_rfe, "catboost": m_catboost,
       "greedy-rankrls": m_greedy, "gas": m_gas, "sparse-path": m_sparse, "rfe": m_rfe,
       "rfe-seeded": m_rfe_seeded, "forward-seeded": m_forward}


def downstream(tr, va, te, cols):
    """Test per-query NDCG@10 and AP of an LGBMRanker on ``cols``, early-stopped on vali."""
    import lightgbm

    X, y, q, s = grouped(tr)
    Xv, yv, qv, sv = grouped(va)
    est = lightgbm.LGBMRanker(n_estimators=300, learning_rate=0.05, num_leaves=31, n_jobs=1, verbose=-1,
                              random_state=SEED)
    est.fit(X[:, cols], y, group=s, eval_X=(Xv[:, cols],), eval_y=(yv,), eval_group=[sv], eval_at=[10],
            callbacks=[lightgbm.early_stopping(30, verbose=False)])
    pred = est.predict(te.X[:, cols])
    nd = metrics.compute("ndcg@10", te.y, pred, te.qid, per_query=True)
    ap = metrics.compute("map", te.y, pred, te.qid, per_query=True)
    return nd.tolist(), ap.tolist()


def run(args):
    cache = Path(args.cache)
    deadline = None
    if args.deadline:
        hh, mm = map(int, args.deadline.split(":"))
        now = datetime.datetime.now(datetime.timezone.utc)
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
        if deadline < now - datetime.timedelta(hours=12):
            deadline += datetime.timedelta(days=1)
    for fold in args.folds:
        for name in args.sets:
            folds = None
            for method in args.methods:
                out = cache / name / f"Fold{fold}" / f"{method}.json"
                if out.exists():
                    continue
                if deadline and datetime.datetime.now(datetime.timezone.utc) > deadline:
                    print("deadline reached: no new unit", flush=True)
                    return
                if folds is None:
                    d = Path(args.data) / SETS[name] / f"Fold{fold}"
                    tr, va, te = (rs.load_letor(d / f"{s}.txt") for s in ("train", "vali", "test"))
                    n = max(tr.X.shape[1], va.X.shape[1], te.X.shape[1])
                    tr, va, te = (rs.load_letor(d / f"{s}.txt", n_features=n) for s in ("train", "vali", "test"))
                    folds = (tr, va, te)
                tr, va, te = folds
                n = tr.X.shape[1]
                ks = sorted(set(KS) | (set(fsa_sizes(n)) if method in PATH_METHODS else set()))
                t0 = time.perf_counter()
                sels = RUN[method](tr, va, ks, n)
                rows = {}
                for k, (cols, sec) in sorted(sels.items()):
                    nd, ap = downstream(tr, va, te, cols)
                    rows[str(k)] = {"features": cols, "seconds": sec, "ndcg10": nd, "ap": ap}
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps({"method": method, "set": name, "fold": fold, "n_features": n,
                                           "test_qids": [int(x) for x in np.unique(te.qid)], "k": rows}))
                print(f"{name} Fold{fold} {method}: {time.perf_counter() - t0:.1f} s "
                      f"(selection {max((s for _, s in sels.values()), default=0):.1f} s)", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--cache", default=str(ROOT / "benches" / "ranker_loop_cache"))
    p.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--sets", nargs="+", default=list(SETS))
    p.add_argument("--methods", nargs="+", default=list(METHODS))
    p.add_argument("--deadline", help="UTC HH:MM after which no new unit starts")
    p.add_argument("--report", action="store_true", help="write the tables and figure from the cache")
    args = p.parse_args(argv)
    if args.report:
        from ranker_loop_report import report

        report(Path(args.cache))
    else:
        run(args)


if __name__ == "__main__":
    sys.exit(main())
