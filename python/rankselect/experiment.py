"""The LETOR experiment protocol: select hyperparameters on validation, report test.

For every fold ``FoldK/{train,vali,test}.txt`` of a LETOR layout and every method:

1. fit on ``train`` for every point of the method's hyperparameter grid (regularisation
   alpha / C / lambda, number of features k or t, GAS's c, ...). Work is reused across
   the grid: one greedy RankRLS run per alpha gives every k (``coef_path_``), one RankRLS
   eigendecomposition gives every alpha, one Kendall matrix per fold serves every GAS
   point, regularisation paths are warm started;
2. score every grid point on ``vali`` and keep the best by the selection metric
   (validation MAP by default). Ties are broken by grid order: the first point reached
   wins (grid order = the order of the values in the grid, the parameters nested in the
   order the method lists them, e.g. greedy RankRLS loops alpha outside, k inside);
3. evaluate the chosen model on ``test``: MAP, P@1..10, NDCG@1..10, MeanNDCG (LETOR's
   Eval-Score conventions by default, ``convention="standard"`` on request), plus per-query
   AP and NDCG@10 for paired t-tests.

Degenerate models never win. A grid point whose validation scores tie within every query
(all-zero weights, or weights only on features that are constant within each query) would
rank every query in file order, which is informative in LETOR files; such points are
skipped and listed in the result (``skipped``).

Usage::

    from rankselect.experiment import run
    res = run("MQ2008", ["greedy-rankrls", "rankrls"])
    res.averages()["rankrls"]["MAP"]
    print(res.to_markdown())
    res.paired_ttest("greedy-rankrls", "rankrls", metric="MAP")

Methods are named as in the CLI (``rankselect experiment``); see :data:`METHODS` and
:func:`default_grid`. A method name may carry fixed options after a colon, e.g.
``"sparse-ranksvm:penalty=log"`` or ``"gas:ranker=ranksvm"``.
"""
from __future__ import annotations

import itertools
import json
import numbers
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = [
    "run",
    "ExperimentResult",
    "MethodFold",
    "METHODS",
    "default_grid",
    "parse_method",
    "load_folds",
    "single_feature_scores",
    "SELECTION_METRICS",
]

#: the metric keys reported for every test set (P@k and NDCG@k for k = 1..10)
CUTOFFS = tuple(range(1, 11))
TEST_KEYS = ("MAP",) + tuple(f"P@{k}" for k in CUTOFFS) + tuple(f"NDCG@{k}" for k in CUTOFFS) + ("MeanNDCG",)
#: selection metric names accepted by ``run(metric=...)`` (case-insensitive) -> report key
SELECTION_METRICS = {"map": "MAP", "meanndcg": "MeanNDCG", **{f"ndcg@{k}": f"NDCG@{k}" for k in CUTOFFS},
                     **{f"p@{k}": f"P@{k}" for k in CUTOFFS}}
_CONVENTIONS = ("letor", "standard")
_SPLITS = ("train", "vali", "test")


# --------------------------------------------------------------------------- data


def load_folds(data_dir: Union[str, os.PathLike]) -> list:
    """The five folds of ``data_dir`` via :func:`rankselect.load_letor_folds` (train, vali and
    test of a fold share one feature count). Raises ``FileNotFoundError`` naming the missing
    directory or file."""
    from .data import load_letor_folds

    return load_letor_folds(data_dir)


# ------------------------------------------------------------------------ metrics


def _evaluate(y, scores, qid, convention: str, per_query: bool = False) -> Dict[str, Any]:
    """All report metrics for one ranking (one pass of :func:`rankselect.metrics.evaluate`);
    with ``per_query`` also ``"per_query": {"AP": (q,), "NDCG@10": (q,)}`` in order of first
    appearance of the qids."""
    from . import metrics

    pq = metrics.evaluate(y, scores, qid, convention=convention, ks=CUTOFFS, per_query=True)
    out: Dict[str, Any] = {k: float(np.mean(pq[k])) for k in TEST_KEYS}
    if per_query:
        out["per_query"] = {"AP": np.asarray(pq["MAP"], dtype=float), "NDCG@10": np.asarray(pq["NDCG@10"], dtype=float)}
    return out


