"""Selecting LETOR 4.0 streams (feature families) on MQ2008 for a LightGBM ranker, against
CatBoost's tag selection and LightGBM's gain summed per stream (issue 33's benchmark).

Groups: ``rankselect.data.datasets.feature_layout("letor4", by="stream")``: 5 streams of 8
features each (body, anchor, title, url, whole document) and the 6 document features, which
every subset keeps. Scenarios, on each of LETOR's 5 folds (train / vali / test):

- ``keep K`` for K = 4, 3, 2 (drop 1, 2, 3 of the 5 streams);
- ``budget``: each stream has an extraction cost proportional to the typical length of the
  stream (:data:`STREAM_COSTS`: title 1, url 1, anchor 3, body 10, whole document 15 - the
  whole document is the concatenation of the other four), paid once per stream kept; the
  best subset whose cost is within :data:`BUDGET` (half of the 30 units of all streams).

Methods (each selects on ``train``, those that validate use ``vali``):

- ``catboost``: ``CatBoostRanker.select_features`` over the same tags (``Pool(feature_tags=)``,
  ``grouping="ByTags"``, ``features_tags_for_select`` = the 5 streams, the document features
  always in the model), RecursiveByLossFunctionChange, 100 iterations, one run per K
  (``num_features_tags_to_select=K``, one tag eliminated per step); under the budget, the
  K = 2 run's order (selected, then eliminated last-first) with the streams eliminated first
  dropped until the rest fits (it takes no budget);
- ``lgbm-gain``: one LGBMRanker on all 46 features (early-stopped on vali), streams ranked by
  the total gain of their features; under the budget, the least gain is dropped until it fits;
- ``forward-lgbm`` / ``rfe-lgbm``: :class:`rankselect.ForwardSelection` /
  :class:`rankselect.RecursiveElimination` with an LGBMRanker in the loop over the stream
  groups (``feature_groups``, ``select_groups=True``; elimination by the joint within-query
  permutation importance of each stream), validated on vali; one run's path gives every K;
  under the budget a second run with ``group_costs`` and ``budget``;
- ``greedy-rankrls`` (``GreedyRankRLS(feature_groups=..., select_groups=True)``, alpha 1) and
  ``gas`` (``GAS(feature_groups=...)``, c = 0.1): the linear selectors over groups (they need
  the group versions of those selectors; a method whose selector does not take
  ``feature_groups`` yet is reported as not run).

The rankselect selectors see the 40 stream columns (they have no "always keep" option); the
downstream ranker always gets the selected streams plus the 6 document features. Downstream:
one LGBMRanker per distinct subset of a fold (up to 200 trees, learning rate 0.1, 31 leaves, one
thread, ``deterministic=True``, seed 0), early-stopped on vali NDCG@10 (20 rounds), scored on test:
per-query NDCG@10 (standard conventions), the 784 test queries of the 5 folds together. Each
method is compared with CatBoost at the same K (and under the budget) by a paired randomization
test over queries (10,000 sign flips), Holm-adjusted over the methods of a row.

Results are cached per (fold, method) as JSON under ``--out`` (default benches/out/families,
gitignored; resumable). ``--report`` prints the tables from the cache; ``--write-docs`` also
writes the figure docs/figures/families_mq2008.png.

Usage::

    nice -n 19 python benches/families_mq2008.py --data ../shared/data --folds 1 2 3 4 5
    python benches/families_mq2008.py --report --write-docs
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

import rankselect as rs
from rankselect import metrics
from rankselect.analysis import stats
from rankselect.data.datasets import feature_layout

ROOT = Path(__file__).resolve().parents[1]
SEED = 0
KS = (4, 3, 2)
STREAM_COSTS = {"body": 10, "anchor": 3, "title": 1, "url": 1, "whole document": 15}
BUDGET = 15.0
CATBOOST_ITERATIONS = 100
METHODS = ("catboost", "lgbm-gain", "forward-lgbm", "rfe-lgbm", "greedy-rankrls", "gas")
LAYOUT = feature_layout("letor4", by="stream")
STREAMS = [n for n in LAYOUT.names if n != "document"]
DOC = LAYOUT.columns(["document"])
STREAM_COLS = LAYOUT.columns(STREAMS)  # the 40 stream columns, stream after stream
STREAM_LABELS = [LAYOUT.names[LAYOUT.index[j]] for j in STREAM_COLS]  # the stream of each of them


def cost(streams) -> float:
    return float(sum(STREAM_COSTS[s] for s in streams))


def ranker(**kw):
    import lightgbm

    return lightgbm.LGBMRanker(n_estimators=100, learning_rate=0.1, num_leaves=31, n_jobs=1, verbose=-1,
                               deterministic=True, random_state=SEED, **kw)


def grouped(d):
    order = np.argsort(d.qid, kind="stable")
    X, y, q = d.X[order], d.y[order], d.qid[order]
    _, first, sizes = np.unique(q, return_index=True, return_counts=True)
    return X, y, q, sizes[np.argsort(first)]


def drop_until_within_budget(order_best_first):
    """The streams of an importance order (best first) without the worst until within budget."""
    kept = list(order_best_first)
    while cost(kept) > BUDGET:
        kept.pop()
    return kept


# ------------------------------------------------------------------ the methods


def m_catboost(tr, va):
    from catboost import CatBoostRanker, EFeaturesSelectionAlgorithm, EFeaturesSelectionGrouping, Pool

    X, y, q, _ = grouped(tr)
    Xv, yv, qv, _ = grouped(va)
    tag = {st: st.replace(" ", "_") for st in STREAMS}  # tag names without spaces
    tags = {tag[st]: {"features": [int(j) for j in LAYOUT.columns([st])], "cost": 1} for st in STREAMS}
    out = {}
    for k in KS:  # one run per K, one tag eliminated per step
        t = time.perf_counter()
        model = CatBoostRanker(iterations=CATBOOST_ITERATIONS, random_seed=SEED, thread_count=1, verbose=False,
                               allow_writing_files=False)
        summary = model.select_features(
            Pool(X, y, group_id=q, feature_tags=tags), eval_set=Pool(Xv, yv, group_id=qv, feature_tags=tags),
            features_tags_for_select=list(tags), num_features_tags_to_select=k,
            steps=len(STREAMS) - k, algorithm=EFeaturesSelectionAlgorithm.RecursiveByLossFunctionChange,
            grouping=EFeaturesSelectionGrouping.ByTags, train_final_model=False, logging_level="Silent")
        sec = time.perf_counter() - t
        back = {v: st for st, v in tag.items()}
        selected = [back[str(v)] for v in summary["selected_features_tags"]]
        eliminated = [back[str(v)] for v in summary["eliminated_features_tags"]]  # first eliminated first
        out[f"K{k}"] = {"streams": selected, "seconds": sec}
        if k == min(KS):  # under the budget: drop in its elimination order until the rest fits
            out["budget"] = {"streams": drop_until_within_budget(selected + eliminated[::-1]), "seconds": sec}
    return out


def m_lgbm_gain(tr, va):
    import lightgbm

    X, y, q, s = grouped(tr)
    Xv, yv, qv, sv = grouped(va)
    t = time.perf_counter()
    est = ranker(importance_type="gain").fit(X, y, group=s, eval_X=(Xv,), eval_y=(yv,), eval_group=[sv], eval_at=[10],
                                             callbacks=[lightgbm.early_stopping(10, verbose=False)])
    gain = np.asarray(est.feature_importances_, dtype=float)
    per_stream = {st: float(gain[LAYOUT.columns([st])].sum()) for st in STREAMS}
    order = sorted(STREAMS, key=lambda st: (-per_stream[st], STREAMS.index(st)))
    sec = time.perf_counter() - t
    out = {f"K{k}": {"streams": order[:k], "seconds": sec} for k in KS}
    out["budget"] = {"streams": drop_until_within_budget(order), "seconds": sec}
    return out


def _loop(cls, tr, va, **kw):
    t = time.perf_counter()
    sel = cls(ranker(), feature_groups=STREAM_LABELS, validation=(va.X[:, STREAM_COLS], va.y, va.qid),
              early_stopping_rounds=10, random_state=SEED, **kw).fit(tr.X[:, STREAM_COLS], tr.y, tr.qid)
    return sel, time.perf_counter() - t


def _path_subsets(sel, total):
    """The best subset of each number of streams on a selector's path, and the time to reach it."""
    p, out = sel.path_, {}
    offset = total - float(p.wall_time[-1])
    for k in KS:
        steps = [i for i in range(len(p)) if len(p.groups[i]) == k and p.eligible[i]]
        if steps:
            i = max(steps, key=lambda i: (p.scores[i], -i))
            out[f"K{k}"] = {"streams": [str(g) for g in p.groups[i]], "seconds": float(p.wall_time[i] + offset)}
    return out


