"""One run of a ranker-in-the-loop selection: the state that lives only during ``fit``.

:class:`LoopRun` holds what a :class:`~rankselect.selection.wrapper.RecursiveElimination` or
:class:`~rankselect.selection.wrapper.ForwardSelection` fit works with - its
:class:`~rankselect.selection.FitPlan` (units, costs, budget, the value rule), the ranker's
adapter, the validation splits, the cache of scored subsets, the path being recorded, the
seeds - and is dropped when ``fit`` returns: the fitted selector keeps none of it (nor the
training rows).
"""
from __future__ import annotations

import numbers
import sys
import time
from typing import Any, Callable, Optional

import numpy as np

from ... import metrics
from ..._config import Parallel, delayed
from ..._validation import check_matrix, check_predictions, check_qid, check_vector
from ...data.grouping import QueryGroups, TrainingData
from ...data.splits import query_masks, query_splits
from .._plan import FitPlan
from .adapters import GroupedSet, Interrupted, RankerAdapter
from .path import PathRecorder

__all__: list[str] = []  # internal: see rankselect.selection.wrapper

Evaluation = tuple[np.ndarray, list]  # per-query scores over the validation queries, fitted rankers


def _grouped(X, y, qid) -> GroupedSet:
    groups = QueryGroups.from_qid(qid)
    return GroupedSet(np.ascontiguousarray(groups.gather(X)), groups.gather(y), groups.gather(qid), groups.sizes)


def _entropy(random_state):
    if random_state is None:
        return None
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    return int(random_state)


