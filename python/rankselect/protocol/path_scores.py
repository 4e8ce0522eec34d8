"""Per-query scores of every point of a method's path in one fold: :class:`PathScores`.

The path of a method in a fold is, for every number of features in use that its grid
reaches, the grid point of best validation score of that size (the protocol's own rule,
restricted to the size; ties: the first point reached). Each point keeps its parameters,
its features and the score of every validation and test query in the selection metric
(AP per query for MAP). Queries are the sampling unit of the report's paired intervals:
the scores of two sizes are paired by query.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Optional

import numpy as np

from .. import metrics

__all__ = ["PathScores", "measure_key"]  # path_scores: the runner's


@dataclass
class PathScores:
    """Per-query validation and test scores of every point of a path (one method, one fold).

    Attributes
    ----------
    measure : str
        The selection metric (``"MAP"``: the per-query values are AP).
    n_features : ndarray of int, shape (p,)
        Features in use at each point (non-zero weight on a column that is not all zero), ascending.
    params : list of dict
        The grid point of each size (best validation score of that size).
    features : list of list of int
        The features in use at each point, 0-based, in selection order.
    vali_qids : ndarray of shape (q_vali,)
        The validation queries, in order of first appearance (the test queries are the
        fold's ``test_qids``).
    vali : ndarray of shape (p, q_vali)
    test : ndarray of shape (p, q_test)
    nested : ndarray of shape (p, q_vali) or None
        Cross-fitted validation scores (:func:`nested_rows`): each half of the validation
        queries scored by the grid point of the size best on the other half. ``vali.mean(1) -
        nested.mean(1)`` is the optimism of choosing a size's grid point (alpha, C, ...) on the
        queries that score it (zero where a size has one grid point). None in files written
        before rankselect kept it.
    others : dict
        The per-query scores in further measures (``--measure``): ``{name: {"vali", "test",
        "nested"}}``, same shapes (:meth:`in_measure`).

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> result = rs.protocol.run(root, ["greedy-rankrls"], grid={"greedy-rankrls": {"alpha": [1.0]}}, progress=False)
    >>> path = result.folds[0]["greedy-rankrls"].path
    >>> path.n_features[:4].tolist(), path.vali.shape, path.features[1]
    ([1, 2, 3, 4], (20, 15), [7, 3])
    """

    measure: str
    n_features: np.ndarray
    params: list[dict[str, Any]]
    features: list[list[int]]
    vali_qids: np.ndarray
    vali: np.ndarray
    test: np.ndarray
    nested: Optional[np.ndarray] = None
    others: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.n_features.shape[0])

    @property
    def measures(self) -> list[str]:
        """The measures of the per-query scores: the selection metric first."""
        return [self.measure, *self.others]

    def in_measure(self, measure: str) -> PathScores:
        """The same path with its per-query scores in ``measure`` (one of :attr:`measures`,
        case-insensitive; ValueError naming the stored ones otherwise)."""
        name = measure_key(measure)
        if name == self.measure:
            return self
        if name not in self.others:
            raise ValueError(f"the path holds per-query scores in {', '.join(self.measures)}, not {name}: rerun "
                             f"`rankselect experiment ... --measure {name.lower()}`")
        o = self.others[name]
        return replace(self, measure=name, vali=o["vali"], test=o["test"], nested=o.get("nested"), others={})

    def index_of(self, n_features: int) -> int:
        """The point with ``n_features`` features in use (ValueError when the path has none)."""
        hit = np.flatnonzero(self.n_features == int(n_features))
        if hit.size == 0:
            raise ValueError(f"the path has no point with {n_features} features (sizes: "
                             f"{', '.join(str(int(k)) for k in self.n_features)})")
        return int(hit[0])


def measure_key(name: str) -> str:
    """The report key of a measure name: ``"map"`` -> ``"MAP"``, ``"ndcg@10"`` -> ``"NDCG@10"``,
    ``"err@5"`` -> ``"ERR@5"``, ``"meanndcg"`` -> ``"MeanNDCG"``, ``"p@3"`` -> ``"P@3"``
    (ValueError for another name).

    Examples
    --------
    >>> from rankselect.protocol.path_scores import measure_key
    >>> measure_key("ndcg@10"), measure_key("MAP"), measure_key("err@5")
    ('NDCG@10', 'MAP', 'ERR@5')
    """
    if not isinstance(name, str):
        raise TypeError(f"a measure must be a name such as 'ndcg@10', got {name!r}")
    low = name.strip().lower()
    if low == "map":
        return "MAP"
    if low == "meanndcg":
        return "MeanNDCG"
    base, at, k = low.partition("@")
    if at and base in ("ndcg", "err", "p") and k.isdigit() and int(k) >= 1:
        return f"{'P' if base == 'p' else base.upper()}@{int(k)}"
    raise ValueError(f"unknown measure {name!r}: map, ndcg@k, err@k, p@k or meanndcg (k a positive integer)")


def _halves(n_queries: int) -> np.ndarray:
    """The cross-fitting halves of the validation queries: 0, 1, 0, 1, ... in query order."""
    return np.arange(n_queries) % 2


def nested_rows(points: list[np.ndarray], sel: list[np.ndarray]) -> np.ndarray:
    """Cross-fitted per-query validation scores of one size: in each half of the validation
    queries (:func:`_halves`), the scores (``points``, one per-query row per grid point of the
    size) of the grid point best in the selection metric (``sel``) on the *other* half (the
    first on ties). Its mean is an honest estimate of the size's validation score; the
    difference to the best point's mean on all the queries is the optimism of choosing the
    grid point on the queries it is scored on."""
    h = _halves(points[0].shape[0])
    out = np.empty_like(points[0])
    for half in (0, 1):
        other = h != half
        means = [float(r[other].mean()) if other.any() else 0.0 for r in sel]
        pick = int(np.flatnonzero(np.asarray(means) == max(means))[0])
        out[h == half] = points[pick][h == half]
    return out


def path_scores(by_size: dict, vali, test, available: np.ndarray, measure: str, convention: str,
                measures: Sequence[str] = (), points: Optional[dict] = None) -> PathScores:
    """The :class:`PathScores` of the winners of each size (``{size: (score, Candidate)}``),
    scored per query on ``vali`` and ``test`` (RankingData) in ``measure`` and ``measures``;
    ``points`` (``{size: [Candidate, ...]}``, every grid point of the size) gives the nested
    scores (:func:`nested_rows`)."""
    sizes = sorted(k for k in by_size if k > 0)
    names = list(dict.fromkeys([measure_key(measure), *(measure_key(m) for m in measures)]))
    rows_v: dict[str, list] = {m: [] for m in names}
    rows_t: dict[str, list] = {m: [] for m in names}
    rows_n: dict[str, list] = {m: [] for m in names}
    params, feats = [], []

    def per_query(y, s, qid, m):
        return metrics.compute(m.lower(), y, s, qid, convention=convention, per_query=True)

    for k in sizes:
        cand = by_size[k][1]
        sv, st = cand.scores(vali.X), cand.scores(test.X)
        for m in names:
            rows_v[m].append(per_query(vali.y, sv, vali.qid, m))
            rows_t[m].append(per_query(test.y, st, test.qid, m))
        if points is not None and len(points.get(k, ())) > 1:
            svs = [c.scores(vali.X) for c in points[k]]
            sel = [per_query(vali.y, x, vali.qid, names[0]) for x in svs]
            for m in names:
                rows_n[m].append(nested_rows(sel if m == names[0] else
                                             [per_query(vali.y, x, vali.qid, m) for x in svs], sel))
        else:
            for m in names:
                rows_n[m].append(rows_v[m][-1])  # one grid point: nothing is chosen, nothing is optimistic
        params.append(dict(cand.params))
        in_use = cand.in_use(available)
        used = [int(j) for j in cand.selected if in_use[int(j)]]
        seen = set(used)
        feats.append(used + [int(j) for j in np.flatnonzero(in_use) if int(j) not in seen])
    qv = np.asarray(list(dict.fromkeys(vali.qid.tolist())))
    qt_n = len(dict.fromkeys(test.qid.tolist()))

    def arr(rows, q):
        return np.asarray(rows, dtype=np.float64).reshape(len(sizes), q)

    first = names[0]
    return PathScores(measure=first, n_features=np.asarray(sizes, dtype=np.intp), params=params, features=feats,
                      vali_qids=qv, vali=arr(rows_v[first], qv.size), test=arr(rows_t[first], qt_n),
                      nested=arr(rows_n[first], qv.size),
                      others={m: {"vali": arr(rows_v[m], qv.size), "test": arr(rows_t[m], qt_n),
                                  "nested": arr(rows_n[m], qv.size)} for m in names[1:]})
