"""GAS: greedy search algorithm of feature selection (Geng et al. 2007, Fig. 1).

Problem (2) of the paper: choose ``t`` features maximising
``sum_i w_i x_i - c sum_i sum_{j != i} e_ij x_i x_j``, with ``w`` the importance of each
feature alone (Section 2.2, :func:`rankselect.feature_importance`) and ``e`` the Kendall
similarity of the rankings two features produce (Section 2.3,
:func:`rankselect.kendall_similarity`). The greedy algorithm (Fig. 1) repeats ``t``
times: select the remaining feature ``k`` of largest current weight (ties go to the lowest
index), then penalise every remaining feature ``j``: ``w_j <- w_j - 2 c e(k, j)``.

Feature directions and the similarity sign
------------------------------------------
The paper's similarity is signed Kendall's tau on the raw values. Because importance lets a
feature rank by ``-x`` when that is better, a feature and its negation would be (under the
raw signed tau) maximally *dissimilar* (``geng`` 0, ``tau_b`` -1) although they produce the
same ranking read backwards, and GAS would happily select both. rankselect therefore
computes the similarity between the features **as they are used**: each feature multiplied
by its direction (``directions_``). For features whose best direction is ascending (e.g. all
of LETOR's query-normalised features that correlate positively with relevance) this is the
paper's signed tau. ``absolute=True`` ignores the sign altogether (``|tau_b|``, or for
``geng`` the closer of a feature and its negation), default False.

Constant features
-----------------
A feature that is constant within every query orders no pair, so its similarity to every
feature is 0 and it is never penalised; its importance is that of a worst-case tie break
(pessimistic ties for IR measures, 0.5 for ``"pairwise"``). Fig. 1 taken literally would
therefore pick such features once ``c`` has penalised the others enough (e.g. MQ2008's
all-zero features 6-10 with ``importance="map"``, ``c=0.1``, after four informative ones).
``GAS`` selects them only after every other feature (``constant_features_`` lists them);
:func:`gas_greedy` without ``last=`` is the literal Fig. 1.
"""
from __future__ import annotations

import numbers
from typing import Literal, Optional, Union

import numpy as np
import numpy.typing as npt
from sklearn.utils._param_validation import Interval

from .._validation import fits_budget
from ..data.feature_groups import ExtractionCosts
from ..metrics.checks import Convention
from .filter_base import FilterSelector, cost_ratio, current_costs
from .importance import FeatureImportance

__all__ = ["GAS", "gas_greedy"]


