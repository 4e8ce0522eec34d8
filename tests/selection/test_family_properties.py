"""Properties of the feature-family code (issue 40), drawn by hypothesis: singleton groups
select as no groups, a group's extraction cost is paid once, and whole groups go in and out of
every selection."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankselect as rs
from rankselect.analysis.costs import fits_budget
from rankselect.data import ExtractionCosts, check_feature_groups
from rankselect.selection import FitPlan

FAST = settings(max_examples=12, deadline=None)


def _problem(seed: int, n_features: int, n_queries: int = 7):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 8, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, n_features))
    w = rng.normal(size=n_features)
    y = np.digitize(X @ w + 0.5 * rng.normal(size=qid.size), [-0.5, 0.7]).astype(float)
    return X, y, qid


problems = st.builds(_problem, st.integers(0, 2**16), st.integers(3, 6))


@st.composite
def partitions(draw, n_features: int):
    """A label per feature (every label used), the groups in a random order."""
    k = draw(st.integers(1, n_features))
    labels = list(range(k)) + draw(st.lists(st.integers(0, k - 1), min_size=n_features - k, max_size=n_features - k))
    order = draw(st.permutations(range(n_features)))
    return [f"g{labels[j]}" for j in order]


# -- singleton groups equal no groups ---------------------------------------------------------

SINGLETON_SELECTORS = {
    "GAS": lambda **kw: rs.GAS(2, **kw),
    "NGAS": lambda **kw: rs.NGAS(2, **kw),
    "XGAS": lambda **kw: rs.XGAS(2, c=0.5, **kw),
    "HCAS": lambda **kw: rs.HCAS(2, **kw),
    "GreedyRankRLS": lambda **kw: rs.GreedyRankRLS(2, **kw),
    "FSMSVM": lambda **kw: rs.FSMSVM(2, lambda2=1e-3, max_iter=100, **kw),
    "ForwardSelection": lambda **kw: rs.ForwardSelection(rs.RankRLS(), n_features_to_select=2, cv=2,
                                                         random_state=0, **kw),
    "RecursiveElimination": lambda **kw: rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=2, cv=2,
                                                                 random_state=0, **kw),
}


@pytest.mark.parametrize("name", sorted(SINGLETON_SELECTORS))
@FAST
@given(data=problems)
def test_singleton_groups_select_as_no_groups(name, data):
    X, y, qid = data
    make = SINGLETON_SELECTORS[name]
    plain = make().fit(X, y, qid=qid)
    singletons = make(feature_groups=[f"f{j}" for j in range(X.shape[1])]).fit(X, y, qid=qid)
    assert singletons.selected_features_.tolist() == plain.selected_features_.tolist()
    assert list(singletons.selected_groups_) == [f"f{j}" for j in plain.selected_features_]


@pytest.mark.parametrize("name", ["GAS", "NGAS", "HCAS", "ForwardSelection"])
@FAST
@given(data=problems, seed=st.integers(0, 2**16))
def test_singleton_group_costs_are_feature_costs(name, data, seed):
    """A singleton group's extraction cost is one more feature cost."""
    X, y, qid = data
    costs = np.random.default_rng(seed).uniform(0.5, 3.0, X.shape[1])
    budget = float(np.sort(costs)[:2].sum()) + 0.1
    make = SINGLETON_SELECTORS[name]
    by_feature = make(feature_costs=costs, budget=budget).fit(X, y, qid=qid)
    by_group = make(feature_groups=[f"f{j}" for j in range(X.shape[1])], group_costs=costs, budget=budget,
                    feature_costs=np.zeros(X.shape[1])).fit(X, y, qid=qid)
    assert by_group.selected_features_.tolist() == by_feature.selected_features_.tolist()


# -- a group's cost is paid once --------------------------------------------------------------


@FAST
@given(n=st.integers(2, 8), seed=st.integers(0, 2**16), data=st.data())
def test_a_group_cost_is_paid_once(n, seed, data):
    labels = data.draw(partitions(n))
    g = check_feature_groups(labels, n)
    rng = np.random.default_rng(seed)
    fc, gc = rng.uniform(0, 2, n), rng.uniform(0, 5, g.n_groups)
    costs = ExtractionCosts(fc, g, gc)
    order = data.draw(st.permutations(range(n)))
    subset = order[: data.draw(st.integers(0, n))]
    touched = {int(g.index[j]) for j in subset}
    assert costs.total(subset) == pytest.approx(fc[subset].sum() + sum(gc[t] for t in touched))
    # adding features one by one: the marginal costs add up to the total (each group paid by
    # its first member only)
    paid = [costs.marginal(subset[:i])[subset[i]] for i in range(len(subset))]
    assert sum(paid) == pytest.approx(costs.total(subset))
    # the plan prices units the same way
    plan = FitPlan.of(rs.GAS(1, feature_groups=labels, feature_costs=fc, group_costs=gc), None, n)
    units = plan.units_of(subset)
    assert plan.cost(plan.columns(units)) == pytest.approx(sum(costs.group_total(u) for u in units))
    # removing a whole group saves its members' costs and its extraction cost
    assert plan.saved(units) == pytest.approx([costs.group_total(u) for u in units])


