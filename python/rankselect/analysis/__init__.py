"""Analysis of rankers and selections, after fitting.

- :mod:`rankselect.inspection` (here ``rankselect.analysis.inspection``): query-wise
  permutation importance of any ranker, validation curves of a selection order;
- :mod:`rankselect.stats` (``rankselect.analysis.stats``): paired tests, Holm, effect sizes,
  TREC run / qrels / per-query export;
- :mod:`rankselect.costs` (``rankselect.analysis.costs``): feature costs, the cost-quality
  path and its Pareto front;
- :mod:`rankselect.export` (``rankselect.analysis.export``): a selection in the form each
  ranking library takes;
- :mod:`~rankselect.analysis.redundancy`: :class:`RedundancyReport`,
  :func:`redundancy_report` (clusters of near-duplicate features).
"""
from . import costs, export, inspection, stats
from .redundancy import RedundancyReport, redundancy_report

__all__ = ["costs", "export", "inspection", "stats", "RedundancyReport", "redundancy_report"]
