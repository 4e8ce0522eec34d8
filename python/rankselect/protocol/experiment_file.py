"""The ``experiment.json`` format: what :meth:`ExperimentResult.to_json` writes and
:meth:`ExperimentResult.from_json` reads, and the checks of a file read back.

Version 3 (this one) adds to each ``path`` its ``nested`` validation scores (cross-fitted:
what choosing a size's grid point on the queries that score it adds, see
:func:`~rankselect.protocol.path_scores.nested_rows`) and ``measures``: the per-query scores
in the further measures of ``experiment --measure`` (``{"NDCG@10": {"vali", "test",
"nested"}}``); the paths of rfe / forward with a non-linear ``ranker=`` hold that ranker's
scores. Version 2 is compact JSON with, per fold and method: the chosen model (its
parameters, validation score, test measures, selected features 1-based as in the data files,
per-query test AP and NDCG@10), ``curve`` (every grid point's validation and test MAP and
NDCG@10, one list per column) and ``path`` (per number of features in use, the grid point
of best validation score of that size with the validation and test score of every query in
the selection metric: :class:`~rankselect.protocol.path_scores.PathScores`). Its top level
says ``"format": "rankselect-experiment", "version": 3``. Versions 2 and 1 (no ``version``: the
files written before the path was kept; ``curve`` a list of dicts, no ``path``) is still read;
a newer version is refused with a message naming it.

A damaged file is refused with one line naming the file, the fold, the method and the
field: a method missing from a fold, a feature number outside ``1..n_features``, an array of
the wrong length, an implausible ``n_features`` (more than :data:`MAX_FEATURES`, checked
before anything of that size is allocated).
"""
from __future__ import annotations

import json
import math
import numbers
from typing import Any

import numpy as np

from .path_scores import PathScores

__all__ = ["FORMAT", "FORMAT_VERSION", "MAX_FEATURES"]  # the functions: ExperimentResult.to_json / from_json

#: the ``format`` name at the top of an experiment.json
FORMAT = "rankselect-experiment"
#: the version this rankselect writes (it reads 1, 2 and 3)
FORMAT_VERSION = 3
#: more features than this is taken for a damaged file (refused before allocating)
MAX_FEATURES = 10_000_000


def _fail(where: str, what: str):
    raise ValueError(f"{where}: {what}")


def curve_columns(curve: list[dict[str, Any]]) -> dict[str, Any]:
    """Every grid point's ``{"params", "n_features", "vali", "test"}``, one list per column."""
    keys = list(dict.fromkeys(k for e in curve for k in e["params"]))
    scores = list(dict.fromkeys(k for e in curve for k in e["vali"]))
    return {"params": {k: [e["params"].get(k) for e in curve] for k in keys},
            "n_features": [int(e["n_features"]) for e in curve],
            "vali": {s: [e["vali"][s] for e in curve] for s in scores},
            "test": {s: [e["test"][s] for e in curve] for s in scores}}


def path_dict(p: PathScores) -> dict[str, Any]:
    """A :class:`PathScores` for JSON (features 1-based)."""
    out = {"measure": p.measure, "n_features": p.n_features.tolist(), "params": p.params,
           "features": [[j + 1 for j in f] for f in p.features], "vali_qids": p.vali_qids.tolist(),
           "vali": p.vali.tolist(), "test": p.test.tolist()}
    if p.nested is not None:
        out["nested"] = p.nested.tolist()
    if p.others:
        out["measures"] = {m: {k: v.tolist() for k, v in rows.items()} for m, rows in p.others.items()}
    return out


# -- reading back


def _int(v, where: str, what: str, low: int = 0, high: int = MAX_FEATURES) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        if not (isinstance(v, float) and v.is_integer()):
            _fail(where, f"{what} must be an integer, got {v!r}")
    if not low <= int(v) <= high:
        _fail(where, f"{what} {int(v)} is out of range {low}..{high}")
    return int(v)


