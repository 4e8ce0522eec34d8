"""NGAS, XGAS and HCAS: the successors of GAS (Gigli, Lucchese, Nardini and Perego, "Fast
feature selection for learning to rank", ICTIR 2016; the definitions are those of their
published scripts, andrgig/FSA).

With ``r`` the importance (relevance) of every feature and ``s`` the similarity of every
pair (both the inputs of :class:`~rankselect.selection.filter_base.FilterSelector`):

- **NGAS**: select the most relevant feature; then repeat: ``t`` = the last selected
  feature; ``a`` = the remaining feature least similar to ``t``; ``b`` = the remaining
  feature other than ``a`` most similar to ``a``; select the more relevant of ``a`` and
  ``b`` (``a`` when they are equally relevant, as FSA; ``a`` alone when it is the last
  remaining feature).
- **XGAS(c)**: select the most relevant feature; then repeat: among the ``R`` remaining
  features take the ``max(1, round(c R))`` least similar to the last selected one and
  select the most relevant of them (``round`` halves away from zero, as FSA's Python 2;
  ``c = 0.05`` in the paper).
- **HCAS**: agglomerative clustering of the features on the distance ``d = 1 - s``
  (:func:`scipy.cluster.hierarchy.linkage`), cut into ``k`` clusters
  (:func:`scipy.cluster.hierarchy.cut_tree`: exactly ``k``); the most relevant feature of
  each cluster, in order of relevance. ``"ward"`` is SciPy's Ward (R's ``ward.D2``: the
  Lance-Williams update on ``d**2``); ``"ward.D"`` is R's ``ward.D``, the clustering of
  FSA's published code (the same update on ``d`` itself, run as SciPy's Ward on
  ``sqrt(d)``: the same merges); ``"single"``: single linkage.

Ties: a similarity tie goes to the lowest feature index (the least / most similar, and the
order within XGAS's neighbourhood: a stable sort), a relevance tie to the lowest index.

Features constant within every query cannot rank anything (FSA's blacklist): every filter
selects among the other features first and takes the constant ones last, in index order.

The selection is the search alone: :func:`ngas_select`, :func:`xgas_select` and
:func:`hcas_select` run it on a precomputed relevance vector and similarity matrix.
"""
from __future__ import annotations

import numbers
from typing import Literal, Optional, Union

import numpy as np
import numpy.typing as npt
from scipy.cluster.hierarchy import cut_tree, linkage
from scipy.spatial.distance import squareform
from sklearn.utils._param_validation import Interval, StrOptions

from .._validation import fits_budget, shown
from ..data.feature_groups import ExtractionCosts, check_feature_groups
from ..metrics.checks import Convention
from .filter_base import FilterSelector, best_of, cost_ratio, current_costs
from .importance import FeatureImportance

__all__ = ["NGAS", "XGAS", "HCAS", "ngas_select", "xgas_select", "hcas_select", "LINKAGES"]

#: the linkages of HCAS
LINKAGES = ("ward", "ward.D", "single")

_Similarity = Union[Literal["geng", "tau_b", "spearman"], npt.ArrayLike]


def _inputs(importance, similarity, costs, budget):
    w = np.asarray(importance, dtype=np.float64)
    s = np.asarray(similarity, dtype=np.float64)
    if w.ndim != 1 or s.shape != (w.shape[0], w.shape[0]):
        raise ValueError(f"importance must have shape (n,) and similarity (n, n), got {w.shape} and {s.shape}")
    if not (np.isfinite(w).all() and np.isfinite(s).all()):
        raise ValueError("importance and similarity must be finite")
    if costs is None and budget is not None:
        costs = np.ones(w.shape[0])
    if not (costs is None or isinstance(costs, ExtractionCosts)):  # shared group costs: marginal per step
        costs = np.asarray(costs, dtype=np.float64)
    return w, s, costs, cost_ratio(w, current_costs(costs, []))


def _pool(remaining, costs, budget, spent):
    """The remaining features that fit in what is left of the budget (index order)."""
    ok = remaining if budget is None else remaining & fits_budget(spent + costs, budget)
    return np.flatnonzero(ok)


def _greedy(importance, similarity, n_features_to_select, costs, budget, step):
    """The loop NGAS and XGAS share: the most relevant feature first, then ``step(t, pool)``
    picks each next feature from the affordable remaining ones after ``t``."""
    w, s, costs, ratio = _inputs(importance, similarity, costs, budget)
    remaining = np.ones(w.shape[0], dtype=bool)
    selected: list[int] = []
    spent = 0.0
    while len(selected) < n_features_to_select:
        now = current_costs(costs, selected)  # with group costs: the marginal costs of this step
        if isinstance(costs, ExtractionCosts):
            ratio = cost_ratio(w, now)
        pool = _pool(remaining, now, budget, spent)
        if pool.size == 0:
            break
        k = best_of(pool, w, ratio) if not selected else step(selected[-1], pool, s, w, ratio)
        selected.append(k)
        remaining[k] = False
        if now is not None:
            spent += now[k]
    return np.asarray(selected, dtype=np.intp)


