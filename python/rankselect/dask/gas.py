"""GAS on Dask arrays: the Kendall similarity and the feature importance as sums of
per-shard terms (:func:`kendall_similarity`, :func:`feature_importance`), then the greedy
search of :class:`rankselect.GAS` itself."""
from __future__ import annotations

from typing import Literal, Optional, Union

import numpy as np
import numpy.typing as npt
from distributed import Client

from .. import _core
from .._base import warn_degenerate
from .._validation import shown
from ..metrics.checks import Convention, check_convention, mean_over_queries
from ..selection.gas import GAS as _GAS
from ..selection.importance import SINGLE_RANKER, FeatureImportance, parse_measure, pick_directions
from ..selection.similarity import check_variant
from ._contract import CLIENT_CONSTRAINT, DaskEstimatorMixin
from .shards import _client, _ordered_sum, _sh, _Shards

__all__ = ["GAS", "kendall_similarity", "feature_importance"]


def _shard_kendall(shard, variant, directions):
    shard = _sh(shard)
    X = shard["X"] if directions is None else np.ascontiguousarray(shard["X"] * directions)
    sums = _core.kendall_sums(X, shard["offsets"], variant)
    return sums.s, sums.s_neg, sums.n_queries


def _kendall(shards, variant, absolute, directions=None, no_pairs="raise"):
    parts = shards.map(_shard_kendall, variant, directions)
    s = _ordered_sum([p[0] for p in parts])
    sn = _ordered_sum([p[1] for p in parts])
    q = sum(int(p[2]) for p in parts)
    if q == 0:
        if no_pairs == "zeros":  # GAS on degenerate data (warned about): no pair to compare
            return np.zeros_like(s)
        raise ValueError("qid: no query has at least 2 documents; Kendall's tau needs document pairs")
    if not absolute:
        return s / q
    if variant == "geng":
        return np.maximum(s, sn) / q
    return np.abs(s / q)


def kendall_similarity(X, qid, variant: str = "geng", absolute: bool = False, *, client=None) -> np.ndarray:
    """:func:`rankselect.kendall_similarity` of Dask arrays (chunks of whole queries).

    Each shard returns its sums of per-query statistics and its number of queries with at
    least 2 documents; the mean is the sum of sums over the sum of counts.

    Returns
    -------
    ndarray of shape (n_features, n_features)

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> rd.kendall_similarity(X, qid).shape
    (22, 22)
    >>> client.close()
    >>> cluster.close()
    """
    variant = check_variant(variant)
    if not isinstance(absolute, (bool, np.bool_)):
        raise TypeError(f"absolute must be a bool, got {shown(absolute)}")
    shards = _Shards(_client(client), X, None, qid)
    return _kendall(shards, variant, bool(absolute))


def _shard_pairwise(shard):
    shard = _sh(shard)
    counts = _core.pairwise_counts(shard["X"], shard["y"], shard["offsets"])
    return counts.ascending, counts.descending, counts.n_pairs


def _shard_metric_importance(shard, measure, convention):
    shard = _sh(shard)
    spec = [(measure, convention, "pessimistic")]
    X, y, off = shard["X"], shard["y"], shard["offsets"]
    n = X.shape[1]
    asc = np.zeros((n, len(off) - 1))
    desc = np.zeros((n, len(off) - 1))
    for f in range(n):
        col = np.ascontiguousarray(X[:, f])
        asc[f] = _core.metrics_per_query(spec, y, col, off, None)[0]
        desc[f] = _core.metrics_per_query(spec, y, -col, off, None)[0]
    return asc, desc


def _importance(shards, measure, convention):
    kind, k = parse_measure(measure)
    if kind == "pairwise":
        parts = shards.map(_shard_pairwise)
        # Exact integer counts: the sum does not depend on the order.
        ea = np.sum([p[0] for p in parts], axis=0, dtype=np.uint64)
        ed = np.sum([p[1] for p in parts], axis=0, dtype=np.uint64)
        prefs = sum(int(p[2]) for p in parts)
        if prefs == 0:
            raise ValueError("y: no query has two documents with different labels; pairwise importance needs "
                             "preference pairs")
        return pick_directions(1.0 - ea / (2.0 * prefs), 1.0 - ed / (2.0 * prefs))
    convention = check_convention(convention)
    name = kind if k is None else f"{kind}@{k}"
    parts = shards.map(_shard_metric_importance, name, convention)
    asc = np.concatenate([p[0] for p in parts], axis=1)
    desc = np.concatenate([p[1] for p in parts], axis=1)
    mean = lambda v: np.array([mean_over_queries(r) for r in v])  # noqa: E731  (query order, as Rust)
    return pick_directions(mean(asc), mean(desc))


