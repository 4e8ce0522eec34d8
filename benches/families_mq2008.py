"""Selecting feature families for a LightGBM ranker, against CatBoost's tag selection and
LightGBM's gain summed per group (issue 33's benchmark; issue 40: more data sets and layouts).

Setups (``--setups``; data under ``--data``, LETOR's 5 folds, train / vali / test):

- ``MQ2008-stream`` (the default): ``feature_layout("letor4", by="stream")``, the 5 streams of 8
  features (body, anchor, title, url, whole document) selectable, the 6 document features kept
  by every subset; keep K = 4, 3, 2 streams; and ``budget``: each stream has an extraction cost
  proportional to its typical length (:data:`STREAM_COSTS`: title 1, url 1, anchor 3, body
  10, whole document 15 - the whole document is the other four together), paid once per
  stream kept, budget 15 (half of the 30 units of all streams);
- ``MQ2008-measure``: ``feature_layout("letor4", by="measure")``, 14 groups (8 measures over
  the 5 streams, each document feature alone), all selectable; K = 8, 4, 2;
- ``OHSUMED-LETOR2-stream``: ``feature_layout("ohsumed-letor2", by="stream")``, title (10
  features), abstract (10) and the 5 high-level scores (``document``); K = 2, 1;
- ``OHSUMED-LETOR2-measure``: its 15 measures (10 over title and abstract, 5 alone); K = 8,
  6, 4, 2.

Methods (each selects on ``train``, those that validate use ``vali``):

- ``catboost``: ``CatBoostRanker.select_features`` over the same tags (``Pool(feature_tags=)``,
  ``grouping="ByTags"``, the kept groups always in the model), RecursiveByLossFunctionChange,
  100 iterations, one run per K (``num_features_tags_to_select=K``, one tag eliminated per
  step); under the budget, the smallest K's order (selected, then eliminated last-first) with
  the groups eliminated first dropped until the rest fits (it takes no budget). CatBoost
  1.2.10's ``select_features`` dies of a division by zero (SIGFPE) on a tag whose features are
  all constant within every query - such groups, which no method selects, are left out of its
  pool - and, on the measure layouts, with many elimination steps: it then runs in a child
  process, and where it dies, again with half as many steps (the steps are in the cache);
- ``lgbm-gain``: one LGBMRanker on all the features (early-stopped on vali), groups ranked by
  the total gain of their features; under the budget, the least gain dropped until it fits;
- ``forward-lgbm`` / ``rfe-lgbm``: :class:`rankselect.ForwardSelection` /
  :class:`rankselect.RecursiveElimination` with an LGBMRanker in the loop over the groups
  (``feature_groups``, ``select_groups=True``; elimination by the joint within-query
  permutation importance of each group), validated on vali; one run's path gives every K;
  under the budget a second run with ``group_costs`` and ``budget``;
- ``greedy-rankrls`` (``GreedyRankRLS(feature_groups=..., select_groups=True)``, alpha 1),
  ``gas`` (``GAS(feature_groups=...)``, c = 0.1, its default ``group_importance``) and the two
  group importances of GAS side by side, ``gas-max`` and ``gas-joint``
  (:mod:`rankselect.selection.group_inputs`).

The rankselect selectors see the selectable columns only (they have no "always keep"
option); the downstream ranker gets the selected groups plus the kept ones. Downstream: one
LGBMRanker per distinct subset of a fold (up to 200 trees, learning rate 0.1, 31 leaves, one
thread, ``deterministic=True``, seed 0), early-stopped on vali NDCG@10 (20 rounds), scored on
test: per-query NDCG@10 (standard conventions), the test queries of the 5 folds together (784
on MQ2008, 106 on OHSUMED). Each method is compared with CatBoost at the same K (and under the
budget) by a paired randomization test over queries (10,000 sign flips), Holm-adjusted over the
methods of a row; ``--compare A B`` tests two methods against each other.

Results are cached per (setup, fold, method) as JSON under ``--out`` (default
benches/out/families, gitignored; resumable). ``--report`` prints the tables from the cache;
``--write-docs`` also writes the figures docs/figures/families_mq2008.png (MQ2008-stream) and
families_mq2008_measure.png.

Usage::

    nice -n 19 python benches/families_mq2008.py --data ../shared/data --setups MQ2008-stream MQ2008-measure \\
        OHSUMED-LETOR2-stream OHSUMED-LETOR2-measure
    python benches/families_mq2008.py --report --write-docs --setups MQ2008-stream MQ2008-measure \\
        OHSUMED-LETOR2-stream OHSUMED-LETOR2-measure --compare gas-joint gas-max
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

import rankselect as rs
from rankselect import metrics
from rankselect.analysis import stats
from rankselect.data.datasets import feature_layout

ROOT = Path(__file__).resolve().parents[1]
SEED = 0
STREAM_COSTS = {"body": 10, "anchor": 3, "title": 1, "url": 1, "whole document": 15}
CATBOOST_ITERATIONS = 100
#: the methods of the main tables
MAIN = ("catboost", "lgbm-gain", "forward-lgbm", "rfe-lgbm", "greedy-rankrls", "gas")
#: the study of GAS's group importance (issue 40): the two rules of the library, their two mixes
#: (bench only), and both with NDCG@10 as the importance measure
GAS_STUDY = ("gas-max", "gas-joint", "gas-joint-importance", "gas-joint-similarity", "gas-ndcg-max", "gas-ndcg-joint")
METHODS = MAIN + GAS_STUDY


@dataclass(frozen=True)
class Setup:
    """One scenario: a data set, its layout, the groups always kept, the numbers of groups kept
    and the budget (with each group's cost)."""

    data: str
    layout_name: str
    by: str
    n_features: int
    keep: tuple = ()
    ks: tuple = (4, 3, 2)
    costs: Optional[dict] = None
    budget: Optional[float] = None

    @property
    def layout(self):
        return feature_layout(self.layout_name, by=self.by)

    @property
    def key(self) -> str:
        return f"{self.data}-{self.by}"

    @property
    def units(self) -> list:
        """The selectable groups (every group but those always kept)."""
        return [n for n in self.layout.names if n not in self.keep]

    @property
    def kept_cols(self) -> np.ndarray:
        return self.layout.columns(list(self.keep)) if self.keep else np.zeros(0, dtype=np.intp)

    @property
    def unit_cols(self) -> np.ndarray:
        """The selectable columns, group after group."""
        return self.layout.columns(self.units)

    @property
    def unit_labels(self) -> list:
        """The group of each selectable column."""
        lay = self.layout
        return [lay.names[lay.index[j]] for j in self.unit_cols]

    def cost(self, groups) -> float:
        return float(sum(self.costs[g] for g in groups)) if self.costs else float(len(groups))


SETUPS = {s.key: s for s in (
    # the 5 streams (the 6 document features always kept), a budget of 15 of the 30 units
    Setup("MQ2008", "letor4", "stream", 46, keep=("document",), ks=(4, 3, 2), costs=STREAM_COSTS, budget=15.0),
    # the 14 measure groups (8 measures over the 5 streams, each document feature alone)
    Setup("MQ2008", "letor4", "measure", 46, ks=(8, 4, 2)),
    # OHSUMED (LETOR 2.0): title, abstract and the 5 high-level scores
    Setup("OHSUMED-LETOR2", "ohsumed-letor2", "stream", 25, ks=(2, 1)),
    # its 15 measures (10 low-level over title and abstract, 5 high-level alone)
    Setup("OHSUMED-LETOR2", "ohsumed-letor2", "measure", 25, ks=(8, 6, 4, 2)),
)}


def ranker(**kw):
    import lightgbm

    return lightgbm.LGBMRanker(n_estimators=100, learning_rate=0.1, num_leaves=31, n_jobs=1, verbose=-1,
                               deterministic=True, random_state=SEED, **kw)


def grouped(d):
    order = np.argsort(d.qid, kind="stable")
    X, y, q = d.X[order], d.y[order], d.qid[order]
    _, first, sizes = np.unique(q, return_index=True, return_counts=True)
    return X, y, q, sizes[np.argsort(first)]


def drop_until_within_budget(st: Setup, order_best_first):
    """The groups of an importance order (best first) without the worst until within budget."""
    kept = list(order_best_first)
    while st.cost(kept) > st.budget:
        kept.pop()
    return kept


# ------------------------------------------------------------------ the methods


def _catboost_select(args, steps: int, conn) -> None:
    """One ``select_features`` run (in a child process: CatBoost 1.2 may die of SIGFPE)."""
    from catboost import CatBoostRanker, EFeaturesSelectionAlgorithm, EFeaturesSelectionGrouping, Pool

    X, y, q, Xv, yv, qv, tags, k = args
    model = CatBoostRanker(iterations=CATBOOST_ITERATIONS, random_seed=SEED, thread_count=1, verbose=False,
                           allow_writing_files=False)
    summary = model.select_features(
        Pool(X, y, group_id=q, feature_tags=tags), eval_set=Pool(Xv, yv, group_id=qv, feature_tags=tags),
        features_tags_for_select=list(tags), num_features_tags_to_select=k, steps=steps,
        algorithm=EFeaturesSelectionAlgorithm.RecursiveByLossFunctionChange,
        grouping=EFeaturesSelectionGrouping.ByTags, train_final_model=False, logging_level="Silent")
    conn.send(([str(v) for v in summary["selected_features_tags"]],
               [str(v) for v in summary["eliminated_features_tags"]]))


def _catboost_run(args, n_units: int, k: int):
    """``(selected, eliminated, steps)``: one tag eliminated per step, or, where CatBoost 1.2.10
    dies of a division by zero (SIGFPE in _catboost.so: on the measure layouts with many steps),
    half as many steps, and so on."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    steps = max(1, n_units - k)
    while True:
        here, there = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_catboost_select, args=(args, steps, there))
        child.start()
        there.close()  # the child's end: a child that dies closes the pipe
        try:
            got = here.recv()
        except EOFError:
            got = None
        child.join()
        if got is not None:
            return got[0], got[1], steps
        if steps == 1:
            raise RuntimeError(f"CatBoost's select_features died (exit {child.exitcode}) even with one step")
        steps = max(1, steps // 2)


def m_catboost(st: Setup, tr, va):
    X, y, q, _ = grouped(tr)
    Xv, yv, qv, _ = grouped(va)
    lay = st.layout
    # CatBoost 1.2's select_features dies of a division by zero (SIGFPE in _catboost.so) when a
    # tag's features are all constant within every query: those groups (never selected by it,
    # nor by the other methods) are left out of its pool
    constant = rs.data.constant_within_queries(tr.X, tr.qid)
    units = [u for u in st.units if not constant[lay.columns([u])].all()]
    cols = np.arange(X.shape[1])  # every column (the kept ones always in the model)
    if len(units) < len(st.units):
        cols = np.concatenate([lay.columns(units), st.kept_cols]).astype(np.intp)
        X, Xv = X[:, cols], Xv[:, cols]
    where = {int(j): i for i, j in enumerate(cols)}  # pool column of each feature
    tag = {u: f"t{i}" for i, u in enumerate(units)}  # tag names without spaces or symbols
    tags = {tag[u]: {"features": [where[int(j)] for j in lay.columns([u])], "cost": 1} for u in units}
    back = {v: u for u, v in tag.items()}
    out = {}
    for k in st.ks:  # one run per K, one tag eliminated per step (where CatBoost allows it)
        t = time.perf_counter()
        chosen, dropped, steps = _catboost_run((X, y, q, Xv, yv, qv, tags, k), len(units), k)
        sec = time.perf_counter() - t
        selected = [back[v] for v in chosen]
        eliminated = [back[v] for v in dropped]  # first eliminated first
        out[f"K{k}"] = {"groups": selected, "seconds": sec, "steps": steps}
        if st.budget is not None and k == min(st.ks):  # under the budget: drop in elimination order
            out["budget"] = {"groups": drop_until_within_budget(st, selected + eliminated[::-1]), "seconds": sec}
    return out


def m_lgbm_gain(st: Setup, tr, va):
    import lightgbm

    X, y, q, s = grouped(tr)
    Xv, yv, qv, sv = grouped(va)
    t = time.perf_counter()
    est = ranker(importance_type="gain").fit(X, y, group=s, eval_X=(Xv,), eval_y=(yv,), eval_group=[sv], eval_at=[10],
                                             callbacks=[lightgbm.early_stopping(10, verbose=False)])
    gain = np.asarray(est.feature_importances_, dtype=float)
    units, lay = st.units, st.layout
    per = {u: float(gain[lay.columns([u])].sum()) for u in units}
    order = sorted(units, key=lambda u: (-per[u], units.index(u)))
    sec = time.perf_counter() - t
    out = {f"K{k}": {"groups": order[:k], "seconds": sec} for k in st.ks}
    if st.budget is not None:
        out["budget"] = {"groups": drop_until_within_budget(st, order), "seconds": sec}
    return out


def _loop(st: Setup, cls, tr, va, **kw):
    cols = st.unit_cols
    t = time.perf_counter()
    sel = cls(ranker(), feature_groups=st.unit_labels, validation=(va.X[:, cols], va.y, va.qid),
              early_stopping_rounds=10, random_state=SEED, **kw).fit(tr.X[:, cols], tr.y, tr.qid)
    return sel, time.perf_counter() - t


def _path_subsets(st: Setup, sel, total):
    """The best subset of each number of groups on a selector's path, and the time to reach it."""
    p, out = sel.path_, {}
    offset = total - float(p.wall_time[-1])
    for k in st.ks:
        steps = [i for i in range(len(p)) if len(p.groups[i]) == k and p.eligible[i]]
        if steps:
            i = max(steps, key=lambda i: (p.scores[i], -i))
            out[f"K{k}"] = {"groups": [str(g) for g in p.groups[i]], "seconds": float(p.wall_time[i] + offset)}
    return out


def _loop_method(st: Setup, cls, tr, va, **kw):
    sel, sec = _loop(st, cls, tr, va, **kw)
    out = _path_subsets(st, sel, sec)
    if st.budget is not None:
        costs = dict(group_costs=st.costs, feature_costs=np.zeros(len(st.unit_cols)), budget=st.budget)
        sel, sec = _loop(st, cls, tr, va, **kw, **costs)
        out["budget"] = {"groups": [str(g) for g in sel.selected_groups_], "seconds": sec}
    return out


def m_forward(st, tr, va):
    return _loop_method(st, rs.ForwardSelection, tr, va)


def m_rfe(st, tr, va):
    return _loop_method(st, rs.RecursiveElimination, tr, va, importance="permutation", n_repeats=3)


def _linear(st: Setup, cls, tr, va, **kw):
    Xs = tr.X[:, st.unit_cols]
    t = time.perf_counter()
    sel = cls(n_features_to_select=max(st.ks), feature_groups=st.unit_labels, select_groups=True, **kw)
    order = [str(g) for g in sel.fit(Xs, tr.y, tr.qid).selected_groups_]
    sec = time.perf_counter() - t
    out = {f"K{k}": {"groups": order[:k], "seconds": sec} for k in st.ks if k <= len(order)}
    if st.budget is not None:
        t = time.perf_counter()
        sel = cls(n_features_to_select=len(st.units), feature_groups=st.unit_labels, select_groups=True,
                  group_costs=st.costs, feature_costs=np.zeros(len(st.unit_cols)), budget=st.budget, **kw)
        out["budget"] = {"groups": [str(g) for g in sel.fit(Xs, tr.y, tr.qid).selected_groups_],
                         "seconds": time.perf_counter() - t}
    return out


def m_greedy(st, tr, va):
    return _linear(st, rs.GreedyRankRLS, tr, va, alpha=1.0)


def m_gas(st, tr, va, **kw):
    return _linear(st, rs.GAS, tr, va, c=0.1, **kw)


class _HybridGAS(rs.GAS):
    """The study's two mixes of GAS's group inputs (not in the library): the joint importance
    with the best members' similarity (``mix="importance"``), or the best member's importance
    with the joint similarity (``mix="similarity"``)."""

    def __init__(self, n_features_to_select=10, c=0.1, *, mix="importance", **kw):
        super().__init__(n_features_to_select, c, **kw)
        self.mix = mix

    def _group_inputs(self, data, plan, imp, e, constant, has_pair):
        self.group_importance = "max"
        best = super()._group_inputs(data, plan, imp, e, constant, has_pair)
        self.group_importance = "joint"
        joint = super()._group_inputs(data, plan, imp, e, constant, has_pair)
        return (joint[0], best[1]) if self.mix == "importance" else (best[0], joint[1])


RUN = {"catboost": m_catboost, "lgbm-gain": m_lgbm_gain, "forward-lgbm": m_forward, "rfe-lgbm": m_rfe,
       "greedy-rankrls": m_greedy, "gas": m_gas,
       "gas-max": lambda st, tr, va: m_gas(st, tr, va, group_importance="max"),
       "gas-joint": lambda st, tr, va: m_gas(st, tr, va, group_importance="joint"),
       "gas-joint-importance": lambda st, tr, va: _linear(st, _HybridGAS, tr, va, c=0.1, mix="importance"),
       "gas-joint-similarity": lambda st, tr, va: _linear(st, _HybridGAS, tr, va, c=0.1, mix="similarity"),
       "gas-ndcg-max": lambda st, tr, va: m_gas(st, tr, va, group_importance="max", importance="ndcg@10"),
       "gas-ndcg-joint": lambda st, tr, va: m_gas(st, tr, va, group_importance="joint", importance="ndcg@10")}


def downstream(st: Setup, tr, va, te, groups):
    """Test per-query NDCG@10 of an LGBMRanker on ``groups`` plus the groups always kept."""
    import lightgbm

    cols = np.concatenate([st.layout.columns(groups), st.kept_cols]).astype(np.intp)
    X, y, q, s = grouped(tr)
    Xv, yv, qv, sv = grouped(va)
    est = lightgbm.LGBMRanker(n_estimators=200, learning_rate=0.1, num_leaves=31, n_jobs=1, verbose=-1,
                              deterministic=True, random_state=SEED)
    est.fit(X[:, cols], y, group=s, eval_X=(Xv[:, cols],), eval_y=(yv,), eval_group=[sv], eval_at=[10],
            callbacks=[lightgbm.early_stopping(20, verbose=False)])
    return metrics.compute("ndcg@10", te.y, est.predict(te.X[:, cols]), te.qid, per_query=True).tolist()


def run(st: Setup, args) -> None:
    out_dir = Path(args.out) / st.key
    for fold in args.folds:
        d = Path(args.data) / st.data / f"Fold{fold}"
        tr, va, te = (rs.load_letor(d / f"{s}.txt", n_features=st.n_features) for s in ("train", "vali", "test"))
        qids = [int(x) for x in np.unique(te.qid)]
        for method in ["all"] + list(args.methods):
            path = out_dir / f"Fold{fold}" / f"{method}.json"
            if path.exists():
                continue
            t0 = time.perf_counter()
            res = {"all": {"groups": st.units, "seconds": 0.0}} if method == "all" else RUN[method](st, tr, va)
            memo_path = out_dir / f"Fold{fold}" / f"downstream-{os.getpid()}.json"  # one fit per distinct subset
            memo = {}
            for other in sorted((out_dir / f"Fold{fold}").glob("downstream-*.json")):  # of this and other runs
                try:
                    memo.update(json.loads(other.read_text()))
                except json.JSONDecodeError:  # being written by a run beside this one
                    pass
            for unit in res.values():
                key = "|".join(sorted(unit["groups"]))
                if key not in memo:
                    memo[key] = downstream(st, tr, va, te, unit["groups"])
                unit["ndcg10"] = memo[key]
            memo_path.parent.mkdir(parents=True, exist_ok=True)
            memo_path.write_text(json.dumps(memo))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"method": method, "fold": fold, "test_qids": qids, "units": res}))
            print(f"{st.key} Fold{fold} {method}: {time.perf_counter() - t0:.1f} s "
                  f"{ {k: v['groups'] for k, v in res.items()} }", flush=True)


