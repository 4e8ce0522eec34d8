"""Hand-off of a selection to a ranking library: the selected subset in the form each library
takes, and a linear model's weights as JSON (the search engines' files:
:func:`~rankselect.deploy.export_engine`). The selection is read by the one reader of
:mod:`~rankselect.deploy.subset` (a fitted selector, the JSON of ``rankselect select --json``,
or 0-based columns). Formerly ``analysis.export`` (that path still imports, with a
DeprecationWarning).

``format=``

- ``"ranklib"``: RankLib's ``-feature`` file: the selected feature numbers, 1-based as in
  LETOR files, one per line, in selection order.
- ``"lightgbm"`` / ``"xgboost"``: JSON stating its ``index_base`` (0) with the 0-based
  ``columns`` to keep (``X[:, columns]`` before ``fit``) and the ``feature_names`` the library
  gives those columns by default on the full array (LightGBM ``Column_<j>``, XGBoost ``f<j>``),
  or the data's own names when it had them; and, under ``letor_file``, what the library sees
  when it reads the LETOR / SVMlight file itself: it keeps the file's 1-based indices as
  0-based columns (column 0 stays empty), so file feature ``j`` is column ``j``, named
  ``Column_<j>`` by LightGBM and ``f<j>`` by XGBoost (its default ``indexing_mode``); use those
  ``columns`` for LightGBM's ``ignore_column`` / XGBoost's feature indices, never the array
  route's. Names LightGBM cannot take (JSON special characters ``" , : [ ] { }`` and
  whitespace) are replaced by ``_``, with a ``notes`` entry for each; duplicate names are
  refused.
- ``"json"``: everything: 1-based ``selected_features``, 0-based ``columns``,
  ``feature_names``, ``n_features`` and, for a linear model, its ``weights`` (the full
  ``coef`` and ``{name: weight}`` of the selected features).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .subset import read_selection

__all__ = ["FORMATS", "export_selection", "write_selection"]

#: the formats :func:`export_selection` writes
FORMATS = ("lightgbm", "xgboost", "ranklib", "json")
_DEFAULT_NAMES = {"lightgbm": "Column_{}", "xgboost": "f{}"}


def _selection_of(selection, n_features, feature_names, coef):
    """(columns 0-based in order, n_features, names or None, coef or None), validated."""
    read = read_selection(selection)
    columns = np.asarray(read.columns, dtype=np.int64)
    if n_features is None:
        n_features = read.n_features
    if feature_names is None:
        feature_names = read.names
    if coef is None:
        coef = read.coef
    if n_features is None:
        n_features = int(columns.max()) + 1 if columns.size else 0
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) or n_features < 0:
        raise ValueError(f"n_features must be a non-negative integer, got {n_features!r}")
    n_features = int(n_features)
    if columns.size and (columns.min() < 0 or columns.max() >= n_features):
        raise ValueError(f"selected columns must lie in 0 .. {n_features - 1}")
    if np.unique(columns).size != columns.size:
        raise ValueError("the selection repeats a column")
    if feature_names is not None:
        feature_names = [str(s) for s in feature_names]
        if len(feature_names) != n_features:
            raise ValueError(f"feature_names has {len(feature_names)} names but there are {n_features} features")
        _refuse_duplicates(feature_names, "feature_names")
    if coef is not None:
        coef = np.asarray(coef, dtype=np.float64).ravel()
        if coef.shape[0] != n_features:
            raise ValueError(f"coef has {coef.shape[0]} entries but there are {n_features} features")
    return columns, n_features, feature_names, coef


def export_selection(selection, format: str = "json", *, n_features: Optional[int] = None,
                     feature_names: Optional[Sequence[str]] = None, coef=None,
                     extra: Optional[dict[str, object]] = None) -> str:
    """The selection as text in ``format`` (see the module docstring).

    Parameters
    ----------
    selection : fitted selector, dict, str or sequence of int
        A rankselect selector (``selected_features_`` gives the order; ``coef_``,
        ``n_features_in_`` and ``feature_names_in_`` are used when present), the JSON of
        ``rankselect select --json`` (a dict, its text or a path), or 0-based columns in
        selection order.
    format : {"lightgbm", "xgboost", "ranklib", "json"}
    n_features : int, optional
        Width of the data (default: the selector's ``n_features_in_`` or ``max + 1``).
    feature_names : sequence of str of shape (n_features,), optional
    coef : array-like of shape (n_features,), optional
        A linear model's weights (default: the selector's ``coef_``), for ``"json"``.
    extra : dict, optional
        More keys for the JSON formats (e.g. the method and its parameters).

    Returns
    -------
    str

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.deploy import export_selection
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> sel = rs.GreedyRankRLS(n_features_to_select=3).fit(X, y, qid=qid)
    >>> print(export_selection(sel, "ranklib"))
    8
    4
    12
    >>> import json
    >>> spec = json.loads(export_selection(sel, "xgboost"))
    >>> spec["index_base"], spec["columns"], spec["feature_names"]
    (0, [7, 3, 11], ['f7', 'f3', 'f11'])
    >>> spec["letor_file"]["columns"]  # xgboost reading the LETOR file itself: 1-based
    [8, 4, 12]
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    columns, n, names, coef = _selection_of(selection, n_features, feature_names, coef)
    if format == "ranklib":
        return "".join(f"{j + 1}\n" for j in columns)
    if format in _DEFAULT_NAMES:
        pattern = _DEFAULT_NAMES[format]
        notes: list[str] = []
        chosen = [names[j] if names else pattern.format(j) for j in columns]
        if format == "lightgbm":
            chosen = _lightgbm_names(chosen, notes)
        out = {"library": format, "index_base": 0, "columns": columns.tolist(), "feature_names": chosen,
               "letor_file": {"columns": (columns + 1).tolist(),
                              "feature_names": [pattern.format(j + 1) for j in columns],
                              "note": f"{format} reading the LETOR/SVMlight file itself sees file feature j as "
                                      f"column j (column 0 empty): these are its columns and names"}}
        if notes:
            out["notes"] = notes
    else:
        out = {"index_base": {"selected_features": 1, "columns": 0},
               "selected_features": (columns + 1).tolist(), "columns": columns.tolist(),
               "feature_names": None if names is None else [names[j] for j in columns], "n_features": n}
        if coef is not None:
            key = (lambda j: names[j]) if names else (lambda j: str(j + 1))
            out["weights"] = {"coef": coef.tolist(), "selected": {key(j): float(coef[j]) for j in columns},
                              "keys": "feature names" if names else "1-based feature numbers"}
        else:
            out["weights"] = None
    if extra:
        out.update(extra)
    return json.dumps(out, indent=2) + "\n"


