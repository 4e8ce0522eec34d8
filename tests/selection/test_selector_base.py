"""The one selector base (rankselect.selection.RankingSelector): every selector derives from
it and lives under rankselect.selection; one support mask; one budget rule
(rankselect.analysis.costs.fits_budget) in every selector; the filter skeleton written once."""
from __future__ import annotations

import ast
import inspect
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_selection import SelectorMixin

import rankselect as rs
import rankselect.selection
import rankselect.selection.wrapper
from rankselect.analysis.costs import fits_budget
from rankselect.selection import RankingSelector
from rankselect.selection.filter_base import FilterSelector

PACKAGE = Path(rs.__file__).resolve().parent


def _exported_classes():
    """Every class in the ``__all__`` of rankselect, rankselect.selection and
    rankselect.selection.wrapper (and rankselect.dask when installed)."""
    modules = [rs, rankselect.selection, rankselect.selection.wrapper]
    try:
        import rankselect.dask as rd
        modules.append(rd)
    except ImportError:  # pragma: no cover - the dask extra
        pass
    out = {}
    for m in modules:
        for name in m.__all__:
            obj = getattr(m, name)
            if inspect.isclass(obj):
                out[f"{m.__name__}.{name}"] = obj
    return out


SELECTORS = {k: c for k, c in _exported_classes().items() if issubclass(c, SelectorMixin) or hasattr(c, "get_support")}


def test_the_walk_finds_every_family():
    names = {c.__name__ for c in SELECTORS.values()}
    assert {"GreedyRankRLS", "GAS", "NGAS", "XGAS", "HCAS", "FSMRank", "FSMSVM", "SparseRankSVM",
            "StabilitySelection", "RecursiveElimination", "ForwardSelection"} <= names


@pytest.mark.parametrize("path", sorted(SELECTORS))
def test_every_selector_derives_from_the_base_and_lives_in_selection(path):
    cls = SELECTORS[path]
    assert issubclass(cls, RankingSelector), path
    module = cls.__module__
    assert module.startswith("rankselect.selection.") or module.startswith("rankselect.dask."), module


def _definitions(name: str) -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_the_support_mask_is_defined_once():
    assert _definitions("_get_support_mask") == [f"selection/_base.py:{_line(RankingSelector._get_support_mask)}"]


def _line(fn) -> int:
    return inspect.getsourcelines(fn)[1]


def test_the_dask_gas_overrides_only_the_hooks():
    pytest.importorskip("dask.array")
    tree = ast.parse((PACKAGE / "dask" / "gas.py").read_text())
    gas = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GAS")
    methods = {n.name for n in gas.body if isinstance(n, ast.FunctionDef)}
    assert not methods & {"fit", "_fit"}
    assert methods <= {"__init__", "_fit_data", "_facts", "_importance", "_similarity", "_group_scores"}
    import rankselect.dask as rd
    assert rd.GAS.fit is FilterSelector.fit and rd.GAS._fit is FilterSelector._fit


# -- the budget rule ---------------------------------------------------------------------


def test_fits_budget_is_relative():
    assert fits_budget(0.1 + 0.1 + 0.1, 0.3) and not fits_budget(0.3 + 1e-6, 0.3)
    assert fits_budget(16384.800000000003, 16384.8)  # beyond an absolute 1e-12 (ulp ~3.6e-12)
    assert fits_budget(1e300, None)
    np.testing.assert_array_equal(fits_budget(np.array([0.29, 0.3, 0.31]), 0.3), [True, True, False])
    np.testing.assert_array_equal(fits_budget(np.array([1.0, 2.0]), None), [True, True])


@pytest.fixture(scope="module")
def example():
    return rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")


@pytest.mark.parametrize("cls", [rs.GAS, rs.NGAS, rs.XGAS, rs.HCAS])
def test_filters_fit_three_features_of_cost_0_1_in_a_budget_of_0_3(example, cls):
    tr, _ = example
    n = tr.X.shape[1]
    sel = cls(n_features_to_select=3, feature_costs=np.full(n, 0.1), budget=0.3).fit(tr.X, tr.y, qid=tr.qid)
    assert len(sel.selected_features_) == 3


