"""Redundancy report: clusters of near-duplicate features at a similarity threshold.

From the similarity the filters use (``|Spearman|`` over all rows, or a Kendall variant
averaged over queries, compared with the feature or its negation: a feature and its
negation are duplicates for a ranker), the features are clustered agglomeratively on the
distance ``1 - s`` (:func:`scipy.cluster.hierarchy.linkage`) and the tree is cut at
``1 - threshold``: with ``linkage="complete"`` (default) every pair inside a cluster has
similarity >= ``threshold``; with ``"single"`` a cluster is a chain of such pairs. Each
cluster's representative is its most important feature (``importance``), or its lowest
index without one. Features constant within every query (no ranking, similarity 0 to all)
are singletons. The figure: :func:`rankselect.plotting.plot_redundancy` (a heat map in
dendrogram order with the feature names); the CLI: ``rankselect redundancy FILE``.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

from .._validation import check_matrix, check_similarity, shown
from ..selection.importance import feature_importance, parse_measure
from ..selection.similarity import SIMILARITIES, kendall_similarity, spearman_similarity

__all__ = ["RedundancyReport", "redundancy_report"]


@dataclass(frozen=True)
class RedundancyReport:
    """Result of :func:`redundancy_report`.

    Attributes
    ----------
    similarity : ndarray of shape (n_features, n_features)
        The pairwise similarity the clusters were cut from.
    threshold : float
    clusters : list of ndarray of int
        Every cluster (0-based feature indices, ascending), singletons included; clusters of
        two or more features first, largest first, then by their lowest index.
    representatives : ndarray of int
        One feature per cluster (the most important; the lowest index without importance).
    feature_names : list of str
        Names of the features (default: the 1-based numbers of a LETOR file).
    linkage : ndarray
        SciPy's linkage matrix of the clustering (for a dendrogram), shape (n - 1, 4).
    method : str
        The linkage, ``"complete"`` or ``"single"``.
    importance : ndarray or None
        The importance used to choose the representatives.

    Examples
    --------
    >>> from rankselect import redundancy_report
    >>> from rankselect.data.datasets import load_example
    >>> report = redundancy_report(load_example().X, threshold=0.9)
    >>> report.n_redundant_features, [c.tolist() for c in report.redundant][:2]
    (5, [[0, 16], [2, 11]])
    >>> cluster = report.to_dict()["clusters"][0]
    >>> cluster["features"], cluster["names"]
    ([1, 17], ['1', '17'])
    """

    similarity: np.ndarray
    threshold: float
    clusters: list
    representatives: np.ndarray
    feature_names: list
    linkage: np.ndarray = field(repr=False)
    method: str = "complete"
    importance: Optional[np.ndarray] = None

    @property
    def redundant(self) -> list:
        """The clusters of two or more features (the near-duplicates)."""
        return [c for c in self.clusters if c.size > 1]

    @property
    def n_redundant_features(self) -> int:
        """How many features a selection could drop: cluster sizes minus one, summed."""
        return int(sum(c.size - 1 for c in self.redundant))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the redundant clusters, each with its features (1-based numbers, as in a
        LETOR file), their names, the representative (number and name) and the smallest
        within-cluster similarity."""
        out = []
        for c, rep in zip(self.clusters, self.representatives):
            if c.size < 2:
                continue
            block = self.similarity[np.ix_(c, c)]
            out.append({"features": [int(j) + 1 for j in c], "names": [self.feature_names[j] for j in c],
                        "representative": int(rep) + 1, "representative_name": self.feature_names[int(rep)],
                        "min_similarity": float(block[~np.eye(c.size, dtype=bool)].min())})
        return {"threshold": self.threshold, "linkage": self.method, "n_features": len(self.feature_names),
                "n_redundant_features": self.n_redundant_features, "clusters": out}

    def summary(self) -> str:
        """One line per redundant cluster (plain text)."""
        d = self.to_dict()
        lines = [f"{len(d['clusters'])} clusters of near-duplicate features (similarity >= {self.threshold}, "
                 f"{self.method} linkage); {d['n_redundant_features']} of {d['n_features']} features are redundant"]
        for c in d["clusters"]:
            lines.append(f"  keep {c['representative_name']}: {', '.join(c['names'])} (min similarity "
                         f"{c['min_similarity']:.3f})")
        return "\n".join(lines)


