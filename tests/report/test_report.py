"""The report's data from each source, the page self-contained and small, the CLI, and the
message without the extra (the browser checks: test_report_browser.py)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import _report_fixtures as shared  # noqa: E402 (after the skips)

import rankselect as rs  # noqa: E402
from rankselect.cli import main  # noqa: E402
from rankselect.report import (  # noqa: E402
    MISSING_EXTRA,
    PANELS,  # noqa: E402
    build_report,
    write_report,
)


@pytest.fixture(scope="session")
def experiment_dir(tmp_path_factory):
    return shared.experiment_folder(tmp_path_factory)


@pytest.fixture(scope="session")
def experiment_report(tmp_path_factory):
    return shared.report_page(tmp_path_factory)


MAX_BYTES = 5_000_000


@pytest.fixture(scope="module")
def splits():
    return tuple(rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))


def _self_contained(html: str) -> None:
    # no script, style sheet, image or font fetched from elsewhere
    for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", html, flags=re.I):
        assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", tag, flags=re.I), tag
    assert not re.search(r"@import\s+url\(\s*[\"']?(?:https?:)?//", html)
    assert "cdn.bokeh.org" not in html.split("<script", 1)[0]


def test_experiment_folder(experiment_dir, experiment_report):
    d = build_report(experiment_dir)
    res = json.loads((experiment_dir / "experiment.json").read_text())
    assert d.method == "greedy-rankrls" and d.measure == "MAP"
    vali = next(c for c in d.curves if c.method == "greedy-rankrls" and c.split == "validation")
    # the fold-averaged validation MAP of each k is the mean of the folds' best grid point of that k
    k = vali.n_features[2]
    per_fold = [max(p["vali"]["MAP"] for p in f["greedy-rankrls"]["curve"] if p["n_features"] == k)
                for f in res["folds"]]
    assert vali.score[2] == pytest.approx(np.mean(per_fold))
    m = d.marks["greedy-rankrls"]
    assert m["one-standard-error"] <= m["best"]
    assert d.default_k == m["one-standard-error"]
    # five identical folds: every chosen feature in every fold, in the folds' selection order
    assert d.subsets[d.default_k] == [j - 1 for j in res["folds"][0]["greedy-rankrls"]["selected_features"]][
        :d.default_k]
    assert d.per_query is not None and len(d.per_query.qids) == 5 * len(res["folds"][0]["rankrls"]["test_qids"])
    assert d.per_query.reference == pytest.approx(
        np.concatenate([f["rankrls"]["per_query"]["AP"] for f in res["folds"]]))
    assert set(d.stability) == {"rankrls", "greedy-rankrls"}
    used = {j - 1 for j in res["folds"][0]["rankrls"]["selected_features"]}
    assert d.stability["rankrls"] == [1.0 if j in used else 0.0 for j in range(len(d.feature_names))]
    assert d.redundancy is not None and sorted(d.redundancy.order) == list(range(len(d.feature_names)))
    assert d.importance is not None and d.importance.features == d.subsets[d.default_k]
    html = experiment_report.read_text()
    _self_contained(html)
    assert experiment_report.stat().st_size < MAX_BYTES
    for key in PANELS:
        assert f'id="panel-{key}"' in html
    assert "one-standard-error subset" in html and rs.__version__ in html


def test_fitted_selector(splits, tmp_path):
    train, vali, test = splits
    sel = rs.GreedyRankRLS(n_features_to_select=5).fit(*train)
    costs = np.arange(1, train.X.shape[1] + 1, dtype=float)
    d = build_report(sel, train=train, vali=vali, test=test, feature_costs=costs, n_resamples=3,
                     feature_groups=["a"] * 3 + ["b"] * (train.X.shape[1] - 3))
    assert [c.split for c in d.curves] == ["validation", "test"]
    assert d.curves[0].n_features == [1, 2, 3, 4, 5]
    curve = rs.analysis.inspection.evaluate_path(sel.selected_features_, rs.RankRLS(), train, vali)
    assert d.curves[0].score == pytest.approx(curve.scores.tolist())
    assert d.subsets[3] == list(sel.selected_features_[:3])
    assert d.pareto[2]["cost"] == costs[sel.selected_features_[:3]].sum()
    assert d.families is not None and d.families[:4] == ["a", "a", "a", "b"]
    assert d.per_query is not None and len(d.per_query.qids) == len(np.unique(test.qid))
    assert len(d.stability[d.method]) == train.X.shape[1]
    out = write_report(sel, tmp_path / "r.html", train=train, vali=vali, test=test, n_resamples=2)
    _self_contained(out.read_text())


def test_ranker_in_the_loop_path(splits):
    train, vali, _ = splits
    sel = rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=3, step=0.5, validation=tuple(vali),
                                  random_state=0).fit(*train)
    d = build_report(sel, train=train, vali=vali, n_resamples=0)
    path = sel.path_
    assert d.curves[0].n_features == sorted(path.n_features.tolist())
    i = int(np.flatnonzero(path.n_features == 6)[0])
    j = d.curves[0].n_features.index(6)
    assert d.curves[0].score[j] == path.scores[i] and d.curves[0].low[j] == path.ci_low[i]
    assert d.subsets[6] == sorted(path.features[i].tolist())
    assert d.per_query is not None and d.per_query.reference_label.startswith("all")
    assert "stability" in d.notes and not d.stability


def test_bad_sources(tmp_path, splits):
    with pytest.raises(ValueError, match="no experiment.json"):
        build_report(tmp_path)
    with pytest.raises(TypeError, match="selected_features_"):
        build_report(object(), train=splits[0], vali=splits[1])
    (tmp_path / "experiment.json").write_text("{}")
    with pytest.raises(ValueError, match="not an experiment.json"):
        build_report(tmp_path)


def test_cli(experiment_dir, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["report", str(experiment_dir), "-o", str(out), "--method", "rankrls"]) == 0
    assert "wrote" in capsys.readouterr().err
    assert out.stat().st_size < MAX_BYTES and "rankrls" in out.read_text()
    assert main(["report", str(tmp_path / "missing"), "-o", str(out)]) == 2
    assert "no experiment.json" in capsys.readouterr().err


def test_missing_extra_message(tmp_path):
    code = ("import sys; sys.modules['bokeh'] = None\n"
            "from rankselect.report import write_report\n"
            f"write_report({str(tmp_path)!r}, 'x.html')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode != 0
    assert f"ModuleNotFoundError: {MISSING_EXTRA}" in r.stderr
    assert 'pip install "rankselect[report]"' in MISSING_EXTRA