def _loop_method(cls, tr, va, **kw):
    sel, sec = _loop(cls, tr, va, **kw)
    out = _path_subsets(sel, sec)
    costs = dict(group_costs=STREAM_COSTS, feature_costs=np.zeros(len(STREAM_COLS)), budget=BUDGET)
    sel, sec = _loop(cls, tr, va, **kw, **costs)
    out["budget"] = {"streams": [str(g) for g in sel.selected_groups_], "seconds": sec}
    return out


def m_forward(tr, va):
    return _loop_method(rs.ForwardSelection, tr, va)


def m_rfe(tr, va):
    return _loop_method(rs.RecursiveElimination, tr, va, importance="permutation", n_repeats=3)


def _linear(cls, tr, va, **kw):
    if "feature_groups" not in cls().get_params():
        raise NotImplementedError(f"{cls.__name__} does not take feature_groups on this branch")
    Xs = tr.X[:, STREAM_COLS]
    t = time.perf_counter()
    sel = cls(n_features_to_select=max(KS), feature_groups=STREAM_LABELS, select_groups=True, **kw)
    order = [str(g) for g in sel.fit(Xs, tr.y, tr.qid).selected_groups_]
    sec = time.perf_counter() - t
    out = {f"K{k}": {"streams": order[:k], "seconds": sec} for k in KS}
    t = time.perf_counter()
    sel = cls(n_features_to_select=len(STREAMS), feature_groups=STREAM_LABELS, select_groups=True,
              group_costs=STREAM_COSTS, feature_costs=np.zeros(len(STREAM_COLS)), budget=BUDGET, **kw)
    out["budget"] = {"streams": [str(g) for g in sel.fit(Xs, tr.y, tr.qid).selected_groups_],
                     "seconds": time.perf_counter() - t}
    return out


