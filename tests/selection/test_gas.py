import numpy as np
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st

from rankselect import GAS, FeatureImportance, feature_importance, kendall_similarity
from rankselect.selection.gas import gas_greedy

# ---------------------------------------------------------------------------------------
# Naive references
# ---------------------------------------------------------------------------------------

def naive_pairwise_accuracy(x, y, qid):
    """1 - misordered / preference pairs, pooled; a tied score counts half."""
    mis = prefs = 0.0
    for q in np.unique(qid):
        r = np.flatnonzero(qid == q)
        for i in r:
            for j in r:
                if y[i] > y[j]:
                    prefs += 1
                    mis += 1.0 if x[i] < x[j] else (0.5 if x[i] == x[j] else 0.0)
    return 1.0 - mis / prefs


def brute_force_gas(w, e, t, c):
    """Greedy GAS from the objective: at each step the candidate s maximising
    w_s - 2c sum_{i in S} e(i, s) (proof of Theorem 1), ties to the lowest index."""
    S = []
    for _ in range(t):
        best, best_val = None, None
        for s in range(len(w)):
            if s in S:
                continue
            val = w[s] - 2 * c * sum(e[i, s] for i in S)
            if best_val is None or val > best_val:
                best, best_val = s, val
        S.append(best)
    return S


def _ranked_labels(y, s):
    """Labels sorted by score descending, ties pessimistic (lower labels first)."""
    return y[np.lexsort((y, -s))]


def naive_mean_metric(score, y, qid, measure):
    vals = []
    for q in np.unique(qid):
        r = np.flatnonzero(qid == q)
        lab = _ranked_labels(y[r], score[r])
        if measure == "map":
            rel = lab > 0
            vals.append(0.0 if rel.sum() == 0 else np.mean((np.cumsum(rel) / np.arange(1, len(lab) + 1))[rel]))
        else:  # ndcg@k, standard convention
            k = int(measure.split("@")[1]) if "@" in measure else len(lab)
            disc = 1.0 / np.log2(np.arange(2, len(lab) + 2))
            dcg = ((2.0 ** lab - 1) * disc)[:k].sum()
            idcg = ((2.0 ** np.sort(y[r])[::-1] - 1) * disc)[:k].sum()
            vals.append(0.0 if idcg == 0 else dcg / idcg)
    return float(np.mean(vals))


@st.composite
def ranking_data(draw):
    m = draw(st.integers(3, 30))
    n = draw(st.integers(1, 5))
    qid = np.array(draw(st.lists(st.integers(0, 4), min_size=m, max_size=m)))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)), dtype=float)
    X = np.array(draw(st.lists(st.integers(-2, 2), min_size=m * n, max_size=m * n)), dtype=float).reshape(m, n)
    # At least one preference pair: two documents of query qid[0] with different labels.
    qid[1] = qid[0]
    y[0], y[1] = 0.0, 1.0
    return X, y, qid


# ---------------------------------------------------------------------------------------
# feature_importance
# ---------------------------------------------------------------------------------------

@given(ranking_data())
@settings(max_examples=60, deadline=None)
def test_pairwise_importance_matches_naive(data):
    X, y, qid = data
    imp, directions = feature_importance(X, y, qid, measure="pairwise")
    for f in range(X.shape[1]):
        up = naive_pairwise_accuracy(X[:, f], y, qid)
        down = naive_pairwise_accuracy(-X[:, f], y, qid)
        assert imp[f] == pytest.approx(max(up, down), abs=1e-12)
        assert directions[f] == (1 if up >= down else -1)


@given(ranking_data(), st.sampled_from(["map", "ndcg@3", "ndcg"]))
@settings(max_examples=40, deadline=None)
def test_metric_importance_matches_naive(data, measure):
    X, y, qid = data
    imp, directions = feature_importance(X, y, qid, measure=measure)
    for f in range(X.shape[1]):
        up = naive_mean_metric(X[:, f], y, qid, measure)
        down = naive_mean_metric(-X[:, f], y, qid, measure)
        assert imp[f] == pytest.approx(max(up, down), abs=1e-12)
        if abs(up - down) > 1e-9:
            assert directions[f] == (1 if up > down else -1)
        else:  # a tie in exact arithmetic: +1
            assert directions[f] == 1


