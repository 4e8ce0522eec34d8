"""The command line's findings of issue 40: every command computes a result, then prints it
(text or --json, the same numbers); whole-group steps indexed by step; one-line errors that
name the option; totals as written."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect
from rankselect.cli import main
from rankselect.data.datasets import feature_layout


@pytest.fixture(scope="module")
def letor46(tmp_path_factory):
    """Train and validation files with LETOR 4.0's 46 features (for --layout letor4)."""
    rng = np.random.default_rng(40)
    folder = tmp_path_factory.mktemp("letor46")
    paths = []
    for name, n_q in (("train", 30), ("vali", 12)):
        m = n_q * 8
        X = rng.random((m, 46))
        y = np.clip(np.round(2 * X[:, 2] + X[:, 8] - X[:, 21] + rng.normal(scale=0.3, size=m)), 0, 2)
        path = folder / f"{name}.txt"
        rankselect.save_letor(path, rankselect.RankingData(X, y, np.repeat(np.arange(1, n_q + 1), 8)))
        paths.append(str(path))
    groups = folder / "groups.csv"  # the layout by stream, with a cost per group
    layout = feature_layout("letor4", by="stream")
    costs = {name: 1.1 * (g + 1) for g, name in enumerate(layout.names)}
    groups.write_text("feature,group,cost\n" + "".join(
        f"{j + 1},{layout.names[g]},{costs[layout.names[g]]}\n" for j, g in enumerate(layout.index)))
    return paths[0], paths[1], str(groups)


def _json(capsys, args):
    assert main(args + ["--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("extra", [["--layout", "letor4:stream"], ["--groups", "GROUPS"],
                                   ["--groups", "GROUPS", "--budget", "20"]])
def test_greedy_whole_groups_with_vali_scores_each_group_step(letor46, capsys, extra):
    train, vali, groups = letor46
    extra = [groups if a == "GROUPS" else a for a in extra]
    args = ["select", "--method", "greedy-rankrls", "-k", "3", *extra, train, "--vali", vali]
    out = _json(capsys, args)
    steps = out["steps"]
    n_steps = steps[-1]
    assert 1 <= n_steps <= 3 and len(out["selected_groups"]) == n_steps
    # one score and one validation pair per group step, on the step's last row
    last = [i for i in range(len(steps)) if i + 1 == len(steps) or steps[i + 1] != steps[i]]
    assert [i for i, s in enumerate(out["scores"]) if s is not None] == last
    assert [i for i, v in enumerate(out["validation"]) if v is not None] == last
    # they are the library's: the model of step s is coef_path_[s]
    t, v = rankselect.load_letor(train), rankselect.load_letor(vali, n_features=46)
    layout = feature_layout("letor4", by="stream")
    est = rankselect.GreedyRankRLS(n_features_to_select=3, feature_groups=layout,
                                   budget=20 if "--budget" in extra else None,
                                   group_costs=[1.1 * (g + 1) for g in range(layout.n_groups)]
                                   if "--groups" in extra else None).fit(t.X, t.y, qid=t.qid)
    assert out["selected_features"] == [j + 1 for j in est.selected_features_]
    for s, i in enumerate(last):
        expected = rankselect.metrics.ndcg(v.y, v.X @ est.coef_path_[s], v.qid, k=10)
        assert out["validation"][i]["NDCG@10"] == pytest.approx(expected, rel=1e-12)
    assert main(args) == 0  # the table too, no IndexError
    text = capsys.readouterr().out
    assert f"in {n_steps} step" in text and "whole groups" in text


