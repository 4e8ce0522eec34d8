"""The LETOR protocol's runner: for every fold and method, fit every grid point on train,
keep the best by the validation metric, evaluate it on test (see :mod:`rankselect.protocol`).
"""
from __future__ import annotations

import numbers
import os
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Optional, Union

import numpy as np
from threadpoolctl import threadpool_limits

try:  # optional: a progress bar
    from tqdm.auto import tqdm
except ImportError:  # pragma: no cover - depends on the environment
    tqdm = None

from .._validation import shown
from ..data import load_letor_folds, zero_features
from ..exceptions import warnings_once
from ..metrics.checks import check_convention
from .path_scores import measure_key, path_scores
from .results import ExperimentResult, MethodFold
from .scoring import SELECTION_METRICS, evaluate, scores, ties_within_every_query
from .specs import METHODS, Candidate


def load_folds(data_dir: Union[str, os.PathLike]) -> list:
    """The five folds of ``data_dir`` via :func:`rankselect.load_letor_folds` (train, vali and
    test of a fold share one feature count). Raises ``FileNotFoundError`` naming the missing
    directory or file.

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> folds = rs.protocol.load_folds(root)
    >>> [f.name for f in folds]
    ['Fold1', 'Fold2', 'Fold3', 'Fold4', 'Fold5']
    """
    return load_letor_folds(data_dir)


def parse_method(spec: Union[str, tuple[str, Mapping[str, Any]]]) -> tuple[str, str, dict[str, Any]]:
    """``"name"`` or ``"name:opt=v,opt=v"`` or ``(name, {opt: v})`` -> (label, name, options).

    Examples
    --------
    >>> from rankselect.protocol import parse_method
    >>> parse_method("sparse-ranksvm:penalty=lp,p=0.5")
    ('sparse-ranksvm:penalty=lp,p=0.5', 'sparse-ranksvm', {'penalty': 'lp', 'p': 0.5})
    """
    if isinstance(spec, tuple):
        name, opts = spec[0], dict(spec[1])
    elif isinstance(spec, str):
        name, _, rest = spec.partition(":")
        opts = {}
        for item in filter(None, rest.split(",")):
            k, eq, v = item.partition("=")
            if not eq or not k:
                raise ValueError(f"method {spec!r}: options must be written name:option=value[,option=value]")
            opts[k.strip()] = parse_value(v.strip())
    else:
        raise TypeError(f"methods must be strings like 'greedy-rankrls', got {spec!r}")
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; known methods: {', '.join(sorted(METHODS))}")
    known = METHODS[name].options
    for k in opts:
        if k not in known:
            allowed = ", ".join(sorted(known)) or "none"
            raise ValueError(f"method {name!r} has no option {k!r} (options: {allowed})")
    label = name if not opts else name + ":" + ",".join(f"{k}={v}" for k, v in opts.items())
    return label, name, {**known, **opts}


def parse_value(v: str):
    """A value written on the command line or in a method spec: an int, a float, ``2^e``
    (a power of two) or else the string itself."""
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    m = re.fullmatch(r"2\^(-?\d+(?:\.\d+)?)", v)
    if m:
        return 2.0 ** float(m.group(1))
    return v


def default_grid(method: str, n_features: int) -> dict[str, list[Any]]:
    """The default hyperparameter grid of ``method`` for data with ``n_features`` columns.

    Examples
    --------
    >>> from rankselect.protocol import default_grid
    >>> grid = default_grid("greedy-rankrls", n_features=46)
    >>> sorted(grid), len(grid["alpha"])
    (['alpha', 'k'], 21)
    """
    _, name, _ = parse_method(method)
    return METHODS[name].grid(n_features)


def _resolve_grid(label: str, name: str, n: int, grid: Optional[Mapping[str, Mapping[str, Sequence]]],
                  options: Optional[Mapping[str, Any]] = None) -> dict[str, list[Any]]:
    g = METHODS[name].grid(n)
    if grid:
        for key in (name, label):
            for p, vals in (grid.get(key) or {}).items():
                if p not in g:
                    raise ValueError(f"grid for method {key!r}: unknown parameter {p!r} (parameters: {', '.join(g)})")
                vals = list(vals) if isinstance(vals, (list, tuple, np.ndarray, range)) else [vals]
                if not vals:
                    raise ValueError(f"grid for method {key!r}: parameter {p!r} has no values")
                g[p] = vals
    for p in METHODS[name].unused(dict(options or METHODS[name].options)):
        g.pop(p, None)  # e.g. GAS's C when the ranker is RankRLS
    return g


@contextmanager
def _thread_limit(jobs: Optional[int]):
    """Bound the threads: RAYON_NUM_THREADS for the Rust core (read when rayon's global pool
    starts, i.e. at the first parallel kernel call of the process) and threadpoolctl for the
    BLAS behind NumPy/SciPy."""
    if jobs is None:
        yield
        return
    if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {shown(jobs)}")
    os.environ["RAYON_NUM_THREADS"] = str(int(jobs))
    with threadpool_limits(limits=int(jobs)):
        yield


