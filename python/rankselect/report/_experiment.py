"""A :class:`~.data.ReportData` from an experiment's output folder
(``rankselect experiment ... --out DIR``: its ``experiment.json``)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional, Union

import numpy as np

from ..protocol.results import ExperimentResult, MethodFold
from ..selection.stability import fold_selection_frequencies
from ..selection.wrapper.path import PathRecorder, SelectionPath
from ._data import Curve, PerQuery, ReportData, curve_from_path, marks_of
from ._fitted import importance_of, redundancy_of

__all__ = ["load_experiment", "from_experiment"]


def load_experiment(folder: Union[str, os.PathLike]) -> ExperimentResult:
    """The :class:`~rankselect.protocol.ExperimentResult` written to ``folder/experiment.json``.

    The folder is the output of ``rankselect experiment --out folder`` (or of
    ``ExperimentResult.to_json``).

    Parameters
    ----------
    folder : path
        The folder, or the ``experiment.json`` file itself.

    Returns
    -------
    rankselect.protocol.ExperimentResult
        Features 0-based again, per-query scores as arrays.

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> from rankselect.report import load_experiment
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"greedy-rankrls": {"alpha": [1.0]}}
    >>> rs.protocol.run(root, ["greedy-rankrls"], grid=grid, progress=False).to_json(f"{root}/experiment.json")
    >>> result = load_experiment(root)
    >>> result.methods, result.folds[0]["greedy-rankrls"].selected_features
    (['greedy-rankrls'], [7, 3, 11, 4, 16])
    """
    path = Path(folder)
    if path.is_dir():
        path = path / "experiment.json"
    if not path.is_file():
        raise ValueError(f"source: no experiment.json in {str(folder)!r} (write one with "
                         "`rankselect experiment DATA_DIR --method M --out DIR`)")
    try:
        d = json.loads(path.read_text())
        folds = [{m: _method_fold(r) for m, r in f.items()} for f in d["folds"]]
        return ExperimentResult(data_dir=d["data_dir"], methods=list(d["methods"]), metric=d["metric"],
                                convention=d["convention"], grids=d["grids"], folds=folds,
                                n_features=int(d["n_features"]))
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"source: {str(path)!r} is not an experiment.json written by rankselect ({exc!r})") from exc


def _method_fold(r: dict) -> MethodFold:
    return MethodFold(method=r["method"], fold=r["fold"], params=r["params"],
                      validation_score=float(r["validation_score"]), test=r["test"],
                      selected_features=[int(j) - 1 for j in r["selected_features"]],
                      n_features=int(r["n_features"]), sparsity_ratio=float(r["sparsity_ratio"]),
                      fit_time=float(r["fit_time"]),
                      per_query={k: np.asarray(v, dtype=np.float64) for k, v in r["per_query"].items()},
                      test_qids=np.asarray(r["test_qids"]), n_candidates=int(r["n_candidates"]),
                      skipped=r["skipped"], curve=r["curve"])


def _fold_curves(res: ExperimentResult, method: str) -> tuple[Curve, Curve]:
    """Validation and test ``res.metric`` per subset size, averaged over the folds with a
    t-interval over the folds; in each fold the grid point of best validation score of each size."""
    per_size: dict[int, list[tuple[float, float]]] = {}
    for fold in res.folds:
        best: dict[int, tuple[float, float]] = {}
        for point in fold[method].curve:
            k, v, t = int(point["n_features"]), point["vali"][res.metric], point["test"][res.metric]
            if k > 0 and (k not in best or v > best[k][0]):
                best[k] = (v, t)
        for k, vt in best.items():
            per_size.setdefault(k, []).append(vt)
    sizes = [k for k in sorted(per_size) if len(per_size[k]) == len(res.folds)]
    out = []
    for j, split in enumerate(("validation", "test")):
        rec = PathRecorder()
        for k in sizes:
            rec.add(np.arange(k), np.array([vt[j] for vt in per_size[k]]), [], [], 0.0, float(k))
        path: SelectionPath = rec.path()
        out.append(curve_from_path(method, split, path, interval_over="folds"))
    return out[0], out[1]


def from_experiment(folder: Union[str, os.PathLike], *, method: Optional[str] = None, data_dir=None,
                    feature_names=None, title: Optional[str] = None, random_state: int = 0) -> ReportData:
    """Collect a report of an experiment folder.

    Parameters
    ----------
    folder : path
        The ``--out`` folder of ``rankselect experiment`` (or its ``experiment.json``).
    method : str, optional
        The method whose subset the report hands off (default: the selecting method of best
        mean validation score).
    data_dir : path, optional
        The LETOR folds (default: the experiment's ``data_dir``, as written or relative to
        the folder's parent); its first fold feeds the redundancy and importance panels.
    feature_names : sequence of str of shape (n_features,), optional
    title : str, optional
    random_state : int, default=0
        Seed of the permutation importance.
    """
    res = load_experiment(folder)
    n = res.n_features
    names = [str(j + 1) for j in range(n)] if feature_names is None else [str(s) for s in feature_names]
    if len(names) != n:
        raise ValueError(f"feature_names has {len(names)} names but the experiment has {n} features")
    mean_k = {m: float(np.mean([f[m].n_features for f in res.folds])) for m in res.methods}
    vali = {m: float(np.mean([f[m].validation_score for f in res.folds])) for m in res.methods}
    selecting = [m for m in res.methods if mean_k[m] < n] or list(res.methods)
    if method is None:
        method = max(selecting, key=lambda m: vali[m])
    elif method not in res.methods:
        raise ValueError(f"method {method!r} is not in this experiment (methods: {', '.join(res.methods)})")
    curves, marks = [], {}
    for m in res.methods:
        v, t = _fold_curves(res, m)
        curves += [v, t]
        if v.n_features:
            marks[m] = marks_of(v)
    freq = fold_selection_frequencies(res)
    order = _frequency_order(res, method, freq[method])
    subsets = {k: order[:k] for k in range(1, len(order) + 1)}
    default_k = min(max(marks.get(method, {}).get("one-standard-error", len(order)), 1), len(order))
    reference = max((m for m in res.methods if m != method), key=lambda m: mean_k[m], default=None)
    per_query = None
    if reference is not None:
        key = "AP" if res.metric == "MAP" else res.metric
        qids = [f"{f[method].fold}:{q}" for f in res.folds for q in f[method].test_qids.tolist()]
        per_query = PerQuery(qids, np.concatenate([f[method].per_query[key] for f in res.folds]).tolist(),
                             np.concatenate([f[reference].per_query[key] for f in res.folds]).tolist(),
                             key, f"{method} (chosen model per fold)", f"{reference} ({mean_k[reference]:g} features)")
    pareto = [{"method": m, "k": mean_k[m], "cost": mean_k[m],
               "score": float(np.mean([f[m].test[res.metric] for f in res.folds])), "split": "test"}
              for m in res.methods]
    data = ReportData(
        title=title or f"Feature selection on {res.data_dir}", source=f"experiment folder {os.fspath(folder)}",
        measure=res.metric, feature_names=names, method=method, curves=curves, marks=marks, subsets=subsets,
        default_k=default_k, stability={m: freq[m].tolist() for m in res.methods}, stability_over="folds",
        per_query=per_query, pareto=pareto,
        settings={"data": res.data_dir, "methods": ", ".join(res.methods), "folds": str(len(res.folds)),
                  "selection metric": f"validation {res.metric}", "convention": res.convention,
                  **{f"grid {m}": "; ".join(f"{p}: {len(v)} values" for p, v in g.items())
                     for m, g in res.grids.items()}})
    if per_query is None:
        data.notes["per-query"] = "one method only: nothing to compare the chosen subset with"
    fold1 = _first_fold(folder, data_dir if data_dir is not None else res.data_dir)
    if fold1 is None:
        data.notes["redundancy"] = data.notes["importance"] = (
            f"the data folder {res.data_dir!r} was not found (pass data_dir=)")
        return data
    from ..data.letor import load_letor

    train, test = (load_letor(fold1 / f"{s}.txt", n_features=n) for s in ("train", "test"))
    data.redundancy = redundancy_of(train, names)
    alpha = res.folds[0][method].params.get("alpha", 1.0)
    data.importance = importance_of(subsets[default_k], train, test, float(alpha) if alpha else 1.0,
                                    data.measure, random_state, split=f"test of {fold1.name}")
    return data


def _frequency_order(res: ExperimentResult, method: str, freq: np.ndarray) -> list[int]:
    """Features chosen in any fold, by decreasing fold frequency (ties: earlier mean position
    in the folds' selection orders, then lower index)."""
    pos = np.full(freq.size, np.inf)
    for j in np.flatnonzero(freq > 0):
        pos[j] = np.mean([f[method].selected_features.index(int(j)) for f in res.folds
                          if int(j) in f[method].selected_features])
    return [int(j) for j in np.lexsort((np.arange(freq.size), pos, -freq)) if freq[j] > 0]


def _first_fold(folder, data_dir) -> Optional[Path]:
    for base in (Path(data_dir), Path(folder).parent / data_dir, Path(folder) / data_dir):
        if (base / "Fold1" / "train.txt").is_file() and (base / "Fold1" / "test.txt").is_file():
            return base / "Fold1"
    return None
