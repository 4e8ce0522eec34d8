"""A fitted :class:`~rankselect.CascadeSelection` (or the JSON of ``rankselect cascade
--json``) as an engine's own phases.

A cascade is two phases: phase 1 (linear) scores every candidate, phase 2 (linear, or a
LightGBM model: ``phase2_ranker="lightgbm"``) re-ranks phase 1's top ``window`` (N) documents
of each query, and those N rank above the rest, which keep phase 1's order
(``CascadeSelection.predict``). Per engine:

- Vespa: ``first-phase`` is phase 1, ``second-phase { rerank-count: N }`` phase 2 (a LightGBM
  phase 2: its trees in ``models/`` through Vespa's ``lightgbm(...)``, written by the tree
  writer of :mod:`rankselect.deploy.vespa`; documents whose phase-2 scores tie may come in
  another order than ``predict``'s, which breaks such ties by phase 1). The N
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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

import numpy as np

from . import cascade_opensearch
from .forest import Forest
from .handoff import EngineFiles, Handoff, every_number_notes, non_match_notes
from .lightgbm_trees import lightgbm_forest
from .model_files import read_json_text
from .ranker import TreeRanker
from .subset import Subset, subset_of, templates_for
from .trees import forest_of
from .vespa import _function, _linear_expression, identifier, tree_expression

__all__ = ["read_cascade"]  # and, for export_engine, cascade_files


@dataclass(frozen=True)
class CascadeRead:
    """The phases of a cascade: per phase its 0-based ``columns``, ``coef`` (None for trees)
    and ``window`` (None for phase 1), the data's width, its column names (None: not known) and
    phase 2's LightGBM trees (None: linear), whose model feature ``i`` is phase 2's ``i``-th
    column."""

    phases: list[tuple[list[int], Optional[np.ndarray], Optional[int]]]
    n_features: Optional[int]
    names: Optional[list[str]]
    trees: Optional[Forest] = None


def _phase2_forest(forest: Forest, n: int, what: str) -> Forest:
    """A LightGBM phase 2 read as trees on its ``n`` features in order (``Column_<i>`` names)."""
    if forest.names != [f"Column_{i}" for i in range(n)]:
        raise ValueError(f"{what}: phase 2's LightGBM model must read its {n} features in order (Column_0 .. "
                         f"Column_{n - 1}, as CascadeSelection trains it), got {forest.names[:5]}")
    return forest


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
        last = selection.phases_[-1]
        trees = None if getattr(last, "model", None) is None else _phase2_forest(
            forest_of(last.model), len(last.features), "the CascadeSelection")
        return CascadeRead([([int(j) for j in p.features], None if p.coef is None else
                             np.asarray(p.coef, dtype=np.float64), p.window) for p in selection.phases_],
                           int(selection.n_features_in_), None if names is None else [str(s) for s in names], trees)
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
    out: list[tuple[list[int], Optional[np.ndarray], Optional[int]]] = []
    trees = None
    for i, p in enumerate(phases, 1):
        if not isinstance(p, Mapping):
            raise ValueError(f"{what}: phase {i} must be an object")
        feats, coef, window = p.get("features"), p.get("coef"), p.get("window")
        if not isinstance(feats, list) or not feats or not all(
                isinstance(j, int) and not isinstance(j, bool) and j >= 1 for j in feats):
            raise ValueError(f"{what}: phase {i} has no 'features' list of 1-based feature numbers")
        ranker = p.get("ranker", "linear")
        if ranker not in ("linear", "lightgbm") or (ranker == "lightgbm" and i == 1):
            allowed = "'linear' or 'lightgbm'" if i == 2 else "'linear'"
            raise ValueError(f"{what}: phase {i}'s 'ranker' must be {allowed}, got {ranker!r}")
        if ranker == "lightgbm":
            if not isinstance(p.get("model"), str):
                raise ValueError(f"{what}: phase 2's 'model' must be the LightGBM model text")
            trees = _phase2_forest(lightgbm_forest(p["model"]), len(feats), what)
        elif not isinstance(coef, list) or len(coef) != len(feats) or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and np.isfinite(w) for w in coef):
            raise ValueError(f"{what}: phase {i}'s 'coef' must be {len(feats)} finite numbers (one per feature)")
        if (i == 1) != (window is None) or (window is not None and (not isinstance(window, int) or window < 1)):
            raise ValueError(f"{what}: phase {i}'s 'window' must be {'null' if i == 1 else 'an integer >= 1'}, "
                             f"got {window!r}")
        out.append(([j - 1 for j in feats], None if ranker == "lightgbm" else np.asarray(coef, dtype=np.float64),
                    window))
    n = c.get("n_features")
    return CascadeRead(out, int(n) if isinstance(n, int) and not isinstance(n, bool) else None, None, trees)


def union_columns(c: CascadeRead) -> list[int]:
    """Every column some phase reads, phase 1's first (then phase 2's new ones)."""
    cols: list[int] = []
    for p, _, _ in c.phases:
        cols += [j for j in p if j not in cols]
    return cols


def cascade_subset(c: CascadeRead, feature_names: Optional[Sequence[str]], n_features: Optional[int]) -> Subset:
    return subset_of(union_columns(c), feature_names if feature_names is not None else c.names,
                     n_features if n_features is not None else c.n_features)


def _weights(c: CascadeRead, phase: int, subset: Subset) -> tuple[Optional[np.ndarray], list[int]]:
    """Phase ``phase``'s weights in its own feature order (None for trees) and the positions of
    its features in ``subset``."""
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
    out: dict[str, str] = {}
    assert w1 is not None
    if c.trees is not None:  # phase 2's trees read the set's features at pos2
        trees = replace(h, ranker=TreeRanker(c.trees, np.asarray(pos2, dtype=np.intp)))
        second = tree_expression(trees, profile, names, lines, out, notes)
        notes += non_match_notes(trees, "Vespa", "Vespa's rank features are 0 (not missing) for a document that "
                                 "does not match, so only a NaN that a function computes goes the missing way")
        notes += every_number_notes(trees, "the largest float64, 1.7976931348623157e308")
        notes.append("phase 2 is a LightGBM model: documents whose second-phase scores tie may come in another order "
                     "than CascadeSelection.predict's (which breaks such ties by phase 1)")
    else:
        assert w2 is not None
        second = _linear_expression(w2, [names[k] for k in pos2])
    lines += ["    first-phase {", f"        expression: {_linear_expression(w1, [names[k] for k in pos1])}",
              "    }", "", "    second-phase {", f"        rerank-count: {window}",
              f"        expression: {second}", "    }", ""]
    lines += ["    match-features {"] + [f"        {s}" for s in names] + ["    }", "}"]
    notes.append(f"cascade: first-phase is phase 1 (every match), second-phase phase 2 on the best {window} "
                 "(rerank-count); Vespa rescales the other hits' first-phase scores below the re-ranked ones, so "
                 "the order is CascadeSelection.predict's on one content node (rerank-count is per content node)")
    models = " and the models/ folder at the package root (beside schemas/)" if out else ""
    notes.append(f"application package: put {profile}.profile in schemas/<schema>/{models} and query with "
                 f"ranking={profile}")
    out[f"{profile}.profile"] = "\n".join(lines) + "\n"
    return EngineFiles(out, notes)


_REFUSED = {
    "solr": "Solr cannot run a two-phase cascade: its rq parameter takes one re-rank query (an LTR model over "
            "reRankDocs) and re-rank queries do not nest; export phase 1 or phase 2 alone, or use vespa",
    "elasticsearch": "Elasticsearch's learning_to_rank runs tree ensembles only: the cascade's linear phases "
                     "cannot be exported to it; use vespa",
    "ranklib": "RankLib trains and scores one model: a two-phase cascade cannot be exported to it",
}


def cascade_files(engine: str, c: CascadeRead, templates: Optional[Mapping[Any, Any]],
                  feature_names: Optional[Sequence[str]], name: str,
                  n_features: Optional[int], non_match: str = "zero") -> tuple[Subset, EngineFiles]:
    """The files of a two-phase cascade for ``engine`` (module docstring), or a ValueError."""
    if engine in _REFUSED:
        raise ValueError(_REFUSED[engine])
    subset = cascade_subset(c, feature_names, n_features)
    h = Handoff(engine, name, subset, templates_for(engine, templates, subset), None, non_match)
    if engine == "opensearch":
        if c.trees is not None:
            raise ValueError("a cascade with a LightGBM phase 2 is exported to vespa only (OpenSearch takes a linear "
                             "phase 2 here)")
        window = c.phases[1][2]
        assert window is not None  # read_cascade: phase 2 has one
        linear = [(cols, coef) for cols, coef, _ in c.phases if coef is not None]
        assert len(linear) == 2  # no trees: both phases linear
        return subset, cascade_opensearch.files(h, linear, window)
    return subset, _vespa(h, c)