BUDGET_SELECTORS = {
    "GAS": lambda **kw: rs.GAS(8, **kw),
    "NGAS": lambda **kw: rs.NGAS(8, **kw),
    "XGAS": lambda **kw: rs.XGAS(8, c=0.5, **kw),
    "HCAS": lambda **kw: rs.HCAS(8, **kw),
    "ForwardSelection": lambda **kw: rs.ForwardSelection(rs.RankRLS(), cv=2, random_state=0, **kw),
}


@pytest.mark.parametrize("name", sorted(BUDGET_SELECTORS))
@pytest.mark.parametrize("select_groups", [False, True])
@FAST
@given(data=problems, seed=st.integers(0, 2**16), draw=st.data())
def test_selections_fit_the_budget_with_each_group_paid_once(name, select_groups, data, seed, draw):
    X, y, qid = data
    n = X.shape[1]
    labels = draw.draw(partitions(n))
    g = check_feature_groups(labels, n)
    rng = np.random.default_rng(seed)
    fc, gc = rng.uniform(0, 1, n), rng.uniform(0.5, 3, g.n_groups)
    costs = ExtractionCosts(fc, g, gc)
    cheapest = min(costs.group_total(u) for u in range(g.n_groups)) if select_groups else costs.marginal([]).min()
    budget = float(cheapest) + float(rng.uniform(0, 4))
    make = BUDGET_SELECTORS[name]
    k = {"n_features_to_select": min(8 if name != "ForwardSelection" else 3, g.n_groups if select_groups else n)}
    sel = make(feature_groups=labels, select_groups=select_groups, feature_costs=fc, group_costs=gc,
               budget=budget).set_params(**k).fit(X, y, qid=qid)
    assert fits_budget(costs.total(sel.selected_features_), budget)


# -- whole groups in and out --------------------------------------------------------------------

GROUP_SELECTORS = {
    "GAS": lambda **kw: rs.GAS(2, **kw),
    "GAS-joint": lambda **kw: rs.GAS(2, group_importance="joint", **kw),
    "NGAS": lambda **kw: rs.NGAS(2, **kw),
    "XGAS": lambda **kw: rs.XGAS(2, **kw),
    "HCAS": lambda **kw: rs.HCAS(2, **kw),
    "GreedyRankRLS": lambda **kw: rs.GreedyRankRLS(2, **kw),
    "FSMSVM": lambda **kw: rs.FSMSVM(2, lambda2=1e-3, max_iter=100, **kw),
    "SparseRankSVM": lambda **kw: rs.SparseRankSVM(C=0.5, penalty="group_lasso", solver="fista", max_iter=300,
                                                   **kw),
    "StabilitySelection": lambda **kw: rs.StabilitySelection(rs.GAS(2), n_resamples=3, threshold=0.3,
                                                             random_state=0, **kw),
    "ForwardSelection": lambda **kw: rs.ForwardSelection(rs.RankRLS(), n_features_to_select=2, cv=2,
                                                         random_state=0, **kw),
    "RecursiveElimination": lambda **kw: rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=1, cv=2,
                                                                 random_state=0, **kw),
}


def _whole(features, g) -> bool:
    """``features`` is a union of whole groups of ``g``."""
    mask = np.zeros(g.n_features, dtype=bool)
    mask[np.asarray(features, dtype=np.intp)] = True
    return all(mask[g.members(t)].all() for t in set(g.index[mask].tolist()))


@pytest.mark.parametrize("name", sorted(GROUP_SELECTORS))
@FAST
@given(data=problems, draw=st.data())
def test_whole_groups_in_and_out(name, data, draw):
    X, y, qid = data
    labels = draw.draw(partitions(X.shape[1]))
    g = check_feature_groups(labels, X.shape[1])
    make = GROUP_SELECTORS[name]
    if name in ("GAS", "GAS-joint", "NGAS", "XGAS", "HCAS", "GreedyRankRLS", "FSMSVM", "ForwardSelection"):
        make = (lambda m: lambda **kw: m(**kw).set_params(n_features_to_select=min(2, g.n_groups)))(make)
    sel = make(feature_groups=labels).fit(X, y, qid=qid)
    assert _whole(sel.selected_features_, g)
    assert _whole(np.flatnonzero(sel.get_support()), g)
    path = getattr(sel, "path_", None)
    if path is not None:  # every subset scored, and every change, is whole groups
        for step in range(len(path)):
            assert _whole(path.features[step], g)
            assert _whole(path.added[step], g) and _whole(path.removed[step], g)
