"""The hand-off formats of the report's subset panel: one entry per format in
:data:`HANDOFF_FORMATS` (the panel shows a copy box for each, for every k of its slider).

An entry is a :class:`HandOff`: a key, a label and a function from a :class:`Selection` (the
0-based columns, the width of the data, the names, the groups) to the text to copy. Entries
with the same ``menu`` (a key of :data:`MENUS`) share one box and a menu of their labels: the
search engines' feature sets (:func:`rankselect.export_engine`'s skeletons) are one box, not
four. Adding a format is one entry in the list.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from ..deploy import REGISTRY, handoff_files
from ..deploy.formats import export_selection

__all__ = ["Selection", "HandOff", "HANDOFF_FORMATS", "MENUS", "ENGINE_FILES"]


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
    """One hand-off format: ``key`` (an id on the page), ``label`` (of its copy button, or of
    its item in the menu), ``render`` (the text to copy) and ``menu`` (a key of :data:`MENUS`:
    the entries of one menu share a box; empty: a box of its own).

    Examples
    --------
    >>> from rankselect.report import HANDOFF_FORMATS, HandOff, Selection
    >>> ranklib = HandOff("ranklib", "copy the RankLib feature file",
    ...                   lambda s: "".join(f"{j + 1}\\n" for j in s.columns))
    >>> ranklib.render(Selection([7, 3], 22, None, None))
    '8\\n4\\n'
    >>> [(h.key, h.menu) for h in HANDOFF_FORMATS][:3]
    [('json', ''), ('lightgbm', ''), ('opensearch', 'engine')]
    """

    key: str
    label: str
    render: Callable[[Selection], str]
    menu: str = ""


def _json(s: Selection) -> str:
    extra: Optional[dict[str, object]] = None if s.groups is None else {"groups": s.groups}
    return export_selection(s.columns, "json", n_features=s.n_features, feature_names=s.feature_names, extra=extra)


def _lightgbm(s: Selection) -> str:
    return export_selection(s.columns, "lightgbm", n_features=s.n_features, feature_names=s.feature_names)


#: engine -> (the file of its feature set that the box shows, the menu's label), from the
#: engines' registry (:data:`rankselect.deploy.REGISTRY`); the text is that file of
#: :func:`rankselect.export_engine` without templates (a skeleton) nor model
ENGINE_FILES: dict[str, tuple[str, str]] = {
    e.name: (e.feature_set("rankselect"), e.menu) for e in REGISTRY.values() if e.menu is not None}

#: menu key -> the title of its menu
MENUS: dict[str, str] = {
    "engine": "a search engine's feature set (a skeleton: fill in each feature's query, or run rankselect "
              "export --engine E --templates FILE --model FILE)",
}


def _engine(engine: str) -> Callable[[Selection], str]:
    file = ENGINE_FILES[engine][0]

    def render(s: Selection) -> str:  # export_engine's files without templates nor model
        return handoff_files(s.columns, s.n_features, s.feature_names, engines=(engine,))[engine][file]

    return render


#: the formats of the hand-off box, in the order shown
HANDOFF_FORMATS: list[HandOff] = [
    HandOff("json", "copy the JSON", _json),
    HandOff("lightgbm", "copy the LightGBM columns", _lightgbm),
    *(HandOff(e, label, _engine(e), menu="engine") for e, (_, label) in ENGINE_FILES.items()),
]