def _ngas_step(t, pool, s, w, ratio):
    a = int(pool[np.argmin(s[t, pool])])  # first minimum: the lowest index
    others = pool[pool != a]
    if others.size == 0:
        return a
    b = int(others[np.argmax(s[a, others])])
    better_b = (ratio[b], w[b]) > (ratio[a], w[a])
    return b if better_b else a


def ngas_select(importance, similarity, n_features_to_select: int, *, costs=None, budget=None) -> np.ndarray:
    """NGAS (module docstring) on a relevance vector (n,) and a similarity matrix (n, n).

    ``costs`` / ``budget``: relevance is compared per unit cost and only affordable features
    are candidates (:mod:`rankselect.selection.filter_base`). Returns the selected indices in
    order of selection (fewer than ``n_features_to_select`` only when the budget stops it).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection import ngas_select
    >>> importance = np.array([0.9, 0.85, 0.5, 0.4])
    >>> similarity = np.array([[1., .9, .1, .2], [.9, 1., .2, .1], [.1, .2, 1., .8], [.2, .1, .8, 1.]])
    >>> ngas_select(importance, similarity, 2)  # feature 1, a near-copy of feature 0, is passed over
    array([0, 2])
    """
    return _greedy(importance, similarity, n_features_to_select, costs, budget, _ngas_step)


def xgas_select(importance, similarity, n_features_to_select: int, c: float = 0.05, *, costs=None,
                budget=None) -> np.ndarray:
    """XGAS(c) (module docstring) on a relevance vector (n,) and a similarity matrix (n, n);
    ``costs`` / ``budget`` as :func:`ngas_select`.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection import xgas_select
    >>> importance = np.array([0.9, 0.85, 0.5, 0.4])
    >>> similarity = np.array([[1., .9, .1, .2], [.9, 1., .2, .1], [.1, .2, 1., .8], [.2, .1, .8, 1.]])
    >>> xgas_select(importance, similarity, 2, c=0.5)  # feature 1, a near-copy of feature 0, is passed over
    array([0, 2])
    """

    def step(t, pool, s, w, ratio):
        size = max(1, int(np.floor(c * pool.size + 0.5)))
        nearest = pool[np.argsort(s[t, pool], kind="stable")[:size]]
        return best_of(nearest, w, ratio)

    return _greedy(importance, similarity, n_features_to_select, costs, budget, step)


def hcas_clusters(similarity, n_clusters: int, method: str = "ward") -> tuple:
    """Cluster labels (0 .. n_clusters - 1) of the features of ``similarity`` (n, n) cut
    from the agglomerative clustering on ``1 - s``, and scipy's linkage matrix (None for
    fewer than 2 features)."""
    s = np.asarray(similarity, dtype=np.float64)
    n = s.shape[0]
    if method not in LINKAGES:
        raise ValueError(f"linkage must be one of {LINKAGES}, got {shown(method)}")
    if n < 2 or n_clusters >= n:
        return np.arange(n), None
    d = np.clip(1.0 - (s + s.T) / 2, 0.0, None)
    np.fill_diagonal(d, 0.0)
    if method == "ward.D":  # R's ward.D on d = SciPy's ward (ward.D2) on sqrt(d): the same merges
        d = np.sqrt(d)
    z = linkage(squareform(d, checks=False), method="ward" if method == "ward.D" else method)
    return cut_tree(z, n_clusters=n_clusters).ravel().astype(np.intp), z


def hcas_select(importance, similarity, n_features_to_select: int, linkage: str = "ward", *, costs=None,
                budget=None) -> np.ndarray:
    """HCAS (module docstring): the most relevant feature of each of ``n_features_to_select``
    clusters, in order of relevance (per unit cost with ``costs``); with a budget the
    representatives are taken in that order while they fit.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection import hcas_select
    >>> importance = np.array([0.9, 0.85, 0.5, 0.4])
    >>> similarity = np.array([[1., .9, .1, .2], [.9, 1., .2, .1], [.1, .2, 1., .8], [.2, .1, .8, 1.]])
    >>> hcas_select(importance, similarity, 2)  # one feature of each of the clusters {0, 1} and {2, 3}
    array([0, 2])
    """
    w, s, costs, ratio = _inputs(importance, similarity, costs, budget)
    labels, _ = hcas_clusters(s, n_features_to_select, linkage)
    reps = [best_of(np.flatnonzero(labels == g), w, ratio) for g in np.unique(labels)]
    # order of relevance: larger ratio, then larger importance, then the lowest index
    reps.sort(key=lambda j: (-ratio[j], -w[j], j))
    if budget is None:
        return np.asarray(reps, dtype=np.intp)
    spent, out = 0.0, list[int]()
    for j in reps:
        now = current_costs(costs, out)
        assert now is not None  # a budget alone gives unit costs
        if fits_budget(spent + now[j], budget):
            out.append(j)
            spent += now[j]
    return np.asarray(out, dtype=np.intp)


