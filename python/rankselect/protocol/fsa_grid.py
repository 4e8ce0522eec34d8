"""The FSA subset grid (Gigli et al. 2016): keep 5, 10, 20, 30, 40, 50 and 75 % of the
features, then retrain a ranker on them and report its test NDCG@10, per selector and size.

For every fold and every selector, the selection of each size is made on ``train`` alone;
the downstream rankers then see only the kept features:

- ``"linear"``: RankRLS, its ``alpha`` chosen on ``vali`` by NDCG@10 over the powers of two
  2^-10..2^10 (one eigendecomposition per subset);
- ``"lightgbm"`` (when LightGBM is installed): ``LGBMRanker`` (lambdarank, 300 trees at
  most, learning rate 0.05, 31 leaves, early stopping after 30 rounds on ``vali`` NDCG@10,
  one thread, ``deterministic=True``, seed 0).

NDCG@10 is LETOR's (``convention="letor"``, :mod:`rankselect.metrics`). Selectors:
``greedy-rankrls`` (``alpha`` option, default 1; ``floating=True`` for SFFS), ``gas``,
``ngas``, ``xgas``, ``hcas`` (their importance / similarity options; the filters default
to NDCG@10 and Spearman as FSA), ``sparse-ranksvm`` (the weakest C on a 30-point path whose
model keeps at most k features: possibly fewer). Results are cached one JSON line per
(fold, selector, size, ranker) in ``cache`` (resumable: a rerun skips what is there).
"""
from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from ..analysis.stats.compare import markdown_cell
from ..methods import POW2
from ..metrics import ndcg
from ..models import RankRLS
from ..selection import GAS, HCAS, NGAS, XGAS, FeatureImportance, GreedyRankRLS, SparseRankSVM
from ..selection.importance import lambdarank_ranker
from .runner import load_folds

try:  # the optional downstream ranker
    import lightgbm
except ImportError:  # pragma: no cover - exercised only without LightGBM
    lightgbm = None  # type: ignore[assignment, unused-ignore]  # (unused when mypy runs without LightGBM)

__all__ = ["FSA_FRACTIONS", "fsa_sizes", "fsa_grid", "FSAGridResult", "SELECTORS", "RANKERS"]

#: the fractions of the features kept (Gigli et al. 2016)
FSA_FRACTIONS = (0.05, 0.10, 0.20, 0.30, 0.40, 0.50, 0.75)
#: the selectors the grid runs
SELECTORS = ("greedy-rankrls", "gas", "ngas", "xgas", "hcas", "sparse-ranksvm")
#: the downstream rankers
RANKERS = ("linear", "lightgbm")


def fsa_sizes(n_features: int) -> list[int]:
    """``max(1, round(f n))`` for every FSA fraction ``f`` (halves up).

    Examples
    --------
    >>> from rankselect.protocol import fsa_sizes
    >>> fsa_sizes(46)  # MQ2008's 46 features
    [2, 5, 9, 14, 18, 23, 35]
    """
    return [max(1, int(np.floor(f * n_features + 0.5))) for f in FSA_FRACTIONS]


def _parse(label: str) -> tuple[str, dict]:
    name, _, rest = label.partition(":")
    if name not in SELECTORS:
        raise ValueError(f"fsa grid: unknown selector {name!r} (selectors: {', '.join(SELECTORS)})")
    opts: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        k, _, v = item.partition("=")
        opts[k] = {"true": True, "false": False}.get(v.lower(), v)
        if k in ("alpha", "c"):
            opts[k] = float(v)
    return name, opts


