"""A :class:`~.data.ReportData` from one fitted selector with its data: the validation
scores of every size (a ranker-in-the-loop selector's ``path_``, which holds them per query;
otherwise the ranker fitted on every prefix of the selection order), the test scores beside
them and the chosen size against all features; what the panels read to collect their own data
(stability over query subsamples, redundancy, importance: ``_collect``) in ``sources``."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from sklearn.base import clone

from .. import metrics
from ..analysis.inspection import fit_ranker
from ..models.rankrls import RankRLS
from ..selection.wrapper.path import SelectionPath, choose_step
from ._data import ReportData, compare_queries, curve_of, plural
from ._features import Progress, short, xyq
from ._inputs import check_inputs
from ._sources import Sources

__all__ = ["from_selector"]


def _queries(qid) -> list[str]:
    return [str(q) for q in dict.fromkeys(np.asarray(qid).tolist())]


def _score(model, X, y, qid, cols, scoring: str, convention: str) -> np.ndarray:
    return np.asarray(metrics.compute(scoring, y, np.asarray(model.predict(X[:, cols]), dtype=np.float64).ravel(),
                                      qid, convention=convention, per_query=True), dtype=np.float64)


def _sizes_of(selector, order: list[int], groups) -> list[int]:
    """The prefix sizes to score: every prefix, or the ends of the groups when whole groups
    were selected."""
    if groups is None or not getattr(selector, "select_groups", False) or not hasattr(selector, "selected_groups_"):
        return list(range(1, len(order) + 1))
    g = [int(groups.index[j]) for j in order]
    return [i + 1 for i in range(len(order)) if i + 1 == len(order) or g[i + 1] != g[i]]


def from_selector(selector, *, train, vali, test=None, ranker=None, scoring: str = "ndcg@10",
                  convention: str = "exponential", feature_names=None, feature_costs=None, feature_groups=None,
                  group_costs=None, n_resamples: int = 5, title: Optional[str] = None, random_state: int = 0,
                  progress: bool = True) -> ReportData:
    """Collect a report of a fitted selector (see :func:`~rankselect.report.build_report`)."""
    if not hasattr(selector, "selected_features_"):
        raise TypeError(f"source must be a fitted rankselect selector or an experiment folder, "
                        f"got {type(selector).__name__} without selected_features_")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 0:
        raise ValueError(f"n_resamples must be an integer >= 0 (0: no stability refits), got {n_resamples!r}")
    X, y, qid = xyq(train, "train")
    Xv, yv, qv = xyq(vali, "vali")
    n = X.shape[1]
    if Xv.shape[1] != n:
        raise ValueError(f"vali has {Xv.shape[1]} features but train has {n}")
    params: dict[str, Any] = selector.get_params(deep=False) if hasattr(selector, "get_params") else {}
    inputs = check_inputs(
        n, feature_names=feature_names,
        feature_costs=feature_costs if feature_costs is not None else params.get("feature_costs"),
        feature_groups=feature_groups if feature_groups is not None else getattr(selector, "feature_groups_", None),
        group_costs=group_costs if group_costs is not None else (params.get("group_costs") if feature_groups is None
                                                                 else None),
        fallback_names=getattr(selector, "feature_names_in_", None))
    order = [int(j) for j in selector.selected_features_]
    if not order:
        raise ValueError("the selector selected no feature: nothing to report")
    if ranker is None:
        ranker = params["estimator"] if hasattr(params.get("estimator"), "fit") else RankRLS()
    method = type(selector).__name__
    evaluation = xyq(test, "test") if test is not None else None
    Xt, yt, qt = evaluation if evaluation is not None else (Xv, yv, qv)
    found = getattr(selector, "path_", None)
    path = found if isinstance(found, SelectionPath) else SelectionPath(*(np.zeros(0),) * 5)
    d = ReportData(title=title or f"{method}: {plural(len(order), 'feature')} of {n}", source=f"fitted {method}",
                   measure=scoring.upper() if scoring.lower() != "map" else "MAP", feature_names=inputs.names,
                   method=method, curves=[], marks={}, subsets={}, default_k=1, stability={}, stability_over="",
                   costs=inputs.costs, groups=inputs.groups, group_costs=inputs.group_costs)
    eligible = path.n_features[path.eligible] if path.eligible.shape == path.n_features.shape else []
    sizes = sorted({int(k) for k in eligible})
    steps = [choose_step(path, "best", n_features=k) for k in sizes]
    if steps and len(path.per_query) == len(path) and all(path.per_query[i] is not None for i in steps):
        # the selector's own per-query scores of the best step of each size: nothing to refit
        V = np.vstack([path.per_query[i] for i in steps])
        d.subsets = {k: [int(j) for j in path.features[i]] for k, i in zip(sizes, steps)}
        if getattr(selector, "validation", None) is None:
            d.validation = "validation (query folds of the training data: the selector's cv)"
        vqids = None
        fits = [] if evaluation is None else sizes
    else:
        sizes = _sizes_of(selector, order, inputs.groups)
        d.subsets = {k: order[:k] for k in sizes}
        V, vqids, fits = None, _queries(qv), sizes
    rows_v: dict[int, np.ndarray] = {}
    rows_t: dict[int, np.ndarray] = {}
    work = Progress(f"fitting {type(ranker).__name__} on {plural(len(fits), 'subset')} and on all features",
                    len(fits) + 1, progress)
    for k in fits:
        model = fit_ranker(clone(ranker), X[:, d.subsets[k]], y, qid)
        if V is None:
            rows_v[k] = _score(model, Xv, yv, qv, d.subsets[k], scoring, convention)
        if evaluation is not None:
            rows_t[k] = _score(model, Xt, yt, qt, d.subsets[k], scoring, convention)
        work.step()
    everything = list(range(n))
    full = fit_ranker(clone(ranker), X, y, qid)
    ref_v = _score(full, Xv, yv, qv, everything, scoring, convention)
    ref_t = None if evaluation is None else _score(full, Xt, yt, qt, everything, scoring, convention)
    work.step()
    d.settings["ranker fits"] = f"{plural(len(fits) + 1, 'fit')} of {type(ranker).__name__}, {work.seconds:.1f} s"
    if V is None:
        V = np.vstack([rows_v[k] for k in sizes])
    vcurve, c = curve_of(method, "validation", sizes, V)
    d.curves.append(vcurve)
    if evaluation is not None:
        d.curves.append(curve_of(method, "test", sizes, np.vstack([rows_t[k] for k in sizes]), reference=c.best)[0])
    for cv in d.curves:
        cv.cost = [d.cost_of(d.subsets[k]) for k in sizes]
        if inputs.groups is not None:
            cv.n_groups = [float(len(d.groups_of(d.subsets[k]))) for k in sizes]
    d.marks[method] = {"best": c.best, d.rule: c.chosen}
    d.default_k = c.chosen
    test_curve = d.curves[-1] if evaluation is not None else None
    for i, k in enumerate(sizes):
        d.pareto.append({"method": method, "k": k, "cost": d.cost_of(d.subsets[k]), "vali": vcurve.score[i],
                         "test": None if test_curve is None else test_curve.score[i],
                         "n_groups": None if vcurve.n_groups is None else vcurve.n_groups[i]})
    d.pareto.append({"method": "all features", "k": n, "cost": d.cost_of(everything), "vali": float(ref_v.mean()),
                     "test": None if ref_t is None else float(ref_t.mean()),
                     "n_groups": None if inputs.groups is None else float(inputs.groups.n_groups)})
    k = c.chosen
    if evaluation is not None:
        chosen_t = rows_t[k] if k in rows_t else _score(fit_ranker(clone(ranker), X[:, d.subsets[k]], y, qid),
                                                        Xt, yt, qt, d.subsets[k], scoring, convention)
        d.per_query = compare_queries(_queries(evaluation[2]), chosen_t, ref_t, d.measure, "test",
                                      f"the {plural(k, 'chosen feature')}", f"all {n} features")
    else:
        d.per_query = compare_queries(vqids or [str(i) for i in range(V.shape[1])], V[sizes.index(k)], ref_v,
                                      d.measure, "validation", f"the {plural(k, 'chosen feature')}",
                                      f"all {n} features")
        d.notes["per-query"] = ("no test data: these are the validation queries the size was chosen on "
                                "(optimistic for the chosen subset); pass test= for held-out queries")
    if len(order) != k:
        d.explanations.append(
            f"{method} selected {plural(len(order), 'feature')}; on {d.validation} the {d.rule} rule on paired "
            f"per-query differences keeps {plural(k, 'feature')} (the best size is {c.best}).")
    split = "test" if evaluation is not None else "validation"
    d.sources = Sources("fit", train=(X, y, qid), test=evaluation if evaluation is not None else (Xv, yv, qv),
                        split=split, ranker=ranker, measure=scoring, random_state=random_state, progress=progress,
                        selector=selector, n_resamples=int(n_resamples))
    d.settings = {"selector": type(selector).__name__,
                  **{"  selector (parameter)" if key == "selector" else f"  {key}": short(v)
                     for key, v in params.items()
                     if key not in ("feature_names", "feature_groups", "group_costs", "feature_costs")},
                  "ranker (curves, reference, importance)": short(ranker), "scoring": f"{scoring} ({convention})",
                  "feature groups": repr(inputs.groups) if inputs.groups is not None else "none",
                  "feature costs": short(inputs.costs) if inputs.costs is not None else "none (cost = number of "
                                                                                        "features)",
                  **({"group costs": short(inputs.group_costs)} if inputs.group_costs is not None else {}),
                  **d.settings}
    return d
