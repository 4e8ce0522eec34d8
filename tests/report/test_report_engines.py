"""The hand-off box offers each search engine's feature set for the chosen k (skeletons:
``rankselect.deploy.handoff_files`` without templates), the slider and the engine menu pick it."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import rankselect as rs  # noqa: E402
from rankselect.report import build_report  # noqa: E402
from rankselect.report._figures import ENGINE_FILES, subset  # noqa: E402


def test_the_subset_panel_offers_every_engines_feature_set():
    train, vali = (rs.data.datasets.load_example(s) for s in ("train", "vali"))
    sel = rs.GreedyRankRLS(n_features_to_select=4).fit(*train)
    d = build_report(sel, train=train, vali=vali, n_resamples=0)
    panel = subset(d)
    menu = panel.select_one({"name": "engine_select"})
    pre = panel.select_one({"name": "snippet_engine"})
    assert menu.options == list(ENGINE_FILES) and menu.value == "opensearch"
    chosen = [f"feature_{j + 1}" for j in sel.selected_features_[: d.default_k]]
    assert [f["name"] for f in json.loads(pre.text)["featureset"]["features"]] == chosen
    callbacks = [cb for cb in menu.js_property_callbacks["change:value"]]
    snippets = callbacks[0].args["snippets"]
    for k, kinds in snippets.items():
        names = [f"feature_{j + 1}" for j in d.subsets[int(k)]]
        assert set(kinds["engines"]) == set(ENGINE_FILES)
        assert [f["name"] for f in json.loads(kinds["engines"]["solr"])] == names
        assert all(f"function {s}()" in kinds["engines"]["vespa"] for s in names)
