"""``rankselect export CASCADE.json --engine ...``: the JSON of ``rankselect cascade --json``
exported as the engine's phases (#48), and one clear error for what it cannot do."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect as rs
from rankselect.cli import main
from rankselect.data.datasets import example_path
from rankselect.deploy import export_engine


def test_cascade_then_export_vespa(tmp_path, capsys):
    costs = tmp_path / "costs.txt"
    c = np.ones(22)
    c[::3] = 20.0
    costs.write_text("".join(f"{v}\n" for v in c))
    cascade = tmp_path / "cascade.json"
    assert main(["cascade", str(example_path("train")), "--vali", str(example_path("vali")), "--costs", str(costs),
                 "--budget", "50%", "--windows", "5", "10", "--rule", "best", "--out", str(cascade)]) == 0
    capsys.readouterr()
    data = json.loads(cascade.read_text())
    out_dir = tmp_path / "vespa"
    assert main(["export", str(cascade), "--engine", "vespa", "--out", str(out_dir)]) == 0
    assert "vespa:" in capsys.readouterr().out
    expected = export_engine("vespa", data)
    for name, text in expected.files.items():
        assert (out_dir / name).read_text(encoding="utf-8") == text
    profile = (out_dir / "rankselect.profile").read_text(encoding="utf-8")
    phases = data["cascade"]["phases"]
    if len(phases) == 2:  # phase 1 is the first-phase, phase 2 re-ranks its window
        assert f"rerank-count: {phases[1]['window']}" in profile and "nativeRank" not in profile
    else:  # one phase: today's single subset, its model re-ranking nativeRank's best
        assert "nativeRank" in profile


def test_export_a_cascade_refusals(tmp_path, capsys):
    X, y, qid = rs.data.datasets.load_example("train")
    Xv, yv, qv = rs.data.datasets.load_example("test")
    c = np.ones(22)
    c[::3] = 20.0
    n_q = np.unique(qv, return_counts=True)[1].mean()
    cs = rs.CascadeSelection(feature_costs=c, budget=0.5 * c.sum() * n_q, windows=(5, 10), rule="best").fit(
        X, y, qid=qid, eval_set=(Xv, yv, qv))
    assert len(cs.phases_) == 2
    from rankselect.cli.cascade import result_json

    path = tmp_path / "cascade.json"
    path.write_text(json.dumps(result_json(cs, c)))
    for args, words in ((["--engine", "solr", "--out", str(tmp_path / "s")], "one re-rank query"),
                        (["--engine", "vespa", "--linear", "--out", str(tmp_path / "v")], "its phases' models"),
                        (["--format", "ranklib"], "export it with --engine")):
        assert main(["export", str(path)] + args) != 0
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err


def _interaction_files(tmp_path):
    """LETOR files whose relevance is the product of two expensive features (features 2 and 3),
    feature 1 a cheap noisy copy of it: a LightGBM phase 2 beats a linear one."""
    paths = []
    for seed, n_q in ((0, 60), (1, 30)):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n_q * 40, 5))
        inter = X[:, 1] * X[:, 2]
        X[:, 0] = inter + rng.normal(scale=2.0, size=len(X))
        y = (inter > 0.8).astype(int) + (inter > 2.0)
        path = tmp_path / f"{seed}.txt"
        rs.save_letor(path, (X, y, np.repeat(np.arange(1, n_q + 1), 40)))
        paths.append(str(path))
    costs = tmp_path / "costs.txt"
    costs.write_text("1\n10\n10\n1\n1\n")
    return paths, str(costs)


def test_a_lightgbm_phase2_from_the_cli_to_vespa(tmp_path, capsys):
    pytest.importorskip("lightgbm")
    (train, vali), costs = _interaction_files(tmp_path)
    cascade = tmp_path / "cascade.json"
    assert main(["cascade", train, "--vali", vali, "--costs", costs, "--budget", "100%", "--windows", "10",
                 "--phase2-ranker", "lightgbm", "--out", str(cascade)]) == 0
    text = capsys.readouterr().out
    assert "phase 2 (the top 10 of phase 1, LightGBM)" in text
    data = json.loads(cascade.read_text())
    phase2 = data["cascade"]["phases"][1]
    assert phase2["ranker"] == "lightgbm" and phase2["coef"] is None and phase2["model"].startswith("tree")
    assert data["cascade"]["phase2_kept"] == "lightgbm"
    assert data["cascade"]["phase2_lightgbm_score"] >= data["cascade"]["phase2_linear_score"]
    out_dir = tmp_path / "vespa"
    assert main(["export", str(cascade), "--engine", "vespa", "--out", str(out_dir)]) == 0
    assert 'lightgbm("rankselect.json")' in (out_dir / "rankselect.profile").read_text(encoding="utf-8")
    expected = export_engine("vespa", data)
    assert (out_dir / "models" / "rankselect.json").read_text(encoding="utf-8") == \
        expected.files["models/rankselect.json"]
    assert main(["export", str(cascade), "--engine", "solr", "--out", str(tmp_path / "solr")]) != 0
    assert "one re-rank query" in capsys.readouterr().err
