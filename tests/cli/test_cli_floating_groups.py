"""``rankselect select --method greedy-rankrls --floating yes`` with groups (issue 38): floating
search over whole groups from the command line, the same subset as the estimator's."""
from __future__ import annotations

import json

import numpy as np

import rankselect as rs
from conftest import shared_path


def test_select_floating_over_groups(capsys):
    from rankselect.cli import main

    train = shared_path("MQ2008", "Fold1", "train.txt")
    assert main(["select", "--method", "greedy-rankrls", "-k", "3", "--alpha", "1", "--floating", "yes",
                 "--layout", "letor4:stream", str(train), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    d = rs.load_letor(train)
    groups = rs.data.datasets.feature_layout("letor4", by="stream")
    est = rs.GreedyRankRLS(3, alpha=1.0, floating=True, feature_groups=groups).fit(
        np.asarray(d.X), np.asarray(d.y), qid=np.asarray(d.qid))
    assert [f - 1 for f in out["selected_features"]] == est.selected_features_.tolist()
    assert len(est.best_subsets_) == 3 and len(est.selected_groups_) == 3


def test_floating_with_group_costs_is_refused(tmp_path, capsys):
    from rankselect.cli import main

    train = shared_path("MQ2008", "Fold1", "train.txt")
    groups = tmp_path / "groups.csv"
    groups.write_text("".join(f"{j},{'a' if j <= 23 else 'b'},{1 + (j > 23)}\n" for j in range(1, 47)))
    assert main(["select", "--method", "greedy-rankrls", "-k", "1", "--floating", "yes", "--groups", str(groups),
                 str(train)]) != 0
    assert "floating=True is not available with group_costs" in capsys.readouterr().err
