"""Issue 46: exact ties go to the lowest index, and a ranking-measure criterion is not decided
by rounding residue. Values within their joint rounding bound (the accuracy monitor's) tie,
and held-out scores within theirs rank as ties (the metric's tie convention). The Dask run
agrees: ``tests/dask/test_dask_ties.py``."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import rankselect as rs
from _planted_ties import all_tied, constant_labels, reproducer, tied_value


def _fit(X, y, qid, k, alpha, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.exceptions.DegenerateDataWarning)
        return rs.GreedyRankRLS(k, alpha=alpha, **kw).fit(X, y, qid=qid)


@pytest.mark.parametrize("alpha", [1e-3, 0.1, 1.0, 10.0, 1e3])
def test_reproducer_every_subset_scores_5_875(alpha):
    """A singleton query and a query of 8: every subset scores exactly 5.875; on main before
    the fix rounding chose e.g. [1 0 3] or [5 0 1]."""
    for seed in range(10):
        X, y, qid = reproducer(seed)
        sel = _fit(X, y, qid, 3, alpha)
        np.testing.assert_array_equal(sel.selected_features_, [0, 1, 2])
        np.testing.assert_allclose(sel.lqo_scores_, 5.875, rtol=1e-12)
        costs = _fit(X, y, qid, 3, alpha, feature_costs=np.ones(6))
        np.testing.assert_array_equal(costs.selected_features_, [0, 1, 2])


def test_planted_exact_ties_go_to_the_lowest_index():
    """200 problems whose every subset has the same exact LQO value (alpha 1e-3..1e3): the
    lowest indices, each value the tied one (on main before the fix, 104 of them chose another
    feature somewhere)."""
    for seed in range(200):
        X, y, qid, alpha, k = all_tied(np.random.default_rng(seed))
        sel = _fit(X, y, qid, k, alpha)
        np.testing.assert_array_equal(sel.selected_features_, np.arange(k), err_msg=f"seed {seed}")
        np.testing.assert_allclose(sel.lqo_scores_, tied_value(y, qid), rtol=1e-11)


@pytest.mark.parametrize("criterion", ["ndcg@3", "map"])
def test_ranking_criterion_on_queries_that_teach_nothing(criterion):
    """100 problems whose labels vary within one query only: every subset has the same
    ranking measure (the varying query's exact hold-out scores are all 0, a tie of every
    document); the lowest indices and a constant path (on main before the fix, 45 of 100
    chose by rounding residue, with lqo_scores_ moving along the path)."""
    for seed in range(100):
        X, y, qid, alpha, k = constant_labels(np.random.default_rng(seed))
        sel = _fit(X, y, qid, k, alpha, criterion=criterion)
        np.testing.assert_array_equal(sel.selected_features_, np.arange(k), err_msg=f"seed {seed}")
        assert np.all(sel.lqo_scores_ == sel.lqo_scores_[0]), (seed, sel.lqo_scores_)
        # the exact value: the varying query's measure with all documents tied, the others' fixed
        scores = np.zeros(len(y))
        expected = rs.metrics.compute(criterion, y, scores, qid)
        assert sel.lqo_scores_[0] == pytest.approx(expected, rel=1e-12)


def test_ties_of_the_all_tied_family_under_a_ranking_measure():
    """Features varying within one query: every held-out score is an exact tie too."""
    for seed in range(60):
        X, y, qid, alpha, k = all_tied(np.random.default_rng(seed), alpha_range=(-1.0, 3.0))
        sel = _fit(X, y, qid, k, alpha, criterion="ndcg@3")
        np.testing.assert_array_equal(sel.selected_features_, np.arange(k), err_msg=f"seed {seed}")
        assert np.all(sel.lqo_scores_ == sel.lqo_scores_[0])


_DETERMINISM = """
import json, sys, numpy as np, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from rankselect import GreedyRankRLS
from _planted_ties import all_tied, constant_labels
out = []
for seed in range(20):
    for make, crit in ((all_tied, "squared"), (constant_labels, "ndcg@3")):
        X, y, qid, alpha, k = make(np.random.default_rng(seed))
        g = GreedyRankRLS(k, alpha=alpha, criterion=crit).fit(X, y, qid=qid)
        out.append([g.selected_features_.tolist(), g.lqo_scores_.tolist(), g.coef_path_.tolist()])
print(json.dumps(out))
"""


def test_ties_same_bits_at_any_thread_count_and_simd_level():
    from rankselect import _core

    tests_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # every level on these problems: benches/simd_bitwise.py (tests/test_simd.py)
    runs = [("1", _core.simd_levels()[-1]), ("2", "baseline")]
    out = []
    for threads, level in runs:
        env = {**os.environ, "RAYON_NUM_THREADS": threads, "RANKSELECT_SIMD": level}
        r = subprocess.run([sys.executable, "-c", _DETERMINISM, tests_dir], env=env, capture_output=True,
                           text=True, check=True)
        out.append(r.stdout)
    assert all(o == out[0] for o in out), runs
