"""scikit-learn's searches seen from a rankselect fit (issue 40, left from issue 35):
``GridSearchCV(cv=GroupKFold)`` with metadata routing off raises, naming
``set_config(enable_metadata_routing=True)`` (it ended with NaN scores after a warning per
split), and a row splitter such as ``KFold`` warns that it splits queries."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, ShuffleSplit, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import rankselect as rs
from rankselect.metrics import make_scorer


@pytest.fixture(scope="module")
def data():
    d = rs.data.datasets.load_example("train")
    return d.X, d.y, d.qid


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def test_a_search_with_routing_off_raises_naming_set_config(data):
    X, y, qid = data
    with pytest.raises(ValueError, match=r"enable_metadata_routing=True"):  # in "All the 6 fits failed"
        GridSearchCV(rs.RankSVM(), {"C": [0.1, 1.0]}, cv=GroupKFold(3)).fit(X, y, qid=qid, groups=qid)
    with pytest.raises(ValueError, match=r"^RankSVM inside a scikit-learn search .* metadata routing off"):
        GridSearchCV(rs.RankSVM(), {"C": [0.1, 1.0]}, cv=GroupKFold(3), error_score="raise").fit(
            X, y, qid=qid, groups=qid)


def test_a_pipeline_with_routing_off_raises_too(data):
    """Without routing a pipeline takes ``rankrls__qid``; its score still gets no qid."""
    X, y, qid = data
    pipe = make_pipeline(StandardScaler(), rs.RankRLS())
    with pytest.raises(ValueError, match=r"^RankRLS inside a scikit-learn search .*enable_metadata_routing=True"):
        GridSearchCV(pipe, {"rankrls__alpha": [0.1, 1.0]}, cv=GroupKFold(3), error_score="raise").fit(
            X, y, rankrls__qid=qid, groups=qid)


def test_a_rankselect_scorer_with_routing_off_raises_too(data):
    X, y, qid = data
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        cross_validate(rs.RankSVM(), X, y, groups=qid, cv=GroupKFold(3), scoring={"ndcg": make_scorer("ndcg@10")},
                       params={"qid": qid}, error_score="raise")


def test_a_scorer_without_qid_runs_with_routing_off(data):
    """The check refuses only what would fail: here r2 needs no query ids."""
    X, y, qid = data
    search = GridSearchCV(rs.RankSVM(), {"C": [0.1, 1.0]}, cv=GroupKFold(3), scoring="r2")
    assert np.isfinite(search.fit(X, y, qid=qid, groups=qid).best_score_)


@pytest.mark.parametrize("cv", [KFold(3, shuffle=True, random_state=0), ShuffleSplit(3, random_state=0)])
def test_a_row_splitter_warns_that_it_splits_queries(data, routing, cv):
    X, y, qid = data
    with pytest.warns(UserWarning, match="puts rows of one query on both sides.*GroupKFold"):
        GridSearchCV(rs.RankSVM(), {"C": [0.1, 1.0]}, cv=cv).fit(X, y, qid=qid)


def test_query_splits_run_without_a_warning(data, routing):
    X, y, qid = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search = GridSearchCV(rs.RankSVM(), {"C": [0.1, 1.0]}, cv=GroupKFold(3)).fit(X, y, qid=qid, groups=qid)
        scores = cross_validate(make_pipeline(StandardScaler(), rs.RankRLS()), X, y, cv=GroupKFold(3),
                                params={"qid": qid, "groups": qid})["test_score"]
    assert np.isfinite(search.best_score_) and np.isfinite(scores).all()


def test_outside_a_search_nothing_is_checked(data):
    X, y, qid = data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rs.RankSVM().fit(X, y, qid=qid)
