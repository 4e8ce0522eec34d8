"""RankRLS on wide data (#35 item 8a): more features than rows is solved in the dual
(m x m), with the primal's coefficients and LQO errors to rounding."""
from __future__ import annotations

import numpy as np
import pytest

from _rankrls_reference import center, lqo, ridge
from rankselect import GreedyRankRLS, RankRLS


def _data(m, n, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(m // 6), 6)
    return rng.normal(size=(m, n)), rng.integers(0, 3, size=m).astype(float), qid


@pytest.mark.parametrize("n", [29, 31, 37, 80])  # m = 30: the primal below, the dual above
@pytest.mark.parametrize("alpha", [1e-3, 1.0, 20.0])
def test_wide_fit_equals_the_primal_reference(n, alpha):
    X, y, qid = _data(30, n)
    model = RankRLS(alpha=alpha).fit(X, y, qid=qid)
    want = ridge(center(X, qid), center(y, qid), alpha)
    np.testing.assert_allclose(model.coef_, want, rtol=1e-8, atol=1e-10 * np.abs(want).max())
    np.testing.assert_allclose(model.lqo_errors_[0], lqo(X, y, qid, alpha)[0], rtol=1e-8)


def test_wide_alpha_path_equals_the_primal_reference():
    X, y, qid = _data(30, 45, seed=3)
    alphas = [1e-2, 0.3, 5.0]
    path = RankRLS().path(X, y, qid=qid, alphas=alphas)
    for a, coef, err in zip(alphas, path.coefs, path.lqo_errors):
        np.testing.assert_allclose(coef, ridge(center(X, qid), center(y, qid), a), rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(err, lqo(X, y, qid, a)[0], rtol=1e-8)
    model = RankRLS(alpha=alphas).fit(X, y, qid=qid)
    np.testing.assert_allclose(model.lqo_errors_, path.lqo_errors, rtol=1e-12)


def test_wide_memory_rules_name_the_right_dimension():
    import rankselect

    X, y, qid = _data(60, 3000)
    with rankselect.config_context(max_memory=10**6):
        with pytest.raises(MemoryError, match=r"dual kernel matrix 60 x 60"):
            RankRLS().fit(X, y, qid=qid)
        # greedy RankRLS on wide data keeps no 3000 x 3000 matrix (#38): its own rule says so
        with pytest.raises(MemoryError, match=r"60 rows x 3000 features \(wide data"):
            GreedyRankRLS(3).fit(X, y, qid=qid)


@pytest.mark.parametrize("n", [31, 37, 80, 300])  # m = 30: the dual
@pytest.mark.parametrize("alpha", [1e-3, 1.0, 20.0])
def test_wide_lqo_predictions_equal_the_refits(n, alpha):
    """rankrls_lqo (lqo_predict) in the dual for n > m: the refit per held-out query's scores."""
    X, y, qid = _data(30, n, seed=n)
    X += 5.0  # raw scores, not centred ones
    model = RankRLS(alpha=alpha).fit(X, y, qid=qid)
    want = lqo(X, y, qid, alpha)[1]
    np.testing.assert_allclose(model.lqo_predict(X, y, qid), want, rtol=1e-8, atol=1e-9 * np.abs(want).max())