# ------------------------------------------------------------------ the report


def load(out_dir: Path, baseline: str = "catboost") -> dict:
    """{method: {unit: {"ndcg10": per-query array over the folds, "seconds": per-fold list,
    "groups": per-fold lists}}} over the folds on which ``baseline`` is cached, for the methods
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
                u = per.setdefault(unit, {"ndcg10": [], "seconds": [], "groups": []})
                u["ndcg10"].extend(v["ndcg10"])
                u["seconds"].append(v["seconds"])
                u["groups"].append(v["groups"])
        res[method] = per
    return {"folds": folds, "methods": res}


def _baseline(out_dir: Path) -> str:
    return "catboost" if any(out_dir.glob("Fold*/catboost.json")) else "lgbm-gain"  # CatBoost when run


def tables(st: Setup, out_dir: Path, methods=MAIN) -> str:
    out_dir = out_dir / st.key
    baseline = _baseline(out_dir)
    data = load(out_dir, baseline)
    res = data["methods"]
    if baseline not in res:
        return f"{st.key}: no results cached yet"
    n_units = len(st.units)
    first = f"K{st.ks[0]}"
    bname = {"catboost": "CatBoost", "lgbm-gain": "lgbm-gain (CatBoost not run)"}[baseline]
    lines = [f"{st.data} by {st.by} ({n_units} groups{', ' + ', '.join(st.keep) + ' always kept' if st.keep else ''}), "
             f"folds {', '.join(data['folds'])}: test NDCG@10 of the downstream LGBMRanker "
             f"(mean over {len(res[baseline][first]['ndcg10'])} test queries), selection time per fold "
             f"(median, s), paired randomization test against {bname} at the same number of groups "
             "(Holm-adjusted over the methods of a row).", ""]
    if "all" in res:
        lines.append(f"All {n_units} groups: NDCG@10 {np.mean(res['all']['all']['ndcg10']):.4f}.\n")
    lines += [f"| groups kept | method | NDCG@10 | vs {baseline} | p (Holm) | selection s | {baseline} s / s | "
              "group cost | groups kept (Fold1) |", "|---|---|---|---|---|---|---|---|---|"]
    for unit in [f"K{k}" for k in st.ks] + (["budget"] if st.budget is not None else []):
        if unit not in res[baseline]:
            continue
        base = np.asarray(res[baseline][unit]["ndcg10"])
        base_sec = float(np.median(res[baseline][unit]["seconds"]))
        rows, pvals = [], []
        for method in [baseline] + [m for m in methods if m != baseline]:
            if method not in res or unit not in res[method] or len(res[method][unit]["ndcg10"]) != base.size:
                continue
            u = res[method][unit]
            a = np.asarray(u["ndcg10"])
            p = 1.0 if method == baseline else stats.paired_test(a, base, random_state=SEED).pvalue
            rows.append((method, a, float(np.median(u["seconds"])), u["groups"]))
            pvals.append(p)
        adj = stats.holm(np.asarray(pvals[1:])) if len(pvals) > 1 else np.zeros(0)
        adj = np.concatenate([[np.nan], adj])
        label = f"{unit[1:]} of {n_units}" if unit != "budget" else f"budget {st.budget:g}"
        for (method, a, sec, groups), p in zip(rows, adj):
            mean_cost = np.mean([st.cost(g) for g in groups])
            vs = "-" if method == baseline else f"{a.mean() - base.mean():+.4f}"
            pv = "-" if method == baseline else f"{p:.3f}"
            lines.append(f"| {label} | {method} | {a.mean():.4f} | {vs} | {pv} | {sec:.2f} | {base_sec / sec:.1f}x | "
                         f"{mean_cost:.1f} | {', '.join(groups[0])} |")
    missing = [m for m in methods if m not in res]
    if missing:
        lines += ["", f"Not run: {', '.join(missing)}."]
    return "\n".join(lines)


def study(setups, out_dir: Path) -> str:
    """GAS's group-importance variants against ``gas-max`` (the issue-33 rule), every setup and
    number of groups: mean test NDCG@10 and the paired randomization test's p (not adjusted)."""
    head = "| setup | groups kept | " + " | ".join(GAS_STUDY) + " |"
    lines = [head, "|" + "---|" * (len(GAS_STUDY) + 2)]
    means: dict = {m: [] for m in GAS_STUDY}
    for st in setups:
        res = load(out_dir / st.key, "gas-max")["methods"]
        if "gas-max" not in res:
            continue
        for k in st.ks:
            unit = f"K{k}"
            base = np.asarray(res["gas-max"][unit]["ndcg10"])
            cells = []
            for m in GAS_STUDY:
                if m not in res or unit not in res[m]:
                    cells.append("")
                    continue
                a = np.asarray(res[m][unit]["ndcg10"])
                means[m].append(a.mean())
                p = "" if m == "gas-max" else f" (p {stats.paired_test(a, base, random_state=SEED).pvalue:.3f})"
                cells.append(f"{a.mean():.4f}{p}")
            lines.append(f"| {st.key} | {k} of {len(st.units)} | " + " | ".join(cells) + " |")
    avg = [f"{np.mean(v):.4f}" if v else "" for v in means.values()]
    lines.append("| mean of the cells | | " + " | ".join(avg) + " |")
    return "\n".join(lines)


