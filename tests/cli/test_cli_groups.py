"""``rankselect select --groups FILE [--no-select-groups] --budget B`` and ``--layout`` (issue 33):
the selected features, their groups and both cost levels, in the table and in --json."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rankselect
from rankselect.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(4)
    m, n = 240, 6
    X = rng.random((m, n))
    y = np.clip(np.round(2 * X[:, 0] + X[:, 3] - X[:, 4] + rng.normal(scale=0.3, size=m)), 0, 2)
    qid = np.repeat(np.arange(1, 25), 10)
    d = tmp_path_factory.mktemp("groups")
    rankselect.save_letor(d / "train.txt", rankselect.RankingData(X, y, qid))
    (d / "groups.csv").write_text("feature,group,cost\n1,a,2\n2,a,2\n3,b,3\n4,b,3\n5,c,1\n6,c,1\n")
    return str(d / "train.txt"), str(d / "groups.csv")


def test_whole_groups_json(files, capsys):
    train, groups = files
    assert main(["select", "--method", "greedy-rankrls", "-k", "2", "--groups", groups, train, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["selected_groups"]) == 2
    assert len(out["selected_features"]) == 4
    assert list(dict.fromkeys(out["groups"])) == out["selected_groups"]  # each feature's group, in order
    costs = {"a": 2, "b": 3, "c": 1}
    assert out["total_cost"] == sum(costs[g] for g in out["selected_groups"])
    assert out["feature_cost"] == 0.0 and out["groups_paid"] == out["selected_groups"]


def test_feature_level_budget_pays_each_group_once(files, capsys):
    train, groups = files
    assert main(["select", "--method", "greedy-rankrls", "-k", "6", "--groups", groups, "--no-select-groups",
                 "--budget", "3", train, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total_cost"] <= 3.0
    # each group paid once: the total is the sum of the groups paid for
    costs = {"a": 2, "b": 3, "c": 1}
    assert out["total_cost"] == sum(costs[g] for g in out["groups_paid"])


def test_table_and_layout(files, capsys):
    train, groups = files
    assert main(["select", "--method", "greedy-rankrls", "-k", "1", "--groups", groups, train]) == 0
    text = capsys.readouterr().out
    assert "group" in text and "groups paid for" in text
    assert main(["select", "--method", "greedy-rankrls", "-k", "1", "--layout", "letor4:stream", train]) == 2
    assert "describes 46 features" in capsys.readouterr().err


def test_a_group_cost_for_a_method_that_prices_nothing_is_refused(files, tmp_path, capsys):
    """SparseRankSVM, FSMRank, FSMSVM take no group_costs (issue 40): a cost column in --groups
    is an error naming the method, not a silent no-op; a file without costs works."""
    train, groups = files
    args = ["select", "--method", "fsmrank", "--no-select-groups", train, "--json", "--groups"]
    assert main(args + [groups]) == 2
    assert "uses no costs" in capsys.readouterr().err
    plain = tmp_path / "plain.csv"
    plain.write_text("feature,group\n1,a\n2,a\n3,b\n4,b\n5,c\n6,c\n")
    assert main(args + [str(plain)]) == 0
    assert json.loads(capsys.readouterr().out)["selected_groups"]


@pytest.mark.parametrize("penalty", ["group_lasso", "sparse_group_lasso"])
def test_sparse_ranksvm_offers_the_group_penalties(files, tmp_path, capsys, penalty):
    """Issue 40: ``--penalty`` offers the group lasso; with ``--groups`` it keeps whole families
    (a group file without costs: SparseRankSVM prices nothing)."""
    train, _ = files
    groups = tmp_path / "plain.csv"
    groups.write_text("feature,group\n1,a\n2,a\n3,b\n4,b\n5,c\n6,c\n")
    groups = str(groups)
    assert main(["select", "--method", "sparse-ranksvm", "--penalty", penalty, "--solver", "fista", "--C", "0.05",
                 "--groups", groups, train, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["penalty"] == penalty and out["selected_groups"]
    if penalty == "group_lasso":  # whole families: every member of a selected group
        assert len(out["selected_features"]) == 2 * len(out["selected_groups"])
    assert main(["select", "--method", "sparse-ranksvm", "--penalty", penalty, "--groups", groups, train]) == 2
    assert "--solver fista" in capsys.readouterr().err
