"""Elasticsearch's native learning to rank (8.12+: a trained model with a
``learning_to_rank`` inference config, used by the ``learning_to_rank`` rescorer).

Per re-ranked document Elasticsearch runs every ``query_extractor`` (the document's score of
that query, float32, or ``default_score`` when it does not match), then the ensemble
(``EnsembleInferenceModel`` of ``TreeInferenceModel``): a node goes left when
``value < threshold`` (``lt``) or ``value <= threshold`` (``lte``), in float64, a NaN or an
infinite value the ``default_left`` way; each tree's leaf (float64) is summed by
``weighted_sum`` (a compensated float64 sum). LightGBM's splits are written ``lte`` with their
own float64 threshold; XGBoost's ``float32(x) < s`` as ``lt`` with the float64 that separates
the values rounding below ``s`` from the others; the base score is a first tree of one
leaf (eland's converter adds 0.5, which an ``XGBRanker`` does not have). Linear models are
refused: the inference config takes tree ensembles.

Files: ``model.json`` (PUT ``_ml/trained_models/NAME``), ``search.json`` (a rescore with
the model), ``logging_query.json`` (the features of chosen documents, for
:func:`rankselect.data.read_engine_log`), ``load.sh``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .floats import lt_float64_of_float32_lt
from .handoff import CANDIDATES, Handoff, skeleton_note, to_json, tree_roots
from .scripts import curl, script_header

__all__: list[str] = []  # a writer of export_engine: see rankselect.deploy


def extractors(h: Handoff) -> list[dict[str, Any]]:
    """One ``query_extractor`` per selected feature, in selection order."""
    out = []
    for i, name in enumerate(h.subset.names):
        if h.templates is None:
            spec: dict[str, Any] = {"feature_name": name,
                                    "query": {"TODO": f"the query that computes {h.subset.label(i)}"}}
        else:
            t = h.templates[i]
            if isinstance(t, dict) and "query" in t:
                spec = {"feature_name": name, **{k: v for k, v in t.items() if k != "feature_name"}}
            elif isinstance(t, dict):
                spec = {"feature_name": name, "query": t}
            else:
                raise TypeError(f"Elasticsearch template of {h.subset.label(i)} must be a query object "
                                f"or {{'query': ..., 'default_score': ...}}, got {type(t).__name__}")
        out.append({"query_extractor": spec})
    return out


def logging_query(h: Handoff) -> dict[str, Any]:
    """A search template (``POST INDEX/_search/template?include_named_queries_score=true``)
    that logs each extractor's score of the listed documents as eland's ``FeatureLogger``
    does: one ``should`` clause per feature, named by it (``matched_queries`` of each hit;
    a feature that does not match is absent)."""
    should = []
    for spec in extractors(h):
        q = spec["query_extractor"]
        should.append({"bool": {"must": q["query"], "_name": q["feature_name"]}})
    return {"source": {"query": {"bool": {"should": should, "filter": {"ids": {"values": ["<doc id>", "<doc id>"]}}}},
                       "size": 2, "_source": False},
            "params": {"keywords": "<keywords>"}}


def ensemble(h: Handoff) -> dict[str, Any]:
    """The ``trained_model.ensemble`` definition (module docstring)."""
    r = h.trees
    assert r is not None
    f = r.forest
    names = h.subset.names
    split = f.feature >= 0
    thr = np.zeros(len(f.feature), dtype=np.float64)
    if f.library == "lightgbm":
        thr[split], decision = f.threshold[split], "lte"
    else:
        thr[split], decision = lt_float64_of_float32_lt(f.threshold[split]), "lt"
    position = r.position
    trees = []
    if f.base_score != 0.0:
        trees.append({"tree": {"feature_names": names, "target_type": "regression",
                               "tree_structure": [{"node_index": 0, "leaf_value": [float(f.base_score)]}]}})
    feature, left, right, nan_left = f.feature.tolist(), f.left.tolist(), f.right.tolist(), f.nan_left.tolist()
    thr_l, value, pos = thr.tolist(), f.value.tolist(), position.tolist()
    roots = tree_roots(r)
    for root, end in zip(roots, roots[1:] + [len(feature)]):  # node_index: the index within the tree
        nodes = [{"node_index": n - root, "leaf_value": [value[n]]} if feature[n] < 0 else
                 {"node_index": n - root, "split_feature": pos[feature[n]], "threshold": thr_l[n],
                  "decision_type": decision, "default_left": nan_left[n],
                  "left_child": left[n] - root, "right_child": right[n] - root} for n in range(root, end)]
        trees.append({"tree": {"feature_names": names, "target_type": "regression", "tree_structure": nodes}})
    return {"ensemble": {"feature_names": names, "target_type": "regression", "trained_models": trees,
                         "aggregate_output": {"weighted_sum": {}}}}


def files(h: Handoff) -> dict[str, str]:
    if h.linear is not None:
        raise ValueError("Elasticsearch's learning_to_rank runs tree ensembles only: a linear model cannot be "
                         "exported to it (use opensearch or solr, or a LightGBM / XGBoost ranker)")
    if h.templates is None:
        h.notes.append(skeleton_note("Elasticsearch"))
    ltr = {"learning_to_rank": {"feature_extractors": extractors(h)}}
    body: dict[str, Any] = {"input": {"field_names": h.subset.names}, "inference_config": ltr}
    out = {}
    load = script_header("Create the learning-to-rank model in Elasticsearch (8.12 or later).", "ES",
                         "http://localhost:9200")
    if h.trees is not None:
        body["definition"] = {"trained_model": ensemble(h)}
        out["search.json"] = to_json({"query": CANDIDATES,
                                      "rescore": {"window_size": 100,
                                                  "learning_to_rank": {"model_id": h.name,
                                                                       "params": {"keywords": "<keywords>"}}}})
        load.append(curl("PUT", "ES", ["_ml", "trained_models", h.name], "model.json"))
    else:
        h.notes.append("no model: model.json holds the learning_to_rank configuration (the feature extractors); "
                       "add the trained model's definition to create it")
    out["model.json"] = to_json(body, compact=h.trees is not None)
    out["logging_query.json"] = to_json(logging_query(h))
    out["load.sh"] = "\n".join(load) + "\n"
    return out
