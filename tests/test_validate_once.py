"""Validate and group once per call (issue 22): during the ``fit`` of every estimator and
selector, ``_core.group_queries`` (the grouping) runs at most once and the qid check
(``rankselect._validation.check_qid``) at most once; the helpers below ``fit`` take the
validated, grouped data instead of ``(X, y, qid)``."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import rankselect as rs
from rankselect import _core, _validation

CHECK_QID = _validation.check_qid
GROUP_QUERIES = _core.group_queries


@pytest.fixture
def calls(monkeypatch):
    """Counts of the grouping and the qid check while the test runs: the binding reference
    the grouping code calls (``_core.group_queries``) and every module's reference to the
    one qid check are wrapped."""
    counts = {"group_queries": 0, "check_qid": 0}

    def group_queries(*args, **kwargs):
        counts["group_queries"] += 1
        return GROUP_QUERIES(*args, **kwargs)

    def check_qid(*args, **kwargs):
        counts["check_qid"] += 1
        return CHECK_QID(*args, **kwargs)

    monkeypatch.setattr(_core, "group_queries", group_queries)
    wrapped = 0
    for name, module in list(sys.modules.items()):
        if name == "rankselect" or name.startswith("rankselect."):
            for attr, value in list(vars(module).items()):
                if value is CHECK_QID:
                    monkeypatch.setattr(module, attr, check_qid)
                    wrapped += 1
    assert wrapped >= 2  # _validation itself and the modules that import it
    return counts


def _data(m_per_query=8, n_queries=12, n=6, seed=0):
    """Rows of several queries interleaved (the grouping is not the identity), graded labels."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, m_per_query)
    X = rng.normal(size=(qid.size, n))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=qid.size)), 0, 3)
    order = rng.permutation(qid.size)
    return X[order], y[order], qid[order]


X, Y, QID = _data()
N = X.shape[1]
COSTS = np.arange(1.0, N + 1)

ESTIMATORS = {
    "GreedyRankRLS": lambda: rs.GreedyRankRLS(n_features_to_select=3),
    "GreedyRankRLS-ndcg": lambda: rs.GreedyRankRLS(n_features_to_select=3, criterion="ndcg@5", convention="letor"),
    "GreedyRankRLS-costs": lambda: rs.GreedyRankRLS(n_features_to_select=3, feature_costs=COSTS, budget=6.0),
    "GAS-map-geng": lambda: rs.GAS(n_features_to_select=3),
    "GAS-pairwise-tau_b": lambda: rs.GAS(n_features_to_select=3, importance="pairwise", similarity="tau_b",
                                         absolute=True),
    "GAS-arrays": lambda: rs.GAS(n_features_to_select=3, importance=np.arange(N, dtype=float),
                                 similarity=np.eye(N)),
    "GAS-costs": lambda: rs.GAS(n_features_to_select=3, feature_costs=COSTS, budget=8.0),
    "RankRLS": lambda: rs.RankRLS(alpha=1.0),
    "RankRLS-list": lambda: rs.RankRLS(alpha=[0.1, 1.0, 10.0]),
    "RankSVM": lambda: rs.RankSVM(C=0.5),
    "RankSVM-nystroem": lambda: rs.RankSVM(kernel="nystroem", n_components=10, random_state=0),
    "RankSVM-rff": lambda: rs.RankSVM(kernel="rff", n_components=10, random_state=0),
    "SparseRankSVM": lambda: rs.SparseRankSVM(C=0.5),
    "SparseRankSVM-mcp": lambda: rs.SparseRankSVM(C=0.5, penalty="mcp", max_reweightings=3),
    "FSMRank": lambda: rs.FSMRank(),
    "FSMSVM": lambda: rs.FSMSVM(n_features_to_select=3, lambda2=1e-4),
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_fit_validates_and_groups_once(name, calls):
    est = ESTIMATORS[name]()
    est.fit(X, Y, qid=QID)
    assert calls == {"group_queries": 1, "check_qid": 1}, name


@pytest.mark.parametrize("name", ["Nystroem", "RandomFourierFeatures"])
def test_kernel_maps_neither_check_nor_group_qid(name, calls):
    getattr(rs, name)(n_components=5, random_state=0).fit(X, Y, qid=QID)
    assert calls == {"group_queries": 0, "check_qid": 0}


def test_paths_and_lqo_validate_and_group_once(calls):
    def once(call):
        before = dict(calls)
        call()
        assert {k: calls[k] - before[k] for k in calls} == {"group_queries": 1, "check_qid": 1}

    once(lambda: rs.sparse_path(X, Y, QID, n_Cs=3))
    once(lambda: rs.SparseRankSVM().c_min(X, Y, QID))
    once(lambda: rs.RankRLS().path(X, Y, QID, alphas=[0.5, 2.0]))
    model = rs.RankRLS(alpha=2.0).fit(X, Y, qid=QID)
    once(lambda: model.lqo_predict(X, Y, QID))
    # the public helpers validate their own arguments, once
    once(lambda: rs.feature_importance(X, Y, QID, measure="ndcg@5"))
    once(lambda: rs.kendall_similarity(X, QID))


def test_stability_selection_validates_once_per_inner_fit(calls):
    n_resamples = 4
    rs.StabilitySelection(rs.GreedyRankRLS(n_features_to_select=2), n_resamples=n_resamples,
                          random_state=0).fit(X, Y, qid=QID)
    # its own check and grouping (to draw whole queries), then one per inner fit
    assert calls == {"group_queries": 1 + n_resamples, "check_qid": 1 + n_resamples}


def test_the_counts_can_fail(calls):
    """The wrappers see a second grouping or check (the test above would fail on one)."""
    rs.QueryGroups.from_qid(QID.astype(float))  # a float qid is checked, then grouped
    rs.QueryGroups.from_qid(QID)
    assert calls == {"group_queries": 2, "check_qid": 1}