class LoopRun:
    """The per-fit state of a ranker-in-the-loop selection (module docstring).

    Parameters
    ----------
    selector : RankerLoopSelector
        Its parameters (``scoring``, ``convention``, ``validation``, ``cv``, ``n_jobs``,
        ``verbose``, ``random_state``) are read, never written.
    plan : FitPlan
        The fit's plan; ``plan.data`` is the validated training data.
    adapter : RankerAdapter
    """

    def __init__(self, selector, plan: FitPlan, adapter: RankerAdapter) -> None:
        self.selector = selector
        self.plan = plan
        self.adapter = adapter
        self.start = time.perf_counter()
        data: TrainingData = plan.data
        self.train = GroupedSet(data.grouped.X, data.grouped.y, data.grouped.gather(data.qid),
                                data.grouped.groups.sizes)
        self.final_eval: Optional[GroupedSet] = None
        self.splits = self._splits(data)
        seed_seq = np.random.SeedSequence(_entropy(selector.random_state))
        self.ranker_seed = int(seed_seq.generate_state(1)[0] % (2**31 - 1))
        self.seed_seq = seed_seq
        self.cache: dict[tuple, Evaluation] = {}
        self.recorder = PathRecorder()

    # ------------------------------------------------------------------ the splits

    def _splits(self, data: TrainingData) -> list[tuple[GroupedSet, GroupedSet]]:
        sel, train = self.selector, self.train
        if sel.validation is not None and sel.cv is not None:
            raise ValueError("give either validation=(X_vali, y_vali, qid_vali) or cv=, not both")
        if sel.validation is not None:
            if len(sel.validation) != 3:
                raise ValueError("validation must be a tuple (X_vali, y_vali, qid_vali)")
            Xv, yv, qv = sel.validation
            Xv = check_matrix(np.asarray(Xv, dtype=np.float64), "validation X")
            if Xv.shape[1] != data.n_features:
                raise ValueError(f"validation X has {Xv.shape[1]} features but X has {data.n_features}")
            yv = check_vector(yv, "validation y", n=Xv.shape[0])
            qv = check_qid(qv, Xv.shape[0], name="validation qid", of="validation X")
            self.final_eval = _grouped(Xv, yv, qv)
            return [(train, self.final_eval)]
        cv: Any = 3 if sel.cv is None else sel.cv
        n_queries = train.sizes.size
        if isinstance(cv, numbers.Integral) or hasattr(cv, "split"):
            # the grouped rows, query k labelled k (the folds of earlier releases)
            labels = np.repeat(np.arange(n_queries), train.sizes)
            pairs = query_splits(cv, labels, train.X, train.y)
            masks = query_masks(pairs, labels, np.arange(n_queries))
        else:  # (train, test) pairs of row indices of X as given
            pairs = query_splits(cv, data.qid)
            masks = query_masks(pairs, data.qid, train.qid[np.cumsum(train.sizes) - train.sizes])
        return [(train.rows(tr_q), train.rows(te_q)) for tr_q, te_q in masks]

    # ------------------------------------------------------------------ scoring

    def round_rng(self, round_: int) -> np.random.Generator:
        """The generator of one round's permutations (independent of ``n_jobs``)."""
        return np.random.default_rng(self.seed_seq.spawn(round_ + 1)[-1])

    def evaluate(self, cols) -> Evaluation:
        """Fit the ranker on the training columns ``cols`` of every split; the per-query
        validation scores (queries of all splits, concatenated) and the fitted rankers."""
        key = tuple(sorted(int(c) for c in cols))
        if key in self.cache:
            return self.cache[key]
        sel = self.selector
        per_query, models = [], []
        for train, vali in self.splits:
            v = vali.columns(cols)
            model = self.adapter.fit(train.columns(cols), self.ranker_seed, v)
            pred = check_predictions(model.predict(v.X), model, v.y.size)
            per_query.append(metrics.compute(sel.scoring, v.y, pred, v.qid, convention=sel.convention,
                                             per_query=True))
            models.append(model)
        result = (np.concatenate(per_query), models)
        self.cache[key] = result
        return result

    def evaluate_units(self, units) -> np.ndarray:
        """The per-query validation scores of the plan's ``units`` together."""
        return self.evaluate(self.plan.columns(units))[0]

    def map(self, fn: Callable, items: list) -> list:
        """``[fn(item) for item in items]``, on ``n_jobs`` threads (results in input order),
        each in the caller's settings (``rankselect.config_context``, scikit-learn's)."""
        n_jobs = self.selector.n_jobs
        if n_jobs in (None, 1) or len(items) < 2:
            return [fn(item) for item in items]
        stop = self.adapter.stop

        def task(item):
            if stop.is_set():  # a task not yet started when another was interrupted
                raise Interrupted
            try:
                return fn(item)
            except KeyboardInterrupt:
                stop.set()
                raise

        try:
            return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(task)(item) for item in items)
        except (KeyboardInterrupt, Interrupted):
            stop.set()
            raise KeyboardInterrupt from None

    def record(self, cols, per_query, added=(), removed=(), eligible: bool = True) -> None:
        """One step of the path: the subset ``cols``, its scores, what changed, its cost."""
        plan, sel = self.plan, self.selector
        cols = np.asarray(cols, dtype=np.intp)
        cost = plan.cost(cols)
        ok = eligible and bool(plan.fits(cost))
        wall = time.perf_counter() - self.start
        names = None
        if plan.by_group:
            assert plan.groups is not None
            names = [plan.groups.names[g] for g in plan.groups.groups_of(cols)]
        self.recorder.add(cols, per_query, added, removed, wall, cost, ok, groups=names)
        if sel.verbose:
            row = self.recorder.rows[-1]
            change = (f", added {list(map(int, added))}" if len(added) else "") + \
                     (f", removed {list(map(int, removed))}" if len(removed) else "")
            print(f"[{type(sel).__name__}] step {len(self.recorder.rows)}: {cols.size} features, "
                  f"{sel.scoring} {row[1]:.4f} +- {row[2]:.4f}{change} ({wall:.1f} s)", file=sys.stderr, flush=True)

    def fit_final(self, cols):
        """The ranker refitted on all the training queries' columns ``cols`` (early-stopped
        on the validation queries when given)."""
        return self.adapter.fit(self.train.columns(cols), self.ranker_seed,
                                self.final_eval.columns(cols) if self.final_eval is not None else None)
