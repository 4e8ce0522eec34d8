"""The search of :class:`~rankselect.selection.cascade.CascadeSelection`: nested prefixes of a
selection path as the phases of two-phase cascades, phase 2 also selected on the training rows
phase 1 keeps, their rankers, their costs per query and the grid of their validation values
(evaluated by the Rust core, ``_core.cascade_grid_per_query``).

A candidate cascade is ``(a, N, b)``: phase 1 ranks every document of a query with the first
``a`` features of the path, phase 2 re-ranks phase 1's top ``N`` with ``b > a`` features,
phase 1's first: a longer prefix of the path (RankRLS trained on the training documents that
phase 1 keeps, or on all of them: :func:`candidates`), or phase 1's features followed by the
cost-aware greedy path continued on the kept documents (:func:`reselected`). A single phase is
``(a, None, None)``.

Cost per query (``c(S)`` the cost of a subset per document, :class:`~rankselect.data.ExtractionCosts`
with groups: a group's extraction cost once per phase that first uses it; ``n_q`` the query's
documents): one phase ``c(S1) n_q``; with ``reuse`` (phase 2 reads phase 1's values: Vespa,
Solr) ``c(S1) n_q + c(S2 \\ S1) min(N, n_q)``, where ``c(S2 \\ S1) = c(S1 + S2) - c(S1)``
(``S1 + S2`` the union); without (each window computes its own set: OpenSearch /
Elasticsearch rescore windows) ``c(S1) n_q + c(S2) min(N, n_q)``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
from sklearn.base import clone

from .. import _core
from .._config import memory_limit
from ..data.feature_groups import ExtractionCosts
from ..exceptions import DegenerateDataWarning

__all__ = ["candidates", "grid_values", "cascade_cost", "compose", "reselected", "reselected_values"]

#: score columns of one call of the core's grid (rows x columns), beyond which it is split
GRID_CHUNK = 1 << 24


def _query_means(v: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per-row mean of ``v`` (rows or columns ``(m,)`` / ``(m, k)``) over its query."""
    offsets = np.asarray(offsets, dtype=np.intp)
    sizes = np.diff(offsets)
    sums = np.add.reduceat(v, offsets[:-1], axis=0) if len(v) else np.zeros((0,) + v.shape[1:])
    means = sums / sizes.reshape((-1,) + (1,) * (v.ndim - 1))
    return np.repeat(means, sizes, axis=0)


