"""What every engine writer receives (:class:`Handoff`) and the helpers they share."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from .ranker import LinearRanker, Ranker, TreeRanker
from .subset import Subset

__all__: list[str] = []  # what the writers share, inside rankselect.deploy

#: the first-stage query of ``search.json``: a placeholder for the user's own (the
#: candidates that the model re-ranks)
CANDIDATES = {"match": {"<field>": "<keywords>"}}


@dataclass
class Handoff:
    """One export: the ``engine``, the ``name`` of the feature set / model, the ``subset``,
    each feature's template (None: a skeleton), the model (None: the feature set alone),
    and the ``notes`` the writer adds (what the reader must know: a skeleton, a version)."""

    engine: str
    name: str
    subset: Subset
    templates: Optional[list[Any]]
    ranker: Optional[Ranker]
    notes: list[str] = field(default_factory=list)

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


def to_json(obj: Any, compact: bool = False) -> str:
    """The JSON text of a file, a final newline, non-ASCII kept: two-space indent, or one
    line when ``compact`` (a model's trees: Python's fast encoder, a few times smaller)."""
    if compact:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def skeleton_note(engine: str) -> str:
    return (f"skeleton: no templates were given, so each feature's query in the {engine} feature set is a "
            "placeholder marked TODO; give templates= (--templates FILE) for a feature set the engine runs")


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
    return v.astype(np.float32).astype(np.float64) if float32 else v
