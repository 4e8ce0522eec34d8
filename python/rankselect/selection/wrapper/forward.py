"""Forward selection for any ranker: add the feature whose addition scores best on the
validation queries, optionally floating (drop a feature when that beats the best subset of
the smaller size)."""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

from ..._validation import fits_budget
from ...metrics.checks import Convention
from .base import RankerLoopSelector

__all__ = ["ForwardSelection"]


class ForwardSelection(RankerLoopSelector):
    """Forward feature selection with the ranker you deploy in the loop.

    Each round fits ``estimator`` once per remaining candidate (the current subset plus
    that feature; early-stopped on the validation queries for LightGBM, XGBoost and
    CatBoost) and adds the candidate of the best validation score (with ``feature_costs``:
    the largest gain per unit cost over the current subset's score, an empty subset scoring
    0). The candidates are all features or the top ``n_candidates`` of ``candidates`` (a
    rankselect selector's order: the linear path proposes, the ranker decides).

    With ``floating=True`` (sequential floating forward selection, Pudil et al. 1994), after
    each addition the features of the subset other than the one just added are tried for
    removal, and one is removed when the smaller subset scores better than the best subset
    of that size found so far; repeated while it helps. A subset is never scored twice.

    Every subset scored is a step of :attr:`path_`; the selection is the best subset of size
    ``n_features_to_select`` or, with ``"auto"`` (walk up to all candidates), the step chosen by
    ``selection_rule`` among the best subset of each size.

    Parameters
    ----------
    estimator : unfitted ranker
        As :class:`~rankselect.selection.wrapper.RecursiveElimination`'s.
    n_features_to_select : "auto", int or float in (0, 1), default="auto"
        Stop at this many features and select the best subset of that size; ``"auto"``:
        add every candidate and select by ``selection_rule``.
    floating : bool, default=False
        Try removals after each addition (see above).
    scoring, validation, cv, candidates, n_candidates, selection_rule, early_stopping_rounds, \
convention, feature_costs, budget, n_jobs, random_state, verbose
        As :class:`~rankselect.selection.wrapper.RecursiveElimination`'s; ``budget``: candidates that
        would exceed it are not tried. ``n_jobs`` threads fit the candidates of a round.
    feature_groups, group_costs, select_groups
        As :class:`~rankselect.selection.wrapper.RecursiveElimination`'s: with ``feature_groups``
        and ``select_groups=True`` each round adds the whole group whose addition validates best
        (with costs: the largest gain per unit of marginal cost, a group's extraction cost
        being paid once); ``n_features_to_select`` counts groups. With ``select_groups=False``
        features are added and the first member of a group pays the group's cost.

    Attributes
    ----------
    selected_features_ : ndarray of int, shape (k,)
        The selected features in order of addition.
    support_, n_features_, path_, candidates_, estimator_, selected_groups_
        As :class:`~rankselect.selection.wrapper.RecursiveElimination`'s (``path_`` records
        additions and, with ``floating``, removals; ``path_.eligible`` marks the best
        subset of each size).

    Examples
    --------
    Greedy RankRLS proposes five candidates, RankRLS on the validation queries decides:

    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> X_vali, y_vali, qid_vali = rs.data.datasets.load_example("vali")
    >>> sel = rs.ForwardSelection(rs.RankRLS(), n_features_to_select=2, candidates=rs.GreedyRankRLS(),
    ...                           n_candidates=5, validation=(X_vali, y_vali, qid_vali), random_state=0)
    >>> sel = sel.fit(X, y, qid=qid)
    >>> sel.selected_features_
    array([ 7, 11])
    >>> sel.path_.n_features
    array([1, 2])
    >>> sel.transform(X).shape
    (583, 2)
    """

    _parameter_constraints: dict = {**RankerLoopSelector._parameter_constraints, "floating": ["boolean"]}

    def __init__(self, estimator, *, n_features_to_select: Union[str, int, float] = "auto",
                 floating: bool = False, scoring: str = "ndcg@10", validation: Optional[tuple] = None,
                 cv: Any = None, candidates: Any = None, n_candidates: Optional[int] = None,
                 selection_rule: str = "best", early_stopping_rounds: Optional[int] = 20,
                 convention: Convention = "exponential", feature_costs: Optional[npt.ArrayLike] = None,
                 budget: Optional[float] = None, n_jobs: Optional[int] = None, random_state: Any = None,
                 verbose: Union[bool, int] = False, feature_groups: Any = None, group_costs: Any = None,
                 select_groups: bool = True) -> None:
        super().__init__(estimator, n_features_to_select=n_features_to_select, scoring=scoring,
                         validation=validation, cv=cv, candidates=candidates, n_candidates=n_candidates,
                         selection_rule=selection_rule, early_stopping_rounds=early_stopping_rounds,
                         convention=convention, feature_costs=feature_costs, budget=budget, n_jobs=n_jobs,
                         random_state=random_state, verbose=verbose, feature_groups=feature_groups,
                         group_costs=group_costs, select_groups=select_groups)
        self.floating = floating

    def _run(self, target: Optional[int]) -> None:
        pool = [int(j) for j in self.candidates_]
        stop_at = len(pool) if target is None else target
        costs, budget = self._costs, self._budget
        selected: list[int] = []
        score = 0.0
        visited: set = set()
        best_of_size: dict[int, float] = {}

        cols_of = self._unit_columns  # units: features, or groups with select_groups

        def fits(subset) -> bool:
            return bool(fits_budget(self._subset_cost(cols_of(subset)), budget))

        def evaluate(subset):
            return self._evaluate(cols_of(subset))[0]

        while len(selected) < stop_at:
            tries = [j for j in pool if j not in selected and fits(selected + [j])
                     and frozenset(selected + [j]) not in visited]
            if not tries:
                break
            results = self._map(evaluate, [selected + [j] for j in tries])
            means = np.array([float(pq.mean()) for pq in results])
            if self._has_costs:  # the marginal cost: a group's extraction is paid by its first member
                base_cost = self._subset_cost(cols_of(selected))
                c = np.array([self._subset_cost(cols_of(selected + [j])) - base_cost for j in tries]) \
                    if self._shared or self._by_group else costs[tries]
                gain = means - score
                value = np.where(c > 0, gain / np.where(c > 0, c, 1), np.where(gain > 0, np.inf, gain))
            else:
                value = means
            # best value, then (free candidates all worth +inf) the larger gain, then the lowest index
            a = int(np.lexsort((np.asarray(tries), -means, -value))[0])
            added = tries[a]
            selected = selected + [added]
            score = float(means[a])
            visited.add(frozenset(selected))
            best_of_size[len(selected)] = max(best_of_size.get(len(selected), -np.inf), score)
            self._record(cols_of(selected), results[a], added=tuple(cols_of([added])), eligible=False)
            while self.floating and len(selected) >= 3:
                removable = [i for i in selected[:-1] if frozenset(selected) - {i} not in visited]
                if not removable:
                    break
                smaller = [[j for j in selected if j != i] for i in removable]
                res = self._map(evaluate, smaller)
                for s in smaller:
                    visited.add(frozenset(s))
                m = np.array([float(pq.mean()) for pq in res])
                b = int(np.argmax(m))
                if m[b] <= best_of_size.get(len(smaller[b]), -np.inf):
                    break
                selected, score = smaller[b], float(m[b])
                best_of_size[len(selected)] = score
                self._record(cols_of(selected), res[b], removed=tuple(cols_of([removable[b]])), eligible=False)
        # eligible: the first step reaching the best score of its size (in units)
        rows = self._recorder.rows
        seen: set = set()
        for t, row in enumerate(rows):
            size, mean = (len(row[11]) if self._by_group else row[0]), row[1]
            if size not in seen and mean >= best_of_size[size]:
                seen.add(size)
                ok = bool(fits_budget(row[9], self._budget))
                rows[t] = row[:10] + (ok,) + row[11:]
