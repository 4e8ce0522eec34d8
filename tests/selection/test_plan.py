"""One plan per fit (issue 40): groups of any origin checked once, the one value-per-unit-cost
rule, no parameter a selector cannot use, and fitted selectors that keep no training data."""
from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest
from test_every_selector_groups import SELECTORS as EVERY_SELECTOR

import rankselect as rs
from rankselect.data import FeatureGroups, check_feature_groups, check_group_costs, feature_groups
from rankselect.selection import FitPlan, value_per_cost
from rankselect.selection.filter_base import cost_ratio


def _data(n_queries=14, n=8, seed=40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 9, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    X = rng.normal(size=(qid.size, n))
    X[:, n - 1] = np.repeat(rng.normal(size=n_queries), sizes)  # constant within every query
    y = np.digitize(X[:, 0] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=qid.size), [-0.5, 0.8]).astype(float)
    return X, y, qid


X, Y, QID = _data()
LABELS = ["a", "a", "b", "b", "c", "c", "d", "q"]  # q: the query-level column alone


def _bad_groups() -> FeatureGroups:
    """A FeatureGroups whose index was changed after it was built (any origin: by hand, an old
    pickle): column 7 in group -1."""
    g = check_feature_groups(LABELS, X.shape[1])
    index = np.array(g.index)
    index[7] = -1
    object.__setattr__(g, "index", index)  # past the constructor's check
    return g


# -- FeatureGroups of any origin ------------------------------------------------------------


@pytest.mark.parametrize("names, index, error, match", [
    (("a", "b"), [0, -1], ValueError, "column 1 in group -1"),
    (("a", "b"), [0, 2], ValueError, "column 1 in group 2"),
    (("a", "b", "c"), [0, 1], ValueError, "group 'c' has no column"),
    (("a", "a"), [0, 1], ValueError, "names the group 'a' twice"),
    (("a", 3), [0, 1], TypeError, "must be a str"),
    (("a", "b"), [0.0, 1.0], TypeError, "integer group numbers"),
    (("a", "b"), [[0, 1]], ValueError, "1-D"),
])
def test_a_hand_built_feature_groups_is_checked(names, index, error, match):
    with pytest.raises(error, match=match):
        FeatureGroups(names, np.array(index))


def test_a_feature_groups_changed_after_construction_is_checked_again():
    g = check_feature_groups(LABELS, X.shape[1])
    assert not g.index.flags.writeable  # its index cannot be changed in place
    with pytest.raises(ValueError, match="feature_groups.index puts column 7 in group -1"):
        check_feature_groups(_bad_groups(), X.shape[1])


@pytest.mark.parametrize("make", [
    lambda g: rs.SparseRankSVM(C=0.1, penalty="group_lasso", solver="fista", feature_groups=g),
    lambda g: rs.GAS(2, feature_groups=g),
    lambda g: rs.NGAS(2, feature_groups=g, select_groups=False),
    lambda g: rs.ForwardSelection(rs.RankRLS(), n_features_to_select=1, feature_groups=g),
    lambda g: rs.StabilitySelection(rs.GAS(2), n_resamples=2, feature_groups=g),
], ids=["SparseRankSVM-group_lasso", "GAS", "NGAS", "ForwardSelection", "StabilitySelection"])
def test_bad_groups_are_a_clear_error_in_every_selector(make):
    # was: a Rust PanicException in the group lasso, a silently dropped column in GAS
    with pytest.raises(ValueError, match="group -1"):
        make(_bad_groups()).fit(X, Y, qid=QID)


def test_bad_groups_are_a_clear_error_in_permutation_importance():
    from rankselect.analysis.inspection import permutation_importance
    model = rs.RankRLS().fit(X, Y, qid=QID)
    with pytest.raises(ValueError, match="group -1"):
        permutation_importance(model, X, Y, QID, feature_groups=_bad_groups(), n_repeats=1)


def test_group_costs_that_overflow_are_refused():
    g = check_feature_groups(LABELS, X.shape[1])
    with pytest.raises(ValueError, match="overflows"):
        check_group_costs([1e308] * g.n_groups, g)
    with pytest.raises(ValueError, match="overflows"):
        check_group_costs({"a": 1e308, "b": 1e308}, g)
    # each sum finite, their total not
    with pytest.raises(ValueError, match="feature_costs and group_costs .* overflows"):
        rs.GAS(2, feature_groups=g, feature_costs=np.full(8, 1e307), group_costs=[1.5e308, 0, 0, 0, 0]).fit(X, Y, QID)


# -- one plan, one check ----------------------------------------------------------------------


#: every selector that takes groups (tests/selection/test_every_selector_groups.py), less the meta-selector
SELECTORS = {name: make for name, make in EVERY_SELECTOR.items() if name != "StabilitySelection"}


