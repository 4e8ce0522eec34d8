"""Feature selection for ranking: wrappers, filters and embedded methods.

- :mod:`~rankselect.selection.greedy_rankrls`: :class:`GreedyRankRLS` (forward selection by
  exact leave-query-out error);
- :mod:`~rankselect.selection.gas`: :class:`GAS` (importance minus redundancy, Geng et al.
  2007), with its inputs :func:`feature_importance` (:mod:`~rankselect.selection.importance`)
  and :func:`kendall_similarity` (:mod:`~rankselect.selection.similarity`);
- :mod:`~rankselect.selection.fsmrank`: :class:`FSMRank` and the two-stage :class:`FSMSVM`;
- :mod:`~rankselect.selection.stability`: :class:`StabilitySelection` (selection
  frequencies over query subsamples).

The sparse rankers of :mod:`rankselect.models` (:class:`~rankselect.SparseRankSVM`) select
features too, through their non-zero weights.
"""
from .fsmrank import FSMSVM, FSMRank
from .gas import GAS, gas_greedy
from .greedy_rankrls import GreedyRankRLS
from .importance import FeatureImportance, feature_importance
from .similarity import kendall_similarity
from .stability import StabilitySelection, fold_selection_frequencies, nogueira_stability

__all__ = [
    "GreedyRankRLS",
    "GAS",
    "gas_greedy",
    "FSMRank",
    "FSMSVM",
    "StabilitySelection",
    "nogueira_stability",
    "fold_selection_frequencies",
    "FeatureImportance",
    "feature_importance",
    "kendall_similarity",
]
