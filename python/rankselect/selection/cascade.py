"""Selection per ranking phase: :class:`CascadeSelection` chooses a cheap feature subset for
every candidate document and, where it pays, a richer one for phase 1's top ``N``, under one
budget of cost per query (the search: :mod:`rankselect.selection.cascade_search`).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._base import RankerMixin, RankingEstimator
from .._validation import check_budget, check_qid, fits_budget
from ..data.feature_groups import ExtractionCosts, check_extraction_costs
from ..data.grouping import GroupedData, QueryGroups, TrainingData
from ..metrics.checks import CONVENTIONS
from .cascade_grid import room, search_grid
from .cascade_search import _grid_p_value, cascade_cost, compose
from .cascade_trees import PHASE2_RANKERS, phase2_trees
from .greedy_rankrls import GreedyRankRLS

__all__ = ["CascadeSelection", "Phase", "RULES", "compose"]

#: the choice rules: take the best affordable cascade only when its mean validation advantage
#: over the best affordable single phase exceeds 1 (``"1se"``, the default) or 2 (``"2se"``)
#: standard errors of the paired per-query differences, or whenever it is higher (``"best"``)
RULES = {"1se": 1.0, "2se": 2.0, "best": 0.0}

#: the phase-2 searches of the grid (all by default): a longer prefix of the path with its ranker
#: trained on the training rows phase 1 keeps or on all of them, and the greedy path re-run on
#: the kept rows
PHASE2_SEARCHES = {"prefix, kept rows": True, "prefix, all rows": True, "greedy, kept rows": True}


@dataclass(frozen=True)
class Phase:
    """One ranking phase: a linear ranker on ``features`` (0-based columns of the full feature
    matrix) with weights ``coef``, or a LightGBM ``model`` (a ``Booster`` on those columns in
    that order; ``coef`` None); ``window`` is None for phase 1 and the rerank count ``N``
    (phase 1's top documents it re-ranks) for phase 2.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection import Phase
    >>> p = Phase(features=np.array([2, 0]), coef=np.array([1.0, -0.5]), window=20)
    >>> p.score(np.array([[1.0, 5.0, 3.0], [0.0, 5.0, 1.0]]))  # 3 - 0.5 * 1, 1 - 0.5 * 0
    array([2.5, 1. ])
    """

    features: np.ndarray
    coef: Optional[np.ndarray]
    window: Optional[int] = None
    model: Any = None

    @property
    def ranker(self) -> str:
        """``"linear"`` or ``"lightgbm"``."""
        return "linear" if self.model is None else "lightgbm"

    def score(self, X) -> np.ndarray:
        """This phase's scores of the rows of the full feature matrix ``X`` (m, n_features)."""
        X = np.asarray(X, dtype=float)
        if self.model is not None:
            return np.asarray(self.model.predict(np.ascontiguousarray(X[:, self.features]), num_threads=1),
                              dtype=float)
        return X[:, self.features] @ self.coef


class CascadeSelection(RankerMixin, RankingEstimator):
    """Two-phase cascades under a cost budget per query: a cheap feature subset scores every
    candidate document, a richer one re-ranks phase 1's top ``N``, or one phase when the
    cascade does not pay.

    The search: the cost-aware greedy RankRLS path (``selector``, fitted on the training data
    with ``feature_costs``) gives nested prefixes; phase 1 is a prefix and, for every ``N`` in
    ``windows``, phase 2 is (1) a longer prefix whose RankRLS ranker is trained on the training
    documents phase 1 keeps (its top ``N``), (2) a longer prefix with its ranker trained on every
    training document (the single phase of that prefix), or (3) phase 1's features followed by
    the cost-aware greedy path continued from them on the training documents phase 1 keeps (phase
    1's features and the groups they pay for free), for as many steps as the budget could leave
    phase 2 (:data:`PHASE2_SEARCHES`; ``front_``'s ``phase2_search`` says which). Phase 2 always
    holds phase 1's features first. Every single phase and cascade is scored on the
    ``eval_set``'s queries (the grid evaluated by the Rust core, one pass per query for all
    windows) and priced per query (:mod:`rankselect.selection.cascade_search`).

    The choice (``rule``): the best affordable single phase (highest validation value whose
    cost per query fits ``budget``) unless the best affordable cascade beats it by more than
    ``rule``'s number of standard errors of the paired per-query differences on the
    validation queries. The default ``"1se"`` (one standard error) keeps most of the gain
    where cascades pay while refusing most gains made of validation noise (``"2se"`` refuses
    more, and gives up more of the real gain on a few dozen validation queries; ``"best"``
    takes any higher validation value).

    Parameters
    ----------
    selector : GreedyRankRLS or None, default=None
        The path's selector (cloned; its ``alpha`` is the phases' ridge). None: greedy RankRLS
        over every feature, with ``feature_costs``.
    feature_costs : array-like of shape (n_features,), ExtractionCosts or None, default=None
        Cost of each feature per document (>= 0), or an :class:`~rankselect.data.ExtractionCosts`
        (a group's cost paid once per phase that first uses it). None: 1 per feature.
    budget : float or None, default=None
        The largest mean cost per query on the ``eval_set``'s queries. None: no cap.
    windows : sequence of int >= 1, default=(10, 20, 50, 100)
        The rerank counts ``N`` tried for phase 2.
    reuse : bool, default=True
        Phase 2 reuses phase 1's values (cost ``c(S1) n_q + c(S2 minus S1) min(N, n_q)``; Vespa,
        Solr); False: each window computes its own set (``c(S1) n_q + c(S2) min(N, n_q)``;
        OpenSearch / Elasticsearch rescore windows).
    rule : {"1se", "2se", "best"}, default="1se"
        When a cascade is taken over one phase (above).
    phase2_ranker : {"linear", "lightgbm"}, default="linear"
        Phase 2's ranker. ``"lightgbm"`` (needs LightGBM): the search runs with linear phases,
        then the best affordable cascade's phase 2 is refit as a LightGBM ``lambdarank`` model
        on the same features, trained on the training documents phase 1 keeps
        (:mod:`rankselect.selection.cascade_trees`: one thread, ``deterministic=True``, seed
        0); it is kept only where its validation value is at least the linear phase 2's, and
        the rule then compares that cascade with the best affordable single phase. Its cost
        per query is the linear one's (the same features).
    phase2_params : dict or None, default=None
        LightGBM parameters of a ``"lightgbm"`` phase 2 over
        :data:`~rankselect.selection.cascade_trees.PHASE2_PARAMS` (100 trees, learning rate
        0.1, 31 leaves).
    scoring : str, default="ndcg@10"
        The validation measure (:mod:`rankselect.metrics`).
    convention : str, default="exponential"
        Its convention.

    Attributes
    ----------
    phases_ : list of Phase
        One or two phases.
    cost_per_query_ : float
        The chosen configuration's mean cost per query on the ``eval_set``.
    front_ : list of dict
        The cost-quality Pareto front of every configuration (single phases and cascades):
        ``cost``, ``score``, ``n_phases``, ``phase1_size``, ``window``, ``phase2_size``,
        ``phase2_features`` (0-based columns), ``phase2_search`` (``"prefix, kept rows"``,
        ``"prefix, all rows"`` or ``"greedy, kept rows"``) and ``phase2_ranker`` (None for one
        phase; a LightGBM phase 2 is one more configuration, kept or not), sorted by cost.
    single_front_ : list of dict
        The same front over single phases only.
    choice_ : dict
        ``decision`` (``"cascade"`` or ``"one phase"``), ``rule``, the best affordable single
        phase's and cascade's records, the paired mean difference and its standard error;
        ``grid_p_value``: the one-sided p-value of the best affordable cascade's advantage under
        the paired sign-flip null applied jointly to every affordable cascade (a max-statistic
        permutation test, 1000 seeded flips; a diagnostic that accounts for taking the best of
        the grid, not used by the rules); ``phase2_ranker`` (the one asked),
        ``phase2_linear_score`` and ``phase2_lightgbm_score`` (the best affordable cascade's
        validation value with each phase 2; None where not fitted) and ``phase2_kept`` (the
        ranker of that cascade's phase 2).
    path_ : ndarray
        The selection path (0-based columns) whose prefixes are the phases.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> Xv, yv, qv = rs.data.datasets.load_example("vali")
    >>> costs = np.arange(1.0, 23.0)  # one cost per feature per document
    >>> cs = rs.CascadeSelection(feature_costs=costs, budget=1500.0, windows=(5,)).fit(
    ...     X, y, qid=qid, eval_set=(Xv, yv, qv))
    >>> cs.choice_["decision"], len(cs.phases_)
    ('cascade', 2)
    >>> bool(cs.cost_per_query_ <= 1500.0)
    True
    """

    phases_: list
    cost_per_query_: float
    front_: list
    single_front_: list
    choice_: dict
    path_: np.ndarray
    n_features_in_: int

    _parameter_constraints = {
        "selector": [None, GreedyRankRLS],
        "feature_costs": ["array-like", ExtractionCosts, None],
        "budget": [Interval(numbers.Real, 0, None, closed="left"), None],
        "windows": ["array-like"],
        "reuse": ["boolean"],
        "rule": [StrOptions(set(RULES))],
        "phase2_ranker": [StrOptions(set(PHASE2_RANKERS))],
        "phase2_params": [dict, None],
        "scoring": [str],
        "convention": [StrOptions(set(CONVENTIONS))],
    }

    def __init__(self, selector=None, feature_costs=None, budget: Optional[float] = None,
                 windows=(10, 20, 50, 100), reuse: bool = True, rule: str = "1se", scoring: str = "ndcg@10",
                 convention: str = "exponential", phase2_ranker: str = "linear",
                 phase2_params: Optional[dict] = None) -> None:
        self.selector = selector
        self.feature_costs = feature_costs
        self.budget = budget
        self.windows = windows
        self.reuse = reuse
        self.rule = rule
        self.scoring = scoring
        self.convention = convention
        self.phase2_ranker = phase2_ranker
        self.phase2_params = phase2_params

    def fit(self, X, y, qid=None, eval_set=None):
        """Search on ``(X, y, qid)``; choose on ``eval_set=(X_val, y_val, qid_val)`` (required)."""
        if eval_set is None:
            raise ValueError("CascadeSelection.fit needs eval_set=(X_val, y_val, qid_val): the budget is a mean "
                             "cost per validation query and the phases are chosen on validation queries")
        train = self._validate_training_data(X, y, qid)
        if not isinstance(eval_set, (tuple, list)) or len(eval_set) != 3:
            raise ValueError("eval_set must be a tuple (X_val, y_val, qid_val)")
        Xv = self._validate_X(eval_set[0], reset=False)
        yv = np.asarray(eval_set[1], dtype=float)
        if yv.shape != (Xv.shape[0],):
            raise ValueError(f"eval_set's y has shape {yv.shape} but its X has {Xv.shape[0]} rows")
        val = GroupedData.from_arrays(Xv, yv, check_qid(eval_set[2], Xv.shape[0], name="eval_set qid"))
        return self._search(train, val)

    def _checked(self, n: int) -> tuple[ExtractionCosts, Optional[float], list[int]]:
        fc = self.feature_costs
        if isinstance(fc, ExtractionCosts):
            costs = check_extraction_costs(fc.feature_costs, fc.groups, fc.group_costs, n)
        else:
            costs = check_extraction_costs(fc, None, None, n)
        windows = np.asarray(self.windows).ravel()
        if windows.size == 0 or not all(isinstance(w, numbers.Integral) and not isinstance(w, bool)
                                        for w in windows.tolist()):
            raise ValueError(f"windows must be a non-empty sequence of integers >= 1, got {self.windows!r}")
        if (windows < 1).any():
            raise ValueError(f"windows must be >= 1, got {windows.tolist()}")
        if self.phase2_params is not None and self.phase2_ranker != "lightgbm":
            raise ValueError("phase2_params are LightGBM's: they need phase2_ranker='lightgbm'")
        return costs, check_budget(self.budget), sorted({int(w) for w in windows.tolist()})

    def _path(self, train: TrainingData, costs: ExtractionCosts) -> tuple[np.ndarray, float]:
        sel = GreedyRankRLS() if self.selector is None else clone(self.selector)
        params: dict[str, Any] = {"n_features_to_select": train.n_features}
        if self.selector is None or sel.feature_costs is None:
            params["feature_costs"] = costs.feature_costs
            if costs.groups is not None and sel.feature_groups is None:
                params.update(feature_groups=costs.groups, group_costs=costs.group_costs, select_groups=False)
        sel.set_params(**params)
        sel._fit_validated(train)
        return np.asarray(sel.selected_features_, dtype=np.intp), float(sel.alpha)

    def _search(self, train: TrainingData, val: GroupedData):
        costs, budget, windows = self._checked(train.n_features)
        path, alpha = self._path(train, costs)
        if len(path) == 0:
            raise ValueError("the selection path is empty: no feature varies within a query of the training data")
        g = train.grouped
        Xt = np.ascontiguousarray(g.X[:, path])
        spec = (str(self.scoring), str(self.convention), "stable")
        Xv = np.ascontiguousarray(val.X[:, path])
        sizes = np.diff(val.offsets)
        reuse = bool(self.reuse)
        grid = search_grid(Xt, g, Xv, val, alpha, windows, spec, self.selector, costs, path,
                           room(costs, path, sizes, budget), reuse, PHASE2_SEARCHES)
        cands, single, cascade, phase2, firsts = grid.cands, grid.single, grid.cascade, grid.phase2, grid.firsts
        records: list[dict[str, Any]] = [
            {"cost": cascade_cost(costs, sizes, path[:a]), "score": float(single[:, i].mean()), "n_phases": 1,
             "phase1_size": a, "window": None, "phase2_size": None, "phase2_features": None, "phase2_search": None,
             "phase2_ranker": None, "_col": i} for i, a in enumerate(cands.sizes1)]
        records += [{"cost": cascade_cost(costs, sizes, path[:a], path[cols], n, reuse=reuse),
                     "score": float(cascade[:, j].mean()), "n_phases": 2, "phase1_size": a, "window": n,
                     "phase2_size": len(cols), "phase2_features": [int(c) for c in path[cols]], "phase2_search": how,
                     "phase2_ranker": "linear", "_col": j}
                    for j, (a, (cols, _, n, how)) in enumerate(zip(firsts, phase2))]
        cheapest = min(r["cost"] for r in records if r["n_phases"] == 1)
        if budget is not None and not fits_budget(cheapest, budget):
            raise ValueError(f"budget={budget} is below the cheapest phase's mean cost per validation query "
                             f"({cheapest:.6g}: the path's first feature on every document)")
        ok = [r for r in records if fits_budget(r["cost"], budget)]
        best1 = max((r for r in ok if r["n_phases"] == 1), key=lambda r: (r["score"], -r["cost"]))
        two = [r for r in ok if r["n_phases"] == 2]
        best2 = max(two, key=lambda r: (r["score"], -r["cost"])) if two else None
        v2 = None if best2 is None else cascade[:, best2["_col"]]
        best2_linear_col = None if best2 is None else best2["_col"]
        linear2, booster, trees2 = None if best2 is None else best2["score"], None, None
        if best2 is not None and self.phase2_ranker == "lightgbm":  # the same features, refit as trees
            cols = phase2[best2["_col"]][0]
            a2, n2 = best2["phase1_size"], best2["window"]
            booster, v_trees = phase2_trees(Xt[:, :a2] @ cands.weights1[a2], Xt[:, cols], g, Xv[:, :a2] @
                                            cands.weights1[a2], Xv[:, cols], val, n2, self.phase2_params,
                                            (str(self.scoring), str(self.convention)))
            tree = {**best2, "score": float(v_trees.mean()), "phase2_ranker": "lightgbm", "_col": None}
            records.append(tree)
            trees2 = tree["score"]
            if trees2 >= best2["score"]:  # kept only where it is at least the linear phase 2
                best2, v2 = tree, v_trees
        diff, se, take = 0.0, 0.0, False
        if best2 is not None and v2 is not None:
            d = v2 - single[:, best1["_col"]]
            diff = float(d.mean())
            se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("inf")
            take = diff > 0 and diff > RULES[str(self.rule)] * se
        linear_two = [r["_col"] for r in two if r["_col"] is not None]
        grid_p = _grid_p_value(cascade[:, linear_two] - single[:, [best1["_col"]]]) if linear_two else 1.0
        chosen = best2 if take and best2 is not None else best1
        a = chosen["phase1_size"]
        self.phases_ = [Phase(path[:a].copy(), cands.weights1[a].copy())]
        if chosen["n_phases"] == 2:
            if chosen["phase2_ranker"] == "lightgbm":
                assert best2_linear_col is not None  # the trees refit that cascade's phase 2
                cols = phase2[best2_linear_col][0]
                self.phases_.append(Phase(path[cols].copy(), None, int(chosen["window"]), booster))
            else:
                cols, w, n, _ = phase2[chosen["_col"]]
                self.phases_.append(Phase(path[cols].copy(), np.array(w, dtype=float), int(n)))
        self.cost_per_query_ = float(chosen["cost"])
        public = [_public(r) for r in records]
        self.front_ = _pareto(public)
        self.single_front_ = _pareto([r for r in public if r["n_phases"] == 1])
        self.choice_ = {"decision": "cascade" if chosen["n_phases"] == 2 else "one phase", "rule": str(self.rule),
                        "budget": budget, "reuse": bool(self.reuse), "single": _public(best1),
                        "cascade": None if best2 is None else _public(best2),
                        "mean_difference": diff, "standard_error": se, "grid_p_value": grid_p,
                        "n_queries": int(len(sizes)),
                        "phase2_ranker": str(self.phase2_ranker), "phase2_linear_score": linear2,
                        "phase2_lightgbm_score": trees2,
                        "phase2_kept": None if best2 is None else best2["phase2_ranker"]}
        self.path_ = path
        return self

    def predict(self, X, qid=None) -> np.ndarray:
        """Scores of the rows of ``X`` whose descending order within each query is the
        cascade's: phase 1's top ``window`` documents ordered by phase 2 above the rest ordered
        by phase 1 (for a cascade, ``n_q - position`` of the composed ranking; with one phase,
        its scores)."""
        check_is_fitted(self, "phases_")
        X = self._validate_X(X, reset=False)
        p1 = self.phases_[0]
        if len(self.phases_) == 1:
            return p1.score(X)
        if qid is None:
            raise ValueError("qid is required: predict(X, qid=...) composes the phases query by query")
        groups = QueryGroups.from_qid(check_qid(qid, X.shape[0]))
        Xg = groups.gather(X)
        p2 = self.phases_[1]
        return groups.scatter(compose(p1.score(Xg), p2.score(Xg), p2.window, groups.offsets))

    def score(self, X, y, qid=None, sample_weight=None):
        """Mean NDCG@10 over queries of the cascade's ranking (:meth:`predict` with ``qid``)."""
        from ..metrics.measures import ndcg

        if sample_weight is not None:
            raise ValueError("sample_weight is not supported by score: every query counts once")
        if qid is None:
            raise ValueError("qid is required: score(X, y, qid=...) ranks the documents of each query")
        return float(ndcg(np.asarray(y, dtype=float), self.predict(X, qid=qid), qid, k=10))

    @property
    def selected_features_(self) -> np.ndarray:
        """Every column some phase computes (phase 2's prefix contains phase 1's)."""
        check_is_fitted(self, "phases_")
        return np.asarray(self.phases_[-1].features)


def _public(record: dict) -> dict:
    """A grid record without its private column index."""
    return {k: v for k, v in record.items() if k != "_col"}


def _pareto(records: list) -> list:
    """The records no other beats in both cost (lower) and score (higher), by cost."""
    front, best = [], -np.inf
    for r in sorted(records, key=lambda r: (r["cost"], -r["score"])):
        if r["score"] > best:
            front.append(r)
            best = r["score"]
    return front
