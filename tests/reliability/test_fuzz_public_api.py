"""Fuzz target for the public API (issue 23): hypothesis draws bad arrays and bad
parameters for every public function and estimator (enumerated from ``rankselect.__all__``
and the public submodules); the only acceptable outcomes are a correct result, a warning,
ValueError, TypeError or MemoryError. Anything else (IndexError, AttributeError,
OverflowError, ZeroDivisionError, KeyError, RuntimeError, pyo3's PanicException, ...) fails.

About a minute in all: the profile below sets the examples per target (``FUZZ_EXAMPLES``
overrides it for a longer local run). The selectors of issue 32 (ranker in the loop, the FSA
filters, floating greedy RankRLS) get their own generators (issue 35): bad rankers, row and
group splitters and leaky index pairs, zero / huge / non-finite costs and budget edges, small
alpha; 100 examples each, about 10 s."""
from __future__ import annotations

import inspect
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankselect as rs
from rankselect import metrics
from rankselect.analysis import costs, inspection, stats
from rankselect.models import pairwise

# OSError: a function reading a file may rightly say the file is missing.
ALLOWED = (ValueError, TypeError, MemoryError, OSError)
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))

M = 12  # rows of the well-formed arrays


@pytest.fixture(autouse=True, scope="module")
def _in_a_temporary_folder(tmp_path_factory):
    """A function that writes a file (``write_trec_run("x", ...)``, a drawn path) writes it
    under a temporary folder, never in the caller's working directory."""
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("fuzz_cwd"))
    try:
        yield
    finally:
        os.chdir(here)


def _good():
    rng = np.random.default_rng(0)
    X = rng.random((M, 4))
    y = rng.integers(0, 3, M).astype(float)
    qid = np.repeat([1, 2, 3], 4)
    return X, y, qid


# Bad arrays: wrong shapes and lengths, NaN / inf, complex, object and string arrays,
# empty, huge values, sparse, lists, scalars, None.
def _bad_arrays(ndim: int):
    import scipy.sparse as sp

    X, y, qid = _good()
    base = X if ndim == 2 else y
    with np.errstate(over="ignore"):
        huge = base * 1e308
    cands = [
        None, 1.5, "abc", [], np.array([]), np.zeros((0, 4)), base[:5], base.T if ndim == 2 else base[:, None],
        np.where(np.eye(*base.shape, dtype=bool) if ndim == 2 else np.arange(M) == 0, np.nan, base),
        np.where(np.eye(*base.shape, dtype=bool) if ndim == 2 else np.arange(M) == 0, np.inf, base),
        base.astype(complex) + 1j, base.astype(object), base.astype(str), huge, -huge,
        np.full(base.shape, 1e-320), base.tolist(), sp.csr_matrix(X) if ndim == 2 else np.arange(M) % 2 == 0,
        np.full(base.shape, 2**63, dtype=np.uint64), base.astype(np.float16),
    ]
    return st.sampled_from(cands)


BAD_PARAMS = st.sampled_from([
    None, -1, 0, 1, 2**70, -(2**70), 1.5, -0.5, np.nan, np.inf, -np.inf, 1e308, True, "x", "", "ndcg@0",
    [1.5], [-1], [10**9], (), {}, np.int64(3), np.float64(np.nan), 1j, object(),
])


