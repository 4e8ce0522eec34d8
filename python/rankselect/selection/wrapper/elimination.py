"""Recursive elimination for any ranker: fit, rank the features by importance on the
validation queries, drop the least important, repeat."""
from __future__ import annotations

import numbers
from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt
from sklearn.utils._param_validation import Interval, StrOptions

from ..._validation import MAX_INT
from ...analysis.inspection import permutation_importance
from ...metrics.checks import Convention
from .base import RankerLoopSelector
from .loop import LoopRun

__all__ = ["RecursiveElimination", "IMPORTANCES"]

#: the importance measures of one round (see :class:`RecursiveElimination`)
IMPORTANCES = ("permutation", "refit", "native")


class RecursiveElimination(RankerLoopSelector):
    """Recursive feature elimination with the ranker you deploy in the loop.

    Starting from all features (or the top ``n_candidates`` of ``candidates``: a rankselect
    selector's order, e.g. greedy RankRLS, proposes; the ranker decides), each round fits
    ``estimator`` on the current subset (early-stopped on the validation queries for
    LightGBM, XGBoost and CatBoost), scores it on the validation queries, measures each
    feature's importance and removes the ``step`` least important features. Every subset
    scored is a step of :attr:`path_`; the selection is the subset of size
    ``n_features_to_select``, or, with ``"auto"``, the step chosen by ``selection_rule``.

    Parameters
    ----------
    estimator : unfitted ranker
        ``lightgbm.LGBMRanker``, ``xgboost.XGBRanker``, ``catboost.CatBoostRanker``, a
        rankselect ranker, or any scikit-learn-compatible ranker whose ``fit`` takes
        ``qid=``, ``group=`` (query sizes) or ``group_id=`` (else ``TypeError``). Rows are
        grouped by query (stably) before it sees them.
    n_features_to_select : "auto", int or float in (0, 1), default="auto"
        Stop at this many features (a float: that fraction of the features) and select
        them; ``"auto"``: eliminate down to one feature and select by ``selection_rule``.
    step : int >= 1 or float in (0, 1), default=1
        Features removed per round: a count, or a fraction of the current subset (at least 1).
    importance : {"permutation", "refit", "native"}, default="permutation"
        ``"permutation"``: the drop of ``scoring`` when the feature is shuffled within each
        validation query (:func:`rankselect.analysis.inspection.permutation_importance`,
        ``n_repeats`` shuffles); ``"refit"``: the loss of ``scoring`` when the ranker is
        refitted without the feature (one fit per feature and round: for small candidate
        sets); ``"native"``: the ranker's own importance (LightGBM's gain,
        ``feature_importances_``, or ``|coef_|``).
    n_repeats : int, default=3
        Shuffles per feature of the permutation importance.
    scoring : str, default="ndcg@10"
        A measure of :func:`rankselect.metrics.compute` (``"map"``, ``"ndcg@5"``, ...).
    validation : tuple (X_vali, y_vali, qid_vali), optional
        Validation queries that score every subset (and early-stop the ranker).
    cv : int, splitter or list of (train, test) row-index pairs, optional
        Without ``validation``: query folds (``GroupKFold(cv)`` by query; default 3); each
        subset is scored on the held-out queries of every fold. A group splitter
        (``GroupKFold``, ``GroupShuffleSplit``, ...) gets ``groups=qid``; a row splitter
        (``KFold``, ``ShuffleSplit``) is refused, and index pairs that put a query on both
        sides are a ValueError (:func:`rankselect.data.splits.query_splits`).
    candidates : rankselect selector (fitted or not) or array of feature indices, optional
        Start from the top ``n_candidates`` features of this order instead of all.
        An unfitted selector is fitted on the training data (with
        ``n_features_to_select=n_candidates`` when it has that parameter).
    n_candidates : int, optional
        How many of ``candidates`` to start from (default all of them).
    selection_rule : {"best", "one-standard-error"}, default="best"
        With ``n_features_to_select="auto"``: the best validation score, or the smallest
        subset within one standard error (over queries) of the best.
    early_stopping_rounds : int or None, default=20
        Early stopping on the validation queries (LightGBM, XGBoost, CatBoost).
    convention : {"exponential", "trec", "lightgbm", "letor"}
        Metric convention of ``scoring``.
    feature_costs : array-like of shape (n_features,), optional
        Cost of each feature (>= 0): each round then removes the features of least
        importance per unit cost (:func:`~rankselect.selection.value_per_cost` with the
        convention ``"zero"``: an importance below 0 counts as 0, then by importance; free
        features of positive importance go last).
    budget : float, optional
        Only subsets whose total cost is within the budget may be selected (costs default
        to 1 per feature).
    n_jobs : int, optional
        Threads for the refits of one round (``importance="refit"``); the folds of ``cv``
        run one after the other. Results are the same for any ``n_jobs``.
    random_state : int, optional
        Seeds the rankers (``random_state`` / ``random_seed`` when unset) and the shuffles.
    verbose : bool, default=False
        One line per step on stderr.
    feature_groups : label per feature, mapping ``{group: [columns]}`` or FeatureGroups, optional
        Feature families (e.g. :func:`rankselect.data.datasets.feature_layout`). With
        ``select_groups=True`` whole groups are eliminated: a group's importance is the drop of
        ``scoring`` when all its columns are permuted **jointly** within each validation query
        (``"permutation"``), the loss when the ranker is refitted without the group
        (``"refit"``), or the sum of its columns' native importances; ``step`` and
        ``n_features_to_select`` count groups; ``candidates`` cannot be combined with it.
    group_costs : array-like of shape (n_groups,) or mapping ``{group: cost}``, optional
        Each group's extraction cost, paid once while any of its columns is kept, on top of
        ``feature_costs`` (:class:`~rankselect.data.ExtractionCosts`); with costs, a round
        removes the units of least importance per unit of cost they save.
    select_groups : bool, default=True
        With ``feature_groups``: eliminate whole groups (False: features, the groups only
        price them).

    Attributes
    ----------
    selected_features_ : ndarray of int, shape (k,)
        The selected features, most important first (the order of the last round's
        ranking; features removed later ranked higher).
    support_ : ndarray of bool, shape (n_features,)
    n_features_ : int
        *k*, the number of selected features.
    path_ : :class:`~rankselect.selection.wrapper.SelectionPath`
        Every subset scored: size, validation score with its standard error and interval,
        features removed, wall time, cost.
    ranking_ : ndarray of shape (n_features,)
        1 for selected features, then the round a feature was removed counted backwards
        (2 = removed last), as scikit-learn's RFE; candidates never considered get the
        largest rank.
    candidates_ : ndarray
        The features the elimination started from (the groups' numbers with
        ``select_groups``).
    selected_groups_ : ndarray of str
        With ``feature_groups``: the names of the selected groups (the path's steps are then
        whole groups: :attr:`SelectionPath.groups` names them).
    estimator_ : fitted ranker
        ``estimator`` refitted on the selected features.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> X_vali, y_vali, qid_vali = rs.data.datasets.load_example("vali")
    >>> sel = rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=3, step=0.5,
    ...                               validation=(X_vali, y_vali, qid_vali), random_state=0)
    >>> sel = sel.fit(X, y, qid=qid)
    >>> sel.selected_features_
    array([ 3,  7, 11])
    >>> sel.path_.n_features  # half of the features removed per round
    array([22, 11,  6,  3])
    >>> sel.transform(X).shape
    (583, 3)
    """

    ranking_: np.ndarray

    _parameter_constraints: dict = {
        **RankerLoopSelector._parameter_constraints,
        "step": [Interval(numbers.Integral, 1, MAX_INT, closed="both"), Interval(numbers.Real, 0, 1, closed="neither")],
        "importance": [StrOptions(set(IMPORTANCES))],
        "n_repeats": [Interval(numbers.Integral, 1, MAX_INT, closed="both")],
    }

    def __init__(self, estimator, *, n_features_to_select: Union[str, int, float] = "auto",
                 step: Union[int, float] = 1, importance: str = "permutation", n_repeats: int = 3,
                 scoring: str = "ndcg@10", validation: Optional[tuple] = None, cv: Any = None,
                 candidates: Any = None, n_candidates: Optional[int] = None, selection_rule: str = "best",
                 early_stopping_rounds: Optional[int] = 20, convention: Convention = "exponential",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 n_jobs: Optional[int] = None, random_state: Any = None, verbose: Union[bool, int] = False,
                 feature_groups: Any = None, group_costs: Any = None, select_groups: bool = True) -> None:
        super().__init__(estimator, n_features_to_select=n_features_to_select, scoring=scoring,
                         validation=validation, cv=cv, candidates=candidates, n_candidates=n_candidates,
                         selection_rule=selection_rule, early_stopping_rounds=early_stopping_rounds,
                         convention=convention, feature_costs=feature_costs, budget=budget, n_jobs=n_jobs,
                         random_state=random_state, verbose=verbose, feature_groups=feature_groups,
                         group_costs=group_costs, select_groups=select_groups)
        self.step = step
        self.importance = importance
        self.n_repeats = n_repeats

    def _n_drop(self, size: int, floor: int) -> int:
        step = self.step
        count = int(step) if isinstance(step, numbers.Integral) else max(1, int(np.floor(float(step) * size)))
        return max(0, min(count, size - floor))

    def _importances(self, run: LoopRun, units: np.ndarray, per_query: np.ndarray, models: list,
                     round_: int) -> np.ndarray:
        """Importance of each unit of ``units`` (a feature, or a group with ``select_groups``;
        higher: keep), averaged over the splits weighted by their validation queries. A group's
        permutation importance permutes its columns jointly within each query; its native
        importance is the sum of its columns'."""
        plan = run.plan
        cols = plan.columns(units)
        if self.importance == "refit":
            others = [np.delete(units, a) for a in range(units.size)]
            base = float(per_query.mean())
            return np.array([base - float(pq.mean()) for pq in run.map(run.evaluate_units, others)])
        local = np.repeat(np.arange(units.size), [plan.units[u].size for u in units])  # unit of each column
        weights, values = [], []
        rng = run.round_rng(round_)
        for (_, vali), model in zip(run.splits, models):
            v = vali.columns(cols)
            if self.importance == "native":
                values.append(np.bincount(local, weights=run.adapter.native_importance(model, cols.size),
                                          minlength=units.size) if plan.by_group
                              else run.adapter.native_importance(model, cols.size))
            else:
                values.append(permutation_importance(model, v.X, v.y, v.qid, scoring=self.scoring,
                                                     n_repeats=self.n_repeats, random_state=rng,
                                                     convention=self.convention,
                                                     feature_groups=local if plan.by_group else None
                                                     ).importances_mean)
            weights.append(v.sizes.size)
        return np.average(np.vstack(values), axis=0, weights=weights)

    def _run(self, run: LoopRun, target: Optional[int]) -> np.ndarray:
        plan = run.plan
        units = self.candidates_.copy()  # features, or groups with select_groups
        floor = 1 if target is None else target
        removed_round = np.full(plan.n_features, -1)
        removed: np.ndarray = np.zeros(0, dtype=np.intp)
        round_ = 0
        while True:
            cols = plan.columns(units)
            per_query, models = run.evaluate(cols)
            run.record(cols, per_query, removed=removed)
            n_drop = self._n_drop(units.size, floor)
            if n_drop == 0:
                break
            imp = self._importances(run, units, per_query, models, round_)
            if plan.priced:  # worth per unit of what removing the unit saves (a group's cost when its
                key = plan.value(imp, plan.saved(units))  # last member goes); least first
                order = np.lexsort((units, imp, key))
            else:
                order = np.lexsort((units, imp))  # least important first, then the lowest index
            drop = order[:n_drop]
            removed = plan.columns(units[drop])
            removed_round[removed] = round_
            units = units[order[n_drop:][::-1]]  # the survivors, most important first
            round_ += 1
        return removed_round  # the round each feature was removed (-1: never)

    def _finish(self, removed_round: np.ndarray) -> None:
        """``ranking_``: the selected step's features rank 1; removed later = better."""
        rr = removed_round
        ranking = np.full(self.n_features_in_, rr.max() + 3 if rr.size else 2, dtype=np.intp)
        last = rr.max() if rr.size else -1
        ranking[rr >= 0] = last - rr[rr >= 0] + 2
        ranking[self.support_] = 1
        self.ranking_ = ranking
