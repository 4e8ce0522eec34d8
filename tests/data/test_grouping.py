import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankselect import QueryGroups, center_by_query


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=40))
@settings(max_examples=100, deadline=None)
def test_grouping_is_stable_and_complete(qid):
    qid = np.array(qid)
    g = QueryGroups.from_qid(qid)
    seen = []
    for q in range(g.n_queries):
        rows = g.perm[g.offsets[q]:g.offsets[q + 1]]
        assert (qid[rows] == g.ids[q]).all()
        assert (np.diff(rows) > 0).all()  # input order kept
        seen.extend(rows)
    assert sorted(seen) == list(range(len(qid)))
    # queries in order of first appearance, each exactly once
    _, first = np.unique(qid, return_index=True)
    assert list(g.ids) == list(qid[np.sort(first)])
    assert np.array_equal(g.scatter(g.gather(np.arange(len(qid)))), np.arange(len(qid)))


@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.integers(1, 3))
@settings(max_examples=60, deadline=None)
def test_center_by_query_matches_naive(qid, n):
    qid = np.array(qid)
    rng = np.random.default_rng(len(qid))
    X = rng.normal(size=(len(qid), n))
    expected = X.copy()
    for q in np.unique(qid):
        expected[qid == q] -= X[qid == q].mean(axis=0)
    np.testing.assert_allclose(center_by_query(X, qid), expected, atol=1e-12)
    np.testing.assert_allclose(center_by_query(X[:, 0], qid), expected[:, 0], atol=1e-12)


def test_bad_qid_is_named():
    with pytest.raises(ValueError, match="qid"):
        center_by_query(np.ones(3), [1.5, 1, 1])
    with pytest.raises(ValueError, match="qid has 2 entries"):
        center_by_query(np.ones(3), [1, 1])
    with pytest.raises(TypeError, match="qid"):
        QueryGroups.from_qid(np.array(["a", "b"]))