@given(ranking_data(), st.sampled_from(["map", "ndcg@3", "p@2"]))
@settings(max_examples=20, deadline=None)
def test_letor_convention_importance_matches_metrics(data, measure):
    from rankselect import metrics

    X, y, qid = data
    imp, _ = feature_importance(X, y, qid, measure=measure, convention="letor")
    for f in range(X.shape[1]):
        vals = [metrics.compute(measure, y, sgn * X[:, f], qid, convention="letor", ties="pessimistic")
                for sgn in (1, -1)]
        assert imp[f] == pytest.approx(max(vals), abs=1e-12)


def test_pairwise_importance_directions():
    y = np.array([0, 1, 2, 0, 1, 2], dtype=float)
    qid = np.array([0, 0, 0, 1, 1, 1])
    X = np.column_stack([y, -y, np.ones(6)])
    res = feature_importance(X, y, qid, measure="pairwise")
    assert isinstance(res, FeatureImportance)
    np.testing.assert_allclose(res.importance, [1.0, 1.0, 0.5])
    np.testing.assert_array_equal(res.directions, [1, -1, 1])


def test_importance_bad_inputs():
    X = np.ones((4, 2))
    y = np.array([0, 1, 0, 1.0])
    qid = [0, 0, 1, 1]
    with pytest.raises(ValueError, match="measure"):
        feature_importance(X, y, qid, measure="auc")
    with pytest.raises(ValueError, match="measure"):
        feature_importance(X, y, qid, measure="ndcg@0")
    with pytest.raises(TypeError, match="measure"):
        feature_importance(X, y, qid, measure=3)
    with pytest.raises(ValueError, match="y has 3 entries"):
        feature_importance(X, y[:3], qid, measure="pairwise")
    with pytest.raises(ValueError, match="preference pairs"):
        feature_importance(X, np.zeros(4), qid, measure="pairwise")
    with pytest.raises(ValueError, match="convention"):
        feature_importance(X, y, qid, measure="map", convention="trec_eval")
    with pytest.raises(ValueError, match="y contains NaN"):
        feature_importance(X, np.array([0, np.nan, 0, 1]), qid, measure="pairwise")


# ---------------------------------------------------------------------------------------
# GAS
# ---------------------------------------------------------------------------------------

@given(st.integers(1, 12), st.floats(0, 2), st.integers(0, 2**31 - 1), st.booleans())
@settings(max_examples=100, deadline=None)
def test_gas_greedy_matches_brute_force(n, c, seed, coarse):
    rng = np.random.default_rng(seed)
    w = rng.random(n)
    e = rng.random((n, n))
    if coarse:  # many exact ties in weights and similarities
        w = np.round(w * 2) / 2
        e = np.round(e * 2) / 2
        c = float(np.round(c * 2) / 2)
    e = (e + e.T) / 2
    X = rng.normal(size=(6, n))
    y = np.array([0, 1, 2, 0, 1, 2.0])
    qid = np.array([0, 0, 0, 1, 1, 1])
    t = int(rng.integers(1, n + 1))
    gas = GAS(n_features_to_select=t, c=c, importance=w, similarity=e).fit(X, y, qid=qid)
    assert list(gas.selected_features_) == brute_force_gas(w, e, t, c)
    assert gas.get_support().sum() == t
    assert gas.transform(X).shape == (6, t)
    np.testing.assert_array_equal(gas.transform(X), X[:, np.sort(gas.selected_features_)])


def test_gas_ties_go_to_lowest_index():
    X = np.zeros((4, 4))
    y = np.array([0, 1, 0, 1.0])
    qid = [0, 0, 1, 1]
    gas = GAS(n_features_to_select=4, c=1.0, importance=np.ones(4), similarity=np.zeros((4, 4))).fit(X, y, qid=qid)
    assert list(gas.selected_features_) == [0, 1, 2, 3]


