"""GAS, NGAS, XGAS and HCAS over feature groups (issue 33): the group-level inputs of
:func:`rankselect.selection.filter_base.group_inputs` and the same search on them."""
import numpy as np
import pytest

import rankselect as rs
from rankselect.selection.filter_base import group_inputs

FILTERS = [rs.GAS, rs.NGAS, rs.XGAS, rs.HCAS]


@pytest.fixture(scope="module")
def example():
    return rs.data.datasets.load_example("train")


def random_problem(seed, n=7, sizes=(6, 5, 7, 4, 6)):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(qid.size, n))
    y = rng.integers(0, 3, qid.size).astype(float)
    X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=qid.size)  # a near-copy
    return X, y, qid


@pytest.mark.parametrize("cls", FILTERS)
def test_groups_of_one_select_as_features(cls, example):
    X, y, qid = example
    n = X.shape[1]
    for kw in ({}, dict(feature_costs=np.arange(n) + 1.0), dict(feature_costs=np.arange(n) + 1.0, budget=12.0)):
        plain = cls(4, **kw).fit(X, y, qid=qid)
        grouped = cls(4, feature_groups=[f"g{j}" for j in range(n)], **kw).fit(X, y, qid=qid)
        np.testing.assert_array_equal(grouped.selected_features_, plain.selected_features_, err_msg=str(kw))
        assert list(grouped.selected_groups_) == [f"g{j}" for j in plain.selected_features_]
        np.testing.assert_array_equal(grouped.importance_, plain.importance_)


def test_group_inputs_by_hand():
    w = np.array([0.9, 0.1, 0.85, 0.5, 0.4])
    e = np.eye(5)
    for (i, j), v in {(0, 2): 0.8, (0, 3): 0.1, (2, 3): 0.2, (2, 4): 0.1, (3, 4): 0.3}.items():
        e[i, j] = e[j, i] = v
    members = [np.array([0, 1]), np.array([2]), np.array([3, 4])]
    constant = np.array([False, False, False, True, True])
    gw, ge, gc, best = group_inputs(w, e, constant, members)
    np.testing.assert_array_equal(gw, [0.9, 0.85, 0.5])
    np.testing.assert_array_equal(ge, [[1, 0.8, 0.1], [0.8, 1, 0.2], [0.1, 0.2, 1]])
    np.testing.assert_array_equal(gc, [False, False, True])
    np.testing.assert_array_equal(best, [0, 2, 3])


def test_gas_over_groups_by_hand():
    """W = (0.9, 0.85, 0.5), E(A,B) = 0.8, E(A,C) = 0.1, E(B,C) = 0.2, c = 0.5: A first; then
    B is worth 0.85 - 2 * 0.5 * 0.8 = 0.05 and C 0.5 - 0.1 = 0.4: C."""
    X, y, qid = random_problem(0, n=5)
    w = np.array([0.9, 0.1, 0.85, 0.5, 0.4])
    e = np.eye(5)
    for (i, j), v in {(0, 2): 0.8, (0, 3): 0.1, (2, 3): 0.2, (2, 4): 0.1, (3, 4): 0.3}.items():
        e[i, j] = e[j, i] = v
    groups = {"A": [0, 1], "B": [2], "C": [3, 4]}
    gas = rs.GAS(2, c=0.5, importance=w, similarity=e, feature_groups=groups).fit(X, y, qid=qid)
    assert list(gas.selected_groups_) == ["A", "C"]
    np.testing.assert_array_equal(gas.selected_features_, [0, 1, 3, 4])
    np.testing.assert_allclose(gas.selection_weights_, [0.9, 0.4])
    np.testing.assert_array_equal(gas.group_importance_, [0.9, 0.85, 0.5])
    assert gas.get_support().sum() == 4
    # c = 0: by importance alone, A then B
    assert list(rs.GAS(2, c=0.0, importance=w, similarity=e, feature_groups=groups)
                .fit(X, y, qid=qid).selected_groups_) == ["A", "B"]


@pytest.mark.parametrize("cls", FILTERS)
def test_whole_groups_and_costs(cls):
    X, y, qid = random_problem(1)
    labels = ["a", "a", "b", "c", "c", "c", "d"]
    sel = cls(2, feature_groups=labels).fit(X, y, qid=qid)
    assert len(sel.selected_groups_) == 2
    mask = sel.get_support()
    for g in set(labels):
        cols = [j for j, lab in enumerate(labels) if lab == g]
        assert mask[cols].all() or not mask[cols].any()
    # a budget on members' costs plus the group's cost: only what fits
    sel = cls(3, feature_groups=labels, feature_costs=np.ones(7), group_costs={"a": 0, "b": 5, "c": 1, "d": 5},
              budget=6.0).fit(X, y, qid=qid)
    costs = rs.data.ExtractionCosts(np.ones(7), sel.feature_groups_, np.array([0.0, 5, 1, 5]))
    assert costs.total(sel.selected_features_) <= 6.0
    with pytest.raises(ValueError, match="counts groups"):
        cls(5, feature_groups=labels).fit(X, y, qid=qid)


def test_select_groups_false_selects_features():
    X, y, qid = random_problem(2)
    labels = ["a", "a", "b", "c", "c", "c", "d"]
    plain = rs.GAS(3).fit(X, y, qid=qid)
    sel = rs.GAS(3, feature_groups=labels, select_groups=False).fit(X, y, qid=qid)
    np.testing.assert_array_equal(sel.selected_features_, plain.selected_features_)
    assert list(sel.selected_groups_) == list(dict.fromkeys(labels[j] for j in plain.selected_features_))


def test_dask_gas_over_groups_as_in_memory(shared_dask_client):
    pytest.importorskip("dask.array")
    import dask.array as da

    import rankselect.dask as rd

    X, y, qid = random_problem(3)
    g = rs.QueryGroups.from_qid(qid)
    rows = tuple(np.diff([g.offsets[c] for c in (0, 2, 5)]).tolist())
    Xd = da.from_array(g.gather(X), chunks=(rows, X.shape[1]))
    yd, qd = da.from_array(g.gather(y), chunks=(rows,)), da.from_array(g.gather(qid), chunks=(rows,))
    labels = ["a", "a", "b", "c", "c", "c", "d"]
    for kw in ({}, dict(feature_costs=np.arange(7) + 1.0, budget=9.0)):
        mem = rs.GAS(3, c=0.2, feature_groups=labels, **kw).fit(X, y, qid=qid)
        dis = rd.GAS(3, c=0.2, feature_groups=labels, **kw).fit(Xd, yd, qd)
        assert list(dis.selected_groups_) == list(mem.selected_groups_)
        np.testing.assert_array_equal(dis.selected_features_, mem.selected_features_)