@pytest.fixture
def group_checks(monkeypatch):
    """The first argument of every call of the one groups check, wherever a module holds a
    reference to it."""
    calls = []
    original = feature_groups.check_feature_groups

    def counted(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith("rankselect"):
            for attr, value in list(vars(module).items()):
                if value is original:
                    monkeypatch.setattr(module, attr, counted)
    return calls


@pytest.mark.parametrize("name", sorted(SELECTORS) + ["StabilitySelection"])
def test_groups_are_checked_once_per_fit(name, group_checks):
    """The fit's ``feature_groups`` are checked once (4 times before the plan). (Recursive
    elimination's permutation importance also groups each round's columns: other groups.)"""
    select_groups = name != "FSMRank"  # FSMRank selects features
    groups = list(LABELS)
    make = SELECTORS.get(name, lambda **kw: rs.StabilitySelection(rs.GAS(2), n_resamples=3, random_state=0, **kw))
    make(feature_groups=groups, select_groups=select_groups).fit(X, Y, qid=QID)
    assert sum(arg is groups for arg in group_checks) == 1, name


def test_the_group_check_count_can_fail(group_checks):
    feature_groups.check_feature_groups(LABELS, 8)
    feature_groups.check_feature_groups(LABELS, 8)
    assert sum(arg is LABELS for arg in group_checks) == 2


@pytest.mark.parametrize("cls", [rs.SparseRankSVM, rs.FSMRank, rs.FSMSVM])
def test_group_costs_are_not_a_parameter_of_a_selector_that_prices_nothing(cls):
    # they had no effect (SparseRankSVM did not even check them)
    with pytest.raises(TypeError, match="group_costs"):
        cls(feature_groups=LABELS, group_costs=[1.0] * 5)
    assert "group_costs" not in cls().get_params()


def test_stability_selection_takes_no_group_costs():
    with pytest.raises(TypeError, match="group_costs"):
        rs.StabilitySelection(rs.GAS(2), feature_groups=LABELS, group_costs=[1.0] * 5)


def test_group_costs_need_feature_groups_said_once():
    from pathlib import Path
    package = Path(rs.__file__).parent
    where = [p.name for p in package.rglob("*.py") if "group_costs needs" in p.read_text()]
    assert where == ["feature_groups.py"]
    for make in (lambda: rs.GAS(2, group_costs=[1.0]), lambda: rs.HCAS(2, group_costs=[1.0]),
                 lambda: rs.ForwardSelection(rs.RankRLS(), group_costs=[1.0]),
                 lambda: rs.GreedyRankRLS(2, group_costs=[1.0], budget=3.0)):
        with pytest.raises(ValueError, match="group_costs needs feature_groups"):
            make().fit(X, Y, qid=QID)


def test_the_plan_of_a_fit():
    gas = rs.GAS(2, feature_groups=LABELS, group_costs={"a": 2.0, "q": 1.0}, budget=4.0)
    plan = FitPlan.of(gas, None, 8)
    assert plan.by_group and plan.n_units == 5 and plan.priced and plan.nonpositive == "scaled"
    assert plan.columns([4, 0]).tolist() == [7, 0, 1]
    assert plan.unit_costs.tolist() == [2.0, 0.0, 0.0, 0.0, 1.0]
    assert plan.marginal([0], [1, 4]).tolist() == [0.0, 1.0]
    assert plan.saved([0, 4]).tolist() == [2.0, 1.0]
    assert plan.unit_constant(np.arange(8) == 7).tolist() == [False, False, False, False, True]
    with pytest.raises(ValueError, match="counts groups .* n_groups = 5"):
        plan.n_to_select(6)
    with pytest.raises(ValueError, match="below the cheapest group's cost"):
        FitPlan.of(rs.GAS(2, feature_groups=LABELS, group_costs=[1.0] * 5, feature_costs=np.ones(8), budget=0.5),
                   None, 8)


# -- the value per unit cost ------------------------------------------------------------------


def test_the_one_value_per_cost_rule_and_its_conventions():
    gain = np.array([0.6, 0.2, 0.0, -0.1, -0.1, -0.2])
    cost = np.array([2.0, 0.0, 3.0, 3.0, 1.0, 0.0])
    assert value_per_cost(gain, cost).tolist() == [0.3, np.inf, 0.0, -0.1, -0.1, -0.2]
    assert value_per_cost(gain, cost, "scaled").tolist() == pytest.approx([0.3, np.inf, 0.0, -0.3, -0.1, 0.0])
    assert value_per_cost(gain, cost, "zero").tolist() == [0.3, np.inf, 0.0, 0.0, 0.0, 0.0]
    # GAS's rule is the "scaled" convention of the one rule
    assert cost_ratio(gain, cost).tolist() == value_per_cost(gain, cost, "scaled").tolist()
    with pytest.raises(ValueError, match="nonpositive"):
        value_per_cost(gain, cost, "divide")


def test_forward_selection_never_prefers_a_costlier_loss():
    """When no candidate improves, the smallest loss wins whatever it costs (greedy RankRLS's
    rule); dividing a loss by the cost preferred the costly candidate."""
    gain, cost = np.array([-0.01, -0.01]), np.array([10.0, 1.0])
    v = value_per_cost(gain, cost, "gain")
    assert v[0] == v[1]  # a tie, broken by the larger gain then the lower index, never by the cost


# -- uninformative groups in ForwardSelection --------------------------------------------------


def test_forward_selection_never_adds_a_group_constant_within_every_query():
    Xv, yv, qv = _data(seed=41)
    sel = rs.ForwardSelection(rs.RankRLS(), feature_groups=LABELS, validation=(Xv, yv, qv),
                              random_state=0).fit(X, Y, qid=QID)
    assert all("q" not in list(g) for g in sel.path_.groups)
    assert sel.path_.n_groups.max() == 4 and sel.stop_reason_ == "uninformative"
    fixed = rs.ForwardSelection(rs.RankRLS(), n_features_to_select=5, feature_groups=LABELS,
                                validation=(Xv, yv, qv), random_state=0).fit(X, Y, qid=QID)
    assert "q" not in list(fixed.selected_groups_) and len(fixed.selected_groups_) == 4
    assert fixed.stop_reason_ == "uninformative"
    full = rs.ForwardSelection(rs.RankRLS(), n_features_to_select=2, feature_groups=LABELS,
                               validation=(Xv, yv, qv), random_state=0).fit(X, Y, qid=QID)
    assert full.stop_reason_ is None and len(full.selected_groups_) == 2


def test_forward_selection_features_skip_query_level_columns():
    sel = rs.ForwardSelection(rs.RankRLS(), cv=3, random_state=0).fit(X, Y, qid=QID)
    assert 7 not in np.concatenate(sel.path_.features) and sel.stop_reason_ == "uninformative"


# -- fitted selectors keep no training data ---------------------------------------------------


def _subset(n_queries):
    keep = QID < n_queries
    return X[keep], Y[keep], QID[keep]


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_fitted_selectors_keep_no_private_state(name):
    select_groups = name != "FSMRank"
    sel = SELECTORS[name](feature_groups=LABELS, select_groups=select_groups).fit(X, Y, qid=QID)
    assert [k for k in vars(sel) if k.startswith("_")] == []


VALI = _data(seed=42)


@pytest.mark.parametrize("name", ["ForwardSelection", "RecursiveElimination", "GAS", "SparseRankSVM", "GreedyRankRLS"])
def test_the_pickle_of_a_fitted_selector_does_not_grow_with_the_rows(name):
    """Fitted on 7 or 14 training queries (the ranker-in-the-loop selectors validated on the same
    queries: their ``path_.per_query`` keeps one score per validation query and step, a
    result, not data)."""
    sizes = []
    for n_queries in (7, 14):
        sel = SELECTORS[name](feature_groups=LABELS)
        if "validation" in sel.get_params():
            sel.set_params(validation=VALI)
        sizes.append(len(pickle.dumps(sel.fit(*_subset(n_queries)))))
    assert sizes[1] <= sizes[0] * 1.05, sizes


def test_forward_selection_with_rankrls_on_mq2008_keeps_no_rows(mq2008):
    """The issue's case: 4.7 MB on MQ2008 Fold1 and 2.9 MB on half of its queries."""
    tr, va = (rs.load_letor(mq2008 / "Fold1" / f"{s}.txt", n_features=46) for s in ("train", "vali"))
    sizes = []
    for frac in (0.5, 1.0):
        queries = np.unique(tr.qid)
        keep = np.isin(tr.qid, queries[: int(frac * queries.size)])
        sel = rs.ForwardSelection(rs.RankRLS(), n_features_to_select=2, candidates=np.arange(6), validation=tuple(va),
                                  random_state=0).fit(tr.X[keep], tr.y[keep], qid=tr.qid[keep])
        sizes.append(len(pickle.dumps(sel)) - len(pickle.dumps(tuple(va))))  # the validation parameter aside
    assert abs(sizes[1] - sizes[0]) < 100 and sizes[1] < 20_000, sizes


@pytest.mark.parametrize("label", [np.iinfo(np.uintp).max, 1 << 40, 8])
def test_the_core_refuses_a_group_label_beyond_the_features(label):
    """A label of -1 cast to uintp was a PanicException (label + 1 overflowed), a huge one an
    allocation of as many groups: the core's own check (every ``_core`` entry point validates
    its arguments)."""
    from rankselect import _core
    from rankselect.data import GroupedData
    from rankselect.models.penalties import GroupLasso
    d = GroupedData.from_arrays(X, Y, QID)
    labels = np.array([0, 0, 1, 1, 2, 2, 3, label], dtype=np.uintp)
    with pytest.raises(ValueError, match="label"):
        _core.sparse_c_min(d.X, d.y, d.offsets, GroupLasso()._spec(8, labels))
