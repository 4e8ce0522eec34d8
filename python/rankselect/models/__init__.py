"""Rankers: linear models learnt from preference pairs of the same query.

- :mod:`~rankselect.models.rankrls`: :class:`RankRLS` (pairwise least squares, exact
  leave-query-out errors) and :class:`RankRLSPath`;
- :mod:`~rankselect.models.ranksvm`: :class:`RankSVM` (squared hinge, truncated Newton),
  optionally through a kernel map of :mod:`~rankselect.models.kernel_approximation`
  (:class:`Nystroem`, :class:`RandomFourierFeatures`);
- :mod:`~rankselect.models.sparse_ranksvm`: :class:`SparseRankSVM` (l1, weighted l1, log,
  MCP, lp), :func:`sparse_path`, :class:`SparsePath`;
- :mod:`rankselect.pairwise` (here ``rankselect.models.pairwise``): preference pairs and the
  pairwise squared hinge loss;
- :mod:`~rankselect.models.linear`: the ``predict`` of every linear ranker.
"""
from . import pairwise
from .kernel_approximation import Nystroem, RandomFourierFeatures, kernel_matrix
from .pairwise import preference_pair_matrix, preference_pairs
from .rankrls import RankRLS, RankRLSPath
from .ranksvm import RankSVM
from .sparse_ranksvm import SparsePath, SparseRankSVM, sparse_path

__all__ = [
    "RankRLS",
    "RankRLSPath",
    "RankSVM",
    "Nystroem",
    "RandomFourierFeatures",
    "kernel_matrix",
    "SparseRankSVM",
    "SparsePath",
    "sparse_path",
    "pairwise",
    "preference_pairs",
    "preference_pair_matrix",
]
