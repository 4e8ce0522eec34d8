"""The Dask layer as LightGBM's: ``to_local()`` gives the equivalent in-memory estimator,
pickling drops the client, and the greedy shard rounds retry only for a lost worker (a bug in a
shard task surfaces as itself, at once)."""
from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import rankselect as rs  # noqa: E402
import rankselect.dask as rd  # noqa: E402
from rankselect.dask.greedy_rankrls import ShardActors, _GreedyShardActor  # noqa: E402
from rankselect.dask.shards import is_lost_worker  # noqa: E402


@pytest.fixture(scope="module")
def client(shared_dask_client):
    return shared_dask_client  # the session's in-process cluster (tests/conftest.py)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    sizes = [6, 4, 7, 5, 6, 3]
    qid = np.repeat(np.arange(len(sizes)) * 5 + 1, sizes)
    X = rng.normal(size=(qid.size, 5))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 2] + rng.normal(size=qid.size)), 0, 3)
    return X, y, qid


ESTIMATORS = {
    "GreedyRankRLS": (lambda c: rd.GreedyRankRLS(n_features_to_select=3, alpha=0.5, client=c), rs.GreedyRankRLS),
    "RankRLS": (lambda c: rd.RankRLS(alpha=[0.5, 2.0], client=c), rs.RankRLS),
    "RankSVM": (lambda c: rd.RankSVM(C=0.3, client=c), rs.RankSVM),
    "SparseRankSVM": (lambda c: rd.SparseRankSVM(C=0.5, client=c), rs.SparseRankSVM),
    "GAS": (lambda c: rd.GAS(3, c=0.1, client=c), rs.GAS),
}


def _outputs(est, X):
    out = {}
    for method in ("predict", "transform"):
        if hasattr(est, method):
            out[method] = np.asarray(getattr(est, method)(X))
    assert out
    return out


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_to_local_is_the_in_memory_estimator(client, data, name):
    make, local_class = ESTIMATORS[name]
    X, y, qid = data
    Xd, yd, qd = rd.partition_by_query(X, y, qid, n_partitions=3)
    dis = make(client)
    unfitted = dis.to_local()
    assert type(unfitted) is local_class and not hasattr(unfitted, "n_features_in_")
    dis.fit(Xd, yd, qd)
    local = dis.to_local()
    assert type(local) is local_class
    params = dis.get_params(deep=False)
    assert params.pop("client") is client
    assert set(local.get_params(deep=False)) == set(params)
    for key, value in params.items():
        assert local.get_params(deep=False)[key] is value or local.get_params(deep=False)[key] == value, key
    cluster_only = getattr(dis, "_cluster_attributes", ())
    fitted = [k for k in vars(dis) if k.endswith("_") and not k.startswith("__") and k not in cluster_only]
    assert "n_features_in_" in fitted
    for key in fitted:
        a, b = getattr(local, key), getattr(dis, key)
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b)
            assert a is not b  # a copy: the local estimator does not share the Dask one's arrays
    for method, values in _outputs(dis, X).items():
        np.testing.assert_array_equal(_outputs(local, X)[method], values, err_msg=method)
    # the same as fitting in memory (the Dask fit equals the in-memory fit, within 1e-10)
    mem = local_class(**params).fit(X, y, qid=qid)
    for method, values in _outputs(mem, X).items():
        np.testing.assert_allclose(_outputs(local, X)[method], values, rtol=1e-9, atol=1e-12, err_msg=method)


def test_pickling_drops_the_client(client, data):
    X, y, qid = data
    Xd, yd, qd = rd.partition_by_query(X, y, qid, n_partitions=2)
    est = rd.GreedyRankRLS(n_features_to_select=3, alpha=0.5, client=client).fit(Xd, yd, qd)
    back = pickle.loads(pickle.dumps(est))
    assert est.client is client and back.client is None
    assert type(back) is rd.GreedyRankRLS
    np.testing.assert_array_equal(back.selected_features_, est.selected_features_)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    # unpickled, it uses the current client (the session's, current through the module's fixture)
    refit = back.fit(Xd, yd, qd)
    np.testing.assert_array_equal(refit.selected_features_, est.selected_features_)
    assert pickle.loads(pickle.dumps(rd.GAS(2))).client is None


