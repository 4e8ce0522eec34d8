"""A :class:`~.data.ReportData` from a fitted selector with its data (a ranker-in-the-loop
selector's ``path_`` gives the validation curve), and the redundancy and importance panels'
computations shared with :mod:`.experiment`."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
from scipy.cluster.hierarchy import leaves_list

from ..analysis.inspection import evaluate_path, fit_ranker, permutation_importance
from ..analysis.redundancy import redundancy_report
from ..data.feature_groups import check_feature_groups
from ..models.rankrls import RankRLS
from ..selection.stability import StabilitySelection
from ._data import Importance, PerQuery, Redundancy, ReportData, curve_from_path, curve_from_per_query, marks_of

__all__ = ["from_selector", "redundancy_of", "importance_of"]

#: the similarity of the redundancy panel and the threshold its clusters are cut at
SIMILARITY, THRESHOLD = "spearman", 0.9


def _xyq(data, name: str):
    try:
        X, y, qid = data
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a RankingData or an (X, y, qid) tuple, got {type(data).__name__}") from exc
    return np.asarray(X, dtype=np.float64), np.asarray(y), np.asarray(qid)


def redundancy_of(train, names: list[str]) -> Redundancy:
    """|Spearman| similarity of the training data, ordered by its dendrogram (SciPy's leaves order)."""
    X, _, qid = _xyq(train, "train")
    rep = redundancy_report(X, qid, similarity=SIMILARITY, threshold=THRESHOLD, feature_names=names)
    order = [int(j) for j in leaves_list(rep.linkage)] if len(names) > 1 else [0]
    sim = np.nan_to_num(np.asarray(rep.similarity, dtype=np.float64))
    return Redundancy(matrix=sim[np.ix_(order, order)].round(4).tolist(), order=order,
                      clusters=[[names[j] for j in c] for c in rep.redundant],
                      representatives=[names[int(r)] for r, c in zip(rep.representatives, rep.clusters) if len(c) > 1],
                      similarity=SIMILARITY, threshold=THRESHOLD)


def importance_of(subset, train, test, alpha: float, measure: str, random_state, *, ranker=None,
                  split: str = "test") -> Importance:
    """Query-aware permutation importance (:func:`~rankselect.analysis.inspection.permutation_importance`)
    of ``subset`` for ``ranker`` (default ``RankRLS(alpha)``) fitted on it, measured on ``test``."""
    X, y, qid = _xyq(train, "train")
    Xt, yt, qt = _xyq(test, "test")
    cols = list(subset)
    model = fit_ranker(ranker if ranker is not None else RankRLS(alpha=alpha), X[:, cols], y, qid)
    imp = permutation_importance(model, Xt[:, cols], yt, qt, scoring=measure.lower(), n_repeats=5,
                                 random_state=random_state)
    return Importance(features=cols, mean=imp.importances_mean.tolist(), low=imp.ci_low.tolist(),
                      high=imp.ci_high.tolist(), measure=measure, split=split)


def from_selector(selector, *, train, vali, test=None, ranker=None, scoring: str = "ndcg@10",
                  feature_names=None, feature_costs=None, feature_groups=None, n_resamples: int = 5,
                  title: Optional[str] = None, random_state: int = 0) -> ReportData:
    """Collect a report of a fitted selector (see :func:`~rankselect.report.build_report`)."""
    if not hasattr(selector, "selected_features_"):
        raise TypeError(f"source must be a fitted rankselect selector or an experiment folder, "
                        f"got {type(selector).__name__} without selected_features_")
    X, y, qid = _xyq(train, "train")
    n = X.shape[1]
    names = _names(selector, feature_names, n)
    order = [int(j) for j in selector.selected_features_]
    if not order:
        raise ValueError("the selector selected no feature: nothing to report")
    ranker = RankRLS() if ranker is None else ranker
    method = type(selector).__name__
    path = getattr(selector, "path_", None)
    if path is not None and len(path):
        vcurve = curve_from_path(method, "validation", path)
        subsets = {k: sorted(int(j) for j in path.features[_best_of_size(path, k)]) for k in vcurve.n_features}
    else:
        pc = evaluate_path(order, ranker, (X, y, qid), _xyq(vali, "vali"), scoring=scoring)
        vcurve = curve_from_per_query(method, "validation", pc.n_features, pc.per_query)
        subsets = {k: order[:k] for k in range(1, len(order) + 1)}
    curves = [vcurve]
    marks = {method: marks_of(vcurve)}
    # the subset the page hands off: the one-standard-error size of the validation curve
    default_k = marks[method]["one-standard-error"]
    chosen = subsets[default_k]
    evaluation = test if test is not None else vali
    split = "test" if test is not None else "validation"
    if test is not None:
        sizes = sorted(subsets)
        rows = [evaluate_path(subsets[k], ranker, (X, y, qid), _xyq(test, "test"), scoring=scoring,
                              n_features=[k]).per_query[0] for k in sizes]
        curves.append(curve_from_per_query(method, "test", sizes, rows))
    per_query = _per_query(chosen, ranker, (X, y, qid), _xyq(evaluation, split), scoring, n)
    costs = None if feature_costs is None else [float(c) for c in np.asarray(feature_costs, dtype=np.float64)]
    if costs is not None and len(costs) != n:
        raise ValueError(f"feature_costs has {len(costs)} values but the data has {n} features")
    pareto = [{"method": method, "k": k, "cost": float(sum(costs[j] for j in subsets[k]) if costs else k),
               "score": s, "split": curves[-1].split}
              for k, s in zip(curves[-1].n_features, curves[-1].score)]
    stability: dict[str, list[float]] = {}
    notes: dict[str, str] = {}
    if n_resamples >= 2:
        st = StabilitySelection(selector, n_resamples=n_resamples, random_state=random_state).fit(X, y, qid=qid)
        stability[method] = st.selection_frequencies_.tolist()
    else:
        notes["stability"] = "n_resamples < 2: no resampling was run"
    params: dict[str, Any] = selector.get_params(deep=False) if hasattr(selector, "get_params") else {}
    return ReportData(
        title=title or f"{method}: {len(order)} of {n} features", source=f"fitted {method}",
        measure=scoring.upper() if scoring.lower() != "map" else "MAP", feature_names=names, method=method,
        curves=curves, marks=marks, subsets=subsets, default_k=default_k, stability=stability,
        stability_over=f"{n_resamples} query subsamples", per_query=per_query,
        redundancy=redundancy_of((X, y, qid), names),
        importance=importance_of(chosen, (X, y, qid), _xyq(evaluation, split), 1.0, scoring, random_state,
                                 ranker=ranker, split=split),
        costs=costs, families=_families(feature_groups, n), pareto=pareto,
        settings={"selector": repr(selector), "ranker": repr(ranker), "scoring": scoring,
                  **{f"param {k}": repr(v) for k, v in params.items() if not hasattr(v, "get_params")}},
        notes=notes)


def _best_of_size(path, k: int) -> int:
    from ..selection.wrapper.path import choose_step

    return choose_step(path, "best", n_features=k)


def _per_query(chosen, ranker, train, evaluation, scoring: str, n: int) -> PerQuery:
    k = len(chosen)
    a = evaluate_path(list(chosen), ranker, train, evaluation, scoring=scoring, n_features=[k]).per_query[0]
    b = evaluate_path(list(range(n)), ranker, train, evaluation, scoring=scoring, n_features=[n]).per_query[0]
    qids = [str(q) for q in dict.fromkeys(np.asarray(evaluation[2]).tolist())]
    return PerQuery(qids, a.tolist(), b.tolist(), scoring.upper(), f"the {k} chosen features", f"all {n} features")


def _names(selector, feature_names, n: int) -> list[str]:
    if feature_names is None:
        feature_names = getattr(selector, "feature_names_in_", None)
    names = [str(j + 1) for j in range(n)] if feature_names is None else [str(s) for s in feature_names]
    if len(names) != n:
        raise ValueError(f"feature_names has {len(names)} names but the data has {n} features")
    return names


def _families(groups, n: int) -> Optional[list[str]]:
    """The family of each feature, from anything :func:`~rankselect.data.check_feature_groups`
    takes (a label per feature, a mapping family -> columns, a ``FeatureGroups``)."""
    if groups is None:
        return None
    g = check_feature_groups(groups, n)
    return [g.names[int(i)] for i in g.index]