def rst(markdown: str) -> str:
    """A report of :func:`tables` with its table as an rST ``csv-table`` (for the docs page)."""
    out, rows = [], []
    for line in markdown.splitlines():
        if line.startswith("|---"):
            continue
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
            continue
        if rows:
            out += _csv_table(rows)
            rows = []
        out.append(line)
    if rows:
        out += _csv_table(rows)
    return "\n".join(out)


def _csv_table(rows: list) -> list:
    quoted = [", ".join(f'"{c}"' for c in r) for r in rows]
    return [".. csv-table::", f"   :header: {quoted[0]}", ""] + [f"   {r}" for r in quoted[1:]] + [""]


def compare(st: Setup, out_dir: Path, a: str, b: str) -> str:
    """Method ``a`` against method ``b`` at every number of groups (paired randomization test)."""
    res = load(out_dir / st.key, b)["methods"]
    if a not in res or b not in res:
        return f"{st.key}: {a} or {b} not cached"
    lines = [f"{st.key}: {a} vs {b}", f"| groups kept | {a} | {b} | difference | p |", "|---|---|---|---|---|"]
    for unit in [f"K{k}" for k in st.ks] + (["budget"] if st.budget is not None else []):
        if unit in res[a] and unit in res[b]:
            x, y = np.asarray(res[a][unit]["ndcg10"]), np.asarray(res[b][unit]["ndcg10"])
            p = stats.paired_test(x, y, random_state=SEED).pvalue
            lines.append(f"| {unit} | {x.mean():.4f} | {y.mean():.4f} | {x.mean() - y.mean():+.4f} | {p:.3f} |")
    return "\n".join(lines)


