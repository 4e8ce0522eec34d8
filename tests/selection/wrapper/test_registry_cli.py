"""The ranker-in-the-loop selectors in the registry, the CLI (``select --method rfe/forward
--ranker ...``) and the experiment protocol."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from rankselect.cli import main
from rankselect.data.datasets import make_ranking
from rankselect.methods import METHODS, SELECTORS
from rankselect.selection.wrapper.rankers import make_ranker

pytest.importorskip("lightgbm")
DATA = Path(__file__).resolve().parents[3] / "python" / "rankselect" / "data" / "datasets" / "data"
TRAIN, VALI = str(DATA / "example_train.txt"), str(DATA / "example_vali.txt")


def _selected(out: str) -> list[int]:
    return [int(line.split()[1]) for line in out.splitlines() if line.strip() and not line.startswith("#")
            and line.split()[0].isdigit()]


def test_registry_entries():
    assert {"rfe", "forward"} <= set(SELECTORS)
    assert METHODS["rfe"].defaults()["ranker"] == "lightgbm"
    est = METHODS["rfe"].build(ranker="rankrls", n_features_to_select=3, step=0.5)
    assert type(est).__name__ == "RecursiveElimination" and est.n_features_to_select == 3
    with pytest.raises(ValueError, match="no parameter"):
        METHODS["forward"].build(step=2)


def test_select_rfe_with_lightgbm_on_vali(capsys):
    assert main(["select", "--method", "rfe", "--ranker", "lightgbm", "-k", "4", "--step", "0.5",
                 "--candidates", "greedy-rankrls", "--n-candidates", "6", "--vali", VALI, TRAIN]) == 0
    out = capsys.readouterr().out
    # the score column is the LightGBM ranker's own validation score of each subset (issue 35)
    assert len(_selected(out)) == 4 and "vali ndcg@10" in out and "95% CI" in out


def test_select_forward_json(capsys):
    assert main(["select", "--method", "forward", "--ranker", "rankrls", "-k", "2", "--n-candidates", "4",
                 "--candidates", "gas", "--floating", "yes", "--json", TRAIN]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["selected_features"]) == 2
    assert out["params"]["floating"] is True and out["params"]["ranker"] == "rankrls"


def test_a_missing_ranker_library_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "xgboost", None)  # import xgboost raises ImportError
    with pytest.raises(ImportError, match="pip install xgboost"):
        make_ranker("xgboost")
    assert main(["select", "--method", "rfe", "--ranker", "xgboost", TRAIN]) == 2
    assert "pip install xgboost" in capsys.readouterr().err


def test_experiment_protocol_runs_rfe_and_forward(tmp_path):
    from rankselect.protocol import run

    for f in range(1, 6):
        d = tmp_path / f"Fold{f}"
        d.mkdir()
        for i, split in enumerate(("train", "vali", "test")):
            r = make_ranking(n_queries=9, docs_per_query=8, n_informative=2, n_redundant=1, n_noise=2,
                             random_state=10 * f + i)
            with open(d / f"{split}.txt", "w") as fh:
                for xi, yi, qi in zip(np.asarray(r.X), np.asarray(r.y), np.asarray(r.qid)):
                    fh.write(f"{int(yi)} qid:{int(qi) + 100 * i} " + " ".join(f"{j + 1}:{v:.5g}"
                                                                            for j, v in enumerate(xi)) + "\n")
    res = run(tmp_path, ["rfe", "forward"], grid={"rfe": {"k": [1, 2, 3]}, "forward": {"k": [1, 2]}},
              folds=[1], progress=False, curves=False)
    assert res.methods == ["rfe", "forward"]
    rfe, fwd = res.folds[0]["rfe"], res.folds[0]["forward"]
    assert rfe.n_candidates == 3 and fwd.n_candidates == 2  # one candidate per k
    assert 1 <= len(rfe.selected_features) <= 3 and 1 <= len(fwd.selected_features) <= 2
    assert 0 <= rfe.test["MAP"] <= 1
