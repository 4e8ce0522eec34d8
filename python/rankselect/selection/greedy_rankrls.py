"""Greedy RankRLS (Pahikkala et al. 2010, Algorithm 1): forward feature selection by the
exact leave-query-out error of RankRLS (:mod:`rankselect.models.rankrls`), computed in the
Rust core without refitting; with feature costs, the largest improvement per unit cost.
"""
from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence
from typing import Optional, Union

import numpy as np
import numpy.typing as npt
from sklearn.utils._param_validation import Interval, StrOptions

from .. import _core
from .._base import RankerMixin, warn_if_degenerate
from .._config import memory_limit
from .._validation import MAX_INT
from ..data.grouping import TrainingData
from ..metrics.checks import CONVENTIONS, Convention
from ..models.linear import LinearPredictMixin
from ..models.rankrls import check_lqo
from ._base import GROUP_PARAMETER_CONSTRAINTS, RankingSelector
from ._plan import FitPlan

__all__ = ["GreedyRankRLS"]


def _step_printer(k: int, criterion: str):
    """The ``verbose`` progress callback of greedy RankRLS: one line per step on stderr."""

    def progress(step, feature, value):
        print(f"[GreedyRankRLS] step {step + 1}/{k}: feature {feature} ({criterion} {value:.6g})",
              file=sys.stderr, flush=True)

    return progress


def unit_arrays(members: Sequence[npt.ArrayLike]) -> tuple[np.ndarray, np.ndarray]:
    """Units (lists of columns; a feature is a unit of one) as the core takes them:
    ``(offsets, columns)`` of dtype uintp, unit ``u`` being ``columns[offsets[u]:offsets[u + 1]]``."""
    lists = [np.asarray(m, dtype=np.uintp).ravel() for m in members]
    offsets = np.concatenate([[0], np.cumsum([len(m) for m in lists])]).astype(np.uintp)
    columns = np.concatenate(lists).astype(np.uintp) if lists else np.zeros(0, dtype=np.uintp)
    return offsets, columns


def greedy_options(k: int, alpha: float, criterion: str, min_improvement: Optional[float], convention: str, *,
                   feature_costs: Optional[np.ndarray] = None, group_costs: Optional[np.ndarray] = None,
                   budget: Optional[float] = None, floating: bool = False,
                   select_groups: bool = True) -> _core.GreedyOptions:
    """The one place that builds ``_core.GreedyOptions`` (in memory and on Dask), from plain,
    already checked inputs: ``k`` steps (features, or groups with ``select_groups`` when the
    run is given groups), ``alpha``, the criterion and its convention, ``min_improvement``, the
    costs (``feature_costs`` per column, ``group_costs`` per group, ``budget``) and
    ``floating``. The groups themselves go to the run as ``(offsets, columns)`` uintp arrays
    (:func:`unit_arrays`). The memory rule is the configured one
    (``rankselect.set_config(max_memory=...)``).
    """
    return _core.GreedyOptions(int(k), float(alpha), str(criterion),
                               None if min_improvement is None else float(min_improvement), str(convention),
                               memory_limit(), feature_costs, None if budget is None else float(budget),
                               bool(floating), group_costs, bool(select_groups))


