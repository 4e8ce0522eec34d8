"""The base of the filter selectors (GAS, NGAS, XGAS, HCAS): one contract for their inputs.

A filter selects from two inputs computed once per ``fit``: the **importance** (relevance)
of every feature used alone as a ranker and the **similarity** of every pair of features.
:class:`FilterSelector` owns what they share, in the spirit of scikit-matter's one greedy
selector base: the parameters (``n_features_to_select``, ``importance``, ``similarity``,
``absolute``, ``convention``, ``feature_costs``, ``budget``), their checks, the computation
of both inputs (or their checks when precomputed), the features constant within every
query, the degenerate-data warnings, the plan of the fit (:class:`~rankselect.selection.FitPlan`:
the units, the costs, the budget), the support mask and the tags. A subclass implements
``_select(importance, similarity, constant, plan)``, the search over the plan's units, which
returns the chosen units in order of selection and sets its own fitted attributes.

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
With ``feature_groups`` and ``select_groups=True`` the same search runs on the groups, with a
group's importance and the similarity of two groups given by ``group_importance``
(:mod:`~rankselect.selection.group_inputs`): ``"max"``, a group is worth its best member
(``W_G = max_{j in G} w_j``, with that member's direction) and two groups are as similar as
their most similar members (``E(G, H) = max_{i in G, j in H} e_ij``); ``"joint"``, a group is
measured as a whole, by its own ranker (RankRLS on its columns, scored by its exact
leave-query-out predictions), whose importance and similarity are those of one feature. A
group is constant when all its members are; with costs, a group costs its members' costs plus
its group cost. ``n_features_to_select`` counts groups; ``selected_features_`` are the members
of the selected groups, group by group, and the group-level inputs are ``group_importance_``
and ``group_similarity_``.
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
from ._plan import FitPlan, value_per_cost
from .group_inputs import GROUP_IMPORTANCES, group_inputs, joint_group_scores
from .importance import (
    SINGLE_RANKER,
    FeatureImportance,
    _feature_importance_grouped,
    _single_ranker_grouped,
    parse_measure,
)
from .similarity import SIMILARITIES, VARIANTS, _check_similarity_memory, _similarity_grouped, _spearman

__all__ = ["FilterSelector", "FilterData", "cost_ratio", "best_of", "current_costs", "group_inputs"]


def cost_ratio(w: np.ndarray, costs: Optional[np.ndarray]) -> np.ndarray:
    """The value of each feature in a comparison of relevance: ``w`` itself without costs;
    with costs the value per unit cost with GAS's convention
    (:func:`~rankselect.selection.value_per_cost`, ``"scaled"``): ``w / cost`` for ``w > 0``
    (a free feature worth infinity), ``w * cost`` for ``w <= 0`` (a higher cost never helps).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.filter_base import cost_ratio
    >>> cost_ratio(np.array([0.6, 0.2, -0.1]), np.array([2.0, 0.0, 3.0]))
    array([ 0.3,  inf, -0.3])
    """
    if costs is None:
        return w
    return value_per_cost(w, costs, "scaled")


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


class _Scores:
    """The groups' own scores (``group_importance="joint"``) as the data of the importance and
    similarity hooks: one column per group."""

    def __init__(self, grouped: GroupedData) -> None:
        self.grouped = grouped

    @property
    def n_features(self) -> int:
        return int(self.grouped.X.shape[1])


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
        "group_importance": [StrOptions(set(GROUP_IMPORTANCES))],
        **GROUP_PARAMETER_CONSTRAINTS,
    }

    #: the value rule's convention for a penalised importance <= 0 (:func:`value_per_cost`)
    _nonpositive = "scaled"

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
        """The skeleton of every filter (class docstring): the plan, the inputs, the search
        over the plan's units (features or groups)."""
        plan = FitPlan.of(self, data, data.n_features)
        plan.n_to_select(self.n_features_to_select)  # a count of the units
        has_pair, constant = self._facts(data)
        imp = self._importance_of(data, has_pair)
        e = self._similarity_of(data, imp.directions)
        self._set_inputs(imp, e, constant)
        if not plan.by_group:
            self.selected_features_ = np.asarray(self._select(imp, e, constant, plan), dtype=np.intp)
        else:  # the same search over the groups
            g_imp, g_sim = self._group_inputs(data, plan, imp, e, constant, has_pair)
            chosen = self._select(g_imp, g_sim, plan.unit_constant(constant), plan)
            self.group_importance_, self.group_similarity_ = g_imp.importance, g_sim
            self.selected_features_ = plan.columns(chosen)
        self._set_groups(plan)
        return self

    def _group_inputs(self, data, plan: FitPlan, imp: FeatureImportance, e: np.ndarray, constant: np.ndarray,
                      has_pair: bool) -> tuple[FeatureImportance, np.ndarray]:
        """The importance and similarity of the groups (``group_importance``,
        :mod:`~rankselect.selection.group_inputs`)."""
        if self.group_importance == "max":
            w, s, _, best = group_inputs(imp.importance, e, constant, plan.units)
            return FeatureImportance(w, imp.directions[best]), s
        if not (isinstance(self.importance, str) and isinstance(self.similarity, str)):
            raise ValueError("group_importance='joint' measures each group's own ranker: importance and "
                             "similarity must be names (a measure, a similarity variant), not precomputed "
                             "per-feature arrays; pass group_importance='max' with those")
        scores = _Scores(self._group_scores(data, plan))
        g_imp = self._importance_of(scores, has_pair)
        return g_imp, self._similarity_of(scores, g_imp.directions)

    def _group_scores(self, data, plan: FitPlan) -> GroupedData:
        """Each group's own ranker's leave-query-out score as a column (a backend overrides)."""
        return joint_group_scores(data.grouped, plan.units)

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

    def _select(self, imp: FeatureImportance, e: np.ndarray, constant: np.ndarray, plan: FitPlan) -> np.ndarray:
        """The search over the plan's units (``imp``, ``e`` and ``constant`` are the units'):
        the chosen units in order of selection; sets the subclass's own fitted attributes."""
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
