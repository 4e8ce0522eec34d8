"""Per-query scores of every point of a method's path in one fold: :class:`PathScores`.

The path of a method in a fold is, for every number of features in use that its grid
reaches, the grid point of best validation score of that size (the protocol's own rule,
restricted to the size; ties: the first point reached). Each point keeps its parameters,
its features and the score of every validation and test query in the selection metric
(AP per query for MAP). Queries are the sampling unit of the report's paired intervals:
the scores of two sizes are paired by query.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import metrics

__all__ = ["PathScores"]  # path_scores: the runner's


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

    def __len__(self) -> int:
        return int(self.n_features.shape[0])

    def index_of(self, n_features: int) -> int:
        """The point with ``n_features`` features in use (ValueError when the path has none)."""
        hit = np.flatnonzero(self.n_features == int(n_features))
        if hit.size == 0:
            raise ValueError(f"the path has no point with {n_features} features (sizes: "
                             f"{', '.join(str(int(k)) for k in self.n_features)})")
        return int(hit[0])


def path_scores(by_size: dict, vali, test, available: np.ndarray, measure: str, convention: str) -> PathScores:
    """The :class:`PathScores` of the winners of each size (``{size: (score, Candidate)}``),
    scored per query on ``vali`` and ``test`` (RankingData) in ``measure``."""
    sizes = sorted(k for k in by_size if k > 0)
    name = measure.lower()
    rows_v, rows_t, params, feats = [], [], [], []
    for k in sizes:
        cand = by_size[k][1]
        coef = np.asarray(cand.coef, dtype=float)
        rows_v.append(metrics.compute(name, vali.y, vali.X @ coef, vali.qid, convention=convention, per_query=True))
        rows_t.append(metrics.compute(name, test.y, test.X @ coef, test.qid, convention=convention, per_query=True))
        params.append(dict(cand.params))
        used = [int(j) for j in cand.selected if available[int(j)] and coef[int(j)] != 0]
        seen = set(used)
        feats.append(used + [int(j) for j in np.flatnonzero((coef != 0) & available) if int(j) not in seen])
    qv = np.asarray(list(dict.fromkeys(vali.qid.tolist())))
    qt_n = len(dict.fromkeys(test.qid.tolist()))
    return PathScores(measure=measure, n_features=np.asarray(sizes, dtype=np.intp), params=params, features=feats,
                      vali_qids=qv, vali=np.asarray(rows_v, dtype=np.float64).reshape(len(sizes), qv.size),
                      test=np.asarray(rows_t, dtype=np.float64).reshape(len(sizes), qt_n))
