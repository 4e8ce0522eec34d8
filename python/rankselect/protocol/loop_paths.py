"""The protocol's candidates of ``rfe`` and ``forward``: selection with a ranker in the loop,
every option of ``rankselect select --method rfe|forward`` (``ranker``, ``scoring``,
``candidates``, ``n_candidates``, ``seed``; ``floating`` for forward; ``step`` and
``drop_by`` - or its older name ``importance`` - for rfe).

The selection runs on the training queries alone (3 query folds of ``train`` score every
subset), so the fold's validation queries stay free to choose the size. One selection path
gives every size k of the grid:

- ``ranker=linear`` (the default, also ``rankrls``): RankRLS in the loop, one path per alpha
  of the grid; each size's candidate is RankRLS refitted on all the training queries;
- ``ranker=lightgbm``, ``xgboost``, ``catboost`` or ``ranksvm``: that ranker in the loop with
  its fixed default settings (:func:`~rankselect.selection.wrapper.rankers.make_ranker`: no
  setting is chosen on the validation queries, and the refit of each size does not stop early
  on them); each size's candidate is the ranker refitted on all the training queries on that
  subset, scored per query on validation and test like any candidate. The path also holds the
  ranker on all the features (``reference``: the report's "all features" for this ranker,
  never a grid point the protocol picks).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..data.grouping import QueryGroups
from ..models import RankRLS
from ..selection.wrapper import ForwardSelection, RecursiveElimination
from ..selection.wrapper.adapters import GroupedSet, make_adapter
from ..selection.wrapper.rankers import RANKERS, make_candidates, make_ranker

__all__ = ["LOOP_RANKERS", "loop_candidates", "ranker_of", "ranker_of_label", "LINEAR"]

#: the family of every linear ranker of the protocol (RankRLS, RankSVM downstream of a filter)
LINEAR = "linear"
#: the ``ranker=`` values of rfe / forward in the protocol
LOOP_RANKERS = (LINEAR,) + RANKERS


def ranker_of(method: str, options: dict[str, Any]) -> str:
    """The ranker a method's candidates are: ``"linear"`` for every method but rfe / forward
    with a ``ranker=`` other than linear / rankrls, whose ranker it names.

    Examples
    --------
    >>> from rankselect.protocol.loop_paths import ranker_of
    >>> ranker_of("forward", {"ranker": "lightgbm"}), ranker_of("gas", {"ranker": "ranksvm"})
    ('lightgbm', 'linear')
    """
    r = options.get("ranker")
    if method in ("rfe", "forward") and r not in (None, LINEAR, "rankrls"):
        return str(r)
    return LINEAR


def ranker_of_label(label: str) -> str:
    """:func:`ranker_of` of a method's label as an experiment writes it (``"forward:ranker=lightgbm"``).

    Examples
    --------
    >>> from rankselect.protocol.loop_paths import ranker_of_label
    >>> ranker_of_label("rfe:ranker=xgboost,seed=1"), ranker_of_label("greedy-rankrls")
    ('xgboost', 'linear')
    """
    name, _, rest = label.partition(":")
    opts = {k.strip(): v.strip() for k, eq, v in (item.partition("=") for item in rest.split(",")) if eq}
    return ranker_of(name, opts)


def _check(options: dict[str, Any]) -> str:
    ranker = options["ranker"]
    if ranker not in LOOP_RANKERS:
        raise ValueError(f"option ranker must be one of {', '.join(LOOP_RANKERS)}, got {ranker!r}")
    seed = options["seed"]
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"option seed must be an integer, got {seed!r}")
    if options["n_candidates"] is not None and (not isinstance(options["n_candidates"], int)
                                                or options["n_candidates"] < 1):
        raise ValueError(f"option n_candidates must be a positive integer, got {options['n_candidates']!r}")
    return "rankrls" if ranker == LINEAR else str(ranker)


def _selector(forward: bool, estimator, ks: list[int], options: dict[str, Any]):
    common = dict(scoring=str(options["scoring"]), candidates=make_candidates(str(options["candidates"])),
                  n_candidates=options["n_candidates"], cv=3, random_state=int(options["seed"]))
    pool = options["n_candidates"] or max(ks)  # the sizes of the grid beyond the candidate pool are not reached
    if forward:
        floating = options.get("floating", False)
        if isinstance(floating, str):
            floating = floating.lower() in ("yes", "true", "1")
        return ForwardSelection(estimator, n_features_to_select=min(max(ks), pool), floating=bool(floating), **common)
    drop_by = options.get("drop_by") or options["importance"]
    return RecursiveElimination(estimator, n_features_to_select=min(min(ks), pool), importance=drop_by,
                                step=options.get("step", 1), **common)


def _steps(path, ks: list[int]):
    """(k, columns) of the path's eligible steps whose size is in the grid (the first of each size)."""
    seen: set[int] = set()
    for i in np.flatnonzero(path.eligible):
        k, cols = int(path.n_features[i]), [int(j) for j in path.features[i]]
        if k in ks and k not in seen:
            seen.add(k)
            yield k, cols