def _progress(total: int, enabled: bool, desc: str):
    """A tqdm bar, or None (disabled, or tqdm not installed: then :func:`_report_line`)."""
    if not enabled or tqdm is None:
        return None
    return tqdm(total=total, desc=desc, unit="fit", leave=False)


def _fmt_params(params: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def _report_line(r: MethodFold, metric: str, convention: str, elapsed: float, stream=None) -> None:
    """The progress line printed per fold and method when no progress bar is available."""
    print(f"{r.fold} {r.method}: {_fmt_params(r.params)}; vali {metric} {r.validation_score:.4f} "
          f"({convention}); {elapsed:.1f} s", file=stream or sys.stderr, flush=True)


@warnings_once()  # a warning repeated by the experiment's many fits is shown once
def run(
    data_dir: Union[str, os.PathLike],
    methods: Sequence[Union[str, tuple[str, Mapping[str, Any]]]],
    grid: Optional[Mapping[str, Mapping[str, Sequence[Any]]]] = None,
    metric: str = "map",
    convention: str = "letor",
    jobs: Optional[int] = None,
    progress: bool = True,
    folds: Optional[Sequence[int]] = None,
    curves: bool = True,
    on_fold: Optional[Callable[[ExperimentResult], None]] = None,
    measures: Sequence[str] = ("map", "ndcg@10"),
) -> ExperimentResult:
    """Run the LETOR protocol on ``data_dir/Fold*/{train,vali,test}.txt``.

    Parameters
    ----------
    data_dir : path of the fold layout (``Fold1`` .. ``Fold5``).
    methods : method names (see :data:`METHODS`), optionally with fixed options
        ``"sparse-ranksvm:penalty=log"``; a method may appear with different options.
    grid : ``{method: {param: values}}`` overriding parts of the default grids (the key is
        the method name, which applies to every variant, or a full label with options;
        entries for methods not in ``methods`` are ignored, unknown names are errors).
    metric : validation metric for model selection: "map" (default), "ndcg@k", "p@k",
        "meanndcg".
    convention : "letor" (Eval-Score-4.0 conventions, default), "exponential", "trec" or "lightgbm".
    jobs : bound the number of threads (Rust core via ``RAYON_NUM_THREADS``, effective if no
        parallel kernel ran yet in this process; BLAS via threadpoolctl).
    progress : show a tqdm bar per fold x grid point; without tqdm, print one line per fold
        and method to stderr (method, fold, chosen parameters, validation score, elapsed).
    folds : 1-based fold numbers to run (default all).
    curves : also evaluate every grid point on test (for the feature-count plots).
    on_fold : called after each fold with the result of the folds finished so far (e.g. to
        save them as they finish, so that an interrupted run keeps its finished folds).
    measures : the measures of the paths' per-query scores besides the selection metric
        (what the report can decide on, ``report --measure``): "map", "ndcg@k", "err@k",
        "p@k", "meanndcg"; default MAP and NDCG@10.

    Returns
    -------
    ExperimentResult

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [1.0]}}
    >>> result = rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False)
    >>> result.methods
    ['rankrls', 'greedy-rankrls']
    >>> {m: round(avg["MAP"], 4) for m, avg in result.averages().items()}
    {'rankrls': 0.9053, 'greedy-rankrls': 0.9038}
    """
    if isinstance(metric, str) and metric.lower() in SELECTION_METRICS:
        sel_key = SELECTION_METRICS[metric.lower()]
    else:
        raise ValueError(f"metric must be one of {', '.join(SELECTION_METRICS)}, got {metric!r}")
    convention = check_convention(convention)
    if isinstance(measures, str):
        measures = [measures]
    measures = list(dict.fromkeys(measure_key(m) for m in measures))
    if isinstance(methods, (str, tuple)):
        methods = [methods]
    parsed = [parse_method(m) for m in methods]
    if not parsed:
        raise ValueError("methods is empty: name at least one method, e.g. ['rankrls']")
    labels = [p[0] for p in parsed]
    if len(set(labels)) != len(labels):
        raise ValueError(f"methods lists a method twice: {labels}")
    if grid is not None:
        for key in grid:
            base = key.partition(":")[0]
            if base not in METHODS:
                raise ValueError(f"grid names unknown method {key!r}; known methods: {', '.join(sorted(METHODS))}")

    if folds is not None:
        if isinstance(folds, (str, bytes)) or np.ndim(folds) != 1:
            raise TypeError(f"folds must be a sequence of 1-based fold numbers, got {folds!r}")
        folds = list(folds)
        if not folds:
            raise ValueError("folds is empty: name at least one fold (1-based), or pass None for all")
        for i in folds:
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
                raise TypeError(f"folds must hold integer fold numbers (1-based), got {i!r}")
    with _thread_limit(jobs):
        all_folds = load_folds(data_dir)
        if folds is not None:
            bad = [i for i in folds if not (1 <= i <= len(all_folds))]
            if bad:
                raise ValueError(f"folds must be in 1..{len(all_folds)}, got {bad}")
            all_folds = [all_folds[int(i) - 1] for i in folds]
        n = all_folds[0].train.X.shape[1]
        grids = {label: _resolve_grid(label, name, n, grid, options) for label, name, options in parsed}
        total = sum(METHODS[name].n_units(grids[label]) for label, name, _ in parsed) * len(all_folds)
        bar = _progress(total, progress, "experiment")
        results: list[dict[str, MethodFold]] = []
        try:
            for fold in all_folds:
                cache: dict[str, Any] = {}
                per_method = {}
                for label, name, options in parsed:
                    if bar is not None:
                        bar.set_description(f"{fold.name} {label}")
                    t_start = time.perf_counter()
                    per_method[label] = _run_method(fold, label, name, options, grids[label], sel_key,
                                                    convention, cache, bar, curves, measures)
                    if progress and bar is None:
                        _report_line(per_method[label], sel_key, convention, time.perf_counter() - t_start)
                results.append(per_method)
                if on_fold is not None:
                    on_fold(ExperimentResult(str(data_dir), labels, sel_key, convention, grids, list(results), n))
        finally:
            if bar is not None:
                bar.close()
    return ExperimentResult(str(data_dir), labels, sel_key, convention, grids, results, n)


def _run_method(fold, label, name, options, grid, sel_key, convention, cache, bar, curves,
                measures=()) -> MethodFold:
    spec = METHODS[name]
    tr, va, te = fold.train, fold.vali, fold.test
    n = tr.X.shape[1]
    best: Optional[tuple[float, Candidate]] = None
    by_size: dict[int, tuple[float, Candidate]] = {}  # the path: per size in use, its best grid point
    points: dict[int, list[Candidate]] = {}  # every grid point of each size (the path's nested scores)
    skipped: list[dict[str, Any]] = []
    curve: list[dict[str, Any]] = []
    n_cand = 0
    fit_time = 0.0
    t0 = time.perf_counter()
    gen = spec.candidates(tr, grid, options, cache.setdefault(name, {}))
    # A weight on an all-zero column changes no score (RankRLS leaves round-off there): the
    # counts (curve and table) and the sparsity ratio are over the available features only.
    available = ~zero_features(tr.X)  # one definition: rankselect.data.uninformative
    while True:
        try:
            batch = next(gen)
        except StopIteration:
            break
        fit_time += time.perf_counter() - t0
        for cand in batch:
            n_cand += 1
            if cand.model is None:
                coef = np.asarray(cand.coef, dtype=float)
                if coef.shape != (n,):
                    raise RuntimeError(f"method {label!r} returned a weight vector of shape {coef.shape}, "
                                       f"expected ({n},)")
                cand = Candidate(dict(cand.params), coef, list(cand.selected), reference=cand.reference)
            sv = cand.scores(va.X)
            if not np.all(np.isfinite(sv)) or ties_within_every_query(sv, va.qid):
                skipped.append(dict(cand.params))
                continue
            vscores = scores((sel_key, "MAP", "NDCG@10") if curves else (sel_key,), va.y, sv, va.qid, convention)
            v = vscores[sel_key]
            size = int(np.count_nonzero(cand.in_use(available)))
            if curves:
                ts = scores(("MAP", "NDCG@10"), te.y, cand.scores(te.X), te.qid, convention)
                curve.append({"params": dict(cand.params), "n_features": size,
                              "vali": {"MAP": vscores["MAP"], "NDCG@10": vscores["NDCG@10"]},
                              "test": {"MAP": ts["MAP"], "NDCG@10": ts["NDCG@10"]}})
            if not cand.reference and (best is None or v > best[0]):
                best = (v, cand)
            points.setdefault(size, []).append(cand)
            if size not in by_size or v > by_size[size][0]:
                by_size[size] = (v, cand)
        if bar is not None:
            bar.update(1)
        t0 = time.perf_counter()
    if best is None:
        raise ValueError(f"method {label!r} on {fold.name}: every one of the {n_cand} grid points is degenerate "
                         "(validation scores tie within every query); widen the grid")
    v, cand = best
    test = evaluate(te.y, cand.scores(te.X), te.qid, convention, per_query=True)
    per_query = test.pop("per_query")
    n_used = int(np.count_nonzero(cand.in_use(available)))
    avail = max(1, int(available.sum()))
    return MethodFold(
        method=label, fold=fold.name, params=cand.params, validation_score=float(v), test=test,
        selected_features=[int(j) for j in cand.selected], n_features=n_used,
        sparsity_ratio=n_used / avail, fit_time=fit_time, per_query=per_query,
        test_qids=np.asarray(list(dict.fromkeys(te.qid.tolist()))), n_candidates=n_cand, skipped=skipped, curve=curve,
        path=path_scores(by_size, va, te, available, sel_key, convention, measures, points))