def _scores(keys, y, scores, qid, convention: str) -> Dict[str, float]:
    """The report metrics ``keys`` ("MAP", "P@k", "NDCG@k", "MeanNDCG"), one pass."""
    from . import metrics

    ks = sorted({int(k.partition("@")[2]) for k in keys if "@" in k}) or [10]
    res = metrics.evaluate(y, scores, qid, convention=convention, ks=ks)
    return {k: float(res[k]) for k in keys}


def _ties_within_every_query(scores: np.ndarray, qid: np.ndarray) -> bool:
    """True when the scores are constant inside every query (up to rounding)."""
    scale = max(1.0, float(np.max(np.abs(scores)))) if scores.size else 1.0
    tol = 1e-12 * scale
    order = np.argsort(qid, kind="stable")
    q, s = qid[order], scores[order]
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    hi = np.maximum.reduceat(s, starts)
    lo = np.minimum.reduceat(s, starts)
    return bool(np.all(hi - lo <= tol))


def single_feature_scores(X, y, qid, *, k: int = 10, convention: str = "letor") -> np.ndarray:
    """NDCG@k of every feature used alone as the ranking score, shape (n_features,).

    As in FSMRank's Fig. 4 (and GAS's importance), a feature may rank in either
    direction; the better of the two orders is reported.
    """
    from . import metrics

    X = np.asarray(X, dtype=float)
    out = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        up = metrics.ndcg(y, X[:, j], qid, k=k, convention=convention)
        down = metrics.ndcg(y, -X[:, j], qid, k=k, convention=convention)
        out[j] = max(float(up), float(down))
    return out


# ------------------------------------------------------------------------ methods


@dataclass
class Candidate:
    """One fitted grid point: hyperparameters and a linear model over all n features."""

    params: Dict[str, Any]
    coef: np.ndarray
    selected: List[int]  # 0-based, in selection (or |weight|-descending) order


@dataclass
class MethodSpec:
    """How the harness runs one method: its grid and a generator of fitted candidates.

    ``candidates(train, grid, options, cache)`` yields, per fitting unit (one progress-bar
    step), a list of :class:`Candidate`; ``n_units(grid)`` counts the units;
    ``unused(options)`` names the grid parameters these options make irrelevant (dropped).
    """

    name: str
    description: str
    grid: Callable[[int], Dict[str, List[Any]]]
    candidates: Callable[[Any, Dict[str, List[Any]], Dict[str, Any], Dict[str, Any]], Iterator[List[Candidate]]]
    n_units: Callable[[Dict[str, List[Any]]], int]
    options: Dict[str, Any] = field(default_factory=dict)
    unused: Callable[[Dict[str, Any]], Sequence[str]] = lambda options: ()


POW2 = [2.0 ** e for e in range(-10, 11)]


def _nonzero_order(coef: np.ndarray) -> List[int]:
    nz = np.flatnonzero(coef != 0)
    return [int(j) for j in nz[np.argsort(-np.abs(coef[nz]), kind="stable")]]


def _rankrls_coefs(X, y, qid, alphas: Sequence[float]) -> np.ndarray:
    """RankRLS weights for every alpha, shape (len(alphas), n), from one eigendecomposition
    of ``Xc^T Xc`` (the core's alpha path; ``RankRLS(alpha=list)`` keeps only the LQO-best)."""
    from . import _core
    from .rankrls import _check_alpha, _grouped

    a, _ = _check_alpha(list(alphas))
    Xg, yg, offsets, _ = _grouped(X, y, qid)
    _, coefs = _core.rankrls_alpha_path(Xg, yg, offsets, a)
    return np.asarray(coefs, dtype=float).reshape(len(a), X.shape[1])


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
    from . import GreedyRankRLS

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
    from . import RankSVM

    for C in grid["C"]:
        est = RankSVM(C=C).fit(train.X, train.y, qid=train.qid)
        c = np.asarray(est.coef_, dtype=float).ravel()
        yield [Candidate({"C": C}, c, _nonzero_order(c))]


