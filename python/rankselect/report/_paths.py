"""An experiment's paths, pooled over the folds: per method and size, the per-query scores of
every fold's point of that size side by side (each query once), the subsets of that size, and
the all-features reference of each fold."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..protocol.path_scores import PathScores
from ..protocol.results import ExperimentResult

__all__ = ["Pooled", "pool", "consensus", "frequencies", "available", "reference_rows"]


@dataclass
class Pooled:
    """One method's path over the folds: the sizes every fold reaches, the per-query scores
    (one row per size; the folds' queries side by side), every fold's mean per size and subset
    of each size (0-based)."""

    method: str
    sizes: list[int]
    vali: np.ndarray
    test: np.ndarray
    vali_qids: list[str]
    test_qids: list[str]
    fold_means: dict[str, list[float]]
    subsets: dict[int, list[list[int]]]  # size -> each fold's features in use


def pool(res: ExperimentResult, method: str) -> Pooled:
    """The folds' paths of ``method`` pooled (the sizes reached in every fold)."""
    paths: list[PathScores] = [f[method].path for f in res.folds]  # type: ignore[misc]
    names = [f[method].fold for f in res.folds]
    common = set.intersection(*(set(int(k) for k in p.n_features) for p in paths))
    sizes = sorted(common)
    rows = {k: [p.index_of(k) for p in paths] for k in sizes}
    vali = np.array([np.concatenate([p.vali[i] for p, i in zip(paths, rows[k])]) for k in sizes]).reshape(
        len(sizes), -1)
    test = np.array([np.concatenate([p.test[i] for p, i in zip(paths, rows[k])]) for k in sizes]).reshape(
        len(sizes), -1)
    vq = [f"{name}:{q}" for name, p in zip(names, paths) for q in p.vali_qids.tolist()]
    tq = [f"{f[method].fold}:{q}" for f in res.folds for q in f[method].test_qids.tolist()]
    means = {name: [float(p.vali[i].mean()) for i in (rows[k][j] for k in sizes)]
             for j, (name, p) in enumerate(zip(names, paths))}
    subsets = {k: [list(p.features[i]) for p, i in zip(paths, rows[k])] for k in sizes}
    return Pooled(method, sizes, vali, test, vq, tq, means, subsets)


def frequencies(subsets: list[list[int]], n: int) -> np.ndarray:
    """How often each of the ``n`` features is in the folds' subsets (fraction of the folds)."""
    counts = np.zeros(n)
    for s in subsets:
        counts[np.asarray(s, dtype=np.intp)] += 1
    return counts / max(1, len(subsets))


def consensus(subsets: list[list[int]], n: int, k: int) -> list[int]:
    """The ``k`` features most often in the folds' subsets of size ``k`` (ties: the earlier
    mean position in the folds' selection orders, then the lower column)."""
    freq = frequencies(subsets, n)
    pos = np.full(n, np.inf)
    for j in np.flatnonzero(freq > 0):
        pos[j] = np.mean([s.index(int(j)) for s in subsets if int(j) in s])
    order = [int(j) for j in np.lexsort((np.arange(n), pos, -freq)) if freq[j] > 0]
    return order[:k]


def available(res: ExperimentResult, i: int) -> int:
    """The features in use by an all-features model in fold ``i`` (the columns not zero on
    every training row): ``n_features / sparsity_ratio`` of any chosen model."""
    for r in res.folds[i].values():
        if r.n_features > 0 and r.sparsity_ratio > 0:
            return int(round(r.n_features / r.sparsity_ratio))
    return res.n_features


def reference_rows(res: ExperimentResult, method: str) -> tuple[np.ndarray, str]:
    """The per-query test scores of the model on all the features, fold after fold: in each
    fold the largest point of any method's path (``method``'s own first on ties: e.g. greedy
    RankRLS at k = n; an all-features method such as ``rankrls`` otherwise), with its label.
    A ValueError says when that largest model leaves out more than a tenth of the features in
    use (every grid stopped early: add ``--method rankrls``)."""
    rows, used = [], []
    for i, f in enumerate(res.folds):
        order = [method] + [m for m in res.methods if m != method]
        paths: list[tuple[str, PathScores]] = [(m, p) for m in order if (p := f[m].path) is not None and len(p)]
        m, p = max(paths, key=lambda mp: int(mp[1].n_features.max()))  # the first on ties
        full = int(p.n_features.max())
        if full < 0.9 * available(res, i):
            raise ValueError(f"{f[method].fold}: the largest model of the experiment uses {full} of the "
                             f"{available(res, i)} features in use: there is no all-features reference (run an "
                             "all-features method too, e.g. --method rankrls)")
        rows.append(p.test[p.index_of(full)])
        used.append((m, full))
    ms = list(dict.fromkeys(m for m, _ in used))
    counts = sorted({k for _, k in used})
    span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return np.concatenate(rows), f"all features ({' / '.join(ms)} on all {span} features in use)"
