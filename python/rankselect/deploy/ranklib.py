"""RankLib, for the ``model/ranklib`` models of OpenSearch / Elasticsearch LTR.

RankLib finds features by position: feature ``i`` of a RankLib model is the i-th of the
feature set, whatever the data file called it. A model trained on the LETOR file with its
original numbers (feature 39 as ``39:``) reads the wrong features in the plugin. So the
subset is renumbered 1..k in selection order: :func:`write_letor_subset` writes the data
that way (train RankLib on it), ``featureset.json`` lists the features in the same order,
``features.txt`` maps each RankLib number to the data's feature. A linear model is written
as a RankLib Coordinate Ascent model (``score = sum_i w_i x_i`` in float64 over float32
features); tree models are trained by RankLib itself (the other engines take LightGBM and
XGBoost trees).
"""
from __future__ import annotations

import json
import os
from typing import Optional, Union

import numpy as np

from ..data import RankingData, save_letor
from .floats import exact_text
from .handoff import Handoff, skeleton_note, to_json
from .opensearch import feature_specs
from .subset import subset_of

__all__ = ["write_letor_subset"]  # and a writer of export_engine


def ranklib_model(h: Handoff) -> str:
    """A Coordinate Ascent model file of the linear model (RankLib numbers 1..k)."""
    w = h.linear.weights  # type: ignore[union-attr]
    pairs = " ".join(f"{i + 1}:{exact_text(v)}" for i, v in enumerate(w))
    return f"## Coordinate Ascent\n## written by rankselect: features 1..{len(w)} of featureset.json\n{pairs}\n"


def files(h: Handoff) -> dict[str, str]:
    if h.trees is not None:
        raise ValueError("RankLib models are trained by RankLib: write the subset with write_letor_subset "
                         "(rankselect export --engine ranklib --letor FILE) and train on it; LightGBM / XGBoost "
                         "trees go to engine opensearch (model/xgboost+json), solr, elasticsearch or vespa")
    if h.templates is None:
        h.notes.append(skeleton_note("RankLib (OpenSearch LTR)"))
    lines = ["# RankLib number -> the data's feature (1-based number as in the LETOR file), name (a JSON string)"]
    lines += [f"{i + 1}\t{j}\t{json.dumps(s, ensure_ascii=False)}"
              for i, (j, s) in enumerate(zip(h.subset.numbers, h.subset.names))]
    out = {"featureset.json": to_json({"featureset": {"name": h.name, "features": feature_specs(h)}}),
           "features.txt": "\n".join(lines) + "\n"}
    if h.linear is not None:
        text = ranklib_model(h)
        out["model.txt"] = text
        out["createmodel.json"] = to_json({"model": {"name": h.name, "model": {"type": "model/ranklib",
                                                                             "definition": text}}})
    return out


def write_letor_subset(path: Union[str, os.PathLike[str]], data, selection, *,
                       n_features: Optional[int] = None, digits: Optional[int] = None) -> None:
    """Write the selected columns of ``data`` as a LETOR file numbered 1..k in selection order
    (RankLib's numbering of the feature set).

    Parameters
    ----------
    path : str or path-like
    data : RankingData or (X, y, qid)
    selection : fitted selector, the JSON of ``rankselect select --json``, or 0-based columns
    n_features : int, optional
        Width of the data the selection refers to (default: the selection's, else ``X``'s).
    digits : int, optional
        Significant digits (default: exact, as :func:`rankselect.save_letor`).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from rankselect.deploy import write_letor_subset
    >>> X = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> write_letor_subset(path, (X, np.array([1, 0]), np.array([7, 7])), [2, 0])
    >>> print(open(path).read())
    1 qid:7 1:0.3 2:0.1
    0 qid:7 1:0.6 2:0.4
    """
    X, y, qid = data
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    subset = subset_of(selection, n_features=n_features if n_features is not None else X.shape[1])
    if subset.n_features != X.shape[1]:
        raise ValueError(f"the selection refers to {subset.n_features} features but X has {X.shape[1]} columns")
    cols = list(subset.columns)
    comments = getattr(data, "comments", None)
    save_letor(path, RankingData(X[:, cols], np.asarray(y), np.asarray(qid), comments), digits=digits)
