"""The selected subset as an engine sees it: its columns, its names, its templates.

:func:`subset_of` reads a selection (a fitted selector, the JSON of ``rankselect select
--json``, or 0-based columns) and names its features (``feature_names``, else the
selector's ``feature_names_in_``, else ``feature_<number>`` with the 1-based number of the
data file); :func:`templates_for` finds each selected feature's template (by name or by
1-based number), or lists every feature that has none.
"""
from __future__ import annotations

import operator
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, overload

import numpy as np

from .model_files import read_json_text

__all__ = ["DefaultNames", "Subset", "subset_of", "templates_for", "default_name"]


def default_name(column: int) -> str:
    """The name of a column when the data has none: ``feature_<1-based number>``.

    Examples
    --------
    >>> from rankselect.deploy.subset import default_name
    >>> default_name(0)
    'feature_1'
    """
    return f"feature_{column + 1}"


class DefaultNames(Sequence[str]):
    """The names ``feature_1 .. feature_<n>`` of data without names, made on demand (a
    selection that claims a width of 10^9 costs nothing until a name is asked for).

    Examples
    --------
    >>> from rankselect.deploy.subset import DefaultNames
    >>> names = DefaultNames(10**9)
    >>> len(names), names[7], names[-1]
    (1000000000, 'feature_8', 'feature_1000000000')
    """

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [default_name(j) for j in range(*i.indices(self._n))]
        j = operator.index(i)
        if j < 0:
            j += self._n
        if not 0 <= j < self._n:
            raise IndexError(f"feature {i} of {self._n}")
        return default_name(j)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DefaultNames) and other._n == self._n

    def __hash__(self) -> int:
        return hash(self._n)

    def __repr__(self) -> str:
        return f"DefaultNames({self._n})"


@dataclass(frozen=True)
class Subset:
    """The selected features in selection order: 0-based ``columns`` of data ``n_features``
    wide, their ``names`` (unique), and the ``all_names`` of the data's columns.

    Examples
    --------
    >>> from rankselect.deploy.subset import Subset
    >>> s = Subset((2, 0), 3, ("bm25", "pagerank", "clicks"))
    >>> s.names, s.numbers, s.label(0)
    (['clicks', 'bm25'], [3, 1], 'clicks (feature 3)')
    """

    columns: tuple[int, ...]
    n_features: int
    all_names: Sequence[str]

    @property
    def names(self) -> list[str]:
        return [self.all_names[j] for j in self.columns]

    @property
    def numbers(self) -> list[int]:
        """1-based feature numbers, as in the data file."""
        return [j + 1 for j in self.columns]

    def label(self, i: int) -> str:
        """``name (feature N)`` of the i-th selected feature, for messages."""
        name, number = self.names[i], self.columns[i] + 1
        return name if name == default_name(self.columns[i]) else f"{name} (feature {number})"


def _from_json(data: Mapping[str, Any], what: str) -> tuple[list[int], Optional[int]]:
    feats = data.get("selected_features")
    if not isinstance(feats, list) or not all(isinstance(j, int) and not isinstance(j, bool) and j >= 1
                                              for j in feats):
        raise ValueError(f"{what}: no 'selected_features' list of 1-based feature numbers "
                         "(expected the output of 'rankselect select --json')")
    n = data.get("n_features")
    return [j - 1 for j in feats], (int(n) if isinstance(n, int) else None)


