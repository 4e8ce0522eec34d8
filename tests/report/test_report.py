"""The report's data from each source (paired per-query intervals, the front over every size,
the chosen subset against all features, names and groups, the decision), the page
self-contained and small, and the message without the extra (the browser checks:
test_report_browser.py; the CLI and damaged folders: test_report_cli.py)."""
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
from rankselect.analysis.stats import size_choice  # noqa: E402
from rankselect.report import MISSING_EXTRA, PANELS, build_report, decision, load_experiment, write_report  # noqa: E402

MAX_BYTES = 5_000_000


@pytest.fixture(scope="session")
def experiment_dir(tmp_path_factory):
    return shared.experiment_folder(tmp_path_factory)


@pytest.fixture(scope="session")
def experiment_report(tmp_path_factory):
    return shared.report_page(tmp_path_factory)


@pytest.fixture(scope="module")
def splits():
    return tuple(rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))


def _self_contained(html: str) -> None:
    # no script, style sheet, image or font fetched from elsewhere
    for tag in re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*>", html, flags=re.I):
        assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", tag, flags=re.I), tag
    assert not re.search(r"@import\s+url\(\s*[\"']?(?:https?:)?//", html)
    assert "cdn.bokeh.org" not in html.split("<script", 1)[0]


def page_decision(html: str) -> dict:
    """The JSON of the page's decision element."""
    m = re.search(r'<script type="application/json" id="rankselect-decision">(.*?)</script>', html, flags=re.S)
    assert m, "no rankselect-decision element"
    return json.loads(m.group(1))


def _naive_rule(sizes, S):
    """The one-standard-error rule on paired differences, written out plainly."""
    means = [float(np.mean(r)) for r in S]
    best = max(range(len(sizes)), key=lambda i: (means[i], -sizes[i]))
    for i in sorted(range(len(sizes)), key=lambda i: sizes[i]):
        d = np.asarray(S[i]) - np.asarray(S[best])
        if d.mean() >= -d.std(ddof=1) / np.sqrt(d.size) - 1e-12:
            return sizes[best], sizes[i]
    raise AssertionError


def test_experiment_folder_pairs_queries(experiment_dir, experiment_report):
    d = build_report(experiment_dir, progress=False)
    res = load_experiment(experiment_dir)
    assert d.method == "greedy-rankrls" and d.measure == "MAP"
    vali = next(c for c in d.curves if c.method == "greedy-rankrls" and c.split == "validation")
    # every size's score is the mean over the five folds' validation queries pooled, read from the paths
    paths = [f["greedy-rankrls"].path for f in res.folds]
    S = [np.concatenate([p.vali[p.index_of(k)] for p in paths]) for k in vali.n_features]
    assert vali.n_queries == len(S[0]) == sum(p.vali_qids.size for p in paths)
    assert vali.score == pytest.approx([float(np.mean(r)) for r in S])
    best, one_se = _naive_rule(vali.n_features, S)
    assert d.marks["greedy-rankrls"] == {"best": best, "one-standard-error": one_se}
    assert d.default_k == one_se
    # the band is the paired interval of the difference to the best size: zero width there
    i = vali.n_features.index(best)
    assert vali.low[i] == pytest.approx(vali.score[i]) and vali.high[i] == pytest.approx(vali.score[i])
    j = 0 if vali.n_features[0] != best else 1
    dq = S[j] - S[i]
    assert vali.diff_se[j] == pytest.approx(dq.std(ddof=1) / np.sqrt(dq.size))
    # the folds' spread is a secondary view of the same curve
    assert set(vali.folds) == {f"Fold{k}" for k in range(1, 6)}
    # five identical folds: the hand-off subset of each size is the folds' subset of that size
    assert d.subsets[3] == paths[0].features[paths[0].index_of(3)]
    # the front holds every size of every method, chosen on validation with test beside it
    for m in ("greedy-rankrls", "gas"):
        sizes = next(c.n_features for c in d.curves if c.method == m)
        assert sorted(x["k"] for x in d.pareto if x["method"] == m) == sizes
    assert all(x["test"] is not None for x in d.pareto)
    # the chosen size against all features (rankrls: the largest model) per test query, folds pooled
    q = d.per_query
    assert q is not None and q.split == "test" and q.reference_label.startswith("all features")
    assert len(q.qids) == sum(f["greedy-rankrls"].test_qids.size for f in res.folds)
    ref = np.concatenate([f["rankrls"].path.test[-1] for f in res.folds])
    assert q.reference == pytest.approx(ref.tolist())
    assert sum(q.counts()) == len(q.qids) and [o.chosen_label for o in d.others] == [
        f"gas at {d.marks['gas']['one-standard-error']} features (each fold's own subset)"]
    html = experiment_report.read_text()
    _self_contained(html)
    assert experiment_report.stat().st_size < MAX_BYTES
    for key, panel in PANELS.items():
        assert (f'id="panel-{key}"' in html) == panel.shown(d), key
    assert rs.__version__ in html
    assert page_decision(html) == json.loads(json.dumps(decision(d)))


