"""A two-phase cascade for the OpenSearch LTR plugin (and the o19s Elasticsearch LTR plugin,
the same code base): phase 1 in the main query, phase 2 in one rescore window.

Phase 1 scores every candidate: the search body's query is ``bool { filter: <your retrieval
query>, must: sltr(phase 1's model) }`` (``RankerQuery`` matches every document, so the
candidates are the filter's matches, each scored by phase 1). Phase 2 re-ranks the best ``N``
of each shard: ``rescore { window_size: N, rescore_query: sltr(phase 2's model),
query_weight: 0, rescore_query_weight: 1 }``. With ``from + size <= N`` a shard collects
exactly phase 1's top ``N`` (``QueryPhase``: ``max(from + size, window_size)`` hits), all of
them rescored, so no hit outside the window is sorted among them (``QueryRescorer.combine``
sorts the others, their score times ``query_weight``, with the window only when the shard
holds more hits than the window): the order is ``CascadeSelection.predict``'s top ``N`` on one
shard (the window is per shard, as for one phase).

Lucene refuses negative scores in the main query, so phase 1's weights must be ``>= 0``: a
feature of the plugin is a Lucene query's score, ``>= 0``, and then so is phase 1's score; a
phase 1 with a negative weight is refused (the rescore has no such limit: phase 2's weights take
either sign). Each phase is a feature set and a model of its own: the plugin computes every
feature of a model's set for each document it scores, and the window computes phase 2's
features again (the cost ``c(S1) n_q + c(S2) min(N, n_q)``: ``CascadeSelection(reuse=False)``).

Files: ``featureset.json`` (every feature of both phases: the logging set, whose
``logging_query.json`` logs the training data), ``featureset_phase1.json`` /
``featureset_phase2.json``, ``model_phase1.json`` / ``model_phase2.json`` and their
``createmodel_phase1.json`` / ``createmodel_phase2.json``, ``search.json`` and ``load.sh``.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from .handoff import CANDIDATES, EngineFiles, Handoff, skeleton_note, to_json
from .names import check_set_name
from .opensearch import feature_specs, logging_set, model_definition
from .ranker import LinearRanker
from .scripts import curl
from .subset import Subset

__all__: list[str] = []  # a writer of export_engine's cascades: see cascade_export.cascade_files


def _phase(h: Handoff, columns: Sequence[int], coef: np.ndarray, k: int) -> Handoff:
    """Phase ``k``'s own feature set and linear model, named ``<name>_phase<k>``."""
    s = h.subset
    sub = Subset(tuple(int(j) for j in columns), s.n_features, s.all_names)
    pos = [s.columns.index(j) for j in sub.columns]
    templates = None if h.templates is None else [h.templates[i] for i in pos]
    return Handoff(h.engine, check_set_name(f"{h.name}_phase{k}"), sub, templates,
                   LinearRanker(np.asarray(coef, dtype=np.float64)), h.non_match)


def check_phase1(h1: Handoff) -> None:
    """Phase 1 runs as the main query: a negative float32 weight could score a document below
    0, which Lucene refuses (module docstring)."""
    w = h1.linear.weights.astype(np.float32)  # type: ignore[union-attr]
    bad = np.flatnonzero(w < 0)
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"OpenSearch LTR: phase 1 runs as the main query, where Lucene refuses negative scores, "
                         f"and its weight of {h1.subset.label(i)} is {float(w[i]):.6g} < 0 ({len(bad)} negative "
                         f"weight{'s' if len(bad) > 1 else ''}); export to vespa, or fit a phase 1 whose weights "
                         f"are >= 0")


def files(h: Handoff, phases: Sequence[tuple[Sequence[int], np.ndarray]], window: int) -> EngineFiles:
    """The files of the cascade (module docstring); ``h`` holds the union of the phases'
    features, ``phases`` each phase's columns and weights, ``window`` phase 2's N."""
    h1, h2 = (_phase(h, cols, coef, k) for k, (cols, coef) in enumerate(phases, 1))
    check_phase1(h1)
    out, example, load = logging_set(h, "the cascade's feature sets and its two models")
    for k, hk in ((1, h1), (2, h2)):
        out[f"featureset_phase{k}.json"] = to_json({"featureset": {"name": hk.name, "features": feature_specs(hk)}})
        kind, definition = model_definition(hk)
        text = json.dumps(definition, separators=(",", ":"), allow_nan=False)
        out[f"model_phase{k}.json"] = text + "\n"
        out[f"createmodel_phase{k}.json"] = to_json({"model": {"name": hk.name,
                                                               "model": {"type": kind, "definition": text}}})
        load += [curl("POST", "OPENSEARCH", ["_ltr", "_featureset", hk.name], f"featureset_phase{k}.json"),
                 curl("POST", "OPENSEARCH", ["_ltr", "_featureset", hk.name, "_createmodel"],
                      f"createmodel_phase{k}.json")]
    out["search.json"] = to_json({
        "query": {"bool": {"filter": [CANDIDATES], "must": [{"sltr": {"params": example, "model": h1.name}}]}},
        "from": 0, "size": min(10, window),
        "rescore": {"window_size": window,
                    "query": {"rescore_query": {"sltr": {"params": example, "model": h2.name}},
                              "query_weight": 0.0, "rescore_query_weight": 1.0}}})
    out["load.sh"] = "\n".join(load) + "\n"
    notes = [f"cascade: the main query scores every candidate with phase 1 ({h1.name}), one rescore window re-ranks "
             f"phase 1's best {window} with phase 2 ({h2.name}); keep from + size <= {window} (window_size): then "
             "the order is CascadeSelection.predict's on one shard (the window is per shard)",
             "OpenSearch computes phase 2's features again in the window: the cost per query is "
             "c(S1) n_q + c(S2) min(N, n_q), CascadeSelection(reuse=False)'s"]
    if h.templates is None:
        notes.append(skeleton_note("OpenSearch"))
    return EngineFiles(out, notes)
