"""experiment.json (rankselect.protocol.experiment_file): the per-query scores of every path
point, the round trip to_json -> from_json, files of version 1, and one clear ValueError for
each kind of damage (issues 39 and 40)."""
from __future__ import annotations

import copy
import json
import tracemalloc

import numpy as np
import pytest

import rankselect as rs
from rankselect.protocol import ExperimentResult
from rankselect.protocol.experiment_file import FORMAT_VERSION, MAX_FEATURES


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = tmp_path_factory.mktemp("folds")
    for k in range(1, 6):
        (root / f"Fold{k}").mkdir()
        for split in ("train", "vali", "test"):
            rs.save_letor(root / f"Fold{k}" / f"{split}.txt", rs.data.datasets.load_example(split))
    grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [0.5, 2.0], "k": [1, 2, 3, 5, 22]}}
    return rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False, folds=[1, 2])


def test_path_holds_per_query_scores_of_every_size(result):
    fold = result.folds[0]["greedy-rankrls"]
    train, vali, test = (rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))
    p = fold.path
    assert p is not None and p.measure == "MAP"
    assert p.n_features.tolist() == sorted({e["n_features"] for e in fold.curve})
    for i, k in enumerate(p.n_features):
        # the point of each size is the grid point of best validation MAP among those of that size
        same = [e for e in fold.curve if e["n_features"] == k]
        best = max(same, key=lambda e: e["vali"]["MAP"])
        assert p.params[i] == best["params"]
        assert p.vali[i].mean() == pytest.approx(best["vali"]["MAP"])
        assert p.test[i].mean() == pytest.approx(best["test"]["MAP"])
        assert len(p.features[i]) == k
    # its scores are those of a RankRLS model on those features, per query
    i = p.index_of(3)
    model = rs.GreedyRankRLS(n_features_to_select=3, alpha=p.params[i]["alpha"]).fit(*train)
    ap = rs.metrics.compute("map", test.y, model.predict(test.X), test.qid, convention="letor", per_query=True)
    assert p.test[i] == pytest.approx(ap)
    assert p.vali.shape == (len(p), np.unique(vali.qid).size) and p.test.shape[1] == fold.test_qids.size


def test_round_trip(result, tmp_path):
    path = tmp_path / "experiment.json"
    result.to_json(path)
    d = json.loads(path.read_text())
    assert (d["format"], d["version"]) == ("rankselect-experiment", FORMAT_VERSION)
    assert "\n" not in path.read_text()  # compact: every grid point of every fold is in it
    again = ExperimentResult.from_json(path)
    assert again.methods == result.methods and again.grids == result.grids and again.n_features == result.n_features
    for f0, f1 in zip(result.folds, again.folds):
        for m in result.methods:
            a, b = f0[m], f1[m]
            for field in ("params", "validation_score", "test", "selected_features", "n_features", "curve", "skipped"):
                assert getattr(a, field) == getattr(b, field), field
            assert np.array_equal(a.test_qids, b.test_qids)
            assert all(np.array_equal(a.per_query[k], b.per_query[k]) for k in a.per_query)
            assert np.array_equal(a.path.vali, b.path.vali) and np.array_equal(a.path.test, b.path.test)
            assert a.path.features == b.path.features and a.path.params == b.path.params
    assert ExperimentResult.from_dict(result.to_dict()).averages() == result.averages()
    assert again.to_markdown() == result.to_markdown()


def test_version_1_files_are_read(result, tmp_path):
    d = result.to_dict()
    del d["format"], d["version"]
    for f in d["folds"]:
        for r in f.values():
            del r["path"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(d, indent=1))
    old = ExperimentResult.from_json(path)
    assert old.folds[0]["greedy-rankrls"].path is None
    assert old.averages() == result.averages()


def _damaged(result, tmp_path, change) -> str:
    d = result.to_dict()
    change(d)
    path = tmp_path / "experiment.json"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueError) as exc:
        ExperimentResult.from_json(path)
    text = str(exc.value)
    assert "\n" not in text and str(path) in text
    return text


def _fold(d, i=0, m="greedy-rankrls"):
    return d["folds"][i][m]


DAMAGE = {
    "method missing from a fold": (lambda d: d["folds"][1].pop("greedy-rankrls"),
                                   "fold 2: no results for method 'greedy-rankrls'"),
    "feature beyond n_features": (lambda d: _fold(d)["selected_features"].append(99),
                                  "selected_features holds feature 99, outside 1..22"),
    "feature 0 (read as -1)": (lambda d: _fold(d)["selected_features"].insert(0, 0),
                               "selected_features holds feature 0, outside 1..22 (features are 1-based"),
    "per-query array one value short": (lambda d: _fold(d)["per_query"]["AP"].pop(),
                                        "per_query AP has 14 values, expected 15"),
    "path scores one value short": (lambda d: _fold(d)["path"]["test"][0].pop(),
                                    "path: test scores of size 1 has 14 values, expected 15"),
    "path feature out of range": (lambda d: _fold(d)["path"]["features"][0].__setitem__(0, 23),
                                  "features of size 1 holds feature 23, outside 1..22"),
    "a newer version": (lambda d: d.__setitem__("version", FORMAT_VERSION + 1),
                        f"format version {FORMAT_VERSION + 1}; this rankselect reads versions 1..{FORMAT_VERSION}"),
    "another format": (lambda d: d.__setitem__("format", "something"), "not an experiment.json written by rankselect"),
    "no folds": (lambda d: d.__setitem__("folds", []), "folds is empty"),
    "a grid point's curve entry": (lambda d: _fold(d)["curve"].__setitem__(0, 5), "a curve entry must be an object"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damage_is_one_clear_line(result, tmp_path, case):
    change, message = DAMAGE[case]
    assert message in _damaged(result, tmp_path, change)


def test_implausible_size_refused_before_allocating(result, tmp_path):
    tracemalloc.start()
    try:
        text = _damaged(result, tmp_path, lambda d: d.__setitem__("n_features", 10**9))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"n_features 1000000000 is out of range 1..{MAX_FEATURES}" in text
    assert peak < 50e6  # nothing of the size of 10**9 features was allocated


def test_not_json(tmp_path):
    path = tmp_path / "experiment.json"
    path.write_bytes(b"\xff\xfe{")
    with pytest.raises(ValueError, match="not UTF-8 text"):
        ExperimentResult.from_json(path)
    path.write_text("{oops")
    with pytest.raises(ValueError, match="not JSON"):
        ExperimentResult.from_json(path)
    path.write_text("[1, 2]")
    with pytest.raises(ValueError, match="the top level is list"):
        ExperimentResult.from_json(path)


def test_from_dict_does_not_change_its_input(result):
    d = result.to_dict()
    before = copy.deepcopy(d)
    ExperimentResult.from_dict(d)
    assert d == before
