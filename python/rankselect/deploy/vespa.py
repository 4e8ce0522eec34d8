"""Vespa: a rank profile whose functions are the set's features, with the trees in the model
file that Vespa's ``lightgbm(...)`` imports.

Vespa computes rank features in float64. Its LightGBM importer (``LightGBMParser``) turns
each split into ``if (x < t, left, right)`` (``!(x >= t)`` when ``default_left``, so that a NaN
goes left) with ``t`` read as a float64, and leaves into float64 constants summed in
float64. LightGBM tests ``x <= t``: the file holds the next float64 above ``t``. An XGBoost
model is written in the same format, each ``float32(x) < s`` as ``x < t`` with the float64
``t`` between the values that round below ``s`` and the others (Vespa's ``xgboost(...)``
import rounds thresholds to float32, which only agrees for float32 feature values, and
drops the base score); the base score is added in the rank profile. Vespa evaluates a
forest of more than 25,000 leaves (or of long paths) with float32 thresholds and leaves
(``VMForest``): larger models are split into several files, one function each, that Vespa
evaluates in float64.

Files: ``models/NAME.json`` (or ``models/NAME_<i>.json``) and ``NAME.profile`` (a rank
profile for ``schemas/<schema>/``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..data.engine_responses import VESPA_RESERVED, vespa_identifier
from .floats import exact_text, lt_float64_of_float32_lt, lt_float64_of_lte
from .handoff import Handoff, nested, skeleton_note, to_json, tree_roots

__all__ = ["RESERVED", "VMFOREST_LEAVES", "VMFOREST_PATH"]  # a writer of export_engine: see rankselect.deploy

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
    if f.library == "lightgbm":
        thr[split] = lt_float64_of_lte(f.threshold[split])
    else:
        thr[split] = lt_float64_of_float32_lt(f.threshold[split])
    roots = tree_roots(r)

    def node(n, left, right):
        return {"split_feature": int(r.position[f.feature[n]]), "threshold": float(thr[n]), "decision_type": "<=",
                "default_left": bool(f.nan_left[n]), "missing_type": "NaN", "left_child": left, "right_child": right}

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


def files(h: Handoff) -> dict[str, str]:
    names = [identifier(s) for s in h.subset.names]
    renamed = [f"{a} -> {b}" for a, b in zip(h.subset.names, names) if a != b]
    if renamed:
        h.notes.append(f"Vespa function names are identifiers, not words of the ranking-expression language "
                       f"(true, false, max, ...): {', '.join(renamed)}")
    if len(set(names)) != len(names):
        raise ValueError(f"the feature names collide as Vespa identifiers: {names}")
    if h.templates is None:
        h.notes.append(skeleton_note("Vespa"))
    profile = identifier(h.name)
    out: dict[str, str] = {}
    lines = [f"rank-profile {profile} {{", ""]
    for i, s in enumerate(names):
        lines += [f"    function {s}() {{", f"        expression: {_function(h, i)}", "    }", ""]
    first = None
    if h.trees is not None:
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
            h.notes.append(f"the trees are split over {len(groups)} model files, one function each: Vespa evaluates "
                           "a larger forest with float32 thresholds and leaves (VMForest)")
        base = h.trees.forest.base_score
        first = " + ".join(terms) + (f" + {exact_text(base)}" if base > 0 else
                                     f" - {exact_text(-base)}" if base < 0 else "")
    elif h.linear is not None:
        first = _linear_expression(h.linear.weights, names)
    if first is not None:
        lines += ["    first-phase {", f"        expression: {first}", "    }", ""]
    lines += ["    match-features {"] + [f"        {s}" for s in names] + ["    }", "}"]
    out[f"{profile}.profile"] = "\n".join(lines) + "\n"
    return out
