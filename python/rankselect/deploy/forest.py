"""The tree IR every engine writer reads: a :class:`Forest` with one canonical split test.

Each split sends ``x`` to its left child when ``x <= threshold``, ``x`` the feature value as
a float64 and ``threshold`` a float64 (``+inf``: every number goes left, only a missing value
may go right); a missing value (NaN) goes left when ``nan_left``. Leaves are float64 values
summed in float64 after ``base_score``. The readers (:mod:`~rankselect.deploy.lightgbm_trees`,
:mod:`~rankselect.deploy.xgboost_trees`, :mod:`~rankselect.deploy.catboost_trees`) convert
each library's own test into this one, exactly for every float64 input (XGBoost's
``float32(x) < s`` and CatBoost's ``float32(x) > border`` become the float64 between the
values that round one way and the others; LightGBM's zero-as-missing splits become a small
subtree); the writers convert only from it (:mod:`~rankselect.deploy.floats`), never from the
library. ``source`` names the library for messages only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Forest", "ForestBuilder"]


@dataclass(frozen=True)
class Forest:
    """Every node of an ensemble, in flat arrays (``tree_start[i]`` is tree i's root; a tree's
    nodes lie from its root to the next tree's).

    ``feature[n] < 0`` marks a leaf (value ``value[n]``); a split sends ``x`` to ``left[n]``
    when ``x <= threshold[n]``, to ``right[n]`` otherwise, a NaN to ``left[n]`` when
    ``nan_left[n]``. ``names`` are the model's feature names (``feature`` indexes them),
    ``base_score`` the constant added to the trees' sum, ``objective`` the library's.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.forest import ForestBuilder
    >>> b = ForestBuilder("example")
    >>> b.add_tree(feature=[0, -1, -1], threshold=[0.5, 0, 0], nan_left=[True, False, False],
    ...            left=[1, -1, -1], right=[2, -1, -1], value=[0.0, -1.0, 2.0])
    >>> f = b.build(["bm25"], base_score=0.5, objective="lambdarank")
    >>> f.n_trees, f.predict(np.array([[0.5], [0.7], [np.nan]])).tolist()
    (1, [-0.5, 2.5, -0.5])
    """

    source: str
    names: list[str]
    feature: np.ndarray
    threshold: np.ndarray
    nan_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    tree_start: np.ndarray
    base_score: float
    objective: str

    @property
    def n_trees(self) -> int:
        return len(self.tree_start)

    def splits(self) -> np.ndarray:
        """Indices of the split nodes."""
        return np.flatnonzero(self.feature >= 0)

    def zero_left(self) -> np.ndarray:
        """Per node, whether the value 0 goes left (``0 <= threshold``; leaves: False)."""
        return (self.feature >= 0) & (self.threshold >= 0.0)

    def tree_of(self, node: int) -> int:
        """The tree that holds ``node``."""
        return int(np.searchsorted(self.tree_start, node, side="right")) - 1

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The IR's own score of the rows of ``X`` (columns: ``names``), float64: the
        reference the readers are tested against."""
        x = np.asarray(X, dtype=np.float64)
        total = np.full(len(x), float(self.base_score))
        for root in self.tree_start:
            node = np.full(len(x), int(root))
            while True:
                active = np.flatnonzero(self.feature[node] >= 0)
                if active.size == 0:
                    break
                nd = node[active]
                v = x[active, self.feature[nd]]
                go = np.where(np.isnan(v), self.nan_left[nd], v <= self.threshold[nd])
                node[active] = np.where(go, self.left[nd], self.right[nd])
            total += self.value[node]
        return total


class ForestBuilder:
    """Collects trees (local node indices, root 0, ``-1`` for no child) into a :class:`Forest`,
    checking what no engine file can hold: a NaN or ``-inf`` threshold, a leaf or base score
    that is not finite (the ValueError names the tree and node).

    Examples
    --------
    >>> from rankselect.deploy.forest import ForestBuilder
    >>> b = ForestBuilder("example")
    >>> b.add_tree(feature=[-1], threshold=[0.0], nan_left=[False], left=[-1], right=[-1], value=[float("inf")])
    Traceback (most recent call last):
    ...
    ValueError: example tree 0 node 0: the leaf value is inf; no engine file can hold it (the training diverged: \
lower the learning rate)
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self._cols: dict[str, list[np.ndarray]] = {k: [] for k in
                                                   ("feature", "threshold", "nan_left", "left", "right", "value")}
        self._starts: list[int] = []
        self._n = 0

    def add_tree(self, feature, threshold, nan_left, left, right, value) -> None:
        feature = np.asarray(feature, dtype=np.int64)
        threshold = np.asarray(threshold, dtype=np.float64)
        value = np.asarray(value, dtype=np.float64)
        left, right = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
        t = len(self._starts)
        split = feature >= 0
        bad = split & (np.isnan(threshold) | (threshold == -np.inf))
        if np.any(bad):
            n = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{self.source} tree {t} node {n}: the threshold is {float(threshold[n])!r}; no engine "
                             "file can hold it (the model file is damaged or not a trained model)")
        bad = ~split & ~np.isfinite(value)
        if np.any(bad):
            n = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{self.source} tree {t} node {n}: the leaf value is {float(value[n])!r}; no engine file "
                             "can hold it (the training diverged: lower the learning rate)")
        if np.any(split & ((left < 0) | (right < 0) | (left >= len(feature)) | (right >= len(feature)))):
            raise ValueError(f"{self.source} tree {t}: a split without two children")
        base = self._n
        self._starts.append(base)
        for key, arr in (("feature", np.where(split, feature, -1)), ("threshold", np.where(split, threshold, 0.0)),
                         ("nan_left", np.asarray(nan_left, dtype=bool) & split),
                         ("left", np.where(split, left + base, -1)), ("right", np.where(split, right + base, -1)),
                         ("value", np.where(split, 0.0, value))):
            self._cols[key].append(arr)
        self._n += len(feature)

    def build(self, names: list[str], base_score: float, objective: str) -> Forest:
        if not self._starts:
            raise ValueError(f"the {self.source} model has no trees: it would score every document 0")
        if not np.isfinite(base_score):
            raise ValueError(f"the {self.source} model's base score is {base_score!r}: no engine file can hold it")

        def cat(key, dtype):
            return np.concatenate(self._cols[key]).astype(dtype)

        return Forest(self.source, list(names), cat("feature", np.int64), cat("threshold", np.float64),
                      cat("nan_left", bool), cat("left", np.int64), cat("right", np.int64), cat("value", np.float64),
                      np.asarray(self._starts, dtype=np.int64), float(base_score), objective)
