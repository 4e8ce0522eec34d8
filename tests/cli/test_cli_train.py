"""``rankselect train``: RankSVM (linear and kernel-approximated) with test metrics."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect
from conftest import shared_path
from rankselect.cli import main


def test_train_ranksvm_prints_both_conventions(capsys):
    train = shared_path("MQ2008", "Fold1", "train.txt")
    test = shared_path("MQ2008", "Fold1", "test.txt")
    assert main(["train", "--model", "ranksvm", "--C", "0.5", str(train), "--test", str(test), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    Xtr, ytr, qtr = rankselect.load_letor(train)
    Xte, yte, qte = rankselect.load_letor(test)
    model = rankselect.RankSVM(C=0.5).fit(Xtr, ytr, qid=qtr)
    for conv in ("exponential", "letor"):
        expected = rankselect.metrics.evaluate(yte, model.predict(Xte), qte, convention=conv)
        for k in ("NDCG@1", "NDCG@10", "MAP", "MeanNDCG"):
            assert out["test"][conv][k] == pytest.approx(expected[k], abs=1e-12)
    assert out["objective"] == pytest.approx(model.objective_)
    assert 0.3 < out["test"]["letor"]["MAP"] < 0.6


def test_train_kernel_table(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.random((120, 5))
    y = np.clip(np.round(2 * X[:, 0] + X[:, 1] ** 2 + rng.normal(scale=0.3, size=120)), 0, 2)
    qid = np.repeat(np.arange(1, 13), 10)
    path = tmp_path / "d.txt"
    rankselect.save_letor(path, rankselect.RankingData(X, y, qid))
    for kernel in ("nystroem", "rff"):
        code = main(["train", str(path), "--test", str(path), "--kernel", kernel,
                     "--components", "30", "--gamma", "0.1", "--C", "0.1"])
        assert code == 0
        text = capsys.readouterr().out
        assert f"kernel={kernel}" in text and "NDCG@10" in text and "letor" in text
    assert main(["train", str(path), "--test", str(path), "--C", "-1"]) == 2
    assert "'C' parameter" in capsys.readouterr().err
