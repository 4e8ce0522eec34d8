import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, shared_path
from rankselect import kendall_similarity


def _queries(qid):
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        if len(rows) >= 2:
            yield rows


def naive_tau_b(X, qid):
    """Loop over queries with scipy.stats.kendalltau; a NaN (constant feature) counts 0."""
    n = X.shape[1]
    total = np.zeros((n, n))
    used = 0
    for rows in _queries(qid):
        used += 1
        for a in range(n):
            for b in range(n):
                xa, xb = X[rows, a], X[rows, b]
                if np.all(xa == xa[0]) or np.all(xb == xb[0]):
                    continue
                total[a, b] += scipy.stats.kendalltau(xa, xb).statistic
    return total / used


def naive_geng_counts(X, qid):
    """Brute-force O(n_q^2) double loop: mean concordant and discordant fractions."""
    n = X.shape[1]
    conc = np.zeros((n, n))
    disc = np.zeros((n, n))
    used = 0
    for rows in _queries(qid):
        used += 1
        Q = X[rows]
        m = len(rows)
        pairs = m * (m - 1) / 2
        c = np.zeros((n, n))
        d = np.zeros((n, n))
        for i in range(m):
            for j in range(i + 1, m):
                s = np.sign(Q[j] - Q[i])
                prod = np.outer(s, s)
                c += prod > 0
                d += prod < 0
        conc += c / pairs
        disc += d / pairs
    return conc / used, disc / used


ALGORITHMS = ["auto", "bitset", "merge"]


@st.composite
def ranking_matrices(draw, max_rows=40):
    m = draw(st.integers(2, max_rows))
    n = draw(st.integers(1, 4))
    qid = np.array(draw(st.lists(st.integers(0, 6), min_size=m, max_size=m)))
    # Few distinct values: ties and constant features are common.
    levels = draw(st.integers(1, 5))
    vals = draw(st.lists(st.integers(0, levels - 1), min_size=m * n, max_size=m * n))
    X = np.array(vals, dtype=float).reshape(m, n) * 0.5 - 1.0
    # Make sure some query has >= 2 documents.
    qid[1] = qid[0]
    return X, qid


@given(ranking_matrices())
@settings(max_examples=60, deadline=None)
def test_tau_b_matches_scipy_loop(data):
    X, qid = data
    expected = naive_tau_b(X, qid)
    for algorithm in ALGORITHMS:
        got = kendall_similarity(X, qid, variant="tau_b", algorithm=algorithm)
        np.testing.assert_allclose(got, expected, atol=1e-12)
        got_abs = kendall_similarity(X, qid, variant="tau_b", absolute=True, algorithm=algorithm)
        np.testing.assert_allclose(got_abs, np.abs(expected), atol=1e-12)


@given(ranking_matrices())
@settings(max_examples=60, deadline=None)
def test_geng_matches_double_loop(data):
    X, qid = data
    conc, disc = naive_geng_counts(X, qid)
    results = []
    for algorithm in ALGORITHMS:
        got = kendall_similarity(X, qid, variant="geng", algorithm=algorithm)
        np.testing.assert_allclose(got, conc, atol=1e-12)
        got_abs = kendall_similarity(X, qid, variant="geng", absolute=True, algorithm=algorithm)
        np.testing.assert_allclose(got_abs, np.maximum(conc, disc), atol=1e-12)
        results.append(got)
    # Both exact schemes give bit-identical results.
    assert np.array_equal(results[1], results[2])