def m_greedy(tr, va):
    return _linear(rs.GreedyRankRLS, tr, va, alpha=1.0)


def m_gas(tr, va):
    return _linear(rs.GAS, tr, va, c=0.1)


RUN = {"catboost": m_catboost, "lgbm-gain": m_lgbm_gain, "forward-lgbm": m_forward, "rfe-lgbm": m_rfe,
       "greedy-rankrls": m_greedy, "gas": m_gas}


def downstream(tr, va, te, streams):
    """Test per-query NDCG@10 of an LGBMRanker on ``streams`` plus the document features."""
    import lightgbm

    cols = np.concatenate([LAYOUT.columns(streams), DOC]) if streams else DOC
    X, y, q, s = grouped(tr)
    Xv, yv, qv, sv = grouped(va)
    est = lightgbm.LGBMRanker(n_estimators=200, learning_rate=0.1, num_leaves=31, n_jobs=1, verbose=-1,
                              deterministic=True, random_state=SEED)
    est.fit(X[:, cols], y, group=s, eval_X=(Xv[:, cols],), eval_y=(yv,), eval_group=[sv], eval_at=[10],
            callbacks=[lightgbm.early_stopping(20, verbose=False)])
    return metrics.compute("ndcg@10", te.y, est.predict(te.X[:, cols]), te.qid, per_query=True).tolist()


