"""NGAS, XGAS, HCAS against plain NumPy implementations of their definitions (Gigli et al.
2016, as andrgig/FSA computes them), on random problems and on MQ2008; Spearman against
SciPy; GAS unchanged by the shared base."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.cluster.hierarchy import cut_tree, linkage
from scipy.stats import spearmanr

import rankselect
from conftest import shared_path
from rankselect import GAS, HCAS, NGAS, XGAS, spearman_similarity
from rankselect.selection import hcas_select, ngas_select, xgas_select
from rankselect.selection.importance import single_ranker_importance


# --- the definitions, written out plainly (lists and loops, ties to the lowest index) ----
def ref_ngas(r, s, k):
    remaining = list(range(len(r)))
    t = max(remaining, key=lambda j: (r[j], -j))
    out = [t]
    remaining.remove(t)
    while len(out) < k:
        a = min(remaining, key=lambda j: (s[t][j], j))
        others = [j for j in remaining if j != a]
        if not others:
            t = a
        else:
            b = max(others, key=lambda j: (s[a][j], -j))
            t = a if r[a] >= r[b] else b
        out.append(t)
        remaining.remove(t)
    return out


def ref_xgas(r, s, k, c):
    remaining = list(range(len(r)))
    t = max(remaining, key=lambda j: (r[j], -j))
    out = [t]
    remaining.remove(t)
    while len(out) < k:
        size = max(1, int(np.floor(c * len(remaining) + 0.5)))  # Python 2's round
        near = sorted(remaining, key=lambda j: (s[t][j], j))[:size]
        t = max(near, key=lambda j: (r[j], -j))
        out.append(t)
        remaining.remove(t)
    return out


def ref_hcas(r, s, k, method):
    n = len(r)
    if k >= n:
        labels = np.arange(n)
    else:
        d = [[max(0.0, 1.0 - s[i][j]) if i != j else 0.0 for j in range(n)] for i in range(n)]
        condensed = [d[i][j] for i in range(n) for j in range(i + 1, n)]
        labels = cut_tree(linkage(np.array(condensed), method=method), n_clusters=k).ravel()
    reps = [max([j for j in range(n) if labels[j] == g], key=lambda j: (r[j], -j)) for g in set(labels.tolist())]
    return sorted(reps, key=lambda j: (-r[j], j))


def _problem(seed, n, ties):
    rng = np.random.default_rng(seed)
    r = rng.random(n)
    a = rng.normal(size=(3 * n, n))
    s = np.abs(np.atleast_2d(np.corrcoef(a, rowvar=False)))
    if ties:  # coarse values: many ties in relevance and similarity
        r = np.round(r, 1)
        s = np.round(s, 1)
        np.fill_diagonal(s, 1.0)
    return r, s


@given(st.integers(0, 2**31 - 1), st.integers(1, 14), st.booleans(), st.data())
@settings(max_examples=80, deadline=None)
def test_random_problems_match_definitions(seed, n, ties, data):
    r, s = _problem(seed, n, ties)
    k = data.draw(st.integers(1, n))
    c = data.draw(st.sampled_from([0.05, 0.2, 0.5, 1.0]))
    assert ngas_select(r, s, k).tolist() == ref_ngas(r, s, k)
    assert xgas_select(r, s, k, c).tolist() == ref_xgas(r, s, k, c)
    for method in ("ward", "single"):
        assert hcas_select(r, s, k, method).tolist() == ref_hcas(r, s, k, method)


@pytest.fixture(scope="module")
def mq2008_train():
    return rankselect.load_letor(shared_path("MQ2008", "Fold1", "train.txt"))


def test_spearman_matches_scipy(mq2008_train):
    X = mq2008_train.X
    s = spearman_similarity(X)
    with np.errstate(invalid="ignore"):  # SciPy: NaN for the constant features
        rho = np.abs(spearmanr(X).statistic)
    varies = np.ptp(X, axis=0) > 0
    both = np.ix_(varies, varies)
    np.testing.assert_allclose(s[both], rho[both], rtol=1e-10, atol=1e-12)
    assert (s[~varies][:, varies] == 0).all() and (np.diag(s) == 1).all()
    assert (s == s.T).all()


@pytest.mark.parametrize("importance", ["ndcg@10", "map"])
@pytest.mark.parametrize("similarity", ["spearman", "tau_b"])
def test_mq2008_estimators_match_definitions(mq2008_train, importance, similarity):
    d = mq2008_train
    k = 12
    fitted = [est.fit(d.X, d.y, qid=d.qid) for est in (
        NGAS(k, importance=importance, similarity=similarity),
        XGAS(k, importance=importance, similarity=similarity),
        HCAS(k, importance=importance, similarity=similarity),
        HCAS(k, "single", importance=importance, similarity=similarity))]
    ngas, xgas, hcas, hcas1 = fitted
    inf = np.flatnonzero(~np.isin(np.arange(d.X.shape[1]), ngas.constant_features_))
    assert ngas.constant_features_.size > 0  # MQ2008 has features constant within every query
    r = ngas.importance_[inf]
    s = ngas.similarity_[np.ix_(inf, inf)]
    assert inf[ref_ngas(r, s, k)].tolist() == ngas.selected_features_.tolist()
    assert inf[ref_xgas(r, s, k, 0.05)].tolist() == xgas.selected_features_.tolist()
    assert inf[ref_hcas(r, s, k, "ward")].tolist() == hcas.selected_features_.tolist()
    assert inf[ref_hcas(r, s, k, "single")].tolist() == hcas1.selected_features_.tolist()
    assert len(set(hcas.labels_[inf])) == k and (hcas.labels_[ngas.constant_features_] == -1).all()


def test_constant_features_last_and_transform(mq2008_train):
    d = mq2008_train
    n = d.X.shape[1]
    for est in (NGAS(n), XGAS(n), HCAS(n)):
        est.fit(d.X, d.y, qid=d.qid)
        sel = est.selected_features_
        assert sorted(sel.tolist()) == list(range(n))
        const = est.constant_features_
        assert sel[-const.size:].tolist() == const.tolist()
        assert est.transform(d.X).shape == (d.X.shape[0], n)


def test_costs_and_budget():
    r, s = _problem(3, 10, False)
    costs = np.arange(1.0, 11.0)
    for fn in (ngas_select, xgas_select, hcas_select):
        same = fn(r, s, 5, costs=np.full(10, 2.0))
        sel = fn(r, s, 5, costs=costs, budget=7.0)
        assert costs[sel].sum() <= 7.0
        assert same.size == 5
    # equal costs and no budget in an estimator: exactly the plain selection
    X, y, qid = _toy()
    for cls in (NGAS, XGAS, HCAS):
        plain = cls(4).fit(X, y, qid=qid).selected_features_
        equal = cls(4, feature_costs=np.full(X.shape[1], 3.0)).fit(X, y, qid=qid).selected_features_
        assert plain.tolist() == equal.tolist()
        budgeted = cls(4, feature_costs=np.arange(1.0, X.shape[1] + 1), budget=5.0).fit(X, y, qid=qid)
        assert np.arange(1.0, X.shape[1] + 1)[budgeted.selected_features_].sum() <= 5.0


def _toy():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(15), 8)
    X = rng.normal(size=(qid.size, 7))
    X[:, 3] = X[:, 2] * 2 + 0.01 * rng.normal(size=qid.size)
    y = (X[:, 0] + X[:, 2] + rng.normal(size=qid.size) > 0.5).astype(float) + (X[:, 1] > 1)
    return X, y, qid


def test_gas_unchanged_by_base_and_spearman_option():
    X, y, qid = _toy()
    gas = GAS(4, 0.3).fit(X, y, qid=qid)
    from rankselect.selection import feature_importance, gas_greedy, kendall_similarity
    imp = feature_importance(X, y, qid, "map")
    e = kendall_similarity(X * imp.directions, qid, "geng")
    assert gas.selected_features_.tolist() == gas_greedy(imp.importance, e, 4, 0.3)[0].tolist()
    sp = GAS(4, 0.3, similarity="spearman").fit(X, y, qid=qid)
    np.testing.assert_array_equal(sp.similarity_, spearman_similarity(X))


def test_precomputed_inputs_and_errors():
    X, y, qid = _toy()
    r, s = _problem(1, X.shape[1], False)
    est = NGAS(3, importance=r, similarity=s).fit(X, y, qid=qid)
    assert est.selected_features_.tolist() == ref_ngas(r, s, 3)
    with pytest.raises(ValueError, match="n_features_to_select"):
        XGAS(99).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="linkage"):
        HCAS(3, "complete").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="similarity"):
        NGAS(3, similarity="pearson").fit(X, y, qid=qid)


def test_single_ranker_importance_deterministic():
    pytest.importorskip("lightgbm")
    X, y, qid = _toy()
    a = single_ranker_importance(X, y, qid, n_estimators=10)
    b = single_ranker_importance(X, y, qid, n_estimators=10)
    np.testing.assert_array_equal(a.importance, b.importance)
    assert (a.directions == 1).all() and ((0 <= a.importance) & (a.importance <= 1)).all()
    est = XGAS(3, importance="lambdamart").fit(X, y, qid=qid)
    assert est.importance_.shape == (X.shape[1],)


def test_single_ranker_importance_without_lightgbm(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "lightgbm", None)
    X, y, qid = _toy()
    with pytest.raises(ImportError, match="pip install lightgbm"):
        single_ranker_importance(X, y, qid)


def test_dask_gas_refuses_fsa_inputs():
    pytest.importorskip("distributed")
    from rankselect.dask import GAS as DaskGAS

    with pytest.raises(ValueError, match="spearman.*Dask"):
        DaskGAS(3, similarity="spearman").fit(None, None, None)
    with pytest.raises(ValueError, match="lambdamart.*Dask"):
        DaskGAS(3, importance="lambdamart").fit(None, None, None)


def _ref_hcas_fsa(r, s, k):
    """FSA's HCAS (R's ``hclust(method="ward.D")`` on ``1 - s``), computed independently
    as SciPy's Ward on the similarity ``1 - sqrt(1 - s)`` (issue #35 item 10)."""
    return ref_hcas(r, 1.0 - np.sqrt(np.clip(1.0 - np.asarray(s), 0.0, None)), k, "ward")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 12), data=st.data())
