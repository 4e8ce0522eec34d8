"""Solr LTR (the ``ltr`` module).

Per re-ranked document Solr computes the model's features (the whole store when it logs
``[features]``), as float32, normalises each (``norm``), then the model:

- ``MultipleAdditiveTreesModel``: Solr reads each threshold as a float32 and adds
  ``NODE_SPLIT_SLACK = 1e-6f`` to it (in float32); a split goes left when
  ``value <= threshold + 1e-6``, a NaN the way of the node's ``missing`` (``isNullSameAsZero:
  false``, Solr 9.2+, SOLR-16596); leaves are float32, ``weight * value`` summed in float32 in
  tree order. Each threshold is written so that ``threshold + 1e-6f`` is exactly the float32
  ``t`` with ``x <= t`` the IR's test (the largest float32 ``<= t``; the largest float32 for
  a split that sends every number left). ``missing`` is the way of 0 (``non_match="zero"``)
  or the model's own NaN way (``"missing"``); a feature whose query does not match gets its
  ``defaultValue`` (0 unless set; ``"NaN"`` in the feature store with ``"missing"``, so that
  a non-match is the trees' missing value). Where the slack cannot land on ``t`` (thresholds within about
  1e-6 of 0, as LightGBM's zero split at 1e-35), the feature gets a ``StandardNormalizer``
  with ``avg`` 0 and ``std`` a power of two, which scales its values and thresholds exactly
  (a power of two; a value beyond float32 becomes +-inf and still goes the same way).
- ``LinearModel``: float32 weights, ``sum x_i * w_i`` in float32, no intercept.

Files: ``features.json`` (PUT ``schema/feature-store``), ``model.json`` (PUT
``schema/model-store``), ``load.sh``, ``query.txt`` (the ``rq`` and ``fl`` parameters).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .floats import le_float32, solr_le
from .handoff import (
    EngineFiles,
    Handoff,
    every_number_notes,
    leaf_values,
    nested,
    non_match_notes,
    skeleton_note,
    to_json,
    tree_roots,
)
from .scripts import curl, script_header

__all__: list[str] = []  # a writer of export_engine: see rankselect.deploy

_SOLR_FEATURE = "org.apache.solr.ltr.feature.SolrFeature"
_MAX_SCALE = 126  # 2**-126: the smallest normal float32, Solr's std stays normal


def solr_targets(h: Handoff) -> np.ndarray:
    """Per node the float32 ``t`` with ``x <= t`` the IR's test (splits only)."""
    return le_float32(h.trees.forest.threshold)  # type: ignore[union-attr]


def _solve(targets: np.ndarray, k: int) -> Optional[tuple[np.ndarray, np.ndarray]]:
    scaled = targets * np.float32(2.0 ** k)
    if not np.all(np.isfinite(scaled)):
        return None
    return solr_le(scaled)


def solr_scales(h: Handoff) -> tuple[dict[int, int], np.ndarray, list[str]]:
    """(set position -> k for a normaliser dividing by 2**-k, per-node written thresholds,
    notes on thresholds that stay inexact)."""
    f = h.trees.forest  # type: ignore[union-attr]
    written = np.zeros(len(f.feature), dtype=np.float32)
    targets = solr_targets(h)
    scales: dict[int, int] = {}
    notes: list[str] = []
    every = (f.feature >= 0) & np.isinf(f.threshold)
    written[every] = np.finfo(np.float32).max  # + 1e-6f: still the largest float32, every number left
    for mf in np.unique(f.feature[(f.feature >= 0) & ~every]):
        nodes = np.flatnonzero((f.feature == mf) & ~every)
        tg = targets[nodes].astype(np.float32)
        k, best = 0, _solve(tg, 0)
        if best is not None and not np.array_equal(best[1], tg * np.float32(1.0)):
            nonzero = np.abs(tg[tg != 0])
            # from the power of two that lifts the smallest threshold to 64, where 1e-6 is below
            # half a float32 step
            start = int(np.clip(np.ceil(6.0 - np.log2(float(nonzero.min()))), 1, _MAX_SCALE)) if nonzero.size else 1
            for cand in range(start, _MAX_SCALE + 1):
                sol = _solve(tg, cand)
                if sol is None:
                    break
                if np.array_equal(sol[1], tg * np.float32(2.0 ** cand)):
                    k, best = cand, sol
                    break
        if best is None:
            raise ValueError(f"a threshold of {h.feature_name(int(mf))} lies at the float32 limit: Solr cannot "
                             "test it")
        t, stored = best
        exact = stored == tg * np.float32(2.0 ** k)
        if not np.all(exact):
            bad = np.flatnonzero(~exact)
            notes.append(f"Solr's 1e-6 slack: {bad.size} threshold(s) of {h.feature_name(int(mf))} cannot be held "
                         f"exactly; float32 values in ({float(tg[bad[0]])!r}, "
                         f"{float(stored[bad[0]] / np.float32(2.0 ** k))!r}] go left in Solr, right in the ranker")
        written[nodes] = t
        if k:
            scales[int(h.trees.position[mf])] = k  # type: ignore[union-attr]
    return scales, written, notes


def _feature(h: Handoff, i: int, name: str) -> dict[str, Any]:
    """The feature's store entry; with a tree model and ``non_match="missing"`` its
    ``defaultValue`` (the value of a document its query does not match) is NaN, the trees'
    missing value, unless the template sets one."""
    spec = _feature_spec(h, i, name)
    if h.trees is not None and h.non_match == "missing":
        spec["params"] = {**spec["params"], "defaultValue": spec["params"].get("defaultValue", "NaN")}
    return spec


