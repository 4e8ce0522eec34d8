"""What recursive elimination and forward selection share: the parameters, the validation
scheme (a validation set or query folds), the candidate pool, costs, seeds, parallel fits
in a fixed order, progress lines and interruption."""
from __future__ import annotations

import numbers
import sys
import time
from typing import Any, Callable, Optional, Union

import numpy as np
import numpy.typing as npt
from joblib import Parallel, delayed
from sklearn.base import MetaEstimatorMixin, clone
from sklearn.model_selection import GroupKFold
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ... import metrics
from ..._validation import MAX_INT, check_matrix, check_qid, check_vector, fits_budget
from ...data.feature_groups import ExtractionCosts
from ...data.grouping import QueryGroups, TrainingData
from ...metrics.checks import CONVENTIONS, Convention
from .._base import RankingSelector
from .adapters import GroupedSet, Interrupted, RankerAdapter, make_adapter
from .path import SELECTION_RULES, PathRecorder, SelectionPath, choose_step

__all__: list[str] = []  # the base of the selectors: see rankselect.selection.wrapper

Evaluation = tuple[np.ndarray, list]  # per-query scores over the validation queries, fitted rankers


def _grouped(X, y, qid) -> GroupedSet:
    groups = QueryGroups.from_qid(qid)
    return GroupedSet(np.ascontiguousarray(groups.gather(X)), groups.gather(y), groups.gather(qid), groups.sizes)


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
        "cv": [Interval(numbers.Integral, 2, MAX_INT, closed="left"), HasMethods(["split"]), None],
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
    }

    def __init__(self, estimator, *, n_features_to_select: Union[str, int, float] = "auto",
                 scoring: str = "ndcg@10", validation: Optional[tuple] = None, cv: Any = None,
                 candidates: Any = None, n_candidates: Optional[int] = None, selection_rule: str = "best",
                 early_stopping_rounds: Optional[int] = 20, convention: Convention = "standard",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 n_jobs: Optional[int] = None, random_state: Any = None, verbose: Union[bool, int] = False) -> None:
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

    # ------------------------------------------------------------------ fit

    def fit(self, X, y, qid=None):
        """Select features on ``X`` (m, n), labels ``y`` (m,), query ids ``qid`` (m,),
        scoring each subset on ``validation`` or by ``cv`` query folds."""
        return self._fit(self._validate_training_data(X, y, qid))

    def _fit(self, data: TrainingData):
        self._start = time.perf_counter()
        n = data.n_features
        self._adapter: RankerAdapter = make_adapter(self.estimator, self.early_stopping_rounds, _eval_at(self.scoring))
        metrics.compute(self.scoring, np.zeros(2), np.zeros(2), np.zeros(2, dtype=np.int64))  # a valid measure?
        self._splits = self._make_splits(data)
        costs, self._budget = self._costs_and_budget(n)
        self._costs = np.ones(n) if costs is None else costs
        self._has_costs = self.feature_costs is not None
        # shared group costs at feature level: a subset's cost counts each group once
        self._shared: Optional[ExtractionCosts] = None
        if getattr(self, "group_costs", None) is not None and not self._selects_groups():
            self._shared, self._budget = self._extraction_costs(n)
            self._has_costs = True
        seed_seq = np.random.SeedSequence(self._entropy())
        self._ranker_seed = int(seed_seq.generate_state(1)[0] % (2**31 - 1))
        self._seed_seq = seed_seq
        self._cache: dict[tuple, Evaluation] = {}
        self.candidates_ = self._candidate_order(data)
        target = self._target(n)
        self._recorder = PathRecorder()
        try:
            self._run(target)
        except KeyboardInterrupt:
            self._adapter.stop.set()
            raise
        finally:
            self._cache = {}
        self.path_ = self._recorder.path()
        step = choose_step(self.path_, self.selection_rule, None if target is None else target)
        self.selected_features_ = np.asarray(self.path_.features[step], dtype=np.intp)
        self.n_features_ = int(self.selected_features_.size)
        self.support_ = np.zeros(n, dtype=bool)
        self.support_[self.selected_features_] = True
        self.estimator_ = self._adapter.fit(self._full_train.columns(self.selected_features_), self._ranker_seed,
                                            self._final_eval.columns(self.selected_features_)
                                            if self._final_eval is not None else None)
        del self._adapter, self._splits, self._recorder
        return self

    def _run(self, target: Optional[int]) -> None:  # the selection loop of a subclass
        raise NotImplementedError

    def _entropy(self):
        rs = self.random_state
        if rs is None:
            return None
        if isinstance(rs, np.random.RandomState):
            return int(rs.randint(2**31 - 1))
        return int(rs)

    def _round_rng(self, round_: int) -> np.random.Generator:
        """The generator of one round's permutations (independent of ``n_jobs``)."""
        return np.random.default_rng(self._seed_seq.spawn(round_ + 1)[-1])

    def _target(self, n: int) -> Optional[int]:
        """The number of features to select (None: ``"auto"``, the path's rule decides)."""
        if self.n_features_to_select == "auto":
            return None
        return self._n_features_to_select(n, n_available=self.candidates_.size)

    def _make_splits(self, data: TrainingData) -> list[tuple[GroupedSet, GroupedSet]]:
        train = GroupedSet(data.grouped.X, data.grouped.y, data.grouped.gather(data.qid), data.grouped.groups.sizes)
        self._full_train = train
        if self.validation is not None and self.cv is not None:
            raise ValueError("give either validation=(X_vali, y_vali, qid_vali) or cv=, not both")
        if self.validation is not None:
            if len(self.validation) != 3:
                raise ValueError("validation must be a tuple (X_vali, y_vali, qid_vali)")
            Xv, yv, qv = self.validation
            Xv = check_matrix(np.asarray(Xv, dtype=np.float64), "validation X")
            if Xv.shape[1] != data.n_features:
                raise ValueError(f"validation X has {Xv.shape[1]} features but X has {data.n_features}")
            yv = check_vector(yv, "validation y", n=Xv.shape[0])
            qv = check_qid(qv, Xv.shape[0], name="validation qid", of="validation X")
            vali = _grouped(Xv, yv, qv)
            self._final_eval: Optional[GroupedSet] = vali
            return [(train, vali)]
        self._final_eval = None
        cv: Any = 3 if self.cv is None else self.cv
        splitter: Any = GroupKFold(n_splits=cv) if isinstance(cv, numbers.Integral) else cv
        n_queries = train.sizes.size
        if isinstance(cv, numbers.Integral) and n_queries < int(cv):
            raise ValueError(f"cv={cv} query folds need at least {cv} queries, the training data has {n_queries} "
                             f"(n_samples={train.y.size})")
        query_index = np.repeat(np.arange(n_queries), train.sizes)
        splits = []
        for tr_rows, te_rows in splitter.split(train.X, train.y, groups=query_index):
            tr_q = np.zeros(n_queries, dtype=bool)
            tr_q[np.unique(query_index[tr_rows])] = True
            te_q = np.zeros(n_queries, dtype=bool)
            te_q[np.unique(query_index[te_rows])] = True
            splits.append((train.rows(tr_q), train.rows(te_q)))
        return splits

    def _candidate_order(self, data: TrainingData) -> np.ndarray:
        """The features the selection works on, best first: all of them, an order, or a
        rankselect selector's selection (fitted here when it is not yet)."""
        n = data.n_features
        cand = self.candidates
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

    # ------------------------------------------------------------------ evaluation

    def _evaluate(self, cols) -> Evaluation:
        """Fit the ranker on the training columns ``cols`` of every split; the per-query
        validation scores (queries of all splits, concatenated) and the fitted rankers."""
        key = tuple(sorted(int(c) for c in cols))
        if key in self._cache:
            return self._cache[key]
        per_query, models = [], []
        for train, vali in self._splits:
            v = vali.columns(cols)
            model = self._adapter.fit(train.columns(cols), self._ranker_seed, v)
            pred = np.asarray(model.predict(v.X), dtype=np.float64).ravel()
            per_query.append(metrics.compute(self.scoring, v.y, pred, v.qid, convention=self.convention,
                                             per_query=True))
            models.append(model)
        result = (np.concatenate(per_query), models)
        self._cache[key] = result
        return result

    def _map(self, fn: Callable, items: list) -> list:
        """``[fn(item) for item in items]``, on ``n_jobs`` threads (results in input order)."""
        if self.n_jobs in (None, 1) or len(items) < 2:
            return [fn(item) for item in items]
        stop = self._adapter.stop

        def task(item):
            if stop.is_set():  # a task not yet started when another was interrupted
                raise Interrupted
            try:
                return fn(item)
            except KeyboardInterrupt:
                stop.set()
                raise

        try:
            return Parallel(n_jobs=self.n_jobs, prefer="threads")(delayed(task)(item) for item in items)
        except (KeyboardInterrupt, Interrupted):
            stop.set()
            raise KeyboardInterrupt from None

    def _record(self, cols, per_query, added=(), removed=(), eligible: bool = True) -> None:
        cols = np.asarray(cols, dtype=np.intp)
        cost = float(self._costs[cols].sum()) if self._shared is None else self._shared.total(cols)
        ok = eligible and bool(fits_budget(cost, self._budget))
        wall = time.perf_counter() - self._start
        self._recorder.add(cols, per_query, added, removed, wall, cost, ok)
        if self.verbose:
            row = self._recorder.rows[-1]
            change = (f", added {list(map(int, added))}" if len(added) else "") + \
                     (f", removed {list(map(int, removed))}" if len(removed) else "")
            print(f"[{type(self).__name__}] step {len(self._recorder.rows)}: {cols.size} features, "
                  f"{self.scoring} {row[1]:.4f} +- {row[2]:.4f}{change} ({wall:.1f} s)", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ selector API

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = True  # relevance labels
        return tags
