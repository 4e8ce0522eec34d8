"""Hand-off of a selection to production: the selected subset in the form each ranking
library takes, and a linear model's weights as JSON.

``format=``

- ``"ranklib"``: RankLib's ``-feature`` file: the selected feature numbers, 1-based as in
  LETOR files, one per line, in selection order.
- ``"lightgbm"`` / ``"xgboost"``: JSON with the 0-based ``columns`` to keep
  (``X[:, columns]`` before ``fit``) and the ``feature_names`` the library gives those
  columns by default on the full data (LightGBM ``Column_<j>``, XGBoost ``f<j>``), or the
  data's own names when it had them.
- ``"json"``: everything: 1-based ``selected_features``, 0-based ``columns``,
  ``feature_names``, ``n_features`` and, for a linear model, its ``weights`` (the full
  ``coef`` and ``{name: weight}`` of the selected features).
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Optional, Union

import numpy as np

__all__ = ["FORMATS", "export_selection", "write_selection"]

FORMATS = ("lightgbm", "xgboost", "ranklib", "json")
_DEFAULT_NAMES = {"lightgbm": "Column_{}", "xgboost": "f{}"}


def _selection_of(selection, n_features, feature_names, coef):
    """(columns 0-based in order, n_features, names or None, coef or None) from a fitted
    selector or a sequence of columns."""
    if hasattr(selection, "selected_features_") or hasattr(selection, "get_support"):
        est = selection
        if hasattr(est, "selected_features_"):
            columns = np.asarray(est.selected_features_, dtype=np.int64)
        else:
            columns = np.flatnonzero(est.get_support())
        n_features = getattr(est, "n_features_in_", n_features)
        if feature_names is None and hasattr(est, "feature_names_in_"):
            feature_names = list(est.feature_names_in_)
        if coef is None and hasattr(est, "coef_"):
            coef = est.coef_
    else:
        columns = np.asarray(selection)
        if columns.ndim != 1 or (columns.size and not np.issubdtype(columns.dtype, np.integer)):
            raise TypeError("selection must be a fitted selector or a 1-D sequence of 0-based column indices")
        columns = columns.astype(np.int64)
    if n_features is None:
        n_features = int(columns.max()) + 1 if columns.size else 0
    n_features = int(n_features)
    if columns.size and (columns.min() < 0 or columns.max() >= n_features):
        raise ValueError(f"selected columns must lie in 0 .. {n_features - 1}")
    if np.unique(columns).size != columns.size:
        raise ValueError("the selection repeats a column")
    if feature_names is not None:
        feature_names = [str(s) for s in feature_names]
        if len(feature_names) != n_features:
            raise ValueError(f"feature_names has {len(feature_names)} names but there are {n_features} features")
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
    selection : fitted selector or sequence of int
        A rankselect selector (``selected_features_`` gives the order; ``coef_``,
        ``n_features_in_`` and ``feature_names_in_`` are used when present), or 0-based
        columns in selection order.
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
    >>> from rankselect.export import export_selection
    >>> X, y, qid = rs.datasets.load_example("train")
    >>> sel = rs.GreedyRankRLS(n_features_to_select=3).fit(X, y, qid=qid)
    >>> print(export_selection(sel, "ranklib"))
    8
    4
    12
    >>> print(export_selection(sel, "xgboost"))
    {
      "library": "xgboost",
      "columns": [
        7,
        3,
        11
      ],
      "feature_names": [
        "f7",
        "f3",
        "f11"
      ]
    }
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    columns, n, names, coef = _selection_of(selection, n_features, feature_names, coef)
    if format == "ranklib":
        return "".join(f"{j + 1}\n" for j in columns)
    if format in _DEFAULT_NAMES:
        pattern = _DEFAULT_NAMES[format]
        out = {"library": format, "columns": columns.tolist(),
               "feature_names": [names[j] if names else pattern.format(j) for j in columns]}
    else:
        out = {"selected_features": (columns + 1).tolist(), "columns": columns.tolist(),
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


def write_selection(path: Union[str, os.PathLike[str]], selection, format: str = "json", **kwargs) -> Path:
    """Write :func:`export_selection` to ``path``; returns the path.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from rankselect.export import write_selection
    >>> path = write_selection(Path(tempfile.mkdtemp()) / "features.txt", [7, 3, 11], "ranklib", n_features=22)
    >>> print(path.read_text())
    8
    4
    12
    """
    p = Path(path)
    p.write_text(export_selection(selection, format, **kwargs))
    return p
