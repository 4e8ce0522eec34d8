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

Feature families
----------------
With ``feature_groups`` and ``select_groups=True`` the same search runs on the groups
(:func:`group_inputs`): a group's importance is its best member's (``W_G = max_{j in G} w_j``,
with that member's direction: a family is worth what the best ranker it offers is worth),
and the similarity of two groups is the largest similarity between their members
(``E(G, H) = max_{i in G, j in H} e_ij``: two families are redundant as soon as one of them
can stand in for a member of the other). A group is constant when all its members are;
with costs, a group costs its members' costs plus its group cost. ``n_features_to_select``
counts groups; ``selected_features_`` are the members of the selected groups, group by group,
and the group-level inputs are ``group_importance_`` and ``group_similarity_``.
"""
from __future__ import annotations

import numbers
from typing import Optional, Protocol

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._base import warn_if_degenerate
from .._validation import MAX_INT, check_similarity, shown
from ..data.feature_groups import ExtractionCosts
from ..data.grouping import GroupedData
from ..metrics.checks import CONVENTIONS
from ._base import GROUP_PARAMETER_CONSTRAINTS, RankingSelector
from .importance import (
    SINGLE_RANKER,
    FeatureImportance,
    _feature_importance_grouped,
    _single_ranker_grouped,
    parse_measure,
)
from .similarity import SIMILARITIES, VARIANTS, _check_similarity_memory, _similarity_grouped, _spearman

__all__ = ["FilterSelector", "FilterData", "cost_ratio", "best_of", "current_costs", "group_inputs"]


def group_inputs(importance: np.ndarray, similarity: np.ndarray, constant: np.ndarray,
                 members: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The filters' inputs over groups (module docstring): ``W_G = max_{j in G} w_j``,
    ``E(G, H) = max_{i in G, j in H} e_ij`` (``E(G, G) = 1``), a group constant when all its
    members are, and the best member of each group (whose direction the group takes).

    Parameters
    ----------
    importance : ndarray of shape (n_features,)
    similarity : ndarray of shape (n_features, n_features)
    constant : ndarray of bool, shape (n_features,)
    members : list of n_groups arrays of feature indices

    Returns
    -------
    group_importance : ndarray of shape (n_groups,)
    group_similarity : ndarray of shape (n_groups, n_groups)
    group_constant : ndarray of bool, shape (n_groups,)
    best_member : ndarray of int, shape (n_groups,)

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.filter_base import group_inputs
    >>> e = np.array([[1., .2, .7], [.2, 1., .1], [.7, .1, 1.]])
    >>> w, s, c, best = group_inputs(np.array([.3, .5, .4]), e, np.zeros(3, bool), [np.array([0, 1]), np.array([2])])
    >>> w, s, best
    (array([0.5, 0.4]), array([[1. , 0.7],
           [0.7, 1. ]]), array([1, 2]))
    """
    k = len(members)
    best = np.array([m[np.argmax(importance[m])] for m in members], dtype=np.intp)
    w = importance[best].astype(np.float64)
    s = np.ones((k, k))
    for a in range(k):
        for b in range(a + 1, k):
            s[a, b] = s[b, a] = similarity[np.ix_(members[a], members[b])].max()
    return w, s, np.array([constant[m].all() for m in members]), best


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


def current_costs(costs, selected) -> Optional[np.ndarray]:
    """The costs a step compares: fixed feature costs as they are; with shared group costs
    (an :class:`~rankselect.data.ExtractionCosts`) each feature's marginal cost given
    ``selected`` (its group's extraction cost while no member of the group is selected).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import ExtractionCosts, check_feature_groups
    >>> from rankselect.selection.filter_base import current_costs
    >>> g = check_feature_groups(["a", "a", "b"], n_features=3)
    >>> current_costs(ExtractionCosts(np.ones(3), g, np.array([2.0, 5.0])), selected=[0])
    array([1., 1., 6.])
    """
    if isinstance(costs, ExtractionCosts):
        return costs.marginal(list(selected))
    return costs


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


class FilterData(Protocol):
    """What the filter skeleton reads of one fit's data: its width. The hooks read the rest:
    in memory a :class:`~rankselect.data.grouping.TrainingData`, on Dask the query shards.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> data = rs.GAS(3)._fit_data(X, y, qid)  # in memory: validated and grouped once
    >>> type(data).__name__, data.n_features
    ('TrainingData', 22)
    """

    @property
    def n_features(self) -> int: ...


class FilterSelector(RankingSelector):
    """Base of the filter selectors (module docstring). Not used directly.

    ``fit`` is written once: the data of the fit (``_fit_data``), the bound of
    ``n_features_to_select``, the degenerate-data facts (``_facts``), the importance (a
    measure computed by the hook ``_importance``, or given; ``"pairwise"`` without a
    preference pair is the tie value 1/2 for every feature), the similarity (a variant
    computed by the hook ``_similarity``, or given), then the subclass's ``_select``. A
    backend (:class:`rankselect.dask.GAS`) overrides only the hooks.

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
        **GROUP_PARAMETER_CONSTRAINTS,
    }

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
        return self._fit(self._fit_data(X, y, qid))

    def _fit(self, data: FilterData):
        """The skeleton of every filter (class docstring)."""
        n = data.n_features
        groups = self._feature_groups(n)
        if self._selects_groups():
            assert groups is not None
            self._n_groups_to_select(groups)
        else:
            self._n_features_to_select(n)
        self._unit_costs: Optional[tuple] = None
        has_pair, constant = self._facts(data)
        imp = self._importance_of(data, has_pair)
        e = self._similarity_of(data, imp.directions)
        if not self._selects_groups():
            self._select(imp, e, constant)
            self._set_selected_groups(groups)
            return self
        assert groups is not None
        members = groups.member_lists()
        w, s, const_g, best = group_inputs(imp.importance, e, constant, members)
        costs, budget = self._extraction_costs(n)
        if costs is not None:
            self._unit_costs = (np.array([costs.group_total(g) for g in range(groups.n_groups)]), budget)
        self._select(FeatureImportance(w, imp.directions[best]), s, const_g)  # the search over groups
        chosen = np.asarray(self.selected_features_)
        self._set_inputs(imp, e, constant)
        self.group_importance_, self.group_similarity_ = w, s
        self.selected_features_ = (np.concatenate([members[g] for g in chosen]) if chosen.size
                                   else np.zeros(0, dtype=np.intp))
        self._set_selected_groups(groups)
        return self

    def _importance_of(self, data: FilterData, has_pair: bool) -> FeatureImportance:
        """The importance: the measure ``importance`` names (the hook :meth:`_importance`),
        or the one given."""
        imp, n = self.importance, data.n_features
        if isinstance(imp, str):
            if not has_pair and imp.strip().lower() != SINGLE_RANKER and parse_measure(imp)[0] == "pairwise":
                # no pair to order: every feature's pairwise accuracy is the tie value 1/2
                return FeatureImportance(np.full(n, 0.5), np.ones(n, dtype=np.int64))
            return self._importance(data, imp)
        return self._given_importance(n)

    def _similarity_of(self, data: FilterData, directions: np.ndarray) -> np.ndarray:
        """The similarity: the variant ``similarity`` names (the hook :meth:`_similarity`), or
        the matrix given."""
        sim = self.similarity
        if isinstance(sim, str):
            if sim not in SIMILARITIES:
                raise ValueError(
                    f"similarity must be one of {SIMILARITIES} or an (n_features, n_features) array, got {shown(sim)}")
            return self._similarity(data, sim, directions)
        return check_similarity(sim, data.n_features)

    # -- the hooks of the in-memory data (a backend overrides these four) -------------------

    def _fit_data(self, X, y, qid) -> FilterData:
        """The data of one ``fit``: validated and grouped once (a :class:`TrainingData`)."""
        return self._validate_training_data(X, y, qid)

    def _facts(self, data) -> tuple[bool, np.ndarray]:
        """``(has_pair, constant)``: a preference pair exists; the features constant within
        every query. Warns (:class:`~rankselect.exceptions.DegenerateDataWarning`) for data
        without a pair or an informative feature."""
        grouped: GroupedData = data.grouped
        has_pair, _ = warn_if_degenerate(self, grouped, stacklevel=5)  # user -> fit -> _fit -> _facts
        return has_pair, grouped.constant_within_queries()

    def _importance(self, data, measure: str) -> FeatureImportance:
        """The importance by ``measure`` (a measure name or ``"lambdamart"``)."""
        grouped: GroupedData = data.grouped
        if measure.strip().lower() == SINGLE_RANKER:
            return _single_ranker_grouped(grouped, convention=self.convention)
        kind, k = parse_measure(measure)
        return _feature_importance_grouped(grouped, kind, k, self.convention)

    def _similarity(self, data, variant: str, directions: np.ndarray) -> np.ndarray:
        """The similarity ``variant`` of the features as they are used (times ``directions``)."""
        grouped: GroupedData = data.grouped
        m, n = grouped.X.shape
        if variant == "spearman":
            return _spearman(grouped.X)  # absolute: the directions do not matter
        if grouped.groups.sizes.max() < 2:
            # one document per query (degenerate data, warned about): no pair to compare
            return np.zeros((n, n))
        _check_similarity_memory(m, n)
        # each feature as it is used (times its direction), rows already grouped
        assert variant in VARIANTS
        return _similarity_grouped(grouped.X * directions, grouped.offsets, variant, bool(self.absolute))

    # -- the rest ----------------------------------------------------------------------------

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

    def _filter_costs(self, n: int) -> tuple[Optional[np.ndarray], Optional[float]]:
        """``(costs, budget)`` checked (:meth:`RankingSelector._costs_and_budget`); costs
        ``None`` without a budget and with equal costs (the plain rule, exactly)."""
        unit = getattr(self, "_unit_costs", None)
        if unit is not None:
            costs, budget = unit
        elif getattr(self, "group_costs", None) is not None and not self._selects_groups():
            # shared group costs at feature level: each step compares the marginal costs
            return self._extraction_costs(n)  # type: ignore[return-value]
        else:
            costs, budget = self._costs_and_budget(n)
        if costs is not None and budget is None and np.all(costs == costs[0]):
            costs = None
        return costs, budget

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
