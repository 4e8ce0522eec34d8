"""Ranking data: LETOR / SVMlight files, rows grouped by query, uninformative features, and
synthetic and shipped data sets.

- :mod:`~rankselect.data.letor`: :func:`load_letor`, :func:`load_letor_folds`,
  :func:`save_letor`, :class:`RankingData`, :class:`Fold`;
- :mod:`~rankselect.data.grouping`: :class:`QueryGroups`, :class:`GroupedData` (the form in
  which data reach the Rust core), :class:`TrainingData` (a training set validated and
  grouped once per ``fit``), :func:`center_by_query`;
- :mod:`~rankselect.data.uninformative`: :func:`zero_features`,
  :func:`constant_within_queries`, :func:`constant_columns`;
- :mod:`~rankselect.data.feature_groups`: :class:`FeatureGroups` (feature families: groups of
  columns computed by one extractor), :class:`ExtractionCosts` (group costs paid once),
  :func:`check_feature_groups`, :func:`read_feature_groups`;
- :mod:`~rankselect.data.engine_log`: :func:`read_engine_log` (features logged by a search
  engine, with TREC judgments, as :class:`RankingData`), :func:`read_qrels`;
- :mod:`~rankselect.data.splits`: :func:`query_splits` (the one rule for every ``cv=``: folds
  by query, row splitters refused);
- :mod:`rankselect.data.datasets`: synthetic data with known ground truth, the example
  shipped with the package, and the feature layouts of LETOR 4.0 and MSLR-WEB.
"""
from . import datasets
from .engine_log import UNJUDGED, read_engine_log, read_qrels
from .feature_groups import (
    ExtractionCosts,
    FeatureGroups,
    check_extraction_costs,
    check_feature_groups,
    check_group_costs,
    read_feature_groups,
)
from .grouping import OFFSETS_DTYPE, GroupedData, QueryGroups, TrainingData, center_by_query
from .letor import Fold, PathLike, RankingData, load_letor, load_letor_folds, save_letor, split_queries
from .splits import query_splits
from .uninformative import constant_columns, constant_within_queries, zero_features

__all__ = [
    "RankingData",
    "Fold",
    "load_letor",
    "load_letor_folds",
    "save_letor",
    "split_queries",
    "query_splits",
    "PathLike",
    "OFFSETS_DTYPE",
    "QueryGroups",
    "GroupedData",
    "TrainingData",
    "center_by_query",
    "zero_features",
    "constant_within_queries",
    "constant_columns",
    "datasets",
    "FeatureGroups",
    "ExtractionCosts",
    "check_feature_groups",
    "check_group_costs",
    "check_extraction_costs",
    "read_feature_groups",
    "read_engine_log",
    "read_qrels",
    "UNJUDGED",
]
