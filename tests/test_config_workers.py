"""Worker tasks run in the caller's settings (issue #35 item 4): rankselect's ``Parallel`` /
``delayed`` on threads and in loky processes, the selectors' ``n_jobs``, and what a pool
that rankselect does not start sees (documented in the user guide's contract)."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import sklearn
from joblib import Parallel as JoblibParallel
from joblib import delayed as joblib_delayed

import rankselect as rs
from rankselect._config import Parallel, delayed
from rankselect.selection.wrapper import ForwardSelection, RecursiveElimination


def _probe(_):
    return rs.get_config()["max_memory"], sklearn.get_config()["assume_finite"]


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_parallel_carries_both_configs(backend):
    with rs.config_context(max_memory=12345), sklearn.config_context(assume_finite=True):
        out = Parallel(n_jobs=2, backend=backend)(delayed(_probe)(i) for i in range(4))
    assert out == [(12345, True)] * 4
    assert Parallel(n_jobs=2, backend=backend)(delayed(_probe)(i) for i in range(2)) == [(None, False)] * 2


class _Spy(rs.RankRLS):
    seen: list = []
    lock = threading.Lock()

    def fit(self, X, y, qid=None):
        with _Spy.lock:
            _Spy.seen.append(rs.get_config()["max_memory"])
        return super().fit(X, y, qid=qid)


@pytest.mark.parametrize("cls", [ForwardSelection, RecursiveElimination])
def test_selector_threads_see_the_callers_config(cls):
    rng = np.random.default_rng(0)
    X, y, qid = rng.normal(size=(90, 5)), rng.integers(0, 3, 90).astype(float), np.repeat(np.arange(9), 10)
    _Spy.seen = []
    kw = {"importance": "refit"} if cls is RecursiveElimination else {}
    with rs.config_context(max_memory=10**9):
        cls(_Spy(), n_features_to_select=2, n_jobs=2, **kw).fit(X, y, qid)
    assert len(_Spy.seen) > 4 and set(_Spy.seen) == {10**9}


def test_foreign_pools_see_the_documented_settings():
    """A pool rankselect does not start: its threads see set_config, not a config_context
    block; its loky processes see neither (the documented limits)."""
    rs.set_config(max_memory=2**30)
    try:
        with rs.config_context(max_memory=2**20):
            threads = JoblibParallel(n_jobs=2, backend="threading")(joblib_delayed(_probe)(i) for i in range(2))
            procs = JoblibParallel(n_jobs=2, backend="loky")(joblib_delayed(_probe)(i) for i in range(2))
    finally:
        rs.set_config(max_memory=None)
    assert [t[0] for t in threads] == [2**30] * 2
    assert [p[0] for p in procs] == [None] * 2