def feature_importance(X, y, qid, measure: str = "map", convention: str = "exponential", *,
                       client=None) -> FeatureImportance:
    """:func:`rankselect.feature_importance` of Dask arrays (chunks of whole queries).

    Returns
    -------
    FeatureImportance
        ``(importance, directions)``, both of shape (n_features,).

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> imp = rd.feature_importance(X, y, qid, measure="map")
    >>> int(imp.importance.argmax())
    9
    >>> client.close()
    >>> cluster.close()
    """
    parse_measure(measure)
    shards = _Shards(_client(client), X, y, qid)
    return _importance(shards, measure, convention)


class GAS(DaskEstimatorMixin, _GAS):
    """:class:`rankselect.GAS` on Dask arrays: importance and similarity from per-shard sums,
    then the in-memory greedy search (``feature_costs`` and ``budget`` included).

    ``fit`` is the filter skeleton of :class:`rankselect.GAS`
    (:class:`~rankselect.selection.filter_base.FilterSelector`); this class supplies only its
    hooks: the data as query shards, their degenerate-data facts, the importance and the
    Kendall similarity from per-shard terms.

    Same parameters, validation, warnings and fitted attributes as :class:`rankselect.GAS`,
    plus ``client``.

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> import rankselect as rs
    >>> import rankselect.dask as rd
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> X, y, qid = rd.partition_by_query(*rs.data.datasets.load_example("train"), n_partitions=2)
    >>> gas = rd.GAS(3, 0.1).fit(X, y, qid)
    >>> gas.selected_features_
    array([9, 3, 2])
    >>> client.close()
    >>> cluster.close()
    """

    _parameter_constraints = {**_GAS._parameter_constraints, **CLIENT_CONSTRAINT}

    def __init__(self, n_features_to_select: int = 10, c: float = 0.1, *,
                 importance: Union[str, FeatureImportance, npt.ArrayLike] = "map",
                 similarity: Union[Literal["geng", "tau_b", "spearman"], npt.ArrayLike] = "geng",
                 absolute: bool = False,
                 convention: Convention = "exponential",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 feature_groups=None, group_costs=None, select_groups: bool = True,
                 group_importance: Literal["joint", "max"] = "max", client: Optional[Client] = None) -> None:
        super().__init__(n_features_to_select, c, importance=importance, similarity=similarity,
                         absolute=absolute, convention=convention, feature_costs=feature_costs, budget=budget,
                         feature_groups=feature_groups, group_costs=group_costs, select_groups=select_groups,
                         group_importance=group_importance)
        self.client = client

    # -- the hooks of the filter skeleton (rankselect.selection.filter_base.FilterSelector) --

    def _fit_data(self, X, y, qid) -> _Shards:
        """The data of one ``fit``: the query shards of Dask arrays ``X`` (m, n), ``y`` (m,),
        ``qid`` (m,) chunked by whole queries (the parameters checked first)."""
        self._validate_params()
        if isinstance(self.similarity, str) and self.similarity == "spearman":
            raise ValueError("similarity='spearman' (over all rows) is not available on Dask arrays; compute "
                             "rankselect.spearman_similarity on a sample in memory and pass the matrix")
        if isinstance(self.importance, str) and self.importance.strip().lower() == SINGLE_RANKER:
            raise ValueError("importance='lambdamart' is not available on Dask arrays; compute "
                             "single_ranker_importance in memory and pass the array")
        return self._shards(X, y, qid)

    def _facts(self, data: _Shards) -> tuple[bool, np.ndarray]:
        """The degenerate-data facts over all shards (the in-memory warning)."""
        facts = data.facts()
        warn_degenerate(self, facts.has_pair, facts.informative, stacklevel=5)  # user -> fit -> _fit -> _facts
        return facts.has_pair, ~facts.varies

    def _importance(self, data: _Shards, measure: str) -> FeatureImportance:
        """The importance by ``measure`` from per-shard terms."""
        return _importance(data, measure, self.convention)

    def _similarity(self, data: _Shards, variant: str, directions: np.ndarray) -> np.ndarray:
        """The Kendall ``variant`` of the direction-adjusted features from per-shard sums
        (zeros when no query has two documents: degenerate data, warned about)."""
        return _kendall(data, variant, bool(self.absolute), directions.astype(np.float64), no_pairs="zeros")

    def _group_scores(self, data: _Shards, plan):
        """Not on Dask arrays: the groups' own rankers are fitted in memory."""
        raise NotImplementedError("group_importance='joint' (each group's own RankRLS ranker) is not available "
                                  "on Dask arrays: pass group_importance='max', or select in memory")
