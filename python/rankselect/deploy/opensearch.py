"""OpenSearch LTR plugin (and the o19s Elasticsearch LTR plugin, the same code base).

Per document the plugin computes every feature of the feature set (``RankerQuery``: one
query per feature, used by the model or not), as float32 scores, then the model:

- ``model/xgboost+json`` (``XGBoostJsonParser`` -> ``NaiveAdditiveDecisionTree``): each
  split goes left when ``threshold > value`` (float32), a NaN the way of its ``missing``
  child (plugin 3.8 and later; earlier versions send NaN right, and before 3.2 a feature
  that does not match is 0); leaves are float32, summed in float32 in tree order.
  The IR's ``x <= t`` becomes ``x < t'`` with ``t'`` the next float32 above the largest
  float32 ``<= t``; a base score is a first tree of one leaf, so that an XGBoost sum is
  XGBoost's own (base, then each tree, in float32). From 3.2 a feature whose query does not
  match is NaN: ``missing`` is the way of 0 (``non_match="zero"``) or the model's own NaN way
  (``"missing"``).
- ``model/linear`` (``LinearRanker``): float32 weights, ``sum w_i x_i`` in float32, no intercept.

Files: ``featureset.json`` (POST ``_ltr/_featureset/NAME``), ``model.json`` (the model
definition), ``createmodel.json`` (POST ``_ltr/_featureset/NAME/_createmodel``),
``logging_query.json`` (the features of chosen documents, ``ext.ltr_log``), ``search.json``
(a rescore with the model), ``load.sh`` (the requests).
"""
from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from .floats import lt_float32
from .handoff import (
    CANDIDATES,
    EngineFiles,
    Handoff,
    every_number_notes,
    leaf_values,
    non_match_notes,
    skeleton_note,
    to_json,
    tree_roots,
)
from .scripts import curl, script_header

__all__: list[str] = []  # a writer of export_engine: see rankselect.deploy

_PARAM = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")


def _params_of(template: Any) -> list[str]:
    found: list[str] = []
    for p in _PARAM.findall(json.dumps(template)):
        if p not in found:
            found.append(p)
    return found or ["keywords"]


def feature_specs(h: Handoff) -> list[dict[str, Any]]:
    """The feature set's features in selection order (name, params, template_language,
    template); a skeleton's template is a TODO placeholder."""
    specs = []
    for i, name in enumerate(h.subset.names):
        if h.templates is None:
            template: Any = {"TODO": f"the query that computes {h.subset.label(i)}"}
            spec = {"name": name, "params": ["keywords"], "template_language": "mustache", "template": template}
        else:
            t = h.templates[i]
            if isinstance(t, dict) and "template" in t:
                spec = {"name": name, "params": list(t.get("params") or _params_of(t["template"])),
                        "template_language": t.get("template_language", "mustache"), "template": t["template"]}
            else:
                spec = {"name": name, "params": _params_of(t), "template_language": "mustache", "template": t}
        specs.append(spec)
    return specs


def xgboost_json_trees(h: Handoff) -> list[dict[str, Any]]:
    """The ensemble in the ``model/xgboost+json`` layout, thresholds and leaves as the
    plugin's float32 test needs them (module docstring)."""
    r = h.trees
    assert r is not None
    f = r.forest
    thr = np.zeros(len(f.feature), dtype=np.float64)
    split = f.feature >= 0
    thr[split] = lt_float32(f.threshold[split])
    leaves = leaf_values(r, float32=True)
    out: list[dict[str, Any]] = []
    if f.base_score != 0.0:
        out.append({"nodeid": 0, "leaf": float(np.float32(f.base_score))})
    names = [h.feature_name(j) for j in range(len(f.names))]
    feature, left, right, nan_left = f.feature.tolist(), f.left.tolist(), f.right.tolist(), h.missing_left().tolist()
    thr_l, leaves_l = thr.tolist(), leaves.tolist()

    def node(n: int, root: int, depth: int) -> dict[str, Any]:  # node ids: the index within the tree
        if feature[n] < 0:
            return {"nodeid": n - root, "leaf": leaves_l[n]}
        lo, hi = left[n], right[n]
        return {"nodeid": n - root, "depth": depth, "split": names[feature[n]], "split_condition": thr_l[n],
                "yes": lo - root, "no": hi - root, "missing": (lo if nan_left[n] else hi) - root,
                "children": [node(lo, root, depth + 1), node(hi, root, depth + 1)]}

    out += [node(root, root, 0) for root in tree_roots(r)]
    return out


