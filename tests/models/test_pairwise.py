"""Preference pairs and the pair matrix against a brute-force double loop."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankselect
from rankselect.models.pairwise import count_pairs


def brute_pairs(y, qid):
    out = []
    m = len(y)
    for i in range(m):
        for j in range(m):
            if qid[i] == qid[j] and y[i] > y[j]:
                out.append((i, j))
    return out


@st.composite
def labels_and_qids(draw, max_rows=40):
    m = draw(st.integers(1, max_rows))
    y = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 0.5, -1.0]), min_size=m, max_size=m))
    qid = draw(st.lists(st.integers(-3, 5), min_size=m, max_size=m))  # unsorted, interleaved
    return np.array(y), np.array(qid)


@settings(max_examples=150, deadline=None)
@given(labels_and_qids())
def test_pairs_equal_brute_force(data):
    y, qid = data
    i, j = rankselect.preference_pairs(y, qid)
    expected = brute_pairs(y, qid)
    got = list(zip(i.tolist(), j.tolist()))
    assert sorted(got) == sorted(expected)
    assert len(set(got)) == len(got)
    assert count_pairs(y, qid) == len(expected)
    # documented order: queries by first appearance, then i, then j (input order)
    first = {q: k for k, q in reversed(list(enumerate(qid.tolist())))}
    assert got == sorted(got, key=lambda p: (first[qid[p[0]]], p[0], p[1]))
    A = rankselect.preference_pair_matrix(y, qid)
    assert A.shape == (len(expected), len(y))
    dense = A.toarray()
    for k, (a, b) in enumerate(got):
        row = np.zeros(len(y))
        row[a] = 1.0
        row[b] = -1.0
        np.testing.assert_array_equal(dense[k], row)


def test_pair_matrix_gives_differences():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    y = rng.integers(0, 3, size=12)
    qid = np.array([2, 1, 2, 1, 2, 1, 3, 3, 3, 2, 1, 3])
    A = rankselect.preference_pair_matrix(y, qid)
    i, j = rankselect.preference_pairs(y, qid)
    np.testing.assert_allclose(A @ X, X[i] - X[j])
    assert A.format == "csr"


def test_no_pairs():
    i, j = rankselect.preference_pairs([1, 1, 1], [4, 4, 5])
    assert i.shape == (0,) and j.shape == (0,)
    assert rankselect.preference_pair_matrix([1, 1, 1], [4, 4, 5]).shape == (0, 3)


def test_max_pairs_names_the_qid():
    y = np.array([1, 0, 2, 1, 0, 0, 1])
    qid = np.array([10, 10, 77, 77, 77, 5, 5])
    # qid 10: 1 pair, qid 77: 3 pairs, qid 5: 1 pair
    with pytest.raises(ValueError, match=r"qid 77 has the most \(3 pairs\)"):
        rankselect.preference_pairs(y, qid, max_pairs=4)
    with pytest.raises(ValueError, match="max_pairs"):
        rankselect.preference_pair_matrix(y, qid, max_pairs=0)
    assert len(rankselect.preference_pairs(y, qid, max_pairs=5)[0]) == 5


def test_bad_inputs():
    with pytest.raises(ValueError, match="qid"):
        rankselect.preference_pairs([1, 0], [1, 1, 1])
    with pytest.raises(ValueError, match="y"):
        rankselect.preference_pairs([1, np.nan], [1, 1])
    with pytest.raises(ValueError, match="qid"):
        rankselect.preference_pairs([1, 0], None)
    with pytest.raises(TypeError, match="max_pairs"):
        rankselect.preference_pairs([1, 0], [1, 1], max_pairs=2.5)
    with pytest.raises(ValueError, match="max_pairs"):
        rankselect.preference_pairs([1, 0], [1, 1], max_pairs=-1)
    with pytest.raises(TypeError, match="y"):
        rankselect.preference_pairs(["a", "b"], [1, 1])
