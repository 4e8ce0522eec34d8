"""A fitted :class:`~rankselect.CascadeSelection` (or the JSON of ``rankselect cascade
--json``) as an engine's own phases.

A cascade is two linear phases: phase 1 scores every candidate, phase 2 re-ranks phase 1's top
``window`` (N) documents of each query, and those N rank above the rest, which keep phase 1's
order (``CascadeSelection.predict``). Per engine:

- Vespa: ``first-phase`` is phase 1, ``second-phase { rerank-count: N }`` phase 2. The N
  re-ranked hits get the second-phase score; Vespa rescales the first-phase scores of the other
  hits (``FirstPhaseRescorer``, searchlib/queryeval/first_phase_rescorer.cpp: when the lowest
  first-phase score of the re-ranked hits exceeds their lowest second-phase score, every other
  hit's score becomes ``score * scale - adjust``, ``scale > 0``, so that it lies at or below the
  lowest second-phase score) : the composed order is ``predict``'s, no offset needed. The
  rerank-count is per content node: the order is ``predict``'s on one content node (or one per
  group).
- Solr: refused. ``rq`` takes one re-rank query (``ReRankQParserPlugin``: one ``reRankQuery``
  over ``reRankDocs``), and an LTR model is that one query: two phases cannot be nested.
- OpenSearch / the o19s LTR plugin (``cascade_opensearch``): phase 1 in the main query (every
  candidate), phase 2 in one rescore window of N; the order is ``predict``'s top N on one shard
  when ``from + size <= N``. Lucene refuses negative main-query scores, so a phase 1 with a
  negative weight is refused. Two rescore windows would not do: the ``query`` rescorer
  (``QueryRescorer.combine``) multiplies the score of every hit beyond a window by
  ``query_weight`` and sorts all hits by score, so a window stays above the rest only when its
  scores exceed theirs, which linear scores of either sign do not guarantee (and no
  order-preserving map sends every float32 score one-to-one above the others).
- Elasticsearch's native ``learning_to_rank``: refused, it runs tree ensembles only.
- A single-phase cascade ("one phase") is exported as one subset with its linear model.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

from . import cascade_opensearch
from .handoff import EngineFiles, Handoff
from .model_files import read_json_text
from .subset import Subset, subset_of, templates_for
from .vespa import _function, _linear_expression, identifier

__all__ = ["read_cascade"]  # and, for export_engine, cascade_files


@dataclass(frozen=True)
class CascadeRead:
    """The phases of a cascade: per phase its 0-based ``columns``, ``coef`` and ``window``
    (None for phase 1), the data's width and its column names (None: not known)."""

    phases: list[tuple[list[int], np.ndarray, Optional[int]]]
    n_features: Optional[int]
    names: Optional[list[str]]


def _is_cascade_json(data: Any) -> bool:
    return isinstance(data, Mapping) and isinstance(data.get("cascade"), Mapping)


def read_cascade(selection) -> Optional[CascadeRead]:
    """The cascade in ``selection`` (a ``CascadeSelection``, the JSON of ``rankselect cascade
    --json`` as a dict, its text or a path), or None when it is not one.

    Examples
    --------
    >>> from rankselect.deploy.cascade_export import read_cascade
    >>> c = read_cascade({"cascade": {"n_features": 5, "phases": [
    ...     {"features": [2], "coef": [1.0], "window": None},
    ...     {"features": [2, 4], "coef": [1.0, 0.5], "window": 10}]}})
    >>> [(cols, w) for cols, _, w in c.phases]
    [([1], None), ([1, 3], 10)]
    """
    if type(selection).__name__ == "CascadeSelection":
        if not hasattr(selection, "phases_"):
            raise ValueError("the CascadeSelection is not fitted: call fit(X, y, qid=..., eval_set=...) before "
                             "exporting it")
        names = getattr(selection, "feature_names_in_", None)
        return CascadeRead([([int(j) for j in p.features], np.asarray(p.coef, dtype=np.float64), p.window)
                            for p in selection.phases_], int(selection.n_features_in_),
                           None if names is None else [str(s) for s in names])
    data: Any = selection
    if isinstance(selection, (str, os.PathLike)):
        text = str(selection)
        if not text.lstrip().startswith("{"):
            try:
                text = Path(selection).read_text(encoding="utf-8")
            except OSError:
                return None  # not a file: the selection reader says why
        try:
            data = read_json_text(text, "not JSON")
        except ValueError:
            return None  # the selection reader says why
    if not _is_cascade_json(data):
        return None
    c = data["cascade"]
    what = "the cascade JSON ('rankselect cascade --json')"
    phases = c.get("phases")
    if not isinstance(phases, list) or not 1 <= len(phases) <= 2:
        raise ValueError(f"{what}: 'phases' must list one or two phases")
    out = []
    for i, p in enumerate(phases, 1):
        feats, coef, window = p.get("features"), p.get("coef"), p.get("window")
        if not isinstance(feats, list) or not feats or not all(
                isinstance(j, int) and not isinstance(j, bool) and j >= 1 for j in feats):
            raise ValueError(f"{what}: phase {i} has no 'features' list of 1-based feature numbers")
        if not isinstance(coef, list) or len(coef) != len(feats) or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and np.isfinite(w) for w in coef):
            raise ValueError(f"{what}: phase {i}'s 'coef' must be {len(feats)} finite numbers (one per feature)")
        if (i == 1) != (window is None) or (window is not None and (not isinstance(window, int) or window < 1)):
            raise ValueError(f"{what}: phase {i}'s 'window' must be {'null' if i == 1 else 'an integer >= 1'}, "
                             f"got {window!r}")
        out.append(([j - 1 for j in feats], np.asarray(coef, dtype=np.float64), window))
    n = c.get("n_features")
    return CascadeRead(out, int(n) if isinstance(n, int) and not isinstance(n, bool) else None, None)


