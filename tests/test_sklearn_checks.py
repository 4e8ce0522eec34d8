"""scikit-learn's estimator checks on every public estimator and selector, and on a grouped
instance of every selector (``feature_groups``: pairs of adjacent columns, made at ``fit`` for
the width of each check's data; issue 40).

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
from sklearn.utils.validation import _num_features, _num_samples

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


#: the marker of a grouped instance: ``feature_groups`` becomes pairs of adjacent columns at fit
PAIRS = "pairs"


def pair_groups(n_features: int) -> list:
    """Groups of two adjacent columns (the last alone when ``n_features`` is odd)."""
    return [f"g{j // 2}" for j in range(n_features)]


def _grouped(cls, name: str):
    """A subclass of :func:`_with_qid` ``(cls)`` whose fit turns ``feature_groups=PAIRS`` into
    :func:`pair_groups` of the data's width for the fit (and back: the parameter is unchanged)."""
    base = _with_qid(cls)

    def fit(self, X, y=None, qid=None, **kw):
        marker = self.feature_groups
        if not (isinstance(marker, str) and marker == PAIRS):
            return base.fit(self, X, y, qid=qid, **kw)
        try:
            n = _num_features(X)
        except TypeError:  # a check's malformed X: the fit's own error
            n = None
        self.feature_groups = None if n is None else pair_groups(n)
        try:
            return base.fit(self, X, y, qid=qid, **kw)
        finally:
            self.feature_groups = marker

    return type(name, (base,), {"fit": fit, "__module__": __name__, "__qualname__": name, "__doc__": cls.__doc__})


# module-level names, so that the checks can pickle the wrapped estimators
RankRLS = _with_qid(rs.RankRLS)
GreedyRankRLS = _with_qid(rs.GreedyRankRLS)
GAS = _with_qid(rs.GAS)
RankSVM = _with_qid(rs.RankSVM)
SparseRankSVM = _with_qid(rs.SparseRankSVM)
FSMRank = _with_qid(rs.FSMRank)
FSMSVM = _with_qid(rs.FSMSVM)


GroupedGreedyRankRLS = _grouped(rs.GreedyRankRLS, "GroupedGreedyRankRLS")
GroupedGAS = _grouped(rs.GAS, "GroupedGAS")
GroupedNGAS = _grouped(rs.NGAS, "GroupedNGAS")
GroupedXGAS = _grouped(rs.XGAS, "GroupedXGAS")
GroupedHCAS = _grouped(rs.HCAS, "GroupedHCAS")
GroupedSparseRankSVM = _grouped(rs.SparseRankSVM, "GroupedSparseRankSVM")
GroupedFSMRank = _grouped(rs.FSMRank, "GroupedFSMRank")
GroupedFSMSVM = _grouped(rs.FSMSVM, "GroupedFSMSVM")
GroupedStabilitySelection = _grouped(rs.StabilitySelection, "GroupedStabilitySelection")
GroupedRecursiveElimination = _grouped(rs.RecursiveElimination, "GroupedRecursiveElimination")
GroupedForwardSelection = _grouped(rs.ForwardSelection, "GroupedForwardSelection")


def _grouped_instances():
    """A grouped instance of every selector (whole groups, except FSMRank: features)."""
    return [
        GroupedGreedyRankRLS(n_features_to_select=1, feature_groups=PAIRS),
        GroupedGAS(n_features_to_select=1, feature_groups=PAIRS),
        GroupedGAS(n_features_to_select=1, feature_groups=PAIRS, group_importance="joint"),
        GroupedNGAS(n_features_to_select=1, feature_groups=PAIRS),
        GroupedXGAS(n_features_to_select=1, feature_groups=PAIRS),
        GroupedHCAS(n_features_to_select=1, feature_groups=PAIRS),
        GroupedSparseRankSVM(penalty="group_lasso", solver="fista", max_iter=200, feature_groups=PAIRS),
        GroupedFSMRank(max_iter=50, feature_groups=PAIRS, select_groups=False),
        GroupedFSMSVM(n_features_to_select=1, max_iter=50, feature_groups=PAIRS),
        GroupedStabilitySelection(GAS(n_features_to_select=1), n_resamples=2, sample_fraction=1.0, threshold=0.5,
                                  random_state=0, feature_groups=PAIRS),
        # RankSVM in the loop: the checks' folds may hold one training query (RankRLS needs two)
        GroupedRecursiveElimination(rs.RankSVM(max_iter=10), n_features_to_select=1, cv=2, random_state=0,
                                    feature_groups=PAIRS),
        GroupedForwardSelection(rs.RankSVM(max_iter=10), n_features_to_select=1, cv=2, random_state=0,
                                feature_groups=PAIRS),
    ]


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


@parametrize_with_checks(_grouped_instances(), expected_failed_checks=_expected_failed)
def test_sklearn_compatible_grouped_selector(estimator, check):
    check(estimator)