# -- gas
def _gas_candidates(train, grid, options, cache):
    from . import GAS, feature_importance, kendall_similarity

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
        cache[key] = kendall_similarity(X * imp.directions, q, variant=options["similarity"])
    S = cache[key]
    ts = sorted({int(t) for t in grid["t"] if 1 <= int(t) <= n})
    if not ts:
        raise ValueError(f"gas grid: t must hold values in 1..{n}, got {grid['t']}")
    tmax = max(ts)
    ranker = options["ranker"]
    if ranker not in ("rankrls", "ranksvm"):
        raise ValueError(f"gas option ranker must be 'rankrls' or 'ranksvm', got {ranker!r}")
    for c in grid["c"]:
        gas = GAS(n_features_to_select=tmax, c=float(c), importance=imp, similarity=S).fit(X, y, qid=q)
        order = [int(j) for j in gas.selected_features_]
        out = []
        for t in ts:
            sub = order[:t]
            if ranker == "rankrls":
                alphas = grid["alpha"]
                coefs = _rankrls_coefs(X[:, sub], y, q, alphas)
                out += [Candidate({"c": c, "t": t, "alpha": a}, _full(w, sub, n), list(sub))
                        for a, w in zip(alphas, coefs)]
            else:
                from . import RankSVM

                for C in grid["C"]:
                    w = np.asarray(RankSVM(C=C).fit(X[:, sub], y, qid=q).coef_, dtype=float).ravel()
                    out.append(Candidate({"c": c, "t": t, "C": C}, _full(w, sub, n), list(sub)))
        yield out


def _gas_grid(n):
    return {"c": [0.0, 0.1, 0.3, 1.0, 3.0], "t": list(range(1, n + 1)), "alpha": POW2,
            "C": [10.0 ** e for e in range(-4, 3)]}


# -- sparse-ranksvm
def _sparse_candidates(train, grid, options, cache):
    from . import SparseRankSVM

    est = SparseRankSVM(penalty=options["penalty"], p=options["p"])
    path = est.path(train.X, train.y, qid=train.qid, Cs=list(grid["C"]))  # ascending C, warm started
    yield [Candidate({"C": float(C)}, np.asarray(w, dtype=float), _nonzero_order(np.asarray(w)))
           for C, w in zip(path.Cs, path.coefs)]


# -- fsmrank
def _fsmrank_candidates(train, grid, options, cache):
    from . import FSMRank

    for l1, l2 in itertools.product(grid["lambda1"], grid["lambda2"]):
        est = FSMRank(lambda1=l1, lambda2=l2).fit(train.X, train.y, qid=train.qid)
        w = np.asarray(est.coef_, dtype=float).ravel()
        yield [Candidate({"lambda1": l1, "lambda2": l2}, w, _nonzero_order(w))]


METHODS: Dict[str, MethodSpec] = {
    "rankrls": MethodSpec(
        "rankrls", "RankRLS on all features (WAF baseline); one eigendecomposition per fold gives every alpha",
        lambda n: {"alpha": POW2}, _rankrls_candidates, lambda g: 1),
    "greedy-rankrls": MethodSpec(
        "greedy-rankrls", "greedy forward selection with RankRLS (Pahikkala et al. 2010); one run per alpha gives every k",
        lambda n: {"alpha": POW2, "k": list(range(1, n + 1))}, _greedy_candidates, lambda g: len(g["alpha"])),
    "ranksvm": MethodSpec(
        "ranksvm", "RankSVM on all features (WAF baseline)",
        lambda n: {"C": [10.0 ** e for e in range(-4, 3)]}, _ranksvm_candidates, lambda g: len(g["C"])),
    "gas": MethodSpec(
        "gas", "GAS (Geng et al. 2007): greedy importance/similarity selection, then a ranker on the selected features",
        _gas_grid, _gas_candidates, lambda g: len(g["c"]),
        options={"importance": "map", "similarity": "geng", "ranker": "rankrls"},
        unused=lambda o: ("C",) if o.get("ranker") == "rankrls" else ("alpha",)),
    "sparse-ranksvm": MethodSpec(
        "sparse-ranksvm", "sparse RankSVM (Laporte et al. 2014) along a warm-started C path",
        lambda n: {"C": [float(10.0 ** e) for e in np.arange(-4, 2.01, 0.5)]}, _sparse_candidates, lambda g: 1,
        options={"penalty": "l1", "p": 0.5}),
    "fsmrank": MethodSpec(
        "fsmrank", "FSMRank (Lai et al. 2013)",
        lambda n: {"lambda1": [1e-3, 1e-2, 0.1, 1.0], "lambda2": [1e-6, 1e-5, 1e-4, 1e-3]}, _fsmrank_candidates,
        lambda g: len(g["lambda1"]) * len(g["lambda2"])),
}