def _grouped(train) -> GroupedSet:
    groups = QueryGroups.from_qid(train.qid)
    return GroupedSet(np.ascontiguousarray(groups.gather(train.X)), groups.gather(train.y),
                      groups.gather(train.qid), groups.sizes)


def _predictor(fitted, cols: list[int]) -> Callable[[np.ndarray], np.ndarray]:
    idx = np.asarray(cols, dtype=np.intp)
    return lambda X: np.asarray(fitted.predict(np.ascontiguousarray(X[:, idx])), dtype=np.float64).ravel()


def loop_candidates(forward: bool, train, grid, options, cache, full: Callable, candidate: type):
    """The candidates of rfe (``forward=False``) or forward selection on one fold's ``train``
    (see the module); ``full(w, cols, n)`` spreads a subset's weights over the n columns,
    ``candidate`` is :class:`~rankselect.protocol.Candidate`.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.protocol import Candidate
    >>> from rankselect.protocol.loop_paths import loop_candidates
    >>> from rankselect.protocol.specs import _full
    >>> train = rs.data.datasets.load_example("train")
    >>> options = dict(rs.protocol.METHODS["forward"].options, ranker="ranksvm")
    >>> batch = next(loop_candidates(True, train, {"k": [1, 2]}, options, {}, _full, Candidate))
    >>> [(c.params, c.coef is None, len(c.selected), c.reference) for c in batch]
    [({'k': 1}, True, 1, False), ({'k': 2}, True, 2, False), ({'k': 22}, True, 22, True)]
    """
    X, y, q = train.X, train.y, train.qid
    n = X.shape[1]
    ranker = _check(options)
    ks = sorted({int(k) for k in grid["k"] if 1 <= int(k) <= n})
    if not ks:
        raise ValueError(f"{'forward' if forward else 'rfe'} grid: k must hold values in 1..{n}, got {grid['k']}")
    seed = int(options["seed"])
    if ranker == "rankrls":
        for a in grid["alpha"]:
            path = _selector(forward, RankRLS(alpha=a), ks, options).fit(X, y, qid=q).path_
            out = []
            for k, cols in _steps(path, ks):
                w = np.asarray(RankRLS(alpha=a).fit(X[:, cols], y, qid=q).coef_, dtype=float)
                out.append(candidate({"alpha": a, "k": k}, full(w, cols, n), cols))
            yield out
        return
    est = make_ranker(ranker, seed)
    path = _selector(forward, est, ks, options).fit(X, y, qid=q).path_
    adapter = make_adapter(est)  # no early stopping: nothing of the refit is chosen on validation queries
    data = _grouped(train)
    out, sizes = [], set()
    for k, cols in _steps(path, ks):
        fitted = adapter.fit(data.columns(cols), seed)
        out.append(candidate({"k": k}, None, cols, model=_predictor(fitted, cols)))
        sizes.add(k)
    if n not in sizes:  # the ranker on every feature: the reference of this ranker's paths
        everything = list(range(n))
        fitted = adapter.fit(data, seed)
        out.append(candidate({"k": n}, None, everything, model=_predictor(fitted, everything), reference=True))
    yield out