def _centred_system(X: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RankRLS's normal equations on grouped rows: ``(Xc^T Xc, Xc^T yc)`` with ``Xc``, ``yc``
    centred within each query (Pahikkala et al. 2010, eq. 5)."""
    Xc = X - _query_means(X, offsets)
    yc = y - _query_means(y, offsets)
    return Xc.T @ Xc, Xc.T @ yc


def _prefix_weights(G: np.ndarray, r: np.ndarray, alpha: float, sizes) -> dict[int, np.ndarray]:
    """RankRLS weights ``(G_s + alpha I)^-1 r_s`` on the first ``s`` columns of the system, for
    every ``s`` in ``sizes``."""
    return {s: np.linalg.solve(G[:s, :s] + alpha * np.eye(s), r[:s]) for s in sizes}


def _grid_p_value(d: np.ndarray, flips: int = 1000, seed: int = 0) -> float:
    """One-sided p-value of the best column mean of ``d`` (validation queries x affordable
    cascades: each cascade's per-query difference from the best affordable single phase) under
    the paired sign-flip null applied jointly to every column (a max-statistic permutation
    test: it accounts for taking the best of the grid). ``flips`` seeded sign patterns."""
    if d.size == 0:
        return 1.0
    n = d.shape[0]
    observed = d.mean(axis=0).max()
    rng = np.random.default_rng(seed)
    hits = 0
    for lo in range(0, flips, 100):
        signs = rng.choice([-1.0, 1.0], size=(min(100, flips - lo), n))
        hits += int(np.sum((signs @ d / n).max(axis=1) >= observed - 1e-12 * max(1.0, abs(observed))))
    return (hits + 1) / (flips + 1)


def _top_window_order(scores: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Rows ``lo..hi`` (one query) by ``scores`` descending, ties in row order (stable)."""
    return lo + np.argsort(-scores[lo:hi], kind="stable")


def _kept_rows(scores: np.ndarray, offsets: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows phase 1 keeps (each query's top ``min(window, n_q)`` by ``scores``, ties in row
    order), in row order, and their query offsets."""
    keep, new = [], [0]
    for q in range(len(offsets) - 1):
        top = np.sort(_top_window_order(scores, int(offsets[q]), int(offsets[q + 1]))[:window])
        keep.append(top)
        new.append(new[-1] + len(top))
    rows = np.concatenate(keep) if keep else np.zeros(0, dtype=np.intp)
    return rows, np.asarray(new, dtype=np.uintp)


def compose(s1: np.ndarray, s2: Optional[np.ndarray], window: Optional[int], offsets: np.ndarray) -> np.ndarray:
    """Scores (grouped rows) whose descending order is the cascade's: each query's top
    ``min(window, n_q)`` rows by ``s1`` (ties in row order) ordered by ``s2`` (ties in phase-1
    order) above the rest in phase-1 order; ``s1`` itself without phase 2.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.cascade import compose
    >>> compose(np.array([3.0, 2.0, 1.0]), np.array([0.0, 5.0, 9.0]), 2, np.array([0, 3]))
    array([2., 3., 1.])
    """
    if s2 is None or window is None:
        return np.asarray(s1, dtype=float)
    out = np.empty(len(s1))
    for q in range(len(offsets) - 1):
        lo, hi = int(offsets[q]), int(offsets[q + 1])
        order = _top_window_order(s1, lo, hi)
        top = order[:window]
        order[:len(top)] = top[np.argsort(-s2[top], kind="stable")]
        out[order] = np.arange(hi - lo, 0, -1, dtype=float)
    return out


def cascade_cost(costs: ExtractionCosts, sizes: np.ndarray, s1, s2=None, window: Optional[int] = None, *,
                 reuse: bool = True) -> float:
    """Mean cost per query of a phase ``s1`` (and phase 2 ``s2`` on the top ``window``) over
    queries of ``sizes`` documents (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import ExtractionCosts
    >>> from rankselect.selection.cascade_search import cascade_cost
    >>> costs = ExtractionCosts(np.array([1.0, 10.0]))
    >>> cascade_cost(costs, [100, 40], [0]), cascade_cost(costs, [100, 40], [0], [0, 1], window=20)
    (70.0, 270.0)
    """
    c1 = costs.total(s1)
    n = np.asarray(sizes, dtype=float)
    if s2 is None:
        return float(np.mean(c1 * n))
    both = list(dict.fromkeys([int(j) for j in s1] + [int(j) for j in s2]))
    c2 = costs.total(both) - c1 if reuse else costs.total(s2)
    return float(np.mean(c1 * n + c2 * np.minimum(float(window or 0), n)))


@dataclass
class Candidates:
    """The grid: single phases (phase-1 sizes ``a``) and cascades (``(a, N, b)``), with the
    weights of every ranker on the path's columns."""

    sizes1: list[int]
    weights1: dict[int, np.ndarray]
    cascades: list[tuple[int, int, int]]
    weights2: dict[tuple[int, int, int], np.ndarray]


def candidates(Xp: np.ndarray, y: np.ndarray, offsets: np.ndarray, alpha: float, windows, *,
               phase2_rows: str = "kept") -> Candidates:
    """Every single phase and cascade on the path's columns ``Xp`` (grouped training rows, the
    path's columns in path order): phase 1 = a prefix, phase 2 = a longer prefix trained on the
    training rows that phase 1 keeps (``phase2_rows="kept"``) or on every training row
    (``"all"``: the single phase of that prefix), for every window.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.cascade_search import candidates, grid_values
    >>> rng = np.random.default_rng(0)
    >>> X, y, offsets = rng.normal(size=(12, 3)), rng.integers(0, 3, 12).astype(float), np.array([0, 6, 12])
    >>> c = candidates(X, y, offsets, 1.0, windows=[2])
    >>> c.sizes1, c.cascades
    ([1, 2, 3], [(1, 2, 2), (1, 2, 3), (2, 2, 3)])
    """
    k = Xp.shape[1]
    G, r = _centred_system(Xp, y, offsets)
    sizes = list(range(1, k + 1))
    w1 = _prefix_weights(G, r, alpha, sizes)
    if phase2_rows not in ("kept", "all"):
        raise ValueError(f"phase2_rows must be 'kept' or 'all', got {phase2_rows!r}")
    cascades, w2 = [], {}
    if phase2_rows == "all":
        keys = [(a, int(n), b) for a in range(1, k) for n in windows for b in range(a + 1, k + 1)]
        return Candidates(sizes, w1, keys, {key: w1[key[2]] for key in keys})
    for a in range(1, k):
        s1 = Xp[:, :a] @ w1[a]
        for n in windows:
            rows, off = _kept_rows(s1, offsets, int(n))
            G2, r2 = _centred_system(Xp[rows], y[rows], off)
            for b, w in _prefix_weights(G2, r2, alpha, range(a + 1, k + 1)).items():
                cascades.append((a, int(n), b))
                w2[(a, int(n), b)] = w
    return Candidates(sizes, w1, cascades, w2)


def grid_values(cands: Candidates, Xp: np.ndarray, y: np.ndarray, offsets: np.ndarray,
                spec: tuple[str, str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Per-query validation values ``(single (n_q, len(sizes1)), cascade (n_q, len(cascades)))``
    of every candidate on the grouped validation rows (``Xp``: the path's columns), computed by
    the core (one row of scores per ranker), in calls of at most :data:`GRID_CHUNK` phase-2
    score entries.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.cascade_search import candidates, grid_values
    >>> rng = np.random.default_rng(0)
    >>> X, y, offsets = rng.normal(size=(12, 3)), rng.integers(0, 3, 12).astype(float), np.array([0, 6, 12])
    >>> c = candidates(X, y, offsets, 1.0, windows=[2])
    >>> single, cascade = grid_values(c, X, y, offsets, ("ndcg@3", "exponential", "stable"))
    >>> single.shape, cascade.shape  # (queries, single phases), (queries, cascades)
    ((2, 3), (2, 3))
    """
    S1 = np.ascontiguousarray(np.stack([Xp[:, :a] @ cands.weights1[a] for a in cands.sizes1]))
    n_q, m = len(offsets) - 1, Xp.shape[0]
    single = np.zeros((n_q, len(cands.sizes1)))
    cascade = np.zeros((n_q, len(cands.cascades)))
    per_call = max(1, GRID_CHUNK // max(m, 1))
    limit = memory_limit()
    offs = np.asarray(offsets, dtype=np.uintp)
    y = np.ascontiguousarray(y, dtype=float)
    for lo in range(0, max(len(cands.cascades), 1), per_call):
        chunk = cands.cascades[lo:lo + per_call]
        S2 = np.zeros((len(chunk), m))
        for j, (a, n, b) in enumerate(chunk):
            S2[j] = Xp[:, :b] @ cands.weights2[(a, n, b)]
        phase1 = np.array([a - 1 for a, _, _ in chunk], dtype=np.uintp)
        wins = np.array([n for _, n, _ in chunk], dtype=np.uintp)
        single, c = _core.cascade_grid_per_query(spec, y, offs, S1, S2, phase1, wins, max_memory=limit)
        cascade[:, lo:lo + len(chunk)] = c
    return single, cascade


@dataclass
class Reselected:
    """Phase 2 selected on the training rows phase 1 keeps, for phase 1 = the path's first ``a``
    columns and the window ``window``: ``order`` (positions in the path) is phase 1's columns
    followed by the cost-aware greedy path continued from them on the kept rows, ``weights[b]``
    the RankRLS weights on ``order[:b]`` (``b > a``) trained on those rows."""

    a: int
    window: int
    order: np.ndarray
    weights: dict[int, np.ndarray]


def _continuation(costs: ExtractionCosts, path: np.ndarray, a: int) -> dict:
    """The greedy's parameters that continue from phase 1 = the path's first ``a`` columns:
    units (``feature_groups``) phase 1 as one free unit, then each other column of the path; a
    column's cost is what it adds to phase 2's cost per document beyond phase 1's features, its
    own cost plus its group's when phase 1 touches none of the group (a group shared by several
    added columns is counted for each: the greedy's order, the costs of the grid are exact)."""
    fc = np.array(costs.feature_costs, dtype=float)[path]
    fc[:a] = 0.0
    units = ["phase 1"] * a + [f"column {j}" for j in range(a, len(path))]
    gc = {"phase 1": 0.0}
    groups, shared = costs.groups, costs.group_costs
    paid = set() if groups is None else set(groups.index[path[:a]].tolist())
    for j in range(a, len(path)):
        g = None if groups is None or shared is None else int(groups.index[path[j]])
        gc[units[j]] = 0.0 if g is None or shared is None or g in paid else float(shared[g])
    return {"feature_costs": fc, "feature_groups": units, "group_costs": gc, "select_groups": True}


def reselected(selector, Xp: np.ndarray, y: np.ndarray, offsets: np.ndarray, windows, costs: ExtractionCosts,
               path: np.ndarray, weights1: dict[int, np.ndarray], room: Callable[[int, int], Optional[float]], *,
               reuse: bool = True) -> list[Reselected]:
    """Phase 2 selected on the training documents phase 1 keeps: for every phase-1 prefix
    ``a`` and window ``N``, the cost-aware greedy path (``selector``, cloned) continued from
    phase 1's features (one free unit, taken first: :func:`_continuation`) on the training rows
    phase 1 keeps (each query's top ``N`` by the prefix's ranker ``weights1[a]``). The path is
    the uncapped one (the same rule as the path on all rows: with a window that keeps every
    document it continues that path), run for as many steps as could fit what the budget leaves
    phase 2 per document, ``room(a, N)`` (None: no cap; below 0: phase 1 alone does not fit, no
    run), less phase 1's features without ``reuse`` (phase 2 pays them again). ``Xp``: the
    grouped training rows on the path's columns (``path``: their columns in the full matrix,
    for the costs). A run whose first step is not phase 1 (phase 1 does not
    improve the kept rows' criterion) gives no cascade.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect import GreedyRankRLS
    >>> from rankselect.data import ExtractionCosts
    >>> from rankselect.selection.cascade_search import candidates, reselected
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> y, offsets = np.digitize(X @ [1.0, 0.5, 0.3], [0.0, 1.0]).astype(float), np.array([0, 20, 40])
    >>> c = candidates(X, y, offsets, 1.0, windows=[8])
    >>> runs = reselected(GreedyRankRLS(), X, y, offsets, [8], ExtractionCosts(np.array([1.0, 5.0, 2.0])),
    ...                   np.arange(3), c.weights1, lambda a, n: None)
    >>> [(r.a, r.window, r.order.tolist(), sorted(r.weights)) for r in runs]  # phase 2 sizes b > a
    [(1, 8, [0, 1, 2], [2, 3]), (2, 8, [0, 1, 2], [3])]
    """
    k = Xp.shape[1]
    out = []
    for a in range(1, k):
        s1 = Xp[:, :a] @ weights1[a]
        for n in windows:
            cap = room(a, int(n))
            if cap is not None and not reuse:
                cap -= costs.total(path[:a])
            if cap is not None and cap < 0:
                continue
            params = _continuation(costs, path, a)
            steps = k - a
            if cap is not None:  # the path's steps that can fit: the cheapest columns' costs add up to the cap
                unit = np.sort(params["feature_costs"][a:] + [params["group_costs"][u] for u in
                                                              params["feature_groups"][a:]])
                steps = int(np.searchsorted(np.cumsum(unit), cap * (1 + 1e-9), side="right"))
            if steps == 0:
                continue
            rows, off = _kept_rows(s1, offsets, int(n))
            qid = np.repeat(np.arange(len(off) - 1), np.diff(off).astype(np.intp))
            sel = clone(selector).set_params(n_features_to_select=steps + 1, budget=None, **params)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateDataWarning)
                sel.fit(Xp[rows], y[rows], qid=qid)
            order = np.asarray(sel.selected_features_, dtype=np.intp)
            if len(order) <= a or order[:a].tolist() != list(range(a)):
                continue
            weights = {a + j: np.asarray(sel.coef_path_[j])[order[:a + j]] for j in range(1, len(order) - a + 1)}
            out.append(Reselected(a, int(n), order, weights))
    return out


def reselected_values(cands: Candidates, r: Reselected, Xp: np.ndarray, y: np.ndarray, offsets: np.ndarray,
                      spec: tuple[str, str, str]) -> np.ndarray:
    """Per-query validation values ``(n_q, len(r.weights))`` of the cascades ``(r.a, r.window,
    r.order[:b])`` on the grouped validation rows ``Xp`` (the path's columns), by
    :func:`grid_values` on the columns of ``r.order`` (phase 1's first).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect import GreedyRankRLS
    >>> from rankselect.data import ExtractionCosts
    >>> from rankselect.selection.cascade_search import candidates, reselected, reselected_values
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> y, offsets = np.digitize(X @ [1.0, 0.5, 0.3], [0.0, 1.0]).astype(float), np.array([0, 20, 40])
    >>> c = candidates(X, y, offsets, 1.0, windows=[8])
    >>> r = reselected(GreedyRankRLS(), X, y, offsets, [8], ExtractionCosts(np.ones(3)), np.arange(3),
    ...                c.weights1, lambda a, n: None)[0]
    >>> reselected_values(c, r, X, y, offsets, ("ndcg@3", "exponential", "stable")).shape  # (queries, cascades)
    (2, 2)
    """
    Xg = np.ascontiguousarray(Xp[:, r.order])
    keys = [(r.a, r.window, b) for b in sorted(r.weights)]
    c = Candidates(list(range(1, r.a + 1)), {s: cands.weights1[s] for s in range(1, r.a + 1)}, keys,
                   {key: r.weights[key[2]] for key in keys})
    return grid_values(c, Xg, y, offsets, spec)[1]