def _restricted(costs, keep: np.ndarray):
    """The costs of the units ``keep`` alone (a search over a subset of the units): fixed costs
    indexed, shared group costs over the kept features' groups."""
    if costs is None or not isinstance(costs, ExtractionCosts):
        return None if costs is None else costs[keep]
    assert costs.groups is not None and costs.group_costs is not None
    g = costs.groups
    sub = check_feature_groups([g.names[g.index[j]] for j in keep], int(keep.size))
    return ExtractionCosts(costs.feature_costs[keep], sub, np.array([costs.group_costs[g.group_id(n)]
                                                                     for n in sub.names]))


class _FSAFilter(FilterSelector):
    """The shared ``_select``: the search on the informative units, the constant ones last."""

    def _search(self, w, s, k, costs, budget) -> np.ndarray:
        raise NotImplementedError

    def _select(self, imp: FeatureImportance, e: np.ndarray, constant: np.ndarray, plan) -> np.ndarray:
        k = int(self.n_features_to_select)
        costs, budget = plan.step_costs(), plan.budget
        informative = np.flatnonzero(~constant)
        chosen = informative[self._search(imp.importance[informative], e[np.ix_(informative, informative)],
                                          min(k, informative.size), _restricted(costs, informative), budget)]
        taken = [int(j) for j in chosen]
        if chosen.size < informative.size and budget is not None:
            return np.asarray(taken, dtype=np.intp)  # the budget stopped the search
        for j in np.flatnonzero(constant)[: max(0, k - chosen.size)]:
            if budget is not None:
                now = current_costs(costs, taken)
                assert now is not None  # a budget alone gives unit costs
                spent = _spent(costs, taken)
                if not fits_budget(spent + now[j], budget):
                    break  # this one does not fit
            taken.append(int(j))
        return np.asarray(taken, dtype=np.intp)


def _spent(costs, taken) -> float:
    """The cost of the units ``taken`` (each group's shared cost once)."""
    if isinstance(costs, ExtractionCosts):
        return costs.total(taken)
    return float(np.asarray(costs)[np.asarray(taken, dtype=np.intp)].sum()) if taken else 0.0


_DOC_COMMON = """
    importance : str or array-like or FeatureImportance, default="ndcg@10"
        Relevance of every feature: a measure of :func:`rankselect.feature_importance`,
        ``"lambdamart"`` (FSA's: NDCG@10 of a LightGBM LambdaMART ranker on the feature
        alone; needs LightGBM), or precomputed.
    similarity : {"spearman", "geng", "tau_b"} or array-like, default="spearman"
        FSA's ``|Spearman|`` over all rows, a Kendall variant averaged over queries, or a
        precomputed symmetric matrix.
    absolute : bool, default=False
        ``|tau|`` for a Kendall similarity (Spearman is always absolute).
    convention : str, default="exponential"
    feature_costs : array-like of shape (n_features,) or None
    budget : float or None
        See :mod:`rankselect.selection.filter_base`.
    feature_groups, group_costs, select_groups, group_importance
        Feature families, as :class:`rankselect.GAS`'s.

    Attributes
    ----------
    selected_features_ : ndarray of int
        Selected feature indices, in order of selection.
    importance_, directions_, similarity_, constant_features_ : as :class:`rankselect.GAS`.
"""
_DOC_EXAMPLE = """
    Examples
    --------
    >>> from rankselect import {c}
    >>> from rankselect.data.datasets import load_example
    >>> data = load_example()
    >>> selector = {c}(n_features_to_select=3).fit(data.X, data.y, qid=data.qid)
    >>> selector.selected_features_
    array([{out}])
    >>> selector.transform(data.X).shape
    (583, 3)
"""


def _init_common(self, n_features_to_select, importance, similarity, absolute, convention, feature_costs, budget):
    self.n_features_to_select = n_features_to_select
    self.importance = importance
    self.similarity = similarity
    self.absolute = absolute
    self.convention = convention
    self.feature_costs = feature_costs
    self.budget = budget