def gas_greedy(importance, similarity, n_features_to_select: int, c: float, last=None, costs=None, budget=None):
    """The greedy search of Fig. 1 on a precomputed importance vector and similarity matrix.

    Parameters
    ----------
    importance : array-like of shape (n_features,)
    similarity : array-like of shape (n_features, n_features)
        Symmetric; only ``similarity[k, j]`` for selected ``k`` is read.
    n_features_to_select : int
    c : float >= 0
    last : array-like of bool, shape (n_features,), optional
        Features taken only after every other one (e.g. features constant within every
        query, which cannot order any documents).
    costs : array-like of shape (n_features,), optional
        Feature costs (>= 0): each step takes the largest ``w_j / cost_j`` (a free feature
        with ``w_j > 0`` first; a negative penalised weight counts as ``w_j * cost_j``, so
        a higher cost never helps; ties: larger ``w_j``, then the lowest index).
    budget : float, optional
        Only features whose cost fits in what is left of the budget are candidates; the
        selection stops early when none fits.

    Returns
    -------
    selected : ndarray of shape (n_features_to_select,)
        Feature indices in order of selection.
    weights : ndarray of shape (n_features_to_select,)
        The current (penalised) weight of each feature when it was selected.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection import gas_greedy
    >>> importance = np.array([0.9, 0.85, 0.5])
    >>> similarity = np.array([[1., .9, 0.], [.9, 1., 0.], [0., 0., 1.]])
    >>> selected, weights = gas_greedy(importance, similarity, n_features_to_select=2, c=0.5)
    >>> selected, weights.round(2)  # feature 1, a near-copy of feature 0, is passed over
    (array([0, 2]), array([0.9, 0.5]))
    """
    w = np.array(importance, dtype=np.float64)
    if costs is not None or budget is not None:
        costs = np.ones(w.shape[0]) if costs is None else \
            costs if isinstance(costs, ExtractionCosts) else np.asarray(costs, dtype=np.float64)
    e = np.asarray(similarity, dtype=np.float64)
    if w.ndim != 1 or e.shape != (w.shape[0], w.shape[0]):
        raise ValueError(f"importance must have shape (n,) and similarity (n, n), got {w.shape} and {e.shape}")
    # argmax would pick a NaN first: never select by NaN.
    for name, v in (("importance", w), ("similarity", e)):
        if not np.isfinite(v).all():
            bad = np.argwhere(~np.isfinite(v))[0]
            raise ValueError(f"{name} must be finite; entry {tuple(int(i) for i in bad)} is {v[tuple(bad)]}")
    available = np.ones(w.shape[0], dtype=bool)
    last = np.zeros(w.shape[0], dtype=bool) if last is None else np.asarray(last, dtype=bool)
    selected = np.empty(n_features_to_select, dtype=np.intp)
    weights = np.empty(n_features_to_select, dtype=np.float64)
    spent = 0.0
    for step in range(n_features_to_select):
        now = current_costs(costs, selected[:step])  # with group costs: this step's marginal costs
        affordable = available
        if budget is not None:
            assert now is not None  # a budget alone gives unit costs
            affordable = available & fits_budget(spent + now, budget)
            if not (affordable & ~last).any():
                # what is left of the budget buys only features constant in every query
                # (no ranking information): stop rather than spend it on them
                return selected[:step], weights[:step]
        pool = affordable & ~last if (affordable & ~last).any() else affordable
        if now is None:
            current = np.where(pool, w, -np.inf)
            k = int(np.argmax(current))  # first maximum: ties go to the lowest index
        else:
            ratio = np.array(cost_ratio(w, now), dtype=np.float64)
            ratio[~pool] = -np.inf
            top = pool & (ratio == ratio[pool].max())
            k = int(np.argmax(np.where(top, w, -np.inf)))  # larger weight, then the lowest index
            spent += now[k]
        selected[step] = k
        weights[step] = w[k]
        available[k] = False
        w -= 2.0 * c * e[k]
    return selected, weights


