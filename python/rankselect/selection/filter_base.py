"""The base of the filter selectors (GAS, NGAS, XGAS, HCAS): one contract for their inputs.

A filter selects from two inputs computed once per ``fit``: the **importance** (relevance)
of every feature used alone as a ranker and the **similarity** of every pair of features.
:class:`FilterSelector` owns what they share, in the spirit of scikit-matter's one greedy
selector base: the parameters (``n_features_to_select``, ``importance``, ``similarity``,
``absolute``, ``convention``, ``feature_costs``, ``budget``), their checks, the computation
of both inputs (or their checks when precomputed), the features constant within every
query, the degenerate-data warnings, the costs, the support mask and the tags. A subclass
implements ``_select(importance, similarity, constant)``, which sets
``selected_features_`` (in order of selection) and its own fitted attributes.

Inputs
------
importance : a measure of :func:`rankselect.feature_importance` (``"map"``, ``"ndcg@k"``,
    ``"pairwise"``, ...), ``"lambdamart"`` (FSA's single-ranker relevance,
    :func:`rankselect.selection.importance.single_ranker_importance`; needs LightGBM), a
    :class:`FeatureImportance` or an array of shape (n_features,).
similarity : a Kendall variant of :func:`rankselect.kendall_similarity` (``"geng"``,
    ``"tau_b"``, averaged over queries, on the direction-adjusted features), ``"spearman"``
    (``|Spearman|`` over all rows, :func:`rankselect.spearman_similarity`), or a precomputed
    symmetric array.

Costs
-----
With ``feature_costs`` (and/or ``budget``) a feature's value in a comparison of relevance
is its importance per unit cost (GAS's rule, :func:`cost_ratio`: ties go to the larger
importance, then the lowest index), and only features whose cost fits in what is left of
the budget are candidates; the selection stops early when none fits. Equal costs and no
budget select exactly as without costs.
"""
from __future__ import annotations

import numbers
from typing import Optional

import numpy as np
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import RankingEstimator, warn_if_degenerate
from .._validation import MAX_INT, check_costs_and_budget, check_similarity, shown
from ..data.grouping import GroupedData, TrainingData
from ..metrics.checks import CONVENTIONS
from .importance import (
    SINGLE_RANKER,
    FeatureImportance,
    _feature_importance_grouped,
    _single_ranker_grouped,
    parse_measure,
)
from .similarity import SIMILARITIES, VARIANTS, _check_similarity_memory, _similarity_grouped, _spearman

__all__ = ["FilterSelector", "cost_ratio", "best_of"]


def cost_ratio(w: np.ndarray, costs: Optional[np.ndarray]) -> np.ndarray:
    """The value of each feature in a comparison of relevance: ``w`` itself without costs;
    with costs GAS's rule: ``w / cost`` for ``w >= 0`` (a free feature with ``w > 0`` is
    worth infinity, with ``w = 0`` nothing), ``w * cost`` for ``w < 0`` (a higher cost never
    helps).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.filter_base import cost_ratio
    >>> cost_ratio(np.array([0.6, 0.2, -0.1]), np.array([2.0, 0.0, 3.0]))
    array([ 0.3,  inf, -0.3])
    """
    if costs is None:
        return w
    with np.errstate(divide="ignore", invalid="ignore"):
        per_cost = np.where(costs > 0, w / np.where(costs > 0, costs, 1.0), np.sign(w) * np.inf)
    return np.where(w >= 0, np.nan_to_num(per_cost, nan=0.0, posinf=np.inf), w * costs)


def best_of(candidates: np.ndarray, w: np.ndarray, ratio: np.ndarray) -> int:
    """The best of ``candidates`` (feature indices, non-empty): the largest ``ratio``, then
    the largest ``w``, then the lowest index.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.filter_base import best_of
    >>> w = np.array([0.5, 0.9, 0.9])
    >>> best_of([2, 1, 0], w, w)  # a tie of 1 and 2 goes to the lower index
    1
    """
    candidates = np.sort(np.asarray(candidates))
    r = ratio[candidates]
    top = candidates[r == r.max()]
    return int(top[np.argmax(w[top])])  # argmax: the first (lowest index) of equal maxima


