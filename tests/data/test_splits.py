"""Cross-validation by query (issue #35 item 2): ``query_splits`` and the ranker-in-the-loop
selectors never put a query on both sides of a fold."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import (
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    ShuffleSplit,
    StratifiedKFold,
)

import rankselect as rs
from rankselect.data.splits import query_splits
from rankselect.selection import FitPlan
from rankselect.selection.wrapper import ForwardSelection, RecursiveElimination
from rankselect.selection.wrapper.adapters import make_adapter
from rankselect.selection.wrapper.loop import LoopRun

QID = np.repeat(np.arange(40, 52), 10)[np.random.default_rng(1).permutation(120)]  # 12 queries, rows mixed


def _problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = rng.integers(0, 3, 120).astype(float)
    return X, y, QID


@pytest.mark.parametrize("cv", [3, GroupKFold(4), GroupShuffleSplit(3, test_size=0.25, random_state=0),
                                LeaveOneGroupOut()])
def test_group_splitters_get_the_query_ids(cv):
    for train, test in query_splits(cv, QID):
        assert np.intersect1d(QID[train], QID[test]).size == 0
        assert test.size and train.size


@pytest.mark.parametrize("cv", [KFold(3, shuffle=True, random_state=0), ShuffleSplit(3, random_state=0),
                                StratifiedKFold(3)])
def test_row_splitters_are_refused_naming_group_splitters(cv):
    with pytest.raises(ValueError, match="GroupKFold or GroupShuffleSplit"):
        query_splits(cv, QID, y=QID % 2)


def test_index_pairs_are_checked():
    rows = np.arange(120)
    first = np.isin(QID, QID[:1])  # every row of one query
    assert len(query_splits([(rows[~first], rows[first])], QID)) == 1
    leak = [(rows[~first], rows[first]), (rows[:70], rows[60:])]
    with pytest.raises(ValueError, match=r"split 1 puts query qid=\d+ on both sides"):
        query_splits(leak, QID)
    with pytest.raises(TypeError, match="split 0 is not a"):
        query_splits([rows], QID)
    with pytest.raises(ValueError, match="outside 0 .. 119"):
        query_splits([(rows, [120])], QID)
    with pytest.raises(ValueError, match="no split"):
        query_splits([], QID)
    with pytest.raises(ValueError, match="at least 13 queries"):
        query_splits(13, QID)


@pytest.mark.parametrize("cls", [RecursiveElimination, ForwardSelection])
@pytest.mark.parametrize("cv", [3, GroupShuffleSplit(2, test_size=0.3, random_state=0),
                                [(np.flatnonzero(QID >= 44), np.flatnonzero(QID < 44))]])
def test_selectors_score_on_unseen_queries_only(cls, cv):
    X, y, qid = _problem()
    sel = cls(rs.RankRLS(), n_features_to_select=2, cv=cv)
    data = sel._validate_training_data(X, y, qid)
    splits = LoopRun(sel, FitPlan.of(sel, data, data.n_features), make_adapter(sel.estimator)).splits
    assert len(splits) >= 1
    for train, vali in splits:  # no query on both sides of any fold
        assert np.intersect1d(train.qid, vali.qid).size == 0
        assert train.sizes.sum() == train.y.size and vali.sizes.sum() == vali.y.size
    if isinstance(cv, list):
        assert set(splits[0][1].qid.tolist()) == {40, 41, 42, 43}
    assert sel.fit(X, y, qid).selected_features_.size == 2


@pytest.mark.parametrize("cls", [RecursiveElimination, ForwardSelection])
@pytest.mark.parametrize("cv", [KFold(3, shuffle=True, random_state=0), ShuffleSplit(3, random_state=0)])
def test_selectors_refuse_row_splitters(cls, cv):
    X, y, qid = _problem()
    with pytest.raises(ValueError, match="GroupKFold"):
        cls(rs.RankRLS(), n_features_to_select=2, cv=cv).fit(X, y, qid)


def test_selectors_take_index_pairs_of_the_given_rows():
    X, y, qid = _problem()
    rows = np.arange(120)
    held = np.isin(qid, [40, 41, 42])
    good = ForwardSelection(rs.RankRLS(), n_features_to_select=2, cv=[(rows[~held], rows[held])]).fit(X, y, qid)
    assert good.selected_features_.size == 2
    with pytest.raises(ValueError, match="on both sides"):
        ForwardSelection(rs.RankRLS(), n_features_to_select=2, cv=[(rows[:80], rows[70:])]).fit(X, y, qid)
