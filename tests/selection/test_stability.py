"""StabilitySelection: resampling whole queries; fold selection frequencies."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import rankselect as rs
from rankselect.data.datasets import make_ranking
from rankselect.selection.stability import StabilitySelection, fold_selection_frequencies, nogueira_stability


@pytest.fixture(scope="module")
def data():
    return make_ranking(n_queries=80, docs_per_query=(8, 16), n_informative=4, n_redundant=0, n_noise=12,
                        random_state=11)


def test_planted_features_near_one_noise_near_zero(data):
    X, y, qid = data
    st = StabilitySelection(rs.GreedyRankRLS(n_features_to_select=4, alpha=1.0), n_resamples=20,
                            random_state=0).fit(X, y, qid=qid)
    f = st.selection_frequencies_
    assert f.shape == (X.shape[1],)
    assert (f[data.truth.informative] >= 0.9).all()
    assert (f[data.truth.noise] <= 0.1).all()
    assert set(st.selected_features_) == set(data.truth.informative)
    assert st.get_support().sum() == 4 and st.transform(X).shape == (X.shape[0], 4)
    assert st.stability_ > 0.8
    # the order's variability: mean and std of each feature's position where selected
    top = int(data.truth.informative[0])
    pos = [list(o).index(top) + 1 for o in st.orders_ if top in o]
    assert st.mean_position_[top] == pytest.approx(np.mean(pos))
    assert st.position_std_[top] == pytest.approx(np.std(pos, ddof=1))
    assert ((st.mean_position_[data.truth.informative] >= 1) & (st.mean_position_[data.truth.informative] <= 4)).all()
    assert np.isnan(st.mean_position_[data.truth.noise[f[data.truth.noise] == 0]]).all()


def test_subsamples_are_whole_queries_and_reproducible(data):
    X, y, qid = data
    make = lambda: StabilitySelection(rs.GAS(n_features_to_select=3, c=0.1), n_resamples=4,  # noqa: E731
                                      sample_fraction=0.25, random_state=5).fit(X, y, qid=qid)
    a, b = make(), make()
    assert all(len(s) == 20 and len(set(s)) == 20 for s in a.subsamples_)
    assert all(np.array_equal(s, t) for s, t in zip(a.subsamples_, b.subsamples_))
    assert np.array_equal(a.supports_, b.supports_)
    # each subsample's selection is the selector fitted on exactly those queries
    rows = np.isin(qid, a.subsamples_[0])
    gas = rs.GAS(n_features_to_select=3, c=0.1).fit(X[rows], y[rows], qid=qid[rows])
    assert np.array_equal(a.orders_[0], gas.selected_features_)


def test_nogueira_stability_hand_computed():
    same = np.array([[1, 1, 0, 0]] * 3, dtype=bool)
    assert nogueira_stability(same) == pytest.approx(1.0)
    Z = np.array([[1, 0, 0], [0, 1, 0]], dtype=bool)
    # p = (.5, .5, 0), s2 = 2 * (.25, .25, 0), kbar = 1, d = 3: 1 - (1/3) / (2/9) = -0.5
    assert nogueira_stability(Z) == pytest.approx(-0.5)
    with pytest.raises(ValueError):
        nogueira_stability(Z[:1])


def test_bad_parameters(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="sample_fraction"):
        StabilitySelection(rs.GAS(), sample_fraction=0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="at least 2 queries"):
        StabilitySelection(rs.GAS(), sample_fraction=0.01).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="n_resamples"):
        StabilitySelection(rs.GAS(), n_resamples=1).fit(X, y, qid=qid)


def test_fold_selection_frequencies():
    fold = lambda sel: {"m": SimpleNamespace(selected_features=sel)}  # noqa: E731
    result = SimpleNamespace(methods=["m"], n_features=4, folds=[fold([0, 2]), fold([0]), fold([0, 3]), fold([])])
    assert fold_selection_frequencies(result)["m"].tolist() == [0.75, 0.0, 0.25, 0.25]


def test_plot_selection_frequencies():
    pytest.importorskip("matplotlib")
    from rankselect.plotting import plot_selection_frequencies

    ax = plot_selection_frequencies({"a": [0.1, 1.0, 0.0], "b": [0.5, 0.5, 0.5]}, threshold=0.6)
    assert len(ax.patches) == 6 and [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]
    with pytest.raises(ValueError, match="shape"):
        plot_selection_frequencies({"a": [0.1], "b": [0.1, 0.2]})
