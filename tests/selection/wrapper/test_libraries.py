"""The ranker-in-the-loop selectors with XGBoost and CatBoost (skipped when not installed:
they are in the ``bench`` extra, not ``test``), and with LightGBM on MQ2008 (skipped without
the shared data); scikit-learn's estimator checks with a rankselect ranker in the loop."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import _num_samples

import rankselect as rs
from conftest import shared_path
from rankselect.exceptions import DegenerateDataWarning
from rankselect.selection.wrapper.adapters import make_adapter


@pytest.fixture(scope="module")
def data():
    return rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")


def test_xgboost_ranker_in_the_loop(data):
    xgboost = pytest.importorskip("xgboost")
    tr, va = data
    est = xgboost.XGBRanker(n_estimators=20, max_depth=3, n_jobs=1)
    assert make_adapter(est, 5).kind == "xgboost"
    sel = rs.RecursiveElimination(est, n_features_to_select=4, step=0.5, importance="native",
                                  validation=(va.X, va.y, va.qid), early_stopping_rounds=5, random_state=0)
    sel.fit(tr.X, tr.y, tr.qid)
    assert sel.n_features_ == 4 and sel.estimator_.n_features_in_ == 4
    again = rs.RecursiveElimination(est, n_features_to_select=4, step=0.5, importance="native",
                                    validation=(va.X, va.y, va.qid), early_stopping_rounds=5, random_state=0)
    np.testing.assert_array_equal(again.fit(tr.X, tr.y, tr.qid).selected_features_, sel.selected_features_)


def test_catboost_ranker_in_the_loop(data):
    catboost = pytest.importorskip("catboost")
    tr, va = data
    est = catboost.CatBoostRanker(iterations=20, depth=3, thread_count=1)
    assert make_adapter(est, 5).kind == "catboost"
    sel = rs.ForwardSelection(est, n_features_to_select=2, candidates=np.arange(4),
                              validation=(va.X, va.y, va.qid), early_stopping_rounds=5, random_state=0)
    sel.fit(tr.X, tr.y, tr.qid)
    assert sel.n_features_ == 2 and set(sel.selected_features_) <= {0, 1, 2, 3}
    # a CatBoost model that is not a ranker cannot take groups
    with pytest.raises(TypeError, match="no query groups"):
        make_adapter(catboost.CatBoostClassifier())


def test_seeded_elimination_on_mq2008():
    lightgbm = pytest.importorskip("lightgbm")
    d = shared_path("MQ2008", "Fold1")
    tr, va = rs.load_letor(d / "train.txt", n_features=46), rs.load_letor(d / "vali.txt", n_features=46)
    ranker = lightgbm.LGBMRanker(n_estimators=20, num_leaves=15, n_jobs=1, verbose=-1)
    sel = rs.RecursiveElimination(ranker, n_features_to_select=5, step=0.4, candidates=rs.GreedyRankRLS(),
                                  n_candidates=12, validation=(va.X, va.y, va.qid), random_state=0)
    sel.fit(tr.X, tr.y, tr.qid)
    assert sel.n_features_ == 5 and set(sel.selected_features_) <= set(sel.candidates_)
    assert sel.path_.n_features[0] == 12 and 0.3 < sel.path_.scores[-1] < 1


def _pseudo_qid(n_rows: int) -> np.ndarray:
    rng = np.random.default_rng(n_rows)
    n_queries = max(2, int(round(n_rows / 5)))
    return rng.permutation(np.arange(n_rows) % n_queries)


class RankerLoopRFE(rs.RecursiveElimination):
    """The estimator checks call fit(X, y) without qid: pseudo-random queries of ~5 rows."""

    def fit(self, X, y=None, qid=None):
        if qid is None:
            qid = _pseudo_qid(_num_samples(X))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            return super().fit(X, y, qid=qid)


@parametrize_with_checks([RankerLoopRFE(rs.RankSVM(max_iter=20), n_features_to_select=1, importance="native", cv=2)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
