"""The FSA subset grid (experiment --fsa-grid): sizes, selections of each size, the
downstream rankers, the cache and the CLI."""
from __future__ import annotations

import json

import numpy as np
import pytest
from test_experiment import _make_layout

import rankselect
from rankselect.cli import main
from rankselect.metrics import ndcg
from rankselect.protocol import fsa_grid, fsa_sizes, load_folds


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    return _make_layout(tmp_path_factory.mktemp("letor") / "SYN")


def test_sizes():
    assert fsa_sizes(46) == [2, 5, 9, 14, 18, 23, 35]
    assert fsa_sizes(6) == [1, 1, 1, 2, 2, 3, 5]


def test_grid_matches_direct_fits_and_resumes(layout, tmp_path):
    cache = tmp_path / "c.jsonl"
    res = fsa_grid(layout, ["ngas", "greedy-rankrls:floating=true"], folds=[1], rankers=["linear"], cache=cache)
    fold = load_folds(layout)[0]
    tr, va, te = fold.train, fold.vali, fold.test
    k = 3
    row = next(r for r in res.rows if r["selector"] == "ngas" and r["k"] == k)
    sub = rankselect.NGAS(k).fit(tr.X, tr.y, qid=tr.qid).selected_features_.tolist()
    assert row["features"] == sub
    coefs = rankselect.RankRLS().path(tr.X[:, sub], tr.y, tr.qid, alphas=rankselect.methods.POW2).coefs
    vals = [ndcg(va.y, va.X[:, sub] @ w, va.qid, 10, convention="letor") for w in coefs]
    w = coefs[int(np.argmax(vals))]
    assert row["ndcg10"] == pytest.approx(ndcg(te.y, te.X[:, sub] @ w, te.qid, 10, convention="letor"))
    fl = rankselect.GreedyRankRLS(5, floating=True).fit(tr.X, tr.y, qid=tr.qid)
    frow = next(r for r in res.rows if r["selector"].startswith("greedy") and r["k"] == 2)
    assert frow["features"] == fl.best_subsets_[1].tolist()
    n_lines = len(cache.read_text().splitlines())
    again = fsa_grid(layout, ["ngas", "greedy-rankrls:floating=true"], folds=[1], rankers=["linear"], cache=cache)
    assert again.rows == res.rows and len(cache.read_text().splitlines()) == n_lines
    assert "| ngas |" in res.table("linear")


def test_lightgbm_and_cli(layout, tmp_path, capsys):
    pytest.importorskip("lightgbm")
    assert main(["experiment", str(layout), "--fsa-grid", "--method", "hcas", "--folds", "1", "--quiet",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "lightgbm ranker" in out and "| hcas |" in out
    rows = json.loads((tmp_path / "fsa_grid.json").read_text())
    assert {r["ranker"] for r in rows} == {"linear", "lightgbm"}
    assert main(["experiment", str(layout), "--fsa-grid", "--method", "fsmrank"]) == 2
