"""select -> train -> export without Python: ``rankselect train --ranker ... --features
SELECTION --save-model FILE`` then ``rankselect export SELECTION --engine ... --model FILE``;
the engine files, scored by the ports of the engines' code, give the saved model's scores."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import rankselect as rs
from rankselect.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "deploy"))
import engine_ports as ports  # noqa: E402 (tests/deploy)
from _deploy_cases import synthetic_data  # noqa: E402

PORTS = {"opensearch": ports.opensearch_scores, "solr": ports.solr_scores,
         "elasticsearch": ports.elasticsearch_scores, "vespa": ports.vespa_scores}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_export")
    X, y, qid = synthetic_data(3)
    rs.save_letor(d / "train.txt", rs.RankingData(X[qid < 40], y[qid < 40], qid[qid < 40]))
    rs.save_letor(d / "test.txt", rs.RankingData(X[qid >= 40], y[qid >= 40], qid[qid >= 40]))
    (d / "names.txt").write_text("".join(f"f{c}_bm25\n" for c in "abcdefghij"))
    return d


def _run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("ranker", ["lightgbm", "xgboost"])
def test_select_train_export(files, ranker, capsys, tmp_path):
    pytest.importorskip(ranker)
    code, sel, _ = _run(["select", "--method", "greedy-rankrls", "-k", "5", files / "train.txt", "--json"], capsys)
    assert code == 0
    (tmp_path / "sel.json").write_text(sel)
    model = tmp_path / ("model.txt" if ranker == "lightgbm" else "model.json")
    code, out, _ = _run(["train", files / "train.txt", "--test", files / "test.txt", "--ranker", ranker, "--features",
                         tmp_path / "sel.json", "--names", files / "names.txt", "--save-model", model, "--json",
                         "--n-estimators", "20"], capsys)
    assert code == 0
    info = json.loads(out)
    cols = [j - 1 for j in json.loads(sel)["selected_features"]]
    assert info["features"] == [j + 1 for j in cols] and info["feature_names"][0] == f"f{'abcdefghij'[cols[0]]}_bm25"
    booster = rs.deploy.load_model(model)
    test = rs.load_letor(files / "test.txt", n_features=10)
    x = test.X[:, cols]
    for engine, port in PORTS.items():
        code, out, _ = _run(["export", tmp_path / "sel.json", "--engine", engine, "--model", model, "--names",
                             files / "names.txt", "--out", tmp_path / engine], capsys)
        assert code == 0 and out.startswith(f"{engine}: ")
        written = {p.relative_to(tmp_path / engine).as_posix(): p.read_text() for p in (tmp_path / engine).rglob("*")
                   if p.is_file()}
        xin = x.astype(np.float32).astype(np.float64) if engine in ("opensearch", "solr") else x
        ref = _predict(booster, xin)
        got = port(written, xin).astype(np.float64)
        assert np.all(np.abs(got - ref) <= 1e-6 * np.maximum(1, np.abs(ref))), engine


def _predict(booster, x):
    if hasattr(booster, "num_trees"):  # LightGBM
        return booster.predict(x)
    import xgboost as xgb

    return booster.predict(xgb.DMatrix(x, feature_names=booster.feature_names), output_margin=True)


def test_ranklib_renumbers_the_subset(files, capsys, tmp_path):
    (tmp_path / "sel.json").write_text(json.dumps({"selected_features": [7, 2], "n_features": 10}))
    code, out, _ = _run(["export", tmp_path / "sel.json", "--engine", "ranklib", "--letor", files / "test.txt",
                         "--out", tmp_path / "rl"], capsys)
    assert code == 0 and "test.txt" in out
    back = rs.load_letor(tmp_path / "rl" / "test.txt")
    orig = rs.load_letor(files / "test.txt", n_features=10)
    np.testing.assert_array_equal(back.X, orig.X[:, [6, 1]])
    rows = (tmp_path / "rl" / "features.txt").read_text().splitlines()[1:]
    assert rows == ["1\t7\t\"feature_7\"", "2\t2\t\"feature_2\""]


@pytest.mark.parametrize("args, message", [
    (["--engine", "solr"], "--engine needs --out DIR"),
    (["--format", "json", "--model", "m.txt"], "--model applies to --engine, not to --format"),
    (["--engine", "solr", "--out", "o", "--letor", "t.txt"], "--letor applies to --engine ranklib"),
    (["--engine", "solr", "--out", "o", "--model", "sel.json"], "is neither a LightGBM model text file nor an XGBoost"),
])
def test_export_errors_are_one_line(files, capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sel.json").write_text(json.dumps({"selected_features": [7, 2], "n_features": 10}))
    code, _, err = _run(["export", "sel.json", *args], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_the_selecting_methods_linear_model(files, capsys, tmp_path):
    code, sel, _ = _run(["select", "--method", "greedy-rankrls", "-k", "4", files / "train.txt", "--json"], capsys)
    (tmp_path / "sel.json").write_text(sel)
    code, out, _ = _run(["export", tmp_path / "sel.json", "--engine", "solr", "--linear", "--out", tmp_path / "s"],
                        capsys)
    assert code == 0
    data = json.loads(sel)
    model = json.loads((tmp_path / "s" / "model.json").read_text())
    weights = {f"feature_{j}": float(np.float32(data["coef"][j - 1])) for j in data["selected_features"]}
    assert model["class"].endswith("LinearModel") and model["params"]["weights"] == weights
    code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "solr", "--linear", "--model", "m.txt",
                         "--out", tmp_path / "s"], capsys)
    assert code == 2 and "give --model FILE or --linear, not both" in err


def test_train_ranker_flag_errors(files, capsys):
    code, _, err = _run(["train", files / "train.txt", "--test", files / "test.txt", "--ranker", "lightgbm",
                         "--C", "2"], capsys)
    assert code == 2 and "--ranker lightgbm trains a tree ranker: drop --C" in err
    code, _, err = _run(["train", files / "train.txt", "--test", files / "test.txt", "--save-model", "m.txt"], capsys)
    assert code == 2 and "--save-model needs --ranker lightgbm|xgboost" in err


def test_train_ranksvm_on_the_selected_features(files, capsys):
    code, out, _ = _run(["train", files / "train.txt", "--test", files / "test.txt", "--features", "3,1", "--json"],
                        capsys)
    assert code == 0
    train = rs.load_letor(files / "train.txt", n_features=10)
    test = rs.load_letor(files / "test.txt", n_features=10)
    model = rs.RankSVM().fit(train.X[:, [2, 0]], train.y, qid=train.qid)
    expected = rs.metrics.evaluate(test.y, model.predict(test.X[:, [2, 0]]), test.qid)
    assert json.loads(out)["test"]["exponential"]["MAP"] == pytest.approx(expected["MAP"], abs=1e-12)