def test_greedy_fits_three_features_of_cost_0_1_in_a_budget_of_0_3(example):
    tr, _ = example
    n = tr.X.shape[1]
    sel = rs.GreedyRankRLS(n_features_to_select=3, feature_costs=np.full(n, 0.1), budget=0.3).fit(
        tr.X, tr.y, qid=tr.qid)
    assert len(sel.selected_features_) == 3


@pytest.mark.parametrize("cls", [rs.ForwardSelection, rs.RecursiveElimination])
def test_ranker_loop_selectors_use_the_relative_tolerance(example, cls):
    """Three features of cost 5461.6 cost 16384.800000000003 in floating point: they fit
    ``budget=16384.8`` (3 x 5461.6) under the relative rule, not under an absolute 1e-12."""
    tr, va = example
    n = tr.X.shape[1]
    sel = cls(rs.RankRLS(), n_features_to_select=3, candidates=np.arange(5), validation=(va.X, va.y, va.qid),
              feature_costs=np.full(n, 5461.6), budget=16384.8).fit(tr.X, tr.y, qid=tr.qid)
    assert sel.n_features_ == 3
    assert np.asarray(sel.path_.eligible)[[len(f) == 3 for f in sel.path_.features]].any()


def test_cost_quality_path_best_within_uses_the_same_rule():
    from rankselect.analysis.costs import CostQualityPath

    path = CostQualityPath(total_cost=np.array([0.1, 0.1 + 0.1 + 0.1]), score=np.array([0.5, 0.6]),
                           n_features=np.array([1, 3]), features=[[0], [0, 1, 2]], scoring="ndcg@10")
    assert path.best_within(0.3) == 1


# -- the checks written once -------------------------------------------------------------


@pytest.mark.parametrize("make", [lambda: rs.GAS(n_features_to_select=30), lambda: rs.HCAS(n_features_to_select=30),
                                  lambda: rs.GreedyRankRLS(n_features_to_select=30)])
def test_n_features_to_select_beyond_the_features_names_the_argument(example, make):
    tr, _ = example
    with pytest.raises(ValueError, match=r"n_features_to_select must be in \[1, n_features = 22\], got 30"):
        make().fit(tr.X, tr.y, qid=tr.qid)


def test_a_budget_below_every_cost_is_refused(example):
    tr, _ = example
    n = tr.X.shape[1]
    for est in (rs.GAS(3, feature_costs=np.full(n, 2.0), budget=1.0),
                rs.ForwardSelection(rs.RankRLS(), feature_costs=np.full(n, 2.0), budget=1.0)):
        with pytest.raises(ValueError, match="budget=1.0 is below the cheapest feature"):
            est.fit(tr.X, tr.y, qid=tr.qid)


def test_support_mask_and_names_from_selected_features(example):
    pd = pytest.importorskip("pandas")
    tr, _ = example
    X = pd.DataFrame(tr.X, columns=[f"f{j}" for j in range(tr.X.shape[1])])
    for est in (rs.GAS(3), rs.SparseRankSVM(C=0.01), rs.StabilitySelection(rs.GAS(2), n_resamples=3,
                                                                          random_state=0)):
        est.fit(X, tr.y, qid=tr.qid)
        mask = np.zeros(tr.X.shape[1], dtype=bool)
        mask[est.selected_features_] = True
        np.testing.assert_array_equal(est.get_support(), mask)
        assert list(est.get_feature_names_out()) == [f"f{j}" for j in np.flatnonzero(mask)]


# -- moved names -------------------------------------------------------------------------


@pytest.mark.parametrize("old, new, name", [
    ("models", "selection", "SparseRankSVM"), ("models", "selection", "SparsePath"),
    ("models", "selection", "sparse_path"), ("selection", "analysis", "redundancy_report"),
    ("selection", "analysis", "RedundancyReport")])
def test_moved_names_warn_and_resolve(old, new, name):
    old_module = getattr(rs, old)
    with pytest.warns(DeprecationWarning, match=rf"rankselect\.{old}\.{name} moved to rankselect\.{new}\.{name}; "
                                                r"the old path is removed in 0\.3\.0"):
        obj = getattr(old_module, name)
    assert obj is getattr(getattr(rs, new), name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(rs, name, obj) is obj  # the top level does not warn
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = old_module.nope