_LIGHTGBM_BAD = re.compile(r'[",:\[\]{}\s]')


def _refuse_duplicates(names: Sequence[str], what: str) -> None:
    seen: set[str] = set()
    for s in names:
        if s in seen:
            raise ValueError(f"{what} repeats the name {s!r}: names must be unique (the export keys weights by name)")
        seen.add(s)


def _lightgbm_names(names: list[str], notes: list[str]) -> list[str]:
    """Names LightGBM accepts: JSON special characters and whitespace become ``_`` (LightGBM
    refuses the former and renames the latter), each change noted; duplicates refused."""
    out = []
    for s in names:
        t = _LIGHTGBM_BAD.sub("_", s)
        if t != s:
            notes.append(f"feature name {s!r} became {t!r}: LightGBM does not accept JSON special characters "
                         "or whitespace in feature names")
        out.append(t)
    _refuse_duplicates(out, "the LightGBM feature names (after replacing characters LightGBM refuses)")
    return out


def write_selection(path: Union[str, os.PathLike[str]], selection, format: str = "json", **kwargs) -> Path:
    """Write :func:`export_selection` to ``path``; returns the path.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from rankselect.deploy import write_selection
    >>> path = write_selection(Path(tempfile.mkdtemp()) / "features.txt", [7, 3, 11], "ranklib", n_features=22)
    >>> print(path.read_text())
    8
    4
    12
    """
    p = Path(path)
    p.write_text(export_selection(selection, format, **kwargs))
    return p
