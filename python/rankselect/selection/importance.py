"""Importance of single features as rankers (GAS, Geng et al. 2007, Section 2.2).

Each feature is used alone as the ranking score, once by its values ``x`` and once by
``-x`` (some features rank best ascending); the better of the two scores is the feature's
importance and the direction that achieved it (+1 or -1) is recorded.

Measures
--------
``"map"``, ``"ndcg"``, ``"ndcg@k"`` (e.g. ``"ndcg@10"``), ``"p@k"``, ``"meanndcg"``, ``"err@k"``
    GAS-E: the mean of the IR measure over queries (:mod:`rankselect.metrics`, with its
    ``convention``, ``"standard"`` or ``"letor"``). Tied scores (a feature is often constant over many documents) are
    broken *pessimistically* (relevant documents last) so that neither direction can profit
    from the informative order of the rows in a LETOR file.
``"pairwise"``
    GAS-L: ``1 - (fraction of misordered preference pairs)``, pooled over all preference
    pairs of the data (same query, different labels). A pair the score ties counts as half
    misordered (the expected error of a random tie break), so ``acc(-x) = 1 - acc(x)``
    and a feature constant within every query scores 0.5. Counted exactly in
    O(n_q log n_q) per feature and query with the Kendall machinery.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional

import numpy as np

from .. import _core
from .._validation import check_ranking_data
from ..data.grouping import GroupedData
from ..metrics.checks import check_convention

__all__ = ["FeatureImportance", "feature_importance", "pairwise_accuracy", "parse_measure", "pick_directions",
           "single_ranker_importance", "SINGLE_RANKER", "lambdarank_ranker"]

#: the importance name of FSA's single-ranker relevance (:func:`single_ranker_importance`)
SINGLE_RANKER = "lambdamart"


class FeatureImportance(NamedTuple):
    """Result of :func:`feature_importance` (unpacks as ``importance, directions``).

    Attributes
    ----------
    importance : ndarray of shape (n_features,)
        The better of the two directions' scores.
    directions : ndarray of shape (n_features,)
        +1 where ranking by ``x`` scored at least as well as by ``-x`` (up to a relative
        1e-12 for rounding), else -1.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> imp = rs.feature_importance(X, y, qid, measure="ndcg@10")
    >>> imp.importance.shape, imp.directions.shape
    ((22,), (22,))
    >>> int(imp.importance.argmax())
    7
    """

    importance: np.ndarray
    directions: np.ndarray


_MEASURES = "'map', 'ndcg', 'ndcg@k', 'p@k', 'meanndcg', 'err', 'err@k' or 'pairwise'"


def parse_measure(measure):
    """Return ``(kind, k)``; raises naming ``measure`` on anything unknown. Measure names are
    parsed in one place, the core's ``metrics::Measure`` parser (``"pairwise"``, GAS-L's
    pairwise accuracy, is not a ranking measure and is recognised here).

    Examples
    --------
    >>> from rankselect.selection.importance import parse_measure
    >>> parse_measure("ndcg@10"), parse_measure("pairwise")
    (('ndcg', 10), ('pairwise', None))
    """
    if not isinstance(measure, str):
        raise TypeError(f"measure must be a string such as 'map', 'ndcg@10' or 'pairwise', got {measure!r}")
    name = measure.strip().lower()
    if name == "pairwise":
        return "pairwise", None
    try:
        return _core.parse_measure(name)
    except ValueError as exc:
        raise ValueError(f"measure must be one of {_MEASURES}, got {measure!r} ({exc})") from None


_TIE_RTOL = 1e-12


def pick_directions(ascending: np.ndarray, descending: np.ndarray) -> FeatureImportance:
    """Per feature, the better of the scores by ``x`` (``ascending``) and by ``-x``
    (``descending``), both of shape (n_features,), and its direction (+1 / -1).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.importance import pick_directions
    >>> imp = pick_directions(ascending=np.array([0.8, 0.3]), descending=np.array([0.2, 0.6]))
    >>> imp.importance, imp.directions
    (array([0.8, 0.6]), array([ 1, -1]))
    """
    ascending = np.asarray(ascending, dtype=np.float64)
    descending = np.asarray(descending, dtype=np.float64)
    # Equal scores (within rounding: the two directions sum per-query values in different
    # orders) keep the feature's own direction, +1.
    tol = _TIE_RTOL * np.maximum(1.0, np.abs(ascending))
    directions = np.where(ascending >= descending - tol, 1, -1).astype(np.int64)
    return FeatureImportance(np.maximum(ascending, descending), directions)


def pairwise_accuracy(X, y, qid) -> tuple:
    """Pairwise accuracy of every feature as the score, by ``x`` and by ``-x``.

    Returns ``(ascending, descending)``, two arrays of shape (n_features,): one minus the
    fraction of misordered preference pairs (ties count half).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.importance import pairwise_accuracy
    >>> X = np.array([[1.], [2.], [3.]])
    >>> pairwise_accuracy(X, y=np.array([0., 1., 2.]), qid=np.array([1, 1, 1]))
    (array([1.]), array([0.]))
    """
    return _pairwise_accuracy(GroupedData.from_arrays(*check_ranking_data(X, y, qid)))


def _pairwise_accuracy(data: GroupedData) -> tuple:
    acc = _core.pairwise_accuracy(data.X, data.y, data.offsets)
    return acc.ascending, acc.descending


def feature_importance(X, y, qid, measure: str = "map", convention: str = "exponential") -> FeatureImportance:
    """Importance of every feature used alone as the ranking score, in its better direction.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Relevance labels.
    qid : array-like of shape (n_samples,)
        Query id of every row.
    measure : str, default="map"
        ``"map"``, ``"ndcg"``, ``"ndcg@k"``, ``"p@k"``, ``"meanndcg"``, ``"err@k"`` (GAS-E)
        or ``"pairwise"`` (GAS-L);
        see the module docstring.
    convention : {"exponential", "trec", "lightgbm", "letor"}, default="exponential"
        (``"standard"``: the old name of ``"exponential"``)
        Metric conventions of :mod:`rankselect.metrics` (ignored by ``"pairwise"``).
        Ties in a feature's values are always broken pessimistically.

    Returns
    -------
    FeatureImportance
        Named tuple ``(importance, directions)``, both of shape (n_features,).

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> imp = rs.feature_importance(X, y, qid, measure="map")
    >>> imp.importance[:4].round(3)
    array([0.657, 0.574, 0.704, 0.71 ])
    >>> imp.directions[:4]
    array([-1, -1,  1,  1])
    """
    kind, k = parse_measure(measure)
    X, y, qid = check_ranking_data(X, y, qid)
    if X.shape[1] == 0:
        raise ValueError("X has no features (0 columns)")
    return _feature_importance_grouped(GroupedData.from_arrays(X, y, qid), kind, k, convention)


def _feature_importance_grouped(data: GroupedData, kind: str, k, convention: str) -> FeatureImportance:
    """:func:`feature_importance` of the measure ``(kind, k)`` (:func:`parse_measure`) on
    data validated and grouped by the caller."""
    if kind == "pairwise":
        return pick_directions(*_pairwise_accuracy(data))
    convention = check_convention(convention)
    name = kind if k is None else f"{kind}@{k}"
    return pick_directions(*_core.metric_importance(data.X, data.y, data.offsets, name, convention))


def single_ranker_importance(X, y, qid, *, n_estimators: int = 100,
                             convention: str = "exponential") -> FeatureImportance:
    """FSA's relevance of every feature (Gigli et al. 2016): the NDCG@10 of a LambdaMART
    ranker trained on that one feature alone (``importance="lambdamart"`` of the filters).

    One LightGBM ``lambdarank`` model per feature (``n_estimators`` trees of 4 leaves,
    learning rate 0.1, one thread, ``deterministic=True``, seed 0: the same data gives the
    same values), scored by NDCG@10 on the data it was trained on (FSA scores a held-out
    file; here the selector sees only its training data), ties in the model's scores broken
    pessimistically as in :func:`feature_importance`. Trees are invariant to the sign of the
    feature, so every direction is +1.

    Cost: ``n_features`` LightGBM fits of ``n_estimators`` rounds on one column, about
    ``n_features x n_estimators x n_samples`` work: seconds for MQ2008 (46 features), far
    more than the single-feature measures, which need one sort per feature.

    Raises
    ------
    ImportError
        When LightGBM is not installed (``pip install lightgbm``).

    Examples
    --------
    Not run here (one LightGBM fit per feature):

    >>> from rankselect.data.datasets import load_example
    >>> from rankselect.selection import single_ranker_importance
    >>> data = load_example()
    >>> imp = single_ranker_importance(data.X, data.y, data.qid, n_estimators=20)  # doctest: +SKIP
    >>> imp.importance.shape  # doctest: +SKIP
    (22,)
    """
    X, y, qid = check_ranking_data(X, y, qid)
    if X.shape[1] == 0:
        raise ValueError("X has no features (0 columns)")
    return _single_ranker_grouped(GroupedData.from_arrays(X, y, qid), n_estimators, convention)


def lightgbm_label_gain(labels) -> Optional[list[float]]:
    """LightGBM's ``label_gain`` for integer relevance ``labels``: the exponential gain
    ``2^l - 1`` for ``l = 0 .. max label`` (Jarvelin and Kekalainen 2002; LightGBM's own
    default up to label 30), or None when LightGBM's default already covers the labels
    (largest label <= 30, so earlier results do not move).

    Examples
    --------
    >>> from rankselect.selection.importance import lightgbm_label_gain
    >>> lightgbm_label_gain([0, 1, 2]) is None, lightgbm_label_gain([0, 31])[-2:]
    (True, [1073741823.0, 2147483647.0])
    """
    top = int(np.max(np.rint(np.asarray(labels, dtype=np.float64)))) if np.size(labels) else 0
    return None if top <= 30 else [2.0**level - 1.0 for level in range(top + 1)]


def lambdarank_ranker(labels, what: str, **params):
    """An unfitted LightGBM ``LGBMRanker`` (``lambdarank``) as rankselect builds one itself:
    one thread, ``deterministic=True``, ``force_row_wise=True``, seed 0, silent, and the
    exponential ``label_gain`` for labels above 30 (:func:`lightgbm_label_gain` of ``labels``),
    so that the same data gives the same model; ``params`` are LightGBM's (e.g.
    ``n_estimators``, ``num_leaves``) and may override any of these. ``what`` names the
    option that needs LightGBM in the ImportError when it is not installed.

    Examples
    --------
    >>> from rankselect.selection.importance import lambdarank_ranker
    >>> model = lambdarank_ranker([0, 1, 2], "an example", n_estimators=5)
    >>> model.get_params()["deterministic"], model.get_params()["n_jobs"]
    (True, 1)
    """
    try:
        import lightgbm
    except ImportError:
        raise ImportError(f"{what} needs LightGBM: pip install lightgbm") from None
    settings: dict[str, Any] = dict(objective="lambdarank", deterministic=True, force_row_wise=True, n_jobs=1,
                                    random_state=0, verbose=-1)
    gain = lightgbm_label_gain(labels)
    if gain is not None:
        settings["label_gain"] = gain
    settings.update(params)
    return lightgbm.LGBMRanker(**settings)


def _single_ranker_grouped(data: GroupedData, n_estimators: int = 100, convention: str = "exponential"
                           ) -> FeatureImportance:
    """:func:`single_ranker_importance` on data validated and grouped by the caller."""
    convention = check_convention(convention)
    m, n = data.X.shape
    sizes = np.diff(data.offsets).astype(np.int64)
    labels = np.rint(data.y).astype(np.int64)
    lambdarank_ranker(labels, "importance='lambdamart' (FSA's single-ranker relevance)")  # LightGBM installed?
    scores = np.zeros((m, n))
    for j in range(n):
        column = data.X[:, j:j + 1]
        if np.ptp(column) == 0:
            continue  # no split possible: every score ties
        # labels above 30 (rankselect takes up to 959): the exponential label_gain
        model = lambdarank_ranker(labels, "importance='lambdamart'", n_estimators=n_estimators, learning_rate=0.1,
                                  num_leaves=4, min_child_samples=1)
        model.fit(column, labels, group=sizes)
        scores[:, j] = model.predict(column)
    ascending, _ = _core.metric_importance(np.ascontiguousarray(scores), data.y, data.offsets, "ndcg@10",
                                           convention)
    return FeatureImportance(np.asarray(ascending, dtype=np.float64), np.ones(n, dtype=np.int64))