def parse_method(spec: Union[str, Tuple[str, Mapping[str, Any]]]) -> Tuple[str, str, Dict[str, Any]]:
    """``"name"`` or ``"name:opt=v,opt=v"`` or ``(name, {opt: v})`` -> (label, name, options)."""
    if isinstance(spec, tuple):
        name, opts = spec[0], dict(spec[1])
    elif isinstance(spec, str):
        name, _, rest = spec.partition(":")
        opts = {}
        for item in filter(None, rest.split(",")):
            k, eq, v = item.partition("=")
            if not eq or not k:
                raise ValueError(f"method {spec!r}: options must be written name:option=value[,option=value]")
            opts[k.strip()] = _parse_value(v.strip())
    else:
        raise TypeError(f"methods must be strings like 'greedy-rankrls', got {spec!r}")
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; known methods: {', '.join(sorted(METHODS))}")
    known = METHODS[name].options
    for k in opts:
        if k not in known:
            allowed = ", ".join(sorted(known)) or "none"
            raise ValueError(f"method {name!r} has no option {k!r} (options: {allowed})")
    label = name if not opts else name + ":" + ",".join(f"{k}={v}" for k, v in opts.items())
    return label, name, {**known, **opts}


def _parse_value(v: str):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    m = re.fullmatch(r"2\^(-?\d+(?:\.\d+)?)", v)
    if m:
        return 2.0 ** float(m.group(1))
    return v


def default_grid(method: str, n_features: int) -> Dict[str, List[Any]]:
    """The default hyperparameter grid of ``method`` for data with ``n_features`` columns."""
    _, name, _ = parse_method(method)
    return METHODS[name].grid(n_features)


def _resolve_grid(label: str, name: str, n: int, grid: Optional[Mapping[str, Mapping[str, Sequence]]],
                  options: Optional[Mapping[str, Any]] = None) -> Dict[str, List[Any]]:
    g = METHODS[name].grid(n)
    if grid:
        for key in (name, label):
            for p, vals in (grid.get(key) or {}).items():
                if p not in g:
                    raise ValueError(f"grid for method {key!r}: unknown parameter {p!r} (parameters: {', '.join(g)})")
                vals = list(vals) if isinstance(vals, (list, tuple, np.ndarray, range)) else [vals]
                if not vals:
                    raise ValueError(f"grid for method {key!r}: parameter {p!r} has no values")
                g[p] = vals
    for p in METHODS[name].unused(dict(options or METHODS[name].options)):
        g.pop(p, None)  # e.g. GAS's C when the ranker is RankRLS
    return g


# ------------------------------------------------------------------------- result


@dataclass
class MethodFold:
    """The outcome of one method on one fold."""

    method: str
    fold: str
    params: Dict[str, Any]
    validation_score: float
    test: Dict[str, float]
    selected_features: List[int]  # 0-based; reports print them 1-based
    n_features: int
    sparsity_ratio: float
    fit_time: float
    per_query: Dict[str, np.ndarray]
    test_qids: np.ndarray
    n_candidates: int
    skipped: List[Dict[str, Any]]
    curve: List[Dict[str, Any]]  # per grid point: params, n_features, vali/test MAP and NDCG@10

    def to_dict(self) -> Dict[str, Any]:
        return {
            "method": self.method,
            "fold": self.fold,
            "params": _jsonable(self.params),
            "validation_score": self.validation_score,
            "test": self.test,
            "selected_features": [j + 1 for j in self.selected_features],
            "n_features": self.n_features,
            "sparsity_ratio": self.sparsity_ratio,
            "fit_time": self.fit_time,
            "per_query": {k: v.tolist() for k, v in self.per_query.items()},
            "test_qids": self.test_qids.tolist(),
            "n_candidates": self.n_candidates,
            "skipped": _jsonable(self.skipped),
            "curve": _jsonable(self.curve),
        }


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def _fmt_param(v) -> str:
    if isinstance(v, float) and v > 0 and float(np.log2(v)).is_integer() and abs(np.log2(v)) <= 30 and v != 1.0:
        return f"2^{int(np.log2(v))}"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


