"""Analysis of rankers and selections, after fitting.

- :mod:`rankselect.analysis.inspection` (here ``rankselect.analysis.inspection``): query-wise
  permutation importance of any ranker, validation curves of a selection order;
- :mod:`rankselect.analysis.stats`: paired tests, Holm, effect sizes,
  TREC run / qrels / per-query export;
- :mod:`rankselect.analysis.costs`: feature costs, the cost-quality
  path and its Pareto front;
- :mod:`rankselect.analysis.redundancy`: :class:`RedundancyReport`,
  :func:`redundancy_report` (clusters of near-duplicate features).

The hand-off formats of a selection (this package's ``export``) moved to
:mod:`rankselect.deploy.formats`: the old path still imports, with a DeprecationWarning.
"""
import sys
import warnings

from ..exceptions import REMOVED_IN
from . import costs, inspection, stats
from .redundancy import RedundancyReport, redundancy_report

__all__ = ["costs", "inspection", "stats", "RedundancyReport", "redundancy_report"]


def __getattr__(name: str):
    if name == "export":  # a moved module (rankselect._aliases answers its import)
        warnings.warn(f"{__name__}.export is deprecated and will be removed in {REMOVED_IN}; use "
                      "rankselect.deploy.formats instead", DeprecationWarning, stacklevel=2)
        return sys.modules["rankselect.deploy.formats"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