@given(st.integers(2, 300), st.integers(0, 2**31 - 1))
@settings(max_examples=15, deadline=None)
def test_long_queries_both_schemes(n_docs, seed):
    """Queries crossing 64-bit word boundaries and long merge sorts."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 7, size=(n_docs, 3)).astype(float)
    X[:, 2] = X[:, 0] * 2 + rng.integers(0, 2, size=n_docs)  # correlated
    qid = np.zeros(n_docs, dtype=int)
    expected = naive_tau_b(X, qid)
    a = kendall_similarity(X, qid, variant="tau_b", algorithm="bitset")
    b = kendall_similarity(X, qid, variant="tau_b", algorithm="merge")
    np.testing.assert_allclose(a, expected, atol=1e-12)
    assert np.array_equal(a, b)


def test_many_features_across_the_rank_limit_both_schemes():
    """9 features (3 vectors of 4, one padding lane), a feature constant in every query and one
    constant in some; query lengths on both sides of 32, 64 and 128 documents."""
    rng = np.random.default_rng(5)
    sizes = [2, 3, 8, 31, 33, 64, 65, 127, 128, 129, 140]
    qid = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.integers(0, 9, size=(len(qid), 9)).astype(float)
    X[:, 4] = 2.5
    X[qid % 3 == 0, 7] = -1.0
    X[:, 8] = -X[:, 0] + 0.5 * rng.integers(0, 2, size=len(qid))
    for variant in ("tau_b", "geng"):
        for absolute in (False, True):
            a = kendall_similarity(X, qid, variant=variant, absolute=absolute, algorithm="bitset")
            b = kendall_similarity(X, qid, variant=variant, absolute=absolute, algorithm="merge")
            assert np.array_equal(a, b), (variant, absolute)
    np.testing.assert_allclose(kendall_similarity(X, qid, variant="tau_b"), naive_tau_b(X, qid), atol=1e-12)


def test_runs_of_query_ids_group_as_the_permutation_does():
    """Rows already in one run per query skip the grouping permutation; an id that comes
    back later goes through it. Both give the bytes of the explicitly grouped call."""
    from rankselect.data.grouping import QueryGroups, contiguous_offsets
    from rankselect.selection.similarity import _similarity_grouped

    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(40, 6)).astype(float)
    for qid in (np.repeat([7, 2, 9, 4], 10), np.repeat([1, 2, 1, 3], 10), np.repeat([5], 40)):
        groups = QueryGroups.from_qid(qid)
        runs = contiguous_offsets(qid)
        assert (runs is None) == (not groups.is_identity)
        if runs is not None:
            assert np.array_equal(runs, groups.offsets)
        for variant in ("geng", "tau_b"):
            want = _similarity_grouped(np.ascontiguousarray(groups.gather(X)), groups.offsets, variant, False)
            got = kendall_similarity(X, qid, variant=variant)
            assert got.tobytes() == want.tobytes(), (qid[::10], variant)


def test_permuting_rows_and_unsorted_qids_do_not_matter():
    rng = np.random.default_rng(0)
    qid = rng.integers(0, 20, size=300)
    X = rng.normal(size=(300, 5)).round(1)
    base = kendall_similarity(X, qid, variant="tau_b")
    perm = rng.permutation(300)
    np.testing.assert_allclose(kendall_similarity(X[perm], qid[perm], variant="tau_b"), base, atol=1e-14)
    order = np.argsort(qid, kind="stable")
    np.testing.assert_allclose(kendall_similarity(X[order], qid[order], variant="tau_b"), base, atol=1e-14)


def test_single_document_queries_are_ignored():
    X = np.array([[1.0, 2.0], [2.0, 1.0], [5.0, 5.0], [3.0, 3.0], [0.0, 0.0]])
    qid = np.array([1, 1, 2, 3, 3])
    # query 1: reversed order (tau -1), query 3: same order (tau +1); query 2 ignored.
    sim = kendall_similarity(X, qid, variant="tau_b")
    assert sim[0, 1] == pytest.approx(0.0)
    assert sim[0, 0] == pytest.approx(1.0)
    sim = kendall_similarity(X, qid, variant="geng")
    assert sim[0, 1] == pytest.approx(0.5)


def test_constant_feature_contributes_zero():
    X = np.array([[1.0, 7.0], [2.0, 7.0], [3.0, 7.0], [1.0, 1.0], [2.0, 2.0]])
    qid = np.array([0, 0, 0, 1, 1])
    sim = kendall_similarity(X, qid, variant="tau_b")
    # Feature 1 is constant in query 0 (contributes 0), concordant in query 1.
    np.testing.assert_allclose(sim, [[1.0, 0.5], [0.5, 0.5]])
    sim = kendall_similarity(X, qid, variant="geng")
    np.testing.assert_allclose(sim, [[1.0, 0.5], [0.5, 0.5]])


def test_negation_with_absolute():
    rng = np.random.default_rng(3)
    x = rng.normal(size=50)
    X = np.column_stack([x, -x])
    qid = np.repeat(np.arange(5), 10)
    sim = kendall_similarity(X, qid, variant="tau_b")
    assert sim[0, 1] == pytest.approx(-1.0)
    assert kendall_similarity(X, qid, variant="tau_b", absolute=True)[0, 1] == pytest.approx(1.0)
    assert kendall_similarity(X, qid, variant="geng")[0, 1] == pytest.approx(0.0)
    assert kendall_similarity(X, qid, variant="geng", absolute=True)[0, 1] == pytest.approx(1.0)


def _load_mq2008_fold1_train():
    from rankselect import load_letor

    d = load_letor(shared_path("MQ2008", "Fold1", "train.txt"))
    return d.X, d.y, d.qid


def test_mq2008_fold1_matrix():
    X, _, qid = _load_mq2008_fold1_train()
    sim = kendall_similarity(X, qid, variant="tau_b")
    assert sim.shape == (X.shape[1], X.shape[1])
    assert np.array_equal(sim, sim.T)
    assert np.all(np.abs(sim) <= 1.0)
    # Diagonal: the fraction of queries (>= 2 documents) in which the feature varies.
    varies = []
    for rows in _queries(qid):
        Q = X[rows]
        varies.append((Q != Q[0]).any(axis=0))
    np.testing.assert_allclose(np.diag(sim), np.mean(varies, axis=0), atol=1e-14)
    # Both schemes agree on real data; the geng diagonal is the mean fraction of untied pairs.
    assert np.array_equal(sim, kendall_similarity(X, qid, variant="tau_b", algorithm="merge"))
    geng = kendall_similarity(X, qid, variant="geng")
    assert np.array_equal(geng, geng.T)
    assert np.all((geng >= 0) & (geng <= np.minimum.outer(np.diag(geng), np.diag(geng)) + 1e-12))


def test_bad_inputs_are_named():
    X = np.ones((4, 2))
    qid = [0, 0, 1, 1]
    with pytest.raises(ValueError, match="variant"):
        kendall_similarity(X, qid, variant="spearman")
    with pytest.raises(ValueError, match="algorithm"):
        kendall_similarity(X, qid, algorithm="fast")
    with pytest.raises(TypeError, match="absolute"):
        kendall_similarity(X, qid, absolute="yes")
    with pytest.raises(ValueError, match="qid has 3 entries"):
        kendall_similarity(X, qid[:3])
    with pytest.raises(ValueError, match="X contains NaN"):
        kendall_similarity(np.array([[1.0], [np.nan]]), [0, 0])
    with pytest.raises(ValueError, match="X must be 2-D"):
        kendall_similarity(np.ones(4), qid)
    with pytest.raises(ValueError, match="no query has at least 2 documents"):
        kendall_similarity(X, [0, 1, 2, 3])
    with pytest.raises(ValueError, match="no features"):
        kendall_similarity(np.ones((4, 0)), qid)
    with pytest.raises(TypeError, match="qid"):
        kendall_similarity(X, ["a", "b", "c", "d"])


def test_interleaved_benchmark_runs_two_builds():
    """benches/kendall_interleaved.py loads builds side by side and prints one table row."""
    import subprocess
    import sys
    from pathlib import Path

    import rankselect

    script = ROOT / "benches" / "kendall_interleaved.py"
    pkg_parent = str(Path(rankselect.__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, str(script), "--data", "mq2008-like", "--repeat", "1", "--numpy-repeat", "1",
         "--build", f"first={pkg_parent}", "--build", f"second={pkg_parent}"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout
    cells = out.strip().split("|")
    assert out.startswith("| mq2008-like | 1 |") and len(cells) == 7, out
    assert all(c.strip().endswith("x]") for c in cells[4:6]), out
