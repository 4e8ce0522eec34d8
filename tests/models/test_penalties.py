"""Penalties as objects (issue 40): ``SparseRankSVM(penalty=MCP(gamma=3.0))``; a string is the
shorthand of a penalty with its default parameters; the ranker's old per-penalty parameters are
deprecated (FutureWarning) and give the same model; each penalty is validated once, picklable,
printable, cloneable and usable in a parameter grid."""
import pickle
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.utils._param_validation import InvalidParameterError

import rankselect as rs
from _pairwise_problems import make_problem
from rankselect import _core
from rankselect.metrics import make_scorer
from rankselect.models import penalties
from rankselect.models.penalties import (
    L1,
    MCP,
    PENALTIES,
    GroupLasso,
    Log,
    Lp,
    Penalty,
    SparseGroupLasso,
    check_penalty,
)

GROUPS = [0, 0, 1, 1, 2, 2, 3, 3]
OBJECTS = [L1(), L1(weights=np.arange(1.0, 9.0)), Log(epsilon=0.05), MCP(gamma=3.0), Lp(p=0.3, epsilon=0.2),
           GroupLasso(), SparseGroupLasso(l1_ratio=0.2)]


def fit(penalty, C=0.5, **kw):
    X, y, qid = make_problem(1)
    groups = check_penalty(penalty).over_groups
    extra = {"solver": "fista", "feature_groups": GROUPS, "max_iter": 2000} if groups else {}
    return rs.SparseRankSVM(C=C, penalty=penalty, tol=1e-8, **extra, **kw).fit(X, y, qid=qid)


@pytest.mark.parametrize("name", sorted(PENALTIES))
def test_a_shorthand_is_the_default_object(name):
    obj = PENALTIES[name]()
    assert obj.name == name and repr(check_penalty(name)) == f"{type(obj).__name__}()"
    a, b = fit(name), fit(obj)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.objective_history_, b.objective_history_)


@pytest.mark.parametrize("pen", OBJECTS, ids=repr)
def test_objects_print_pickle_clone_and_set_params(pen):
    assert repr(pickle.loads(pickle.dumps(pen))) == repr(pen)
    twin = clone(pen)
    assert twin is not pen and repr(twin) == repr(pen) and isinstance(twin, Penalty)
    est = rs.SparseRankSVM(penalty=pen)
    assert repr(clone(est)) == repr(est) and clone(est).penalty is not pen
    fitted = fit(pen)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.coef_, fitted.coef_)
    assert repr(again.penalty) == repr(pen)
    for name in pen.get_params():
        assert f"penalty__{name}" in est.get_params(deep=True)


def test_repr_shows_the_parameters_set():
    assert repr(MCP(gamma=3.0)) == "MCP(gamma=3.0)" and repr(Lp(p=0.3)) == "Lp(p=0.3)"
    assert repr(rs.SparseRankSVM(C=0.05, penalty=MCP(gamma=3.0))) == "SparseRankSVM(C=0.05, penalty=MCP(gamma=3.0))"
    assert repr(SparseGroupLasso()) == "SparseGroupLasso()" and repr(GroupLasso()) == "GroupLasso()"


@pytest.mark.parametrize("pen,match", [
    (MCP(gamma=-1.0), "'gamma' parameter of MCP"), (MCP(gamma="2"), "'gamma' parameter of MCP"),
    (Log(epsilon=0.0), "'epsilon' parameter of Log"), (Lp(p=1.0), "'p' parameter of Lp"),
    (Lp(epsilon=-1), "'epsilon' parameter of Lp"), (SparseGroupLasso(l1_ratio=1.5), "'l1_ratio' parameter"),
    (L1(weights="abc"), "'weights' parameter of L1"),
])
def test_each_parameter_is_checked_once_by_its_penalty(pen, match):
    with pytest.raises(InvalidParameterError, match=match):
        fit(pen)


@pytest.mark.parametrize("pen,match", [
    (L1(weights=np.ones(3)), "weights has 3 entries but X has 8 features"),
    (L1(weights=-np.ones(8)), "weights must be >= 0"), (L1(weights=np.full(8, np.nan)), "weights must be >= 0"),
])
def test_l1_weights_against_the_data(pen, match):
    with pytest.raises(ValueError, match=match):
        fit(pen)