def run(args) -> None:
    out_dir = Path(args.out)
    for fold in args.folds:
        d = Path(args.data) / "MQ2008" / f"Fold{fold}"
        tr, va, te = (rs.load_letor(d / f"{s}.txt", n_features=46) for s in ("train", "vali", "test"))
        qids = [int(x) for x in np.unique(te.qid)]
        for method in ["all"] + list(args.methods):
            path = out_dir / f"Fold{fold}" / f"{method}.json"
            if path.exists():
                continue
            t0 = time.perf_counter()
            if method == "all":
                res = {"all": {"streams": STREAMS, "seconds": 0.0}}
            else:
                try:
                    res = RUN[method](tr, va)
                except NotImplementedError as e:  # the group version of a selector is not on this branch
                    print(f"Fold{fold} {method}: not run ({e})", flush=True)
                    continue
            memo_path = out_dir / f"Fold{fold}" / f"downstream-{os.getpid()}.json"  # one fit per distinct subset
            memo = {}
            for other in sorted((out_dir / f"Fold{fold}").glob("downstream-*.json")):  # of this and other runs
                try:
                    memo.update(json.loads(other.read_text()))
                except json.JSONDecodeError:  # being written by a run beside this one
                    pass
            for unit in res.values():
                key = "|".join(sorted(unit["streams"]))
                if key not in memo:
                    memo[key] = downstream(tr, va, te, unit["streams"])
                unit["ndcg10"] = memo[key]
            memo_path.parent.mkdir(parents=True, exist_ok=True)
            memo_path.write_text(json.dumps(memo))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"method": method, "fold": fold, "test_qids": qids, "units": res}))
            print(f"Fold{fold} {method}: {time.perf_counter() - t0:.1f} s "
                  f"{ {k: v['streams'] for k, v in res.items()} }", flush=True)


# ------------------------------------------------------------------ the report


def load(out_dir: Path, baseline: str = "catboost") -> dict:
    """{method: {unit: {"ndcg10": per-query array over the folds, "seconds": per-fold list,
    "streams": per-fold lists}}} over the folds on which ``baseline`` is cached, for the methods
    cached on all of them."""
    folds = sorted(p.name for p in out_dir.glob("Fold*") if (p / f"{baseline}.json").exists())
    res: dict = {}
    for method in ["all"] + list(METHODS):
        files = [out_dir / f / f"{method}.json" for f in folds]
        if not files or not all(f.exists() for f in files):
            continue
        per: dict = {}
        for f in files:
            js = json.loads(f.read_text())
            for unit, v in js["units"].items():
                u = per.setdefault(unit, {"ndcg10": [], "seconds": [], "streams": []})
                u["ndcg10"].extend(v["ndcg10"])
                u["seconds"].append(v["seconds"])
                u["streams"].append(v["streams"])
        res[method] = per
    return {"folds": folds, "methods": res}


