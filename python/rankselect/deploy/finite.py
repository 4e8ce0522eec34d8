"""What no engine file may hold. A model without trees, NaN or infinite leaves and NaN
thresholds are refused where the tree IR is built
(:class:`~rankselect.deploy.forest.ForestBuilder`, naming the tree and the node); as the last
check of every export, :func:`check_files` refuses a non-finite number anywhere in a JSON file
(``NaN`` / ``Infinity``, not JSON) or as the text of a Solr number (``"nan"``, ``"inf"``),
naming the file and the path to it (the tree and the node).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["check_files"]

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