def _toy(seed=0, m=120, n=6):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(m // 10), 10)
    y = rng.integers(0, 3, size=m).astype(float)
    X = rng.normal(size=(m, n))
    X[:, 0] = y + 0.3 * rng.normal(size=m)   # strong
    X[:, 1] = X[:, 0] + 0.01 * rng.normal(size=m)  # near-duplicate of 0
    X[:, 2] = -(y + 0.8 * rng.normal(size=m))  # good, descending
    return X, y, qid


def test_gas_end_to_end_pairwise():
    X, y, qid = _toy()
    gas = GAS(n_features_to_select=3, c=0.2, importance="pairwise", similarity="tau_b").fit(X, y, qid=qid)
    imp, directions = feature_importance(X, y, qid, measure="pairwise")
    np.testing.assert_array_equal(gas.importance_, imp)
    np.testing.assert_array_equal(gas.directions_, directions)
    assert gas.directions_[2] == -1
    # Similarity of the direction-adjusted features.
    np.testing.assert_array_equal(gas.similarity_, kendall_similarity(X * directions, qid, variant="tau_b"))
    assert list(gas.selected_features_) == brute_force_gas(imp, gas.similarity_, 3, 0.2)
    # The near-duplicate 1 of feature 0 is skipped in favour of the descending feature 2
    # (the first two are perfect rankers on this toy set: ties go to the lowest index).
    assert list(gas.selected_features_[:2]) == [0, 2]
    assert list(GAS(n_features_to_select=2, c=0.05, importance="pairwise", similarity="tau_b")
                .fit(X, y, qid=qid).selected_features_) == [0, 1]
    # c = 0: plain importance ranking.
    gas0 = GAS(n_features_to_select=3, c=0.0, importance="pairwise").fit(X, y, qid=qid)
    assert list(gas0.selected_features_) == list(np.argsort(-imp, kind="stable")[:3])
    np.testing.assert_allclose(gas0.selection_weights_, np.sort(imp)[::-1][:3])


def test_gas_precomputed_importance_object_and_similarity():
    X, y, qid = _toy(1)
    fi = feature_importance(X, y, qid, measure="pairwise")
    sim = kendall_similarity(X * fi.directions, qid)
    a = GAS(n_features_to_select=4, c=0.2, importance="pairwise").fit(X, y, qid=qid)
    b = GAS(n_features_to_select=4, c=0.2, importance=fi, similarity=sim).fit(X, y, qid=qid)
    c = GAS(n_features_to_select=4, c=0.2, importance=fi).fit(X, y, qid=qid)
    np.testing.assert_array_equal(a.selected_features_, b.selected_features_)
    np.testing.assert_array_equal(a.selected_features_, c.selected_features_)
    np.testing.assert_array_equal(b.directions_, fi.directions)


def test_gas_absolute_similarity():
    X, y, qid = _toy(2)
    gas = GAS(n_features_to_select=2, importance="pairwise", similarity="tau_b", absolute=True).fit(X, y, qid=qid)
    np.testing.assert_allclose(gas.similarity_, np.abs(kendall_similarity(X, qid, variant="tau_b")), atol=1e-14)


def test_gas_metadata_routing_in_pipeline():
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y, qid = _toy(3)
    with sklearn.config_context(enable_metadata_routing=True):
        gas = GAS(n_features_to_select=2, importance="pairwise").set_fit_request(qid=True)
        pipe = Pipeline([("scale", FunctionTransformer()), ("gas", gas)])
        pipe.fit(X, y, qid=qid)
        assert pipe.transform(X).shape == (X.shape[0], 2)
    direct = GAS(n_features_to_select=2, importance="pairwise").fit(X, y, qid=qid)
    np.testing.assert_array_equal(pipe.named_steps["gas"].selected_features_, direct.selected_features_)


def test_gas_bad_inputs():
    X, y, qid = _toy(4)
    n = X.shape[1]
    with pytest.raises(ValueError, match="n_features_to_select"):
        GAS(n_features_to_select=n + 1, importance="pairwise").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="n_features_to_select"):
        GAS(n_features_to_select=0, importance="pairwise").fit(X, y, qid=qid)
    with pytest.raises(TypeError, match="n_features_to_select"):
        GAS(n_features_to_select=2.5, importance="pairwise").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="'c' parameter"):
        GAS(n_features_to_select=2, c=-1, importance="pairwise").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="'c' parameter"):
        GAS(n_features_to_select=2, c=float("nan"), importance="pairwise").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="similarity must have shape"):
        GAS(n_features_to_select=2, importance="pairwise", similarity=np.eye(n + 1)).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="symmetric"):
        GAS(n_features_to_select=2, importance="pairwise", similarity=np.triu(np.ones((n, n)))).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="'similarity' parameter of GAS must be a str among"):
        GAS(n_features_to_select=2, importance="pairwise", similarity="pearson").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="importance must have shape"):
        GAS(n_features_to_select=2, importance=np.ones(n + 1)).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="measure"):
        GAS(n_features_to_select=2, importance="auc").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="qid is required"):
        GAS(n_features_to_select=2, importance="pairwise").fit(X, y)
    with pytest.raises(TypeError, match="absolute"):
        GAS(n_features_to_select=2, importance="pairwise", absolute="no").fit(X, y, qid=qid)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        GAS().get_support()


