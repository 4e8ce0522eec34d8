"""Vespa: a rank profile whose functions are the set's features, with the trees in the model
file that Vespa's ``lightgbm(...)`` imports.

Vespa computes rank features in float64. Its LightGBM importer (``LightGBMParser``) turns
each split into ``if (x < t, left, right)`` (``!(x >= t)`` when ``default_left``, so that a NaN
goes left) with ``t`` read as a float64, and leaves into float64 constants summed in
float64. The IR tests ``x <= t``: the file holds the next float64 above ``t``. Every model is
written in this format (an XGBoost ``float32(x) < s`` is exact as ``x < t`` with the float64
``t`` between the values that round below ``s`` and the others; Vespa's ``xgboost(...)``
import rounds thresholds to float32, which only agrees for float32 feature values, and
drops the base score); the base score is added in the rank profile. ``default_left`` is the
way of 0 (``non_match="zero"``) or the model's own NaN way (``"missing"``). Vespa evaluates a
forest of more than 25,000 leaves (or of long paths) with float32 thresholds and leaves
(``VMForest``): larger models are split into several files, one function each, that Vespa
evaluates in float64.

The model re-ranks in ``second-phase`` (``rerank-count`` :data:`RERANK_COUNT`, the window the
other engines re-rank) after a ``nativeRank`` first phase.

Files: ``models/NAME.json`` (or ``models/NAME_<i>.json``: the ``models/`` folder of the
application package) and ``NAME.profile`` (a rank profile for ``schemas/<schema>/``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..data.engine_responses import VESPA_RESERVED, vespa_identifier
from .floats import exact_text, lt_float64_of_lte
from .handoff import (
    EngineFiles,
    Handoff,
    every_number_notes,
    nested,
    non_match_notes,
    skeleton_note,
    to_json,
    tree_roots,
)

__all__ = ["RERANK_COUNT", "RESERVED", "VMFOREST_LEAVES", "VMFOREST_PATH"]  # a writer of export_engine

#: the hits per content node the model re-ranks (``second-phase``; the other engines' window)
RERANK_COUNT = 100
#: Vespa's ``gbdt::Optimize::select_best`` picks VMForest (float32) above these
VMFOREST_LEAVES = 25000
VMFOREST_PATH = 2500.0


#: words of Vespa's ranking-expression language (see rankselect.data.engine_responses)
RESERVED = VESPA_RESERVED


def identifier(name: str) -> str:
    """``name`` as a Vespa function name (:func:`~rankselect.data.engine_responses.vespa_identifier`)."""
    return vespa_identifier(name)


def _tree_stats(h: Handoff) -> list[tuple[int, float]]:
    """(leaves, average leaf depth) of each tree."""
    f = h.trees.forest  # type: ignore[union-attr]
    out = []
    for root in tree_roots(h.trees):  # type: ignore[arg-type]
        leaves, depth_sum, stack = 0, 0, [(root, 0)]
        while stack:
            n, d = stack.pop()
            if f.feature[n] < 0:
                leaves += 1
                depth_sum += d
            else:
                stack += [(int(f.left[n]), d + 1), (int(f.right[n]), d + 1)]
        out.append((leaves, depth_sum / leaves))
    return out


def chunks(h: Handoff) -> list[list[int]]:
    """Trees grouped so that no group is one Vespa evaluates with VMForest (module docstring)."""
    groups: list[list[int]] = [[]]
    total, largest, path = 0, 0, 0.0
    for i, (leaves, avg) in enumerate(_tree_stats(h)):
        t, lg, p = total + leaves, max(largest, leaves), path + avg
        if groups[-1] and (t > VMFOREST_LEAVES or (lg > 12 and p > VMFOREST_PATH)):
            groups.append([])
            t, lg, p = leaves, leaves, avg
        groups[-1].append(i)
        total, largest, path = t, lg, p
    return groups


def _model_json(h: Handoff, trees: list[int], names: list[str]) -> dict[str, Any]:
    r = h.trees
    assert r is not None
    f = r.forest
    split = f.feature >= 0
    thr = np.zeros(len(f.feature), dtype=np.float64)
    thr[split] = lt_float64_of_lte(f.threshold[split])
    missing = h.missing_left()
    roots = tree_roots(r)

    def node(n, left, right):
        return {"split_feature": int(r.position[f.feature[n]]), "threshold": float(thr[n]), "decision_type": "<=",
                "default_left": bool(missing[n]), "missing_type": "NaN", "left_child": left, "right_child": right}

    def leaf(n):
        return {"leaf_value": float(f.value[n])}

    info = [{"tree_index": i, "tree_structure": nested(r, roots[i], node, leaf)} for i in trees]
    # the importer applies sigmoid / exp to some objectives' names ("binary...", "poisson", ...):
    # the score is the trees' sum here (XGBoost's binary:logitraw is a margin), so such a name
    # is written as "regression" and kept in "rankselect_objective"
    objective = f.objective or "regression"
    transformed = objective.startswith("binary") or objective in ("cross_entropy", "poisson", "gamma", "tweedie")
    return {"name": "tree", "version": "v4", "objective": "regression" if transformed else objective,
            "rankselect_objective": objective, "feature_names": names, "feature_infos": {}, "tree_info": info,
            "pandas_categorical": None}


def _function(h: Handoff, i: int) -> str:
    if h.templates is None:
        return f"TODO_{identifier(h.subset.names[i])}"
    t = h.templates[i]
    if not isinstance(t, str):
        raise TypeError(f"Vespa template of {h.subset.label(i)} must be a ranking expression string "
                        f"(e.g. 'bm25(title)'), got {type(t).__name__}")
    return t


def _linear_expression(weights: np.ndarray, names: list[str]) -> str:
    parts: list[str] = []
    for w, s in zip(weights, names):
        text = exact_text(abs(float(w)))
        if not parts:
            parts.append(f"{'-' if w < 0 else ''}{text} * {s}")
        else:
            parts.append(f"{'-' if w < 0 else '+'} {text} * {s}")
    return " ".join(parts)


def tree_expression(h: Handoff, profile: str, names: list[str], lines: list[str], out: dict[str, str],
                    notes: list[str]) -> str:
    """The ranking expression of ``h``'s trees (and base score): their model files go in ``out``
    (``models/``), a function per file in ``lines`` when they are split (module docstring)."""
    assert h.trees is not None
    groups = chunks(h)
    terms = []
    for g, trees in enumerate(groups):
        file = f"{profile}.json" if len(groups) == 1 else f"{profile}_{g}.json"
        out[f"models/{file}"] = to_json(_model_json(h, trees, names), compact=True)
        if len(groups) == 1:
            terms.append(f'lightgbm("{file}")')
        else:
            fn = f"{profile}_trees_{g}"
            lines += [f"    function {fn}() {{", f'        expression: lightgbm("{file}")', "    }", ""]
            terms.append(fn)
    if len(groups) > 1:
        notes.append(f"the trees are split over {len(groups)} model files, one function each: Vespa evaluates "
                     "a larger forest with float32 thresholds and leaves (VMForest)")
    base = h.trees.forest.base_score
    return " + ".join(terms) + (f" + {exact_text(base)}" if base > 0 else
                                f" - {exact_text(-base)}" if base < 0 else "")


def files(h: Handoff) -> EngineFiles:
    notes: list[str] = []
    names = [identifier(s) for s in h.subset.names]
    renamed = [f"{a} -> {b}" for a, b in zip(h.subset.names, names) if a != b]
    if renamed:
        notes.append(f"Vespa function names are identifiers, not words of the ranking-expression language "
                     f"(true, false, max, ...): {', '.join(renamed)}")
    if len(set(names)) != len(names):
        raise ValueError(f"the feature names collide as Vespa identifiers: {names}")
    if h.templates is None:
        notes.append(skeleton_note("Vespa"))
    profile = identifier(h.name)
    out: dict[str, str] = {}
    lines = [f"rank-profile {profile} {{", ""]
    for i, s in enumerate(names):
        lines += [f"    function {s}() {{", f"        expression: {_function(h, i)}", "    }", ""]
    model = None
    if h.trees is not None:
        model = tree_expression(h, profile, names, lines, out, notes)
    elif h.linear is not None:
        model = _linear_expression(h.linear.weights, names)
    if model is not None:
        lines += ["    first-phase {", "        expression: nativeRank", "    }", "", "    second-phase {",
                  f"        rerank-count: {RERANK_COUNT}", f"        expression: {model}", "    }", ""]
        notes.append(f"the model re-ranks in second-phase: the first phase (nativeRank: replace it with your "
                     f"retrieval score) orders every match, the model scores the best {RERANK_COUNT} on each content "
                     "node (rerank-count), as the other engines re-rank a window")
    lines += ["    match-features {"] + [f"        {s}" for s in names] + ["    }", "}"]
    out[f"{profile}.profile"] = "\n".join(lines) + "\n"
    models = " and the models/ folder at the package root (beside schemas/)" if h.ranker is not None and \
        h.trees is not None else ""
    notes.append(f"application package: put {profile}.profile in schemas/<schema>/ (the folder named after your "
                 f"schema, beside schemas/<schema>.sd){models}; deploy with 'vespa deploy' (Vespa CLI) from the "
                 f"package folder, then query with ranking={profile}")
    notes += non_match_notes(h, "Vespa", "Vespa's rank features are 0 (not missing) for a document that does not "
                             "match, so only a NaN that a function computes goes the missing way")
    notes += every_number_notes(h, "the largest float64, 1.7976931348623157e308")
    return EngineFiles(out, notes)
