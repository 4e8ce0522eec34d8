"""#47 from the command line: names with spaces, parentheses and JSON specials survive
select -> train -> export (scored by the engine ports); nothing is replaced without --force;
--letor never replaces its input; one-line errors for what a user gets wrong."""
from __future__ import annotations

import json
import os
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
#: the letor4 layout's kind of names, a Vespa constant, JSON specials, a tab
NAMES = ["LMIR.JM (url)", "BM25 (title)", "TF*IDF (body)", "true", 'a:"b",[c]{d}', "x\ty", "HITS hub (whole)",
         "PageRank", "LMIR.DIR (anchor)", "DL (url)"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_trust47")
    X, y, qid = synthetic_data(5)
    rs.save_letor(d / "train.txt", rs.RankingData(X[qid < 40], y[qid < 40], qid[qid < 40]))
    rs.save_letor(d / "test.txt", rs.RankingData(X[qid >= 40], y[qid >= 40], qid[qid >= 40]))
    (d / "names.txt").write_text("".join(f"{s}\n" for s in NAMES))
    return d


def _run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _predict(booster, x):
    if hasattr(booster, "num_trees"):
        return booster.predict(x)
    import xgboost as xgb

    return booster.predict(xgb.DMatrix(x, feature_names=booster.feature_names), output_margin=True)


@pytest.mark.parametrize("ranker", ["lightgbm", "xgboost"])
def test_names_with_spaces_survive_select_train_export(files, ranker, capsys, tmp_path):
    pytest.importorskip(ranker)
    code, sel, _ = _run(["select", "--method", "greedy-rankrls", "-k", "10", files / "train.txt", "--json"], capsys)
    assert code == 0
    (tmp_path / "sel.json").write_text(sel)
    cols = [j - 1 for j in json.loads(sel)["selected_features"]]
    model = tmp_path / "model"
    code, out, _ = _run(["train", files / "train.txt", "--test", files / "test.txt", "--ranker", ranker, "--features",
                         tmp_path / "sel.json", "--names", files / "names.txt", "--save-model", model, "--json",
                         "--n-estimators", "15"], capsys)
    assert code == 0 and json.loads(out)["feature_names"] == [NAMES[j] for j in cols]
    booster = rs.deploy.load_model(model)
    x = rs.load_letor(files / "test.txt", n_features=10).X[:, cols]
    for engine, port in PORTS.items():
        code, out, err = _run(["export", tmp_path / "sel.json", "--engine", engine, "--model", model, "--names",
                               files / "names.txt", "--out", tmp_path / engine], capsys)
        assert code == 0, err
        written = {p.relative_to(tmp_path / engine).as_posix(): p.read_text() for p in (tmp_path / engine).rglob("*")
                   if p.is_file()}
        if engine == "solr":
            assert [f["name"] for f in json.loads(written["model.json"])["features"]] == [NAMES[j] for j in cols]
        if engine == "vespa":
            assert "function true_feature()" in written["rankselect.profile"]
        xin = x.astype(np.float32).astype(np.float64) if engine in ("opensearch", "solr") else x
        ref = _predict(booster, xin)
        got = port(written, xin).astype(np.float64)
        assert np.all(np.abs(got - ref) <= 1e-6 * np.maximum(1, np.abs(ref))), engine


def test_nothing_is_replaced_without_force(files, capsys, tmp_path):
    (tmp_path / "sel.json").write_text(json.dumps({"selected_features": [3, 1], "n_features": 10}))
    out = tmp_path / "out"
    out.mkdir()
    (out / "load.sh").write_text("mine")
    code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "solr", "--out", out], capsys)
    assert code != 0 and "holds 1 of the files already: load.sh" in err and (out / "load.sh").read_text() == "mine"
    code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "solr", "--out", out, "--force"], capsys)
    assert code == 0 and (out / "load.sh").read_text().startswith("#!/bin/sh")
    (tmp_path / "cols.txt").write_text("mine")
    code, _, err = _run(["export", tmp_path / "sel.json", "--format", "ranklib", "--out", tmp_path / "cols.txt"],
                        capsys)
    assert code != 0 and "exists; pass --force" in err and (tmp_path / "cols.txt").read_text() == "mine"


