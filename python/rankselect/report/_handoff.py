"""The hand-off formats of the report's subset panel: one entry per format in
:data:`HANDOFF_FORMATS` (the panel shows a copy box for each, for every k of its slider).

An entry is a :class:`HandOff`: a key, the label of its copy button and a function from a
:class:`Selection` (the 0-based columns, the width of the data, the names, the groups) to the
text to copy. Adding a format (e.g. an engine's feature set) is one entry in the list.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from ..analysis.export import export_selection

__all__ = ["Selection", "HandOff", "HANDOFF_FORMATS"]


@dataclass(frozen=True)
class Selection:
    """What a hand-off format is given: ``columns`` (0-based, in order), ``n_features``,
    ``feature_names`` (None when the features have no names of their own) and ``groups`` (the
    names of the feature groups to extract, in order; None without groups).

    Examples
    --------
    >>> import json
    >>> from rankselect.report import HANDOFF_FORMATS, Selection
    >>> s = Selection(columns=[7, 3], n_features=22, feature_names=None, groups=None)
    >>> json.loads(HANDOFF_FORMATS[0].render(s))["selected_features"]
    [8, 4]
    """

    columns: list[int]
    n_features: int
    feature_names: Optional[list[str]]
    groups: Optional[list[str]]


@dataclass(frozen=True)
class HandOff:
    """One hand-off format: ``key`` (an id on the page), ``label`` (of its copy button) and
    ``render`` (the text to copy).

    Examples
    --------
    >>> from rankselect.report import HANDOFF_FORMATS, HandOff, Selection
    >>> ranklib = HandOff("ranklib", "copy the RankLib feature file",
    ...                   lambda s: "".join(f"{j + 1}\\n" for j in s.columns))
    >>> ranklib.render(Selection([7, 3], 22, None, None))
    '8\\n4\\n'
    >>> [h.key for h in HANDOFF_FORMATS]
    ['json', 'lightgbm']
    """

    key: str
    label: str
    render: Callable[[Selection], str]


def _json(s: Selection) -> str:
    extra: Optional[dict[str, object]] = None if s.groups is None else {"groups": s.groups}
    return export_selection(s.columns, "json", n_features=s.n_features, feature_names=s.feature_names, extra=extra)


def _lightgbm(s: Selection) -> str:
    return export_selection(s.columns, "lightgbm", n_features=s.n_features, feature_names=s.feature_names)


#: the formats of the hand-off box, in the order shown
HANDOFF_FORMATS: list[HandOff] = [
    HandOff("json", "copy the JSON", _json),
    HandOff("lightgbm", "copy the LightGBM columns", _lightgbm),
]