def _selections(label: str, X, y, q, sizes: Sequence[int]) -> dict[int, list[int]]:
    """The selection of every size on the training data."""
    name, opts = _parse(label)
    kmax = max(sizes)
    if name == "greedy-rankrls":
        est = GreedyRankRLS(kmax, alpha=opts.get("alpha", 1.0), floating=bool(opts.get("floating", False)))
        est.fit(X, y, qid=q)
        if est.floating:
            return {k: [int(j) for j in est.best_subsets_[k - 1]] for k in sizes if k <= len(est.best_subsets_)}
        order = [int(j) for j in est.selected_features_]
        return {k: order[:k] for k in sizes if k <= len(order)}
    if name == "sparse-ranksvm":
        path = SparseRankSVM().path(X, y, q, n_Cs=30, ratio=1e4)
        out = {}
        for k in sizes:
            ok = np.flatnonzero((path.n_selected <= k) & (path.n_selected > 0))
            if ok.size:  # none: no point of the path keeps between 1 and k features
                out[k] = [int(j) for j in np.flatnonzero(path.coefs[ok[-1]])]
        return out
    cls = {"gas": GAS, "ngas": NGAS, "xgas": XGAS, "hcas": HCAS}[name]
    default_imp = "map" if name == "gas" else "ndcg@10"
    default_sim = "geng" if name == "gas" else "spearman"
    kw = {"importance": opts.get("importance", default_imp), "similarity": opts.get("similarity", default_sim)}
    if "c" in opts:
        kw["c"] = opts["c"]
    if name == "hcas":
        first = HCAS(1, opts.get("linkage", "ward"), **kw).fit(X, y, qid=q)
        imp, sim = first.importance_, first.similarity_
        given = {"importance": FeatureImportance(imp, first.directions_), "similarity": sim}
        return {k: [int(j) for j in HCAS(k, opts.get("linkage", "ward"), **given).fit(X, y, qid=q).selected_features_]
                for k in sizes}
    order = [int(j) for j in cls(kmax, **kw).fit(X, y, qid=q).selected_features_]
    return {k: order[:k] for k in sizes}


def _linear(fold, sub) -> float:
    tr, va, te = fold.train, fold.vali, fold.test
    coefs = RankRLS().path(tr.X[:, sub], tr.y, tr.qid, alphas=POW2).coefs
    scores = [ndcg(va.y, va.X[:, sub] @ w, va.qid, 10, convention="letor") for w in coefs]
    w = coefs[int(np.argmax(scores))]
    return float(ndcg(te.y, te.X[:, sub] @ w, te.qid, 10, convention="letor"))


def _sizes_of(qid) -> np.ndarray:
    _, first, counts = np.unique(qid, return_index=True, return_counts=True)
    return counts[np.argsort(first)]


def _lightgbm(fold, sub) -> float:
    tr, va, te = fold.train, fold.vali, fold.test
    model = lambdarank_ranker(tr.y, "the FSA grid's lightgbm ranker", n_estimators=300, learning_rate=0.05,
                              num_leaves=31)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # eval_set is renamed in LightGBM >= 4.7
        warnings.simplefilter("ignore", DeprecationWarning)
        model.fit(tr.X[:, sub], tr.y.astype(int), group=_sizes_of(tr.qid),
                  eval_set=[(va.X[:, sub], va.y.astype(int))], eval_group=[_sizes_of(va.qid)], eval_at=[10],
                  callbacks=[lightgbm.early_stopping(30, verbose=False)])
    return float(ndcg(te.y, model.predict(te.X[:, sub]), te.qid, 10, convention="letor"))


