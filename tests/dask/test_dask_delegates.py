"""The Dask layer delegates: the fits are the core's solvers and selection rules, asking for
per-shard sums; Python moves data and adds sums, and decides nothing the core decides."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import rankselect as rs  # noqa: E402
import rankselect.dask as rd  # noqa: E402
from rankselect import _core  # noqa: E402
from rankselect.dask import shards as shards_module  # noqa: E402
from rankselect.dask.greedy_rankrls import ShardActors  # noqa: E402


@pytest.fixture(scope="module")
def client(shared_dask_client):
    return shared_dask_client  # the session's in-process cluster (tests/conftest.py)


def make_data(seed=0, sizes=(6, 4, 7, 5, 6, 3, 5), n=6):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    X = rng.normal(size=(int(sum(sizes)), n))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=qid.size)), 0, 3)
    return X, y, qid


ESTIMATORS = [
    ("RankSVM", dict(C=0.3, tol=1e-10), "ranksvm_fit_with"),
    ("SparseRankSVM", dict(C=0.5), "sparse_ranksvm_with"),
    ("SparseRankSVM", dict(C=0.5, penalty="log", solver="fista", max_iter=100), "sparse_ranksvm_with"),
    ("RankRLS", dict(alpha=[0.1, 1.0, 10.0]), None),
]


@pytest.mark.parametrize("name, params, entry", ESTIMATORS)
def test_one_shard_is_the_in_memory_fit_bit_for_bit(client, name, params, entry):
    """With one shard, the sums are the in-memory sums, so the same solver gives the same
    bits, iteration counts included: no iteration happens anywhere else."""
    X, y, qid = make_data()
    mem = getattr(rs, name)(**params).fit(X, y, qid=qid)
    dis = getattr(rd, name)(**params).fit(*rd.partition_by_query(X, y, qid, n_partitions=1))
    fitted = sorted(k for k in vars(mem) if k.endswith("_") and not k.startswith("_"))
    assert fitted == sorted(k for k in vars(dis) if k.endswith("_") and not k.startswith("_"))
    for k in fitted:
        np.testing.assert_array_equal(getattr(dis, k), getattr(mem, k), err_msg=k)


@pytest.mark.parametrize("name, params, entry", [e for e in ESTIMATORS if e[2]] + [
    ("GreedyRankRLS", dict(n_features_to_select=4, alpha=0.5), "greedy_rankrls_sharded")])
def test_every_shard_request_comes_from_the_core(client, monkeypatch, name, params, entry):
    """One call of the core's solver per fit; every per-shard request after the data facts is
    made by that solver (through the source object), none by a Python loop around it."""
    X, y, qid = make_data(1)
    data = rd.partition_by_query(X, y, qid, n_partitions=3)
    inside, calls, outside = [False], [], []
    solver = getattr(_core, entry)

    def spy(*args, **kwargs):
        calls.append(entry)
        inside[0] = True
        try:
            return solver(*args, **kwargs)
        finally:
            inside[0] = False

    shard_map, actors_call = shards_module._Shards.map, ShardActors._call_all

    def watched_map(self, fn, *args, **kwargs):
        if not inside[0] and fn is not shards_module._shard_facts:
            outside.append(fn.__name__)
        return shard_map(self, fn, *args, **kwargs)

    def watched_call(self, method, *args):
        if not inside[0]:
            outside.append(method)
        return actors_call(self, method, *args)

    monkeypatch.setattr(_core, entry, spy)
    monkeypatch.setattr(shards_module._Shards, "map", watched_map)
    monkeypatch.setattr(ShardActors, "_call_all", watched_call)
    getattr(rd, name)(**params).fit(*data)
    assert calls == [entry] and outside == []


class Boom(Exception):
    pass


class FailingLoss:
    """Answers two requests, then fails."""

    def __init__(self, n):
        self.n, self.calls = n, 0

    def value_grad(self, w):
        self.calls += 1
        if self.calls > 2:
            raise Boom("shard lost")
        return 1.0 + float(w @ w), 2.0 * np.asarray(w)

    def hessp(self, w, v):
        return 2.0 * np.asarray(v)

    def line_derivatives(self, w, d, t, second):
        return 2.0 * float((w + t * d) @ d), 2.0 * float(d @ d)

    def n_pairs(self):
        return 0


def test_a_source_error_is_re_raised_as_is():
    with pytest.raises(Boom, match="shard lost"):
        _core.ranksvm_fit_with(FailingLoss(3), 3, 1.0, 1e-12, 50, 10, np.ones(3))
    with pytest.raises(ValueError, match="value_grad has 2 values, expected 3"):
        bad = FailingLoss(3)
        bad.value_grad = lambda w: (1.0, np.zeros(2))
        _core.ranksvm_fit_with(bad, 3, 1.0, 1e-6, 5, 5)


def test_ctrl_c_stops_a_solver_fed_by_a_source():
    """The solver runs with the GIL released; Ctrl-C while a request waits (here a sleep, on
    a cluster a gather) is re-raised as KeyboardInterrupt at once."""
    from conftest import INTERRUPT_LATENCY, interrupt_latency

    code = """
        import time, numpy as np
        from rankselect import _core

        class Slow:
            def value_grad(self, w):
                time.sleep(0.05)
                return float(w @ w) - float(w.sum()), 2 * w - 1
            def hessp(self, w, v):
                time.sleep(0.05)
                return 1e-9 * v
            def line_derivatives(self, w, d, t, second):
                time.sleep(0.05)
                return float((2 * (w + t * d) - 1) @ d), 2e-9 * float(d @ d)
            def n_pairs(self):
                return 1

        print("ready", flush=True)
        try:
            _core.ranksvm_fit_with(Slow(), 50, 1.0, 0.0, 10**6, 10**6)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", time.monotonic(), flush=True)
        """
    latency, out, err = interrupt_latency(code, after=1.0)
    assert "interrupted" in out, (out, err[-2000:])
    assert latency < INTERRUPT_LATENCY, latency  # measured inside the child (conftest)