# ---------------------------------------------------------------------------------------
# CLI and plot
# ---------------------------------------------------------------------------------------

def _write_letor(path, X, y, qid):
    with open(path, "w") as fh:
        for xi, yi, qi in zip(X, y, qid):
            feats = " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(xi))
            fh.write(f"{int(yi)} qid:{qi} {feats}\n")


def test_cli_similarity_and_select(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from rankselect.cli import main

    X, y, qid = _toy(5)
    X = np.round(X, 4)
    path = tmp_path / "train.txt"
    _write_letor(path, X, y, qid)
    out, png = tmp_path / "sim.npy", tmp_path / "sim.png"
    assert main(["similarity", str(path), "--out", str(out), "--variant", "tau_b", "--plot", str(png)]) == 0
    np.testing.assert_allclose(np.load(out), kendall_similarity(X, qid, variant="tau_b"), atol=1e-12)
    assert png.stat().st_size > 0
    capsys.readouterr()
    assert main(["select", "--method", "gas", "-k", "3", "--c", "0.5", "--importance", "pairwise",
                 "--similarity", "tau_b", "--json", str(path)]) == 0
    import json

    res = json.loads(capsys.readouterr().out)
    gas = GAS(n_features_to_select=3, c=0.5, importance="pairwise", similarity="tau_b").fit(X, y, qid=qid)
    assert res["selected_features"] == [int(j) + 1 for j in gas.selected_features_]
    np.testing.assert_allclose(res["scores"], gas.selection_weights_)


def test_plot_similarity_on_given_axes():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from rankselect.plotting import plot_similarity

    ax = Figure().add_subplot()
    sim = np.array([[1.0, -0.2], [-0.2, 1.0]])
    assert plot_similarity(sim, ax=ax, title="t") is ax
    assert ax.get_title() == "t"
    with pytest.raises(ValueError, match="square"):
        plot_similarity(np.ones((2, 3)))
    with pytest.raises(ValueError, match="labels"):
        plot_similarity(sim, labels=["a"])


def test_features_constant_within_every_query_come_last():
    # Feature 1 is constant inside each query (it only shifts between queries), feature 3 is
    # all zero: neither orders any documents, so GAS takes them only after the others even
    # when c penalises the informative ones below their importance.
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), 8)
    z = rng.normal(size=(qid.size, 2))
    X = np.column_stack([z[:, 0], qid * 1.0, z[:, 0] + 0.1 * z[:, 1], np.zeros(qid.size)])
    y = (z[:, 0] > 0).astype(float)
    gas = GAS(n_features_to_select=4, c=5.0, importance="pairwise").fit(X, y, qid=qid)
    assert list(gas.constant_features_) == [1, 3]
    assert set(gas.selected_features_[:2]) == {0, 2}
    assert set(gas.selected_features_[2:]) == {1, 3}
    # the literal Fig. 1 greedy (no `last`) would take a constant feature second
    sel, _ = gas_greedy(gas.importance_, gas.similarity_, 4, 5.0)
    assert sel[1] in (1, 3)