class GAS(FilterSelector):
    """GAS filter feature selection for ranking (Geng et al. 2007).

    Parameters
    ----------
    n_features_to_select : int, default=10
        Number ``t`` of features to select (positional: ``GAS(10, 0.1)``).
    c : float, default=0.1
        Trade-off between importance and redundancy in problem (2) of the paper (>= 0;
        ``c = 0`` ranks by importance alone). Tune it on validation data; a precomputed
        ``importance`` and ``similarity`` make a sweep over ``c`` and ``t`` cheap.
    importance : str or array-like or FeatureImportance, default="map"
        A measure of :func:`rankselect.feature_importance` (``"map"``, ``"ndcg@k"``,
        ``"ndcg"``, ``"p@k"``: GAS-E; ``"pairwise"``: GAS-L), ``"lambdamart"`` (FSA's
        single-ranker relevance; needs LightGBM), or precomputed scores:
        a :class:`FeatureImportance` (importance and directions), or an array of shape
        (n_features,) (directions are then taken as +1).
    similarity : {"geng", "tau_b", "spearman"} or array-like of shape (n_features, n_features), default="geng"
        Kendall variant of :func:`rankselect.kendall_similarity`, computed on the
        direction-adjusted features (see the module docstring), ``"spearman"`` (``|Spearman|``
        over all rows, :func:`rankselect.spearman_similarity`), or a precomputed symmetric
        matrix, used as given.
    absolute : bool, default=False
        Ignore the sign of the similarity (``|tau|``); only for a computed similarity.
    convention : str, default="exponential"
        Metric conventions for a GAS-E importance (:mod:`rankselect.metrics`).
    feature_costs : array-like of shape (n_features,) or None
        Feature costs (>= 0): the greedy takes the largest penalised importance per cost
        (:mod:`rankselect.analysis.costs`); equal costs select as without costs.
    budget : float or None
        Stop before the total cost would exceed it (costs default to 1 per feature).
    feature_groups, group_costs, select_groups : feature families
        (:mod:`rankselect.selection.filter_base`): with ``select_groups=True`` the search runs
        over whole groups (``n_features_to_select`` counts groups), a group costing its members'
        costs plus its ``group_costs``.
    group_importance : {"max", "joint"}, default="max"
        A group's importance and similarity (:mod:`rankselect.selection.group_inputs`): its best
        member's (``"max"``) or its own ranker's, measured as a whole (``"joint"``: RankRLS on
        the group's columns, scored by its leave-query-out predictions).

    Attributes
    ----------
    selected_features_ : ndarray of shape (n_features_to_select,)
        Selected feature indices (0-based), in order of selection.
    selection_weights_ : ndarray of shape (n_features_to_select,)
        Penalised weight ``w_k - 2c sum_{selected i} e(i, k)`` of each selected feature when
        it was selected.
    importance_ : ndarray of shape (n_features,)
    directions_ : ndarray of shape (n_features,)
        +1 if the feature ranks best by its values, -1 by their negation.
    similarity_ : ndarray of shape (n_features, n_features)
    constant_features_ : ndarray of int
        Features constant within every training query; selected only after all others.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
        Column names, when X was a DataFrame with string column names.

    Notes
    -----
    Training data without a preference pair or without a feature that varies inside a
    query warn with :class:`~rankselect.exceptions.DegenerateDataWarning` (the importances
    then tie and the selection follows the feature order).

    Examples
    --------
    >>> gas = GAS(n_features_to_select=5, c=0.1).fit(X, y, qid=qid)  # doctest: +SKIP
    >>> X_small = gas.transform(X)  # doctest: +SKIP
    """

    selected_features_: np.ndarray
    selection_weights_: np.ndarray
    importance_: np.ndarray
    directions_: np.ndarray
    similarity_: np.ndarray
    constant_features_: np.ndarray
    n_features_in_: int
    feature_names_in_: np.ndarray

    _parameter_constraints = {
        **FilterSelector._parameter_constraints,
        "c": [Interval(numbers.Real, 0, None, closed="left")],
    }

    def __init__(self, n_features_to_select: int = 10, c: float = 0.1, *,
                 importance: Union[str, FeatureImportance, npt.ArrayLike] = "map",
                 similarity: Union[Literal["geng", "tau_b", "spearman"], npt.ArrayLike] = "geng",
                 absolute: bool = False,
                 convention: Convention = "exponential",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 feature_groups=None, group_costs=None, select_groups: bool = True,
                 group_importance: Literal["joint", "max"] = "max") -> None:
        self.n_features_to_select = n_features_to_select
        self.c = c
        self.importance = importance
        self.similarity = similarity
        self.absolute = absolute
        self.convention = convention
        self.feature_costs = feature_costs
        self.budget = budget
        self.feature_groups = feature_groups
        self.group_costs = group_costs
        self.select_groups = select_groups
        self.group_importance = group_importance

    def _select(self, imp: FeatureImportance, e: np.ndarray, constant: np.ndarray, plan) -> np.ndarray:
        """The greedy search (:func:`gas_greedy`, with the plan's costs and budget) on the
        importance, the similarity and the units constant within every query; sets
        ``selection_weights_``."""
        selected, weights = gas_greedy(imp.importance, e, int(self.n_features_to_select), float(self.c),
                                       last=constant, costs=plan.step_costs(), budget=plan.budget)
        self.selection_weights_ = weights
        return selected
