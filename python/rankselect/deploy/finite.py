"""What no engine file may hold: a model without trees, NaN or infinite leaves, NaN
thresholds (:func:`check_forest`, before the writers), and, as the last check of every
export, a non-finite number anywhere in a JSON file (``NaN`` / ``Infinity``, not JSON) or as
the text of a Solr number (``"nan"``, ``"inf"``): :func:`check_files` names the file and
the path to it (the tree and the node).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["check_forest", "check_files"]

#: keys whose string values are numbers (Solr's model store writes numbers as text)
_NUMBER_KEYS = frozenset({"threshold", "value", "weight", "avg", "std", "leaf", "split_condition", "leaf_value"})
_NON_FINITE = re.compile(r"[+-]?(nan|inf|infinity)\Z", re.IGNORECASE)
#: the repr of a non-finite float as text (Solr's numbers)
_TEXTS = ('"nan"', '"inf"', '"-inf"')


def _suspect(text: str) -> bool:
    """Whether ``text`` may hold a non-finite number: json.dumps's bare NaN / Infinity (more
    of them than in strings, as Vespa's ``"missing_type": "NaN"``), or a float's repr as
    text; a fast scan before the full walk."""
    return (any(text.count(s) > text.count(f'"{s}"') for s in ("NaN", "Infinity"))
            or any(s in text for s in _TEXTS))


def check_forest(forest) -> None:
    """A ValueError for a model with no trees, a NaN or infinite leaf, or a NaN threshold,
    naming the tree and the node (its index within the tree).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.finite import check_forest
    >>> from rankselect.deploy.trees import Forest
    >>> leaf = Forest("lightgbm", ["a"], np.array([-1]), np.zeros(1), np.zeros(1, bool), np.array([-1]),
    ...               np.array([-1]), np.array([np.inf]), np.array([0]), 0.0, "lambdarank")
    >>> check_forest(leaf)
    Traceback (most recent call last):
    ...
    ValueError: the lightgbm model's tree 0, node 0: leaf value inf (1 such node(s)): no engine scores a \
non-finite number; retrain the model
    """
    if forest.n_trees == 0:
        raise ValueError(f"the {forest.library} model has no trees: it scores every document the same; "
                         "train it with n_estimators >= 1")
    starts = np.asarray(forest.tree_start, dtype=np.int64)
    leaf = forest.feature < 0
    bad_leaf = leaf & ~np.isfinite(forest.value)
    bad_split = ~leaf & np.isnan(forest.threshold)
    bad = np.flatnonzero(bad_leaf | bad_split)
    if bad.size:
        n = int(bad[0])
        t = int(np.searchsorted(starts, n, side="right") - 1)
        what = f"leaf value {float(forest.value[n])!r}" if leaf[n] else "threshold nan"
        raise ValueError(f"the {forest.library} model's tree {t}, node {n - int(starts[t])}: {what} "
                         f"({bad.size} such node(s)): no engine scores a non-finite number; retrain the model")
    if not math.isfinite(forest.base_score):
        raise ValueError(f"the {forest.library} model's base score is {forest.base_score!r}: not finite")


def _solr_number(path: str) -> bool:
    """A path where Solr's model store holds a number as text (the model's params, a
    normaliser's params), not a query template's."""
    return path.startswith("params.") or ".norm.params." in path


def _walk(root: Any):
    """(path, value) of the first non-finite number in ``root`` (depth first), or None."""
    stack: list[tuple[Any, str, str]] = [(root, "", "")]
    while stack:
        obj, path, key = stack.pop()
        if isinstance(obj, float) and not math.isfinite(obj):
            return path, obj
        if isinstance(obj, str) and key in _NUMBER_KEYS and _solr_number(path) and _NON_FINITE.match(obj.strip()):
            return path, obj
        if isinstance(obj, Mapping):
            stack += [(v, f"{path}.{k}" if path else str(k), str(k)) for k, v in reversed(list(obj.items()))]
        elif isinstance(obj, list):
            stack += [(v, f"{path}[{i}]", key) for i, v in reversed(list(enumerate(obj)))]
    return None


def check_files(files: Mapping[str, str]) -> None:
    """A ValueError naming the file and the path of the first non-finite number in a JSON file.

    Examples
    --------
    >>> from rankselect.deploy.finite import check_files
    >>> check_files({"model.json": '{"trees": [{"threshold": 0.5}, {"threshold": Infinity}]}'})
    Traceback (most recent call last):
    ...
    ValueError: model.json: a non-finite number (inf) at trees[1].threshold: no engine scores it; the model has \
an infinite or NaN threshold or leaf
    """
    for name, text in files.items():
        if not name.endswith(".json") or not _suspect(text):
            continue
        data = json.loads(text)  # reads NaN / Infinity as floats: found below
        found = _walk(data)
        if found:
            raise ValueError(f"{name}: a non-finite number ({found[1]!r}) at {found[0]}: no engine scores it; the "
                             "model has an infinite or NaN threshold or leaf")
