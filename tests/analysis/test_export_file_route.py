"""The export cannot shift a column (issue 23): it states its index base, and for LightGBM
reading the LETOR file itself it gives the columns and names LightGBM sees there (file
feature j is column j, ``Column_<j>``, column 0 empty). Tested by training LightGBM from the
file on the exported columns and from the array on the array route's columns: the same
model. Names LightGBM cannot take are replaced with a note; duplicates are refused."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect as rs
from rankselect.data.datasets import load_example
from rankselect.deploy import export_selection


def test_lightgbm_from_the_letor_file_matches_the_array_route(tmp_path):
    lgb = pytest.importorskip("lightgbm")
    train = load_example("train")
    sel = rs.GreedyRankRLS(n_features_to_select=4, alpha=1.0).fit(*train)
    spec = json.loads(export_selection(sel, "lightgbm"))
    assert spec["index_base"] == 0
    file_cols = spec["letor_file"]["columns"]
    assert file_cols == [j + 1 for j in spec["columns"]]
    assert spec["letor_file"]["feature_names"] == [f"Column_{j}" for j in file_cols]
    # The LETOR file without qid tokens (LightGBM reads groups from a .query file).
    path = tmp_path / "train.svm"
    with open(path, "w") as f:
        for yi, row in zip(train.y, train.X):
            f.write(f"{yi:g} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(row)) + "\n")
    _, sizes = np.unique(train.qid, return_counts=True)
    order = [q for i, q in enumerate(train.qid) if i == 0 or train.qid[i - 1] != q]
    group = [int((train.qid == q).sum()) for q in order]
    assert sum(group) == len(train.y) and len(group) == sizes.size
    params = {"objective": "lambdarank", "verbose": -1, "num_leaves": 7, "min_data_in_leaf": 3,
              "deterministic": True, "num_threads": 1, "seed": 0, "min_data_in_bin": 1}
    n_file_cols = train.X.shape[1] + 1
    ignore = [j for j in range(n_file_cols) if j not in file_cols]
    from_file = lgb.train({**params, "ignore_column": ",".join(map(str, ignore))},
                          lgb.Dataset(str(path), group=group, params={"ignore_column": ",".join(map(str, ignore))}),
                          num_boost_round=5)
    assert from_file.num_feature() == n_file_cols  # column 0 is there, empty
    used = [name for name, gain in zip(from_file.feature_name(), from_file.feature_importance("gain")) if gain > 0]
    assert used and set(used) <= set(spec["letor_file"]["feature_names"])
    from_array = lgb.train(params, lgb.Dataset(train.X[:, spec["columns"]], train.y, group=group),
                           num_boost_round=5)
    Xfile = np.hstack([np.zeros((len(train.y), 1)), train.X])
    np.testing.assert_allclose(from_file.predict(Xfile), from_array.predict(train.X[:, spec["columns"]]),
                               rtol=0, atol=1e-12)


def test_names_lightgbm_cannot_take_and_duplicates():
    names = ["a b", 'q"x', "c,d", "e:f", "ok", "g{h}", "tab\there", "z"]
    out = json.loads(export_selection([0, 1, 2, 3, 4, 5, 6], "lightgbm", feature_names=names, n_features=8))
    assert out["feature_names"] == ["a_b", "q_x", "c_d", "e_f", "ok", "g_h_", "tab_here"]
    assert len(out["notes"]) == 6 and "LightGBM" in out["notes"][0]
    with pytest.raises(ValueError, match="repeats the name"):
        export_selection([0, 1], "lightgbm", feature_names=["a b", "a_b"], n_features=2)
    with pytest.raises(ValueError, match="repeats the name 'x'"):
        export_selection([0], "json", feature_names=["x", "x"], n_features=2)
    full = json.loads(export_selection([0], "json", n_features=3))
    assert full["index_base"] == {"selected_features": 1, "columns": 0}
    for bad in (1.9, float("inf"), True, -1):
        with pytest.raises(ValueError, match="n_features"):
            export_selection([0], "json", n_features=bad)
