"""The experiment protocol with a ranker in the loop (issue 45): every option of ``select
--method rfe|forward`` in ``experiment``, the per-query paths of a non-linear ranker (checked
against an independent refit), the paths in several measures (``--measure``), the
cross-fitted (nested) validation scores, format version 3 and the reading of version 2, and
``experiment --out FILE`` refused before any fit."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect as rs
from rankselect.cli import main
from rankselect.protocol import ExperimentResult, parse_method
from rankselect.protocol.loop_paths import ranker_of, ranker_of_label
from rankselect.protocol.path_scores import measure_key, nested_rows


def _layout(root):
    """Five folds of the shipped example, the roles of vali and test swapped in every other fold
    (so that the folds differ)."""
    for k in range(1, 6):
        (root / f"Fold{k}").mkdir()
        roles = ("train", "vali", "test") if k % 2 else ("train", "test", "vali")
        for split, source in zip(("train", "vali", "test"), roles):
            rs.save_letor(root / f"Fold{k}" / f"{split}.txt", rs.data.datasets.load_example(source))
    return root


@pytest.fixture(scope="module")
def folds(tmp_path_factory):
    return _layout(tmp_path_factory.mktemp("folds"))


@pytest.fixture(scope="module")
def lgbm_result(folds):
    pytest.importorskip("lightgbm")
    grid = {"forward": {"k": [1, 2, 3]}}
    method = "forward:ranker=lightgbm,candidates=greedy-rankrls,n_candidates=4,seed=3"
    return rs.protocol.run(folds, [method], grid=grid, progress=False, folds=[1, 2],
                           measures=["ndcg@10", "err@10"])


def test_every_option_of_select_is_an_experiment_option():
    for name in ("rfe", "forward"):
        _, _, options = parse_method(name)
        for option in ("ranker", "scoring", "candidates", "n_candidates", "seed"):
            assert option in options, (name, option)
        assert options["ranker"] == "linear"  # the default: RankRLS over the alpha grid, as before
    assert "floating" in parse_method("forward")[2]
    assert {"step", "drop_by", "importance"} <= set(parse_method("rfe")[2])
    with pytest.raises(ValueError, match="has no option 'rankr'"):
        parse_method("forward:rankr=lightgbm")


def test_unknown_ranker_is_one_clear_error(folds):
    with pytest.raises(ValueError, match="option ranker must be one of linear, .*got 'ranknet'"):
        rs.protocol.run(folds, ["forward:ranker=ranknet"], grid={"forward": {"k": [1]}}, progress=False, folds=[1])


def test_ranker_of_methods():
    assert ranker_of_label("forward:ranker=lightgbm") == "lightgbm"
    assert ranker_of_label("rfe:ranker=xgboost,step=2") == "xgboost"
    assert ranker_of_label("rfe") == ranker_of_label("forward:ranker=rankrls") == "linear"
    assert ranker_of("gas", {"ranker": "ranksvm"}) == "linear"


def test_lightgbm_in_the_loop_paths_are_its_refits(lgbm_result, folds):
    import lightgbm

    label = "forward:ranker=lightgbm,candidates=greedy-rankrls,n_candidates=4,seed=3"
    assert lgbm_result.methods == [label]
    assert "alpha" not in lgbm_result.grids[label]  # the ranker's settings are fixed: no alpha grid
    fold = lgbm_result.folds[0][label]
    p = fold.path
    # every size of the grid, and the ranker on all the features (the reference), never picked
    assert p.n_features.tolist() == [1, 2, 3, 22]
    assert fold.params["k"] in (1, 2, 3) and fold.n_features <= 3
    assert p.measures == ["MAP", "NDCG@10", "ERR@10"]
    train, vali, test = (rs.load_letor(folds / "Fold1" / f"{s}.txt") for s in ("train", "vali", "test"))
    for k in (2, 22):
        i = p.index_of(k)
        cols = p.features[i]
        if k == 22:
            assert sorted(cols) == list(range(22))
        sizes = np.unique(train.qid, return_counts=True)[1][np.argsort(np.unique(train.qid, return_index=True)[1])]
        model = lightgbm.LGBMRanker(n_estimators=100, n_jobs=1, verbose=-1, random_state=3)
        model.fit(train.X[:, cols], train.y, group=sizes)
        for split, data, rows in (("vali", vali, p.vali), ("test", test, p.test)):
            s = model.predict(test.X[:, cols] if split == "test" else vali.X[:, cols])
            ap = rs.metrics.compute("map", data.y, s, data.qid, convention="letor", per_query=True)
            np.testing.assert_allclose(rows[i], ap, rtol=0, atol=1e-12)
        ndcg = p.in_measure("ndcg@10").test[i]
        s = model.predict(test.X[:, cols])
        np.testing.assert_allclose(ndcg, rs.metrics.compute("ndcg@10", test.y, s, test.qid, convention="letor",
                                                            per_query=True), rtol=0, atol=1e-12)
    # one setting per size: nothing is chosen on validation but the size, the nested scores are the scores
    np.testing.assert_array_equal(p.nested, p.vali)


def test_options_reach_the_selector(folds):
    grid = {"rfe": {"alpha": [1.0], "k": [1, 2, 3, 4, 5]}}
    res = rs.protocol.run(folds, ["rfe:candidates=greedy-rankrls,n_candidates=5,scoring=map,drop_by=native"],
                          grid=grid, progress=False, folds=[1])
    p = res.folds[0][res.methods[0]].path
    assert p.n_features.max() <= 5  # the elimination starts from the 5 candidates of greedy RankRLS
    greedy = rs.GreedyRankRLS(n_features_to_select=5).fit(*rs.data.datasets.load_example("train"))
    assert set(p.features[p.index_of(5)]) == set(int(j) for j in greedy.selected_features_)
    # the default grid (k = 1..22) with a pool of 3 candidates: forward stops at the pool
    res = rs.protocol.run(folds, ["forward:candidates=greedy-rankrls,n_candidates=3"], progress=False, folds=[1],
                          grid={"forward": {"alpha": [1.0]}})
    assert res.folds[0][res.methods[0]].path.n_features.tolist() == [1, 2, 3]


def test_measures_and_nested_scores(folds):
    grid = {"greedy-rankrls": {"alpha": [2.0 ** -8, 1.0, 2.0 ** 8], "k": [1, 2, 3, 4]}}
    res = rs.protocol.run(folds, ["greedy-rankrls"], grid=grid, progress=False, folds=[1], measures=["err@5"])
    p = res.folds[0]["greedy-rankrls"].path
    assert p.measures == ["MAP", "ERR@5"]
    with pytest.raises(ValueError, match="not NDCG@10.*--measure ndcg@10"):
        p.in_measure("ndcg@10")
    train, vali, test = (rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))
    i = p.index_of(3)
    model = rs.GreedyRankRLS(n_features_to_select=3, alpha=p.params[i]["alpha"]).fit(*train)
    err = rs.metrics.compute("err@5", test.y, model.predict(test.X), test.qid, convention="letor", per_query=True)
    np.testing.assert_allclose(p.in_measure("ERR@5").test[i], err, rtol=0, atol=1e-12)
    # the nested scores by brute force: in each half of the validation queries, the alpha best on the other half
    models = [rs.GreedyRankRLS(n_features_to_select=3, alpha=a).fit(*train) for a in grid["greedy-rankrls"]["alpha"]]
    rows = [rs.metrics.compute("map", vali.y, m.predict(vali.X), vali.qid, convention="letor", per_query=True)
            for m in models]
    half = np.arange(rows[0].size) % 2
    want = np.empty_like(rows[0])
    for h in (0, 1):
        best = int(np.argmax([r[half != h].mean() for r in rows]))
        want[half == h] = rows[best][half == h]
    np.testing.assert_allclose(p.nested[i], want, rtol=0, atol=1e-12)
    assert p.vali[i].mean() >= p.nested[i].mean() - 1e-12  # choosing on the scored queries is optimistic


def test_nested_rows_picks_on_the_other_half():
    a = np.array([1.0, 0.0, 1.0, 0.0])  # best on the even queries
    b = np.array([0.0, 1.0, 0.0, 1.0])  # best on the odd queries
    # the even half is scored by the point best on the odd half (b) and vice versa
    np.testing.assert_array_equal(nested_rows([a, b], [a, b]), [0.0, 0.0, 0.0, 0.0])


def test_measure_names():
    assert [measure_key(m) for m in ("map", "NDCG@10", "err@3", "p@5", "meanndcg")] == [
        "MAP", "NDCG@10", "ERR@3", "P@5", "MeanNDCG"]
    with pytest.raises(ValueError, match="unknown measure 'ndcg@x'"):
        measure_key("ndcg@x")


def test_version_3_round_trip_and_version_2_still_read(lgbm_result, tmp_path):
    path = tmp_path / "experiment.json"
    lgbm_result.to_json(path)
    d = json.loads(path.read_text())
    assert d["version"] == 3
    again = ExperimentResult.from_json(path)
    label = lgbm_result.methods[0]
    for f0, f1 in zip(lgbm_result.folds, again.folds):
        p0, p1 = f0[label].path, f1[label].path
        np.testing.assert_array_equal(p0.nested, p1.nested)
        for m in p0.others:
            for s in ("vali", "test", "nested"):
                np.testing.assert_array_equal(p0.others[m][s], p1.others[m][s])
    # a file of version 2: no nested scores, the selection metric only
    d["version"] = 2
    for f in d["folds"]:
        for r in f.values():
            r["path"].pop("nested")
            r["path"].pop("measures")
    old = ExperimentResult.from_dict(d)
    p = old.folds[0][label].path
    assert p.nested is None and p.measures == ["MAP"]


def test_out_an_existing_file_fails_before_any_fit(folds, tmp_path, capsys, monkeypatch):
    import rankselect.cli.experiment as cli

    def no_fit(*args, **kwargs):
        raise AssertionError("the protocol ran")

    monkeypatch.setattr(cli, "run_protocol", no_fit)
    target = tmp_path / "taken.json"
    target.write_text("mine")
    assert main(["experiment", str(folds), "--method", "rankrls", "--out", str(target), "--quiet"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert target.read_text() == "mine"
    assert main(["experiment", str(folds), "--method", "rankrls", "--out", str(target / "sub"), "--quiet"]) == 2
