"""Feature costs and budgets: selection when features cost latency to compute.

Every selector takes ``feature_costs=`` (n_features,), costs >= 0 in any unit:

- :class:`~rankselect.GreedyRankRLS`: each step adds the feature of largest exact
  leave-query-out improvement per unit cost, ``(v_prev - v_i) / cost_i`` (a free feature
  that improves first), and ``budget=`` stops before the total cost would exceed it
  (features that do not fit are skipped for cheaper ones). Rule in
  ``rust/core/src/cost_greedy.rs``.
- :class:`~rankselect.GAS`: the greedy of Geng et al. (Fig. 1) picks the largest penalised
  importance per cost, ``w_j / cost_j``, and ``budget=`` as above.
- :class:`~rankselect.SparseRankSVM`: weighted L1 (Laporte et al. eq. 12) with weights
  ``beta_j = cost_j / mean(cost)``: the penalty ``sum_j beta_j |w_j|``, so equal costs are
  the plain L1 and a free feature is never penalised.

Every per-cost comparison is one rule, :func:`rankselect.selection.value_per_cost`
(``gain / cost`` for a positive gain; a gain that is not positive by the method's
convention: greedy RankRLS and ForwardSelection take the smallest loss, GAS and the filters
``gain * cost``, RecursiveElimination 0). Equal costs give the selections without costs.
:func:`cost_quality_path` gives, for every prefix of a greedy selection or every model of a
regularisation path, the total cost and the validation measure; :func:`pareto_front` keeps
the points no other point beats on both; :func:`rankselect.plotting.plot_cost_quality` draws them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .. import metrics
from .._validation import (
    check_budget,
    check_costs,
    check_costs_and_budget,
    check_ranking_data,
    check_vector,
    fits_budget,
)
from ..data.feature_groups import check_extraction_costs, check_feature_groups
from ..data.textfile import text_lines
from ..models.rankrls import RankRLS
from .inspection import evaluate_path

# The argument checks of the selectors live with the other argument checks (``_validation``,
# below the estimators that use them); this module is their public home.
__all__ = [
    "check_costs",
    "check_budget",
    "check_costs_and_budget",
    "fits_budget",
    "read_costs",
    "total_cost",
    "CostQualityPath",
    "cost_quality_path",
    "pareto_front",
]


def read_costs(path, n_features: int) -> np.ndarray:
    """Feature costs from a CSV file: either one cost per line in column order, or lines
    ``feature,cost`` with 1-based feature numbers (as in LETOR files) covering every
    feature; an optional header line and ``#`` comments are skipped (read as
    :mod:`rankselect.data.textfile` says: UTF-8, one clear error naming the line).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from rankselect.analysis.costs import read_costs
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     np.savetxt(f"{folder}/costs.csv", [0.5, 3.0, 1.0])  # one cost per line (or "feature,cost", 1-based)
    ...     read_costs(f"{folder}/costs.csv", n_features=3)
    array([0.5, 3. , 1. ])
    """
    rows: list[list[str]] = []
    linenos: list[int] = []
    for lineno, line in text_lines(path):  # UTF-8 (a BOM skipped), "#" comments; errors name the line
        fields = [f.strip() for f in line.replace(";", ",").split(",")]
        try:
            [float(f) for f in fields]
        except ValueError:
            if not rows:  # a header
                continue
            raise ValueError(f"{path}: line {lineno}: not a number: {line!r}") from None
        if len(fields) not in (1, 2) or (rows and len(fields) != len(rows[0])):
            raise ValueError(f"{path}: line {lineno}: expected 'cost' or 'feature,cost', got {line!r}")
        rows.append(fields)
        linenos.append(lineno)
    if not rows:
        raise ValueError(f"{path}: no costs")
    if len(rows[0]) == 1:
        costs = np.array([float(r[0]) for r in rows])
    else:
        costs = np.full(n_features, np.nan)
        for (feat, cost), lineno_text in zip(rows, linenos):
            j = float(feat)
            if not np.isfinite(j) or j != int(j) or not 1 <= j <= n_features:
                raise ValueError(f"{path}: line {lineno_text}: feature number {feat} is not a whole number in "
                                 f"1 .. {n_features}")
            costs[int(j) - 1] = float(cost)
        if np.isnan(costs).any():
            missing = (np.flatnonzero(np.isnan(costs)) + 1).tolist()
            raise ValueError(f"{path}: no cost for feature(s) {missing[:10]}")
    return check_costs(costs, n_features)


def total_cost(costs: np.ndarray, features) -> float:
    """Sum of the costs of ``features`` in order (sequential, as the selectors add them).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis.costs import total_cost
    >>> total_cost(np.array([0.5, 1.0, 2.0]), features=[0, 2])
    2.5
    """
    c = check_vector(costs, "costs")
    f = np.asarray(features)
    if f.size and (f.ndim != 1 or not np.issubdtype(f.dtype, np.integer)):
        raise TypeError(f"features must be a 1-D sequence of integer column indices, got {features!r}")
    f = f.astype(np.int64)
    if f.size and (f.min() < 0 or f.max() >= c.shape[0]):
        raise ValueError(f"features must lie in 0 .. {c.shape[0] - 1}")
    return float(np.cumsum(c[f])[-1]) if f.size else 0.0


def pareto_front(total_cost, score) -> np.ndarray:
    """Indices of the Pareto-optimal points (lower cost and higher score are better), by
    increasing cost: a point is kept unless another costs no more and scores at least as
    much, one of them strictly.

    Examples
    --------
    >>> from rankselect.analysis.costs import pareto_front
    >>> pareto_front(total_cost=[1.0, 2.0, 3.0, 4.0], score=[0.5, 0.7, 0.6, 0.8])
    array([0, 1, 3])
    """
    c = check_vector(total_cost, "total_cost")
    s = check_vector(score, "score", n=c.shape[0])
    order = np.lexsort((-s, c))  # by cost, best score first among equal costs
    keep, best = [], -np.inf
    for i in order:
        if s[i] > best:
            keep.append(int(i))
            best = s[i]
    return np.asarray(keep, dtype=np.intp)


@dataclass
class CostQualityPath:
    """Total cost and validation measure of a sequence of models.

    Attributes
    ----------
    total_cost : ndarray of shape (p,)
    score : ndarray of shape (p,)
    n_features : ndarray of shape (p,)
    features : list of ndarray
        Columns each model uses (0-based).
    scoring : str
    feature_cost : ndarray of shape (p,) or None
        With groups: the features' own costs alone (``total_cost`` then adds each touched
        group's extraction cost once, :class:`~rankselect.data.ExtractionCosts`).
    groups_paid : list of list of str or None
        With groups: the groups each model pays for (touches), in order of first use.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.costs import cost_quality_path
    >>> costs = np.ones(train.n_features)
    >>> path = cost_quality_path(rs.GreedyRankRLS(n_features_to_select=5).fit(*train), vali, costs)
    >>> path.pareto, path.best_within(3.0)
    (array([0, 1, 2, 4]), 2)
    """

    total_cost: np.ndarray
    score: np.ndarray
    n_features: np.ndarray
    features: list
    scoring: str
    feature_cost: Optional[np.ndarray] = None
    groups_paid: Optional[list] = None

    @property
    def pareto(self) -> np.ndarray:
        """Indices of the Pareto-optimal models (:func:`pareto_front`)."""
        return pareto_front(self.total_cost, self.score)

    def best_within(self, budget: float) -> int:
        """Index of the best-scoring model whose total cost is within ``budget`` (the
        cheapest on ties; the budget rule :func:`fits_budget`); ValueError when none fits."""
        ok = np.flatnonzero(fits_budget(self.total_cost, budget))
        if ok.size == 0:
            raise ValueError(f"no model costs at most {budget}")
        best = ok[self.score[ok] == self.score[ok].max()]
        return int(best[np.argmin(self.total_cost[best])])


def cost_quality_path(model, vali, feature_costs, *, scoring: str = "ndcg@10", convention: str = "exponential",
                      train=None, ranker=None, groups=None, group_costs=None) -> CostQualityPath:
    """Total cost and validation ``scoring`` of every model a selection gives.

    Parameters
    ----------
    model : fitted selector or :class:`~rankselect.SparsePath`
        With ``coef_path_`` (greedy RankRLS: one model per prefix) or ``coefs`` (a
        :class:`~rankselect.SparsePath`: one model per ``C``), those linear models are
        scored. Otherwise (a filter such as GAS) ``ranker`` is fitted on ``train`` for
        every prefix of ``selected_features_`` (:func:`rankselect.analysis.inspection.evaluate_path`).
    vali : RankingData or (X, y, qid)
    feature_costs : array-like of shape (n_features,)
    scoring : str
        Measure of :func:`rankselect.metrics.compute`.
    convention : {"exponential", "trec", "lightgbm", "letor"}
        (``"standard"``: the old name of ``"exponential"``)
    train : RankingData or (X, y, qid), optional
        Needed for a selector without a model path.
    ranker : estimator, optional
        Fitted on each prefix for a selector without a model path (default
        ``RankRLS(alpha=1.0)``).
    groups : FeatureGroups, labels or mapping, optional
        Feature families (:func:`rankselect.data.check_feature_groups`): the cost of a model
        then counts each touched group's ``group_costs`` once, ``feature_cost`` keeps the
        feature-level view and ``groups_paid`` lists the groups paid for. A whole-group
        greedy fit (one model per group step) is read with its own groups.
    group_costs : array-like of shape (n_groups,) or mapping, optional
        Each group's extraction cost (with ``groups``; default 0).

    Returns
    -------
    CostQualityPath
        Models without any feature (e.g. the all-zero end of a sparse path, which ranks
        by file order) are left out.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.costs import cost_quality_path
    >>> costs = np.linspace(0.1, 2.2, train.n_features)
    >>> sel = rs.GreedyRankRLS(n_features_to_select=4, feature_costs=costs).fit(*train)
    >>> path = cost_quality_path(sel, vali, costs, scoring="ndcg@10")
    >>> path.total_cost.round(2), path.score.round(3)
    (array([0.1, 0.5, 0.8, 1.6]), array([0.58 , 0.694, 0.787, 0.893]))
    """
    try:
        Xv, yv, qv = vali
    except (TypeError, ValueError) as exc:
        raise TypeError("vali must be a RankingData or an (X, y, qid) tuple") from exc
    Xv, yv, qv = check_ranking_data(Xv, yv, qv, squares=False)
    n = Xv.shape[1]
    costs = check_costs(feature_costs, n)
    coefs = getattr(model, "coef_path_", None)
    if coefs is None:
        coefs = getattr(model, "coefs", None)
    if coefs is not None:
        coefs = np.asarray(coefs, dtype=np.float64)
        if coefs.ndim != 2 or coefs.shape[1] != n:
            raise ValueError(f"the model path has shape {coefs.shape}; vali has {n} features")
        feats = [np.flatnonzero(w) for w in coefs]
        if hasattr(model, "selected_features_") and hasattr(model, "coef_path_"):
            order = np.asarray(model.selected_features_)
            feats = [order[: i + 1] for i in range(coefs.shape[0])]
            if coefs.shape[0] != order.shape[0] and hasattr(model, "feature_groups_"):  # one model per group
                steps = list(model.selected_groups_)
                feats = [model.feature_groups_.columns(steps[: i + 1]) for i in range(coefs.shape[0])]
        scores = np.array([metrics.compute(scoring, yv, Xv @ w, qv, convention=convention) for w in coefs])
    else:
        if train is None:
            raise ValueError("a selector without a model path (e.g. GAS) needs train= (and optionally ranker=)")
        order = np.asarray(model.selected_features_)
        curve = evaluate_path(order, ranker if ranker is not None else RankRLS(alpha=1.0), train, vali,
                              scoring=scoring, convention=convention)
        feats, scores = curve.features, curve.scores
    # A model without features ranks every query by ties (file order): not a trade-off point.
    keep = [i for i, f in enumerate(feats) if len(f) > 0]
    feats = [feats[i] for i in keep]
    scores = np.asarray(scores, dtype=np.float64)[keep]
    total = np.array([total_cost(costs, f) for f in feats])
    own = paid = None
    g = None if groups is None else check_feature_groups(groups, n)
    ext = check_extraction_costs(costs, g, group_costs, n, groups_name="groups")
    if g is not None:
        own, total = total, np.array([ext.total(f) for f in feats])
        paid = [[g.names[i] for i in g.groups_of(f)] for f in feats]
    return CostQualityPath(total_cost=total, score=np.asarray(scores, dtype=np.float64),
                           n_features=np.array([len(f) for f in feats]), features=feats, scoring=scoring,
                           feature_cost=own, groups_paid=paid)
