"""What every engine writer receives (:class:`Handoff`), what it returns (:class:`EngineFiles`),
and the helpers they share."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

import numpy as np

from .ranker import LinearRanker, Ranker, TreeRanker
from .subset import Subset

__all__ = ["NON_MATCH"]  # what the writers share, inside rankselect.deploy

#: the values of ``non_match``: where a missing feature value (a feature whose query does not
#: match the document) goes at each split of the written model
NON_MATCH = ("zero", "missing")

#: the first-stage query of ``search.json``: a placeholder for the user's own (the
#: candidates that the model re-ranks)
CANDIDATES = {"match": {"<field>": "<keywords>"}}


@dataclass(frozen=True)
class Handoff:
    """One export: the ``engine``, the ``name`` of the feature set / model, the ``subset``,
    each feature's template (None: a skeleton), the model (None: the feature set alone) and
    ``non_match``: ``"zero"`` (a feature that does not match is scored as the value 0 of the
    training data: the engine's missing value goes the way of 0 at every split) or
    ``"missing"`` (the training data held NaN there: it goes the model's own NaN way)."""

    engine: str
    name: str
    subset: Subset
    templates: Optional[list[Any]]
    ranker: Optional[Ranker]
    non_match: str = "zero"

    @property
    def trees(self) -> Optional[TreeRanker]:
        return self.ranker if isinstance(self.ranker, TreeRanker) else None

    @property
    def linear(self) -> Optional[LinearRanker]:
        return self.ranker if isinstance(self.ranker, LinearRanker) else None

    def feature_name(self, model_feature: int) -> str:
        """The set name of the model's feature ``model_feature``."""
        assert self.trees is not None
        return self.subset.names[int(self.trees.position[model_feature])]

    def missing_left(self) -> np.ndarray:
        """Per node of the trees, whether the engine's missing value goes left (``non_match``)."""
        f = self.trees.forest  # type: ignore[union-attr]
        return f.zero_left() if self.non_match == "zero" else f.nan_left.copy()


class EngineFiles(NamedTuple):
    """What a writer returns: ``files`` (file name -> exact text) and ``notes`` (what the
    reader must know: a skeleton, a minimum engine version, ...)."""

    files: dict[str, str]
    notes: list[str]


def to_json(obj: Any, compact: bool = False) -> str:
    """The JSON text of a file, a final newline, non-ASCII kept: two-space indent, or one
    line when ``compact`` (a model's trees: Python's fast encoder, a few times smaller).
    A NaN or infinite number is refused (no engine parses ``NaN`` / ``Infinity``)."""
    if compact:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def skeleton_note(engine: str) -> str:
    return (f"skeleton: no templates were given, so each feature's query in the {engine} feature set is a "
            "placeholder marked TODO; give templates= (--templates FILE) for a feature set the engine runs")


def non_match_notes(h: Handoff, engine: str, how: str) -> list[str]:
    """Where a missing value goes, and what the engine gives a feature that does not match."""
    if h.trees is None:
        return []
    if h.non_match == "zero":
        return [f"non_match='zero': a missing feature value goes the way of 0 at every split; {how}"]
    return [f"non_match='missing': a missing feature value goes the model's own missing-value way; {how}"]


def every_number_notes(h: Handoff, limit: str) -> list[str]:
    """A note when some split sends every number left (threshold ``inf``): the file tests the
    engine's largest finite value instead."""
    if h.trees is None:
        return []
    f = h.trees.forest
    n = int(np.sum((f.feature >= 0) & np.isinf(f.threshold)))
    if not n:
        return []
    return [f"{n} split(s) send every number left and only a missing value right (threshold inf): the file tests "
            f"against {limit}, so only a value at that limit or infinite goes the other way"]


def tree_roots(ranker: TreeRanker) -> list[int]:
    return [int(r) for r in ranker.forest.tree_start]


def nested(ranker: TreeRanker, root: int, split: Callable[[int, Any, Any], Any],
           leaf: Callable[[int], Any]) -> Any:
    """Build a nested structure of tree ``root``: ``split(node, left, right)``, ``leaf(node)``."""
    f = ranker.forest
    feature, left, right = f.feature, f.left, f.right

    def walk(n: int):
        if feature[n] < 0:
            return leaf(n)
        return split(n, walk(int(left[n])), walk(int(right[n])))

    return walk(root)


def leaf_values(ranker: TreeRanker, float32: bool) -> np.ndarray:
    """Leaf values as the engine reads them (float32 engines: the nearest float32)."""
    v = ranker.forest.value
    if not float32:
        return v
    with np.errstate(over="ignore"):
        v32 = v.astype(np.float32)
    if not np.all(np.isfinite(v32)):
        n = int(np.flatnonzero(~np.isfinite(v32))[0])
        t = ranker.forest.tree_of(n)
        raise ValueError(f"{ranker.source} tree {t} node {n - int(ranker.forest.tree_start[t])}: the leaf value "
                         f"{float(v[n])!r} is beyond float32: a float32 engine cannot hold it")
    return v32.astype(np.float64)