def _call_ok(fn, *args, **kwargs):
    """Run ``fn``; pass on a result, a warning or an allowed exception; fail otherwise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kwargs)
        except ALLOWED as exc:
            text = str(exc)
            assert "np.float64(" not in text and "np.int64(" not in text, f"numpy repr in a message: {text}"
        except BaseException as exc:  # noqa: BLE001 - PanicException derives from BaseException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise AssertionError(f"{getattr(fn, '__qualname__', fn)}: {type(exc).__name__}: {exc}") from exc


def _public_functions():
    mods = {"rankselect": rs, "metrics": metrics, "stats": stats, "inspection": inspection, "costs": costs,
            "pairwise": pairwise}
    out = {}
    for mname, mod in mods.items():
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if inspect.isfunction(obj) and name not in {"set_config", "get_config", "config_context"}:
                out[f"{mname}.{name}"] = obj
    return out


def _estimators():
    return {n: getattr(rs, n) for n in rs.__all__
            if inspect.isclass(getattr(rs, n)) and hasattr(getattr(rs, n), "fit") and n != "QueryGroups"}


FUNCTIONS = _public_functions()
ESTIMATORS = _estimators()
ARRAY_NAMES = {"X": 2, "X_test": 2, "Y": 2, "y": 1, "qid": 1, "scores": 1, "y_test": 1, "qid_test": 1,
               "a": 1, "b": 1, "values": 1, "baseline": 1, "feature_costs": 1, "groups": 1}


def _default_args(fn):
    """Well-formed positional arguments for ``fn`` by parameter name (None where unknown)."""
    X, y, qid = _good()
    table = {"X": X, "X_test": X, "Y": X, "y": y, "y_test": y, "qid": qid, "qid_test": qid, "scores": X[:, 0],
             "a": X[:, 0], "b": X[:, 1], "values": X[:, 0], "baseline": X[:, 1], "k": 3, "metric": "ndcg@3",
             "measure": "ndcg@3", "feature_costs": np.ones(4), "selection": [0, 1], "estimator": rs.RankRLS(),
             "model": rs.RankRLS(), "groups": qid}
    sig = inspect.signature(fn)
    args, kwargs = [], {}
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is p.empty:
            v = table.get(p.name)
            if p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = v
            else:
                args.append(v)
    return sig, args, kwargs


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@FUZZ
@given(data=st.data())
def test_function_refuses_bad_input_cleanly(name, data):
    fn = FUNCTIONS[name]
    sig, args, kwargs = _default_args(fn)
    params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if not params:
        return
    p = data.draw(st.sampled_from(params), label="parameter")
    value = data.draw(_bad_arrays(ARRAY_NAMES[p.name]) if p.name in ARRAY_NAMES else BAD_PARAMS, label="value")
    names = [q.name for q in params if q.default is q.empty and q.kind != q.KEYWORD_ONLY]
    if p.name in names:
        args[names.index(p.name)] = value
    else:
        kwargs[p.name] = value
    _call_ok(fn, *args, **kwargs)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@FUZZ
@given(data=st.data())
def test_estimator_refuses_bad_input_cleanly(name, data):
    cls = ESTIMATORS[name]
    X, y, qid = _good()
    try:
        est = cls()
    except TypeError:  # needs an inner estimator
        est = cls(rs.GreedyRankRLS(n_features_to_select=2))
    kind = data.draw(st.sampled_from(["param", "X", "y", "qid"]), label="what")
    if kind == "param":
        params = sorted(est.get_params(deep=False))
        if params:
            est.set_params(**{data.draw(st.sampled_from(params), label="param"): data.draw(BAD_PARAMS)})
    elif kind == "X":
        X = data.draw(_bad_arrays(2), label="X")
    elif kind == "y":
        y = data.draw(_bad_arrays(1), label="y")
    else:
        qid = data.draw(_bad_arrays(1), label="qid")
    _call_ok(est.fit, X, y, qid=qid)


# --- the selectors of issue 32 (issue 35): ranker in the loop, the FSA filters, floating -----
class _FitNone(rs.RankRLS):
    def fit(self, X, y, qid=None):
        super().fit(X, y, qid=qid)


class _Predicts(rs.RankRLS):
    """A ranker whose predictions are replaced by ``kind``."""

    def __init__(self, alpha=1.0, kind="complex"):
        super().__init__(alpha=alpha)
        self.kind = kind

    def predict(self, X):
        p = super().predict(X)
        return {"complex": p + 1j, "nan": p * np.nan, "short": p[:-1], "object": p.astype(str),
                "2d": np.c_[p, p]}[self.kind]


class _Raises(rs.RankRLS):
    def fit(self, X, y, qid=None):
        raise ValueError("this ranker refuses to fit")


def _rankers():
    return st.one_of(
        st.builds(rs.RankRLS, alpha=st.sampled_from([1e-12, 1e-6, 1e-3, 1.0, 1e6])),
        st.builds(_Predicts, kind=st.sampled_from(["complex", "nan", "short", "object", "2d"])),
        st.just(_FitNone()), st.just(_Raises()))


def _splitters(qid):
    from sklearn.model_selection import GroupKFold, GroupShuffleSplit, KFold, LeaveOneGroupOut, ShuffleSplit

    rows = np.arange(qid.size)
    held = qid == qid[0]
    return st.sampled_from([
        None, 2, 3, 100, KFold(3, shuffle=True, random_state=0), ShuffleSplit(2, random_state=0), GroupKFold(2),
        GroupShuffleSplit(2, test_size=0.5, random_state=0), LeaveOneGroupOut(), [(rows[~held], rows[held])],
        [(rows[:-2], rows[-4:])], [], [(rows, [])], [(rows, [10**6])], [rows],
    ])


COSTS = st.sampled_from([None, np.zeros(4), np.full(4, 1e300), np.array([1.0, np.inf, 1, 1]),
                         np.array([1.0, np.nan, 1, 1]), np.array([1.0, -1, 1, 1]), np.array([0.1, 0.1, 0.1, 5.0]),
                         np.ones(3)])
BUDGETS = st.sampled_from([None, 0.0, 0.3, 0.1 + 0.1 + 0.1, 2.0, 1e-300, np.inf, np.nan, -1.0])


def _selector_data():
    rng = np.random.default_rng(1)
    X = rng.random((36, 4))
    y = rng.integers(0, 3, 36).astype(float)
    return X, y, np.repeat(np.arange(6), 6)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_ranker_loop_selectors_fuzz(data):
    from rankselect.selection.wrapper import ForwardSelection, RecursiveElimination

    X, y, qid = _selector_data()
    cls = data.draw(st.sampled_from([ForwardSelection, RecursiveElimination]), label="selector")
    kw = {"floating": data.draw(st.booleans())} if cls is ForwardSelection else {
        "importance": data.draw(st.sampled_from(["permutation", "refit", "native"]))}
    est = cls(data.draw(_rankers(), label="ranker"), n_features_to_select=data.draw(st.sampled_from([1, 2, "auto"])),
              cv=data.draw(_splitters(qid), label="cv"), feature_costs=data.draw(COSTS, label="costs"),
              budget=data.draw(BUDGETS, label="budget"), n_jobs=data.draw(st.sampled_from([None, 2])),
              random_state=0, **kw)
    _call_ok(est.fit, X, y, qid)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_filters_and_floating_fuzz(data):
    X, y, qid = _selector_data()
    name = data.draw(st.sampled_from(["GAS", "NGAS", "XGAS", "HCAS", "GreedyRankRLS"]), label="selector")
    k = data.draw(st.sampled_from([1, 2, 4, 5]), label="k")
    if name == "GreedyRankRLS":
        est = rs.GreedyRankRLS(k, alpha=data.draw(st.sampled_from([1e-12, 1e-8, 1e-6, 1e-4, 1.0])), floating=True)
    elif name == "HCAS":
        est = rs.HCAS(k, data.draw(st.sampled_from(["ward", "ward.D", "single"]), label="linkage"))
    elif name == "XGAS":
        est = rs.XGAS(k, data.draw(st.sampled_from([1e-9, 0.05, 1.0])))
    else:
        est = getattr(rs, name)(k)
    est.set_params(feature_costs=data.draw(COSTS, label="costs"), budget=data.draw(BUDGETS, label="budget"))
    if data.draw(st.booleans(), label="constant column"):
        X = X.copy()
        X[:, 0] = 1.0
    _call_ok(est.fit, X, y, qid=qid)
