"""The method registry: one entry per method, read by ``select``, ``train``, ``experiment``,
the LETOR protocol (:mod:`rankselect.protocol`) and the README's method table.

An entry names the estimator, the parameters a user may set (with their CLI flags; the
*defaults are the estimator's own*, read from its ``__init__``), the hyperparameter grid of
the experiment protocol, what the method selects, and how ``-k`` (the number of features)
reaches it. A new method is one :class:`Method` added to :data:`METHODS` plus, for the
experiment, its candidate generator in :mod:`rankselect.protocol.specs`.
"""
from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from .models import RankRLS, RankSVM
from .models.penalties import PENALTIES
from .selection import GAS, HCAS, NGAS, XGAS, FSMRank, GreedyRankRLS, SparseRankSVM
from .selection.wrapper import ForwardSelection, RecursiveElimination
from .selection.wrapper.elimination import IMPORTANCES
from .selection.wrapper.rankers import (
    CANDIDATES,
    RANKERS,
    boolean,
    count_or_fraction,
    forward_selection,
    recursive_elimination,
)

__all__ = ["Param", "Method", "METHODS", "POW2", "SELECTORS", "CRITERIA", "method_table"]

#: the powers of two 2^-10 .. 2^10 (the papers' regularisation grid)
POW2 = [2.0 ** e for e in range(-10, 11)]


@dataclass(frozen=True)
class Param:
    """A parameter a user may set: the estimator's keyword ``name``, its CLI ``flag``.

    Examples
    --------
    >>> from rankselect.methods import METHODS
    >>> p = METHODS["greedy-rankrls"].params[0]
    >>> type(p).__name__, p.name
    ('Param', 'alpha')
    """

    name: str
    help: str
    type: Callable[[str], Any] = float
    choices: Optional[tuple[str, ...]] = None
    flag: Optional[str] = None

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def dest(self) -> str:
        return "p_" + self.name


@dataclass(frozen=True)
class Method:
    """One method of the package.

    Attributes
    ----------
    name : the name used everywhere (CLI ``--method``, experiment, reports).
    estimator : the estimator class.
    description : one line for tables and ``--help``.
    selects : what the method selects (README's method table).
    params : the parameters users set (CLI flags; defaults from the estimator).
    grid : ``grid(n_features) -> {param: values}``: the experiment's default grid.
    k : how the number of features ``k`` reaches the method: the estimator parameter that
        holds it (e.g. ``"n_features_to_select"``), ``"path"`` (a sparse method: the
        regularisation on its path that keeps at most k features), or None (all features).
    path_param : for ``k="path"``, the regularisation parameter walked by the path.
    score_name : name of the per-step score ``select`` prints (None: none); ``"LQO"`` is
        named after the fitted criterion (``"LQO squared"``: lower is better, ``"LQO
        ndcg@10"``: higher is better; see :meth:`score_label`).
    options : fixed experiment options (not grid parameters), with their defaults.
    make : builds the estimator from the user parameters (default: the class itself); its
        signature gives the defaults (the ranker-in-the-loop selectors take ``--ranker`` by name).

    Examples
    --------
    >>> from rankselect.methods import METHODS
    >>> m = METHODS["gas"]
    >>> m.estimator.__name__, [p.name for p in m.params]
    ('GAS', ['c', 'importance', 'similarity'])
    """

    name: str
    estimator: type[Any]
    description: str
    selects: str
    params: tuple[Param, ...]
    grid: Callable[[int], dict[str, list[Any]]]
    k: Optional[str] = None
    path_param: Optional[str] = None
    score_name: Optional[str] = None
    options: dict[str, Any] = field(default_factory=dict)
    make: Optional[Callable[..., Any]] = None

    @property
    def estimator_class(self) -> type[Any]:
        """The estimator class (the same as :attr:`estimator`)."""
        return self.estimator

    def defaults(self) -> dict[str, Any]:
        """The estimator's own defaults of :attr:`params` (one source of defaults)."""
        sig = inspect.signature(self.make or self.estimator_class.__init__).parameters
        return {p.name: sig[p.name].default for p in self.params}

    def build(self, **params):
        """An unfitted estimator with ``params`` (unknown names raise ``ValueError``)."""
        known = {p.name for p in self.params} | ({self.k} if self.k not in (None, "path") else set())
        bad = sorted(set(params) - known)
        if bad:
            raise ValueError(f"{self.name} has no parameter {bad[0]!r} (parameters: {', '.join(sorted(known))})")
        return (self.make or self.estimator_class)(**params)

    def score_label(self, est) -> Optional[str]:
        """The column title of the per-step score for the fitted ``est``."""
        if self.score_name == "LQO":
            return f"LQO {est.criterion}"
        return self.score_name

    def step_scores(self, est) -> Optional[Sequence[float]]:
        """The per-step score column of ``select`` (see :attr:`score_name`)."""
        if self.score_name is None:
            return None
        if self.score_name == "|coef|":
            return [abs(float(est.coef_[j])) for j in est.selected_features_]
        return getattr(est, _SCORE_ATTRS[self.score_name])