class GreedyRankRLS(RankerMixin, LinearPredictMixin, RankingSelector):
    """Greedy RankRLS: forward feature selection by exact leave-query-out error (Algorithm 1).

    At each step, the feature whose addition gives the best exact LQO criterion is added
    (ties, values within their joint rounding bound, to the lowest feature index; selected
    features are never re-selected). With ``criterion="squared"`` (the paper) the criterion
    is the sum over queries of squared query-centred hold-out residuals, lower is better. One
    step costs O(m n) time (one pass over two caches); memory is two m x n float64 arrays
    beside ``X`` and, with n <= m, two n x n matrices (wide data, n > m: three m x n arrays
    and no n x n matrix), checked before they are allocated (``MemoryError`` beyond the
    available memory or the limit set with ``rankselect.set_config(max_memory=...)``).

    The reported LQO values, and so the choices, are those of the exact criterion to 1e-8
    relative at every ``alpha`` from 1e-8 (1e-8 to 1e4 tested): where the caches' updates may
    have lost digits (small ``alpha``, nearly collinear columns, wide data), the values in doubt
    are recomputed from the definition (a refit per held-out query). ``alpha`` below 1e-8 is
    refused (``ValueError``), in every mode and on Dask: there the removals of floating search,
    degenerate queries and duplicated columns lose the digits that decide a step.

    Features constant within every query (their query-centred column is zero) cannot change
    the model: they are never selected, and the path stops as soon as only such features are
    left, so ``selected_features_`` may hold fewer than ``n_features_to_select`` features
    (``stop_reason_ == "uninformative"``). The model of every prefix is solved in the primal
    on the selected features (eq. 5), accurate for any ``alpha > 0``.

    Parameters
    ----------
    n_features_to_select : int, default=10
        Number of features k, 1 <= k <= n_features.
    alpha : float, default=1.0
        Ridge parameter (the paper's lambda), >= 1e-8 (the range in which the selection is
        proven exact; :class:`~rankselect.RankRLS` fits a smaller one).
    criterion : str, default="squared"
        ``"squared"``: the paper's LQO pairwise squared loss (lower is better). Or a ranking
        measure of :mod:`rankselect.metrics` (``"ndcg@10"``, ``"map"``, ``"p@10"``,
        ``"meanndcg"``, ``"err@10"``, ...): the mean over queries of the measure of the
        exact LQO predictions (each query scored by the model trained without it); higher
        is better and the candidate maximising it is added. Labels must be >= 0.
    convention : {"exponential", "trec", "lightgbm", "letor"}, default="exponential"
        (``"standard"``: the old name of ``"exponential"``)
        Metric convention for a ranking-measure criterion (see :mod:`rankselect.metrics`).
    min_improvement : float >= 0 or None, default=None
        Early stop: after the first feature, stop before adding a feature whose criterion
        improves on the previous step's by less than ``min_improvement * |previous|``
        (relative). The selection then has fewer than ``n_features_to_select`` features.
    verbose : bool, default=False
        Print one line per step (feature, criterion) to stderr.
    feature_costs : array-like of shape (n_features,) or None, default=None
        Cost of computing each feature (>= 0, e.g. latency). Each step then adds the
        feature of largest exact LQO improvement per unit cost
        (:mod:`rankselect.analysis.costs`; a free feature that improves comes first). Equal costs
        select as without costs.
    budget : float or None, default=None
        Stop before the total cost of the selection would exceed ``budget`` (costs default
        to 1 per feature, so the budget is then a number of features); a feature that does
        not fit is skipped for cheaper ones. ``n_features_to_select`` still caps the count.
    floating : bool, default=False
        Sequential floating forward selection (SFFS, Pudil et al. 1994) with the exact LQO
        criterion: after each addition, remove the selected feature whose removal gives the
        best criterion, as long as the smaller subset beats the best subset of that size
        seen so far by more than a relative 1e-8 (no subset is visited twice; criterion
        values within a relative 1e-8 tie, to the lowest feature index: at alpha 1e-6 the
        values themselves carry rounding of a few 1e-9). A removal is the exact rank-one downdate
        of the same caches, O(m n) like an addition. The fitted path is then **per subset
        size**: ``selected_features_`` is the best subset of size ``n_features_to_select``,
        ``lqo_scores_[s - 1]`` / ``coef_path_[s - 1]`` / ``best_subsets_[s - 1]`` the best
        criterion, its weights and its subset for size ``s``. With ``feature_groups`` (and
        ``select_groups=True``) the search adds and removes whole groups and sizes count groups.
        Not available with ``feature_costs`` / ``budget`` / ``group_costs``, ``min_improvement``
        or on Dask (ValueError).
    feature_groups : array-like of shape (n_features,), mapping, FeatureGroups or None, default=None
        Feature families (:func:`rankselect.data.check_feature_groups`; e.g.
        :func:`rankselect.data.datasets.feature_layout`). With ``select_groups=True`` each
        step adds the whole group whose addition gives the best exact LQO criterion: a group of
        ``b`` columns is scored by the rank-``b`` (Woodbury) form of the caches' update and added
        by its columns' rank-one steps, so a step costs O(b m n) and equals a forward selection
        over groups that refits RankRLS for every candidate group (a feature is a group of one:
        the same engine).
    group_costs : array-like of shape (n_groups,), mapping or None, default=None
        Each group's extraction cost, paid once when any member is selected, on top of
        ``feature_costs`` (:class:`~rankselect.data.ExtractionCosts`). Selecting features
        (``select_groups=False``), the per-cost rule uses each candidate's **marginal** cost
        (its group's cost only while no member is selected); the budget caps the total.
    select_groups : bool, default=True
        With ``feature_groups``: select whole groups (``n_features_to_select`` counts
        groups, ``lqo_scores_`` and ``coef_path_`` have one row per group step), or (False)
        features, the groups only pricing them.

    Attributes
    ----------
    selected_features_ : ndarray of shape (k,)
        Selected features in order (0-based).
    lqo_scores_ : ndarray of shape (k,)
        Criterion value after each step: the exact LQO squared error for
        ``criterion="squared"`` (lower is better), or the mean over queries of the LQO ranking
        measure for a ranking criterion (higher is better).
    coef_path_ : ndarray of shape (k, n_features)
        Row ``j``: RankRLS weights on the first ``j + 1`` selected features, zeros elsewhere.
    coef_ : ndarray of shape (n_features,)
        ``coef_path_[-1]`` (zeros when no feature was selected).
    cost_path_ : ndarray of shape (k,)
        Total cost of the first ``j + 1`` selected features, or groups when selecting whole
        groups, each touched group's cost counted once (only with ``feature_costs``,
        ``group_costs`` or ``budget``).
    selected_groups_ : ndarray of str
        With ``feature_groups``: the groups touched by ``selected_features_``, in order.
    feature_groups_ : FeatureGroups
        With ``feature_groups``: the checked groups.
    best_subsets_ : list of ndarray
        Only with ``floating=True``: the best subset of every size 1..k (each in order of
        entry into the search's subset).
    floating_steps_ : list of (feature, added, criterion)
        Only with ``floating=True``: every addition (``added`` True) and removal, in order,
        with the criterion of the subset after it (the group's name instead of the feature when
        selecting whole groups).
    stop_reason_ : {None, "min_improvement", "uninformative", "budget", "visited"}
        Why the path has fewer than ``n_features_to_select`` steps: ``None`` (it has them
        all), ``"min_improvement"`` (the ``min_improvement`` rule), ``"uninformative"``
        (every remaining feature is constant within every query) or ``"budget"`` (no
        remaining candidate fits the budget); with ``floating=True`` also ``"visited"`` (every
        addition would give a subset already visited).
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features,)
        Column names, when X was a DataFrame with string column names.

    Notes
    -----
    Training data without a preference pair or without a feature that varies inside a
    query warn with :class:`~rankselect.exceptions.DegenerateDataWarning`. Features constant
    within every query cannot change the model: they are never selected, and the path stops
    (``stop_reason_ = "uninformative"``) when only such features are left.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> sel = rs.GreedyRankRLS(n_features_to_select=3, alpha=1.0).fit(X, y, qid=qid)
    >>> sel.selected_features_
    array([ 7,  3, 11])
    >>> sel.lqo_scores_.round(2)
    array([344.55, 292.13, 251.19])
    >>> sel.transform(X).shape
    (583, 3)
    """

    selected_features_: np.ndarray
    lqo_scores_: np.ndarray
    coef_path_: np.ndarray
    coef_: np.ndarray
    best_subsets_: list
    floating_steps_: list
    cost_path_: np.ndarray
    stop_reason_: Optional[str]
    n_features_in_: int
    feature_names_in_: np.ndarray

    _parameter_constraints = {
        "n_features_to_select": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "criterion": [str],
        "convention": [StrOptions(set(CONVENTIONS))],
        "min_improvement": [Interval(numbers.Real, 0, None, closed="left"), None],
        "verbose": ["verbose"],
        "feature_costs": ["array-like", None],
        "budget": [Interval(numbers.Real, 0, None, closed="left"), None],
        "floating": ["boolean"],
        **GROUP_PARAMETER_CONSTRAINTS,
    }

    def __init__(self, n_features_to_select: int = 10, alpha: float = 1.0, criterion: str = "squared",
                 convention: Convention = "exponential", min_improvement: Optional[float] = None,
                 verbose: Union[bool, int] = False, feature_costs: Optional[npt.ArrayLike] = None,
                 budget: Optional[float] = None, floating: bool = False, feature_groups=None,
                 group_costs=None, select_groups: bool = True) -> None:
        self.n_features_to_select = n_features_to_select
        self.alpha = alpha
        self.criterion = criterion
        self.convention = convention
        self.min_improvement = min_improvement
        self.verbose = verbose
        self.feature_costs = feature_costs
        self.budget = budget
        self.floating = floating
        self.feature_groups = feature_groups
        self.group_costs = group_costs
        self.select_groups = select_groups

    def fit(self, X, y, qid=None):
        """Select features on ``X`` (m, n), labels ``y`` (m,), query ids ``qid`` (m,)."""
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, train: TrainingData):
        warn_if_degenerate(self, train.grouped)
        data = check_lqo(train.grouped, gram=False)
        # k's bound (n_features, or n_groups) is the core's check, after those of the criterion and the costs,
        # with the message of RankingSelector._n_features_to_select (the Dask subclass calls the same core)
        plan, options, units = self._greedy_run(train.n_features, train)
        r = _core.greedy_rankrls(data.X, data.y, data.offsets, options, self._progress(), groups=units)
        self._set_result(r, plan)
        return self

    def _greedy_run(self, n: int, data=None):
        """The run of this fit on ``n`` columns, checked: ``(plan, options, units)`` (the fit's
        :class:`~rankselect.selection.FitPlan`, the core's options, the groups as the core takes
        them or None). Shared with the Dask subclass."""
        if self.floating:
            self._check_floating()
        plan = FitPlan.of(self, data, n)
        k = plan.n_to_select(self.n_features_to_select) if plan.by_group else self.n_features_to_select
        priced = plan.priced or plan.budget is not None
        options = greedy_options(k, self.alpha, self.criterion, self.min_improvement, str(self.convention),
                                 feature_costs=plan.costs.feature_costs if priced else None,
                                 group_costs=plan.costs.group_costs if priced else None, budget=plan.budget,
                                 floating=bool(self.floating), select_groups=plan.by_group)
        units = None if plan.groups is None else unit_arrays(plan.groups.member_lists())
        return plan, options, units

    def _set_result(self, r, plan: FitPlan) -> None:
        """The fitted attributes from the core's result ``r`` (one row per step: a feature, or a
        whole group with ``select_groups``)."""
        n, steps = plan.n_features, np.asarray(r.selected, dtype=np.intp)
        self.selected_features_ = plan.columns(steps.tolist())
        self.lqo_scores_ = np.asarray(r.lqo_scores)
        self.coef_path_ = np.asarray(r.coef_path).reshape(len(steps), n)
        self.coef_ = self.coef_path_[-1].copy() if len(steps) else np.zeros(n)
        self.stop_reason_ = r.stop_reason
        if plan.priced or plan.budget is not None:  # the total cost after each step
            self.cost_path_ = np.array([plan.cost(plan.columns(steps[:i + 1].tolist())) for i in range(len(steps))])
        if (r.subsets is not None and r.step_features is not None and r.step_added is not None
                and r.step_values is not None):  # floating: the best subset of every size, every step
            self.best_subsets_ = [plan.columns(np.asarray(s).tolist()) for s in r.subsets]
            groups = plan.groups
            name = (lambda u: groups.names[u]) if plan.by_group and groups is not None else int
            self.floating_steps_ = [(name(int(f)), bool(a), float(v))
                                    for f, a, v in zip(r.step_features, r.step_added, r.step_values)]
        self._set_groups(plan)
        if r.stop_reason == "uninformative" and self.verbose:
            # the base layer has already warned (DegenerateDataWarning) when no feature varies
            print(f"[GreedyRankRLS] stopped after {len(steps)} of {self.n_features_to_select} steps: every "
                  "remaining candidate is constant within every query, so none can change the model",
                  file=sys.stderr, flush=True)

    def _check_floating(self) -> None:
        """``floating=True`` refuses what it does not support, with the reason."""
        if self.feature_costs is not None or self.budget is not None:
            raise ValueError("floating=True is not available with feature_costs or budget (the per-cost rule "
                             "has no floating variant); use floating=False")
        if self.min_improvement is not None:
            raise ValueError("floating=True is not available with min_improvement (floating search compares "
                             "subsets of each size, not successive steps); use min_improvement=None")
        if getattr(self, "group_costs", None) is not None:
            raise ValueError("floating=True is not available with group_costs (the per-cost rule has no "
                             "floating variant); use floating=False")

    def _progress(self):
        """The ``verbose`` progress callback (None when quiet)."""
        return _step_printer(self.n_features_to_select, self.criterion) if self.verbose else None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a ranking-measure criterion needs labels >= 0
        tags.target_tags.positive_only = self.criterion != "squared"
        return tags