def tables(out_dir: Path) -> str:
    baseline = "catboost" if any(out_dir.glob("Fold*/catboost.json")) else "lgbm-gain"  # CatBoost when run
    data = load(out_dir, baseline)
    res = data["methods"]
    if baseline not in res:
        return "no results cached yet"
    bname = {"catboost": "CatBoost", "lgbm-gain": "lgbm-gain (CatBoost not run)"}[baseline]
    lines = [f"MQ2008, folds {', '.join(data['folds'])}: test NDCG@10 of the downstream LGBMRanker "
             f"(mean over {len(res[baseline]['K4']['ndcg10'])} test queries), selection time per fold "
             f"(median, s), paired randomization test against {bname} at the same number of streams "
             "(Holm-adjusted over the methods of a row).", ""]
    if "all" in res:
        lines.append(f"All 5 streams: NDCG@10 {np.mean(res['all']['all']['ndcg10']):.4f}.\n")
    lines += [f"| streams kept | method | NDCG@10 | vs {baseline} | p (Holm) | selection s | {baseline} s / s | "
              "stream cost | streams kept (Fold1) |", "|---|---|---|---|---|---|---|---|---|"]
    for unit in [f"K{k}" for k in KS] + ["budget"]:
        base = np.asarray(res[baseline][unit]["ndcg10"])
        base_sec = float(np.median(res[baseline][unit]["seconds"]))
        rows, pvals = [], []
        for method in [baseline] + [m for m in METHODS if m != baseline]:
            if method not in res or unit not in res[method]:
                continue
            u = res[method][unit]
            a = np.asarray(u["ndcg10"])
            p = 1.0 if method == baseline else stats.paired_test(a, base, random_state=SEED).pvalue
            rows.append((method, a, float(np.median(u["seconds"])), u["streams"]))
            pvals.append(p)
        adj = stats.holm(np.asarray(pvals[1:])) if len(pvals) > 1 else np.zeros(0)
        adj = np.concatenate([[np.nan], adj])
        label = f"{unit[1:]} of 5" if unit != "budget" else f"budget {BUDGET:g}"
        for (method, a, sec, streams), p in zip(rows, adj):
            mean_cost = np.mean([cost(s) for s in streams])
            vs = "-" if method == baseline else f"{a.mean() - base.mean():+.4f}"
            pv = "-" if method == baseline else f"{p:.3f}"
            lines.append(f"| {label} | {method} | {a.mean():.4f} | {vs} | {pv} | {sec:.2f} | {base_sec / sec:.1f}x | "
                         f"{mean_cost:.1f} | {', '.join(streams[0])} |")
    missing = [m for m in METHODS if m not in res]
    if missing:
        lines += ["", f"Not run (their group versions are not on this branch yet): {', '.join(missing)}."]
    return "\n".join(lines)


def figure(out_dir: Path, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = load(out_dir, "catboost" if any(out_dir.glob("Fold*/catboost.json")) else "lgbm-gain")["methods"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    for method in METHODS:
        if method not in res:
            continue
        ks = [k for k in KS if f"K{k}" in res[method]]
        ax1.plot(ks, [np.mean(res[method][f"K{k}"]["ndcg10"]) for k in ks], marker="o", label=method)
        sec = [float(np.median(res[method][f"K{k}"]["seconds"])) for k in ks]
        ax2.plot(ks, sec, marker="o", label=method)
    if "all" in res:
        ax1.axhline(np.mean(res["all"]["all"]["ndcg10"]), color="grey", ls="--", lw=1, label="all 5 streams")
    ax1.set_xlabel("streams kept (of 5; document features always)")
    ax1.set_ylabel("test NDCG@10 (LGBMRanker)")
    ax1.set_xticks(list(KS))
    ax2.set_xlabel("streams kept")
    ax2.set_ylabel("selection time per fold (s, median)")
    ax2.set_yscale("log")
    ax2.set_xticks(list(KS))
    ax1.legend(fontsize=7)
    fig.suptitle("MQ2008, 5 folds: selecting LETOR 4.0 streams for a LightGBM ranker", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--out", default=str(ROOT / "benches" / "out" / "families"))
    p.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    p.add_argument("--report", action="store_true", help="print the tables from the cache (no run)")
    p.add_argument("--write-docs", action="store_true", help="also write docs/figures/families_mq2008.png")
    args = p.parse_args(argv)
    if not args.report:
        run(args)
    print(tables(Path(args.out)))
    if args.write_docs:
        figure(Path(args.out), ROOT / "docs" / "figures" / "families_mq2008.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