def union_columns(c: CascadeRead) -> list[int]:
    """Every column some phase reads, phase 1's first (then phase 2's new ones)."""
    cols: list[int] = []
    for p, _, _ in c.phases:
        cols += [j for j in p if j not in cols]
    return cols


def cascade_subset(c: CascadeRead, feature_names: Optional[Sequence[str]], n_features: Optional[int]) -> Subset:
    return subset_of(union_columns(c), feature_names if feature_names is not None else c.names,
                     n_features if n_features is not None else c.n_features)


def _weights(c: CascadeRead, phase: int, subset: Subset) -> tuple[np.ndarray, list[int]]:
    """Phase ``phase``'s weights in its own feature order and the positions of its features
    in ``subset``."""
    cols, coef, _ = c.phases[phase]
    return coef, [subset.columns.index(j) for j in cols]


def _vespa(h: Handoff, c: CascadeRead) -> EngineFiles:
    names = [identifier(s) for s in h.subset.names]
    if len(set(names)) != len(names):
        raise ValueError(f"the feature names collide as Vespa identifiers: {names}")
    notes = []
    renamed = [f"{a} -> {b}" for a, b in zip(h.subset.names, names) if a != b]
    if renamed:
        notes.append(f"Vespa function names are identifiers, not words of the ranking-expression language: "
                     f"{', '.join(renamed)}")
    if h.templates is None:
        notes.append("skeleton: no templates were given, so each feature's function is a placeholder marked TODO; "
                     "give templates= (--templates FILE) for a profile Vespa runs")
    profile = identifier(h.name)
    lines = [f"rank-profile {profile} {{", ""]
    for i, s in enumerate(names):
        lines += [f"    function {s}() {{", f"        expression: {_function(h, i)}", "    }", ""]
    w1, pos1 = _weights(c, 0, h.subset)
    w2, pos2 = _weights(c, 1, h.subset)
    window = c.phases[1][2]
    lines += ["    first-phase {", f"        expression: {_linear_expression(w1, [names[k] for k in pos1])}",
              "    }", "", "    second-phase {", f"        rerank-count: {window}",
              f"        expression: {_linear_expression(w2, [names[k] for k in pos2])}", "    }", ""]
    lines += ["    match-features {"] + [f"        {s}" for s in names] + ["    }", "}"]
    notes.append(f"cascade: first-phase is phase 1 (every match), second-phase phase 2 on the best {window} "
                 "(rerank-count); Vespa rescales the other hits' first-phase scores below the re-ranked ones, so "
                 "the order is CascadeSelection.predict's on one content node (rerank-count is per content node)")
    notes.append(f"application package: put {profile}.profile in schemas/<schema>/ and query with "
                 f"ranking={profile}")
    return EngineFiles({f"{profile}.profile": "\n".join(lines) + "\n"}, notes)


_REFUSED = {
    "solr": "Solr cannot run a two-phase cascade: its rq parameter takes one re-rank query (an LTR model over "
            "reRankDocs) and re-rank queries do not nest; export phase 1 or phase 2 alone, or use vespa",
    "elasticsearch": "Elasticsearch's learning_to_rank runs tree ensembles only: the cascade's linear phases "
                     "cannot be exported to it; use vespa",
    "ranklib": "RankLib trains and scores one model: a two-phase cascade cannot be exported to it",
}


def cascade_files(engine: str, c: CascadeRead, templates: Optional[Mapping[Any, Any]],
                  feature_names: Optional[Sequence[str]], name: str,
                  n_features: Optional[int]) -> tuple[Subset, EngineFiles]:
    """The files of a two-phase cascade for ``engine`` (module docstring), or a ValueError."""
    if engine in _REFUSED:
        raise ValueError(_REFUSED[engine])
    subset = cascade_subset(c, feature_names, n_features)
    h = Handoff(engine, name, subset, templates_for(engine, templates, subset), None)
    if engine == "opensearch":
        window = c.phases[1][2]
        assert window is not None  # read_cascade: phase 2 has one
        return subset, cascade_opensearch.files(h, [(cols, coef) for cols, coef, _ in c.phases], window)
    return subset, _vespa(h, c)