def model_definition(h: Handoff) -> tuple[str, Any]:
    """(model type, definition) for ``_createmodel``."""
    if h.linear is not None:
        w = h.linear.weights.astype(np.float32)
        return "model/linear", {name: float(v) for name, v in zip(h.subset.names, w)}
    return "model/xgboost+json", xgboost_json_trees(h)


def logging_set(h: Handoff, what: str) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """The feature set of ``h`` that logs the training data: its files (``featureset.json``,
    ``logging_query.json``), the search templates' example ``params`` and the first lines of
    ``load.sh`` (loading ``what``: the default store, then the set)."""
    specs = feature_specs(h)
    params: list[str] = []
    for s in specs:
        params += [p for p in s["params"] if p not in params]
    example = {p: f"<{p}>" for p in params}
    out = {"featureset.json": to_json({"featureset": {"name": h.name, "features": specs}})}
    load = script_header(f"Load {what} into OpenSearch LTR (or the o19s Elasticsearch LTR plugin).", "OPENSEARCH",
                         "http://localhost:9200")
    load += ["# the default feature store, unless it exists",
             f"if ! $CURL \"$OPENSEARCH\"/_ltr | grep -q '\"_default_\"'; then "
             f"{curl('PUT', 'OPENSEARCH', ['_ltr'])}; fi",
             curl("POST", "OPENSEARCH", ["_ltr", "_featureset", h.name], "featureset.json")]
    out["logging_query.json"] = to_json({
        "query": {"bool": {"filter": [{"terms": {"_id": ["<doc id>", "<doc id>"]}}],
                           "should": [{"sltr": {"_name": "logged_featureset", "featureset": h.name,
                                                "params": example}}]}},
        "ext": {"ltr_log": {"log_specs": {"name": "log_entry", "named_query": "logged_featureset"}}}})
    return out, example, load


def files(h: Handoff) -> EngineFiles:
    notes: list[str] = []
    out, example, load = logging_set(h, "the feature set (and the model)")
    if h.templates is None:
        notes.append(skeleton_note("OpenSearch"))
    if h.ranker is not None:
        kind, definition = model_definition(h)
        text = json.dumps(definition, separators=(",", ":"), allow_nan=False)
        out["model.json"] = text + "\n"
        out["createmodel.json"] = to_json({"model": {"name": h.name, "model": {"type": kind, "definition": text}}},
                                         compact=h.trees is not None)
        out["search.json"] = to_json({
            "query": CANDIDATES,
            "rescore": {"window_size": 100,
                        "query": {"rescore_query": {"sltr": {"params": example, "model": h.name}},
                                  "query_weight": 0.0, "rescore_query_weight": 1.0}}})
        load.append(curl("POST", "OPENSEARCH", ["_ltr", "_featureset", h.name, "_createmodel"], "createmodel.json"))
        if h.trees is not None:
            notes += non_match_notes(h, "OpenSearch", "OpenSearch LTR gives a feature whose query does not match NaN "
                                     "from 3.2 (0 before) and honours 'missing' from 3.8 (earlier versions send NaN "
                                     "right)")
            notes += every_number_notes(h, "the largest float32, 3.4028235e38")
    out["load.sh"] = "\n".join(load) + "\n"
    return EngineFiles(out, notes)
