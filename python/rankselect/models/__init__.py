"""Rankers: linear models learnt from preference pairs of the same query.

- :mod:`~rankselect.models.rankrls`: :class:`RankRLS` (pairwise least squares, exact
  leave-query-out errors) and :class:`RankRLSPath`;
- :mod:`~rankselect.models.ranksvm`: :class:`RankSVM` (squared hinge, truncated Newton),
  optionally through a kernel map of :mod:`~rankselect.models.kernel_approximation`
  (:class:`Nystroem`, :class:`RandomFourierFeatures`);
- :mod:`rankselect.models.pairwise` (here ``rankselect.models.pairwise``): preference pairs and the
  pairwise squared hinge loss;
- :mod:`~rankselect.models.linear`: the ``predict`` of every linear ranker;
- :mod:`~rankselect.models.penalties`: the penalties of the sparse rankers as objects
  (``L1``, ``Log``, ``MCP``, ``Lp``, ``GroupLasso``, ``SparseGroupLasso``):
  ``SparseRankSVM(penalty=MCP(gamma=3.0))``.

The sparse RankSVM (:class:`~rankselect.selection.SparseRankSVM`, :func:`sparse_path`,
:class:`SparsePath`) selects features and lives in :mod:`rankselect.selection`; its names
here warn (``DeprecationWarning``) until 0.3.0 removes them.
"""
from ..exceptions import _moved_name
from . import pairwise, penalties
from .kernel_approximation import Nystroem, RandomFourierFeatures, kernel_matrix
from .pairwise import preference_pair_matrix, preference_pairs
from .rankrls import RankRLS, RankRLSPath
from .ranksvm import RankSVM

__all__ = [
    "RankRLS",
    "RankRLSPath",
    "RankSVM",
    "Nystroem",
    "RandomFourierFeatures",
    "kernel_matrix",
    "pairwise",
    "penalties",
    "preference_pairs",
    "preference_pair_matrix",
]

#: names that moved to rankselect.selection (importable from here, with a warning, until 0.3.0)
_MOVED_TO_SELECTION = ("SparseRankSVM", "SparsePath", "sparse_path")


def __getattr__(name: str):
    if name in _MOVED_TO_SELECTION:
        return _moved_name(__name__, name, "rankselect.selection")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