def _read_selection(selection) -> tuple[list[int], Optional[int], Optional[list[str]]]:
    """(0-based columns, width or None, names of all columns or None)."""
    if hasattr(selection, "selected_features_"):
        cols = [int(j) for j in np.asarray(selection.selected_features_)]
        n = getattr(selection, "n_features_in_", None)
        names = getattr(selection, "feature_names_in_", None)
        return cols, (int(n) if n is not None else None), (None if names is None else [str(s) for s in names])
    if isinstance(selection, Mapping):
        cols, n = _from_json(selection, "selection")
        return cols, n, None
    if isinstance(selection, (str, os.PathLike)):
        text = str(selection)
        what = "selection"
        if not text.lstrip().startswith("{"):
            what = text
            try:
                text = Path(selection).read_text(encoding="utf-8")
            except OSError as exc:
                raise ValueError(f"selection {selection!r}: cannot read it ({exc.strerror})") from None
        data = read_json_text(text, f"{what}: not the JSON of 'rankselect select --json'")
        if not isinstance(data, dict):
            raise ValueError(f"{what}: not the JSON of 'rankselect select --json' (not an object)")
        cols, n = _from_json(data, what)
        return cols, n, None
    arr = np.asarray(selection)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise TypeError("selection must be a fitted selector, the JSON of 'rankselect select --json', "
                        "or a 1-D sequence of 0-based column indices")
    return [int(j) for j in arr], None, None


def subset_of(selection, feature_names: Optional[Sequence[str]] = None,
              n_features: Optional[int] = None) -> Subset:
    """The :class:`Subset` of ``selection`` (see the module docstring).

    Examples
    --------
    >>> from rankselect.deploy.subset import subset_of
    >>> s = subset_of([7, 3], n_features=10)
    >>> s.names, s.numbers
    (['feature_8', 'feature_4'], [8, 4])
    """
    cols, width, names = _read_selection(selection)
    if not cols:
        raise ValueError("the selection is empty: there is nothing to deploy")
    if feature_names is not None:
        names = [str(s) for s in feature_names]
    if n_features is None:
        n_features = width if width is not None else (len(names) if names is not None else max(cols) + 1)
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    n_features = int(n_features)
    if min(cols) < 0 or max(cols) >= n_features:
        bad = [j for j in cols if not 0 <= j < n_features]
        raise ValueError(f"selected columns {bad} lie outside 0 .. {n_features - 1}")
    if len(set(cols)) != len(cols):
        raise ValueError("the selection repeats a column")
    # without names, no list of n_features names: n_features is not trusted
    all_names: Sequence[str] = DefaultNames(n_features) if names is None else tuple(names)
    if len(all_names) != n_features:
        raise ValueError(f"feature_names has {len(all_names)} names but the data has {n_features} features")
    chosen = [all_names[j] for j in cols]
    dup = sorted({s for s in chosen if chosen.count(s) > 1})
    if dup:
        raise ValueError(f"feature_names repeats {dup}: the engines find features by name")
    return Subset(tuple(cols), n_features, all_names)


def _engine_map(engine: str, templates: Mapping) -> Mapping:
    """``templates[engine]`` when the file holds one mapping per engine, else ``templates``."""
    own = templates.get(engine)
    return own if isinstance(own, Mapping) else templates


def templates_for(engine: str, templates: Optional[Mapping], subset: Subset) -> Optional[list[Any]]:
    """Each selected feature's template (looked up by name, then by 1-based number as int or
    str), or None for a skeleton (``templates`` None); a ValueError lists every feature
    without one.

    Examples
    --------
    >>> from rankselect.deploy.subset import subset_of, templates_for
    >>> s = subset_of([2, 0], feature_names=["bm25", "pagerank", "clicks"])
    >>> templates_for("vespa", {"clicks": "attribute(clicks)", 1: "bm25(title)"}, s)
    ['attribute(clicks)', 'bm25(title)']
    """
    if templates is None:
        return None
    if not isinstance(templates, Mapping):
        raise TypeError(f"templates must be a mapping of feature name or 1-based number to template, "
                        f"got {type(templates).__name__}")
    table = _engine_map(engine, templates)
    out, missing = [], []
    for i, (name, number) in enumerate(zip(subset.names, subset.numbers)):
        for key in (name, number, str(number)):
            if key in table:
                out.append(table[key])
                break
        else:
            missing.append(subset.label(i))
    if missing:
        raise ValueError(f"no template for {len(missing)} selected feature(s): {', '.join(missing)} "
                         "(templates maps a feature's name or 1-based number to its query)")
    return out