def _num(v, where: str, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        _fail(where, f"{what} must be a number, got {v!r}")
    return float(v)


def _list(v, where: str, what: str, n=None) -> list:
    if not isinstance(v, list):
        _fail(where, f"{what} must be a list, got {type(v).__name__}")
    if n is not None and len(v) != n:
        _fail(where, f"{what} has {len(v)} values, expected {n}")
    return v


def _dict(v, where: str, what: str) -> dict:
    if not isinstance(v, dict):
        _fail(where, f"{what} must be an object, got {type(v).__name__}")
    return v


def _scores(v, where: str, what: str, n=None) -> np.ndarray:
    _list(v, where, what, n)
    if any(x is not None and (isinstance(x, bool) or not isinstance(x, numbers.Real)) for x in v):
        _fail(where, f"{what} must hold numbers")
    return np.asarray([math.nan if x is None else x for x in v], dtype=np.float64)


def _features(v, where: str, what: str, n_features: int) -> list[int]:
    """1-based feature numbers of the file -> 0-based columns, each in ``1..n_features``."""
    out = []
    for j in _list(v, where, what):
        if isinstance(j, bool) or not isinstance(j, numbers.Integral) or not 1 <= int(j) <= n_features:
            _fail(where, f"{what} holds feature {j!r}, outside 1..{n_features} (features are 1-based in the file)")
        out.append(int(j) - 1)
    return out


def check_result_dict(d: dict, where: str) -> None:
    """The top level of a file read back: its fields and their types (the folds are checked
    by :func:`method_fold_fields`)."""
    for key in ("data_dir", "methods", "metric", "convention", "grids", "folds", "n_features"):
        if key not in d:
            _fail(where, f"no {key!r} field (a rankselect experiment.json has data_dir, methods, metric, "
                         "convention, grids, folds, n_features)")
    _int(d["n_features"], where, "n_features", low=1)
    methods = _list(d["methods"], where, "methods")
    if not methods or not all(isinstance(m, str) for m in methods) or len(set(methods)) != len(methods):
        _fail(where, f"methods must be distinct method names, got {methods!r}")
    for key in ("metric", "convention"):
        if not isinstance(d[key], str):
            _fail(where, f"{key} must be a string, got {d[key]!r}")
    grids = _dict(d["grids"], where, "grids")
    for m in methods:
        if m not in grids:
            _fail(where, f"grids has no entry for method {m!r}")
    folds = _list(d["folds"], where, "folds")
    if not folds:
        _fail(where, "folds is empty: the experiment finished no fold")
    for i, f in enumerate(folds):
        _dict(f, f"{where}: fold {i + 1}", "the fold")
        for m in methods:
            if m not in f:
                _fail(f"{where}: fold {i + 1}", f"no results for method {m!r} (methods: {', '.join(methods)})")


def method_fold_fields(r: Any, where: str, n_features: int) -> dict[str, Any]:
    """The keyword arguments of :class:`~rankselect.protocol.MethodFold` from one fold's
    entry of a file (checked; features 0-based again)."""
    _dict(r, where, "the entry")
    for key in ("method", "fold", "params", "validation_score", "test", "selected_features", "n_features",
                "sparsity_ratio", "fit_time", "per_query", "test_qids", "n_candidates", "skipped", "curve"):
        if key not in r:
            _fail(where, f"no {key!r} field")
    where = f"{where} ({r['fold']})" if isinstance(r["fold"], str) else where
    qids = np.asarray(_list(r["test_qids"], where, "test_qids"))
    per_query = {str(k): _scores(v, where, f"per_query {k}", len(qids))
                 for k, v in _dict(r["per_query"], where, "per_query").items()}
    test = {str(k): _num(v, where, f"test {k}") for k, v in _dict(r["test"], where, "test").items()}
    curve = r["curve"]
    if isinstance(curve, dict):  # the file's columns (to_json)
        curve = _curve_rows(curve, where, n_features)
    else:  # a list of grid points (to_dict, and files of version 1)
        for e in _list(curve, where, "curve"):
            for key in ("params", "vali", "test"):
                _dict(_dict(e, where, "a curve entry").get(key), where, f"a curve entry's {key}")
            _int(e.get("n_features"), where, "curve n_features", 0, n_features)
    path = r.get("path")
    return dict(method=str(r["method"]), fold=str(r["fold"]), params=_dict(r["params"], where, "params"),
                validation_score=_num(r["validation_score"], where, "validation_score"), test=test,
                selected_features=_features(r["selected_features"], where, "selected_features", n_features),
                n_features=_int(r["n_features"], where, "n_features", 0, n_features),
                sparsity_ratio=_num(r["sparsity_ratio"], where, "sparsity_ratio"),
                fit_time=_num(r["fit_time"], where, "fit_time"), per_query=per_query, test_qids=qids,
                n_candidates=_int(r["n_candidates"], where, "n_candidates", 0, 2**62),
                skipped=_list(r["skipped"], where, "skipped"), curve=curve,
                path=None if path is None else _path(path, where, n_features, len(qids)))


def _curve_rows(c: dict, where: str, n_features: int) -> list[dict[str, Any]]:
    sizes = [_int(k, where, "curve n_features", 0, n_features) for k in _list(c.get("n_features"), where,
                                                                                "curve n_features")]
    n = len(sizes)
    params = {k: _list(v, where, f"curve params {k}", n) for k, v in _dict(c.get("params"), where,
                                                                             "curve params").items()}
    split = {s: {k: _scores(v, where, f"curve {s} {k}", n).tolist() for k, v in _dict(c.get(s), where,
                                                                                        f"curve {s}").items()}
             for s in ("vali", "test")}
    return [{"params": {k: v[i] for k, v in params.items() if v[i] is not None}, "n_features": sizes[i],
             "vali": {k: v[i] for k, v in split["vali"].items()}, "test": {k: v[i] for k, v in split["test"].items()}}
            for i in range(n)]


def _path(p: Any, where: str, n_features: int, n_test: int) -> PathScores:
    where = f"{where} path"
    _dict(p, where, "the path")
    sizes = [_int(k, where, "n_features", 1, n_features) for k in _list(p.get("n_features"), where, "n_features")]
    if sorted(set(sizes)) != sizes:
        _fail(where, "n_features must be distinct sizes in ascending order")
    n = len(sizes)
    feats = [_features(f, where, f"features of size {k}", n_features)
             for k, f in zip(sizes, _list(p.get("features"), where, "features", n))]
    for k, f in zip(sizes, feats):
        if len(f) != k:
            _fail(where, f"the point of size {k} lists {len(f)} features")
    qv = np.asarray(_list(p.get("vali_qids"), where, "vali_qids"))
    vali = [_scores(row, where, f"vali scores of size {k}", qv.size)
            for k, row in zip(sizes, _list(p.get("vali"), where, "vali", n))]
    test = [_scores(row, where, f"test scores of size {k}", n_test)
            for k, row in zip(sizes, _list(p.get("test"), where, "test", n))]
    params = [_dict(x, where, "params") for x in _list(p.get("params"), where, "params", n)]
    measure = p.get("measure")
    if not isinstance(measure, str):
        _fail(where, f"measure must be a metric name, got {measure!r}")

    def rows(value, what: str, q: int) -> np.ndarray:
        listed = _list(value, where, what, n)
        return np.asarray([_scores(r, where, f"{what} of size {k}", q) for k, r in zip(sizes, listed)],
                          dtype=np.float64).reshape(n, q)

    nested = None if p.get("nested") is None else rows(p["nested"], "nested", qv.size)
    others = {}
    for m, o in _dict(p.get("measures", {}), where, "measures").items():
        o = _dict(o, where, f"measures {m}")
        others[str(m)] = {"vali": rows(o.get("vali"), f"{m} vali", qv.size),
                          "test": rows(o.get("test"), f"{m} test", n_test)}
        if o.get("nested") is not None:
            others[str(m)]["nested"] = rows(o["nested"], f"{m} nested", qv.size)
    return PathScores(measure=measure, n_features=np.asarray(sizes, dtype=np.intp), params=params, features=feats,
                      vali_qids=qv, vali=np.asarray(vali, dtype=np.float64).reshape(n, qv.size),
                      test=np.asarray(test, dtype=np.float64).reshape(n, n_test), nested=nested, others=others)


def version_of(d: Any, source: str) -> int:
    """The format version of a file's top level (1 when it names none); a newer one than this
    rankselect reads, or another format, is refused."""
    if not isinstance(d, dict):
        raise ValueError(f"{source}: not an experiment.json written by rankselect (the top level is "
                         f"{type(d).__name__}, not an object)")
    if "version" not in d and "format" not in d:
        return 1
    if d.get("format") != FORMAT:
        raise ValueError(f"{source}: not an experiment.json written by rankselect (format {d.get('format')!r})")
    v = d.get("version")
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{source}: the format version {v!r} is not a version number")
    if v > FORMAT_VERSION:
        raise ValueError(f"{source} is experiment.json format version {v}; this rankselect reads versions "
                         f"1..{FORMAT_VERSION}: upgrade rankselect to read it")
    return v


def dumps(d: dict[str, Any]) -> str:
    """Compact JSON (no indentation: every grid point of every fold is in the file)."""
    return json.dumps(d, separators=(",", ":"), allow_nan=True)