class _BuggyShardActor(_GreedyShardActor):
    """A shard whose ``scan`` has a bug (an IndexError), counting the calls."""

    scans = 0

    def scan(self, c, d, skip):
        type(self).scans += 1
        raise IndexError("index 9 is out of bounds (a bug in a shard task)")


class _BuggyActors(ShardActors):
    actor_class = _BuggyShardActor


class _BuggyGreedy(rd.GreedyRankRLS):
    _actors_class = _BuggyActors


def test_a_bug_in_a_shard_task_surfaces_as_itself_without_retry(client, data):
    X, y, qid = data
    Xd, yd, qd = rd.partition_by_query(X, y, qid, n_partitions=2)
    _BuggyShardActor.scans = 0
    est = _BuggyGreedy(n_features_to_select=3, alpha=0.5)
    with pytest.raises(IndexError, match="a bug in a shard task"):
        est.fit(Xd, yd, qd)
    assert est.n_rebuilds_ == 0  # no actor was rebuilt: no retry
    # the first scan round only, at most once per shard: no retry (the other shard's scan may
    # not have started when the error surfaces; CI once saw 1)
    assert 1 <= _BuggyShardActor.scans <= 2


def test_what_counts_as_a_lost_worker():
    from distributed.comm import CommClosedError

    assert is_lost_worker(distributed.KilledWorker("task", "worker", 3))
    assert is_lost_worker(CommClosedError("in <TCP>: Stream is closed"))
    assert is_lost_worker(OSError("Unable to contact Actor's worker"))
    assert is_lost_worker(ConnectionResetError())
    assert is_lost_worker(RuntimeError("Worker holding Actor was lost.  Status: error"))
    assert not is_lost_worker(RuntimeError("something else"))
    for bug in (IndexError("i"), ValueError("v"), TypeError("t"), RuntimeError("r"), FileNotFoundError("f"),
                KeyError("k"), MemoryError()):
        assert not is_lost_worker(bug), bug


class _LosingShardActor(_GreedyShardActor):
    """The first ``losses`` scans (over all shards) answer as a lost worker does: the actor's
    ``OSError("Unable to contact Actor's worker")`` (in-process workers: one counter)."""

    losses = 0
    lock = threading.Lock()

    def scan(self, c, d, skip):
        with self.lock:
            lost = type(self).losses > 0
            type(self).losses -= lost
        if lost:
            raise OSError("Unable to contact Actor's worker")
        return super().scan(c, d, skip)


class _LosingActors(ShardActors):
    actor_class = _LosingShardActor


class _Losing(rd.GreedyRankRLS):
    _actors_class = _LosingActors


def test_a_lost_worker_is_retried_and_the_fit_ends_as_in_memory(client, data):
    X, y, qid = data
    Xd, yd, qd = rd.partition_by_query(X, y, qid, n_partitions=2)
    mem = rs.GreedyRankRLS(n_features_to_select=3, alpha=0.5).fit(X, y, qid=qid)
    _LosingShardActor.losses = 1
    est = _Losing(n_features_to_select=3, alpha=0.5).fit(Xd, yd, qd)
    assert est.n_rebuilds_ == 1 and _LosingShardActor.losses == 0
    np.testing.assert_array_equal(est.selected_features_, mem.selected_features_)
    # the fit keeps public fitted attributes only; the cluster's count stays on the Dask selector
    assert [k for k in vars(est) if k.startswith("_")] == []
    assert not hasattr(est.to_local(), "n_rebuilds_")
    np.testing.assert_allclose(est.coef_path_, mem.coef_path_, rtol=0, atol=1e-10 * np.abs(mem.coef_path_).max())


def test_retries_run_out_with_a_runtime_error(client, data):
    X, y, qid = data
    Xd, yd, qd = rd.partition_by_query(X, y, qid, n_partitions=2)
    _LosingShardActor.losses = 10**6
    est = _Losing(n_features_to_select=3, alpha=0.5)
    est.max_retries = 2
    try:
        with pytest.raises(RuntimeError, match="worker holding a shard was lost 3 times") as info:
            est.fit(Xd, yd, qd)
    finally:
        _LosingShardActor.losses = 0
    assert est.n_rebuilds_ == 2 and isinstance(info.value.__cause__, OSError)
    est.max_retries = 0
    _LosingShardActor.losses = 1
    with pytest.raises(RuntimeError, match="lost 1 times"):
        est.fit(Xd, yd, qd)
    assert est.n_rebuilds_ == 0