@dataclass
class FSAGridResult:
    """``rows``: one dict per (fold, selector, size, ranker) with ``ndcg10`` (test NDCG@10)
    and ``n_selected``; ``sizes``: the sizes of the grid; ``n_features``.

    Examples
    --------
    >>> from rankselect.protocol import FSAGridResult, fsa_sizes
    >>> rows = [{"fold": 1, "selector": "ngas", "k": k, "ranker": "linear", "ndcg10": 0.5, "n_selected": k}
    ...         for k in fsa_sizes(10)]
    >>> print(FSAGridResult(rows, fsa_sizes(10), 10).table())
    | selector | 5% (k=1) | 10% (k=1) | 20% (k=2) | 30% (k=3) | 40% (k=4) | 50% (k=5) | 75% (k=8) |
    |---|---|---|---|---|---|---|---|
    | ngas | 0.5000 | 0.5000 | 0.5000 | 0.5000 | 0.5000 | 0.5000 | 0.5000 |
    """

    rows: list
    sizes: list
    n_features: int

    def table(self, ranker: str = "linear") -> str:
        """Markdown: one row per selector, one column per FSA fraction, the mean test
        NDCG@10 over the folds (``-`` where a selector has no subset of that size)."""
        labels = list(dict.fromkeys(r["selector"] for r in self.rows if r["ranker"] == ranker))
        head = "| selector | " + " | ".join(f"{f:.0%} (k={k})" for f, k in zip(FSA_FRACTIONS, self.sizes)) + " |"
        lines = [head, "|---" * (len(self.sizes) + 1) + "|"]
        for label in labels:
            cells = []
            for k in self.sizes:
                v = [r["ndcg10"] for r in self.rows if r["selector"] == label and r["k"] == k and r["ranker"] == ranker]
                cells.append(f"{np.mean(v):.4f}" if v else "-")
            lines.append(f"| {markdown_cell(label)} | " + " | ".join(cells) + " |")
        return "\n".join(lines)


def fsa_grid(data_dir: Union[str, os.PathLike], selectors: Sequence[str], *, folds: Optional[Sequence[int]] = None,
             rankers: Sequence[str] = RANKERS, cache: Union[str, os.PathLike, None] = None,
             progress: bool = False) -> FSAGridResult:
    """Run the FSA subset grid (module docstring) on ``data_dir/Fold*/``.

    ``rankers``: ``"linear"`` and/or ``"lightgbm"`` (skipped with a note on stderr when
    LightGBM is not installed). ``cache``: a JSON-lines file of finished results.

    Examples
    --------
    Not run here (it needs the LETOR folds on disk and fits every selector on every fold):

    >>> from rankselect.protocol import fsa_grid
    >>> result = fsa_grid("data/MQ2008", ["ngas", "xgas", "hcas"], rankers=["linear"])  # doctest: +SKIP
    >>> print(result.table("linear"))  # doctest: +SKIP
    """
    rankers = list(rankers)
    for r in rankers:
        if r not in RANKERS:
            raise ValueError(f"ranker must be one of {RANKERS}, got {r!r}")
    if "lightgbm" in rankers:
        if lightgbm is None:
            print("fsa grid: LightGBM is not installed; only the linear ranker is reported", file=sys.stderr)
            rankers.remove("lightgbm")
    for label in selectors:
        _parse(label)
    all_folds = load_folds(data_dir)
    chosen = list(range(1, len(all_folds) + 1)) if folds is None else [int(f) for f in folds]
    done: dict = {}
    path = Path(cache) if cache is not None else None
    if path is not None and path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if r["n_selected"] > 0:  # an empty subset is no result
                done[(r["fold"], r["selector"], r["k"], r["ranker"])] = r
    n = all_folds[0].train.X.shape[1]
    sizes = fsa_sizes(n)
    rows = []
    for f in chosen:
        fold = all_folds[f - 1]
        for label in selectors:
            if all((f, label, k, r) in done for k in sizes for r in rankers):
                rows += [done[(f, label, k, r)] for k in sizes for r in rankers]
                continue
            subsets = _selections(label, fold.train.X, fold.train.y, fold.train.qid, sizes)
            for k in sizes:
                for ranker in rankers:
                    key = (f, label, k, ranker)
                    if key not in done and k in subsets:
                        sub = subsets[k]
                        value = _linear(fold, sub) if ranker == "linear" else _lightgbm(fold, sub)
                        done[key] = {"fold": f, "selector": label, "k": k, "ranker": ranker, "ndcg10": value,
                                     "n_selected": len(sub), "features": sub}
                        if path is not None:
                            with path.open("a") as fh:
                                fh.write(json.dumps(done[key]) + "\n")
                    if key in done:
                        rows.append(done[key])
            if progress:
                print(f"fsa grid: fold {f} {label} done", file=sys.stderr, flush=True)
    return FSAGridResult(rows, sizes, n)