def test_hcas_ward_d_matches_fsa_definition(seed, n, data):
    r, s = _problem(seed, n, False)
    k = data.draw(st.integers(1, n))
    assert hcas_select(r, s, k, "ward.D").tolist() == _ref_hcas_fsa(r, s, k)


def test_mq2008_hcas_ward_d_equals_fsa(mq2008_train):
    d = mq2008_train
    n = d.X.shape[1]
    base = HCAS(2, "ward.D").fit(d.X, d.y, qid=d.qid)
    inf = np.flatnonzero(~np.isin(np.arange(n), base.constant_features_))
    r = base.importance_[inf]
    s = base.similarity_[np.ix_(inf, inf)]
    differs = 0
    for k in (2, 5, 9, 12, 14, 18, 23, 30, 35):
        fsa = HCAS(k, "ward.D").fit(d.X, d.y, qid=d.qid)
        assert fsa.selected_features_.tolist() == inf[_ref_hcas_fsa(r, s, k)].tolist(), k
        ward = HCAS(k).fit(d.X, d.y, qid=d.qid)  # the default stays SciPy's Ward (ward.D2)
        assert ward.selected_features_.tolist() == inf[ref_hcas(r, s, k, "ward")].tolist(), k
        differs += ward.selected_features_.tolist() != fsa.selected_features_.tolist()
    assert differs > 0  # the two linkages are different clusterings on MQ2008
