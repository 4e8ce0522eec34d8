"""Every selector exported by rankselect takes ``feature_groups`` (issue 33): with
``select_groups=True`` it selects whole groups (``selected_groups_``, a support that is a union
of groups); with ``select_groups=False`` the groups only name the touched families."""
import numpy as np
import pytest

import rankselect as rs
from rankselect.data.datasets import feature_layout

LAYOUT = feature_layout("letor4", by="stream")  # 46 features in 6 groups


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(33)
    sizes = rng.integers(6, 10, 14)
    qid = np.repeat(np.arange(sizes.size), sizes)
    X = rng.normal(size=(qid.size, LAYOUT.n_features))
    title = LAYOUT.members(2)
    score = X[:, title[4]] + 0.5 * X[:, title[0]] + 0.3 * rng.normal(size=qid.size)
    y = np.digitize(score, [-0.5, 0.8]).astype(float)
    return X, y, qid


SELECTORS = {
    "GreedyRankRLS": lambda **kw: rs.GreedyRankRLS(2, **kw),  # groups33
    "GAS": lambda **kw: rs.GAS(2, **kw),
    "NGAS": lambda **kw: rs.NGAS(2, **kw),
    "XGAS": lambda **kw: rs.XGAS(2, **kw),
    "HCAS": lambda **kw: rs.HCAS(2, **kw),
    "FSMRank": lambda **kw: rs.FSMRank(lambda2=0.001, **kw),
    "FSMSVM": lambda **kw: rs.FSMSVM(2, lambda2=0.001, **kw),
    "SparseRankSVM": lambda **kw: rs.SparseRankSVM(C=0.05, penalty="group_lasso", solver="fista", **kw),
    "StabilitySelection": lambda **kw: rs.StabilitySelection(rs.GAS(2, feature_groups=LAYOUT), n_resamples=4,
                                                             threshold=0.5, random_state=0, **kw),
    "RecursiveElimination": lambda **kw: rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=2,
                                                                 random_state=0, **kw),  # loop33
    "ForwardSelection": lambda **kw: rs.ForwardSelection(rs.RankRLS(), n_features_to_select=2,
                                                         random_state=0, **kw),  # loop33
}


def test_every_exported_selector_is_listed():
    from rankselect.selection import RankingSelector
    classes = {n: getattr(rs, n) for n in rs.__all__}
    exported = {n for n, c in classes.items() if isinstance(c, type) and issubclass(c, RankingSelector)}
    assert exported <= set(SELECTORS), exported - set(SELECTORS)


def make(name, **kw):
    return SELECTORS[name](**kw)


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_selects_whole_groups(name, data):
    X, y, qid = data
    if name == "FSMRank":  # no group criterion: it refuses, and selects features with select_groups=False
        with pytest.raises(ValueError, match="select_groups=False"):
            make(name, feature_groups=LAYOUT).fit(X, y, qid=qid)
        return
    sel = make(name, feature_groups=LAYOUT).fit(X, y, qid=qid)
    mask = sel.get_support()
    assert mask.any()
    touched = set(LAYOUT.index[mask])
    assert list(sel.selected_groups_) and set(sel.selected_groups_) == {LAYOUT.names[g] for g in touched}
    for g in touched:
        assert mask[LAYOUT.members(g)].all(), (name, LAYOUT.names[g])
    if name not in ("SparseRankSVM", "StabilitySelection"):
        assert len(sel.selected_groups_) == 2


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_groups_only_name_families(name, data):
    X, y, qid = data
    if name == "SparseRankSVM":
        sel = rs.SparseRankSVM(C=0.05, feature_groups=LAYOUT, select_groups=False).fit(X, y, qid=qid)
    else:
        sel = make(name, feature_groups=LAYOUT, select_groups=False).fit(X, y, qid=qid)
    expected = list(dict.fromkeys(LAYOUT.names[LAYOUT.index[j]] for j in sel.selected_features_))
    assert list(sel.selected_groups_) == expected


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_a_2d_label_array_is_refused_not_ravelled(name, data):
    # issue 46: a 2 x 23 label array used to be read row after row as 46 labels
    X, y, qid = data
    labels = np.asarray(LAYOUT.names, dtype=object)[LAYOUT.index].reshape(2, 23)
    with pytest.raises(ValueError, match=r"feature_groups must be 1-D, one label per feature, .*shape \(2, 23\)"):
        make(name, feature_groups=labels).fit(X, y, qid=qid)