def test_sparse_ranksvm_takes_the_groups_or_says_why_not(letor46, capsys):
    train, _, _ = letor46
    # features with groups as labels: -k counts features, each row names its group
    out = _json(capsys, ["select", "--method", "sparse-ranksvm", "-k", "2", "--layout", "letor4:stream",
                         "--no-select-groups", train])
    names = feature_layout("letor4", by="stream").names
    assert len(out["selected_features"]) <= 2 and all(g in names for g in out["groups"])
    assert out["selected_groups"] == list(dict.fromkeys(out["groups"]))
    # whole groups with a penalty that selects features: one line naming the option to use
    for extra in (["-k", "2"], []):
        assert main(["select", "--method", "sparse-ranksvm", *extra, "--layout", "letor4:stream", train]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--no-select-groups" in err and "select_groups" not in err
        assert "--penalty l1 selects features" in err  # the option, not the Python keyword


def test_a_method_typo_is_one_line_with_the_closest_method(letor46, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["select", "--method", "greedy-rankrl", letor46[0]])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage" not in err
    assert "did you mean 'greedy-rankrls'?" in err and "forward" in err  # the choices


def test_other_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["select", "--method", "gas"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TRAIN" in err and "rankselect select --help" in err


@pytest.mark.parametrize("option", ["--groups", "--costs"])
def test_a_missing_file_names_the_option_and_the_file(letor46, capsys, tmp_path, option):
    missing = tmp_path / "no_such.csv"
    assert main(["select", "--method", "greedy-rankrls", option, str(missing), letor46[0]]) == 2
    err = capsys.readouterr().err
    assert f"{option} {missing}: No such file or directory" in err and "Errno" not in err


def test_a_missing_scores_file_names_the_file(letor46, capsys, tmp_path):
    assert main(["evaluate", letor46[0], "--scores", str(tmp_path / "none.txt")]) == 2
    err = capsys.readouterr().err
    assert "none.txt: No such file or directory" in err and "Errno" not in err


@pytest.mark.parametrize("layout,says", [("letor4:streem", "unknown grouping 'streem'"),
                                         ("letor5:stream", "unknown layout 'letor5'")])
def test_a_bad_layout_names_the_option(letor46, capsys, layout, says):
    assert main(["select", "--method", "gas", "--layout", layout, letor46[0]]) == 2
    err = capsys.readouterr().err
    assert f"--layout {layout}: {says}" in err and "by must" not in err


def test_total_cost_is_the_sum_as_written(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.random((60, 2))
    y = np.clip(np.round(2 * X[:, 0] + X[:, 1]), 0, 2)
    train = tmp_path / "train.txt"
    rankselect.save_letor(train, rankselect.RankingData(X, y, np.repeat(np.arange(6), 10)))
    costs = tmp_path / "costs.csv"
    costs.write_text("0.1\n0.2\n")
    assert 0.1 + 0.2 == 0.2 + 0.1 == 0.30000000000000004  # the float sum, in either order
    args = ["select", "--method", "greedy-rankrls", "-k", "2", "--costs", str(costs), "--budget", "0.3", str(train)]
    out = _json(capsys, args)
    assert out["total_cost"] == 0.3 and len(out["selected_features"]) == 2
    assert main(args) == 0
    assert "# total cost 0.3 (budget 0.3)\n" in capsys.readouterr().out


def test_redundancy_json_numbers_features_as_numbers(letor46, capsys):
    out = _json(capsys, ["redundancy", letor46[0], "--threshold", "0.01"])
    cluster = out["clusters"][0]
    assert all(isinstance(j, int) for j in cluster["features"]) and isinstance(cluster["representative"], int)
    assert cluster["names"] == [str(j) for j in cluster["features"]]


def test_demo_errors_print_no_header(capsys):
    for args, says in ((["-k", "0"], "-k must be >= 1"), (["--alpha", "-1"], "--alpha must be")):
        assert main(["demo", *args]) == 2
        cap = capsys.readouterr()
        assert cap.out == "" and cap.err.count("\n") == 1 and says in cap.err


def test_help_lists_the_criteria_and_the_models(capsys):
    with pytest.raises(SystemExit):
        main(["select", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    criterion = text.split("--criterion CRITERION greedy-rankrls:", 1)[1].split("(default", 1)[0]
    for name in ("squared", "ndcg@k", "map", "err@k"):
        assert name in criterion
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the ranking model: ranksvm" in text


def test_every_criterion_the_help_names_is_accepted(letor46):
    from rankselect.methods import CRITERIA

    t = rankselect.load_letor(letor46[0])
    for name in CRITERIA:
        name = name.replace("@k", "@5")
        est = rankselect.GreedyRankRLS(n_features_to_select=1, criterion=name).fit(t.X[:, :4], t.y, qid=t.qid)
        assert est.criterion == name
