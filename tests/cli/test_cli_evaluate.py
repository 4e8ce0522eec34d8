"""``rankselect evaluate FILE --scores SCORES``: table / JSON of both conventions."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rankselect import metrics
from rankselect.cli import main
from rankselect.cli.evaluate import read_scores

LETOR = """\
1 qid:10 1:0.5 2:0.1 #docid = a
0 qid:10 1:0.9 2:0.2 #docid = b
2 qid:10 1:0.3 2:0.3 #docid = c
0 qid:10 1:0.9 2:0.4 #docid = d
1 qid:10 1:0.1 2:0.5 #docid = e
0 qid:20 1:1.0 2:0.6 #docid = f
0 qid:20 1:2.0 2:0.7 #docid = g
1 qid:30 1:0.0 2:0.8 #docid = h
"""
SCORES = [0.5, 0.9, 0.3, 0.9, 0.1, 1.0, 2.0, 0.0]
Y = [1, 0, 2, 0, 1, 0, 0, 1]
QID = [10, 10, 10, 10, 10, 20, 20, 30]


def test_read_scores(tmp_path):
    p = tmp_path / "s.txt"
    p.write_text("1.5\n-2\n\n3e-1\n")
    np.testing.assert_array_equal(read_scores(str(p)), [1.5, -2.0, 0.3])
    p.write_text("1.5\nabc\n")
    with pytest.raises(ValueError, match="line 2"):
        read_scores(str(p))
    p.write_text("1.5\nnan\n")
    with pytest.raises(ValueError, match="line 2"):
        read_scores(str(p))


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "test.txt"
    data.write_text(LETOR)
    scores = tmp_path / "pred.txt"
    scores.write_text("\n".join(str(s) for s in SCORES) + "\n")
    return str(data), str(scores)


def test_evaluate_json_matches_library(files, capsys):
    data, scores = files
    assert main(["evaluate", data, "--scores", scores, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_queries"] == 3 and out["n_rows"] == 8
    for conv in ("exponential", "letor"):
        expected = metrics.evaluate(Y, SCORES, QID, convention=conv)
        assert out[conv] == pytest.approx(expected, abs=1e-12)
    assert out["letor"]["NDCG@3"] == pytest.approx(metrics.ndcg(Y, SCORES, QID, 3, convention="letor"))


def test_evaluate_table(files, capsys):
    data, scores = files
    assert main(["evaluate", data, "--scores", scores]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["metric", "exponential", "letor"]
    rows = {ln.split()[0]: ln.split()[1:] for ln in lines[2:]}
    assert list(rows)[:2] == ["MAP", "NDCG@1"] and "MeanNDCG" in rows and "ERR" in rows
    assert float(rows["MAP"][1]) == pytest.approx(metrics.mean_average_precision(Y, SCORES, QID, convention="letor"),
                                                   abs=1e-4)


def test_evaluate_wrong_number_of_scores(files, tmp_path, capsys):
    data, _ = files
    short = tmp_path / "short.txt"
    short.write_text("1\n2\n")
    assert main(["evaluate", data, "--scores", str(short)]) == 2
    assert "2 scores" in capsys.readouterr().err
