"""Permutation importance per feature group: the group's columns permuted jointly within
each query (issue 33)."""
from __future__ import annotations

import numpy as np
import pytest

import rankselect as rs
from rankselect.analysis.inspection import permutation_importance
from rankselect.analysis.stats.paired import mean_confidence_interval


class _Scorer:
    """A fitted 'ranker' whose score is a fixed function of the columns."""

    def __init__(self, fn):
        self.fn = fn

    def predict(self, X):
        return self.fn(np.asarray(X, dtype=np.float64))


@pytest.fixture(scope="module")
def example():
    train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    return rs.RankRLS(alpha=1.0).fit(*train), vali


def _joint_problem(seed=0, n_queries=60, per_query=12):
    rng = np.random.default_rng(seed)
    m = n_queries * per_query
    qid = np.repeat(np.arange(n_queries), per_query)
    s = rng.normal(size=m)  # the signal
    u = 10.0 * rng.normal(size=m)  # a large nuisance shared by columns 0 and 1
    y = (s > 0.5).astype(float) + (s > 1.2)
    X = np.column_stack([s + u, u, rng.normal(size=m), rng.normal(size=m)])
    X[:, 3] = X[:, 2]  # two copies
    return X, y, qid


def test_groups_of_one_column_equal_the_feature_importance(example):
    model, vali = example
    n = vali.X.shape[1]
    per_feature = permutation_importance(model, *vali, n_repeats=3, random_state=7)
    per_group = permutation_importance(model, *vali, n_repeats=3, random_state=7,
                                       feature_groups=[f"f{j}" for j in range(n)])
    for field in ("importances_mean", "importances_std", "importances", "per_query", "ci_low", "ci_high"):
        np.testing.assert_array_equal(getattr(per_group, field), getattr(per_feature, field), err_msg=field)
    assert per_group.groups.tolist() == [f"f{j}" for j in range(n)] and per_feature.groups is None


def test_a_group_that_carries_the_signal_only_jointly():
    X, y, qid = _joint_problem()
    # the score needs both columns: x0 - x1 = s; either alone is swamped by the nuisance u
    model = _Scorer(lambda Z: Z[:, 0] - Z[:, 1])
    imp = permutation_importance(model, X, y, qid, n_repeats=5, random_state=0,
                                 feature_groups={"pair": [0, 1], "copies": [2, 3]})
    assert imp.groups.tolist() == ["pair", "copies"]
    assert imp.ci_low[0] > 0.2  # shuffling the pair together destroys the signal
    np.testing.assert_array_equal(imp.importances_mean[1], 0.0)  # unused columns


def test_the_same_permutation_is_applied_to_all_columns_of_a_group():
    X, y, qid = _joint_problem(1)
    # the ranker punishes any disagreement between the two copies 2 and 3
    model = _Scorer(lambda Z: (Z[:, 0] - Z[:, 1]) - 100.0 * np.abs(Z[:, 2] - Z[:, 3]))
    joint = permutation_importance(model, X, y, qid, n_repeats=4, random_state=0,
                                   feature_groups=["a", "b", "copies", "copies"])
    alone = permutation_importance(model, X, y, qid, n_repeats=4, random_state=0, features=[2, 3])
    np.testing.assert_array_equal(joint.per_query[2], 0.0)  # a joint permutation keeps the copies equal
    assert (alone.importances_mean > 0.2).all()  # shuffling one copy alone breaks them apart


def test_group_intervals_are_over_queries_and_cover_the_mean(example):
    model, vali = example
    groups = ["first"] * 11 + ["second"] * 11
    imp = permutation_importance(model, *vali, n_repeats=3, random_state=0, feature_groups=groups)
    assert imp.per_query.shape == (2, np.unique(vali.qid).size)
    np.testing.assert_allclose(imp.importances_mean, imp.per_query.mean(axis=1))
    for g in range(2):
        lo, hi = mean_confidence_interval(imp.per_query[g], 0.95, "t")
        assert imp.ci_low[g] == pytest.approx(lo) and imp.ci_high[g] == pytest.approx(hi)
        assert imp.ci_low[g] <= imp.importances_mean[g] <= imp.ci_high[g]


def test_the_t_interval_covers_the_true_group_importance_at_its_level():
    # queries drawn again and again: the interval over queries covers the population mean drop
    rng = np.random.default_rng(3)
    model = _Scorer(lambda Z: Z[:, 0] - Z[:, 1])
    big = _joint_problem(99, n_queries=3000)
    truth = permutation_importance(model, *big, n_repeats=1, random_state=0,
                                   feature_groups=[0, 0, 1, 1]).importances_mean[0]
    covered = 0
    for t in range(40):
        X, y, qid = _joint_problem(int(rng.integers(1 << 30)), n_queries=40)
        imp = permutation_importance(model, X, y, qid, n_repeats=1, random_state=t, feature_groups=[0, 0, 1, 1])
        covered += bool(imp.ci_low[0] <= truth <= imp.ci_high[0])
    assert covered >= 32  # 95 % nominal; 32 of 40 fails with probability < 1e-3


def test_groups_with_a_dataframe_and_bad_arguments(example):
    pd = pytest.importorskip("pandas")
    model, vali = example
    frame = pd.DataFrame(vali.X, columns=[f"c{j}" for j in range(vali.X.shape[1])])
    groups = ["first"] * 11 + ["second"] * 11
    a = permutation_importance(model, frame, vali.y, vali.qid, n_repeats=2, random_state=0, feature_groups=groups)
    b = permutation_importance(model, vali.X, vali.y, vali.qid, n_repeats=2, random_state=0, feature_groups=groups)
    np.testing.assert_array_equal(a.per_query, b.per_query)
    with pytest.raises(ValueError, match="not both"):
        permutation_importance(model, *vali, features=[0], feature_groups=groups)
    with pytest.raises(ValueError, match="21 labels but X has 22"):
        permutation_importance(model, *vali, feature_groups=groups[:-1])
