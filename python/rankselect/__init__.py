"""rankselect: feature selection for learning to rank, with a Rust core.

Subpackages, by concept: :mod:`rankselect.data`, :mod:`rankselect.metrics`,
:mod:`rankselect.models`, :mod:`rankselect.selection`, :mod:`rankselect.analysis`,
:mod:`rankselect.protocol`, :mod:`rankselect.plotting`, :mod:`rankselect.dask`,
:mod:`rankselect.cli`; the method registry :mod:`rankselect.methods`.

Public API (re-exported here):

- data: :func:`load_letor`, :func:`load_letor_folds`, :func:`save_letor`,
  :class:`RankingData`, :class:`Fold`, :class:`QueryGroups`, :func:`center_by_query`,
  :mod:`rankselect.data.datasets` (synthetic data with known ground truth, shipped example)
- evaluation: :mod:`rankselect.metrics` (NDCG, P@k, MAP, MeanNDCG, ERR; standard and
  LETOR conventions; ``make_scorer`` for scikit-learn searches)
- :mod:`rankselect.exceptions`: :class:`~rankselect.exceptions.DegenerateDataWarning`
- every estimator and selector follows one contract (``rankselect._base``): ``fit(X, y, qid)``
  and ``score(X, y, qid)`` request ``qid`` under metadata routing, scikit-learn validation
- inspection of any ranker: :mod:`rankselect.analysis.inspection` (query-wise permutation importance,
  ``evaluate_path`` for LightGBM / XGBoost / rankselect on a selection order)
- comparison: :mod:`rankselect.analysis.stats` (randomization / Wilcoxon / t paired tests, Holm,
  effect sizes with CIs, TREC run / qrels / per-query export)
- RankRLS and greedy RankRLS: :class:`RankRLS`, :class:`GreedyRankRLS`
- GAS: :class:`GAS`, :func:`kendall_similarity`, :func:`feature_importance`; its successors
  :class:`NGAS`, :class:`XGAS`, :class:`HCAS` (Gigli et al. 2016) with
  :func:`spearman_similarity`
- pairwise: :func:`preference_pairs`, :func:`preference_pair_matrix`,
  :mod:`rankselect.models.pairwise` (squared hinge loss, gradient, Hessian-vector product),
  :class:`RankSVM`
- kernel approximation: :class:`Nystroem`, :class:`RandomFourierFeatures`
- sparse rankers: :class:`SparseRankSVM` (l1, weighted l1, log, MCP, lp), :func:`sparse_path`,
  :class:`FSMRank`, :class:`FSMSVM`
- cascades: :class:`CascadeSelection` (a cheap subset for every document, a richer one for the
  top N, under one cost budget per query)
- stability: :class:`StabilitySelection` (selection frequencies over query subsamples)
- feature costs and budgets: :mod:`rankselect.analysis.costs`
- deployment: :func:`export_engine` (the subset and its ranker as the exact files of OpenSearch /
  Elasticsearch LTR, Solr, Elasticsearch's learning to rank, Vespa, RankLib;
  :mod:`rankselect.deploy`)
- the deployed ranker in the loop (:mod:`rankselect.selection.wrapper`): :class:`RecursiveElimination`,
  :class:`ForwardSelection` for LightGBM, XGBoost, CatBoost or rankselect rankers, seeded by
  a fast selector's order (``candidates=``)

The module paths of older layouts (the flat modules of the first releases) still import,
with a :class:`DeprecationWarning` naming the new path, until 0.3.0 (the table:
``rankselect._aliases.MOVED``). The subpackages :mod:`rankselect.protocol`,
:mod:`rankselect.plotting`, :mod:`rankselect.report`, :mod:`rankselect.dask` and
:mod:`rankselect.cli` are imported on first use.
"""
from . import _aliases, _cli_guard, exceptions, metrics  # noqa: F401 (_cli_guard: before _core is used)
from ._config import config_context, get_config, set_config
from ._core import __version__
from .analysis import redundancy_report
from .data import Fold, QueryGroups, RankingData, center_by_query, load_letor, load_letor_folds, save_letor
from .deploy import export_engine
from .models import (
    Nystroem,
    RandomFourierFeatures,
    RankRLS,
    RankRLSPath,
    RankSVM,
    preference_pair_matrix,
    preference_pairs,
)
from .selection import (
    FSMSVM,
    GAS,
    HCAS,
    NGAS,
    XGAS,
    CascadeSelection,
    FeatureImportance,
    FSMRank,
    GreedyRankRLS,
    SparsePath,
    SparseRankSVM,
    StabilitySelection,
    feature_importance,
    kendall_similarity,
    sparse_path,
    spearman_similarity,
)
from .selection.wrapper import ForwardSelection, RecursiveElimination, SelectionPath

# The module paths of older layouts (the flat modules) stay importable
# with a DeprecationWarning, and models pickled with them unpickle (rankselect._aliases.MOVED).
_aliases.install()

__all__ = [
    "__version__",
    "set_config",
    "get_config",
    "config_context",
    # data
    "Fold",
    "RankingData",
    "load_letor",
    "load_letor_folds",
    "save_letor",
    "QueryGroups",
    "center_by_query",
    # evaluation
    "metrics",
    "exceptions",
    # selectors and rankers
    "RankRLS",
    "RankRLSPath",
    "GreedyRankRLS",
    "CascadeSelection",
    "GAS",
    "kendall_similarity",
    "NGAS",
    "XGAS",
    "HCAS",
    "spearman_similarity",
    "redundancy_report",
    # deployment
    "export_engine",
    "FeatureImportance",
    "feature_importance",
    "preference_pairs",
    "preference_pair_matrix",
    "RankSVM",
    "Nystroem",
    "RandomFourierFeatures",
    "SparseRankSVM",
    "SparsePath",
    "sparse_path",
    "FSMRank",
    "FSMSVM",
    "StabilitySelection",
    "RecursiveElimination",
    "ForwardSelection",
    "SelectionPath",
]


def __getattr__(name: str):
    """A lazy subpackage, or a moved module's old path (deprecated: a warning names the new one)."""
    if name in _aliases.LAZY_SUBPACKAGES:
        return _aliases.import_submodule(name)
    if name in _aliases.MOVED:
        return _aliases.load(name, stacklevel=2)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    """``__all__``, the public subpackages and modules, and the dunder names."""
    from pathlib import Path

    here = Path(__file__).parent
    modules = {p.stem if p.suffix == ".py" else p.name for p in here.iterdir()
               if (p.suffix == ".py" or (p / "__init__.py").is_file()) and not p.name.startswith("_")}
    return sorted({*__all__, *modules, *(n for n in globals() if n.startswith("__") and n.endswith("__"))})
