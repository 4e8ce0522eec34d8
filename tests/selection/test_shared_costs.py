"""Shared extraction costs at feature level (issue 33): every budgeted rule compares the
marginal cost (the first member of a group pays its cost) and budgets the total; free
candidates are ranked by their gain (issue 35, item 3)."""
import numpy as np
import pytest

import rankselect as rs
from rankselect.data import ExtractionCosts, check_feature_groups
from rankselect.selection import hcas_select, ngas_select, xgas_select
from rankselect.selection.gas import gas_greedy

W = np.array([0.9, 0.8, 0.7, 0.6])
S = np.array([[1., .1, .2, .1], [.1, 1., .1, .2], [.2, .1, 1., .1], [.1, .2, .1, 1.]])
GROUPS = check_feature_groups(["a", "a", "b", "b"], n_features=4)


def _costs(a, b):
    return ExtractionCosts(np.zeros(4), GROUPS, np.array([a, b]))


@pytest.mark.parametrize("select", [
    lambda c, b: ngas_select(W, S, 4, costs=c, budget=b),
    lambda c, b: xgas_select(W, S, 4, c=0.5, costs=c, budget=b),
    lambda c, b: gas_greedy(W, S, 4, c=0.01, costs=c, budget=b)[0],
])
def test_group_cost_paid_once_in_the_greedy_filters(select):
    # a budget of 1.5 admits group a's cost (1) once, not twice: both members fit
    assert sorted(select(_costs(1.0, 5.0), 1.5).tolist()) == [0, 1]
    # a second group is refused when its extraction cost would exceed the budget
    assert sorted(select(_costs(1.0, 1.0), 1.5).tolist()) == [0, 1]
    assert sorted(select(_costs(1.0, 1.0), 2.0).tolist()) == [0, 1, 2, 3]


def test_hcas_pays_each_group_once():
    out = hcas_select(W, S, 4, costs=_costs(1.0, 5.0), budget=1.5)
    assert sorted(out.tolist()) == [0, 1]


def test_budget_on_the_total():
    c = _costs(1.0, 2.0)
    assert c.total([0, 1]) == 1.0 and c.total([0, 2]) == 3.0
    assert c.marginal([0]).tolist() == [0.0, 0.0, 2.0, 2.0]


lightgbm = pytest.importorskip("lightgbm")


def test_forward_free_candidates_by_gain():
    tr, va = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")

    def fwd(**kw):
        ranker = lightgbm.LGBMRanker(n_estimators=10, num_leaves=5, min_child_samples=5, verbose=-1, n_jobs=1)
        return rs.ForwardSelection(ranker, n_features_to_select=3, candidates=np.arange(8),
                                   validation=(va.X, va.y, va.qid), random_state=0, **kw).fit(tr.X, tr.y, tr.qid)

    free = fwd(feature_costs=np.zeros(tr.X.shape[1]))
    plain = fwd()
    assert free.selected_features_.tolist() == plain.selected_features_.tolist()
