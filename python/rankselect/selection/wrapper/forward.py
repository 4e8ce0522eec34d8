"""Forward selection for any ranker: add the feature whose addition scores best on the
validation queries, optionally floating (drop a feature when that beats the best subset of
the smaller size)."""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

from ...metrics.checks import Convention
from .base import RankerLoopSelector
from .loop import LoopRun

__all__ = ["ForwardSelection"]


class ForwardSelection(RankerLoopSelector):
    """Forward feature selection with the ranker you deploy in the loop.

    Each round fits ``estimator`` once per remaining candidate (the current subset plus
    that feature; early-stopped on the validation queries for LightGBM, XGBoost and
    CatBoost) and adds the candidate of the best validation score (with ``feature_costs``:
    the largest gain per unit cost over the current subset's score, an empty subset scoring
    0; when no candidate improves, the smallest loss whatever it costs: the value rule
    :func:`~rankselect.selection.value_per_cost` with greedy RankRLS's convention ``"gain"``).
    The candidates are all features or the top ``n_candidates`` of ``candidates`` (a
    rankselect selector's order: the linear path proposes, the ranker decides).

    With ``floating=True`` (sequential floating forward selection, Pudil et al. 1994), after
    each addition the features of the subset other than the one just added are tried for
    removal, and one is removed when the smaller subset scores better than the best subset
    of that size found so far; repeated while it helps. A subset is never scored twice.

    Every subset scored is a step of :attr:`path_`; the selection is the best subset of size
    ``n_features_to_select`` or, with ``"auto"`` (walk up to all candidates), the step chosen by
    ``selection_rule`` among the best subset of each size.

    A candidate constant within every training query (a feature, or a group all of whose
    columns are: e.g. all-zero columns, or query-level features such as IDF sums) cannot
    order two documents of a query: it is never a candidate, and the path stops when only such
    candidates are left (``stop_reason_ == "uninformative"``), so the selection may hold
    fewer than ``n_features_to_select`` units (groups constant within every query are never
    selected: asking for all 14 groups of MQ2008 by measure gives 12).

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
    stop_reason_ : {None, "uninformative", "budget", "visited"}
        Why the path ended before ``n_features_to_select`` units (with ``"auto"``: before
        every candidate): ``None`` (it did not), ``"uninformative"`` (only candidates constant
        within every query were left), ``"budget"`` (no remaining candidate fits the budget) or
        ``"visited"`` (with ``floating``: every addition gives a subset already scored).

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

    def _run(self, run: LoopRun, target: Optional[int]) -> Optional[str]:
        plan = run.plan
        constant = plan.unit_constant(plan.data.grouped.constant_within_queries())
        candidates = [int(j) for j in self.candidates_]
        pool = [j for j in candidates if not constant[j]]  # a unit constant within every query orders nothing
        stop_at = len(candidates) if target is None else target
        selected: list[int] = []
        score = 0.0
        visited: set = set()
        best_of_size: dict[int, float] = {}
        cols_of = plan.columns  # units: features, or groups with select_groups
        stop: Optional[str] = None

        def fits(subset) -> bool:
            return bool(plan.fits(plan.cost(cols_of(subset))))

        while len(selected) < stop_at:
            left = [j for j in pool if j not in selected and frozenset(selected + [j]) not in visited]
            tries = [j for j in left if fits(selected + [j])]
            if not tries:
                stop = ("budget" if left else "visited" if len(selected) < len(pool) else
                        "uninformative" if len(pool) < len(candidates) else None)
                break
            results = run.map(run.evaluate_units, [selected + [j] for j in tries])
            means = np.array([float(pq.mean()) for pq in results])
            # value per unit of marginal cost (a group's extraction is paid by its first member)
            value = plan.value(means - score, plan.marginal(selected, tries)) if plan.priced else means
            # best value, then (free candidates all worth +inf) the larger gain, then the lowest index
            a = int(np.lexsort((np.asarray(tries), -means, -value))[0])
            added = tries[a]
            selected = selected + [added]
            score = float(means[a])
            visited.add(frozenset(selected))
            best_of_size[len(selected)] = max(best_of_size.get(len(selected), -np.inf), score)
            run.record(cols_of(selected), results[a], added=tuple(cols_of([added])), eligible=False)
            while self.floating and len(selected) >= 3:
                removable = [i for i in selected[:-1] if frozenset(selected) - {i} not in visited]
                if not removable:
                    break
                smaller = [[j for j in selected if j != i] for i in removable]
                res = run.map(run.evaluate_units, smaller)
                for sub in smaller:
                    visited.add(frozenset(sub))
                m = np.array([float(pq.mean()) for pq in res])
                b = int(np.argmax(m))
                if m[b] <= best_of_size.get(len(smaller[b]), -np.inf):
                    break
                selected, score = smaller[b], float(m[b])
                best_of_size[len(selected)] = score
                run.record(cols_of(selected), res[b], removed=tuple(cols_of([removable[b]])), eligible=False)
        # eligible: the first step reaching the best score of its size (in units)
        rows = run.recorder.rows
        seen: set = set()
        for t, row in enumerate(rows):
            size, mean = (len(row[11]) if plan.by_group else row[0]), row[1]
            if size not in seen and mean >= best_of_size[size]:
                seen.add(size)
                ok = bool(plan.fits(row[9]))
                rows[t] = row[:10] + (ok,) + row[11:]
        return stop

    def _finish(self, outcome: Optional[str]) -> None:
        self.stop_reason_ = outcome