_SCORE_ATTRS = {"LQO": "lqo_scores_", "gas weight": "selection_weights_"}

_ALPHA = Param("alpha", "ridge parameter (the paper's lambda), > 0")
#: greedy RankRLS's criteria (``criterion=``; ``@k`` stands for a cut-off such as ``@10``): the
#: paper's squared loss, or a ranking measure of the exact LQO predictions
CRITERIA = ("squared", "ndcg@k", "map", "p@k", "meanndcg", "err@k")
_LOOP = (Param("ranker", "the ranker in the loop (LightGBM, XGBoost, CatBoost: installed separately)", type=str,
               choices=RANKERS),
         Param("scoring", "validation measure of each subset (--vali, else 3 query folds of TRAIN)", type=str),
         Param("candidates", "seed: start from this selector's top --n-candidates features", type=str,
               choices=CANDIDATES),
         Param("n_candidates", "how many seed features to start from", type=int),
         Param("selection_rule", "without -k: the best subset or the smallest within one standard error",
               type=str, choices=("best", "one-standard-error")),
         Param("random_state", "seed of the rankers and shuffles", type=int, flag="--seed"))


def _loop_grid(n: int) -> dict[str, list[Any]]:
    """The protocol's grid of rfe / forward: alpha 1 (for the linear ranker in the loop,
    RankRLS), every k."""
    return {"alpha": [1.0], "k": list(range(1, n + 1))}


#: the experiment options of rfe / forward: every option of ``select --method rfe|forward``
#: (``ranker`` "linear" is RankRLS over the alpha grid; ``seed`` is ``--seed``)
_LOOP_OPTIONS = {"ranker": "linear", "scoring": "ndcg@10", "candidates": "none", "n_candidates": None, "seed": 0}
_C_SVM = Param("C", "loss weight C > 0", flag="--C")

_IMPORTANCE = Param("importance", "relevance: map, ndcg@k, p@k, pairwise or lambdamart (FSA's, needs LightGBM)",
                    type=str)
_SIMILARITY = Param("similarity", "feature similarity", type=str, choices=("spearman", "geng", "tau_b"))
_CS = [10.0 ** e for e in range(-4, 3)]
_FILTER_OPTIONS = {"importance": "ndcg@10", "similarity": "spearman", "ranker": "rankrls"}

