"""rankselect: feature selection for learning to rank, with a Rust core.

Public API (re-exported here):

- data: :func:`load_letor`, :func:`load_letor_folds`, :class:`RankingData`,
  :class:`QueryGroups`, :func:`center_by_query`
- metrics: :mod:`rankselect.metrics`
- pairwise: :func:`preference_pairs`, :func:`preference_pair_matrix`,
  :mod:`rankselect.pairwise` (squared hinge loss, gradient, Hessian-vector product),
  :class:`RankSVM`
- kernel approximation: :class:`Nystroem`, :class:`RandomFourierFeatures`
"""
from ._core import __version__
from .groups import QueryGroups, center_by_query
from . import pairwise
from .pairwise import preference_pair_matrix, preference_pairs
from .ranksvm import RankSVM
from . import metrics
from .data import Fold, RankingData, load_letor, load_letor_folds, save_letor
from . import datasets
from .kernel_approximation import Nystroem, RandomFourierFeatures
from .sparse import SparsePath, SparseRankSVM, sparse_path
from .fsmrank import FSMRank, FSMSVM

__all__ = [
    "__version__",
    "QueryGroups",
    "center_by_query",
    "pairwise",
    "preference_pairs",
    "preference_pair_matrix",
    "RankSVM",
    "metrics",
    "Fold",
    "RankingData",
    "load_letor",
    "load_letor_folds",
    "save_letor",
    "datasets",
    "Nystroem",
    "RandomFourierFeatures",
    "SparseRankSVM",
    "SparsePath",
    "sparse_path",
    "FSMRank",
    "FSMSVM",
]
