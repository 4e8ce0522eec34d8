"""Analysis of rankers and selections, after fitting.

- :mod:`rankselect.analysis.inspection` (here ``rankselect.analysis.inspection``): query-wise
  permutation importance of any ranker, validation curves of a selection order;
- :mod:`rankselect.analysis.stats`: paired tests, Holm, effect sizes,
  TREC run / qrels / per-query export;
- :mod:`rankselect.analysis.costs`: feature costs, the cost-quality
  path and its Pareto front;
- :mod:`rankselect.analysis.export`: a selection in the form each ranking library takes;
- :mod:`rankselect.analysis.redundancy`: :class:`RedundancyReport`,
  :func:`redundancy_report` (clusters of near-duplicate features).
"""
from . import costs, export, inspection, stats
from .redundancy import RedundancyReport, redundancy_report

__all__ = ["costs", "export", "inspection", "stats", "RedundancyReport", "redundancy_report"]