#: every method of the package by its command-line name (``rankselect select --method``,
#: ``rankselect experiment --method``): its estimator, parameters, grid and how ``k`` reaches it
METHODS: dict[str, Method] = {
    "greedy-rankrls": Method(
        "greedy-rankrls", GreedyRankRLS,
        "greedy forward selection with RankRLS (Pahikkala et al. 2010); one run per alpha gives every k",
        "k features, greedily, by exact leave-query-out error",
        (_ALPHA, Param("criterion", f"LQO selection criterion: {CRITERIA[0]} (the paper's pairwise squared loss, "
                                    f"lower is better) or a ranking measure, {', '.join(CRITERIA[1:])} (higher is "
                                    "better)", type=str),
         Param("floating", "floating search (SFFS): after an addition, drop a feature (or, with --groups, a group) "
               "when that helps (yes/no)", type=boolean)),
        lambda n: {"alpha": POW2, "k": list(range(1, n + 1))},
        k="n_features_to_select", score_name="LQO"),
    "gas": Method(
        "gas", GAS,
        "GAS (Geng et al. 2007): greedy importance/similarity selection, then a ranker on the selected features",
        "k features by importance minus redundancy (Kendall similarity)",
        (Param("c", "importance/similarity trade-off c of Fig. 1", flag="--c"),
         Param("importance", "importance measure: map, ndcg, ndcg@k, p@k (GAS-E) or pairwise (GAS-L)", type=str),
         Param("similarity", "similarity (Kendall variants or Spearman)", type=str,
               choices=("geng", "tau_b", "spearman"))),
        lambda n: {"c": [0.0, 0.1, 0.3, 1.0, 3.0], "k": list(range(1, n + 1)), "alpha": POW2,
                   "C": [10.0 ** e for e in range(-4, 3)]},
        k="n_features_to_select", score_name="gas weight",
        options={"importance": "map", "similarity": "geng", "ranker": "rankrls"}),
    "ngas": Method(
        "ngas", NGAS,
        "NGAS (Gigli et al. 2016): the least similar feature or its nearest neighbour, the more relevant",
        "k features: the most relevant, then by dissimilarity to the last one (Spearman similarity)",
        (_IMPORTANCE, _SIMILARITY),
        lambda n: {"k": list(range(1, n + 1)), "alpha": POW2, "C": _CS},
        k="n_features_to_select", options=dict(_FILTER_OPTIONS)),
    "xgas": Method(
        "xgas", XGAS,
        "XGAS(c) (Gigli et al. 2016): the most relevant of the c-fraction least similar to the last selected",
        "k features: the most relevant among the least similar to the last one (Spearman similarity)",
        (Param("c", "fraction of the remaining features to choose from (paper: 0.05)", flag="--c"),
         _IMPORTANCE, _SIMILARITY),
        lambda n: {"c": [0.05, 0.1, 0.2], "k": list(range(1, n + 1)), "alpha": POW2, "C": _CS},
        k="n_features_to_select", options=dict(_FILTER_OPTIONS)),
    "hcas": Method(
        "hcas", HCAS,
        "HCAS (Gigli et al. 2016): hierarchical clustering of the features into k clusters, the most relevant of each",
        "k features: the most relevant of each of k clusters on 1 - similarity",
        (Param("linkage", "agglomerative linkage (ward.D: FSA's code)", type=str,
               choices=("ward", "ward.D", "single")), _IMPORTANCE, _SIMILARITY),
        lambda n: {"k": list(range(1, n + 1)), "alpha": POW2, "C": _CS},
        k="n_features_to_select", options=dict(_FILTER_OPTIONS, linkage="ward")),
    "sparse-ranksvm": Method(
        "sparse-ranksvm", SparseRankSVM,
        "sparse RankSVM (Laporte et al. 2014) along a warm-started C path",
        "the features with a non-zero weight (L1 / non-convex penalty)",
        (_C_SVM, Param("penalty", "penalty (group_lasso, sparse_group_lasso: over the --groups / --layout "
                       "families, with --solver fista)", type=str, choices=tuple(PENALTIES)),
         Param("solver", "solver of each L1 problem (fista = Laporte et al. Alg. 1)", type=str,
               choices=("prox-newton", "fista"))),
        lambda n: {"C": [float(10.0 ** e) for e in np.arange(-4, 2.01, 0.5)]},
        k="path", path_param="C", score_name="|coef|", options={"penalty": "l1", "p": 0.5}),
    "fsmrank": Method(
        "fsmrank", FSMRank,
        "FSMRank (Lai et al. 2013)",
        "the features with a non-zero weight (importance-weighted L1 with a similarity term)",
        (Param("lambda1", "similarity weight"), Param("lambda2", "importance-weighted L1 weight")),
        lambda n: {"lambda1": [1e-3, 1e-2, 0.1, 1.0], "lambda2": [1e-6, 1e-5, 1e-4, 1e-3]},
        k="path", path_param="lambda2", score_name="|coef|"),
    "rfe": Method(
        "rfe", RecursiveElimination,
        "recursive elimination with the deployed ranker in the loop, scored on validation queries",
        "k features, removing the least important (permutation, refit or the ranker's own) each round",
        (*_LOOP, Param("step", "features removed per round: a count or a fraction", type=count_or_fraction),
         Param("drop_by", "importance of a round", type=str, choices=IMPORTANCES)),
        _loop_grid, k="n_features_to_select", make=recursive_elimination,
        options={**_LOOP_OPTIONS, "importance": "permutation", "drop_by": None, "step": 1}),
    "forward": Method(
        "forward", ForwardSelection,
        "forward selection with the deployed ranker in the loop, scored on validation queries",
        "k features, adding the one of best validation score each round (optionally floating)",
        (*_LOOP, Param("floating", "after an addition, drop a feature when that helps (yes/no)", type=boolean)),
        _loop_grid, k="n_features_to_select", make=forward_selection,
        options={**_LOOP_OPTIONS, "floating": False}),
    "rankrls": Method(
        "rankrls", RankRLS,
        "RankRLS on all features (WAF baseline); one eigendecomposition per fold gives every alpha",
        "nothing: all features (a baseline)", (_ALPHA,), lambda n: {"alpha": POW2}),
    "ranksvm": Method(
        "ranksvm", RankSVM,
        "RankSVM on all features (WAF baseline)",
        "nothing: all features (a baseline; optionally through a kernel approximation map)",
        (_C_SVM, Param("tol", "relative gradient-norm tolerance"),
         Param("max_iter", "maximum Newton steps", type=int),
         Param("kernel", "kernel approximation before the linear RankSVM (Chen et al. 2017; linear: none)",
               type=str, choices=("linear", "nystroem", "rff")),
         Param("n_components", "Nystroem landmarks / random features of the kernel map", type=int,
               flag="--components"),
         Param("gamma", "RBF kernel width exp(-gamma ||x - x'||^2) (default 1 / n_features)"),
         Param("random_state", "seed of the kernel map", type=int, flag="--seed")),
        lambda n: {"C": [10.0 ** e for e in range(-4, 3)]}),
}

#: the methods that select features (``rankselect select --method``)
SELECTORS = tuple(name for name, m in METHODS.items() if m.k is not None)


def method_table() -> str:
    """The README's method table (Markdown), from :data:`METHODS`.

    Examples
    --------
    >>> from rankselect.methods import method_table
    >>> print(method_table().splitlines()[0])
    | method | estimator | selects | parameters (CLI) |
    """
    rows = ["| method | estimator | selects | parameters (CLI) |", "|---|---|---|---|"]
    for m in METHODS.values():
        cls = m.estimator.__name__
        k = {None: "", "path": "-k (via the path), "}.get(m.k, "-k, ")
        flags = k + ", ".join(f"`{p.cli_flag}`" for p in m.params)
        rows.append(f"| `{m.name}` | `{cls}` | {m.selects} | {flags} |")
    return "\n".join(rows)