def test_decision_fields(experiment_dir):
    d = decision(build_report(experiment_dir, progress=False))
    for key in ("method", "rule", "interval", "reference", "best_size", "chosen_size", "features", "feature_names"):
        assert key in d, key
    assert (d["rule"], d["interval"], d["reference"]) == ("one-standard-error", "queries", "all features")
    assert d["chosen_size"] == len(d["features"]) == len(d["feature_names"])
    assert d["selected_features"] == [j + 1 for j in d["features"]]


def test_experiment_names_costs_and_groups(experiment_dir):
    n = 22
    costs = np.arange(1.0, n + 1)
    labels = ["a"] * 11 + ["b"] * 11
    d = build_report(experiment_dir, progress=False, feature_names=[f"f{j}" for j in range(n)], feature_costs=costs,
                     feature_groups=labels, group_costs=[10.0, 100.0])
    assert d.feature_names[0] == "f0" and d.groups is not None
    ext = rs.data.ExtractionCosts(costs, rs.data.check_feature_groups(labels, n), np.array([10.0, 100.0]))
    res = load_experiment(experiment_dir)
    p = res.folds[0]["greedy-rankrls"].path
    point = next(x for x in d.pareto if x["method"] == "greedy-rankrls" and x["k"] == 3)
    assert point["cost"] == pytest.approx(ext.total(p.features[p.index_of(3)]))  # own costs + groups paid once
    assert set(d.group_stability) == {"greedy-rankrls", "gas"} and d.group_importance is not None
    assert d.group_importance.unit == "group"
    assert decision(d)["groups"] == d.groups_of(d.subsets[d.default_k])


def test_fitted_selector(splits, tmp_path):
    train, vali, test = splits
    sel = rs.GreedyRankRLS(n_features_to_select=5).fit(*train)
    n = train.X.shape[1]
    costs = np.arange(1, n + 1, dtype=float)
    d = build_report(sel, train=train, vali=vali, test=test, feature_costs=costs, n_resamples=3, progress=False,
                     feature_groups=["a"] * 3 + ["b"] * (n - 3))
    assert [c.split for c in d.curves] == ["validation", "test"]
    assert d.curves[0].n_features == [1, 2, 3, 4, 5]
    curve = rs.analysis.inspection.evaluate_path(sel.selected_features_, rs.RankRLS(), train, vali)
    assert d.curves[0].score == pytest.approx(curve.scores.tolist())
    c = size_choice([1, 2, 3, 4, 5], curve.per_query)
    assert d.marks["GreedyRankRLS"] == {"best": c.best, "one-standard-error": c.chosen}
    assert d.subsets[3] == list(sel.selected_features_[:3])
    point = next(x for x in d.pareto if x["k"] == 3 and x["method"] == "GreedyRankRLS")
    assert point["cost"] == costs[sel.selected_features_[:3]].sum()
    assert point["test"] == pytest.approx(d.curves[1].score[2])
    assert [x for x in d.pareto if x["method"] == "all features"][0]["k"] == n
    assert d.groups is not None and [d.groups.names[i] for i in d.groups.index[:4]] == ["a", "a", "a", "b"]
    assert d.per_query is not None and len(d.per_query.qids) == len(np.unique(test.qid))
    assert d.per_query.reference_label == f"all {n} features"
    assert len(d.stability[d.method]) == n and len(d.group_stability[d.method]) == 2
    # the settings say what was given, briefly: no repr of every cost, the groups the page was given
    assert "feature groups" in d.settings and "2 groups" in d.settings["feature groups"]
    assert all(len(v) < 200 for v in d.settings.values())
    out = write_report(sel, tmp_path / "r.html", train=train, vali=vali, test=test, n_resamples=2, progress=False)
    _self_contained(out.read_text())


def test_wording_follows_the_data(splits):
    """"1 feature" (not "1 features"); the per-query labels name the chosen subset and all features."""
    train, vali, test = splits
    sel = rs.GreedyRankRLS(n_features_to_select=1).fit(*train)
    d = build_report(sel, train=train, vali=vali, test=test, n_resamples=0, progress=False)
    from rankselect.report._html import render

    html = render(d)
    assert "1 features" not in html and "Keep 1 feature of" in html
    assert "smaller subset loses" not in html


