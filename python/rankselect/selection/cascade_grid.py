"""The grid of :class:`~rankselect.selection.cascade.CascadeSelection`'s search: every single
phase (a prefix of the path) and every cascade, phase 2 from each of the searches asked
(``PHASE2_SEARCHES``: a longer prefix with its ranker trained on the training rows phase 1 keeps
or on all of them, and the greedy path re-run on the kept rows), with the per-query
validation values of each."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..data.feature_groups import ExtractionCosts
from .cascade_search import Candidates, candidates, grid_values, reselected, reselected_values
from .greedy_rankrls import GreedyRankRLS

__all__ = ["Grid", "room", "search_grid"]


@dataclass
class Grid:
    """``single`` (queries x single phases) and ``cascade`` (queries x cascades) validation
    values; per cascade its phase 2 ``(columns as positions in the path, weights, window,
    search)`` and its phase 1's size (``firsts``); ``cands`` the prefixes' rankers.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.cascade_grid import Grid
    >>> g = Grid(None, np.zeros((2, 1)), np.zeros((2, 0)), [], [])  # one single phase, no cascade
    >>> g.single.shape, g.cascade.shape
    ((2, 1), (2, 0))
    """

    cands: Candidates
    single: np.ndarray
    cascade: np.ndarray
    phase2: list
    firsts: list


def room(costs: ExtractionCosts, path: np.ndarray, sizes: np.ndarray, budget: Optional[float]):
    """``room(a, N)``: the cost per document that phase 2 on the top ``N`` may add to phase 1 =
    the path's first ``a`` columns within ``budget`` (mean cost per validation query of
    ``sizes`` documents); None without a budget, below 0 when phase 1 alone does not fit.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.data import ExtractionCosts
    >>> from rankselect.selection.cascade_grid import room
    >>> r = room(ExtractionCosts(np.array([1.0, 10.0])), np.array([0, 1]), np.array([100, 40]), 270.0)
    >>> r(1, 20)  # (270 - 1 * 70) / 20 per re-ranked document
    10.0
    """
    n = np.asarray(sizes, dtype=float)

    def room(a: int, window: int) -> Optional[float]:
        if budget is None:
            return None
        return float((budget - costs.total(path[:a]) * n.mean()) / np.minimum(float(window), n).mean())

    return room



def search_grid(Xt: np.ndarray, g, Xv: np.ndarray, val, alpha: float, windows, spec, selector,
                costs: ExtractionCosts, path: np.ndarray, room_of, reuse: bool, searches: dict[str, bool]) -> Grid:
    """The grid on the path's columns of the grouped training rows ``g`` (``Xt``) and of the
    grouped validation rows ``val`` (``Xv``), search after search (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from rankselect.data import ExtractionCosts
    >>> from rankselect.selection.cascade_grid import search_grid
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(24, 3)), rng.integers(0, 3, 24).astype(float)
    >>> rows = SimpleNamespace(y=y, offsets=np.array([0, 8, 16, 24]))
    >>> searches = {"prefix, kept rows": True, "prefix, all rows": False, "greedy, kept rows": False}
    >>> grid = search_grid(X, rows, X, rows, 1.0, [4], ("ndcg@3", "exponential", "stable"), None,
    ...                    ExtractionCosts(np.ones(3)), np.arange(3), None, True, searches)
    >>> grid.single.shape, grid.cascade.shape, grid.firsts  # 3 single phases, 3 cascades (a, N=4, b)
    ((3, 3), (3, 3), [1, 1, 2])
    """
    phase2: list[Any] = []
    firsts: list[int] = []
    values: list[np.ndarray] = []
    single: Optional[np.ndarray] = None
    cands: Optional[Candidates] = None
    for rows in ("kept", "all"):
        if not searches[f"prefix, {rows} rows"]:
            continue
        cands = candidates(Xt, g.y, g.offsets, alpha, windows, phase2_rows=rows)
        single, v = grid_values(cands, Xv, val.y, val.offsets, spec)
        values.append(v)
        phase2 += [(np.arange(b), cands.weights2[(a, n, b)], n, f"prefix, {rows} rows")
                   for a, n, b in cands.cascades]
        firsts += [a for a, _, _ in cands.cascades]
    if single is None or cands is None:
        cands = candidates(Xt, g.y, g.offsets, alpha, windows, phase2_rows="all")
        single = grid_values(cands, Xv, val.y, val.offsets, spec)[0]
    if searches["greedy, kept rows"]:
        for r in reselected(GreedyRankRLS() if selector is None else selector, Xt, g.y, g.offsets,
                            windows, costs, path, cands.weights1, room_of, reuse=reuse):
            values.append(reselected_values(cands, r, Xv, val.y, val.offsets, spec))
            phase2 += [(r.order[:b], r.weights[b], r.window, "greedy, kept rows") for b in sorted(r.weights)]
            firsts += [r.a] * len(r.weights)
    cascade = np.hstack(values) if values else np.zeros((len(val.offsets) - 1, 0))
    return Grid(cands, single, cascade, phase2, firsts)