def test_save_model_is_never_a_folder_nor_replaced_without_force(files, capsys, tmp_path):
    pytest.importorskip("lightgbm")
    base = ["train", files / "train.txt", "--test", files / "test.txt", "--ranker", "lightgbm", "--n-estimators", "2"]
    code, _, err = _run(base + ["--save-model", tmp_path], capsys)
    assert code != 0 and "is a folder: give the model file's path" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "m.txt").write_text("mine")
    code, _, err = _run(base + ["--save-model", tmp_path / "m.txt"], capsys)
    assert code != 0 and "exists; pass --force" in err and (tmp_path / "m.txt").read_text() == "mine"
    code, _, err = _run(base + ["--save-model", tmp_path / "m.txt", "--force"], capsys)
    assert code == 0 and (tmp_path / "m.txt").read_text().startswith("tree")


def test_train_names_with_duplicates_is_one_line(files, capsys, tmp_path):
    pytest.importorskip("lightgbm")
    (tmp_path / "names.txt").write_text("a\nb\na\n" + "".join(f"c{i}\n" for i in range(7)))
    code, _, err = _run(["train", files / "train.txt", "--test", files / "test.txt", "--ranker", "lightgbm",
                         "--names", tmp_path / "names.txt"], capsys)
    assert code != 0 and "repeats 'a': the engines find features by name" in err and len(err.strip().splitlines()) == 1


def test_letor_never_replaces_its_input(files, capsys, tmp_path):
    (tmp_path / "sel.json").write_text(json.dumps({"selected_features": [7, 2], "n_features": 10}))
    data = tmp_path / "data"
    data.mkdir()
    train = data / "train.txt"
    train.write_bytes((files / "train.txt").read_bytes())
    before = train.read_bytes()
    for extra in ([], ["--force"]):
        code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "ranklib", "--letor", train, "--out", data]
                            + extra, capsys)
        assert code != 0 and "would replace the input file" in err
    assert train.read_bytes() == before
    linked = tmp_path / "linked"
    linked.mkdir()
    os.link(train, linked / "train.txt")  # the same file under --out: --force must not truncate it
    code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "ranklib", "--letor", train, "--out", linked,
                         "--force"], capsys)
    assert code != 0 and "would replace the input file" in err and train.read_bytes() == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "train.txt").write_bytes(before)
    code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "ranklib", "--letor", train, "--letor",
                         other / "train.txt", "--out", tmp_path / "rl"], capsys)
    assert code != 0 and "two files named 'train.txt'" in err and not (tmp_path / "rl").exists()


def test_a_damaged_model_file_is_one_line_not_an_abort(files, capsys, tmp_path):
    pytest.importorskip("lightgbm")
    (tmp_path / "sel.json").write_text(json.dumps({"selected_features": [3, 1], "n_features": 10}))
    code, _, _ = _run(["train", files / "train.txt", "--test", files / "test.txt", "--ranker", "lightgbm", "--features",
                       "3,1", "--n-estimators", "3", "--save-model", tmp_path / "m.txt"], capsys)
    text = (tmp_path / "m.txt").read_text()
    (tmp_path / "cut.txt").write_text(text[: text.index("Tree=1") + 30])
    code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "solr", "--model", tmp_path / "cut.txt",
                         "--out", tmp_path / "o"], capsys)
    assert code != 0 and "the file is cut" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "x.json").write_text('{"learner": {}}')
    code, _, err = _run(["export", tmp_path / "sel.json", "--engine", "solr", "--model", tmp_path / "x.json",
                         "--out", tmp_path / "o"], capsys)
    assert code != 0 and "not a whole XGBoost JSON model" in err
    (tmp_path / "deep.json").write_text('{"selected_features": ' + "[" * 50_000 + "]" * 50_000 + "}")
    code, _, err = _run(["export", tmp_path / "deep.json", "--engine", "solr", "--out", tmp_path / "o"], capsys)
    assert code != 0 and "nests too deeply" in err and len(err.strip().splitlines()) == 1
