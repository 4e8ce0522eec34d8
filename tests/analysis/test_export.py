"""rankselect.deploy.formats (formerly in analysis) and ``rankselect export``: hand-off of a selection."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect as rs
from rankselect.cli import main
from rankselect.data.datasets import example_path, load_example
from rankselect.deploy import export_selection, write_selection


@pytest.fixture(scope="module")
def fitted():
    train = load_example("train")
    return rs.GreedyRankRLS(n_features_to_select=3, alpha=1.0).fit(*train)


def test_formats_of_a_fitted_selector(fitted, tmp_path):
    cols = fitted.selected_features_
    assert export_selection(fitted, "ranklib") == "".join(f"{j + 1}\n" for j in cols)
    lgb = json.loads(export_selection(fitted, "lightgbm"))
    assert lgb["columns"] == cols.tolist() and lgb["feature_names"] == [f"Column_{j}" for j in cols]
    xgb = json.loads(export_selection(fitted, "xgboost"))
    assert xgb["feature_names"] == [f"f{j}" for j in cols]
    full = json.loads(write_selection(tmp_path / "sel.json", fitted, "json").read_text())
    assert full["selected_features"] == (cols + 1).tolist() and full["n_features"] == 22
    assert full["weights"]["coef"] == pytest.approx(fitted.coef_.tolist())
    assert full["weights"]["selected"] == {str(j + 1): pytest.approx(fitted.coef_[j]) for j in cols}


def test_names_and_plain_columns():
    names = [f"feat_{i}" for i in range(5)]
    out = json.loads(export_selection([4, 1], "json", feature_names=names, coef=[0, 2.0, 0, 0, -1.0]))
    assert out["feature_names"] == ["feat_4", "feat_1"]
    assert out["weights"]["selected"] == {"feat_4": -1.0, "feat_1": 2.0}
    exported = json.loads(export_selection([4, 1], "lightgbm", feature_names=names))
    assert exported["feature_names"] == ["feat_4", "feat_1"]
    assert json.loads(export_selection([0], "json"))["weights"] is None
    with pytest.raises(ValueError, match="format"):
        export_selection([0], "svmrank")
    with pytest.raises(ValueError, match="repeats"):
        export_selection([1, 1], "ranklib")
    with pytest.raises(ValueError, match="feature_names"):
        export_selection([1], "json", feature_names=["a"], n_features=3)


def test_lightgbm_trains_on_the_exported_columns(fitted):
    lgb = pytest.importorskip("lightgbm")
    from rankselect.analysis.inspection import fit_ranker

    spec = json.loads(export_selection(fitted, "lightgbm"))
    train = load_example("train")
    model = fit_ranker(lgb.LGBMRanker(n_estimators=5, min_child_samples=5, verbose=-1),
                       train.X[:, spec["columns"]], train.y, train.qid)
    assert model.n_features_ == 3


def test_cli_select_json_then_export(tmp_path, capsys):
    train = str(example_path("train"))
    assert main(["select", "--method", "greedy-rankrls", "-k", "3", train, "--json"]) == 0
    sel = tmp_path / "sel.json"
    sel.write_text(capsys.readouterr().out)
    chosen = json.loads(sel.read_text())["selected_features"]
    assert main(["export", str(sel), "--format", "ranklib"]) == 0
    assert capsys.readouterr().out.split() == [str(j) for j in chosen]
    out = tmp_path / "w.json"
    assert main(["export", str(sel), "--format", "json", "--out", str(out)]) == 0
    w = json.loads(out.read_text())
    assert w["method"] == "greedy-rankrls" and len(w["weights"]["coef"]) == 22
    assert np.count_nonzero(w["weights"]["coef"]) == 3
    names = tmp_path / "names.txt"
    names.write_text("".join(f"n{i}\n" for i in range(22)))
    assert main(["export", str(sel), "--format", "xgboost", "--names", str(names)]) == 0
    assert json.loads(capsys.readouterr().out)["feature_names"] == [f"n{j - 1}" for j in chosen]
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["export", str(bad), "--format", "json"]) == 2
    assert "selected_features" in capsys.readouterr().err
