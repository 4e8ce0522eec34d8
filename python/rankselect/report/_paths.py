"""An experiment's paths, pooled over the folds: per method and size, the per-query scores of
every fold's point of that size side by side (each query once), the subsets of that size, and
the all-features reference of each fold."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..protocol.loop_paths import LINEAR, ranker_of_label
from ..protocol.path_scores import PathScores
from ..protocol.results import ExperimentResult

__all__ = ["Pooled", "pool", "fold_paths", "consensus", "frequencies", "tested_subset", "available", "reference_rows",
           "Reference"]


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
    nested: Optional[np.ndarray] = None  # the cross-fitted validation scores (None in older files)
    fold_test: Optional[dict[int, list[np.ndarray]]] = None  # size -> each fold's per-query test scores


def fold_paths(res: ExperimentResult, method: str, measure: Optional[str] = None) -> list[PathScores]:
    """Every fold's path of ``method`` with its per-query scores in ``measure`` (default: the
    selection metric; ValueError when the file holds no scores in it)."""
    paths: list[PathScores] = [f[method].path for f in res.folds]  # type: ignore[misc]
    if measure is None:
        return paths
    try:
        return [p.in_measure(measure) for p in paths]
    except ValueError as exc:
        raise ValueError(f"{method}: {exc}") from None


def pool(res: ExperimentResult, method: str, measure: Optional[str] = None) -> Pooled:
    """The folds' paths of ``method`` pooled (the sizes reached in every fold), in ``measure``."""
    paths = fold_paths(res, method, measure)
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
    nested = None
    if all(p.nested is not None for p in paths):
        nested = np.array([np.concatenate([p.nested[i] for p, i in zip(paths, rows[k])])  # type: ignore[index]
                           for k in sizes]).reshape(len(sizes), -1)
    fold_test = {k: [p.test[i] for p, i in zip(paths, rows[k])] for k in sizes}
    return Pooled(method, sizes, vali, test, vq, tq, means, subsets, nested, fold_test)


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


def tested_subset(subsets: list[list[int]], n: int) -> tuple[int, list[int]]:
    """The subset to hand off among the folds' own subsets of one size (each tested on its
    fold's test queries): the one whose features the folds select most often (the largest sum
    of :func:`frequencies`; ties: the first fold), as (its fold's index, the subset in its
    selection order). Unlike :func:`consensus`, the subset handed off is one that was tested."""
    freq = frequencies(subsets, n)
    totals = [float(freq[np.asarray(s, dtype=np.intp)].sum()) for s in subsets]
    i = int(np.flatnonzero(np.asarray(totals) == max(totals))[0])
    return i, list(subsets[i])


def available(res: ExperimentResult, i: int) -> int:
    """The features in use by an all-features model in fold ``i`` (the columns not zero on
    every training row): ``n_features / sparsity_ratio`` of any chosen model."""
    for r in res.folds[i].values():
        if r.n_features > 0 and r.sparsity_ratio > 0:
            return int(round(r.n_features / r.sparsity_ratio))
    return res.n_features


@dataclass
class Reference:
    """The model on all the features in each fold: its per-query test scores (``rows``, one
    array per fold), the method and size it is in each fold (``sources``), and its label."""

    rows: list[np.ndarray]
    sources: list[tuple[str, int]]
    label: str

    @property
    def pooled(self) -> np.ndarray:
        return np.concatenate(self.rows)


def reference_rows(res: ExperimentResult, method: str, measure: Optional[str] = None) -> Reference:
    """The per-query test scores of the model on all the features, fold by fold, for the
    ranker of ``method`` (:func:`~rankselect.protocol.loop_paths.ranker_of_label`: the linear
    models of every linear method, or rfe / forward's own ranker): in each fold the largest
    point of any such method's path (``method``'s own first on ties: e.g. greedy RankRLS at
    k = n; an all-features method such as ``rankrls`` otherwise), with its label. A ValueError
    says when that largest model leaves out more than a tenth of the features in use (every
    grid stopped early: add ``--method rankrls``)."""
    rows, used = [], []
    ranker = ranker_of_label(method)
    same = [m for m in res.methods if ranker_of_label(m) == ranker]
    order = [method] + [m for m in same if m != method]
    for i, f in enumerate(res.folds):
        paths: list[tuple[str, PathScores]] = [(m, p) for m in order if (p := f[m].path) is not None and len(p)]
        m, p = max(paths, key=lambda mp: int(mp[1].n_features.max()))  # the first on ties
        full = int(p.n_features.max())
        if full < 0.9 * available(res, i):
            hint = "e.g. --method rankrls" if ranker == LINEAR else f"a {ranker} path that reaches every feature"
            raise ValueError(f"{f[method].fold}: the largest {ranker} model of the experiment uses {full} of the "
                             f"{available(res, i)} features in use: there is no all-features reference (run an "
                             f"all-features method too, {hint})")
        if measure is not None:
            p = p.in_measure(measure)
        rows.append(p.test[p.index_of(full)])
        used.append((m, full))
    ms = list(dict.fromkeys(m for m, _ in used))
    counts = sorted({k for _, k in used})
    span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return Reference(rows, used, f"all features ({' / '.join(ms)} on all {span} features in use)")
