"""Method specs of the LETOR protocol: how each registered method turns a training set and
a grid into fitted candidates (work is reused across the grid, see :mod:`.runner`).

Grids, descriptions and fixed options come from the registry :mod:`rankselect.methods`;
this module adds, per method, the generator of fitted grid points.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from ..methods import METHODS as REGISTRY
from ..models import RankRLS, RankSVM
from ..models.penalties import PENALTIES
from ..selection import (
    GAS,
    HCAS,
    NGAS,
    XGAS,
    FeatureImportance,
    FSMRank,
    GreedyRankRLS,
    SparseRankSVM,
    feature_importance,
    kendall_similarity,
    spearman_similarity,
)
from .loop_paths import LINEAR, loop_candidates, ranker_of


@dataclass
class Candidate:
    """One fitted grid point: hyperparameters and a linear model over all n features
    (``coef``), or any ranker's scoring function of the rows (``model``: the rows of all n
    columns -> one score each; ``coef`` None), with the features it uses.

    ``reference``: the ranker on all the features, kept on the path as the reference of the
    report, never the grid point the protocol picks.

    Examples
    --------
    >>> from rankselect.protocol import Candidate
    >>> list(Candidate.__dataclass_fields__.keys())
    ['params', 'coef', 'selected', 'model', 'reference']
    """

    params: dict[str, Any]
    coef: Optional[np.ndarray]
    selected: list[int]  # 0-based, in selection (or |weight|-descending) order
    model: Optional[Callable[[np.ndarray], np.ndarray]] = None
    reference: bool = False

    def scores(self, X: np.ndarray) -> np.ndarray:
        """The score of every row of ``X`` (all n columns)."""
        if self.model is not None:
            return np.asarray(self.model(X), dtype=np.float64)
        return X @ np.asarray(self.coef, dtype=np.float64)

    def in_use(self, available: np.ndarray) -> np.ndarray:
        """Mask of the features in use: a non-zero weight (a linear model) or a column of the
        model, on a column that is not all zero (``available``)."""
        if self.model is None:
            return (np.asarray(self.coef) != 0) & available
        mask = np.zeros(available.shape[0], dtype=bool)
        mask[np.asarray(self.selected, dtype=np.intp)] = True
        return mask & available


@dataclass
class MethodSpec:
    """How the harness runs one method: its grid and a generator of fitted candidates.

    ``candidates(train, grid, options, cache)`` yields, per fitting unit (one progress-bar
    step), a list of :class:`Candidate`; ``n_units(grid)`` counts the units;
    ``unused(options)`` names the grid parameters these options make irrelevant (dropped).

    Examples
    --------
    >>> from rankselect.protocol import METHODS
    >>> spec = METHODS["greedy-rankrls"]
    >>> type(spec).__name__
    'MethodSpec'
    """

    name: str
    description: str
    grid: Callable[[int], dict[str, list[Any]]]
    candidates: Callable[[Any, dict[str, list[Any]], dict[str, Any], dict[str, Any]], Iterator[list[Candidate]]]
    n_units: Callable[[dict[str, list[Any]]], int]
    options: dict[str, Any] = field(default_factory=dict)
    unused: Callable[[dict[str, Any]], Sequence[str]] = lambda options: ()


def _nonzero_order(coef: np.ndarray) -> list[int]:
    nz = np.flatnonzero(coef != 0)
    return [int(j) for j in nz[np.argsort(-np.abs(coef[nz]), kind="stable")]]


def _rankrls_coefs(X, y, qid, alphas: Sequence[float]) -> np.ndarray:
    """RankRLS weights for every alpha, shape (len(alphas), n), from one eigendecomposition
    of ``Xc^T Xc`` (:meth:`RankRLS.path`; ``RankRLS(alpha=list)`` keeps only the LQO-best)."""
    return RankRLS().path(X, y, qid, alphas=list(alphas)).coefs


def _full(coef_sub: np.ndarray, support: Sequence[int], n: int) -> np.ndarray:
    w = np.zeros(n)
    w[np.asarray(support, dtype=int)] = coef_sub
    return w


# -- rankrls (WAF)
def _rankrls_candidates(train, grid, options, cache):
    alphas = grid["alpha"]
    coefs = _rankrls_coefs(train.X, train.y, train.qid, alphas)
    yield [Candidate({"alpha": a}, c, _nonzero_order(c)) for a, c in zip(alphas, coefs)]


# -- greedy-rankrls
def _greedy_candidates(train, grid, options, cache):
    n = train.X.shape[1]
    ks = [int(k) for k in grid["k"]]
    kmax = min(max(ks), n)
    for a in grid["alpha"]:
        est = GreedyRankRLS(n_features_to_select=kmax, alpha=a).fit(train.X, train.y, qid=train.qid)
        sel = [int(j) for j in est.selected_features_]
        path = np.asarray(est.coef_path_, dtype=float)
        out = []
        for k in ks:
            if k > len(sel):
                continue
            out.append(Candidate({"alpha": a, "k": k}, path[k - 1].copy(), sel[:k]))
        yield out


# -- ranksvm (WAF)
def _ranksvm_candidates(train, grid, options, cache):
    for C in grid["C"]:
        est = RankSVM(C=C).fit(train.X, train.y, qid=train.qid)
        c = np.asarray(est.coef_, dtype=float).ravel()
        yield [Candidate({"C": C}, c, _nonzero_order(c))]


# -- gas
def _gas_candidates(train, grid, options, cache):
    X, y, q = train.X, train.y, train.qid
    n = X.shape[1]
    # one importance vector and one Kendall matrix per fold serve every (c, t) point; GAS
    # computes the similarity on the direction-adjusted features, so do the same here
    ikey = ("importance", options["importance"])
    if ikey not in cache:
        cache[ikey] = feature_importance(X, y, q, measure=options["importance"])
    imp = cache[ikey]
    key = ("kendall", options["similarity"], options["importance"])
    if key not in cache:
        cache[key] = (spearman_similarity(X) if options["similarity"] == "spearman"
                      else kendall_similarity(X * imp.directions, q, variant=options["similarity"]))
    S = cache[key]
    ts = sorted({int(t) for t in grid["k"] if 1 <= int(t) <= n})
    if not ts:
        raise ValueError(f"gas grid: k must hold values in 1..{n}, got {grid['k']}")
    tmax = max(ts)
    ranker = options["ranker"]
    if ranker not in ("rankrls", "ranksvm"):
        raise ValueError(f"gas option ranker must be 'rankrls' or 'ranksvm', got {ranker!r}")
    for c in grid["c"]:
        gas = GAS(n_features_to_select=tmax, c=float(c), importance=imp, similarity=S).fit(X, y, qid=q)
        order = [int(j) for j in gas.selected_features_]
        yield [cand for t in ts for cand in _subset_candidates(train, order[:t], {"c": c, "k": t}, grid, ranker)]


def _subset_candidates(train, sub, params, grid, ranker) -> list[Candidate]:
    """The downstream linear ranker on the features ``sub``: one candidate per alpha
    (RankRLS) or C (RankSVM)."""
    X, y, q = train.X, train.y, train.qid
    n = X.shape[1]
    if ranker == "rankrls":
        coefs = _rankrls_coefs(X[:, sub], y, q, grid["alpha"])
        return [Candidate({**params, "alpha": a}, _full(w, sub, n), list(sub)) for a, w in zip(grid["alpha"], coefs)]
    out = []
    for C in grid["C"]:
        w = np.asarray(RankSVM(C=C).fit(X[:, sub], y, qid=q).coef_, dtype=float).ravel()
        out.append(Candidate({**params, "C": C}, _full(w, sub, n), list(sub)))
    return out


# -- ngas, xgas, hcas: the inputs once per fold; NGAS and XGAS orders are prefixes (one fit
# per c serves every k), HCAS clusters once per k
_FILTERS = {"ngas": NGAS, "xgas": XGAS, "hcas": HCAS}


def _filter_candidates(name):
    def candidates(train, grid, options, cache):
        X, y, q = train.X, train.y, train.qid
        n = X.shape[1]
        probe = _FILTERS[name](1, importance=options["importance"], similarity=options["similarity"])
        ikey = ("filter-inputs", options["importance"], options["similarity"])
        if ikey not in cache:
            probe.fit(X, y, qid=q)
            cache[ikey] = (FeatureImportance(probe.importance_, probe.directions_), probe.similarity_)
        imp, S = cache[ikey]
        ts = sorted({int(t) for t in grid["k"] if 1 <= int(t) <= n})
        if not ts:
            raise ValueError(f"{name} grid: k must hold values in 1..{n}, got {grid['k']}")
        ranker = options["ranker"]
        if ranker not in ("rankrls", "ranksvm"):
            raise ValueError(f"{name} option ranker must be 'rankrls' or 'ranksvm', got {ranker!r}")
        settings = [{"c": float(c)} for c in grid["c"]] if name == "xgas" else [{}]
        extra = {"linkage": options["linkage"]} if name == "hcas" else {}
        for setting in settings:
            def fit(t, setting=setting):
                est = _FILTERS[name](t, importance=imp, similarity=S, **setting, **extra).fit(X, y, qid=q)
                return [int(j) for j in est.selected_features_]
            order = fit(max(ts)) if name != "hcas" else None
            yield [cand for t in ts for cand in _subset_candidates(
                train, order[:t] if order is not None else fit(t), {**setting, "k": t}, grid, ranker)]
    return candidates


# -- sparse-ranksvm
def _sparse_candidates(train, grid, options, cache):
    cls = PENALTIES[options["penalty"]]  # the option p is the lp penalty's
    est = SparseRankSVM(penalty=cls(p=options["p"]) if "p" in cls().get_params() else cls())
    path = est.path(train.X, train.y, qid=train.qid, Cs=list(grid["C"]))  # ascending C, warm started
    yield [Candidate({"C": float(C)}, np.asarray(w, dtype=float), _nonzero_order(np.asarray(w)))
           for C, w in zip(path.Cs, path.coefs)]


# -- fsmrank
def _fsmrank_candidates(train, grid, options, cache):
    for l1, l2 in itertools.product(grid["lambda1"], grid["lambda2"]):
        est = FSMRank(lambda1=l1, lambda2=l2).fit(train.X, train.y, qid=train.qid)
        w = np.asarray(est.coef_, dtype=float).ravel()
        yield [Candidate({"lambda1": l1, "lambda2": l2}, w, _nonzero_order(w))]


# -- rfe, forward: any ranker in the loop (:mod:`.loop_paths`)
def _loop(forward: bool):
    def candidates(train, grid, options, cache):
        return loop_candidates(forward, train, grid, options, cache, _full, Candidate)
    return candidates


def _loop_unused(options) -> tuple[str, ...]:
    return ("alpha",) if ranker_of("forward", options) != LINEAR else ()


def _spec(name, candidates, n_units, unused=lambda options: ()) -> MethodSpec:
    m = REGISTRY[name]
    return MethodSpec(name, m.description, m.grid, candidates, n_units, options=dict(m.options), unused=unused)


#: the protocol's method specs, one per method of the registry
METHODS: dict[str, MethodSpec] = {
    "rankrls": _spec("rankrls", _rankrls_candidates, lambda g: 1),
    "greedy-rankrls": _spec("greedy-rankrls", _greedy_candidates, lambda g: len(g["alpha"])),
    "ranksvm": _spec("ranksvm", _ranksvm_candidates, lambda g: len(g["C"])),
    "gas": _spec("gas", _gas_candidates, lambda g: len(g["c"]),
                 unused=lambda o: ("C",) if o.get("ranker") == "rankrls" else ("alpha",)),
    "ngas": _spec("ngas", _filter_candidates("ngas"), lambda g: 1,
                  unused=lambda o: ("C",) if o.get("ranker") == "rankrls" else ("alpha",)),
    "xgas": _spec("xgas", _filter_candidates("xgas"), lambda g: len(g["c"]),
                  unused=lambda o: ("C",) if o.get("ranker") == "rankrls" else ("alpha",)),
    "hcas": _spec("hcas", _filter_candidates("hcas"), lambda g: 1,
                  unused=lambda o: ("C",) if o.get("ranker") == "rankrls" else ("alpha",)),
    "sparse-ranksvm": _spec("sparse-ranksvm", _sparse_candidates, lambda g: 1),
    "fsmrank": _spec("fsmrank", _fsmrank_candidates, lambda g: len(g["lambda1"]) * len(g["lambda2"])),
    "rfe": _spec("rfe", _loop(False), lambda g: len(g.get("alpha", [None])), unused=_loop_unused),
    "forward": _spec("forward", _loop(True), lambda g: len(g.get("alpha", [None])), unused=_loop_unused),
}
