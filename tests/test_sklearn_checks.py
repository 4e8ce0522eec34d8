"""scikit-learn's estimator checks on every public estimator and selector.

The checks call ``fit(X, y)`` without query ids; a test-only subclass supplies a qid of
pseudo-random queries of about 5 rows when none is passed (the same qid for the same number
of rows, so that refits and ``score`` agree). Every check passes: ``EXPECTED_FAILED`` (the
exclusion list, each entry with its reason) is empty. A one-row data set is one query, which
RankRLS and GreedyRankRLS refuse (leave-query-out needs two queries) with a ValueError that
names qid and n_samples=1, as scikit-learn's ``check_fit2d_1sample`` expects.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.validation import _num_samples

import rankselect as rs
from rankselect.exceptions import DegenerateDataWarning


def pseudo_qid(n_rows: int) -> np.ndarray:
    """Query ids of queries of about 5 rows, in a pseudo-random (seeded by n) order."""
    rng = np.random.default_rng(n_rows)
    n_queries = max(1, int(round(n_rows / 5)))
    return rng.permutation(np.arange(n_rows) % n_queries)


def _with_qid(cls):
    """A subclass of ``cls`` whose fit / score supply :func:`pseudo_qid` when qid is None."""

    def fit(self, X, y=None, qid=None, **kw):
        if qid is None:
            qid = pseudo_qid(_num_samples(X))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)  # e.g. 1-row data
            return cls.fit(self, X, y, qid=qid, **kw)

    ns = {"fit": fit, "__module__": __name__, "__doc__": cls.__doc__}
    if hasattr(cls, "score"):
        def score(self, X, y, qid=None):
            if qid is None:
                qid = pseudo_qid(_num_samples(X))
            return cls.score(self, X, y, qid=qid)

        ns["score"] = score
    return type(cls.__name__, (cls,), ns)


# module-level names, so that the checks can pickle the wrapped estimators
RankRLS = _with_qid(rs.RankRLS)
GreedyRankRLS = _with_qid(rs.GreedyRankRLS)
GAS = _with_qid(rs.GAS)
RankSVM = _with_qid(rs.RankSVM)
SparseRankSVM = _with_qid(rs.SparseRankSVM)
FSMRank = _with_qid(rs.FSMRank)
FSMSVM = _with_qid(rs.FSMSVM)


def _instances():
    # small iteration counts / components keep the checks fast
    return [
        RankRLS(),
        GreedyRankRLS(n_features_to_select=1),
        GreedyRankRLS(n_features_to_select=1, criterion="ndcg@10"),
        GAS(n_features_to_select=1),
        RankSVM(max_iter=20),
        RankSVM(kernel="rff", n_components=10, max_iter=20, random_state=0),
        SparseRankSVM(max_iter=200, max_reweightings=2),
        SparseRankSVM(penalty="log", max_iter=200, max_reweightings=2),
        FSMRank(max_iter=50),
        FSMSVM(n_features_to_select=1, max_iter=50),
        rs.Nystroem(n_components=10, random_state=0),
        rs.RandomFourierFeatures(n_components=10, random_state=0),
    ]


#: (class name, check name) -> reason. Empty: every check passes.
EXPECTED_FAILED: dict = {}


def _expected_failed(estimator):
    name = type(estimator).__name__
    return {check: reason for (cls, check), reason in EXPECTED_FAILED.items() if cls == name}


@parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