def redundancy_report(X, qid=None, y=None, *, similarity: Union[str, Any] = "spearman", threshold: float = 0.95,
                      linkage_method: str = "complete", importance: Union[str, Any, None] = None,
                      feature_names=None) -> RedundancyReport:
    """Clusters of near-duplicate features (module docstring).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    qid : array-like of shape (n_samples,), optional
        Needed by a Kendall similarity and by a measure-name importance.
    y : array-like of shape (n_samples,), optional
        Needed by a measure-name importance.
    similarity : {"spearman", "geng", "tau_b"} or array-like (n_features, n_features)
        ``|Spearman|`` over all rows (default), a Kendall variant with ``absolute=True``, or a
        precomputed symmetric matrix.
    threshold : float in (0, 1], default=0.95
    linkage_method : {"complete", "single"}, default="complete"
    importance : str or array-like of shape (n_features,), optional
        A measure of :func:`rankselect.feature_importance` (with ``y`` and ``qid``) or
        precomputed scores: the representative of a cluster is its most important feature
        (ties to the lowest index).
    feature_names : sequence of str, optional

    Returns
    -------
    RedundancyReport

    Examples
    --------
    >>> from rankselect import redundancy_report
    >>> from rankselect.data.datasets import load_example
    >>> data = load_example()
    >>> report = redundancy_report(data.X, data.qid, data.y, threshold=0.9, importance="ndcg@10")
    >>> print(report.summary())
    5 clusters of near-duplicate features (similarity >= 0.9, complete linkage); 5 of 22 features are redundant
      keep ...
    """
    X = check_matrix(X, "X", squares=False)
    n = X.shape[1]
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {shown(threshold)}")
    if linkage_method not in ("complete", "single"):
        raise ValueError(f"linkage_method must be 'complete' or 'single', got {shown(linkage_method)}")
    if isinstance(similarity, str):
        if similarity not in SIMILARITIES:
            raise ValueError(f"similarity must be one of {SIMILARITIES} or an (n, n) array, got {shown(similarity)}")
        if similarity == "spearman":
            s = spearman_similarity(X)
        else:
            if qid is None:
                raise ValueError(f"similarity={shown(similarity)} needs qid")
            s = kendall_similarity(X, qid, similarity, absolute=True)
    else:
        s = check_similarity(similarity, n)
    imp = None
    if isinstance(importance, str):
        parse_measure(importance)
        if y is None or qid is None:
            raise ValueError(f"importance={shown(importance)} needs y and qid")
        imp = feature_importance(X, y, qid, importance).importance
    elif importance is not None:
        imp = np.asarray(importance, dtype=np.float64)
        if imp.shape != (n,) or not np.isfinite(imp).all():
            raise ValueError(f"importance must be a finite array of shape ({n},)")
    names = [str(j + 1) for j in range(n)] if feature_names is None else [str(v) for v in feature_names]
    if len(names) != n:
        raise ValueError(f"feature_names has {len(names)} names but X has {n} features")
    if n == 1:
        z = np.zeros((0, 4))
        labels = np.ones(1, dtype=int)
    else:
        d = np.clip(1.0 - (s + s.T) / 2, 0.0, None)
        np.fill_diagonal(d, 0.0)
        z = linkage(squareform(d, checks=False), method=linkage_method)
        # a cut at 1 - threshold (+ rounding: a pair at exactly the threshold is inside)
        labels = fcluster(z, t=1.0 - threshold + 1e-12, criterion="distance")
    clusters = [np.flatnonzero(labels == g) for g in np.unique(labels)]
    clusters.sort(key=lambda c: (-c.size, c[0]))
    reps = np.array([int(c[np.argmax(imp[c])]) if imp is not None else int(c[0]) for c in clusters], dtype=np.intp)
    return RedundancyReport(s, float(threshold), clusters, reps, names, z, linkage_method, imp)
