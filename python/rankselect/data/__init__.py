"""Ranking data: LETOR / SVMlight files, rows grouped by query, uninformative features, and
synthetic and shipped data sets.

- :mod:`~rankselect.data.letor`: :func:`load_letor`, :func:`load_letor_folds`,
  :func:`save_letor`, :class:`RankingData`, :class:`Fold`;
- :mod:`~rankselect.data.grouping`: :class:`QueryGroups`, :class:`GroupedData` (the form in
  which data reach the Rust core), :class:`TrainingData` (a training set validated and
  grouped once per ``fit``), :func:`center_by_query`;
- :mod:`~rankselect.data.uninformative`: :func:`zero_features`,
  :func:`constant_within_queries`, :func:`constant_columns`;
- :mod:`rankselect.data.datasets` (here ``rankselect.data.datasets``): synthetic data with known
  ground truth and the example shipped with the package.
"""
from . import datasets
from .grouping import OFFSETS_DTYPE, GroupedData, QueryGroups, TrainingData, center_by_query
from .letor import Fold, PathLike, RankingData, load_letor, load_letor_folds, save_letor, split_queries
from .uninformative import constant_columns, constant_within_queries, zero_features

__all__ = [
    "RankingData",
    "Fold",
    "load_letor",
    "load_letor_folds",
    "save_letor",
    "split_queries",
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
]
