"""rankselect: feature selection for learning to rank, with a Rust core.

Public API (re-exported here):

- data: :func:`load_letor`, :func:`load_letor_folds`, :class:`RankingData`,
  :class:`QueryGroups`, :func:`center_by_query`
- metrics: :mod:`rankselect.metrics`
- RankRLS and greedy RankRLS: :class:`RankRLS`, :class:`GreedyRankRLS`
"""
from ._core import __version__
from .groups import QueryGroups, center_by_query
from .kendall import kendall_similarity
from .importance import FeatureImportance, feature_importance
from .gas import GAS
from . import metrics
from .data import Fold, RankingData, load_letor, load_letor_folds, save_letor
from . import datasets
from . import metrics
from .rankrls import GreedyRankRLS, RankRLS

__all__ = [
    "__version__",
    "QueryGroups",
    "center_by_query",
    "kendall_similarity",
    "FeatureImportance",
    "feature_importance",
    "GAS",
    "metrics",
    "Fold",
    "RankingData",
    "load_letor",
    "load_letor_folds",
    "save_letor",
    "datasets",
    "metrics",
    "RankRLS",
    "GreedyRankRLS",
]
