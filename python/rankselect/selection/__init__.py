"""Feature selection for ranking: wrappers, filters and embedded methods.

- :mod:`~rankselect.selection.greedy_rankrls`: :class:`GreedyRankRLS` (forward selection by
  exact leave-query-out error);
- :mod:`~rankselect.selection.gas`: :class:`GAS` (importance minus redundancy, Geng et al.
  2007), with its inputs :func:`feature_importance` (:mod:`~rankselect.selection.importance`)
  and :func:`kendall_similarity` (:mod:`~rankselect.selection.similarity`);
- :mod:`~rankselect.selection.filters`: :class:`NGAS`, :class:`XGAS`, :class:`HCAS` (Gigli et
  al. 2016), on the shared base :mod:`~rankselect.selection.filter_base` with GAS, and
  :func:`spearman_similarity`; :mod:`~rankselect.selection.redundancy`: the redundancy report;
- :mod:`~rankselect.selection.fsmrank`: :class:`FSMRank` and the two-stage :class:`FSMSVM`;
- :mod:`~rankselect.selection.stability`: :class:`StabilitySelection` (selection
  frequencies over query subsamples).

The sparse rankers of :mod:`rankselect.models` (:class:`~rankselect.SparseRankSVM`) select
features too, through their non-zero weights.
"""
from .filters import HCAS, NGAS, XGAS, hcas_select, ngas_select, xgas_select
from .fsmrank import FSMSVM, FSMRank
from .gas import GAS, gas_greedy
from .greedy_rankrls import GreedyRankRLS
from .importance import FeatureImportance, feature_importance, single_ranker_importance
from .redundancy import RedundancyReport, redundancy_report
from .similarity import kendall_similarity, spearman_similarity
from .stability import StabilitySelection, fold_selection_frequencies, nogueira_stability

__all__ = [
    "GreedyRankRLS",
    "GAS",
    "gas_greedy",
    "NGAS",
    "XGAS",
    "HCAS",
    "ngas_select",
    "xgas_select",
    "hcas_select",
    "single_ranker_importance",
    "spearman_similarity",
    "RedundancyReport",
    "redundancy_report",
    "FSMRank",
    "FSMSVM",
    "StabilitySelection",
    "nogueira_stability",
    "fold_selection_frequencies",
    "FeatureImportance",
    "feature_importance",
    "kendall_similarity",
]