class NGAS(_FSAFilter):
    __doc__ = """NGAS filter selection (Gigli et al. 2016; :mod:`rankselect.selection.filters`).

    Parameters
    ----------
    n_features_to_select : int, default=10
    """ + _DOC_COMMON + _DOC_EXAMPLE.format(c="NGAS", out="7, 1, 3")

    def __init__(self, n_features_to_select: int = 10, *,
                 importance: Union[str, FeatureImportance, npt.ArrayLike] = "ndcg@10",
                 similarity: _Similarity = "spearman", absolute: bool = False,
                 convention: Convention = "exponential",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 feature_groups=None, group_costs=None, select_groups: bool = True,
                 group_importance: Literal["joint", "max"] = "max") -> None:
        _init_common(self, n_features_to_select, importance, similarity, absolute, convention, feature_costs, budget)
        self.feature_groups, self.group_costs, self.select_groups = feature_groups, group_costs, select_groups
        self.group_importance = group_importance

    def _search(self, w, s, k, costs, budget):
        return ngas_select(w, s, k, costs=costs, budget=budget)


class XGAS(_FSAFilter):
    __doc__ = """XGAS(c) filter selection (Gigli et al. 2016; :mod:`rankselect.selection.filters`).

    Parameters
    ----------
    n_features_to_select : int, default=10
    c : float in (0, 1], default=0.05
        Fraction of the remaining features, least similar to the last selected one, among
        which the most relevant is selected (the paper's 0.05).
    """ + _DOC_COMMON + _DOC_EXAMPLE.format(c="XGAS", out=" 7, 18,  9")

    _parameter_constraints = {**FilterSelector._parameter_constraints,
                              "c": [Interval(numbers.Real, 0, 1, closed="right")]}

    def __init__(self, n_features_to_select: int = 10, c: float = 0.05, *,
                 importance: Union[str, FeatureImportance, npt.ArrayLike] = "ndcg@10",
                 similarity: _Similarity = "spearman", absolute: bool = False,
                 convention: Convention = "exponential",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 feature_groups=None, group_costs=None, select_groups: bool = True,
                 group_importance: Literal["joint", "max"] = "max") -> None:
        self.c = c
        _init_common(self, n_features_to_select, importance, similarity, absolute, convention, feature_costs, budget)
        self.feature_groups, self.group_costs, self.select_groups = feature_groups, group_costs, select_groups
        self.group_importance = group_importance

    def _search(self, w, s, k, costs, budget):
        return xgas_select(w, s, k, float(self.c), costs=costs, budget=budget)


class HCAS(_FSAFilter):
    __doc__ = """HCAS filter selection (Gigli et al. 2016; :mod:`rankselect.selection.filters`).

    Parameters
    ----------
    n_features_to_select : int, default=10
        The number of clusters.
    linkage : {"ward", "ward.D", "single"}, default="ward"
        ``"ward.D"`` is R's ``ward.D``, the clustering of FSA's published code (andrgig/FSA);
        ``"ward"`` is SciPy's Ward (R's ``ward.D2``), which differs from FSA's code by one
        feature at some sizes (on MQ2008 at 4 of 9 sizes tried); kept the default so that
        earlier selections do not move.
    """ + _DOC_COMMON + """    labels_ : ndarray of int, shape (n_features,)
        Cluster of every feature (-1 for the features constant within every query).
    """ + _DOC_EXAMPLE.format(c="HCAS", out="7, 3, 2")

    labels_: np.ndarray

    _parameter_constraints = {**FilterSelector._parameter_constraints,
                              "linkage": [StrOptions(set(LINKAGES))]}

    def __init__(self, n_features_to_select: int = 10, linkage: Literal["ward", "ward.D", "single"] = "ward", *,
                 importance: Union[str, FeatureImportance, npt.ArrayLike] = "ndcg@10",
                 similarity: _Similarity = "spearman", absolute: bool = False,
                 convention: Convention = "exponential",
                 feature_costs: Optional[npt.ArrayLike] = None, budget: Optional[float] = None,
                 feature_groups=None, group_costs=None, select_groups: bool = True,
                 group_importance: Literal["joint", "max"] = "max") -> None:
        self.linkage = linkage
        _init_common(self, n_features_to_select, importance, similarity, absolute, convention, feature_costs, budget)
        self.feature_groups, self.group_costs, self.select_groups = feature_groups, group_costs, select_groups
        self.group_importance = group_importance

    def _search(self, w, s, k, costs, budget):
        return hcas_select(w, s, k, self.linkage, costs=costs, budget=budget)

    def _select(self, imp, e, constant, plan):
        chosen = super()._select(imp, e, constant, plan)
        informative = np.flatnonzero(~constant)
        k = min(int(self.n_features_to_select), informative.size)
        labels = np.full(e.shape[0], -1, dtype=np.intp)
        labels[informative] = hcas_clusters(e[np.ix_(informative, informative)], k, self.linkage)[0]
        self.labels_ = labels
        return chosen