def test_ranker_in_the_loop_path_is_not_refitted(splits, capsys):
    train, vali, _ = splits
    sel = rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=3, step=0.5, validation=tuple(vali),
                                  random_state=0).fit(*train)
    fits = []

    class Counting(rs.RankRLS):
        def fit(self, X, y, qid=None):
            fits.append(X.shape[1])
            return super().fit(X, y, qid=qid)

    d = build_report(sel, train=train, vali=vali, n_resamples=0, ranker=Counting(), progress=True)
    path = sel.path_
    # the path keeps the per-query scores of one step per size (the best), whose mean is its score
    kept = [i for i, pq in enumerate(path.per_query) if pq is not None]
    assert len(kept) == len(set(path.n_features.tolist()))
    assert all(path.per_query[i].mean() == pytest.approx(path.scores[i]) for i in kept)
    assert d.curves[0].n_features == sorted(path.n_features.tolist())
    i = int(np.flatnonzero(path.n_features == 6)[0])
    j = d.curves[0].n_features.index(6)
    assert d.curves[0].score[j] == pytest.approx(path.scores[i])  # the selector's own per-query scores, paired
    assert d.subsets[6] == [int(v) for v in path.features[i]]
    # no refit per size for validation: the all-features reference and the importance model only
    assert sorted(fits) == sorted([train.X.shape[1], d.default_k])
    assert "stability" in d.notes and not d.stability
    assert "rankselect report:" in capsys.readouterr().err


def test_stability_refits_are_bounded_and_reported(splits, capsys):
    train, vali, _ = splits
    sel = rs.GreedyRankRLS(n_features_to_select=4).fit(*train)
    fits = []

    class Counting(rs.GreedyRankRLS):
        def fit(self, X, y, qid=None):
            fits.append(1)
            return super().fit(X, y, qid=qid)

    counted = Counting(n_features_to_select=4).fit(*train)
    fits.clear()
    d = build_report(counted, train=train, vali=vali, n_resamples=3, progress=True)
    assert len(fits) == 3 and len(d.stability[d.method]) == train.X.shape[1]
    err = capsys.readouterr().err
    assert "stability: refitting Counting on 3 half-samples of the queries (n_resamples=3; 0 skips it)" in err
    assert "3 refits on half of the queries" in d.settings["stability"] and " s" in d.settings["stability"]
    build_report(sel, train=train, vali=vali, n_resamples=0, progress=False)
    with pytest.raises(ValueError, match="n_resamples"):
        build_report(sel, train=train, vali=vali, n_resamples=-1, progress=False)


def test_bad_sources(tmp_path, splits):
    with pytest.raises(ValueError, match="no experiment.json"):
        build_report(tmp_path)
    with pytest.raises(TypeError, match="selected_features_"):
        build_report(object(), train=splits[0], vali=splits[1])
    (tmp_path / "experiment.json").write_text("{}")
    with pytest.raises(ValueError, match="no 'data_dir' field"):
        build_report(tmp_path)


def test_no_silent_overwrite(splits, tmp_path):
    train, vali, _ = splits
    sel = rs.GAS(3, 0.1).fit(*train)
    page = tmp_path / "r.html"
    page.write_text("mine")
    with pytest.raises(FileExistsError, match="force=True"):
        write_report(sel, page, train=train, vali=vali, n_resamples=0, progress=False)
    assert page.read_text() == "mine"
    write_report(sel, page, train=train, vali=vali, n_resamples=0, progress=False, force=True)
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_missing_extra_message(tmp_path):
    code = ("import sys; sys.modules['bokeh'] = None\n"
            "from rankselect.report import write_report\n"
            f"write_report({str(tmp_path)!r}, {str(tmp_path / 'x.html')!r})\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode != 0
    assert f"ModuleNotFoundError: {MISSING_EXTRA}" in r.stderr
    assert 'pip install "rankselect[report]"' in MISSING_EXTRA


def test_settings_show_numpy_scalars_as_numbers():
    """A budget given as a NumPy scalar reads as its number in the settings table, not as
    ``np.float64(...)`` (NumPy 2's repr)."""
    import numpy as np

    from rankselect.report._features import short

    assert short(np.float64(1848.0)) == "1848.0"
    assert short(np.int64(7)) == "7"
    assert short(np.bool_(True)) == "True"
    assert short(0.5) == "0.5"
