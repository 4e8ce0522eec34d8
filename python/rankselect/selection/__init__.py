"""Feature selection for ranking: every selector, on one base.

Every selector derives from :class:`RankingSelector` (:mod:`~rankselect.selection._base`:
``selected_features_``, the support mask, ``get_feature_names_out``, the check of
``n_features_to_select``) and builds one :class:`FitPlan` per ``fit``
(:mod:`~rankselect.selection._plan`: the data, the units - features or groups -, the costs
and the budget checked once, and :func:`value_per_cost`, the one value-per-unit-cost rule).

- :mod:`~rankselect.selection.greedy_rankrls`: :class:`GreedyRankRLS` (forward selection by
  exact leave-query-out error);
- :mod:`~rankselect.selection.gas`: :class:`GAS` (importance minus redundancy, Geng et al.
  2007), with its inputs :func:`feature_importance` (:mod:`~rankselect.selection.importance`)
  and :func:`kendall_similarity` (:mod:`~rankselect.selection.similarity`);
- :mod:`~rankselect.selection.filters`: :class:`NGAS`, :class:`XGAS`, :class:`HCAS` (Gigli et
  al. 2016), on the shared base :mod:`~rankselect.selection.filter_base` with GAS, and
  :func:`spearman_similarity`;
- :mod:`~rankselect.selection.fsmrank`: :class:`FSMRank` and the two-stage :class:`FSMSVM`;
- :mod:`~rankselect.selection.sparse_ranksvm`: :class:`SparseRankSVM` (l1, weighted l1, log,
  MCP, lp; the features of its non-zero weights), :func:`sparse_path`, :class:`SparsePath`;
- :mod:`~rankselect.selection.cascade`: :class:`CascadeSelection` (two ranking phases under
  one cost budget per query: nested prefixes of the cost-aware greedy path, the phases as
  :class:`Phase`; its search :mod:`~rankselect.selection.cascade_search`);
- :mod:`~rankselect.selection.stability`: :class:`StabilitySelection` (selection
  frequencies over query subsamples);
- :mod:`rankselect.selection.wrapper`: the deployed ranker in the loop
  (:class:`~rankselect.selection.wrapper.RecursiveElimination`,
  :class:`~rankselect.selection.wrapper.ForwardSelection`), a layer above
  :mod:`rankselect.analysis` (not imported here).

The redundancy report is an analysis: :mod:`rankselect.analysis.redundancy` (its names here
warn until 0.3.0 removes them).
"""
from ..exceptions import _moved_name
from ._base import RankingSelector
from ._plan import NONPOSITIVE, FitPlan, value_per_cost
from .cascade import CascadeSelection, Phase
from .filters import HCAS, NGAS, XGAS, hcas_select, ngas_select, xgas_select
from .fsmrank import FSMSVM, FSMRank
from .gas import GAS, gas_greedy
from .greedy_rankrls import GreedyRankRLS
from .importance import FeatureImportance, feature_importance, single_ranker_importance
from .similarity import kendall_similarity, spearman_similarity
from .sparse_ranksvm import SparsePath, SparseRankSVM, sparse_path
from .stability import StabilitySelection, fold_selection_frequencies, nogueira_stability

__all__ = [
    "RankingSelector",
    "FitPlan",
    "value_per_cost",
    "NONPOSITIVE",
    "GreedyRankRLS",
    "CascadeSelection",
    "Phase",
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
    "FSMRank",
    "FSMSVM",
    "SparseRankSVM",
    "SparsePath",
    "sparse_path",
    "StabilitySelection",
    "nogueira_stability",
    "fold_selection_frequencies",
    "FeatureImportance",
    "feature_importance",
    "kendall_similarity",
]

#: names that moved to rankselect.analysis (importable from here, with a warning, until 0.3.0)
_MOVED_TO_ANALYSIS = ("RedundancyReport", "redundancy_report")


def __getattr__(name: str):
    if name in _MOVED_TO_ANALYSIS:
        return _moved_name(__name__, name, "rankselect.analysis")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
