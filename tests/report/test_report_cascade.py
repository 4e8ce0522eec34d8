"""The report of a CascadeSelection: the ranking-phases panel (the cascade front beside the
single-phase front, the verdict with its paired interval) and the decision's ``"cascade"`` key;
no such panel for another selector."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import rankselect as rs  # noqa: E402
from rankselect.report import PANELS, build_report, decision, write_report  # noqa: E402


@pytest.fixture(scope="module")
def splits():
    return [rs.data.datasets.load_example(s) for s in ("train", "vali", "test")]


def _fit(train, vali, **kw):
    return rs.CascadeSelection(feature_costs=np.arange(1.0, 23.0), **kw).fit(
        train.X, train.y, qid=train.qid, eval_set=(vali.X, vali.y, vali.qid))


@pytest.mark.parametrize("kw", [dict(windows=(5,), rule="best", budget=1300.0), dict(windows=(100,), rule="best")])
def test_the_panel_and_the_decision_key(splits, tmp_path, kw):
    train, vali, test = splits
    cs = _fit(train, vali, **kw)
    d = build_report(cs, train=train, vali=vali, test=test, n_resamples=0, progress=False)
    assert PANELS["cascade"].shown(d)
    rec = decision(d)["cascade"]
    assert rec["decision"] == cs.choice_["decision"]
    assert [p["window"] for p in rec["phases"]] == [p.window for p in cs.phases_]
    assert rec["cost_per_query"] == pytest.approx(cs.cost_per_query_)
    lo, hi = rec["interval"]
    assert lo <= rec["mean_difference"] <= hi
    assert rec["front"] == json.loads(json.dumps(cs.front_))
    page = write_report(cs, tmp_path / "r.html", train=train, vali=vali, test=test, n_resamples=0, progress=False)
    html = page.read_text()
    assert 'id="panel-cascade"' in html and "Ranking phases" in html
    verdict = "Cascade (rule best)" if cs.choice_["decision"] == "cascade" else "One phase (rule best)"
    assert verdict in html


def test_no_cascade_panel_for_another_selector(splits):
    train, vali, _ = splits
    sel = rs.GreedyRankRLS(n_features_to_select=4).fit(*train)
    d = build_report(sel, train=train, vali=vali, n_resamples=0, progress=False)
    assert not PANELS["cascade"].shown(d) and "cascade" not in decision(d)


def test_the_settings_name_the_selector_once(splits):
    train, vali, _ = splits
    cs = _fit(train, vali, windows=(5,), budget=1300.0)
    d = build_report(cs, train=train, vali=vali, n_resamples=0, progress=False)
    keys = [k.strip() for k in d.settings]
    assert keys.count("selector") == 1 and "selector (parameter)" in keys


def test_a_lightgbm_phase2_is_named_on_the_page(splits, tmp_path):
    pytest.importorskip("lightgbm")
    train, vali, test = splits
    cs = _fit(train, vali, windows=(5, 10), budget=1900.0, rule="best", phase2_ranker="lightgbm")
    assert cs.choice_["phase2_lightgbm_score"] is not None
    d = build_report(cs, train=train, vali=vali, test=test, n_resamples=0, progress=False)
    rec = decision(d)["cascade"]
    assert rec["phase2_ranker"] == "lightgbm" and rec["phase2_kept"] == cs.choice_["phase2_kept"]
    assert [p["ranker"] for p in rec["phases"]] == [p.ranker for p in cs.phases_]
    html = write_report(d, tmp_path / "r.html").read_text()
    kept = "(kept)" if cs.choice_["phase2_kept"] == "lightgbm" else "(not kept: below the linear one)"
    assert "phase 2 refit as LightGBM scores" in html and kept in html
