"""The decision for the ranker that will be deployed (issue 45): ``report --measure`` and
``--ranker`` (the linear paths a screening view), the per-fold paired comparisons with Holm's
correction (recomputed here from the raw experiment.json), the validation score's optimism,
``rule="holm"``, the cheaper of methods that cannot be told apart, ``report --json`` without a
page, and the smaller fixes of the panels (a mark's label near the edge, the cost legend
without test data, the stability of the chosen size)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import rankselect as rs  # noqa: E402
from rankselect.analysis.stats import holm, size_choice  # noqa: E402
from rankselect.cli import main  # noqa: E402
from rankselect.report import build_report, write_report  # noqa: E402

LGBM = "forward:ranker=lightgbm,candidates=greedy-rankrls,n_candidates=4"


@pytest.fixture(scope="module")
def experiment_dir(tmp_path_factory):
    """rankrls, greedy-rankrls (three alphas: an optimistic validation score) and forward with
    LightGBM in the loop, on three folds of the example whose vali and test alternate."""
    pytest.importorskip("lightgbm")
    root = tmp_path_factory.mktemp("folds")
    for k in range(1, 6):
        (root / f"Fold{k}").mkdir()
        roles = ("train", "vali", "test") if k % 2 else ("train", "test", "vali")
        for split, source in zip(("train", "vali", "test"), roles):
            rs.save_letor(root / f"Fold{k}" / f"{split}.txt", rs.data.datasets.load_example(source))
    grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [2.0 ** -6, 1.0, 2.0 ** 6]},
            "forward": {"k": [1, 2, 3, 4]}}
    out = tmp_path_factory.mktemp("experiment")
    rs.protocol.run(root, ["rankrls", "greedy-rankrls", LGBM], grid=grid, progress=False, folds=[1, 2, 3],
                    measures=["map", "ndcg@10"]).to_json(out / "experiment.json")
    return out


def _report_json(capsys, *args) -> dict:
    capsys.readouterr()
    assert main(["report", *map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _recompute(raw: dict, d: dict, measure: str) -> None:
    """Every fold's comparison recomputed from the file itself (JSON, not rankselect's reader)."""
    method = d["method"]
    assert [f["fold"] for f in d["folds"]] == [f[method]["fold"] for f in raw["folds"]]
    pvalues = []
    for f, row in zip(raw["folds"], d["folds"]):
        def rows(m, k, f=f):
            p = f[m]["path"]
            scores = p["test"] if p["measure"] == measure else p["measures"][measure]["test"]
            return np.asarray(scores[p["n_features"].index(k)])

        a = rows(method, d["chosen_size"])
        r = rows(row["reference_method"], row["reference_size"])
        b = rows(method, d["best_size"])
        assert row["mean_difference"] == pytest.approx(float(np.mean(a - r)), abs=1e-15)
        assert row["against_best"]["mean_difference"] == pytest.approx(float(np.mean(a - b)), abs=1e-15)
        if np.any(a != r):
            t = stats.ttest_rel(a, r)
            assert row["pvalue"] == pytest.approx(float(t.pvalue), rel=1e-12)
            half = stats.t.ppf(0.975, a.size - 1) * np.std(a - r, ddof=1) / np.sqrt(a.size)
            assert row["interval"] == pytest.approx([np.mean(a - r) - half, np.mean(a - r) + half], abs=1e-12)
        pvalues.append(row["pvalue"])
    assert [row["pvalue_holm"] for row in d["folds"]] == pytest.approx(holm(pvalues).tolist(), abs=1e-15)
    for row in d["folds"]:
        assert row["significant_loss"] == (row["pvalue_holm"] < 0.05 and row["mean_difference"] < 0)
    assert d["significant_losses"] == [r["fold"] for r in d["folds"] if r["significant_loss"]]


def test_json_with_a_measure_holds_the_folds_and_writes_no_page(experiment_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = _report_json(capsys, experiment_dir, "--measure", "ndcg@10")
    assert list(tmp_path.iterdir()) == []  # --json: no page
    assert d["measure"] == "NDCG@10" and d["ranker"] is None
    assert len(d["folds"]) == 3
    raw = json.loads((experiment_dir / "experiment.json").read_text())
    _recompute(raw, d, "NDCG@10")
    # the selection metric too (stored as the path's own scores)
    _recompute(raw, _report_json(capsys, experiment_dir, "--measure", "map"), "MAP")


def test_decision_for_the_ranker_named(experiment_dir, tmp_path, capsys):
    d = _report_json(capsys, experiment_dir, "--measure", "ndcg@10", "--ranker", "lightgbm")
    assert d["method"] == LGBM and d["ranker"] == "lightgbm"
    # the reference is LightGBM on every feature, in every fold
    assert {(f["reference_method"], f["reference_size"]) for f in d["folds"]} == {(LGBM, 22)}
    assert "lightgbm" in d["against_reference"]["reference"]
    _recompute(json.loads((experiment_dir / "experiment.json").read_text()), d, "NDCG@10")
    # the page says what the decision is for, and that the linear paths only screen
    page = write_report(build_report(experiment_dir, measure="ndcg@10", ranker="lightgbm", progress=False),
                        tmp_path / "r.html")
    html = page.read_text()
    assert "the decision is for the lightgbm ranker" in html and "screening view" in html
    assert 'id="decision-folds-table"' in html and "NDCG@10" in html


def test_unknown_measure_or_ranker_is_one_line(experiment_dir, capsys):
    assert main(["report", str(experiment_dir), "--json", "--measure", "err@10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not ERR@10" in err and "--measure err@10" in err
    assert main(["report", str(experiment_dir), "--json", "--ranker", "xgboost"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no method of this experiment has it" in err


def test_optimism_of_the_grid(experiment_dir):
    data = build_report(experiment_dir, method="greedy-rankrls", progress=False)
    o = data.decision()["optimism"]
    res = rs.protocol.ExperimentResult.from_json(experiment_dir / "experiment.json")
    k = o["chosen"]["size"]
    paths = [f["greedy-rankrls"].path for f in res.folds]
    vali = np.concatenate([p.vali[p.index_of(k)] for p in paths])
    nested = np.concatenate([p.nested[p.index_of(k)] for p in paths])
    assert o["chosen"]["optimism"] == pytest.approx(vali.mean() - nested.mean(), abs=1e-15)
    assert any("optimistic" in e for e in data.explanations)
    lgbm = build_report(experiment_dir, ranker="lightgbm", progress=False)
    assert lgbm.decision()["optimism"]["largest"] == 0  # fixed settings: nothing chosen but the size
    assert any("not made optimistic" in e for e in lgbm.explanations)


def test_fold_flags_after_holm():
    from rankselect.report._folds import fold_comparisons, fold_sentence

    rng = np.random.default_rng(0)
    ref = [rng.uniform(0, 1, 60) for _ in range(3)]
    chosen = [ref[0] - 0.05 + rng.normal(0, 0.02, 60), ref[1] + rng.normal(0, 0.02, 60),
              ref[2] + 0.01 + rng.normal(0, 0.02, 60)]
    rows = fold_comparisons(["F1", "F2", "F3"], chosen, ref, [("m", 9)] * 3, ref, 9, 3)
    p = [stats.ttest_rel(a, b).pvalue for a, b in zip(chosen, ref)]
    assert [r["pvalue_holm"] for r in rows] == pytest.approx(holm(p).tolist())
    assert [r["significant_loss"] for r in rows] == [True, False, False]  # F3 gains: significant, not a loss
    assert fold_sentence(rows, "NDCG@10").startswith("Warning: the chosen size is significantly worse")
    assert "F1: -0.05" in fold_sentence(rows, "NDCG@10")


def test_holm_rule_is_the_smallest_size_not_significantly_worse():
    rng = np.random.default_rng(1)
    hardness = rng.uniform(0.2, 0.8, 300)
    gain = np.array([0.0, 0.04, 0.048, 0.05])[:, None]
    S = hardness + gain + rng.normal(0, 0.03, (4, 300))
    c = size_choice([1, 2, 3, 4], S, rule="holm")
    b = int(np.argmax(S.mean(axis=1)))
    p = [stats.ttest_rel(S[i], S[b]).pvalue for i in range(4) if i != b]
    adj = dict(zip([i for i in range(4) if i != b], holm(p)))
    want = next(i for i in range(4) if i == b or adj[i] >= 0.05 or S[i].mean() >= S[b].mean()) + 1
    assert c.chosen == want and c.rule == "holm"
    with pytest.raises(ValueError, match="rule must be one of"):
        size_choice([1, 2, 3, 4], S, rule="two-se")


def test_report_rule_holm(experiment_dir, capsys):
    d = _report_json(capsys, experiment_dir, "--rule", "holm", "--method", "greedy-rankrls")
    assert d["rule"] == "holm" and "Holm" in d["rule_reference"]


def test_cheaper_of_methods_that_cannot_be_told_apart():
    from rankselect.analysis.stats import size_choice as choice
    from rankselect.report._decide import choose_method
    from rankselect.report._paths import Pooled

    rng = np.random.default_rng(2)
    base = rng.uniform(0, 1, 80)

    def pooled(m, rows):
        return Pooled(m, [1, 2], np.vstack(rows), np.vstack(rows), [], [], {}, {})

    a = pooled("a", [base - 0.2, base + 0.001])  # a keeps 2 features
    b = pooled("b", [base + rng.normal(0, 0.01, 80), base - 0.3])  # b keeps 1, as good
    choices = {m: choice(p.sizes, p.vali) for m, p in (("a", a), ("b", b))}
    assert (choices["a"].chosen, choices["b"].chosen) == (2, 1)
    pick, said = choose_method({"a": a, "b": b}, choices, {"a": 2.0, "b": 1.0}, ["a", "b"])
    assert pick == "b" and "cannot be told apart" in said[0]
    c = pooled("c", [base - 0.3, base - 0.1])  # clearly worse: told apart
    choices["c"] = choice(c.sizes, c.vali)
    pick, said = choose_method({"a": a, "c": c}, choices, {"a": 2.0, "c": 1.0}, ["a", "c"])
    assert pick == "a" and not said


def test_panel_fixes(tmp_path):
    from bokeh.models import Label, LegendItem

    from rankselect.report._fig_curves import front, quality

    train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    sel = rs.GreedyRankRLS(n_features_to_select=6).fit(*train)
    d = build_report(sel, train=train, vali=vali, n_resamples=2, progress=False)
    # the stability refits select the chosen size, not the fitted one
    assert d.default_k == 5 and "chosen size, 5 features" in d.stability_over
    # no test data: no test entry in the cost panel's legend
    labels = [item.label["value"] for item in front(d).select({"type": LegendItem})]
    assert labels and not any("test" in x for x in labels)
    # a mark in the right half of the plot is labelled on its left (not cut at the panel's edge)
    marks = {lab.name: lab for lab in quality(d).select({"type": Label})}
    best = marks["mark-best"]
    assert best.x == 6 and best.text_align == "right"


def test_the_subset_handed_off_was_tested(experiment_dir):
    from rankselect.report._paths import consensus, tested_subset

    # the consensus of these folds (features 0, 1, 2: each in two folds) is a subset no fold selected
    folds = [[0, 1, 3], [1, 2, 4], [0, 2, 5]]
    assert sorted(consensus(folds, 6, 3)) == [0, 1, 2] and [0, 1, 2] not in folds
    assert tested_subset(folds, 6) == (0, [0, 1, 3])
    assert tested_subset([[4, 5], [0, 1], [1, 0]], 6) == (1, [0, 1])
    d = build_report(experiment_dir, method="greedy-rankrls", progress=False).decision()
    res = rs.protocol.ExperimentResult.from_json(experiment_dir / "experiment.json")
    own = {f["greedy-rankrls"].fold: f["greedy-rankrls"].path for f in res.folds}
    h = d["handoff"]
    p = own[h["subset_of"]]
    assert d["features"] == p.features[p.index_of(d["chosen_size"])]  # that fold's own, tested subset
    assert h["subset_of"] in h["folds_with_this_subset"]


def test_a_new_panel_collects_its_own_data(experiment_dir, tmp_path, monkeypatch):
    """A panel plugs into the registry with its own collect: it reads the sources, keeps its data
    in panel_data and may add a top-level key to the decision (e.g. another helper's "cascade")."""
    from bokeh.models import Div

    from rankselect.report import _panels

    seen = {}

    def collect(d, s):
        seen["kind"], seen["folds"] = s.kind, len(s.experiment.folds)
        d.panel_data["extra"] = {"chosen": d.default_k}
        d.decision_extra["cascade"] = {"from": "the extra panel", "k": d.default_k}

    panel = _panels.Panel("extra", "An extra panel", "Reads its own data.",
                          lambda d: Div(text=f"<p>k = {d.panel_data['extra']['chosen']}</p>"), collect=collect)
    monkeypatch.setitem(_panels.PANELS, "extra", panel)
    data = build_report(experiment_dir, method="greedy-rankrls", progress=False)
    assert seen == {"kind": "experiment", "folds": 3} and data.sources is None  # collected once, then dropped
    d = data.decision()
    assert d["cascade"] == {"from": "the extra panel", "k": d["chosen_size"]}
    html = write_report(data, tmp_path / "r.html").read_text()
    assert 'id="panel-extra"' in html and '"cascade"' in html


def test_nested_selection_compares_the_cross_fitted_scores(experiment_dir, capsys):
    from rankselect.analysis.stats import size_choice as choice

    data = build_report(experiment_dir, method="greedy-rankrls", nested=True, progress=False)
    res = rs.protocol.ExperimentResult.from_json(experiment_dir / "experiment.json")
    paths = [f["greedy-rankrls"].path for f in res.folds]
    sizes = sorted(set.intersection(*(set(p.n_features.tolist()) for p in paths)))
    rows = np.array([np.concatenate([p.nested[p.index_of(k)] for p in paths]) for k in sizes])
    c = choice(sizes, rows)
    assert data.marks["greedy-rankrls"] == {"best": c.best, "one-standard-error": c.chosen}
    vali = next(cv for cv in data.curves if cv.method == "greedy-rankrls" and cv.split == "validation")
    assert vali.score == pytest.approx(rows.mean(axis=1).tolist(), abs=1e-15)
    assert any("Nested selection" in e for e in data.explanations)
    d = _report_json(capsys, experiment_dir, "--nested", "--method", "greedy-rankrls")
    assert d["chosen_size"] == c.chosen


def test_a_ranker_that_cannot_be_refitted_leaves_a_note(experiment_dir, tmp_path, monkeypatch):
    import shutil

    import rankselect.report._experiment as source

    def missing(name, seed=None):
        raise ImportError(f"--ranker {name} needs the {name} package, which is not installed: pip install {name}")

    folder = tmp_path / "run"
    shutil.copytree(experiment_dir, folder)
    monkeypatch.setattr(source, "make_ranker", missing)
    data = build_report(folder, ranker="lightgbm", progress=False)
    assert data.importance is None and "pip install lightgbm" in data.notes["importance"]
    assert data.decision()["method"] == LGBM
