"""What recursive elimination and forward selection share: the parameters, the fit (its
:class:`~rankselect.selection.FitPlan` and its run, :class:`~rankselect.selection.wrapper.loop.LoopRun`:
the validation scheme - a validation set or query folds -, seeds, parallel fits in a fixed
order, progress lines and interruption), the candidate pool and the choice on the path."""
from __future__ import annotations

import numbers
from dataclasses import replace
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt
from sklearn.base import MetaEstimatorMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ... import metrics
from ..._validation import MAX_INT
from ...data.grouping import TrainingData
from ...metrics.checks import CONVENTIONS, Convention
from .._base import GROUP_PARAMETER_CONSTRAINTS, RankingSelector
from .._plan import FitPlan
from .adapters import make_adapter
from .loop import LoopRun
from .path import SELECTION_RULES, SelectionPath, choose_step

__all__: list[str] = []  # the base of the selectors: see rankselect.selection.wrapper


def _eval_at(scoring: str) -> Optional[int]:
    """The cutoff LightGBM's early stopping should watch for an ``ndcg@k`` scoring."""
    name, _, k = scoring.lower().partition("@")
    return int(k) if name == "ndcg" and k.isdigit() else None


class RankerLoopSelector(MetaEstimatorMixin, RankingSelector):
    """Base of :class:`~rankselect.selection.wrapper.RecursiveElimination` and
    :class:`~rankselect.selection.wrapper.ForwardSelection` (see their docstrings)."""

    estimator_: Any
    path_: SelectionPath
    selected_features_: np.ndarray
    support_: np.ndarray
    n_features_: int
    candidates_: np.ndarray
    n_features_in_: int

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "n_features_to_select": [StrOptions({"auto"}), Interval(numbers.Integral, 1, MAX_INT, closed="both"),
                                 Interval(numbers.Real, 0, 1, closed="neither")],
        "scoring": [str],
        "validation": [tuple, None],
        "cv": [Interval(numbers.Integral, 2, MAX_INT, closed="left"), HasMethods(["split"]), "array-like", None],
        "candidates": ["array-like", HasMethods(["fit"]), None],
        "n_candidates": [Interval(numbers.Integral, 1, MAX_INT, closed="both"), None],
        "selection_rule": [StrOptions(set(SELECTION_RULES))],
        "early_stopping_rounds": [Interval(numbers.Integral, 1, MAX_INT, closed="both"), None],
        "convention": [StrOptions(set(CONVENTIONS))],
        "feature_costs": ["array-like", None],
        "budget": [Interval(numbers.Real, 0, None, closed="left"), None],
        "n_jobs": [numbers.Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        **GROUP_PARAMETER_CONSTRAINTS,
    }

    def __init__(self, estimator, *, n_features_to_select: Union[str, int, float] = "auto",
                 scoring: str = "ndcg@10", validation: Optional[tuple] = None, cv: Any = None,
                 candidates: Any = None, n_candidates: Optional[int] = None, selection_rule: str = "best",
                 early_stopping_rounds: Optional[int] = 20, convention: Convention = "exponential",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 n_jobs: Optional[int] = None, random_state: Any = None, verbose: Union[bool, int] = False,
                 feature_groups: Any = None, group_costs: Any = None, select_groups: bool = True) -> None:
        self.estimator = estimator
        self.n_features_to_select = n_features_to_select
        self.scoring = scoring
        self.validation = validation
        self.cv = cv
        self.candidates = candidates
        self.n_candidates = n_candidates
        self.selection_rule = selection_rule
        self.early_stopping_rounds = early_stopping_rounds
        self.convention = convention
        self.feature_costs = feature_costs
        self.budget = budget
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.feature_groups = feature_groups
        self.group_costs = group_costs
        self.select_groups = select_groups

    # ------------------------------------------------------------------ fit

    def fit(self, X, y, qid=None):
        """Select features on ``X`` (m, n), labels ``y`` (m,), query ids ``qid`` (m,),
        scoring each subset on ``validation`` or by ``cv`` query folds."""
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, data: TrainingData):
        n = data.n_features
        adapter = make_adapter(self.estimator, self.early_stopping_rounds, _eval_at(self.scoring))
        metrics.compute(self.scoring, np.zeros(2), np.zeros(2), np.zeros(2, dtype=np.int64))  # a valid measure?
        plan = FitPlan.of(self, data, n)
        run = LoopRun(self, plan, adapter)
        self.candidates_ = self._candidate_order(data, plan)
        target = self._target(plan)
        try:
            outcome = self._run(run, target)
        except KeyboardInterrupt:
            adapter.stop.set()
            raise
        finally:
            run.cache.clear()
        self.path_ = run.recorder.path()
        by_size = replace(self.path_, n_features=self.path_.n_groups) if plan.by_group else self.path_
        step = choose_step(by_size, self.selection_rule, None if target is None else target)
        self.selected_features_ = np.asarray(self.path_.features[step], dtype=np.intp)
        self.n_features_ = int(self.selected_features_.size)
        self.support_ = np.zeros(n, dtype=bool)
        self.support_[self.selected_features_] = True
        self._set_groups(plan)
        self.estimator_ = run.fit_final(self.selected_features_)
        self._finish(outcome)
        return self

    def _run(self, run: LoopRun, target: Optional[int]) -> Any:  # the selection loop of a subclass
        raise NotImplementedError

    def _finish(self, outcome: Any) -> None:
        """The subclass's own fitted attributes, from what its ``_run`` returned."""

    def _target(self, plan: FitPlan) -> Optional[int]:
        """The number of features (groups, with ``select_groups``) to select (None:
        ``"auto"``, the path's rule decides)."""
        if self.n_features_to_select == "auto":
            return None
        if plan.by_group:
            return plan.n_to_select(self.n_features_to_select)
        return self._n_features_to_select(plan.n_features, n_available=self.candidates_.size)

    def _candidate_order(self, data: TrainingData, plan: FitPlan) -> np.ndarray:
        """The units the selection works on, best first: all the features (groups, with
        ``select_groups``), an order, or a rankselect selector's selection (fitted here when it
        is not yet)."""
        n = data.n_features
        cand = self.candidates
        if plan.by_group:
            if cand is not None or self.n_candidates is not None:
                raise ValueError("candidates and n_candidates choose features: they cannot be combined with "
                                 "feature_groups and select_groups=True (every group is a candidate)")
            return np.arange(plan.n_units, dtype=np.intp)
        if cand is None:
            order = np.arange(n)
        elif hasattr(cand, "fit"):
            try:
                check_is_fitted(cand)
                fitted = cand
            except Exception:
                fitted = clone(cand)
                if self.n_candidates is not None and "n_features_to_select" in fitted.get_params():
                    fitted.set_params(n_features_to_select=min(self.n_candidates, n))
                fitted.fit(data.X, data.y, qid=data.qid)
            if getattr(fitted, "n_features_in_", n) != n:
                raise ValueError(f"the candidates selector was fitted on {fitted.n_features_in_} features, X has {n}")
            if hasattr(fitted, "selected_features_"):
                order = np.asarray(fitted.selected_features_, dtype=np.intp)
            else:
                order = np.flatnonzero(fitted.get_support())
                if hasattr(fitted, "coef_"):  # largest |weight| first
                    order = order[np.argsort(-np.abs(np.ravel(fitted.coef_)[order]), kind="stable")]
        else:
            order = np.asarray(cand)
            if order.ndim != 1 or order.size == 0 or not np.issubdtype(order.dtype, np.integer):
                raise ValueError("candidates must be a selector or a non-empty 1-D array of feature indices")
            if (order < 0).any() or (order >= n).any():
                raise ValueError(f"candidates holds a feature outside 0 .. {n - 1}")
            if np.unique(order).size != order.size:
                raise ValueError("candidates must not repeat a feature")
        if order.size == 0:
            raise ValueError("the candidates selector selected no feature")
        if self.n_candidates is not None:
            order = order[: self.n_candidates]
        return np.asarray(order, dtype=np.intp)

    # ------------------------------------------------------------------ selector API

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True  # relevance labels
        return tags
