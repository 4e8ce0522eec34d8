"""Cost-quality paths and the Pareto front with feature families (issue 33): the cost of a
prefix counts each touched group once; both views are reported."""
import numpy as np

import rankselect as rs
from rankselect.analysis.costs import cost_quality_path


def test_prefix_cost_counts_each_group_once():
    train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    n = train.n_features
    labels = [f"g{j // 3}" for j in range(n)]
    groups = rs.data.check_feature_groups(labels, n)
    gc = np.arange(1.0, groups.n_groups + 1)
    sel = rs.GreedyRankRLS(n_features_to_select=4, feature_groups=labels, select_groups=False).fit(*train)
    path = cost_quality_path(sel, vali, np.ones(n), groups=labels, group_costs=gc)
    ext = rs.data.ExtractionCosts(np.ones(n), groups, gc)
    for f, t, own, paid in zip(path.features, path.total_cost, path.feature_cost, path.groups_paid):
        assert t == ext.total(f) and own == len(f)
        assert paid == [groups.names[g] for g in groups.groups_of(f)]
    assert list(path.pareto) == list(rs.analysis.costs.pareto_front(path.total_cost, path.score))


def test_whole_group_path():
    train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    n = train.n_features
    labels = [f"g{j // 4}" for j in range(n)]
    sel = rs.GreedyRankRLS(n_features_to_select=2, feature_groups=labels).fit(*train)
    path = cost_quality_path(sel, vali, np.zeros(n), groups=labels, group_costs=np.ones(len(set(labels))))
    assert list(path.total_cost) == [1.0, 2.0]
    assert [len(p) for p in path.groups_paid] == [1, 2]
