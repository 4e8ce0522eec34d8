"""Greedy RankRLS below alpha 1e-8 (issue 46, item 4): the smallest alpha at which its
selection is proven exact is 1e-8 (the brute-force tests of ``test_greedy_exact.py`` and the
core's cover 1e-8 .. 1e4). Below it floating search reported the value of the subset before a
removal and a wrong best subset, and the plain and per-cost runs were off by up to 3.4 % on
degenerate data and 1.4e-7 with a duplicated column: every mode now refuses such an alpha with
one ValueError naming it and the bound, and runs at 1e-8 itself."""
import numpy as np
import pytest

from rankselect import GreedyRankRLS

REFUSED = r"alpha=1e-(9|12|16) is below 1e-8, the smallest alpha at which greedy RankRLS's selection is proven exact"


def duplicated_column(seed=46):
    """8 queries of 5 documents, column 3 a copy of column 0 (the 1.4e-7 reproducer's shape)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(8), 5)
    X = rng.normal(size=(qid.size, 6))
    X[:, 3] = X[:, 0]
    y = np.round(np.clip(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=qid.size), 0, 3))
    return X, y, qid


def degenerate(seed=46):
    """A singleton query and queries whose labels are constant (the 3.4 % reproducer's shape)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(6), [1, 4, 4, 5, 3, 6])
    X = rng.normal(size=(qid.size, 6))
    y = np.where(np.isin(qid, [1, 3]), 1.0, np.round(np.clip(X[:, 2] + rng.normal(size=qid.size), 0, 2)))
    return X, y, qid


MODES = {
    "plain": {},
    "floating": dict(floating=True),
    "costs": dict(feature_costs=[1, 2, 1, 3, 1, 2]),
    "budget": dict(budget=3.0),
    "groups": dict(feature_groups=["a", "a", "b", "b", "c", "c"]),
    "group costs": dict(feature_groups=["a", "a", "b", "b", "c", "c"], group_costs=[1, 2, 1], select_groups=False),
    "ndcg": dict(criterion="ndcg@3"),
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("alpha", [1e-9, 1e-12])
def test_every_mode_refuses_alpha_below_the_proven_bound(mode, alpha):
    for X, y, qid in (degenerate(), duplicated_column()):
        with pytest.raises(ValueError, match=REFUSED) as e:
            GreedyRankRLS(2, alpha=alpha, **MODES[mode]).fit(X, y, qid=qid)
        assert "use alpha >= 1e-8" in str(e.value)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_alpha_1e8_itself_runs(mode):
    X, y, qid = degenerate()
    sel = GreedyRankRLS(2, alpha=1e-8, **MODES[mode]).fit(X, y, qid=qid)
    assert len(sel.selected_features_) >= 1 and np.all(np.isfinite(sel.lqo_scores_))


def test_a_refused_fit_leaves_no_half_fitted_state():
    X, y, qid = duplicated_column()
    sel = GreedyRankRLS(2, alpha=1e-16)
    with pytest.raises(ValueError, match=REFUSED):
        sel.fit(X, y, qid=qid)
    assert not hasattr(sel, "coef_")