def figure(st: Setup, out_dir: Path, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = out_dir / st.key
    res = load(out_dir, _baseline(out_dir))["methods"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    for method in MAIN:
        if method not in res:
            continue
        ks = [k for k in st.ks if f"K{k}" in res[method]]
        ax1.plot(ks, [np.mean(res[method][f"K{k}"]["ndcg10"]) for k in ks], marker="o", label=method)
        sec = [float(np.median(res[method][f"K{k}"]["seconds"])) for k in ks]
        ax2.plot(ks, sec, marker="o", label=method)
    n_units = len(st.units)
    if "all" in res:
        ax1.axhline(np.mean(res["all"]["all"]["ndcg10"]), color="grey", ls="--", lw=1, label=f"all {n_units} groups")
    kept = f" ({', '.join(st.keep)} always)" if st.keep else ""
    ax1.set_xlabel(f"{st.by} groups kept (of {n_units}){kept}")
    ax1.set_ylabel("test NDCG@10 (LGBMRanker)")
    ax1.set_xticks(list(st.ks))
    ax2.set_xlabel(f"{st.by} groups kept")
    ax2.set_ylabel("selection time per fold (s, median)")
    ax2.set_yscale("log")
    ax2.set_xticks(list(st.ks))
    ax1.legend(fontsize=7)
    fig.suptitle(f"{st.data}, 5 folds: selecting {st.by} groups for a LightGBM ranker", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)


FIGURES = {"MQ2008-stream": "families_mq2008.png", "MQ2008-measure": "families_mq2008_measure.png"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--out", default=str(ROOT / "benches" / "out" / "families"))
    p.add_argument("--setups", nargs="+", default=["MQ2008-stream"], choices=sorted(SETUPS),
                   help="data set and layout (default MQ2008-stream)")
    p.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    p.add_argument("--report", action="store_true", help="print the tables from the cache (no run)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="also print method A against method B")
    p.add_argument("--write-docs", action="store_true", help="also write the figures under docs/figures/")
    p.add_argument("--rst", action="store_true", help="print the tables as rST csv-tables (the docs page)")
    p.add_argument("--study", action="store_true", help="also print the study of GAS's group importance")
    args = p.parse_args(argv)
    for key in args.setups:
        st = SETUPS[key]
        if not args.report:
            run(st, args)
        report = tables(st, Path(args.out))
        print(rst(report) if args.rst else report, "\n")
        if args.compare:
            print(compare(st, Path(args.out), *args.compare), "\n")
        if args.write_docs and key in FIGURES:
            figure(st, Path(args.out), ROOT / "docs" / "figures" / FIGURES[key])
    if args.study:
        table = study([SETUPS[k] for k in args.setups], Path(args.out))
        print(rst(table) if args.rst else table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
