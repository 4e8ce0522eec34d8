"""What the command line prints is what was computed (issue 35, items 12-15): the ranker in
the loop reports its own validation scores, the conventions go by their current names, and the
small items of the issue's lists 14 and 15."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import rankselect
from rankselect.cli import main
from rankselect.methods import METHODS


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(35)
    folder = tmp_path_factory.mktemp("cli35")
    paths = []
    for name, n_q in (("train", 16), ("vali", 10)):
        m, n = n_q * 8, 6
        X = rng.random((m, n))
        y = np.clip(np.round(2 * X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(scale=0.3, size=m)), 0, 2)
        qid = np.repeat(np.arange(1, n_q + 1), 8)
        path = folder / f"{name}.txt"
        rankselect.save_letor(path, rankselect.RankingData(X, y, qid))
        paths.append(str(path))
    return paths


def _loop_json(capsys, args):
    assert main(args + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("method", ["forward", "rfe"])
def test_ranker_in_the_loop_prints_the_rankers_own_scores(files, capsys, method):
    train, vali = files
    args = ["select", "--method", method, "--ranker", "rankrls", "-k", "3", train, "--vali", vali]
    out = _loop_json(capsys, args)
    # the same selector fitted through the library: its path_ is what the CLI prints
    est = METHODS[method].build(ranker="rankrls", n_features_to_select=3)
    v = rankselect.load_letor(vali, n_features=6)
    t = rankselect.load_letor(train)
    est.set_params(validation=(v.X, v.y, v.qid)).fit(t.X, t.y, qid=t.qid)
    path = est.path_
    assert out["score_name"] == "vali ndcg@10" and out["score_convention"] == "exponential"
    assert [s["score"] for s in out["path"]] == pytest.approx(path.scores.tolist(), rel=1e-12)
    assert [s["ci_low"] for s in out["path"]] == pytest.approx(path.ci_low.tolist(), rel=1e-12)
    assert out["selected_features"] == [j + 1 for j in est.selected_features_]
    last = out["scores"][-1]  # the selected subset is on the path: its score is the last row's
    step = [frozenset(f) for f in path.features].index(frozenset(est.selected_features_.tolist()))
    assert last == pytest.approx(path.scores[step], rel=1e-12)
    assert out["score_ci"][-1] == pytest.approx([path.ci_low[step], path.ci_high[step]], rel=1e-12)
    assert "validation" not in out  # no linear model is fitted on the side
    # the table shows the same numbers and says what they are
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "ranker's own score" in text and "95% CI" in text
    assert f"{path.scores[step]:.6g}" in text


def test_ranker_in_the_loop_without_vali_reports_the_query_folds(files, capsys):
    out = _loop_json(capsys, ["select", "--method", "forward", "--ranker", "rankrls", "-k", "2", files[0]])
    assert out["score_name"] == "cv ndcg@10"
    assert all(s is not None for s in out["scores"]) and len(out["path"]) >= 2


def test_lightgbm_in_the_loop_prints_lightgbm_scores(files, capsys):
    pytest.importorskip("lightgbm")
    train, vali = files
    args = ["select", "--method", "forward", "--ranker", "lightgbm", "-k", "2", train, "--vali", vali, "--seed", "0"]
    out = _loop_json(capsys, args)
    est = METHODS["forward"].build(ranker="lightgbm", n_features_to_select=2, random_state=0)
    v, t = rankselect.load_letor(vali, n_features=6), rankselect.load_letor(train)
    est.set_params(validation=(v.X, v.y, v.qid)).fit(t.X, t.y, qid=t.qid)
    assert [s["score"] for s in out["path"]] == pytest.approx(est.path_.scores.tolist(), rel=1e-9)
    assert out["scores"][-1] is not None


def test_select_help_says_what_the_loop_scores_are(capsys):
    with pytest.raises(SystemExit):
        main(["select", "--help"])
    assert "ranker's own scores" in capsys.readouterr().out


# ------------------------------------------------------------------ conventions (item 13)

@pytest.mark.parametrize("cmd", ["evaluate", "train"])
def test_current_convention_names_and_trec_lightgbm(files, capsys, tmp_path, cmd):
    train, vali = files
    scores = tmp_path / "s.txt"
    np.savetxt(scores, np.arange(len(rankselect.load_letor(vali).y), dtype=float))
    head = ["evaluate", vali, "--scores", str(scores)] if cmd == "evaluate" else ["train", train, "--test", vali]
    assert main(head) == 0
    text = capsys.readouterr().out
    assert "standard" not in text and "exponential" in text
    assert main(head + ["--convention", "trec,lightgbm", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    tables = out if cmd == "evaluate" else out["test"]
    assert "trec" in tables and "lightgbm" in tables and "standard" not in tables
    # the old name still works, with a warning, and prints the current one
    assert main(head + ["--convention", "standard"]) == 0
    cap = capsys.readouterr()
    assert "deprecated" in cap.err and "exponential" in cap.out and "standard" not in cap.out
    assert main(head + ["--convention", "bogus"]) == 2


def test_select_json_names_the_current_convention(files, capsys):
    assert main(["select", "--method", "greedy-rankrls", "-k", "2", files[0], "--vali", files[1],
                 "--convention", "trec", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["validation_convention"] == "trec"


def test_metric_defaults_are_current_names():
    import inspect

    from rankselect.metrics.checks import CURRENT_CONVENTIONS

    for f in (rankselect.metrics.ndcg, rankselect.metrics.evaluate, rankselect.metrics.make_scorer):
        assert inspect.signature(f).parameters["convention"].default == CURRENT_CONVENTIONS[0] == "exponential"


# ------------------------------------------------------------------ items 14 and 15

def test_experiment_help_lists_every_method(capsys):
    with pytest.raises(SystemExit):
        main(["experiment", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    listed = text.split("Methods: ", 1)[1].split(". Fixed options", 1)[0].split(", ")
    assert listed == list(METHODS)


def test_bad_simd_level_is_one_line_and_exit_2():
    env = {**os.environ, "RANKSELECT_SIMD": "bogus"}
    r = subprocess.run([sys.executable, "-m", "rankselect", "info"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "RANKSELECT_SIMD" in r.stderr and "Traceback" not in r.stderr
    # the library itself still raises (no exit from an import)
    r = subprocess.run([sys.executable, "-c", "import rankselect"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 1 and "ValueError" in r.stderr


def test_fsmrank_costs_with_k_names_what_is_wrong(files, capsys, tmp_path):
    costs = tmp_path / "c.csv"
    costs.write_text("\n".join(["1"] * 6))
    assert main(["select", "--method", "fsmrank", "-k", "2", "--costs", str(costs), files[0]]) == 2
    err = capsys.readouterr().err
    assert "--C" not in err and "fsmrank takes no feature costs" in err


def test_json_keeps_the_parameters_of_sparse_and_budget_runs(files, capsys, tmp_path):
    assert main(["select", "--method", "sparse-ranksvm", "-k", "2", files[0], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["C"] > 0  # the C that -k chose
    costs = tmp_path / "c.csv"
    costs.write_text("1\n2\n1\n1\n3\n1\n")
    assert main(["select", "--method", "greedy-rankrls", "-k", "3", "--costs", str(costs), "--budget", "3",
                 files[0], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["budget"] == 3.0 and out["params"]["feature_costs"] == [1, 2, 1, 1, 3, 1]
    assert out["costs_file"] == str(costs)


@pytest.mark.parametrize("bad", ["inf", "nan", "1.5"])
def test_costs_with_a_bad_feature_number_name_the_file_and_line(files, capsys, tmp_path, bad):
    costs = tmp_path / "c.csv"
    costs.write_text("feature,cost\n1,1\n" + f"{bad},2\n")
    assert main(["select", "--method", "greedy-rankrls", "-k", "2", "--costs", str(costs), files[0]]) == 2
    err = capsys.readouterr().err
    assert f"{costs}: line 3: feature number {bad}" in err and "convert" not in err


def test_train_help_shows_one_default(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default 1 / n_features) (default" not in text and "(default 1 / n_features)" in text


@pytest.fixture(scope="module")
def fold_layout(tmp_path_factory):
    root = tmp_path_factory.mktemp("folds")
    for k in range(1, 6):
        (root / f"Fold{k}").mkdir()
        for split in ("train", "vali", "test"):
            rankselect.save_letor(root / f"Fold{k}" / f"{split}.txt", rankselect.data.datasets.load_example(split))
    return str(root)


@pytest.mark.parametrize("with_out", [True, False])
def test_ctrl_c_in_experiment_keeps_the_finished_folds(fold_layout, capsys, tmp_path, monkeypatch, with_out):
    from rankselect.protocol import runner

    real, calls = runner._run_method, []

    def interrupted_in_fold_3(fold, *args, **kwargs):
        calls.append(fold.name)
        if fold.name == "Fold3":
            raise KeyboardInterrupt
        return real(fold, *args, **kwargs)

    monkeypatch.setattr(runner, "_run_method", interrupted_in_fold_3)
    out = tmp_path / "out"
    args = ["experiment", fold_layout, "--method", "rankrls", "--grid", "rankrls:alpha=1", "--quiet"]
    assert main(args + (["--out", str(out)] if with_out else [])) == 130
    cap = capsys.readouterr()
    assert "fold(s) 1,2 finished" in cap.err and "--folds 3,4,5" in cap.err
    if with_out:
        saved = json.loads((out / "experiment.json").read_text())
        assert len(saved["folds"]) == 2
    else:
        assert "rankrls" in cap.out  # the table of the finished folds


def test_fista_with_k_walks_the_path_with_prox_newton(files, capsys):
    assert main(["select", "--method", "sparse-ranksvm", "--solver", "fista", "-k", "2", files[0], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "path walked with solver prox-newton, the model fitted with fista" in out["note"]
    assert out["params"]["solver"] == "fista"