def _feature_spec(h: Handoff, i: int, name: str) -> dict[str, Any]:
    if h.templates is None:
        return {"store": h.name, "name": name, "class": _SOLR_FEATURE,
                "params": {"q": f"TODO: the query that computes {h.subset.label(i)}"}}
    t = h.templates[i]
    if isinstance(t, str):
        return {"store": h.name, "name": name, "class": _SOLR_FEATURE, "params": {"q": t}}
    if isinstance(t, dict) and "class" in t:
        return {"store": h.name, "name": name, "class": t["class"], "params": t.get("params", {})}
    if isinstance(t, dict):
        return {"store": h.name, "name": name, "class": _SOLR_FEATURE, "params": t}
    raise TypeError(f"Solr template of {h.subset.label(i)} must be a query string or a feature object "
                    f"({{'class': ..., 'params': ...}}), got {type(t).__name__}")


def _trees_model(h: Handoff, notes: list[str]) -> dict[str, Any]:
    r = h.trees
    assert r is not None
    f = r.forest
    scales, written, inexact = solr_scales(h)
    notes += inexact
    leaves = leaf_values(r, float32=True)
    missing = h.missing_left()
    names = [h.feature_name(j) for j in range(len(f.names))]

    def split(n, left, right):
        return {"feature": names[f.feature[n]], "threshold": repr(float(written[n])),
                "missing": "left" if missing[n] else "right", "left": left, "right": right}

    def leaf(n):
        return {"value": repr(float(leaves[n]))}

    trees = []
    if f.base_score != 0.0:
        trees.append({"weight": "1", "root": {"value": repr(float(np.float32(f.base_score)))}})
    trees += [{"weight": "1", "root": nested(r, root, split, leaf)} for root in tree_roots(r)]
    features: list[dict[str, Any]] = []
    for i, name in enumerate(h.subset.names):
        spec: dict[str, Any] = {"name": name}
        if i in scales:
            spec["norm"] = {"class": "org.apache.solr.ltr.norm.StandardNormalizer",
                            "params": {"avg": "0", "std": repr(float(np.float32(2.0 ** -scales[i])))}}
        features.append(spec)
    if scales:
        notes.append(f"{len(scales)} feature(s) carry a StandardNormalizer (avg 0, std a power of two): Solr adds "
                     "1e-6 to every threshold it reads, which no float32 threshold within about 1e-6 of 0 (such as "
                     "LightGBM's zero split at 1e-35) can absorb; dividing the feature by a power of two is exact in "
                     "float32 (every comparison keeps its outcome), so its thresholds are written scaled by the same "
                     "power, far from the slack. The normaliser is part of the model: nothing to set up, and the "
                     "logged [features] stay the raw values")
    return {"store": h.name, "name": h.name, "class": "org.apache.solr.ltr.model.MultipleAdditiveTreesModel",
            "features": features, "params": {"isNullSameAsZero": False, "trees": trees}}


def _linear_model(h: Handoff) -> dict[str, Any]:
    w = h.linear.weights.astype(np.float32)  # type: ignore[union-attr]
    return {"store": h.name, "name": h.name, "class": "org.apache.solr.ltr.model.LinearModel",
            "features": [{"name": s} for s in h.subset.names],
            "params": {"weights": {s: float(v) for s, v in zip(h.subset.names, w)}}}


def check_log_names(names) -> None:
    """Solr logs ``[features]`` as ``name=value,name=value``: a name reads back whole
    (:func:`rankselect.data.engine_responses.solr_pairs`) unless a ``=`` comes before one of
    its commas; such a name is refused."""
    for s in names:
        if any("=" in piece for piece in s.split(",")[:-1]):
            raise ValueError(f"Solr feature name {s!r}: Solr logs features as name=value,name=value, and a '=' "
                             "before a ',' in a name cannot be read back from that log; rename the feature")


def files(h: Handoff) -> EngineFiles:
    notes: list[str] = []
    check_log_names(h.subset.names)
    feats = [_feature(h, i, s) for i, s in enumerate(h.subset.names)]
    out = {"features.json": to_json(feats)}
    if h.templates is None:
        notes.append(skeleton_note("Solr"))
    load = script_header("Load the feature store (and the model) into a Solr collection with the LTR module.",
                         "SOLR", "http://localhost:8983/solr/COLLECTION")
    load.append(curl("PUT", "SOLR", ["schema", "feature-store"], "features.json"))
    query = [f"fl=id,score,[features store={h.name} efi.keywords=<keywords>]   # log the store's features"]
    if h.ranker is not None:
        model = _trees_model(h, notes) if h.trees is not None else _linear_model(h)
        out["model.json"] = to_json(model, compact=h.trees is not None)
        load.append(curl("PUT", "SOLR", ["schema", "model-store"], "model.json"))
        query.insert(0, f"rq={{!ltr model={h.name} reRankDocs=100 efi.keywords=<keywords>}}   # re-rank with the model")
    out["load.sh"] = "\n".join(load) + "\n"
    out["query.txt"] = "\n".join(query) + "\n"
    if h.trees is not None:
        notes.append("Solr 9.2 or later: the trees' 'missing' and the model's isNullSameAsZero (SOLR-16596) are read "
                     "from 9.2 on")
    notes += non_match_notes(h, "Solr", "Solr gives a feature whose query does not match its defaultValue (0 unless "
                             "set; NaN, the missing value, in features.json with non_match='missing') and sends a "
                             "missing value the 'missing' way from 9.2 (isNullSameAsZero false)")
    notes += every_number_notes(h, "the largest float32, 3.4028235e38")
    return EngineFiles(out, notes)
