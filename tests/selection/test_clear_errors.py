"""Clear errors (issue #35 item 9): labels above 30 with LightGBM, rankers that break the
scikit-learn contract, old pickles, Markdown cells, plain numbers in messages."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone

import rankselect as rs
from rankselect.analysis import stats
from rankselect.selection.wrapper import ForwardSelection, RecursiveElimination


def _problem(top=2):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = rng.integers(0, 3, 120).astype(float)
    y[::17] = top
    return X, y, np.repeat(np.arange(12), 10)


def test_lambdamart_importance_takes_labels_above_30():
    pytest.importorskip("lightgbm")
    X, y, qid = _problem(top=40)
    sel = rs.NGAS(2, importance="lambdamart").fit(X, y, qid)
    assert sel.selected_features_.size == 2 and np.isfinite(sel.importance_).all()


def test_lightgbm_ranker_in_the_loop_takes_labels_above_30():
    lightgbm = pytest.importorskip("lightgbm")
    X, y, qid = _problem(top=959)
    sel = ForwardSelection(lightgbm.LGBMRanker(n_estimators=5, verbose=-1), n_features_to_select=2).fit(X, y, qid)
    assert sel.selected_features_.size == 2


def test_label_gain_is_lightgbms_default_up_to_30():
    from rankselect.selection.importance import lightgbm_label_gain

    assert lightgbm_label_gain(np.arange(31)) is None  # earlier results do not move
    assert lightgbm_label_gain([0, 3, 33]) == [2.0**level - 1 for level in range(34)]


class _NoneFit(rs.RankRLS):
    def fit(self, X, y, qid=None):
        super().fit(X, y, qid=qid)


class _Complex(rs.RankRLS):
    def predict(self, X):
        return super().predict(X) + 1j


class _NaN(rs.RankRLS):
    def predict(self, X):
        return np.full(np.shape(X)[0], np.nan)


class _Short(rs.RankRLS):
    def predict(self, X):
        return super().predict(X)[1:]


@pytest.mark.parametrize("cls", [ForwardSelection, RecursiveElimination])
@pytest.mark.parametrize("ranker, error, match", [
    (_NoneFit(), TypeError, "_NoneFit.fit returned NoneType: fit must return self"),
    (_Complex(), TypeError, "_Complex.predict returned complex scores"),
    (_NaN(), ValueError, "_NaN.predict returned a non-finite score"),
    (_Short(), ValueError, r"_Short.predict returned \d+ scores for \d+ rows"),
])
def test_rankers_breaking_the_contract(cls, ranker, error, match):
    X, y, qid = _problem()
    with pytest.raises(error, match=match):
        cls(ranker, n_features_to_select=2).fit(X, y, qid)


def test_evaluate_path_refuses_complex_scores():
    from rankselect.analysis.inspection import evaluate_path

    X, y, qid = _problem()
    with pytest.raises(TypeError, match="complex"):
        evaluate_path([0, 1], _Complex(), (X, y, qid), (X, y, qid))
    with pytest.raises(TypeError, match="fit must return self"):
        evaluate_path([0, 1], _NoneFit(), (X, y, qid), (X, y, qid))


@pytest.mark.parametrize("est", [rs.HCAS(3, "ward.D"), rs.GreedyRankRLS(2, floating=True),
                                 ForwardSelection(rs.RankRLS(), cv=4)])
def test_old_pickles_get_new_parameters_defaults(est):
    X, y, qid = _problem()
    fitted = clone(est).fit(X, y, qid)
    state = fitted.__getstate__()
    missing = sorted(est.get_params(deep=False))[-1]
    del state[missing]  # a pickle made before this parameter existed
    old = type(est).__new__(type(est))
    old.__setstate__(state)
    loaded = pickle.loads(pickle.dumps(old))
    assert getattr(loaded, missing) == getattr(type(est)(*(() if "estimator" not in est.get_params(deep=False)
                                                           else (rs.RankRLS(),))), missing)
    repr(loaded)
    assert clone(loaded).get_params(deep=False).keys() == est.get_params(deep=False).keys()
    np.testing.assert_array_equal(loaded.selected_features_, fitted.selected_features_)


def test_markdown_cells_are_escaped():
    rng = np.random.default_rng(0)
    base = rng.random(30)
    table = stats.compare({"a|b\nc": base + 0.01, "base": base}, "base", n_resamples=200,
                          random_state=0).to_markdown()
    row = [line for line in table.splitlines() if line.startswith("| a")]
    assert row and row[0].startswith("| a\\|b c |")
    assert all(line.count("|") - line.count("\\|") == 7 for line in table.splitlines()[2:])


def test_label_messages_show_plain_numbers():
    with pytest.raises(ValueError, match=r"row 2 has -1\.0$"):
        rs.metrics.ndcg(np.array([0, 1, -1.0, 0]), np.arange(4.0), np.array([1, 1, 2, 2]))