def test_every_penalty_reaches_the_core_through_one_spec():
    """One binding signature: each penalty object builds the core's PenaltySpec, which every
    sparse binding takes (fit, fit on a loss source, c_min)."""
    labels = np.asarray(GROUPS, dtype=np.uintp)
    X, y, qid = make_problem(2)
    data = rs.SparseRankSVM()._prepare(X, y, qid)
    for pen in OBJECTS:
        spec = pen._spec(8, labels)
        assert isinstance(spec, _core.PenaltySpec) and repr(spec).startswith("PenaltySpec.")
        c0 = _core.sparse_c_min(data.X, data.y, data.offsets, spec)
        solver = "fista" if pen.over_groups else "prox-newton"
        below = _core.sparse_ranksvm(data.X, data.y, data.offsets, 0.9 * c0, spec, None, 3000, 3, 1e-9, solver)
        above = _core.sparse_ranksvm(data.X, data.y, data.offsets, 2.0 * c0, spec, None, 3000, 3, 1e-9, solver)
        assert not below.result.coef.any(), pen
        # a non-convex penalty's reweightings may return to 0 after a non-zero first (L1) step
        assert above.result.coef.any() or pen.name in ("log", "mcp", "lp"), pen


def test_non_convex_paths_start_where_l1_does():
    X, y, qid = make_problem(3)
    c0 = rs.SparseRankSVM().c_min(X, y, qid)
    for pen in (Log(), MCP(gamma=0.5), Lp(p=0.2)):
        assert rs.SparseRankSVM(penalty=pen).c_min(X, y, qid) == c0


@pytest.mark.parametrize("old,new", [
    (dict(penalty="lp", p=0.3), Lp(p=0.3)), (dict(penalty="lp", epsilon=0.2), Lp(epsilon=0.2)),
    (dict(penalty="log", epsilon=0.05), Log(epsilon=0.05)), (dict(penalty="mcp", mcp_gamma=3.0), MCP(gamma=3.0)),
    (dict(weights=np.arange(1.0, 9.0)), L1(weights=np.arange(1.0, 9.0))),
    (dict(penalty="sparse_group_lasso", l1_ratio=0.2), SparseGroupLasso(l1_ratio=0.2)),
])
def test_the_old_parameters_warn_and_give_the_same_model(old, new):
    penalty = old.pop("penalty", "l1")
    with pytest.warns(FutureWarning, match=r"deprecated and removed in 0\.3\.0: pass penalty="):
        a = fit(penalty, **old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = fit(new)
    np.testing.assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("params,match", [
    (dict(penalty="l1", p=0.5), "p is not a parameter of penalty='l1'; L1 takes"),
    (dict(penalty="log", mcp_gamma=2.0), "mcp_gamma is not a parameter of penalty='log'"),
    (dict(penalty="group_lasso", l1_ratio=0.5), "GroupLasso takes no parameter"),
    (dict(penalty=MCP(), mcp_gamma=3.0), "mcp_gamma of SparseRankSVM beside penalty=MCP"),
    (dict(penalty=Lp(), p=0.3, epsilon=0.1), "epsilon, p of SparseRankSVM beside"),
])
def test_a_parameter_that_would_do_nothing_is_refused(params, match):
    with pytest.raises(ValueError, match=match):
        fit(**params)


def test_in_a_parameter_grid():
    X, y, qid = make_problem(4, m=120)
    with sklearn.config_context(enable_metadata_routing=True):
        grid = {"penalty": ["l1", Log(), MCP(gamma=3.0)], "C": [0.1, 1.0]}
        search = GridSearchCV(rs.SparseRankSVM(), grid, cv=GroupKFold(3), scoring=make_scorer("ndcg@10"))
        search.fit(X, y, qid=qid, groups=qid)
        assert len(search.cv_results_["params"]) == 6
        assert {repr(p["penalty"]) for p in search.cv_results_["params"]} == {"'l1'", "Log()", "MCP(gamma=3.0)"}
        nested = GridSearchCV(rs.SparseRankSVM(penalty=MCP()), {"penalty__gamma": [0.5, 4.0]}, cv=GroupKFold(3),
                              scoring=make_scorer("ndcg@10")).fit(X, y, qid=qid, groups=qid)
        assert nested.best_estimator_.penalty.gamma in (0.5, 4.0)
        assert nested.estimator.penalty.gamma == 2.0  # the grid changed clones only


def test_group_penalties_need_groups_and_fista():
    X, y, qid = make_problem(5)
    with pytest.raises(ValueError, match=r"penalty=GroupLasso\(\) needs feature_groups"):
        rs.SparseRankSVM(penalty=GroupLasso(), solver="fista").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match='solved by solver="fista" only'):
        rs.SparseRankSVM(penalty=SparseGroupLasso(), feature_groups=GROUPS).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="feature_costs needs penalty='l1' and no weights"):
        rs.SparseRankSVM(penalty=L1(weights=np.ones(8)), feature_costs=np.ones(8)).fit(X, y, qid=qid)


def test_the_module_lists_every_penalty():
    assert set(penalties.__all__) >= {cls.__name__ for cls in PENALTIES.values()}
    assert rs.selection.sparse_ranksvm.PENALTIES == tuple(PENALTIES)
    assert all(issubclass(cls, Penalty) and cls.__module__ == "rankselect.models.penalties"
               for cls in PENALTIES.values())