@dataclass
class ExperimentResult:
    """Per-fold results (``folds[i][method]`` -> :class:`MethodFold`) and their summaries."""

    data_dir: str
    methods: List[str]
    metric: str
    convention: str
    grids: Dict[str, Dict[str, List[Any]]]
    folds: List[Dict[str, MethodFold]]
    n_features: int

    def averages(self) -> Dict[str, Dict[str, float]]:
        """Test-set means over the folds: ``{method: {"MAP", "NDCG@10", "P@10", "MeanNDCG",
        "n_features", ...all P@k / NDCG@k..., "sparsity_ratio", "fit_time"}}``."""
        out = {}
        for m in self.methods:
            rows = [f[m] for f in self.folds]
            avg = {k: float(np.mean([r.test[k] for r in rows])) for k in TEST_KEYS}
            avg["n_features"] = float(np.mean([r.n_features for r in rows]))
            avg["sparsity_ratio"] = float(np.mean([r.sparsity_ratio for r in rows]))
            avg["fit_time"] = float(np.sum([r.fit_time for r in rows]))
            out[m] = avg
        return out

    def paired_ttest(self, method_a: str, method_b: str, metric: str = "MAP", alternative: str = "greater") -> Dict[str, float]:
        """One-sided paired t-test over per-query test scores pooled across the folds.

        ``metric`` is "MAP" (per-query AP) or "NDCG@10". H1 (``alternative="greater"``):
        ``method_a`` scores higher than ``method_b``. Uses ``scipy.stats.ttest_rel``.
        Returns ``{"statistic", "pvalue", "n_queries", "mean_a", "mean_b"}``.
        """
        from scipy import stats

        key = {"MAP": "AP", "AP": "AP", "NDCG@10": "NDCG@10"}.get(metric.upper() if metric.lower() != "ndcg@10" else "NDCG@10")
        if key is None:
            raise ValueError(f"metric must be 'MAP' or 'NDCG@10', got {metric!r}")
        for m in (method_a, method_b):
            if m not in self.methods:
                raise ValueError(f"method {m!r} is not in this result (methods: {', '.join(self.methods)})")
        a = np.concatenate([f[method_a].per_query[key] for f in self.folds])
        b = np.concatenate([f[method_b].per_query[key] for f in self.folds])
        if np.array_equal(a, b):
            stat, p = 0.0, 1.0 if alternative != "less" else 1.0
        else:
            r = stats.ttest_rel(a, b, alternative=alternative)
            stat, p = float(r.statistic), float(r.pvalue)
        return {"statistic": stat, "pvalue": p, "n_queries": int(a.size), "mean_a": float(a.mean()), "mean_b": float(b.mean())}

    # -- output
    def to_dict(self) -> Dict[str, Any]:
        return {
            "data_dir": self.data_dir,
            "methods": self.methods,
            "metric": self.metric,
            "convention": self.convention,
            "n_features": self.n_features,
            "grids": _jsonable(self.grids),
            "averages": self.averages(),
            "folds": [{m: r.to_dict() for m, r in f.items()} for f in self.folds],
        }

    def to_json(self, path: Union[str, os.PathLike]) -> None:
        """Write :meth:`to_dict` as JSON (features 1-based as in the files)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1))

    def table(self) -> str:
        """The averaged test table as plain text (what the CLI prints)."""
        avg = self.averages()
        w = max(8, *(len(m) for m in self.methods))
        head = f"{'method':<{w}}  {'MAP':>7} {'P@10':>7} {'NDCG@10':>7} {'MeanNDCG':>8} {'#feat':>6} {'fit s':>7}"
        lines = [head]
        for m in self.methods:
            a = avg[m]
            lines.append(f"{m:<{w}}  {a['MAP']:7.4f} {a['P@10']:7.4f} {a['NDCG@10']:7.4f} {a['MeanNDCG']:8.4f} "
                         f"{a['n_features']:6.1f} {a['fit_time']:7.1f}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A Markdown report: averages, per-fold tables (as the greedy RankRLS paper's
        Tables 7-10), P@k / NDCG@k, chosen hyperparameters and selected features per fold
        (as its Tables 1-2; features 1-based), skipped degenerate grid points, t-tests."""
        avg = self.averages()
        names = [f.get(self.methods[0]).fold for f in self.folds]
        L = [f"# Experiment on `{self.data_dir}`", "",
             f"Selection by validation {self.metric}; {self.convention} evaluation conventions; "
             f"{len(self.folds)} folds; test-set means over the folds.", "",
             "## Averages", "",
             "| method | MAP | P@10 | NDCG@10 | MeanNDCG | #features | sparsity ratio | fit time (s) |",
             "|---|---|---|---|---|---|---|---|"]
        for m in self.methods:
            a = avg[m]
            L.append(f"| {m} | {a['MAP']:.4f} | {a['P@10']:.4f} | {a['NDCG@10']:.4f} | {a['MeanNDCG']:.4f} | "
                     f"{a['n_features']:.1f} | {a['sparsity_ratio']:.2f} | {a['fit_time']:.1f} |")
        for key in ("MAP", "P@10", "MeanNDCG", "NDCG@10"):
            L += ["", f"## {key} per fold (test)", "", "| fold | " + " | ".join(self.methods) + " |",
                  "|---" * (len(self.methods) + 1) + "|"]
            for name, f in zip(names, self.folds):
                L.append(f"| {name} | " + " | ".join(f"{f[m].test[key]:.4f}" for m in self.methods) + " |")
            L.append("| avg | " + " | ".join(f"{avg[m][key]:.4f}" for m in self.methods) + " |")
        L += ["", "## P@k and NDCG@k (test, averaged)", "",
              "| method | " + " | ".join(f"P@{k}" for k in CUTOFFS) + " |", "|---" * (len(CUTOFFS) + 1) + "|"]
        for m in self.methods:
            L.append(f"| {m} | " + " | ".join(f"{avg[m][f'P@{k}']:.4f}" for k in CUTOFFS) + " |")
        L += ["", "| method | " + " | ".join(f"NDCG@{k}" for k in CUTOFFS) + " |", "|---" * (len(CUTOFFS) + 1) + "|"]
        for m in self.methods:
            L.append(f"| {m} | " + " | ".join(f"{avg[m][f'NDCG@{k}']:.4f}" for k in CUTOFFS) + " |")
        L += ["", "## Chosen hyperparameters and selected features (1-based, in selection order)", ""]
        for m in self.methods:
            rows = [f[m] for f in self.folds]
            L += [f"### {m}", "", "| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
            for p in rows[0].params:
                L.append(f"| {p} | " + " | ".join(_fmt_param(r.params.get(p)) for r in rows) + " |")
            L.append(f"| validation {self.metric} | " + " | ".join(f"{r.validation_score:.4f}" for r in rows) + " |")
            L.append("| #features | " + " | ".join(str(r.n_features) for r in rows) + " |")
            depth = min(10, max(len(r.selected_features) for r in rows))
            for i in range(depth):
                L.append(f"| selected {i + 1} | " + " | ".join(
                    str(r.selected_features[i] + 1) if i < len(r.selected_features) else "" for r in rows) + " |")
            if any(len(r.selected_features) > 10 for r in rows):
                L.append("")
                L.append("(only the first 10 selected features are shown)")
            L.append("")
        skipped = [(f[m].fold, m, s) for f in self.folds for m in self.methods for s in f[m].skipped]
        L += ["## Skipped degenerate grid points", ""]
        if skipped:
            L += ["Validation scores tied within every query (the model would rank by file order):", ""]
            L += [f"- {fold} {m}: " + ", ".join(f"{k}={_fmt_param(v)}" for k, v in s.items()) for fold, m, s in skipped]
        else:
            L.append("None.")
        if len(self.methods) > 1:
            L += ["", "## Paired t-tests (one-sided, per query, pooled over the test folds)", "",
                  "| A | B | metric | mean A | mean B | t | p (A > B) |", "|---|---|---|---|---|---|---|"]
            for a, b in itertools.combinations(self.methods, 2):
                for key in ("MAP", "NDCG@10"):
                    t = self.paired_ttest(a, b, key)
                    if t["mean_a"] < t["mean_b"]:
                        a2, b2 = b, a
                        t = self.paired_ttest(a2, b2, key)
                    else:
                        a2, b2 = a, b
                    L.append(f"| {a2} | {b2} | {'AP' if key == 'MAP' else key} | {t['mean_a']:.4f} | {t['mean_b']:.4f} | "
                             f"{t['statistic']:.3f} | {t['pvalue']:.3g} |")
        L += ["", "## Grids", ""]
        for m in self.methods:
            g = self.grids[m]
            L.append(f"- {m}: " + "; ".join(f"{p} = {_fmt_grid(v)}" for p, v in g.items()))
        return "\n".join(L) + "\n"


def _fmt_grid(vals: List[Any]) -> str:
    if len(vals) > 6 and all(isinstance(v, (int, np.integer)) for v in vals) and list(vals) == list(range(vals[0], vals[0] + len(vals))):
        return f"{vals[0]}..{vals[-1]}"
    s = [_fmt_param(v) for v in vals]
    return "{" + ", ".join(s[:3] + ["..."] + s[-2:] if len(s) > 8 else s) + "}"


# ---------------------------------------------------------------------- the run


@contextmanager
def _thread_limit(jobs: Optional[int]):
    """Bound the threads: RAYON_NUM_THREADS for the Rust core (read when rayon's global pool
    starts, i.e. at the first parallel kernel call of the process) and threadpoolctl for the
    BLAS behind NumPy/SciPy."""
    if jobs is None:
        yield
        return
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    os.environ["RAYON_NUM_THREADS"] = str(jobs)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn depends on threadpoolctl
        yield
        return
    with threadpool_limits(limits=jobs):
        yield


def _progress(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="fit", leave=False)


def _available_features(X: np.ndarray) -> np.ndarray:
    """Mask of the features not identically zero in the training set (Laporte et al.
    Section V-B: "we do not consider features that are zero for all the queries")."""
    return np.any(X != 0, axis=0)


def run(
    data_dir: Union[str, os.PathLike],
    methods: Sequence[Union[str, Tuple[str, Mapping[str, Any]]]],
    grid: Optional[Mapping[str, Mapping[str, Sequence[Any]]]] = None,
    metric: str = "map",
    convention: str = "letor",
    jobs: Optional[int] = None,
    progress: bool = True,
    folds: Optional[Sequence[int]] = None,
    curves: bool = True,
) -> ExperimentResult:
    """Run the LETOR protocol on ``data_dir/Fold*/{train,vali,test}.txt``.

    Parameters
    ----------
    data_dir : path of the fold layout (``Fold1`` .. ``Fold5``).
    methods : method names (see :data:`METHODS`), optionally with fixed options
        ``"sparse-ranksvm:penalty=log"``; a method may appear with different options.
    grid : ``{method: {param: values}}`` overriding parts of the default grids (the key is
        the method name, which applies to every variant, or a full label with options;
        entries for methods not in ``methods`` are ignored, unknown names are errors).
    metric : validation metric for model selection: "map" (default), "ndcg@k", "p@k",
        "meanndcg".
    convention : "letor" (Eval-Score-4.0 conventions, default) or "standard".
    jobs : bound the number of threads (Rust core via ``RAYON_NUM_THREADS``, effective if no
        parallel kernel ran yet in this process; BLAS via threadpoolctl).
    progress : show a tqdm bar per fold x grid point (silently none without tqdm).
    folds : 1-based fold numbers to run (default all).
    curves : also evaluate every grid point on test (for the feature-count plots).

    Returns
    -------
    ExperimentResult
    """
    if isinstance(metric, str) and metric.lower() in SELECTION_METRICS:
        sel_key = SELECTION_METRICS[metric.lower()]
    else:
        raise ValueError(f"metric must be one of {', '.join(SELECTION_METRICS)}, got {metric!r}")
    if convention not in _CONVENTIONS:
        raise ValueError(f"convention must be 'letor' or 'standard', got {convention!r}")
    if isinstance(methods, (str, tuple)):
        methods = [methods]
    parsed = [parse_method(m) for m in methods]
    if not parsed:
        raise ValueError("methods is empty: name at least one method, e.g. ['rankrls']")
    labels = [p[0] for p in parsed]
    if len(set(labels)) != len(labels):
        raise ValueError(f"methods lists a method twice: {labels}")
    if grid is not None:
        for key in grid:
            base = key.partition(":")[0]
            if base not in METHODS:
                raise ValueError(f"grid names unknown method {key!r}; known methods: {', '.join(sorted(METHODS))}")

    if folds is not None:
        if isinstance(folds, (str, bytes)) or np.ndim(folds) != 1:
            raise TypeError(f"folds must be a sequence of 1-based fold numbers, got {folds!r}")
        folds = list(folds)
        if not folds:
            raise ValueError("folds is empty: name at least one fold (1-based), or pass None for all")
        for i in folds:
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
                raise TypeError(f"folds must hold integer fold numbers (1-based), got {i!r}")
    with _thread_limit(jobs):
        all_folds = load_folds(data_dir)
        if folds is not None:
            bad = [i for i in folds if not (1 <= i <= len(all_folds))]
            if bad:
                raise ValueError(f"folds must be in 1..{len(all_folds)}, got {bad}")
            all_folds = [all_folds[int(i) - 1] for i in folds]
        n = all_folds[0].train.X.shape[1]
        grids = {label: _resolve_grid(label, name, n, grid, options) for label, name, options in parsed}
        total = sum(METHODS[name].n_units(grids[label]) for label, name, _ in parsed) * len(all_folds)
        bar = _progress(total, progress, "experiment")
        results: List[Dict[str, MethodFold]] = []
        try:
            for fold in all_folds:
                cache: Dict[str, Any] = {}
                per_method = {}
                for label, name, options in parsed:
                    if bar is not None:
                        bar.set_description(f"{fold.name} {label}")
                    per_method[label] = _run_method(fold, label, name, options, grids[label], sel_key,
                                                    convention, cache, bar, curves)
                results.append(per_method)
        finally:
            if bar is not None:
                bar.close()
    return ExperimentResult(str(data_dir), labels, sel_key, convention, grids, results, n)


def _run_method(fold, label, name, options, grid, sel_key, convention, cache, bar, curves) -> MethodFold:
    spec = METHODS[name]
    tr, va, te = fold.train, fold.vali, fold.test
    n = tr.X.shape[1]
    best: Optional[Tuple[float, Candidate]] = None
    skipped: List[Dict[str, Any]] = []
    curve: List[Dict[str, Any]] = []
    n_cand = 0
    fit_time = 0.0
    t0 = time.perf_counter()
    gen = spec.candidates(tr, grid, options, cache.setdefault(name, {}))
    while True:
        try:
            batch = next(gen)
        except StopIteration:
            break
        fit_time += time.perf_counter() - t0
        for cand in batch:
            n_cand += 1
            coef = np.asarray(cand.coef, dtype=float)
            if coef.shape != (n,):
                raise RuntimeError(f"method {label!r} returned a weight vector of shape {coef.shape}, expected ({n},)")
            sv = va.X @ coef
            if not np.all(np.isfinite(coef)) or _ties_within_every_query(sv, va.qid):
                skipped.append(dict(cand.params))
                continue
            vscores = _scores((sel_key, "MAP", "NDCG@10") if curves else (sel_key,), va.y, sv, va.qid, convention)
            v = vscores[sel_key]
            if curves:
                ts = _scores(("MAP", "NDCG@10"), te.y, te.X @ coef, te.qid, convention)
                curve.append({"params": dict(cand.params), "n_features": len(cand.selected),
                              "vali": {"MAP": vscores["MAP"], "NDCG@10": vscores["NDCG@10"]},
                              "test": {"MAP": ts["MAP"], "NDCG@10": ts["NDCG@10"]}})
            if best is None or v > best[0]:
                best = (v, Candidate(dict(cand.params), coef, list(cand.selected)))
        if bar is not None:
            bar.update(1)
        t0 = time.perf_counter()
    if best is None:
        raise ValueError(f"method {label!r} on {fold.name}: every one of the {n_cand} grid points is degenerate "
                         "(validation scores tie within every query); widen the grid")
    v, cand = best
    test = _evaluate(te.y, te.X @ cand.coef, te.qid, convention, per_query=True)
    per_query = test.pop("per_query")
    # A weight on an all-zero column changes no score (RankRLS leaves round-off there): the
    # count and the sparsity ratio are over the available features only.
    available = _available_features(tr.X)
    n_used = int(np.count_nonzero(cand.coef[available]))
    avail = max(1, int(available.sum()))
    return MethodFold(
        method=label, fold=fold.name, params=cand.params, validation_score=float(v), test=test,
        selected_features=[int(j) for j in cand.selected], n_features=n_used,
        sparsity_ratio=n_used / avail, fit_time=fit_time, per_query=per_query,
        test_qids=np.asarray(list(dict.fromkeys(te.qid.tolist()))), n_candidates=n_cand, skipped=skipped, curve=curve)