class FilterSelector(SelectorMixin, RankingEstimator):
    """Base of the filter selectors (module docstring). Not used directly.

    Examples
    --------
    >>> from rankselect import NGAS, XGAS, HCAS
    >>> from rankselect.selection.filter_base import FilterSelector
    >>> all(issubclass(c, FilterSelector) for c in (NGAS, XGAS, HCAS))
    True
    """

    selected_features_: np.ndarray
    importance_: np.ndarray
    directions_: np.ndarray
    similarity_: np.ndarray
    constant_features_: np.ndarray
    n_features_in_: int
    feature_names_in_: np.ndarray

    _parameter_constraints: dict = {
        "n_features_to_select": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "importance": [str, FeatureImportance, "array-like"],
        "similarity": [StrOptions(set(SIMILARITIES)), "array-like"],
        "absolute": ["boolean"],
        "convention": [StrOptions(set(CONVENTIONS))],
        "feature_costs": ["array-like", None],
        "budget": [Interval(numbers.Real, 0, None, closed="left"), None],
    }

    def _check_params(self, n_features: int):
        """The bound that depends on the data (the others: ``_parameter_constraints``)."""
        t = self.n_features_to_select
        if not t <= n_features:
            raise ValueError(
                f"n_features_to_select must be between 1 and the number of features ({n_features}), got {t}")

    def _importance(self, data: GroupedData, has_pair=True) -> FeatureImportance:
        imp = self.importance
        n = data.X.shape[1]
        if isinstance(imp, str):
            if imp.strip().lower() == SINGLE_RANKER:
                return _single_ranker_grouped(data, convention=self.convention)
            kind, k = parse_measure(imp)
            if kind == "pairwise" and not has_pair:
                # no pair to order: every feature's pairwise accuracy is the tie value 1/2
                return FeatureImportance(np.full(n, 0.5), np.ones(n, dtype=np.int64))
            return _feature_importance_grouped(data, kind, k, self.convention)
        return self._given_importance(n)

    def _given_importance(self, n: int) -> FeatureImportance:
        """The importance the user passed (a :class:`FeatureImportance` or an array of shape
        (n,)), checked."""
        imp = self.importance
        if isinstance(imp, FeatureImportance):
            values = np.asarray(imp.importance, dtype=np.float64)
            directions = np.asarray(imp.directions)
        else:
            message = "importance must be a measure name, a FeatureImportance or an array of shape (n_features,)"
            if isinstance(imp, tuple):
                raise ValueError(message)
            values = np.asarray(imp, dtype=np.float64)
            if values.ndim != 1:
                raise ValueError(message)
            directions = np.ones(n, dtype=np.int64)
        if values.shape != (n,) or directions.shape != (n,):
            raise ValueError(f"importance must have shape ({n},) to match X, got {values.shape}")
        if not np.isfinite(values).all():
            raise ValueError("importance contains NaN or infinity")
        if not np.isin(directions, (-1, 1)).all():
            raise ValueError("importance.directions must hold only +1 and -1")
        return FeatureImportance(values, directions.astype(np.int64))

    def _similarity(self, data: GroupedData, directions) -> np.ndarray:
        sim = self.similarity
        m, n = data.X.shape
        if isinstance(sim, str):
            if sim not in SIMILARITIES:
                raise ValueError(
                    f"similarity must be one of {SIMILARITIES} or an (n_features, n_features) array, got {shown(sim)}")
            if sim == "spearman":
                return _spearman(data.X)  # absolute: the directions do not matter
            if data.groups.sizes.max() < 2:
                # one document per query (degenerate data, warned about): no pair to compare
                return np.zeros((n, n))
            _check_similarity_memory(m, n)
            # each feature as it is used (times its direction), rows already grouped
            assert sim in VARIANTS
            return _similarity_grouped(data.X * directions, data.offsets, sim, bool(self.absolute))
        return check_similarity(sim, n)

    def _costs(self, n: int) -> tuple:
        """``(costs, budget)`` checked; ``(None, None)`` without a budget and with equal
        costs (the plain rule, exactly)."""
        costs = budget = None
        if self.feature_costs is not None or self.budget is not None:
            costs, budget = check_costs_and_budget(self.feature_costs, self.budget, n)
            if budget is None and np.all(costs == costs[0]):
                costs = None
        return costs, budget

    def fit(self, X, y, qid=None):
        """Select features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,)
            Query id of every row (required).

        Returns
        -------
        self
        """
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, train: TrainingData):
        data, n = train.grouped, train.n_features
        self._check_params(n)
        has_pair, _ = warn_if_degenerate(self, data)
        imp = self._importance(data, has_pair)
        e = self._similarity(data, imp.directions)
        constant = data.constant_within_queries()
        self._select(imp, e, constant)
        return self

    def _select(self, imp: FeatureImportance, e: np.ndarray, constant: np.ndarray) -> None:
        raise NotImplementedError

    def _set_inputs(self, imp: FeatureImportance, e: np.ndarray, constant: np.ndarray) -> None:
        """The fitted attributes every filter has (besides ``selected_features_``)."""
        self.importance_ = imp.importance
        self.directions_ = imp.directions
        self.similarity_ = e
        self.constant_features_ = np.flatnonzero(constant)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # an IR importance measure needs labels >= 0
        tags.target_tags.positive_only = isinstance(self.importance, str) and self.importance != "pairwise"
        return tags

    def _get_support_mask(self):
        check_is_fitted(self, "selected_features_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_features_] = True
        return mask
